--
-- 74_planview: what the planner asks only of btree indexes, answered by
-- fpbtree ones (src/am/README.md, "What the planner asks of btree only"):
-- a column's actual minimum and maximum, read when a range's constant lies
-- beyond the histogram of a table grown since its last ANALYZE, and the
-- uniqueness proofs of joins (join removal, unique joins).  Each fpbtree
-- table has a btree twin with the same rows: the estimates and plans must
-- be the twin's, and the rows the same.  Plans still come from the fpbtree
-- indexes themselves.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

-- the planner's row estimate of a query
CREATE FUNCTION est(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	j json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
	RETURN (j->0->'Plan'->>'Plan Rows')::float8;
END $$;

-- fp's and bt's estimates of the query (table name written as %s)
CREATE FUNCTION twin(q text, OUT fp float8, OUT same bool)
LANGUAGE plpgsql AS $$
BEGIN
	fp := est(format(q, 'ep_fp'));
	same := fp = est(format(q, 'ep_bt'));
END $$;

CREATE TABLE ep_fp (k int8, ts timestamptz, s text COLLATE "C", d int4)
	WITH (autovacuum_enabled = off);
CREATE TABLE ep_bt (LIKE ep_fp INCLUDING ALL) WITH (autovacuum_enabled = off);
INSERT INTO ep_fp
SELECT g, '2026-01-01'::timestamptz + g * interval '1 min',
	   lpad(g::text, 8, '0'), g
FROM generate_series(1, 10000) g;
INSERT INTO ep_bt SELECT * FROM ep_fp;
CREATE INDEX ep_fp_k ON ep_fp USING fpbtree (k);
CREATE INDEX ep_fp_ts ON ep_fp USING fpbtree (ts DESC);
CREATE INDEX ep_fp_s ON ep_fp USING fpbtree (s);
CREATE INDEX ep_fp_dk ON ep_fp USING fpbtree (d, k);
CREATE INDEX ep_fp_expr ON ep_fp USING fpbtree ((k * 2));
CREATE INDEX ep_bt_k ON ep_bt (k);
CREATE INDEX ep_bt_ts ON ep_bt (ts DESC);
CREATE INDEX ep_bt_s ON ep_bt (s);
CREATE INDEX ep_bt_dk ON ep_bt (d, k);
CREATE INDEX ep_bt_expr ON ep_bt ((k * 2));
ANALYZE ep_fp;
ANALYZE ep_bt;

-- both tables grow at both ends after ANALYZE
INSERT INTO ep_fp
SELECT g, '2026-01-01'::timestamptz + g * interval '1 min',
	   lpad(g::text, 8, '0'), g
FROM generate_series(10001, 13000) g;
INSERT INTO ep_fp
SELECT -g, '2026-01-01'::timestamptz - g * interval '1 min',
	   '-' || lpad(g::text, 8, '0'), -g
FROM generate_series(1, 2000) g;
INSERT INTO ep_bt SELECT * FROM ep_fp WHERE k > 10000 OR k < 1;

-- estimates beyond the histogram: the twin's, far above a row or two
SELECT fp > 50 AS grown, same FROM twin('SELECT * FROM %s WHERE k > 11000');
SELECT fp > 50 AS grown, same FROM twin('SELECT * FROM %s WHERE k >= 10500 AND k < 20000');
SELECT fp > 50 AS grown, same FROM twin('SELECT * FROM %s WHERE k < -500');
SELECT fp > 50 AS grown, same
FROM twin($q$SELECT * FROM %s WHERE ts > '2026-01-08'$q$);
SELECT fp > 50 AS grown, same
FROM twin($q$SELECT * FROM %s WHERE ts < '2025-12-31 12:00'$q$);
SELECT fp > 50 AS grown, same FROM twin($q$SELECT * FROM %s WHERE s > '00011000'$q$);
SELECT fp > 50 AS grown, same FROM twin('SELECT * FROM %s WHERE d > 11000');
SELECT fp > 50 AS grown, same FROM twin('SELECT * FROM %s WHERE k * 2 > 22000');
-- a join's range of merge keys
SELECT same FROM twin('SELECT * FROM %1$s a JOIN %1$s b ON a.k = b.k WHERE a.k > 11000');

-- rows deleted at the end are passed over, as btree's lookup does
DELETE FROM ep_fp WHERE k > 12000;
DELETE FROM ep_bt WHERE k > 12000;
SELECT fp > 50 AS grown, same FROM twin('SELECT * FROM %s WHERE k > 11000');

-- switched off: the histogram's bound, as before the lookup
SET fpbtree.planner_as_btree = off;
SELECT fp < 50 AS stale, same FROM twin('SELECT * FROM %s WHERE k > 11000');
RESET fpbtree.planner_as_btree;

-- a partial index is not asked, for either access method
DROP INDEX ep_fp_k, ep_fp_dk, ep_fp_expr, ep_bt_k, ep_bt_dk, ep_bt_expr;
CREATE INDEX ep_fp_kp ON ep_fp USING fpbtree (k) WHERE d > 0;
CREATE INDEX ep_bt_kp ON ep_bt (k) WHERE d > 0;
SELECT fp < 50 AS stale, same FROM twin('SELECT * FROM %s WHERE k > 11000');
DROP INDEX ep_fp_kp, ep_bt_kp;
CREATE INDEX ep_fp_k ON ep_fp USING fpbtree (k);

-- every plan is the fpbtree index's own: scans, order, CLUSTER
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT k FROM ep_fp WHERE k > 11000;
EXPLAIN (COSTS OFF) SELECT * FROM ep_fp WHERE k = 5;
EXPLAIN (COSTS OFF) SELECT * FROM ep_fp ORDER BY k DESC LIMIT 2;
EXPLAIN (COSTS OFF) SELECT * FROM ep_fp WHERE ts > '2026-01-08' ORDER BY ts;
SET enable_indexscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM ep_fp WHERE k = 5 OR k = 7;
RESET enable_indexscan;
RESET enable_seqscan;
SELECT k FROM ep_fp ORDER BY k DESC LIMIT 2;
SELECT count(*) FROM ep_fp WHERE k > 11000;
CLUSTER ep_fp USING ep_fp_k;
SELECT count(*), min(k), max(k) FROM ep_fp;
SELECT fpbtree_check('ep_fp_k', true), fpbtree_check('ep_fp_ts', true),
	   fpbtree_check('ep_fp_s', true);

-- uniqueness: a unique fpbtree index proves a join's inner side unique
CREATE TABLE eu_fp (k int8, s text COLLATE "C", a int4, b int4, v int4)
	WITH (autovacuum_enabled = off);
CREATE TABLE eu_bt (LIKE eu_fp INCLUDING ALL) WITH (autovacuum_enabled = off);
INSERT INTO eu_fp
SELECT g, lpad(g::text, 8, '0'), g % 100, g / 100, g FROM generate_series(1, 5000) g;
INSERT INTO eu_bt SELECT * FROM eu_fp;
CREATE UNIQUE INDEX eu_fp_k ON eu_fp USING fpbtree (k);
CREATE UNIQUE INDEX eu_fp_s ON eu_fp USING fpbtree (s);
CREATE UNIQUE INDEX eu_fp_ab ON eu_fp USING fpbtree (a, b);
CREATE UNIQUE INDEX eu_fp_v ON eu_fp USING fpbtree (v) WHERE v > 0;
CREATE UNIQUE INDEX eu_bt_k ON eu_bt (k);
CREATE UNIQUE INDEX eu_bt_s ON eu_bt (s);
CREATE UNIQUE INDEX eu_bt_ab ON eu_bt (a, b);
CREATE UNIQUE INDEX eu_bt_v ON eu_bt (v) WHERE v > 0;
-- the outer side, the same for both
CREATE TABLE eo (k int8, d int4, s text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO eo SELECT g % 7000, g % 6000, lpad((g % 5500)::text, 8, '0')
FROM generate_series(1, 20000) g;
ANALYZE eu_fp;
ANALYZE eu_bt;
ANALYZE eo;

-- the lines of a query's plan
CREATE FUNCTION plan_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE 'EXPLAIN (COSTS OFF, VERBOSE) ' || q;
END $$;

-- the plan of a query over the fpbtree tables equals the btree twin's
CREATE FUNCTION same_plan(q text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
	fp text := '';
	bt text := '';
	l text;
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (COSTS OFF, VERBOSE) ' || format(q, 'eu_fp') LOOP
		fp := fp || regexp_replace(l, '_fp', '_xx', 'g') || E'\n';
	END LOOP;
	FOR l IN EXECUTE 'EXPLAIN (COSTS OFF, VERBOSE) ' || format(q, 'eu_bt') LOOP
		bt := bt || regexp_replace(l, '_bt', '_xx', 'g') || E'\n';
	END LOOP;
	IF fp <> bt THEN
		RAISE NOTICE E'fpbtree:\n%btree:\n%', fp, bt;
	END IF;
	RETURN fp = bt;
END $$;

-- a LEFT JOIN to a unique key whose columns are not used is removed
EXPLAIN (COSTS OFF) SELECT a.* FROM eo a LEFT JOIN eu_fp u ON u.k = a.k;
SELECT same_plan('SELECT a.* FROM eo a LEFT JOIN %s u ON u.k = a.k');
-- also cross-type (int4 = int8), by text, and by both columns of (a, b)
SELECT same_plan('SELECT a.* FROM eo a LEFT JOIN %s u ON u.k = a.d');
SELECT same_plan('SELECT a.* FROM eo a LEFT JOIN %s u ON u.s = a.s');
SELECT same_plan('SELECT a.* FROM eo a LEFT JOIN %s u ON u.a = a.d AND u.b = a.d');
-- not by one column of (a, b), not by a partial index, not under
-- another collation
SELECT same_plan('SELECT a.* FROM eo a LEFT JOIN %s u ON u.a = a.d');
SELECT same_plan('SELECT a.* FROM eo a LEFT JOIN %s u ON u.v = a.d');
SELECT same_plan('SELECT a.* FROM eo a LEFT JOIN %s u ON u.s = a.s COLLATE "en-x-icu"');
-- unique joins (Inner Unique in EXPLAIN VERBOSE) and semi-joins made joins
SELECT same_plan('SELECT a.k, u.v FROM eo a JOIN %s u ON u.k = a.k');
SELECT same_plan('SELECT a.k FROM eo a WHERE a.k IN (SELECT k FROM %s)');
SET enable_hashjoin = off;
SELECT same_plan('SELECT a.k, u.v FROM eo a JOIN %s u ON u.k = a.k');
SET enable_mergejoin = off;
SELECT same_plan('SELECT a.k, u.v FROM eo a JOIN %s u ON u.k = a.k');
RESET enable_mergejoin;
RESET enable_hashjoin;
-- the rows: the same as the btree twin's
SELECT (SELECT count(*) FROM eo a LEFT JOIN eu_fp u ON u.k = a.k) =
	   (SELECT count(*) FROM eo a LEFT JOIN eu_bt u ON u.k = a.k) AS same;
SELECT (SELECT sum(a.k + u.v) FROM eo a JOIN eu_fp u ON u.k = a.k) =
	   (SELECT sum(a.k + u.v) FROM eo a JOIN eu_bt u ON u.k = a.k) AS same;
SELECT (SELECT count(*) FROM eo a WHERE a.k IN (SELECT k FROM eu_fp)) =
	   (SELECT count(*) FROM eo a WHERE a.k IN (SELECT k FROM eu_bt)) AS same;
-- switched off: the join stays, the inner side is not known unique
SET fpbtree.planner_as_btree = off;
SELECT string_agg(l, ' ') ~ 'eu_fp' AS join_kept
FROM plan_lines('SELECT a.* FROM eo a LEFT JOIN eu_fp u ON u.k = a.k') l;
SELECT string_agg(l, ' ') ~ 'Inner Unique' AS inner_unique
FROM plan_lines('SELECT a.k, u.v FROM eo a JOIN eu_fp u ON u.k = a.k') l;
RESET fpbtree.planner_as_btree;

DROP TABLE ep_fp, ep_bt, eu_fp, eu_bt, eo;
DROP FUNCTION twin(text), est(text), same_plan(text), plan_lines(text);
