--
-- 73_relcache_inval: a scan stays correct when the relcache invalidates its
-- open index between two calls.  The relcache then frees rd_amcache, where
-- the comparison of a wide or multi-column index lives (src/am/README.md,
-- "Scans"); a scan that kept a pointer to it read freed memory.  Here a
-- cursor is fetched, the table changed and analyzed (which invalidates its
-- indexes), another wide index opened (its cache may take the freed
-- memory), and the cursor fetched on, forward and backward; the rows are
-- compared with the same cursor over a sequential scan.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

-- 20 int4 columns: the cached comparison is larger than a small chunk, and
-- freeing it hands the memory back to malloc.
CREATE TABLE ri (a1 int4, a2 int4, a3 int4, a4 int4, a5 int4, a6 int4,
				 a7 int4, a8 int4, a9 int4, a10 int4, a11 int4, a12 int4,
				 a13 int4, a14 int4, a15 int4, a16 int4, a17 int4, a18 int4,
				 a19 int4, a20 int4) WITH (autovacuum_enabled = off);
INSERT INTO ri
SELECT g, g % 7, g % 11, g % 13, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g
FROM generate_series(1, 20000) g;
CREATE INDEX ri_i ON ri USING fpbtree (a1, a2, a3, a4, a5, a6, a7, a8, a9,
	a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20);

-- the other wide index: text first, DESC columns (a different comparison)
CREATE TABLE ro (b1 text, b2 int8, b3 int4, b4 int4, b5 int4, b6 int4,
				 b7 int4, b8 int4, b9 int4, b10 int4, b11 int4, b12 int4,
				 b13 int4, b14 int4, b15 int4, b16 int4, b17 int4, b18 int4,
				 b19 int4, b20 int4) WITH (autovacuum_enabled = off);
INSERT INTO ro
SELECT g::text, g, g % 11, g % 13, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g
FROM generate_series(1, 2000) g;
CREATE INDEX ro_i ON ro USING fpbtree (b1 DESC, b2 DESC, b3, b4, b5, b6, b7,
	b8, b9, b10, b11, b12, b13, b14, b15, b16, b17, b18, b19, b20);

-- one-column text: the comparison in a small chunk
CREATE TABLE rt (t text, v int4) WITH (autovacuum_enabled = off);
INSERT INTO rt SELECT 'k' || lpad((g * 7919 % 30000)::text, 6, '0'), g
FROM generate_series(1, 30000) g;
CREATE INDEX rt_i ON rt USING fpbtree (t);
ANALYZE ri, ro, rt;

-- Fetch half of q's rows (forward), invalidate, fetch the rest forward and
-- then all of them backward: the rows, as text, in the order returned.
CREATE FUNCTION ri_fetch(q text, tbl text, ins text) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
	c refcursor := 'ri_c';
	r record;
	n int := 0;
	half int;
	out text[] := '{}';
BEGIN
	EXECUTE format('SELECT count(*) / 2 FROM (%s) s', q) INTO half;
	OPEN c SCROLL FOR EXECUTE q;
	LOOP
		EXIT WHEN n >= half;
		FETCH c INTO r;
		EXIT WHEN NOT FOUND;
		out := out || r::text;
		n := n + 1;
	END LOOP;
	-- new rows change reltuples: ANALYZE invalidates the table's indexes
	EXECUTE ins;
	EXECUTE format('ANALYZE %I', tbl);
	-- another wide index's cache is built now
	PERFORM count(*) FROM ro WHERE b1 > '5' AND b2 > 0;
	LOOP
		FETCH c INTO r;
		EXIT WHEN NOT FOUND;
		out := out || r::text;
	END LOOP;
	LOOP
		FETCH PRIOR FROM c INTO r;
		EXIT WHEN NOT FOUND;
		out := out || ('back' || r::text);
	END LOOP;
	CLOSE c;
	RETURN out;
END
$$;

-- each query once through the index, once through a sequential scan; the
-- inserts are rolled back so that both see the same table
CREATE FUNCTION ri_same(q text, tbl text, ins text, plan_like text)
RETURNS TABLE (rows int, same bool, uses_index bool)
LANGUAGE plpgsql AS $$
DECLARE
	a text[];
	b text[];
	p text;
	uses bool := false;
