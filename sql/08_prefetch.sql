--
-- 08_prefetch: range-scan prefetching (leaf pages through the jump-pointer
-- array, heap blocks of upcoming TIDs) changes no result, and its counters
-- show what it did.
--

-- on its own: the extension and settings
\set ECHO none
\i sql/include/setup.sql
\set ECHO all

SET effective_io_concurrency = 16;
SET enable_seqscan = off;
SET enable_bitmapscan = off;

-- a bulk-built index of the keys 1..200000
-- and a btree twin; heap order is shuffled so plain index scans jump around
CREATE TABLE pf_f (a int8, pad int4);
INSERT INTO pf_f SELECT g, (g * 7919) % 200000
FROM generate_series(1, 200000) g ORDER BY (g * 7919) % 200003;
CREATE TABLE pf_b AS SELECT * FROM pf_f;
CREATE INDEX pf_f_a ON pf_f USING fpbtree (a);
CREATE INDEX pf_b_a ON pf_b (a);
VACUUM ANALYZE pf_f;
VACUUM ANALYZE pf_b;

-- bulk-built leaves hold the same number of entries each, so page
-- boundaries are known: leaf i holds keys (i-1)*per+1 .. i*per
-- (all but the last are full, so the rounded-up average is the exact count)
CREATE TEMP TABLE per AS
SELECT ceil(entries::numeric / pages_per_level[1])::int8 AS n
FROM fpbtree_stats('pf_f_a');
SELECT n, height FROM per, fpbtree_stats('pf_f_a');

-- ranges: page-aligned starts and ends, one page, within a page, two pages,
-- the whole index, open ends; forward and backward; on/off/btree
CREATE TEMP TABLE ranges (lo int8, hi int8);
INSERT INTO ranges
SELECT lo, hi FROM per,
	LATERAL (VALUES
		(n + 1, 2 * n),			-- exactly leaf 2
		(n, 2 * n + 1),			-- one entry either side of leaf 2
		(5, 17),				-- inside one leaf
		(n - 3, n + 3),			-- across one boundary
		(3 * n + 1, 40 * n),	-- page-aligned start, many leaves
		(1, 200000),			-- the whole index
		(-1000, 5 * n),			-- open-ish start
		(150000, 10000000),		-- open-ish end
		(123457, 123457),		-- one key
		(7, 3)					-- empty
	) v(lo, hi);

CREATE FUNCTION pf_compare() RETURNS TABLE (lo int8, hi int8, ok bool)
LANGUAGE plpgsql AS $$
DECLARE
	r record;
	f1 text; f2 text; f3 text; f4 text; b1 text; b2 text;
BEGIN
	FOR r IN SELECT * FROM ranges LOOP
		SET LOCAL fpbtree.range_prefetch = on;
		SET LOCAL fpbtree.heap_prefetch = on;
		SELECT string_agg(a::text, ',' ORDER BY a) INTO f1
		FROM (SELECT a FROM pf_f WHERE a BETWEEN r.lo AND r.hi ORDER BY a) s;
		SELECT string_agg(x, ',') INTO f2
		FROM (SELECT a::text || ':' || pad AS x FROM pf_f
			  WHERE a BETWEEN r.lo AND r.hi ORDER BY a DESC) s;
		SET LOCAL fpbtree.range_prefetch = off;
		SET LOCAL fpbtree.heap_prefetch = off;
		SELECT string_agg(a::text, ',' ORDER BY a) INTO f3
		FROM (SELECT a FROM pf_f WHERE a BETWEEN r.lo AND r.hi ORDER BY a) s;
		SELECT string_agg(x, ',') INTO f4
		FROM (SELECT a::text || ':' || pad AS x FROM pf_f
			  WHERE a BETWEEN r.lo AND r.hi ORDER BY a DESC) s;
		SELECT string_agg(a::text, ',' ORDER BY a) INTO b1
		FROM (SELECT a FROM pf_b WHERE a BETWEEN r.lo AND r.hi ORDER BY a) s;
		SELECT string_agg(x, ',') INTO b2
		FROM (SELECT a::text || ':' || pad AS x FROM pf_b
			  WHERE a BETWEEN r.lo AND r.hi ORDER BY a DESC) s;
		lo := r.lo;
		hi := r.hi;
		ok := f1 IS NOT DISTINCT FROM b1 AND f3 IS NOT DISTINCT FROM b1
			AND f2 IS NOT DISTINCT FROM b2 AND f4 IS NOT DISTINCT FROM b2;
		RETURN NEXT;
	END LOOP;
END $$;
SELECT count(*) AS ranges, count(*) FILTER (WHERE ok) AS equal FROM pf_compare();
SELECT * FROM pf_compare() WHERE NOT ok;

-- the plans really are index scans on the two indexes
EXPLAIN (COSTS OFF) SELECT a FROM pf_f WHERE a BETWEEN 1 AND 1000 ORDER BY a;
EXPLAIN (COSTS OFF) SELECT a, pad FROM pf_f WHERE a BETWEEN 1 AND 1000 ORDER BY a DESC;

-- counters: a scan over L leaves prefetches leaves 3..L (the first two are
-- read before the scan knows it is long), never a page past the end leaf.
-- Keys are unique, so leaf boundaries are "truncated" separators (k, 0) and
-- a range starting at a leaf's first key starts on that leaf.
CREATE FUNCTION pf_leaf_prefetches(q text) RETURNS int8
LANGUAGE plpgsql AS $$
DECLARE
	before int8;
	after int8;
BEGIN
	SELECT leaf_prefetches INTO before FROM fpbtree_prefetch_stats();
	EXECUTE q;
	SELECT leaf_prefetches INTO after FROM fpbtree_prefetch_stats();
	RETURN after - before;
