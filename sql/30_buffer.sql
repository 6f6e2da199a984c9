--
-- 30_buffer: the Buffer operator (Zhou & Ross) gives the same results as the
-- unbuffered plan.  Every query below runs twice, with the plan refinement
-- off and with it on in its most aggressive form (an emulated 1 kB L1i and
-- no cardinality threshold, so that every eligible edge gets a Buffer), for
-- several ring sizes (1, 7 and 1000 tuples: refills at every row, at odd
-- boundaries, and whole inputs in one ring).  The comparison happens in SQL;
-- the output only says, per query, whether the buffered plan had a Buffer
-- and whether both results agree.
--

-- on its own: the extension and settings
\set ECHO none
\i sql/include/setup.sql
\set ECHO all
-- the planner hook and the executor nodes
LOAD 'fpbtree';

-- the results of the Buffer alone: no PrefetchHashJoin in these plans
SET fpbtree.enable_prefetch_hashjoin = off;

CREATE TABLE buf_li AS
SELECT i AS l_orderkey,
	   i % 7 AS l_linenumber,
	   ((i * 37) % 50 + 1)::numeric(15,2) AS l_quantity,
	   ((i * 7919) % 100000 / 100.0 + 900)::numeric(15,2) AS l_extendedprice,
	   ((i % 11) / 100.0)::numeric(15,2) AS l_discount,
	   ((i % 9) / 100.0)::numeric(15,2) AS l_tax,
	   (ARRAY['A','N','R'])[i % 3 + 1]::char(1) AS l_returnflag,
	   (ARRAY['F','O'])[i % 2 + 1]::char(1) AS l_linestatus,
	   date '1992-01-01' + (i * 13) % 2500 AS l_shipdate,
	   CASE WHEN i % 13 = 0 THEN NULL ELSE repeat('x', i % 40) END AS l_comment,
	   (i * 7) % 5003 + 1 AS l_partkey
FROM generate_series(1, 20000) i;
-- old rows miss a column added later (its default lives in the descriptor)
ALTER TABLE buf_li ADD COLUMN l_extra int DEFAULT 42;
INSERT INTO buf_li
SELECT l_orderkey + 20000, l_linenumber, l_quantity, l_extendedprice, l_discount,
	   l_tax, l_returnflag, l_linestatus, l_shipdate, l_comment, l_partkey, NULL
FROM buf_li WHERE l_orderkey <= 2000;
CREATE INDEX buf_li_orderkey ON buf_li (l_orderkey);
CREATE INDEX buf_li_partkey ON buf_li (l_partkey);

CREATE TABLE buf_orders AS
SELECT o AS o_orderkey, (o * 31) % 1000 AS o_custkey,
	   (o % 997 * 10.5)::numeric(15,2) AS o_totalprice,
	   date '1992-01-01' + (o * 17) % 2500 AS o_orderdate
FROM generate_series(1, 22000) o;
ALTER TABLE buf_orders ADD PRIMARY KEY (o_orderkey);

CREATE TABLE buf_part AS
SELECT p AS p_partkey, 'part ' || p AS p_name, (p % 50) AS p_size
FROM generate_series(1, 5003) p;
ALTER TABLE buf_part ADD PRIMARY KEY (p_partkey);

VACUUM ANALYZE buf_li, buf_orders, buf_part;

-- the queries: name, settings to force a plan shape, text, whether ordered
CREATE TABLE buf_queries (name text PRIMARY KEY, settings text,
						  q text, ordered bool);
