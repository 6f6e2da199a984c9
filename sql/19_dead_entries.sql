--
-- 19_dead_entries: index scans mark the entries of dead row versions
-- (kill_prior_tuple), later scans skip them, and an insert removes them
-- before it would split, so an update-heavy table's index stops growing
-- between VACUUMs.  The same workload scanned only by bitmap scans (which
-- never mark) makes the index grow.  Every scan's rows equal btree's.
--

-- on its own: the extension and settings
\set ECHO none
\i sql/include/setup.sql
\set ECHO all

-- dm: scanned by index scans (marks); dn: by bitmap scans (no marks);
-- db: btree.  Non-HOT updates: full heap pages, and the key changes.
CREATE TABLE dm (id int4, v int8) WITH (fillfactor = 100, autovacuum_enabled = off);
CREATE TABLE dn (LIKE dm) WITH (fillfactor = 100, autovacuum_enabled = off);
CREATE TABLE db (LIKE dm) WITH (fillfactor = 100, autovacuum_enabled = off);
INSERT INTO dm SELECT g, g * 3 FROM generate_series(1, 20000) g;
INSERT INTO dn SELECT * FROM dm;
INSERT INTO db SELECT * FROM dm;
CREATE INDEX dm_v ON dm USING fpbtree (v);
CREATE UNIQUE INDEX dm_id ON dm USING fpbtree (id);
CREATE INDEX dn_v ON dn USING fpbtree (v);
CREATE UNIQUE INDEX dn_id ON dn USING fpbtree (id);
CREATE INDEX db_v ON db (v);
CREATE UNIQUE INDEX db_id ON db (id);
VACUUM ANALYZE dm;
VACUUM ANALYZE dn;
VACUUM ANALYZE db;

-- one row per round and table: index sizes and whether its scans agreed
-- with btree's
CREATE TABLE dlog (round int, tab text, v_pages bigint, id_pages bigint,
                   same bool);

-- the plan kind for the queries that follow (session settings: the
-- procedure commits between rounds)
CREATE FUNCTION d_mode(bitmap bool) RETURNS void LANGUAGE sql AS $$
    SELECT set_config('enable_seqscan', 'off', false),
           set_config('enable_indexonlyscan', 'off', false),
           set_config('enable_indexscan', (NOT bitmap)::text, false),
           set_config('enable_bitmapscan', bitmap::text, false);
$$;

-- parallel plans for the rest of the transaction
CREATE FUNCTION d_parallel() RETURNS void LANGUAGE sql AS $$
    SELECT set_config('parallel_setup_cost', '0', true),
           set_config('parallel_tuple_cost', '0', true),
           set_config('min_parallel_index_scan_size', '0', true),
           set_config('min_parallel_table_scan_size', '0', true),
           set_config('max_parallel_workers_per_gather', '2', true);
$$;

-- the answers of the round's scans: a forward range scan of each index, a
-- backward one, and an array-key scan
CREATE FUNCTION d_scans(tab text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    r text;
    a text;
BEGIN
    EXECUTE format('SELECT count(*) || '' '' || sum(id) || '' '' || sum(v) FROM %I WHERE v BETWEEN 0 AND 1000000', tab) INTO a;
    r := a;
    EXECUTE format('SELECT count(*) || '' '' || sum(v) FROM %I WHERE id BETWEEN 1 AND 20000', tab) INTO a;
    r := r || ' / ' || a;
    EXECUTE format('SELECT string_agg(id::text, '','') FROM (SELECT id FROM %I WHERE v > 59000 ORDER BY v DESC, id) s', tab) INTO a;
    r := r || ' / ' || md5(a);
    EXECUTE format('SELECT string_agg(id::text, '','' ORDER BY id) FROM %I WHERE v = ANY (ARRAY(SELECT g * 7 FROM generate_series(1, 9000) g))', tab) INTO a;
    r := r || ' / ' || md5(a);
    -- and in parallel, for the rest of the transaction
    PERFORM d_parallel();
    EXECUTE format('SELECT count(*) || '' '' || sum(id) FROM %I WHERE v BETWEEN 30000 AND 1000000', tab) INTO a;
    RETURN r || ' / ' || a;
END $$;

-- n rounds: update half of the rows (a new key for each), commit, scan
-- every table (dm by index scans, dn by bitmap scans, db by btree)
CREATE PROCEDURE d_rounds(first int, n int) LANGUAGE plpgsql AS $$
DECLARE
    sb text;
    sm text;
    sn text;
BEGIN
    FOR r IN first .. first + n - 1 LOOP
        UPDATE dm SET v = v + 1 WHERE id % 2 = r % 2;
        UPDATE dn SET v = v + 1 WHERE id % 2 = r % 2;
        UPDATE db SET v = v + 1 WHERE id % 2 = r % 2;
        COMMIT;
        PERFORM d_mode(false);
        sb := d_scans('db');
        sm := d_scans('dm');
        PERFORM d_mode(true);
        sn := d_scans('dn');
        COMMIT;
        INSERT INTO dlog VALUES
            (r, 'dm', pg_relation_size('dm_v') / 8192, pg_relation_size('dm_id') / 8192, sm = sb),
            (r, 'dn', pg_relation_size('dn_v') / 8192, pg_relation_size('dn_id') / 8192, sn = sb);
        COMMIT;
    END LOOP;
END $$;

BEGIN;
SELECT d_mode(false), d_parallel();
EXPLAIN (COSTS OFF) SELECT count(*), sum(id) FROM dm WHERE v BETWEEN 30000 AND 1000000;
COMMIT;
CALL d_rounds(1, 8);
-- (d_mode left session settings behind)
RESET enable_seqscan;
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_bitmapscan;
-- every scan returned btree's rows.  From the second round on (the first
-- leaves no dead versions to mark), dm's indexes keep their size; dn's v
-- index grows by half, but its unique id index stays too: inserting each
-- new version, the uniqueness check reads the key's older versions and
-- marks those dead to everyone, as btree's does (from the third round: the
-- second round's updates may delay a split of it by a round, when bottom-up
-- deletion removes the first round's old versions of other keys)
SELECT bool_and(same) AS all_same FROM dlog;
SELECT tab,
       max(v_pages) FILTER (WHERE round >= 2) = min(v_pages) FILTER (WHERE round >= 2) AS v_stable,
       max(id_pages) FILTER (WHERE round >= 3) = min(id_pages) FILTER (WHERE round >= 3) AS id_stable,
       max(v_pages) > 1.5 * min(v_pages) AS v_grew_by_half
