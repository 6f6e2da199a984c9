--
-- 86_domain_rows: packed rows led by a domain over int8, int4, date,
-- timestamptz, timestamp or uuid leave the value (a timestamp's top bytes,
-- a uuid's first ones) to the prefix as rows led by the type itself do
-- (84_int_rows, 85_timestamp_rows; README "Packed rows", Leading domains).
-- The readers tell the bytes left out by the column's type, so the
-- comparison's descriptor names the base type; the metapage flag
-- domain_prefix_rows makes a build before it refuse such an index instead
-- of misreading it.  Everything answers as btree.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all
SET enable_seqscan = off;
SET enable_bitmapscan = off;

CREATE DOMAIN dr_i8 AS int8;
CREATE DOMAIN dr_tenant AS dr_i8 CHECK (VALUE > -10000000000000);
CREATE DOMAIN dr_i4 AS int4;
CREATE DOMAIN dr_date AS date;
CREATE DOMAIN dr_tstz AS timestamptz;
CREATE DOMAIN dr_ts AS timestamp;
CREATE DOMAIN dr_uuid AS uuid;
CREATE DOMAIN dr_text AS text;

-- keys on either side of 2^41 (2199023255552), extremes, runs, NULLs
CREATE TABLE dr (id int4, k dr_i8, t dr_tenant, i dr_i4, d dr_date,
				 ts dr_tstz, lt dr_ts, u dr_uuid, x dr_text)
	WITH (autovacuum_enabled = off);
INSERT INTO dr SELECT g,
	CASE WHEN g % 97 = 0 THEN NULL
		 WHEN g % 89 = 0 THEN 9223372036854775807
		 WHEN g % 3 = 0 THEN 2199023255552 + g % 13 - 6
		 ELSE g % 500 END,
	CASE WHEN g % 83 = 0 THEN NULL ELSE g % 300 END,
	CASE WHEN g % 79 = 0 THEN -2147483648 ELSE g % 700 - 350 END,
	CASE WHEN g % 53 = 0 THEN 'infinity'::date ELSE date '2020-01-01' + g % 900 END,
	CASE WHEN g % 71 = 0 THEN NULL WHEN g % 67 = 0 THEN '-infinity'
		 ELSE '2026-01-01'::timestamptz + (g % 4000) * interval '37 ms' END,
	'2026-01-01'::timestamp + (g % 40) * interval '65.536 ms',
	CASE WHEN g % 61 = 0 THEN NULL
		 ELSE (lpad(to_hex(g % 7), 8, '0') || '-0000-4000-8000-' ||
			   lpad(to_hex(hashint4(g) & 65535), 12, '0'))::uuid END,
	'v' || (g % 31)
FROM generate_series(1, 40000) g ORDER BY hashint4(g);
CREATE TABLE dr_bt AS SELECT * FROM dr;
CREATE INDEX dr_kts ON dr USING fpbtree (k, ts);
CREATE INDEX dr_tid ON dr USING fpbtree (t, id);
CREATE INDEX dr_ik ON dr USING fpbtree (i, k) INCLUDE (id);
CREATE INDEX dr_dk ON dr USING fpbtree (d, k);
CREATE INDEX dr_tsid ON dr USING fpbtree (ts, id);
CREATE INDEX dr_tsdesc ON dr USING fpbtree (ts DESC);
CREATE INDEX dr_ltid ON dr USING fpbtree (lt, id);
CREATE INDEX dr_uid ON dr USING fpbtree (u, id);
CREATE INDEX dr_xid ON dr USING fpbtree (x, id);
CREATE INDEX dr_bt_kts ON dr_bt (k, ts);
CREATE INDEX dr_bt_tid ON dr_bt (t, id);
CREATE INDEX dr_bt_ik ON dr_bt (i, k) INCLUDE (id);
CREATE INDEX dr_bt_dk ON dr_bt (d, k);
CREATE INDEX dr_bt_tsid ON dr_bt (ts, id);
CREATE INDEX dr_bt_tsdesc ON dr_bt (ts DESC);
CREATE INDEX dr_bt_ltid ON dr_bt (lt, id);
CREATE INDEX dr_bt_uid ON dr_bt (u, id);
CREATE INDEX dr_bt_xid ON dr_bt (x, id);
VACUUM ANALYZE dr, dr_bt;

-- the format: the type's flag and domain_prefix_rows (a text domain has
-- neither)
SELECT i, f.format, f.reindex_adds
FROM unnest(ARRAY['dr_kts', 'dr_tid', 'dr_ik', 'dr_dk', 'dr_tsid',
				  'dr_tsdesc', 'dr_ltid', 'dr_uid', 'dr_xid']) i,
	 fpbtree_format(i::regclass) f;

