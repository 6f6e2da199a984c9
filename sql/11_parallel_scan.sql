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

-- Plan settings: serial (workers = 0) or parallel at zero cost.  The
-- session settings ps.leader and ps.max_workers, when set, override
-- parallel_leader_participation and max_parallel_workers.
CREATE FUNCTION ps_mode(workers int) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	leader text := coalesce(nullif(current_setting('ps.leader', true), ''), 'on');
	maxw text := nullif(current_setting('ps.max_workers', true), '');
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	PERFORM set_config('parallel_setup_cost', '0', true);
	PERFORM set_config('parallel_tuple_cost', '0', true);
	PERFORM set_config('min_parallel_index_scan_size', '0', true);
	PERFORM set_config('min_parallel_table_scan_size', '0', true);
	PERFORM set_config('parallel_leader_participation', leader, true);
	IF maxw IS NOT NULL THEN
		PERFORM set_config('max_parallel_workers', maxw, true);
	END IF;
	PERFORM set_config('max_parallel_workers_per_gather', workers::text, true);
END $$;

CREATE FUNCTION ps_plan(q text, workers int) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM ps_mode(workers);
	RETURN fpb_explain(q);
END $$;

CREATE FUNCTION ps_rows(q text, workers int) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
	res text[];
BEGIN
	PERFORM ps_mode(workers);
	EXECUTE format('SELECT coalesce(array_agg(r::text), ''{}'') FROM (%s) r', q)
		INTO res;
	RETURN res;
END $$;

CREATE FUNCTION ps_sorted(a text[]) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
	SELECT coalesce(array_agg(x ORDER BY x COLLATE "C"), '{}') FROM unnest(a) x
$$;

-- Query template q ({T} = table, {C} = indexed column) on table n, column
-- col: the btree table's rows are the reference; the fpbtree table must
-- give them serially and with 2 and 4 workers, in the same order when
-- ordered.  The parallel plans must run a Parallel Index (Only) Scan on the
-- fpbtree index (under Gather Merge when ordered); returns 'ok' or what
-- differs.
CREATE FUNCTION ps_same(q text, n int, col text, ordered bool) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	qf text := replace(replace(q, '{T}', format('ps%s_f', n)), '{C}', col);
	qb text := replace(replace(q, '{T}', format('ps%s_b', n)), '{C}', col);
	idx text := format('ps%s_f_%s', n, col);
	ref text[];
	got text[];
	plan text;
	w int;
BEGIN
	ref := ps_rows(qb, 2);
	FOREACH w IN ARRAY ARRAY[0, 2, 4] LOOP
		IF w > 0 THEN
			plan := ps_plan(qf, w);
			IF plan !~ ('Parallel Index (Only )?Scan (Backward )?using ' || idx || ' ') THEN
				RETURN format('%s workers: no parallel scan of %s: %s', w, idx, plan);
			END IF;
			IF ordered AND plan !~ 'Gather Merge' THEN
				RETURN format('%s workers: no Gather Merge: %s', w, plan);
			END IF;
		END IF;
		got := ps_rows(qf, w);
		IF ordered THEN
			IF got IS DISTINCT FROM ref THEN
				RETURN format('%s workers: got %s, expected %s', w,
							  left(got::text, 200), left(ref::text, 200));
			END IF;
		ELSIF ps_sorted(got) IS DISTINCT FROM ps_sorted(ref) THEN
			RETURN format('%s workers: %s rows, expected %s; first differences %s / %s', w,
						  cardinality(got), cardinality(ref),
						  left((SELECT array_agg(x) FROM (SELECT unnest(got) EXCEPT ALL SELECT unnest(ref)) d(x))::text, 100),
						  left((SELECT array_agg(x) FROM (SELECT unnest(ref) EXCEPT ALL SELECT unnest(got)) d(x))::text, 100));
		END IF;
	END LOOP;
	RETURN 'ok';
END $$;

