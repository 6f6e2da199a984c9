--
-- 53_multicol: multi-column and INCLUDE fpbtree indexes against btree
-- indexes of the same columns on a twin table with the same rows: every
-- scan form (equality on leading columns and a range on the next, ranges
-- on the first column only, keys on later columns only, IS NULL on a later
-- column, IN lists, both directions, index-only scans with INCLUDE,
-- bitmap scans) returns what btree returns, after the build, after inserts
-- that split pages, after deletes and VACUUM; fpbtree_check passes.
-- Columns: narrow (int4, int8, float8 with -0, NaN and infinities, date
-- with infinity) and wide (text under "C" and an ICU collation), NULLs in
-- every column.  Then unique indexes on several columns, a cursor read both
-- ways, a parallel scan.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

CREATE TABLE mc (id int, a int4, b int8, c text COLLATE "C",
				 d text COLLATE "en-x-icu", e float8, f date, g text)
WITH (autovacuum_enabled = off);
CREATE TABLE mc_bt (LIKE mc) WITH (autovacuum_enabled = off);

CREATE FUNCTION mc_row(g int) RETURNS mc LANGUAGE sql IMMUTABLE AS $$
	SELECT g,
		CASE WHEN g % 37 = 0 THEN NULL WHEN g % 101 = 0 THEN 2147483647
			 WHEN g % 103 = 0 THEN -2147483648 ELSE g % 20 END,
		CASE WHEN g % 29 = 0 THEN NULL WHEN g % 97 = 0 THEN 9223372036854775807
			 WHEN g % 89 = 0 THEN -9223372036854775808 ELSE (g * 7) % 15 END,
		CASE WHEN g % 31 = 0 THEN NULL WHEN g % 13 = 0 THEN ''
			 ELSE 'k' || (g % 9) END,
		CASE WHEN g % 23 = 0 THEN NULL
			 ELSE (ARRAY['apple', 'Apple', 'banana', 'Ärger', 'zebra', 'é'])[1 + g % 6] || (g % 3) END,
		CASE WHEN g % 19 = 0 THEN NULL WHEN g % 43 = 0 THEN '-0'::float8
			 WHEN g % 47 = 0 THEN 'NaN' WHEN g % 53 = 0 THEN '-Infinity'
			 ELSE (g % 11) / 2.0 END,
		CASE WHEN g % 17 = 0 THEN NULL WHEN g % 59 = 0 THEN 'infinity'::date
			 ELSE date '2020-01-01' + g % 30 END,
		'row' || g
$$;
INSERT INTO mc SELECT (mc_row(g)).* FROM generate_series(1, 6000) g;
INSERT INTO mc_bt SELECT * FROM mc;

CREATE INDEX mc_ab ON mc USING fpbtree (a, b) INCLUDE (g);
CREATE INDEX mc_cdb ON mc USING fpbtree (c, d, b);
CREATE INDEX mc_efa ON mc USING fpbtree (e, f, a);
CREATE INDEX mc_dcab ON mc USING fpbtree (d, c, a, b);
CREATE INDEX mc_ci ON mc USING fpbtree (c) INCLUDE (a, e);
CREATE INDEX mc_adb ON mc USING fpbtree (a, d DESC, b NULLS FIRST);
CREATE INDEX mc_ba ON mc USING fpbtree (b DESC, a);
CREATE INDEX mc_ec ON mc USING fpbtree (e NULLS FIRST, c DESC NULLS LAST);
CREATE INDEX mc_f ON mc USING fpbtree (f DESC);
CREATE INDEX mc_bt_ab ON mc_bt (a, b) INCLUDE (g);
CREATE INDEX mc_bt_cdb ON mc_bt (c, d, b);
CREATE INDEX mc_bt_efa ON mc_bt (e, f, a);
CREATE INDEX mc_bt_dcab ON mc_bt (d, c, a, b);
CREATE INDEX mc_bt_ci ON mc_bt (c) INCLUDE (a, e);
CREATE INDEX mc_bt_adb ON mc_bt (a, d DESC, b NULLS FIRST);
CREATE INDEX mc_bt_ba ON mc_bt (b DESC, a);
CREATE INDEX mc_bt_ec ON mc_bt (e NULLS FIRST, c DESC NULLS LAST);
CREATE INDEX mc_bt_f ON mc_bt (f DESC);

