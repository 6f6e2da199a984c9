--
-- 71_packed: multi-column rows of by-value columns stored packed
-- (src/am/README.md, "Packed rows"): every by-value type with NULLs in
-- every column (two bitmap bytes past eight columns), extreme values,
-- INCLUDE columns that separators drop, index-only scans handing out the
-- unpacked rows, both directions; the row-length limit; uniqueness and
-- upserts; an index in the older format (index tuples) beside, and its
-- REINDEX; the size against that format and against btree.  Each scan is
-- compared with a sequential scan, and fpbtree_check passes.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

CREATE TYPE pk_mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE pk (id int4, b bool, c "char", s int2, i int4, l int8,
				 r float4, d float8, dt date, ts timestamp, tz timestamptz,
				 tm time, m money, o oid, e pk_mood)
	WITH (autovacuum_enabled = off);
INSERT INTO pk
SELECT g,
	   CASE WHEN g % 11 = 0 THEN NULL ELSE g % 3 = 0 END,
	   CASE WHEN g % 13 = 0 THEN NULL ELSE chr(65 + g % 5)::"char" END,
	   CASE WHEN g % 17 = 0 THEN NULL WHEN g % 97 = 0 THEN -32768
			ELSE (g % 7)::int2 END,
	   CASE WHEN g % 19 = 0 THEN NULL WHEN g % 89 = 0 THEN 2147483647
			ELSE g % 50 END,
	   CASE WHEN g % 23 = 0 THEN NULL WHEN g % 83 = 0 THEN -9223372036854775808
			ELSE hashint8(g) % 1000 END,
	   CASE WHEN g % 29 = 0 THEN NULL WHEN g % 79 = 0 THEN '-0'::float4
			WHEN g % 73 = 0 THEN 'NaN' ELSE (g % 9) / 4.0 END,
	   CASE WHEN g % 31 = 0 THEN NULL WHEN g % 71 = 0 THEN '-Infinity'
			ELSE (g % 13) / 8.0 END,
	   CASE WHEN g % 37 = 0 THEN NULL WHEN g % 67 = 0 THEN 'infinity'::date
			ELSE date '2026-01-01' + g % 40 END,
	   CASE WHEN g % 41 = 0 THEN NULL
			ELSE timestamp '2026-01-01' + (g % 500) * interval '1 hour' END,
	   CASE WHEN g % 43 = 0 THEN NULL
			ELSE timestamptz '2026-01-01 00:00+00' + (g % 300) * interval '1 min' END,
	   CASE WHEN g % 47 = 0 THEN NULL ELSE time '00:00' + (g % 60) * interval '1 s' END,
	   CASE WHEN g % 53 = 0 THEN NULL ELSE (g % 20)::money END,
	   CASE WHEN g % 59 = 0 THEN NULL ELSE (g % 15)::oid END,
	   CASE WHEN g % 61 = 0 THEN NULL ELSE (enum_range(NULL::pk_mood))[1 + g % 3] END
FROM generate_series(1, 8000) g;

-- fourteen columns (a bitmap of two bytes), every one of them by value
CREATE INDEX pk_all ON pk USING fpbtree (b, c, s, i, l, r, d, dt, ts, tz, tm, m, o, e);
-- DESC and NULLS FIRST columns, and INCLUDE
CREATE INDEX pk_il ON pk USING fpbtree (i DESC NULLS LAST, l NULLS FIRST) INCLUDE (d, e, id);
-- the same two columns in the older format: index tuples
SET fpbtree.debug_multi_prefix_first = on;
CREATE INDEX pk_il_old ON pk USING fpbtree (i DESC NULLS LAST, l NULLS FIRST) INCLUDE (d, e, id);
RESET fpbtree.debug_multi_prefix_first;
SELECT relname, format FROM pg_class, fpbtree_format(oid)
WHERE relname IN ('pk_all', 'pk_il', 'pk_il_old') ORDER BY 1;

