--
-- 84_int_rows: packed rows that leave a leading integer to the prefix
-- (README "Packed rows", Prefix bytes left out).  In a multi-column index
-- whose first column is an int2, int4, date or int8, ascending with NULLs
-- last, the coded prefix begins with that column's code; where the code
-- fits the prefix (every int2, int4 and date, an int8 from -2^41 to
-- 2^41 - 1), an index built since the format flag (fpbtree_format:
-- int_prefix_rows) stores the row without the value.  Rows compare by the
-- rest only where prefixes tie; index-only scans, filters on the first
-- column, kept copies, the split's groups and fpbtree_check get the value
-- back from the key.  The data has values on either side of -2^41 and 2^41,
-- extremes, runs of equal rows and NULLs.  Everything answers as btree.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all
SET enable_seqscan = off;
SET enable_bitmapscan = off;

-- k: 500 small tenants, and keys near -2^42, -2^41, 2^41 and 2^42 and the
-- int8 extremes; (k, ts) repeats (runs); NULLs in every column
CREATE TABLE ir (id int4, k int8, ts timestamptz, i int4, s int2, d date,
				 t text)
	WITH (autovacuum_enabled = off);
INSERT INTO ir SELECT g,
	CASE WHEN g % 97 = 0 THEN NULL
		 WHEN g % 89 = 0 THEN -9223372036854775808
		 WHEN g % 83 = 0 THEN 9223372036854775807
		 WHEN g % 3 = 0 THEN (g % 5 - 2) * 2199023255552 + g % 13 - 6
		 ELSE g % 500 END,
	'2026-01-01'::timestamptz + (g % 40) * interval '1 hour',
	CASE WHEN g % 91 = 0 THEN NULL WHEN g % 79 = 0 THEN -2147483648
		 WHEN g % 73 = 0 THEN 2147483647 ELSE g % 700 - 350 END,
	CASE WHEN g % 71 = 0 THEN NULL WHEN g % 67 = 0 THEN -32768
		 WHEN g % 61 = 0 THEN 32767 ELSE g % 300 END,
	CASE WHEN g % 59 = 0 THEN NULL WHEN g % 53 = 0 THEN 'infinity'::date
		 WHEN g % 47 = 0 THEN '-infinity'::date
		 ELSE date '2020-01-01' + g % 900 END,
	CASE WHEN g % 43 = 0 THEN NULL ELSE 'v' || (g % 31) END
FROM generate_series(1, 60000) g ORDER BY hashint4(g);
CREATE TABLE ir_bt AS SELECT * FROM ir;
CREATE INDEX ir_kt ON ir USING fpbtree (k, ts);
CREATE INDEX ir_ik ON ir USING fpbtree (i, k) INCLUDE (id);
CREATE INDEX ir_sdt ON ir USING fpbtree (s, d, t);
CREATE INDEX ir_dk ON ir USING fpbtree (d, k);
CREATE INDEX ir_kdesc ON ir USING fpbtree (k DESC, ts);
CREATE INDEX ir_knf ON ir USING fpbtree (k NULLS FIRST, ts);
CREATE INDEX ir_bt_kt ON ir_bt (k, ts);
CREATE INDEX ir_bt_ik ON ir_bt (i, k) INCLUDE (id);
CREATE INDEX ir_bt_sdt ON ir_bt (s, d, t);
CREATE INDEX ir_bt_dk ON ir_bt (d, k);
CREATE INDEX ir_bt_kdesc ON ir_bt (k DESC, ts);
CREATE INDEX ir_bt_knf ON ir_bt (k NULLS FIRST, ts);
VACUUM ANALYZE ir, ir_bt;

-- the format: a leading integer, ASC NULLS LAST or DESC NULLS FIRST (a
-- DESC row whose complemented key is 0, the int8 maximum, keeps its value)
SELECT i, f.format, f.reindex_adds
FROM unnest(ARRAY['ir_kt', 'ir_ik', 'ir_sdt', 'ir_dk', 'ir_kdesc', 'ir_knf']) i,
	 fpbtree_format(i::regclass) f;

