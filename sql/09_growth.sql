--
-- 09_growth: an index grown by ascending, descending and interleaved
-- inserts (splits at the right end, the left end and everywhere), emptied
-- key ranges refilled after VACUUM, and scans that stay open while the
-- pages under them split.
--

-- on its own: the extension, settings, fpb_same() and its helpers
\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

CREATE TABLE gr (id serial, k int4) WITH (autovacuum_enabled = off);
CREATE INDEX gr_k ON gr USING fpbtree (k) WITH (nonleaf_lines = 2, leaf_lines = 2);
-- ascending: always the rightmost leaf
INSERT INTO gr (k) SELECT g FROM generate_series(1, 40000) g;
SELECT fpbtree_check('gr_k', true);
-- descending: always the leftmost leaf (more of them: their pages are
-- left filled to the fillfactor, and the tree should reach three levels)
INSERT INTO gr (k) SELECT -g FROM generate_series(1, 80000) g;
SELECT fpbtree_check('gr_k', true);
-- interleaved into the middle of existing ranges
INSERT INTO gr (k) SELECT g * 7 FROM generate_series(1, 5000) g;
INSERT INTO gr (k) SELECT -g * 3 FROM generate_series(1, 5000) g;
SELECT fpbtree_check('gr_k', true);
SELECT height >= 3 AS tall, entries FROM fpbtree_stats('gr_k');
VACUUM ANALYZE gr;

SELECT q, fpb_same(q, 'gr_k', ordered) AS res FROM (VALUES
	('SELECT k FROM gr WHERE k > 39990', false),
	('SELECT k FROM gr WHERE k < -39990', false),
	('SELECT k FROM gr WHERE k BETWEEN 69 AND 77', false),
	('SELECT k FROM gr WHERE k BETWEEN -9 AND 9 ORDER BY k DESC', true),
	('SELECT count(*) FROM gr WHERE k >= -40000', false),
	('SELECT k FROM gr ORDER BY k LIMIT 5', true),
	('SELECT k FROM gr ORDER BY k DESC LIMIT 5', true)
) v(q, ordered) ORDER BY q;

-- empty whole key ranges (many leaf pages), VACUUM, scan across the hole in
-- both directions, then fill it again
DELETE FROM gr WHERE k BETWEEN -30000 AND 30000;
VACUUM gr;
SELECT fpbtree_check('gr_k', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) FROM gr WHERE k BETWEEN -30001 AND 30001;
SELECT k FROM gr WHERE k > -30005 ORDER BY k LIMIT 6;
SELECT k FROM gr WHERE k < 30005 ORDER BY k DESC LIMIT 6;
RESET ALL;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SELECT s.entries = (SELECT count(*) FROM gr) AS entries_ok FROM fpbtree_stats('gr_k') s;
INSERT INTO gr (k) SELECT (g * 7919) % 60001 - 30000 FROM generate_series(1, 60001) g;
SELECT fpbtree_check('gr_k', true);
SELECT fpb_same('SELECT k FROM gr WHERE k BETWEEN -100 AND 100', 'gr_k');
SELECT fpb_same('SELECT k FROM gr WHERE k >= 29990 ORDER BY k LIMIT 40', 'gr_k', true);
SELECT s.entries = (SELECT count(*) FROM gr) AS entries_ok FROM fpbtree_stats('gr_k') s;

-- a scan stays open while the pages under it split: entries move to new
-- right siblings, and the cursor (whose snapshot does not see the new rows)
-- must return each old entry exactly once, forwards and backwards
TRUNCATE gr;
INSERT INTO gr (k) SELECT g * 10 FROM generate_series(1, 20000) g;
VACUUM ANALYZE gr;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_sort = off;
BEGIN;
DECLARE c1 SCROLL CURSOR FOR SELECT k FROM gr WHERE k > 0 ORDER BY k;
EXPLAIN (COSTS OFF) SELECT k FROM gr WHERE k > 0 ORDER BY k;
MOVE FORWARD 5000 IN c1;
FETCH 1 FROM c1;
-- fill the gaps around the cursor's position and far ahead of it
INSERT INTO gr (k) SELECT g * 10 + d FROM generate_series(4990, 5200) g, generate_series(1, 9) d;
INSERT INTO gr (k) SELECT g * 10 + d FROM generate_series(12000, 12500) g, generate_series(1, 9) d;
FETCH 1 FROM c1;
FETCH 2 FROM c1;
FETCH BACKWARD 3 FROM c1;
MOVE FORWARD ALL IN c1;
FETCH BACKWARD 1 FROM c1;
FETCH ABSOLUTE 12000 FROM c1;
FETCH 2 FROM c1;
COMMIT;
-- the same with a function that walks the whole cursor and reports
CREATE FUNCTION gr_walk(backward bool) RETURNS TABLE (n int8, distinct_n int8, sum_k int8)
LANGUAGE plpgsql AS $$
DECLARE
	c refcursor;
	v int4;
	prev int4 := NULL;
	i int8 := 0;
	ordered bool := true;
	s int8 := 0;
	dup int8 := 0;
