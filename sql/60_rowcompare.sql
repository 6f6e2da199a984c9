--
-- 60_rowcompare: row comparisons such as "(ts, id) > (x, y)", the keyset
-- pagination condition (src/am/README.md, "Row comparisons").  PostgreSQL
-- 15 gives a row comparison to btree indexes only.  On an fpbtree index
-- whose first key columns are the row's, a row bound "ts >| ROW(x, y)"
-- (extension version 1.9) stands for it as the index condition: the scan
-- starts at (x, y) and checks the comparison itself (sql/87_row_bounds).
-- Where the row's columns are not the index's in order, the condition it
-- implies on the first ("ts >= x") is the index condition and the row
-- comparison stays the filter.  Results against sequential scans (fpb_same) for each
-- operator, both sides, ordered both ways with LIMIT, NULLs in both
-- columns, duplicates, cross-type values, parameters of a generic plan,
-- a DESC index, a text index under ICU, a partitioned table.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

CREATE TABLE rk (ts timestamptz, id int8, t text COLLATE "en-x-icu")
WITH (autovacuum_enabled = off);
INSERT INTO rk
SELECT CASE WHEN g % 53 = 0 THEN NULL
			ELSE timestamptz '2026-01-01 00:00+00' + (g / 3) * interval '1 min' END,
	   CASE WHEN g % 41 = 0 THEN NULL ELSE g END,
	   CASE WHEN g % 37 = 0 THEN NULL ELSE 'w' || (g % 500) END
FROM generate_series(1, 30000) g ORDER BY hashint4(g);
CREATE INDEX rk_i ON rk USING fpbtree (ts, id);
VACUUM ANALYZE rk;

-- the row bound is the index condition; no filter
SELECT fpb_plan($$SELECT ts, id FROM rk WHERE (ts, id) > ('2026-01-05 00:00+00', 11000)
	ORDER BY ts, id LIMIT 20$$, 'index');
SELECT fpb_plan($$SELECT ts, id FROM rk WHERE ('2026-01-05 00:00+00', 11000) >= (ts, id)
	ORDER BY ts DESC, id DESC LIMIT 20$$, 'index');
-- a bound early in the index, under the default settings: the planner,
-- taking the rows that pass the row comparison to be spread through the
-- index, costed a filter-only scan from the index's start the lower for a
-- LIMIT (it read the 1,000 rows before the bound); that path is gone
SELECT fpb_explain($$SELECT ts, id FROM rk WHERE (ts, id) > ('2026-01-01 06:00+00', 1000)
	ORDER BY ts, id LIMIT 20$$) ~ 'Index Cond: \(ts >\|' AS early_bound_bounds;
SELECT fpb_explain($$SELECT ts, id FROM rk WHERE (ts, id) <= ('2026-01-07 20:00+00', 1000)
	ORDER BY ts DESC, id DESC LIMIT 20$$) ~ 'Index Cond: \(ts <=\|' AS late_bound_bounds;
-- a row whose first column is not the index's first: no condition
SELECT fpb_plan($$SELECT ts, id FROM rk WHERE (id, ts) > (11000, '2026-01-05 00:00+00')$$, 'index');

-- random bounds, each operator, the column on either side, ordered the way
-- pagination reads (forward for > and >=, backward for < and <=) and not
CREATE FUNCTION pg_temp.rk_probe(n int, seed float8) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	ops text[] := ARRAY['<', '<=', '>', '>='];
	op text;
	x text;
	y text;
	q text;
	r text;
	dir text;
BEGIN
	PERFORM setseed(seed);
	FOR i IN 1..n LOOP
		op := ops[1 + floor(random() * 4)::int];
		x := quote_literal(timestamptz '2026-01-01 00:00+00'
						   + floor(random() * 10200)::int * interval '1 min');
		y := CASE WHEN random() < 0.05 THEN 'NULL'
				  ELSE floor(random() * 31000)::int::text END;
		IF random() < 0.1 THEN
			x := 'NULL::timestamptz';
		END IF;
		dir := CASE WHEN op LIKE '<%' THEN 'DESC' ELSE 'ASC' END;
		IF i % 2 = 0 THEN
			q := format('SELECT ts, id FROM rk WHERE (ts, id) %s (%s, %s)', op, x, y);
		ELSE
			q := format('SELECT ts, id FROM rk WHERE (%s, %s) %s (ts, id)', x, y,
						translate(op, '<>', '><'));
		END IF;
		IF i % 3 <> 0 THEN
			q := q || format(' ORDER BY ts %s, id %s LIMIT %s', dir, dir,
							 1 + floor(random() * 60)::int);
		END IF;
		r := fpb_same(q, 'rk_i', q LIKE '%ORDER BY%');
		IF r <> 'ok' THEN
			RETURN NEXT q || ': ' || r;
		END IF;
	END LOOP;
