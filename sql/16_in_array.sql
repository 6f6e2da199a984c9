--
-- 16_in_array: k IN (...) and k = ANY (array) as fpbtree index scans
-- (amsearcharray): plain, index-only and bitmap scans return what btree and
-- a sequential scan return, in index order both ways; cross-type arrays,
-- NULLs, duplicates, empty and unsorted arrays, -0/+0 and NaN, array keys
-- with range keys and with each other, cursors going backward, leaves
-- splitting under a cursor, rescans with a changing array, parallel plans.
--

-- on its own: the extension and settings
\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all
SET TimeZone = 'America/New_York';

-- Every table exists twice: ia_<t>_f with an fpbtree index on k, and
-- ia_<t>_b with a btree one.
CREATE FUNCTION ia_make(t text, typ text, expr text, rows int, opts text DEFAULT '')
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	am text;
BEGIN
	FOREACH am IN ARRAY ARRAY['f', 'b'] LOOP
		EXECUTE format('CREATE TABLE ia_%s_%s (id int4, k %s, v int4) WITH (autovacuum_enabled = off)', t, am, typ);
		EXECUTE format('INSERT INTO ia_%s_%s SELECT g, %s, g %% 97 FROM generate_series(1, %s) g',
					   t, am, expr, rows);
		EXECUTE format('CREATE INDEX ia_%s_%s_k ON ia_%s_%s USING %s (k) %s', t, am, t, am,
					   CASE am WHEN 'f' THEN 'fpbtree' ELSE 'btree' END,
					   CASE am WHEN 'f' THEN opts ELSE '' END);
	END LOOP;
END $$;

-- int8 keys 0..1499, each about four times, every 11th NULL; fillfactor 30
-- spreads them over two dozen leaves (about 65 values a leaf, each value's
-- entries a run stored once)
SELECT ia_make('i8', 'int8', 'CASE WHEN g % 11 = 0 THEN NULL ELSE (g::int8 * 7919) % 1500 END', 6600, 'WITH (fillfactor = 30)');
SELECT ia_make('i4', 'int4', 'CASE WHEN g % 11 = 0 THEN NULL ELSE (g * 7919) % 1500 - 700 END', 3000);
SELECT ia_make('i2', 'int2', 'CASE WHEN g % 11 = 0 THEN NULL ELSE ((g * 7919) % 1500 - 700)::int2 END', 3000);
-- floats with -0, +0, NaN and infinities among them
SELECT ia_make('f8', 'float8', $$CASE g % 13 WHEN 0 THEN NULL WHEN 1 THEN '-0' WHEN 2 THEN '0'
	WHEN 3 THEN 'NaN' WHEN 4 THEN '-Infinity' WHEN 5 THEN 'Infinity' ELSE ((g * 7919) % 400) / 4.0 END$$, 3000);
-- timestamptz every hour, twice, and a date column
SELECT ia_make('tz', 'timestamptz', $$CASE WHEN g % 11 = 0 THEN NULL
	ELSE '2024-03-01 00:00+00'::timestamptz + (g % 1500) * interval '1 hour' END$$, 3000);
SELECT ia_make('dt', 'date', $$CASE WHEN g % 11 = 0 THEN NULL ELSE '2024-01-01'::date + g % 400 END$$, 2000);
VACUUM ANALYZE ia_i8_f, ia_i8_b, ia_i4_f, ia_i4_b, ia_i2_f, ia_i2_b,
	ia_f8_f, ia_f8_b, ia_tz_f, ia_tz_b, ia_dt_f, ia_dt_b;
SELECT t, s.height, s.pages_per_level[1] AS leaves
FROM unnest(ARRAY['i8', 'i4', 'tz']) t, fpbtree_stats(format('ia_%s_f_k', t)::regclass) s
ORDER BY t;

-- Query q on table {t}: the btree twin's index scan gives the reference
-- rows, a sequential scan must give them, and so must index scans
-- (index-only where possible) and bitmap scans of the fpbtree index
-- ia_<t>_f_k; with ordered, in the same order.  Returns 'ok' and the
-- number of rows, or what differs.
CREATE FUNCTION ia_same(q text, t text, ordered bool DEFAULT false)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	fq text := replace(q, '{t}', format('ia_%s_f', t));
	ref text[];
	got text[];
	mode text;
	plan text;