BEGIN
	IF backward THEN
		OPEN c SCROLL FOR SELECT k FROM gr WHERE k > 0 AND k % 10 = 0 ORDER BY k DESC;
	ELSE
		OPEN c SCROLL FOR SELECT k FROM gr WHERE k > 0 AND k % 10 = 0 ORDER BY k;
	END IF;
	LOOP
		FETCH c INTO v;
		EXIT WHEN NOT FOUND;
		i := i + 1;
		s := s + v;
		IF prev IS NOT NULL AND v = prev THEN
			dup := dup + 1;
		END IF;
		prev := v;
		-- every 1000 rows, split the pages ahead of and behind the cursor
		IF i % 1000 = 0 THEN
			INSERT INTO gr (k) SELECT (v / 10 + g) * 10 + d
				FROM generate_series(-20, 20) g, generate_series(1, 9) d;
		END IF;
	END LOOP;
	CLOSE c;
	n := i;
	distinct_n := i - dup;
	sum_k := s;
	RETURN NEXT;
END $$;
TRUNCATE gr;
INSERT INTO gr (k) SELECT g * 10 FROM generate_series(1, 20000) g;
VACUUM ANALYZE gr;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_sort = off;
SELECT * FROM gr_walk(false);
SELECT * FROM gr_walk(true);
SELECT count(*), sum(k) FROM gr WHERE k > 0 AND k % 10 = 0;
RESET ALL;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SELECT fpbtree_check('gr_k', true);
SELECT fpb_same('SELECT k FROM gr WHERE k BETWEEN 100000 AND 100100', 'gr_k');

DROP FUNCTION gr_walk(bool);
DROP TABLE gr;

-- A freshly built index (leaves filled to the default 90%) takes 3% more
-- random keys without a page split: a page whose in-page tree has no room
-- for a node split is reorganised up to 97% full, as btree fills its
-- leaves to 100% before splitting.  btree's index does not grow either.
CREATE TABLE gr3 (k int8);
INSERT INTO gr3 SELECT hashint8(g) FROM generate_series(1, 100000) g;
CREATE INDEX gr3_fp ON gr3 USING fpbtree (k);
CREATE INDEX gr3_bt ON gr3 USING btree (k);
CREATE TEMP TABLE gr3_before AS
	SELECT pg_relation_size('gr3_fp') AS fp, pg_relation_size('gr3_bt') AS bt;
INSERT INTO gr3 SELECT hashint8(g) FROM generate_series(100001, 103000) g;
SELECT pg_relation_size('gr3_fp') = b.fp AS fpbtree_same_size,
	pg_relation_size('gr3_bt') = b.bt AS btree_same_size
FROM gr3_before b;
SELECT fpbtree_check('gr3_fp', true);
DROP TABLE gr3;

