--
-- 03_runs: posting pages of several keys (each key once, before its run of
-- TIDs), which a leaf of short runs of equal keys becomes when it fills up
-- by inserts: made, split, given entries of new keys, marked dead,
-- VACUUMed, read by scans in both directions, in parallel, and by the
-- uniqueness check.  Every scan is compared with a sequential scan, and the
-- index is checked by fpbtree_check.
--

-- on its own: the extension and settings
\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\i sql/include/pageinspect.sql
\set ECHO all

-- idx's leaf pages by format, from the flags in the special space (bytes 28
-- and 29 of its 64): regular (FPB_F_LEAF 0x1 alone), posting pages of one
-- key (FPB_F_POSTING 0x80), of several keys (also FPB_F_RUNS 0x100)
CREATE FUNCTION pr_formats(idx regclass, OUT regular bigint,
						   OUT one_key bigint, OUT runs bigint)
LANGUAGE sql AS $$
	SELECT count(*) FILTER (WHERE f & 401 = 1),
		   count(*) FILTER (WHERE f & 401 = 129),
		   count(*) FILTER (WHERE f & 401 = 385)
	FROM (SELECT get_byte(p, 8156) | (get_byte(p, 8157) << 8) AS f
		  FROM generate_series(1, pg_relation_size(idx) / 8192 - 1) b,
			   LATERAL get_raw_page(idx::text, b::int) p) x
$$;

-- 1,500 values of about 40 rows each, NULLs and the int8 extremes, inserted
-- in random order into an empty index
CREATE FUNCTION pr_fill(tab text, lo int, hi int, nvals int) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format($q$INSERT INTO %I
		SELECT g, CASE WHEN g %% 97 = 0 THEN NULL
					   WHEN g %% 89 = 0 THEN -9223372036854775808
					   WHEN g %% 83 = 0 THEN 9223372036854775807
					   ELSE (g::int8 * 7919) %% %s END
		FROM generate_series(%s, %s) g ORDER BY hashint4(g)$q$,
		tab, nvals, lo, hi);
END $$;

CREATE TABLE pr (id int4, k int8) WITH (autovacuum_enabled = off);
CREATE INDEX pr_k ON pr USING fpbtree (k);
SELECT pr_fill('pr', 1, 60000, 1500);
-- the same rows through a btree index, for the size
CREATE TABLE pr_bt (id int4, k int8) WITH (autovacuum_enabled = off);
CREATE INDEX pr_bt_k ON pr_bt USING btree (k);
SELECT pr_fill('pr_bt', 1, 60000, 1500);
VACUUM ANALYZE pr, pr_bt;
SELECT fpbtree_check('pr_k', true);
SELECT runs > 0 AS some_runs, runs > regular AS mostly_runs
FROM pr_formats('pr_k');
-- a regular leaf holds at most 540 entries: 60,000 of them need at least
-- 112 leaves, and a random order of inserts leaves them about 70% full
SELECT s.pages_per_level[1] < 112 AS fewer_leaves FROM fpbtree_stats('pr_k') s;
SELECT pg_relation_size('pr_k') <= 1.1 * pg_relation_size('pr_bt_k')
	AS within_btree_size;

CREATE TABLE pr_q (q text);
INSERT INTO pr_q VALUES
	('SELECT id FROM %s WHERE k = 7'),
	('SELECT id FROM %s WHERE k = 1499'),
	('SELECT id FROM %s WHERE k = 1600'),
	('SELECT id FROM %s WHERE k < 300'),
	('SELECT id FROM %s WHERE k <= 300'),
	('SELECT id FROM %s WHERE k > 1200'),
	('SELECT id FROM %s WHERE k >= 1200'),
	('SELECT id FROM %s WHERE k BETWEEN 600 AND 640'),
	('SELECT id FROM %s WHERE k > 600 AND k < 601'),
	('SELECT id FROM %s WHERE k IN (7, 8, 9, 1000, -9223372036854775808)'),
	('SELECT id FROM %s WHERE k = 9223372036854775807'),
	('SELECT id FROM %s WHERE k = -9223372036854775808'),
	('SELECT id FROM %s WHERE k IS NULL'),
	('SELECT id FROM %s WHERE k IS NOT NULL AND k >= 1400'),
	('SELECT k FROM %s WHERE k >= 1450 ORDER BY k'),
	('SELECT k FROM %s ORDER BY k DESC'),
	('SELECT k FROM %s ORDER BY k NULLS FIRST'),
	('SELECT k FROM %s WHERE k <= 700 ORDER BY k DESC LIMIT 3000');

