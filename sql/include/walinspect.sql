--
-- pg_walinspect, for the pg_regress files that compare the WAL an fpbtree
-- index writes with btree's (\i sql/include/walinspect.sql from the
-- repository root): created once per database, without a notice.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_walinspect;
RESET client_min_messages;

-- Bytes of fpbtree's generic records between f0 and f1 against those of
-- btree's records between f1 and b1 (page images not counted): the same
-- rows inserted into a table with an fpbtree index, then into one with a
-- btree index.
CREATE OR REPLACE FUNCTION fpb_wal_ratio(f0 pg_lsn, f1 pg_lsn, b1 pg_lsn)
RETURNS numeric LANGUAGE sql AS $$
	SELECT f.record_size::numeric / b.record_size
	FROM pg_get_wal_stats(f0, f1) f, pg_get_wal_stats(f1, b1) b
	WHERE f."resource_manager/record_type" = 'Generic'
	  AND b."resource_manager/record_type" = 'Btree'
$$;