-- every column handed out by index-only scans, as a sequential scan has them
SELECT fpb_same('SELECT b, c, s, i, l, r, d, dt, ts, tz, tm, m, o, e FROM pk WHERE b IS NOT NULL', 'pk_all');
SELECT fpb_same('SELECT b, c, s, i, l, r, d, dt, ts, tz, tm, m, o, e FROM pk WHERE b AND c = ''B'' AND s >= 2', 'pk_all');
BEGIN;
DROP INDEX pk_il, pk_il_old;
SELECT fpb_same('SELECT b, c, s, e FROM pk WHERE b = false AND c = ''A'' AND s = 3 AND i = 3 AND l < 0', 'pk_all');
ROLLBACK;
SELECT fpb_same('SELECT b, c, s, i FROM pk WHERE b IS NULL ORDER BY b, c, s, i, l, r, d, dt, ts, tz, tm, m, o, e', 'pk_all', true);
-- keys on later columns, checked on the packed row (filters)
SELECT fpb_same('SELECT i, l, d, e, id FROM pk WHERE b = true AND m > 10::money AND e = ''ok''', 'pk_all');
BEGIN;
DROP INDEX pk_il_old;
SELECT fpb_same('SELECT i, l, d, e, id FROM pk WHERE i = 7 ORDER BY i DESC, l NULLS FIRST, id', 'pk_il', true);
SELECT fpb_same('SELECT i, l, d, e, id FROM pk WHERE i BETWEEN 10 AND 20 AND l > 500', 'pk_il');
SELECT fpb_same('SELECT i, l, id FROM pk WHERE i IS NULL ORDER BY i DESC, l NULLS FIRST, id', 'pk_il', true);
SELECT fpb_same('SELECT i, l, d FROM pk WHERE i IN (1, 5, 2147483647) AND e IS NULL', 'pk_il');
-- backward, through a cursor
DECLARE pk_cur SCROLL CURSOR FOR
	SELECT i, l, id FROM pk WHERE i >= 45 ORDER BY i DESC, l NULLS FIRST, id;
FETCH LAST FROM pk_cur;
FETCH BACKWARD 3 FROM pk_cur;
FETCH ABSOLUTE 100 FROM pk_cur;
CLOSE pk_cur;
ROLLBACK;

-- more rows to split pages (separators without the INCLUDE values), then
-- deletes and VACUUM
INSERT INTO pk (id, i, l, d, e)
SELECT g, g % 50, hashint8(-g) % 1000, g / 3.0, 'sad' FROM generate_series(8001, 30000) g;
DELETE FROM pk WHERE id % 5 = 0;
VACUUM pk;
SELECT fpbtree_check('pk_all', true), fpbtree_check('pk_il', true),
	   fpbtree_check('pk_il_old', true);
BEGIN;
DROP INDEX pk_il_old;
SELECT fpb_same('SELECT i, l, d, e, id FROM pk WHERE i BETWEEN 3 AND 6', 'pk_il');
SELECT fpb_same('SELECT i, l, d, e, id FROM pk WHERE i = 30 ORDER BY i DESC, l NULLS FIRST, id', 'pk_il', true);
ROLLBACK;
-- the older index answers alike; REINDEX packs it
BEGIN;
DROP INDEX pk_il;
SELECT fpb_same('SELECT i, l, d, e, id FROM pk WHERE i BETWEEN 3 AND 6', 'pk_il_old');
ROLLBACK;
REINDEX INDEX pk_il_old;
SELECT format FROM fpbtree_format('pk_il_old');
SELECT fpbtree_check('pk_il_old', true);

-- the row-length limit: 31 eight-byte columns are packed (253 bytes), 32
-- are not (261) and keep index tuples
SELECT format('CREATE TABLE pk_wide (%s)',
			  string_agg(format('c%s int8', n), ', ' ORDER BY n))
FROM generate_series(1, 32) n \gexec
INSERT INTO pk_wide SELECT g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g,
	g, g, g, g, g, g, g, g, g, g, g, g, g, g, -g, NULL
FROM generate_series(1, 2000) g;
SELECT format('CREATE INDEX pk_w31 ON pk_wide USING fpbtree (%s)',
			  string_agg(format('c%s', n), ', ' ORDER BY n))
FROM generate_series(1, 31) n \gexec
SELECT format('CREATE INDEX pk_w32 ON pk_wide USING fpbtree (%s)',
			  string_agg(format('c%s', n), ', ' ORDER BY n))
FROM generate_series(1, 32) n \gexec
SELECT relname, 'packed_rows' = ANY (format) AS packed
FROM pg_class, fpbtree_format(oid) WHERE relname IN ('pk_w31', 'pk_w32') ORDER BY 1;
BEGIN;
DROP INDEX pk_w32;
SELECT fpb_same('SELECT c1, c31 FROM pk_wide WHERE c1 BETWEEN 100 AND 120', 'pk_w31');
ROLLBACK;
SELECT fpbtree_check('pk_w31', true), fpbtree_check('pk_w32', true);

