--
-- 05_ddl: empty tables, reloptions (valid and invalid), unsupported types,
-- REINDEX, CREATE INDEX CONCURRENTLY, TRUNCATE, unlogged and temporary
-- tables, partial and expression indexes.
--

-- on its own: the extension, settings, fpb_same() and its helpers
\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

-- an empty table, then rows
CREATE TABLE ddl_empty (k int8);
CREATE INDEX ddl_empty_k ON ddl_empty USING fpbtree (k);
SELECT fpbtree_check('ddl_empty_k', true);
SELECT entries FROM fpbtree_stats('ddl_empty_k');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT * FROM ddl_empty WHERE k = 1;
SELECT * FROM ddl_empty WHERE k IS NULL;
SELECT * FROM ddl_empty ORDER BY k DESC;
SELECT min(k), max(k) FROM ddl_empty;
RESET enable_bitmapscan;
SET enable_indexscan = off;
SELECT count(*) FROM ddl_empty WHERE k > 0;
RESET enable_indexscan;
INSERT INTO ddl_empty VALUES (3), (NULL), (1), (2);
SELECT fpbtree_check('ddl_empty_k', true);
SELECT * FROM ddl_empty WHERE k >= 1 ORDER BY k;
SELECT * FROM ddl_empty ORDER BY k DESC;
DELETE FROM ddl_empty;
VACUUM ddl_empty;
SELECT fpbtree_check('ddl_empty_k', true);
SELECT * FROM ddl_empty WHERE k >= 1;
RESET enable_seqscan;
DROP TABLE ddl_empty;

-- reloptions
CREATE TABLE ddl_t (id int4, k int4) WITH (autovacuum_enabled = off);
INSERT INTO ddl_t SELECT g, (g * 7919) % 5000 FROM generate_series(1, 20000) g;
CREATE INDEX ddl_ff10 ON ddl_t USING fpbtree (k) WITH (fillfactor = 10);
CREATE INDEX ddl_ff100 ON ddl_t USING fpbtree (k) WITH (fillfactor = 100);
CREATE INDEX ddl_w ON ddl_t USING fpbtree (k) WITH (nonleaf_lines = 1, leaf_lines = 1);
CREATE INDEX ddl_w32 ON ddl_t USING fpbtree (k) WITH (nonleaf_lines = 32, leaf_lines = 32);
CREATE INDEX ddl_w48 ON ddl_t USING fpbtree (k) WITH (nonleaf_lines = 4, leaf_lines = 8, fillfactor = 70);
SELECT c.relname, c.reloptions FROM pg_class c
WHERE c.relname LIKE 'ddl\_%' AND c.relkind = 'i' ORDER BY c.relname;
SELECT fpbtree_check('ddl_ff10', true), fpbtree_check('ddl_ff100', true),
	   fpbtree_check('ddl_w', true), fpbtree_check('ddl_w32', true),
	   fpbtree_check('ddl_w48', true);
-- the widths asked for are the widths used
SELECT nonleaf_node_bytes, leaf_node_bytes FROM fpbtree_stats('ddl_w');
SELECT nonleaf_node_bytes, leaf_node_bytes FROM fpbtree_stats('ddl_w32');
SELECT nonleaf_node_bytes, leaf_node_bytes FROM fpbtree_stats('ddl_w48');
-- a lower fillfactor leaves more pages
SELECT (SELECT total_pages FROM fpbtree_stats('ddl_ff10')) >
	   (SELECT total_pages FROM fpbtree_stats('ddl_ff100')) AS ff10_bigger;
SELECT (SELECT avg_fill FROM fpbtree_stats('ddl_ff10')) <
	   (SELECT avg_fill FROM fpbtree_stats('ddl_ff100')) AS ff10_emptier;
-- every variant answers alike
-- (each in turn the only index, so that the plan must use it)
CREATE FUNCTION ddl_try_each() RETURNS TABLE (idx text, range text, ordered text)
LANGUAGE plpgsql AS $$
DECLARE
	all_idx text[] := ARRAY['ddl_ff10', 'ddl_ff100', 'ddl_w', 'ddl_w32', 'ddl_w48'];
	i text;
	o text;
