--
-- 66_long_values: a value (or multi-column row) longer than a slot's limit
-- (a quarter of a page: 1696 bytes with the usual node widths) is stored
-- compressed, as btree's index tuples compress long values; one that stays
-- too long is refused.  Comparisons between compressed values, and between
-- a compressed and a plain one, must agree with the seq scan: under "C"
-- (fpbtree's inline byte comparison), under ICU and for bytea (the type's
-- comparison function), in runs of equal values, in multi-column and
-- INCLUDE rows, for unique checks, after inserts, deletes and VACUUM.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\i sql/include/pageinspect.sql
\set ECHO all

CREATE COLLATION lv_icu (provider = icu, locale = 'und');

-- v: a value of about n bytes that compresses (a repeated word, a tail
-- that tells values apart); w: one of n hex digits, which does not
CREATE FUNCTION lv_v(word text, n int, tail text) RETURNS text
IMMUTABLE LANGUAGE sql AS $$ SELECT repeat(word, n / length(word)) || tail $$;
CREATE FUNCTION lv_w(seed int, n int) RETURNS text
IMMUTABLE LANGUAGE sql AS $$
SELECT left(string_agg(md5((seed * 1000 + g)::text), ''), n)
FROM generate_series(1, n / 32 + 1) g $$;

-- c and i hold the same values: short ones, ones just below and above the
-- limit, long ones sharing their first thousands of bytes (every prefix
-- ties), duplicates of long values (runs on pages of runs), NULLs
CREATE TABLE lv (id int4, c text COLLATE "C", i text COLLATE lv_icu, b bytea)
WITH (autovacuum_enabled = off);
INSERT INTO lv
SELECT g, v, v, convert_to(v, 'UTF8')
FROM (SELECT g, CASE g % 8
		WHEN 0 THEN 'short' || g
		WHEN 1 THEN lv_v('ab', 1694, (g % 50)::text)
		WHEN 2 THEN lv_v('ab', 1700, (g % 50)::text)
		WHEN 3 THEN lv_v('abc', 6000, (g % 40)::text)
		WHEN 4 THEN lv_v('abc', 6000, '')
		WHEN 5 THEN lv_v('Zürich ', 3000 + g % 7, (g % 3)::text)
		WHEN 6 THEN NULL
		ELSE lv_v('ab', 2000 + g % 100, 'x')
	END AS v
	FROM generate_series(1, 1600) g) s;

CREATE INDEX lv_c ON lv USING fpbtree (c) WITH (leaf_lines = 8, nonleaf_lines = 4);
CREATE INDEX lv_i ON lv USING fpbtree (i);
CREATE INDEX lv_b ON lv USING fpbtree (b);
SELECT fpbtree_check('lv_c', true), fpbtree_check('lv_i', true), fpbtree_check('lv_b', true);
-- the long values are in the index compressed: it is far smaller than they
SELECT pg_relation_size('lv_c') < 2000000 AS compressed;

SELECT fpb_same('SELECT md5(c) FROM lv ORDER BY c', 'lv_c', true);
SELECT fpb_same('SELECT md5(c) FROM lv ORDER BY c DESC', 'lv_c', true);
SELECT fpb_same('SELECT id FROM lv WHERE c = lv_v(''abc'', 6000, '''')', 'lv_c');
SELECT fpb_same('SELECT id FROM lv WHERE c = lv_v(''ab'', 1700, ''7'')', 'lv_c');
SELECT fpb_same('SELECT md5(c) FROM lv WHERE c > lv_v(''ab'', 1694, ''3'') AND c <= lv_v(''abc'', 6000, ''2'') ORDER BY c', 'lv_c', true);
SELECT fpb_same('SELECT id FROM lv WHERE c >= lv_v(''abc'', 5000, '''') AND c < lv_v(''abc'', 7000, '''')', 'lv_c');
SELECT fpb_same('SELECT id FROM lv WHERE c IN (lv_v(''ab'', 2050, ''x''), ''short8'', lv_v(''abc'', 6000, ''1''))', 'lv_c');
SELECT fpb_same('SELECT id FROM lv WHERE c LIKE ''ababab%'' AND c > ''abab''', 'lv_c');
SELECT fpb_same('SELECT md5(i) FROM lv ORDER BY i', 'lv_i', true);
SELECT fpb_same('SELECT id FROM lv WHERE i = lv_v(''Zürich '', 3003, ''1'')', 'lv_i');
SELECT fpb_same('SELECT id FROM lv WHERE i BETWEEN lv_v(''ab'', 1690, '''') AND lv_v(''abc'', 6000, ''3'')', 'lv_i');
SELECT fpb_same('SELECT md5(b) FROM lv ORDER BY b', 'lv_b', true);
SELECT fpb_same('SELECT id FROM lv WHERE b = convert_to(lv_v(''abc'', 6000, ''''), ''UTF8'')', 'lv_b');

