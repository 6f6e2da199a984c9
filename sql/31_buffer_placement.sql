--
-- 31_buffer_placement: where the plan refinement puts Buffers, following
-- the cases of Zhou & Ross §7 with an emulated 16 kB L1 instruction cache
-- (their machine's) and the measured footprint table.
--

-- on its own: the extension and settings
\set ECHO none
\i sql/include/setup.sql
\set ECHO all
-- the planner hook and the executor nodes
LOAD 'fpbtree';

SET fpbtree.enable_prefetch_hashjoin = off;

CREATE TABLE bp_lineitem AS
SELECT i AS l_orderkey,
	   ((i * 37) % 50 + 1)::numeric(15,2) AS l_quantity,
	   ((i * 7919) % 100000 / 100.0 + 900)::numeric(15,2) AS l_extendedprice,
	   ((i % 11) / 100.0)::numeric(15,2) AS l_discount,
	   ((i % 9) / 100.0)::numeric(15,2) AS l_tax,
	   date '1992-01-01' + (i * 13) % 2500 AS l_shipdate
FROM generate_series(1, 10000) i;
CREATE TABLE bp_orders AS
SELECT o AS o_orderkey, (o % 997 * 10.5)::numeric(15,2) AS o_totalprice
FROM generate_series(1, 10000) o;
ALTER TABLE bp_orders ADD PRIMARY KEY (o_orderkey);
VACUUM ANALYZE bp_lineitem, bp_orders;

SET fpbtree.l1i_cache_size = '16kB';
SET fpbtree.buffer_min_rows = 600;
SET fpbtree.buffer_size = 1000;
SHOW fpbtree.l1i_cache_size;

-- Q1: scan + aggregation with numeric arithmetic do not fit together: a
-- Buffer between the scan and the aggregation
EXPLAIN (COSTS OFF)
SELECT sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
	   avg(l_quantity) AS avg_qty, count(*) AS count_order
FROM bp_lineitem WHERE l_shipdate <= date '1998-11-01';

-- EXPLAIN ANALYZE counts the refills: 10000 rows, the fill ramping up
-- 1, 2, 4, ..., 512 (1023 rows in 10 refills), then 9 rings of up to 1000
-- (the Buffer's Peak Memory figure masked)
CREATE FUNCTION bp_explain_analyze(q text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		RETURN NEXT regexp_replace(line, 'Peak Memory: \d+ kB', 'Peak Memory: N kB');
	END LOOP;
END $$;
SELECT bp_explain_analyze($$
SELECT sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
	   avg(l_quantity) AS avg_qty, count(*) AS count_order
FROM bp_lineitem WHERE l_shipdate <= date '1998-11-01'$$);
DROP FUNCTION bp_explain_analyze;

-- Q2: COUNT(*) over the same scan fits: one execution group, no Buffer
EXPLAIN (COSTS OFF)
SELECT count(*) AS count_order
FROM bp_lineitem WHERE l_shipdate <= date '1998-11-01';

-- Q3 as a foreign-key nested loop: the inner index scan returns one row
-- per loop (below the threshold), so it never gets a Buffer
SET enable_hashjoin = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF)
SELECT sum(o_totalprice), count(*), avg(l_discount)
FROM bp_lineitem, bp_orders
WHERE l_orderkey = o_orderkey AND l_shipdate <= date '1998-11-01';
RESET enable_hashjoin;
RESET enable_mergejoin;

-- Q3 as a merge join: the inner side is marked and restored, so no Buffer
-- goes there
SET enable_hashjoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF)
SELECT sum(o_totalprice), count(*), avg(l_discount)
FROM bp_lineitem, bp_orders
WHERE l_orderkey = o_orderkey AND l_shipdate <= date '1998-11-01';
RESET enable_hashjoin;
RESET enable_nestloop;

-- below the cardinality threshold nothing is buffered
SET fpbtree.buffer_min_rows = 100000;
EXPLAIN (COSTS OFF)
SELECT sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)), avg(l_quantity), count(*)
FROM bp_lineitem WHERE l_shipdate <= date '1998-11-01';
RESET fpbtree.buffer_min_rows;

-- below a PrefetchHashJoin: none directly below it (its children are
-- its lefttree and righttree), but inside a child the same rule as above,
-- a Buffer between the scan and the aggregation
SET fpbtree.enable_prefetch_hashjoin = on;
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF)
SELECT count(*), sum(o_totalprice) FROM bp_orders JOIN
	(SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount) * (1 + l_tax))
	 FROM bp_lineitem WHERE l_shipdate <= date '1998-11-01'
	 GROUP BY l_orderkey) s ON s.l_orderkey = o_orderkey;
RESET enable_mergejoin;
RESET enable_nestloop;
SET fpbtree.enable_prefetch_hashjoin = off;

-- a LIMIT stops early: reading ahead below it would only add work
EXPLAIN (COSTS OFF)
SELECT l_orderkey, l_extendedprice * (1 - l_discount)
FROM bp_lineitem WHERE l_shipdate <= date '1998-11-01' LIMIT 5;

-- the switch
SET enable_buffer_operator = off;
EXPLAIN (COSTS OFF)
SELECT sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)), avg(l_quantity), count(*)
FROM bp_lineitem WHERE l_shipdate <= date '1998-11-01';
RESET enable_buffer_operator;

-- with a 1 MB L1i every group fits: nothing is buffered
SET fpbtree.l1i_cache_size = '1MB';
EXPLAIN (COSTS OFF)
SELECT sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)), avg(l_quantity), count(*)
FROM bp_lineitem WHERE l_shipdate <= date '1998-11-01';
SET enable_hashjoin = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF)
SELECT sum(o_totalprice), count(*), avg(l_discount)
FROM bp_lineitem, bp_orders
WHERE l_orderkey = o_orderkey AND l_shipdate <= date '1998-11-01';

RESET ALL;
DROP TABLE bp_lineitem, bp_orders;
