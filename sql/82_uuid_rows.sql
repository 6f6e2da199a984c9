--
-- 82_uuid_rows: packed rows that leave a leading uuid's prefix bytes out
-- (README "Packed rows", Prefix bytes left out).  In a multi-column index
-- whose first column is a uuid, ascending with NULLs last, the prefix of a
-- row is that uuid's first 6 bytes, so an index built since the format flag
-- (fpbtree_format: uuid_prefix_rows) stores its packed rows without them.
-- Rows compare by the rest only where prefixes tie; index-only scans,
-- filters on the first column, kept copies and fpbtree_check get them back
-- from the key.  The data shares prefixes and differs after them, shares
-- tails and differs in the prefix, repeats, has extremes and NULLs, in
-- either column.  Everything answers as btree.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all
SET enable_seqscan = off;
SET enable_bitmapscan = off;

-- ts repeats (rows equal in both columns share runs), n is NULL at times
CREATE TABLE ur (id int4, u uuid, ts timestamptz, n int8, t text)
	WITH (autovacuum_enabled = off);
INSERT INTO ur SELECT g, fpb_uuid_mix(g),
	'2026-01-01'::timestamptz + (g % 50) * interval '1 hour',
	CASE WHEN g % 89 = 0 THEN NULL ELSE g % 1000 END,
	CASE WHEN g % 83 = 0 THEN NULL ELSE 'k' || (g % 37) END
FROM generate_series(1, 60000) g ORDER BY hashint4(g);
CREATE TABLE ur_bt AS SELECT * FROM ur;
CREATE INDEX ur_ut ON ur USING fpbtree (u, ts);
CREATE INDEX ur_un ON ur USING fpbtree (u, n) INCLUDE (id);
CREATE INDEX ur_ux ON ur USING fpbtree (u, t);
CREATE INDEX ur_nu ON ur USING fpbtree (n, u);
CREATE INDEX ur_ud ON ur USING fpbtree (u DESC, ts);
CREATE INDEX ur_bt_ut ON ur_bt (u, ts);
CREATE INDEX ur_bt_un ON ur_bt (u, n) INCLUDE (id);
CREATE INDEX ur_bt_ux ON ur_bt (u, t);
CREATE INDEX ur_bt_nu ON ur_bt (n, u);
CREATE INDEX ur_bt_ud ON ur_bt (u DESC, ts);
VACUUM ANALYZE ur, ur_bt;

-- the format: only a leading ascending uuid with NULLs last leaves bytes out
SELECT i, f.format, f.reindex_adds
FROM unnest(ARRAY['ur_ut', 'ur_un', 'ur_ux', 'ur_nu', 'ur_ud']) i,
	 fpbtree_format(i::regclass) f;

-- the size against btree's, 2 million random (uuid, timestamptz) rows
-- measured 1.25 times before the flag: here below 1.1 times
CREATE TABLE ur_s (u uuid, ts timestamptz);
INSERT INTO ur_s SELECT md5(g::text)::uuid, '2026-01-01'::timestamptz + g * interval '1 s'
FROM generate_series(1, 100000) g;
CREATE INDEX ur_s_f ON ur_s USING fpbtree (u, ts);
CREATE INDEX ur_s_b ON ur_s (u, ts);
SELECT pg_relation_size('ur_s_f') <= 1.1 * pg_relation_size('ur_s_b') AS built_near_btree_size;
-- grown by random inserts
TRUNCATE ur_s;
INSERT INTO ur_s SELECT md5(g::text)::uuid, '2026-01-01'::timestamptz + g * interval '1 s'
FROM generate_series(1, 100000) g;
SELECT pg_relation_size('ur_s_f') <= 1.1 * pg_relation_size('ur_s_b') AS grown_near_btree_size,
	   fpbtree_check('ur_s_f', true);
DROP TABLE ur_s;