-- index-only scans return the whole value (decompressed by the executor)
VACUUM lv;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT fpb_explain('SELECT c FROM lv WHERE c > lv_v(''abc'', 5999, '''')') ~ 'Index Only Scan' AS index_only;
SELECT count(*), sum(length(c)), count(DISTINCT md5(c)) FROM lv WHERE c > lv_v('abc', 5999, '');
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*), sum(length(c)), count(DISTINCT md5(c)) FROM lv WHERE c > lv_v('abc', 5999, '');

-- inserts into the built index (compressed values met on the way down),
-- deletes and VACUUM
INSERT INTO lv
SELECT g, v, v, convert_to(v, 'UTF8')
FROM (SELECT g, CASE g % 4
		WHEN 0 THEN lv_v('abc', 6000, (g % 40)::text)
		WHEN 1 THEN lv_v('ab', 1694 + g % 20, 'y')
		WHEN 2 THEN lv_v('abc', 6000, '')
		ELSE 'short' || g
	END AS v
	FROM generate_series(1601, 2400) g) s;
DELETE FROM lv WHERE id % 5 = 0;
VACUUM lv;
SELECT fpbtree_check('lv_c', true), fpbtree_check('lv_i', true), fpbtree_check('lv_b', true);
SELECT fpb_same('SELECT md5(c) FROM lv ORDER BY c', 'lv_c', true);
SELECT fpb_same('SELECT md5(i) FROM lv ORDER BY i DESC', 'lv_i', true);
SELECT fpb_same('SELECT md5(b) FROM lv WHERE b > convert_to(''ab'', ''UTF8'') ORDER BY b', 'lv_b', true);
SELECT fpb_same('SELECT id FROM lv WHERE c = lv_v(''abc'', 6000, ''17'')', 'lv_c');

-- a value that does not compress enough is still refused; the row is not
-- stored
INSERT INTO lv (id, c) VALUES (0, lv_w(1, 1800));
INSERT INTO lv (id, i) VALUES (0, lv_w(2, 1800));
SELECT count(*) FROM lv WHERE id = 0;
-- ... at CREATE INDEX too
CREATE TABLE lv_bad (c text COLLATE "C");
INSERT INTO lv_bad VALUES (lv_v('ab', 5000, '')), (lv_w(3, 2000));
CREATE INDEX lv_bad_c ON lv_bad USING fpbtree (c);
DROP TABLE lv_bad;

-- unique: long duplicates found through their compressed copies
CREATE TABLE lv_u (c text COLLATE "C");
CREATE UNIQUE INDEX lv_u_c ON lv_u USING fpbtree (c);
INSERT INTO lv_u SELECT lv_v('abc', 6000, g::text) FROM generate_series(1, 200) g;
INSERT INTO lv_u VALUES ('abc');
DO $$
BEGIN
	INSERT INTO lv_u VALUES (lv_v('abc', 6000, '77'));
	RAISE EXCEPTION 'a duplicate was accepted';
EXCEPTION WHEN unique_violation THEN
	RAISE NOTICE 'unique_violation';
END $$;
INSERT INTO lv_u VALUES (lv_v('abc', 6000, '77') || 'z');
INSERT INTO lv_u VALUES (lv_v('abc', 6000, '201'))
ON CONFLICT (c) DO NOTHING;
INSERT INTO lv_u VALUES (lv_v('abc', 6000, '5'))
ON CONFLICT (c) DO NOTHING;
SELECT count(*) FROM lv_u;
SELECT fpbtree_check('lv_u_c', true);

-- multi-column and INCLUDE rows: the long values of a row too long for a
-- slot are compressed
CREATE TABLE lv_m (a int4, c text COLLATE "C", d text)
WITH (autovacuum_enabled = off);
INSERT INTO lv_m
SELECT g % 7, CASE WHEN g % 3 = 0 THEN 'k' || g % 11
	ELSE lv_v('ab', 1000 + g % 1500, (g % 13)::text) END,
	lv_v('xyz', 1800, (g % 5)::text)
FROM generate_series(1, 1200) g;
INSERT INTO lv_m VALUES (NULL, NULL, NULL), (1, NULL, lv_v('q', 3000, '')),
	(NULL, lv_v('ab', 3000, ''), 'd');
CREATE INDEX lv_m_ac ON lv_m USING fpbtree (a, c);
CREATE INDEX lv_m_ca ON lv_m USING fpbtree (c DESC, a) INCLUDE (d);
SELECT fpbtree_check('lv_m_ac', true), fpbtree_check('lv_m_ca', true);
SELECT fpb_same('SELECT a, md5(c) FROM lv_m WHERE a = 3 ORDER BY a, c', 'lv_m_ac', true);
SELECT fpb_same('SELECT a, md5(c) FROM lv_m WHERE a = 2 AND c > lv_v(''ab'', 1600, '''')', 'lv_m_ac');
SELECT fpb_same('SELECT a, md5(c) FROM lv_m WHERE a BETWEEN 1 AND 4 ORDER BY a, c', 'lv_m_ac', true);
SELECT fpb_same('SELECT md5(c), a, md5(d) FROM lv_m WHERE c < lv_v(''ab'', 2000, ''5'') ORDER BY c DESC, a', 'lv_m_ca', true);
SELECT fpb_same('SELECT md5(c), a, md5(d) FROM lv_m WHERE c = lv_v(''ab'', 2000, ''5'')', 'lv_m_ca');
INSERT INTO lv_m
SELECT g % 7, lv_v('ab', 1600 + g % 1000, (g % 13)::text), lv_v('xyz', 2000, '')
FROM generate_series(1, 300) g;
VACUUM lv_m;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT fpb_explain('SELECT c, a, d FROM lv_m WHERE c < ''k''') ~ 'Index Only Scan using lv_m_ca' AS index_only;
SELECT count(*), sum(length(c) + length(d)), count(DISTINCT md5(c || d)) FROM lv_m WHERE c < 'k';
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*), sum(length(c) + length(d)), count(DISTINCT md5(c || d)) FROM lv_m WHERE c < 'k';
SELECT fpbtree_check('lv_m_ac', true), fpbtree_check('lv_m_ca', true);
-- a row whose values do not compress enough is refused
INSERT INTO lv_m VALUES (1, lv_w(4, 1000), lv_w(5, 1000));
-- values the table keeps compressed (its rows are long) are stored plain
-- where the index row fits: fpbtree_check refuses compressed values in a
-- row that would fit without
CREATE TABLE lv_h (a int4, c text COLLATE "C", x text) WITH (autovacuum_enabled = off);
INSERT INTO lv_h SELECT g % 5, lv_v('ab', 1500, g::text), lv_w(g, 1000)
FROM generate_series(1, 300) g;
SELECT count(*) FROM lv_h WHERE pg_column_compression(c) IS NOT NULL;
CREATE INDEX lv_h_ac ON lv_h USING fpbtree (a, c);
CREATE INDEX lv_h_c ON lv_h USING fpbtree (c);
INSERT INTO lv_h SELECT g % 5, lv_v('ab', 1500, g::text), lv_w(g, 1000)
FROM generate_series(301, 600) g;
SELECT fpbtree_check('lv_h_ac', true), fpbtree_check('lv_h_c', true);
SELECT fpb_same('SELECT a, md5(c) FROM lv_h WHERE a = 2 ORDER BY a, c', 'lv_h_ac', true);