-- as small as the same index on the type itself: before the flag, 300,000
-- (int8 domain, timestamptz) rows took 1,432 pages against 1,049, and
-- (timestamptz domain, int8) ones 1,432 against 1,180
CREATE TABLE dr_s (a dr_i8, b timestamptz, c int8, e dr_tstz,
				   u dr_uuid, v uuid);
INSERT INTO dr_s SELECT g / 100, '2026-01-01'::timestamptz + g * interval '37 ms',
	g / 100, '2026-01-01'::timestamptz + g * interval '37 ms',
	md5(g::text)::uuid, md5(g::text)::uuid
FROM generate_series(1, 100000) g;
CREATE INDEX dr_s_dom ON dr_s USING fpbtree (a, b);
CREATE INDEX dr_s_base ON dr_s USING fpbtree (c, b);
CREATE INDEX dr_s_tdom ON dr_s USING fpbtree (e, c);
CREATE INDEX dr_s_tbase ON dr_s USING fpbtree (b, c);
CREATE INDEX dr_s_udom ON dr_s USING fpbtree (u, c);
CREATE INDEX dr_s_ubase ON dr_s USING fpbtree (v, c);
SELECT pg_relation_size('dr_s_dom') = pg_relation_size('dr_s_base') AS int8_domain_size,
	   pg_relation_size('dr_s_tdom') = pg_relation_size('dr_s_tbase') AS timestamptz_domain_size,
	   pg_relation_size('dr_s_udom') = pg_relation_size('dr_s_ubase') AS uuid_domain_size;
SELECT f.format FROM fpbtree_format('dr_s_tdom') f;
DROP TABLE dr_s;

-- the same answers as btree's: index-only scans return each value whole,
-- both directions, bounds across 2^41, array keys, row comparisons,
-- cross-type bounds
CREATE FUNCTION dr_all() RETURNS TABLE (q text, r text) LANGUAGE sql AS $$
	SELECT q, fpb_same_as(q, 'dr', 'dr_bt') FROM unnest(ARRAY[
		'SELECT k, ts FROM dr ORDER BY k, ts',
		'SELECT k, ts FROM dr ORDER BY k DESC, ts DESC',
		'SELECT k, ts FROM dr WHERE k BETWEEN 2199023255545 AND 2199023255560 ORDER BY k, ts',
		'SELECT ts FROM dr WHERE k = 2199023255551 ORDER BY ts',
		'SELECT ts FROM dr WHERE k = 2199023255552 ORDER BY ts DESC',
		'SELECT k, ts FROM dr WHERE k = ANY (ARRAY[0, 17, 2199023255551, 2199023255553, 9223372036854775807]) ORDER BY k, ts',
		'SELECT t, id FROM dr WHERE t < 40 ORDER BY t, id',
		'SELECT t, id FROM dr WHERE t IS NULL ORDER BY id',
		'SELECT i, k, id FROM dr WHERE i >= -350 ORDER BY i, k, id',
		'SELECT i, k FROM dr WHERE i < -3000000000::int8',
		'SELECT d, k FROM dr WHERE d > ''2021-06-01'' ORDER BY d, k',
		'SELECT d, k FROM dr WHERE d = ''infinity'' ORDER BY d, k',
		'SELECT ts, id FROM dr ORDER BY ts, id',
		'SELECT ts, id FROM dr WHERE ts > ''2026-01-01 00:01+00'' ORDER BY ts, id LIMIT 500',
		'SELECT ts, id FROM dr WHERE (ts, id) > (''2026-01-01 00:01:10+00'', 20000) ORDER BY ts, id LIMIT 300',
		'SELECT ts FROM dr ORDER BY ts DESC NULLS FIRST',
		'SELECT ts FROM dr WHERE ts < ''2026-01-01 00:00:30+00'' ORDER BY ts DESC',
		'SELECT ts FROM dr WHERE ts >= date ''2026-01-01'' ORDER BY ts',
		'SELECT lt, id FROM dr ORDER BY lt, id',
		'SELECT lt, id FROM dr WHERE lt > ''2026-01-01 00:00:01'' ORDER BY lt DESC, id DESC',
		'SELECT u, id FROM dr ORDER BY u, id',
		'SELECT u, id FROM dr WHERE u > ''00000003-0000-4000-8000-000000000000'' AND u < ''00000004-0000-4000-8000-000000008000'' ORDER BY u, id',
		'SELECT x, id FROM dr WHERE x > ''v2'' ORDER BY x, id',
		'SELECT id FROM dr WHERE k BETWEEN 100 AND 120 ORDER BY id'
	]) q;
