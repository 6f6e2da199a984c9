--
-- 51_widekey: indexes on uuid, text, varchar and bpchar (wide keys: a
-- prefix in the node, the full value in a slot of the page).  Every scan
-- form returns what a sequential scan returns, in the same order where
-- the query orders, under "C", an ICU collation, a non-deterministic ICU
-- collation and the database's libc collation (prefix 0: every order
-- decided by the comparison), after the bulk build, after inserts that
-- split pages, and after deletes and VACUUM; fpbtree_check passes.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

CREATE COLLATION wk_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);

CREATE TABLE wk (id int, u uuid, t text, c text COLLATE "C",
				 i text COLLATE "en-x-icu", n text COLLATE wk_ci,
				 v varchar(60), b char(8))
WITH (autovacuum_enabled = off);

-- values: NULLs, duplicates, empty strings, a common start longer than the
-- prefix, non-ASCII, case variants, and long values
CREATE FUNCTION wk_text(g int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE
		WHEN g % 53 = 0 THEN NULL
		WHEN g % 11 = 0 THEN ''
		WHEN g % 7 = 0 THEN 'common-prefix-' || (g % 300)
		WHEN g % 5 = 0 THEN (ARRAY['é', 'Ärger', 'ärger', '日本語', 'zebra', 'Zebra', 'ZEBRA'])[1 + g % 7] || (g % 40)
		WHEN g % 13 = 0 THEN repeat(md5(g::text), 20)
		ELSE md5((g % 2500)::text)
	END
$$;
CREATE FUNCTION wk_row(g int) RETURNS wk LANGUAGE sql IMMUTABLE AS $$
	SELECT g,
		CASE WHEN g % 47 = 0 THEN NULL ELSE md5((g % 4000)::text)::uuid END,
		wk_text(g), wk_text(g), wk_text(g), wk_text(g),
		left(wk_text(g), 60),
		CASE WHEN g % 41 = 0 THEN NULL ELSE (g % 900)::text END
$$;
INSERT INTO wk SELECT (wk_row(g)).* FROM generate_series(1, 6000) g;

CREATE INDEX wk_u ON wk USING fpbtree (u);
CREATE INDEX wk_t ON wk USING fpbtree (t);
CREATE INDEX wk_c ON wk USING fpbtree (c);
CREATE INDEX wk_i ON wk USING fpbtree (i);
CREATE INDEX wk_n ON wk USING fpbtree (n);
CREATE INDEX wk_v ON wk USING fpbtree (v);
CREATE INDEX wk_b ON wk USING fpbtree (b);

-- the queries, each compared with a sequential scan
CREATE TABLE wk_q (q text, idx text, ordered bool);
INSERT INTO wk_q VALUES
 ('SELECT u FROM wk WHERE u < ''80000000-0000-0000-0000-000000000000'' ORDER BY u', 'wk_u', true),
 ('SELECT u FROM wk WHERE u >= ''80000000-0000-0000-0000-000000000000'' ORDER BY u DESC', 'wk_u', true),
 ('SELECT id FROM wk WHERE u = md5(''42'')::uuid', 'wk_u', false),
 ('SELECT u FROM wk WHERE u > md5(''42'')::uuid AND u <= md5(''4242'')::uuid ORDER BY u', 'wk_u', true),
 ('SELECT u FROM wk WHERE u IN (md5(''1'')::uuid, md5(''2'')::uuid, md5(''99999'')::uuid) ORDER BY u', 'wk_u', true),
 ('SELECT id FROM wk WHERE u IS NULL', 'wk_u', false),
 ('SELECT count(*) FROM wk WHERE u IS NOT NULL', 'wk_u', false)
;
-- (under the case-insensitive collation equal values may differ in case:
-- the order of their rows is not defined, so only the rows are compared,
-- and the order by the check below; nor which of them a LIMIT keeps)
INSERT INTO wk_q SELECT replace(q, '$c', col), 'wk_' || col, o AND col <> 'n'
FROM unnest(ARRAY['t', 'c', 'i', 'n', 'v']) col,
(VALUES
 ('SELECT $c FROM wk WHERE $c < ''c'' ORDER BY $c', true),
 ('SELECT $c FROM wk WHERE $c <= ''common-prefix-2'' ORDER BY $c DESC', true),
 ('SELECT id FROM wk WHERE $c = ''''', false),
 ('SELECT id FROM wk WHERE $c = ''common-prefix-17''', false),
 ('SELECT id FROM wk WHERE $c = ''zebra3''', false),
 ('SELECT $c FROM wk WHERE $c >= ''common-prefix-1'' AND $c < ''common-prefix-2'' ORDER BY $c', true),
 ('SELECT $c FROM wk WHERE $c > ''Ärger'' ORDER BY $c LIMIT 50', true),
 ('SELECT $c FROM wk WHERE $c > ''e'' ORDER BY $c DESC LIMIT 50', true),
 ('SELECT $c FROM wk WHERE $c IN (''zebra10'', ''Zebra12'', ''日本語5'', '''') ORDER BY $c', true),
 ('SELECT $c FROM wk WHERE $c > ANY (ARRAY[''x'', ''y'']) ORDER BY $c', true),
 ('SELECT $c FROM wk WHERE $c = ANY (ARRAY[''zebra3'', ''ZEBRA3'', ''zebra3'', NULL]) AND $c >= ''ZEBRA'' ORDER BY $c DESC', true),
 ('SELECT $c FROM wk WHERE $c = ANY (ARRAY[''é5'', ''Ärger10'']) AND $c = ANY (ARRAY[''Ärger10'', ''x''])', false),
 ('SELECT count(*) FROM wk WHERE $c IS NULL', false),
 ('SELECT $c FROM wk WHERE $c IS NOT NULL ORDER BY $c', true)
) x(q, o)
WHERE col <> 'n' OR q NOT LIKE '%LIMIT%';
INSERT INTO wk_q VALUES
 ('SELECT b FROM wk WHERE b = ''42'' ORDER BY b', 'wk_b', true),
 ('SELECT b FROM wk WHERE b = ''42      ''', 'wk_b', false),
 ('SELECT b FROM wk WHERE b < ''2'' ORDER BY b DESC', 'wk_b', true),
 ('SELECT b FROM wk WHERE b >= ''899'' ORDER BY b', 'wk_b', true);

CREATE FUNCTION wk_diffs() RETURNS TABLE (q text, diff text) LANGUAGE sql AS $$
	SELECT q, left(r, 200) FROM (SELECT q, fpb_same(q, idx, ordered) r FROM wk_q) s
	WHERE r <> 'ok'
$$;
-- the order of the case-insensitive index: never decreasing by its collation
CREATE FUNCTION wk_ci_order() RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
	ok bool;
BEGIN
	PERFORM fpb_mode('index');
	SELECT bool_and(p <= n) INTO ok FROM
		(SELECT n, lag(n) OVER () AS p FROM
			(SELECT n FROM wk WHERE n > '' ORDER BY n) s) x;
	RETURN ok;
END $$;
SELECT * FROM wk_diffs();
SELECT wk_ci_order();
SELECT count(*) AS queries FROM wk_q;

-- inserts that split pages, then deletes and VACUUM
INSERT INTO wk SELECT (wk_row(g)).* FROM generate_series(6001, 12000) g;
SELECT * FROM wk_diffs();
SELECT wk_ci_order();
DELETE FROM wk WHERE id % 3 = 0 OR (id > 1500 AND id < 4500);
VACUUM wk;
SELECT * FROM wk_diffs();
SELECT wk_ci_order();
SELECT c.relname, fpbtree_check(c.oid, true) FROM pg_class c
JOIN pg_am a ON a.oid = c.relam AND a.amname = 'fpbtree'
WHERE c.relname LIKE 'wk\__' ORDER BY 1;

-- index-only scans return the full value
SELECT fpb_plan('SELECT t FROM wk WHERE t > ''zebra''', 'index') ~ 'Index Only Scan' AS ios;
SELECT fpb_same('SELECT t FROM wk WHERE t > ''zebra'' ORDER BY t', 'wk_t', true);

-- a cursor that reads both ways
BEGIN;
SELECT fpb_mode('index');
DECLARE cur SCROLL CURSOR FOR SELECT c FROM wk WHERE c >= 'common' ORDER BY c;
FETCH 3 FROM cur;
FETCH BACKWARD 2 FROM cur;
MOVE FORWARD 1000 IN cur;
FETCH BACKWARD 2 FROM cur;
COMMIT;

-- a parallel scan gives the rows of a serial one
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_index_scan_size = 0;
SET min_parallel_table_scan_size = 0;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET max_parallel_workers_per_gather = 2;
SELECT fpb_explain('SELECT count(*) FROM wk WHERE i > ''m''') ~ 'Parallel Index Only Scan' AS parallel;
SELECT count(*) FROM wk WHERE i > 'm';
SELECT count(*), sum(id) FROM wk WHERE c IN ('zebra10', 'Zebra12', '', 'common-prefix-17', 'nothing');
RESET ALL;
SELECT fpb_mode('seq');
SELECT count(*) FROM wk WHERE i > 'm';
SELECT count(*), sum(id) FROM wk WHERE c IN ('zebra10', 'Zebra12', '', 'common-prefix-17', 'nothing');

-- long values: up to a quarter of a page (with these node widths 1696
-- bytes); beyond, compressed (66_long_values), and when that is not
-- enough (hex digits), the error btree gives for index rows too large
CREATE TABLE wk_long (t text COLLATE "C");
CREATE INDEX wk_long_t ON wk_long USING fpbtree (t) WITH (nonleaf_lines = 4, leaf_lines = 8);
INSERT INTO wk_long SELECT repeat(chr(65 + g % 26), 1600) || g FROM generate_series(1, 300) g;
INSERT INTO wk_long SELECT left(string_agg(md5(g::text), ''), 1700) FROM generate_series(1, 54) g;
SELECT count(*) FROM wk_long;
SELECT fpbtree_check('wk_long_t', true);
SELECT fpb_same('SELECT t FROM wk_long WHERE t > ''M'' ORDER BY t', 'wk_long_t', true);

-- a search value may be longer than any stored one: compared, not stored
SELECT fpb_same('SELECT t FROM wk_long WHERE t = repeat(''x'', 5000)', 'wk_long_t');
SELECT fpb_same('SELECT t FROM wk_long WHERE t < repeat(''B'', 5000) AND t > repeat(''A'', 3000)', 'wk_long_t');
SELECT fpb_same('SELECT t FROM wk_long WHERE t IN (repeat(''x'', 5000), repeat(''B'', 1600) || ''1'')', 'wk_long_t');

-- unique indexes on wide keys: duplicates are refused at build and at
-- insert, by the collation's equality (case-insensitive under wk_ci);
-- NULLs are distinct unless NULLS NOT DISTINCT
CREATE TABLE wk_uq (u uuid, s text COLLATE "C", n text COLLATE wk_ci)
WITH (autovacuum_enabled = off);
INSERT INTO wk_uq SELECT md5(g::text)::uuid, md5(g::text), 'v' || g
FROM generate_series(1, 3000) g;
INSERT INTO wk_uq VALUES (NULL, NULL, NULL), (NULL, NULL, NULL);
CREATE UNIQUE INDEX wk_uq_u ON wk_uq USING fpbtree (u);
CREATE UNIQUE INDEX wk_uq_s ON wk_uq USING fpbtree (s);
CREATE UNIQUE INDEX wk_uq_n ON wk_uq USING fpbtree (n);
INSERT INTO wk_uq VALUES (md5('17')::uuid, 'new', 'new1');
INSERT INTO wk_uq VALUES (md5('a')::uuid, md5('17'), 'new2');
INSERT INTO wk_uq VALUES (md5('b')::uuid, 'new3', 'V17');
INSERT INTO wk_uq VALUES (md5('c')::uuid, 'new4', 'v17 ');
INSERT INTO wk_uq VALUES (NULL, NULL, NULL);
-- a deleted row's value may come back, in another case under wk_ci
DELETE FROM wk_uq WHERE s = md5('18');
INSERT INTO wk_uq VALUES (md5('18')::uuid, md5('18'), 'V18');
-- many inserts (splits), then each index's check, uniqueness included
INSERT INTO wk_uq SELECT md5(g::text)::uuid, md5(g::text), 'w' || g
FROM generate_series(3001, 9000) g;
INSERT INTO wk_uq VALUES (md5('8999')::uuid, 'new5', 'new5');
SELECT fpbtree_check('wk_uq_u', true), fpbtree_check('wk_uq_s', true),
	   fpbtree_check('wk_uq_n', true);
-- CREATE UNIQUE INDEX over duplicates
CREATE TABLE wk_uq2 AS SELECT * FROM wk_uq;
INSERT INTO wk_uq2 VALUES (NULL, md5('5'), 'V77');
CREATE UNIQUE INDEX ON wk_uq2 USING fpbtree (s);
CREATE UNIQUE INDEX ON wk_uq2 USING fpbtree (n);
CREATE UNIQUE INDEX ON wk_uq2 USING fpbtree (u) NULLS NOT DISTINCT;
CREATE UNIQUE INDEX ON wk_uq2 USING fpbtree (u);

-- emptied pages are deleted and reused; scans mark dead entries, which
-- inserts remove (the values' slots go with them)
CREATE TABLE wk_del (id int, s text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO wk_del SELECT g, md5(g::text) || repeat('y', g % 30) FROM generate_series(1, 8000) g;
CREATE INDEX wk_del_s ON wk_del USING fpbtree (s);
DELETE FROM wk_del WHERE s < '8';
VACUUM wk_del;
SELECT deleted_pages > 0 AS deleted FROM fpbtree_stats('wk_del_s');
INSERT INTO wk_del SELECT g, '0' || md5(g::text) FROM generate_series(1, 2000) g;
UPDATE wk_del SET id = -id WHERE s > 'f';
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(id) FROM wk_del WHERE s > 'f';
SELECT count(id) FROM wk_del WHERE s > 'f';
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT fpbtree_dead_entries('wk_del_s') > 0 AS marked;
INSERT INTO wk_del SELECT g, 'f' || md5(g::text) FROM generate_series(1, 2000) g;
SELECT fpbtree_dead_entries('wk_del_s') AS marks_left;
SELECT fpbtree_check('wk_del_s', true);
SELECT fpb_same('SELECT s FROM wk_del WHERE s > ''e'' ORDER BY s', 'wk_del_s', true);

-- parallel scans share out runs between the keys of the level-1
-- downlinks (pscan.c): long values make a tall tree with many level-1
-- pages; forward and backward (below Gather Merge) equal serial scans
CREATE TABLE wk_par (id int, s text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO wk_par SELECT g, repeat(md5((g % 4000)::text), 12) || g
FROM generate_series(1, 8000) g;
CREATE INDEX wk_par_s ON wk_par USING fpbtree (s);
VACUUM ANALYZE wk_par;
SELECT height >= 3 AS tall, pages_per_level[2] > 2 AS level1_pages
FROM fpbtree_stats('wk_par_s');
-- a costly filter the workers evaluate makes parallel plans the cheapest
CREATE FUNCTION wk_true(x text) RETURNS bool
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE COST 100000 AS $$ BEGIN RETURN true; END $$;
CREATE FUNCTION wk_par_q(q text, par bool) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r text;
BEGIN
	IF par THEN
		PERFORM set_config('parallel_setup_cost', '0', true);
		PERFORM set_config('parallel_tuple_cost', '0', true);
		PERFORM set_config('min_parallel_index_scan_size', '0', true);
		PERFORM set_config('max_parallel_workers_per_gather', '2', true);
		PERFORM set_config('enable_seqscan', 'off', true);
		PERFORM set_config('enable_bitmapscan', 'off', true);
	ELSE
		PERFORM fpb_mode('seq');
	END IF;
	EXECUTE q INTO r;
	RETURN r;
END $$;
SELECT wk_par_q('SELECT fpb_explain(''SELECT s FROM wk_par WHERE s > ''''3'''' AND wk_true(s) ORDER BY s DESC'')', true)
	~ 'Gather Merge.*Parallel Index Only Scan Backward using wk_par_s' AS backward_parallel;
SELECT wk_par_q('SELECT fpb_explain(''SELECT count(*) FROM wk_par WHERE s > ''''3'''' AND wk_true(s)'')', true)
	~ 'Parallel Index Only Scan using wk_par_s' AS forward_parallel;
SELECT q, wk_par_q(q, true) = wk_par_q(q, false) AS same FROM (VALUES
 ('SELECT count(*)::text || sum(id) FROM wk_par WHERE s > ''3'' AND wk_true(s)'),
 ('SELECT count(*)::text || sum(id) FROM wk_par WHERE s > ''3'' AND s < ''c'' AND wk_true(s)'),
 ('SELECT md5(string_agg(s, '','')) FROM (SELECT s FROM wk_par WHERE s > ''6'' AND wk_true(s) ORDER BY s) x'),
 ('SELECT md5(string_agg(s, '','')) FROM (SELECT s FROM wk_par WHERE s > ''3'' AND wk_true(s) ORDER BY s DESC) x'),
 ('SELECT count(*)::text || sum(id) FROM wk_par WHERE s = ANY (ARRAY(SELECT s FROM wk_par WHERE id % 500 = 0)) AND wk_true(s)')
) v(q);
