--
-- PrefetchHashJoin with an empty side, against the built-in hash join.  The
-- built-in join fetches the first outer row before building (for joins that
-- do not emit unmatched build rows) and stops when the outer side is empty;
-- after building it stops when the build side is empty, unless it must emit
-- unmatched outer rows.  Keys divide by zero on rows the built-in join never
-- evaluates: the join must skip them too.  The "empty" sides are filters the
-- planner estimates at a third of their table, so the plans are stable and,
-- with a 64 kB hash_mem, the empty build side is planned in several batches.
--

-- on its own: the extension and settings
\set ECHO none
\i sql/include/setup.sql
\set ECHO all
-- the planner hook and the executor nodes
LOAD 'fpbtree';

SET client_min_messages = warning;

CREATE TABLE he_out AS SELECT g AS id, g % 1000 AS k, g % 7 AS y FROM generate_series(1, 5000) g;
CREATE TABLE he_in AS SELECT g AS id, g % 1000 AS k, g % 5 AS y FROM generate_series(1, 6000) g;
CREATE TABLE he_small AS SELECT g AS id, g % 1000 AS k, g % 4 AS y FROM generate_series(1, 150) g;
ANALYZE he_out, he_in, he_small;

-- hj_check(), hj_explain_lines(): PrefetchHashJoin against the built-in join
\set ECHO none
\i sql/include/hj_helpers.sql
\set ECHO all

-- what the PrefetchHashJoin node and its children did
CREATE FUNCTION hje_explain(q text) RETURNS SETOF text LANGUAGE sql AS $$
    SELECT hj_explain_lines(q, '(PrefetchHashJoin|Join Type|Hash Cond|Batches|Builds|Spilled|Seq Scan)', true)
$$;

-- the custom path wherever it is legal
SELECT hj_force();
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;

-- empty build side planned in several batches: inner, semi and right joins
-- end without reading the outer side (the built-in join reads its first
-- row only), so the outer key 100 / (3 - o.y) is never evaluated
SELECT * FROM hje_explain('SELECT o.id, i.id FROM he_out o JOIN (SELECT * FROM he_in WHERE k + 0 < 0) i ON i.k = 100 / (3 - o.y)');
SELECT hj_check('SELECT o.id, i.id FROM he_out o JOIN (SELECT * FROM he_in WHERE k + 0 < 0) i ON i.k = 100 / (3 - o.y)');
SELECT * FROM hje_explain('SELECT o.id FROM he_out o WHERE EXISTS (SELECT 1 FROM he_in i WHERE i.k + 0 < 0 AND i.k = 100 / (3 - o.y) AND i.id <> o.id)');
SELECT hj_check('SELECT o.id FROM he_out o WHERE EXISTS (SELECT 1 FROM he_in i WHERE i.k + 0 < 0 AND i.k = 100 / (3 - o.y) AND i.id <> o.id)');
SELECT * FROM hje_explain('SELECT o.id, i.id FROM he_out o RIGHT JOIN (SELECT * FROM he_in WHERE k + 0 < 0) i ON i.k = 100 / (3 - o.y)');
SELECT hj_check('SELECT o.id, i.id FROM he_out o RIGHT JOIN (SELECT * FROM he_in WHERE k + 0 < 0) i ON i.k = 100 / (3 - o.y)');
-- left, anti and full joins return every outer row, without batches
SELECT * FROM hje_explain('SELECT o.id, i.id FROM he_out o LEFT JOIN (SELECT * FROM he_in WHERE k + 0 < 0) i ON i.k = o.k');
SELECT hj_check('SELECT o.id, i.id FROM he_out o LEFT JOIN (SELECT * FROM he_in WHERE k + 0 < 0) i ON i.k = o.k');
SELECT hj_check('SELECT o.id FROM he_out o WHERE NOT EXISTS (SELECT 1 FROM he_in i WHERE i.k + 0 < 0 AND i.k = o.k)');
SELECT * FROM hje_explain('SELECT o.id, i.id FROM he_out o FULL JOIN (SELECT * FROM he_in WHERE k + 0 < 0) i ON i.k = o.k');
SELECT hj_check('SELECT o.id, i.id FROM he_out o FULL JOIN (SELECT * FROM he_in WHERE k + 0 < 0) i ON i.k = o.k');
-- build rows whose keys are all NULL count as none, except for right joins
SELECT hj_check('SELECT o.id, i.id FROM he_out o JOIN (SELECT id, NULLIF(k, k) AS k FROM he_in WHERE k % 3 = 0) i ON i.k = 100 / (3 - o.y)');
SELECT hj_check('SELECT o.id, i.id FROM he_out o RIGHT JOIN (SELECT id, NULLIF(k, k) AS k FROM he_in WHERE k % 3 = 0) i ON i.k = o.k');
-- the same in one batch
RESET work_mem;
SELECT * FROM hje_explain('SELECT o.id, i.id FROM he_out o JOIN (SELECT * FROM he_in WHERE k + 0 < 0) i ON i.k = 100 / (3 - o.y)');
SELECT hj_check('SELECT o.id, i.id FROM he_out o JOIN (SELECT * FROM he_in WHERE k + 0 < 0) i ON i.k = 100 / (3 - o.y)');
SELECT hj_check('SELECT o.id, i.id FROM he_out o LEFT JOIN (SELECT * FROM he_in WHERE k + 0 < 0) i ON i.k = o.k');
SET work_mem = '64kB';