BEGIN
	FOREACH i IN ARRAY all_idx LOOP
		-- hide the others: they are dropped and come back at the rollback
		BEGIN
			FOREACH o IN ARRAY all_idx LOOP
				IF o <> i THEN
					EXECUTE format('DROP INDEX %I', o);
				END IF;
			END LOOP;
			idx := i;
			range := fpb_same('SELECT id, k FROM ddl_t WHERE k BETWEEN 100 AND 160', i);
			ordered := fpb_same('SELECT k FROM ddl_t WHERE k > 4990 ORDER BY k DESC', i, true);
			RETURN NEXT;
			RAISE EXCEPTION 'undo' USING ERRCODE = 'P0004';
		EXCEPTION WHEN assert_failure THEN
			NULL;
		END;
	END LOOP;
END $$;
SELECT * FROM ddl_try_each();
DROP FUNCTION ddl_try_each();
DROP INDEX ddl_ff100, ddl_w, ddl_w32, ddl_w48;
-- ALTER INDEX ... SET, then REINDEX applies it
ALTER INDEX ddl_ff10 SET (fillfactor = 100);
REINDEX INDEX ddl_ff10;
SELECT c.reloptions FROM pg_class c WHERE c.relname = 'ddl_ff10';
SELECT fpbtree_check('ddl_ff10', true);
ALTER INDEX ddl_ff10 RESET (fillfactor);
SELECT c.reloptions FROM pg_class c WHERE c.relname = 'ddl_ff10';
DROP INDEX ddl_ff10;

-- invalid reloptions: fillfactor 10..100, nonleaf_lines and leaf_lines 1..32
SET client_min_messages = warning;
\set VERBOSITY terse
CREATE INDEX ddl_bad ON ddl_t USING fpbtree (k) WITH (fillfactor = 9);
DROP INDEX IF EXISTS ddl_bad;   -- (only if the line above wrongly succeeded)
CREATE INDEX ddl_bad ON ddl_t USING fpbtree (k) WITH (fillfactor = 101);
DROP INDEX IF EXISTS ddl_bad;   -- (only if the line above wrongly succeeded)
CREATE INDEX ddl_bad ON ddl_t USING fpbtree (k) WITH (fillfactor = 0);
DROP INDEX IF EXISTS ddl_bad;   -- (only if the line above wrongly succeeded)
CREATE INDEX ddl_bad ON ddl_t USING fpbtree (k) WITH (leaf_lines = 33);
DROP INDEX IF EXISTS ddl_bad;   -- (only if the line above wrongly succeeded)
CREATE INDEX ddl_bad ON ddl_t USING fpbtree (k) WITH (nonleaf_lines = 33);
DROP INDEX IF EXISTS ddl_bad;   -- (only if the line above wrongly succeeded)
CREATE INDEX ddl_bad ON ddl_t USING fpbtree (k) WITH (nonleaf_lines = -1);
DROP INDEX IF EXISTS ddl_bad;   -- (only if the line above wrongly succeeded)
CREATE INDEX ddl_bad ON ddl_t USING fpbtree (k) WITH (leaf_lines = 'wide');
DROP INDEX IF EXISTS ddl_bad;   -- (only if the line above wrongly succeeded)
CREATE INDEX ddl_bad ON ddl_t USING fpbtree (k) WITH (no_such_option = 1);
DROP INDEX IF EXISTS ddl_bad;   -- (only if the line above wrongly succeeded)
RESET client_min_messages;
CREATE INDEX ddl_good ON ddl_t USING fpbtree (k);
ALTER INDEX ddl_good SET (fillfactor = 5);
ALTER INDEX ddl_good SET (leaf_lines = 64);
ALTER INDEX ddl_good SET (nonleaf_lines = 33);
\set VERBOSITY default
SELECT count(*) FROM pg_class WHERE relname = 'ddl_bad';
-- 0 (the default) leaves the widths to the model: same as not saying
CREATE INDEX ddl_zero ON ddl_t USING fpbtree (k) WITH (leaf_lines = 0, nonleaf_lines = 0);
SELECT z.leaf_node_bytes = g.leaf_node_bytes AND z.nonleaf_node_bytes = g.nonleaf_node_bytes
	AS same_widths
