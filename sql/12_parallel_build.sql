--
-- 12_parallel_build: CREATE INDEX, REINDEX and CREATE INDEX CONCURRENTLY
-- with parallel workers build the same index as a serial build: the same
-- entries in the same order, the same pages, and fpbtree_check passes.
-- The DEBUG1 line "fpbtree: parallel build, workers launched: N" shows that
-- workers ran; where it is missing the build was serial.  (PostgreSQL's
-- own DEBUG1 line says "serially" for every access method but btree, the
-- only one it plans workers for.)
--

\set ECHO none
\i sql/include/setup.sql
\set ECHO all
-- workers: 32 MB of maintenance_work_mem per participant, any table size
SET maintenance_work_mem = '160MB';
SET min_parallel_table_scan_size = 0;
-- on a table this small the leader could scan it all before the workers
-- start: keep it out, so the merge reads every entry from workers' runs
SET parallel_leader_participation = off;

-- The entries of the only index on tbl, in index order, read by an index
-- scan: "ctid=k" each; for an index on cols (as in CREATE INDEX) other
-- than k, "ctid=row".
CREATE FUNCTION pb_entries(tbl regclass, cols text DEFAULT 'k') RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
	q text := format('SELECT ctid::text || ''='' || %s AS e FROM %s x ORDER BY %s',
					 CASE WHEN cols = 'k' THEN 'coalesce(k::text, ''NULL'')' ELSE 'x::text' END,
					 tbl, cols);
	plan text := '';
	line text;
	res text[];
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	PERFORM set_config('enable_sort', 'off', true);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		plan := plan || line;
	END LOOP;
	IF plan NOT LIKE '%Index Scan using%' THEN
		RAISE EXCEPTION 'not an index scan: %', plan;
	END IF;
	EXECUTE format('SELECT coalesce(array_agg(e), ''{}'') FROM (%s) s', q)
		INTO res;
	RETURN res;
END $$;

CREATE FUNCTION pb_stats(idx regclass) RETURNS text
LANGUAGE sql AS $$ SELECT row(s.*)::text FROM fpbtree_stats(idx) s $$;

-- What a serial build of fpbtree (k), or (cols), on tbl gives, kept for
-- pb_same.
CREATE TABLE pb_serial (tbl text PRIMARY KEY, entries text[], stats text,
						cols text);
CREATE FUNCTION pb_serial_build(tbl text, cols text DEFAULT 'k') RETURNS bigint
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('max_parallel_maintenance_workers', '0', true);
	EXECUTE format('CREATE INDEX pb_serial_idx ON %I USING fpbtree (%s)', tbl, cols);
	PERFORM fpbtree_check('pb_serial_idx', true);
	DELETE FROM pb_serial WHERE pb_serial.tbl = pb_serial_build.tbl;
	INSERT INTO pb_serial
		VALUES (tbl, pb_entries(tbl::regclass, cols), pb_stats('pb_serial_idx'),
				cols);
	EXECUTE 'DROP INDEX pb_serial_idx';
	RETURN (SELECT cardinality(entries) FROM pb_serial s WHERE s.tbl = pb_serial_build.tbl);
END $$;

-- Does index idx (the only one on its table) equal the serial build?
CREATE FUNCTION pb_same(idx regclass) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	rel regclass := (SELECT indrelid FROM pg_index WHERE indexrelid = idx);
	s pb_serial;
	e text[];
BEGIN
	PERFORM fpbtree_check(idx, true);
	SELECT * INTO s FROM pb_serial WHERE tbl = rel::text;
	e := pb_entries(rel, s.cols);
	IF e IS DISTINCT FROM s.entries THEN
		RETURN format('entries differ: %s vs %s serial, %s missing, %s extra',
					  cardinality(e), cardinality(s.entries),
					  (SELECT count(*) FROM (SELECT unnest(s.entries) EXCEPT ALL SELECT unnest(e)) x),
					  (SELECT count(*) FROM (SELECT unnest(e) EXCEPT ALL SELECT unnest(s.entries)) x));
	END IF;
	IF pb_stats(idx) IS DISTINCT FROM s.stats THEN
		RETURN format('stats differ: %s vs %s serial', pb_stats(idx), s.stats);
	END IF;
	RETURN 'ok: ' || cardinality(e) || ' entries';
END $$;

