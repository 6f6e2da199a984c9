--
-- 02_scans: NULLs (IS NULL / IS NOT NULL), ORDER BY ASC/DESC with NULLS
-- FIRST/LAST, LIMIT, index-only scans and bitmap scans.
--

-- on its own: the extension, settings, fpb_same() and its helpers
\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

CREATE TABLE scan_t (id int4, k int4, f float8) WITH (autovacuum_enabled = off);
INSERT INTO scan_t
	SELECT g,
		   CASE WHEN g % 7 = 0 THEN NULL ELSE (g * 37) % 1000 END,
		   CASE WHEN g % 11 = 0 THEN NULL ELSE ((g * 53) % 997) / 4.0 END
	FROM generate_series(1, 10000) g;
CREATE INDEX scan_t_k ON scan_t USING fpbtree (k);
CREATE INDEX scan_t_f ON scan_t USING fpbtree (f);
VACUUM ANALYZE scan_t;

-- NULLs
CREATE TABLE scan_q (q text, idx text, ordered bool);
INSERT INTO scan_q VALUES
	('SELECT id FROM scan_t WHERE k IS NULL', 'scan_t_k', false),
	('SELECT id, k FROM scan_t WHERE k IS NOT NULL', 'scan_t_k', false),
	('SELECT k FROM scan_t WHERE k IS NOT NULL', 'scan_t_k', false),
	('SELECT count(*) FROM scan_t WHERE k IS NULL', 'scan_t_k', false),
	('SELECT count(*) FROM scan_t WHERE f IS NULL', 'scan_t_f', false),
	('SELECT id FROM scan_t WHERE k IS NULL AND k > 5', 'scan_t_k', false),
	('SELECT id FROM scan_t WHERE k IS NOT NULL AND k < 5', 'scan_t_k', false),
	('SELECT id FROM scan_t WHERE k IS NOT NULL AND k IS NULL', 'scan_t_k', false),
	('SELECT id FROM scan_t WHERE f IS NULL', 'scan_t_f', false),
	('SELECT id, f FROM scan_t WHERE f IS NOT NULL', 'scan_t_f', false),
	-- ORDER BY in every direction and NULLS position, with and without LIMIT
	('SELECT k FROM scan_t ORDER BY k', 'scan_t_k', true),
	('SELECT k FROM scan_t ORDER BY k ASC NULLS LAST', 'scan_t_k', true),
	('SELECT k FROM scan_t ORDER BY k ASC NULLS FIRST', 'scan_t_k', true),
	('SELECT k FROM scan_t ORDER BY k DESC', 'scan_t_k', true),
	('SELECT k FROM scan_t ORDER BY k DESC NULLS FIRST', 'scan_t_k', true),
	('SELECT k FROM scan_t ORDER BY k DESC NULLS LAST', 'scan_t_k', true),
	('SELECT k FROM scan_t ORDER BY k LIMIT 17', 'scan_t_k', true),
	('SELECT k FROM scan_t ORDER BY k DESC LIMIT 17', 'scan_t_k', true),
	('SELECT k FROM scan_t ORDER BY k DESC LIMIT 2000', 'scan_t_k', true),
	('SELECT k FROM scan_t ORDER BY k NULLS FIRST LIMIT 2000', 'scan_t_k', true),
	('SELECT k FROM scan_t WHERE k > 500 ORDER BY k LIMIT 30', 'scan_t_k', true),
	('SELECT k FROM scan_t WHERE k < 500 ORDER BY k DESC LIMIT 30', 'scan_t_k', true),
	('SELECT k FROM scan_t WHERE k >= 990 ORDER BY k DESC', 'scan_t_k', true),
	('SELECT k FROM scan_t WHERE k <= 3 ORDER BY k', 'scan_t_k', true),
	('SELECT k FROM scan_t WHERE k BETWEEN 100 AND 110 ORDER BY k DESC', 'scan_t_k', true),
	('SELECT k FROM scan_t WHERE k = 777 ORDER BY k DESC', 'scan_t_k', true),
	('SELECT k FROM scan_t WHERE k IS NULL ORDER BY k', 'scan_t_k', true),
	('SELECT k FROM scan_t WHERE k IS NOT NULL ORDER BY k DESC LIMIT 50', 'scan_t_k', true),
	('SELECT f FROM scan_t ORDER BY f DESC', 'scan_t_f', true),
	('SELECT f FROM scan_t ORDER BY f NULLS FIRST', 'scan_t_f', true),
	('SELECT f FROM scan_t WHERE f < 10 ORDER BY f DESC', 'scan_t_f', true),
	('SELECT f FROM scan_t WHERE f > 200 ORDER BY f LIMIT 5', 'scan_t_f', true),
	-- min() / max() use the index from both ends
	('SELECT min(k), max(k) FROM scan_t', 'scan_t_k', false),
	('SELECT min(f), max(f) FROM scan_t', 'scan_t_f', false),
	('SELECT max(k) FROM scan_t WHERE k < 500', 'scan_t_k', false);

