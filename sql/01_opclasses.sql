--
-- 01_opclasses: every operator class and every operator, including the
-- cross-type operators of the integer family (int2/int4/int8) and of the
-- float family (float4/float8).  Each query is run through the fpbtree
-- index (index scan or index-only scan, then bitmap scan) and compared with
-- a sequential scan; the expected output is counts of matching queries.
--

-- on its own: the extension, settings, fpb_same() and its helpers
\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

CREATE TABLE ops_int2 (id serial, v int2);
CREATE TABLE ops_int4 (id serial, v int4);
CREATE TABLE ops_int8 (id serial, v int8);
CREATE TABLE ops_float4 (id serial, v float4);
CREATE TABLE ops_float8 (id serial, v float8);
CREATE TABLE ops_date (id serial, v date);
CREATE TABLE ops_timestamp (id serial, v timestamp);
CREATE TABLE ops_timestamptz (id serial, v timestamptz);
CREATE TABLE ops_oid (id serial, v oid);

-- 3000 rows each: duplicates, NULLs (every 50th row) and the extremes
INSERT INTO ops_int2 (v)
	SELECT CASE WHEN g % 50 = 0 THEN NULL ELSE ((g * 7919) % 201 - 100) * 300 END
	FROM generate_series(1, 3000) g;
INSERT INTO ops_int2 (v) VALUES (-32768), (32767), (-32767), (32766), (0), (0);

INSERT INTO ops_int4 (v)
	SELECT CASE WHEN g % 50 = 0 THEN NULL ELSE ((g * 7919) % 2001 - 1000) * 1000003 END
	FROM generate_series(1, 3000) g;
INSERT INTO ops_int4 (v) VALUES (-2147483648), (2147483647), (-2147483647), (2147483646), (0), (40000), (-40000);

INSERT INTO ops_int8 (v)
	SELECT CASE WHEN g % 50 = 0 THEN NULL ELSE ((g * 7919) % 2001 - 1000) * 4611686018427387 END
	FROM generate_series(1, 3000) g;
INSERT INTO ops_int8 (v) VALUES (-9223372036854775808), (9223372036854775807),
	(-9223372036854775807), (9223372036854775806), (0), (40000), (-40000),
	(3000000000), (-3000000000), (2147483647), (-2147483648), (2147483648);

INSERT INTO ops_float4 (v)
	SELECT CASE WHEN g % 50 = 0 THEN NULL ELSE ((g * 7919) % 301 - 150) / 7.0 END
	FROM generate_series(1, 3000) g;
INSERT INTO ops_float4 (v) VALUES ('NaN'), ('NaN'), ('Infinity'), ('-Infinity'),
	('0.1'), ('-0.1'), ('1e-45'), ('-1e-45'), ('3.4028235e38'), ('-3.4028235e38'),
	('1.17549435e-38'), ('0'), ('-0');

INSERT INTO ops_float8 (v)
	SELECT CASE WHEN g % 50 = 0 THEN NULL ELSE ((g * 7919) % 301 - 150) / 7.0 END
	FROM generate_series(1, 3000) g;
INSERT INTO ops_float8 (v) VALUES ('NaN'), ('NaN'), ('Infinity'), ('-Infinity'),
	('0.1'), ('-0.1'), ('0.1'::float4), ('5e-324'), ('-5e-324'),
	('1.7976931348623157e308'), ('-1.7976931348623157e308'),
	('2.2250738585072014e-308'), ('0'), ('-0'), ('1e300');

INSERT INTO ops_date (v)
	SELECT CASE WHEN g % 50 = 0 THEN NULL ELSE date '2000-01-01' + ((g * 7919) % 5001 - 2500) END
	FROM generate_series(1, 3000) g;
INSERT INTO ops_date (v) VALUES ('infinity'), ('-infinity'), ('4714-11-24 BC'),
	('5874897-12-31'), ('1970-01-01'), ('2000-01-01');

INSERT INTO ops_timestamp (v)
	SELECT CASE WHEN g % 50 = 0 THEN NULL
		ELSE timestamp '2000-01-01 00:00:00' + ((g * 7919) % 5001 - 2500) * interval '1 hour 7.000013 sec' END
	FROM generate_series(1, 3000) g;