-- rows longer than an index tuple holds before compression (8191 bytes),
-- which btree takes compressed: multi-column, INCLUDE and DESC rows, at
-- insert, at CREATE INDEX, in unique indexes and upserts
CREATE TABLE lv_x (a float8, c text COLLATE "C", p int4, t text)
WITH (autovacuum_enabled = off);
CREATE INDEX lv_x_ac ON lv_x USING fpbtree (a, c);
CREATE INDEX lv_x_cp ON lv_x USING fpbtree (c) INCLUDE (p);
CREATE INDEX lv_x_pt ON lv_x USING fpbtree (p) INCLUDE (t);
CREATE INDEX lv_x_cd ON lv_x USING fpbtree (c DESC);
CREATE UNIQUE INDEX lv_x_u ON lv_x USING fpbtree (p, c);
INSERT INTO lv_x
SELECT g % 4, lv_v('Long', 8300 + g * 97, g::text), g, lv_v('t', 20000, g::text)
FROM generate_series(1, 40) g;
INSERT INTO lv_x VALUES (1, lv_v('ab', 12000, 'x'), 41, 'short')
ON CONFLICT (p, c) DO NOTHING;
INSERT INTO lv_x VALUES (1, lv_v('ab', 12000, 'x'), 41, 'again')
ON CONFLICT (p, c) DO UPDATE SET t = excluded.t;
\set VERBOSITY terse
INSERT INTO lv_x VALUES (1, lv_v('Long', 8300 + 97, '1'), 1, 'dup');
\set VERBOSITY default
CREATE INDEX lv_x_ac2 ON lv_x USING fpbtree (a, c);
CREATE INDEX lv_x_cp2 ON lv_x USING fpbtree (c) INCLUDE (p);
SELECT fpbtree_check('lv_x_ac', true), fpbtree_check('lv_x_cp', true),
	fpbtree_check('lv_x_pt', true), fpbtree_check('lv_x_cd', true),
	fpbtree_check('lv_x_u', true), fpbtree_check('lv_x_ac2', true),
	fpbtree_check('lv_x_cp2', true);
