--
-- 69_wide_inserts: random inserts into wide indexes (uuid, text, a
-- multi-column key).  Values and nodes share a wide page, so a layout that
-- spreads the entries over every line the values leave (as a narrow page's
-- does) leaves no room for the next value, and the page was laid out again,
-- a WAL record of most of it, about every twenty inserts.  Records of
-- more than 2 kB beside their page images, per 1,000 rows inserted
-- (60,000 into 100,000): uuid 62 before, 15 now; text 61, now 0; the
-- multi-column key 38, now 1.  The results must stay those of a seq scan,
-- and the index no larger than it was (uuid 900 pages, text 1,414).
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

\set ECHO none
\i sql/include/walinspect.sql
\set ECHO all
-- the WAL read below must be flushed: each INSERT commits synchronously
SET synchronous_commit = on;

-- Generic records of the index with more than 2 kB of their own (page
-- images apart), per 1,000 rows inserted between two WAL positions
CREATE FUNCTION wi_large(l0 pg_lsn, l1 pg_lsn, nrows int) RETURNS numeric
LANGUAGE sql AS $$
	SELECT round(count(*) * 1000.0 / nrows)
	FROM pg_get_wal_records_info(l0, l1)
	WHERE resource_manager = 'Generic' AND record_length - fpi_length > 2000
$$;

CREATE TABLE wi_u (k uuid) WITH (autovacuum_enabled = off);
INSERT INTO wi_u SELECT md5(g::text)::uuid FROM generate_series(1, 100000) g;
CREATE INDEX wi_u_k ON wi_u USING fpbtree (k);
CHECKPOINT;
SELECT pg_current_wal_lsn() AS wi_l0 \gset
INSERT INTO wi_u SELECT md5(g::text)::uuid FROM generate_series(100001, 160000) g;
SELECT pg_current_wal_lsn() AS wi_l1 \gset
SELECT wi_large(:'wi_l0', :'wi_l1', 60000) < 25 AS few_rewrites;
SELECT fpbtree_check('wi_u_k', true);
SELECT pg_relation_size('wi_u_k') / 8192 < 950 AS size_ok;
SELECT fpb_same('SELECT k FROM wi_u WHERE k < ''10000000-0000-0000-0000-000000000000''', 'wi_u_k');
SELECT fpb_same('SELECT k FROM wi_u WHERE k BETWEEN ''7f000000-0000-0000-0000-000000000000'' AND ''80ffffff-0000-0000-0000-000000000000'' ORDER BY k DESC', 'wi_u_k', true);

