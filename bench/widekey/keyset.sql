-- Keyset pagination, "WHERE (ts, id) > ($1, $2) ORDER BY ts, id LIMIT 20",
-- on a (timestamptz, int8) fpbtree index and on btree (src/am/README.md,
-- "Row comparisons").  Run in a scratch database of a server with
-- shared_preload_libraries = fpbtree, e.g.
--   pg_virtualenv -o shared_preload_libraries=fpbtree \
--     -o shared_buffers=256MB psql -X -f bench/widekey/keyset.sql
-- Two tables of the same 1M rows (a row a second, ids in order), one index
-- each; serial plans; one page read at 10%, 50% and 90% of the index, the
-- best of 50 runs of each, the tables in turn, twice.  The plan of the
-- fpbtree side is shown: its index condition is the first column's.
\set ON_ERROR_STOP 1
CREATE EXTENSION IF NOT EXISTS fpbtree;
CREATE TABLE ks_fp AS
	SELECT timestamptz '2026-01-01 00:00+00' + g * interval '1 s' AS ts,
		   g::int8 AS id, repeat('x', 40) AS payload
	FROM generate_series(1, 1000000) g;
CREATE TABLE ks_bt AS SELECT * FROM ks_fp;
CREATE INDEX ks_fp_i ON ks_fp USING fpbtree (ts, id);
CREATE INDEX ks_bt_i ON ks_bt USING btree (ts, id);
VACUUM ANALYZE ks_fp, ks_bt;
SET max_parallel_workers_per_gather = 0;
\ir best_ms.sql
EXPLAIN (COSTS OFF)
SELECT * FROM ks_fp WHERE (ts, id) > ('2026-01-06 18:53:20+00', 500000)
ORDER BY ts, id LIMIT 20;
SELECT t AS tbl, pct,
	   round(pg_temp.best_ms(format(
		'SELECT count(*) FROM (SELECT * FROM %I WHERE (ts, id) > (%L, %s) ORDER BY ts, id LIMIT 20) s',
		t, timestamptz '2026-01-01 00:00+00' + pct * 10000 * interval '1 s', pct * 10000), 50)::numeric, 3) AS page_ms
FROM unnest(ARRAY['ks_fp', 'ks_bt', 'ks_fp', 'ks_bt']) WITH ORDINALITY u(t, o),
	 unnest(ARRAY[10, 50, 90]) pct
ORDER BY o, pct;
