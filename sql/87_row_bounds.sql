--
-- 87_row_bounds: row bounds, the index condition "a >| ROW(x, y)" that
-- stands for the row comparison "(a, b) > (x, y)" on an fpbtree index
-- whose first key columns are the row's (src/am/README.md, "Row
-- comparisons"; extension version 1.9).  The scan starts at (x, y) when
-- the values are exactly keys of their columns and the columns share one
-- direction, and checks the comparison on the rows with NULLs; otherwise
-- it starts at x and checks every row.  Answers against btree's (which
-- takes row comparisons itself): few and many rows a first value, NULLs
-- in every column and in the bounds, rows of three, DESC and mixed
-- directions, NULLS FIRST, cross-type values, text and uuid columns,
-- INCLUDE, runs of equal rows, generic plans, rescans from a lateral
-- join, cursors both ways, parallel scans.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all
SET enable_seqscan = off;
SET enable_bitmapscan = off;

-- a: 40 values (many rows each); b: unique but NULL every 23rd; c: text
-- with NULLs; d: dates; u: uuids; every tenth row repeated
CREATE TABLE rb (a int4, b int8, c text COLLATE "C", d date, u uuid,
				 n int4) WITH (autovacuum_enabled = off);
INSERT INTO rb SELECT CASE WHEN g % 97 = 0 THEN NULL ELSE g % 40 END,
	CASE WHEN g % 23 = 0 THEN NULL ELSE g END,
	CASE WHEN g % 19 = 0 THEN NULL ELSE 'k' || (g % 300) END,
	date '2026-01-01' + g % 50,
	md5((g % 1000)::text)::uuid, g
FROM generate_series(1, 20000) g, generate_series(1, CASE WHEN g % 10 = 0 THEN 3 ELSE 1 END)
ORDER BY hashint4(g);
CREATE TABLE rb_bt AS SELECT * FROM rb;
CREATE INDEX rb_ab ON rb USING fpbtree (a, b);
CREATE INDEX rb_abc ON rb USING fpbtree (a, b, c);
CREATE INDEX rb_ab_desc ON rb USING fpbtree (a DESC, b DESC);
CREATE INDEX rb_ab_mixed ON rb USING fpbtree (a, b DESC);
CREATE INDEX rb_ab_nf ON rb USING fpbtree (a, b NULLS FIRST);
CREATE INDEX rb_ca ON rb USING fpbtree (c, a) INCLUDE (n);
CREATE INDEX rb_da ON rb USING fpbtree (d, a);
CREATE INDEX rb_ua ON rb USING fpbtree (u, a);
CREATE INDEX rb_bt_ab ON rb_bt (a, b);
CREATE INDEX rb_bt_abc ON rb_bt (a, b, c);
CREATE INDEX rb_bt_ab_desc ON rb_bt (a DESC, b DESC);
CREATE INDEX rb_bt_ca ON rb_bt (c, a) INCLUDE (n);
CREATE INDEX rb_bt_da ON rb_bt (d, a);
CREATE INDEX rb_bt_ua ON rb_bt (u, a);
VACUUM ANALYZE rb, rb_bt;

-- the row bound is the index condition; a row whose columns are not the
-- index's first ones in order keeps the implied condition and the filter
SELECT fpb_explain($$SELECT a, b FROM rb WHERE (a, b) > (7, 1000) ORDER BY a, b LIMIT 10$$);
SELECT fpb_explain($$SELECT a, b FROM rb WHERE (7, 1000) > (a, b) ORDER BY a DESC, b DESC LIMIT 10$$);
SELECT fpb_explain($$SELECT a, c FROM rb WHERE (a, c) > (7, 'k5') ORDER BY a, c LIMIT 10$$);

