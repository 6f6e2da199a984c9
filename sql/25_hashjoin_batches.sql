--
-- PrefetchHashJoin's shared table in batches: when the inner side does not
-- fit the participants' combined budget (work_mem 64kB here), both sides
-- are partitioned into shared batch files and the participants claim and
-- join whole batches.  Parallel plans are forced by zero parallel costs;
-- every result is compared with the built-in join (enable_prefetch_hashjoin
-- off, Parallel Hash on).
--

-- on its own: the extension, and plans that do not depend on the machine
\set ECHO none
\i sql/include/setup.sql
\set ECHO all
-- the planner hook and the executor nodes
LOAD 'fpbtree';

SET client_min_messages = warning;
SELECT setseed(0.2525);

-- outer side: NULL keys, duplicates, int8 and text keys; inner side: the
-- same with one key (7) on 30 % of its rows
CREATE TABLE hb_a AS
SELECT g AS id,
       CASE WHEN g % 25 = 0 THEN NULL WHEN g % 3000 = 1 THEN 7 ELSE (random() * 8000)::int END AS k,
       (g % 900)::int8 * 4294967296 + g % 2 AS k8,
       md5((g % 5000)::text) AS t
FROM generate_series(1, 12000) g;
CREATE TABLE hb_b AS
SELECT g AS id,
       CASE WHEN g % 20 = 0 THEN NULL WHEN g % 10 < 3 THEN 7 ELSE (random() * 8000)::int END AS k,
       (g % 3000)::int8 * 4294967296 + g % 2 AS k8,
       md5((g % 4000)::text) AS t
FROM generate_series(1, 8000) g;
-- empty, but planned as 20000 rows (no vacuum since the delete)
CREATE TABLE hb_gone AS SELECT * FROM hb_b;
-- a misestimate: the statistics know x = 0 on 1/200 of the rows (about
-- 500 rows in the end), then 100000 rows with x = 0 arrive
CREATE TABLE hb_mis AS SELECT g AS id, g AS k, g % 200 AS x FROM generate_series(1, 1000) g;
ANALYZE hb_a, hb_b, hb_gone, hb_mis;
DELETE FROM hb_gone;
INSERT INTO hb_mis SELECT g, g, 0 FROM generate_series(1, 100000) g;
CREATE TABLE hb_o AS SELECT g FROM generate_series(1, 3) g;
ANALYZE hb_o;

-- hj_par_check(), hj_explain_lines()
\set ECHO none
\i sql/include/hj_helpers.sql
\set ECHO all

