--
-- 10_stats: pg_stat_user_indexes counts fpbtree scans as it counts btree
-- scans.  The same queries run on two identical tables, one with an fpbtree
-- index and one with a btree index; after each group of queries idx_scan,
-- idx_tup_read and idx_tup_fetch of the two indexes must be equal.
--

-- on its own: the extension and settings
\set ECHO none
\i sql/include/setup.sql
\set ECHO all

-- no ANALYZE (and no autovacuum): with a histogram the planner would probe
-- the btree index for the range's actual ends, and count scans fpbtree
-- does not get
CREATE TABLE stats_f (k int4, v int4) WITH (autovacuum_enabled = off);
INSERT INTO stats_f SELECT (g * 7919) % 2000, g FROM generate_series(1, 10000) g;
CREATE TABLE stats_b (k int4, v int4) WITH (autovacuum_enabled = off);
INSERT INTO stats_b SELECT * FROM stats_f;
CREATE INDEX stats_f_k ON stats_f USING fpbtree (k);
-- without posting lists a backward btree scan returns equal keys in reverse
-- heap order, as fpbtree does, so both return the same rows under LIMIT
CREATE INDEX stats_b_k ON stats_b USING btree (k) WITH (deduplicate_items = off);
-- the visibility map, for index-only scans
VACUUM stats_f;
VACUUM stats_b;

-- Run query q (%I stands for the table) on both tables: the scan nodes of
-- each plan, then the results.
CREATE FUNCTION stats_run(q text) RETURNS TABLE (what text, fpbtree text, btree text)
LANGUAGE plpgsql AS $$
DECLARE
	plan text[];
	res text[];
	t text;
	line text;
BEGIN
	FOREACH t IN ARRAY ARRAY['stats_f', 'stats_b'] LOOP
		line := '';
		FOR what IN EXECUTE 'EXPLAIN (COSTS OFF) ' || format(q, t) LOOP
			IF what ~ 'Scan' THEN
				line := line || CASE WHEN line = '' THEN '' ELSE '; ' END ||
					regexp_replace(what, '^\s*(->\s*)?', '');
			END IF;
		END LOOP;
		plan := plan || line;
		EXECUTE format('SELECT coalesce(string_agg(r::text, '' '' ORDER BY n), '''')
						FROM (SELECT r, row_number() OVER () AS n FROM (%s) r) s',
					   format(q, t)) INTO line;
		res := res || line;
	END LOOP;
	RETURN QUERY VALUES ('plan', plan[1], plan[2]), ('rows', res[1], res[2]);
END $$;

CREATE VIEW stats_counts AS
SELECT f.idx_scan AS f_scan, b.idx_scan AS b_scan,
	   f.idx_tup_read AS f_read, b.idx_tup_read AS b_read,
	   f.idx_tup_fetch AS f_fetch, b.idx_tup_fetch AS b_fetch,
	   (f.idx_scan, f.idx_tup_read, f.idx_tup_fetch) =
	   (b.idx_scan, b.idx_tup_read, b.idx_tup_fetch) AS same
FROM pg_stat_user_indexes f, pg_stat_user_indexes b
WHERE f.indexrelname = 'stats_f_k' AND b.indexrelname = 'stats_b_k';

SELECT pg_stat_force_next_flush();
SELECT * FROM stats_counts;

-- plain index scans: a range, backward with LIMIT, an empty range,
-- contradictory keys, and an inner side rescanned by a nested loop
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_indexonlyscan = off;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT * FROM stats_run('SELECT sum(v) FROM %I WHERE k BETWEEN 100 AND 600');
SELECT * FROM stats_run('SELECT v FROM %I WHERE k >= 1990 ORDER BY k DESC LIMIT 7');
SELECT * FROM stats_run('SELECT count(v) FROM %I WHERE k > 5000');
SELECT * FROM stats_run('SELECT count(v) FROM %I WHERE k > 10 AND k < 5');
SELECT * FROM stats_run('SELECT count(s.v) FROM generate_series(1, 5) g JOIN %I s ON s.k = g * 10');
SELECT pg_stat_force_next_flush();
SELECT * FROM stats_counts;

-- index-only scans
SET enable_indexonlyscan = on;
SELECT * FROM stats_run('SELECT count(*) FROM %I WHERE k BETWEEN 100 AND 600');
SELECT * FROM stats_run('SELECT k FROM %I WHERE k < 3 ORDER BY k DESC');
SELECT * FROM stats_run('SELECT count(*) FROM generate_series(1, 5) g JOIN %I s ON s.k = g * 10');
SELECT pg_stat_force_next_flush();
SELECT * FROM stats_counts;

-- bitmap scans, including an array of keys (one scan per element) and a
-- nested loop's rescans
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = on;
SELECT * FROM stats_run('SELECT sum(v) FROM %I WHERE k BETWEEN 100 AND 600');
SELECT * FROM stats_run('SELECT count(v) FROM %I WHERE k = ANY (''{5, 17, 1999, 5000}'')');
SELECT * FROM stats_run('SELECT count(v) FROM %I WHERE k > 5000');
SELECT * FROM stats_run('SELECT count(s.v) FROM generate_series(1, 5) g JOIN %I s ON s.k = g * 10');
SELECT pg_stat_force_next_flush();
SELECT * FROM stats_counts;

RESET ALL;
DROP VIEW stats_counts;
DROP FUNCTION stats_run(text);
DROP TABLE stats_f, stats_b;