FROM dlog GROUP BY tab ORDER BY tab;
-- dead versions are marked in dm's indexes and dn's unique one, not in
-- dn's v index
SELECT fpbtree_dead_entries('dm_v') > 0 AS dm_v_marked,
       fpbtree_dead_entries('dm_id') > 0 AS dm_id_marked,
       fpbtree_dead_entries('dn_id') > 0 AS dn_id_marked,
       fpbtree_dead_entries('dn_v') = 0 AS dn_v_unmarked;
SELECT fpbtree_check('dm_v', true), fpbtree_check('dm_id', true);

-- a unique index: the marked entries of dead versions of an id are no
-- conflict, its live version is (as in btree)
SET enable_seqscan = off;
SET enable_bitmapscan = off;
INSERT INTO dm VALUES (7, 0);
INSERT INTO db VALUES (7, 0);
DELETE FROM dm WHERE id = 7;
DELETE FROM db WHERE id = 7;
SELECT fpbtree_dead_entries('dm_id') AS before \gset
EXPLAIN (COSTS OFF) SELECT id FROM dm WHERE id = 7;
SELECT id FROM dm WHERE id = 7;
SELECT fpbtree_dead_entries('dm_id') = :before + 1 AS marked;
INSERT INTO dm VALUES (7, 0);
INSERT INTO db VALUES (7, 0);
INSERT INTO dm VALUES (7, 1);
INSERT INTO db VALUES (7, 1);
SELECT id, v FROM dm WHERE id BETWEEN 6 AND 8 ORDER BY id;
SELECT id, v FROM db WHERE id BETWEEN 6 AND 8 ORDER BY id;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- VACUUM removes the dead entries, marked or not; the sizes stay, and so
-- they do for more rounds
VACUUM dm;
SELECT fpbtree_dead_entries('dm_v') = 0 AS v_clean, fpbtree_dead_entries('dm_id') = 0 AS id_clean;
SELECT fpbtree_check('dm_v', true), fpbtree_check('dm_id', true);
CALL d_rounds(9, 3);
RESET enable_seqscan;
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_bitmapscan;
SELECT bool_and(same) AS all_same,
       max(v_pages) = min(v_pages) AS v_same_size,
       max(id_pages) = min(id_pages) AS id_same_size
FROM dlog WHERE tab = 'dm';
SELECT fpbtree_check('dm_v', true), fpbtree_check('dm_id', true);

-- an unlogged table: its index scans keep the leaf pin (page LSNs do not
-- advance), and mark through it
CREATE UNLOGGED TABLE du (id int4, v int8) WITH (fillfactor = 100, autovacuum_enabled = off);
INSERT INTO du SELECT g, g * 3 FROM generate_series(1, 20000) g;
CREATE INDEX du_v ON du USING fpbtree (v);
VACUUM ANALYZE du;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
UPDATE du SET v = v + 1 WHERE id % 2 = 0;
EXPLAIN (COSTS OFF) SELECT count(*), sum(id), sum(v) FROM du WHERE v >= 0;
SELECT count(*), sum(id), sum(v) FROM du WHERE v >= 0;
SELECT fpbtree_dead_entries('du_v') = 10000 AS marked;
-- (the first round's new entries had no marked ones to replace)
SELECT pg_relation_size('du_v') AS du_size \gset
UPDATE du SET v = v + 1 WHERE id % 2 = 1;
SELECT count(*), sum(id), sum(v) FROM du WHERE v >= 0;
UPDATE du SET v = v + 1 WHERE id % 2 = 0;
SELECT count(*), sum(id), sum(v) FROM du WHERE v >= 0;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*), sum(id), sum(v) FROM du;
SELECT pg_relation_size('du_v') = :du_size AS same_size;
SELECT fpbtree_check('du_v', true);