BEGIN
	ref := fpb_rows(replace(q, '{t}', format('ia_%s_b', t)), 'index');
	FOREACH mode IN ARRAY ARRAY['seq', 'index', 'bitmap'] LOOP
		IF mode <> 'seq' THEN
			plan := fpb_plan(fq, mode);
			IF plan !~ format(' ia_%s_f_k([ \n]|$)', t) THEN
				RETURN format('%s: plan does not use ia_%s_f_k: %s', mode, t, plan);
			END IF;
		END IF;
		got := fpb_rows(fq, mode);
		IF ordered AND got IS DISTINCT FROM ref THEN
			RETURN format('%s: got %s, expected %s', mode, left(got::text, 300), left(ref::text, 300));
		ELSIF fpb_sorted(got) IS DISTINCT FROM fpb_sorted(ref) THEN
			RETURN format('%s: got %s, expected %s', mode,
						  left(fpb_sorted(got)::text, 300), left(fpb_sorted(ref)::text, 300));
		END IF;
	END LOOP;
	RETURN 'ok ' || cardinality(ref);
END $$;

-- the executor hands the array to the index: one Index Cond, no Filter,
-- in both directions and for index-only scans
SELECT fpb_plan('SELECT k, v FROM ia_i8_f WHERE k IN (5, 3, 1) ORDER BY k', 'index');
SELECT fpb_plan('SELECT k FROM ia_i8_f WHERE k = ANY (''{5, 3, 1}''::int4[]) ORDER BY k DESC', 'index');
SELECT fpb_plan('SELECT k FROM ia_tz_f WHERE k = ANY (''{2024-03-05}''::date[])', 'index');

