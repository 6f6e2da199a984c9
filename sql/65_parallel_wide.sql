--
-- 65_parallel_wide: parallel scans of wide indexes whose prefixes do not
-- tell the keys apart (a long common prefix under "C", a type with the
-- constant prefix, a first column of one prefix in a multi-column index)
-- share the scan in runs like any other: the runs are bounded by the full
-- keys of the level-1 downlinks.  Results equal btree's and serial scans',
-- with 2 and 4 workers and with the leader alone; ordered ones under Gather
-- Merge in both directions; bounds that no entry equals ("< v"), IN lists,
-- NULLs, duplicates, rescans.  With the leader alone, the number of runs
-- it reads (a DEBUG1 message) shows the scan was split; before the full
-- keys, these scans were one run.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\i sql/include/parallel.sql
\set ECHO all

-- Every table exists twice: pw_<name>_f with an fpbtree index, pw_<name>_b
-- with a btree one.  s: text with an 8-byte common prefix (one prefix for
-- all), NULLs and duplicates; a: int4[] (the constant prefix); m: (s, g).
CREATE FUNCTION pw_make() RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	am text;
BEGIN
	FOREACH am IN ARRAY ARRAY['f', 'b'] LOOP
		EXECUTE format('CREATE TABLE pw_%s (id int4, s text COLLATE "C", a int4[], g int4) WITH (autovacuum_enabled = off)', am);
		EXECUTE format($q$INSERT INTO pw_%s
			SELECT g,
				   CASE WHEN g %% 29 = 0 THEN NULL
						ELSE 'customer' || lpad(((g::int8 * 7919) %% 6007)::text, 6, '0') || repeat('x', 40 + g %% 60) END,
				   CASE WHEN g %% 31 = 0 THEN NULL
						ELSE ARRAY[((g::int8 * 104729) %% 3001)::int4, g %% 3, g %% 7] || array_fill(g %% 5, ARRAY[20]) END,
				   g %% 11
			FROM generate_series(1, 12000) g$q$, am);
		EXECUTE format('CREATE INDEX pw_%s_s ON pw_%s USING %s (s)', am, am,
					   CASE am WHEN 'f' THEN 'fpbtree' ELSE 'btree' END);
		EXECUTE format('CREATE INDEX pw_%s_a ON pw_%s USING %s (a)', am, am,
					   CASE am WHEN 'f' THEN 'fpbtree' ELSE 'btree' END);
		EXECUTE format('CREATE INDEX pw_%s_m ON pw_%s USING %s (s, g)', am, am,
					   CASE am WHEN 'f' THEN 'fpbtree' ELSE 'btree' END);
	END LOOP;
END $$;
SELECT pw_make();
-- splits after the build: downlinks in another order than the blocks
-- (each key 6 times, spread over the key range)
INSERT INTO pw_f SELECT 20000 + g, 'customer' || lpad(((g % 500) * 11)::text, 6, '0') || 'y', ARRAY[g % 3001, 5], g % 11
FROM generate_series(1, 3000) g;
INSERT INTO pw_b SELECT 20000 + g, 'customer' || lpad(((g % 500) * 11)::text, 6, '0') || 'y', ARRAY[g % 3001, 5], g % 11
FROM generate_series(1, 3000) g;
VACUUM ANALYZE pw_f, pw_b;
-- tall enough for several level-1 pages, and one prefix for every s
SELECT i, s.height >= 3 AS tall, s.pages_per_level[2] >= 3 AS level1_pages
FROM unnest(ARRAY['pw_f_s', 'pw_f_a', 'pw_f_m']) i, fpbtree_stats(i::regclass) s
ORDER BY i;
SELECT count(DISTINCT fpbtree_prefix_text(s) >> 16) AS s_prefixes FROM pw_f;
-- the equality and IN-list queries below match rows
SELECT count(*) FILTER (WHERE s = 'customer000066y') AS eq_rows,
	count(*) FILTER (WHERE s = ANY (ARRAY(SELECT 'customer' || lpad((g * 11)::text, 6, '0') || 'y' FROM generate_series(1, 600, 3) g))) AS in_rows
FROM pw_b;

