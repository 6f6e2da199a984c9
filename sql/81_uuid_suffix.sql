--
-- 81_uuid_suffix: uuid slots that hold only the bytes after the prefix
-- (README "Wide keys", Suffix slots).  A uuid's prefix is its first 6
-- bytes exactly, so an index built since the format flag (fpbtree_format:
-- uuid_suffix_slots) keeps the other 10 in its slot, and compares values
-- by those only where prefixes tie.  The data is made for that: many
-- values share one prefix and differ after it, many share their last 10
-- bytes and differ in the prefix, some repeat (pages of runs), some are
-- extreme, some NULL.  Everything answers as btree, in serial and parallel
-- scans, after inserts, deletes and VACUUM, and in an index built before
-- the flag.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all
SET enable_seqscan = off;
SET enable_bitmapscan = off;

CREATE TABLE us (id int4, u uuid) WITH (autovacuum_enabled = off);
INSERT INTO us SELECT g, fpb_uuid_mix(g)
FROM generate_series(1, 60000) g ORDER BY hashint4(g);
CREATE TABLE us_bt AS SELECT * FROM us;
CREATE INDEX us_u ON us USING fpbtree (u);
CREATE INDEX us_bt_u ON us_bt (u);
VACUUM ANALYZE us, us_bt;

-- the format, and the size against btree's (before the flag: 1.17 times
-- for random uuids)
SELECT f.version, f.format, f.reindex_adds FROM fpbtree_format('us_u') f;
SELECT pg_relation_size('us_u') <= pg_relation_size('us_bt_u') AS within_btree_size;

-- grown by random inserts (before the flag: 1.01 times btree's here, 1.27
-- times with 600,000 rows)
CREATE TABLE us_g (u uuid);
CREATE INDEX us_g_u ON us_g USING fpbtree (u);
CREATE TABLE us_g_bt (u uuid);
CREATE INDEX us_g_bt_u ON us_g_bt (u);
INSERT INTO us_g SELECT md5(g::text)::uuid FROM generate_series(1, 100000) g;
INSERT INTO us_g_bt SELECT md5(g::text)::uuid FROM generate_series(1, 100000) g;
SELECT pg_relation_size('us_g_u') <= 0.97 * pg_relation_size('us_g_bt_u') AS grown_below_btree_size,
	   fpbtree_check('us_g_u', true);
DROP TABLE us_g, us_g_bt;

-- the same answers as btree's: index-only scans return each value whole,
-- ordered scans both ways, bounds inside the shared prefix
CREATE FUNCTION us_all() RETURNS TABLE (q text, r text) LANGUAGE sql AS $$
	SELECT q, fpb_same_as(q, 'us', 'us_bt') FROM unnest(ARRAY[
		'SELECT u FROM us ORDER BY u',
		'SELECT u FROM us ORDER BY u DESC NULLS LAST',
		'SELECT count(*) FROM us WHERE u IS NULL',
		'SELECT u FROM us WHERE u >= ''a1a2a3a4-a5a6-8000-0000-000000000000'' AND u < ''a1a2a3a4-a5a7-0000-0000-000000000000'' ORDER BY u',
		'SELECT u FROM us WHERE u > ''a1a2a3a4-a5a6-0000-0000-000000000000'' ORDER BY u DESC LIMIT 500',
		'SELECT u FROM us WHERE u <= ''a1a2a3a4-a5a6-ffff-ffff-ffffffffffff'' ORDER BY u DESC LIMIT 700',
		'SELECT count(*) FROM us WHERE u = ''a1a2a3a4-a5a6-0000-0000-000000000000''',
		'SELECT count(*) FROM us WHERE u = ''a1a2a3a4-a5a6-ffff-ffff-ffffffffffff''',
		'SELECT count(*) FROM us WHERE u = ''00000000-0000-0000-0000-000000000000''',
		'SELECT count(*) FROM us WHERE u >= ''ffffffff-ffff-ffff-ffff-ffffffffffff''',
		'SELECT u FROM us WHERE u = ANY (ARRAY[''a1a2a3a4a5a6'' || left(md5(''5''), 20), ''a1a2a3a4a5a6'' || left(md5(''10''), 20), left(md5(''11''), 12) || ''b1b2b3b4b5b6b7b8b9ba'', md5(''7''), ''a1a2a3a4a5a6'' || left(md5(''nothing''), 20)]::uuid[]) ORDER BY u',
		'SELECT u FROM us WHERE u = ANY (ARRAY[md5(''1''), md5(''2''), md5(''299'')]::uuid[]) ORDER BY u DESC',
		'SELECT id FROM us WHERE u = (''a1a2a3a4a5a6'' || left(md5(''25''), 20))::uuid ORDER BY id',
		'SELECT id FROM us WHERE u = md5(''17'')::uuid ORDER BY id',
		'SELECT id FROM us WHERE u BETWEEN md5(''100'')::uuid AND md5(''200'')::uuid ORDER BY id'
	]) q;
$$;
SELECT * FROM us_all() WHERE r <> 'same';
SELECT count(*) AS queries FROM us_all();
SELECT fpbtree_check('us_u', true);