-- the same answers as btree's: index-only scans return each value whole,
-- ordered scans both ways, bounds inside the shared prefix, array keys on
-- the first column (filters that read it), row comparisons
CREATE FUNCTION ur_all() RETURNS TABLE (q text, r text) LANGUAGE sql AS $$
	SELECT q, fpb_same_as(q, 'ur', 'ur_bt') FROM unnest(ARRAY[
		'SELECT u, ts FROM ur ORDER BY u, ts',
		'SELECT u, ts FROM ur ORDER BY u DESC NULLS FIRST, ts DESC',
		'SELECT u, n, id FROM ur WHERE u IS NOT NULL ORDER BY u, n, id',
		'SELECT u, t FROM ur WHERE u > ''a1a2a3a4-a5a6-0000-0000-000000000000'' ORDER BY u, t LIMIT 3000',
		'SELECT n, u FROM ur WHERE n BETWEEN 10 AND 20 ORDER BY n, u',
		'SELECT u, ts FROM ur WHERE u < ''a1a2a3a4-a5a6-ffff-0000-000000000000'' ORDER BY u DESC, ts DESC LIMIT 2000',
		'SELECT count(*) FROM ur WHERE u IS NULL',
		'SELECT u, ts FROM ur WHERE u >= ''a1a2a3a4-a5a6-8000-0000-000000000000'' AND u < ''a1a2a3a4-a5a7-0000-0000-000000000000'' ORDER BY u, ts',
		'SELECT ts FROM ur WHERE u = ''a1a2a3a4-a5a6-0000-0000-000000000000'' AND ts > ''2026-01-01 10:00+00'' ORDER BY ts DESC LIMIT 10',
		'SELECT ts FROM ur WHERE u = ''ffffffff-ffff-ffff-ffff-ffffffffffff'' ORDER BY ts',
		'SELECT id FROM ur WHERE u = ''00000000-0000-0000-0000-000000000000'' AND n < 500 ORDER BY id',
		'SELECT ts, id FROM ur WHERE u = md5(''17'')::uuid ORDER BY ts DESC, id',
		'SELECT u, ts FROM ur WHERE u = ANY (ARRAY[''a1a2a3a4a5a6'' || left(md5(''5''), 20), ''a1a2a3a4a5a6'' || left(md5(''10''), 20), left(md5(''11''), 12) || ''b1b2b3b4b5b6b7b8b9ba'', left(md5(''16''), 12) || ''b1b2b3b4b5b6b7b8b9ba'', md5(''7''), ''a1a2a3a4a5a6'' || left(md5(''nothing''), 20)]::uuid[]) ORDER BY u, ts',
		'SELECT u, ts FROM ur WHERE u = ANY (ARRAY[md5(''1''), md5(''2''), md5(''299''), ''a1a2a3a4a5a6'' || repeat(''f'', 20)]::uuid[]) AND ts >= ''2026-01-02 00:00+00'' ORDER BY u DESC, ts DESC',
		'SELECT u, n FROM ur WHERE u = ANY (ARRAY[left(md5(''11''), 12) || ''b1b2b3b4b5b6b7b8b9ba'', left(md5(''21''), 12) || ''b1b2b3b4b5b6b7b8b9ba'']::uuid[]) AND n = ANY (ARRAY[11, 21, 31]) ORDER BY u, n',
		'SELECT u, ts FROM ur WHERE (u, ts) > (''a1a2a3a4-a5a6-8000-0000-000000000000'', ''2026-01-01 05:00+00'') ORDER BY u, ts LIMIT 400',
		'SELECT u, ts FROM ur WHERE (u, ts) <= (md5(''150'')::uuid, ''2026-01-01 05:00+00'') ORDER BY u DESC, ts DESC LIMIT 400',
		'SELECT u, t FROM ur WHERE u = ''a1a2a3a4-a5a6-0000-0000-000000000000'' AND t LIKE ''k1%'' ORDER BY u, t',
		'SELECT id FROM ur WHERE u BETWEEN md5(''100'')::uuid AND md5(''200'')::uuid ORDER BY id'
	]) q;
$$;
SELECT * FROM ur_all() WHERE r <> 'same';
SELECT count(*) AS queries FROM ur_all();
SELECT i, fpbtree_check(i::regclass, true)
FROM unnest(ARRAY['ur_ut', 'ur_un', 'ur_ux', 'ur_nu', 'ur_ud']) i;

-- a cursor that reads both ways through the shared prefix
BEGIN;
DECLARE cur SCROLL CURSOR FOR
	SELECT u, ts FROM ur WHERE u >= 'a1a2a3a4-a5a6-0000-0000-000000000000' ORDER BY u, ts;
FETCH 2 FROM cur;
MOVE FORWARD 5000 IN cur;
FETCH BACKWARD 2 FROM cur;
MOVE FORWARD 100000 IN cur;
FETCH BACKWARD 1 FROM cur;
COMMIT;

-- a merge join marks and restores positions among equal rows
SET enable_hashjoin = off;
SET enable_nestloop = off;
SELECT fpb_explain('SELECT count(*) FROM ur a JOIN ur b USING (u, ts)') ~ 'Merge Join' AS merge;
SELECT (SELECT count(*) FROM ur a JOIN ur b USING (u, ts)) =
	   (SELECT count(*) FROM ur_bt a JOIN ur_bt b USING (u, ts)) AS same_join;
RESET enable_hashjoin;
RESET enable_nestloop;

-- inserts into runs, into the shared prefix and elsewhere (splits whose
-- groups end where first columns differ), deletes, VACUUM
INSERT INTO ur SELECT g, fpb_uuid_mix(g),
	'2026-01-01'::timestamptz + (g % 50) * interval '1 hour', g % 1000, 'k' || (g % 37)