-- Query q ({T} = table) on index idx (a pattern: s and m both serve
-- queries on s alone): par_same with btree's rows (serial) as the
-- reference.
CREATE FUNCTION pw_same(q text, idx text, ordered bool) RETURNS text
LANGUAGE sql AS $$
	SELECT par_same(replace(q, '{T}', 'pw_f'), replace(q, '{T}', 'pw_b'),
					'pw_f_(' || idx || ')', ordered, 0)
$$;

CREATE TABLE pw_q (q text, idx text, ordered bool);
INSERT INTO pw_q VALUES
	('SELECT count(*) FROM {T} WHERE s IS NOT NULL AND par_true(s)', 's|m', false),
	('SELECT s FROM {T} WHERE s IS NOT NULL AND par_true(s)', 's|m', false),
	('SELECT id FROM {T} WHERE s IS NULL AND par_keep(id)', 's|m', false),
	('SELECT id, s FROM {T} WHERE s > ''customer001500'' AND par_keep(id)', 's|m', false),
	('SELECT s FROM {T} WHERE s < ''customer004000'' AND par_true(s)', 's|m', false),
	('SELECT s FROM {T} WHERE s <= ''customer003000y'' AND s >= ''customer000700'' AND par_true(s)', 's|m', false),
	('SELECT id FROM {T} WHERE s = ''customer000066y'' AND par_keep(id)', 's|m', false),
	('SELECT id, s FROM {T} WHERE s = ANY (ARRAY(SELECT ''customer'' || lpad((g * 11)::text, 6, ''0'') || ''y'' FROM generate_series(1, 600, 3) g)) AND par_keep(id)', 's|m', false),
	('SELECT s FROM {T} WHERE par_keep(id) ORDER BY s', 's|m', true),
	('SELECT s FROM {T} WHERE par_keep(id) ORDER BY s DESC', 's|m', true),
	('SELECT s FROM {T} WHERE s < ''customer004000'' AND par_keep(id) ORDER BY s DESC', 's|m', true),
	('SELECT s FROM {T} WHERE s > ''customer002000'' AND par_true(s) ORDER BY s DESC LIMIT 2000', 's|m', true),
	('SELECT s FROM {T} WHERE s BETWEEN ''customer000100'' AND ''customer005000'' AND par_keep(id) ORDER BY s', 's|m', true),
	('SELECT count(*) FROM {T} WHERE a IS NOT NULL AND par_true(a)', 'a', false),
	('SELECT a FROM {T} WHERE a > ''{1500}'' AND par_true(a)', 'a', false),
	('SELECT id FROM {T} WHERE a < ''{2000,1}'' AND a >= ''{10}'' AND par_keep(id)', 'a', false),
	('SELECT a FROM {T} WHERE a IS NULL AND par_true(a)', 'a', false),
	('SELECT a FROM {T} WHERE par_keep(id) ORDER BY a', 'a', true),
	('SELECT a FROM {T} WHERE a <= ''{2500}'' AND par_keep(id) ORDER BY a DESC', 'a', true),
	('SELECT count(*) FROM {T} WHERE s > ''customer000500'' AND g = 3 AND par_true(s)', 'm', false),
	('SELECT s, g FROM {T} WHERE s < ''customer005000'' AND par_keep(id) ORDER BY s DESC, g DESC', 'm', true);

SELECT q, left(pw_same(q, idx, ordered), 300) AS res FROM pw_q ORDER BY q;

-- the leader only gathers: the workers claim every run (the planner keeps
-- the lookups of a few keys serial then); no worker can start: the leader
-- claims every run itself
SET par.leader = off;
SELECT q, left(pw_same(q, idx, ordered), 300) AS res FROM pw_q
WHERE q !~ '= (''customer000066y''|ANY)' ORDER BY q;
RESET par.leader;
SET par.max_workers = 0;
SELECT q, left(pw_same(q, idx, ordered), 300) AS res FROM pw_q ORDER BY q;

