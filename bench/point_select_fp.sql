-- Point lookup of an existing key through the index on keys_fp (index-only scan).
-- keys_fp holds a = hashint8extended(i, 0) for i in 1..:scale.  \gset makes
-- pgbench fail if the key is not found (it wants exactly one row).
--   pgbench -n -M prepared -c 1 -T 15 -D scale=<rows> -f bench/point_select_fp.sql <db>
\set i random(1, :scale)
SELECT a FROM keys_fp WHERE a = hashint8extended(:i, 0) \gset
