-- Text values repeated: fpbtree's pages of runs against btree's
-- deduplicated leaves.  Run in a scratch database of a server with
-- shared_preload_libraries = fpbtree, e.g.
--   pg_virtualenv -o shared_preload_libraries=fpbtree \
--     -o maintenance_work_mem=256MB -o shared_buffers=512MB psql -X -f bench/widekey/runs.sql
-- Two tables of the same 2M rows (128 text values under "C"), one index
-- each; serial plans; the best of several runs of each query.
\set ON_ERROR_STOP 1
CREATE EXTENSION IF NOT EXISTS fpbtree;
CREATE TABLE runs_fp AS
	SELECT 'status-' || (hashint4(g) & 127)::text COLLATE "C" AS s, g AS id
	FROM generate_series(1, 2000000) g;
CREATE TABLE runs_bt AS SELECT * FROM runs_fp;
\timing on
CREATE INDEX runs_fp_s ON runs_fp USING fpbtree (s);
CREATE INDEX runs_bt_s ON runs_bt USING btree (s);
\timing off
VACUUM ANALYZE runs_fp, runs_bt;
SELECT pg_relation_size('runs_fp_s') AS fpbtree_bytes,
	   pg_relation_size('runs_bt_s') AS btree_bytes;
SET max_parallel_workers_per_gather = 0;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
\ir best_ms.sql
SELECT t AS am,
	   pg_temp.best_ms(format('SELECT count(*) FROM %I WHERE s >= ''status-20'' AND s < ''status-36''', t), 7) AS range16_ms,
	   pg_temp.best_ms(format('SELECT count(*) FROM %I WHERE s = ''status-77''', t), 15) AS one_value_ms,
	   pg_temp.best_ms(format('SELECT count(id) FROM %I WHERE s = ''status-77''', t), 7) AS one_value_heap_ms
FROM unnest(ARRAY['runs_fp', 'runs_bt', 'runs_fp', 'runs_bt']) t;
