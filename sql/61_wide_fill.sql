--
-- 61_wide_fill: a freshly built wide index keeps the fillfactor's share of
-- each leaf free, in its slotted area as in its nodes (src/am/README.md,
-- "Wide keys", Build), so that its first inserts do not split every leaf:
-- a text index and a two-integer index, then 10% more rows.  Without the
-- slot reserve the text index's leaves were built full and doubled.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\i sql/include/pageinspect.sql
\set ECHO all

SET max_parallel_maintenance_workers = 0;
CREATE TABLE wf_t (t text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO wf_t SELECT md5(g::text) FROM generate_series(1, 100000) g;
CREATE INDEX wf_t_i ON wf_t USING fpbtree (t);
CREATE TABLE wf_m (a int4, b int8) WITH (autovacuum_enabled = off);
INSERT INTO wf_m SELECT g % 100, g FROM generate_series(1, 100000) g;
CREATE INDEX wf_m_i ON wf_m USING fpbtree (a, b);
RESET max_parallel_maintenance_workers;

-- free bytes between the nodes and the slots of each leaf but the
-- rightmost: about a tenth of the slots' bytes.  (FpbPageOpaqueData begins
-- at byte 8128: the level, a uint16, at 8142, 0 for a leaf; the right
-- link at 8148, all ones on the rightmost page.)
CREATE FUNCTION pg_temp.free_bytes(idx regclass, OUT min int, OUT avg int)
LANGUAGE sql AS $$
	SELECT min(h.upper - h.lower), avg(h.upper - h.lower)::int
	FROM generate_series(1, pg_relation_size(idx) / 8192 - 1) b,
		 LATERAL (SELECT get_raw_page(idx::text, b::int) AS p) r,
		 LATERAL page_header(r.p) h
	WHERE get_byte(r.p, 8142) = 0 AND get_byte(r.p, 8143) = 0 AND
		  get_byte(r.p, 8148) <> 255
$$;
SELECT 'text' AS idx, (pg_temp.free_bytes('wf_t_i')).*
UNION ALL SELECT 'int4, int8', (pg_temp.free_bytes('wf_m_i')).*;
SELECT pg_relation_size('wf_t_i') / 8192 AS text_pages,
	   pg_relation_size('wf_m_i') / 8192 AS multi_pages \gset

-- 10% more rows, spread over the whole key range
INSERT INTO wf_t SELECT md5('x' || g) FROM generate_series(1, 10000) g;
INSERT INTO wf_m SELECT g % 100, -g FROM generate_series(1, 10000) g;
SELECT pg_relation_size('wf_t_i') / 8192 < 1.5 * :text_pages AS text_grew_less_than_half,
	   pg_relation_size('wf_m_i') / 8192 < 1.3 * :multi_pages AS multi_grew_less_than_30pct;
SELECT fpbtree_check('wf_t_i', true), fpbtree_check('wf_m_i', true);
SELECT fpb_same('SELECT t FROM wf_t WHERE t BETWEEN ''3'' AND ''4''', 'wf_t_i');
SELECT fpb_same('SELECT a, b FROM wf_m WHERE a = 7 AND b < 0', 'wf_m_i');

-- fillfactor 100: leaves built full, smaller than with the default 90
CREATE INDEX wf_t_90 ON wf_t USING fpbtree (t);
CREATE INDEX wf_t_full ON wf_t USING fpbtree (t) WITH (fillfactor = 100);
SELECT (pg_temp.free_bytes('wf_t_full')).avg < 100 AS full_leaves,
	   pg_relation_size('wf_t_full') < 0.95 * pg_relation_size('wf_t_90') AS full_is_smaller;
SELECT fpbtree_check('wf_t_full', true);

-- fillfactor 10 and values of 1,600 bytes: a leaf an entry, and internal
-- pages filled by bytes alone, or the levels would never narrow to a root
CREATE TABLE wf_big (t text COLLATE "C") WITH (autovacuum_enabled = off);
INSERT INTO wf_big SELECT lpad(g::text, 1600, 'x') FROM generate_series(1, 300) g;
CREATE INDEX wf_big_10 ON wf_big USING fpbtree (t) WITH (fillfactor = 10);
SELECT height, entries FROM fpbtree_stats('wf_big_10');
SELECT fpbtree_check('wf_big_10', true);
SELECT fpb_same('SELECT right(t, 5) FROM wf_big WHERE t > lpad(''250'', 1600, ''x'')', 'wf_big_10');
INSERT INTO wf_big SELECT lpad(g::text, 1600, 'y') FROM generate_series(1, 50) g;
SELECT fpbtree_check('wf_big_10', true);