$$;
SELECT * FROM dr_all() WHERE r <> 'same';
SELECT count(*) AS queries FROM dr_all();
SELECT i, fpbtree_check(i::regclass, true)
FROM unnest(ARRAY['dr_kts', 'dr_tid', 'dr_ik', 'dr_dk', 'dr_tsid',
				  'dr_tsdesc', 'dr_ltid', 'dr_uid', 'dr_xid']) i;

-- inserts into runs and groups, deletes, VACUUM
INSERT INTO dr SELECT g, CASE WHEN g % 2 = 0 THEN g % 500
	ELSE 2199023255552 + g % 11 - 5 END, g % 300, g % 700 - 350,
	date '2020-01-01' + g % 900,
	'2026-01-01'::timestamptz + (g % 4000) * interval '37 ms',
	'2026-01-01'::timestamp + (g % 40) * interval '65.536 ms',
	(lpad(to_hex(g % 7), 8, '0') || '-0000-4000-8000-' ||
	 lpad(to_hex(hashint4(g) & 65535), 12, '0'))::uuid, 'v' || (g % 31)
FROM generate_series(40001, 60000) g ORDER BY hashint4(g);
INSERT INTO dr_bt SELECT * FROM dr WHERE id > 40000;
DELETE FROM dr WHERE id % 7 = 3 OR id BETWEEN 10000 AND 15000;
DELETE FROM dr_bt WHERE id % 7 = 3 OR id BETWEEN 10000 AND 15000;
VACUUM dr;
VACUUM dr_bt;
SELECT * FROM dr_all() WHERE r <> 'same';
SELECT i, fpbtree_check(i::regclass, true)
FROM unnest(ARRAY['dr_kts', 'dr_tid', 'dr_ik', 'dr_dk', 'dr_tsid',
				  'dr_tsdesc', 'dr_ltid', 'dr_uid', 'dr_xid']) i;

-- parallel scans and a parallel build
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_index_scan_size = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT fpb_explain('SELECT sum(id) FROM dr WHERE k > 100') ~ 'Parallel Index' AS parallel;
SELECT (SELECT sum(id) FROM dr WHERE k > 100) =
	   (SELECT sum(id) FROM dr_bt WHERE k > 100) AS same_sum;
SELECT (SELECT sum(extract(epoch FROM ts) + id) FROM dr WHERE ts > '2026-01-01 00:00:20+00') =
	   (SELECT sum(extract(epoch FROM ts) + id) FROM dr_bt WHERE ts > '2026-01-01 00:00:20+00') AS same_ios_sum;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_index_scan_size;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
SELECT fpb_parallel_build_same('dr_kts');

-- a unique index: the duplicate under a tied prefix, the error names the
-- stored row's key whole; ON CONFLICT
CREATE TABLE dr_k (k dr_i8, n int4, v int4);
CREATE UNIQUE INDEX dr_k_kn ON dr_k USING fpbtree (k, n);
INSERT INTO dr_k SELECT CASE WHEN g % 2 = 0 THEN g / 2 % 1250
	ELSE 2199023255548 + g % 8 END,
	CASE WHEN g % 2 = 0 THEN g / 2500 ELSE g / 8 END, g
FROM generate_series(1, 4999) g;
INSERT INTO dr_k VALUES (17, 0, 0);
INSERT INTO dr_k VALUES (2199023255551, 1, 0);
INSERT INTO dr_k VALUES (17, 1, 0) ON CONFLICT (k, n) DO NOTHING;
INSERT INTO dr_k VALUES (17, 0, 0) ON CONFLICT (k, n) DO UPDATE SET v = -1;
SELECT count(*), count(DISTINCT (k, n)), sum(v) FROM dr_k;
SELECT fpbtree_check('dr_k_kn', true);
DROP TABLE dr_k;

