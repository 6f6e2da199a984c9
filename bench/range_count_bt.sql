-- Index-only range count over keys_bt: a random range [lo, lo + w) of the
-- int8 domain.  Keys are uniform over int8, so it holds about n entries when
-- w = n * 2^64 / rows; the script fails if the count is far from n (6 sigma).
-- Needs the scan forced to the index (at large n the planner would rather
-- scan the heap):
--   PGOPTIONS='-c enable_seqscan=off -c enable_bitmapscan=off' \
--   pgbench -n -M prepared -T 10 -D w=<width> -D n=<entries> -f bench/range_count_bt.sql <db>
\set lo 2 * random(-4611686018427387903, 4611686018427387903 - :w / 2)
\set hi :lo + :w
SELECT count(*) AS c FROM keys_bt WHERE a >= :lo AND a < :hi \gset
\if :c < :n - 6 * sqrt(:n) - 10 or :c > :n + 6 * sqrt(:n) + 10
SELECT ('range count ' || :c::text || ' is far from the expected ' || :n::text)::int8;
\endif