END $$;
SELECT pg_temp.rk_probe(150, 0.3);

-- bounds of other types of the family, a longer row, a bound on the
-- first column besides
SELECT q, fpb_same(q, 'rk_i', q LIKE '%ORDER BY%')
FROM (VALUES
	($$SELECT ts, id FROM rk WHERE (ts, id) >= (date '2026-01-04', 4::int4) ORDER BY ts, id LIMIT 30$$),
	($$SELECT ts, id FROM rk WHERE (ts, id) < (timestamp '2026-01-04 12:00', 9000::int2)$$),
	($$SELECT ts, id, t FROM rk WHERE (ts, id, t) > ('2026-01-03 00:00+00', 7000, 'w7') ORDER BY ts, id LIMIT 10$$),
	($$SELECT ts, id FROM rk WHERE (ts, id) > ('2026-01-06 00:00+00', 5) AND ts < '2026-01-06 01:00+00'$$),
	($$SELECT ts, id FROM rk WHERE (ts, id) > ('2026-01-06 00:00+00', 5) AND id < 100$$))
	v(q);

-- parameters: the condition is a run-time key of a generic plan
SET plan_cache_mode = force_generic_plan;
SET max_parallel_workers_per_gather = 0;
PREPARE rk_page(timestamptz, int8) AS
SELECT ts, id FROM rk WHERE (ts, id) > ($1, $2) ORDER BY ts, id LIMIT 5;
EXPLAIN (COSTS OFF) EXECUTE rk_page('2026-01-02 00:00+00', 2500);
EXECUTE rk_page('2026-01-02 00:00+00', 2500);
EXECUTE rk_page('2026-01-02 00:00+00', NULL);
SELECT ts, id FROM rk WHERE (ts, id) > ('2026-01-02 00:00+00', 2500)
ORDER BY ts, id LIMIT 5;
DEALLOCATE rk_page;
RESET plan_cache_mode;
RESET max_parallel_workers_per_gather;

-- a nested loop whose inner side is bounded by the outer row: a join
-- clause, left as a filter, still the same rows
CREATE TABLE rk_outer AS
SELECT ts, id FROM rk WHERE id % 5000 = 7
UNION ALL VALUES (NULL::timestamptz, 3::int8), ('2026-01-02 00:00+00', NULL);
SELECT fpb_same($$SELECT o.id, count(*) FROM rk_outer o JOIN LATERAL
	(SELECT 1 FROM rk WHERE (rk.ts, rk.id) > (o.ts, o.id) ORDER BY rk.ts, rk.id LIMIT 7) s ON true
	GROUP BY o.id$$, 'rk_i');

-- a DESC index read forward for "<"
CREATE TABLE rk_desc AS SELECT ts, id FROM rk;
CREATE INDEX rk_desc_i ON rk_desc USING fpbtree (ts DESC, id DESC);
VACUUM ANALYZE rk_desc;
SELECT fpb_plan($$SELECT ts, id FROM rk_desc WHERE (ts, id) < ('2026-01-05 00:00+00', 11000)
	ORDER BY ts DESC, id DESC LIMIT 20$$, 'index');
SELECT fpb_same($$SELECT ts, id FROM rk_desc WHERE (ts, id) < ('2026-01-05 00:00+00', 11000)
	ORDER BY ts DESC, id DESC LIMIT 20$$, 'rk_desc_i', true);
SELECT fpb_same($$SELECT ts, id FROM rk_desc WHERE (ts, id) >= ('2026-01-05 00:00+00', 11000)
	ORDER BY ts, id LIMIT 20$$, 'rk_desc_i', true);

-- text under ICU: the row bound compares under the index's collation
CREATE TABLE rk_text AS SELECT t, id FROM rk;
CREATE INDEX rk_text_i ON rk_text USING fpbtree (t, id);
VACUUM ANALYZE rk_text;
SELECT fpb_plan($$SELECT t, id FROM rk_text WHERE (t, id) > ('w250', 100) ORDER BY t, id LIMIT 5$$, 'index');
SELECT fpb_same($$SELECT t, id FROM rk_text WHERE (t, id) > ('w250', 100) ORDER BY t, id LIMIT 50$$, 'rk_text_i', true);
SELECT fpb_same($$SELECT t, id FROM rk_text WHERE (t, id) <= ('W25', 100)$$, 'rk_text_i');
-- another collation than the index's: no condition from it
SELECT fpb_plan($$SELECT t, id FROM rk_text WHERE (t COLLATE "C", id) > ('w250', 100)$$, 'index');

