--
-- 85_timestamp_rows: packed rows that keep only the low 16 bits of a
-- leading timestamp (README "Packed rows", Prefix bytes left out).  In a
-- multi-column index whose first column is a timestamp or timestamptz,
-- ascending with NULLs last, the prefix of a row is its key's top 48 bits,
-- so an index built since the format flag (fpbtree_format:
-- timestamp_prefix_rows) stores the rest only.  Rows compare by those bits
-- only where prefixes tie; index-only scans, filters on the first column,
-- kept copies, separators and fpbtree_check get the value back from the
-- key.  The data has timestamps that share their top 48 bits (within 65 ms)
-- and differ below, that differ only above, infinities, runs of equal rows
-- and NULLs.  Everything answers as btree.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET timezone = 'UTC';

-- ts: 1 ms apart in bursts of 200 (the top 48 bits shared within 65 ms),
-- bursts 17 s apart; every 5th row repeats its neighbour's (runs)
CREATE TABLE tr (id int4, ts timestamptz, lt timestamp, n int8, t text)
	WITH (autovacuum_enabled = off);
INSERT INTO tr SELECT g,
	CASE WHEN g % 97 = 0 THEN NULL
		 WHEN g % 89 = 0 THEN '-infinity'
		 WHEN g % 83 = 0 THEN 'infinity'
		 ELSE '2026-01-01'::timestamptz + (g / 200) * interval '17 s' +
			  ((g % 200) / CASE WHEN g % 5 = 0 THEN 2 ELSE 1 END) * interval '1 ms' END,
	'2000-01-01'::timestamp + (g % 3000) * interval '21 us' +
		(g / 3000) * interval '1 day',
	CASE WHEN g % 79 = 0 THEN NULL ELSE g % 400 END,
	CASE WHEN g % 43 = 0 THEN NULL ELSE 'v' || (g % 31) END
FROM generate_series(1, 60000) g ORDER BY hashint4(g);
CREATE TABLE tr_bt AS SELECT * FROM tr;
CREATE INDEX tr_tn ON tr USING fpbtree (ts, n);
CREATE INDEX tr_ti ON tr USING fpbtree (ts) INCLUDE (id, n);
CREATE INDEX tr_lt ON tr USING fpbtree (lt, t);
CREATE INDEX tr_td ON tr USING fpbtree (ts DESC, id);
CREATE INDEX tr_d1 ON tr USING fpbtree (lt DESC);
CREATE INDEX tr_nf ON tr USING fpbtree (ts NULLS FIRST, t);
CREATE INDEX tr_bt_tn ON tr_bt (ts, n);
CREATE INDEX tr_bt_ti ON tr_bt (ts) INCLUDE (id, n);
CREATE INDEX tr_bt_lt ON tr_bt (lt, t);
CREATE INDEX tr_bt_td ON tr_bt (ts DESC, id);
CREATE INDEX tr_bt_d1 ON tr_bt (lt DESC);
CREATE INDEX tr_bt_nf ON tr_bt (ts NULLS FIRST, t);
VACUUM ANALYZE tr, tr_bt;

-- the format: a leading timestamp, ASC NULLS LAST or DESC NULLS FIRST
-- (also a one-column DESC index, kept as a multi-column one)
SELECT i, f.format, f.reindex_adds
FROM unnest(ARRAY['tr_tn', 'tr_ti', 'tr_lt', 'tr_td', 'tr_d1', 'tr_nf']) i,
	 fpbtree_format(i::regclass) f;

-- the size against btree's: 100,000 (timestamptz, int8) rows, 1.24 times
-- before the flag, here near btree's
CREATE TABLE tr_s (ts timestamptz, id int8);
INSERT INTO tr_s SELECT '2026-01-01'::timestamptz + g * interval '37 ms', g
FROM generate_series(1, 100000) g;
CREATE INDEX tr_s_f ON tr_s USING fpbtree (ts, id);
CREATE INDEX tr_s_b ON tr_s (ts, id);
SELECT pg_relation_size('tr_s_f') <= 1.05 * pg_relation_size('tr_s_b') AS built_near_btree_size;
-- a one-column DESC index, 1.27 times btree's before
CREATE INDEX tr_s_fd ON tr_s USING fpbtree (ts DESC);
CREATE INDEX tr_s_bd ON tr_s (ts DESC);
SELECT pg_relation_size('tr_s_fd') <= 1.05 * pg_relation_size('tr_s_bd') AS desc_near_btree_size;
DROP TABLE tr_s;