FROM fpbtree_stats('ddl_zero') z, fpbtree_stats('ddl_good') g;
DROP INDEX ddl_zero;

-- types btree has no operator class for either: no default operator class
-- (enums and composite types have one since 1.5: 59_enum_record)
CREATE TABLE ddl_types (i int4, x xml, p point, j jsonb);
CREATE INDEX ON ddl_types USING fpbtree (x);
CREATE INDEX ON ddl_types USING fpbtree (p);
-- an operator class of another access method
CREATE INDEX ON ddl_types USING fpbtree (i int4_minmax_ops);
CREATE INDEX ON ddl_types USING fpbtree (j jsonb_path_ops);
DROP TABLE ddl_types;

-- what fpbtree does not do: errors from the core
CREATE TABLE ddl_cap (a int4, b int4);
CREATE INDEX ddl_cap_a ON ddl_cap USING fpbtree (a);
ALTER TABLE ddl_cap ADD CONSTRAINT ddl_cap_u UNIQUE USING INDEX ddl_cap_a;
DROP TABLE ddl_cap;

-- REINDEX, with rows changed since the build
DELETE FROM ddl_t WHERE id % 4 = 0;
INSERT INTO ddl_t SELECT g, -g FROM generate_series(1, 3000) g;
REINDEX INDEX ddl_good;
SELECT fpbtree_check('ddl_good', true);
SELECT fpb_same('SELECT id, k FROM ddl_t WHERE k < 10', 'ddl_good');
REINDEX TABLE ddl_t;
SELECT fpbtree_check('ddl_good', true);
REINDEX INDEX CONCURRENTLY ddl_good;
SELECT fpbtree_check('ddl_good', true);
SELECT fpb_same('SELECT id, k FROM ddl_t WHERE k >= 4000', 'ddl_good');
SELECT s.entries = (SELECT count(*) FROM ddl_t) AS entries_ok FROM fpbtree_stats('ddl_good') s;
DROP INDEX ddl_good;

-- CREATE INDEX CONCURRENTLY
CREATE INDEX CONCURRENTLY ddl_cic ON ddl_t USING fpbtree (k);
SELECT indisvalid, indisready FROM pg_index WHERE indexrelid = 'ddl_cic'::regclass;
SELECT fpbtree_check('ddl_cic', true);
SELECT fpb_same('SELECT id, k FROM ddl_t WHERE k <= -2990', 'ddl_cic');
SELECT fpb_same('SELECT k FROM ddl_t WHERE k >= 4995 ORDER BY k', 'ddl_cic', true);
INSERT INTO ddl_t VALUES (100000, 100000);
SELECT fpb_same('SELECT id, k FROM ddl_t WHERE k = 100000', 'ddl_cic');
DROP INDEX CONCURRENTLY ddl_cic;

-- TRUNCATE: an empty index that works afterwards
CREATE INDEX ddl_tr ON ddl_t USING fpbtree (k);
TRUNCATE ddl_t;
SELECT fpbtree_check('ddl_tr', true);
SET enable_seqscan = off;
SELECT count(*) FROM ddl_t WHERE k > 0;
RESET enable_seqscan;
INSERT INTO ddl_t SELECT g, g % 100 FROM generate_series(1, 5000) g;
SELECT fpbtree_check('ddl_tr', true);
SELECT fpb_same('SELECT id FROM ddl_t WHERE k = 7', 'ddl_tr');
-- TRUNCATE rolled back keeps the old index
BEGIN;
TRUNCATE ddl_t;
INSERT INTO ddl_t VALUES (1, 1);
ROLLBACK;
SELECT fpbtree_check('ddl_tr', true);
SET enable_seqscan = off;
SELECT count(*) FROM ddl_t WHERE k = 7;
RESET enable_seqscan;
-- an index built inside a transaction that rolls back is gone
BEGIN;
CREATE INDEX ddl_rb ON ddl_t USING fpbtree (id);
INSERT INTO ddl_t VALUES (-1, -1);
ROLLBACK;
SELECT count(*) FROM pg_class WHERE relname = 'ddl_rb';

