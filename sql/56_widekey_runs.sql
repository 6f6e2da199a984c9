--
-- 56_widekey_runs: pages of runs on wide indexes.  A leaf of a one-column
-- wide index whose equal values are equal bytes (text under a deterministic
-- collation, uuid, bytea) keeps each value once before its run of TIDs,
-- made by CREATE INDEX and by inserts; elsewhere (a nondeterministic
-- collation, numeric, bpchar) leaves stay regular.  Every scan is compared
-- with a sequential scan, and every index is checked by fpbtree_check.
--

-- on its own: the extension and settings
\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\i sql/include/pageinspect.sql
\set ECHO all

-- idx's leaf pages: regular, pages of runs (FPB_F_POSTING 0x80 and
-- FPB_F_RUNS 0x100), and pages that may become one (FPB_F_DEDUP 0x200)
CREATE FUNCTION wr_formats(idx regclass, OUT regular bigint, OUT runs bigint,
						   OUT dedup bigint)
LANGUAGE sql AS $$
	SELECT count(*) FILTER (WHERE f & 385 = 1),
		   count(*) FILTER (WHERE f & 385 = 385),
		   count(*) FILTER (WHERE f & 513 = 513)
	FROM (SELECT get_byte(p, 8156) | (get_byte(p, 8157) << 8) AS f
		  FROM generate_series(1, pg_relation_size(idx) / 8192 - 1) b,
			   LATERAL get_raw_page(idx::text, b::int) p) x
$$;

CREATE COLLATION wr_ci (provider = icu, locale = 'und-u-ks-level2',
						deterministic = false);