INSERT INTO buf_queries VALUES
('scan', '', $$SELECT * FROM buf_li$$, false),
('scan_filter', '', $$SELECT l_orderkey, l_comment, l_extra FROM buf_li WHERE l_shipdate <= date '1998-01-01' AND l_comment IS NOT NULL$$, false),
('q1', '', $$SELECT sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)), avg(l_quantity), count(*) FROM buf_li WHERE l_shipdate <= date '1998-11-01'$$, false),
('q1_grouped', '', $$SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice * (1 - l_discount)), avg(l_discount), count(*) FROM buf_li WHERE l_shipdate <= date '1998-09-02' GROUP BY 1, 2 ORDER BY 1, 2$$, true),
('q1_sorted_agg', 'enable_hashagg=off', $$SELECT l_partkey, sum(l_quantity), max(l_comment) FROM buf_li GROUP BY l_partkey$$, false),
('index_scan', 'enable_seqscan=off,enable_bitmapscan=off', $$SELECT l_orderkey, l_quantity FROM buf_li WHERE l_orderkey BETWEEN 100 AND 15000 ORDER BY l_orderkey$$, true),
('index_only', 'enable_seqscan=off,enable_bitmapscan=off', $$SELECT l_orderkey FROM buf_li WHERE l_orderkey > 500 ORDER BY l_orderkey DESC$$, true),
('bitmap', 'enable_seqscan=off,enable_indexscan=off', $$SELECT l_orderkey, l_extra FROM buf_li WHERE l_partkey < 3000$$, false),
('nestloop_fk', 'enable_hashjoin=off,enable_mergejoin=off', $$SELECT l_orderkey, o_totalprice FROM buf_li JOIN buf_orders ON o_orderkey = l_orderkey WHERE l_quantity > 10$$, false),
('nestloop_agg', 'enable_hashjoin=off,enable_mergejoin=off', $$SELECT sum(o_totalprice), count(*), avg(l_discount) FROM buf_li, buf_orders WHERE l_orderkey = o_orderkey AND l_shipdate <= date '1998-11-01'$$, false),
('nestloop_mat', 'enable_hashjoin=off,enable_mergejoin=off,enable_indexscan=off,enable_bitmapscan=off', $$SELECT p_partkey, l_orderkey FROM buf_part JOIN buf_li ON l_partkey < p_partkey + 2 AND l_partkey > p_partkey - 2 WHERE p_size = 3$$, false),
('hashjoin', 'enable_nestloop=off,enable_mergejoin=off', $$SELECT l_orderkey, l_linenumber, o_custkey FROM buf_li JOIN buf_orders ON o_orderkey = l_orderkey$$, false),
('hashjoin_agg', 'enable_nestloop=off,enable_mergejoin=off', $$SELECT sum(o_totalprice), count(*), avg(l_discount) FROM buf_li, buf_orders WHERE l_orderkey = o_orderkey AND l_shipdate <= date '1998-11-01'$$, false),
('hashjoin_left', 'enable_nestloop=off,enable_mergejoin=off', $$SELECT o_orderkey, l_linenumber FROM buf_orders LEFT JOIN buf_li ON l_orderkey = o_orderkey AND l_linenumber = 3$$, false),
('hashjoin_3way', 'enable_nestloop=off,enable_mergejoin=off', $$SELECT p_size, count(*), sum(o_totalprice) FROM buf_li JOIN buf_orders ON o_orderkey = l_orderkey JOIN buf_part ON p_partkey = l_partkey GROUP BY p_size$$, false),
('mergejoin', 'enable_nestloop=off,enable_hashjoin=off', $$SELECT l_orderkey, o_orderdate FROM buf_li JOIN buf_orders ON o_orderkey = l_orderkey$$, false),
('mergejoin_sort', 'enable_nestloop=off,enable_hashjoin=off,enable_indexscan=off', $$SELECT l_partkey, p_name FROM buf_li JOIN buf_part ON p_partkey = l_partkey WHERE l_linenumber < 5$$, false),
('mergejoin_full', 'enable_nestloop=off,enable_hashjoin=off', $$SELECT o_orderkey, l_orderkey FROM (SELECT * FROM buf_orders WHERE o_custkey < 500) o FULL JOIN (SELECT * FROM buf_li WHERE l_linenumber = 2) l ON o_orderkey = l_orderkey$$, false),
('semi', '', $$SELECT o_orderkey FROM buf_orders WHERE EXISTS (SELECT 1 FROM buf_li WHERE l_orderkey = o_orderkey AND l_quantity > 40)$$, false),
('anti', '', $$SELECT o_orderkey FROM buf_orders WHERE NOT EXISTS (SELECT 1 FROM buf_li WHERE l_orderkey = o_orderkey)$$, false),
('in_hashed_subplan', 'enable_hashjoin=off', $$SELECT count(*) FROM buf_li WHERE l_partkey NOT IN (SELECT p_partkey FROM buf_part WHERE p_size > 10)$$, false),
('correlated_subplan', '', $$SELECT p_partkey, (SELECT sum(l_quantity) FROM buf_li WHERE l_partkey = p_partkey) FROM buf_part WHERE p_partkey < 60$$, false),
('lateral_rescan', 'enable_hashjoin=off,enable_mergejoin=off,enable_indexscan=off,enable_bitmapscan=off', $$SELECT p_partkey, s.* FROM buf_part, LATERAL (SELECT count(*), max(l_orderkey) FROM buf_li WHERE l_partkey = p_partkey) s WHERE p_partkey % 500 = 1$$, false),
('lateral_limit', '', $$SELECT p_partkey, s.l_orderkey FROM buf_part, LATERAL (SELECT l_orderkey FROM buf_li WHERE l_partkey = p_partkey ORDER BY l_orderkey LIMIT 2) s WHERE p_size = 7$$, false),
('sort', '', $$SELECT l_comment, l_orderkey FROM buf_li ORDER BY l_comment NULLS FIRST, l_orderkey$$, true),
('sort_limit', '', $$SELECT l_orderkey, l_extendedprice FROM buf_li ORDER BY l_extendedprice DESC, l_orderkey LIMIT 25$$, true),
('limit', '', $$SELECT l_orderkey FROM buf_li WHERE l_quantity > 3 LIMIT 1500$$, false),
('limit_offset_subquery', '', $$SELECT * FROM (SELECT l_orderkey, l_partkey FROM buf_li ORDER BY l_orderkey) s OFFSET 100 LIMIT 3000$$, true),
('distinct', '', $$SELECT DISTINCT l_partkey % 97, l_returnflag FROM buf_li$$, false),
('distinct_sorted', 'enable_hashagg=off', $$SELECT DISTINCT l_linenumber, l_linestatus FROM buf_li ORDER BY 1, 2$$, true),
('union_all', '', $$SELECT l_orderkey FROM buf_li WHERE l_linenumber = 1 UNION ALL SELECT o_orderkey FROM buf_orders WHERE o_custkey < 100$$, false),
('union', '', $$SELECT l_partkey FROM buf_li UNION SELECT p_partkey * 2 FROM buf_part$$, false),
('intersect', '', $$SELECT l_orderkey FROM buf_li INTERSECT SELECT o_orderkey FROM buf_orders WHERE o_orderkey % 3 = 0$$, false),
('except_sorted', 'enable_hashagg=off', $$SELECT l_partkey FROM buf_li EXCEPT ALL SELECT p_partkey FROM buf_part$$, false),
('window', '', $$SELECT l_orderkey, sum(l_quantity) OVER (PARTITION BY l_partkey ORDER BY l_orderkey), rank() OVER (ORDER BY l_extendedprice) FROM buf_li WHERE l_orderkey < 8000$$, false),
('cte_materialized', '', $$WITH c AS MATERIALIZED (SELECT l_partkey, l_quantity FROM buf_li WHERE l_linenumber > 2) SELECT a.l_partkey, count(*) FROM c a JOIN c b ON a.l_partkey = b.l_partkey GROUP BY 1$$, false),
('cte_inlined', '', $$WITH c AS (SELECT l_orderkey, l_quantity * 2 AS q FROM buf_li) SELECT sum(q) FROM c WHERE l_orderkey > 10$$, false),
('cte_recursive', '', $$WITH RECURSIVE r(n, s) AS (SELECT 1, 0::numeric UNION ALL SELECT n + 1, s + (SELECT sum(l_quantity) FROM buf_li WHERE l_partkey = n) FROM r WHERE n < 30) SELECT * FROM r$$, false),
('function_scan', '', $$SELECT g, g % 17 FROM generate_series(1, 30000) g WHERE g % 3 <> 0$$, false),
('values_join', '', $$SELECT v.x, count(*) FROM (VALUES (1), (2), (3), (NULL::int)) v(x) LEFT JOIN buf_li ON l_linenumber = v.x GROUP BY v.x$$, false),
('srf_in_tlist', '', $$SELECT l_orderkey, generate_series(1, l_linenumber) FROM buf_li WHERE l_orderkey < 3000$$, false),
('scalar_subquery', '', $$SELECT count(*) FROM buf_li WHERE l_quantity > (SELECT avg(l_quantity) FROM buf_li)$$, false),
('any_array', '', $$SELECT l_orderkey FROM buf_li WHERE l_linenumber = ANY (ARRAY[1, 3, 5]) AND l_comment LIKE 'xx%'$$, false),
('nulls_wide', '', $$SELECT l_comment, l_extra, l_orderkey % 5 FROM buf_li WHERE l_extra IS NULL OR l_comment IS NULL$$, false),
('parallel_hashjoin', 'max_parallel_workers_per_gather=2,parallel_setup_cost=0,parallel_tuple_cost=0,min_parallel_table_scan_size=0,enable_nestloop=off,enable_mergejoin=off', $$SELECT l_linenumber, count(*), sum(o_totalprice) FROM buf_li JOIN buf_orders ON o_orderkey = l_orderkey WHERE l_quantity > 5 GROUP BY 1$$, false),
('big_values', '', $$SELECT i, repeat(md5(i::text), 200) FROM generate_series(1, 2000) i$$, false),
('parallel_join_chain', 'max_parallel_workers_per_gather=2,parallel_setup_cost=0,parallel_tuple_cost=0,min_parallel_table_scan_size=0,enable_nestloop=off,enable_mergejoin=off,join_collapse_limit=1', $$SELECT count(*), sum(o1.o_custkey), max(o5.o_totalprice) FROM buf_orders o1 JOIN buf_orders o2 USING (o_orderkey) JOIN buf_orders o3 USING (o_orderkey) JOIN buf_orders o4 USING (o_orderkey) JOIN buf_orders o5 USING (o_orderkey) WHERE o1.o_custkey < 900$$, false),
('wide_growing', '', $$SELECT i, md5(r), length(r) FROM (SELECT i, repeat(chr(65 + i % 26), 65536 + i * 1500) r FROM generate_series(1, 120) i OFFSET 0) s$$, false);

