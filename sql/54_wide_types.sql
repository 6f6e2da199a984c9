--
-- 54_wide_types: the key types of extension version 1.4 (numeric, bytea,
-- bit/varbit, name, interval, timetz, inet/cidr, tid, arrays, ranges,
-- multiranges, jsonb, tsvector, pg_lsn, xid8).  Two tables hold the same
-- generated rows, one with fpbtree indexes and one with btree indexes;
-- every predicate's rows (in order where the query orders: ties come in
-- heap order from both, and the tables' heaps are alike) are those of the
-- btree index, through index scans, index-only scans and bitmap scans,
-- after the bulk build, after inserts that split pages, and after deletes
-- and VACUUM; fpbtree_check passes.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

-- NULLs, duplicates, values that are equal but stored differently (1.0 and
-- 1.00, '1 mon' and '30 days'; jsonb only looks up 1.0 among 1s), the extremes of each type, values whose
-- prefixes tie (long common starts, numerics with the same first eight
-- digits, inet addresses that differ in host bits only)
CREATE FUNCTION wt_row(g int, OUT id int, OUT n numeric, OUT b bytea,
	OUT vb varbit, OUT bt bit(12), OUT nm name, OUT iv interval,
	OUT tz timetz, OUT ip inet, OUT cd cidr, OUT ti tid, OUT ar int[],
	OUT rg int4range, OUT mr int4multirange, OUT j jsonb, OUT tv tsvector,
	OUT lsn pg_lsn, OUT x8 xid8)
