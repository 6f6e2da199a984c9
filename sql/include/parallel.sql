--
-- Helpers for the pg_regress files that compare parallel fpbtree scans with
-- serial ones and with btree (\i sql/include/parallel.sql after
-- fpb_helpers.sql, from the repository root).  CREATE OR REPLACE: a file
-- may run after another one that made them in the same database.
--

-- Plan settings for the rest of the transaction: serial (workers = 0) or
-- parallel at zero cost.  The session settings par.leader and
-- par.max_workers, when set, override parallel_leader_participation and
-- max_parallel_workers.
CREATE OR REPLACE FUNCTION par_mode(workers int) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	leader text := coalesce(nullif(current_setting('par.leader', true), ''), 'on');
	maxw text := nullif(current_setting('par.max_workers', true), '');
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

CREATE OR REPLACE FUNCTION par_plan(q text, workers int) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM par_mode(workers);
	RETURN fpb_explain(q);
END $$;

-- The rows of q under par_mode(workers), each as text, in result order.
CREATE OR REPLACE FUNCTION par_rows(q text, workers int) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
	res text[];
BEGIN
	PERFORM par_mode(workers);
	EXECUTE format('SELECT coalesce(array_agg(r::text), ''{}'') FROM (%s) r', q)
		INTO res;
	RETURN res;
END $$;

-- Query qf on the fpbtree table against qb on the btree one (run with
-- refworkers): fpbtree must give btree's rows serially and with 2 and 4
-- workers, in the same order when ordered.  The parallel plans must run a
-- Parallel Index (Only) Scan of an index whose name matches idx (a
-- pattern), under Gather Merge when ordered.  Returns 'ok' or what differs.
CREATE OR REPLACE FUNCTION par_same(qf text, qb text, idx text, ordered bool,
									refworkers int) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	ref text[] := par_rows(qb, refworkers);
	got text[];
	plan text;
	w int;
BEGIN
	FOREACH w IN ARRAY ARRAY[0, 2, 4] LOOP
		IF w > 0 THEN
			plan := par_plan(qf, w);
			IF plan !~ ('Parallel Index (Only )?Scan (Backward )?using (' || idx || ') ') THEN
				RETURN format('%s workers: no parallel scan of %s: %s', w, idx, plan);
			END IF;
			IF ordered AND plan !~ 'Gather Merge' THEN
				RETURN format('%s workers: no Gather Merge: %s', w, plan);
			END IF;
		END IF;
		got := par_rows(qf, w);
		IF ordered THEN
			IF got IS DISTINCT FROM ref THEN
				RETURN format('%s workers: got %s, expected %s', w,
							  left(got::text, 200), left(ref::text, 200));
			END IF;
		ELSIF fpb_sorted(got) IS DISTINCT FROM fpb_sorted(ref) THEN
			RETURN format('%s workers: %s rows, expected %s; first differences %s / %s', w,
						  cardinality(got), cardinality(ref),
						  left((SELECT array_agg(x) FROM (SELECT unnest(got) EXCEPT ALL SELECT unnest(ref)) d(x))::text, 100),
						  left((SELECT array_agg(x) FROM (SELECT unnest(ref) EXCEPT ALL SELECT unnest(got)) d(x))::text, 100));
		END IF;
	END LOOP;
	RETURN 'ok';
END $$;

-- Costly filters that the workers evaluate, so that the planner prefers
-- parallel plans at any size (par_true takes only the key, so index-only
-- scans stay possible).
CREATE OR REPLACE FUNCTION par_true(x anyelement) RETURNS bool
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE COST 100000 AS $$ BEGIN RETURN true; END $$;
CREATE OR REPLACE FUNCTION par_keep(id int4) RETURNS bool
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE COST 100000 AS $$ BEGIN RETURN id % 3 <> 1; END $$;