-- every query with 2 workers and the leader, 4 workers without the
-- leader, and with no worker launched (the leader partitions and joins
-- every batch alone)
CREATE FUNCTION hjb_check_all(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    cfg text[];
BEGIN
    FOREACH cfg SLICE 1 IN ARRAY ARRAY[['2', 'on', '8'], ['4', 'off', '8'],
                                       ['2', 'on', '0']] LOOP
        PERFORM set_config('max_parallel_workers_per_gather', cfg[1], true);
        PERFORM set_config('parallel_leader_participation', cfg[2], true);
        PERFORM set_config('max_parallel_workers', cfg[3], true);
        RETURN NEXT rpad(cfg[1] || ' workers, leader ' || cfg[2] ||
                         CASE WHEN cfg[3] = '0' THEN ', none launched' ELSE '' END,
                         40) || hj_par_check(q, true);
    END LOOP;
END $$;

-- EXPLAIN ANALYZE's batches of the shared table: planned and actual, more
-- than one, and no temporary file left behind
CREATE FUNCTION hjb_batches(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    line text;
    shared boolean := false;
    planned int;
    actual int;
    spilled text;
BEGIN
    FOR line IN SELECT * FROM hj_explain_lines(q, '(Shared Hash Table|Batches|Spilled)', true) LOOP
        IF line ~ '^Shared Hash Table: true' THEN
            shared := true;
        ELSIF line ~ '^Original Batches: ' THEN
            planned := split_part(line, ': ', 2)::int;
        ELSIF line ~ '^Batches: ' THEN
            actual := split_part(line, ': ', 2)::int;
        ELSIF line ~ '^Spilled: ' THEN
            spilled := split_part(line, ': ', 2);
        END IF;
    END LOOP;
    RETURN 'shared: ' || shared || ', planned batches > 1: ' || (planned > 1) ||
        ', batches > 1: ' || (actual > 1) || ', spilled: ' || spilled ||
        ', temporary files left: ' || (SELECT count(*) FROM pg_ls_tmpdir());
END $$;

SET fpbtree.hashjoin_cache_size = 0;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET fpbtree.hashjoin_parallel_shared = on;
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;

-- the shared path is planned with batches
BEGIN;
SET LOCAL max_parallel_workers_per_gather = 2;
SET LOCAL enable_parallel_hash = off;
EXPLAIN (COSTS OFF)
SELECT a.id, b.id FROM hb_a a JOIN hb_b b ON a.k = b.k;
COMMIT;

-- inner, left, semi, anti; int4, int8, text, two keys; NULLs, the skewed
-- key, duplicates
SELECT * FROM hjb_check_all('SELECT a.id, b.id FROM hb_a a JOIN hb_b b ON a.k = b.k');
SELECT * FROM hjb_check_all('SELECT a.k8, count(*), sum(a.id - b.id) FROM hb_a a JOIN hb_b b ON a.k8 = b.k8 GROUP BY 1');
SELECT * FROM hjb_check_all('SELECT a.id, b.id FROM hb_a a JOIN hb_b b ON a.t = b.t');
SELECT * FROM hjb_check_all('SELECT a.id, b.id FROM hb_a a JOIN hb_b b ON a.k = b.k AND a.k8 % 2 = b.k8 % 2');
SELECT * FROM hjb_check_all('SELECT a.id, b.id FROM hb_a a LEFT JOIN hb_b b ON a.k8 = b.k8 AND a.id % 3 <> b.id % 3');
SELECT * FROM hjb_check_all('SELECT a.id, b.id FROM hb_a a LEFT JOIN hb_b b ON a.t = b.t');
SELECT * FROM hjb_check_all('SELECT a.id FROM hb_a a WHERE EXISTS (SELECT 1 FROM hb_b b WHERE b.t = a.t)');
SELECT * FROM hjb_check_all('SELECT a.id FROM hb_a a WHERE NOT EXISTS (SELECT 1 FROM hb_b b WHERE b.k = a.k)');
-- right and full joins: always in shared batches, each joined by one
-- participant, which emits its batch's unmatched inner tuples (NULL keys
-- from batch 0)
SELECT * FROM hjb_check_all('SELECT a.id, b.id FROM hb_a a FULL JOIN hb_b b ON a.k = b.k');
SELECT * FROM hjb_check_all('SELECT a.id, b.id FROM hb_a a FULL JOIN hb_b b ON a.k8 = b.k8 AND a.id % 3 <> b.id % 3');
SELECT * FROM hjb_check_all('SELECT a.id, b.id FROM hb_b b RIGHT JOIN hb_a a ON a.t = b.t');
SELECT * FROM hjb_check_all('SELECT a.id, b.id FROM hb_a a FULL JOIN hb_gone b ON a.k = b.k');

-- empty inner side, empty outer side, planned with rows (and batches)
SELECT * FROM hjb_check_all('SELECT a.id, e.id FROM hb_a a JOIN hb_gone e ON a.k = e.k');
SELECT * FROM hjb_check_all('SELECT a.id FROM hb_a a WHERE NOT EXISTS (SELECT 1 FROM hb_gone e WHERE e.t = a.t)');
SELECT * FROM hjb_check_all('SELECT e.id, b.id FROM hb_gone e JOIN hb_b b ON e.k = b.k');

-- a misestimate: planned in memory, 100000 rows arrive, LOAD switches to
-- batches (with the default parallel_tuple_cost: at zero, a serial join
-- above two Gathers costs as little as the parallel one)
SET parallel_tuple_cost = 0.1;
SELECT * FROM hjb_check_all('SELECT a.id, m.id FROM hb_a a JOIN hb_mis m ON a.k = m.k WHERE m.x = 0');
SET parallel_tuple_cost = 0;
SELECT * FROM hjb_check_all('SELECT a.id FROM hb_a a WHERE NOT EXISTS (SELECT 1 FROM hb_mis m WHERE m.k = a.k + 1 AND m.x = 0)');

-- LIMIT above the Gather stops the participants early
SELECT * FROM hjb_check_all('SELECT count(*) FROM (SELECT a.id FROM hb_a a JOIN hb_b b ON a.k = b.k LIMIT 10000) s');

-- rescans of the Gather, whose parameter changes per outer row (the
-- batches and their files start again per rescan), with LIMIT too
SELECT * FROM hjb_check_all('SELECT o.g, (SELECT count(*) + o.g FROM hb_a a JOIN hb_b b ON a.k = b.k) FROM hb_o o');
SELECT * FROM hjb_check_all('SELECT o.g, (SELECT sum(a.id) - o.g FROM hb_a a LEFT JOIN hb_b b ON a.t = b.t) FROM hb_o o');
SELECT * FROM hjb_check_all('SELECT o.g, (SELECT count(*) * o.g FROM (SELECT 1 FROM hb_a a JOIN hb_b b ON a.k = b.k LIMIT 10000) s) FROM hb_o o');
SELECT * FROM hjb_check_all('SELECT o.g, s.c FROM hb_o o CROSS JOIN LATERAL (SELECT count(*) + o.g AS c FROM hb_a a JOIN hb_b b ON a.k8 = b.k8) s');

-- rows longer than a batch's output buffer (chunks of their own), and the
-- partition phase's prefetching (staged records) into shared batch files
CREATE TABLE hb_wide (id int, k int, pad text);
ALTER TABLE hb_wide ALTER pad SET STORAGE plain;
INSERT INTO hb_wide SELECT g, g % 500, (SELECT string_agg(md5((g * 100 + i)::text), '') FROM generate_series(1, 160) i) FROM generate_series(1, 600) g;
ANALYZE hb_wide;
SELECT * FROM hjb_check_all('SELECT a.id, w.id, md5(w.pad) FROM hb_a a JOIN hb_wide w ON a.k = w.k');
SET fpbtree.hashjoin_partition_prefetch = on;
SELECT * FROM hjb_check_all('SELECT a.id, w.id, md5(w.pad) FROM hb_a a JOIN hb_wide w ON a.k = w.k');
SELECT * FROM hjb_check_all('SELECT a.id, b.id FROM hb_a a FULL JOIN hb_b b ON a.k = b.k');
SET fpbtree.hashjoin_prefetch = pipelined;
SELECT * FROM hjb_check_all('SELECT a.id, b.id FROM hb_a a LEFT JOIN hb_b b ON a.t = b.t');
RESET fpbtree.hashjoin_prefetch;
RESET fpbtree.hashjoin_partition_prefetch;

-- EXPLAIN ANALYZE: planned batches; a misestimate that grows to batches;
-- no temporary file stays
BEGIN;
SET LOCAL max_parallel_workers_per_gather = 2;
SET LOCAL enable_parallel_hash = off;
SELECT hjb_batches('SELECT count(*) FROM hb_a a JOIN hb_b b ON a.k = b.k');
SET LOCAL parallel_tuple_cost = 0.1;
SELECT hjb_batches('SELECT count(*) FROM hb_a a JOIN hb_mis m ON a.k = m.k WHERE m.x = 0');
SET LOCAL parallel_tuple_cost = 0;
SELECT hjb_batches('SELECT o.g, (SELECT count(*) + o.g FROM hb_a a JOIN hb_b b ON a.k = b.k) FROM hb_o o');
-- with enough memory: one table, no batches; but a full join in batches
SET LOCAL work_mem = '64MB';
SELECT hjb_batches('SELECT count(*) FROM hb_a a JOIN hb_b b ON a.k = b.k');
SELECT hjb_batches('SELECT count(*) FROM hb_a a FULL JOIN hb_b b ON a.k = b.k');
COMMIT;

-- the batches' chunks are read once: temporary blocks read about as many
-- as written (with 4 kB chunks, each was read with the next 4 kB: twice)
CREATE TABLE hb_io_a AS SELECT g AS id, g % 150000 AS k, md5(g::text) AS t FROM generate_series(1, 150000) g;
CREATE TABLE hb_io_b AS SELECT g AS id, g AS k FROM generate_series(1, 60000) g;
ANALYZE hb_io_a, hb_io_b;
CREATE FUNCTION hjb_temp_io(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    plan json;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q INTO plan;
    RETURN 'written > 0: ' || ((plan -> 0 -> 'Plan' ->> 'Temp Written Blocks')::int > 0) ||
        ', read < 1.5 x written: ' ||
        ((plan -> 0 -> 'Plan' ->> 'Temp Read Blocks')::int <
         1.5 * (plan -> 0 -> 'Plan' ->> 'Temp Written Blocks')::int);
END $$;
BEGIN;
SET LOCAL max_parallel_workers_per_gather = 2;
SET LOCAL enable_parallel_hash = off;
SET LOCAL work_mem = '256kB';
SELECT hjb_batches('SELECT count(*) FROM hb_io_b b JOIN hb_io_a a ON a.k = b.k');
SELECT hjb_temp_io('SELECT count(*) FROM hb_io_b b JOIN hb_io_a a ON a.k = b.k');
COMMIT;
SELECT * FROM hjb_check_all('SELECT a.id, b.id FROM hb_io_b b JOIN hb_io_a a ON a.k = b.k');
