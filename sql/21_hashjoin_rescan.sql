--
-- PrefetchHashJoin under rescans: a single-batch table may be kept across
-- rescans only when nothing it was built from changed -- the inner child's
-- parameters and the parameters of the inner hash keys, which the join
-- evaluates itself.  Parameters of the outer keys, join quals, filters and
-- the projection are read per probe and do not force a rebuild.  Every
-- query runs as a correlated subquery (or LATERAL) and is compared with the
-- built-in hash join; "Builds" in EXPLAIN ANALYZE counts the tables built.
--

-- on its own: the extension and settings
\set ECHO none
\i sql/include/setup.sql
\set ECHO all
-- the planner hook and the executor nodes
LOAD 'fpbtree';

SET client_min_messages = warning;

CREATE TABLE pr_o AS SELECT g AS id, g AS g FROM generate_series(1, 6) g;
-- a NULL parameter too, and repeated values
CREATE TABLE pr_on AS
SELECT g AS id, CASE WHEN g % 3 = 0 THEN NULL ELSE g % 5 END AS g
FROM generate_series(1, 8) g;
CREATE TABLE pr_a AS SELECT g AS k, g % 7 AS v FROM generate_series(1, 1000) g;
CREATE TABLE pr_b AS SELECT g AS k, g % 11 AS v FROM generate_series(1, 5000) g;
ANALYZE pr_o, pr_on, pr_a, pr_b;

-- hj_check(), hj_explain_lines(): PrefetchHashJoin against the built-in join
\set ECHO none
\i sql/include/hj_helpers.sql
\set ECHO all

-- the PrefetchHashJoin node's loops and tables built; its children (outer
-- first) and theirs
CREATE FUNCTION hjr_builds(q text) RETURNS SETOF text LANGUAGE sql AS $$
    SELECT hj_explain_lines(q, '(PrefetchHashJoin|Join Type|Hash Cond|Builds|Seq Scan on pr_[ab])', true)
$$;

-- the custom path wherever it is legal
SELECT hj_force();

-- the parameter is used only by the inner hash key (a.k + o.g), not by
-- either child; a LIMIT stops each scan early.  Every joined row has
-- d = o.g, so the count of rows that do not is 0
EXPLAIN (COSTS OFF, VERBOSE)
SELECT o.id, (SELECT count(*) FILTER (WHERE d <> o.g) FROM (SELECT b.k - a.k AS d FROM pr_b b JOIN pr_a a ON b.k = a.k + o.g LIMIT 3) s) FROM pr_o o;
SELECT o.id, (SELECT count(*) FILTER (WHERE d <> o.g) FROM (SELECT b.k - a.k AS d FROM pr_b b JOIN pr_a a ON b.k = a.k + o.g LIMIT 3) s) FROM pr_o o;
SELECT hj_check('SELECT o.id, (SELECT count(*) FILTER (WHERE d <> o.g) FROM (SELECT b.k - a.k AS d FROM pr_b b JOIN pr_a a ON b.k = a.k + o.g LIMIT 3) s) FROM pr_o o');
-- NULL parameters (a NULL key matches nothing) and repeated ones
SELECT hj_check('SELECT o.id, (SELECT count(*) || ''/'' || count(*) FILTER (WHERE d IS DISTINCT FROM o.g) FROM (SELECT b.k - a.k AS d FROM pr_b b JOIN pr_a a ON b.k = a.k + o.g LIMIT 3) s) FROM pr_on o');
-- complete scans: the table is rebuilt for every parameter value (a
-- second key keeps pr_a the build side)
SELECT hj_check('SELECT o.id, (SELECT count(*) || '' '' || sum(b.v - a.v) FROM pr_b b JOIN pr_a a ON b.k = a.k AND b.v = (a.v + o.g) % 11) FROM pr_on o');
SELECT * FROM hjr_builds('SELECT o.id, (SELECT count(*) FROM pr_b b JOIN pr_a a ON b.k = a.k AND b.v = (a.v + o.g) % 11) FROM pr_on o');
-- the parameter inside a SubPlan of the inner key, and the output of an
-- InitPlan that depends on it
SELECT hj_check('SELECT o.id, (SELECT count(*) || '' '' || sum(b.v - a.v) FROM pr_b b JOIN pr_a a ON b.k = a.k AND b.v = (SELECT a.v + o.g)) FROM pr_on o');
SELECT * FROM hjr_builds('SELECT o.id, (SELECT count(*) FROM pr_b b JOIN pr_a a ON b.k = a.k AND b.v = (SELECT a.v + o.g)) FROM pr_on o');
SELECT hj_check('SELECT o.id, (SELECT count(*) || '' '' || sum(b.v - a.v) FROM pr_b b JOIN pr_a a ON b.k = a.k AND b.v = a.v + (SELECT o.g)) FROM pr_on o');
SELECT * FROM hjr_builds('SELECT o.id, (SELECT count(*) FROM pr_b b JOIN pr_a a ON b.k = a.k AND b.v = a.v + (SELECT o.g)) FROM pr_on o');