END $$;

SELECT fpbtree_prefetch_stats_reset();
SELECT * FROM fpbtree_prefetch_stats();
-- one leaf (leaf 2 exactly), one key, two leaves: nothing
SELECT pf_leaf_prefetches(format('SELECT count(*) FROM pf_f WHERE a BETWEEN %s AND %s', n + 1, 2 * n)) FROM per;
SELECT pf_leaf_prefetches('SELECT count(*) FROM pf_f WHERE a = 4242');
SELECT pf_leaf_prefetches(format('SELECT count(*) FROM pf_f WHERE a BETWEEN %s AND %s', n - 3, n + 3)) FROM per;
-- leaves 4..40 (37 leaves): 35 prefetches, forward and backward (backward
-- also reads leaf 3, to see that nothing of the range is left, but never
-- prefetches past leaf 4, the end leaf)
SELECT pf_leaf_prefetches(format('SELECT count(*) FROM pf_f WHERE a BETWEEN %s AND %s', 3 * n + 1, 40 * n)) FROM per;
SELECT pf_leaf_prefetches(format('SELECT sum(a) FROM (SELECT a FROM pf_f WHERE a BETWEEN %s AND %s ORDER BY a DESC) s', 3 * n + 1, 40 * n)) FROM per;
-- the whole index: every leaf but the first two
SELECT pf_leaf_prefetches('SELECT count(*) FROM pf_f') = pages_per_level[1] - 2 AS all_but_two
FROM fpbtree_stats('pf_f_a');
-- switched off, or effective_io_concurrency = 0: none
SET fpbtree.range_prefetch = off;
SELECT pf_leaf_prefetches(format('SELECT count(*) FROM pf_f WHERE a BETWEEN %s AND %s', 3 * n + 1, 40 * n)) FROM per;
RESET fpbtree.range_prefetch;
SET effective_io_concurrency = 0;
SELECT pf_leaf_prefetches(format('SELECT count(*) FROM pf_f WHERE a BETWEEN %s AND %s', 3 * n + 1, 40 * n)) FROM per;
SET effective_io_concurrency = 16;

-- heap prefetch: a plain index scan over shuffled heap rows prefetches heap
-- blocks; an index-only scan prefetches none
SELECT fpbtree_prefetch_stats_reset();
SELECT count(pad) FROM (SELECT pad FROM pf_f WHERE a BETWEEN 1000 AND 3000 ORDER BY a) s;
SELECT heap_prefetches > 100 AS heap_prefetched FROM fpbtree_prefetch_stats();
-- but not one block ahead (effective_io_concurrency = 1, PostgreSQL's
-- default, or a distance capped at 1): it costs more than it hides
SET effective_io_concurrency = 1;
SELECT fpbtree_prefetch_stats_reset();
SELECT count(pad) FROM (SELECT pad FROM pf_f WHERE a BETWEEN 1000 AND 3000 ORDER BY a) s;
SELECT heap_prefetches FROM fpbtree_prefetch_stats();
SET effective_io_concurrency = 16;
SET fpbtree.prefetch_distance_max = 1;
SELECT fpbtree_prefetch_stats_reset();
SELECT count(pad) FROM (SELECT pad FROM pf_f WHERE a BETWEEN 1000 AND 3000 ORDER BY a) s;
SELECT heap_prefetches FROM fpbtree_prefetch_stats();
RESET fpbtree.prefetch_distance_max;
SELECT fpbtree_prefetch_stats_reset();
SELECT count(*) FROM (SELECT a FROM pf_f WHERE a BETWEEN 1000 AND 3000 ORDER BY a) s;
SELECT heap_prefetches FROM fpbtree_prefetch_stats();
SET fpbtree.heap_prefetch = off;
SELECT count(pad) FROM (SELECT pad FROM pf_f WHERE a BETWEEN 1000 AND 3000 ORDER BY a) s;
SELECT heap_prefetches FROM fpbtree_prefetch_stats();
RESET fpbtree.heap_prefetch;

-- a parallel scan (here the leader alone: no worker can start) prefetches
-- the leaves of the run it reads and on into those of the run it claimed
-- ahead: every leaf but the scan's first, not every run's first
SET max_parallel_workers = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_index_scan_size = 0;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM pf_f WHERE a > 0;
SET client_min_messages = debug1;
SELECT pf_leaf_prefetches('SELECT count(*) FROM pf_f WHERE a > 0') =
	pages_per_level[1] - 1 AS all_but_one
FROM fpbtree_stats('pf_f_a');
RESET client_min_messages;
RESET max_parallel_workers;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_index_scan_size;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- after random inserts (page splits) and deletes + VACUUM, still equal
INSERT INTO pf_f SELECT (g::int8 * 104729) % 400000 + 200001, g FROM generate_series(1, 30000) g;
INSERT INTO pf_b SELECT (g::int8 * 104729) % 400000 + 200001, g FROM generate_series(1, 30000) g;
DELETE FROM pf_f WHERE a % 5 = 0;
DELETE FROM pf_b WHERE a % 5 = 0;
VACUUM pf_f;
VACUUM pf_b;
INSERT INTO ranges VALUES (190000, 260000), (1, 1000000), (250000, 250100);
SELECT count(*) AS ranges, count(*) FILTER (WHERE ok) AS equal FROM pf_compare();
SELECT fpbtree_check('pf_f_a', true);

RESET ALL;
DROP TABLE pf_f, pf_b;
DROP FUNCTION pf_compare(), pf_leaf_prefetches(text);