-- an index built without the flags keeps whole rows and answers alike; a
-- REINDEX adds them
SET fpbtree.debug_codepoint_prefix_const = on;
CREATE INDEX dr_kts_old ON dr USING fpbtree (k, ts);
RESET fpbtree.debug_codepoint_prefix_const;
SELECT f.format, f.reindex_adds FROM fpbtree_format('dr_kts_old') f;
DROP INDEX dr_kts;
INSERT INTO dr SELECT g, g % 600, g % 5, g, now()::date, now(), now()::timestamp,
	gen_random_uuid(), 'y'
FROM generate_series(60001, 63000) g;
INSERT INTO dr_bt SELECT * FROM dr WHERE id > 60000;
SELECT fpb_same_as('SELECT k, ts FROM dr WHERE k < 600 ORDER BY k, ts',
				   'dr', 'dr_bt') AS same_old, fpbtree_check('dr_kts_old', true);
REINDEX INDEX dr_kts_old;
SELECT f.format, f.reindex_adds FROM fpbtree_format('dr_kts_old') f;
SELECT * FROM dr_all() WHERE r <> 'same';
SELECT fpbtree_check('dr_kts_old', true);

-- ALTER COLUMN TYPE between a type and a domain over it keeps the index
-- (the same file): an index built on the type, whose rows left the value
-- out, read by the domain afterwards (index-only scans returned 0 for the
-- integers, other times for the timestamps, and fpbtree_check reported
-- corruption); and the other way
CREATE TABLE dr_alt (k int8, t timestamptz, u uuid, i dr_i4, n int4);
INSERT INTO dr_alt SELECT 2199023255551 + g % 3,
	'2026-01-01+00'::timestamptz + g * interval '1 s',
	md5((g % 50)::text)::uuid, g % 7, g
FROM generate_series(1, 3000) g;
CREATE TABLE dr_alt_bt AS SELECT * FROM dr_alt;
CREATE INDEX dr_alt_kn ON dr_alt USING fpbtree (k, n);
CREATE INDEX dr_alt_tn ON dr_alt USING fpbtree (t, n);
CREATE INDEX dr_alt_un ON dr_alt USING fpbtree (u, n);
CREATE INDEX dr_alt_in ON dr_alt USING fpbtree (i DESC, n);
CREATE TEMP TABLE dr_alt_files AS
	SELECT relname, relfilenode FROM pg_class WHERE relname LIKE 'dr\_alt\__n';
ALTER TABLE dr_alt ALTER COLUMN k TYPE dr_i8, ALTER COLUMN t TYPE dr_tstz,
	ALTER COLUMN u TYPE dr_uuid, ALTER COLUMN i TYPE int4;
VACUUM dr_alt;
SELECT count(*) AS kept_files FROM dr_alt_files f
	JOIN pg_class c USING (relname, relfilenode);
SELECT fpb_same_as(q, 'dr_alt', 'dr_alt_bt') FROM (VALUES
	('SELECT k, n FROM dr_alt WHERE k > 2199023255550 ORDER BY k, n'),
	('SELECT t, n FROM dr_alt ORDER BY t, n'),
	('SELECT u, n FROM dr_alt WHERE u > ''50000000-0000-0000-0000-000000000000'' ORDER BY u, n'),
	('SELECT i, n FROM dr_alt WHERE i < 5 ORDER BY i DESC, n')) v(q);
SELECT i, fpbtree_check(i::regclass, true)
FROM unnest(ARRAY['dr_alt_kn', 'dr_alt_tn', 'dr_alt_un', 'dr_alt_in']) i;
DROP TABLE dr_alt, dr_alt_bt;

-- fpbtree_format() of an index with eight format features: its array of
-- names had room for seven, and the eighth overwrote the stack (the
-- backend aborted)
CREATE TABLE dr_f (a int8, b text, c name, d inet);
CREATE INDEX dr_f_i ON dr_f USING fpbtree (a, b, c, d);
SELECT f.format FROM fpbtree_format('dr_f_i') f;
DROP TABLE dr_f;

DROP FUNCTION dr_all();
DROP TABLE dr, dr_bt;
DROP DOMAIN dr_tenant, dr_i8, dr_i4, dr_date, dr_tstz, dr_ts, dr_uuid, dr_text;
RESET enable_seqscan;
RESET enable_bitmapscan;