SELECT count(*), sum(length(c)), max(t) FILTER (WHERE p = 41) FROM lv_x;
DROP INDEX lv_x_ac, lv_x_cp, lv_x_u;
SELECT fpb_same('SELECT a, md5(c) FROM lv_x WHERE a = 2 ORDER BY a, c', 'lv_x_ac2', true);
SELECT fpb_same('SELECT p, md5(t) FROM lv_x WHERE p > 30', 'lv_x_pt');

-- scan bounds of any length, also beyond what an index tuple holds, as
-- btree takes them: compressible and not, on multi-column and INCLUDE
-- indexes, under "C" (the inline comparison) and ICU (the bounds are
-- parameters, so that a plan shows no long constant)
CREATE TABLE lv_b2 (a text COLLATE "C", i text COLLATE lv_icu, b int4)
WITH (autovacuum_enabled = off);
INSERT INTO lv_b2 SELECT g::text, g::text, g FROM generate_series(1, 1000) g;
INSERT INTO lv_b2 SELECT lv_v('x', 9000 + g, ''), lv_v('x', 9000 + g, ''), g
FROM generate_series(1, 3) g;
CREATE INDEX lv_b2_ab ON lv_b2 USING fpbtree (a, b);
CREATE INDEX lv_b2_ib ON lv_b2 USING fpbtree (i, b);
SELECT fpb_same('SELECT b FROM lv_b2 WHERE a < (SELECT repeat(''x'', 9002))', 'lv_b2_ab');
SELECT fpb_same('SELECT b FROM lv_b2 WHERE a = (SELECT repeat(''x'', 9002))', 'lv_b2_ab');
SELECT fpb_same('SELECT b FROM lv_b2 WHERE a = (SELECT repeat(''x'', 9002)) AND b > 1', 'lv_b2_ab');
SELECT fpb_same('SELECT b FROM lv_b2 WHERE a >= (SELECT lv_w(3, 9000))', 'lv_b2_ab');
SELECT fpb_same('SELECT a, b FROM lv_b2 WHERE a < (SELECT lv_w(3, 9000)) ORDER BY a, b', 'lv_b2_ab', true);
SELECT fpb_same('SELECT b FROM lv_b2 WHERE a = ANY ((SELECT ARRAY[repeat(''x'', 9001), ''5'', lv_w(1, 10000)])::text[])', 'lv_b2_ab');
SELECT fpb_same('SELECT b FROM lv_b2 WHERE i <= (SELECT repeat(''x'', 9002))', 'lv_b2_ib');
SELECT fpb_same('SELECT b FROM lv_b2 WHERE i > (SELECT lv_w(3, 9000))', 'lv_b2_ib');
-- a long bound beside a value of a plain-storage type (oidvector), whose
-- functions read it in place: only the text is kept by reference
CREATE TABLE lv_ov (o oidvector, t text COLLATE "C", b int4);
INSERT INTO lv_ov
SELECT (SELECT string_agg((g + h % 3)::text, ' ')::oidvector FROM generate_series(1, 150) g),
	CASE WHEN h % 2 = 0 THEN lv_v('x', 9000 + h, '') ELSE h::text END, h