-- plain scans select v * 0 (not in the index, ties still look alike),
-- index-only scans k alone
CREATE TABLE ia_q (t text, q text, ordered bool);
INSERT INTO ia_q VALUES
	-- unsorted, duplicates, absent values, NULL elements
	('i8', 'SELECT k, v FROM {t} WHERE k IN (5, 3, 3, 9999, 1, -4, 1499)', false),
	('i8', 'SELECT k FROM {t} WHERE k = ANY (''{5, 3, 3, 9999, 1, NULL, 1499, 0}'')', false),
	('i8', 'SELECT k, v * 0 FROM {t} WHERE k IN (700, 5, 3, 3, 9999, 1, 1499, 0) ORDER BY k', true),
	('i8', 'SELECT k, v * 0 FROM {t} WHERE k IN (700, 5, 3, 3, 9999, 1, 1499, 0) ORDER BY k DESC', true),
	('i8', 'SELECT k FROM {t} WHERE k = ANY (''{900, 7, 7, 7, 450, NULL, 2, 1}'') ORDER BY k', true),
	('i8', 'SELECT k FROM {t} WHERE k = ANY (''{900, 7, 7, 7, 450, NULL, 2, 1}'') ORDER BY k DESC', true),
	('i8', 'SELECT k FROM {t} WHERE k IN (1200, 3, 800, 801, 802, 5) ORDER BY k DESC LIMIT 9', true),
	('i8', 'SELECT k, v * 0 FROM {t} WHERE k IN (1200, 3, 800, 801, 802, 5) ORDER BY k LIMIT 9', true),
	-- cross-type arrays
	('i8', 'SELECT k, v FROM {t} WHERE k = ANY (''{17, 4, 99999, -1, 17}''::int4[])', false),
	('i8', 'SELECT k FROM {t} WHERE k = ANY (''{1400, 17, 4, 17}''::int2[]) ORDER BY k DESC', true),
	('i4', 'SELECT k, v FROM {t} WHERE k = ANY (''{-700, 17, 4, 9999999999, -1, 17}''::int8[])', false),
	('i4', 'SELECT k FROM {t} WHERE k = ANY (''{-5, 799, 0, -5}''::int2[]) ORDER BY k', true),
	('i2', 'SELECT k, v FROM {t} WHERE k = ANY (''{-700, 17, 4, 99999, -99999, NULL}''::int8[])', false),
	('i2', 'SELECT k FROM {t} WHERE k = ANY (''{799, 17, -3, 70000}''::int4[]) ORDER BY k DESC', true),
	-- empty arrays, all-NULL arrays, NULL arrays
	('i8', 'SELECT k FROM {t} WHERE k = ANY (''{}'')', false),
	('i8', 'SELECT k FROM {t} WHERE k = ANY (''{NULL, NULL}'')', false),
	('i8', 'SELECT k FROM {t} WHERE k = ANY (NULL::int8[])', false),
	('i8', 'SELECT k FROM {t} WHERE k = ANY (''{}'') AND k > 5', false),
	('i8', 'SELECT k FROM {t} WHERE k = ANY (''{3, 4}'') AND k IS NULL', false),
	('i8', 'SELECT k FROM {t} WHERE k = ANY (''{3, 4}'') AND k IS NOT NULL', false),
	-- a large array: many elements on every leaf, and more leaves than one
	('i8', 'SELECT k, v * 0 FROM {t} WHERE k = ANY (ARRAY(SELECT (g * 37) % 1700 - 50 FROM generate_series(1, 900) g)) ORDER BY k', true),
	('i8', 'SELECT k FROM {t} WHERE k = ANY (ARRAY(SELECT (g * 37) % 1700 - 50 FROM generate_series(1, 900) g)) ORDER BY k DESC', true),
	('i8', 'SELECT k FROM {t} WHERE k = ANY (ARRAY(SELECT g FROM generate_series(0, 1500, 2) g)) AND k > 300 AND k <= 1100', false),
	-- with range keys
	('i8', 'SELECT k, v FROM {t} WHERE k IN (1, 5, 100, 101, 500, 1000, 1499) AND k > 5 AND k <= 1000', false),
	('i8', 'SELECT k FROM {t} WHERE k IN (1, 5, 100, 101, 500) AND k >= 5 AND k < 101 ORDER BY k DESC', true),
	('i8', 'SELECT k FROM {t} WHERE k IN (1, 5, 100) AND k > 100', false),
	('i8', 'SELECT k FROM {t} WHERE k IN (1, 5, 100) AND k BETWEEN 2::int2 AND 99::int4', false),
	-- several array keys: each must hold
	('i8', 'SELECT k, v FROM {t} WHERE k = ANY (''{1, 2, 3, 4, 5, 9}'') AND k = ANY (''{9, 4, 5, 6, 7, 4}''::int4[])', false),
	('i8', 'SELECT k FROM {t} WHERE k = ANY (''{1, 2, 3}'') AND k = ANY (''{4, 5}'')', false),
	('i8', 'SELECT k FROM {t} WHERE k = ANY (''{1, 2, 3, 7}'') AND k = ANY (''{3, 2, 7}'') AND k = ANY (''{7, 2, 1}'') ORDER BY k DESC', true),
	-- inequalities against ANY: the most permissive element decides
	('i8', 'SELECT k FROM {t} WHERE k < ANY (''{5, 30, NULL, 2}'')', false),
	('i8', 'SELECT k FROM {t} WHERE k <= ANY (''{5, 30, 2}''::int4[])', false),
	('i8', 'SELECT k FROM {t} WHERE k > ANY (''{1400, 1490, NULL}'')', false),
	('i8', 'SELECT k FROM {t} WHERE k >= ANY (''{1490, 1400}''::int2[]) ORDER BY k DESC', true),
	('i8', 'SELECT k FROM {t} WHERE k > ANY (''{}'')', false),
	('i8', 'SELECT k FROM {t} WHERE k < ANY (''{NULL}'')', false),
	('i8', 'SELECT k FROM {t} WHERE k < ANY (''{50, 20}'') AND k IN (1, 19, 20, 21, 49, 50, 51) ORDER BY k', true),
	-- floats: -0 and +0 are equal, NaN equals NaN
	('f8', 'SELECT k, v FROM {t} WHERE k = ANY (''{0}'')', false),
	('f8', 'SELECT k, v FROM {t} WHERE k = ANY (''{-0}'')', false),
	('f8', 'SELECT k FROM {t} WHERE k = ANY (''{-0, 0, 0, -0}'')', false),
	('f8', 'SELECT k FROM {t} WHERE k = ANY (''{NaN, -0, 17.25, Infinity, NULL}'')', false),
	('f8', 'SELECT k, v * 0 FROM {t} WHERE k = ANY (''{NaN, 17.25, Infinity, -Infinity, 3.5, 99.75}'') ORDER BY k', true),
	('f8', 'SELECT k FROM {t} WHERE k = ANY (''{NaN, 17.25, Infinity, -Infinity, 3.5, 99.75, NaN}'') ORDER BY k DESC', true),
	('f8', 'SELECT k FROM {t} WHERE k = ANY (''{1.5, -0, 2.5, 17.25, NaN}''::float4[])', false),
	('f8', 'SELECT k FROM {t} WHERE k = ANY (''{1.5, 0, 2.5, 17.25}''::float4[]) AND k > -1 AND k < 17.25', false),
	-- date/time across types: a date[] against timestamptz, timestamp[] too
	('tz', 'SELECT k, v FROM {t} WHERE k = ANY (''{2024-03-05, 2024-03-12, 2024-03-12, 2024-04-30, 2030-01-01, NULL}''::date[])', false),
	('tz', 'SELECT k FROM {t} WHERE k = ANY (''{2024-05-05, 2024-03-12, 2024-03-09, 2024-03-10}''::date[]) ORDER BY k DESC', true),
	('tz', 'SELECT k FROM {t} WHERE k = ANY (''{2024-03-01 19:00, 2024-03-09 14:00, 2024-03-10 03:00, 2024-03-09 13:59}''::timestamp[]) ORDER BY k', true),
	('tz', 'SELECT k FROM {t} WHERE k = ANY (ARRAY[''2024-03-05''::date, ''2024-03-15''::date]) AND k > ''2024-03-06 00:00+00''', false),
	('dt', 'SELECT k, v FROM {t} WHERE k = ANY (''{2024-01-05 00:00, 2024-01-06 00:00:01, 2024-02-01, 2023-01-01}''::timestamp[])', false),
	('dt', 'SELECT k FROM {t} WHERE k = ANY (''{2024-01-05 00:00-05, 2024-01-06 12:00-05, 2024-02-01 00:00-05}''::timestamptz[]) ORDER BY k DESC', true);

