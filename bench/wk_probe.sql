-- Index nested-loop join on a wide key: every key of wkp_:col (random
-- existing keys, in random order) is looked up in :tbl through its index
-- on :col.  Run in simple mode (:tbl and :col are names):
--   pgbench -n -M simple -t 3 -D tbl=wk_fp -D col=c -f bench/wk_probe.sql <db>
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_memoize = off;
SELECT count(*) FROM wkp_:col p JOIN :tbl t ON t.:col = p.k;