-- run q with settings, buffered or not; returns md5 of its rows and the
-- number of Buffers in the plan that computed it
CREATE FUNCTION buf_run(q text, settings text, ordered bool, buffered bool,
						bufsize int, OUT digest text, OUT buffers int)
LANGUAGE plpgsql AS $$
DECLARE
	s text;
	line text;
	w text;
BEGIN
	PERFORM set_config('max_parallel_workers_per_gather', '0', true);
	FOREACH s IN ARRAY ARRAY['enable_seqscan', 'enable_indexscan',
							 'enable_bitmapscan', 'enable_hashjoin',
							 'enable_mergejoin', 'enable_nestloop',
							 'enable_hashagg'] LOOP
		PERFORM set_config(s, 'on', true);
	END LOOP;
	FOREACH s IN ARRAY string_to_array(settings, ',') LOOP
		PERFORM set_config(split_part(s, '=', 1), split_part(s, '=', 2), true);
	END LOOP;
	PERFORM set_config('enable_buffer_operator', buffered::text, true);
	PERFORM set_config('fpbtree.l1i_cache_size', '1kB', true);
	PERFORM set_config('fpbtree.buffer_min_rows', '0', true);
	PERFORM set_config('fpbtree.buffer_size', bufsize::text, true);
	IF ordered THEN
		w := 'SELECT md5(string_agg(x::text, ''|'')) FROM (' || q || ') x';
	ELSE
		w := 'SELECT md5(string_agg(x::text, ''|'' ORDER BY x::text)) FROM (' || q || ') x';
	END IF;
	buffers := 0;
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || w LOOP
		IF line LIKE '%Custom Scan (Buffer)%' THEN
			buffers := buffers + 1;
		END IF;
	END LOOP;
	EXECUTE w INTO digest;
	digest := coalesce(digest, 'empty');