FROM generate_series(1, 40) h;
CREATE INDEX lv_ov_ot ON lv_ov USING fpbtree (o, t);
SELECT fpb_same('SELECT b FROM lv_ov WHERE o = (SELECT string_agg(g::text, '' '')::oidvector FROM generate_series(2, 151) g) AND t < (SELECT repeat(''x'', 9010))', 'lv_ov_ot');
DROP INDEX lv_b2_ab;
CREATE INDEX lv_b2_ai ON lv_b2 USING fpbtree (a) INCLUDE (b);
SELECT fpb_same('SELECT b FROM lv_b2 WHERE a > (SELECT repeat(''x'', 9001))', 'lv_b2_ai');
SELECT fpb_same('SELECT b FROM lv_b2 WHERE a = (SELECT lv_w(7, 12000))', 'lv_b2_ai');
SELECT fpb_same('SELECT b FROM lv_b2 WHERE a <= (SELECT repeat(''x'', 9002))', 'lv_b2_ai');

-- an index built by an earlier release (as the debugging setting builds
-- it) has no format flag for compressed values: it keeps refusing long
-- values until REINDEX
CREATE TABLE lv_old (c text COLLATE "C", b bytea);
SET fpbtree.debug_codepoint_prefix_const = on;
CREATE INDEX lv_old_c ON lv_old USING fpbtree (c);
CREATE INDEX lv_old_cb ON lv_old USING fpbtree (b, c);
RESET fpbtree.debug_codepoint_prefix_const;
SELECT fpb_meta_version('lv_old_c') AS old_c, fpb_meta_version('lv_old_cb') AS old_cb,
	fpb_meta_version('lv_c') AS new_c, fpb_meta_version('lv_m_ca') AS new_m,
	fpb_meta_pfxflags('lv_c') AS new_c_flags, fpb_meta_pfxflags('lv_old_c') AS old_c_flags;
INSERT INTO lv_old VALUES (lv_v('ab', 3000, ''), NULL);
INSERT INTO lv_old VALUES ('ab', convert_to(lv_v('ab', 3000, ''), 'UTF8'));
REINDEX TABLE lv_old;
SELECT fpb_meta_version('lv_old_c') AS c, fpb_meta_version('lv_old_cb') AS cb,
	fpb_meta_pfxflags('lv_old_c') AS c_flags, fpb_meta_pfxflags('lv_old_cb') AS cb_flags;
INSERT INTO lv_old VALUES (lv_v('ab', 3000, ''), NULL);
INSERT INTO lv_old VALUES ('ab', convert_to(lv_v('ab', 3000, ''), 'UTF8'));
SELECT count(*), sum(length(c)), sum(length(b)) FROM lv_old;
SELECT fpbtree_check('lv_old_c', true), fpbtree_check('lv_old_cb', true);

-- a column whose storage is EXTERNAL (no compression) is not compressed in
-- the index either, as btree leaves it: a long value is refused
CREATE TABLE lv_e (c text COLLATE "C");
ALTER TABLE lv_e ALTER c SET STORAGE EXTERNAL;
CREATE INDEX lv_e_c ON lv_e USING fpbtree (c);
INSERT INTO lv_e VALUES (lv_v('ab', 3000, ''));
INSERT INTO lv_e VALUES (lv_v('ab', 1000, ''));
SELECT count(*) FROM lv_e;