-- parameters read only per probe: the table is built once
-- (probe side's child)
SELECT hj_check('SELECT o.id, (SELECT count(*) || '' '' || sum(b.k) FROM pr_b b JOIN pr_a a ON b.k = a.k WHERE b.k > o.g * 150) FROM pr_on o');
SELECT * FROM hjr_builds('SELECT o.id, (SELECT count(*) FROM pr_b b JOIN pr_a a ON b.k = a.k WHERE b.k > o.g * 150) FROM pr_on o');
-- (outer hash key)
SELECT hj_check('SELECT o.id, (SELECT count(*) || '' '' || sum(a.k) FROM pr_b b JOIN pr_a a ON b.k - o.g = a.k) FROM pr_on o');
SELECT * FROM hjr_builds('SELECT o.id, (SELECT count(*) FROM pr_b b JOIN pr_a a ON b.k - o.g = a.k) FROM pr_on o');
-- (join filter)
SELECT hj_check('SELECT o.id, (SELECT count(*) FROM pr_b b JOIN pr_a a ON b.k = a.k AND b.v + a.v <> o.g) FROM pr_on o');
SELECT * FROM hjr_builds('SELECT o.id, (SELECT count(*) FROM pr_b b JOIN pr_a a ON b.k = a.k AND b.v + a.v <> o.g) FROM pr_on o');
-- (filter above an outer join)
SELECT hj_check('SELECT o.id, (SELECT count(*) FROM pr_b b LEFT JOIN pr_a a ON b.k = a.k WHERE coalesce(a.v, b.v) <> o.g) FROM pr_on o');
SELECT * FROM hjr_builds('SELECT o.id, (SELECT count(*) FROM pr_b b LEFT JOIN pr_a a ON b.k = a.k WHERE coalesce(a.v, b.v) <> o.g) FROM pr_on o');
-- (projection)
EXPLAIN (COSTS OFF, VERBOSE)
SELECT o.id, (SELECT sum(d) FROM (SELECT b.k * o.g + a.v AS d FROM pr_b b JOIN pr_a a ON b.k = a.k OFFSET 0) s) FROM pr_on o;
SELECT hj_check('SELECT o.id, (SELECT sum(d) FROM (SELECT b.k * o.g + a.v AS d FROM pr_b b JOIN pr_a a ON b.k = a.k OFFSET 0) s) FROM pr_on o');
SELECT * FROM hjr_builds('SELECT o.id, (SELECT sum(d) FROM (SELECT b.k * o.g + a.v AS d FROM pr_b b JOIN pr_a a ON b.k = a.k OFFSET 0) s) FROM pr_on o');
-- a LIMIT that stops early, then rescans that keep the table
SELECT hj_check('SELECT o.id, (SELECT count(*) || '' '' || sum(k) FROM (SELECT b.k FROM pr_b b JOIN pr_a a ON b.k = a.k WHERE b.k > o.g * 150 LIMIT 3) s) FROM pr_on o');
SELECT * FROM hjr_builds('SELECT o.id, (SELECT count(*) FROM (SELECT b.k FROM pr_b b JOIN pr_a a ON b.k = a.k WHERE b.k > o.g * 150 LIMIT 3) s) FROM pr_on o');

-- right and full joins keep the table but forget its matches; with the
-- parameter in the inner key they rebuild
SELECT hj_check('SELECT o.id, (SELECT count(*) || '' '' || count(b.k) || '' '' || sum(a.k) FROM pr_a a LEFT JOIN pr_b b ON b.k = a.k AND b.k > o.g * 150) FROM pr_on o');
SELECT * FROM hjr_builds('SELECT o.id, (SELECT count(*) FROM pr_a a LEFT JOIN pr_b b ON b.k = a.k AND b.k > o.g * 150) FROM pr_on o');
SELECT hj_check('SELECT o.id, (SELECT count(*) || '' '' || count(b.k) || '' '' || count(a.k) FROM pr_a a FULL JOIN (SELECT * FROM pr_b WHERE k < 900 + o.g * 100) b ON b.k = a.k) FROM pr_on o');
SELECT * FROM hjr_builds('SELECT o.id, (SELECT count(*) FROM pr_a a FULL JOIN (SELECT * FROM pr_b WHERE k < 900 + o.g * 100) b ON b.k = a.k) FROM pr_on o');
SELECT hj_check('SELECT o.id, (SELECT count(*) || '' '' || count(b.k) || '' '' || sum(a.k) FROM pr_a a LEFT JOIN pr_b b ON b.k = a.k AND b.v = (a.v + o.g) % 11) FROM pr_on o');
SELECT * FROM hjr_builds('SELECT o.id, (SELECT count(*) FROM pr_a a LEFT JOIN pr_b b ON b.k = a.k AND b.v = (a.v + o.g) % 11) FROM pr_on o');
SELECT hj_check('SELECT o.id, (SELECT count(*) || '' '' || count(b.k) || '' '' || count(a.k) FROM pr_a a FULL JOIN pr_b b ON b.k = a.k AND b.v = (a.v * o.g) % 11) FROM pr_on o');
-- (outer keys with the parameter)
SELECT hj_check('SELECT o.id, (SELECT count(*) || '' '' || count(b.k) || '' '' || sum(a.k) FROM pr_a a LEFT JOIN pr_b b ON b.k = a.k + o.g) FROM pr_on o');
SELECT hj_check('SELECT o.id, (SELECT count(*) || '' '' || count(b.k) || '' '' || count(a.k) FROM pr_a a FULL JOIN pr_b b ON b.k = a.k * o.g) FROM pr_on o');
-- semi and anti joins
SELECT hj_check('SELECT o.id, (SELECT count(*) FROM pr_b b WHERE EXISTS (SELECT 1 FROM pr_a a WHERE a.k + o.g = b.k AND a.v <> b.v % 7)) FROM pr_on o');
SELECT hj_check('SELECT o.id, (SELECT count(*) FROM pr_b b WHERE EXISTS (SELECT 1 FROM pr_a a WHERE a.k = b.k AND a.v + o.g = b.v)) FROM pr_on o');
SELECT hj_check('SELECT o.id, (SELECT count(*) FROM pr_b b WHERE NOT EXISTS (SELECT 1 FROM pr_a a WHERE a.k * o.g = b.k)) FROM pr_on o');
SELECT hj_check('SELECT o.id, (SELECT count(*) FROM pr_b b WHERE b.k > o.g * 150 AND NOT EXISTS (SELECT 1 FROM pr_a a WHERE a.k = b.k)) FROM pr_on o');
SELECT * FROM hjr_builds('SELECT o.id, (SELECT count(*) FROM pr_b b WHERE b.k > o.g * 150 AND NOT EXISTS (SELECT 1 FROM pr_a a WHERE a.k = b.k)) FROM pr_on o');

-- the same under the other schemes and radix-clustered probing
SET fpbtree.hashjoin_prefetch = pipelined;
SELECT hj_check('SELECT o.id, (SELECT count(*) FILTER (WHERE d <> o.g) FROM (SELECT b.k - a.k AS d FROM pr_b b JOIN pr_a a ON b.k = a.k + o.g LIMIT 3) s) FROM pr_o o');
SELECT hj_check('SELECT o.id, (SELECT count(*) || '' '' || count(b.k) || '' '' || sum(a.k) FROM pr_a a LEFT JOIN pr_b b ON b.k = a.k AND b.k > o.g * 150) FROM pr_on o');
SET fpbtree.hashjoin_prefetch = 'group';
SET fpbtree.hashjoin_radix_bits = 3;
SELECT hj_check('SELECT o.id, (SELECT count(*) FILTER (WHERE d <> o.g) FROM (SELECT b.k - a.k AS d FROM pr_b b JOIN pr_a a ON b.k = a.k + o.g LIMIT 3) s) FROM pr_o o');
SELECT hj_check('SELECT o.id, (SELECT count(*) || '' '' || count(b.k) || '' '' || count(a.k) FROM pr_a a FULL JOIN (SELECT * FROM pr_b WHERE k < 900 + o.g * 100) b ON b.k = a.k) FROM pr_on o');
SELECT * FROM hjr_builds('SELECT o.id, (SELECT count(*) FROM pr_a a FULL JOIN (SELECT * FROM pr_b WHERE k < 900 + o.g * 100) b ON b.k = a.k) FROM pr_on o');
SELECT hj_check('SELECT o.id, (SELECT count(*) || '' '' || count(b.k) || '' '' || count(a.k) FROM pr_a a FULL JOIN pr_b b ON b.k = a.k AND b.v = (a.v * o.g) % 11) FROM pr_on o');
RESET fpbtree.hashjoin_radix_bits;

-- several batches: a table is never kept
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT hj_check('SELECT o.id, (SELECT count(*) || '' '' || count(b.k) || '' '' || count(a.k) FROM pr_a a FULL JOIN (SELECT * FROM pr_b WHERE k < 900 + o.g * 100) b ON b.k = a.k) FROM pr_on o');
SELECT * FROM hjr_builds('SELECT o.id, (SELECT count(*) FROM pr_a a FULL JOIN (SELECT * FROM pr_b WHERE k < 900 + o.g * 100) b ON b.k = a.k) FROM pr_on o');
RESET work_mem;
RESET hash_mem_multiplier;

-- a nested loop rescans the join with a new parameter (LATERAL)
SET enable_nestloop = on;
SELECT hj_check('SELECT o.id, j.* FROM pr_on o CROSS JOIN LATERAL (SELECT count(*), sum(b.v - a.v) FROM pr_b b JOIN pr_a a ON b.k = a.k AND b.v = (a.v + o.g) % 11) j');
SELECT * FROM hjr_builds('SELECT o.id, j.* FROM pr_on o CROSS JOIN LATERAL (SELECT count(*), sum(b.v - a.v) FROM pr_b b JOIN pr_a a ON b.k = a.k AND b.v = (a.v + o.g) % 11) j');
SELECT hj_check('SELECT o.id, j.* FROM pr_on o CROSS JOIN LATERAL (SELECT count(*), sum(b.k) FROM pr_b b JOIN pr_a a ON b.k = a.k WHERE b.k > o.g * 150) j');
SET enable_nestloop = off;

DROP TABLE pr_o, pr_on, pr_a, pr_b;
DROP FUNCTION hj_check(text);
DROP FUNCTION hjr_builds(text);
