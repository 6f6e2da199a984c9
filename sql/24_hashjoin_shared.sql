--
-- PrefetchHashJoin with one hash table shared by the participants of a
-- Gather (fpbtree.hashjoin_parallel_shared): each participant loads its
-- share of a partial inner side, they build one table in shared memory
-- together, and each probes its share of the partial outer side.  Parallel
-- plans are forced by zero parallel costs; every result is compared with
-- the built-in join (enable_prefetch_hashjoin off, Parallel Hash on).
--

-- on its own: the extension, and plans that do not depend on the machine
\set ECHO none
\i sql/include/setup.sql
\set ECHO all
-- the planner hook and the executor nodes
LOAD 'fpbtree';

SET client_min_messages = warning;
SELECT setseed(0.2424);

-- int4 keys with NULLs and a skewed value, int8, text, duplicates
CREATE TABLE hs_a AS
SELECT g AS id,
       CASE WHEN g % 20 = 0 THEN NULL WHEN g % 9 = 0 THEN 7 ELSE (random() * 6000)::int END AS k,
       (g % 50)::int8 * 4294967296 + g % 3 AS k8,
       md5((g % 4000)::text) AS t
FROM generate_series(1, 20000) g;
CREATE TABLE hs_b AS
SELECT g AS id,
       CASE WHEN g % 15 = 0 THEN NULL WHEN g % 150 = 1 THEN 7 ELSE (random() * 6000)::int END AS k,
       (g % 70)::int8 * 4294967296 + g % 3 AS k8,
       md5((g % 3000)::text) AS t
FROM generate_series(1, 12000) g;
CREATE TABLE hs_empty (id int, k int, k8 int8, t text);
-- empty, but planned as 12000 rows (no vacuum since the delete)
CREATE TABLE hs_gone AS SELECT * FROM hs_b;
ANALYZE hs_a, hs_b, hs_empty, hs_gone;
DELETE FROM hs_gone;

-- hj_par_check(), hj_explain_lines()
\set ECHO none
\i sql/include/hj_helpers.sql
\set ECHO all

