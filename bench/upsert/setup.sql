-- Upserts on a unique btree index against a unique fpbtree index
-- (src/am/README.md, "Unique indexes", ON CONFLICT).  Two databases with the
-- same 1M accounts, one unique index on id each; run.sh then alternates
-- pgbench runs of upsert.pgb (every key exists: ON CONFLICT DO UPDATE, a
-- HOT update) and nothing.pgb (ON CONFLICT DO NOTHING: the pre-check's index
-- probe only) between them.  Run on a server with
-- shared_preload_libraries = fpbtree, e.g.
--   pg_virtualenv -o shared_preload_libraries=fpbtree -o shared_buffers=1GB \
--     -o synchronous_commit=off -o autovacuum=off \
--     bash -c 'psql -X -q -f bench/upsert/setup.sql && bench/upsert/run.sh'
\set ON_ERROR_STOP 1
DROP DATABASE IF EXISTS ups_bt;
DROP DATABASE IF EXISTS ups_fp;
CREATE DATABASE ups_bt;
CREATE DATABASE ups_fp;
\c ups_bt
CREATE TABLE acc (id int8, email text, n int8);
INSERT INTO acc SELECT g, 'user' || g || '@example.com', 0
	FROM generate_series(1, 1000000) g;
CREATE UNIQUE INDEX acc_id ON acc (id);
VACUUM ANALYZE acc;
\c ups_fp
CREATE EXTENSION fpbtree;
CREATE TABLE acc (id int8, email text, n int8);
INSERT INTO acc SELECT g, 'user' || g || '@example.com', 0
	FROM generate_series(1, 1000000) g;
CREATE UNIQUE INDEX acc_id ON acc USING fpbtree (id);
VACUUM ANALYZE acc;