-- NULLs, duplicates, HOT chains (non-indexed column updated, no VACUUM),
-- rows updated on the key (new versions elsewhere) and deleted rows
CREATE TABLE pb_main (k int8, v int) WITH (fillfactor = 60);
INSERT INTO pb_main
	SELECT CASE WHEN i % 17 = 0 THEN NULL ELSE (i * 7919) % 3000 END, i
	FROM generate_series(1, 60000) i;
UPDATE pb_main SET v = -v WHERE v % 5 = 0;
UPDATE pb_main SET k = k + 1 WHERE v % 13 = 0;
DELETE FROM pb_main WHERE v % 11 = 0;
SELECT pb_serial_build('pb_main');

SET max_parallel_maintenance_workers = 2;
SET client_min_messages = debug1;
CREATE INDEX pb_main_k ON pb_main USING fpbtree (k);
RESET client_min_messages;
SELECT pb_same('pb_main_k');
DROP INDEX pb_main_k;

SET max_parallel_maintenance_workers = 4;
SET client_min_messages = debug1;
CREATE INDEX pb_main_k ON pb_main USING fpbtree (k);
RESET client_min_messages;
SELECT pb_same('pb_main_k');

-- REINDEX with workers
SET client_min_messages = debug1;
REINDEX INDEX pb_main_k;
REINDEX TABLE pb_main;
RESET client_min_messages;
SELECT pb_same('pb_main_k');
DROP INDEX pb_main_k;

-- CREATE INDEX CONCURRENTLY with workers (an MVCC snapshot, not SnapshotAny)
SET client_min_messages = debug1;
CREATE INDEX CONCURRENTLY pb_main_k ON pb_main USING fpbtree (k);
REINDEX INDEX CONCURRENTLY pb_main_k;
RESET client_min_messages;
SELECT pb_same('pb_main_k');
DROP INDEX pb_main_k;

-- the leader takes a share too, kept in memory for the merge
SET parallel_leader_participation = on;
SET max_parallel_maintenance_workers = 2;
SET client_min_messages = debug1;
CREATE INDEX pb_main_k ON pb_main USING fpbtree (k);
RESET client_min_messages;
SELECT pb_same('pb_main_k');
DROP INDEX pb_main_k;
SET parallel_leader_participation = off;

-- no worker can start: the leader builds alone
SET max_parallel_workers = 0;
SET client_min_messages = debug1;
CREATE INDEX pb_main_k ON pb_main USING fpbtree (k);
RESET client_min_messages;
RESET max_parallel_workers;
SELECT pb_same('pb_main_k');
DROP INDEX pb_main_k;

-- the table's parallel_workers = 0: serial
ALTER TABLE pb_main SET (parallel_workers = 0);
SET client_min_messages = debug1;
CREATE INDEX pb_main_k ON pb_main USING fpbtree (k);
RESET client_min_messages;
SELECT pb_same('pb_main_k');
DROP INDEX pb_main_k;
ALTER TABLE pb_main RESET (parallel_workers);

-- a serial build beyond maintenance_work_mem (tuplesort, not the radix
-- sort) gives the same index too
SET max_parallel_maintenance_workers = 0;
SET maintenance_work_mem = '1MB';
CREATE INDEX pb_main_k ON pb_main USING fpbtree (k);
RESET maintenance_work_mem;
SET maintenance_work_mem = '160MB';
SELECT pb_same('pb_main_k');
DROP INDEX pb_main_k;

-- an empty table (no workers for no blocks), a table whose rows are all
-- deleted (workers, nothing to index), and a table of one page for four
-- workers
CREATE TABLE pb_empty (k int8);
SELECT pb_serial_build('pb_empty');
SET max_parallel_maintenance_workers = 4;
SET client_min_messages = debug1;
CREATE INDEX pb_empty_k ON pb_empty USING fpbtree (k);
RESET client_min_messages;
SELECT pb_same('pb_empty_k');

CREATE TABLE pb_deleted (k int8);
INSERT INTO pb_deleted SELECT i FROM generate_series(1, 5000) i;
DELETE FROM pb_deleted;
SELECT pb_serial_build('pb_deleted');
SET client_min_messages = debug1;
CREATE INDEX pb_deleted_k ON pb_deleted USING fpbtree (k);
RESET client_min_messages;
SELECT pb_same('pb_deleted_k');

