--
-- 83_group_splits: leaf splits of multi-column indexes that grow at the
-- ends of many groups (README "Splits where inserts land").  Rows of many
-- tenants arrive in time order, each appended to its tenant's group of
-- (tenant, time): a page holds the ends of several groups, and a split
-- must leave one in each half, or the half without one stays as it is;
-- groups that no longer grow count as no such place.  Before the rule such
-- indexes grew to 1.37 (int8), 1.36 (uuid) and 1.46 (text) times btree's
-- size; the answers and fpbtree_check are unchanged.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all
SET enable_seqscan = off;
SET enable_bitmapscan = off;

CREATE TABLE gs (id int4, a int8, u uuid, t text, ts timestamptz)
	WITH (autovacuum_enabled = off);
CREATE TABLE gs_bt (LIKE gs) WITH (autovacuum_enabled = off);
CREATE INDEX gs_ak ON gs USING fpbtree (a, ts);
CREATE INDEX gs_uk ON gs USING fpbtree (u, ts);
CREATE INDEX gs_tk ON gs USING fpbtree (t, ts);
CREATE INDEX gs_ad ON gs USING fpbtree (a, id DESC);
CREATE INDEX gs_bt_ak ON gs_bt (a, ts);
CREATE INDEX gs_bt_uk ON gs_bt (u, ts);
CREATE INDEX gs_bt_tk ON gs_bt (t, ts);
CREATE INDEX gs_bt_ad ON gs_bt (a, id DESC);

-- 1,024 tenants, about 100 rows each, each row to a random tenant
INSERT INTO gs SELECT g, hashint4(g) & 1023, md5((hashint4(g) & 1023)::text)::uuid,
	'customer-' || (hashint4(g) & 1023),
	'2026-01-01'::timestamptz + g * interval '1 s'
FROM generate_series(1, 100000) g;
INSERT INTO gs_bt SELECT * FROM gs;

SELECT pg_relation_size('gs_ak') <= 1.15 * pg_relation_size('gs_bt_ak') AS int8_near_btree,
	   pg_relation_size('gs_uk') <= 1.15 * pg_relation_size('gs_bt_uk') AS uuid_near_btree,
	   pg_relation_size('gs_tk') <= 1.25 * pg_relation_size('gs_bt_tk') AS text_near_btree;

-- the same answers as btree's
CREATE FUNCTION gs_all() RETURNS TABLE (q text, r text) LANGUAGE sql AS $$
	SELECT q, fpb_same_as(q, 'gs', 'gs_bt') FROM unnest(ARRAY[
		'SELECT a, ts FROM gs ORDER BY a, ts',
		'SELECT u, ts FROM gs ORDER BY u DESC, ts DESC',
		'SELECT t, ts FROM gs WHERE t > ''customer-5'' ORDER BY t, ts',
		'SELECT a, id FROM gs ORDER BY a, id DESC',
		'SELECT id FROM gs WHERE a = 77 ORDER BY ts DESC LIMIT 10',
		'SELECT id FROM gs WHERE u = md5(''77'')::uuid AND ts > ''2026-01-01 12:00+00'' ORDER BY ts',
		'SELECT id FROM gs WHERE t = ''customer-77'' ORDER BY ts DESC LIMIT 20',
		'SELECT id FROM gs WHERE a BETWEEN 100 AND 110 AND id > 50000 ORDER BY a, id DESC'
	]) q;
$$;
SELECT * FROM gs_all() WHERE r <> 'same';
SELECT count(*) AS queries FROM gs_all();
SELECT i, fpbtree_check(i::regclass, true)
FROM unnest(ARRAY['gs_ak', 'gs_uk', 'gs_tk', 'gs_ad']) i;

-- later rows, deletes and VACUUM keep them sound
INSERT INTO gs SELECT g, hashint4(g) & 1023, md5((hashint4(g) & 1023)::text)::uuid,
	'customer-' || (hashint4(g) & 1023),
	'2026-01-01'::timestamptz + g * interval '1 s'