CREATE FUNCTION pr_check(tab text) RETURNS TABLE (q text, res text)
LANGUAGE plpgsql AS $$
DECLARE
	qq text;
BEGIN
	FOR qq IN SELECT pr_q.q FROM pr_q ORDER BY 1 LOOP
		q := qq;
		res := fpb_same(format(qq, tab), tab || '_k', qq ~ 'ORDER BY');
		RETURN NEXT;
	END LOOP;
END $$;
SELECT q, left(res, 150) AS res FROM pr_check('pr') WHERE res <> 'ok';
SELECT count(*) FROM pr_check('pr') WHERE res = 'ok';

-- a scroll cursor across the pages, forward and back
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT fpb_explain('SELECT id, k FROM pr WHERE k >= 100 ORDER BY k') ~ '^Index Scan using pr_k'
	AS index_scan;
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT id, k FROM pr WHERE k >= 100 ORDER BY k;
FETCH 3 FROM c;
MOVE FORWARD 30000 IN c;
FETCH BACKWARD 2 FROM c;
FETCH LAST FROM c;
FETCH BACKWARD 2 FROM c;
MOVE ABSOLUTE 2 IN c;
FETCH BACKWARD 3 FROM c;
COMMIT;
-- the same row numbers in the index's order: equal keys by heap TID
SELECT id, k FROM (SELECT id, k, row_number() OVER (ORDER BY k, ctid) rn
				   FROM pr WHERE k >= 100) s
WHERE rn IN (1, 2, 3, 30002, 30001) ORDER BY rn;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- entries of new keys between the runs (the page is laid out again with a
-- new run, or split), and more of the old keys
SELECT pr_fill('pr', 60001, 70000, 3000);
SELECT fpbtree_check('pr_k', true);
SELECT q, left(res, 150) AS res FROM pr_check('pr') WHERE res <> 'ok';

-- deletes all over: a scan marks the dead entries on the pages of runs,
-- inserts remove them before splitting, VACUUM removes the rest
DELETE FROM pr WHERE id % 3 = 0;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM pr WHERE k >= 0;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT fpbtree_dead_entries('pr_k') > 0 AS marked;
SELECT fpbtree_check('pr_k', true);
SELECT q, left(res, 150) AS res FROM pr_check('pr') WHERE res <> 'ok';
SELECT pr_fill('pr', 70001, 80000, 1500);
SELECT fpbtree_check('pr_k', true);
VACUUM pr;
SELECT fpbtree_dead_entries('pr_k') AS marked;
SELECT fpbtree_check('pr_k', true);
SELECT q, left(res, 150) AS res FROM pr_check('pr') WHERE res <> 'ok';
SELECT runs > 0 AS still_runs FROM pr_formats('pr_k');
-- VACUUM thins the pages out below a regular page's entries: they go back
-- to the regular format
DELETE FROM pr WHERE id % 4 <> 0;
VACUUM pr;
SELECT fpbtree_check('pr_k', true);
SELECT runs AS runs_left FROM pr_formats('pr_k');
SELECT q, left(res, 150) AS res FROM pr_check('pr') WHERE res <> 'ok';

-- parallel index scans over pages of runs, compared with a serial scan
TRUNCATE pr;
SELECT pr_fill('pr', 1, 60000, 1500);
VACUUM ANALYZE pr;
SELECT runs > 0 AS runs FROM pr_formats('pr_k');
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET min_parallel_index_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT fpb_explain('SELECT id FROM pr WHERE k >= 700') ~ 'Parallel Index' AS parallel;
CREATE TEMP TABLE pr_par AS SELECT id FROM pr WHERE k >= 700;
CREATE TEMP TABLE pr_par_o AS SELECT k FROM pr WHERE k <= 800 ORDER BY k DESC;
SET max_parallel_workers_per_gather = 0;
RESET enable_seqscan;
SELECT count(*) FROM ((SELECT id FROM pr_par EXCEPT ALL SELECT id FROM pr WHERE k >= 700)
	UNION ALL (SELECT id FROM pr WHERE k >= 700 EXCEPT ALL SELECT id FROM pr_par)) d;
SELECT count(*) FROM ((SELECT k FROM pr_par_o EXCEPT ALL SELECT k FROM pr WHERE k <= 800)
	UNION ALL (SELECT k FROM pr WHERE k <= 800 EXCEPT ALL SELECT k FROM pr_par_o)) d;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET min_parallel_index_scan_size;
RESET enable_bitmapscan;

-- a unique index whose keys have runs of old versions (non-HOT updates of
-- rows whose key stays): the check still reads every version of a key
CREATE TABLE pr_u (id int4, u int8, v int4)
	WITH (autovacuum_enabled = off, fillfactor = 100);