END $$;

SELECT name,
	   (b1.buffers > 0 AND b7.buffers > 0 AND b1000.buffers > 0) AS buffered,
	   u.buffers = 0 AS unbuffered,
	   u.digest = b1.digest AND u.digest = b7.digest
	   AND u.digest = b1000.digest AS same
FROM buf_queries,
	 LATERAL buf_run(q, settings, ordered, false, 7) u,
	 LATERAL buf_run(q, settings, ordered, true, 1) b1,
	 LATERAL buf_run(q, settings, ordered, true, 7) b7,
	 LATERAL buf_run(q, settings, ordered, true, 1000) b1000
ORDER BY name;

-- memory: what a Buffer holds at its peak (EXPLAIN ANALYZE's Peak Memory,
-- in kB: ring and arena) stays within work_mem plus the widest row and a
-- block or so.  Rows wider than the 64 kB arena blocks that keep growing
-- (65 kB to 245 kB) must not leave a block per row behind; narrow rows
-- (which fill work_mem with blocks) followed by wide ones must not make it
-- hold both.  The results of the first query are compared with the
-- unbuffered plan's above ('wide_growing').
CREATE FUNCTION buf_peak_memory(q text, OUT buffers int, OUT peak_kb int)
LANGUAGE plpgsql AS $$
DECLARE
	plan jsonb;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, FORMAT JSON) ' || q INTO plan;
	SELECT count(*), max(v::int) INTO buffers, peak_kb
	FROM jsonb_path_query(plan, 'strict $.** ? (@."Custom Plan Provider" == "Buffer")') b
		 LEFT JOIN LATERAL jsonb_path_query(b, '$."Peak Memory"') v ON true;