FROM generate_series(100001, 130000) g;
INSERT INTO gs_bt SELECT * FROM gs WHERE id > 100000;
DELETE FROM gs WHERE id % 3 = 0;
DELETE FROM gs_bt WHERE id % 3 = 0;
VACUUM gs;
VACUUM gs_bt;
SELECT * FROM gs_all() WHERE r <> 'same';
SELECT i, fpbtree_check(i::regclass, true)
FROM unnest(ARRAY['gs_ak', 'gs_uk', 'gs_tk', 'gs_ad']) i;

DROP FUNCTION gs_all();
DROP TABLE gs, gs_bt;

-- groups that no longer grow are no places of inserts: 10,000 tenants of 4
-- rows, indexed, then rows to every 100th tenant in turn.  Counted as
-- places, they made the index 1.22 times btree's (the halves without the
-- growing tenant stayed half empty); the rule of the new entry's group
-- alone gave 1.03.
CREATE TABLE gd (id int4, a int8, ts timestamptz) WITH (autovacuum_enabled = off);
INSERT INTO gd SELECT g, g % 10000, '2025-01-01'::timestamptz + g * interval '1 s'
FROM generate_series(1, 40000) g;
CREATE TABLE gd_bt AS SELECT * FROM gd;
CREATE INDEX gd_i ON gd USING fpbtree (a, ts);
CREATE INDEX gd_bt_i ON gd_bt (a, ts);
INSERT INTO gd SELECT 40000 + g, (g % 100) * 100 + 50,
	'2026-01-01'::timestamptz + g * interval '1 s'
FROM generate_series(1, 50000) g;
INSERT INTO gd_bt SELECT * FROM gd WHERE id > 40000;
SELECT pg_relation_size('gd_i') <= 1.1 * pg_relation_size('gd_bt_i') AS dormant_near_btree,
	   fpbtree_check('gd_i', true);
SELECT fpb_same_as('SELECT a, ts FROM gd WHERE a BETWEEN 1000 AND 3000 ORDER BY a, ts', 'gd', 'gd_bt') AS same;
DROP TABLE gd, gd_bt;

-- the same when the new rows fill heap space VACUUM freed, below the
-- dormant tenants' rows: their later blocks made them look as if their
-- rows still arrived (1.27 times btree's size at 4be400c)
CREATE TABLE gr (id int4, a int8, ts timestamptz) WITH (autovacuum_enabled = off);
INSERT INTO gr SELECT -g, -1, '2024-01-01' FROM generate_series(1, 60000) g;
INSERT INTO gr SELECT g, g % 10000, '2025-01-01'::timestamptz + g * interval '1 s'
FROM generate_series(1, 40000) g;
DELETE FROM gr WHERE a = -1;
VACUUM gr;
CREATE TABLE gr_bt AS SELECT * FROM gr;
CREATE INDEX gr_i ON gr USING fpbtree (a, ts);
CREATE INDEX gr_bt_i ON gr_bt (a, ts);
INSERT INTO gr SELECT 40000 + g, (g % 100) * 100 + 50,
	'2026-01-01'::timestamptz + g * interval '1 s'
FROM generate_series(1, 50000) g;
INSERT INTO gr_bt SELECT * FROM gr WHERE id > 40000;
-- the new rows did go below the old ones
SELECT max((ctid::text::point)[0]) FILTER (WHERE id > 40000) <
	   min((ctid::text::point)[0]) FILTER (WHERE id > 0 AND id <= 40000) AS reused
FROM gr;
SELECT pg_relation_size('gr_i') <= 1.15 * pg_relation_size('gr_bt_i') AS reused_near_btree,
	   fpbtree_check('gr_i', true);
SELECT fpb_same_as('SELECT a, ts FROM gr WHERE a BETWEEN 1000 AND 3000 ORDER BY a DESC, ts DESC', 'gr', 'gr_bt') AS same;
DROP TABLE gr, gr_bt;
RESET enable_seqscan;
RESET enable_bitmapscan;