CREATE TABLE pb_tiny (k int8) WITH (parallel_workers = 4);
INSERT INTO pb_tiny VALUES (3), (NULL), (1), (3), (2);
SELECT pb_serial_build('pb_tiny');
SET client_min_messages = debug1;
CREATE INDEX pb_tiny_k ON pb_tiny USING fpbtree (k);
RESET client_min_messages;
SELECT pb_same('pb_tiny_k');

-- the participants load slices of the key space whose sizes are whole
-- leaves; the leader links them.  Where one key's entries span slices, the
-- separator between two slices keeps the tiebreaker, as a serial load's
-- does: one key in every row, and two keys
CREATE TABLE pb_same_key (k int8);
INSERT INTO pb_same_key SELECT 42 FROM generate_series(1, 40000);
SELECT pb_serial_build('pb_same_key');
SET parallel_leader_participation = on;
SET max_parallel_maintenance_workers = 2;
SET client_min_messages = debug1;
CREATE INDEX pb_same_key_k ON pb_same_key USING fpbtree (k);
RESET client_min_messages;
SELECT pb_same('pb_same_key_k');
DROP INDEX pb_same_key_k;
UPDATE pb_same_key SET k = 43 WHERE ctid > '(100,0)';
SELECT pb_serial_build('pb_same_key');
SET client_min_messages = debug1;
CREATE INDEX pb_same_key_k ON pb_same_key USING fpbtree (k);
RESET client_min_messages;
SELECT pb_same('pb_same_key_k');
SET parallel_leader_participation = off;

-- a serial build of more entries than the radix sort sorts by LSD passes
-- alone (512k): it first splits on the 11 bits below the highest bit in
-- which the keys differ, then sorts each bucket.  Random keys, a narrow
-- range, NULLs and HOT chains: the load checks that every entry follows
-- the one before, fpbtree_check the tree against the heap.
SET max_parallel_maintenance_workers = 0;
CREATE TABLE pb_big (k int8, v int);
INSERT INTO pb_big
	SELECT CASE i % 3 WHEN 0 THEN hashint8(i) WHEN 1 THEN i % 5000 END, i
	FROM generate_series(1, 600000) i;
UPDATE pb_big SET v = -v WHERE v % 10 = 0;
CREATE INDEX pb_big_k ON pb_big USING fpbtree (k);
SELECT fpbtree_check('pb_big_k', true);
DROP TABLE pb_big;
SET max_parallel_maintenance_workers = 2;

-- an error in a worker reaches the leader, and no run file is left
CREATE INDEX pb_main_div ON pb_main USING fpbtree ((1000 / (k - 777)));
SELECT count(*) AS temp_files FROM pg_ls_dir('base/pgsql_tmp', true, false);

-- Sizes around a leaf's capacity: the slices are cut at multiples of it,
-- so a slice may be empty (more slices than leaves), end one entry short
-- of a leaf, or hold one entry of the next.  The capacity is found by
-- serial builds (the smallest table that needs two leaves, less one).
CREATE FUNCTION pb_leaf_capacity() RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
	lo int := 1;
	hi int := 100000;
	mid int;
	leaves int;
BEGIN
	PERFORM set_config('max_parallel_maintenance_workers', '0', true);
	WHILE lo < hi LOOP
		mid := (lo + hi) / 2;
		CREATE TEMP TABLE pb_cap AS SELECT g::int8 AS k FROM generate_series(1, mid) g;
		CREATE INDEX pb_cap_k ON pb_cap USING fpbtree (k);
		SELECT pages_per_level[1] INTO leaves FROM fpbtree_stats('pb_cap_k');
		DROP TABLE pb_cap;
		IF leaves > 1 THEN hi := mid; ELSE lo := mid + 1; END IF;
	END LOOP;
	RETURN lo - 1;
END $$;

-- Build fpbtree (k), or (cols), on tbl with workers and compare with the
-- serial build: all workers with the leader, then one fewer without it.
CREATE FUNCTION pb_parallel_same(tbl text, workers int, cols text DEFAULT 'k')
RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	lp bool;
BEGIN
	PERFORM pb_serial_build(tbl, cols);
	EXECUTE format('ALTER TABLE %I SET (parallel_workers = %s)', tbl, workers);
	FOREACH lp IN ARRAY ARRAY[true, false] LOOP
		PERFORM set_config('parallel_leader_participation', lp::text, true);
		PERFORM set_config('max_parallel_maintenance_workers',
						   (workers - (NOT lp)::int)::text, true);
		EXECUTE format('CREATE INDEX pb_par_k ON %I USING fpbtree (%s)', tbl, cols);
		RETURN NEXT format('%s, %s workers, leader %s: %s', tbl,
						   workers - (NOT lp)::int, lp, pb_same('pb_par_k'));
		EXECUTE 'DROP INDEX pb_par_k';
	END LOOP;