CREATE TABLE wi_t (k text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO wi_t SELECT md5(g::text) FROM generate_series(1, 100000) g;
CREATE INDEX wi_t_k ON wi_t USING fpbtree (k);
CHECKPOINT;
SELECT pg_current_wal_lsn() AS wi_l0 \gset
INSERT INTO wi_t SELECT md5(g::text) FROM generate_series(100001, 160000) g;
SELECT pg_current_wal_lsn() AS wi_l1 \gset
SELECT wi_large(:'wi_l0', :'wi_l1', 60000) < 25 AS few_rewrites;
SELECT fpbtree_check('wi_t_k', true);
SELECT pg_relation_size('wi_t_k') / 8192 < 1480 AS size_ok;
SELECT fpb_same('SELECT k FROM wi_t WHERE k LIKE ''ab%''', 'wi_t_k');
SELECT fpb_same('SELECT k FROM wi_t WHERE k > ''fff'' ORDER BY k', 'wi_t_k', true);

-- multi-column rows, with runs of equal first columns and NULLs
CREATE TABLE wi_m (a int4, b int8) WITH (autovacuum_enabled = off);
INSERT INTO wi_m SELECT CASE WHEN g % 97 = 0 THEN NULL ELSE hashint4(g) % 5000 END,
	hashint8(g) FROM generate_series(1, 100000) g;
CREATE INDEX wi_m_ab ON wi_m USING fpbtree (a, b);
CHECKPOINT;
SELECT pg_current_wal_lsn() AS wi_l0 \gset
INSERT INTO wi_m SELECT CASE WHEN g % 97 = 0 THEN NULL ELSE hashint4(g) % 5000 END,
	hashint8(g) FROM generate_series(100001, 160000) g;
SELECT pg_current_wal_lsn() AS wi_l1 \gset
SELECT wi_large(:'wi_l0', :'wi_l1', 60000) < 25 AS few_rewrites;
SELECT fpbtree_check('wi_m_ab', true);
-- random keys in small groups: no run to split after (1,139 pages before
-- the wide layout rules, 1,165 with them)
SELECT pg_relation_size('wi_m_ab') / 8192 < 1200 AS size_ok;
SELECT fpb_same('SELECT a, b FROM wi_m WHERE a = 17', 'wi_m_ab');
SELECT fpb_same('SELECT a, b FROM wi_m WHERE a BETWEEN -3 AND 3 ORDER BY a, b', 'wi_m_ab', true);
SELECT fpb_same('SELECT a, b FROM wi_m WHERE a IS NULL AND b > 0', 'wi_m_ab');

-- then deletes, VACUUM (whose rewrite lays pages out the same way) and
-- more inserts into the emptied space
DELETE FROM wi_m WHERE b % 3 = 0;
VACUUM wi_m;
INSERT INTO wi_m SELECT hashint4(g) % 5000, hashint8(g) FROM generate_series(160001, 200000) g;
SELECT fpbtree_check('wi_m_ab', true);
SELECT fpb_same('SELECT a, b FROM wi_m WHERE a BETWEEN 100 AND 140', 'wi_m_ab');
SELECT fpb_same('SELECT count(*) FROM wi_m WHERE a >= 0', 'wi_m_ab');

-- Large values: a page holds a few of them.  Near full, a rewrite that
-- makes room for one more is still worth it, and entries that fit no
-- regular page may make a page of runs (one value each), denser than a
-- regular page.  Split instead, 2,142 random values of 1,400 bytes took
-- 1,532 pages and 6,000 of 500 bytes 726; now 1,127 and 679 (before the
-- wide layout rules 1,124 and 684; btree 1,015 and 670).
-- row g's value of len + 8 bytes: g, then incompressible hex digits
CREATE FUNCTION wi_long(g int, len int) RETURNS text LANGUAGE sql AS $$
	SELECT lpad(g::text, 8, '0') ||
		substr((SELECT string_agg(md5(g::text || 'x' || i::text), '')
				FROM generate_series(1, 44) i), 1, len)
$$;
CREATE TABLE wi_l (g int, k text COLLATE "C") WITH (autovacuum_enabled = off);
CREATE INDEX wi_l_k ON wi_l USING fpbtree (k);
INSERT INTO wi_l SELECT g, wi_long(g, 1392)
FROM generate_series(1, 2142) g ORDER BY hashint4(g);
SELECT pg_relation_size('wi_l_k') / 8192 < 1200 AS size_ok;
SELECT fpbtree_check('wi_l_k', true);
SELECT fpb_same('SELECT left(k, 8) FROM wi_l WHERE k > ''00001''', 'wi_l_k');
TRUNCATE wi_l;
INSERT INTO wi_l SELECT g, wi_long(g, 492)
FROM generate_series(1, 6000) g ORDER BY hashint4(g);
SELECT pg_relation_size('wi_l_k') / 8192 < 700 AS size_ok;
SELECT fpbtree_check('wi_l_k', true);
SELECT fpb_same('SELECT left(k, 8) FROM wi_l WHERE k BETWEEN ''00002'' AND ''00003''', 'wi_l_k');

-- Ascending keys within groups of the first column ((tenant, time)): each
-- insert lands at the end of its group's run, in the middle of a page.  A
-- leaf split where the new entry ends a group that continues before it
-- splits just after it, and the left page, which takes the group's next
-- inserts, is laid out packed (insert.c).  Split in the middle, the half
-- without the group's end took no more inserts: 80,000 such rows in 100
-- groups into 20,000 wrote 5.4 times btree's WAL, now 2.1 times, and the
-- index was 1.9 times btree's size, now 1.24 (its entries are 1.36 times
-- as large).
CREATE TABLE wi_g (a int4, b int8) WITH (autovacuum_enabled = off);
INSERT INTO wi_g SELECT g % 100, g FROM generate_series(1, 20000) g;
CREATE INDEX wi_g_ab ON wi_g USING fpbtree (a, b);
CREATE TABLE wi_gb (a int4, b int8) WITH (autovacuum_enabled = off);
INSERT INTO wi_gb SELECT g % 100, g FROM generate_series(1, 20000) g;
CREATE INDEX wi_gb_ab ON wi_gb USING btree (a, b);
SELECT pg_current_wal_lsn() AS wi_l0 \gset
INSERT INTO wi_g SELECT (g::int8 * 7919 % 100)::int4, g FROM generate_series(20001, 100000) g;
SELECT pg_current_wal_lsn() AS wi_l1 \gset
INSERT INTO wi_gb SELECT (g::int8 * 7919 % 100)::int4, g FROM generate_series(20001, 100000) g;
SELECT pg_current_wal_lsn() AS wi_l2 \gset
SELECT fpb_wal_ratio(:'wi_l0', :'wi_l1', :'wi_l2') < 3 AS under_3x_btree;
SELECT pg_relation_size('wi_g_ab') < 1.5 * pg_relation_size('wi_gb_ab') AS under_1_5x;
SELECT fpbtree_check('wi_g_ab', true);
SELECT fpb_same('SELECT a, b FROM wi_g WHERE a = 42 AND b > 99000 ORDER BY a, b', 'wi_g_ab', true);
SELECT fpb_same('SELECT a, b FROM wi_g WHERE a BETWEEN 10 AND 12', 'wi_g_ab');