-- The leader alone reads every run; it says how many.  With runs bounded by
-- prefix cut points (before), each of these scans had one or two runs.
SET client_min_messages = debug1;
SELECT par_rows('SELECT count(*) FROM pw_f WHERE s IS NOT NULL AND par_true(s)', 2);
SELECT par_rows('SELECT count(*) FROM (SELECT s FROM pw_f WHERE s < ''customer004000'' AND par_true(s) ORDER BY s DESC LIMIT 100000) x', 2);
SELECT par_rows('SELECT count(*) FROM pw_f WHERE a IS NOT NULL AND par_true(a)', 2);
SELECT par_rows('SELECT count(*) FROM pw_f WHERE s > ''customer000500'' AND g = 3 AND par_true(s)', 2);
RESET client_min_messages;

RESET par.max_workers;

-- rescans: a Gather on the inner side of a nested loop runs the shared
-- scan again for each outer row (with the same bounds: a partial path
-- takes no parameters; the filter changes with the outer row)
CREATE FUNCTION pw_rescan(tbl text) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
	res text[];
BEGIN
	PERFORM par_mode(2);
	PERFORM set_config('enable_hashjoin', 'off', true);
	PERFORM set_config('enable_mergejoin', 'off', true);
	PERFORM set_config('enable_material', 'off', true);
	PERFORM set_config('enable_memoize', 'off', true);
	EXECUTE format($q$SELECT array_agg(x::text ORDER BY x::text) FROM (
		SELECT o.v, count(t.id) FROM (VALUES ('customer000100'), ('customer003000'), (NULL), ('customer9')) o(v)
		LEFT JOIN %I t ON t.id %% 5 <> length(o.v) %% 5 AND t.s > 'customer002000' AND par_keep(t.id)
		GROUP BY o.v) x$q$, tbl) INTO res;
	RETURN res;
END $$;
SELECT par_plan($$SELECT o.v, count(t.id) FROM (VALUES ('a'), ('b')) o(v) LEFT JOIN pw_f t ON t.id % 5 <> length(o.v) % 5 AND t.s > 'customer002000' AND par_keep(t.id) GROUP BY o.v$$, 2)
	~ 'Nested Loop.*Gather.*Parallel Index Scan using pw_f_s' AS rescan_plan;
SELECT pw_rescan('pw_f') = pw_rescan('pw_b') AS rescan_same;

SELECT fpbtree_check('pw_f_s', true), fpbtree_check('pw_f_a', true),
	fpbtree_check('pw_f_m', true);

DROP INDEX pw_f_m;
SET par.max_workers = 0;
-- Index blocks the leader alone reads for a forward and a backward count of
-- the same range, through pw_f_s (pw_f_m goes).  The backward runs start on
-- their upper leaves: a run bounded by a truncated separator used to start
-- on the leaf right of it and walk back, one more block per run (154
-- blocks against the forward scan's 137; now 122).
-- (each count is flushed by the statement before the one reading it)
CREATE FUNCTION pw_blocks() RETURNS bigint
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_stat_clear_snapshot();
	RETURN (SELECT idx_blks_hit + idx_blks_read FROM pg_statio_user_indexes
			WHERE indexrelname = 'pw_f_s');
END $$;
SELECT pg_stat_force_next_flush() AS flush \gset
SELECT pw_blocks() AS b0 \gset
SELECT par_rows('SELECT count(*) FROM pw_f WHERE s < ''customer004000'' AND par_true(s)', 2) AS fwd \gset
SELECT pg_stat_force_next_flush() AS flush \gset
SELECT pw_blocks() - :b0 AS forward_blocks \gset
SELECT pg_stat_force_next_flush() AS flush \gset
SELECT pw_blocks() AS b1 \gset
SELECT par_rows('SELECT count(*) FROM (SELECT s FROM pw_f WHERE s < ''customer004000'' AND par_true(s) ORDER BY s DESC LIMIT 100000) x', 2) AS bwd \gset
SELECT pg_stat_force_next_flush() AS flush \gset
SELECT pw_blocks() - :b1 AS backward_blocks \gset
SELECT :'fwd' = :'bwd' AS same_count, :forward_blocks AS fwd_blocks, :backward_blocks AS bwd_blocks,
	:backward_blocks - :forward_blocks AS backward_extra_blocks;
RESET par.max_workers;

DROP TABLE pw_f, pw_b, pw_q;
DROP FUNCTION pw_make(), pw_same(text, text, bool), pw_rescan(text),
	pw_blocks();