END $$;

SELECT pb_leaf_capacity() AS cap \gset
CREATE FUNCTION pb_sizes(cap int) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	leaves int[] := ARRAY[0, 1, 1, 1, 2, 2, 9, 9];
	extra int[] := ARRAY[1, -1, 0, 1, 0, 1, -1, 1];
	n int;
BEGIN
	FOR i IN 1..cardinality(leaves) LOOP
		n := leaves[i] * cap + extra[i];
		-- ascending keys in heap order (each run a few key ranges), and
		-- descending
		EXECUTE format('CREATE TABLE pb_size%s AS SELECT (CASE WHEN %L THEN g ELSE -g END)::int8 AS k FROM generate_series(1, %s) g',
					   i, i % 2 = 0, n);
		RETURN QUERY SELECT format('%s x cap %s %s: ', leaves[i],
								   CASE WHEN extra[i] < 0 THEN '-' ELSE '+' END,
								   abs(extra[i])) ||
			regexp_replace(s, 'ok: \d+ entries', 'ok')
			FROM pb_parallel_same('pb_size' || i, 4) s;
		EXECUTE format('DROP TABLE pb_size%s', i);
	END LOOP;
END $$;
SET client_min_messages = debug1;
SELECT * FROM pb_sizes(:cap);
RESET client_min_messages;

-- keys at the ends of their domains, NULLs (last), float NaN (above
-- +Infinity) and -0 = +0, timestamp infinities, with duplicates across
-- slices
CREATE TABLE pb_ext8 AS
	SELECT (ARRAY[-9223372036854775808, 9223372036854775807, 0, -1, 1, NULL])[1 + g % 6]::int8 AS k
	FROM generate_series(1, 6000) g;
CREATE TABLE pb_extf AS
	SELECT (ARRAY['NaN', '-0', '0', 'Infinity', '-Infinity', '1e308', '-1e-308', NULL])[1 + g % 8]::float8 AS k
	FROM generate_series(1, 6000) g;
CREATE TABLE pb_extts AS
	SELECT (ARRAY['infinity', '-infinity', '2000-01-01', NULL])[1 + (g * 7) % 4]::timestamptz AS k
	FROM generate_series(1, 6000) g;
SET client_min_messages = debug1;
SELECT pb_parallel_same('pb_ext8', 3);
SELECT pb_parallel_same('pb_extf', 3);
SELECT pb_parallel_same('pb_extts', 3);
RESET client_min_messages;

-- a UNIQUE index built with workers still finds a duplicate, also one at
-- the far end of the key space, and allows NULLs
CREATE TABLE pb_uniq (k int8) WITH (parallel_workers = 3);
INSERT INTO pb_uniq SELECT g FROM generate_series(1, 20000) g;
INSERT INTO pb_uniq VALUES (NULL), (NULL), (20000);
SET max_parallel_maintenance_workers = 3;
SET client_min_messages = debug1;
CREATE UNIQUE INDEX pb_uniq_k ON pb_uniq USING fpbtree (k);
DELETE FROM pb_uniq WHERE k = 20000 AND ctid = (SELECT max(ctid) FROM pb_uniq WHERE k = 20000);
CREATE UNIQUE INDEX pb_uniq_k ON pb_uniq USING fpbtree (k);
RESET client_min_messages;
SELECT fpbtree_check('pb_uniq_k', true);
SELECT count(*) AS temp_files FROM pg_ls_dir('base/pgsql_tmp', true, false);

-- VACUUM FULL and CLUSTER rebuild the indexes on the rewritten heap with
-- workers: the rebuilt index equals a serial build on the same heap
CREATE FUNCTION pb_rebuilt_same(idx regclass) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	rel regclass := (SELECT indrelid FROM pg_index WHERE indexrelid = idx);
	e text[] := pb_entries(rel);
	st text := pb_stats(idx);
