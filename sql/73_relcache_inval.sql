--
-- 73_relcache_inval: fpbtree's data of an index stays valid while the
-- relcache processes invalidations of the open index (src/am/README.md,
-- "The relcache entry").  The relcache frees rd_amcache then; the
-- comparison of a wide or multi-column index lived there, and a scan or a
-- descent that held it read freed memory.  First between two calls: a
-- cursor is fetched, the table changed and analyzed (which invalidates its
-- indexes), another wide index opened (its data may take the freed
-- memory), and the cursor fetched on, forward and backward; the rows are
-- compared with the same cursor over a sequential scan.  Then inside a
-- call, and the cross-type procedures kept with the comparison.
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

-- Invalidations are also processed inside a call: the first lock a
-- transaction takes on a relation accepts them, and a comparison may take
-- one (a catalog lookup that misses the caches, an enum's labels, a
-- comparison written in SQL as here).  On its fifth call this comparison
-- lets another session ANALYZE the table (as autovacuum would), takes a
-- lock, and opens another wide index; the descent that called it goes on
-- with the comparison it holds.  (With the comparison in rd_amcache this
-- crashed the server.)
CREATE EXTENSION IF NOT EXISTS dblink;
SELECT set_config('fpbtest.conn',
	format('dbname=%s port=%s host=%s', current_database(),
		   current_setting('port'),
		   split_part(current_setting('unix_socket_directories'), ',', 1)),
	false) IS NOT NULL AS conn;
CREATE TABLE rc_lock (x int);
CREATE SEQUENCE rc_calls;
CREATE FUNCTION rc_textcmp(a text, b text) RETURNS int4 LANGUAGE plpgsql AS $$
BEGIN
	IF coalesce(current_setting('fpbtest.trig', true), '') = 'on' AND
		nextval('rc_calls') = 5 THEN
		PERFORM dblink_exec(current_setting('fpbtest.conn'), 'ANALYZE rcu');
		PERFORM count(*) FROM rc_lock;
		PERFORM count(*) FROM rco WHERE b1 > '5' AND b2 > 0;
	END IF;
	RETURN bttextcmp(a, b);
END
$$;
CREATE OPERATOR CLASS rc_text_ops FOR TYPE text USING fpbtree AS
	OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
	FUNCTION 1 (text, text) fpbtree_prefix_text(text),
	FUNCTION 4 (text, text) rc_textcmp(text, text);
CREATE TABLE rcu (t text, a2 int4, a3 int4, a4 int4, a5 int4, a6 int4, a7 int4,
	a8 int4, a9 int4, a10 int4, a11 int4, a12 int4, a13 int4, a14 int4,
	a15 int4, a16 int4, a17 int4, a18 int4, a19 int4, a20 int4)
	WITH (autovacuum_enabled = off);
INSERT INTO rcu SELECT 'same', g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g
FROM generate_series(1, 2000) g;
CREATE INDEX rcu_i ON rcu USING fpbtree (t rc_text_ops, a2, a3, a4, a5, a6, a7,
	a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20);
ANALYZE rcu;
-- so that the ANALYZE changes the index's row count
INSERT INTO rcu SELECT 'same', g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g
FROM generate_series(2001, 3000) g;
CREATE TABLE rco (b1 text, b2 int8, b3 int4, b4 int4, b5 int4, b6 int4, b7 int4,
	b8 int4, b9 int4, b10 int4, b11 int4, b12 int4, b13 int4, b14 int4,
	b15 int4, b16 int4, b17 int4, b18 int4, b19 int4, b20 int4, b21 int4,
	b22 int4, b23 int4, b24 int4, b25 int4, b26 int4, b27 int4, b28 int4);
INSERT INTO rco SELECT g::text, g, g % 11, g % 13, g, g, g, g, g, g, g, g, g, g,
	g, g, g, g, g, g, g, g, g, g, g, g, g, g FROM generate_series(1, 200) g;
CREATE INDEX rco_i ON rco USING fpbtree (b1 DESC, b2 DESC, b3, b4, b5, b6, b7,
	b8, b9, b10, b11, b12, b13, b14, b15, b16, b17, b18, b19, b20, b21, b22,
	b23, b24, b25, b26, b27, b28);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET fpbtest.trig = on;