-- uuid and name, fixed-length types without alignment, are packed too and
-- read in place at any byte
CREATE TABLE pk_id (u uuid, n name, l int8, b bool) WITH (autovacuum_enabled = off);
INSERT INTO pk_id
SELECT CASE WHEN g % 17 = 0 THEN NULL ELSE md5((g % 500)::text)::uuid END,
	   CASE WHEN g % 13 = 0 THEN NULL ELSE 'n' || (g % 37) END,
	   CASE WHEN g % 11 = 0 THEN NULL ELSE hashint8(g) % 100 END,
	   g % 3 = 0
FROM generate_series(1, 6000) g;
CREATE INDEX pk_id_bul ON pk_id USING fpbtree (b, u, l) INCLUDE (n);
CREATE INDEX pk_id_nu ON pk_id USING fpbtree (n DESC, u);
SELECT relname, 'packed_rows' = ANY (format) AS packed
FROM pg_class, fpbtree_format(oid) WHERE relname LIKE 'pk\_id\_%' ORDER BY 1;
BEGIN;
DROP INDEX pk_id_nu;
SELECT fpb_same('SELECT b, u, l, n FROM pk_id WHERE b AND u >= ''80000000-0000-0000-0000-000000000000''', 'pk_id_bul');
SELECT fpb_same('SELECT b, u, l, n FROM pk_id WHERE b = false AND u = ''' || md5('7')::uuid || ''' ORDER BY b, u, l', 'pk_id_bul', true);
SELECT fpb_same('SELECT u, n FROM pk_id WHERE u IS NOT NULL AND n > ''n3''', 'pk_id_bul');
ROLLBACK;
BEGIN;
DROP INDEX pk_id_bul;
SELECT fpb_same('SELECT n, u FROM pk_id WHERE n BETWEEN ''n1'' AND ''n2'' ORDER BY n DESC, u', 'pk_id_nu', true);
SELECT fpb_same('SELECT n, u FROM pk_id WHERE n IS NULL AND u IS NOT NULL', 'pk_id_nu');
ROLLBACK;
INSERT INTO pk_id SELECT gen_random_uuid(), 'x' || g, g, true FROM generate_series(1, 5000) g;
DELETE FROM pk_id WHERE l % 7 = 0;
VACUUM pk_id;
SELECT fpbtree_check('pk_id_bul', true), fpbtree_check('pk_id_nu', true);
-- the duplicate's values come from its packed row
CREATE TABLE pk_iu (u uuid, l int8);
CREATE UNIQUE INDEX pk_iu_ul ON pk_iu USING fpbtree (u, l);
INSERT INTO pk_iu SELECT md5(g::text)::uuid, g FROM generate_series(1, 3000) g;
INSERT INTO pk_iu VALUES (md5('2999')::uuid, 2999);
DROP TABLE pk_iu;

-- unique: NULLs distinct or not, the message from the packed row, upserts
CREATE TABLE pk_u (a int4, b int8, n int4) WITH (autovacuum_enabled = off);
CREATE UNIQUE INDEX pk_u_ab ON pk_u USING fpbtree (a, b) NULLS NOT DISTINCT;
INSERT INTO pk_u VALUES (1, 10, 0), (1, NULL, 0), (NULL, NULL, 0);
INSERT INTO pk_u VALUES (1, 10, 0);
INSERT INTO pk_u VALUES (1, NULL, 0);
INSERT INTO pk_u VALUES (1, 10, 0) ON CONFLICT (a, b) DO UPDATE SET n = pk_u.n + 1;
INSERT INTO pk_u VALUES (NULL, NULL, 0) ON CONFLICT DO NOTHING;
SELECT * FROM pk_u ORDER BY a, b;
SELECT 'packed_rows' = ANY (format) FROM fpbtree_format('pk_u_ab');

-- size: 200,000 rows of (int4, int8), against the older format and btree
CREATE TABLE pk_s (a int4, b int8) WITH (autovacuum_enabled = off);
INSERT INTO pk_s SELECT (hashint8(g) & 1023)::int4, hashint8(-g) FROM generate_series(1, 200000) g;
CREATE INDEX pk_s_f ON pk_s USING fpbtree (a, b);
SET fpbtree.debug_multi_prefix_first = on;
CREATE INDEX pk_s_old ON pk_s USING fpbtree (a, b);
RESET fpbtree.debug_multi_prefix_first;
CREATE INDEX pk_s_bt ON pk_s USING btree (a, b);
SELECT pg_relation_size('pk_s_f') < 0.85 * pg_relation_size('pk_s_old') AS smaller_than_tuples,
	   pg_relation_size('pk_s_f') < 1.25 * pg_relation_size('pk_s_bt') AS near_btree;
SELECT fpbtree_check('pk_s_f', true);

DROP TABLE pk, pk_id, pk_wide, pk_u, pk_s;
DROP TYPE pk_mood;