-- A query ($t: the table) under index and bitmap scans of mc, against its
-- rows from mc_bt (btree): 'ok' or what differs.  Only idx is left on mc
-- while it runs (the others are dropped in a subtransaction that is rolled
-- back), and an index scan must use it.  With ordered, the order must
-- agree too (queries order by every selected column that can tie).
CREATE FUNCTION mc_same1(q text, idx text, ordered bool) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	ref text[];
	got text[];
	mode text;
	plan text;
BEGIN
	ref := fpb_rows(replace(q, '$t', 'mc_bt'), 'index');
	FOREACH mode IN ARRAY ARRAY['index', 'bitmap'] LOOP
		IF mode = 'bitmap' AND q !~* '\mwhere\M' THEN
			CONTINUE;
		END IF;
		plan := fpb_plan(replace(q, '$t', 'mc'), mode);
		IF mode = 'index' AND plan !~ (' ' || idx || '([ \n]|$)') THEN
			RETURN format('%s: plan does not use %s: %s', mode, idx, plan);
		END IF;
		got := fpb_rows(replace(q, '$t', 'mc'), mode);
		IF ordered AND mode = 'index' THEN
			IF got IS DISTINCT FROM ref THEN
				RETURN format('%s: got %s, expected %s', mode, got, ref);
			END IF;
		ELSIF fpb_sorted(got) IS DISTINCT FROM fpb_sorted(ref) THEN
			RETURN format('%s: got %s rows, expected %s', mode,
						  cardinality(got), cardinality(ref));
		END IF;
	END LOOP;
	RETURN 'ok';
END $$;
CREATE FUNCTION mc_same(q text, idx text, ordered bool) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	other text;
	res text;
BEGIN
	BEGIN
		FOR other IN SELECT c.relname FROM pg_index i
			JOIN pg_class c ON c.oid = i.indexrelid
			WHERE i.indrelid = 'mc'::regclass AND c.relname <> idx LOOP
			EXECUTE format('DROP INDEX %I', other);
		END LOOP;
		res := mc_same1(q, idx, ordered);
		RAISE EXCEPTION 'roll back';
	EXCEPTION WHEN raise_exception THEN
		RETURN res;
	END;
END $$;

