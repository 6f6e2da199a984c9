--
-- 19_bottomup: bottom-up deletion.  Updates that leave an index's key
-- unchanged add a new version of the key to its leaf; when the leaf would
-- split, the inserter asks the heap which older versions are dead to
-- everyone and removes them, with no scan having marked them.  Every row
-- is updated once, in many small committed transactions, with no index
-- scans and no VACUUM, so nothing marks the old versions (a key's next
-- update would, through the uniqueness check): like btree's, the fpbtree
-- indexes must not grow.  Scans afterwards equal btree's.
--

-- on its own: the extension, settings, fpb_same() and its helpers
\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

-- uf: fpbtree indexes, ub: btree.  v is indexed and changes, so no update
-- is HOT; id (unique) and g (not unique) keep their values.
CREATE TABLE uf (id int4, g int4, v int8) WITH (fillfactor = 100, autovacuum_enabled = off);
CREATE TABLE ub (LIKE uf) WITH (fillfactor = 100, autovacuum_enabled = off);
INSERT INTO uf SELECT i, 20001 - i, i * 7 FROM generate_series(1, 20000) i;
INSERT INTO ub SELECT * FROM uf;
CREATE UNIQUE INDEX uf_id ON uf USING fpbtree (id);
CREATE INDEX uf_g ON uf USING fpbtree (g);
CREATE INDEX uf_v ON uf USING fpbtree (v);
CREATE UNIQUE INDEX ub_id ON ub (id);
CREATE INDEX ub_g ON ub (g);
CREATE INDEX ub_v ON ub (v);
VACUUM ANALYZE uf;
VACUUM ANALYZE ub;
CREATE TABLE usize (tab text, idx text, before bigint, after bigint);
INSERT INTO usize
SELECT c.relname::text, i.relname::text, pg_relation_size(i.oid), NULL
FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
     JOIN pg_class c ON c.oid = x.indrelid
WHERE c.relname IN ('uf', 'ub');

-- a round of updates of every row, a twentieth of the rows per statement
-- (spread over every leaf), through sequential scans only: each leaf fills
-- while the older statements' versions are already dead to everyone
SET enable_indexscan = off;
SET enable_bitmapscan = off;
\set ECHO none
SELECT format('UPDATE %s SET v = v + 1 WHERE id %% 20 = %s', t, c)
FROM generate_series(0, 19) c, unnest('{uf,ub}'::text[]) t
ORDER BY c, t \gexec
\set ECHO all
RESET enable_indexscan;
RESET enable_bitmapscan;

UPDATE usize SET after = pg_relation_size(idx);
-- the indexes whose key did not change grew by less than a tenth (without
-- the deletion the fpbtree ones double; with the table AM's bottom-up mode
-- alone, which visits a few heap blocks and gives up at the first that
-- frees nothing, they grow by a quarter or more); v's, whose key did,
-- double as btree's
SELECT tab, idx, after > 1.1 * before AS grew_by_a_tenth
FROM usize ORDER BY tab, idx;

-- no entry of a row version some snapshot could see was removed: every
-- scan returns btree's rows
SELECT fpb_same('SELECT id, g, v FROM uf WHERE id BETWEEN 100 AND 15000 ORDER BY id', 'uf_id', true);
SELECT fpb_same('SELECT id, g, v FROM uf WHERE g > 5000 ORDER BY g', 'uf_g', true);
SELECT fpb_same('SELECT id, v FROM uf WHERE v < 70000 ORDER BY v', 'uf_v', true);
SELECT fpb_rows('SELECT id, g, v FROM uf WHERE id > 0 ORDER BY id', 'index')
     = fpb_rows('SELECT id, g, v FROM ub WHERE id > 0 ORDER BY id', 'index')
       AS same_as_btree;
SELECT count(*) FROM uf;
SELECT fpbtree_check('uf_id', true), fpbtree_check('uf_g', true),
       fpbtree_check('uf_v', true);


-- A low-cardinality index whose key every update changes (a balance, a
-- status): the executor never gives the hint, but a leaf whose entries are
-- runs of a few keys gets the same heap check before it splits.  Two
-- rounds of updates of every row, a twentieth per statement, with no
-- scans of the index and no VACUUM: each new version goes in under a key
-- whose leaves hold the old versions of earlier statements' rows, dead to
-- everyone.  The build packs the runs of each key (pages of runs, 221 kB
-- against btree's 238 kB).  Without the check the fpbtree index grows to
-- 3.7 times that, as it gets every update's entry; with it, to 1.8 times
-- (401 kB).  btree's (no bottom-up deletion without the hint) grows to 3.8
-- times (909 kB).
CREATE TABLE lf (id int4, b int4) WITH (fillfactor = 100, autovacuum_enabled = off);
CREATE TABLE lb (LIKE lf) WITH (fillfactor = 100, autovacuum_enabled = off);
INSERT INTO lf SELECT i, hashint4(i) & 31 FROM generate_series(1, 30000) i;
INSERT INTO lb SELECT * FROM lf;
CREATE INDEX lf_b ON lf USING fpbtree (b);
CREATE INDEX lb_b ON lb (b);
VACUUM ANALYZE lf;
VACUUM ANALYZE lb;
CREATE TABLE lsize (idx text, before bigint, after bigint);
INSERT INTO lsize VALUES ('lf_b', pg_relation_size('lf_b'), NULL),
                         ('lb_b', pg_relation_size('lb_b'), NULL);
SET enable_indexscan = off;
SET enable_bitmapscan = off;
\set ECHO none
SELECT format('UPDATE %s SET b = (b + 7) & 31 WHERE id %% 20 = %s', t, c % 20)
FROM generate_series(0, 39) c, unnest('{lf,lb}'::text[]) t
ORDER BY c, t \gexec
\set ECHO all
RESET enable_indexscan;
RESET enable_bitmapscan;
UPDATE lsize SET after = pg_relation_size(idx);
SELECT idx, after > 2 * before AS doubled FROM lsize ORDER BY idx;
SELECT (SELECT after FROM lsize WHERE idx = 'lf_b') <
	   (SELECT after FROM lsize WHERE idx = 'lb_b') / 2 AS under_half_of_btree;

-- only dead versions went: every scan returns the rows btree's does
SELECT fpb_same('SELECT id, b FROM lf WHERE b BETWEEN 3 AND 20 ORDER BY b, id', 'lf_b', true);
SELECT fpb_rows('SELECT b, id FROM lf WHERE b >= 0 ORDER BY b, id', 'index')
     = fpb_rows('SELECT b, id FROM lb WHERE b >= 0 ORDER BY b, id', 'index')
       AS same_as_btree;
SELECT fpbtree_check('lf_b', true);