-- the same answers as btree's: index-only scans return each value whole,
-- ordered scans both ways, bounds inside a shared prefix, keyset
-- pagination by row comparisons, array keys on the first column (filters
-- that read it), cross-type bounds
CREATE FUNCTION tr_all() RETURNS TABLE (q text, r text) LANGUAGE sql AS $$
	SELECT q, fpb_same_as(q, 'tr', 'tr_bt') FROM unnest(ARRAY[
		'SELECT ts, n FROM tr ORDER BY ts, n',
		'SELECT ts, n FROM tr ORDER BY ts DESC NULLS FIRST, n DESC',
		'SELECT ts, id, n FROM tr WHERE ts IS NOT NULL ORDER BY ts, id, n',
		'SELECT lt, t FROM tr ORDER BY lt, t',
		'SELECT ts, id FROM tr ORDER BY ts DESC, id',
		'SELECT lt FROM tr ORDER BY lt DESC',
		'SELECT lt FROM tr WHERE lt < ''2000-01-05 00:00:00.030'' ORDER BY lt DESC LIMIT 500',
		'SELECT ts, id FROM tr WHERE ts BETWEEN ''2026-01-01 00:00:17.010'' AND ''2026-01-01 00:00:17.090'' ORDER BY ts DESC, id',
		'SELECT ts, id FROM tr WHERE ts = ''infinity'' OR ts IS NULL ORDER BY ts DESC, id',
		'SELECT ts, t FROM tr ORDER BY ts NULLS FIRST, t',
		'SELECT ts, t FROM tr WHERE ts < ''2026-01-01 00:00:01'' ORDER BY ts NULLS FIRST, t',
		'SELECT ts, n FROM tr WHERE ts BETWEEN ''2026-01-01 00:00:17.010'' AND ''2026-01-01 00:00:17.090'' ORDER BY ts, n',
		'SELECT ts, n FROM tr WHERE ts > ''2026-01-01 00:01:08.0655'' AND ts < ''2026-01-01 00:01:08.13'' ORDER BY ts DESC, n DESC',
		'SELECT n FROM tr WHERE ts = ''2026-01-01 00:00:34.100'' ORDER BY n',
		'SELECT ts, n FROM tr WHERE ts = ''infinity'' OR ts = ''-infinity'' ORDER BY ts, n',
		'SELECT count(*) FROM tr WHERE ts IS NULL',
		'SELECT ts, n FROM tr WHERE (ts, n) > (''2026-01-01 00:00:51.050'', 100) ORDER BY ts, n LIMIT 500',
		'SELECT ts, n FROM tr WHERE (ts, n) <= (''2026-01-01 00:02:00.001'', 50) ORDER BY ts DESC, n DESC LIMIT 500',
		'SELECT ts, n FROM tr WHERE ts = ANY (ARRAY[''2026-01-01 00:00:17.003'', ''2026-01-01 00:00:17.004'', ''2026-01-01 00:00:17.065'', ''2026-01-01 00:00:17.066'', ''infinity'']::timestamptz[]) ORDER BY ts, n',
		'SELECT ts, n FROM tr WHERE ts = ANY (ARRAY[''2026-01-01 00:00:17.003'', ''2026-01-01 00:00:34.150'']::timestamptz[]) AND n > 200 ORDER BY ts DESC, n DESC',
		'SELECT ts, n FROM tr WHERE ts >= date ''2026-01-01'' AND ts < ''2026-01-01 00:00:20''::timestamp ORDER BY ts, n',
		'SELECT lt, t FROM tr WHERE lt >= ''2000-01-03''::timestamptz AND lt < date ''2000-01-04'' ORDER BY lt, t',
		'SELECT lt FROM tr WHERE lt BETWEEN ''2000-01-05 00:00:00.020'' AND ''2000-01-05 00:00:00.060'' ORDER BY lt',
		'SELECT id FROM tr WHERE ts BETWEEN ''2026-01-01 00:10:00'' AND ''2026-01-01 00:12:00'' ORDER BY id'
	]) q;
$$;
SELECT * FROM tr_all() WHERE r <> 'same';
SELECT count(*) AS queries FROM tr_all();
SELECT i, fpbtree_check(i::regclass, true)
FROM unnest(ARRAY['tr_tn', 'tr_ti', 'tr_lt', 'tr_td', 'tr_d1', 'tr_nf']) i;

-- a cursor that reads both ways inside shared prefixes
BEGIN;
DECLARE cur SCROLL CURSOR FOR
	SELECT ts, n FROM tr WHERE ts >= '2026-01-01 00:00:17' ORDER BY ts, n;
FETCH 2 FROM cur;
MOVE FORWARD 300 IN cur;
FETCH BACKWARD 2 FROM cur;
MOVE FORWARD 100000 IN cur;
FETCH BACKWARD 1 FROM cur;
COMMIT;

-- a merge join marks and restores positions among equal rows
SET enable_hashjoin = off;
SET enable_nestloop = off;
SELECT fpb_explain('SELECT count(*) FROM tr a JOIN tr b USING (ts, n)') ~ 'Merge Join' AS merge;
SELECT (SELECT count(*) FROM tr a JOIN tr b USING (ts, n)) =
	   (SELECT count(*) FROM tr_bt a JOIN tr_bt b USING (ts, n)) AS same_join;