CREATE TABLE mc_q (q text, idx text, ordered bool);
INSERT INTO mc_q VALUES
 -- leading equality and a range on the next column
 ('SELECT a, b, g FROM $t WHERE a = 3 AND b > 5 ORDER BY a, b, g', 'mc_ab', true),
 ('SELECT a, b FROM $t WHERE a = 3 AND b >= 2 AND b < 9 ORDER BY a DESC, b DESC', 'mc_ab', true),
 ('SELECT a, b, g FROM $t WHERE a = 2147483647 AND b <= 0 ORDER BY a, b, g', 'mc_ab', true),
 ('SELECT id FROM $t WHERE a = 7 AND b = 7', 'mc_ab', false),
 ('SELECT id FROM $t WHERE a = -2147483648 AND b = 9223372036854775807', 'mc_ab', false),
 ('SELECT id FROM $t WHERE a = 7 AND b < 9223372036854775807::numeric', 'mc_ab', false),
 ('SELECT a, b FROM $t WHERE a = 5 AND b > 3::int2 AND b < 10::int4 ORDER BY a, b', 'mc_ab', true),
 ('SELECT a, b FROM $t WHERE a = 5 AND b > 8 AND b < 3 ORDER BY a, b', 'mc_ab', true),
 -- the first column only
 ('SELECT a, b, g FROM $t WHERE a > 17 ORDER BY a, b, g', 'mc_ab', true),
 ('SELECT a, b FROM $t WHERE a < 2 ORDER BY a DESC, b DESC', 'mc_ab', true),
 ('SELECT a, b FROM $t WHERE a >= 5::int8 AND a <= 6 ORDER BY a, b', 'mc_ab', true),
 ('SELECT a, b FROM $t ORDER BY a, b', 'mc_ab', true),
 ('SELECT a, b FROM $t ORDER BY a DESC, b DESC LIMIT 100', 'mc_ab', true),
 -- a later column only, and after a gap
 ('SELECT a, b, g FROM $t WHERE b = 4 ORDER BY a, b, g', 'mc_ab', true),
 ('SELECT c, d, b FROM $t WHERE b > 12 ORDER BY c, d, b', 'mc_cdb', true),
 ('SELECT c, d, b FROM $t WHERE c = ''k3'' AND b < 3 ORDER BY c, d, b', 'mc_cdb', true),
 -- (e + 0: -0 and 0 tie in the order, and must look alike)
 ('SELECT e + 0, f, a FROM $t WHERE a = 4 ORDER BY e, f, a', 'mc_efa', true),
 ('SELECT d, c, a, b FROM $t WHERE d = ''apple1'' AND a = 3 ORDER BY d, c, a, b', 'mc_dcab', true),
 ('SELECT d, c, a, b FROM $t WHERE d > ''banana'' AND c = ''k2'' AND b >= 7 ORDER BY d, c, a, b', 'mc_dcab', true),
 -- IS NULL and IS NOT NULL on every position
 ('SELECT a, b, g FROM $t WHERE a = 4 AND b IS NULL ORDER BY a, b, g', 'mc_ab', true),
 ('SELECT a, b, g FROM $t WHERE a IS NULL ORDER BY a, b, g', 'mc_ab', true),
 ('SELECT a, b, g FROM $t WHERE a IS NULL AND b = 4 ORDER BY a, b, g', 'mc_ab', true),
 ('SELECT a, b, g FROM $t WHERE a IS NULL AND b IS NULL ORDER BY a, b, g', 'mc_ab', true),
 ('SELECT a, b FROM $t WHERE a IS NOT NULL AND b IS NOT NULL AND a > 15 ORDER BY a, b', 'mc_ab', true),
 ('SELECT c, d, b FROM $t WHERE c = '''' AND d IS NULL ORDER BY c, d, b', 'mc_cdb', true),
 ('SELECT e, f, a FROM $t WHERE e = 1.5 AND f IS NULL ORDER BY e, f, a', 'mc_efa', true),
 -- IN lists, on the first column and on later ones
 ('SELECT a, b, g FROM $t WHERE a IN (3, 7, 2147483647, NULL) ORDER BY a, b, g', 'mc_ab', true),
 ('SELECT a, b FROM $t WHERE a IN (3, 7, 3) AND b = 4 ORDER BY a DESC, b DESC', 'mc_ab', true),
 ('SELECT a, b FROM $t WHERE a IN (3, 7) AND b IN (4, 9, 14) ORDER BY a, b', 'mc_ab', true),
 ('SELECT a, b FROM $t WHERE a = 1 AND b IN (1, 2, 9223372036854775807) ORDER BY a, b', 'mc_ab', true),
 ('SELECT a, b FROM $t WHERE a IN (1, 2) AND b > 10 ORDER BY a, b', 'mc_ab', true),
 ('SELECT a, b FROM $t WHERE a = ANY (ARRAY[]::int[]) ORDER BY a, b', 'mc_ab', true),
 ('SELECT a, b FROM $t WHERE a = 5 AND b = ANY (ARRAY[NULL]::int8[]) ORDER BY a, b', 'mc_ab', true),
 ('SELECT a, b FROM $t WHERE a = 5 AND b < ANY (ARRAY[3, 1]) ORDER BY a, b', 'mc_ab', true),
 ('SELECT c, d, b FROM $t WHERE c IN (''k1'', '''', ''k8'') AND d IN (''Apple1'', ''zebra2'', ''é0'') ORDER BY c, d, b', 'mc_cdb', true),
 ('SELECT d, c, a, b FROM $t WHERE d IN (''Ärger0'', ''apple2'') AND c IN (''k4'', ''k5'') AND a IN (4, 5) ORDER BY d, c, a, b', 'mc_dcab', true),
 -- text: "C" first, ICU second
 ('SELECT c, d, b FROM $t WHERE c = ''k4'' AND d >= ''Apple'' AND d < ''b'' ORDER BY c, d, b', 'mc_cdb', true),
 ('SELECT c, d, b FROM $t WHERE c >= ''k7'' ORDER BY c DESC, d DESC, b DESC', 'mc_cdb', true),
 ('SELECT c, d, b FROM $t WHERE c = ''k2'' AND d = ''Ärger2'' AND b > 1 ORDER BY c, d, b', 'mc_cdb', true),
 ('SELECT c, d, b FROM $t WHERE c < ''k'' ORDER BY c, d, b', 'mc_cdb', true),
 ('SELECT d, c, a, b FROM $t WHERE d < ''b'' ORDER BY d, c, a, b', 'mc_dcab', true),
 ('SELECT d, c, a, b FROM $t WHERE d = ''é1'' AND c = ''k1'' AND a > 2 ORDER BY d DESC, c DESC, a DESC, b DESC', 'mc_dcab', true),
 -- floats (-0 = 0, NaN last) and dates (infinity)
 ('SELECT e, f, a FROM $t WHERE e = 0 ORDER BY e, f, a', 'mc_efa', false),
 ('SELECT e, f, a FROM $t WHERE e = 0 AND f > ''2020-01-20'' ORDER BY e, f, a', 'mc_efa', false),
 ('SELECT e, f, a FROM $t WHERE e = ''NaN'' AND f = ''infinity'' ORDER BY e, f, a', 'mc_efa', true),
 ('SELECT e, f, a FROM $t WHERE e = 2.5 AND f >= ''2020-01-10''::timestamp AND f < ''2020-01-20'' ORDER BY e, f, a', 'mc_efa', true),
 ('SELECT e, f, a FROM $t WHERE e = 2.5::float4 AND f = ''2020-01-10 12:00''::timestamp ORDER BY e, f, a', 'mc_efa', true),
 ('SELECT e, f, a FROM $t WHERE e > 4 ORDER BY e, f, a', 'mc_efa', true),
 ('SELECT e, f, a FROM $t WHERE e IN (0, 1, ''-Infinity'') AND f = ''2020-01-05'' ORDER BY e, f, a', 'mc_efa', false),
 ('SELECT e, f, a FROM $t WHERE e < 0 OR e IS NULL ORDER BY e, f, a', 'mc_efa', true),
 -- one key column and INCLUDE
 ('SELECT c, a, e FROM $t WHERE c = ''k3''', 'mc_ci', false),
 ('SELECT c, a, e FROM $t WHERE c >= ''k7'' OR c IS NULL', 'mc_ci', false),
 ('SELECT c FROM $t WHERE c IN (''k1'', '''') ORDER BY c DESC', 'mc_ci', true),
 -- DESC and NULLS FIRST after the first column
 ('SELECT a, d, b FROM $t WHERE a = 3 ORDER BY a, d DESC, b NULLS FIRST', 'mc_adb', true),
 ('SELECT a, d, b FROM $t WHERE a = 3 ORDER BY a DESC, d, b DESC NULLS LAST', 'mc_adb', true),
 ('SELECT a, d, b FROM $t WHERE a = 3 AND d > ''b'' ORDER BY a, d DESC, b NULLS FIRST', 'mc_adb', true),
 ('SELECT a, d, b FROM $t WHERE a = 3 AND d <= ''banana1'' ORDER BY a, d DESC, b NULLS FIRST', 'mc_adb', true),
 ('SELECT a, d, b FROM $t WHERE a = 3 AND d >= ''apple'' AND d < ''b'' ORDER BY a DESC, d, b DESC NULLS LAST', 'mc_adb', true),
 ('SELECT a, d, b FROM $t WHERE a = 3 AND d = ''apple1'' AND b < 5 ORDER BY a, d DESC, b NULLS FIRST', 'mc_adb', true),
 ('SELECT a, d, b FROM $t WHERE a = 3 AND d = ''zebra0'' AND b >= 5 ORDER BY a, d DESC, b NULLS FIRST', 'mc_adb', true),
 ('SELECT a, d, b FROM $t WHERE a = 3 AND d IS NULL ORDER BY a, d DESC, b NULLS FIRST', 'mc_adb', true),
 ('SELECT a, d, b FROM $t WHERE a IN (2, 3) AND d < ''b'' ORDER BY a, d DESC, b NULLS FIRST', 'mc_adb', true),
 ('SELECT a, d, b FROM $t WHERE a IN (2, 3) AND d = ''Ärger1'' ORDER BY a DESC, d, b DESC NULLS LAST', 'mc_adb', true),
 ('SELECT a, d, b FROM $t WHERE a > 15 AND b IS NULL ORDER BY a, d DESC, b NULLS FIRST', 'mc_adb', true),
 -- ... and on the first column (DESC puts NULLs first), also alone
 ('SELECT b, a FROM $t ORDER BY b DESC, a', 'mc_ba', true),
 ('SELECT b, a FROM $t WHERE b < 5 ORDER BY b DESC, a', 'mc_ba', true),
 ('SELECT b, a FROM $t WHERE b >= 9 ORDER BY b, a DESC', 'mc_ba', true),
 ('SELECT b, a FROM $t WHERE b IS NULL ORDER BY b DESC, a', 'mc_ba', true),
 ('SELECT b, a FROM $t WHERE b IS NOT NULL AND a = 7 ORDER BY b DESC, a', 'mc_ba', true),
 ('SELECT b, a FROM $t WHERE b = 3 AND a > 5 ORDER BY b DESC, a', 'mc_ba', true),
 ('SELECT b, a FROM $t WHERE b IN (-9223372036854775808, 3, 9223372036854775807) AND a < 10 ORDER BY b DESC, a', 'mc_ba', true),
 ('SELECT b, a FROM $t WHERE b IN (3, 4) ORDER BY b, a DESC', 'mc_ba', true),
 ('SELECT e + 0, c FROM $t WHERE e > 1 ORDER BY e NULLS FIRST, c DESC NULLS LAST', 'mc_ec', true),
 ('SELECT e, c FROM $t WHERE e IS NULL ORDER BY e NULLS FIRST, c DESC NULLS LAST', 'mc_ec', true),
 ('SELECT e + 0, c FROM $t WHERE e IS NOT NULL AND c >= ''k6'' ORDER BY e DESC NULLS LAST, c NULLS FIRST', 'mc_ec', true),
 ('SELECT e + 0, c FROM $t WHERE e = 0 AND c < ''k5'' ORDER BY e NULLS FIRST, c DESC NULLS LAST', 'mc_ec', true),
 ('SELECT e + 0, c FROM $t WHERE e IN (0, ''NaN'', ''-Infinity'') ORDER BY e NULLS FIRST, c DESC NULLS LAST', 'mc_ec', true),
 ('SELECT f FROM $t WHERE f > ''2020-01-10'' ORDER BY f DESC', 'mc_f', true),
 ('SELECT f FROM $t ORDER BY f DESC LIMIT 40', 'mc_f', true),
 ('SELECT f FROM $t ORDER BY f LIMIT 40', 'mc_f', true),
 ('SELECT count(*) FROM $t WHERE f IS NULL', 'mc_f', false),
 ('SELECT f FROM $t WHERE f IN (''2020-01-03'', ''infinity'', ''2020-01-03'') ORDER BY f', 'mc_f', true)
;

CREATE FUNCTION mc_diffs() RETURNS TABLE (q text, diff text) LANGUAGE sql AS $$
	SELECT q, left(r, 400) FROM (SELECT q, mc_same(q, idx, ordered) r FROM mc_q) s
	WHERE r <> 'ok'
$$;
CREATE FUNCTION mc_check() RETURNS TABLE (idx name, ok text) LANGUAGE sql AS $$
	SELECT c.relname, fpbtree_check(c.oid, true)::text FROM pg_class c
	JOIN pg_am a ON a.oid = c.relam AND a.amname = 'fpbtree'
	WHERE c.relname LIKE 'mc\_%' ORDER BY 1
$$;
SELECT * FROM mc_diffs();
SELECT count(*) AS queries FROM mc_q;
SELECT * FROM mc_check();

-- inserts in random order that split pages, then deletes and VACUUM
INSERT INTO mc SELECT (mc_row(g)).* FROM generate_series(6001, 16000) g
ORDER BY hashint4(g);
INSERT INTO mc_bt SELECT * FROM mc WHERE id > 6000;
SELECT * FROM mc_diffs();
SELECT * FROM mc_check();
DELETE FROM mc WHERE id % 3 = 0 OR (id > 2000 AND id < 9000);
DELETE FROM mc_bt WHERE id % 3 = 0 OR (id > 2000 AND id < 9000);
-- the scans mark the deleted rows' entries dead; inserts remove them
SELECT * FROM mc_diffs();
SELECT sum(fpbtree_dead_entries(c.oid)) > 0 AS marked FROM pg_class c
JOIN pg_am a ON a.oid = c.relam AND a.amname = 'fpbtree'
WHERE c.relname LIKE 'mc\_%';
INSERT INTO mc SELECT (mc_row(g)).* FROM generate_series(16001, 20000) g
ORDER BY hashint4(g);
INSERT INTO mc_bt SELECT * FROM mc WHERE id > 16000;
SELECT * FROM mc_diffs();
SELECT * FROM mc_check();
VACUUM mc;
VACUUM mc_bt;
SELECT * FROM mc_diffs();
SELECT * FROM mc_check();

-- index-only scans return every key and INCLUDE column
SELECT fpb_plan('SELECT a, b, g FROM mc WHERE a = 3 AND b > 5', 'index') ~ 'Index Only Scan' AS ios;
SELECT fpb_plan('SELECT d, c, a, b FROM mc WHERE d > ''banana''', 'index') ~ 'Index Only Scan' AS ios;
SELECT mc_same('SELECT a, b, g FROM $t WHERE a = 3 ORDER BY a, b, g', 'mc_ab', true);

