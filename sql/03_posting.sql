--
-- 03_posting: posting pages (leaves of one key that keep the key once with
-- its TIDs) on low-cardinality columns: few values, one value on 90% of the
-- rows, NULL runs, extreme keys, NaN next to NULL.  Built by CREATE INDEX
-- and by inserts, then deletes and VACUUM; every scan is compared with a
-- sequential scan, and the index is checked by fpbtree_check.
--

-- on its own: the extension and settings
\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

-- k: 90% value 7, the rest 0..9 and the int8 extremes, NULL runs;
-- f: runs of NaN and NULL (their keys are equal, only the tiebreaker's NULL
-- bit tells them apart)
CREATE FUNCTION pp_fill(tab text, lo int, hi int) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format($q$INSERT INTO %I
		SELECT g,
			   CASE WHEN g %% 10 <> 0 THEN 7
					WHEN g %% 970 = 0 THEN NULL
					WHEN g %% 330 = 0 THEN -9223372036854775808
					WHEN g %% 110 = 0 THEN 9223372036854775807
					ELSE (g / 10) %% 10 END,
			   CASE WHEN g %% 3 = 0 THEN 'NaN'::float8
					WHEN g %% 3 = 1 THEN NULL
					WHEN g %% 4 = 0 THEN 2.5::float8
					ELSE (g %% 5)::float8 END
		FROM generate_series(%s, %s) g$q$, tab, lo, hi);
END $$;

CREATE TABLE pp_b (id int4, k int8, f float8) WITH (autovacuum_enabled = off);
SELECT pp_fill('pp_b', 1, 30000);
CREATE INDEX pp_b_k ON pp_b USING fpbtree (k);
CREATE INDEX pp_b_f ON pp_b USING fpbtree (f);
-- the same rows through inserts into empty indexes, in two orders
CREATE TABLE pp_i (id int4, k int8, f float8) WITH (autovacuum_enabled = off);
CREATE INDEX pp_i_k ON pp_i USING fpbtree (k);
CREATE INDEX pp_i_f ON pp_i USING fpbtree (f);
SELECT pp_fill('pp_i', 15001, 30000);
SELECT pp_fill('pp_i', 1, 15000);
VACUUM ANALYZE pp_b, pp_i;
SELECT fpbtree_check('pp_b_k', true), fpbtree_check('pp_b_f', true),
	   fpbtree_check('pp_i_k', true), fpbtree_check('pp_i_f', true);

-- a run of 27,000 equal keys: far fewer leaves than regular pages would take
-- (at most 540 entries each)
SELECT s.pages_per_level[1] < 27000 / 540 AS fewer_leaves
FROM fpbtree_stats('pp_b_k') s;
SELECT s.pages_per_level[1] < 27000 / 540 AS fewer_leaves
FROM fpbtree_stats('pp_i_k') s;

CREATE TABLE pp_q (q text);
INSERT INTO pp_q VALUES
	('SELECT id FROM %s WHERE k = 7'),
	('SELECT id FROM %s WHERE k = 3'),
	('SELECT id FROM %s WHERE k < 7'),
	('SELECT id FROM %s WHERE k <= 7'),
	('SELECT id FROM %s WHERE k > 7'),
	('SELECT id FROM %s WHERE k >= 7'),
	('SELECT id FROM %s WHERE k BETWEEN 6 AND 8'),
	('SELECT id FROM %s WHERE k IN (7, 9, -9223372036854775808)'),
	('SELECT id FROM %s WHERE k = 9223372036854775807'),
	('SELECT id FROM %s WHERE k = -9223372036854775808'),
	('SELECT id FROM %s WHERE k IS NULL'),
	('SELECT id FROM %s WHERE k IS NOT NULL AND k >= 7'),
	('SELECT k FROM %s WHERE k >= 5 ORDER BY k'),
	('SELECT k FROM %s ORDER BY k DESC'),
	('SELECT k FROM %s ORDER BY k NULLS FIRST'),
	('SELECT k FROM %s WHERE k <= 7 ORDER BY k DESC LIMIT 3000'),
	('SELECT id FROM %s WHERE f = ''NaN'''),
	('SELECT id FROM %s WHERE f IS NULL'),
	('SELECT id FROM %s WHERE f > 3'),
	('SELECT id FROM %s WHERE f = 0'),
	('SELECT f FROM %s WHERE f >= 4 ORDER BY f'),
	('SELECT f FROM %s ORDER BY f DESC'),
	('SELECT f FROM %s ORDER BY f DESC NULLS LAST');

