-- A serializable transaction that looks up one random key and inserts
-- another into ssi_fp (1M rows, an index on k): the `serializable`
-- workload.  Transactions fail only when SSI finds their reads and writes
-- conflicting (with page-level predicate locks: on the same leaf page).
--   pgbench -n -M prepared -c 4 -T 10 -f bench/serializable_fp.sql <db>
\set k random(1, 1000000)
\set n random(1000001, 2000000000)
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT v FROM ssi_fp WHERE k = hashint8(:k);
INSERT INTO ssi_fp VALUES (hashint8(:n), :n);
COMMIT;