-- partial and expression indexes
CREATE INDEX ddl_part ON ddl_t USING fpbtree (k) WHERE k >= 50;
CREATE INDEX ddl_expr ON ddl_t USING fpbtree ((k * 2 + id));
SELECT fpbtree_check('ddl_part', true), fpbtree_check('ddl_expr', true);
SELECT fpb_same('SELECT id FROM ddl_t WHERE k >= 90 AND k < 92', 'ddl_part');
SELECT fpb_same('SELECT id FROM ddl_t WHERE k * 2 + id < 300', 'ddl_expr');
SELECT s.entries FROM fpbtree_stats('ddl_part') s;
DROP TABLE ddl_t;

-- unlogged table: the index has an init fork
CREATE UNLOGGED TABLE ddl_unlogged (id int4, v float8);
CREATE INDEX ddl_unlogged_v ON ddl_unlogged USING fpbtree (v);
SELECT relpersistence FROM pg_class WHERE relname = 'ddl_unlogged_v';
SELECT pg_relation_size('ddl_unlogged_v', 'init') > 0 AS has_init_fork;
INSERT INTO ddl_unlogged SELECT g, g / 3.0 FROM generate_series(1, 20000) g;
SELECT fpbtree_check('ddl_unlogged_v', true);
SELECT fpb_same('SELECT id, v FROM ddl_unlogged WHERE v BETWEEN 100 AND 101', 'ddl_unlogged_v');
TRUNCATE ddl_unlogged;
INSERT INTO ddl_unlogged VALUES (1, -0.5), (2, NULL);
SELECT fpbtree_check('ddl_unlogged_v', true);
SET enable_seqscan = off;
SELECT * FROM ddl_unlogged WHERE v < 0;
RESET enable_seqscan;
-- an index built on an unlogged table that already has rows
CREATE UNLOGGED TABLE ddl_unlogged2 AS SELECT g AS id FROM generate_series(1, 5000) g;
CREATE INDEX ddl_unlogged2_id ON ddl_unlogged2 USING fpbtree (id);
SELECT pg_relation_size('ddl_unlogged2_id', 'init') > 0 AS has_init_fork;
SELECT fpbtree_check('ddl_unlogged2_id', true);
SELECT fpb_same('SELECT id FROM ddl_unlogged2 WHERE id > 4990', 'ddl_unlogged2_id');
DROP TABLE ddl_unlogged, ddl_unlogged2;

-- temporary table (local buffers)
CREATE TEMP TABLE ddl_temp (id int4, d date);
INSERT INTO ddl_temp SELECT g, date '2020-01-01' + g % 400 FROM generate_series(1, 20000) g;
CREATE INDEX ddl_temp_d ON ddl_temp USING fpbtree (d);
INSERT INTO ddl_temp SELECT g, date '2019-01-01' + g % 800 FROM generate_series(1, 5000) g;
SELECT fpbtree_check('ddl_temp_d', true);
SELECT fpb_same('SELECT id, d FROM ddl_temp WHERE d = ''2020-02-02''', 'ddl_temp_d');
SELECT fpb_same('SELECT d FROM ddl_temp WHERE d < ''2019-01-05'' ORDER BY d DESC', 'ddl_temp_d', true);
DROP TABLE ddl_temp;

-- the check and stats functions refuse what is not an fpbtree index
CREATE TABLE ddl_other (k int4);
CREATE INDEX ddl_other_bt ON ddl_other USING btree (k);
SELECT fpbtree_check('ddl_other_bt');
SELECT fpbtree_check('ddl_other');
SELECT * FROM fpbtree_stats('ddl_other_bt');
DROP TABLE ddl_other;