LANGUAGE sql IMMUTABLE AS $$
	SELECT g,
		CASE WHEN g % 53 = 0 THEN NULL
			 WHEN g % 29 = 0 THEN (ARRAY['NaN', 'Infinity', '-Infinity', '0',
				'-0.000', '1e300', '-1e300', '1e-300', '-1e-300', '1', '1.0',
				'1.00', '12345678.5', '12345678.25', '-12345678.5'])[1 + g % 15]::numeric
			 WHEN g % 7 = 0 THEN round((g % 200 - 100) / 7.0, g % 4)
			 ELSE ((g * 7919) % 100003 - 50000) * 10.0 ^ (g % 13 - 6) END,
		CASE WHEN g % 47 = 0 THEN NULL
			 WHEN g % 31 = 0 THEN (ARRAY['', '\x00', '\x0000', '\x00ff',
				'\xffffffffffffffffff'])[1 + g % 5]::bytea
			 WHEN g % 5 = 0 THEN ('\x0102030405060708' || lpad(to_hex(g % 300), 4, '0'))::bytea
			 ELSE decode(md5((g % 2500)::text), 'hex') END,
		CASE WHEN g % 43 = 0 THEN NULL
			 ELSE substring((g * 2654435761 % 4294967296)::bigint::bit(32)
							FROM 1 FOR 1 + g % 40)::varbit END,
		CASE WHEN g % 41 = 0 THEN NULL ELSE (g % 4096)::bit(12) END,
		CASE WHEN g % 37 = 0 THEN NULL
			 WHEN g % 3 = 0 THEN ('name_with_common_start_' || g % 500)::name
			 ELSE md5((g % 1500)::text)::name END,
		CASE WHEN g % 59 = 0 THEN NULL
			 WHEN g % 23 = 0 THEN (ARRAY['1 mon', '30 days', '720 hours',
				'-1 mon', '-30 days', '178000000 years', '-178000000 years',
				'0', '1 microsecond', '-1 microsecond', '1 day -24 hours',
				'2 mon -30 days'])[1 + g % 12]::interval
			 ELSE make_interval(0, g % 5 - 2, 0, g % 40 - 20, g % 24, 0,
								(g * 17 % 600000) / 1000.0) END,
		CASE WHEN g % 61 = 0 THEN NULL
			 ELSE make_time(g % 24, g * 7 % 60, (g * 13 % 60000) / 1000.0)::timetz
				  AT TIME ZONE (ARRAY['UTC', '+05:30', '-12:00', '+14:00', '-03:17'])[1 + g % 5] END,
		CASE WHEN g % 67 = 0 THEN NULL
			 WHEN g % 2 = 0 THEN ('10.' || (g % 7) || '.' || (g % 256) || '.' || (g % 13) || '/' || (8 + g % 25))::inet
			 ELSE ('2001:db8:' || to_hex(g % 5) || '::' || to_hex(g) || '/' || (g % 129))::inet END,
		CASE WHEN g % 71 = 0 THEN NULL
			 ELSE set_masklen(('10.' || (g % 256) || '.' || (g % 3 * 64) || '.0')::cidr, 8 + g % 11) END,
		CASE WHEN g % 73 = 0 THEN NULL
			 ELSE format('(%s,%s)', CASE WHEN g % 9 = 0 THEN 4294967295 ELSE g % 700 END,
						 g % 300)::tid END,
		CASE WHEN g % 79 = 0 THEN NULL
			 WHEN g % 19 = 0 THEN '{}'::int[]
			 ELSE ARRAY[g % 10, g % 77, NULLIF(g % 5, 0)] END,
		CASE WHEN g % 83 = 0 THEN NULL
			 WHEN g % 17 = 0 THEN 'empty'::int4range
			 ELSE int4range(g % 300 - CASE WHEN g % 11 = 0 THEN NULL ELSE 0 END,
							g % 300 + g % 7 + 1) END,
		CASE WHEN g % 89 = 0 THEN NULL
			 ELSE int4multirange(int4range(g % 100, g % 100 + 3),
								 int4range(g % 100 + 5 + g % 3, 200)) END,
		CASE WHEN g % 97 = 0 THEN NULL
			 WHEN g % 13 = 0 THEN (ARRAY['null', 'true', '[]', '{}', '"s"', '1', '-1e-3'])[1 + g % 7]::jsonb
			 ELSE jsonb_build_object('a', g % 13, 'b', CASE WHEN g % 2 = 0 THEN 'x' END) END,
		CASE WHEN g % 101 = 0 THEN NULL
			 ELSE to_tsvector('simple', 'w' || (g % 90) || ' v' || (g % 7)) END,
		CASE WHEN g % 103 = 0 THEN NULL
			 WHEN g % 31 = 0 THEN 'FFFFFFFF/FFFFFFFF'::pg_lsn
			 ELSE ((g % 900) || '/' || to_hex(g * 977))::pg_lsn END,
		CASE WHEN g % 107 = 0 THEN NULL
			 WHEN g % 31 = 0 THEN '18446744073709551615'::xid8
			 ELSE ((g % 1300) * 4099)::text::xid8 END
$$;

CREATE TABLE wt AS SELECT (wt_row(g)).* FROM generate_series(1, 3000) g;
CREATE TABLE wb AS SELECT * FROM wt;
ALTER TABLE wt SET (autovacuum_enabled = off);
ALTER TABLE wb SET (autovacuum_enabled = off);
DO $$
DECLARE
	c text;
BEGIN
	FOR c IN SELECT attname FROM pg_attribute
		WHERE attrelid = 'wt'::regclass AND attnum > 0 AND attname <> 'id' LOOP
		EXECUTE format('CREATE INDEX wt_%s ON wt USING fpbtree (%I)', c, c);
		EXECUTE format('CREATE INDEX wb_%s ON wb USING btree (%I)', c, c);
	END LOOP;
END $$;
VACUUM ANALYZE wt;
VACUUM ANALYZE wb;

-- the operator classes the indexes got
SELECT c.relname, o.opcname, f.opfname
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
JOIN pg_opclass o ON o.oid = i.indclass[0]
JOIN pg_opfamily f ON f.oid = o.opcfamily
WHERE c.relname LIKE 'wt\_%' ORDER BY 1;