-- the size against btree's: 100,000 (int8, timestamptz) rows of 1,000
-- tenants measured 1.24 times before the flag, here at most btree's
CREATE TABLE ir_s (k int8, ts timestamptz);
INSERT INTO ir_s SELECT g % 1000, '2026-01-01'::timestamptz + g * interval '1 s'
FROM generate_series(1, 100000) g;
CREATE INDEX ir_s_f ON ir_s USING fpbtree (k, ts);
CREATE INDEX ir_s_b ON ir_s (k, ts);
SELECT pg_relation_size('ir_s_f') <= pg_relation_size('ir_s_b') AS built_within_btree_size;
-- (int4, int4), 1.28 times before
CREATE TABLE ir_s4 (a int4, b int4);
INSERT INTO ir_s4 SELECT g % 1000, g FROM generate_series(1, 100000) g;
CREATE INDEX ir_s4_f ON ir_s4 USING fpbtree (a, b);
CREATE INDEX ir_s4_b ON ir_s4 (a, b);
SELECT pg_relation_size('ir_s4_f') <= 1.15 * pg_relation_size('ir_s4_b') AS int4_near_btree_size;
-- grown by rows of random tenants: 1.03 times before
TRUNCATE ir_s;
INSERT INTO ir_s SELECT hashint4(g) & 1023, '2026-01-01'::timestamptz + g * interval '1 s'
FROM generate_series(1, 100000) g;
SELECT pg_relation_size('ir_s_f') <= pg_relation_size('ir_s_b') AS grown_within_btree_size,
	   fpbtree_check('ir_s_f', true);
DROP TABLE ir_s, ir_s4;

-- the same answers as btree's: index-only scans return each value whole,
-- ordered scans both ways, bounds at and across the keys whose codes stop
-- fitting, array keys on the first column (filters that read it), row
-- comparisons, cross-type bounds
CREATE FUNCTION ir_all() RETURNS TABLE (q text, r text) LANGUAGE sql AS $$
	SELECT q, fpb_same_as(q, 'ir', 'ir_bt') FROM unnest(ARRAY[
		'SELECT k, ts FROM ir ORDER BY k, ts',
		'SELECT k, ts FROM ir ORDER BY k DESC NULLS FIRST, ts DESC',
		'SELECT k, ts FROM ir ORDER BY k DESC, ts',
		'SELECT k, ts FROM ir WHERE k < 2199023255553 AND k > -2199023255554 ORDER BY k DESC, ts',
		'SELECT k, ts FROM ir ORDER BY k NULLS FIRST, ts',
		'SELECT k FROM ir WHERE k > 9223372036854775000 OR k < -9223372036854775000 ORDER BY k DESC',
		'SELECT i, k, id FROM ir WHERE i IS NOT NULL ORDER BY i, k, id',
		'SELECT s, d, t FROM ir ORDER BY s, d, t',
		'SELECT d, k FROM ir WHERE d > ''2021-06-01'' ORDER BY d, k',
		'SELECT k, ts FROM ir WHERE k BETWEEN 2199023255545 AND 2199023255560 ORDER BY k, ts',
		'SELECT k, ts FROM ir WHERE k >= -2199023255553 AND k < -2199023255540 ORDER BY k DESC, ts DESC',
		'SELECT ts FROM ir WHERE k = 2199023255551 ORDER BY ts',
		'SELECT ts FROM ir WHERE k = 2199023255552 ORDER BY ts DESC',
		'SELECT ts FROM ir WHERE k = -2199023255552 AND ts > ''2026-01-01 10:00+00'' ORDER BY ts',
		'SELECT ts FROM ir WHERE k = -2199023255553 ORDER BY ts',
		'SELECT k, ts FROM ir WHERE k > 4398046511000 ORDER BY k, ts',
		'SELECT k, ts FROM ir WHERE k < -4398046511000 ORDER BY k DESC, ts',
		'SELECT count(*) FROM ir WHERE k IS NULL',
		'SELECT ts FROM ir WHERE k = 17 AND ts >= ''2026-01-01 20:00+00'' ORDER BY ts DESC LIMIT 10',
		'SELECT k, ts FROM ir WHERE k = ANY (ARRAY[0, 17, 499, 2199023255551, 2199023255552, -2199023255552, -2199023255553, 9223372036854775807, 123456789012345]) ORDER BY k, ts',
		'SELECT k, ts FROM ir WHERE k = ANY (ARRAY[3, 5, -2199023255550]) AND ts < ''2026-01-01 05:00+00'' ORDER BY k DESC, ts DESC',
		'SELECT i, k FROM ir WHERE i = ANY (ARRAY[-350, 0, 349, 2147483647]) AND k = ANY (ARRAY[0, 1, 2, 3, 349, 350]) ORDER BY i, k',
		'SELECT k, ts FROM ir WHERE (k, ts) > (2199023255540, ''2026-01-01 05:00+00'') ORDER BY k, ts LIMIT 400',
		'SELECT k, ts FROM ir WHERE (k, ts) <= (300, ''2026-01-01 05:00+00'') ORDER BY k DESC, ts DESC LIMIT 400',
		'SELECT i, k FROM ir WHERE i > 3000000000::int8 OR i < -3000000000::int8',
		'SELECT i, k FROM ir WHERE i >= 2147483647::int8 ORDER BY i, k',
		'SELECT s, d FROM ir WHERE s = 7::int8 AND d >= ''2021-01-01''::timestamptz ORDER BY s, d',
		'SELECT d, k FROM ir WHERE d = ''infinity'' ORDER BY d, k',
		'SELECT id FROM ir WHERE k BETWEEN 100 AND 120 ORDER BY id'
	]) q;
