--
-- 79_name_runs: runs of equal name values (README "Duplicates stored once").
-- Equal names under a deterministic collation are equal strings, and
-- fpbtree stores a name zero after its string, so an index built since the
-- format flag (fpbtree_format: name_runs) keeps a repeated name (or, in
-- a multi-column index, a repeated row) once per run, about as small as
-- btree's deduplicated index.  Under a nondeterministic collation and in
-- an index built before the flag every row keeps its value; all answer as
-- btree.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all
SET enable_seqscan = off;
SET enable_bitmapscan = off;

CREATE COLLATION nr_ci (provider = icu, locale = 'und-u-ks-level2',
						deterministic = false);

-- 600 names of 100 rows each: short ones, 63 bytes, multibyte ones cut at
-- the limit, the empty name, and NULLs
CREATE FUNCTION pg_temp.nr_value(g int) RETURNS name
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE
		WHEN g % 97 = 0 THEN NULL
		WHEN g % 600 = 1 THEN ''
		WHEN g % 600 < 200 THEN 'relation_' || (g % 600)
		WHEN g % 600 < 300 THEN repeat('x', 60) || (g % 600)
		WHEN g % 600 < 400 THEN repeat('é', 30) || (g % 600)
		ELSE 'Rel_' || (g % 600)
	END::name
$$;

CREATE TABLE nr (id int4, n name, ni name COLLATE "en-x-icu",
				 nd name COLLATE nr_ci, k int4)
	WITH (autovacuum_enabled = off);
INSERT INTO nr
SELECT g, pg_temp.nr_value(g), pg_temp.nr_value(g), pg_temp.nr_value(g), g % 5
FROM generate_series(1, 60000) g ORDER BY hashint4(g);
CREATE TABLE nr_bt AS SELECT * FROM nr;
CREATE INDEX nr_n ON nr USING fpbtree (n);
CREATE INDEX nr_ni ON nr USING fpbtree (ni);
CREATE INDEX nr_nd ON nr USING fpbtree (nd);
CREATE INDEX nr_multi ON nr USING fpbtree (n, k);
CREATE INDEX nr_bt_n ON nr_bt (n);
CREATE INDEX nr_bt_ni ON nr_bt (ni);
CREATE INDEX nr_bt_nd ON nr_bt (nd);
CREATE INDEX nr_bt_multi ON nr_bt (n, k);
VACUUM ANALYZE nr, nr_bt;

-- the format, and sizes against btree's (before the flag: 13 times)
SELECT c, f.version, f.format, f.reindex_adds
FROM unnest(ARRAY['nr_n', 'nr_ni', 'nr_nd', 'nr_multi']) c,
	 fpbtree_format(c::regclass) f;
SELECT c, pg_relation_size(('nr_' || c)::regclass) <=
		  1.15 * pg_relation_size(('nr_bt_' || c)::regclass) AS about_btree_size
FROM unnest(ARRAY['n', 'ni', 'multi']) c;

-- the same answers as btree's, from index-only scans (each row's value);
-- text arguments: a name literal's collation ("C") conflicts with the
-- column's
CREATE FUNCTION nr_all() RETURNS TABLE (q text, r text) LANGUAGE sql AS $$
	SELECT q, fpb_same_as(q, 'nr', 'nr_bt') FROM unnest(ARRAY[
		'SELECT n FROM nr ORDER BY n',
		'SELECT n FROM nr ORDER BY n DESC NULLS LAST',
		'SELECT count(*) FROM nr WHERE n = ''relation_17''',
		'SELECT count(*) FROM nr WHERE n = ''''',
		'SELECT count(*) FROM nr WHERE n IS NULL',
		'SELECT n FROM nr WHERE n BETWEEN ''relation_1'' AND ''relation_2'' ORDER BY n',
		'SELECT n FROM nr WHERE n > repeat(''x'', 60) ORDER BY n DESC',
		'SELECT n FROM nr WHERE n = ANY (ARRAY[''Rel_450'', ''relation_3'', ''nothing'']::name[]) ORDER BY n',
		'SELECT n FROM nr WHERE n LIKE ''relation_1%'' ORDER BY n',
		'SELECT n FROM nr WHERE n = repeat(''x'', 60) || ''250''',
		'SELECT ni FROM nr ORDER BY ni',
		'SELECT count(*) FROM nr WHERE ni = ''rel_450''::text',
		'SELECT count(*) FROM nr WHERE ni = ''Rel_450''::text',
		'SELECT ni FROM nr WHERE ni >= ''Rel_5''::text ORDER BY ni DESC',
		'SELECT nd FROM nr WHERE nd = ''REL_450''::text',
		'SELECT count(*) FROM nr WHERE nd >= ''relation_5''::text',
		'SELECT n::text || k FROM nr ORDER BY n, k',
		'SELECT k FROM nr WHERE n = ''relation_30'' ORDER BY n, k'
	]) q;