SELECT t, q, ia_same(q, t, ordered) AS res FROM ia_q ORDER BY t, q;

-- A scrollable cursor over an IN scan, moved by steps (N = next, P =
-- prior): the rows it returns on the fpbtree table and on the btree table
-- must be the same.  It runs off both ends and comes back.
CREATE FUNCTION ia_cursor(tbl text, q text, steps text) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
	c refcursor;
	r text;
	res text[] := '{}';
	plan text;
BEGIN
	PERFORM fpb_mode('index');
	plan := fpb_plan(format(q, tbl), 'index');
	IF plan !~ format(' %s_k([ \n]|$)', tbl) THEN
		RAISE EXCEPTION 'plan does not use %_k: %', tbl, plan;
	END IF;
	OPEN c SCROLL FOR EXECUTE format(q, tbl);
	FOR i IN 1 .. length(steps) LOOP
		IF substr(steps, i, 1) = 'N' THEN
			FETCH NEXT FROM c INTO r;
		ELSE
			FETCH PRIOR FROM c INTO r;
		END IF;
		res := res || CASE WHEN FOUND THEN r ELSE '-' END;
	END LOOP;
	CLOSE c;
	RETURN res;
END $$;
CREATE TABLE ia_cq (q text, steps text);
INSERT INTO ia_cq VALUES
	('SELECT k FROM %s WHERE k IN (9, 3, 1400, 3, 77, 9999) ORDER BY k', repeat('N', 7) || repeat('P', 4) || repeat('N', 20) || repeat('P', 25) || repeat('N', 6)),
	('SELECT k FROM %s WHERE k IN (9, 3, 1400, 3, 77, 9999) ORDER BY k DESC', repeat('N', 6) || repeat('P', 5) || repeat('N', 20) || repeat('P', 25) || repeat('N', 3)),
	('SELECT k::text || v * 0 FROM %s WHERE k = ANY (''{500, 20, 501, 19, 18}''::int4[]) ORDER BY k', repeat('N', 9) || repeat('P', 9) || 'N' || repeat('P', 3) || repeat('N', 30) || repeat('P', 30)),
	('SELECT k FROM %s WHERE k IN (1, 2) AND k = ANY (''{2, 3}'')', 'NNNNNNPPPPPPNN');
