-- Two-integer keys (tenant, id): fpbtree's multi-column index in the coded
-- prefix format, in the old first-column format, and btree.  Run in a
-- scratch database of a server with shared_preload_libraries = fpbtree,
-- as a superuser (the old format is built through a developer setting), e.g.
--   pg_virtualenv -o shared_preload_libraries=fpbtree \
--     -o maintenance_work_mem=256MB -o shared_buffers=512MB psql -X -f bench/widekey/multicol.sql
-- Three tables of the same 2M rows, c = hashint4(g) & 1023, id = g, one
-- index each; serial plans; the best of several runs of each query, the
-- tables in turn, twice.
\set ON_ERROR_STOP 1
CREATE EXTENSION IF NOT EXISTS fpbtree;
CREATE TABLE mc_new AS
	SELECT (hashint4(g) & 1023) AS c, g::int8 AS id
	FROM generate_series(1, 2000000) g;
CREATE TABLE mc_old AS SELECT * FROM mc_new;
CREATE TABLE mc_bt AS SELECT * FROM mc_new;
-- 200,000 probes, every tenth row
CREATE TABLE mc_probes AS
	SELECT (hashint4(g) & 1023) AS c, g::int8 AS id
	FROM generate_series(1, 2000000, 10) g;
\timing on
CREATE INDEX mc_new_i ON mc_new USING fpbtree (c, id);
SET fpbtree.debug_multi_prefix_first = on;
CREATE INDEX mc_old_i ON mc_old USING fpbtree (c, id);
RESET fpbtree.debug_multi_prefix_first;
CREATE INDEX mc_bt_i ON mc_bt USING btree (c, id);
\timing off
VACUUM ANALYZE mc_new, mc_old, mc_bt, mc_probes;
SELECT pg_relation_size('mc_new_i') AS coded_bytes,
	   pg_relation_size('mc_old_i') AS old_bytes,
	   pg_relation_size('mc_bt_i') AS btree_bytes;
SET max_parallel_workers_per_gather = 0;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
\ir best_ms.sql
SELECT t AS tbl,
	   round(pg_temp.best_ms(format('SELECT count(*) FROM mc_probes p JOIN %I m ON m.c = p.c AND m.id = p.id', t), 3)::numeric, 1) AS probes_200k_ms,
	   round(pg_temp.best_ms(format('SELECT count(*) FROM %I WHERE c = 77', t), 15)::numeric, 2) AS one_c_ms,
	   round(pg_temp.best_ms(format('SELECT count(*) FROM %I WHERE c = 500 AND id > 1000000', t), 15)::numeric, 2) AS c_and_id_ms,
	   round(pg_temp.best_ms(format('SELECT count(*) FROM %I WHERE c BETWEEN 100 AND 300', t), 5)::numeric, 1) AS c_201_values_ms
FROM unnest(ARRAY['mc_new', 'mc_old', 'mc_bt', 'mc_new', 'mc_old', 'mc_bt']) t;
