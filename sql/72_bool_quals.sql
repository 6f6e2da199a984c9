--
-- 72_bool_quals: WHERE flag, WHERE NOT flag and flag = true are index
-- conditions on an fpbtree boolean column, as on a btree one (src/am/README.md,
-- "Boolean columns"): the planner recognises only btree's and hash's
-- boolean families, and fpbtree shows it btree's.  Plans and rows against
-- sequential scans, with NULLs; the sort order below a constant boolean.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

CREATE TABLE bq (active bool, id int4, v int8) WITH (autovacuum_enabled = off);
INSERT INTO bq
SELECT CASE WHEN g % 7 = 0 THEN NULL ELSE g % 3 = 0 END, g % 500, g
FROM generate_series(1, 20000) g;
CREATE INDEX bq_ai ON bq USING fpbtree (active, id) INCLUDE (v);
VACUUM ANALYZE bq;

SET enable_seqscan = off;
SET enable_bitmapscan = off;
-- both columns bound the scan
EXPLAIN (COSTS OFF) SELECT v FROM bq WHERE active AND id = 5;
EXPLAIN (COSTS OFF) SELECT v FROM bq WHERE NOT active AND id = 5;
EXPLAIN (COSTS OFF) SELECT v FROM bq WHERE active = true AND id BETWEEN 5 AND 7;
EXPLAIN (COSTS OFF) SELECT v FROM bq WHERE active IS TRUE AND id = 5;
-- a constant first column: the index gives the order of the second
EXPLAIN (COSTS OFF) SELECT id, v FROM bq WHERE active ORDER BY id LIMIT 5;
RESET enable_seqscan;
RESET enable_bitmapscan;

SELECT fpb_same('SELECT v FROM bq WHERE active AND id = 5', 'bq_ai');
SELECT fpb_same('SELECT v FROM bq WHERE NOT active AND id = 5', 'bq_ai');
SELECT fpb_same('SELECT v FROM bq WHERE active = false AND id > 490', 'bq_ai');
SELECT fpb_same('SELECT v FROM bq WHERE active IS TRUE AND id = 7', 'bq_ai');
SELECT fpb_same('SELECT v FROM bq WHERE active IS NOT FALSE AND id = 7', 'bq_ai');
SELECT fpb_same('SELECT v FROM bq WHERE active IS NULL AND id = 7', 'bq_ai');
SELECT fpb_same('SELECT id, v FROM bq WHERE active ORDER BY id, v LIMIT 20', 'bq_ai', true);
SELECT fpb_same('SELECT id, v FROM bq WHERE NOT active ORDER BY id DESC, v DESC LIMIT 20', 'bq_ai', true);

-- a one-column index
CREATE INDEX bq_a ON bq USING fpbtree (active);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM bq WHERE NOT active;
RESET enable_seqscan;
SELECT fpb_same('SELECT count(*) FROM bq WHERE NOT active', 'bq_a');
SELECT fpbtree_check('bq_ai', true), fpbtree_check('bq_a', true);

DROP TABLE bq;