SELECT q, ia_cursor('ia_i8_f', q, steps) = ia_cursor('ia_i8_b', q, steps) AS same,
	   cardinality(array_remove(ia_cursor('ia_i8_f', q, steps), '-')) AS fetched
FROM ia_cq ORDER BY q;

-- Leaves split under an IN scan: a cursor reads part of the list, then
-- the same transaction inserts many rows with keys of the list (invisible
-- to the cursor's snapshot), splitting the leaves the scan is on and those
-- ahead of it; the rest of the cursor must be what btree's gives (equal
-- keys come in heap order from both), in both directions.
CREATE FUNCTION ia_split(am text, q text) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
	c refcursor;
	r text;
	res text[] := '{}';
	tbl text := 'ia_sp_' || am;
BEGIN
	EXECUTE format('CREATE TABLE %s (k int8, v int4) WITH (autovacuum_enabled = off)', tbl);
	EXECUTE format('INSERT INTO %s SELECT g %% 200, g FROM generate_series(1, 4000) g', tbl);
	EXECUTE format('CREATE INDEX %s_k ON %s USING %s (k)', tbl, tbl,
				   CASE am WHEN 'f' THEN 'fpbtree' ELSE 'btree' END);
	EXECUTE format('ANALYZE %s', tbl);
	PERFORM fpb_mode('index');
	OPEN c FOR EXECUTE format(q, tbl);
	FOR i IN 1 .. 25 LOOP
		FETCH c INTO r;
		res := res || r;
	END LOOP;
	EXECUTE format('INSERT INTO %s SELECT 10 + (g * 7) %% 60, -g FROM generate_series(1, 3000) g', tbl);
	LOOP
		FETCH c INTO r;
		EXIT WHEN NOT FOUND;
		res := res || r;
	END LOOP;
	CLOSE c;
	EXECUTE format('DROP TABLE %s', tbl);
	RETURN res;
END $$;
SELECT q, ia_split('f', q) = ia_split('b', q) AS same, cardinality(ia_split('f', q)) AS nrows
FROM (VALUES
	('SELECT k::text || '' '' || v FROM %s WHERE k = ANY (ARRAY(SELECT g FROM generate_series(10, 60) g)) ORDER BY k'),
	('SELECT k::text FROM %s WHERE k = ANY (ARRAY(SELECT g FROM generate_series(10, 60) g)) ORDER BY k'),
	('SELECT k::text FROM %s WHERE k = ANY (ARRAY(SELECT g FROM generate_series(10, 60) g)) ORDER BY k DESC')) v(q)
ORDER BY q;

-- Rescans: a nested loop runs the inner index scan once per outer row,
-- with that row's array (and once with a NULL array); the inner scan's
-- LIMIT stops some scans early, so the next rescan starts mid-scan.
CREATE TABLE ia_arrs (id int, arr int8[]);
INSERT INTO ia_arrs VALUES (1, '{5, 3, 3, 1}'), (2, '{}'), (3, '{NULL, 1499, 700}'),
	(4, NULL), (5, '{1400, 2, 800, 9999}'), (6, '{3}'), (7, '{1, 2, 3, 4, 5, 6, 7, 8, 9}');
CREATE FUNCTION ia_rescan(tbl text, q text) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
	plan text;
BEGIN
	PERFORM fpb_mode('index');
	PERFORM set_config('enable_hashjoin', 'off', true);
	PERFORM set_config('enable_mergejoin', 'off', true);
	PERFORM set_config('enable_material', 'off', true);
	plan := fpb_plan(format(q, tbl), 'index');
	PERFORM set_config('enable_hashjoin', 'off', true);
	PERFORM set_config('enable_mergejoin', 'off', true);
	PERFORM set_config('enable_material', 'off', true);
	IF plan !~ 'Nested Loop' OR plan !~ format(' %s_k([ \n]|$)', tbl) OR plan !~ 'Index Cond: \(k = ANY \(a\.arr\)\)' THEN
		RAISE EXCEPTION 'not a nested loop over %_k with = ANY (a.arr): %', tbl, plan;
	END IF;
	RETURN fpb_rows(format(q, tbl), 'index');