END $$;
SET fpbtree.l1i_cache_size = '1kB';
SET fpbtree.buffer_min_rows = 0;
SET fpbtree.buffer_size = 1000;
SET work_mem = '1MB';
SELECT buffers, peak_kb IS NOT NULL AND peak_kb <= 1024 + 245 + 128 AS within_work_mem
FROM buf_peak_memory($$SELECT sum(length(r)), count(DISTINCT md5(r)) FROM (SELECT repeat(chr(65 + i % 26), 65536 + i * 1500) r FROM generate_series(1, 120) i OFFSET 0) s$$);
SELECT buffers, peak_kb IS NOT NULL AND peak_kb <= 1024 + 170 + 128 AS within_work_mem
FROM buf_peak_memory($$SELECT sum(length(r)), count(DISTINCT md5(r)) FROM (SELECT repeat(chr(65 + i % 26), CASE WHEN i <= 600 THEN 8000 ELSE 100000 + i * 100 END) r FROM generate_series(1, 700) i OFFSET 0) s$$);
-- the ring grows with what refills take, not to buffer_size at start-up
-- (it was 32 MB a Buffer at the largest setting, whatever the rows)
SET fpbtree.buffer_size = 1000000;
SET work_mem = '64kB';
SELECT buffers, peak_kb IS NOT NULL AND peak_kb <= 1024 AS ring_grows
FROM buf_peak_memory($$SELECT count(*), sum(x) FROM (SELECT g AS x FROM generate_series(1, 20000) g OFFSET 0) s$$);
SELECT count(*), sum(x) FROM (SELECT g AS x FROM generate_series(1, 20000) g OFFSET 0) s;
RESET work_mem;
RESET fpbtree.buffer_size;
RESET fpbtree.buffer_min_rows;
RESET fpbtree.l1i_cache_size;
DROP FUNCTION buf_peak_memory;

-- a query planned as a plain statement (not inside a subquery) as well
SET fpbtree.l1i_cache_size = '1kB';
SET fpbtree.buffer_min_rows = 0;
SET fpbtree.buffer_size = 7;
EXPLAIN (COSTS OFF)
SELECT l_returnflag, count(*) FROM buf_li WHERE l_quantity > 25 GROUP BY 1 ORDER BY 1;
SELECT l_returnflag, count(*) FROM buf_li WHERE l_quantity > 25 GROUP BY 1 ORDER BY 1;
SET enable_buffer_operator = off;
SELECT l_returnflag, count(*) FROM buf_li WHERE l_quantity > 25 GROUP BY 1 ORDER BY 1;
RESET enable_buffer_operator;

-- EXPLAIN VERBOSE resolves the Buffer's columns through its child
EXPLAIN (VERBOSE, COSTS OFF)
SELECT l_returnflag, sum(l_quantity * 2) FROM buf_li WHERE l_quantity > 25 GROUP BY 1;