$$;
SELECT * FROM nr_all() WHERE r <> 'same';
SELECT count(*) AS queries FROM nr_all();
SELECT c, fpbtree_check(c::regclass, true)
FROM unnest(ARRAY['nr_n', 'nr_ni', 'nr_nd', 'nr_multi']) c;

-- inserts into runs and new names, deletes and VACUUM
INSERT INTO nr SELECT * FROM nr WHERE id % 7 = 0;
INSERT INTO nr VALUES (0, repeat('ÿ', 31), repeat('ÿ', 31), repeat('ÿ', 31), 0);
INSERT INTO nr_bt SELECT * FROM nr_bt WHERE id % 7 = 0;
INSERT INTO nr_bt VALUES (0, repeat('ÿ', 31), repeat('ÿ', 31), repeat('ÿ', 31), 0);
DELETE FROM nr WHERE id % 5 = 1 OR id BETWEEN 20000 AND 26000;
DELETE FROM nr_bt WHERE id % 5 = 1 OR id BETWEEN 20000 AND 26000;
VACUUM nr;
VACUUM nr_bt;
SELECT * FROM nr_all() WHERE r <> 'same';
SELECT c, fpbtree_check(c::regclass, true)
FROM unnest(ARRAY['nr_n', 'nr_ni', 'nr_nd', 'nr_multi']) c;

-- a unique index: duplicates refused as btree refuses them; the versions
-- of updated rows (not HOT: v is indexed too) share their name's run
CREATE TABLE nr_u (n name, v int4);
CREATE UNIQUE INDEX nr_u_n ON nr_u USING fpbtree (n);
CREATE INDEX nr_u_v ON nr_u (v);
INSERT INTO nr_u SELECT 'key_' || g, g FROM generate_series(1, 3000) g;
INSERT INTO nr_u VALUES ('key_17', 0);
INSERT INTO nr_u VALUES ('key_3001', 0) ON CONFLICT (n) DO NOTHING;
INSERT INTO nr_u VALUES ('key_17', 0) ON CONFLICT (n) DO UPDATE SET v = -1;
UPDATE nr_u SET v = v + 10000 WHERE v % 3 = 0;
UPDATE nr_u SET v = v + 10000 WHERE v % 3 = 0;
SELECT count(*), count(DISTINCT n), sum(v) FROM nr_u WHERE n >= 'key_1';
SELECT (fpbtree_stats('nr_u_n')).entries > 3001 AS old_versions_indexed,
	   fpbtree_check('nr_u_n', true);
DROP TABLE nr_u;

-- a parallel build gives the serial build's index
SELECT fpb_parallel_build_same('nr_n');

-- an index built without the flag (as before it, by the developer setting
-- that builds without format flags) keeps a name an entry and answers
-- alike; a REINDEX adds the flag
SET fpbtree.debug_codepoint_prefix_const = on;
CREATE INDEX nr_n_old ON nr USING fpbtree (n);
RESET fpbtree.debug_codepoint_prefix_const;
SELECT f.version, f.format, f.reindex_adds FROM fpbtree_format('nr_n_old') f;
SELECT pg_relation_size('nr_n_old') > 4 * pg_relation_size('nr_n') AS larger;
DROP INDEX nr_n;
INSERT INTO nr SELECT * FROM nr WHERE id % 11 = 0;
INSERT INTO nr_bt SELECT * FROM nr_bt WHERE id % 11 = 0;
SELECT q, r FROM nr_all() WHERE q ~ ' n ' AND r <> 'same';
SELECT fpbtree_check('nr_n_old', true);
REINDEX INDEX nr_n_old;
SELECT f.format, f.reindex_adds FROM fpbtree_format('nr_n_old') f;
SELECT q, r FROM nr_all() WHERE q ~ ' n ' AND r <> 'same';

DROP FUNCTION nr_all();
DROP TABLE nr, nr_bt;
DROP COLLATION nr_ci;
RESET enable_seqscan;
RESET enable_bitmapscan;