-- every query with 2 and 4 workers, without the leader, and with no
-- worker launched (the leader builds the shared table alone)
CREATE FUNCTION hjs_check_all(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    cfg text[];
BEGIN
    FOREACH cfg SLICE 1 IN ARRAY ARRAY[['2', 'on', '8'], ['4', 'on', '8'],
                                       ['2', 'off', '8'], ['2', 'on', '0']] LOOP
        PERFORM set_config('max_parallel_workers_per_gather', cfg[1], true);
        PERFORM set_config('parallel_leader_participation', cfg[2], true);
        PERFORM set_config('max_parallel_workers', cfg[3], true);
        RETURN NEXT rpad(cfg[1] || ' workers, leader ' || cfg[2] ||
                         CASE WHEN cfg[3] = '0' THEN ', none launched' ELSE '' END,
                         40) || hj_par_check(q, true);
    END LOOP;
END $$;

SET fpbtree.hashjoin_cache_size = 0;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SET parallel_setup_cost = 10;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;

-- on by default: both sides parallel scans, one shared table
SHOW fpbtree.hashjoin_parallel_shared;
SET fpbtree.hashjoin_parallel_shared = on;
BEGIN;
SET LOCAL max_parallel_workers_per_gather = 2;
SET LOCAL enable_parallel_hash = off;
EXPLAIN (COSTS OFF)
SELECT a.id, b.id FROM hs_a a JOIN hs_b b ON a.k = b.k;
-- off: the partial path with private tables
SET LOCAL fpbtree.hashjoin_parallel_shared = off;
EXPLAIN (COSTS OFF)
SELECT a.id, b.id FROM hs_a a JOIN hs_b b ON a.k = b.k;
COMMIT;

-- inner, left, semi, anti; int4, int8, text, two keys, int4 = int8;
-- NULLs, skew, duplicates
SELECT * FROM hjs_check_all('SELECT a.id, b.id FROM hs_a a JOIN hs_b b ON a.k = b.k');
SELECT * FROM hjs_check_all('SELECT a.k8, count(*), sum(a.id - b.id) FROM hs_a a JOIN hs_b b ON a.k8 = b.k8 GROUP BY 1');
SELECT * FROM hjs_check_all('SELECT a.id, b.id FROM hs_a a JOIN hs_b b ON a.t = b.t AND a.k8 % 3 = b.k8 % 3');
SELECT * FROM hjs_check_all('SELECT a.id, b.id FROM hs_a a JOIN hs_b b ON a.k = b.k AND a.t = b.t');
SELECT * FROM hjs_check_all('SELECT a.id, b.id FROM hs_a a JOIN hs_b b ON a.k = b.k8 % 6000');
SELECT * FROM hjs_check_all('SELECT a.id, b.id FROM hs_a a LEFT JOIN hs_b b ON a.k = b.k AND a.id % 3 <> b.id % 3');
SELECT * FROM hjs_check_all('SELECT a.id FROM hs_a a WHERE EXISTS (SELECT 1 FROM hs_b b WHERE b.t = a.t)');
SELECT * FROM hjs_check_all('SELECT a.id FROM hs_a a WHERE NOT EXISTS (SELECT 1 FROM hs_b b WHERE b.k = a.k)');
-- empty inner side, empty outer side
SELECT * FROM hjs_check_all('SELECT a.id, e.id FROM hs_a a JOIN hs_empty e ON a.k = e.k');
SELECT * FROM hjs_check_all('SELECT a.id, e.id FROM hs_a a LEFT JOIN hs_empty e ON a.k = e.k');
SELECT * FROM hjs_check_all('SELECT a.id FROM hs_a a WHERE NOT EXISTS (SELECT 1 FROM hs_empty e WHERE e.t = a.t)');
SELECT * FROM hjs_check_all('SELECT e.id, b.id FROM hs_empty e JOIN hs_b b ON e.k = b.k');
SELECT * FROM hjs_check_all('SELECT e.id, b.id FROM hs_empty e LEFT JOIN hs_b b ON e.k = b.k');
-- the same with a shared table (the planner expects rows)
SELECT * FROM hjs_check_all('SELECT a.id, e.id FROM hs_a a JOIN hs_gone e ON a.k = e.k');
SELECT * FROM hjs_check_all('SELECT a.id, e.id FROM hs_a a LEFT JOIN hs_gone e ON a.k = e.k');
SELECT * FROM hjs_check_all('SELECT e.id, a.id FROM hs_gone e JOIN hs_a a ON e.k = a.k');
SELECT * FROM hjs_check_all('SELECT e.id FROM hs_gone e WHERE NOT EXISTS (SELECT 1 FROM hs_a a WHERE e.k = a.k)');

-- radix-clustered probing of the shared table (forced: the tables are
-- small), each participant with its own chunks
SET fpbtree.hashjoin_radix_bits = 4;
SELECT * FROM hjs_check_all('SELECT a.id, b.id FROM hs_a a JOIN hs_b b ON a.k = b.k');
SELECT * FROM hjs_check_all('SELECT a.id, b.id FROM hs_a a LEFT JOIN hs_b b ON a.t = b.t AND a.k8 % 3 = b.k8 % 3');
SELECT * FROM hjs_check_all('SELECT a.id FROM hs_a a WHERE NOT EXISTS (SELECT 1 FROM hs_b b WHERE b.k = a.k)');
SELECT * FROM hjs_check_all('SELECT count(*) FROM (SELECT a.id FROM hs_a a JOIN hs_b b ON a.k = b.k LIMIT 50000) s');
RESET fpbtree.hashjoin_radix_bits;

-- every prefetching scheme walks the shared table's buckets (runs of
-- tuples in bucket order): pipelined at distances 1 and 3, none, groups
-- of one; by-value keys with many duplicates and a join filter, text keys
-- (compared by the hash clause), semi and anti joins
SET fpbtree.hashjoin_prefetch = pipelined;
SELECT * FROM hjs_check_all('SELECT a.id, b.id FROM hs_a a JOIN hs_b b ON a.k8 = b.k8 AND a.id % 100 = b.id % 100');
SET fpbtree.hashjoin_prefetch_distance = 3;
SELECT * FROM hjs_check_all('SELECT a.id, b.id FROM hs_a a LEFT JOIN hs_b b ON a.t = b.t');
RESET fpbtree.hashjoin_prefetch_distance;
SET fpbtree.hashjoin_prefetch = none;
SELECT * FROM hjs_check_all('SELECT a.id FROM hs_a a WHERE EXISTS (SELECT 1 FROM hs_b b WHERE b.k = a.k)');
SELECT * FROM hjs_check_all('SELECT a.id FROM hs_a a WHERE NOT EXISTS (SELECT 1 FROM hs_b b WHERE b.t = a.t)');
SET fpbtree.hashjoin_prefetch = "group";
SET fpbtree.hashjoin_group_size = 1;
SELECT * FROM hjs_check_all('SELECT a.id, b.id FROM hs_a a JOIN hs_b b ON a.k = b.k');
RESET fpbtree.hashjoin_group_size;
RESET fpbtree.hashjoin_prefetch;

