--
-- 13_unique: CREATE UNIQUE INDEX ... USING fpbtree, the checks at build
-- and at insert against btree's (same errors, same rows accepted), NULLS
-- [NOT] DISTINCT, dead versions of a key, runs of versions spanning leaf
-- pages; CLUSTER on an fpbtree index.
--

-- on its own: the extension and settings
\set ECHO none
\i sql/include/setup.sql
\set ECHO all
SET enable_seqscan = off;
SET enable_bitmapscan = off;

-- the same statement against a table with a unique btree index (u_bt) and
-- one with a unique fpbtree index (u_fp): the outcomes must agree
CREATE FUNCTION u_both(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    r text := '';
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['u_bt', 'u_fp'] LOOP
        BEGIN
            EXECUTE replace(stmt, '$T', t);
            r := r || t || ': ok; ';
        EXCEPTION WHEN unique_violation THEN
            r := r || t || ': ' || SQLERRM || '; ';
        END;
    END LOOP;
    RETURN r;
END $$;

-- build: unique data
CREATE TABLE u_bt (k int8, v int4) WITH (autovacuum_enabled = off);
CREATE TABLE u_fp (k int8, v int4) WITH (autovacuum_enabled = off);
INSERT INTO u_bt SELECT g * 3, g FROM generate_series(1, 20000) g;
INSERT INTO u_fp SELECT * FROM u_bt;
INSERT INTO u_bt VALUES (NULL, -1), (NULL, -2), (9223372036854775807, -3), (-9223372036854775808, -4);
INSERT INTO u_fp SELECT * FROM u_bt WHERE v < 0;
CREATE UNIQUE INDEX u_bt_k ON u_bt (k);
CREATE UNIQUE INDEX u_fp_k ON u_fp USING fpbtree (k);
SELECT indisunique FROM pg_index WHERE indexrelid = 'u_fp_k'::regclass;

-- inserts: a duplicate is refused with btree's error, NULLs are distinct,
-- the extremes are ordinary keys (the largest int8 shares its normalised
-- key with NULL)
SELECT u_both('INSERT INTO $T VALUES (3, 0)');
SELECT u_both('INSERT INTO $T VALUES (4, 0)');
SELECT u_both('INSERT INTO $T VALUES (4, 1)');
SELECT u_both('INSERT INTO $T VALUES (NULL, 0)');
SELECT u_both('INSERT INTO $T VALUES (9223372036854775807, 0)');
SELECT u_both('INSERT INTO $T VALUES (-9223372036854775808, 0)');
SELECT u_both('INSERT INTO $T VALUES (9223372036854775806, 0)');
-- the error names the index and the key, as btree's does
INSERT INTO u_fp VALUES (60000, 0);
-- several rows in one statement, the duplicate among themselves
SELECT u_both('INSERT INTO $T VALUES (100001, 0), (100002, 0), (100001, 1)');
-- updates: to a taken key, to a free one, and the same key again in a
-- non-HOT update (v is indexed below) whose old version is our own dead one
CREATE INDEX u_bt_v ON u_bt (v);
CREATE INDEX u_fp_v ON u_fp (v);
SELECT u_both('UPDATE $T SET k = 6 WHERE k = 9');
SELECT u_both('UPDATE $T SET k = 10 WHERE k = 9');
SELECT u_both('UPDATE $T SET v = v + 1000000 WHERE k = 12');
-- a deleted key (not vacuumed) is free again; its dead entry stays
SELECT u_both('DELETE FROM $T WHERE k = 15');
SELECT u_both('INSERT INTO $T VALUES (15, 7)');
SELECT u_both('INSERT INTO $T VALUES (15, 8)');

-- a long run of dead versions of one key, spanning several leaf pages,
-- then a duplicate of the live version at its end
SELECT count(*) FILTER (WHERE r <> 'u_bt: ok; u_fp: ok; ') AS failed
FROM (SELECT u_both('UPDATE $T SET v = v + 1 WHERE k = 18') AS r FROM generate_series(1, 1500)) s;
SELECT count(*) AS live FROM u_fp WHERE k = 18;
SELECT u_both('INSERT INTO $T VALUES (18, 0)');
SELECT u_both('INSERT INTO $T VALUES (19, 0)');
-- a rolled-back insert leaves a dead entry that conflicts with nothing
BEGIN;
INSERT INTO u_fp VALUES (22, 0);
ROLLBACK;
SELECT u_both('INSERT INTO $T VALUES (22, 1)');

-- the two tables hold the same rows, and the index is sound
SELECT count(*) AS differ FROM ((TABLE u_bt EXCEPT ALL TABLE u_fp) UNION ALL (TABLE u_fp EXCEPT ALL TABLE u_bt)) d;
SELECT fpbtree_check('u_fp_k', true);
SELECT count(*), count(DISTINCT k) FROM u_fp WHERE k IS NOT NULL;

-- build over duplicates: refused as btree refuses, but dead versions of a
-- key (deleted, not yet vacuumed) are no duplicates
CREATE TABLE u_dup AS SELECT g % 5000 AS k FROM generate_series(1, 5001) g;
CREATE UNIQUE INDEX u_dup_bt ON u_dup (k);
CREATE UNIQUE INDEX u_dup_fp ON u_dup USING fpbtree (k);
DELETE FROM u_dup WHERE ctid = (SELECT max(ctid) FROM u_dup);
CREATE UNIQUE INDEX u_dup_bt ON u_dup (k);
CREATE UNIQUE INDEX u_dup_fp ON u_dup USING fpbtree (k);
SELECT fpbtree_check('u_dup_fp', true);
-- the same inside a transaction that made the duplicate itself
BEGIN;
DROP INDEX u_dup_bt, u_dup_fp;
INSERT INTO u_dup VALUES (42);
CREATE UNIQUE INDEX u_dup_fp ON u_dup USING fpbtree (k);
ROLLBACK;
-- many versions of one key across pages: only one is live
CREATE TABLE u_ver (k int8, v int4) WITH (autovacuum_enabled = off);
INSERT INTO u_ver SELECT 7, g FROM generate_series(1, 3000) g;
DELETE FROM u_ver WHERE v > 1;
CREATE UNIQUE INDEX u_ver_fp ON u_ver USING fpbtree (k);
INSERT INTO u_ver VALUES (7, 0);
INSERT INTO u_ver VALUES (8, 0);
SELECT fpbtree_check('u_ver_fp', true);
-- NULLs: distinct by default, not with NULLS NOT DISTINCT
CREATE TABLE u_nul (k int4);
INSERT INTO u_nul VALUES (1), (NULL), (NULL), (2147483647);
CREATE UNIQUE INDEX u_nul_fp ON u_nul USING fpbtree (k);
DROP INDEX u_nul_fp;
CREATE UNIQUE INDEX u_nul_bt ON u_nul (k) NULLS NOT DISTINCT;
CREATE UNIQUE INDEX u_nul_fp ON u_nul USING fpbtree (k) NULLS NOT DISTINCT;
DELETE FROM u_nul WHERE k IS NULL AND ctid = (SELECT min(ctid) FROM u_nul WHERE k IS NULL);
CREATE UNIQUE INDEX u_nul_fp ON u_nul USING fpbtree (k) NULLS NOT DISTINCT;
INSERT INTO u_nul VALUES (NULL);
INSERT INTO u_nul VALUES (2147483647);
INSERT INTO u_nul VALUES (2147483646);
SELECT count(*) FROM u_nul;
-- an empty table, then rows
CREATE TABLE u_empty (k date);
CREATE UNIQUE INDEX u_empty_fp ON u_empty USING fpbtree (k);
INSERT INTO u_empty VALUES ('2026-01-01'), ('2026-01-02');
INSERT INTO u_empty VALUES ('2026-01-01');

-- fpbtree_check finds two live entries of one key in a unique index (made
-- here by marking a non-unique index unique in the catalog)
CREATE TABLE u_bad (k int4);
INSERT INTO u_bad SELECT g FROM generate_series(1, 3000) g;
INSERT INTO u_bad VALUES (1234);
CREATE INDEX u_bad_fp ON u_bad USING fpbtree (k);
SELECT fpbtree_check('u_bad_fp', false);
UPDATE pg_index SET indisunique = true WHERE indexrelid = 'u_bad_fp'::regclass;
SELECT fpbtree_check('u_bad_fp', false);
DELETE FROM u_bad WHERE ctid = (SELECT max(ctid) FROM u_bad);
SELECT fpbtree_check('u_bad_fp', false);
DROP TABLE u_bad;

-- PostgreSQL 15 accepts only btree indexes for unique constraints, primary
-- keys and foreign keys; ON CONFLICT works (63_upsert)
ALTER TABLE u_fp ADD CONSTRAINT u_fp_c UNIQUE USING INDEX u_fp_k;
INSERT INTO u_fp VALUES (3, 0) ON CONFLICT DO NOTHING;

-- CLUSTER ... USING an fpbtree index: the heap in key order, NULLs last
CREATE TABLE u_cl AS SELECT (hashint4(g) % 1000)::int4 AS k, g FROM generate_series(1, 5000) g;
INSERT INTO u_cl VALUES (NULL, 0), (NULL, -1);
CREATE INDEX u_cl_fp ON u_cl USING fpbtree (k);
CLUSTER u_cl USING u_cl_fp;
SELECT count(*) AS out_of_order FROM (
    SELECT k, lag(k) OVER (ORDER BY ctid) AS prev, lag(k IS NULL) OVER (ORDER BY ctid) AS prevnull FROM u_cl) s
WHERE (prevnull AND k IS NOT NULL) OR k < prev;
SELECT count(*), count(k) FROM u_cl;
SELECT indisclustered FROM pg_index WHERE indexrelid = 'u_cl_fp'::regclass;
SELECT fpbtree_check('u_cl_fp', true);

-- a unique index built again into its own files, with no command boundary
-- before the build's unique check: TRUNCATE of a table already truncated
-- in this transaction, and ON COMMIT DELETE ROWS.  The check must descend
-- from the new root, not the old one (block 3 of a two-page index).
CREATE TABLE u_tr (k int8);
CREATE UNIQUE INDEX u_tr_fp ON u_tr USING fpbtree (k);
INSERT INTO u_tr SELECT g FROM generate_series(1, 20000) g;
BEGIN;
TRUNCATE u_tr;
INSERT INTO u_tr SELECT g FROM generate_series(1, 20000) g;
TRUNCATE u_tr;
INSERT INTO u_tr VALUES (1), (2);
COMMIT;
SELECT count(*), fpbtree_check('u_tr_fp', true) FROM u_tr;
INSERT INTO u_tr VALUES (2);
DROP TABLE u_tr;
CREATE TEMP TABLE u_oc (k int8) ON COMMIT DELETE ROWS;
CREATE UNIQUE INDEX u_oc_fp ON u_oc USING fpbtree (k);
BEGIN;
INSERT INTO u_oc SELECT g FROM generate_series(1, 600) g;
COMMIT;
BEGIN;
INSERT INTO u_oc VALUES (5), (6);
SELECT count(*), fpbtree_check('u_oc_fp', true) FROM u_oc;
COMMIT;
SELECT count(*) FROM u_oc;
DROP TABLE u_oc;
