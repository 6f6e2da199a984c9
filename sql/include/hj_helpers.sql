--
-- Helpers for the PrefetchHashJoin pg_regress files: included (\i
-- sql/include/hj_helpers.sql, from the repository root, where pg_regress
-- runs) by each file that uses them, so that every file runs on its own.
-- CREATE OR REPLACE: a file may run after another one that made them.
--

-- hj_check(q) runs q once with PrefetchHashJoin on and once with it off
-- and reports the row count, whether the two results are equal as
-- multisets (EXCEPT ALL both ways) and the join types PrefetchHashJoin ran.
-- An error on either side is reported with the other side's outcome
-- instead: a query may fail only where the built-in join fails too.
CREATE OR REPLACE FUNCTION hj_check(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    line text;
    types text := '';
    err_on text;
    err_off text;
    diff bigint;
    n bigint;
    n_off bigint;
BEGIN
    PERFORM set_config('enable_prefetch_hashjoin', 'on', true);
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        IF line ~ 'Join Type:' AND types !~ btrim(split_part(line, ':', 2)) THEN
            types := types || ' ' || btrim(split_part(line, ':', 2));
        END IF;
    END LOOP;
    BEGIN
        EXECUTE 'CREATE TEMP TABLE hj_r_on AS SELECT q::text AS r FROM (' || q || ') q';
    EXCEPTION WHEN OTHERS THEN
        err_on := SQLERRM;
        CREATE TEMP TABLE hj_r_on (r text);
    END;
    PERFORM set_config('enable_prefetch_hashjoin', 'off', true);
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        IF line ~ 'PrefetchHashJoin' THEN
            RAISE EXCEPTION 'PrefetchHashJoin used while disabled';
        END IF;
    END LOOP;
    BEGIN
        EXECUTE 'CREATE TEMP TABLE hj_r_off AS SELECT q::text AS r FROM (' || q || ') q';
    EXCEPTION WHEN OTHERS THEN
        err_off := SQLERRM;
        CREATE TEMP TABLE hj_r_off (r text);
    END;
    SELECT count(*) INTO diff FROM
        ((TABLE hj_r_on EXCEPT ALL TABLE hj_r_off)
         UNION ALL
         (TABLE hj_r_off EXCEPT ALL TABLE hj_r_on)) d;
    SELECT count(*) INTO n FROM hj_r_on;
    SELECT count(*) INTO n_off FROM hj_r_off;
    DROP TABLE hj_r_on, hj_r_off;
    PERFORM set_config('enable_prefetch_hashjoin', 'on', true);
    IF err_on IS NOT NULL OR err_off IS NOT NULL THEN
        RETURN 'PrefetchHashJoin: ' || coalesce('ERROR ' || err_on, n || ' rows') ||
            ', built-in: ' || coalesce('ERROR ' || err_off, n_off || ' rows');
    END IF;
    RETURN n || ' rows, ' ||
        CASE WHEN diff = 0 THEN 'same' ELSE diff || ' rows DIFFER' END ||
        CASE WHEN types = '' THEN ', PrefetchHashJoin NOT USED'
             ELSE ',' || types END;
END $$;

-- The lines of q's EXPLAIN ANALYZE that match pattern, peak memory masked;
-- with strip, without indentation and arrows.
CREATE OR REPLACE FUNCTION hj_explain_lines(q text, pattern text, strip boolean)
RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
        IF line ~ pattern THEN
            line := regexp_replace(line, 'Peak Memory Usage: \d+', 'Peak Memory Usage: N');
            IF strip THEN
                line := btrim(regexp_replace(line, '^\s*->\s*', ''));
            END IF;
            RETURN NEXT line;
        END IF;
    END LOOP;
END $$;

-- For the rest of the session, let the custom path win wherever it is legal:
-- no cache-size threshold, and no merge or nested-loop join to compete.
CREATE OR REPLACE FUNCTION hj_force() RETURNS void LANGUAGE sql AS $$
    SELECT set_config('fpbtree.hashjoin_cache_size', '0', false);
    SELECT set_config('enable_mergejoin', 'off', false);
    SELECT set_config('enable_nestloop', 'off', false);
$$;

-- hj_par_check(q, shared) runs q twice: with PrefetchHashJoin on and the
-- built-in Parallel Hash off (the built-in join divides its build among
-- participants, which zero parallel costs make win), with the shared
-- table offered when shared is true; and with PrefetchHashJoin off and
-- Parallel Hash on.  Reports the row count, whether the results are equal
-- as multisets, the join types PrefetchHashJoin ran, where it ran (below
-- a Gather; with a shared table when shared is true) and whether the
-- reference plan had a Gather.
CREATE OR REPLACE FUNCTION hj_par_check(q text, shared boolean) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    line text;
    gather_at int;
    at int;
    found boolean := false;
    marker text := CASE WHEN shared THEN 'Shared Hash Table: true' ELSE 'PrefetchHashJoin' END;
    ref_gather boolean := false;
    types text := '';
    diff bigint;
    n bigint;
BEGIN
    PERFORM set_config('enable_prefetch_hashjoin', 'on', true);
    IF shared THEN
        PERFORM set_config('fpbtree.hashjoin_parallel_shared', 'on', true);
    END IF;
    PERFORM set_config('enable_parallel_hash', 'off', true);
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        at := length(line) - length(ltrim(line, ' ->'));
        IF gather_at IS NOT NULL AND at <= gather_at THEN
            gather_at := NULL;
        END IF;
        IF line ~ 'Gather' AND gather_at IS NULL THEN
            gather_at := at;
        ELSIF line ~ marker AND gather_at IS NOT NULL THEN
            found := true;
        END IF;
        IF line ~ 'Join Type:' AND types !~ btrim(split_part(line, ':', 2)) THEN
            types := types || ' ' || btrim(split_part(line, ':', 2));
        END IF;
    END LOOP;
    EXECUTE 'CREATE TEMP TABLE hjp_on AS SELECT q::text AS r FROM (' || q || ') q';
    PERFORM set_config('enable_prefetch_hashjoin', 'off', true);
    PERFORM set_config('enable_parallel_hash', 'on', true);
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        IF line ~ 'PrefetchHashJoin' THEN
            RAISE EXCEPTION 'PrefetchHashJoin used while disabled';
        END IF;
        ref_gather := ref_gather OR line ~ 'Gather';
    END LOOP;
    EXECUTE 'CREATE TEMP TABLE hjp_off AS SELECT q::text AS r FROM (' || q || ') q';
    SELECT count(*) INTO diff FROM
        ((TABLE hjp_on EXCEPT ALL TABLE hjp_off)
         UNION ALL
         (TABLE hjp_off EXCEPT ALL TABLE hjp_on)) d;
    SELECT count(*) INTO n FROM hjp_on;
    DROP TABLE hjp_on, hjp_off;
    PERFORM set_config('enable_prefetch_hashjoin', 'on', true);
    RETURN n || ' rows, ' ||
        CASE WHEN diff = 0 THEN 'same' ELSE diff || ' rows DIFFER' END ||
        CASE WHEN types = '' THEN ', PrefetchHashJoin NOT USED'
             ELSE ',' || types END ||
        CASE WHEN shared THEN CASE WHEN found THEN ' shared' ELSE ' NOT SHARED' END
             WHEN found THEN ' below Gather' ELSE '' END ||
        CASE WHEN ref_gather THEN '' ELSE ', reference NOT PARALLEL' END;
END $$;
