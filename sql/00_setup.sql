--
-- 00_setup: the extension, plus helpers shared by the later files (all
-- pg_regress files run in the same database, one after another).
--
CREATE EXTENSION fpbtree;

-- plans must not depend on the number of CPUs
DO $$
BEGIN
	EXECUTE format('ALTER DATABASE %I SET max_parallel_workers_per_gather = 0',
				   current_database());
	EXECUTE format('ALTER DATABASE %I SET jit = off', current_database());
END $$;

-- the access method is there, with the capabilities of a btree
SELECT amname, amtype FROM pg_am WHERE amname = 'fpbtree';

-- its operator classes and families: one default class per type
SELECT opc.opcname, opc.opcintype::regtype AS type, opf.opfname AS family,
	   opc.opcdefault
FROM pg_opclass opc
	JOIN pg_am am ON am.oid = opc.opcmethod
	JOIN pg_opfamily opf ON opf.oid = opc.opcfamily
WHERE am.amname = 'fpbtree'
ORDER BY opc.opcintype::regtype::text;

-- which types share a family (cross-type comparisons)
SELECT array_agg(opc.opcintype::regtype::text ORDER BY opc.opcintype::regtype::text) AS types
FROM pg_opclass opc
	JOIN pg_am am ON am.oid = opc.opcmethod
WHERE am.amname = 'fpbtree'
GROUP BY opc.opcfamily
ORDER BY 1;

-- every operator of every family: five strategies for every pair of types
-- in the family, and each is the btree's operator for that pair
SELECT opf.opfname AS family,
	   count(*) AS operators,
	   count(DISTINCT (ao.amoplefttype, ao.amoprighttype)) AS type_pairs,
	   bool_and(ao.amopstrategy BETWEEN 1 AND 5) AS strategies_1_to_5,
	   bool_and(ao.amoppurpose = 's') AS all_search
FROM pg_amop ao
	JOIN pg_opfamily opf ON opf.oid = ao.amopfamily
	JOIN pg_am am ON am.oid = opf.opfmethod
WHERE am.amname = 'fpbtree'
GROUP BY opf.opfname
ORDER BY 1;

-- an fpbtree operator that is not the btree operator of the same types and
-- strategy (expect none)
SELECT ao.amopopr::regoperator, ao.amopstrategy
FROM pg_amop ao
	JOIN pg_opfamily opf ON opf.oid = ao.amopfamily
	JOIN pg_am am ON am.oid = opf.opfmethod
WHERE am.amname = 'fpbtree'
  AND NOT EXISTS (
	SELECT 1 FROM pg_amop b
		JOIN pg_opfamily bf ON bf.oid = b.amopfamily
		JOIN pg_am bam ON bam.oid = bf.opfmethod
	WHERE bam.amname = 'btree'
	  AND b.amopopr = ao.amopopr
	  AND b.amopstrategy = ao.amopstrategy)
ORDER BY 1;

-- amvalidate() on every fpbtree operator class
SELECT opc.opcname, amvalidate(opc.oid)
FROM pg_opclass opc
	JOIN pg_am am ON am.oid = opc.opcmethod
WHERE am.amname = 'fpbtree'
ORDER BY opc.opcintype::regtype::text;

--
-- Helpers
--

-- Force one kind of plan for the rest of the current transaction (that is,
-- the current statement, outside explicit transaction blocks):
--   'index'  - index scans and index-only scans only
--   'bitmap' - bitmap scans only
--   'seq'    - sequential scans only
CREATE FUNCTION fpb_mode(mode text) RETURNS void
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

-- The EXPLAIN (COSTS OFF) of a query under a mode, as one text.
CREATE FUNCTION fpb_plan(q text, mode text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
	res text := '';
BEGIN
	PERFORM fpb_mode(mode);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		res := res || line || E'\n';
	END LOOP;
	RETURN res;
END $$;

-- The rows of a query under a mode, each row as text, in result order.
CREATE FUNCTION fpb_rows(q text, mode text) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
	res text[];
BEGIN
	PERFORM fpb_mode(mode);
	EXECUTE format('SELECT coalesce(array_agg(r::text), ''{}'') FROM (%s) r', q)
		INTO res;
	RETURN res;
END $$;

CREATE FUNCTION fpb_sorted(a text[]) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
	SELECT coalesce(array_agg(x ORDER BY x COLLATE "C"), '{}') FROM unnest(a) x
$$;

-- Run a query under 'index' and 'bitmap' modes and under 'seq', and tell
-- what differs: 'ok', or a description.  Under 'index' the plan must use
-- index idx; under 'bitmap' too when the query has a WHERE clause.  With
-- ordered, the row order must be the same as well (order only by columns
-- that are selected, so that ties look alike).
CREATE FUNCTION fpb_same(q text, idx text, ordered bool DEFAULT false)
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

-- self-test of the helpers on a btree index, which must pass
CREATE TABLE helper_selftest (a int4);
INSERT INTO helper_selftest SELECT g % 10 FROM generate_series(1, 100) g;
CREATE INDEX helper_selftest_a ON helper_selftest USING btree (a);
VACUUM ANALYZE helper_selftest;
SELECT fpb_same('SELECT a FROM helper_selftest WHERE a < 3', 'helper_selftest_a');
SELECT fpb_same('SELECT a FROM helper_selftest WHERE a > 3 ORDER BY a', 'helper_selftest_a', true);
-- and that can fail
SELECT fpb_same('SELECT a FROM helper_selftest WHERE a < 3', 'no_such_index') LIKE 'index: plan does not use%' AS fails;
DROP TABLE helper_selftest;
