--
-- PrefetchHashJoin in parallel plans: the partial (parallel-oblivious) path
-- below a Gather, where every participant probes its share of a parallel
-- outer scan against a private table of the whole inner side.  Parallel
-- plans are forced by zero parallel costs; every result is compared with
-- the built-in join (enable_prefetch_hashjoin off, Parallel Hash on), and
-- hj_par_check also says whether PrefetchHashJoin ran below a Gather.
--

-- on its own: the extension, and plans that do not depend on the machine
\set ECHO none
\i sql/include/setup.sql
\set ECHO all
-- the planner hook and the executor nodes
LOAD 'fpbtree';

SET client_min_messages = warning;
SELECT setseed(0.2323);

-- int4 keys with NULLs and a skewed value, int8, text, duplicates
CREATE TABLE hp_a AS
SELECT g AS id,
       CASE WHEN g % 20 = 0 THEN NULL WHEN g % 9 = 0 THEN 7 ELSE (random() * 6000)::int END AS k,
       (g % 50)::int8 * 4294967296 + g % 3 AS k8,
       md5((g % 4000)::text) AS t
FROM generate_series(1, 20000) g;
CREATE TABLE hp_b AS
SELECT g AS id,
       CASE WHEN g % 15 = 0 THEN NULL WHEN g % 150 = 1 THEN 7 ELSE (random() * 6000)::int END AS k,
       (g % 70)::int8 * 4294967296 + g % 3 AS k8,
       md5((g % 3000)::text) AS t
FROM generate_series(1, 6000) g;
CREATE TABLE hp_empty (id int, k int, k8 int8, t text);
ANALYZE hp_a, hp_b, hp_empty;

-- hj_check(), hj_par_check(), hj_explain_lines(): against the built-in join
\set ECHO none
\i sql/include/hj_helpers.sql
\set ECHO all

