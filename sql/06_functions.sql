--
-- 06_functions: the node width model, fpbtree_stats, fpbtree_calibrate and
-- fpbtree_check on a sound index.
--

-- on its own: the extension and settings
\set ECHO none
\i sql/include/setup.sql
\set ECHO all

-- the paper's parameters: T1 = 150 ns for a full cache miss, Tnext = 10 ns
-- for each further pipelined line
SELECT * FROM fpbtree_node_widths(150, 10);
SELECT nonleaf_lines BETWEEN 1 AND 32 AS w_ok,
	   leaf_lines BETWEEN 1 AND 32 AS x_ok,
	   leaf_page_fanout > 100 AS fanout_ok,
	   inpage_levels BETWEEN 1 AND 8 AS levels_ok,
	   cost_ns > 0 AS cost_ok
FROM fpbtree_node_widths(150, 10);
-- the model is deterministic, and a deeper pipeline (cheaper Tnext) never
-- makes nodes narrower
SELECT a = b AS same FROM
	(SELECT row(w.*)::text AS a FROM fpbtree_node_widths(150, 10) w) x,
	(SELECT row(w.*)::text AS b FROM fpbtree_node_widths(150, 10) w) y;
SELECT cheap.nonleaf_lines >= dear.nonleaf_lines AS wider_or_same,
	   cheap.cost_ns <= dear.cost_ns AS cheaper_or_same
FROM fpbtree_node_widths(150, 1) cheap, fpbtree_node_widths(150, 150) dear;
-- with Tnext = T1 there is nothing to gain from prefetching wide nodes
SELECT * FROM fpbtree_node_widths(150, 150);
SELECT * FROM fpbtree_node_widths(300, 5);

-- calibration gives two positive numbers (their values vary: not shown)
SELECT t1_ns > 0 AS t1_positive, tnext_ns > 0 AS tnext_positive,
	   tnext_ns <= t1_ns * 10 AS plausible
FROM fpbtree_calibrate();

-- fpbtree_stats on a sizable index
CREATE TABLE fn_t (id int8, k int8) WITH (autovacuum_enabled = off);
INSERT INTO fn_t SELECT g, (g * 2654435761) % 1000003 FROM generate_series(1, 100000) g;
INSERT INTO fn_t SELECT 100000 + g, NULL FROM generate_series(1, 100) g;
CREATE INDEX fn_t_k ON fn_t USING fpbtree (k);
VACUUM ANALYZE fn_t;
SELECT height >= 2 AS tall,
	   array_length(pages_per_level, 1) = height AS one_count_per_level,
	   (pages_per_level[1] = 1 OR pages_per_level[height] = 1) AS one_root,
	   total_pages >= (SELECT sum(p) FROM unnest(pages_per_level) p) AS total_ok,
	   total_pages <= pg_relation_size('fn_t_k') / current_setting('block_size')::int AS within_file,
	   entries = (SELECT count(*) FROM fn_t) AS entries_ok,
	   avg_fill > 0 AND avg_fill <= 100 AS fill_ok,
	   nonleaf_node_bytes % 64 = 0 AND nonleaf_node_bytes BETWEEN 64 AND 2048 AS w_ok,
	   leaf_node_bytes % 64 = 0 AND leaf_node_bytes BETWEEN 64 AND 2048 AS x_ok,
	   leaf_page_fanout > 100 AS fanout_ok,
	   t1_ns > 0 AND tnext_ns > 0 AS calibration_ok
FROM fpbtree_stats('fn_t_k');
-- leaf pages hold about the fanout each
SELECT (SELECT entries FROM fpbtree_stats('fn_t_k')) <=
	   (SELECT max(p) * max(leaf_page_fanout) FROM fpbtree_stats('fn_t_k'), unnest(pages_per_level) p)
	   AS leaves_hold_entries;
-- without explicit widths, the index takes the model's widths for its own
-- calibration
SELECT s.nonleaf_node_bytes = w.nonleaf_lines * 64 AS w_from_model,
	   s.leaf_node_bytes = w.leaf_lines * 64 AS x_from_model,
	   s.leaf_page_fanout = w.leaf_page_fanout AS fanout_from_model
FROM fpbtree_stats('fn_t_k') s, fpbtree_node_widths(s.t1_ns, s.tnext_ns) w;
-- tnext_ns above t1_ns: the function refuses the pair; a build (also
-- TRUNCATE's) warns and takes tnext_ns = t1_ns, as it records
SELECT * FROM fpbtree_node_widths(1, 100000);
SET fpbtree.t1_ns = 150;
SET fpbtree.tnext_ns = 100000;
CREATE INDEX fn_t_kw ON fn_t USING fpbtree (k);
SELECT s.t1_ns, s.tnext_ns, s.leaf_node_bytes = w.leaf_lines * 64 AS x_from_model
FROM fpbtree_stats('fn_t_kw') s, fpbtree_node_widths(150, 150) w;
-- once per build: not again for the init fork of an unlogged index, nor
-- for the slices of a parallel build's leader
CREATE UNLOGGED TABLE fn_tu (k int8);
CREATE INDEX fn_tu_k ON fn_tu USING fpbtree (k);
DROP TABLE fn_tu;
BEGIN;
SET LOCAL max_parallel_maintenance_workers = 2;
SET LOCAL min_parallel_table_scan_size = 0;
SET LOCAL maintenance_work_mem = '64MB';
CREATE INDEX fn_t_kwp ON fn_t USING fpbtree (k);
ROLLBACK;
RESET fpbtree.tnext_ns;
RESET fpbtree.t1_ns;
DROP INDEX fn_t_kw;
-- explicit widths win
CREATE INDEX fn_t_k2 ON fn_t USING fpbtree (k) WITH (nonleaf_lines = 2, leaf_lines = 3);
SELECT nonleaf_node_bytes, leaf_node_bytes, entries FROM fpbtree_stats('fn_t_k2');
-- growing the index keeps the counts right
INSERT INTO fn_t SELECT 200000 + g, g FROM generate_series(1, 20000) g;
SELECT entries = (SELECT count(*) FROM fn_t) AS entries_ok FROM fpbtree_stats('fn_t_k');
SELECT entries = (SELECT count(*) FROM fn_t) AS entries_ok FROM fpbtree_stats('fn_t_k2');
DELETE FROM fn_t WHERE id % 2 = 0;
VACUUM fn_t;
SELECT entries = (SELECT count(*) FROM fn_t) AS entries_ok FROM fpbtree_stats('fn_t_k');
SELECT fpbtree_check('fn_t_k'), fpbtree_check('fn_t_k', true), fpbtree_check('fn_t_k2', true);
-- the default of heapallindexed is false
SELECT pg_get_function_arguments('fpbtree_check'::regproc);
SELECT pg_get_function_arguments('fpbtree_stats'::regproc);
SELECT pg_get_function_arguments('fpbtree_calibrate'::regproc);
SELECT pg_get_function_arguments('fpbtree_node_widths'::regproc);
DROP TABLE fn_t;