-- a Buffer holds its child once: a plan node reachable twice would be
-- copied twice by copyObject (the plan cache copies a generic plan) and
-- written twice by nodeToString (the plan sent to a Gather's workers), so
-- the plan would double with every nested Buffer.  A chain of nine hash
-- joins gets 19 Buffers, ten of them nested; its cached generic plan must
-- stay within a small multiple of the unbuffered plan's (without the fix
-- it is over a hundred times larger).
CREATE TABLE buf_chain AS SELECT g AS k FROM generate_series(1, 2000) g;
ANALYZE buf_chain;
SET enable_nestloop = off;
SET enable_mergejoin = off;
SET join_collapse_limit = 1;
SET plan_cache_mode = force_generic_plan;
PREPARE buf_chain_on AS SELECT /* chain with Buffers */ count(*)
FROM buf_chain a1 JOIN buf_chain a2 USING (k) JOIN buf_chain a3 USING (k)
	 JOIN buf_chain a4 USING (k) JOIN buf_chain a5 USING (k) JOIN buf_chain a6 USING (k)
	 JOIN buf_chain a7 USING (k) JOIN buf_chain a8 USING (k) JOIN buf_chain a9 USING (k)
	 JOIN buf_chain a10 USING (k);
EXECUTE buf_chain_on;
SET enable_buffer_operator = off;
PREPARE buf_chain_off AS SELECT /* chain without Buffers */ count(*)
FROM buf_chain a1 JOIN buf_chain a2 USING (k) JOIN buf_chain a3 USING (k)
	 JOIN buf_chain a4 USING (k) JOIN buf_chain a5 USING (k) JOIN buf_chain a6 USING (k)
	 JOIN buf_chain a7 USING (k) JOIN buf_chain a8 USING (k) JOIN buf_chain a9 USING (k)
	 JOIN buf_chain a10 USING (k);
EXECUTE buf_chain_off;
RESET enable_buffer_operator;
DO $$
DECLARE
	line text;
	n int := 0;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) EXECUTE buf_chain_on' LOOP
		IF line LIKE '%Custom Scan (Buffer)%' THEN
			n := n + 1;
		END IF;
	END LOOP;
	RAISE NOTICE 'Buffers in the cached plan: %', n;
END $$;
SELECT b.used_bytes <= 3 * u.used_bytes AS cached_plan_small
FROM pg_backend_memory_contexts b, pg_backend_memory_contexts u
WHERE b.name = 'CachedPlan' AND b.ident LIKE '%chain with Buffers%'
  AND u.name = 'CachedPlan' AND u.ident LIKE '%chain without Buffers%';
DEALLOCATE buf_chain_on;
DEALLOCATE buf_chain_off;
RESET plan_cache_mode;
RESET join_collapse_limit;
RESET enable_mergejoin;
RESET enable_nestloop;
DROP TABLE buf_chain;

-- cursors: a SCROLL cursor fetched both ways; the refinement keeps Buffers
-- out of the backward path (here below the Sort, which scrolls by itself)
BEGIN;
DECLARE c SCROLL CURSOR FOR
	SELECT l_returnflag, l_linestatus, count(*), sum(l_quantity)
	FROM buf_li WHERE l_quantity > 10 GROUP BY 1, 2 ORDER BY 1, 2;
FETCH 3 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH LAST FROM c;
FETCH ABSOLUTE 2 FROM c;
CLOSE c;
-- a cursor without SCROLL over a plan that could scroll keeps scrolling
DECLARE d CURSOR FOR SELECT l_orderkey, l_quantity FROM buf_li WHERE l_orderkey < 3000;
FETCH 3 FROM d;
FETCH BACKWARD 2 FROM d;
FETCH FORWARD 2 FROM d;
CLOSE d;
DECLARE e SCROLL CURSOR FOR
	SELECT l_orderkey, o_totalprice FROM buf_li JOIN buf_orders ON o_orderkey = l_orderkey
	WHERE l_orderkey BETWEEN 100 AND 20000;