-- every query in the three parallel configurations
CREATE FUNCTION hjp_check_all(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    cfg text[];
BEGIN
    FOREACH cfg SLICE 1 IN ARRAY ARRAY[['2', 'on'], ['4', 'on'], ['2', 'off']] LOOP
        PERFORM set_config('max_parallel_workers_per_gather', cfg[1], true);
        PERFORM set_config('parallel_leader_participation', cfg[2], true);
        RETURN NEXT rpad(cfg[1] || ' workers, leader ' || cfg[2], 22) || hj_par_check(q, false);
    END LOOP;
END $$;

SET fpbtree.hashjoin_cache_size = 0;
-- the private-table path: the shared one is sql/24_hashjoin_shared.sql's
SET fpbtree.hashjoin_parallel_shared = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
-- not 0: a serial join over two Gathers should not tie with one Gather
SET parallel_setup_cost = 10;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers = 8;

BEGIN;
-- the plan: PrefetchHashJoin below Gather, outer side a parallel scan,
-- inner side complete
SET LOCAL max_parallel_workers_per_gather = 2;
SET LOCAL enable_parallel_hash = off;
EXPLAIN (COSTS OFF)
SELECT a.id, b.id FROM hp_a a JOIN hp_b b ON a.k = b.k;
COMMIT;

-- inner, left, semi, anti; int4, int8, text and two keys; NULLs, skew,
-- duplicates
SELECT * FROM hjp_check_all('SELECT a.id, b.id FROM hp_a a JOIN hp_b b ON a.k = b.k');
SELECT * FROM hjp_check_all('SELECT a.k8, count(*), sum(a.id - b.id) FROM hp_a a JOIN hp_b b ON a.k8 = b.k8 GROUP BY 1');
SELECT * FROM hjp_check_all('SELECT a.id, b.id FROM hp_a a JOIN hp_b b ON a.t = b.t AND a.k8 % 3 = b.k8 % 3');
SELECT * FROM hjp_check_all('SELECT a.id, b.id FROM hp_a a JOIN hp_b b ON a.k = b.k AND a.t = b.t');
SELECT * FROM hjp_check_all('SELECT a.id, b.id FROM hp_a a LEFT JOIN hp_b b ON a.k = b.k AND a.id % 3 <> b.id % 3');
SELECT * FROM hjp_check_all('SELECT a.id FROM hp_a a WHERE EXISTS (SELECT 1 FROM hp_b b WHERE b.t = a.t)');
SELECT * FROM hjp_check_all('SELECT a.id FROM hp_a a WHERE NOT EXISTS (SELECT 1 FROM hp_b b WHERE b.k = a.k)');
-- right and full joins are never partial: each copy would emit the
-- unmatched inner rows that it alone did not match
SELECT * FROM hjp_check_all('SELECT a.id, b.id FROM hp_b b RIGHT JOIN hp_a a ON a.k = b.k');
SELECT * FROM hjp_check_all('SELECT a.id, b.id FROM hp_a a FULL JOIN hp_b b ON a.k8 = b.k8 AND a.id < b.id * 4');
-- empty sides (a serial join over Gathers wins some: still compared)
SELECT * FROM hjp_check_all('SELECT a.id, e.id FROM hp_a a JOIN hp_empty e ON a.k = e.k');
SELECT * FROM hjp_check_all('SELECT a.id, e.id FROM hp_a a LEFT JOIN hp_empty e ON a.k = e.k');
SELECT * FROM hjp_check_all('SELECT a.id FROM hp_a a WHERE NOT EXISTS (SELECT 1 FROM hp_empty e WHERE e.t = a.t)');
SELECT * FROM hjp_check_all('SELECT e.id, b.id FROM hp_empty e JOIN hp_b b ON e.k = b.k');

-- a tiny hash_mem: every participant spills its own batches
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT * FROM hjp_check_all('SELECT a.id, b.id FROM hp_a a JOIN hp_b b ON a.k = b.k');
SELECT * FROM hjp_check_all('SELECT a.id, b.id FROM hp_a a LEFT JOIN hp_b b ON a.t = b.t');
SELECT * FROM hjp_check_all('SELECT a.id FROM hp_a a WHERE NOT EXISTS (SELECT 1 FROM hp_b b WHERE b.k8 = a.k8 AND b.k = a.k)');
RESET work_mem;
RESET hash_mem_multiplier;

-- LIMIT: the Gather stops the participants early (half the rows: a
-- smaller LIMIT makes a serial plan cheaper)
SELECT * FROM hjp_check_all('SELECT count(*) FROM (SELECT a.id FROM hp_a a JOIN hp_b b ON a.k = b.k LIMIT 50000) s');

-- rescans of the Gather: a correlated subquery whose parameter is read
-- above the Gather only, so the whole parallel join runs again per row
CREATE TABLE hp_o AS SELECT g FROM generate_series(1, 4) g;
ANALYZE hp_o;
SELECT * FROM hjp_check_all('SELECT o.g, (SELECT count(*) + o.g FROM hp_a a JOIN hp_b b ON a.k = b.k) FROM hp_o o');
SELECT * FROM hjp_check_all('SELECT o.g, (SELECT count(*) * o.g FROM (SELECT 1 FROM hp_a a JOIN hp_b b ON a.k = b.k LIMIT 50000) s) FROM hp_o o');
SET work_mem = '64kB';
SELECT * FROM hjp_check_all('SELECT o.g, (SELECT sum(a.id) - o.g FROM hp_a a LEFT JOIN hp_b b ON a.k = b.k) FROM hp_o o');
RESET work_mem;

-- EXPLAIN ANALYZE adds up the participants' figures and, with VERBOSE,
-- lists each worker's.  A participant whose share of the outer side is
-- empty may end before building (as the built-in join does), so only
-- relations between the figures are shown: with the leader out, the builds
-- are the workers' sum, one per worker that built, two at most
CREATE FUNCTION hjp_builds(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    line text;
    total int;
    nworkers int := 0;
    wsum int := 0;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
        IF line ~ 'PrefetchHashJoin' THEN
            RETURN NEXT regexp_replace(btrim(regexp_replace(line, '^\s*->\s*', '')), ' \(actual.*', '');
        ELSIF line ~ '^\s*Builds: ' THEN
            total := split_part(line, ': ', 2)::int;
        ELSIF line ~ 'Worker \d: Builds: ' THEN
            nworkers := nworkers + 1;
            wsum := wsum + substring(line from 'Builds: (\d+)')::int;
        END IF;
    END LOOP;
    RETURN NEXT 'builds = sum over workers: ' || (total = wsum) ||
        ', one per worker: ' || (wsum = nworkers) ||
        ', 1 to 2 workers: ' || (nworkers BETWEEN 1 AND 2);
END $$;
CREATE FUNCTION hjp_builds_json(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    plan json;
    node json;
    w json;
    nworkers int := 0;
    wsum int := 0;
    numbered bool := true;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q INTO plan;
    -- Aggregate -> Gather -> (Partial Aggregate ->) the join
    node := plan->0->'Plan';
    WHILE node->>'Custom Plan Provider' IS DISTINCT FROM 'PrefetchHashJoin' LOOP
        node := node->'Plans'->0;
    END LOOP;
    FOR w IN SELECT json_array_elements(node->'Worker Hash Tables') LOOP
        nworkers := nworkers + 1;
        wsum := wsum + (w->>'Builds')::int;
        numbered := numbered AND (w->>'Worker Number')::int BETWEEN 0 AND 1
            AND json_typeof(w->'Peak Memory Usage') = 'number';
    END LOOP;
    RETURN NEXT 'json: builds = sum over workers: ' || ((node->>'Builds')::int = wsum) ||
        ', 1 to 2 workers: ' || (nworkers BETWEEN 1 AND 2) ||
        ', numbered: ' || numbered ||
        ', core workers array: ' || (json_typeof(node->'Workers') = 'array');
END $$;
BEGIN;
SET LOCAL max_parallel_workers_per_gather = 2;
SET LOCAL parallel_leader_participation = off;
SET LOCAL enable_parallel_hash = off;
SELECT * FROM hjp_builds('SELECT count(*) FROM hp_a a JOIN hp_b b ON a.k = b.k');
SELECT * FROM hjp_builds('SELECT a.id FROM hp_a a WHERE NOT EXISTS (SELECT 1 FROM hp_b b WHERE b.k = a.k)');
-- the structured formats give the workers' figures as objects, not strings,
-- beside the core's own "Workers" array
SELECT * FROM hjp_builds_json('SELECT count(*) FROM hp_a a JOIN hp_b b ON a.k = b.k');
-- every participant loads the whole inner side, so each grows to the same
-- number of batches
SET LOCAL parallel_leader_participation = on;
SET LOCAL work_mem = '64kB';
SET LOCAL hash_mem_multiplier = 1;
SELECT regexp_replace(l, ' \(actual.*', '') FROM hj_explain_lines('SELECT count(*) FROM hp_a a JOIN hp_b b ON a.k = b.k', '(PrefetchHashJoin|Batches|Spilled)', true) l;
COMMIT;
