--
-- 68_markpos: merge joins whose inner side is an fpbtree scan mark a
-- position at the start of each run of equal keys and restore it for every
-- outer row with that key.  The scan keeps the marked batch and puts it
-- back, also after it has moved on to later leaves (runs longer than a
-- leaf).  Results equal the hash join's; plain and index-only scans,
-- narrow, wide and multi-column keys, both directions, array keys, dead
-- rows, rescans.  No Materialize is needed over the inner scan.
--

\set ECHO none
\i sql/include/setup.sql
\set ECHO all

-- q run as a merge join with nothing materialized, and as a hash join:
-- the same rows (compared sorted: equal keys come in any order)
CREATE FUNCTION mp_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	plan text := '';
	l text;
	merge text;
	hash text;
BEGIN
	SET LOCAL enable_hashjoin = off;
	SET LOCAL enable_nestloop = off;
	SET LOCAL enable_material = off;
	SET LOCAL enable_sort = off;
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_bitmapscan = off;
	FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		plan := plan || l || E'\n';
	END LOOP;
	IF plan !~ 'Merge ([A-Z][a-z]+ )?Join' OR plan ~ 'Materialize' OR plan !~ 'using mp_' THEN
		RETURN 'unexpected plan: ' || plan;
	END IF;
	EXECUTE 'SELECT md5(string_agg(r::text, '';'' ORDER BY r::text)) FROM (' || q || ') r' INTO merge;
	RESET enable_hashjoin;
	RESET enable_nestloop;
	RESET enable_material;
	RESET enable_sort;
	RESET enable_seqscan;
	SET LOCAL enable_mergejoin = off;
	EXECUTE 'SELECT md5(string_agg(r::text, '';'' ORDER BY r::text)) FROM (' || q || ') r' INTO hash;
	RESET enable_mergejoin;
	IF merge IS DISTINCT FROM hash THEN
		RETURN format('merge %s, hash %s', merge, hash);
	END IF;
	RETURN 'ok';
END $$;

-- runs of 1 to 3000 equal keys (the long ones span several leaves), NULLs
CREATE TABLE mp_a (k int8, s text COLLATE "C", g int4, id int4, t text COLLATE "C")
WITH (autovacuum_enabled = off);
INSERT INTO mp_a
SELECT CASE WHEN g % 97 = 0 THEN NULL WHEN g % 5 = 0 THEN (g % 7) ELSE g % 2000 END,
	'key-' || lpad((g % 300)::text, 5, '0') || repeat('x', g % 3),
	g % 11, g, 'value-' || (g % 9) || repeat('-', 20 + g % 9)
FROM generate_series(1, 30000) g;
CREATE TABLE mp_b (LIKE mp_a) WITH (autovacuum_enabled = off);
INSERT INTO mp_b SELECT * FROM mp_a WHERE id % 3 <> 0;
CREATE INDEX mp_a_k ON mp_a USING fpbtree (k);
CREATE INDEX mp_b_k ON mp_b USING fpbtree (k);
CREATE INDEX mp_a_s ON mp_a USING fpbtree (s);
CREATE INDEX mp_b_s ON mp_b USING fpbtree (s);
CREATE INDEX mp_a_gk ON mp_a USING fpbtree (g, k) INCLUDE (id);
CREATE INDEX mp_b_gk ON mp_b USING fpbtree (g, k) INCLUDE (id);
CREATE INDEX mp_a_t ON mp_a USING fpbtree (t);
CREATE INDEX mp_b_t ON mp_b USING fpbtree (t);
VACUUM ANALYZE mp_a, mp_b;

