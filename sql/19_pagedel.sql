--
-- 19_pagedel: VACUUM deletes the leaves it empties and later reuses them.
-- A queue (rising keys in, oldest keys out, VACUUM) must not make the
-- index grow, as it does not make a btree grow; scans over the deleted and
-- reused pages return what btree scans return; emptying the index and
-- filling it again reuses its pages.
--

-- on its own: the extension, settings, fpb_same() and its helpers
\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

-- the same queue twice: qf with an fpbtree index, qb with a btree index
CREATE TABLE qf (k int8, id int4) WITH (autovacuum_enabled = off);
CREATE TABLE qb (k int8, id int4) WITH (autovacuum_enabled = off);
CREATE INDEX qf_k ON qf USING fpbtree (k);
CREATE INDEX qb_k ON qb USING btree (k);
CREATE TABLE qsize (cycle int, f bigint, b bigint);

-- The rows of query q (over qf) through the fpbtree index equal those of
-- the same query over qb through the btree index, in the same order; each
-- plan is checked to use its index.
CREATE FUNCTION pd_same(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	qb text := replace(q, 'qf', 'qb');
	pf text := fpb_plan(q, 'index');
	pb text := fpb_plan(qb, 'index');
	rf text[] := fpb_rows(q, 'index');
	rb text[] := fpb_rows(qb, 'index');
BEGIN
	IF pf !~ 'qf_k' THEN
		RETURN 'fpbtree plan: ' || pf;
	END IF;
	IF pb !~ 'qb_k' THEN
		RETURN 'btree plan: ' || pb;
	END IF;
	IF rf IS DISTINCT FROM rb THEN
		RETURN format('differ: %s rows vs %s', cardinality(rf), cardinality(rb));
	END IF;
	RETURN 'ok';
END $$;

-- The rows of q fetched backward from the end by a scrollable cursor
-- through an index scan, then forward again from the start.
CREATE FUNCTION pd_scroll(q text) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
	c refcursor;
	r record;
	res text[] := '{}';
BEGIN
	PERFORM fpb_mode('index');
	OPEN c SCROLL FOR EXECUTE q;
	MOVE LAST FROM c;
	LOOP
		FETCH PRIOR FROM c INTO r;
		EXIT WHEN NOT FOUND;
		res := res || r::text;
	END LOOP;
	LOOP
		FETCH NEXT FROM c INTO r;
		EXIT WHEN NOT FOUND;
		res := res || r::text;
	END LOOP;
	CLOSE c;
	RETURN res;
END $$;

CREATE FUNCTION pd_queries() RETURNS TABLE (q text, res text)
LANGUAGE sql AS $$
	SELECT q, pd_same(q) FROM (VALUES
		('SELECT k, id FROM qf WHERE k > 0 ORDER BY k'),
		('SELECT k FROM qf WHERE k > 0 ORDER BY k DESC'),
		('SELECT k, id FROM qf WHERE k BETWEEN (SELECT min(k) + 5000 FROM qf) AND (SELECT min(k) + 5600 FROM qf) ORDER BY k DESC'),
		('SELECT k FROM qf WHERE k IN (1, 19999, 20001, 77777, 150000, 199999, 200000, 210000, 230000) ORDER BY k'),
		('SELECT count(*) FROM qf WHERE k < 1000000')
	) v(q)
	UNION ALL
	SELECT 'backward cursor',
		CASE WHEN pd_scroll('SELECT k, id FROM qf WHERE k > 0 ORDER BY k') =
				  pd_scroll('SELECT k, id FROM qb WHERE k > 0 ORDER BY k')
			 THEN 'ok' ELSE 'differ' END
$$;

-- One cycle of the queue: 20000 rising keys in, the oldest 20000 out, 40000
-- stay.  A page deleted by one VACUUM is reused only after the next has
-- found it recyclable (no transaction left that began before it was
-- deleted), so a queue holds about two cycles' worth of deleted pages, for
-- btree as for fpbtree: 4 cycles' worth of pages in all, against 3 after
-- the first cycle (2 live, 1 emptied).
CREATE PROCEDURE pd_cycle(c int)
LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO qf SELECT g, g % 1000 FROM generate_series((c + 1) * 20000 + 1, (c + 2) * 20000) g;
	INSERT INTO qb SELECT g, g % 1000 FROM generate_series((c + 1) * 20000 + 1, (c + 2) * 20000) g;
	DELETE FROM qf WHERE k <= c * 20000;
	DELETE FROM qb WHERE k <= c * 20000;
END $$;

INSERT INTO qf SELECT g, g % 1000 FROM generate_series(1, 40000) g;
INSERT INTO qb SELECT g, g % 1000 FROM generate_series(1, 40000) g;

CALL pd_cycle(1);
VACUUM qf;
VACUUM qb;
INSERT INTO qsize SELECT 1, pg_relation_size('qf_k'), pg_relation_size('qb_k');
SELECT fpbtree_check('qf_k', true);
SELECT * FROM pd_queries();
CALL pd_cycle(2);
VACUUM qf;
VACUUM qb;
SELECT fpbtree_check('qf_k', true);
SELECT * FROM pd_queries();
CALL pd_cycle(3);
VACUUM qf;
VACUUM qb;
SELECT fpbtree_check('qf_k', true);
SELECT * FROM pd_queries();
CALL pd_cycle(4);
VACUUM qf;
VACUUM qb;
SELECT fpbtree_check('qf_k', true);
SELECT * FROM pd_queries();
CALL pd_cycle(5);
VACUUM qf;
VACUUM qb;
SELECT fpbtree_check('qf_k', true);
SELECT * FROM pd_queries();
CALL pd_cycle(6);
VACUUM qf;
VACUUM qb;
SELECT fpbtree_check('qf_k', true);
SELECT * FROM pd_queries();
CALL pd_cycle(7);
VACUUM qf;
VACUUM qb;
SELECT fpbtree_check('qf_k', true);
SELECT * FROM pd_queries();
CALL pd_cycle(8);
VACUUM qf;
VACUUM qb;
SELECT fpbtree_check('qf_k', true);
SELECT * FROM pd_queries();
CALL pd_cycle(9);
VACUUM qf;
VACUUM qb;
SELECT fpbtree_check('qf_k', true);
SELECT * FROM pd_queries();
CALL pd_cycle(10);
VACUUM qf;
VACUUM qb;
INSERT INTO qsize SELECT 10, pg_relation_size('qf_k'), pg_relation_size('qb_k');
SELECT fpbtree_check('qf_k', true);
SELECT * FROM pd_queries();

-- the index does not grow with the queue's throughput
SELECT l.f <= 1.5 * f1.f AS fpbtree_bounded, l.b <= 1.5 * f1.b AS btree_bounded
FROM qsize f1, qsize l WHERE f1.cycle = 1 AND l.cycle = 10;

-- everything out: every leaf but the rightmost of each level-1 page is
-- deleted, the second VACUUM lists them as free, the rows that come back
-- reuse them
DELETE FROM qf;
DELETE FROM qb;
VACUUM qf;
SELECT fpbtree_check('qf_k', true);
SELECT * FROM pd_queries();
SELECT txid_current() IS NOT NULL AS xid_used;
VACUUM qf;
SELECT pg_relation_size('qf_k') AS size_empty \gset
-- one leaf is left per level-1 page: its rightmost child, whose key
-- range has no right sibling under the same parent to go to
SELECT entries, pages_per_level[1] AS leaves, pages_per_level[2] AS level1,
	deleted_pages > 100 AS many_deleted,
	recyclable_pages = deleted_pages AS all_recyclable,
	free_pages = deleted_pages AS all_free, half_dead_pages,
	total_pages = 1 + pages_per_level[1] + pages_per_level[2] + deleted_pages AS all_counted
FROM fpbtree_stats('qf_k');
INSERT INTO qf SELECT g, g % 1000 FROM generate_series(1, 40000) g;
INSERT INTO qb SELECT g, g % 1000 FROM generate_series(1, 40000) g;
SELECT pg_relation_size('qf_k') = :size_empty AS reused_pages;
SELECT fpbtree_check('qf_k', true);
SELECT * FROM pd_queries();
SELECT s.entries = (SELECT count(*) FROM qf) AS entries_ok FROM fpbtree_stats('qf_k') s;

-- keys back into the emptied range, below the live ones: the leaves that
-- take them come from the free space map, at low block numbers
DELETE FROM qf WHERE k <= 30000;
DELETE FROM qb WHERE k <= 30000;
VACUUM qf;
VACUUM qb;
SELECT txid_current() IS NOT NULL AS xid_used;
VACUUM qf;
INSERT INTO qf SELECT g * 3, g FROM generate_series(1, 10000) g;
INSERT INTO qb SELECT g * 3, g FROM generate_series(1, 10000) g;
SELECT fpbtree_check('qf_k', true);
SELECT * FROM pd_queries();

DROP TABLE qf, qb, qsize;
DROP FUNCTION pd_same(text), pd_scroll(text), pd_queries();
DROP PROCEDURE pd_cycle(int);

-- Wide keys of many lengths, four levels.  When a level-1 page goes with
-- its only leaf, its right sibling's first downlink takes the page's lower
-- bound, which may be longer than the key it replaces; on a full page it
-- does not fit, and that deletion waits (VACUUM used to fail on it).
CREATE TABLE pw (r int, k text COLLATE "und-x-icu", a int4)
WITH (autovacuum_enabled = off);
ALTER TABLE pw ALTER COLUMN k SET STORAGE main;
INSERT INTO pw SELECT s, (ARRAY['ab', 'AB', 'äb'])[1 + s % 3] || 'common-prefix-' ||
	lpad(s::text, 7, '0') ||
	(SELECT string_agg(md5((s * 7 + i)::text), '') FROM generate_series(1, 3 + s % 30) i),
	s % 7
FROM generate_series(1, 4000) s;
CREATE INDEX pw_ka ON pw USING fpbtree (k, a);
SELECT pages_per_level FROM fpbtree_stats('pw_ka');
DELETE FROM pw WHERE r BETWEEN 1000 AND 1600;
VACUUM pw;
SELECT deleted_pages > 0 AS deleted, half_dead_pages FROM fpbtree_stats('pw_ka');
SELECT fpbtree_check('pw_ka', true);
SELECT fpb_same('SELECT r, a FROM pw WHERE k > ''ab''', 'pw_ka');
SELECT fpb_same('SELECT r, a FROM pw WHERE k >= ''AB'' AND a = 3 ORDER BY k DESC, a DESC', 'pw_ka', true);
DROP TABLE pw;
