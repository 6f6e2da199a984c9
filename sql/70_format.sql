--
-- 70_format: fpbtree_format() tells which indexes were built in an older
-- format and what a REINDEX would add (src/am/README.md, "Formats and
-- versions").  The developer settings fpbtree.debug_multi_prefix_first and
-- fpbtree.debug_codepoint_prefix_const build indexes as older releases
-- did; each must then report what it lacks, and stop doing so once rebuilt
-- without them.  Needs the C.utf8 locale of glibc 2.35 or later, as
-- 64_codepoint.
--

-- on its own: the extension and settings
\set ECHO none
\i sql/include/setup.sql
\set ECHO all

CREATE TABLE fmt_t (i int4, b int8, u uuid, t text COLLATE "C.utf8",
					c text COLLATE "C", n numeric)
	WITH (autovacuum_enabled = off);
INSERT INTO fmt_t
SELECT g % 100, hashint8(g), md5(g::text)::uuid, md5(g::text), md5((-g)::text),
	   g / 7.0
FROM generate_series(1, 3000) g;
INSERT INTO fmt_t VALUES (NULL, NULL, NULL, NULL, NULL, NULL);

-- indexes in today's format: nothing to gain from a REINDEX
CREATE INDEX fmt_b ON fmt_t USING fpbtree (b);
CREATE INDEX fmt_ib ON fmt_t USING fpbtree (i, b);
CREATE INDEX fmt_ui ON fmt_t USING fpbtree (u, i);	-- wide first column
CREATE INDEX fmt_u ON fmt_t USING fpbtree (u);
CREATE INDEX fmt_tx ON fmt_t USING fpbtree (t);
CREATE INDEX fmt_c ON fmt_t USING fpbtree (c);
CREATE INDEX fmt_n ON fmt_t USING fpbtree (n);
CREATE INDEX fmt_bd ON fmt_t USING fpbtree (b DESC);

-- indexes as older releases built them
SET fpbtree.debug_multi_prefix_first = on;
CREATE INDEX fmt_ib_old ON fmt_t USING fpbtree (i, b);
RESET fpbtree.debug_multi_prefix_first;
SET fpbtree.debug_codepoint_prefix_const = on;
CREATE INDEX fmt_tx_old ON fmt_t USING fpbtree (t);
CREATE INDEX fmt_b_old ON fmt_t USING fpbtree (b);
-- under the setting a rebuild would give the same format: nothing to add
SELECT * FROM fpbtree_format('fmt_tx_old');
RESET fpbtree.debug_codepoint_prefix_const;

-- what an operator runs after an upgrade
CREATE VIEW fmt_all AS
SELECT c.relname, f.*
FROM pg_class c
JOIN pg_am a ON a.oid = c.relam AND a.amname = 'fpbtree'
CROSS JOIN LATERAL fpbtree_format(c.oid) f
WHERE c.relname LIKE 'fmt\_%'
ORDER BY c.relname;
SELECT * FROM fmt_all;

-- a rebuild gives today's format, and the same rows
SELECT count(*), sum(hashtext(t)) FROM fmt_t WHERE t >= '8';
REINDEX INDEX fmt_ib_old;
REINDEX INDEX fmt_tx_old;
REINDEX INDEX fmt_b_old;
SELECT relname, version, format FROM fmt_all WHERE cardinality(reindex_adds) > 0;
SELECT relname, version, format FROM fmt_all WHERE relname LIKE '%\_old';
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(hashtext(t)) FROM fmt_t WHERE t >= '8';
SELECT count(*), sum(hashtext(t)) FROM fmt_t WHERE t >= '8';
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT fpbtree_check('fmt_ib_old', true), fpbtree_check('fmt_tx_old', true);

-- version 4 and node_starts go together in every index
SELECT count(*) FROM fmt_all
WHERE (version >= 4) <> ('node_starts' = ANY (format));

-- bad arguments
SELECT * FROM fpbtree_format(NULL);
CREATE INDEX fmt_btree ON fmt_t (b);
SELECT * FROM fpbtree_format('fmt_btree');
SELECT * FROM fpbtree_format('fmt_t');
SELECT * FROM fpbtree_format(0);

-- the table's readers only, as fpbtree_stats()
CREATE ROLE fmt_reader;
SET ROLE fmt_reader;
SELECT * FROM fpbtree_format('fmt_b');
RESET ROLE;
GRANT SELECT ON fmt_t TO fmt_reader;
SET ROLE fmt_reader;
SELECT version FROM fpbtree_format('fmt_b');
RESET ROLE;
REVOKE SELECT ON fmt_t FROM fmt_reader;
DROP ROLE fmt_reader;

DROP TABLE fmt_t CASCADE;