-- EXPLAIN of the scan keys
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT a, b, g FROM mc WHERE a = 3 AND b > 5 ORDER BY a, b;
EXPLAIN (COSTS OFF) SELECT * FROM mc WHERE c = 'k3' AND b < 3;
EXPLAIN (COSTS OFF) SELECT a, d, b FROM mc WHERE a = 3 AND d > 'b'
ORDER BY a, d DESC, b NULLS FIRST;
EXPLAIN (COSTS OFF) SELECT a, d, b FROM mc WHERE a = 3
ORDER BY a DESC, d, b DESC NULLS LAST;
EXPLAIN (COSTS OFF) SELECT b, a FROM mc WHERE b < 5 ORDER BY b DESC, a;
EXPLAIN (COSTS OFF) SELECT f FROM mc ORDER BY f DESC LIMIT 5;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- a cursor that reads both ways
BEGIN;
SELECT fpb_mode('index');
DECLARE cur SCROLL CURSOR FOR
	SELECT a, b, g FROM mc WHERE a IN (4, 5) AND b >= 6 ORDER BY a, b, g;
FETCH 3 FROM cur;
FETCH BACKWARD 2 FROM cur;
MOVE FORWARD 1000 IN cur;
FETCH BACKWARD 3 FROM cur;
FETCH FORWARD 2 FROM cur;
COMMIT;
BEGIN;
SELECT fpb_mode('index');
DECLARE cur SCROLL CURSOR FOR
	SELECT a, b, g FROM mc_bt WHERE a IN (4, 5) AND b >= 6 ORDER BY a, b, g;