-- LIMIT: the Gather stops the participants early
SELECT * FROM hjs_check_all('SELECT count(*) FROM (SELECT a.id FROM hs_a a JOIN hs_b b ON a.k = b.k LIMIT 50000) s');

-- rescans of the Gather: a correlated subquery whose parameter is read
-- above the Gather only, so the shared table is freed and built again per
-- row (ReInitializeDSM)
CREATE TABLE hs_o AS SELECT g FROM generate_series(1, 4) g;
ANALYZE hs_o;
SELECT * FROM hjs_check_all('SELECT o.g, (SELECT count(*) + o.g FROM hs_a a JOIN hs_b b ON a.k = b.k) FROM hs_o o');
SELECT * FROM hjs_check_all('SELECT o.g, (SELECT count(*) * o.g FROM (SELECT 1 FROM hs_a a JOIN hs_b b ON a.k = b.k LIMIT 50000) s) FROM hs_o o');
SELECT * FROM hjs_check_all('SELECT o.g, (SELECT sum(a.id) - o.g FROM hs_a a WHERE NOT EXISTS (SELECT 1 FROM hs_b b WHERE b.k8 = a.k8)) FROM hs_o o');

-- the table outgrows its budget at run time (the planner expects 1/81 of
-- the inner rows: four inequalities on expressions, 1/3 each): it grows
-- past the budget, no batches, the same rows
CREATE TABLE hs_grow AS SELECT g AS id, g % 5000 AS k FROM generate_series(1, 30000) g;
ANALYZE hs_grow;
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT * FROM hjs_check_all('SELECT a.id, g.id FROM hs_a a JOIN hs_grow g ON a.k = g.k WHERE g.id + 0 > 0 AND g.id + 1 > 0 AND g.k + 0 >= 0 AND g.k + 1 > 0');
RESET work_mem;
RESET hash_mem_multiplier;

-- a set-returning SQL function evaluated lazily runs its plan without a
-- parallel context: the leader alone, the shared state private
CREATE FUNCTION hs_srf() RETURNS SETOF int LANGUAGE sql STABLE AS
    'SELECT a.id FROM hs_a a JOIN hs_b b ON a.k = b.k';
BEGIN;
SET LOCAL max_parallel_workers_per_gather = 2;
SET LOCAL enable_parallel_hash = off;
SET LOCAL fpbtree.hashjoin_parallel_shared = on;
CREATE TEMP TABLE hs_srf_on AS SELECT hs_srf() AS id;
SET LOCAL enable_prefetch_hashjoin = off;
CREATE TEMP TABLE hs_srf_off AS SELECT hs_srf() AS id;
SELECT (SELECT count(*) FROM hs_srf_on) AS n,
       (SELECT count(*) FROM ((TABLE hs_srf_on EXCEPT ALL TABLE hs_srf_off)
                              UNION ALL
                              (TABLE hs_srf_off EXCEPT ALL TABLE hs_srf_on)) d) AS differ;
COMMIT;

-- EXPLAIN ANALYZE: one table for everybody, one batch
BEGIN;
SET LOCAL max_parallel_workers_per_gather = 2;
SET LOCAL enable_parallel_hash = off;
SET LOCAL fpbtree.hashjoin_parallel_shared = on;
SELECT regexp_replace(l, ' \(actual.*', '') FROM hj_explain_lines('SELECT count(*) FROM hs_a a JOIN hs_b b ON a.k = b.k', '(PrefetchHashJoin|Shared|Batches|Spilled|Radix)', true) l;
SET LOCAL fpbtree.hashjoin_radix_bits = 4;
SELECT regexp_replace(l, ' \(actual.*', '') FROM hj_explain_lines('SELECT count(*) FROM hs_a a JOIN hs_b b ON a.k = b.k', '(PrefetchHashJoin|Radix)', true) l;
SET LOCAL fpbtree.hashjoin_radix_bits = -1;
-- every rescan of the Gather builds the table again (the leader alone:
-- with workers, they may have built it before the leader attaches)
SET LOCAL max_parallel_workers = 0;
SELECT regexp_replace(l, ' \(actual.*', '') FROM hj_explain_lines('SELECT o.g, (SELECT count(*) + o.g FROM hs_a a JOIN hs_b b ON a.k = b.k) FROM hs_o o', '(PrefetchHashJoin|Builds)', true) l;
COMMIT;