BEGIN
	PERFORM fpbtree_check(idx, true);
	EXECUTE format('DROP INDEX %s', idx);
	PERFORM pb_serial_build(rel::text);
	IF (SELECT entries IS DISTINCT FROM e OR stats IS DISTINCT FROM st
		FROM pb_serial WHERE tbl = rel::text) THEN
		RETURN 'differs from the serial build';
	END IF;
	RETURN 'ok: ' || cardinality(e) || ' entries';
END $$;
CREATE TABLE pb_rewrite (k int8, v int) WITH (parallel_workers = 3);
INSERT INTO pb_rewrite SELECT (g * 7919) % 5000, g FROM generate_series(1, 30000) g;
DELETE FROM pb_rewrite WHERE v % 3 = 0;
CREATE INDEX pb_rewrite_k ON pb_rewrite USING fpbtree (k);
SET max_parallel_maintenance_workers = 3;
SET client_min_messages = debug1;
VACUUM FULL pb_rewrite;
RESET client_min_messages;
SELECT pb_rebuilt_same('pb_rewrite_k');
CREATE INDEX pb_rewrite_v ON pb_rewrite USING btree (v);
CREATE INDEX pb_rewrite_k ON pb_rewrite USING fpbtree (k);
SET client_min_messages = debug1;
CLUSTER pb_rewrite USING pb_rewrite_v;
RESET client_min_messages;
DROP INDEX pb_rewrite_v;
SELECT pb_rebuilt_same('pb_rewrite_k');

-- Wide keys (text under "C", ICU and a non-deterministic collation, uuid):
-- the participants sort their shares into one shared tuplesort, the
-- leader merges the runs and loads the pages alone.  NULLs, duplicates,
-- long values, HOT chains: the index equals the serial build's.
CREATE COLLATION pb_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE pb_text (k text COLLATE "C", v int) WITH (fillfactor = 70);
INSERT INTO pb_text
	SELECT CASE WHEN g % 23 = 0 THEN NULL
				WHEN g % 7 = 0 THEN repeat(md5((g % 50)::text), 1 + g % 20)
				ELSE md5((g % 9000)::text) END, g
	FROM generate_series(1, 30000) g;
UPDATE pb_text SET v = -v WHERE v % 5 = 0;
DELETE FROM pb_text WHERE v % 11 = 0;
CREATE TABLE pb_icu (k text COLLATE "en-x-icu") WITH (parallel_workers = 3);
INSERT INTO pb_icu SELECT k FROM pb_text;
CREATE TABLE pb_textci (k text COLLATE pb_ci) WITH (parallel_workers = 3);
INSERT INTO pb_textci
	SELECT CASE g % 3 WHEN 0 THEN upper(md5((g % 3000)::text)) ELSE md5((g % 3000)::text) END
	FROM generate_series(1, 20000) g;
CREATE TABLE pb_uuid (k uuid) WITH (parallel_workers = 3);
INSERT INTO pb_uuid
	SELECT CASE WHEN g % 31 = 0 THEN NULL ELSE md5((g % 12000)::text)::uuid END
	FROM generate_series(1, 30000) g;
-- (serial builds first, so that no catalog cache grows under debug1)
SELECT pb_serial_build(t) FROM unnest(ARRAY['pb_text', 'pb_icu', 'pb_textci', 'pb_uuid']) t;
SET client_min_messages = debug1;
SELECT pb_parallel_same('pb_text', 3);
SELECT pb_parallel_same('pb_icu', 3);
SELECT pb_parallel_same('pb_textci', 3);
SELECT pb_parallel_same('pb_uuid', 3);
-- ICU text as a multi-column first column: its prefix leads the sort
SELECT pb_parallel_same('pb_icu', 3, 'k DESC NULLS FIRST');
RESET client_min_messages;

-- CREATE INDEX CONCURRENTLY of a wide index with workers
SELECT pb_serial_build('pb_text');
SET max_parallel_maintenance_workers = 2;
SET client_min_messages = debug1;
CREATE INDEX CONCURRENTLY pb_text_k ON pb_text USING fpbtree (k);
RESET client_min_messages;
SELECT pb_same('pb_text_k');
DROP INDEX pb_text_k;