CREATE UNIQUE INDEX pr_u_u ON pr_u USING fpbtree (u);
CREATE INDEX pr_u_v ON pr_u USING fpbtree (v);
INSERT INTO pr_u SELECT g, g, 0 FROM generate_series(1, 1000) g;
BEGIN;
UPDATE pr_u SET v = v + 1;
UPDATE pr_u SET v = v + 1;
UPDATE pr_u SET v = v + 1;
UPDATE pr_u SET v = v + 1;
COMMIT;
SELECT fpbtree_check('pr_u_u', true), fpbtree_check('pr_u_v', true);
INSERT INTO pr_u VALUES (2000, 500, 0);
INSERT INTO pr_u VALUES (2001, 1001, 0);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), count(DISTINCT u), min(v), max(v) FROM pr_u WHERE u > 0;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- an unlogged index: a page of runs whose array grows into lines that still
-- hold the nodes of its regular past (nothing zeroes an unlogged page's
-- hole)
CREATE UNLOGGED TABLE pr_ul (id int4, k int8) WITH (autovacuum_enabled = off);
CREATE INDEX pr_ul_k ON pr_ul USING fpbtree (k);
INSERT INTO pr_ul SELECT g, g % 25 FROM generate_series(1, 700) g ORDER BY hashint4(g);
DELETE FROM pr_ul WHERE id % 2 = 0;
VACUUM pr_ul;
INSERT INTO pr_ul SELECT 1000 + g, g % 25 FROM generate_series(1, 700) g;
SELECT fpbtree_check('pr_ul_k', true);
SELECT runs > 0 AS runs FROM pr_formats('pr_ul_k');

-- CREATE INDEX packs runs too: 20 and about 5 rows a value, NULLs and
-- the extremes, serial and parallel builds, each checked, compared with
-- sequential scans and, for the size, with btree's deduplicated index
CREATE TABLE pr_b (id int4, k int8) WITH (autovacuum_enabled = off);
SELECT pr_fill('pr_b', 1, 60000, 3000);
CREATE TABLE pr_b5 (id int4, k int8) WITH (autovacuum_enabled = off);
SELECT pr_fill('pr_b5', 1, 60000, 12000);
SET max_parallel_maintenance_workers = 0;
CREATE INDEX pr_b_k ON pr_b USING fpbtree (k);
CREATE INDEX pr_b5_k ON pr_b5 USING fpbtree (k);
SELECT fpbtree_check('pr_b_k', true), fpbtree_check('pr_b5_k', true);
SELECT regular, one_key, runs > 0 AS runs FROM pr_formats('pr_b_k');
SELECT runs > 0 AS runs FROM pr_formats('pr_b5_k');
SELECT q, left(res, 150) AS res FROM pr_check('pr_b') WHERE res <> 'ok';
SELECT q, left(res, 150) AS res FROM pr_check('pr_b5') WHERE res <> 'ok';
CREATE INDEX pr_b_bt ON pr_b USING btree (k);
CREATE INDEX pr_b5_bt ON pr_b5 USING btree (k);
SELECT pg_relation_size('pr_b_k') <= pg_relation_size('pr_b_bt') AS b_not_larger,
	   pg_relation_size('pr_b5_k') <= pg_relation_size('pr_b5_bt') AS b5_not_larger;
DROP INDEX pr_b_bt, pr_b5_bt;
-- a parallel build of runs this short loads serially: the same pages
SET max_parallel_maintenance_workers = 2;
SET min_parallel_table_scan_size = 0;
SET maintenance_work_mem = '64MB';
CREATE INDEX pr_b_kp ON pr_b USING fpbtree (k);
SELECT fpbtree_check('pr_b_kp', true);
SELECT (SELECT row(s.*)::text FROM fpbtree_stats('pr_b_k') s) =
	   (SELECT row(s.*)::text FROM fpbtree_stats('pr_b_kp') s) AS same_tree;
DROP INDEX pr_b_kp;
RESET max_parallel_maintenance_workers;
RESET min_parallel_table_scan_size;
RESET maintenance_work_mem;
-- inserts into the built pages of runs
SELECT pr_fill('pr_b', 60001, 70000, 3000);
SELECT fpbtree_check('pr_b_k', true);
SELECT q, left(res, 150) AS res FROM pr_check('pr_b') WHERE res <> 'ok';

DROP TABLE pr, pr_bt, pr_q, pr_u, pr_ul, pr_b, pr_b5;
DROP FUNCTION pr_fill(text, int, int, int);
DROP FUNCTION pr_check(text);
DROP FUNCTION pr_formats(regclass);