END $$;
CREATE TABLE ia_rq (q text);
INSERT INTO ia_rq VALUES
	('SELECT a.id, t.k, t.v * 0 FROM ia_arrs a CROSS JOIN LATERAL (SELECT k, v FROM %s WHERE k = ANY (a.arr) ORDER BY k DESC LIMIT 6) t ORDER BY a.id'),
	('SELECT a.id, t.k FROM ia_arrs a CROSS JOIN LATERAL (SELECT k FROM %s WHERE k = ANY (a.arr) ORDER BY k LIMIT 5) t ORDER BY a.id'),
	('SELECT a.id, count(*), sum(t.v) FROM ia_arrs a JOIN %s t ON t.k = ANY (a.arr) GROUP BY a.id ORDER BY a.id');
SELECT q, ia_rescan('ia_i8_f', q) = ia_rescan('ia_i8_b', q) AS same,
	   cardinality(ia_rescan('ia_i8_f', q)) AS nrows
FROM ia_rq ORDER BY q;

-- Parallel plans (forced, zero parallel cost, 2 workers): the participants
-- go through the array's intervals together, sharing out each in runs of
-- leaves; nothing may be returned twice or lost, and Gather Merge keeps
-- the order.  ia_keep is a costly filter the
-- workers evaluate, so the parallel plan wins.
CREATE FUNCTION ia_keep(id int4) RETURNS bool
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE COST 100000 AS $$ BEGIN RETURN id % 5 <> 1; END $$;
CREATE FUNCTION ia_par_mode(workers int) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM fpb_mode('index');
	PERFORM set_config('parallel_setup_cost', '0', true);
	PERFORM set_config('parallel_tuple_cost', '0', true);
	PERFORM set_config('min_parallel_index_scan_size', '0', true);
	PERFORM set_config('min_parallel_table_scan_size', '0', true);
	PERFORM set_config('max_parallel_workers_per_gather', workers::text, true);
END $$;
CREATE FUNCTION ia_par(t text, q text, ordered bool) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	plan text := '';
	line text;
	ref text[];
	got text[];
BEGIN
	ref := fpb_rows(replace(q, '{t}', format('ia_%s_b', t)), 'index');
	PERFORM ia_par_mode(2);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || replace(q, '{t}', format('ia_%s_f', t)) LOOP
		plan := plan || line || E'\n';
	END LOOP;
	IF plan !~ format('Parallel Index (Only )?Scan (Backward )?using ia_%s_f_k ', t) OR
		(ordered AND plan !~ 'Gather Merge') THEN
		RETURN 'no parallel scan: ' || plan;
	END IF;
	PERFORM ia_par_mode(2);
	EXECUTE format('SELECT coalesce(array_agg(r::text), ''{}'') FROM (%s) r', replace(q, '{t}', format('ia_%s_f', t)))
		INTO got;
	IF ordered AND got IS DISTINCT FROM ref THEN
		RETURN format('got %s, expected %s', left(got::text, 300), left(ref::text, 300));
	ELSIF fpb_sorted(got) IS DISTINCT FROM fpb_sorted(ref) THEN
		RETURN format('got %s rows, expected %s', cardinality(got), cardinality(ref));
	END IF;
	RETURN 'ok ' || cardinality(ref);
END $$;
-- dp: 3 values, each over dozens of leaves, so that each interval is
-- shared out in runs
SELECT ia_make('dp', 'int8', 'CASE WHEN g % 11 = 0 THEN NULL ELSE g % 3 END', 12000, 'WITH (fillfactor = 10)');
VACUUM ANALYZE ia_dp_f, ia_dp_b;
SELECT t, q, ia_par(t, q, o) FROM (VALUES
	('dp', 'SELECT id, k FROM {t} WHERE k IN (2, 0, 7) AND ia_keep(id)', false),
	('dp', 'SELECT k, v * 0 FROM {t} WHERE k IN (2, 0, 7) AND ia_keep(id) ORDER BY k', true),
	('dp', 'SELECT k, v * 0 FROM {t} WHERE k = ANY (''{2, 1, 0}'') AND k < 2 AND ia_keep(id) ORDER BY k DESC', true),
	('i8', 'SELECT id, k FROM {t} WHERE k = ANY (ARRAY(SELECT (g * 37) % 1700 - 50 FROM generate_series(1, 900) g)) AND ia_keep(id)', false),
	('i8', 'SELECT k, v * 0 FROM {t} WHERE k = ANY (ARRAY(SELECT (g * 37) % 1700 - 50 FROM generate_series(1, 900) g)) AND ia_keep(id) ORDER BY k', true),
	('i8', 'SELECT k, v * 0 FROM {t} WHERE k = ANY (ARRAY(SELECT (g * 37) % 1700 - 50 FROM generate_series(1, 900) g)) AND ia_keep(id) ORDER BY k DESC', true),
	('i8', 'SELECT id, k FROM {t} WHERE k IN (3, 3, 700, 1, 1499, 9999) AND k > 1 AND ia_keep(id)', false),
	('i8', 'SELECT id FROM {t} WHERE k = ANY (''{}'') AND ia_keep(id)', false)) v(t, q, o)