FETCH 3 FROM cur;
FETCH BACKWARD 2 FROM cur;
MOVE FORWARD 1000 IN cur;
FETCH BACKWARD 3 FROM cur;
FETCH FORWARD 2 FROM cur;
COMMIT;

-- a parallel scan gives the rows of a serial one
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_index_scan_size = 0;
SET min_parallel_table_scan_size = 0;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET max_parallel_workers_per_gather = 2;
SELECT fpb_explain('SELECT count(*), sum(b) FROM mc WHERE a > 3') ~ 'Parallel Index Only Scan' AS parallel;
SELECT fpb_explain('SELECT count(*), sum(b) FROM mc WHERE a IN (2, 9, 17) AND b > 4') ~ 'Parallel Index Only Scan' AS parallel;
SELECT count(*), sum(b), sum(hashtext(g)) FROM mc WHERE a > 3;
SELECT count(*), sum(b) FROM mc WHERE a IN (2, 9, 17) AND b > 4;
SELECT count(*), sum(hashtext(d)) FROM mc WHERE c > 'k4' AND b < 7;
SELECT fpb_explain('SELECT count(*), sum(f - date ''2020-01-01'') FROM mc WHERE f > ''2020-01-05''') ~ 'Parallel Index Only Scan using mc_f' AS parallel;
SELECT count(*), sum(f - date '2020-01-01') FROM mc WHERE f > '2020-01-05' AND f < 'infinity';
RESET ALL;
SELECT fpb_mode('index');
SELECT count(*), sum(b), sum(hashtext(g)) FROM mc_bt WHERE a > 3;
SELECT count(*), sum(b) FROM mc_bt WHERE a IN (2, 9, 17) AND b > 4;
SELECT count(*), sum(hashtext(d)) FROM mc_bt WHERE c > 'k4' AND b < 7;
SELECT count(*), sum(f - date '2020-01-01') FROM mc_bt WHERE f > '2020-01-05' AND f < 'infinity';