SELECT q, left(fpb_same(q, idx, ordered), 300) AS res FROM scan_q ORDER BY q;

SET enable_seqscan = off;
SET enable_bitmapscan = off;

-- ordered scans in both directions: the plan reads the index, no Sort
EXPLAIN (COSTS OFF) SELECT k FROM scan_t ORDER BY k;
EXPLAIN (COSTS OFF) SELECT k FROM scan_t ORDER BY k DESC;
EXPLAIN (COSTS OFF) SELECT k FROM scan_t ORDER BY k NULLS FIRST;   -- needs a sort
EXPLAIN (COSTS OFF) SELECT k FROM scan_t WHERE k > 5 ORDER BY k DESC LIMIT 3;
EXPLAIN (COSTS OFF) SELECT min(k), max(k) FROM scan_t;
SELECT min(k), max(k), min(f), max(f) FROM scan_t;

-- NULLs sort last in an ascending scan and first in a descending one
SELECT k FROM scan_t ORDER BY k DESC LIMIT 3;
SELECT k FROM scan_t ORDER BY k LIMIT 3;
SELECT k FROM scan_t WHERE k > 995 ORDER BY k DESC;
SELECT id, k FROM scan_t WHERE k IS NULL ORDER BY id LIMIT 3;
SELECT count(*) FROM scan_t WHERE k IS NULL;
SELECT count(*) FROM scan_t WHERE k IS NOT NULL;
EXPLAIN (COSTS OFF) SELECT count(*) FROM scan_t WHERE k IS NULL;