BEGIN
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_bitmapscan = off;
	FOR p IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		uses := uses OR p LIKE plan_like;
	END LOOP;
	BEGIN
		a := ri_fetch(q, tbl, ins);
		RAISE EXCEPTION 'undo';
	EXCEPTION WHEN raise_exception THEN
	END;
	SET LOCAL enable_seqscan = on;
	SET LOCAL enable_indexscan = off;
	SET LOCAL enable_indexonlyscan = off;
	BEGIN
		b := ri_fetch(q, tbl, ins);
		RAISE EXCEPTION 'undo';
	EXCEPTION WHEN raise_exception THEN
	END;
	RETURN QUERY SELECT cardinality(a), a = b, uses;
END
$$;

-- multi-column: an index scan and an index-only scan with a later column
SELECT * FROM ri_same(
	'SELECT a1, a2, a20 FROM ri WHERE a1 > 10 AND a1 < 3000 AND a2 = 3 ORDER BY a1',
	'ri',
	'INSERT INTO ri SELECT g, g % 7, g % 11, g % 13, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g FROM generate_series(1, 5000) g',
	'%Index%ri_i%');
SELECT * FROM ri_same(
	'SELECT a1, a2 FROM ri WHERE a1 BETWEEN 100 AND 2000 AND a3 = 4 ORDER BY a1',
	'ri',
	'INSERT INTO ri SELECT g, 1, 1, 1, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g FROM generate_series(1, 5000) g',
	'%Index Only Scan%ri_i%');

-- one text column
SELECT * FROM ri_same(
	'SELECT t FROM rt WHERE t >= ''k001000'' AND t < ''k004000'' ORDER BY t',
	'rt',
	'INSERT INTO rt SELECT ''k'' || g, g FROM generate_series(1, 5000) g',
	'%Index Only Scan%rt_i%');

-- rd_amcache also keeps the encode procedures of the cross-type arguments
-- seen last (fpb_cross_encoder): a scan with more (column, type) pairs than
-- it holds, the same query again, and again after an invalidation
CREATE TABLE rx (a int8, b int4, c int8, d int2) WITH (autovacuum_enabled = off);
INSERT INTO rx SELECT g % 50, g % 40, g % 30, (g % 20)::int2
FROM generate_series(1, 20000) g;
CREATE INDEX rx_i ON rx USING fpbtree (a, b, c, d);
ANALYZE rx;
CREATE FUNCTION rx_q(idx bool) RETURNS TABLE (n bigint, s numeric)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('SET LOCAL enable_seqscan = %s', NOT idx);
	EXECUTE format('SET LOCAL enable_indexscan = %s', idx);
	EXECUTE format('SET LOCAL enable_indexonlyscan = %s', idx);
	SET LOCAL enable_bitmapscan = off;
	RETURN QUERY SELECT count(*), sum(a * 1000000 + b * 10000 + c * 100 + d)
	FROM rx WHERE a = 7::int4 AND b = 7::int8 AND c >= 7::int4
		AND c <= 27::int2 AND d > 1::int4 AND d < 19::int8;
END
$$;
EXPLAIN (COSTS OFF) SELECT count(*) FROM rx WHERE a = 7::int4 AND b = 7::int8
	AND c >= 7::int4 AND c <= 27::int2 AND d > 1::int4 AND d < 19::int8;
SELECT (SELECT n FROM rx_q(true)) AS n,
	   (SELECT (n, s) FROM rx_q(true)) = (SELECT (n, s) FROM rx_q(false)) AS same,
	   (SELECT (n, s) FROM rx_q(true)) = (SELECT (n, s) FROM rx_q(false)) AS again;
INSERT INTO rx SELECT 7, 7, g % 30, (g % 20)::int2 FROM generate_series(1, 500) g;
ANALYZE rx;
SELECT (SELECT n FROM rx_q(true)) AS n,
	   (SELECT (n, s) FROM rx_q(true)) = (SELECT (n, s) FROM rx_q(false)) AS same;
DROP FUNCTION rx_q(bool);
DROP TABLE rx;

-- the indexes are sound afterwards
SELECT fpbtree_check('ri_i'::regclass, true), fpbtree_check('ro_i'::regclass, true),
	   fpbtree_check('rt_i'::regclass, true);

DROP FUNCTION ri_same(text, text, text, text);
DROP FUNCTION ri_fetch(text, text, text);
DROP TABLE ri, ro, rt;