-- index-only inner scans
SELECT mp_same('SELECT count(*), sum(a.k) FROM mp_a a JOIN mp_b b ON a.k = b.k');
SELECT mp_same('SELECT a.k, count(*) FROM mp_a a JOIN mp_b b ON a.k = b.k GROUP BY a.k ORDER BY a.k');
SELECT mp_same('SELECT count(*), sum(length(a.s)) FROM mp_a a JOIN mp_b b ON a.s = b.s');
SELECT mp_same('SELECT a.s, count(*) FROM mp_a a JOIN mp_b b ON a.s = b.s WHERE a.s < ''key-00100'' GROUP BY a.s ORDER BY a.s');
SELECT mp_same('SELECT count(*), sum(b.id) FROM mp_a a JOIN mp_b b ON a.g = b.g AND a.k = b.k');
-- runs longer than a leaf, index-only: the restored batch carries the
-- values it returns (a multi-column row with INCLUDE; a wide value)
SELECT mp_same('SELECT count(*), sum(b.id), sum(b.k) FROM mp_a a JOIN mp_b b ON a.g = b.g WHERE a.id < 200');
SELECT mp_same('SELECT count(*), sum(length(b.t)) FROM mp_a a JOIN mp_b b ON a.t = b.t WHERE a.id < 100');
-- plain inner scans (heap columns)
SELECT mp_same('SELECT count(*), sum(a.id * 7 + b.id) FROM mp_a a JOIN mp_b b ON a.k = b.k WHERE b.k BETWEEN 3 AND 900');
SELECT mp_same('SELECT count(*), sum(a.id + b.id) FROM mp_a a JOIN mp_b b ON a.s = b.s WHERE b.s > ''key-00250''');
-- both directions: descending merge order scans backward
SELECT mp_same('SELECT a.k, b.id FROM mp_a a JOIN mp_b b ON a.k = b.k WHERE a.k < 8 ORDER BY a.k DESC');
SELECT mp_same('SELECT a.s, b.id FROM mp_a a JOIN mp_b b ON a.s = b.s WHERE a.s > ''key-00290'' ORDER BY a.s DESC');
-- array keys on the inner side: the marked run may lie in an earlier interval
SELECT mp_same('SELECT count(*), sum(b.id) FROM mp_a a JOIN mp_b b ON a.k = b.k WHERE b.k = ANY (ARRAY[1, 3, 5, 6, 999, 1500])');
SELECT mp_same('SELECT a.k, b.id FROM mp_a a JOIN mp_b b ON a.k = b.k WHERE b.k IN (2, 4, 6) ORDER BY a.k');

-- runs that end inside a leaf, with array keys on the inner side: the step
-- to the next interval leaves the marked batch (it must come back to the
-- marked interval, not the next)
CREATE TABLE mp_o (k int4);
CREATE TABLE mp_i (k int4, id int4);
INSERT INTO mp_o SELECT x FROM generate_series(1, 5) x, generate_series(1, 3);
INSERT INTO mp_i SELECT x, y FROM generate_series(1, 5) x, generate_series(1, 4) y;
CREATE INDEX mp_o_k ON mp_o USING fpbtree (k);
CREATE INDEX mp_i_k ON mp_i USING fpbtree (k);
VACUUM ANALYZE mp_o, mp_i;
SELECT mp_same('SELECT o.k, count(i.id) FROM mp_o o LEFT JOIN mp_i i ON o.k = i.k AND i.k = ANY (''{1,2,3,4,5}'') GROUP BY o.k ORDER BY 1');
SELECT mp_same('SELECT o.k, i.id FROM mp_o o JOIN mp_i i ON o.k = i.k WHERE i.k IN (1, 3, 4) AND o.k IN (1, 2, 3, 4)');

-- dead rows in the inner table (the scan reports them, marks them on the
-- leaves it leaves), then VACUUM
DELETE FROM mp_b WHERE id % 4 = 1;
SELECT mp_same('SELECT count(*), sum(a.id + b.id) FROM mp_a a JOIN mp_b b ON a.k = b.k');
SELECT mp_same('SELECT count(*), sum(b.id) FROM mp_a a JOIN mp_b b ON a.s = b.s');
SELECT mp_same('SELECT count(*), sum(b.id) FROM mp_a a JOIN mp_b b ON a.k = b.k');
VACUUM mp_b;
SELECT mp_same('SELECT count(*), sum(b.id) FROM mp_a a JOIN mp_b b ON a.g = b.g AND a.k = b.k');

-- rescans with changing parameters: a merge join inside a lateral
-- subquery (the scan's mark must not survive a rescan)
SELECT mp_same($q$
SELECT o.x, j.c, j.s
FROM generate_series(0, 10, 5) o(x),
	LATERAL (SELECT count(*) AS c, sum(b.id) AS s
			 FROM mp_a a JOIN mp_b b ON a.k = b.k
			 WHERE a.k BETWEEN o.x AND o.x + 4 AND b.k BETWEEN o.x AND o.x + 4) j
ORDER BY o.x$q$);
-- a cursor over a merge join, read backward too
BEGIN;
SET LOCAL enable_hashjoin = off;
SET LOCAL enable_nestloop = off;
SET LOCAL enable_material = off;
SET LOCAL enable_sort = off;
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
DECLARE mp_c SCROLL CURSOR FOR
SELECT a.k, b.id FROM mp_a a JOIN mp_b b ON a.k = b.k WHERE a.k IN (5, 6) ORDER BY a.k, b.id;
MOVE FORWARD 3000 IN mp_c;
FETCH 2 FROM mp_c;
FETCH BACKWARD 2 FROM mp_c;
MOVE LAST IN mp_c;
FETCH BACKWARD 2 FROM mp_c;
COMMIT;
SELECT a.k, b.id FROM mp_a a JOIN mp_b b ON a.k = b.k WHERE a.k IN (5, 6)
ORDER BY a.k, b.id OFFSET 3000 LIMIT 2;