RESET enable_hashjoin;
RESET enable_nestloop;

-- inserts in time order (the usual load), into old bursts at random
-- (splits inside a shared prefix), deletes, VACUUM
INSERT INTO tr SELECT g, '2026-01-02'::timestamptz + g * interval '3 ms',
	'2000-02-01'::timestamp + g * interval '1 ms', g % 400, 'v' || (g % 31)
FROM generate_series(60001, 90000) g;
INSERT INTO tr SELECT -g, '2026-01-01'::timestamptz + (g % 300) * interval '17 s' +
	(g % 130) * interval '500 us', '2000-01-02'::timestamp + g * interval '7 us',
	g, 'x' || g
FROM generate_series(1, 6000) g ORDER BY hashint4(g);
INSERT INTO tr_bt SELECT * FROM tr WHERE id > 60000 OR id < 0;
DELETE FROM tr WHERE id % 7 = 3 OR id BETWEEN 20000 AND 26000;
DELETE FROM tr_bt WHERE id % 7 = 3 OR id BETWEEN 20000 AND 26000;
VACUUM tr;
VACUUM tr_bt;
SELECT * FROM tr_all() WHERE r <> 'same';
SELECT i, fpbtree_check(i::regclass, true)
FROM unnest(ARRAY['tr_tn', 'tr_ti', 'tr_lt', 'tr_td', 'tr_d1', 'tr_nf']) i;

-- a parallel scan copies the values of internal pages to share them out
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_index_scan_size = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT fpb_explain('SELECT sum(id) FROM tr WHERE ts > ''2026-01-01 00:05:00''') ~
	'Parallel Index' AS parallel;
SELECT (SELECT sum(id) FROM tr WHERE ts > '2026-01-01 00:05:00') =
	   (SELECT sum(id) FROM tr_bt WHERE ts > '2026-01-01 00:05:00') AS same_sum;
SELECT (SELECT sum(extract(epoch FROM ts)) FROM tr WHERE ts < '2026-01-01 00:30:00') =
	   (SELECT sum(extract(epoch FROM ts)) FROM tr_bt WHERE ts < '2026-01-01 00:30:00') AS same_ios_sum;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_index_scan_size;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- a unique index: the duplicate is found under a tied prefix, and the
-- error names the stored row's key whole; ON CONFLICT
CREATE TABLE tr_k (ts timestamptz, n int4, v int4);
CREATE UNIQUE INDEX tr_k_tn ON tr_k USING fpbtree (ts, n);
INSERT INTO tr_k SELECT '2026-03-01'::timestamptz + (g % 2500) * interval '10 us',
	g / 2500, g
FROM generate_series(1, 4999) g;
INSERT INTO tr_k VALUES ('2026-03-01 00:00:00.00017', 0, 0);
INSERT INTO tr_k VALUES ('2026-03-01 00:00:00.00017', 2, 0);
INSERT INTO tr_k VALUES ('2026-03-01 00:00:00.00017', 1, 0) ON CONFLICT (ts, n) DO NOTHING;
INSERT INTO tr_k VALUES ('2026-03-01 00:00:00.00017', 0, 0) ON CONFLICT (ts, n) DO UPDATE SET v = -1;
SELECT count(*), count(DISTINCT (ts, n)), sum(v) FROM tr_k;
SELECT fpbtree_check('tr_k_tn', true);
DROP TABLE tr_k;

-- a parallel build gives the serial build's index
SELECT fpb_parallel_build_same('tr_tn');

-- an index built without the flag (the developer setting that builds
-- without format flags) keeps whole rows and answers alike; a REINDEX adds
-- the flag
SET fpbtree.debug_codepoint_prefix_const = on;
CREATE INDEX tr_tn_old ON tr USING fpbtree (ts, n);
RESET fpbtree.debug_codepoint_prefix_const;
SELECT f.format, f.reindex_adds FROM fpbtree_format('tr_tn_old') f;
SELECT pg_relation_size('tr_tn_old') > pg_relation_size('tr_tn') AS larger;
DROP INDEX tr_tn;
INSERT INTO tr SELECT g, now(), now()::timestamp, g, 'y'
FROM generate_series(90001, 95000) g;
INSERT INTO tr_bt SELECT * FROM tr WHERE id > 90000;
SELECT * FROM tr_all() WHERE r <> 'same';
SELECT fpbtree_check('tr_tn_old', true);
REINDEX INDEX tr_tn_old;
SELECT f.format, f.reindex_adds FROM fpbtree_format('tr_tn_old') f;
SELECT * FROM tr_all() WHERE r <> 'same';
SELECT fpbtree_check('tr_tn_old', true);

DROP FUNCTION tr_all();
DROP TABLE tr, tr_bt;
RESET timezone;
RESET enable_seqscan;
RESET enable_bitmapscan;