FROM generate_series(60001, 90000) g;
INSERT INTO ur SELECT -g, ('a1a2a3a4a5a6' || left(md5((g % 40)::text), 20))::uuid,
	'2026-02-01'::timestamptz - g * interval '1 min', g, 'x' || g
FROM generate_series(1, 6000) g;
INSERT INTO ur_bt SELECT * FROM ur WHERE id > 60000 OR id < 0;
DELETE FROM ur WHERE id % 7 = 3 OR id BETWEEN 20000 AND 26000;
DELETE FROM ur_bt WHERE id % 7 = 3 OR id BETWEEN 20000 AND 26000;
VACUUM ur;
VACUUM ur_bt;
SELECT * FROM ur_all() WHERE r <> 'same';
SELECT i, fpbtree_check(i::regclass, true)
FROM unnest(ARRAY['ur_ut', 'ur_un', 'ur_ux', 'ur_nu', 'ur_ud']) i;

-- a parallel scan copies the values of internal pages to share them out
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_index_scan_size = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT fpb_explain('SELECT sum(id) FROM ur WHERE u > ''a1a2a3a4-a5a6-4000-0000-000000000000''') ~
	'Parallel Index' AS parallel;
SELECT (SELECT sum(id) FROM ur WHERE u > 'a1a2a3a4-a5a6-4000-0000-000000000000') =
	   (SELECT sum(id) FROM ur_bt WHERE u > 'a1a2a3a4-a5a6-4000-0000-000000000000') AS same_sum;
SELECT (SELECT sum(extract(epoch FROM ts)) FROM ur WHERE u < 'a1a2a3a4-a5a6-c000-0000-000000000000') =
	   (SELECT sum(extract(epoch FROM ts)) FROM ur_bt WHERE u < 'a1a2a3a4-a5a6-c000-0000-000000000000') AS same_ios_sum;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_index_scan_size;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- a unique index: the duplicate is found by its tail, and the error names
-- the stored row's key whole; ON CONFLICT
CREATE TABLE ur_k (u uuid, n int8, v int4);
CREATE UNIQUE INDEX ur_k_un ON ur_k USING fpbtree (u, n);
INSERT INTO ur_k SELECT ('a1a2a3a4a5a6' || left(md5((g % 2500)::text), 20))::uuid, g / 2500, g
FROM generate_series(1, 4999) g;
INSERT INTO ur_k VALUES (('a1a2a3a4a5a6' || left(md5('17'), 20))::uuid, 0, 0);
INSERT INTO ur_k VALUES (('a1a2a3a4a5a6' || left(md5('17'), 20))::uuid, 2, 0);
INSERT INTO ur_k VALUES (('a1a2a3a4a5a6' || left(md5('17'), 20))::uuid, 1, 0)
	ON CONFLICT (u, n) DO NOTHING;
INSERT INTO ur_k VALUES (('a1a2a3a4a5a6' || left(md5('17'), 20))::uuid, 0, 0)
	ON CONFLICT (u, n) DO UPDATE SET v = -1;
SELECT count(*), count(DISTINCT (u, n)), sum(v) FROM ur_k;
SELECT fpbtree_check('ur_k_un', true);
DROP TABLE ur_k;

-- a parallel build gives the serial build's index
SELECT fpb_parallel_build_same('ur_ut');

-- an index built without the flag (the developer setting that builds
-- without format flags) keeps whole rows and answers alike; a REINDEX adds
-- the flag
SET fpbtree.debug_codepoint_prefix_const = on;
CREATE INDEX ur_ut_old ON ur USING fpbtree (u, ts);
RESET fpbtree.debug_codepoint_prefix_const;
SELECT f.format, f.reindex_adds FROM fpbtree_format('ur_ut_old') f;
SELECT pg_relation_size('ur_ut_old') > pg_relation_size('ur_ut') AS larger;
DROP INDEX ur_ut;
INSERT INTO ur SELECT g, fpb_uuid_mix(g), now(), g, 'y' FROM generate_series(90001, 95000) g;
INSERT INTO ur_bt SELECT * FROM ur WHERE id > 90000;
SELECT * FROM ur_all() WHERE r <> 'same';
SELECT fpbtree_check('ur_ut_old', true);
REINDEX INDEX ur_ut_old;
SELECT f.format, f.reindex_adds FROM fpbtree_format('ur_ut_old') f;
SELECT * FROM ur_all() WHERE r <> 'same';
SELECT fpbtree_check('ur_ut_old', true);

DROP FUNCTION ur_all();
DROP TABLE ur, ur_bt;
RESET enable_seqscan;
RESET enable_bitmapscan;