-- empty outer side: inner, left, semi and anti joins end before loading
-- the build side, so the inner key 100 / (3 - s.y) is never evaluated
SELECT * FROM hje_explain('SELECT o.id, s.id FROM (SELECT * FROM he_out WHERE k + 0 < 0) o JOIN he_small s ON o.k = 100 / (3 - s.y)');
SELECT hj_check('SELECT o.id, s.id FROM (SELECT * FROM he_out WHERE k + 0 < 0) o JOIN he_small s ON o.k = 100 / (3 - s.y)');
SELECT * FROM hje_explain('SELECT o.id, s.id FROM (SELECT * FROM he_out WHERE k + 0 < 0) o LEFT JOIN he_small s ON o.k = 100 / (3 - s.y)');
SELECT hj_check('SELECT o.id, s.id FROM (SELECT * FROM he_out WHERE k + 0 < 0) o LEFT JOIN he_small s ON o.k = 100 / (3 - s.y)');
SELECT hj_check('SELECT o.id FROM (SELECT * FROM he_out WHERE k + 0 < 0) o WHERE EXISTS (SELECT 1 FROM he_small s WHERE o.k = 100 / (3 - s.y) AND s.id <> o.id)');
SELECT hj_check('SELECT o.id FROM (SELECT * FROM he_out WHERE k + 0 < 0) o WHERE NOT EXISTS (SELECT 1 FROM he_small s WHERE o.k = 100 / (3 - s.y))');
-- right and full joins still return every build row
SELECT * FROM hje_explain('SELECT o.id, s.id FROM (SELECT * FROM he_out WHERE k + 0 < 0) o RIGHT JOIN he_small s ON o.k = s.k');
SELECT hj_check('SELECT o.id, s.id FROM (SELECT * FROM he_out WHERE k + 0 < 0) o RIGHT JOIN he_small s ON o.k = s.k');
SELECT hj_check('SELECT o.id, s.id FROM (SELECT * FROM he_out WHERE k + 0 < 0) o FULL JOIN he_small s ON o.k = s.k');
-- both sides empty
SELECT hj_check('SELECT o.id, i.id FROM (SELECT * FROM he_out WHERE k + 0 < 0) o FULL JOIN (SELECT * FROM he_in WHERE k + 0 < 0) i ON i.k = o.k');

-- rescans: an outer side that stays empty never loads the build side; the
-- outer side empty for some parameter values, the build side for others
RESET work_mem;
SELECT * FROM hje_explain('SELECT s.id, (SELECT count(*) FROM he_out o JOIN he_small t ON o.k = 100 / (3 - t.y) WHERE o.id < s.id - 200) FROM he_small s WHERE s.id > 140');
SELECT hj_check('SELECT s.id, (SELECT count(*) FROM he_out o JOIN he_small t ON o.k = 100 / (3 - t.y) WHERE o.id < s.id - 200) FROM he_small s WHERE s.id > 140');
SELECT hj_check('SELECT s.id, (SELECT count(*) FROM he_out o JOIN he_small t ON o.k = t.k WHERE o.id < s.id - 145) FROM he_small s WHERE s.id > 140');
SELECT hj_check('SELECT s.id, (SELECT count(*) FROM he_out o LEFT JOIN he_small t ON o.k = t.k WHERE o.id < s.id - 145) FROM he_small s WHERE s.id > 140');
SELECT hj_check('SELECT s.id, (SELECT count(*) FROM he_out o LEFT JOIN (SELECT * FROM he_in WHERE k + 0 < s.id - 145) i ON i.k = o.k) FROM he_small s WHERE s.id > 140');
SELECT hj_check('SELECT s.id, (SELECT count(*) FROM he_out o RIGHT JOIN (SELECT * FROM he_in WHERE k + 0 < s.id - 145) i ON i.k = o.k) FROM he_small s WHERE s.id > 140');
SELECT hj_check('SELECT s.id, (SELECT count(*) FROM he_out o JOIN (SELECT * FROM he_in WHERE k + 0 < s.id - 145) i ON i.k = o.k) FROM he_small s WHERE s.id > 140');

RESET work_mem;
RESET hash_mem_multiplier;
DROP TABLE he_out, he_in, he_small;
DROP FUNCTION hj_check(text);
DROP FUNCTION hje_explain(text);