$$;
SELECT * FROM ir_all() WHERE r <> 'same';
SELECT count(*) AS queries FROM ir_all();
SELECT i, fpbtree_check(i::regclass, true)
FROM unnest(ARRAY['ir_kt', 'ir_ik', 'ir_sdt', 'ir_dk', 'ir_kdesc', 'ir_knf']) i;

-- a cursor that reads both ways across the keys whose codes stop fitting
BEGIN;
DECLARE cur SCROLL CURSOR FOR
	SELECT k, ts FROM ir WHERE k >= 2199023255545 ORDER BY k, ts;
FETCH 2 FROM cur;
MOVE FORWARD 300 IN cur;
FETCH BACKWARD 2 FROM cur;
MOVE FORWARD 100000 IN cur;
FETCH BACKWARD 1 FROM cur;
COMMIT;

-- a merge join marks and restores positions among equal rows
SET enable_hashjoin = off;
SET enable_nestloop = off;
SELECT fpb_explain('SELECT count(*) FROM ir a JOIN ir b USING (k, ts)') ~ 'Merge Join' AS merge;
SELECT (SELECT count(*) FROM ir a JOIN ir b USING (k, ts)) =
	   (SELECT count(*) FROM ir_bt a JOIN ir_bt b USING (k, ts)) AS same_join;
RESET enable_hashjoin;
RESET enable_nestloop;

-- inserts into runs and groups, on either side of the keys whose codes
-- stop fitting (splits whose groups end where first columns differ),
-- deletes, VACUUM
INSERT INTO ir SELECT g, CASE WHEN g % 2 = 0 THEN g % 500
	ELSE (g % 5 - 2) * 2199023255552 + g % 11 - 5 END,
	'2026-01-01'::timestamptz + (g % 40) * interval '1 hour',
	g % 700 - 350, (g % 300)::int2, date '2020-01-01' + g % 900, 'v' || (g % 31)
FROM generate_series(60001, 90000) g ORDER BY hashint4(g);
INSERT INTO ir SELECT -g, g % 7, '2026-02-01'::timestamptz - g * interval '1 min',
	g % 3, (g % 5)::int2, date '2026-01-01' - g % 20, 'x' || g
FROM generate_series(1, 6000) g;
INSERT INTO ir_bt SELECT * FROM ir WHERE id > 60000 OR id < 0;
DELETE FROM ir WHERE id % 7 = 3 OR id BETWEEN 20000 AND 26000;
DELETE FROM ir_bt WHERE id % 7 = 3 OR id BETWEEN 20000 AND 26000;
VACUUM ir;
VACUUM ir_bt;
SELECT * FROM ir_all() WHERE r <> 'same';
SELECT i, fpbtree_check(i::regclass, true)
FROM unnest(ARRAY['ir_kt', 'ir_ik', 'ir_sdt', 'ir_dk', 'ir_kdesc', 'ir_knf']) i;

-- a parallel scan copies the values of internal pages to share them out
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_index_scan_size = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT fpb_explain('SELECT sum(id) FROM ir WHERE k > 100') ~ 'Parallel Index' AS parallel;
SELECT (SELECT sum(id) FROM ir WHERE k > 100) =
	   (SELECT sum(id) FROM ir_bt WHERE k > 100) AS same_sum;