-- The predicate forms (plain scans return id, index-only scans the key).
-- ps_true() and ps_keep() are costly filters that the workers evaluate, so
-- the planner prefers the parallel plan at any size (ps_true takes only the
-- key, so index-only scans stay possible).
CREATE FUNCTION ps_true(x anyelement) RETURNS bool
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE COST 100000 AS $$ BEGIN RETURN true; END $$;
CREATE FUNCTION ps_keep(id int4) RETURNS bool
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE COST 100000 AS $$ BEGIN RETURN id % 3 <> 1; END $$;
CREATE TABLE ps_q (q text, col text, ordered bool);
INSERT INTO ps_q VALUES
	('SELECT id, k FROM {T} WHERE k IS NOT NULL AND ps_keep(id)', 'k', false),
	('SELECT k FROM {T} WHERE k IS NOT NULL AND ps_true(k)', 'k', false),
	('SELECT id FROM {T} WHERE k IS NULL AND ps_keep(id)', 'k', false),
	('SELECT k FROM {T} WHERE k IS NULL AND ps_true(k)', 'k', false),
	('SELECT id FROM {T} WHERE k = 77 AND ps_keep(id)', 'k', false),
	('SELECT k FROM {T} WHERE k = 77 AND ps_true(k)', 'k', false),
	('SELECT id FROM {T} WHERE k < 300 AND ps_keep(id)', 'k', false),
	('SELECT k FROM {T} WHERE k <= 300 AND ps_true(k)', 'k', false),
	('SELECT id FROM {T} WHERE k > 1200 AND ps_keep(id)', 'k', false),
	('SELECT k FROM {T} WHERE k >= 1200 AND ps_true(k)', 'k', false),
	('SELECT id FROM {T} WHERE k BETWEEN 150 AND 2900 AND ps_keep(id)', 'k', false),
	('SELECT k FROM {T} WHERE k > 150 AND k < 2900 AND ps_true(k)', 'k', false),
	('SELECT k FROM {T} WHERE k > 150 AND k < 100 AND ps_true(k)', 'k', false),
	('SELECT k FROM {T} WHERE k = 5::int2 AND ps_true(k)', 'k', false),
	('SELECT id FROM {T} WHERE k > 20::int4 AND k <= 2000::int2 AND ps_keep(id)', 'k', false),
	('SELECT k FROM {T} WHERE k >= -1::int2 AND k < 9223372036854775807 AND ps_true(k)', 'k', false),
	('SELECT count(*), sum(k) FROM {T} WHERE k > 0 AND ps_true(k)', 'k', false),
	('SELECT count(*), sum(id) FROM {T} WHERE k >= 0 AND ps_keep(id)', 'k', false),
	('SELECT count(*) FROM {T} WHERE k IS NOT NULL', 'k', false),
	('SELECT id, f FROM {T} WHERE f < 60.5 AND ps_keep(id)', 'f', false),
	('SELECT f FROM {T} WHERE f > 10::float4 AND f <= 100 AND ps_true(f)', 'f', false),
	('SELECT f FROM {T} WHERE f IS NULL AND ps_true(f)', 'f', false),
	-- ordered, both directions, under Gather Merge
	('SELECT k FROM {T} WHERE ps_keep(id) ORDER BY k', 'k', true),
	('SELECT k FROM {T} WHERE ps_keep(id) ORDER BY k DESC', 'k', true),
	('SELECT k FROM {T} WHERE k > 700 AND ps_true(k) ORDER BY k', 'k', true),
	('SELECT k FROM {T} WHERE k < 2500 AND ps_keep(id) ORDER BY k DESC', 'k', true),
	('SELECT k FROM {T} WHERE k BETWEEN 100 AND 3000 AND ps_keep(id) ORDER BY k DESC LIMIT 3000', 'k', true),
	('SELECT k FROM {T} WHERE ps_true(k) ORDER BY k DESC LIMIT 1000', 'k', true),
	('SELECT k FROM {T} WHERE k IS NOT NULL AND ps_keep(id) ORDER BY k LIMIT 1000', 'k', true),
	('SELECT f FROM {T} WHERE ps_keep(id) ORDER BY f DESC', 'f', true);

SELECT n, q, left(ps_same(q, n, col, ordered), 400) AS res
FROM ps_q, generate_series(1, 3) n
ORDER BY n, q;

-- a few plans, as the planner shows them
SELECT ps_plan('SELECT count(*) FROM ps3_f WHERE k > 100', 2);
SELECT ps_plan('SELECT count(*), sum(id) FROM ps3_f WHERE k > 100', 2);
SELECT ps_plan('SELECT k FROM ps3_f WHERE ps_keep(id) ORDER BY k DESC', 4);

-- rescans of a parallel scan: a Gather on the inner side of a nested loop
-- runs the shared scan again for each outer row
CREATE FUNCTION ps_rescan(tbl text, explain bool) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
	res text[] := '{}';
	q text;
	line text;
BEGIN
	PERFORM ps_mode(2);
	PERFORM set_config('enable_hashjoin', 'off', true);
	PERFORM set_config('enable_mergejoin', 'off', true);
	PERFORM set_config('enable_material', 'off', true);
	PERFORM set_config('enable_memoize', 'off', true);
	q := format('SELECT o.k, count(t.id) AS x FROM (VALUES (5::int8), (77), (300), (NULL), (2999)) o(k) LEFT JOIN %I t ON t.id %% 7 <> o.k %% 7 AND t.k < 1000 AND ps_keep(t.id) GROUP BY o.k', tbl);
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
SET ps.leader = off;
SELECT q, left(ps_same(q, 3, col, ordered), 400) AS res FROM ps_q
WHERE q !~ '[^<>]= \d' AND q !~ 'k > 150 AND k < 100' ORDER BY q;
RESET ps.leader;
SET ps.max_workers = 0;
SELECT q, left(ps_same(q, 3, col, ordered), 400) AS res FROM ps_q
WHERE q !~ '[^<>]= \d' ORDER BY q;
RESET ps.max_workers;

DROP TABLE ps1_f, ps1_b, ps2_f, ps2_b, ps3_f, ps3_b, ps_q;
DROP FUNCTION ps_true(anyelement), ps_keep(int4);
DROP FUNCTION ps_make(int, int, text), ps_mode(int), ps_plan(text, int),
	ps_rows(text, int), ps_sorted(text[]), ps_same(text, int, text, bool),
	ps_rescan(text, bool);
