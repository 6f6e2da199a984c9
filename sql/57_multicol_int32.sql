--
-- 57_multicol_int32: multi-column indexes whose first column is int2, int4
-- or date, whose keys differ only in their low 32 bits: their extremes,
-- NULLs, a DESC NULLS FIRST column, cross-type bounds outside the column's
-- range, array keys, rescans and cursors, compared with a sequential scan;
-- every index is checked.
--

-- on its own: the extension and settings
\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

CREATE TABLE k32 (c int4, id int8, s int2, d date, t text)
	WITH (autovacuum_enabled = off);
INSERT INTO k32
SELECT CASE WHEN g % 211 = 0 THEN NULL
			WHEN g % 199 = 0 THEN -2147483648
			WHEN g % 197 = 0 THEN 2147483647
			ELSE (hashint4(g) & 1023) - 512 END,
	   g,
	   CASE WHEN g % 193 = 0 THEN -32768 WHEN g % 191 = 0 THEN 32767
			ELSE (g % 300)::int2 END,
	   CASE WHEN g % 181 = 0 THEN 'infinity'::date
			WHEN g % 179 = 0 THEN '-infinity'::date
			ELSE date '2020-01-01' + (g % 700) END,
	   'row ' || g
FROM generate_series(1, 30000) g ORDER BY hashint4(g + 1);
CREATE INDEX k32_c_id ON k32 USING fpbtree (c, id);
CREATE INDEX k32_s_c ON k32 USING fpbtree (s, c) INCLUDE (t);
CREATE INDEX k32_d ON k32 USING fpbtree (d, id);
CREATE INDEX k32_cdesc ON k32 USING fpbtree (c DESC NULLS FIRST, id);
-- and grown by inserts
INSERT INTO k32
SELECT (hashint4(g) & 1023) - 512, g, (g % 300)::int2, date '2020-01-01' + (g % 700), 'row ' || g
FROM generate_series(30001, 40000) g ORDER BY hashint4(g);
-- a sample of every row (300 x 134 > 40,000): the same statistics each run
SET default_statistics_target = 134;
VACUUM ANALYZE k32;
RESET default_statistics_target;
SELECT fpbtree_check('k32_c_id', true), fpbtree_check('k32_s_c', true),
	   fpbtree_check('k32_d', true), fpbtree_check('k32_cdesc', true);

-- scans, against a sequential scan: the DESC index first, then without it
-- (k32_c_id, whose rows leave c to the prefix, is smaller and would win
-- the planner's choice: out of the way for these two)
BEGIN;
DROP INDEX k32_c_id;
SELECT fpb_same('SELECT c, id FROM k32 WHERE c < -500 ORDER BY c DESC NULLS FIRST, id', 'k32_cdesc', true);
SELECT fpb_same('SELECT c, id FROM k32 WHERE c IS NULL OR c > 510 ORDER BY c DESC NULLS FIRST, id', 'k32_cdesc', true);
ROLLBACK;
DROP INDEX k32_cdesc;
SELECT fpb_same('SELECT c, id FROM k32 WHERE c = 7', 'k32_c_id');
SELECT fpb_same('SELECT c, id FROM k32 WHERE c = 7 AND id > 20000', 'k32_c_id');
SELECT fpb_same('SELECT c, id FROM k32 WHERE c BETWEEN -3 AND 3', 'k32_c_id');
SELECT fpb_same('SELECT c, id FROM k32 WHERE c < -511', 'k32_c_id');
SELECT fpb_same('SELECT c, id FROM k32 WHERE c >= 2147483647', 'k32_c_id');
SELECT fpb_same('SELECT c, id FROM k32 WHERE c <= -2147483648', 'k32_c_id');
SELECT fpb_same('SELECT c FROM k32 WHERE c > 3000000000::int8', 'k32_c_id');
SELECT fpb_same('SELECT c FROM k32 WHERE c < -3000000000::int8', 'k32_c_id');
SELECT fpb_same('SELECT c FROM k32 WHERE c > -3000000000::int8 AND c < 5::int8', 'k32_c_id');
SELECT fpb_same('SELECT c FROM k32 WHERE c = 2147483648::int8', 'k32_c_id');
SELECT fpb_same('SELECT c, id FROM k32 WHERE c IN (-512, 0, 5, 2147483647, 99999)', 'k32_c_id');
SELECT fpb_same('SELECT id FROM k32 WHERE c IS NULL', 'k32_c_id');
SELECT fpb_same('SELECT c, id FROM k32 WHERE c > 500 ORDER BY c DESC, id DESC', 'k32_c_id', true);
SELECT fpb_same('SELECT s, c, t FROM k32 WHERE s = 17 AND c > 0', 'k32_s_c');
SELECT fpb_same('SELECT s, c FROM k32 WHERE s < 0', 'k32_s_c');
SELECT fpb_same('SELECT s FROM k32 WHERE s > 40000', 'k32_s_c');
SELECT fpb_same('SELECT d, id FROM k32 WHERE d = date ''2020-03-01''', 'k32_d');
SELECT fpb_same('SELECT d, id FROM k32 WHERE d >= ''infinity''', 'k32_d');
SELECT fpb_same('SELECT d, id FROM k32 WHERE d < timestamp ''2020-01-05 12:00''', 'k32_d');
SELECT fpb_same('SELECT d FROM k32 WHERE d > timestamptz ''2021-06-01 00:00+00''', 'k32_d');

-- an index probed by a nested loop, rescanned with each outer row
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT fpb_same('SELECT p.v, k.id FROM (VALUES (-512), (0), (3), (2147483647), (NULL)) p(v) JOIN k32 k ON k.c = p.v AND k.id < 1000', 'k32_c_id');
RESET enable_hashjoin;
RESET enable_mergejoin;

-- a cursor both ways across the values
BEGIN;
SELECT fpb_mode('index');
DECLARE k SCROLL CURSOR FOR SELECT c, id FROM k32 WHERE c BETWEEN 0 AND 2 ORDER BY c, id;
FETCH 2 FROM k;
FETCH LAST FROM k;
FETCH BACKWARD 2 FROM k;
COMMIT;
