-- Parallel index-only counts on text keys of one fpbtree prefix (URL-like,
-- under "C"), btree (wp_bt) against fpbtree (wp_fp): the tables, 5M rows
-- each.  Run by run.sh; by hand, in a scratch cluster with fpbtree
-- preloaded and shared_buffers = 2GB:
--   pg_virtualenv -t -v 15 -o shared_preload_libraries=fpbtree \
--       -o shared_buffers=2GB bash -c \
--       'psql -X -q -f bench/pscan_wide/setup.sql; bench/pscan_wide/run.sh'
CREATE EXTENSION fpbtree;
CREATE EXTENSION pg_prewarm;
CREATE TABLE wp_bt (p text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO wp_bt
SELECT 'https://www.example.com/catalog/item/' || md5(i::text)
FROM generate_series(1, 5000000) i;
CREATE TABLE wp_fp (LIKE wp_bt) WITH (autovacuum_enabled = off);
INSERT INTO wp_fp SELECT * FROM wp_bt;
CREATE INDEX ON wp_bt USING btree (p);
CREATE INDEX ON wp_fp USING fpbtree (p);
VACUUM ANALYZE wp_bt, wp_fp;
SELECT pg_prewarm(c.oid) FROM pg_class c WHERE relname LIKE 'wp_%';