-- Ascending inserts fill the rightmost leaf's last node only.  When its
-- in-page tree has no free line for a node split, the page is laid out
-- again with packed nodes, and the right half of a split at the right edge
-- is laid out packed as well, leaving lines for the node splits that
-- follow.  Spread over all nodes (as for random inserts) every few inserts
-- would lay the page out again, a WAL record of most of the page: 100,000
-- ascending keys wrote 61 MB of generic records against btree's 6.6 MB of
-- its own (pg_walinspect, page images not counted); now about 10 MB.
\set ECHO none
\i sql/include/walinspect.sql
\set ECHO all
CREATE TABLE gr4_f (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX gr4_f_k ON gr4_f USING fpbtree (k);
CREATE TABLE gr4_b (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX gr4_b_k ON gr4_b USING btree (k);
SELECT pg_current_wal_lsn() AS gr4_l0 \gset
INSERT INTO gr4_f SELECT g FROM generate_series(1, 100000) g;
SELECT pg_current_wal_lsn() AS gr4_l1 \gset
INSERT INTO gr4_b SELECT g FROM generate_series(1, 100000) g;
SELECT pg_current_wal_lsn() AS gr4_l2 \gset
SELECT fpb_wal_ratio(:'gr4_l0', :'gr4_l1', :'gr4_l2') < 2 AS under_twice_btree;
SELECT fpbtree_check('gr4_f_k', true);
SELECT pg_relation_size('gr4_f_k') < pg_relation_size('gr4_b_k') AS smaller;
DROP TABLE gr4_f, gr4_b;
-- the same with ascending text keys (a wide index: values in slots):
-- 18.4 MB of generic records before, 6.3 MB now, btree's 4.2 MB
CREATE TABLE gr5_f (k text COLLATE "C") WITH (autovacuum_enabled = off);
CREATE INDEX gr5_f_k ON gr5_f USING fpbtree (k);
CREATE TABLE gr5_b (k text COLLATE "C") WITH (autovacuum_enabled = off);
CREATE INDEX gr5_b_k ON gr5_b USING btree (k);
SELECT pg_current_wal_lsn() AS gr5_l0 \gset
INSERT INTO gr5_f SELECT 'order-' || lpad(g::text, 10, '0') FROM generate_series(1, 50000) g;
SELECT pg_current_wal_lsn() AS gr5_l1 \gset
INSERT INTO gr5_b SELECT 'order-' || lpad(g::text, 10, '0') FROM generate_series(1, 50000) g;
SELECT pg_current_wal_lsn() AS gr5_l2 \gset
SELECT fpb_wal_ratio(:'gr5_l0', :'gr5_l1', :'gr5_l2') < 2 AS under_twice_btree;
SELECT fpbtree_check('gr5_f_k', true);
DROP TABLE gr5_f, gr5_b;

-- Descending inserts mirror them: they fill the leftmost leaf's first node,
-- a node split there leaves the new entry alone in the old node and moves
-- the others to the new one (kept full), a reorganisation packs the nodes,
-- and a split at the left edge leaves the right page filled to the
-- fillfactor.  Split in the middle, nodes and pages were left half full
-- and the page laid out again every few inserts: 100,000 descending int8
-- keys wrote 21 times btree's WAL (pg_walinspect, page images not counted),
-- then 4.4 times (a front insert shifted its whole node), now 1.4 (a
-- front insert moves nothing: free slots before a node's entries, README
-- "Page format"), and the index was 0.78 times btree's size, now 0.43.
-- The same for ascending keys into a DESC column (a multi-column format
-- index, values in slots): 21 times btree's WAL, then 4.7, now 1.8, and
-- 1.61 times its size, now 0.90; and for descending text keys: 19 times,
-- then 3.3, now 1.3.
CREATE TABLE gr6_f (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX gr6_f_k ON gr6_f USING fpbtree (k);
CREATE TABLE gr6_b (k int8) WITH (autovacuum_enabled = off);
CREATE INDEX gr6_b_k ON gr6_b USING btree (k);
SELECT pg_current_wal_lsn() AS gr6_l0 \gset
INSERT INTO gr6_f SELECT -g FROM generate_series(1, 100000) g;
SELECT pg_current_wal_lsn() AS gr6_l1 \gset
INSERT INTO gr6_b SELECT -g FROM generate_series(1, 100000) g;
SELECT pg_current_wal_lsn() AS gr6_l2 \gset
SELECT fpb_wal_ratio(:'gr6_l0', :'gr6_l1', :'gr6_l2') < 2.5 AS under_2_5x_btree;
SELECT fpbtree_check('gr6_f_k', true);
SELECT pg_relation_size('gr6_f_k') < 0.6 * pg_relation_size('gr6_b_k') AS under_0_6x;
SELECT fpb_same('SELECT k FROM gr6_f WHERE k BETWEEN -50010 AND -49990', 'gr6_f_k');
TRUNCATE gr6_f, gr6_b;
DROP INDEX gr6_f_k, gr6_b_k;
CREATE INDEX gr6_f_k ON gr6_f USING fpbtree (k DESC);
CREATE INDEX gr6_b_k ON gr6_b USING btree (k DESC);
SELECT pg_current_wal_lsn() AS gr6_l0 \gset
INSERT INTO gr6_f SELECT g FROM generate_series(1, 100000) g;
SELECT pg_current_wal_lsn() AS gr6_l1 \gset
INSERT INTO gr6_b SELECT g FROM generate_series(1, 100000) g;
SELECT pg_current_wal_lsn() AS gr6_l2 \gset
SELECT fpb_wal_ratio(:'gr6_l0', :'gr6_l1', :'gr6_l2') < 3 AS under_3x_btree;
SELECT fpbtree_check('gr6_f_k', true);
SELECT pg_relation_size('gr6_f_k') < 1.2 * pg_relation_size('gr6_b_k') AS under_1_2x;
SELECT fpb_same('SELECT k FROM gr6_f WHERE k > 99990 ORDER BY k DESC', 'gr6_f_k', true);
DROP TABLE gr6_f, gr6_b;
CREATE TABLE gr7_f (k text COLLATE "C") WITH (autovacuum_enabled = off);
CREATE INDEX gr7_f_k ON gr7_f USING fpbtree (k);
CREATE TABLE gr7_b (k text COLLATE "C") WITH (autovacuum_enabled = off);
CREATE INDEX gr7_b_k ON gr7_b USING btree (k);
SELECT pg_current_wal_lsn() AS gr7_l0 \gset
INSERT INTO gr7_f SELECT 'order-' || lpad((100000 - g)::text, 10, '0') FROM generate_series(1, 50000) g;
SELECT pg_current_wal_lsn() AS gr7_l1 \gset
INSERT INTO gr7_b SELECT 'order-' || lpad((100000 - g)::text, 10, '0') FROM generate_series(1, 50000) g;
SELECT pg_current_wal_lsn() AS gr7_l2 \gset
SELECT fpb_wal_ratio(:'gr7_l0', :'gr7_l1', :'gr7_l2') < 2.5 AS under_2_5x_btree;
SELECT fpbtree_check('gr7_f_k', true);
DROP TABLE gr7_f, gr7_b;

-- A backfill: ascending keys below the existing ones, so that each insert
-- lands just after the one before, in the middle of the index.  The entry
-- before the new one points to the heap tuple just before its own, so the
-- page splits just after the new entry (as nbtree's split after the new
-- item) and the left page, which takes the next inserts, is laid out
-- packed.  Split in the middle, every split left a half-empty page behind
-- and the page was laid out again every few inserts: 80,000 such keys into
-- 20,000 wrote 12 times btree's WAL, now 1.3 times, and the index is 0.47
-- times btree's size (0.77 before).
CREATE TABLE gr8_f (k int8) WITH (autovacuum_enabled = off);
INSERT INTO gr8_f SELECT g + 1000000 FROM generate_series(1, 20000) g;
CREATE INDEX gr8_f_k ON gr8_f USING fpbtree (k);
CREATE TABLE gr8_b (k int8) WITH (autovacuum_enabled = off);
INSERT INTO gr8_b SELECT g + 1000000 FROM generate_series(1, 20000) g;
CREATE INDEX gr8_b_k ON gr8_b USING btree (k);
SELECT pg_current_wal_lsn() AS gr8_l0 \gset
INSERT INTO gr8_f SELECT g FROM generate_series(1, 80000) g;
SELECT pg_current_wal_lsn() AS gr8_l1 \gset
INSERT INTO gr8_b SELECT g FROM generate_series(1, 80000) g;
SELECT pg_current_wal_lsn() AS gr8_l2 \gset
SELECT fpb_wal_ratio(:'gr8_l0', :'gr8_l1', :'gr8_l2') < 3 AS under_3x_btree;
SELECT pg_relation_size('gr8_f_k') < 0.6 * pg_relation_size('gr8_b_k') AS under_0_6x;
SELECT fpbtree_check('gr8_f_k', true);
SELECT fpb_same('SELECT k FROM gr8_f WHERE k BETWEEN 79990 AND 1000010', 'gr8_f_k');
SELECT fpb_same('SELECT k FROM gr8_f WHERE k < 100 ORDER BY k DESC', 'gr8_f_k', true);
DROP TABLE gr8_f, gr8_b;

-- A growing run of one key (every 13th row) with descending keys inserted
-- just above it: the run fills pages of one key; a greater key splitting
-- such a page went right alone, behind the separator (key, -inf), so the
-- next, smaller key came back to the run's full page and split it again:
-- one page per entry (20,000 rows: 2,278 pages, 2,064 leaves of one
-- entry; btree 96).  The run's last entry now goes right with the new key:
-- 210 pages.  The same with a run of NULLs under NULLS FIRST (values in
-- slots): 2,385 pages, now 349 (btree 96).
CREATE TABLE gr9 (g int, k int4, k2 int4) WITH (autovacuum_enabled = off);
CREATE INDEX gr9_f ON gr9 USING fpbtree (k);
CREATE INDEX gr9_b ON gr9 USING btree (k);
CREATE INDEX gr9_fn ON gr9 USING fpbtree (k2 NULLS FIRST);
CREATE INDEX gr9_bn ON gr9 USING btree (k2 NULLS FIRST);
INSERT INTO gr9 SELECT g, CASE WHEN g % 13 = 0 THEN 0 ELSE g END,
	CASE WHEN g % 13 = 0 THEN NULL ELSE g END
FROM generate_series(20000, 1, -1) g;
SELECT pg_relation_size('gr9_f') < 3 * pg_relation_size('gr9_b') AS under_3x,
	pg_relation_size('gr9_fn') < 5 * pg_relation_size('gr9_bn') AS nulls_under_5x;
SELECT fpbtree_check('gr9_f', true), fpbtree_check('gr9_fn', true);
DROP INDEX gr9_b, gr9_bn;
SELECT fpb_same('SELECT k FROM gr9 WHERE k BETWEEN 0 AND 40', 'gr9_f');
SELECT fpb_same('SELECT k2 FROM gr9 WHERE k2 < 30 OR k2 IS NULL ORDER BY k2 NULLS FIRST', 'gr9_fn', true);
DROP TABLE gr9;

-- Descending runs in the middle of the index: keys inserted in descending
-- order between existing ones, each landing just before the one before.
-- The run's next inserts come between the new entry and the one before it,
-- so a split keeps those two together and makes the part that takes no
-- more inserts the larger (insert.c, fpb_split_before_new; page.c for
-- in-page nodes).  Split in the middle, every split left a half-empty page
-- behind, and each insert of the run started an in-page node of its own:
-- 60,000 such keys wrote 12.6 times btree's generic-record bytes (page
-- images not counted), then 4.8 times, now 2.8 (an insert before the
-- run's last entry moves the entries before it, or centres the node, not
-- the rest of the node every time), into an index 0.78 times btree's
-- size, now 0.57 times.
CREATE TABLE gr10_f (k int8) WITH (autovacuum_enabled = off);
INSERT INTO gr10_f SELECT g * 1000 FROM generate_series(1, 20000) g;
CREATE INDEX gr10_f_k ON gr10_f USING fpbtree (k);
CREATE TABLE gr10_b (k int8) WITH (autovacuum_enabled = off);
INSERT INTO gr10_b SELECT g * 1000 FROM generate_series(1, 20000) g;
CREATE INDEX gr10_b_k ON gr10_b USING btree (k);
SELECT pg_current_wal_lsn() AS gr10_l0 \gset
INSERT INTO gr10_f SELECT 10000000 - g FROM generate_series(1, 60000) g;
SELECT pg_current_wal_lsn() AS gr10_l1 \gset
INSERT INTO gr10_b SELECT 10000000 - g FROM generate_series(1, 60000) g;
SELECT pg_current_wal_lsn() AS gr10_l2 \gset
SELECT fpb_wal_ratio(:'gr10_l0', :'gr10_l1', :'gr10_l2') < 4 AS under_4x_btree,
	pg_relation_size('gr10_f_k') < 0.7 * pg_relation_size('gr10_b_k') AS under_0_7x;
SELECT fpbtree_check('gr10_f_k', true);
SELECT fpb_same('SELECT k FROM gr10_f WHERE k BETWEEN 9939990 AND 9940010', 'gr10_f_k');
SELECT fpb_same('SELECT k FROM gr10_f WHERE k > 9999000 ORDER BY k DESC', 'gr10_f_k', true);
DROP TABLE gr10_f, gr10_b;

-- The same within groups: (tenant, created DESC), the newest first in each
-- of 100 tenants, each insert at the start of its tenant's entries: 5.6
-- times btree's generic-record bytes and 1.43 times its size before, now
-- 3.5 and 0.96.
CREATE TABLE gr11_f (a text COLLATE "C", k timestamptz) WITH (autovacuum_enabled = off);
CREATE INDEX gr11_f_k ON gr11_f USING fpbtree (a, k DESC);
CREATE TABLE gr11_b (a text COLLATE "C", k timestamptz) WITH (autovacuum_enabled = off);
CREATE INDEX gr11_b_k ON gr11_b USING btree (a, k DESC);
INSERT INTO gr11_f SELECT 'tenant-' || (g * 7919 % 100), '2026-01-01'::timestamptz + g * interval '1 s' FROM generate_series(1, 20000) g;
INSERT INTO gr11_b SELECT 'tenant-' || (g * 7919 % 100), '2026-01-01'::timestamptz + g * interval '1 s' FROM generate_series(1, 20000) g;
SELECT pg_current_wal_lsn() AS gr11_l0 \gset
INSERT INTO gr11_f SELECT 'tenant-' || (g * 7919 % 100), '2026-01-01'::timestamptz + g * interval '1 s' FROM generate_series(20001, 80000) g;
SELECT pg_current_wal_lsn() AS gr11_l1 \gset
INSERT INTO gr11_b SELECT 'tenant-' || (g * 7919 % 100), '2026-01-01'::timestamptz + g * interval '1 s' FROM generate_series(20001, 80000) g;
SELECT pg_current_wal_lsn() AS gr11_l2 \gset
SELECT fpb_wal_ratio(:'gr11_l0', :'gr11_l1', :'gr11_l2') < 4.5 AS under_4_5x_btree,
	pg_relation_size('gr11_f_k') < 1.2 * pg_relation_size('gr11_b_k') AS under_1_2x;
SELECT fpbtree_check('gr11_f_k', true);
SELECT fpb_same($$SELECT a, k FROM gr11_f WHERE a = 'tenant-42' ORDER BY k DESC LIMIT 20$$, 'gr11_f_k', true);
SELECT fpb_same($$SELECT a, k FROM gr11_f WHERE a BETWEEN 'tenant-5' AND 'tenant-6' AND k < '2026-01-01 12:00'$$, 'gr11_f_k');
DROP TABLE gr11_f, gr11_b;

-- Random inserts into a built index: each moves the entries on the
-- shorter side of it in its in-page node (free slots on both sides, README
-- "Page format"), not all those after it.  50,000 random int8 keys into
-- 50,000 wrote 4.3 times btree's generic-record bytes, now 3.4.
CREATE TABLE gr13_f (k int8) WITH (autovacuum_enabled = off);
INSERT INTO gr13_f SELECT hashint8(-g) FROM generate_series(1, 50000) g;
CREATE INDEX gr13_f_k ON gr13_f USING fpbtree (k);
CREATE TABLE gr13_b (k int8) WITH (autovacuum_enabled = off);
INSERT INTO gr13_b SELECT hashint8(-g) FROM generate_series(1, 50000) g;
CREATE INDEX gr13_b_k ON gr13_b USING btree (k);
CHECKPOINT;
SELECT pg_current_wal_lsn() AS gr13_l0 \gset
INSERT INTO gr13_f SELECT hashint8(g) FROM generate_series(1, 50000) g;
SELECT pg_current_wal_lsn() AS gr13_l1 \gset
INSERT INTO gr13_b SELECT hashint8(g) FROM generate_series(1, 50000) g;
SELECT pg_current_wal_lsn() AS gr13_l2 \gset
SELECT fpb_wal_ratio(:'gr13_l0', :'gr13_l1', :'gr13_l2') < 3.9 AS under_3_9x_btree;
SELECT fpbtree_check('gr13_f_k', true);
SELECT fpb_same('SELECT k FROM gr13_f WHERE k BETWEEN -100000000000000 AND 100000000000000', 'gr13_f_k');
SELECT fpb_same('SELECT k FROM gr13_f WHERE k < -9000000000000000000 ORDER BY k DESC', 'gr13_f_k', true);
DROP TABLE gr13_f, gr13_b;

-- Descending runs of text keys in the middle, in-page nodes of one line
-- (the fewest entries a node split can take) and of the default width,
-- with runs of equal keys between: the splits' edges, checked.
CREATE TABLE gr12 (k text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO gr12 SELECT lpad((g * 1000)::text, 12, '0') FROM generate_series(1, 3000) g;
INSERT INTO gr12 SELECT lpad('1500000', 12, '0') FROM generate_series(1, 300);
CREATE INDEX gr12_1 ON gr12 USING fpbtree (k) WITH (leaf_lines = 1);
CREATE INDEX gr12_d ON gr12 USING fpbtree (k);
INSERT INTO gr12 SELECT lpad((2000000 - g)::text, 12, '0') FROM generate_series(1, 20000) g;
INSERT INTO gr12 SELECT lpad((2500000 - g * 2)::text, 12, '0') FROM generate_series(1, 5000) g;
SELECT fpbtree_check('gr12_1', true), fpbtree_check('gr12_d', true);
SELECT fpb_same($$SELECT k FROM gr12 WHERE k BETWEEN '000001499990' AND '000001500010'$$, 'gr12_d');
DROP INDEX gr12_d;
SELECT fpb_same($$SELECT k FROM gr12 WHERE k > '000002489990' ORDER BY k DESC$$, 'gr12_1', true);
DROP TABLE gr12;

-- Random uuids into an index built over others: a page grown by inserts
-- is laid out again when its node lines run out.  The rewrite wrote every
-- value afresh in key order, so nearly all of them moved and the record
-- (the changed bytes) carried most of the page: the records of 1 kB or
-- more without a page image (re-layouts and splits) were 4.3 times the
-- bytes of btree's (its splits).  Now the values that lie in the page stay
-- where they are when compacting gains nothing (README "Space"): 1.9.
CREATE TABLE gr8_f (u uuid) WITH (autovacuum_enabled = off);
CREATE TABLE gr8_b (u uuid) WITH (autovacuum_enabled = off);
INSERT INTO gr8_f SELECT md5(g::text)::uuid FROM generate_series(1, 60000) g;
INSERT INTO gr8_b SELECT * FROM gr8_f;
CREATE INDEX gr8_f_u ON gr8_f USING fpbtree (u);
CREATE INDEX gr8_b_u ON gr8_b USING btree (u);
SELECT pg_current_wal_lsn() AS gr8_l0 \gset
INSERT INTO gr8_f SELECT md5((g + 1000000)::text)::uuid FROM generate_series(1, 30000) g;
SELECT pg_current_wal_lsn() AS gr8_l1 \gset
INSERT INTO gr8_b SELECT md5((g + 1000000)::text)::uuid FROM generate_series(1, 30000) g;
SELECT pg_current_wal_lsn() AS gr8_l2 \gset
SELECT (SELECT sum(record_length) FROM pg_get_wal_records_info(:'gr8_l0', :'gr8_l1')
		WHERE resource_manager = 'Generic' AND fpi_length = 0 AND
			  record_length >= 1000)::numeric /
	   (SELECT sum(record_length) FROM pg_get_wal_records_info(:'gr8_l1', :'gr8_l2')
		WHERE resource_manager = 'Btree' AND fpi_length = 0 AND
			  record_length >= 1000) < 3 AS large_records_under_3x_btree;
SELECT fpb_wal_ratio(:'gr8_l0', :'gr8_l1', :'gr8_l2') < 2.8 AS under_2_8x_btree;
SELECT fpbtree_check('gr8_f_u', true);
SELECT fpb_same($$SELECT u FROM gr8_f WHERE u < '10000000-0000-0000-0000-000000000000' ORDER BY u$$, 'gr8_f_u');
DROP TABLE gr8_f, gr8_b;