INSERT INTO ops_timestamp (v) VALUES ('infinity'), ('-infinity'),
	('4714-11-24 00:00:00 BC'), ('294276-12-31 23:59:59.999999'),
	('1970-01-01 00:00:00'), ('2000-01-01 00:00:00'), ('1999-12-31 23:59:59.999999');

INSERT INTO ops_timestamptz (v)
	SELECT CASE WHEN g % 50 = 0 THEN NULL
		ELSE timestamptz '2000-01-01 00:00:00+00' + ((g * 7919) % 5001 - 2500) * interval '1 hour 7.000013 sec' END
	FROM generate_series(1, 3000) g;
INSERT INTO ops_timestamptz (v) VALUES ('infinity'), ('-infinity'),
	('4714-11-24 00:00:00+00 BC'), ('294276-12-31 23:59:59.999999+00'),
	('1970-01-01 00:00:00+00'), ('2000-01-01 00:00:00+00'), ('1999-12-31 23:59:59.999999+00');

-- oids above 2^31 must sort after those below (unsigned comparison)
INSERT INTO ops_oid (v)
	SELECT CASE WHEN g % 50 = 0 THEN NULL ELSE ((g::int8 * 2654435761) % 4294967296)::oid END
	FROM generate_series(1, 3000) g;
INSERT INTO ops_oid (v) VALUES (0), (1), (2147483647), (2147483648), (4294967295), (4294967294);

-- the indexes, all with the default operator class of their type
CREATE INDEX ops_int2_v ON ops_int2 USING fpbtree (v);
CREATE INDEX ops_int4_v ON ops_int4 USING fpbtree (v);
CREATE INDEX ops_int8_v ON ops_int8 USING fpbtree (v);
CREATE INDEX ops_float4_v ON ops_float4 USING fpbtree (v);
CREATE INDEX ops_float8_v ON ops_float8 USING fpbtree (v);
CREATE INDEX ops_date_v ON ops_date USING fpbtree (v);
CREATE INDEX ops_timestamp_v ON ops_timestamp USING fpbtree (v);
CREATE INDEX ops_timestamptz_v ON ops_timestamptz USING fpbtree (v);
CREATE INDEX ops_oid_v ON ops_oid USING fpbtree (v);

-- each index took the operator class of its column type
SELECT c.relname, opc.opcname, opc.opcintype::regtype
FROM pg_index i
	JOIN pg_class c ON c.oid = i.indexrelid
	JOIN pg_opclass opc ON opc.oid = i.indclass[0]
WHERE c.relname LIKE 'ops\_%\_v'
ORDER BY c.relname;

VACUUM ANALYZE ops_int2, ops_int4, ops_int8, ops_float4, ops_float8,
	ops_date, ops_timestamp, ops_timestamptz, ops_oid;

SELECT fpbtree_check('ops_int2_v', true), fpbtree_check('ops_int4_v', true),
	   fpbtree_check('ops_int8_v', true), fpbtree_check('ops_float4_v', true),
	   fpbtree_check('ops_float8_v', true), fpbtree_check('ops_date_v', true),
	   fpbtree_check('ops_timestamp_v', true), fpbtree_check('ops_timestamptz_v', true),
	   fpbtree_check('ops_oid_v', true);

