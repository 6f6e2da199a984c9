--
-- PrefetchHashJoin: differential tests against the built-in hash join
-- (enable_prefetch_hashjoin = off), plan choice, spilling, rescans.
--
-- hj_check(q) runs q once forced onto PrefetchHashJoin and once with it
-- disabled, and reports the row count, whether the two results are equal as
-- multisets (EXCEPT ALL both ways) and the join types PrefetchHashJoin ran.
--

-- on its own: the extension and settings
\set ECHO none
\i sql/include/setup.sql
\set ECHO all
-- the planner hook and the executor nodes
LOAD 'fpbtree';

SET client_min_messages = warning;
SELECT setseed(0.4242);

-- EXPLAIN (SETTINGS) names the settings that shape plans and their
-- execution, ours among them (not the build-time or developer ones)
SET fpbtree.hashjoin_group_size = 16;
SET enable_buffer_operator = off;
SET fpbtree.range_prefetch = off;
SET fpbtree.t1_ns = 200;
CREATE FUNCTION hj_explain_settings(q text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	j json;
BEGIN
	EXECUTE 'EXPLAIN (SETTINGS, FORMAT JSON) ' || q INTO j;
	RETURN QUERY SELECT key || ' = ' || value
		FROM json_each_text(j -> 0 -> 'Settings')
		WHERE key ~ '^(fpbtree\.|enable_buffer_operator|enable_prefetch_hashjoin)'
		ORDER BY 1;
END $$;
SELECT hj_explain_settings('SELECT 1');
DROP FUNCTION hj_explain_settings(text);
RESET fpbtree.hashjoin_group_size;
RESET enable_buffer_operator;
RESET fpbtree.range_prefetch;
RESET fpbtree.t1_ns;

CREATE TABLE hj_a AS
SELECT g AS id,
       CASE WHEN g % 20 = 0 THEN NULL ELSE (random() * 5000)::int END AS k,
       (random() * 40)::int AS k2,
       CASE WHEN g % 10 = 0 THEN 42 ELSE (random() * 5000)::int END AS ks,
       md5((g % 3000)::text) AS t,
       round((random() * 5000)::numeric / 4, 2) AS n
FROM generate_series(1, 10000) g;

CREATE TABLE hj_b AS
SELECT g AS id,
       CASE WHEN g % 15 = 0 THEN NULL ELSE (random() * 5000)::int END AS k,
       (random() * 40)::int8 AS k2,
       CASE WHEN g % 10 = 0 THEN 42 ELSE (random() * 5000)::int8 END AS ks,
       md5((g % 2500)::text) AS t,
       round((random() * 5000)::numeric / 4, 3) AS n
FROM generate_series(1, 4000) g;

CREATE TABLE hj_empty (id int, k int, k2 int8, ks int8, t text, n numeric);
CREATE TABLE hj_nulls AS
SELECT g AS id, NULL::int AS k, NULL::int8 AS k2, NULL::int8 AS ks,
       NULL::text AS t, NULL::numeric AS n
FROM generate_series(1, 500) g;
CREATE TABLE hj_small AS SELECT g AS x FROM generate_series(0, 10000, 1250) g;
ANALYZE hj_a, hj_b, hj_empty, hj_nulls, hj_small;

-- hj_check(), hj_explain_lines(): PrefetchHashJoin against the built-in join
\set ECHO none
\i sql/include/hj_helpers.sql
\set ECHO all

-- EXPLAIN ANALYZE lines of the PrefetchHashJoin nodes, memory masked
CREATE FUNCTION hj_explain(q text) RETURNS SETOF text LANGUAGE sql AS $$
    SELECT hj_explain_lines(q, '(PrefetchHashJoin|Join Type|Hash Cond|Batches|Spilled|Prefetch|Group Size|Distance|Peak Memory|Radix|Probe Chunks)', false)
$$;

-- the custom path wherever it is legal
SELECT hj_force();

-- inner joins: int, int8 cross-type, text, numeric of different scales,
-- several keys, extra join quals, NULL keys, duplicates, skew
SELECT hj_check('SELECT a.id, b.id FROM hj_a a JOIN hj_b b ON a.k = b.k');
SELECT hj_check('SELECT a.id, b.id FROM hj_a a JOIN hj_b b ON a.k2 = b.k2 AND a.k = b.k');
SELECT hj_check('SELECT a.ks, count(*), sum(a.id * b.id) FROM hj_a a JOIN hj_b b ON a.ks = b.ks GROUP BY 1');
SELECT hj_check('SELECT a.k, count(*), sum(b.id) FROM hj_a a JOIN hj_b b ON a.k = b.ks GROUP BY 1');
SELECT hj_check('SELECT a.id, b.t FROM hj_a a JOIN hj_b b ON a.t = b.t');
SELECT hj_check('SELECT a.id, b.id FROM hj_a a JOIN hj_b b ON a.t = b.t COLLATE "C"');
SELECT hj_check('SELECT a.n, b.n FROM hj_a a JOIN hj_b b ON a.n = b.n');
SELECT hj_check('SELECT a.id, b.id FROM hj_a a JOIN hj_b b ON a.k = b.k AND a.id < b.id * 3');
SELECT hj_check('SELECT a.id, b.id FROM hj_a a JOIN hj_b b ON a.k + 1 = b.k - 1 WHERE a.k2 <> b.k2');
SELECT hj_check('SELECT a.id, b.id FROM hj_a a JOIN hj_b b ON lower(a.t) = upper(b.t)::text OR false');

-- left / right / full: both build sides
SELECT hj_check('SELECT a.id, b.id FROM hj_a a LEFT JOIN hj_b b ON a.k = b.k');
SELECT hj_check('SELECT a.id, b.id FROM hj_b b LEFT JOIN hj_a a ON a.k = b.k');
SELECT hj_check('SELECT a.id, b.id FROM hj_a a LEFT JOIN hj_b b ON a.k = b.k AND b.id % 3 = 0');
SELECT hj_check('SELECT a.id, b.id FROM hj_a a LEFT JOIN hj_b b ON a.k = b.k WHERE b.id IS NULL OR b.id % 2 = 0');
SELECT hj_check('SELECT a.id, b.id FROM hj_b b LEFT JOIN hj_a a ON a.ks = b.ks AND a.t = b.t');
SELECT hj_check('SELECT a.id, b.id FROM hj_a a FULL JOIN hj_b b ON a.k = b.k');
SELECT hj_check('SELECT a.id, b.id FROM hj_b b FULL JOIN hj_a a ON a.k2 = b.k2 AND a.k = b.k');
SELECT hj_check('SELECT a.id, b.id FROM hj_a a FULL JOIN hj_b b ON a.k = b.k WHERE coalesce(a.id, b.id) % 4 <> 1');

-- semi / anti
SELECT hj_check('SELECT a.id FROM hj_a a WHERE EXISTS (SELECT 1 FROM hj_b b WHERE b.k = a.k)');
SELECT hj_check('SELECT b.id FROM hj_b b WHERE EXISTS (SELECT 1 FROM hj_a a WHERE b.k = a.k AND a.id > b.id)');
SELECT hj_check('SELECT a.id FROM hj_a a WHERE NOT EXISTS (SELECT 1 FROM hj_b b WHERE b.k = a.k)');
SELECT hj_check('SELECT b.id FROM hj_b b WHERE NOT EXISTS (SELECT 1 FROM hj_a a WHERE a.ks = b.ks AND a.id % 7 = b.id % 7)');
SELECT hj_check('SELECT a.id FROM hj_a a WHERE a.t IN (SELECT t FROM hj_b)');

-- empty and all-NULL sides
SELECT hj_check('SELECT a.id, e.id FROM hj_a a JOIN hj_empty e ON a.k = e.k');
SELECT hj_check('SELECT a.id, e.id FROM hj_a a LEFT JOIN hj_empty e ON a.k = e.k');
SELECT hj_check('SELECT a.id, e.id FROM hj_empty e RIGHT JOIN hj_a a ON a.k = e.k');
SELECT hj_check('SELECT a.id, e.id FROM hj_a a FULL JOIN hj_empty e ON a.k = e.k');
SELECT hj_check('SELECT a.id FROM hj_a a WHERE NOT EXISTS (SELECT 1 FROM hj_empty e WHERE e.k = a.k)');
SELECT hj_check('SELECT b.id, x.id FROM hj_empty x FULL JOIN hj_b b ON x.k = b.k');
SELECT hj_check('SELECT a.id, z.id FROM hj_a a JOIN hj_nulls z ON a.k = z.k');
SELECT hj_check('SELECT a.id, z.id FROM hj_a a FULL JOIN hj_nulls z ON a.k = z.k');
SELECT hj_check('SELECT a.id, z.id FROM hj_nulls z FULL JOIN hj_a a ON a.t = z.t');
SELECT hj_check('SELECT z.id FROM hj_nulls z WHERE NOT EXISTS (SELECT 1 FROM hj_a a WHERE a.k = z.k)');

-- the prefetching schemes and group sizes give the same answers
SET fpbtree.hashjoin_prefetch = pipelined;
SELECT hj_check('SELECT a.id, b.id FROM hj_a a FULL JOIN hj_b b ON a.k = b.k');
SELECT hj_check('SELECT a.id FROM hj_a a WHERE NOT EXISTS (SELECT 1 FROM hj_b b WHERE b.ks = a.ks)');
SET fpbtree.hashjoin_prefetch_distance = 3;
SELECT hj_check('SELECT a.id, b.id FROM hj_a a LEFT JOIN hj_b b ON a.t = b.t');
RESET fpbtree.hashjoin_prefetch_distance;
SET fpbtree.hashjoin_prefetch = none;
SELECT hj_check('SELECT a.id, b.id FROM hj_a a FULL JOIN hj_b b ON a.k = b.k');
SET fpbtree.hashjoin_prefetch = 'group';
SET fpbtree.hashjoin_group_size = 1;
SELECT hj_check('SELECT b.ks, count(*), sum(a.id), sum(b.id) FROM hj_a a RIGHT JOIN hj_b b ON a.ks = b.ks GROUP BY 1');
SET fpbtree.hashjoin_group_size = 256;
SELECT hj_check('SELECT a.ks, count(*), sum(a.id * b.id) FROM hj_a a JOIN hj_b b ON a.ks = b.ks GROUP BY 1');
RESET fpbtree.hashjoin_group_size;

-- spilling: a tiny hash_mem forces batches; a misestimated inner side
-- (planner expects a few rows) must grow its batches and still finish
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT hj_check('SELECT a.id, b.id FROM hj_a a JOIN hj_b b ON a.k = b.k');
SELECT hj_check('SELECT a.id, b.id FROM hj_a a FULL JOIN hj_b b ON a.k = b.k AND a.t = b.t');
SELECT hj_check('SELECT a.id, b.id FROM hj_b b FULL JOIN hj_a a ON a.k = b.k');
SELECT hj_check('SELECT a.id FROM hj_a a WHERE NOT EXISTS (SELECT 1 FROM hj_b b WHERE b.k = a.k)');
SELECT hj_check('SELECT a.id FROM hj_a a WHERE EXISTS (SELECT 1 FROM hj_b b WHERE b.t = a.t)');
SELECT hj_check('SELECT a.ks, count(*), sum(a.id), sum(b.id) FROM hj_a a LEFT JOIN hj_b b ON a.ks = b.ks GROUP BY 1');
SELECT hj_check('SELECT a.id, b.id FROM hj_a a JOIN (SELECT * FROM hj_b WHERE k2 % 1 = 0) b ON a.k = b.k');
SELECT hj_check('SELECT a.id, b.id FROM hj_b b RIGHT JOIN (SELECT * FROM hj_a WHERE k2 % 1 = 0) a ON a.t = b.t');
SET fpbtree.hashjoin_prefetch = pipelined;
SELECT hj_check('SELECT a.id, b.id FROM hj_a a FULL JOIN hj_b b ON a.k = b.k');
SET fpbtree.hashjoin_prefetch = 'group';
SELECT * FROM hj_explain('SELECT count(*) FROM hj_a a JOIN (SELECT * FROM hj_b WHERE k2 % 1 = 0) b ON a.k = b.k');
RESET work_mem;
RESET hash_mem_multiplier;

-- keys hashed and compared inline: int2, int4, int8 (negative, and beyond
-- the int4 range, which must not collide with their low halves), oid, date,
-- and cross-type pairs of the integer family (hashes agree across types)
CREATE TABLE hj_ints AS
SELECT g, (g % 300 - 150)::int2 AS i2, (g % 300 - 150)::int4 AS i4,
       (g % 300 - 150)::int8 * CASE WHEN g % 7 = 0 THEN 4294967296 ELSE 1 END AS i8,
       (g % 300)::oid AS o, date '2000-01-01' + (g % 300 - 150) AS d
FROM generate_series(1, 3000) g;
ANALYZE hj_ints;
SELECT hj_check('SELECT x.g, y.g FROM hj_ints x JOIN hj_ints y ON x.i8 = y.i8');
SELECT hj_check('SELECT x.g, y.g FROM hj_ints x JOIN hj_ints y ON x.i4 = y.i8');
SELECT hj_check('SELECT x.g, y.g FROM hj_ints x JOIN hj_ints y ON x.i8 = y.i4');
SELECT hj_check('SELECT x.g, y.g FROM hj_ints x JOIN hj_ints y ON x.i2 = y.i4');
SELECT hj_check('SELECT x.g, y.g FROM hj_ints x JOIN hj_ints y ON x.i2 = y.i2');
SELECT hj_check('SELECT x.g, y.g FROM hj_ints x LEFT JOIN hj_ints y ON x.i2 = y.i8 AND y.g % 3 = 0');
SELECT hj_check('SELECT x.g, y.g FROM hj_ints x JOIN hj_ints y ON x.o = y.o');
SELECT hj_check('SELECT x.g, y.g FROM hj_ints x FULL JOIN hj_ints y ON x.d = y.d + 1');
DROP TABLE hj_ints;

-- the partition phase under every prefetching scheme (thesis section 4.6:
-- records staged and copied into per-batch output buffers; on only with
-- fpbtree.hashjoin_partition_prefetch): spilled joins of
-- every type, NULL keys, duplicates, skew, an empty side, and records longer
-- than the staging area (1 kB) and than a batch's output buffer (4 kB)
CREATE FUNCTION hj_check_schemes(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    cfg text[];
BEGIN
    FOREACH cfg SLICE 1 IN ARRAY ARRAY[['group', '16', '1'], ['group', '3', '1'],
                                       ['pipelined', '16', '1'], ['pipelined', '16', '3'],
                                       ['none', '16', '1']] LOOP
        PERFORM set_config('fpbtree.hashjoin_prefetch', cfg[1], true);
        PERFORM set_config('fpbtree.hashjoin_group_size', cfg[2], true);
        PERFORM set_config('fpbtree.hashjoin_prefetch_distance', cfg[3], true);
        PERFORM set_config('fpbtree.hashjoin_partition_prefetch', 'on', true);
        RETURN NEXT rpad(cfg[1] || ' G=' || cfg[2] || ' D=' || cfg[3], 22) || hj_check(q);
    END LOOP;
END $$;
CREATE TABLE hj_wide (id int, k int, w text);
ALTER TABLE hj_wide ALTER w SET STORAGE PLAIN;
INSERT INTO hj_wide
SELECT g, CASE WHEN g % 17 = 0 THEN NULL WHEN g % 40 = 0 THEN 7 ELSE g % 350 END,
       (SELECT string_agg(md5((g * 1000 + i)::text), '')
        FROM generate_series(1, CASE g % 5 WHEN 0 THEN 160 WHEN 1 THEN 40 ELSE 1 END) i)
FROM generate_series(1, 1500) g;
ANALYZE hj_wide;
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT * FROM hj_check_schemes('SELECT a.id, b.id FROM hj_a a JOIN hj_b b ON a.k = b.k');
SELECT * FROM hj_check_schemes('SELECT a.id, b.id FROM hj_a a LEFT JOIN hj_b b ON a.k = b.k AND a.id % 3 <> b.id % 3');
SELECT * FROM hj_check_schemes('SELECT a.id, b.id FROM hj_b b FULL JOIN hj_a a ON a.k = b.k AND a.t = b.t');
SELECT * FROM hj_check_schemes('SELECT a.id FROM hj_a a WHERE NOT EXISTS (SELECT 1 FROM hj_b b WHERE b.k = a.k)');
SELECT * FROM hj_check_schemes('SELECT b.id FROM hj_b b WHERE EXISTS (SELECT 1 FROM hj_a a WHERE a.ks = b.ks)');
SELECT * FROM hj_check_schemes('SELECT a.id, b.id FROM hj_a a RIGHT JOIN (SELECT * FROM hj_b WHERE k2 % 1 = 0) b ON a.k = b.k');
SELECT * FROM hj_check_schemes('SELECT a.id, e.id FROM hj_a a LEFT JOIN hj_empty e ON a.k = e.k');
-- fewer batches for the wide rows (each batch costs a pass over its files)
SET work_mem = '512kB';
SELECT * FROM hj_check_schemes('SELECT a.id, x.id, md5(x.w) FROM hj_a a FULL JOIN hj_wide x ON a.k = x.k');
SELECT * FROM hj_check_schemes('SELECT x.id, y.id, length(x.w) + length(y.w) FROM hj_wide x JOIN hj_wide y ON x.k = y.k');
SET fpbtree.hashjoin_partition_prefetch = on;
SELECT * FROM hj_explain('SELECT sum(length(x.w) + length(y.w)) FROM hj_wide x JOIN (SELECT * FROM hj_wide WHERE id % 1 = 0) y ON x.k = y.k');
RESET fpbtree.hashjoin_partition_prefetch;
DROP TABLE hj_wide;
RESET work_mem;
RESET hash_mem_multiplier;

-- skew: one key's duplicates keep a batch over budget, so the number of
-- batches keeps doubling while it moves on; tuples that left it for a batch
-- that is later skipped (nothing on the other side in that batch's file)
-- must follow their partners to their final batch, not be dropped
SET work_mem = '128kB';
SET hash_mem_multiplier = 1;
CREATE TABLE hj_skew_in AS
SELECT g::int8 AS b FROM generate_series(1, 20000) g
UNION ALL SELECT 0 FROM generate_series(1, 5000);
CREATE TABLE hj_skew_out AS SELECT (g * 7)::int8 AS b FROM generate_series(1, 3000) g;
ANALYZE hj_skew_in, hj_skew_out;
SELECT hj_check('SELECT x.b FROM hj_skew_out x WHERE NOT EXISTS (SELECT 1 FROM hj_skew_in y WHERE y.b = x.b)');
DROP TABLE hj_skew_in, hj_skew_out;
RESET work_mem;
RESET hash_mem_multiplier;
SELECT * FROM hj_explain('SELECT count(*) FROM hj_a a JOIN hj_b b ON a.k = b.k');

-- radix-clustered probing, forced (the tables here are far below the
-- automatic threshold): the build clusters its tuples by partition, outer
-- rows are read in chunks, copied into their partitions and probed
-- partition by partition.  Every join type, NULL keys, text and several
-- keys, skew, empty and all-NULL sides, outer rows wider than a chunk block
-- (8 kB), more bits than the table has buckets (clamped), rescans
SET fpbtree.hashjoin_radix_bits = 4;
SELECT hj_check('SELECT a.id, b.id FROM hj_a a JOIN hj_b b ON a.k = b.k');
SELECT hj_check('SELECT a.id, b.id FROM hj_a a JOIN hj_b b ON a.k2 = b.k2 AND a.t = b.t');
SELECT hj_check('SELECT a.ks, count(*), sum(a.id * b.id) FROM hj_a a JOIN hj_b b ON a.ks = b.ks GROUP BY 1');
SELECT hj_check('SELECT a.id, b.id FROM hj_a a LEFT JOIN hj_b b ON a.k = b.k AND b.id % 3 = 0');
SELECT hj_check('SELECT a.id, b.id FROM hj_b b LEFT JOIN hj_a a ON a.n = b.n');
SELECT hj_check('SELECT a.id, b.id FROM hj_a a FULL JOIN hj_b b ON a.k = b.k WHERE coalesce(a.id, b.id) % 4 <> 1');
SELECT hj_check('SELECT a.id FROM hj_a a WHERE EXISTS (SELECT 1 FROM hj_b b WHERE b.k = a.k)');
SELECT hj_check('SELECT a.id FROM hj_a a WHERE NOT EXISTS (SELECT 1 FROM hj_b b WHERE b.ks = a.ks AND b.id < a.id)');
SELECT hj_check('SELECT a.id, e.id FROM hj_a a FULL JOIN hj_empty e ON a.k = e.k');
SELECT hj_check('SELECT a.id, z.id FROM hj_nulls z FULL JOIN hj_a a ON a.t = z.t');
SELECT hj_check('SELECT a.id, b.id, length(a.w) FROM (SELECT id, k, repeat(t, 300 + id % 7) AS w FROM hj_a WHERE id % 40 = 0) a FULL JOIN hj_b b ON a.k = b.k');
SELECT hj_check('SELECT a.id, b.id, length(b.w) FROM hj_a a RIGHT JOIN (SELECT id, k, repeat(t, 300) AS w FROM hj_b WHERE id % 30 = 0) b ON a.k = b.k');
SELECT hj_check('SELECT s.x, (SELECT count(*) FROM hj_a a JOIN hj_b b ON a.k = b.k WHERE a.id < s.x) FROM hj_small s');
SELECT hj_check('SELECT s.x, (SELECT count(*) FROM hj_b b RIGHT JOIN hj_a a ON a.k = b.k AND b.id < s.x) FROM hj_small s');
SELECT * FROM hj_explain('SELECT count(*) FROM hj_a a JOIN hj_b b ON a.k = b.k');
SET fpbtree.hashjoin_radix_bits = 12;
SELECT hj_check('SELECT a.id, b.id FROM hj_a a FULL JOIN hj_b b ON a.k = b.k');
SELECT hj_check('SELECT a.id, s.x FROM hj_small s JOIN hj_a a ON a.k = s.x');
SET fpbtree.hashjoin_prefetch = none;
SELECT hj_check('SELECT a.id, b.id FROM hj_a a LEFT JOIN hj_b b ON a.t = b.t');
SET fpbtree.hashjoin_prefetch = pipelined;
SELECT * FROM hj_explain('SELECT count(*) FROM hj_a a JOIN hj_b b ON a.k = b.k');
SET fpbtree.hashjoin_prefetch = 'group';
-- spilled batches whose tables leave room for a chunk are probed by chunks
-- too; the outer rows of batch > 0 come from the batch files
CREATE TABLE hj_rx_a AS SELECT g AS id, (g * 7919 % 20000) AS k, md5(g::text) AS t
FROM generate_series(1, 20000) g;
CREATE TABLE hj_rx_b AS SELECT g AS id, (g::int8 * 104729 % 20000)::int AS k, md5(g::text) AS t
FROM generate_series(1, 30000) g;
ANALYZE hj_rx_a, hj_rx_b;
SET work_mem = '512kB';
SET hash_mem_multiplier = 1;
SET fpbtree.hashjoin_radix_bits = 2;
SELECT hj_check('SELECT a.id, b.id FROM hj_rx_b b FULL JOIN hj_rx_a a ON a.k = b.k');
SELECT hj_check('SELECT b.id FROM hj_rx_b b WHERE NOT EXISTS (SELECT 1 FROM hj_rx_a a WHERE a.k = b.k AND a.id % 3 = 0)');
SELECT * FROM hj_explain('SELECT count(*) FROM hj_rx_b b FULL JOIN hj_rx_a a ON a.k = b.k');
RESET work_mem;
RESET hash_mem_multiplier;
DROP TABLE hj_rx_a, hj_rx_b;
RESET fpbtree.hashjoin_radix_bits;

-- rescans: correlated subplans whose parameter reaches the probe side
-- (the table is kept) or the build side (rebuilt), and nested loops over
-- LATERAL subqueries that rescan the join with a changed parameter
SELECT hj_check('SELECT s.x, (SELECT count(*) FROM hj_a a JOIN hj_b b ON a.k = b.k WHERE a.id < s.x) FROM hj_small s');
SELECT hj_check('SELECT s.x, (SELECT count(*) FROM hj_a a JOIN hj_b b ON a.k = b.k WHERE b.id < s.x / 4) FROM hj_small s');
SELECT hj_check('SELECT s.x, (SELECT count(*) FROM hj_a a FULL JOIN hj_b b ON a.k = b.k WHERE coalesce(a.id, 0) < s.x) FROM hj_small s');
SELECT hj_check('SELECT s.x, (SELECT count(*) FROM hj_b b RIGHT JOIN hj_a a ON a.k = b.k AND b.id < s.x) FROM hj_small s');
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT hj_check('SELECT s.x, (SELECT count(*) FROM hj_a a FULL JOIN hj_b b ON a.k = b.k WHERE coalesce(b.id, 0) < s.x) FROM hj_small s');
RESET work_mem;
RESET hash_mem_multiplier;
SET enable_nestloop = on;
SELECT hj_check('SELECT s.x, j.c FROM hj_small s CROSS JOIN LATERAL (SELECT count(*) AS c, sum(b.id) AS d FROM hj_a a JOIN hj_b b ON a.k = b.k WHERE a.id < s.x) j');
SELECT hj_check('SELECT s.x, j.c FROM hj_small s CROSS JOIN LATERAL (SELECT count(*) AS c, sum(a.id) AS d FROM hj_a a LEFT JOIN hj_b b ON a.k = b.k AND b.id < s.x) j');
SET enable_nestloop = off;

-- LIMIT stops early; a cursor reads part of the result
SELECT count(*) FROM (SELECT a.id, b.id FROM hj_a a JOIN hj_b b ON a.k = b.k LIMIT 7) l;
BEGIN;
DECLARE hj_cur CURSOR FOR SELECT a.id, b.id FROM hj_a a JOIN hj_b b ON a.k = b.k ORDER BY 1, 2;
FETCH 3 FROM hj_cur;
FETCH 2 FROM hj_cur;
CLOSE hj_cur;
DECLARE hj_cur2 CURSOR FOR SELECT a.id, b.id FROM hj_a a FULL JOIN hj_b b ON a.k = b.k;
MOVE 100 IN hj_cur2;
MOVE 20000 IN hj_cur2;
CLOSE hj_cur2;
COMMIT;

-- read-ahead under LIMIT: the first group after a start holds one outer row,
-- so the key of row 3 (a division by zero) is never evaluated when row 1
-- already satisfies the LIMIT, as with the built-in join; the same with
-- pipelining; and a LIMIT a little further in still gives the built-in rows
CREATE TABLE hj_lim_big AS SELECT g AS a FROM generate_series(1, 100000) g;
CREATE TABLE hj_lim_sm AS SELECT g AS a FROM generate_series(1, 1000) g;
ANALYZE hj_lim_big, hj_lim_sm;
EXPLAIN (COSTS OFF) SELECT * FROM hj_lim_big x JOIN hj_lim_sm y ON 100 / (3 - x.a) = y.a LIMIT 1;
SELECT * FROM hj_lim_big x JOIN hj_lim_sm y ON 100 / (3 - x.a) = y.a LIMIT 1;
SELECT * FROM hj_lim_big x JOIN hj_lim_sm y ON 100 / (9 - x.a) = y.a LIMIT 4;
SET fpbtree.hashjoin_prefetch = pipelined;
SET fpbtree.hashjoin_prefetch_distance = 4;
SELECT * FROM hj_lim_big x JOIN hj_lim_sm y ON 100 / (3 - x.a) = y.a LIMIT 1;
SELECT * FROM hj_lim_big x JOIN hj_lim_sm y ON 100 / (9 - x.a) = y.a LIMIT 4;
RESET fpbtree.hashjoin_prefetch_distance;
SET fpbtree.hashjoin_prefetch = 'group';
SET enable_prefetch_hashjoin = off;
SELECT * FROM hj_lim_big x JOIN hj_lim_sm y ON 100 / (9 - x.a) = y.a LIMIT 4;
RESET enable_prefetch_hashjoin;
-- radix probing reads chunks that ramp up from one row the same way (rows
-- of a chunk come out in partition order, hence the ORDER BY)
SET fpbtree.hashjoin_radix_bits = 4;
SELECT * FROM hj_lim_big x JOIN hj_lim_sm y ON 100 / (3 - x.a) = y.a LIMIT 1;
SELECT * FROM (SELECT * FROM hj_lim_big x JOIN hj_lim_sm y ON 100 / (9 - x.a) = y.a LIMIT 3) l ORDER BY 1;
RESET fpbtree.hashjoin_radix_bits;
DROP TABLE hj_lim_big, hj_lim_sm;

-- parallel plans: the node is not parallel-safe, so it stays above Gather
-- (a full join runs below one only with the shared table: sql/25)
SET fpbtree.hashjoin_parallel_shared = off;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT hj_check('SELECT a.id, b.id FROM hj_a a FULL JOIN hj_b b ON a.k = b.k');
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM hj_a a FULL JOIN hj_b b ON a.k = b.k;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET fpbtree.hashjoin_parallel_shared;
SET max_parallel_workers_per_gather = 0;

-- EXPLAIN: keys, join type, join filter, cross-type keys
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM hj_a a LEFT JOIN hj_b b ON a.k = b.ks AND a.t = b.t AND a.id < b.id WHERE b.id IS NULL OR a.id > 5;

-- The lines matching pat of EXPLAIN (opts, FORMAT fmt) q with our node,
-- then whether the built-in join's plan has the same ones
CREATE FUNCTION hj_lines_vs_builtin(opts text, pat text, q text, fmt text)
RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    plan text;
    line text;
    ours text[] := '{}';
    builtin text[] := '{}';
    pf bool;
    used bool := false;
BEGIN
    FOREACH pf IN ARRAY ARRAY[true, false] LOOP
        PERFORM set_config('enable_prefetch_hashjoin', pf::text, true);
        FOR plan IN EXECUTE 'EXPLAIN (' || opts || ', FORMAT ' || fmt || ') ' || q LOOP
          FOR line IN SELECT regexp_split_to_table(plan, E'\n') LOOP
            IF line ~ 'PrefetchHashJoin' THEN
                IF NOT pf THEN
                    RAISE EXCEPTION 'PrefetchHashJoin used while disabled';
                END IF;
                used := true;
            END IF;
            IF line ~ pat THEN
                line := regexp_replace(btrim(line), '[",]', '', 'g');
                IF pf THEN
                    ours := ours || line;
                ELSE
                    builtin := builtin || line;
                END IF;
            END IF;
          END LOOP;
        END LOOP;
    END LOOP;
    PERFORM set_config('enable_prefetch_hashjoin', 'on', true);
    IF NOT used THEN
        RAISE EXCEPTION 'PrefetchHashJoin not used';
    END IF;
    RETURN QUERY SELECT unnest(ours);
    RETURN NEXT CASE WHEN ours = builtin THEN 'same as the built-in join'
                     ELSE 'built-in join: ' || array_to_string(builtin, '; ') END;
END $$;

-- EXPLAIN ANALYZE: rows removed by the join filter and by the filter, per
-- loop, as the built-in join reports them (in text format only when not
-- zero; always in the others)
CREATE FUNCTION hj_removed(q text, fmt text DEFAULT 'TEXT') RETURNS SETOF text
LANGUAGE sql AS $$
    SELECT hj_lines_vs_builtin('ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF',
                               'Rows Removed by', q, fmt)
$$;
SELECT * FROM hj_removed('SELECT count(*) FROM hj_a a JOIN hj_b b ON a.k = b.k AND a.id < b.id * 3');
SELECT * FROM hj_removed('SELECT count(*) FROM hj_a a LEFT JOIN hj_b b ON a.k = b.k AND a.id < b.id * 3 WHERE coalesce(b.id, 0) % 2 = 0');
SELECT * FROM hj_removed('SELECT count(*) FROM hj_a a FULL JOIN hj_b b ON a.k = b.k AND a.id < b.id * 3 WHERE coalesce(a.id, b.id) % 4 <> 1');
SELECT * FROM hj_removed('SELECT count(*) FROM hj_a a JOIN hj_b b ON a.k = b.k AND a.id > -b.id');
SELECT * FROM hj_removed('SELECT count(*) FROM hj_a a JOIN hj_b b ON a.k = b.k AND a.id > -b.id', 'YAML');
SELECT * FROM hj_removed('SELECT s.x, (SELECT count(*) FROM hj_a a JOIN hj_b b ON a.k = b.k AND a.id < b.id + s.x) FROM hj_small s');
DROP FUNCTION hj_removed(text, text);

-- EXPLAIN VERBOSE: "Inner Unique" where the planner proved the inner side
-- unique, as the built-in join shows it (text: only when true; always in
-- the other formats)
CREATE FUNCTION hj_inner_unique(q text, fmt text DEFAULT 'TEXT') RETURNS SETOF text
LANGUAGE sql AS $$
    SELECT hj_lines_vs_builtin('VERBOSE, COSTS OFF', 'Inner Unique', q, fmt)
$$;
CREATE TABLE hj_uniq (k int8 PRIMARY KEY);
INSERT INTO hj_uniq SELECT k FROM hj_b WHERE k IS NOT NULL GROUP BY k;
ANALYZE hj_uniq;
SELECT * FROM hj_inner_unique('SELECT count(*) FROM hj_a a JOIN hj_uniq u ON a.k = u.k');
SELECT * FROM hj_inner_unique('SELECT count(*) FROM hj_a a JOIN hj_uniq u ON a.k = u.k', 'JSON');
SELECT * FROM hj_inner_unique('SELECT count(*) FROM hj_a a JOIN hj_b b ON a.k = b.k');
SELECT * FROM hj_inner_unique('SELECT count(*) FROM hj_a a JOIN hj_b b ON a.k = b.k', 'YAML');
DROP TABLE hj_uniq;
DROP FUNCTION hj_inner_unique(text, text);

-- EXPLAIN in the structured formats: the children are the join's Outer and
-- Inner, as the built-in join's (whose inner is its Hash node)
SELECT * FROM hj_lines_vs_builtin('COSTS OFF', 'Node Type|Parent Relationship',
    'SELECT count(*) FROM hj_a a JOIN hj_b b ON a.k = b.k', 'JSON');
DROP FUNCTION hj_lines_vs_builtin(text, text, text, text);

-- plan choice: chosen for a join whose build side exceeds the cache the
-- cost model assumes, not for a tiny one, and never when disabled
RESET enable_mergejoin;
RESET enable_nestloop;
SET fpbtree.hashjoin_cache_size = '64kB';
EXPLAIN (COSTS OFF) SELECT count(*) FROM hj_a a JOIN hj_b b ON a.k = b.k;
EXPLAIN (COSTS OFF) SELECT count(*) FROM hj_small s JOIN hj_small s2 ON s.x = s2.x;
SET enable_prefetch_hashjoin = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM hj_a a JOIN hj_b b ON a.k = b.k;
RESET enable_prefetch_hashjoin;
RESET fpbtree.hashjoin_cache_size;
EXPLAIN (COSTS OFF) SELECT count(*) FROM hj_small s JOIN hj_b b ON s.x = b.k;

-- rows stored before ADD COLUMN ... DEFAULT have fewer attributes than the
-- descriptor: the copied heap bytes must still read the default, in memory
-- and spilled, on both sides of the join
CREATE TABLE hj_am1 (k int8);
INSERT INTO hj_am1 SELECT g FROM generate_series(1, 2000) g;
ALTER TABLE hj_am1 ADD COLUMN d int DEFAULT 7;
INSERT INTO hj_am1 SELECT g, 9 FROM generate_series(2001, 2010) g;
CREATE TABLE hj_am2 (k int8);
INSERT INTO hj_am2 SELECT g FROM generate_series(1, 2010) g;
ALTER TABLE hj_am2 ADD COLUMN e text DEFAULT 'x';
ANALYZE hj_am1, hj_am2;
SELECT hj_force();
EXPLAIN (COSTS OFF) SELECT * FROM hj_am1 JOIN hj_am2 USING (k);
SELECT count(*), sum(d), count(e), min(e) FROM hj_am1 JOIN hj_am2 USING (k);
SET work_mem = '64kB';
SELECT count(*), sum(d), count(e), min(e) FROM hj_am1 FULL JOIN hj_am2 USING (k);
RESET work_mem;
RESET enable_nestloop;
RESET enable_mergejoin;
RESET fpbtree.hashjoin_cache_size;
DROP TABLE hj_am1, hj_am2;

DROP TABLE hj_a, hj_b, hj_empty, hj_nulls, hj_small;
DROP FUNCTION hj_check(text);
DROP FUNCTION hj_explain(text);