FETCH 2 FROM e;
FETCH BACKWARD 1 FROM e;
MOVE LAST IN e;
FETCH BACKWARD 2 FROM e;
CLOSE e;
COMMIT;
SET enable_buffer_operator = off;
BEGIN;
DECLARE c SCROLL CURSOR FOR
	SELECT l_returnflag, l_linestatus, count(*), sum(l_quantity)
	FROM buf_li WHERE l_quantity > 10 GROUP BY 1, 2 ORDER BY 1, 2;
FETCH 3 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH LAST FROM c;
FETCH ABSOLUTE 2 FROM c;
CLOSE c;
DECLARE d CURSOR FOR SELECT l_orderkey, l_quantity FROM buf_li WHERE l_orderkey < 3000;
FETCH 3 FROM d;
FETCH BACKWARD 2 FROM d;
FETCH FORWARD 2 FROM d;
CLOSE d;
DECLARE e SCROLL CURSOR FOR
	SELECT l_orderkey, o_totalprice FROM buf_li JOIN buf_orders ON o_orderkey = l_orderkey
	WHERE l_orderkey BETWEEN 100 AND 20000;
FETCH 2 FROM e;
FETCH BACKWARD 1 FROM e;
MOVE LAST IN e;
FETCH BACKWARD 2 FROM e;
CLOSE e;
COMMIT;
RESET ALL;
SET max_parallel_workers_per_gather = 0;
SET jit = off;

-- bounded read-ahead: a merge join stops reading its outer side when the
-- inner side runs out (here after 11 of 2000 outer rows).  The outer side
-- is buffered, and its filter divides by zero at a = 50, a row the
-- unbuffered plan never reaches.  The Buffer's fill ramps up from one tuple
-- (1, 2, 4, 8, ...), so it has read at most 15 rows when the join stops:
-- no error, and the outer scan's row counts show how far it read.
-- (EXPLAIN ANALYZE with the Buffer's Peak Memory figure masked)
CREATE FUNCTION buf_explain_analyze(q text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		RETURN NEXT regexp_replace(line, 'Peak Memory: \d+ kB', 'Peak Memory: N kB');
	END LOOP;
END $$;
CREATE TABLE buf_ra_outer AS SELECT a, a * 10 AS b FROM generate_series(1, 2000) a;
CREATE INDEX buf_ra_outer_a ON buf_ra_outer (a);
CREATE TABLE buf_ra_inner AS SELECT a FROM generate_series(1, 10) a;
CREATE INDEX buf_ra_inner_a ON buf_ra_inner (a);
VACUUM ANALYZE buf_ra_outer, buf_ra_inner;
SET fpbtree.l1i_cache_size = '1kB';
SET fpbtree.buffer_min_rows = 0;
SET fpbtree.buffer_size = 1000;
SET enable_hashjoin = off;
SET enable_nestloop = off;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
-- (no index-only scan: its heap-fetch count depends on the visibility map)
SET enable_indexonlyscan = off;
SELECT buf_explain_analyze($$
SELECT o.a, o.b FROM buf_ra_outer o JOIN buf_ra_inner i ON o.a = i.a
WHERE 100 / (o.a - 50) <> 1000$$);
SELECT o.a, o.b FROM buf_ra_outer o JOIN buf_ra_inner i ON o.a = i.a
WHERE 100 / (o.a - 50) <> 1000 ORDER BY 1;
-- a hash join whose hash table turns out empty reads at most one outer
-- row (to see whether the outer side is empty before building); the first
-- refill takes one tuple, so the buffered plan reads no more than that
SET enable_hashjoin = on;
SET enable_mergejoin = off;
SET enable_seqscan = on;
SET enable_indexscan = off;
DELETE FROM buf_ra_inner;
SELECT buf_explain_analyze($$
SELECT o.a, o.b FROM buf_ra_outer o JOIN buf_ra_inner i ON o.a = i.a
WHERE 100 / (o.a - 2) <> 1000$$);
RESET ALL;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
DROP TABLE buf_ra_outer, buf_ra_inner;
DROP FUNCTION buf_explain_analyze;

DROP FUNCTION buf_run;
DROP TABLE buf_queries, buf_li, buf_orders, buf_part;