-- Run q ($t: the table) on wt through index col's fpbtree index and on wb
-- through its btree index: 'ok' or what differs.  Rows are compared in
-- order when q orders (it then selects values that print alike when they
-- compare equal: the order of ties is not defined), else as a set.  Bitmap
-- scans too, whose rows are compared as a set.
CREATE FUNCTION wt_same(q text, col text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	fq text := replace(q, '$t', 'wt');
	bq text := replace(q, '$t', 'wb');
	ref text[];
	got text[];
	plan text;
BEGIN
	plan := fpb_plan(fq, 'index');
	IF plan !~ (' wt_' || col || '([ \n]|$)') THEN
		RETURN 'index: plan does not use wt_' || col || ': ' || plan;
	END IF;
	plan := fpb_plan(bq, 'index');
	IF plan !~ (' wb_' || col || '([ \n]|$)') THEN
		RETURN 'btree: plan does not use wb_' || col || ': ' || plan;
	END IF;
	ref := fpb_rows(bq, 'index');
	got := fpb_rows(fq, 'index');
	IF q !~* '\morder by\M' THEN
		got := fpb_sorted(got);
		ref := fpb_sorted(ref);
	END IF;
	IF got IS DISTINCT FROM ref THEN
		RETURN format('index: got %s, expected %s', got, ref);
	END IF;
	IF q ~* '\mwhere\M' THEN
		plan := fpb_plan(fq, 'bitmap');
		IF plan !~ (' wt_' || col || '([ \n]|$)') THEN
			RETURN 'bitmap: plan does not use wt_' || col || ': ' || plan;
		END IF;
		got := fpb_rows(fq, 'bitmap');
		IF fpb_sorted(got) IS DISTINCT FROM fpb_sorted(ref) THEN
			RETURN format('bitmap: got %s, expected %s', fpb_sorted(got),
						  fpb_sorted(ref));
		END IF;
	END IF;
	RETURN 'ok';
END $$;

-- the predicates: $c the column, $1 < $2 two constants, $a an array with
-- duplicates, a NULL and a value no row has (none for int[]: there are no
-- arrays of arrays); $k the column's value in a form that is the same for
-- equal values (1.0 and 1.00; '1 mon' and '30 days')
CREATE TABLE wt_k (col text, v1 text, v2 text, arr text, k text);
INSERT INTO wt_k VALUES
 ('n', '-1.5', '12345678.3', 'ARRAY[1.000, 1, ''NaN'', NULL, 0.5, ''-Infinity'', ''1e300'', 12345678.25]::numeric[]'),
 ('b', '''\x0102030405060708''::bytea', '''\x80''::bytea', 'ARRAY[''\x''::bytea, ''\x00'', ''\x00'', NULL, ''\x0102030405060708000a'', decode(md5(''7''), ''hex'')]'),
 ('vb', 'B''0101''', 'B''1000000000000000''', 'ARRAY[B''1'', B''10'', B''1'', NULL, substring((5 * 2654435761 % 4294967296)::bigint::bit(32) FROM 1 FOR 6)]::varbit[]'),
 ('bt', 'B''000011110000''', 'B''110000000000''', 'ARRAY[B''000000000001'', B''000000000001'', NULL, B''111111111111'', B''000000000111'']'),
 ('nm', '''name_with_common_start_2''', '''c''', 'ARRAY[''name_with_common_start_12''::name, md5(''7'')::name, NULL, ''zzz'', md5(''7'')::name]'),
 ('iv', '''-1 day''', '''30 days''', 'ARRAY[''1 mon''::interval, ''720 hours'', NULL, ''178000000 years'', ''0'', ''-1 mon'']'),
 ('tz', '''05:00+05:30''', '''18:00-03:17''', 'ARRAY[''00:00+00''::timetz, NULL, ''12:00+14'', (make_time(7, 49, 0.091)::timetz AT TIME ZONE ''+14:00'')]'),
 ('ip', '''10.3.0.0/16''', '''2001:db8:2::/48''', 'ARRAY[''10.0.0.0/8''::inet, NULL, ''10.2.2.2/26'', ''2001:db8:1::f/1'', ''::/0'']'),
 ('cd', '''10.100.0.0/16''', '''10.200.0.0/14''', 'ARRAY[''10.0.0.0/9''::cidr, NULL, ''10.0.0.0/9'', ''10.0.0.0/8'', ''10.64.0.0/10'']'),
 ('ti', '''(100,5)''', '''(650,0)''', 'ARRAY[''(1,1)''::tid, NULL, ''(4294967295,90)'', ''(7,7)'', ''(7,7)'']'),
 ('ar', '''{3}''', '''{7,70}''', NULL),
 ('rg', '''[5,8)''', '''[200,201)''', 'ARRAY[''empty''::int4range, ''[10,12)'', NULL, ''(,8)'', ''[10,12)'']'),
 ('mr', '''{[5,8),[13,200)}''', '''{[50,53)}''', 'ARRAY[''{[1,4),[7,200)}''::int4multirange, NULL, ''{}'']'),
 ('j', '''{"a": 3}''', '''{"a": 9, "b": "x"}''', 'ARRAY[''null''::jsonb, ''1'', ''1.0'', NULL, ''{"a": 4}'', ''[]'']'),
 ('tv', '''''''v3'''' ''''w2''''''', '''''''v1'''' ''''w5''''''', 'ARRAY[''''''v0'''' ''''w0''''''::tsvector, NULL, ''''''v3'''' ''''w10'''''']'),
 ('lsn', '''100/0''', '''800/A0000''', 'ARRAY[''FFFFFFFF/FFFFFFFF''::pg_lsn, NULL, ''7/1AB7'', ''0/0'']'),
 ('x8', '''1000000''', '''3000000''', 'ARRAY[''18446744073709551615''::xid8, NULL, ''4099'', ''0'']');

UPDATE wt_k SET k = CASE col WHEN 'n' THEN 'trim_scale(n)'
	WHEN 'iv' THEN 'justify_interval(iv)' ELSE col END;

CREATE TABLE wt_q (q text, col text);
INSERT INTO wt_q SELECT replace(replace(replace(replace(replace(q, '$k', k), '$c', col), '$1', v1), '$2', v2), '$a', coalesce(arr, '')), col
FROM wt_k, (VALUES
 ('SELECT $c, id FROM $t WHERE $c < $1'),
 ('SELECT $k FROM $t WHERE $c <= $1 ORDER BY $c DESC'),
 ('SELECT $c, id FROM $t WHERE $c = $1'),
 ('SELECT $k FROM $t WHERE $c >= $1 AND $c < $2 ORDER BY $c'),
 ('SELECT $c, id FROM $t WHERE $c > $2'),
 ('SELECT $k FROM $t WHERE $c BETWEEN $1 AND $2 ORDER BY $c DESC LIMIT 30'),
 ('SELECT $c, id FROM $t WHERE $c = ANY ($a)'),
 ('SELECT $k FROM $t WHERE $c = ANY ($a) AND $c > $1 ORDER BY $c'),
 ('SELECT $k FROM $t WHERE $c < ANY ($a) ORDER BY $c DESC'),
 ('SELECT count(*) FROM $t WHERE $c IS NULL'),
 ('SELECT $k FROM $t WHERE $c IS NOT NULL ORDER BY $c'),
 ('SELECT $k FROM $t ORDER BY $c DESC LIMIT 40')
) x(q)
WHERE arr IS NOT NULL OR q NOT LIKE '%$a%';
-- index-only scans return each value as stored
INSERT INTO wt_q VALUES
 ('SELECT n::text FROM $t WHERE n = 1', 'n'),
 ('SELECT n::text FROM $t WHERE n = 0', 'n'),
 ('SELECT iv::text FROM $t WHERE iv = ''1 mon''', 'iv'),
 ('SELECT iv::text FROM $t WHERE iv = ''0''', 'iv'),
 ('SELECT j::text FROM $t WHERE j = ''1.00''', 'j'),
 ('SELECT ip::text FROM $t WHERE ip >= ''10.3.0.0/8'' AND ip < ''10.3.255.0/24''', 'ip');

SELECT count(*) AS queries FROM wt_q;
CREATE FUNCTION wt_diffs() RETURNS TABLE (q text, diff text) LANGUAGE sql AS $$
	SELECT q, left(r, 300) FROM (SELECT q, wt_same(q, col) r FROM wt_q) s
	WHERE r <> 'ok'
$$;
SELECT * FROM wt_diffs();
SELECT fpb_plan('SELECT n::text FROM wt WHERE n = 1', 'index') ~ 'Index Only Scan' AS ios;

-- inserts that split pages, then deletes and VACUUM
INSERT INTO wt SELECT (wt_row(g)).* FROM generate_series(3001, 7000) g;
INSERT INTO wb SELECT (wt_row(g)).* FROM generate_series(3001, 7000) g;
SELECT * FROM wt_diffs();
DELETE FROM wt WHERE id % 3 = 0 OR (id > 1000 AND id < 3500);
DELETE FROM wb WHERE id % 3 = 0 OR (id > 1000 AND id < 3500);
VACUUM wt;
VACUUM wb;
INSERT INTO wt SELECT (wt_row(g)).* FROM generate_series(7001, 7600) g;
INSERT INTO wb SELECT (wt_row(g)).* FROM generate_series(7001, 7600) g;
SELECT * FROM wt_diffs();
SELECT c.relname, fpbtree_check(c.oid, true) FROM pg_class c
JOIN pg_am a ON a.oid = c.relam AND a.amname = 'fpbtree'
WHERE c.relname LIKE 'wt\_%' ORDER BY 1;

-- parallel scans give the btree index's rows (a costly filter the workers
-- evaluate makes parallel plans the cheapest)
CREATE FUNCTION wt_true(x int) RETURNS bool
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE COST 100000 AS $$ BEGIN RETURN true; END $$;
CREATE FUNCTION wt_par(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	plan text;
	r text;
BEGIN
	PERFORM fpb_mode('index');
	PERFORM set_config('parallel_setup_cost', '0', true);
	PERFORM set_config('parallel_tuple_cost', '0', true);
	PERFORM set_config('min_parallel_index_scan_size', '0', true);
	PERFORM set_config('min_parallel_table_scan_size', '0', true);
	PERFORM set_config('max_parallel_workers_per_gather', '2', true);
	plan := fpb_explain(replace(q, '$t', 'wt'));
	IF plan !~ 'Parallel Index' THEN
		RETURN 'not parallel: ' || plan;
	END IF;
	EXECUTE replace(q, '$t', 'wt') INTO r;
	RETURN r;
END $$;
CREATE FUNCTION wt_ref(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r text;
BEGIN
	PERFORM fpb_mode('index');
	EXECUTE replace(q, '$t', 'wb') INTO r;
	RETURN r;
END $$;
SELECT col, wt_par(q) = wt_ref(q) AS same, wt_par(q) ~ '^not' AS not_parallel
FROM (SELECT col, format('SELECT count(*) || '' '' || md5(string_agg(%I::text, '','' ORDER BY id)) FROM $t WHERE %I > %s AND wt_true(id)', col, col, v1) q FROM wt_k) s
ORDER BY 1;

-- unique indexes: values btree calls equal are duplicates (1.0 = 1.00,
-- '1 mon' = '30 days'); NULLs are distinct
CREATE TABLE wt_uq (n numeric, iv interval, b bytea, ip inet);
INSERT INTO wt_uq SELECT g / 4.0, g * interval '1 minute', int4send(g), ('10.0.0.0'::inet + g)
FROM generate_series(1, 3000) g;
INSERT INTO wt_uq VALUES (NULL, NULL, NULL, NULL), (NULL, NULL, NULL, NULL),
	('NaN', '178000000 years', '\x', '::/0');
CREATE UNIQUE INDEX wt_uq_n ON wt_uq USING fpbtree (n);
CREATE UNIQUE INDEX wt_uq_iv ON wt_uq USING fpbtree (iv);
CREATE UNIQUE INDEX wt_uq_b ON wt_uq USING fpbtree (b);
CREATE UNIQUE INDEX wt_uq_ip ON wt_uq USING fpbtree (ip);
INSERT INTO wt_uq (n) VALUES (2.5000);
INSERT INTO wt_uq (n) VALUES ('NaN');
INSERT INTO wt_uq (iv) VALUES ('1 hour');
INSERT INTO wt_uq (iv) VALUES ('0.5 day');
INSERT INTO wt_uq (b) VALUES ('\x00000001');
INSERT INTO wt_uq (b) VALUES ('\x');
INSERT INTO wt_uq (ip) VALUES ('10.0.0.17');
INSERT INTO wt_uq (ip) VALUES ('10.0.0.17/8');
INSERT INTO wt_uq (n, iv, b, ip) VALUES (0.1, '1 sec', '\x01', '10.0.0.17/16');
SELECT fpbtree_check('wt_uq_n', true), fpbtree_check('wt_uq_iv', true),
	   fpbtree_check('wt_uq_b', true), fpbtree_check('wt_uq_ip', true);
CREATE TABLE wt_uq2 AS SELECT * FROM wt_uq;
INSERT INTO wt_uq2 VALUES (0.10, '1 day', '\x0001', '::/0');
CREATE UNIQUE INDEX ON wt_uq2 USING fpbtree (n);
CREATE UNIQUE INDEX ON wt_uq2 USING fpbtree (iv);
CREATE UNIQUE INDEX ON wt_uq2 USING fpbtree (ip);
CREATE TABLE wt_uq3 (iv interval);
INSERT INTO wt_uq3 VALUES ('1 mon'), ('2 mon'), ('30 days');
CREATE UNIQUE INDEX ON wt_uq3 USING fpbtree (iv);

-- oidvector: its own class (btoidvectorcmp: the length first), and the
-- array class, which it may also take; a value keeps its 4-byte header in
-- the index, as oidvector's functions read it without detoasting
CREATE TABLE wt_ov (id int, o oidvector);
INSERT INTO wt_ov SELECT g, (g % 5 || ' ' || g % 97 || repeat(' 7', g % 3))::oidvector
FROM generate_series(1, 2000) g;
INSERT INTO wt_ov VALUES (0, ''), (-1, NULL);
CREATE TABLE wb_ov AS SELECT * FROM wt_ov;
CREATE INDEX wt_ov_o ON wt_ov USING fpbtree (o);
CREATE INDEX wb_ov_o ON wb_ov USING btree (o);
SELECT q, wt_same(q, 'ov_o') FROM (VALUES
 ('SELECT o, id FROM $t_ov WHERE o < ''1 50'''),
 ('SELECT o FROM $t_ov WHERE o >= ''2 3'' ORDER BY o'),
 ('SELECT o, id FROM $t_ov WHERE o = ANY (ARRAY[''1 1'', ''2 2 7'', '''']::oidvector[])'),
 ('SELECT o FROM $t_ov ORDER BY o DESC LIMIT 20')) x(q);
CREATE INDEX wt_ov_a ON wt_ov USING fpbtree (o array_ops);
DROP INDEX wt_ov_o;
SELECT fpb_plan('SELECT o FROM wt_ov WHERE o::oid[] >= ''{4,90}'' ORDER BY o::oid[]', 'index')
	~ 'Index Only Scan using wt_ov_a' AS array_ios;
SELECT fpb_rows('SELECT o FROM wt_ov WHERE o::oid[] >= ''{4,90}'' ORDER BY o::oid[]', 'index')
	= fpb_rows('SELECT o FROM wb_ov WHERE o::oid[] >= ''{4,90}'' ORDER BY o::oid[]', 'seq')
	AS same;
SELECT fpbtree_check('wt_ov_a', true);