-- every query, index-only and index scans, bitmap scans, on both tables
CREATE FUNCTION pp_check(tab text) RETURNS TABLE (q text, res text)
LANGUAGE plpgsql AS $$
DECLARE
	qq text;
BEGIN
	FOR qq IN SELECT pp_q.q FROM pp_q ORDER BY 1 LOOP
		q := qq;
		res := fpb_same(format(qq, tab),
						tab || CASE WHEN qq ~ '\mk\M' THEN '_k' ELSE '_f' END,
						qq ~ 'ORDER BY');
		RETURN NEXT;
	END LOOP;
END $$;
SELECT q, left(res, 150) AS res FROM pp_check('pp_b') WHERE res <> 'ok';
SELECT q, left(res, 150) AS res FROM pp_check('pp_i') WHERE res <> 'ok';
SELECT count(*) FROM pp_check('pp_b') WHERE res = 'ok';

-- a scroll cursor through the run, forward and back
SET enable_seqscan = off;
SET enable_bitmapscan = off;
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT id, k FROM pp_b WHERE k >= 6 ORDER BY k;
FETCH 3 FROM c;
MOVE FORWARD 20000 IN c;
FETCH BACKWARD 2 FROM c;
FETCH LAST FROM c;
FETCH BACKWARD 2 FROM c;
MOVE ABSOLUTE 2 IN c;
FETCH BACKWARD 3 FROM c;
COMMIT;
-- the same row numbers through a sequential scan's order
SELECT id, k FROM (SELECT id, k, row_number() OVER (ORDER BY k, id) rn
				   FROM pp_b WHERE k >= 6) s
WHERE rn IN (1, 2, 3, 20002, 20001) ORDER BY rn;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- deletes in the middle of the run, a scan marks the dead entries of the
-- posting pages, VACUUM removes them
DELETE FROM pp_b WHERE k = 7 AND id % 7 = 0;
DELETE FROM pp_b WHERE k IS NULL AND id < 10000;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM pp_b WHERE k = 7;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT fpbtree_dead_entries('pp_b_k') > 0 AS marked;
SELECT fpbtree_check('pp_b_k', true);
VACUUM pp_b;
SELECT fpbtree_dead_entries('pp_b_k') AS marked;
SELECT fpbtree_check('pp_b_k', true), fpbtree_check('pp_b_f', true);
SELECT q, left(res, 150) AS res FROM pp_check('pp_b') WHERE res <> 'ok';
-- insert into the run again (TIDs VACUUM freed: inside the posting pages),
-- and other keys between the runs (posting pages split at the key)
SELECT pp_fill('pp_b', 30001, 36000);
INSERT INTO pp_b SELECT 50000 + g, 7 + (g % 2), g FROM generate_series(1, 2000) g;
SELECT fpbtree_check('pp_b_k', true), fpbtree_check('pp_b_f', true);
SELECT q, left(res, 150) AS res FROM pp_check('pp_b') WHERE res <> 'ok';
-- delete a whole run: its posting pages go empty and are deleted
DELETE FROM pp_b WHERE k = 7;
VACUUM pp_b;
SELECT fpbtree_check('pp_b_k', true);
SELECT q, left(res, 150) AS res FROM pp_check('pp_b') WHERE res <> 'ok';

