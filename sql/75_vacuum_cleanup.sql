--
-- 75_vacuum_cleanup: a VACUUM that removes nothing walks an fpbtree index
-- only when enough pages deleted by earlier VACUUMs wait to be listed as
-- free, as nbtree decides; it used to read every page of every fpbtree
-- index of an insert-only table each time.  The blocks VACUUM reads are
-- counted in pg_statio_user_indexes; a btree index beside it gives the
-- comparison.
--

\set ECHO none
\i sql/include/setup.sql
\set ECHO all

CREATE TABLE vc (k int8, v int4) WITH (autovacuum_enabled = off);
INSERT INTO vc SELECT g, g FROM generate_series(1, 100000) g;
CREATE INDEX vc_f ON vc USING fpbtree (k);
CREATE INDEX vc_b ON vc USING btree (k);

-- blocks of an index read or found in shared buffers so far (the count of
-- a statement is flushed by the statement after it)
CREATE FUNCTION vc_blocks(idx text) RETURNS bigint
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_stat_clear_snapshot();
	RETURN (SELECT idx_blks_hit + idx_blks_read FROM pg_statio_user_indexes
			WHERE indexrelname = idx);
END $$;
-- the counts a VACUUM of vc starts from (flushed before)
CREATE FUNCTION vc_mark() RETURNS bool
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('vc.f0', vc_blocks('vc_f')::text, false);
	PERFORM set_config('vc.b0', vc_blocks('vc_b')::text, false);
	RETURN true;
END $$;
-- the VACUUM of vc: the blocks of each index it touched
CREATE FUNCTION vc_vacuum_blocks(OUT fpbtree bigint, OUT btree bigint)
LANGUAGE plpgsql AS $$
BEGIN
	fpbtree := vc_blocks('vc_f') - current_setting('vc.f0')::bigint;
	btree := vc_blocks('vc_b') - current_setting('vc.b0')::bigint;
END $$;

-- before: set the starting counts (each step's counts are flushed first)
SELECT pg_stat_force_next_flush();
SELECT vc_mark();

-- an insert-only table: nothing to remove, no deleted pages; neither
-- index is walked (the metapage is read)
VACUUM vc;
SELECT pg_stat_force_next_flush();
SELECT fpbtree <= 2 AS fpbtree_not_walked, btree <= 2 AS btree_not_walked,
	(SELECT relpages FROM pg_class WHERE relname = 'vc_f') > 100 AS index_big
FROM vc_vacuum_blocks();

-- more rows in, VACUUM again: still nothing to walk for
INSERT INTO vc SELECT g, g FROM generate_series(100001, 150000) g;
SELECT pg_stat_force_next_flush();
SELECT vc_mark();
VACUUM vc;
SELECT pg_stat_force_next_flush();
SELECT fpbtree <= 2 AS fpbtree_not_walked, btree <= 2 AS btree_not_walked
FROM vc_vacuum_blocks();

-- most rows out: the bulk delete walks both and deletes the leaves it
-- empties, which cannot be listed as free yet (a transaction that began
-- before could still reach them)
DELETE FROM vc WHERE k <= 120000;
VACUUM vc;
SELECT deleted_pages > 100 AS many_deleted, free_pages = 0 AS none_free
FROM fpbtree_stats('vc_f');
SELECT fpbtree_check('vc_f', true);

-- nothing to remove now, but more than 5% of the index waits to be listed:
-- this VACUUM walks both indexes and lists the pages
SELECT txid_current() IS NOT NULL AS xid_used;
SELECT pg_stat_force_next_flush();
SELECT vc_mark();
VACUUM vc;
SELECT pg_stat_force_next_flush();
SELECT fpbtree >= (SELECT relpages FROM pg_class WHERE relname = 'vc_f') AS fpbtree_walked,
	btree >= (SELECT relpages FROM pg_class WHERE relname = 'vc_b') AS btree_walked
FROM vc_vacuum_blocks();
SELECT free_pages = deleted_pages AS all_free FROM fpbtree_stats('vc_f');

-- and the next one has nothing to do again
SELECT pg_stat_force_next_flush();
SELECT vc_mark();
VACUUM vc;
SELECT pg_stat_force_next_flush();
SELECT fpbtree <= 2 AS fpbtree_not_walked, btree <= 2 AS btree_not_walked
FROM vc_vacuum_blocks();

-- the free pages are reused by new rows, and the index stays sound
SELECT pg_relation_size('vc_f') AS size_before \gset
INSERT INTO vc SELECT g, g FROM generate_series(1, 60000) g;
SELECT pg_relation_size('vc_f') = :size_before AS reused_pages;
SELECT fpbtree_check('vc_f', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(k) FROM vc WHERE k > 0;
RESET ALL;
SELECT count(*), sum(k) FROM vc;

DROP TABLE vc;
DROP FUNCTION vc_vacuum_blocks();
DROP FUNCTION vc_mark();
DROP FUNCTION vc_blocks(text);
