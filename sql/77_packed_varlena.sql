--
-- 77_packed_varlena: multi-column rows with varlena values stored packed
-- (src/am/README.md, "Packed rows"; fpbtree_format: packed_varlena_rows).
-- A row whose varlena values each fit a one-byte header (at most 126 bytes
-- of data) and whose packed form takes at most 255 bytes is packed; any
-- other row of the same index stays an index tuple.  Rows on both sides of
-- each limit, NULLs, empty and non-ASCII values, compressed values, INCLUDE
-- columns that separators drop, index-only scans in both directions,
-- inserts, deletes and VACUUM, uniqueness, an index in the older format
-- beside, and the size against btree.  Each scan is compared with a
-- sequential scan, and fpbtree_check passes.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\i sql/include/pageinspect.sql
\set ECHO all

CREATE TABLE pv (id int4, a int4, t text COLLATE "C", n numeric,
				 v varchar(400), b bytea)
	WITH (autovacuum_enabled = off);
-- t: 126 and 127 bytes of data (the one-byte header's limit) and 3,000
-- (compressed in a row too long for a slot), besides short ones; v: long
-- enough with t that a row passes 255 bytes
INSERT INTO pv
SELECT g, g % 300,
	   CASE WHEN g % 31 = 0 THEN NULL
			WHEN g % 37 = 0 THEN ''
			WHEN g % 41 = 0 THEN repeat('x', 126)
			WHEN g % 43 = 0 THEN repeat('x', 127)
			WHEN g % 397 = 0 THEN repeat('long', 750)
			WHEN g % 47 = 0 THEN 'åäö€' || (g % 20)
			ELSE 't' || (g % 1000) END,
	   CASE WHEN g % 29 = 0 THEN NULL WHEN g % 53 = 0 THEN 'NaN'
			WHEN g % 59 = 0 THEN 1e100 ELSE (g % 700) / 7.0 END,
	   CASE WHEN g % 23 = 0 THEN NULL WHEN g % 61 = 0 THEN repeat('v', 120)
			ELSE 'v' || g % 50 END,
	   CASE WHEN g % 19 = 0 THEN NULL ELSE int4send(g % 90) END
FROM generate_series(1, 12000) g;

CREATE INDEX pv_at ON pv USING fpbtree (a, t);
CREATE INDEX pv_tn ON pv USING fpbtree (t DESC, n NULLS FIRST);
CREATE INDEX pv_nv ON pv USING fpbtree (n, v) INCLUDE (b, id);
-- the same columns in the older format: index tuples
SET fpbtree.debug_multi_prefix_first = on;
CREATE INDEX pv_at_old ON pv USING fpbtree (a, t);
RESET fpbtree.debug_multi_prefix_first;
SELECT relname, 'packed_varlena_rows' = ANY (format) AS packed_varlena,
	   reindex_adds
FROM pg_class, fpbtree_format(oid)
WHERE relname IN ('pv_at', 'pv_tn', 'pv_nv', 'pv_at_old') ORDER BY 1;
SELECT fpbtree_check('pv_at', true), fpbtree_check('pv_tn', true),
	   fpbtree_check('pv_nv', true), fpbtree_check('pv_at_old', true);

-- every column handed out by index-only scans, as a sequential scan has them
BEGIN;
DROP INDEX pv_at_old;
SELECT fpb_same('SELECT a, t FROM pv WHERE a BETWEEN 10 AND 40', 'pv_at');
SELECT fpb_same('SELECT a, t FROM pv WHERE a = 41 ORDER BY a, t', 'pv_at', true);
SELECT fpb_same('SELECT a, t FROM pv WHERE a = 43 AND t > ''x'' ORDER BY a DESC, t DESC', 'pv_at', true);
SELECT fpb_same('SELECT a, length(t) FROM pv WHERE a IN (0, 97, 299) AND t IS NULL', 'pv_at');
SELECT fpb_same('SELECT t, n FROM pv WHERE t >= ''x'' ORDER BY t DESC, n NULLS FIRST', 'pv_tn', true);
SELECT fpb_same('SELECT t, n FROM pv WHERE t = '''' ORDER BY t DESC, n NULLS FIRST', 'pv_tn', true);
SELECT fpb_same('SELECT t, n FROM pv WHERE t LIKE ''å%'' AND n > 50', 'pv_tn');
SELECT fpb_same('SELECT n, v, b, id FROM pv WHERE n > 90', 'pv_nv');
SELECT fpb_same('SELECT n, v, b, id FROM pv WHERE n = ''NaN'' ORDER BY n, v, id', 'pv_nv', true);
SELECT fpb_same('SELECT n, v, id FROM pv WHERE n IS NULL AND v = repeat(''v'', 120)', 'pv_nv');
-- backward, through a cursor
DECLARE pv_cur SCROLL CURSOR FOR
	SELECT a, t FROM pv WHERE a BETWEEN 41 AND 43 ORDER BY a, t;
FETCH LAST FROM pv_cur;
FETCH BACKWARD 2 FROM pv_cur;
FETCH ABSOLUTE 3 FROM pv_cur;
CLOSE pv_cur;
ROLLBACK;

-- more rows to split pages (some with long INCLUDE values: rows kept as
-- index tuples whose separators pack), then deletes and VACUUM
INSERT INTO pv (id, a, t, n, v, b)
SELECT g, g % 300, 'u' || (g % 777), g % 13,
	   CASE WHEN g % 5 = 0 THEN repeat('w', 200) ELSE 'w' || g % 9 END,
	   CASE WHEN g % 3 = 0 THEN convert_to(repeat('b', 300), 'UTF8') END
FROM generate_series(12001, 30000) g;
DELETE FROM pv WHERE id % 4 = 0;
VACUUM pv;
SELECT fpbtree_check('pv_at', true), fpbtree_check('pv_tn', true),
	   fpbtree_check('pv_nv', true), fpbtree_check('pv_at_old', true);
BEGIN;
DROP INDEX pv_at_old;
SELECT fpb_same('SELECT a, t FROM pv WHERE a BETWEEN 100 AND 120', 'pv_at');
SELECT fpb_same('SELECT t, n FROM pv WHERE t BETWEEN ''t5'' AND ''u1'' ORDER BY t DESC, n NULLS FIRST', 'pv_tn', true);
SELECT fpb_same('SELECT n, v, b, id FROM pv WHERE n BETWEEN 3 AND 5', 'pv_nv');
ROLLBACK;
-- the older index answers alike; REINDEX packs it
BEGIN;
DROP INDEX pv_at;
SELECT fpb_same('SELECT a, t FROM pv WHERE a BETWEEN 100 AND 120', 'pv_at_old');
ROLLBACK;
REINDEX INDEX pv_at_old;
SELECT 'packed_varlena_rows' = ANY (format) FROM fpbtree_format('pv_at_old');
SELECT fpbtree_check('pv_at_old', true);

-- unique: the duplicate found from a packed row, its message, upserts
CREATE TABLE pv_u (a int4, e text, n int4) WITH (autovacuum_enabled = off);
CREATE UNIQUE INDEX pv_u_ae ON pv_u USING fpbtree (a, e);
INSERT INTO pv_u SELECT g % 50, 'user' || g || '@example.com', 0
FROM generate_series(1, 5000) g;
INSERT INTO pv_u VALUES (7, 'user7@example.com', 0);
INSERT INTO pv_u VALUES (7, 'user7@example.com', 0)
	ON CONFLICT (a, e) DO UPDATE SET n = pv_u.n + 1;
INSERT INTO pv_u VALUES (7, 'user7@example.com', 0) ON CONFLICT DO NOTHING;
INSERT INTO pv_u VALUES (7, NULL, 0), (7, NULL, 0);
SELECT a, e, n FROM pv_u WHERE a = 7 AND (e = 'user7@example.com' OR e IS NULL)
ORDER BY e;
SELECT fpbtree_check('pv_u_ae', true);

-- rows that pack and rows that do not, on the same pages: a page's slots
-- are written tuples first, then packed rows, so no alignment pads them,
-- and a build (serial, parallel, full pages), a REINDEX and a rewrite
-- after deletions fit the room they were counted in
CREATE TABLE pv_mix (u uuid, t text) WITH (autovacuum_enabled = off);
INSERT INTO pv_mix SELECT md5(g::text)::uuid, repeat('x', 126 + g % 2)
FROM generate_series(1, 6000) g;
CREATE INDEX pv_mix_ut ON pv_mix USING fpbtree (u, t);
CREATE INDEX pv_mix_full ON pv_mix USING fpbtree (u, t) WITH (fillfactor = 100);
SELECT setseed(0.4);
CREATE TABLE pv_mix2 (a int, t text, i int8) WITH (autovacuum_enabled = off);
INSERT INTO pv_mix2 SELECT (random() * 48)::int,
	repeat(chr(97 + (random() * 2)::int),
		   CASE WHEN random() < 0.5 THEN 100 + (random() * 40)::int
				ELSE (random() * 10)::int END),
	(random() * 3)::int
FROM generate_series(1, 30000) g;
SET max_parallel_maintenance_workers = 1;
SET min_parallel_table_scan_size = 0;
CREATE INDEX pv_mix2_ati ON pv_mix2 USING fpbtree (a, t, i);
RESET max_parallel_maintenance_workers;
RESET min_parallel_table_scan_size;
CREATE INDEX pv_mix2_full ON pv_mix2 USING fpbtree (a, t, i) WITH (fillfactor = 100);
REINDEX TABLE pv_mix;
SELECT fpbtree_check('pv_mix_ut', true), fpbtree_check('pv_mix_full', true),
	   fpbtree_check('pv_mix2_ati', true), fpbtree_check('pv_mix2_full', true);
BEGIN;
DROP INDEX pv_mix2_full;
SELECT fpb_same('SELECT a, t, i FROM pv_mix2 WHERE a BETWEEN 20 AND 22', 'pv_mix2_ati');
ROLLBACK;
-- one leaf that took its index tuples first and its packed rows after
-- (written in that order, so without padding); key order would pad each
-- tuple after an odd-length row.  Its rewrites (removing a dead entry,
-- VACUUM) must still fit.
CREATE TABLE pv_dv (a int4, t text) WITH (autovacuum_enabled = off);
CREATE INDEX pv_dv_at ON pv_dv USING fpbtree (a, t);
INSERT INTO pv_dv SELECT 2 * g, repeat('x', 127) FROM generate_series(1, 34) g;
INSERT INTO pv_dv SELECT 2 * g + 1, 'bb' FROM generate_series(0, 93) g;
SELECT pages_per_level, entries FROM fpbtree_stats('pv_dv_at');
DELETE FROM pv_dv WHERE a = 1;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
SELECT count(*) FROM pv_dv WHERE a = 1;
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_indexonlyscan;
INSERT INTO pv_dv VALUES (1000, 'zz');
INSERT INTO pv_dv VALUES (1001, 'zz');
DELETE FROM pv_dv WHERE a = 3;
VACUUM pv_dv;
INSERT INTO pv_dv VALUES (1002, 'zz');
SELECT count(*), fpbtree_check('pv_dv_at', true) FROM pv_dv;

-- one column: values with a 4-byte varlena header (4-aligned slots) beside
-- ones with a 1-byte header, inserted in turns, so that each long value
-- lands where the short one before it leaves an aligned place; in key order
-- the long values lie together and each pads.  A rewrite after deletions
-- writes the values that stay in the order they lie in, each no lower than
-- before, so it never needs more room: in key order this leaf's values
-- took 5575 bytes after VACUUM removed one of 11, 103 more than the 5472
-- they had -- room a full leaf would not have had.
CREATE TABLE pv_1b4b (v text COLLATE "C") WITH (autovacuum_enabled = off);
CREATE INDEX pv_1b4b_v ON pv_1b4b USING fpbtree (v);
INSERT INTO pv_1b4b SELECT CASE WHEN g % 2 = 0 THEN 'a' || lpad(g::text, 9, '0')
	ELSE 'b' || lpad(g::text, 128, '0') END
FROM generate_series(0, 75) g ORDER BY g;
SELECT pg_relation_size('pv_1b4b_v') / 8192 AS pages;
CREATE TEMP TABLE pv_area AS
SELECT 8128 - upper AS area FROM page_header(get_raw_page('pv_1b4b_v', 1));
DELETE FROM pv_1b4b WHERE v = 'a000000074';
VACUUM pv_1b4b;
SELECT 8128 - p.upper < a.area AS shrank
FROM pv_area a, page_header(get_raw_page('pv_1b4b_v', 1)) p;
SELECT count(*), fpbtree_check('pv_1b4b_v', true) FROM pv_1b4b;

-- a build with both header kinds at fillfactor 100: the load counts each
-- long value's size rounded up to 4 and each short one's size, what the
-- layout of a page of new values (aligned ones first) takes; the high key,
-- which the load stores before the layout, counts as new too (written
-- first, where it lay, it padded the long values after it: "bulk-load page
-- 53 overflows")
CREATE TABLE pv_bo (v text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO pv_bo SELECT md5(g::text) || CASE WHEN g % 8 = 0
	THEN repeat('L', 95 + (hashint4(g) & 200)) ELSE repeat('s', hashint4(g) & 90) END
FROM generate_series(1, 5000) g;
CREATE INDEX pv_bo_v ON pv_bo USING fpbtree (v) WITH (fillfactor = 100);
DELETE FROM pv_bo WHERE hashint4(length(v)) & 7 = 0;
VACUUM pv_bo;
SELECT count(*), fpbtree_check('pv_bo_v', true) FROM pv_bo;

-- size: 200,000 rows of (int4, a short text), against the older format
-- and btree
CREATE TABLE pv_s (a int4, s text) WITH (autovacuum_enabled = off);
INSERT INTO pv_s SELECT (hashint8(g) & 65535)::int4, substr(md5(g::text), 1, 6)
FROM generate_series(1, 200000) g;
CREATE INDEX pv_s_f ON pv_s USING fpbtree (a, s);
SET fpbtree.debug_multi_prefix_first = on;
CREATE INDEX pv_s_old ON pv_s USING fpbtree (a, s);
RESET fpbtree.debug_multi_prefix_first;
CREATE INDEX pv_s_bt ON pv_s USING btree (a, s);
SELECT pg_relation_size('pv_s_f') < 0.8 * pg_relation_size('pv_s_old') AS smaller_than_tuples,
	   pg_relation_size('pv_s_f') < 1.1 * pg_relation_size('pv_s_bt') AS near_btree;
SELECT fpbtree_check('pv_s_f', true);

DROP TABLE pv, pv_u, pv_s, pv_mix, pv_mix2, pv_dv, pv_1b4b, pv_area, pv_bo;
