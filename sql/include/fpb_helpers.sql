--
-- Helpers for the pg_regress files that compare fpbtree scans with
-- sequential scans: included (\i sql/include/fpb_helpers.sql, from the
-- repository root, where pg_regress runs) by each file that uses them, so
-- that every file runs on its own.  CREATE OR REPLACE: a file may run after
-- another one that made them in the same database.
--

-- Force one kind of plan for the rest of the current transaction (that is,
-- the current statement, outside explicit transaction blocks):
--   'index'  - index scans and index-only scans only
--   'bitmap' - bitmap scans only
--   'seq'    - sequential scans only
CREATE OR REPLACE FUNCTION fpb_mode(mode text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	IF mode NOT IN ('index', 'bitmap', 'seq') THEN
		RAISE EXCEPTION 'unknown mode %', mode;
	END IF;
	PERFORM set_config('enable_seqscan', CASE WHEN mode = 'seq' THEN 'on' ELSE 'off' END, true);
	PERFORM set_config('enable_indexscan', CASE WHEN mode = 'index' THEN 'on' ELSE 'off' END, true);
	PERFORM set_config('enable_indexonlyscan', CASE WHEN mode = 'index' THEN 'on' ELSE 'off' END, true);
	PERFORM set_config('enable_bitmapscan', CASE WHEN mode = 'bitmap' THEN 'on' ELSE 'off' END, true);
	PERFORM set_config('max_parallel_workers_per_gather', '0', true);
END $$;

-- The EXPLAIN (COSTS OFF) of a query under the current settings, as one text.
CREATE OR REPLACE FUNCTION fpb_explain(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
	res text := '';
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		res := res || line || E'\n';
	END LOOP;
	RETURN res;
END $$;

-- The EXPLAIN (COSTS OFF) of a query under a mode, as one text.
CREATE OR REPLACE FUNCTION fpb_plan(q text, mode text) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM fpb_mode(mode);
	RETURN fpb_explain(q);
END $$;

-- The rows of a query under a mode, each row as text, in result order.
CREATE OR REPLACE FUNCTION fpb_rows(q text, mode text) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
	res text[];
BEGIN
	PERFORM fpb_mode(mode);
	EXECUTE format('SELECT coalesce(array_agg(r::text), ''{}'') FROM (%s) r', q)
		INTO res;
	RETURN res;
END $$;

CREATE OR REPLACE FUNCTION fpb_sorted(a text[]) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
	SELECT coalesce(array_agg(x ORDER BY x COLLATE "C"), '{}') FROM unnest(a) x
$$;

-- Run a query under 'index' and 'bitmap' modes and under 'seq', and tell
-- what differs: 'ok', or a description.  Under 'index' the plan must use
-- index idx; under 'bitmap' too when the query has a WHERE clause.  With
-- ordered, the row order must be the same as well (order only by columns
-- that are selected, so that ties look alike).
CREATE OR REPLACE FUNCTION fpb_same(q text, idx text, ordered bool DEFAULT false)
RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	ref text[];
	got text[];
	mode text;
	plan text;
BEGIN
	ref := fpb_rows(q, 'seq');
	FOREACH mode IN ARRAY ARRAY['index', 'bitmap'] LOOP
		IF mode = 'index' OR q ~* '\mwhere\M' THEN
			plan := fpb_plan(q, mode);
			IF plan !~ (' ' || idx || '([ \n]|$)') THEN
				RETURN format('%s: plan does not use %s: %s', mode, idx, plan);
			END IF;
		END IF;
		got := fpb_rows(q, mode);
		IF ordered THEN
			IF got IS DISTINCT FROM ref THEN
				RETURN format('%s: got %s, expected %s', mode, got, ref);
			END IF;
		ELSIF fpb_sorted(got) IS DISTINCT FROM fpb_sorted(ref) THEN
			RETURN format('%s: got %s, expected %s', mode, fpb_sorted(got),
						  fpb_sorted(ref));
		END IF;
	END LOOP;
	RETURN 'ok';
END $$;

-- Does query q return the same rows, in the same order, as q with each
-- "FROM a " made "FROM b " (a copy of table a indexed by btree), under the
-- current settings?  'same' or 'differs'.
CREATE OR REPLACE FUNCTION fpb_same_as(q text, a text, b text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	ra text;
	rb text;
BEGIN
	EXECUTE 'SELECT md5(string_agg(x::text, '','')) FROM (' || q || ') s(x)'
		INTO ra;
	EXECUTE 'SELECT md5(string_agg(x::text, '','')) FROM (' ||
		replace(q, 'FROM ' || a || ' ', 'FROM ' || b || ' ') || ') s(x)' INTO rb;
	RETURN CASE WHEN ra IS NOT DISTINCT FROM rb THEN 'same' ELSE 'differs' END;
END $$;

-- Random probes of column col of table t through index idx, n of them from
-- seed, each compared with sequential scans (fpb_same): keys from the SQL
-- expression keyq, written with the cast kcast ('' or e.g. '::text'), with
-- every operator; every fifth an array of three (every tenth "= ANY"),
-- every third with a bound on the other side, every second ordered by
-- (col, id) with a LIMIT, in both directions.  Returns the failures.
CREATE OR REPLACE FUNCTION fpb_probe(t text, idx text, col text, keyq text,
									 kcast text, n int, seed float8)
RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	ops text[] := ARRAY['<', '<=', '=', '>=', '>'];
	op text;
	q text;
	r text;
	dir text;
	k1 text;
	k2 text;
	k3 text;
BEGIN
	PERFORM setseed(seed);
	FOR i IN 1..n LOOP
		op := ops[1 + floor(random() * 5)::int];
		IF i % 5 = 0 THEN
			EXECUTE 'SELECT ' || keyq INTO k1;
			EXECUTE 'SELECT ' || keyq INTO k2;
			EXECUTE 'SELECT ' || keyq INTO k3;
			q := format('SELECT id, %I FROM %I WHERE %I %s ANY (ARRAY[%L, %L, %L]%s)',
						col, t, col, CASE WHEN i % 10 = 0 THEN '=' ELSE op END,
						k1, k2, k3, CASE WHEN kcast = '' THEN '' ELSE kcast || '[]' END);
		ELSE
			EXECUTE 'SELECT ' || keyq INTO k1;
			q := format('SELECT id, %I FROM %I WHERE %I %s %L%s', col, t, col, op,
						k1, kcast);
		END IF;
		IF i % 3 = 0 THEN
			EXECUTE 'SELECT ' || keyq INTO k1;
			q := q || format(' AND %I %s %L%s', col,
							 CASE WHEN op LIKE '<%' THEN '>' ELSE '<' END,
							 k1, kcast);
		END IF;
		IF i % 2 = 0 THEN
			dir := CASE WHEN i % 4 = 0 THEN 'DESC' ELSE 'ASC' END;
			q := q || format(' ORDER BY %I %s, id LIMIT %s', col, dir,
							 1 + floor(random() * 80)::int);
		END IF;
		r := fpb_same(q, idx, q LIKE '%ORDER BY%');
		IF r <> 'ok' THEN
			RETURN NEXT q || ': ' || r;
		END IF;
	END LOOP;
END $$;

-- Does a parallel build give the serial build's index?  Builds a copy of
-- index idx with two workers asked for (the DEBUG lines tell how many
-- started), rebuilds idx serially, checks the copy with fpbtree_check and
-- drops it: 'same' when the two are of one size, else what differs.
CREATE OR REPLACE FUNCTION fpb_parallel_build_same(idx text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	copy text := idx || '_par';
	same bool;
BEGIN
	PERFORM set_config('max_parallel_maintenance_workers', '2', true);
	PERFORM set_config('min_parallel_table_scan_size', '0', true);
	PERFORM set_config('maintenance_work_mem', '96MB', true);
	PERFORM set_config('client_min_messages', 'debug1', true);
	EXECUTE regexp_replace(pg_get_indexdef(idx::regclass),
						   '^CREATE (UNIQUE )?INDEX \S+ ON',
						   'CREATE \1INDEX ' || quote_ident(copy) || ' ON');
	PERFORM set_config('client_min_messages', 'notice', true);
	PERFORM set_config('max_parallel_maintenance_workers', '0', true);
	EXECUTE format('REINDEX INDEX %I', idx);
	same := pg_relation_size(copy::regclass) = pg_relation_size(idx::regclass);
	PERFORM fpbtree_check(copy::regclass, true);
	EXECUTE format('DROP INDEX %I', copy);
	RETURN CASE WHEN same THEN 'same' ELSE 'sizes differ' END;
END $$;

-- A uuid for row g that tests prefixes of 6 bytes (sql/81, sql/82): NULL
-- for every 97th; one shared prefix with different tails; different
-- prefixes with one shared tail; 300 values of about 40 rows each; the
-- extremes, and tails at their extremes; else md5 of g.
CREATE OR REPLACE FUNCTION fpb_uuid_mix(g int) RETURNS uuid
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE
		WHEN g % 97 = 0 THEN NULL
		-- one prefix, different tails
		WHEN g % 5 = 0 THEN ('a1a2a3a4a5a6' || left(md5(g::text), 20))::uuid
		-- different prefixes, one tail
		WHEN g % 5 = 1 THEN (left(md5(g::text), 12) || 'b1b2b3b4b5b6b7b8b9ba')::uuid
		-- 300 values of about 40 rows each
		WHEN g % 5 = 2 THEN md5((g % 300)::text)::uuid
		-- the extremes, and tails at their extremes
		WHEN g % 5 = 3 AND g % 4 = 0 THEN '00000000-0000-0000-0000-000000000000'::uuid
		WHEN g % 5 = 3 AND g % 4 = 1 THEN 'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid
		WHEN g % 5 = 3 AND g % 4 = 2 THEN ('a1a2a3a4a5a6' || repeat('0', 20))::uuid
		WHEN g % 5 = 3 THEN ('a1a2a3a4a5a6' || repeat('f', 20))::uuid
		ELSE md5(g::text)::uuid
	END
$$;