-- INCLUDE columns in separators: a high key or downlink compares by the
-- key columns alone, so its INCLUDE columns are dropped (NULL), as nbtree's
-- pivot tuples drop them (multicol.c, fpb_tuple_separator).  With 1,300-byte
-- INCLUDE values an internal page held five downlinks: 3,000 such rows
-- grown by inserts took 1,553 pages, of height 7 (btree 699); now about
-- 820, of height 3.  A build's separators are the same.
CREATE TABLE wi_i (k int4, p text) WITH (autovacuum_enabled = off);
CREATE INDEX wi_i_f ON wi_i USING fpbtree (k) INCLUDE (p);
CREATE INDEX wi_i_b ON wi_i USING btree (k) INCLUDE (p);
INSERT INTO wi_i SELECT hashint4(g) % 1000000,
	(SELECT string_agg(md5((g * 100 + i)::text), '') FROM generate_series(1, 40) i)
FROM generate_series(1, 3000) g;
SELECT pg_relation_size('wi_i_f') < 1.3 * pg_relation_size('wi_i_b') AS under_1_3x,
	s.height <= 3 AS height_3
FROM fpbtree_stats('wi_i_f') s;
DROP INDEX wi_i_b;
CREATE INDEX wi_i_fb ON wi_i USING fpbtree (k) INCLUDE (p);
SELECT s.height <= 3 AS built_height_3, s.pages_per_level[2] < 20 AS few_internal
FROM fpbtree_stats('wi_i_fb') s;
SELECT fpbtree_check('wi_i_f', true), fpbtree_check('wi_i_fb', true);
DROP INDEX wi_i_fb;
SELECT fpb_same('SELECT k, md5(p) FROM wi_i WHERE k BETWEEN -300000 AND 300000', 'wi_i_f');
SELECT fpb_same('SELECT k, md5(p) FROM wi_i WHERE k > 900000 ORDER BY k DESC', 'wi_i_f', true);

-- A separator is never larger than its row: a row without NULLs has no
-- NULL bitmap, and dropping INCLUDE values of a few bytes adds one (eight
-- bytes with the alignment).  Such separators overflowed a build's pages
-- ("bulk-load page 1 overflows") and went past the largest tuple a slot
-- holds (fpbtree_check: "holds no sound index tuple"); the row's own
-- tuple serves instead.
CREATE TABLE wi_s (k text COLLATE "C", s bool, i int2) WITH (autovacuum_enabled = off);
CREATE INDEX wi_s_g ON wi_s USING fpbtree (k) INCLUDE (i);
INSERT INTO wi_s SELECT lpad(g::text, 8, '0') || repeat('x', 920), true, 1
FROM generate_series(1, 8) g;
CREATE INDEX wi_s_b ON wi_s USING fpbtree (k) INCLUDE (s);
CREATE INDEX wi_s_i ON wi_s USING fpbtree (k) INCLUDE (i);
INSERT INTO wi_s SELECT lpad(g::text, 1680, 'x'), false, 2 FROM generate_series(1, 40) g;
SELECT fpbtree_check('wi_s_g', true);
SELECT fpbtree_check('wi_s_b', true), fpbtree_check('wi_s_i', true);
DROP INDEX wi_s_g;
REINDEX INDEX wi_s_i;
SELECT fpbtree_check('wi_s_i', true);
SELECT fpb_same('SELECT md5(k), i FROM wi_s WHERE k > ''x''', 'wi_s_i');