-- a wide UNIQUE index built with workers finds duplicates, under the
-- collation's equality
CREATE TABLE pb_wuniq (k text COLLATE pb_ci) WITH (parallel_workers = 3);
INSERT INTO pb_wuniq SELECT md5(g::text) FROM generate_series(1, 20000) g;
SET max_parallel_maintenance_workers = 3;
SET client_min_messages = debug1;
CREATE UNIQUE INDEX pb_wuniq_k ON pb_wuniq USING fpbtree (k);
RESET client_min_messages;
SELECT fpbtree_check('pb_wuniq_k', true);
DROP INDEX pb_wuniq_k;
INSERT INTO pb_wuniq VALUES (upper(md5('777')));
SET client_min_messages = debug1;
CREATE UNIQUE INDEX pb_wuniq_k ON pb_wuniq USING fpbtree (k);
RESET client_min_messages;

-- Multi-column indexes build in parallel as one wide column does: every
-- participant sorts its share by the columns, the leader merges and loads.
-- Narrow and wide columns, DESC and NULLS FIRST, NULLs in every column,
-- duplicates, HOT chains, deleted rows; an INCLUDE column; a unique index
-- with a duplicate found only across participants' shares.
CREATE TABLE pb_multi (a int4, b text COLLATE "C", c float8, d int8, v int)
	WITH (fillfactor = 70);
INSERT INTO pb_multi
	SELECT CASE WHEN g % 29 = 0 THEN NULL ELSE g % 40 END,
		   CASE WHEN g % 31 = 0 THEN NULL ELSE md5((g % 300)::text) END,
		   CASE g % 9 WHEN 0 THEN '-0'::float8 WHEN 1 THEN NULL ELSE (g % 70) / 4.0 END,
		   hashint4(g) % 100000, g
	FROM generate_series(1, 40000) g;
UPDATE pb_multi SET v = -v WHERE v % 5 = 0;
DELETE FROM pb_multi WHERE v % 11 = 0;
SET client_min_messages = debug1;
SELECT pb_parallel_same('pb_multi', 3, 'a, d');
SELECT pb_parallel_same('pb_multi', 3, 'a DESC NULLS LAST, b, d');
SELECT pb_parallel_same('pb_multi', 2, 'b NULLS FIRST, c DESC');
SELECT pb_parallel_same('pb_multi', 3, 'b DESC NULLS LAST, a');
RESET client_min_messages;
SET max_parallel_maintenance_workers = 0;
CREATE INDEX pb_multi_i ON pb_multi USING fpbtree (d, a) INCLUDE (b);
SELECT pb_stats('pb_multi_i') AS serial_stats,
	   md5(pb_entries('pb_multi', 'd, a')::text) AS serial_entries \gset
DROP INDEX pb_multi_i;
SET max_parallel_maintenance_workers = 2;
SET client_min_messages = debug1;
CREATE INDEX pb_multi_i ON pb_multi USING fpbtree (d, a) INCLUDE (b);
RESET client_min_messages;
SELECT fpbtree_check('pb_multi_i', true),
	   pb_stats('pb_multi_i') = :'serial_stats' AS same_stats,
	   md5(pb_entries('pb_multi', 'd, a')::text) = :'serial_entries' AS same_entries;
DROP INDEX pb_multi_i;
SELECT pb_serial_build('pb_multi', 'b, a DESC');
SET client_min_messages = debug1;
CREATE INDEX CONCURRENTLY pb_multi_i ON pb_multi USING fpbtree (b, a DESC);
RESET client_min_messages;
SELECT pb_same('pb_multi_i');
DROP INDEX pb_multi_i;
CREATE TABLE pb_muniq (a int4, b int8) WITH (parallel_workers = 3);
INSERT INTO pb_muniq SELECT g % 100, g FROM generate_series(1, 30000) g;
SET max_parallel_maintenance_workers = 3;
SET client_min_messages = debug1;
CREATE UNIQUE INDEX pb_muniq_ab ON pb_muniq USING fpbtree (a, b);
RESET client_min_messages;
SELECT fpbtree_check('pb_muniq_ab', true);
DROP INDEX pb_muniq_ab;
INSERT INTO pb_muniq VALUES (7, 29907);
SET client_min_messages = debug1;
CREATE UNIQUE INDEX pb_muniq_ab ON pb_muniq USING fpbtree (a, b);
RESET client_min_messages;

-- an error in a worker of a wide build reaches the leader, and no
-- temporary file is left
CREATE INDEX pb_text_div ON pb_text USING fpbtree (((1000 / (v - 777))::text));
SELECT count(*) AS temp_files FROM pg_ls_dir('base/pgsql_tmp', true, false);
