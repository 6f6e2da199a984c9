--
-- 11_parallel_scan: parallel index scans and index-only scans (forced with
-- zero parallel costs, 2 and 4 workers) return what serial fpbtree scans and
-- btree return, over the predicate forms of the differential test, on
-- indexes of one leaf, of one level-1 page and of many level-1 pages, with
-- NULLs and duplicates; ordered scans in both directions under Gather Merge.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\i sql/include/parallel.sql
\set ECHO all

-- Every table exists twice: ps<n>_f with fpbtree indexes, ps<n>_b with
-- btree ones.  k has duplicates and NULLs, f too.
CREATE FUNCTION ps_make(n int, rows int, opts text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	am text;
BEGIN
	FOREACH am IN ARRAY ARRAY['f', 'b'] LOOP
		EXECUTE format('CREATE TABLE ps%s_%s (id int4, k int8, f float8) WITH (autovacuum_enabled = off)', n, am);
		EXECUTE format($q$INSERT INTO ps%s_%s
			SELECT g,
				   CASE WHEN g %% 13 = 0 THEN NULL ELSE (g::int8 * 7919) %% (%s / 7 + 3) END,
				   CASE WHEN g %% 17 = 0 THEN NULL ELSE ((g::int8 * 104729) %% 1009) / 8.0 END
			FROM generate_series(1, %s) g$q$, n, am, rows, rows);
		EXECUTE format('CREATE INDEX ps%s_%s_k ON ps%s_%s USING %s (k) %s', n, am, n, am,
					   CASE am WHEN 'f' THEN 'fpbtree' ELSE 'btree' END,
					   CASE am WHEN 'f' THEN opts ELSE '' END);
		EXECUTE format('CREATE INDEX ps%s_%s_f ON ps%s_%s USING %s (f) %s', n, am, n, am,
					   CASE am WHEN 'f' THEN 'fpbtree' ELSE 'btree' END,
					   CASE am WHEN 'f' THEN opts ELSE '' END);
	END LOOP;
END $$;

-- 1: the root is the only leaf; 2: one level-1 page; 3: many level-1 pages
-- (fillfactor 10 spreads the entries over hundreds of leaves)
SELECT ps_make(1, 150, '');
SELECT ps_make(2, 12000, '');
SELECT ps_make(3, 24000, 'WITH (fillfactor = 10)');
-- more rows in random key order through the indexes of table 3: page splits
-- leave downlinks in a different order from the blocks
INSERT INTO ps3_f SELECT 100000 + g, (g * 6007) % 3431, NULL FROM generate_series(1, 6000) g;
INSERT INTO ps3_b SELECT 100000 + g, (g * 6007) % 3431, NULL FROM generate_series(1, 6000) g;
VACUUM ANALYZE ps1_f, ps1_b, ps2_f, ps2_b, ps3_f, ps3_b;
SELECT n, s.height, s.pages_per_level[1] AS leaves, s.pages_per_level[2] AS level1_pages
FROM generate_series(1, 3) n, fpbtree_stats(format('ps%s_f_k', n)::regclass) s
ORDER BY n;

-- Query template q ({T} = table, {C} = indexed column) on table n, column
-- col: par_same with the btree table's rows (2 workers) as the reference
-- and the fpbtree index ps<n>_f_<col>.  The predicate forms below: plain
-- scans return id, index-only scans the key.
CREATE FUNCTION ps_same(q text, n int, col text, ordered bool) RETURNS text
LANGUAGE sql AS $$
	SELECT par_same(replace(replace(q, '{T}', format('ps%s_f', n)), '{C}', col),
					replace(replace(q, '{T}', format('ps%s_b', n)), '{C}', col),
					format('ps%s_f_%s', n, col), ordered, 2)
$$;
CREATE TABLE ps_q (q text, col text, ordered bool);
INSERT INTO ps_q VALUES
	('SELECT id, k FROM {T} WHERE k IS NOT NULL AND par_keep(id)', 'k', false),
	('SELECT k FROM {T} WHERE k IS NOT NULL AND par_true(k)', 'k', false),
	('SELECT id FROM {T} WHERE k IS NULL AND par_keep(id)', 'k', false),
	('SELECT k FROM {T} WHERE k IS NULL AND par_true(k)', 'k', false),
	('SELECT id FROM {T} WHERE k = 77 AND par_keep(id)', 'k', false),
	('SELECT k FROM {T} WHERE k = 77 AND par_true(k)', 'k', false),
	('SELECT id FROM {T} WHERE k < 300 AND par_keep(id)', 'k', false),
	('SELECT k FROM {T} WHERE k <= 300 AND par_true(k)', 'k', false),
	('SELECT id FROM {T} WHERE k > 1200 AND par_keep(id)', 'k', false),
	('SELECT k FROM {T} WHERE k >= 1200 AND par_true(k)', 'k', false),
	('SELECT id FROM {T} WHERE k BETWEEN 150 AND 2900 AND par_keep(id)', 'k', false),
	('SELECT k FROM {T} WHERE k > 150 AND k < 2900 AND par_true(k)', 'k', false),
	('SELECT k FROM {T} WHERE k > 150 AND k < 100 AND par_true(k)', 'k', false),
	('SELECT k FROM {T} WHERE k = 5::int2 AND par_true(k)', 'k', false),
	('SELECT id FROM {T} WHERE k > 20::int4 AND k <= 2000::int2 AND par_keep(id)', 'k', false),
	('SELECT k FROM {T} WHERE k >= -1::int2 AND k < 9223372036854775807 AND par_true(k)', 'k', false),
	('SELECT count(*), sum(k) FROM {T} WHERE k > 0 AND par_true(k)', 'k', false),
	('SELECT count(*), sum(id) FROM {T} WHERE k >= 0 AND par_keep(id)', 'k', false),
	('SELECT count(*) FROM {T} WHERE k IS NOT NULL', 'k', false),
	('SELECT id, f FROM {T} WHERE f < 60.5 AND par_keep(id)', 'f', false),
	('SELECT f FROM {T} WHERE f > 10::float4 AND f <= 100 AND par_true(f)', 'f', false),
	('SELECT f FROM {T} WHERE f IS NULL AND par_true(f)', 'f', false),
	-- ordered, both directions, under Gather Merge
	('SELECT k FROM {T} WHERE par_keep(id) ORDER BY k', 'k', true),
	('SELECT k FROM {T} WHERE par_keep(id) ORDER BY k DESC', 'k', true),
	('SELECT k FROM {T} WHERE k > 700 AND par_true(k) ORDER BY k', 'k', true),
	('SELECT k FROM {T} WHERE k < 2500 AND par_keep(id) ORDER BY k DESC', 'k', true),
	('SELECT k FROM {T} WHERE k BETWEEN 100 AND 3000 AND par_keep(id) ORDER BY k DESC LIMIT 3000', 'k', true),
	('SELECT k FROM {T} WHERE par_true(k) ORDER BY k DESC LIMIT 1000', 'k', true),
	('SELECT k FROM {T} WHERE k IS NOT NULL AND par_keep(id) ORDER BY k LIMIT 1000', 'k', true),
	('SELECT f FROM {T} WHERE par_keep(id) ORDER BY f DESC', 'f', true);

SELECT n, q, left(ps_same(q, n, col, ordered), 400) AS res
FROM ps_q, generate_series(1, 3) n
ORDER BY n, q;

-- a few plans, as the planner shows them
SELECT par_plan('SELECT count(*) FROM ps3_f WHERE k > 100', 2);
SELECT par_plan('SELECT count(*), sum(id) FROM ps3_f WHERE k > 100', 2);
SELECT par_plan('SELECT k FROM ps3_f WHERE par_keep(id) ORDER BY k DESC', 4);

-- rescans of a parallel scan: a Gather on the inner side of a nested loop
-- runs the shared scan again for each outer row
CREATE FUNCTION ps_rescan(tbl text, explain bool) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
	res text[] := '{}';
	q text;
	line text;
BEGIN
	PERFORM par_mode(2);
	PERFORM set_config('enable_hashjoin', 'off', true);
	PERFORM set_config('enable_mergejoin', 'off', true);
	PERFORM set_config('enable_material', 'off', true);
	PERFORM set_config('enable_memoize', 'off', true);
	q := format('SELECT o.k, count(t.id) AS x FROM (VALUES (5::int8), (77), (300), (NULL), (2999)) o(k) LEFT JOIN %I t ON t.id %% 7 <> o.k %% 7 AND t.k < 1000 AND par_keep(t.id) GROUP BY o.k', tbl);
	IF explain THEN
		FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
			res := res || line;
		END LOOP;
		RETURN res;
	END IF;
	EXECUTE format('SELECT array_agg(s::text ORDER BY s::text) FROM (%s) s', q) INTO res;
	RETURN res;
END $$;
SELECT unnest(ps_rescan('ps3_f', true));
SELECT ps_rescan('ps3_f', false) = ps_rescan('ps3_b', false) AS rescan_same;

-- VACUUM (PARALLEL 2) on a table with two fpbtree indexes: the bulk deletes
-- and cleanups run in parallel workers, the indexes stay valid and agree
-- with btree
DELETE FROM ps3_f WHERE id % 5 = 0;
DELETE FROM ps3_b WHERE id % 5 = 0;
SET min_parallel_index_scan_size = 0;
SET max_parallel_maintenance_workers = 2;
VACUUM (PARALLEL 2) ps3_f;
VACUUM (PARALLEL 2) ps3_b;
RESET min_parallel_index_scan_size;
RESET max_parallel_maintenance_workers;
SELECT fpbtree_check('ps3_f_k', true), fpbtree_check('ps3_f_f', true);
SELECT q, left(ps_same(q, 3, col, ordered), 400) AS res FROM ps_q ORDER BY q;

-- the leader only gathers (parallel_leader_participation off): the workers
-- claim every run; and no worker can start (max_parallel_workers = 0): the
-- leader claims every run itself (the planner keeps the lookups of one key,
-- and the empty range it gives one worker, serial when the leader does not
-- scan)
SET par.leader = off;
SELECT q, left(ps_same(q, 3, col, ordered), 400) AS res FROM ps_q
WHERE q !~ '[^<>]= \d' AND q !~ 'k > 150 AND k < 100' ORDER BY q;
RESET par.leader;
SET par.max_workers = 0;
SELECT q, left(ps_same(q, 3, col, ordered), 400) AS res FROM ps_q
WHERE q !~ '[^<>]= \d' ORDER BY q;
RESET par.max_workers;

DROP TABLE ps1_f, ps1_b, ps2_f, ps2_b, ps3_f, ps3_b, ps_q;
DROP FUNCTION ps_make(int, int, text), ps_same(text, int, text, bool),
	ps_rescan(text, bool);