-- up to INDEX_MAX_KEYS columns; a row larger than a wide index accepts
CREATE TABLE mc_wide AS SELECT g AS c1, g % 3 AS c2, g % 5 AS c3, g % 7 AS c4,
	g % 2 AS c5, g % 4 AS c6, g % 6 AS c7, g % 8 AS c8, g % 9 AS c9,
	g % 10 AS c10, g % 11 AS c11, g % 12 AS c12, g % 13 AS c13,
	g % 14 AS c14, g % 15 AS c15, g % 16 AS c16, g % 17 AS c17,
	g % 18 AS c18, g % 19 AS c19, g % 20 AS c20, g % 21 AS c21,
	g % 22 AS c22, g % 23 AS c23, g % 24 AS c24, g % 25 AS c25,
	g % 26 AS c26, g % 27 AS c27, g % 28 AS c28, g % 29 AS c29,
	g % 30 AS c30, g % 31 AS c31, g::text AS c32
FROM generate_series(1, 500) g;
CREATE INDEX mc_wide_all ON mc_wide USING fpbtree (c2, c3, c4, c5, c6, c7, c8,
	c9, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, c20, c21, c22, c23,
	c24, c25, c26, c27, c28, c29, c30, c31, c32, c1);
SELECT fpbtree_check('mc_wide_all', true);
SET enable_seqscan = off;
SELECT count(*), sum(c1) FROM mc_wide WHERE c2 = 1 AND c3 = 2 AND c4 > 3;
RESET enable_seqscan;
SELECT count(*), sum(c1) FROM mc_wide WHERE c2 = 1 AND c3 = 2 AND c4 > 3;
CREATE TABLE mc_long (a int, t text);
CREATE INDEX mc_long_at ON mc_long USING fpbtree (a, t);
INSERT INTO mc_long VALUES (1, repeat('x', 1600));
INSERT INTO mc_long SELECT 1, left(string_agg(md5(g::text), ''), 1800) FROM generate_series(1, 57) g;
SELECT count(*) FROM mc_long;