-- partitioned tables: an index on the parent is made on every partition,
-- also one attached or created later; PostgreSQL 15 matches a unique
-- index to the partition key only through btree's operator families
CREATE TABLE ddl_parted (k int8, d date, t text) PARTITION BY RANGE (d);
CREATE TABLE ddl_parted1 PARTITION OF ddl_parted FOR VALUES FROM ('2026-01-01') TO ('2026-07-01');
CREATE TABLE ddl_parted2 PARTITION OF ddl_parted FOR VALUES FROM ('2026-07-01') TO ('2027-01-01');
INSERT INTO ddl_parted SELECT g, date '2026-01-01' + g % 365, 'v' || g % 100
FROM generate_series(1, 20000) g;
CREATE INDEX ddl_parted_k ON ddl_parted USING fpbtree (k);
CREATE INDEX ddl_parted_dt ON ddl_parted USING fpbtree (d, t);
CREATE UNIQUE INDEX ddl_parted_u ON ddl_parted USING fpbtree (k, d);
CREATE TABLE ddl_parted3 PARTITION OF ddl_parted FOR VALUES FROM ('2027-01-01') TO ('2028-01-01');
CREATE TABLE ddl_parted4 (LIKE ddl_parted);
INSERT INTO ddl_parted4 VALUES (7, '2028-02-02', 'v7');
ALTER TABLE ddl_parted ATTACH PARTITION ddl_parted4 FOR VALUES FROM ('2028-01-01') TO ('2029-01-01');
INSERT INTO ddl_parted VALUES (7, '2027-03-03', 'v7');
SELECT c.relname AS partition, i.relname AS index, a.amname
FROM pg_inherits h JOIN pg_class i ON i.oid = h.inhrelid
JOIN pg_index x ON x.indexrelid = i.oid JOIN pg_class c ON c.oid = x.indrelid
JOIN pg_am a ON a.oid = i.relam
WHERE h.inhparent IN ('ddl_parted_k'::regclass, 'ddl_parted_dt'::regclass)
ORDER BY 1, 2;
SELECT fpb_same('SELECT k, d FROM ddl_parted WHERE k = 7', 'ddl_parted1_k_idx');
SELECT fpb_same('SELECT d, t FROM ddl_parted WHERE d = ''2026-08-08'' AND t > ''v5''', 'ddl_parted2_d_t_idx');
SELECT fpbtree_check('ddl_parted4_k_idx', true);
-- the parent's index has no pages: the functions say so
SELECT fpbtree_check('ddl_parted_k');
SELECT * FROM fpbtree_format('ddl_parted_k');
DROP TABLE ddl_parted;

-- an index left invalid by a failed CREATE INDEX CONCURRENTLY holds what
-- failed it: fpbtree_check refuses it instead of reporting corruption
CREATE TABLE ddl_inval (k int4);
INSERT INTO ddl_inval SELECT g % 50 FROM generate_series(1, 200) g;
CREATE UNIQUE INDEX CONCURRENTLY ddl_inval_u ON ddl_inval USING fpbtree (k);
SELECT indisvalid FROM pg_index WHERE indexrelid = 'ddl_inval_u'::regclass;
SELECT fpbtree_check('ddl_inval_u');
SELECT fpbtree_check('ddl_inval_u', true);
SELECT entries FROM fpbtree_stats('ddl_inval_u');
REINDEX INDEX ddl_inval_u;
DELETE FROM ddl_inval WHERE ctid NOT IN (SELECT min(ctid) FROM ddl_inval GROUP BY k);
REINDEX INDEX CONCURRENTLY ddl_inval_u;
SELECT indisvalid FROM pg_index WHERE indexrelid = 'ddl_inval_u'::regclass;
SELECT fpbtree_check('ddl_inval_u', true);
DROP TABLE ddl_inval;

-- an exclusion constraint with = is a uniqueness check through the index
CREATE TABLE ddl_excl (k int4, t text, EXCLUDE USING fpbtree (k WITH =, t WITH =));
INSERT INTO ddl_excl VALUES (1, 'a'), (1, 'b'), (2, 'a');
INSERT INTO ddl_excl VALUES (1, 'b');
INSERT INTO ddl_excl VALUES (NULL, 'b'), (NULL, 'b');
SELECT count(*) FROM ddl_excl;
DROP TABLE ddl_excl;