-- a query that writes the operator itself gets an error, not a meaning:
-- no index scan takes it
SELECT count(*) FROM rb WHERE a >| ROW(7, 1000);
SET enable_indexscan = off;
SELECT count(*) FROM rb WHERE a >| ROW(7, 1000);
RESET enable_indexscan;
-- also with a value of a named composite type, which needs no cast to
-- record (its index scans ran), a whole row of another table in a join,
-- and a type with a dropped column (its index scan failed with XX000)
CREATE TYPE rb_pair AS (x int4, y int8);
SELECT count(*) FROM rb WHERE a >| ROW(7, 1000)::rb_pair;
SELECT count(*) FROM rb r1 JOIN rb_bt r2 ON r1.a >| r2 WHERE r2.n = 5;
ALTER TYPE rb_pair DROP ATTRIBUTE y;
ALTER TYPE rb_pair ADD ATTRIBUTE y int8;
SELECT count(*) FROM rb WHERE a >| ROW(7, 1000)::rb_pair;
DROP TYPE rb_pair;

-- random bounds against btree's answers, on each index form
CREATE FUNCTION pg_temp.rb_probe(idx text, cols text, n int, seed float8)
RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	ops text[] := ARRAY['<', '<=', '>', '>='];
	op text;
	q text;
	r text;
	x text;
	y text;
	z text;
	dir text;
	ncols int := CASE WHEN cols LIKE '%c%' THEN 3 ELSE 2 END;
BEGIN
	PERFORM setseed(seed);
	FOR i IN 1..n LOOP
		op := ops[1 + floor(random() * 4)::int];
		x := CASE WHEN random() < 0.05 THEN 'NULL'
				  ELSE (floor(random() * 42) - 1)::int::text END;
		y := CASE WHEN random() < 0.08 THEN 'NULL'
				  WHEN random() < 0.3 THEN (floor(random() * 300) * 23)::int::text
				  ELSE floor(random() * 20100)::int::text END;
		z := CASE WHEN random() < 0.1 THEN 'NULL'
				  ELSE quote_literal('k' || floor(random() * 300)::int) END;
		dir := CASE WHEN op LIKE '>%' THEN 'ASC' ELSE 'DESC' END;
		IF ncols = 2 THEN
			q := format('SELECT a, b, n FROM rb WHERE (a, b) %s (%s, %s)', op, x, y);
			q := q || format(' ORDER BY a %s, b %s, n', dir, dir);
		ELSE
			q := format('SELECT a, b, c, n FROM rb WHERE (a, b, c) %s (%s, %s, %s)',
						op, x, y, z);
			q := q || format(' ORDER BY a %s, b %s, c %s, n', dir, dir, dir);
		END IF;
		IF i % 3 <> 0 THEN
			q := q || format(' LIMIT %s', 1 + floor(random() * 300)::int);
		END IF;
		r := fpb_same_as(q, 'rb', 'rb_bt');
		IF r <> 'same' THEN
			RETURN NEXT idx || ': ' || q || ': ' || r;
		END IF;
	END LOOP;