-- 80 values of about 250 rows each, with NULLs, the empty string, a long
-- value and non-ASCII ones; the same values as uuid and bytea
CREATE FUNCTION wr_val(g int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN g % 101 = 0 THEN NULL
				WHEN g % 80 = 1 THEN ''
				WHEN g % 80 = 2 THEN repeat('long-', 60)
				WHEN g % 80 = 3 THEN 'Ärger'
				WHEN g % 80 = 4 THEN 'ärger'
				ELSE 'status-' || (g % 80)::text END
$$;

CREATE TABLE wr (id int, s text COLLATE "C", i text COLLATE "en-x-icu",
				 n text COLLATE wr_ci, u uuid, b bytea, q numeric)
	WITH (autovacuum_enabled = off);
CREATE INDEX wr_s ON wr USING fpbtree (s);
CREATE INDEX wr_i ON wr USING fpbtree (i);
CREATE INDEX wr_n ON wr USING fpbtree (n);
CREATE INDEX wr_u ON wr USING fpbtree (u);
CREATE INDEX wr_b ON wr USING fpbtree (b);
CREATE INDEX wr_q ON wr USING fpbtree (q);
-- inserted in random order into the empty indexes
INSERT INTO wr
SELECT g, wr_val(g), wr_val(g), wr_val(g), md5(wr_val(g))::uuid,
	   convert_to(wr_val(g), 'UTF8'),
	   CASE WHEN g % 2 = 0 THEN (g % 80)::numeric ELSE (g % 80)::numeric(10, 2) END
FROM generate_series(1, 20000) g ORDER BY hashint4(g);
VACUUM ANALYZE wr;
SELECT 'wr_s', fpbtree_check('wr_s', true) UNION ALL
SELECT 'wr_i', fpbtree_check('wr_i', true) UNION ALL
SELECT 'wr_n', fpbtree_check('wr_n', true) UNION ALL
SELECT 'wr_u', fpbtree_check('wr_u', true) UNION ALL
SELECT 'wr_b', fpbtree_check('wr_b', true) UNION ALL
SELECT 'wr_q', fpbtree_check('wr_q', true);
-- text under "C" and ICU, uuid and bytea become pages of runs; the
-- nondeterministic collation and numeric (1 and 1.00 are equal) do not
SELECT x.idx, f.runs > 0 AS some_runs, f.runs > f.regular AS mostly_runs,
	   f.dedup > 0 AS may_dedup
FROM unnest(ARRAY['wr_s', 'wr_i', 'wr_u', 'wr_b', 'wr_n', 'wr_q']) x(idx),
	 LATERAL wr_formats(x.idx::regclass) f;

-- scans of every kind, compared with a sequential scan
SELECT fpb_same('SELECT s FROM wr WHERE s = ''status-17''', 'wr_s');
SELECT fpb_same('SELECT id, s FROM wr WHERE s >= ''status-2'' AND s < ''status-4''', 'wr_s');
SELECT fpb_same('SELECT s FROM wr WHERE s > ''long'' AND s <= ''status-1''', 'wr_s');
SELECT fpb_same('SELECT id FROM wr WHERE s IS NULL', 'wr_s');
SELECT fpb_same('SELECT s FROM wr WHERE s = ''''', 'wr_s');
SELECT fpb_same('SELECT s FROM wr WHERE s = repeat(''long-'', 60)', 'wr_s');
SELECT fpb_same('SELECT s FROM wr WHERE s IN (''status-5'', ''Ärger'', ''nothing'', ''status-79'')', 'wr_s');
SELECT fpb_same('SELECT s FROM wr WHERE s > ''status-77'' ORDER BY s DESC', 'wr_s', true);
SELECT fpb_same('SELECT i FROM wr WHERE i >= ''a'' AND i < ''s''', 'wr_i');
SELECT fpb_same('SELECT i FROM wr WHERE i = ''ärger''', 'wr_i');
SELECT fpb_same('SELECT n FROM wr WHERE n = ''ÄRGER''', 'wr_n');
SELECT fpb_same('SELECT u FROM wr WHERE u > ''80000000-0000-0000-0000-000000000000''', 'wr_u');
SELECT fpb_same('SELECT b FROM wr WHERE b BETWEEN ''\x73'' AND ''\x7374617475732d35''', 'wr_b');
SELECT fpb_same('SELECT q::text FROM wr WHERE q = 7', 'wr_q');
SELECT fpb_same('SELECT s FROM wr ORDER BY s LIMIT 700', 'wr_s', true);

-- a cursor reads the runs in both directions
BEGIN;
SELECT fpb_mode('index');
DECLARE c SCROLL CURSOR FOR SELECT s, id FROM wr WHERE s >= 'status-3' AND s < 'status-32' ORDER BY s;
FETCH LAST FROM c;
FETCH BACKWARD 3 FROM c;
FETCH ABSOLUTE 2 FROM c;
MOVE FORWARD 400 IN c;
FETCH 2 FROM c;
COMMIT;

-- the same rows loaded by CREATE INDEX: no larger than btree's
CREATE INDEX wr_s_built ON wr USING fpbtree (s);
CREATE INDEX wr_s_btree ON wr USING btree (s);
CREATE INDEX wr_u_built ON wr USING fpbtree (u);
CREATE INDEX wr_u_btree ON wr USING btree (u);
SELECT fpbtree_check('wr_s_built', true), fpbtree_check('wr_u_built', true);
SELECT pg_relation_size('wr_s_built') <= pg_relation_size('wr_s_btree') AS text_size_ok,
	   pg_relation_size('wr_u_built') <= pg_relation_size('wr_u_btree') AS uuid_size_ok;
SELECT f.runs > f.regular AS mostly_runs FROM wr_formats('wr_s_built') f;
DROP INDEX wr_s_btree, wr_u_btree, wr_u_built;
SELECT fpb_same('SELECT s FROM wr WHERE s >= ''status-2'' AND s < ''status-4''', 'wr_s_built');
SELECT fpb_same('SELECT s FROM wr WHERE s IS NULL', 'wr_s_built');
DROP INDEX wr_s_built;

-- new values between the runs, new rows of old values, then deletes: the
-- scans skip the entries they found dead and mark them, VACUUM removes them
INSERT INTO wr (id, s, u)
SELECT g, 'status-' || (g % 80)::text || '-new', md5(g::text)::uuid
FROM generate_series(20001, 26000) g ORDER BY hashint4(g);
INSERT INTO wr (id, s, u)
SELECT g, wr_val(g), md5(wr_val(g))::uuid FROM generate_series(26001, 30000) g;
SELECT fpbtree_check('wr_s', true), fpbtree_check('wr_u', true);
DELETE FROM wr WHERE id % 3 = 0;
SELECT fpb_same('SELECT s FROM wr WHERE s >= ''status-1'' AND s < ''status-5''', 'wr_s');
SELECT fpb_same('SELECT id, u FROM wr WHERE u < ''40000000-0000-0000-0000-000000000000''', 'wr_u');
SELECT fpbtree_check('wr_s', true), fpbtree_check('wr_u', true);
VACUUM wr;
SELECT fpbtree_check('wr_s', true), fpbtree_check('wr_u', true);
SELECT fpb_same('SELECT s FROM wr WHERE s >= ''status-1'' AND s < ''status-5''', 'wr_s');
SELECT fpb_same('SELECT s FROM wr WHERE s LIKE ''status-4%''', 'wr_s');
-- most rows gone: VACUUM turns pages of runs back into regular pages or
-- deletes them, and the scans still agree
DELETE FROM wr WHERE id % 10 <> 1;
VACUUM wr;
SELECT fpbtree_check('wr_s', true), fpbtree_check('wr_u', true);
SELECT fpb_same('SELECT s, id FROM wr WHERE s > ''''', 'wr_s');

-- in parallel: the participants share out the runs' leaves
CREATE TABLE wr_par (id int, s text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO wr_par SELECT g, 'p-' || (g % 50)::text FROM generate_series(1, 60000) g;
CREATE INDEX wr_par_s ON wr_par USING fpbtree (s);
VACUUM ANALYZE wr_par;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_index_scan_size = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM wr_par WHERE s >= 'p-1' AND s < 'p-3';
SELECT count(*) FROM wr_par WHERE s >= 'p-1' AND s < 'p-3';
RESET ALL;
SELECT count(*) FROM wr_par WHERE s >= 'p-1' AND s < 'p-3';

-- a unique index whose updates leave runs of versions of one value: in
-- one transaction, so that no version can be removed before the pages
-- fill (committed one by one, the dead versions may be removed instead,
-- and whether a page of runs forms depends on where the pages split)
CREATE TABLE wr_uq (k text COLLATE "C", v int) WITH (autovacuum_enabled = off);
CREATE UNIQUE INDEX wr_uq_k ON wr_uq USING fpbtree (k);
CREATE INDEX wr_uq_v ON wr_uq USING fpbtree (v);
INSERT INTO wr_uq SELECT 'key-' || (g % 400)::text, g FROM generate_series(1, 400) g;
BEGIN;
UPDATE wr_uq SET v = v + 1000;
UPDATE wr_uq SET v = v + 1000;
UPDATE wr_uq SET v = v + 1000;
COMMIT;
SELECT fpbtree_check('wr_uq_k', true);
SELECT f.runs > 0 AS some_runs FROM wr_formats('wr_uq_k') f;
INSERT INTO wr_uq VALUES ('key-17', 0);
INSERT INTO wr_uq VALUES ('key-17x', 0);
SELECT fpb_same('SELECT k FROM wr_uq WHERE k = ''key-17''', 'wr_uq_k');

-- multi-column indexes: runs of equal tuples where every key column's equal
-- values are equal bytes and there are no INCLUDE columns; not with a float
-- key column (its two zeros) nor with INCLUDE columns
CREATE TABLE wr_mc (id int, c int4, s text COLLATE "C", f float8, d date)
	WITH (autovacuum_enabled = off);
CREATE INDEX wr_mc_cs ON wr_mc USING fpbtree (c, s);
CREATE INDEX wr_mc_sdesc ON wr_mc USING fpbtree (s DESC NULLS FIRST, d);
CREATE INDEX wr_mc_cf ON wr_mc USING fpbtree (c, f);
CREATE INDEX wr_mc_inc ON wr_mc USING fpbtree (c) INCLUDE (s);
INSERT INTO wr_mc
SELECT g, CASE WHEN g % 97 = 0 THEN NULL ELSE g % 40 END,
	   CASE WHEN g % 89 = 0 THEN NULL ELSE 'st-' || (g % 7) END,
	   CASE WHEN g % 2 = 0 THEN '0'::float8 ELSE '-0'::float8 END,
	   date '2024-01-01' + g % 3
FROM generate_series(1, 20000) g ORDER BY hashint4(g * 7);
VACUUM ANALYZE wr_mc;
SELECT x.idx, fpbtree_check(x.idx::regclass, true), f.runs > 0 AS some_runs,
	   f.dedup > 0 AS may_dedup
FROM unnest(ARRAY['wr_mc_cs', 'wr_mc_sdesc', 'wr_mc_cf', 'wr_mc_inc']) x(idx),
	 LATERAL wr_formats(x.idx::regclass) f;
DROP INDEX wr_mc_sdesc, wr_mc_cf, wr_mc_inc;
SELECT fpb_same('SELECT c, s FROM wr_mc WHERE c = 7', 'wr_mc_cs');
SELECT fpb_same('SELECT c, s FROM wr_mc WHERE c = 7 AND s = ''st-3''', 'wr_mc_cs');
SELECT fpb_same('SELECT c, s, id FROM wr_mc WHERE c BETWEEN 3 AND 5 AND s > ''st-4''', 'wr_mc_cs');
SELECT fpb_same('SELECT c, s FROM wr_mc WHERE c IS NULL', 'wr_mc_cs');
SELECT fpb_same('SELECT c, s FROM wr_mc WHERE c = 11 AND s IS NULL', 'wr_mc_cs');
SELECT fpb_same('SELECT c, s FROM wr_mc WHERE c IN (1, 5, 39) ORDER BY c DESC, s DESC', 'wr_mc_cs', true);
-- built by CREATE INDEX: no larger than btree's
CREATE INDEX wr_mc_cs_built ON wr_mc USING fpbtree (c, s);
CREATE INDEX wr_mc_cs_btree ON wr_mc USING btree (c, s);
SELECT fpbtree_check('wr_mc_cs_built', true),
	   pg_relation_size('wr_mc_cs_built') <= 1.1 * pg_relation_size('wr_mc_cs_btree') AS size_ok,
	   f.runs > f.regular AS mostly_runs
FROM wr_formats('wr_mc_cs_built') f;
DROP INDEX wr_mc_cs_built, wr_mc_cs_btree;
-- deletes, VACUUM, new keys between the runs
DELETE FROM wr_mc WHERE id % 3 = 0;
SELECT fpb_same('SELECT c, s FROM wr_mc WHERE c BETWEEN 10 AND 20', 'wr_mc_cs');
VACUUM wr_mc;
INSERT INTO wr_mc SELECT g, g % 40, 'st-' || (g % 7) || 'x', 0, NULL
FROM generate_series(20001, 24000) g ORDER BY hashint4(g);
SELECT fpbtree_check('wr_mc_cs', true);
SELECT fpb_same('SELECT c, s FROM wr_mc WHERE c BETWEEN 10 AND 20', 'wr_mc_cs');
-- a unique two-column index with versions of its keys
CREATE TABLE wr_mcu (a int4, b text COLLATE "C", v int) WITH (autovacuum_enabled = off);
CREATE UNIQUE INDEX wr_mcu_ab ON wr_mcu USING fpbtree (a, b);
CREATE INDEX wr_mcu_v ON wr_mcu USING fpbtree (v);
INSERT INTO wr_mcu SELECT g % 20, 'k' || (g / 20), g FROM generate_series(1, 400) g;
UPDATE wr_mcu SET v = v + 1000;
UPDATE wr_mcu SET v = v + 1000;
UPDATE wr_mcu SET v = v + 1000;
SELECT fpbtree_check('wr_mcu_ab', true);
INSERT INTO wr_mcu VALUES (3, 'k5', 0);
INSERT INTO wr_mcu VALUES (3, 'k5x', 0);
SELECT fpb_same('SELECT a, b FROM wr_mcu WHERE a = 3', 'wr_mcu_ab');