SELECT (SELECT sum(k % 1000 + extract(epoch FROM ts)) FROM ir WHERE k < 2199023255552) =
	   (SELECT sum(k % 1000 + extract(epoch FROM ts)) FROM ir_bt WHERE k < 2199023255552) AS same_ios_sum;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_index_scan_size;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- a unique index: the duplicate is found under a tied prefix, and the
-- error names the stored row's key whole; ON CONFLICT
CREATE TABLE ir_k (k int8, n int4, v int4);
CREATE UNIQUE INDEX ir_k_kn ON ir_k USING fpbtree (k, n);
-- (2^41 is 2199023255552: rows of keys 2199023255549 and 2199023255551
-- leave them to the prefix, those of 2199023255553 and 2199023255555 not)
INSERT INTO ir_k SELECT CASE WHEN g % 2 = 0 THEN g / 2 % 1250
	ELSE 2199023255548 + g % 8 END,
	CASE WHEN g % 2 = 0 THEN g / 2500 ELSE g / 8 END, g
FROM generate_series(1, 4999) g;
INSERT INTO ir_k VALUES (17, 0, 0);
INSERT INTO ir_k VALUES (2199023255551, 1, 0);
INSERT INTO ir_k VALUES (2199023255553, 0, 0);
INSERT INTO ir_k VALUES (2199023255552, 0, 0);
INSERT INTO ir_k VALUES (17, 2, 0);
INSERT INTO ir_k VALUES (17, 1, 0) ON CONFLICT (k, n) DO NOTHING;
INSERT INTO ir_k VALUES (17, 0, 0) ON CONFLICT (k, n) DO UPDATE SET v = -1;
INSERT INTO ir_k VALUES (2199023255553, 1, 0) ON CONFLICT (k, n) DO UPDATE SET v = -2;
SELECT count(*), count(DISTINCT (k, n)), sum(v) FROM ir_k;
SELECT k, n, v FROM ir_k WHERE k IN (17, 2199023255553) AND n < 3 ORDER BY k, n;
SELECT fpbtree_check('ir_k_kn', true);
DROP TABLE ir_k;

-- one key column and INCLUDE values: the key is left out too
CREATE TABLE ir_inc (k int8, v int4);
INSERT INTO ir_inc SELECT CASE WHEN g % 3 = 0 THEN 2199023255552 - g % 5
	ELSE g % 700 END, g
FROM generate_series(1, 20000) g;
CREATE TABLE ir_inc_bt AS SELECT * FROM ir_inc;
CREATE INDEX ir_inc_k ON ir_inc USING fpbtree (k) INCLUDE (v);
CREATE INDEX ir_inc_bt_k ON ir_inc_bt (k) INCLUDE (v);
VACUUM ANALYZE ir_inc, ir_inc_bt;
SELECT f.format FROM fpbtree_format('ir_inc_k') f;
SELECT fpb_same_as('SELECT k, v FROM ir_inc WHERE k > 600 ORDER BY k, v',
				   'ir_inc', 'ir_inc_bt') AS same_include,
	   fpbtree_check('ir_inc_k', true);
DROP TABLE ir_inc, ir_inc_bt;

-- a parallel build gives the serial build's index
SELECT fpb_parallel_build_same('ir_kt');

-- an index built without the flag (the developer setting that builds
-- without format flags) keeps whole rows and answers alike; a REINDEX adds
-- the flag
SET fpbtree.debug_codepoint_prefix_const = on;
CREATE INDEX ir_kt_old ON ir USING fpbtree (k, ts);
RESET fpbtree.debug_codepoint_prefix_const;
SELECT f.format, f.reindex_adds FROM fpbtree_format('ir_kt_old') f;
SELECT pg_relation_size('ir_kt_old') > pg_relation_size('ir_kt') AS larger;
DROP INDEX ir_kt;
INSERT INTO ir SELECT g, g % 600, now(), g, 1::int2, now()::date, 'y'
FROM generate_series(90001, 95000) g;
INSERT INTO ir_bt SELECT * FROM ir WHERE id > 90000;
SELECT * FROM ir_all() WHERE r <> 'same';
SELECT fpbtree_check('ir_kt_old', true);
REINDEX INDEX ir_kt_old;
SELECT f.format, f.reindex_adds FROM fpbtree_format('ir_kt_old') f;
SELECT * FROM ir_all() WHERE r <> 'same';
SELECT fpbtree_check('ir_kt_old', true);

DROP FUNCTION ir_all();
DROP TABLE ir, ir_bt;
RESET enable_seqscan;
RESET enable_bitmapscan;
