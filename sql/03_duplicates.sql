--
-- 03_duplicates: long runs of equal keys, spanning many leaf pages; inserts
-- and deletes in the middle of them; checked with fpbtree_check and counts
-- through the index.
--

-- on its own: the extension and settings
\set ECHO none
\i sql/include/setup.sql
\set ECHO all

-- (no autovacuum: its page pins could keep VACUUM from removing dead tuples,
-- and the counts below are exact)
CREATE TABLE dup (id int4, k int8) WITH (autovacuum_enabled = off);
-- 200k equal keys, with a few other keys on both sides
INSERT INTO dup SELECT g, 42 FROM generate_series(1, 200000) g;
INSERT INTO dup SELECT 200000 + g, CASE WHEN g % 2 = 0 THEN 41 ELSE 43 END
	FROM generate_series(1, 1000) g;
CREATE INDEX dup_k ON dup USING fpbtree (k);
VACUUM ANALYZE dup;
SELECT fpbtree_check('dup_k', true);

SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM dup WHERE k = 42;
SELECT count(*) FROM dup WHERE k = 42;
SELECT count(*) FROM dup WHERE k < 42;
SELECT count(*) FROM dup WHERE k > 42;
SELECT count(*) FROM dup WHERE k >= 42;
SELECT count(*) FROM dup WHERE k <= 42;
SELECT count(*) FROM dup WHERE k BETWEEN 42 AND 42;
SELECT count(*) FROM dup WHERE k = 42::int4;
SELECT count(*) FROM dup WHERE k = 42::int2;
SELECT count(*) FROM dup WHERE k <> 42;            -- not indexable, filter
SELECT k, count(*) FROM dup GROUP BY k ORDER BY k;
-- every row of the run comes back exactly once, also read backwards
SELECT count(DISTINCT id), min(id), max(id) FROM dup WHERE k = 42;
SELECT count(*) FROM (SELECT k FROM dup WHERE k >= 42 ORDER BY k DESC) s;
SELECT k FROM dup WHERE k >= 42 ORDER BY k LIMIT 3;
SELECT k FROM dup WHERE k <= 42 ORDER BY k DESC LIMIT 3;
RESET enable_bitmapscan;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM dup WHERE k = 42;
SELECT count(*) FROM dup WHERE k = 42;
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_seqscan;

-- delete every third row of the run, and the VACUUM removes them from the
-- index
DELETE FROM dup WHERE k = 42 AND id % 3 = 0;
VACUUM dup;
SELECT fpbtree_check('dup_k', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM dup WHERE k = 42;
SELECT count(*) FROM dup WHERE k = 42 AND id % 3 = 0;
RESET enable_bitmapscan;
RESET enable_seqscan;

-- insert equal keys again: the freed heap space gives them TIDs in the
-- middle of the run, so they go between existing entries
INSERT INTO dup SELECT 300000 + g, 42 FROM generate_series(1, 30000) g;
-- and other keys, before, inside and after
INSERT INTO dup SELECT 400000 + g, (g % 3) + 41 FROM generate_series(1, 3000) g;
SELECT fpbtree_check('dup_k', true);

-- a second round of deletes: whole stretches, then the run's first half
DELETE FROM dup WHERE k = 42 AND id BETWEEN 50000 AND 120000;
DELETE FROM dup WHERE k = 41 AND id % 2 = 0;
VACUUM dup;
SELECT fpbtree_check('dup_k', true);
INSERT INTO dup SELECT 500000 + g, 42 FROM generate_series(1, 10000) g;
DELETE FROM dup WHERE k = 42 AND id > 505000;
SELECT fpbtree_check('dup_k', true);

-- compare with a sequential scan
CREATE TEMP TABLE dup_counts AS
SELECT (SELECT count(*) FROM dup WHERE k = 42) AS eq,
	   (SELECT count(*) FROM dup WHERE k < 42) AS lt,
	   (SELECT count(*) FROM dup WHERE k > 42) AS gt,
	   (SELECT sum(id::int8) FROM dup WHERE k = 42) AS ids;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT (SELECT count(*) FROM dup WHERE k = 42) = eq AS eq_same,
	   (SELECT count(*) FROM dup WHERE k < 42) = lt AS lt_same,
	   (SELECT count(*) FROM dup WHERE k > 42) = gt AS gt_same,
	   (SELECT sum(id::int8) FROM dup WHERE k = 42) = ids AS ids_same
FROM dup_counts;
SELECT count(*) FROM dup WHERE k = 42;
SELECT count(*) FROM dup WHERE k = 41;
SELECT count(*) FROM dup WHERE k = 43;
SELECT count(*) FROM (SELECT k FROM dup WHERE k >= 42 ORDER BY k DESC) s;
RESET enable_bitmapscan;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SELECT (SELECT count(*) FROM dup WHERE k = 42) = eq AS eq_same,
	   (SELECT sum(id::int8) FROM dup WHERE k = 42) = ids AS ids_same
FROM dup_counts;
RESET ALL;
SET max_parallel_workers_per_gather = 0;
SET jit = off;

-- the statistics count what is in the index
VACUUM dup;
SELECT s.entries = (SELECT count(*) FROM dup) AS entries_ok, s.height >= 2 AS tall
FROM fpbtree_stats('dup_k') s;

-- delete the whole run: the pages empty out, scans still work
DELETE FROM dup WHERE k = 42;
VACUUM dup;
SELECT fpbtree_check('dup_k', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM dup WHERE k = 42;
SELECT count(*) FROM dup WHERE k >= 41;
SELECT k FROM dup WHERE k > 41 ORDER BY k LIMIT 2;
SELECT k FROM dup WHERE k < 43 ORDER BY k DESC LIMIT 2;
RESET ALL;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
-- and the space can be used again
INSERT INTO dup SELECT 600000 + g, 42 FROM generate_series(1, 50000) g;
SELECT fpbtree_check('dup_k', true);
SET enable_seqscan = off;
SELECT count(*) FROM dup WHERE k = 42;
RESET enable_seqscan;

DROP TABLE dup;