-- a partitioned table: each partition's index gets the condition
CREATE TABLE rk_parted (ts timestamptz, id int8) PARTITION BY RANGE (ts);
CREATE TABLE rk_parted1 PARTITION OF rk_parted FOR VALUES FROM (MINVALUE) TO ('2026-01-04 00:00+00');
CREATE TABLE rk_parted2 PARTITION OF rk_parted FOR VALUES FROM ('2026-01-04 00:00+00') TO (MAXVALUE);
INSERT INTO rk_parted SELECT ts, id FROM rk WHERE ts IS NOT NULL;
CREATE INDEX rk_parted_i ON rk_parted USING fpbtree (ts, id);
VACUUM ANALYZE rk_parted;
SELECT fpb_plan($$SELECT ts, id FROM rk_parted WHERE (ts, id) > ('2026-01-05 00:00+00', 11000)
	ORDER BY ts, id LIMIT 20$$, 'index');
SELECT fpb_same($$SELECT ts, id FROM rk_parted WHERE (ts, id) > ('2026-01-03 00:00+00', 11000)
	ORDER BY ts, id LIMIT 20$$, 'rk_parted1_ts_id_idx', true);

-- a partial index takes the condition when the query implies its
-- predicate; a bitmap scan rechecks by it
CREATE TABLE rk_part AS SELECT ts, id FROM rk;
CREATE INDEX rk_part_i ON rk_part USING fpbtree (ts, id) WHERE id > 1000;
VACUUM ANALYZE rk_part;
SELECT fpb_plan($$SELECT ts, id FROM rk_part WHERE (ts, id) > ('2026-01-05 00:00+00', 11000)
	AND id > 1000 ORDER BY ts, id LIMIT 5$$, 'index');
SELECT fpb_same($$SELECT ts, id FROM rk_part WHERE (ts, id) > ('2026-01-05 00:00+00', 11000)
	AND id > 1000$$, 'rk_part_i');
SELECT fpb_plan($$SELECT ts, id FROM rk WHERE (ts, id) <= ('2026-01-01 03:00+00', 500)$$, 'bitmap');

-- an inheritance parent: each child's index gets the condition
CREATE TABLE rk_inh (ts timestamptz, id int8);
CREATE TABLE rk_inh1 () INHERITS (rk_inh);
INSERT INTO rk_inh SELECT ts, id FROM rk WHERE id % 2 = 0;
INSERT INTO rk_inh1 SELECT ts, id FROM rk WHERE id % 2 = 1;
CREATE INDEX rk_inh_i ON rk_inh USING fpbtree (ts, id);
CREATE INDEX rk_inh1_i ON rk_inh1 USING fpbtree (ts, id);
VACUUM ANALYZE rk_inh, rk_inh1;
SELECT fpb_plan($$SELECT ts, id FROM rk_inh WHERE (ts, id) > ('2026-01-05 00:00+00', 11000)
	ORDER BY ts, id LIMIT 5$$, 'index');
SELECT fpb_same($$SELECT ts, id FROM rk_inh WHERE (ts, id) > ('2026-01-05 00:00+00', 11000)
	ORDER BY ts, id LIMIT 30$$, 'rk_inh1_i', true);

-- row-level security: the condition joins the policy's, the rows are the
-- policy's (a leaky function in the row's second column is evaluated only
-- on rows the policy admits: no row it hides is named)
CREATE FUNCTION pg_temp.leak(int8) RETURNS int8 LANGUAGE plpgsql COST 0.0001 AS $$
BEGIN
	IF $1 % 3 <> 0 THEN RAISE NOTICE 'saw hidden row %', $1; END IF;
	RETURN $1;
END $$;
CREATE TABLE rk_rls AS SELECT ts, id FROM rk WHERE ts IS NOT NULL;
CREATE INDEX rk_rls_i ON rk_rls USING fpbtree (ts, id);
ANALYZE rk_rls;
ALTER TABLE rk_rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY rk_rls_p ON rk_rls USING (id % 3 = 0);
GRANT SELECT ON rk_rls TO PUBLIC;
CREATE ROLE rk_reader;
SET ROLE rk_reader;
SELECT count(*) FROM rk_rls WHERE (ts, pg_temp.leak(id)) > ('2026-01-07 00:00+00', 30000);
SELECT count(*) FROM rk_rls WHERE (ts, id) > ('2026-01-07 00:00+00', 30000);
RESET ROLE;
SELECT count(*) FROM rk_rls WHERE (ts, id) > ('2026-01-07 00:00+00', 30000) AND id % 3 = 0;
DROP TABLE rk_rls;
DROP ROLE rk_reader;