-- a cursor that reads both ways through the shared prefix
BEGIN;
DECLARE cur SCROLL CURSOR FOR
	SELECT u FROM us WHERE u >= 'a1a2a3a4-a5a6-0000-0000-000000000000' ORDER BY u;
FETCH 2 FROM cur;
MOVE FORWARD 5000 IN cur;
FETCH BACKWARD 2 FROM cur;
MOVE FORWARD 100000 IN cur;
FETCH BACKWARD 1 FROM cur;
COMMIT;

-- a merge join marks and restores positions in runs of equal values
SET enable_hashjoin = off;
SET enable_nestloop = off;
SELECT fpb_explain('SELECT count(*) FROM us a JOIN us b USING (u)') ~ 'Merge Join' AS merge;
SELECT (SELECT count(*) FROM us a JOIN us b USING (u)) =
	   (SELECT count(*) FROM us_bt a JOIN us_bt b USING (u)) AS same_join;
RESET enable_hashjoin;
RESET enable_nestloop;

-- inserts into runs, into the shared prefix and elsewhere, deletes, VACUUM
INSERT INTO us SELECT g, fpb_uuid_mix(g) FROM generate_series(60001, 90000) g;
INSERT INTO us_bt SELECT g, fpb_uuid_mix(g) FROM generate_series(60001, 90000) g;
INSERT INTO us SELECT -g, gen_random_uuid() FROM generate_series(1, 3000) g;
INSERT INTO us_bt SELECT * FROM us WHERE id < 0;
DELETE FROM us WHERE id % 7 = 3 OR id BETWEEN 20000 AND 26000;
DELETE FROM us_bt WHERE id % 7 = 3 OR id BETWEEN 20000 AND 26000;
VACUUM us;
VACUUM us_bt;
SELECT * FROM us_all() WHERE r <> 'same';
SELECT fpbtree_check('us_u', true);

-- a parallel scan copies the values of internal pages to share out runs
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_index_scan_size = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT fpb_explain('SELECT sum(id) FROM us WHERE u > ''a1a2a3a4-a5a6-4000-0000-000000000000''') ~
	'Parallel Index Scan' AS parallel;
SELECT (SELECT sum(id) FROM us WHERE u > 'a1a2a3a4-a5a6-4000-0000-000000000000') =
	   (SELECT sum(id) FROM us_bt WHERE u > 'a1a2a3a4-a5a6-4000-0000-000000000000') AS same_sum;
SELECT (SELECT count(*) FROM us WHERE u < 'a1a2a3a4-a5a6-c000-0000-000000000000') =
	   (SELECT count(*) FROM us_bt WHERE u < 'a1a2a3a4-a5a6-c000-0000-000000000000') AS same_count;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_index_scan_size;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- a unique index: the duplicate is found by its tail; ON CONFLICT
CREATE TABLE us_k (u uuid, v int4);
CREATE UNIQUE INDEX us_k_u ON us_k USING fpbtree (u);
INSERT INTO us_k SELECT ('a1a2a3a4a5a6' || left(md5(g::text), 20))::uuid, g
FROM generate_series(1, 5000) g;
INSERT INTO us_k VALUES (('a1a2a3a4a5a6' || left(md5('17'), 20))::uuid, 0);
INSERT INTO us_k VALUES (('a1a2a3a4a5a6' || left(md5('5001'), 20))::uuid, 0)
	ON CONFLICT (u) DO NOTHING;
INSERT INTO us_k VALUES (('a1a2a3a4a5a6' || left(md5('17'), 20))::uuid, 0)
	ON CONFLICT (u) DO UPDATE SET v = -1;
SELECT count(*), count(DISTINCT u), sum(v) FROM us_k;
SELECT fpbtree_check('us_k_u', true);
DROP TABLE us_k;

-- a parallel build gives the serial build's index
SELECT fpb_parallel_build_same('us_u');

-- an index built without the flag (as before it, by the developer setting
-- that builds without format flags) keeps whole values and answers alike;
-- a REINDEX adds the flag
SET fpbtree.debug_codepoint_prefix_const = on;
CREATE INDEX us_u_old ON us USING fpbtree (u);
RESET fpbtree.debug_codepoint_prefix_const;
SELECT f.version, f.format, f.reindex_adds FROM fpbtree_format('us_u_old') f;
SELECT pg_relation_size('us_u_old') > pg_relation_size('us_u') AS larger;
DROP INDEX us_u;
INSERT INTO us SELECT g, fpb_uuid_mix(g) FROM generate_series(90001, 95000) g;
INSERT INTO us_bt SELECT g, fpb_uuid_mix(g) FROM generate_series(90001, 95000) g;
SELECT * FROM us_all() WHERE r <> 'same';
SELECT fpbtree_check('us_u_old', true);
REINDEX INDEX us_u_old;
SELECT f.format, f.reindex_adds FROM fpbtree_format('us_u_old') f;
SELECT * FROM us_all() WHERE r <> 'same';
SELECT fpbtree_check('us_u_old', true);

DROP FUNCTION us_all();
DROP TABLE us, us_bt;
RESET enable_seqscan;
RESET enable_bitmapscan;