ORDER BY t, q;

-- rescans of a parallel array scan: a Gather on the inner side of a nested
-- loop runs the shared scan again for each outer row
CREATE FUNCTION ia_par_rescan(tbl text) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
	q text := format('SELECT o.x, count(t.id), sum(t.id) FROM (VALUES (0), (1), (2)) o(x) LEFT JOIN %s t ON t.id %% 3 <> o.x AND t.k = ANY (''{3, 700, 5, 1499, 2, 9999, 3, 1000}'') AND ia_keep(t.id) GROUP BY o.x ORDER BY o.x', tbl);
	plan text := '';
	line text;
	res text[];
BEGIN
	PERFORM ia_par_mode(2);
	PERFORM set_config('enable_hashjoin', 'off', true);
	PERFORM set_config('enable_mergejoin', 'off', true);
	PERFORM set_config('enable_material', 'off', true);
	PERFORM set_config('enable_memoize', 'off', true);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		plan := plan || line || E'\n';
	END LOOP;
	IF tbl = 'ia_i8_f' AND plan !~ 'Nested Loop.*Gather.*Parallel Index (Only )?Scan using ia_i8_f_k' THEN
		RAISE EXCEPTION 'no parallel scan under a nested loop: %', plan;
	END IF;
	EXECUTE format('SELECT array_agg(r::text) FROM (%s) r', q) INTO res;
	RETURN res;
END $$;
SELECT ia_par_rescan('ia_i8_f') = ia_par_rescan('ia_i8_b') AS same,
	   ia_par_rescan('ia_i8_f') AS rows;

-- one index scan is counted per array element that can match, as btree
-- counts one per element (none for an empty or NULL array)
SELECT pg_stat_force_next_flush();
CREATE FUNCTION ia_idx_scans(idx text) RETURNS bigint LANGUAGE sql AS $$
	SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = idx
$$;
CREATE TABLE ia_stats AS SELECT ia_idx_scans('ia_i4_f_k') AS f, ia_idx_scans('ia_i4_b_k') AS b;
SELECT fpb_rows('SELECT k FROM ia_i4_f WHERE k IN (5, 1, 3, 3, 17) ORDER BY k', 'index') =
	   fpb_rows('SELECT k FROM ia_i4_b WHERE k IN (5, 1, 3, 3, 17) ORDER BY k', 'index') AS same,
	   fpb_rows('SELECT k FROM ia_i4_f WHERE k = ANY (''{}'')', 'index') =
	   fpb_rows('SELECT k FROM ia_i4_b WHERE k = ANY (''{}'')', 'index') AS same_empty,
	   fpb_rows('SELECT k FROM ia_i4_f WHERE k = ANY (NULL::int4[])', 'index') =
	   fpb_rows('SELECT k FROM ia_i4_b WHERE k = ANY (NULL::int4[])', 'index') AS same_null,
	   fpb_rows('SELECT k FROM ia_i4_f WHERE k = ANY (''{NULL, 8}'') AND k > 5', 'index') =
	   fpb_rows('SELECT k FROM ia_i4_b WHERE k = ANY (''{NULL, 8}'') AND k > 5', 'index') AS same_one;
SELECT pg_stat_force_next_flush();
SELECT ia_idx_scans('ia_i4_f_k') - f AS fpbtree_scans, ia_idx_scans('ia_i4_b_k') - b AS btree_scans
FROM ia_stats;
