--
-- 26_exec_volatile: statements that call volatile functions get neither a
-- Buffer nor PrefetchHashJoin.  Both read rows ahead of their consumer, so
-- a volatile function below them (nextval) runs earlier than a related one
-- above them (currval) would see it without them: the answers differed
-- from the unbuffered and built-in plans.  Statements without volatile
-- functions still get both.
--

-- on its own: the extension and settings
\set ECHO none
\i sql/include/setup.sql
\set ECHO all
-- the planner hook and the executor nodes
LOAD 'fpbtree';
SET max_parallel_workers_per_gather = 0;

CREATE TABLE vol_t AS
SELECT g AS id, md5(g::text) AS t FROM generate_series(1, 5000) g;
ANALYZE vol_t;
CREATE TABLE vol_o AS SELECT g AS k FROM generate_series(1, 100000) g;
CREATE TABLE vol_i AS SELECT g AS k FROM generate_series(1, 40000) g;
ANALYZE vol_o, vol_i;
CREATE SEQUENCE vol_s;

-- the Buffer: a small emulated L1i puts one above the scan
SET fpbtree.enable_prefetch_hashjoin = off;
SET fpbtree.l1i_cache_size = '16kB';
SET fpbtree.buffer_min_rows = 1;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM (SELECT id, length(t) AS n FROM vol_t WHERE t > '1' OFFSET 0) x
WHERE n = 32;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM (SELECT id, nextval('vol_s') AS n FROM vol_t WHERE t > '1' OFFSET 0) x
WHERE n = currval('vol_s');
SELECT count(*) FROM (SELECT id, nextval('vol_s') AS n FROM vol_t WHERE t > '1' OFFSET 0) x
WHERE n = currval('vol_s');
SET fpbtree.enable_buffer_operator = off;
SELECT count(*) FROM (SELECT id, nextval('vol_s') AS n FROM vol_t WHERE t > '1' OFFSET 0) x
WHERE n = currval('vol_s');
RESET fpbtree.enable_buffer_operator;
-- in a sublink, a CTE: each beside the same shape without a volatile call
EXPLAIN (COSTS OFF)
SELECT count(*) FROM (SELECT id, length(t) AS n FROM vol_t WHERE t > '1' OFFSET 0) x
WHERE n = 32 AND id < (SELECT 6000 + length(current_user));
EXPLAIN (COSTS OFF)
SELECT count(*) FROM (SELECT id, length(t) AS n FROM vol_t WHERE t > '1' OFFSET 0) x
WHERE n = 32 AND id < (SELECT nextval('vol_s'));
EXPLAIN (COSTS OFF)
WITH c AS MATERIALIZED (SELECT 1.5::float8 AS r)
SELECT count(*) FROM (SELECT id, length(t) AS n FROM vol_t WHERE t > '1' OFFSET 0) x
WHERE n = 32 AND x.id < (SELECT r FROM c);
EXPLAIN (COSTS OFF)
WITH c AS MATERIALIZED (SELECT random() AS r)
SELECT count(*) FROM (SELECT id, length(t) AS n FROM vol_t WHERE t > '1' OFFSET 0) x
WHERE n = 32 AND x.id < (SELECT r FROM c);
RESET fpbtree.l1i_cache_size;
RESET fpbtree.buffer_min_rows;

-- PrefetchHashJoin at default settings: the join filter runs after the
-- group's outer rows were read (and their nextval called)
RESET fpbtree.enable_prefetch_hashjoin;
SET fpbtree.enable_buffer_operator = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM (SELECT k, k + 1 AS n FROM vol_o OFFSET 0) a JOIN vol_i i ON a.k = i.k
WHERE a.n > i.k;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM (SELECT k, nextval('vol_s') AS n FROM vol_o OFFSET 0) a JOIN vol_i i ON a.k = i.k
WHERE a.n = currval('vol_s') + i.k - i.k;
SELECT count(*) FROM (SELECT k, nextval('vol_s') AS n FROM vol_o OFFSET 0) a JOIN vol_i i ON a.k = i.k
WHERE a.n = currval('vol_s') + i.k - i.k;
SET enable_prefetch_hashjoin = off;
SELECT count(*) FROM (SELECT k, nextval('vol_s') AS n FROM vol_o OFFSET 0) a JOIN vol_i i ON a.k = i.k
WHERE a.n = currval('vol_s') + i.k - i.k;
RESET enable_prefetch_hashjoin;
-- a volatile function anywhere in the statement, even away from the join
EXPLAIN (COSTS OFF)
SELECT count(*), random() < 2 FROM vol_o a JOIN vol_i i ON a.k = i.k;
-- prepared: the generic plan is made once, with the same rule
PREPARE vol_p(int) AS
SELECT count(*) FROM vol_o a JOIN vol_i i ON a.k = i.k WHERE a.k > $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE vol_p(10);
EXECUTE vol_p(10);
RESET plan_cache_mode;
DEALLOCATE vol_p;

DROP TABLE vol_t, vol_o, vol_i;
DROP SEQUENCE vol_s;