-- index-only scans: the plan, and results from the index alone
EXPLAIN (COSTS OFF) SELECT k FROM scan_t WHERE k < 3;
SELECT k FROM scan_t WHERE k < 3;
EXPLAIN (COSTS OFF) SELECT f FROM scan_t WHERE f BETWEEN 1 AND 2;
SELECT f FROM scan_t WHERE f BETWEEN 1 AND 2;
EXPLAIN (COSTS OFF) SELECT count(*) FROM scan_t WHERE k IS NOT NULL;
-- an index-only scan returns the right number of rows
-- (how many heap fetches it makes depends on whether a concurrent snapshot
-- kept VACUUM from setting the visibility map, so only the row count shows)
CREATE FUNCTION scan_explain(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	ln text;
BEGIN
	FOR ln IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q
	LOOP
		RETURN NEXT regexp_replace(ln, 'Heap Fetches: [0-9]+', 'Heap Fetches: N');
	END LOOP;
END $$;
SELECT scan_explain('SELECT count(*) FROM scan_t WHERE k >= 10 AND k < 20');
DROP FUNCTION scan_explain(text);
SELECT count(*) FROM scan_t WHERE k >= 10 AND k < 20;
-- after an update the changed page is visited, results stay right
UPDATE scan_t SET k = 15 WHERE id = 1;
SELECT count(*) FROM scan_t WHERE k >= 10 AND k < 20;
SELECT count(*) FROM scan_t WHERE k = 37;
UPDATE scan_t SET k = 37 WHERE id = 1;
VACUUM scan_t;

-- index-only scan inside a cursor, read backwards and forwards
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT k FROM scan_t WHERE k BETWEEN 500 AND 502 ORDER BY k;
FETCH 3 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH LAST FROM c;
FETCH BACKWARD 4 FROM c;
FETCH ABSOLUTE 1 FROM c;
FETCH FORWARD 100 FROM c;
FETCH PRIOR FROM c;
CLOSE c;
COMMIT;

-- bitmap scans
RESET enable_bitmapscan;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM scan_t WHERE k = 500;
SELECT count(*) FROM scan_t WHERE k = 500;
EXPLAIN (COSTS OFF) SELECT count(*) FROM scan_t WHERE k < 10 OR k > 990;
SELECT count(*) FROM scan_t WHERE k < 10 OR k > 990;
EXPLAIN (COSTS OFF) SELECT count(*) FROM scan_t WHERE k < 100 AND f < 50;
SELECT count(*) FROM scan_t WHERE k < 100 AND f < 50;
EXPLAIN (COSTS OFF) SELECT count(*) FROM scan_t WHERE k IS NULL;
SELECT count(*) FROM scan_t WHERE k IS NULL;
SELECT count(*) FROM scan_t WHERE k IS NULL OR f IS NULL;
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_seqscan;

-- the same through a plain sequential scan, for reference
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM scan_t WHERE k = 500;
SELECT count(*) FROM scan_t WHERE k < 10 OR k > 990;
SELECT count(*) FROM scan_t WHERE k < 100 AND f < 50;
SELECT count(*) FROM scan_t WHERE k IS NULL OR f IS NULL;
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_bitmapscan;

-- a join with the index on the inner side (parameterized index scan, many
-- rescans)
CREATE TABLE scan_outer (k int4);
INSERT INTO scan_outer SELECT g * 13 % 1000 FROM generate_series(1, 300) g;
INSERT INTO scan_outer VALUES (NULL), (-1), (1000);
ANALYZE scan_outer;
SET enable_seqscan = off;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_bitmapscan = off;
SET enable_material = off;
SET enable_memoize = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM scan_outer o JOIN scan_t t ON t.k = o.k;
SELECT count(*), sum(t.id) FROM scan_outer o JOIN scan_t t ON t.k = o.k;
RESET ALL;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SELECT count(*), sum(t.id) FROM scan_outer o JOIN scan_t t ON t.k = o.k;

-- a merge join over two ordered index scans (the inner one marks and
-- restores its position: no Materialize; 68_markpos tests it)
SET enable_seqscan = off;
SET enable_hashjoin = off;
SET enable_nestloop = off;
SET enable_bitmapscan = off;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM scan_t a JOIN scan_t b ON a.k = b.k WHERE a.k < 50;
SELECT count(*), sum(a.id + b.id) FROM scan_t a JOIN scan_t b ON a.k = b.k WHERE a.k < 50;
RESET ALL;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SELECT count(*), sum(a.id + b.id) FROM scan_t a JOIN scan_t b ON a.k = b.k WHERE a.k < 50;

-- = ANY (array): fpbtree has no array keys, the bitmap scan runs one scan per
-- element (NULL elements match nothing)
SET enable_seqscan = off;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM scan_t WHERE k = ANY ('{3, 500, NULL, 999, 5000, -1}');
SELECT count(*), sum(id) FROM scan_t WHERE k = ANY ('{3, 500, NULL, 999, 5000, -1}');
SELECT count(*), sum(id) FROM scan_t WHERE k IN (7, 7, 8);
SELECT count(*), sum(id) FROM scan_t WHERE f = ANY ('{0.25, 1.5, NaN}'::float8[]);
RESET ALL;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(id) FROM scan_t WHERE k = ANY ('{3, 500, NULL, 999, 5000, -1}');
SELECT count(*), sum(id) FROM scan_t WHERE k IN (7, 7, 8);
SELECT count(*), sum(id) FROM scan_t WHERE f = ANY ('{0.25, 1.5, NaN}'::float8[]);
RESET ALL;
SET max_parallel_workers_per_gather = 0;
SET jit = off;

-- run-time keys: parameters of a generic plan, NULL among them, and of
-- other types of the family
SET plan_cache_mode = force_generic_plan;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
PREPARE scan_p1(int4) AS SELECT count(*) FROM scan_t WHERE k = $1;
PREPARE scan_p2(int8, int2) AS SELECT count(*) FROM scan_t WHERE k > $1 AND k <= $2;
PREPARE scan_p3(float4) AS SELECT count(*) FROM scan_t WHERE f < $1;
EXPLAIN (COSTS OFF) EXECUTE scan_p2(1, 2);
EXECUTE scan_p1(500);
EXECUTE scan_p1(NULL);
EXECUTE scan_p2(990, 995);
EXECUTE scan_p2(NULL, 995);
EXECUTE scan_p2(990, NULL);
EXECUTE scan_p2(-9223372036854775808, 0);
EXECUTE scan_p2(995, 990);
EXECUTE scan_p3(1.5);
EXECUTE scan_p3('NaN');
EXECUTE scan_p3(NULL);
DEALLOCATE ALL;
RESET ALL;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SELECT count(*) FROM scan_t WHERE k = 500;
SELECT count(*) FROM scan_t WHERE k > 990 AND k <= 995;
SELECT count(*) FROM scan_t WHERE k > -9223372036854775808 AND k <= 0;
SELECT count(*) FROM scan_t WHERE f < 1.5;
SELECT count(*) FROM scan_t WHERE f < 'NaN';

DROP TABLE scan_t, scan_q, scan_outer;