END $$;
-- each index in turn alone: the others dropped inside a transaction
CREATE FUNCTION pg_temp.rb_only(idx text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	i text;
BEGIN
	FOR i IN SELECT indexrelid::regclass::text FROM pg_index
			 WHERE indrelid = 'rb'::regclass AND indexrelid <> idx::regclass LOOP
		EXECUTE format('DROP INDEX %I', i);
	END LOOP;
END $$;
BEGIN;
SELECT pg_temp.rb_only('rb_ab');
SELECT fpb_explain($$SELECT a, b FROM rb WHERE (a, b) >= (3, 30) ORDER BY a, b$$) ~ 'rb_ab .*>=\|' AS uses_rb_ab;
SELECT * FROM pg_temp.rb_probe('rb_ab', 'ab', 120, 0.1);
ROLLBACK;
BEGIN;
SELECT pg_temp.rb_only('rb_abc');
SELECT fpb_explain($$SELECT a, b, c FROM rb WHERE (a, b, c) > (3, 30, 'k2') ORDER BY a, b, c$$) ~ 'rb_abc .*>\| ROW\(3, 30' AS uses_rb_abc;
SELECT * FROM pg_temp.rb_probe('rb_abc', 'abc', 120, 0.2);
SELECT * FROM pg_temp.rb_probe('rb_abc', 'ab', 60, 0.3);
ROLLBACK;
BEGIN;
SELECT pg_temp.rb_only('rb_ab_desc');
SELECT fpb_explain($$SELECT a, b FROM rb WHERE (a, b) < (3, 30) ORDER BY a DESC, b DESC$$) ~ 'rb_ab_desc .*<\|' AS uses_rb_ab_desc;
SELECT * FROM pg_temp.rb_probe('rb_ab_desc', 'ab', 120, 0.4);
ROLLBACK;
BEGIN;
SELECT pg_temp.rb_only('rb_ab_mixed');
SELECT fpb_explain($$SELECT a, b FROM rb WHERE (a, b) > (3, 30)$$) ~ 'rb_ab_mixed .*>\|' AS uses_rb_ab_mixed;
SELECT * FROM pg_temp.rb_probe('rb_ab_mixed', 'ab', 120, 0.5);
ROLLBACK;
BEGIN;
SELECT pg_temp.rb_only('rb_ab_nf');
SELECT fpb_explain($$SELECT a, b FROM rb WHERE (a, b) > (3, 30)$$) ~ 'rb_ab_nf .*>\|' AS uses_rb_ab_nf;
SELECT * FROM pg_temp.rb_probe('rb_ab_nf', 'ab', 120, 0.6);
ROLLBACK;

-- other column types: text (C), dates bounded by timestamps (a value
-- between two keys: no start at it), uuids, INCLUDE columns returned
SELECT q, fpb_same_as(q, 'rb', 'rb_bt') FROM (VALUES
	($$SELECT c, a, n FROM rb WHERE (c, a) > ('k150', 20) ORDER BY c, a, n LIMIT 200$$),
	($$SELECT c, a, n FROM rb WHERE (c, a) <= ('k150', NULL) ORDER BY c DESC, a DESC, n$$),
	($$SELECT c, a, n FROM rb WHERE (c, a) >= ('', -1) ORDER BY c, a, n LIMIT 50$$),
	($$SELECT d, a FROM rb WHERE (d, a) > ('2026-01-20', 5) ORDER BY d, a LIMIT 300$$),
	($$SELECT d, a FROM rb WHERE (d, a) >= (timestamp '2026-01-20 12:00', 5) ORDER BY d, a LIMIT 300$$),
	($$SELECT d, a FROM rb WHERE (d, a) < (timestamptz '2026-01-20 00:00+00', 5) ORDER BY d DESC, a DESC LIMIT 300$$),
	($$SELECT u, a FROM rb WHERE (u, a) > ('8f14e45f-ceea-167a-5a36-dedd4bea2543', 3) ORDER BY u, a LIMIT 100$$),
	($$SELECT a, b FROM rb WHERE (a, b) > (7::int8, 1000::int2) ORDER BY a, b LIMIT 100$$),
	($$SELECT a, b FROM rb WHERE (a, b) > (7, 99999999999) ORDER BY a, b LIMIT 100$$),
	($$SELECT a, b FROM rb WHERE (a, b) > (7, 1000) AND a < 9 AND b % 2 = 0 ORDER BY a, b$$),
	($$SELECT a, b FROM rb WHERE (a, b) > (7, 1000) AND a = ANY (ARRAY[3, 7, 8, 30]) ORDER BY a, b$$),
	($$SELECT a, b FROM rb WHERE (a, b) > (7, 1000) AND (a, b) <= (9, 500) ORDER BY a, b$$),
	($$SELECT a, b FROM rb WHERE (a, b) > (45, 1) ORDER BY a, b$$),
	($$SELECT a, b FROM rb WHERE (a, b) < (-1, 1) ORDER BY a, b$$),
	($$SELECT count(*) FROM rb WHERE (a, b) >= (0, 0)$$)) v(q);
SELECT fpb_explain($$SELECT d, a FROM rb WHERE (d, a) > ('2026-01-20', 5) ORDER BY d, a LIMIT 3$$) ~ '>\| ROW' AS date_row_bound;

-- a generic plan: the bound's values change with each execution, NULLs too
SET plan_cache_mode = force_generic_plan;
PREPARE rb_page(int4, int8) AS
SELECT a, b FROM rb WHERE (a, b) > ($1, $2) ORDER BY a, b LIMIT 4;
EXPLAIN (COSTS OFF) EXECUTE rb_page(7, 1000);
EXECUTE rb_page(7, 1000);
EXECUTE rb_page(7, NULL);
EXECUTE rb_page(NULL, 1000);
EXECUTE rb_page(39, 19999);
SELECT a, b FROM rb_bt WHERE (a, b) > (7, 1000) ORDER BY a, b LIMIT 4;
SELECT a, b FROM rb_bt WHERE (a, b) > (39, 19999) ORDER BY a, b LIMIT 4;
DEALLOCATE rb_page;
RESET plan_cache_mode;

-- rescans: each outer row pages from its own bound
CREATE TABLE rb_outer AS SELECT a, b FROM rb WHERE n % 997 = 1
UNION ALL VALUES (NULL::int4, 5::int8), (5, NULL), (39, 99999);
SELECT fpb_explain($$SELECT o.a, o.b, s.* FROM rb_outer o, LATERAL
	(SELECT count(*), max(b) FROM (SELECT a, b FROM rb WHERE (a, b) > (o.a, o.b)
	 ORDER BY a, b LIMIT 50) x) s$$) ~ '>\| ROW\(o\.a, o\.b\)' AS lateral_row_bound;
SELECT fpb_same_as($$SELECT o.a, o.b, s.* FROM rb_outer o, LATERAL
	(SELECT count(*), max(b), sum(n) FROM (SELECT a, b, n FROM rb WHERE (a, b) > (o.a, o.b)
	 ORDER BY a, b, n LIMIT 50) x) s ORDER BY 1, 2$$, 'rb', 'rb_bt') AS lateral_same;

-- a cursor reads the bound's rows both ways
BEGIN;
DECLARE rbc SCROLL CURSOR FOR
	SELECT a, b FROM rb WHERE (a, b) >= (20, 15000) ORDER BY a, b;
FETCH 3 FROM rbc;
MOVE FORWARD 500 IN rbc;
FETCH BACKWARD 2 FROM rbc;
MOVE BACKWARD ALL IN rbc;
FETCH 2 FROM rbc;
COMMIT;

-- parallel scans: each participant computes the bound
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_index_scan_size = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT fpb_explain('SELECT sum(n) FROM rb WHERE (a, b) > (5, 700)') ~ 'Parallel Index.*\n.*>\|' AS parallel;
SELECT (SELECT sum(n) FROM rb WHERE (a, b) > (5, 700)) =
	   (SELECT sum(n) FROM rb_bt WHERE (a, b) > (5, 700)) AS same_sum;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_index_scan_size;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- after inserts, deletes and VACUUM
INSERT INTO rb SELECT g % 40, CASE WHEN g % 7 = 0 THEN NULL ELSE g END,
	'k' || (g % 300), date '2026-01-01' + g % 50, md5((g % 1000)::text)::uuid, g
FROM generate_series(20001, 26000) g;
INSERT INTO rb_bt SELECT * FROM rb WHERE n > 20000;
DELETE FROM rb WHERE n % 5 = 2;
DELETE FROM rb_bt WHERE n % 5 = 2;
VACUUM rb;
VACUUM rb_bt;
BEGIN;
SELECT pg_temp.rb_only('rb_abc');
SELECT * FROM pg_temp.rb_probe('rb_abc', 'abc', 60, 0.7);
ROLLBACK;
BEGIN;
SELECT pg_temp.rb_only('rb_ab');
SELECT * FROM pg_temp.rb_probe('rb_ab', 'ab', 60, 0.8);
ROLLBACK;
SELECT i, fpbtree_check(i::regclass, true)
FROM unnest(ARRAY['rb_ab', 'rb_abc', 'rb_ab_desc', 'rb_ab_mixed', 'rb_ab_nf']) i;

DROP TABLE rb, rb_bt, rb_outer;
RESET enable_seqscan;
RESET enable_bitmapscan;