SELECT count(*) FROM rcu WHERE t = 'same' AND a2 > 100;
-- the same through an insert's descent (more rows first, for the next
-- ANALYZE to change)
RESET fpbtest.trig;
INSERT INTO rcu SELECT 'same', g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g
FROM generate_series(3101, 3300) g;
SET fpbtest.trig = on;
SELECT setval('rc_calls', 1);
INSERT INTO rcu SELECT 'same', g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g
FROM generate_series(3001, 3100) g;
RESET fpbtest.trig;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*) FROM rcu WHERE t = 'same' AND a2 > 100;
SELECT fpbtree_check('rcu_i'::regclass, true), fpbtree_check('rco_i'::regclass, true);
DROP TABLE rcu, rco, rc_lock;
DROP OPERATOR CLASS rc_text_ops USING fpbtree;
DROP OPERATOR FAMILY rc_text_ops USING fpbtree;
DROP FUNCTION rc_textcmp(text, text);
DROP SEQUENCE rc_calls;

-- A REINDEX in another format (here of other node widths) within the
-- transaction that used the index: the data of the new format goes into
-- the same memory context.  When the relcache entry goes at a later
-- transaction's start, the backend's table must forget whichever data of
-- the context it points to (it kept the newer one, pointing into freed
-- memory, and the next use of the index read it; with 30 indexes the
-- freed memory was reused and the backend crashed).
DO $$
BEGIN
	FOR i IN 1..30 LOOP
		EXECUTE format('CREATE TABLE rf%s (t text, a2 int4, a3 int4, a4 int4,
			a5 int4, a6 int4, a7 int4, a8 int4, a9 int4, a10 int4, a11 int4,
			a12 int4, a13 int4, a14 int4, a15 int4, a16 int4, a17 int4,
			a18 int4, a19 int4, a20 int4)', i);
		EXECUTE format('INSERT INTO rf%s SELECT md5((g %% 50)::text), g, g, g,
			g, g, g, g, g, g, g, g, g, g, g, g, g, g, g, g
			FROM generate_series(1, 3000) g', i);
		EXECUTE format('CREATE INDEX rf%s_i ON rf%s USING fpbtree (t, a2, a3,
			a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17,
			a18, a19, a20)', i, i);
	END LOOP;
END
$$;
CREATE FUNCTION rf_count(i int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	SET LOCAL enable_seqscan = off;
	SET LOCAL enable_bitmapscan = off;
	EXECUTE format('SELECT count(*) FROM rf%s WHERE t = md5(''1'')', i) INTO n;
	RETURN n;
END
$$;
-- (one transaction each, as a client would run them)
SELECT cmd FROM generate_series(1, 30) i,
	LATERAL unnest(ARRAY[
		'BEGIN',
		format('DO $d$ BEGIN PERFORM set_config(''fpbtest.rf'', rf_count(%s)::text, true); END $d$', i),
		format('ALTER INDEX rf%s_i SET (leaf_lines = 2)', i),
		format('REINDEX INDEX rf%s_i', i),
		format('DO $d$ BEGIN IF rf_count(%s)::text <> current_setting(''fpbtest.rf'') THEN RAISE EXCEPTION ''rf%s changed''; END IF; END $d$', i, i),
		'COMMIT']) AS cmd \gexec
SELECT sum(rf_count(i)) AS rows, count(*) AS indexes FROM generate_series(1, 30) i;
SELECT count(*) AS checked
FROM generate_series(1, 30) i, fpbtree_check(format('rf%s_i', i)::regclass, true);
DO $$
BEGIN
	FOR i IN 1..30 LOOP
		EXECUTE format('DROP TABLE rf%s', i);
	END LOOP;
END
$$;
DROP FUNCTION rf_count(int);

-- the indexes are sound afterwards
SELECT fpbtree_check('ri_i'::regclass, true), fpbtree_check('ro_i'::regclass, true),
	   fpbtree_check('rt_i'::regclass, true);

DROP FUNCTION ri_same(text, text, text, text);
DROP FUNCTION ri_fetch(text, text, text);
DROP TABLE ri, ro, rt;