-- aminsert runs in the statement's memory: a multi-column row's tuple
-- that stayed there after its insert grew an INSERT of many rows by about
-- 48 bytes a row (150,000 rows: 7 MB).  The largest executor context,
-- the INSERT's, is sampled at rows 50,000 and 200,000.
CREATE FUNCTION wi_mem() RETURNS bigint LANGUAGE sql VOLATILE AS
	$$SELECT max(used_bytes) FROM pg_backend_memory_contexts WHERE name = 'ExecutorState'$$;
CREATE TABLE wi_x (a int4, k int8, m bigint) WITH (autovacuum_enabled = off);
CREATE INDEX wi_x_ak ON wi_x USING fpbtree (a, k);
INSERT INTO wi_x SELECT g % 1000, g, CASE WHEN g % 150000 = 50000 THEN wi_mem() END
FROM generate_series(1, 200000) g;
SELECT max(m) - min(m) < 2000000 AS no_growth FROM wi_x WHERE m IS NOT NULL;
-- The same for a page split's separator, copied off the page before the
-- split and kept until its downlink is in: 320-byte values split a page
-- every few rows, and the copies grew the INSERT by about 900 kB over
-- rows 5,000 to 30,000, one column or two.
CREATE TABLE wi_y (k text, m bigint) WITH (autovacuum_enabled = off);
CREATE INDEX wi_y_k ON wi_y USING fpbtree (k COLLATE "C");
INSERT INTO wi_y SELECT repeat(md5(g::text), 10),
	CASE WHEN g % 25000 = 5000 THEN wi_mem() END
FROM generate_series(1, 30000) g;
SELECT max(m) - min(m) < 100000 AS no_growth FROM wi_y WHERE m IS NOT NULL;
CREATE TABLE wi_z (a int4, k text, m bigint) WITH (autovacuum_enabled = off);
CREATE INDEX wi_z_ak ON wi_z USING fpbtree (a, k COLLATE "C");
INSERT INTO wi_z SELECT g % 7, repeat(md5(g::text), 10),
	CASE WHEN g % 25000 = 5000 THEN wi_mem() END
FROM generate_series(1, 30000) g;
SELECT max(m) - min(m) < 100000 AS no_growth FROM wi_z WHERE m IS NOT NULL;
SELECT fpbtree_check('wi_y_k', true), fpbtree_check('wi_z_ak', true);
-- And for a value the insert converts for its slot: an expression's
-- result has a 4-byte header, stored with a 1-byte one (a copy of 32 bytes
-- a row for numeric, 80 for lower(text)).
CREATE TABLE wi_n (v numeric, k text, m bigint) WITH (autovacuum_enabled = off);
CREATE INDEX wi_n_v ON wi_n USING fpbtree ((v / 7));
CREATE INDEX wi_n_k ON wi_n USING fpbtree (lower(k));
INSERT INTO wi_n SELECT (g * 7919) % 100003, md5(g::text),
	CASE WHEN g % 25000 = 5000 THEN wi_mem() END
FROM generate_series(1, 30000) g;
SELECT max(m) - min(m) < 100000 AS no_growth FROM wi_n WHERE m IS NOT NULL;
SELECT fpbtree_check('wi_n_v', true), fpbtree_check('wi_n_k', true);
SELECT count(*) FROM wi_n WHERE v / 7 BETWEEN 100 AND 200;
SELECT count(*) FROM wi_n WHERE lower(k) < '1';
DROP FUNCTION wi_mem();

DROP TABLE wi_u, wi_t, wi_m, wi_g, wi_gb, wi_l, wi_i, wi_s, wi_x, wi_y, wi_z, wi_n;
DROP FUNCTION wi_large(pg_lsn, pg_lsn, int), wi_long(int, int);