-- constants to compare with: the column's own type and, for the integer
-- and float families, every other type of the family (also values out of
-- the column type's range, and values not exactly representable in it)
CREATE TABLE ops_consts (tbl text, ctype text, c text);
INSERT INTO ops_consts
SELECT 'ops_int2', t, c || '::' || t
FROM unnest(ARRAY['int2', 'int4', 'int8']) t,
	 unnest(ARRAY['(-32768)', '(-300)', '0', '299', '300', '301', '32767']) c;
INSERT INTO ops_consts
SELECT 'ops_int2', t, c || '::' || t
FROM unnest(ARRAY['int4', 'int8']) t,
	 unnest(ARRAY['(-40000)', '40000', '(-2147483648)', '2147483647']) c;
INSERT INTO ops_consts
SELECT 'ops_int2', 'int8', c || '::int8'
FROM unnest(ARRAY['(-9223372036854775808)', '9223372036854775807']) c;

INSERT INTO ops_consts
SELECT 'ops_int4', t, c || '::' || t
FROM unnest(ARRAY['int2', 'int4', 'int8']) t,
	 unnest(ARRAY['(-32768)', '(-1)', '0', '1', '32767']) c;
INSERT INTO ops_consts
SELECT 'ops_int4', t, c || '::' || t
FROM unnest(ARRAY['int4', 'int8']) t,
	 unnest(ARRAY['(-2147483648)', '(-1000003)', '40000', '1000003', '1000004', '2147483647']) c;
INSERT INTO ops_consts
SELECT 'ops_int4', 'int8', c || '::int8'
FROM unnest(ARRAY['(-9223372036854775808)', '(-2147483649)', '2147483648', '9223372036854775807']) c;

INSERT INTO ops_consts
SELECT 'ops_int8', t, c || '::' || t
FROM unnest(ARRAY['int2', 'int4', 'int8']) t,
	 unnest(ARRAY['(-32768)', '(-1)', '0', '1', '32767']) c;
INSERT INTO ops_consts
SELECT 'ops_int8', t, c || '::' || t
FROM unnest(ARRAY['int4', 'int8']) t,
	 unnest(ARRAY['(-2147483648)', '(-40000)', '40000', '2147483647']) c;
INSERT INTO ops_consts
SELECT 'ops_int8', 'int8', c || '::int8'
FROM unnest(ARRAY['(-9223372036854775808)', '(-9223372036854775807)', '4611686018427387',
				  '4611686018427388', '2147483648', '3000000000', '9223372036854775806',
				  '9223372036854775807']) c;

INSERT INTO ops_consts
SELECT 'ops_float4', t, '''' || c || '''::' || t
FROM unnest(ARRAY['float4', 'float8']) t,
	 unnest(ARRAY['-Infinity', '-3.4028235e38', '-1', '-0', '0', '1e-45', '0.1', '1',
				  '3', '21.428572', 'Infinity', 'NaN']) c;
INSERT INTO ops_consts
SELECT 'ops_float4', 'float8', '''' || c || '''::float8'
FROM unnest(ARRAY['-1e300', '-1e-300', '1e-300', '0.1', '0.10000000149011612',
				  '21.428571428571427', '1e39', '1e300']) c;

INSERT INTO ops_consts
SELECT 'ops_float8', t, '''' || c || '''::' || t
FROM unnest(ARRAY['float4', 'float8']) t,
	 unnest(ARRAY['-Infinity', '-3.4028235e38', '-1', '-0', '0', '1e-45', '0.1', '1',
				  '3', '21.428572', 'Infinity', 'NaN']) c;
INSERT INTO ops_consts
SELECT 'ops_float8', 'float8', '''' || c || '''::float8'
FROM unnest(ARRAY['-1.7976931348623157e308', '-5e-324', '5e-324', '0.1', '21.428571428571427',
				  '1e300', '1.7976931348623157e308']) c;

INSERT INTO ops_consts
SELECT 'ops_date', 'date', '''' || c || '''::date'
FROM unnest(ARRAY['-infinity', '4714-11-24 BC', '1993-02-27', '2000-01-01', '2000-01-02',
				  '2006-11-06', '5874897-12-31', 'infinity']) c;

INSERT INTO ops_consts
SELECT 'ops_timestamp', 'timestamp', '''' || c || '''::timestamp'
FROM unnest(ARRAY['-infinity', '4714-11-24 00:00:00 BC', '1970-01-01', '1999-12-31 23:59:59.999999',
				  '2000-01-01', '2000-01-01 00:00:00.000001', '2000-01-01 01:00:07.000013',
				  '294276-12-31 23:59:59.999999', 'infinity']) c;

INSERT INTO ops_consts
SELECT 'ops_timestamptz', 'timestamptz', '''' || c || '''::timestamptz'
FROM unnest(ARRAY['-infinity', '4714-11-24 00:00:00+00 BC', '1970-01-01 00:00+00',
				  '1999-12-31 23:59:59.999999+00', '2000-01-01 00:00+00',
				  '2000-01-01 00:00:00.000001+00', '2000-01-01 01:00:07.000013+00',
				  '294276-12-31 23:59:59.999999+00', 'infinity']) c;

INSERT INTO ops_consts
SELECT 'ops_oid', 'oid', c || '::oid'
FROM unnest(ARRAY['0', '1', '1000', '2147483647', '2147483648', '3000000000', '4294967294',
				  '4294967295']) c;

-- every constant with every operator; selecting (id, v) gives index scans,
-- selecting v alone index-only scans
CREATE TABLE ops_queries AS
SELECT c.tbl, c.ctype, op,
	   format('SELECT %s FROM %I WHERE v %s %s',
			  CASE WHEN hashtext(c.c || op) & 1 = 0 THEN 'id, v' ELSE 'v' END,
			  c.tbl, op, c.c) AS q
FROM ops_consts c,
	 unnest(ARRAY['<', '<=', '=', '>=', '>']) op;
-- the constant on the left side (the planner commutes the operator), for
-- some of them
INSERT INTO ops_queries
SELECT c.tbl, c.ctype, op, format('SELECT id, v FROM %I WHERE %s %s v', c.tbl, c.c, op)
FROM ops_consts c, unnest(ARRAY['<', '<=', '=', '>=', '>']) op
WHERE hashtext(c.c || op) % 3 = 0;
-- two scan keys with types of the family mixed
INSERT INTO ops_queries
SELECT a.tbl, a.ctype || '+' || b.ctype, '>= <=',
	   format('SELECT v FROM %I WHERE v >= %s AND v <= %s', a.tbl, a.c, b.c)
FROM ops_consts a JOIN ops_consts b ON a.tbl = b.tbl AND a.c < b.c
WHERE (hashtext(a.c || b.c) & 7) = 0;

CREATE TABLE ops_results AS
SELECT tbl, ctype, op, q, fpb_same(q, tbl || '_v') AS res FROM ops_queries;

-- per column type and constant type: every query gave the seq scan's rows
SELECT tbl, ctype, count(*) > 0 AS has_queries,
	   count(*) FILTER (WHERE q LIKE 'SELECT v %') > 0 AS has_index_only,
	   count(*) FILTER (WHERE res <> 'ok') AS mismatches
FROM ops_results
WHERE ctype NOT LIKE '%+%'
GROUP BY tbl, ctype
ORDER BY tbl, ctype;

-- and per operator
SELECT op, count(*) > 0 AS has_queries, count(*) FILTER (WHERE res <> 'ok') AS mismatches
FROM ops_results GROUP BY op ORDER BY op;

-- the mixed two-key queries
SELECT count(*) > 30 AS enough, count(*) FILTER (WHERE res <> 'ok') AS mismatches
FROM ops_results WHERE ctype LIKE '%+%';

-- details of any failure (expect none)
SELECT q, left(res, 300) AS res FROM ops_results WHERE res <> 'ok' ORDER BY q LIMIT 20;

-- a few plans, to show the kinds of scan being tested
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT v FROM ops_int2 WHERE v < 1000::int8;
EXPLAIN (COSTS OFF) SELECT id, v FROM ops_float4 WHERE v = 0.1::float8;
EXPLAIN (COSTS OFF) SELECT id FROM ops_oid WHERE v > 2147483648::oid;
RESET enable_bitmapscan;
SET enable_indexscan = off;
EXPLAIN (COSTS OFF) SELECT id, v FROM ops_timestamptz WHERE v >= '2000-01-01 00:00+00' AND v < 'infinity';
RESET enable_indexscan;
RESET enable_seqscan;

-- spot checks with literal expected results
SET enable_seqscan = off;
SELECT v FROM ops_float4 WHERE v = 0.1::float8;          -- no row: 0.1f <> 0.1
SELECT v FROM ops_float4 WHERE v = 0.1::float4;
SELECT v FROM ops_float8 WHERE v = 0.1::float4 ORDER BY v;
SELECT count(*) FROM ops_int2 WHERE v > 40000::int4;
SELECT count(*) FROM ops_int2 WHERE v < 9223372036854775807::int8;
SELECT count(*) = (SELECT count(v) FROM ops_int2) AS all_not_null FROM ops_int2 WHERE v >= (-32768)::int2;
SELECT v FROM ops_oid WHERE v >= 4294967294 ORDER BY v;
SELECT v FROM ops_oid WHERE v <= 1 ORDER BY v;
SELECT v FROM ops_date WHERE v < '4714-11-25 BC' OR v > '5000000-01-01' ORDER BY v;
SELECT v FROM ops_timestamp WHERE v > '294276-12-31 23:59:59' ORDER BY v;
SELECT count(*) FROM ops_float8 WHERE v = 'NaN';
SELECT count(*) FROM ops_float8 WHERE v > 'Infinity';
SELECT v FROM ops_float8 WHERE v >= 1e300 ORDER BY v;
RESET enable_seqscan;

DROP TABLE ops_consts, ops_queries, ops_results;