-- parallel index scans over posting pages, compared with a serial scan
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET min_parallel_index_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT fpb_explain('SELECT id FROM pp_i WHERE k >= 7') ~ 'Parallel Index' AS parallel;
CREATE TEMP TABLE pp_par AS SELECT id FROM pp_i WHERE k >= 7;
CREATE TEMP TABLE pp_par_o AS SELECT k FROM pp_i WHERE k <= 8 ORDER BY k DESC;
RESET max_parallel_workers_per_gather;
SET max_parallel_workers_per_gather = 0;
RESET enable_seqscan;
SELECT count(*) FROM pp_par;
SELECT count(*) FROM ((SELECT id FROM pp_par EXCEPT ALL SELECT id FROM pp_i WHERE k >= 7)
	UNION ALL (SELECT id FROM pp_i WHERE k >= 7 EXCEPT ALL SELECT id FROM pp_par)) d;
SELECT count(*) FROM ((SELECT k FROM pp_par_o EXCEPT ALL SELECT k FROM pp_i WHERE k <= 8)
	UNION ALL (SELECT k FROM pp_i WHERE k <= 8 EXCEPT ALL SELECT k FROM pp_par_o)) d;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET min_parallel_index_scan_size;
RESET enable_bitmapscan;

-- a unique index whose NULLs (distinct) make a posting page run: the check
-- still finds a duplicate key, and more NULLs go in
CREATE TABLE pp_u (id int4, u int8) WITH (autovacuum_enabled = off);
INSERT INTO pp_u SELECT g, CASE WHEN g % 4 = 0 THEN g END FROM generate_series(1, 8000) g;
CREATE UNIQUE INDEX pp_u_u ON pp_u USING fpbtree (u);
SELECT s.pages_per_level[1] < 6000 / 540 AS fewer_leaves FROM fpbtree_stats('pp_u_u') s;
INSERT INTO pp_u VALUES (9001, 400);
INSERT INTO pp_u SELECT 10000 + g, NULL FROM generate_series(1, 3000) g;
INSERT INTO pp_u VALUES (9002, 8000);
INSERT INTO pp_u VALUES (9003, 8001);
SELECT fpbtree_check('pp_u_u', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM pp_u WHERE u IS NULL;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- an unlogged index: a page of many nodes becomes a posting page of fewer
-- lines (VACUUM), whose array then grows into the lines above it, which
-- still hold old nodes (nothing zeroes an unlogged page's hole)
CREATE UNLOGGED TABLE pp_ul (id int4, k int8) WITH (autovacuum_enabled = off);
INSERT INTO pp_ul SELECT g, CASE WHEN g % 54 = 0 THEN 6 ELSE 5 END
	FROM generate_series(1, 540) g;
CREATE INDEX pp_ul_k ON pp_ul USING fpbtree (k) WITH (fillfactor = 100);
DELETE FROM pp_ul WHERE k = 6;
VACUUM pp_ul;
INSERT INTO pp_ul SELECT 1000 + g, 5 FROM generate_series(1, 40) g;
SELECT fpbtree_check('pp_ul_k', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM pp_ul WHERE k = 5;
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE pp_ul;

-- the size against btree's deduplicated index: 400,000 rows of 20 values (as
-- many rows a value as 2M rows of 100 values)
CREATE TABLE pp_size (k int8) WITH (autovacuum_enabled = off);
INSERT INTO pp_size SELECT g % 20 FROM generate_series(1, 400000) g;
SET max_parallel_maintenance_workers = 0;
CREATE INDEX pp_size_f ON pp_size USING fpbtree (k);
CREATE INDEX pp_size_b ON pp_size USING btree (k);
RESET max_parallel_maintenance_workers;
SELECT pg_relation_size('pp_size_f') <= pg_relation_size('pp_size_b') AS not_larger;
SELECT fpbtree_check('pp_size_f', true);

DROP TABLE pp_b, pp_i, pp_q, pp_u, pp_size;
DROP FUNCTION pp_fill(text, int, int);
DROP FUNCTION pp_check(text);