-- a unique index of one DESC column
CREATE TABLE mc_ud (k int4);
CREATE UNIQUE INDEX mc_ud_k ON mc_ud USING fpbtree (k DESC);
INSERT INTO mc_ud SELECT g FROM generate_series(1, 3000) g;
INSERT INTO mc_ud VALUES (NULL), (NULL);
INSERT INTO mc_ud VALUES (77);
SELECT count(*), fpbtree_check('mc_ud_k', true) FROM mc_ud;

-- unique indexes on several columns: a row with a NULL key column is
-- distinct unless NULLS NOT DISTINCT; INCLUDE columns are no part of the
-- key; the errors are btree's
CREATE FUNCTION mu_both(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r text := '';
	t text;
	detail text;
BEGIN
	FOREACH t IN ARRAY ARRAY['mu_bt', 'mu_fp'] LOOP
		BEGIN
			EXECUTE replace(stmt, '$T', t);
			r := r || t || ': ok; ';
		EXCEPTION WHEN unique_violation THEN
			GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
			r := r || t || ': ' || replace(SQLERRM, t, '$T') || ' ' || detail || '; ';
		END;
	END LOOP;
	RETURN r;
END $$;
CREATE TABLE mu_bt (a int4, b text COLLATE "C", c int8, n text)
WITH (autovacuum_enabled = off);
CREATE TABLE mu_fp (LIKE mu_bt) WITH (autovacuum_enabled = off);
INSERT INTO mu_bt SELECT g % 100, 'v' || (g / 100), g, 'n' || g
FROM generate_series(1, 5000) g;
INSERT INTO mu_bt VALUES (NULL, 'x', 1, 'a'), (NULL, 'x', 1, 'b'),
	(1, NULL, 1, 'c'), (1, NULL, 1, 'd');
INSERT INTO mu_fp SELECT * FROM mu_bt;
CREATE UNIQUE INDEX mu_bt_ab ON mu_bt (a, b) INCLUDE (n);
CREATE UNIQUE INDEX mu_fp_ab ON mu_fp USING fpbtree (a, b) INCLUDE (n);
SELECT mu_both('INSERT INTO $T VALUES (5, ''v7'', 0, ''new'')');
SELECT mu_both('INSERT INTO $T VALUES (5, ''v70'', 0, ''new'')');
SELECT mu_both('INSERT INTO $T VALUES (NULL, ''x'', 0, ''new'')');
SELECT mu_both('INSERT INTO $T VALUES (1, NULL, 0, ''new'')');
SELECT mu_both('UPDATE $T SET n = n || ''!'' WHERE a = 7 AND b = ''v3''');
SELECT mu_both('UPDATE $T SET b = ''v4'' WHERE a = 7 AND b = ''v3''');
-- a deleted row's key may come back
SELECT mu_both('DELETE FROM $T WHERE a = 8 AND b = ''v8''');
SELECT mu_both('INSERT INTO $T VALUES (8, ''v8'', 0, ''again'')');
SELECT mu_both('INSERT INTO $T VALUES (8, ''v8'', 0, ''again'')');
SELECT fpbtree_check('mu_fp_ab', true);
-- the error's detail, as btree words it
INSERT INTO mu_fp VALUES (9, 'v9', 0, 'dup');
INSERT INTO mu_bt VALUES (9, 'v9', 0, 'dup');
-- NULLS NOT DISTINCT, at build and at insert
DELETE FROM mu_bt WHERE a IS NULL OR b IS NULL;
DELETE FROM mu_fp WHERE a IS NULL OR b IS NULL;
SELECT mu_both('INSERT INTO $T VALUES (NULL, ''x'', 0, ''n''), (1, NULL, 0, ''n''), (NULL, NULL, 0, ''n'')');
CREATE UNIQUE INDEX mu_fp_nnd ON mu_fp USING fpbtree (a, b) NULLS NOT DISTINCT;
CREATE UNIQUE INDEX mu_bt_nnd ON mu_bt (a, b) NULLS NOT DISTINCT;
SELECT mu_both('INSERT INTO $T VALUES (NULL, ''x'', 0, ''new'')');
SELECT mu_both('INSERT INTO $T VALUES (1, NULL, 0, ''new'')');
SELECT mu_both('INSERT INTO $T VALUES (NULL, NULL, 0, ''new'')');
SELECT mu_both('INSERT INTO $T VALUES (NULL, ''y'', 0, ''new'')');
SELECT fpbtree_check('mu_fp_nnd', true);
-- CREATE UNIQUE INDEX over duplicates of the key (INCLUDE differs)
CREATE TABLE mu2 AS SELECT * FROM mu_fp;
INSERT INTO mu2 VALUES (NULL, 'y', 1, 'again'), (5, 'v7', 1, 'other');
CREATE UNIQUE INDEX mu2_fp ON mu2 USING fpbtree (a, b) INCLUDE (n);
CREATE UNIQUE INDEX mu2_bt ON mu2 (a, b) INCLUDE (n);
DELETE FROM mu2 WHERE n = 'other';
CREATE UNIQUE INDEX mu2_fp ON mu2 USING fpbtree (a, b) NULLS NOT DISTINCT;
CREATE UNIQUE INDEX mu2_bt ON mu2 (a, b) NULLS NOT DISTINCT;
CREATE UNIQUE INDEX mu2_fp ON mu2 USING fpbtree (a, b);
SELECT fpbtree_check('mu2_fp', true);
