-- Index nested-loop join: every key of the probes table (random existing
-- keys, in random order) is looked up in :tbl through its index.
-- Hash, merge and bitmap joins, memoize and the seq scan are disabled so
-- the plan is Nested Loop -> Seq Scan on probes + Index Only Scan on :tbl
-- (bench.py checks this with EXPLAIN).  :tbl is a table name, so run it in
-- simple mode:
--   pgbench -n -M simple -t 3 -D tbl=keys_fp -f bench/probe_join.sql <db>
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_memoize = off;
SELECT count(*) FROM probes p JOIN :tbl t ON t.a = p.k;
