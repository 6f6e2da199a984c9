--
-- 64_codepoint: text under glibc's C.UTF-8 (src/am/README.md, "Wide keys").
-- That collation compares code points, the order of UTF-8 bytes, so a new
-- index takes its values' prefixes as under "C" and records it in its
-- metapage (a format flag, version 3 or later); an index built before
-- (fpbtree.debug_codepoint_prefix_const: version 1 or 3, and leaf nodes from
-- slot 0) keeps the constant prefix and stays correct.  Results
-- against sequential scans (fpb_same): text, varchar, bpchar and name
-- columns, multi-column indexes, a unique index, the database's default
-- collation, parallel and serial builds, after inserts, deletes and VACUUM.
-- Needs the C.utf8 locale of glibc 2.35 or later (Debian 12), which has no
-- collation rules.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\i sql/include/pageinspect.sql
\set ECHO all

-- the premise, on values like the tables': C.UTF-8 orders as "C" does
CREATE FUNCTION pg_temp.cp_value(g int) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE g % 10
		WHEN 0 THEN 'key_' || (g % 700)
		WHEN 1 THEN 'Key_' || (g % 300)
		WHEN 2 THEN 'commonprefix_' || (g % 500) || '_' || (g % 7)
		WHEN 3 THEN repeat('é', 1 + g % 9) || (g % 40)
		WHEN 4 THEN CASE WHEN g % 40 = 4 THEN '' ELSE 'ABC' || chr(8364 + g % 30) END
		WHEN 5 THEN chr(128512 + g % 60) || 'emoji_' || (g % 90)
		WHEN 6 THEN CASE WHEN g % 30 = 6 THEN NULL ELSE 'zz' || chr(97 + g % 26) END
		WHEN 7 THEN chr(1 + g % 126) || chr(65 + g % 50) || 'x'
		WHEN 8 THEN md5(g::text)
		ELSE 'ümlaut ' || (g % 123) || repeat('ä', g % 5)
	END
$$;
SELECT count(*) AS pairs,
	   count(*) FILTER (WHERE (a < b COLLATE "C.utf8") <> (a < b COLLATE "C")
					 OR (a = b COLLATE "C.utf8") <> (a = b COLLATE "C")) AS differ,
	   count(*) FILTER (WHERE (a < b COLLATE "C.utf8") <> (a < b COLLATE "en-x-icu"))
		> 0 AS icu_differs
FROM (SELECT pg_temp.cp_value(g) AS a, pg_temp.cp_value(hashint4(g) & 4095) AS b
	  FROM generate_series(1, 4000) g) s
WHERE a IS NOT NULL AND b IS NOT NULL;

CREATE TABLE cp_t (id int, v text COLLATE "C.utf8") WITH (autovacuum_enabled = off);
INSERT INTO cp_t SELECT g, pg_temp.cp_value(g) FROM generate_series(1, 20000) g
	ORDER BY hashint4(g);
CREATE TABLE cp_o (LIKE cp_t) WITH (autovacuum_enabled = off);
INSERT INTO cp_o SELECT * FROM cp_t;
CREATE INDEX cp_t_i ON cp_t USING fpbtree (v);
SET fpbtree.debug_codepoint_prefix_const = on;
CREATE INDEX cp_o_i ON cp_o USING fpbtree (v);
RESET fpbtree.debug_codepoint_prefix_const;
VACUUM ANALYZE cp_t, cp_o;
SELECT fpb_meta_version('cp_t_i') AS new_version, fpb_meta_version('cp_o_i') AS old_version;
SELECT fpbtree_check('cp_t_i', true), fpbtree_check('cp_o_i', true);
-- under "C" and ICU no code-point flag (1), only the one for compressed
-- long values (2) every text index has
CREATE TABLE cp_c (v text COLLATE "C");
CREATE INDEX cp_c_i ON cp_c USING fpbtree (v);
CREATE TABLE cp_icu (v text COLLATE "en-x-icu");
CREATE INDEX cp_icu_i ON cp_icu USING fpbtree (v);
SELECT fpb_meta_version('cp_c_i') AS c_version, fpb_meta_version('cp_icu_i') AS icu_version,
	fpb_meta_pfxflags('cp_t_i') AS new_flags, fpb_meta_pfxflags('cp_o_i') AS old_flags,
	fpb_meta_pfxflags('cp_c_i') AS c_flags, fpb_meta_pfxflags('cp_icu_i') AS icu_flags;

-- random probes: values of the table, longer and shorter ones, strings
-- between them, the empty string; all operators, arrays, both directions
CREATE FUNCTION pg_temp.cp_key() RETURNS text
LANGUAGE sql VOLATILE AS $$
	SELECT CASE
		WHEN r < 0.35 THEN v
		WHEN r < 0.5 THEN v || chr(32 + floor(random() * 95)::int)
		WHEN r < 0.65 THEN left(v, floor(random() * (length(v) + 1))::int)
		WHEN r < 0.75 THEN 'commonprefix_' || floor(random() * 600)::int
		WHEN r < 0.85 THEN chr(128512 + floor(random() * 70)::int)
		WHEN r < 0.9 THEN ''
		ELSE repeat('é', floor(random() * 11)::int)
	END
	FROM (SELECT coalesce(pg_temp.cp_value(1 + floor(random() * 20000)::int),
						  'key_1') AS v, random() AS r) s
$$;

SELECT fpb_probe('cp_t', 'cp_t_i', 'v', 'pg_temp.cp_key()', '', 150, 0.1);
SELECT fpb_probe('cp_o', 'cp_o_i', 'v', 'pg_temp.cp_key()', '', 60, 0.2);
SELECT fpb_same($$SELECT id FROM cp_t WHERE v IS NULL$$, 'cp_t_i');
SELECT fpb_same($$SELECT v FROM cp_t ORDER BY v DESC NULLS LAST LIMIT 50$$, 'cp_t_i', true);

-- parallel scans give the rows of a serial scan (the runs are bounded by
-- full keys, under any prefixes)
SELECT count(*) AS n, sum(id) AS s FROM cp_t WHERE v > 'a' AND v < 'zzc';
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_index_scan_size = 0;
SET min_parallel_table_scan_size = 0;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(id) FROM cp_t WHERE v > 'a' AND v < 'zzc';
SELECT count(*) AS n, sum(id) AS s FROM cp_t WHERE v > 'a' AND v < 'zzc';
SELECT count(*) AS n FROM cp_t WHERE v >= 'commonprefix_3';
SELECT count(*) AS n FROM cp_o WHERE v >= 'commonprefix_3';
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_index_scan_size;
RESET min_parallel_table_scan_size;
RESET enable_seqscan;
RESET enable_bitmapscan;
SET max_parallel_workers_per_gather = 0;
SELECT count(*) AS n FROM cp_t WHERE v >= 'commonprefix_3';

-- inserts (splits, new prefixes), deletes and VACUUM on both formats
INSERT INTO cp_t SELECT g, pg_temp.cp_value(g) || '+' FROM generate_series(20001, 32000) g
	ORDER BY hashint4(g);
INSERT INTO cp_o SELECT g, pg_temp.cp_value(g) || '+' FROM generate_series(20001, 32000) g
	ORDER BY hashint4(g);
DELETE FROM cp_t WHERE id % 7 = 3;
DELETE FROM cp_o WHERE id % 7 = 3;
VACUUM cp_t, cp_o;
SELECT fpb_meta_version('cp_t_i') AS new_version, fpb_meta_version('cp_o_i') AS old_version;
SELECT fpbtree_check('cp_t_i', true), fpbtree_check('cp_o_i', true);
SELECT fpb_probe('cp_t', 'cp_t_i', 'v', 'pg_temp.cp_key()', '', 60, 0.3);
SELECT fpb_probe('cp_o', 'cp_o_i', 'v', 'pg_temp.cp_key()', '', 30, 0.4);
-- the two indexes hold the same entries in the same order
SELECT (SELECT array_agg(id ORDER BY v, id) FROM cp_t) =
	   (SELECT array_agg(id ORDER BY v, id) FROM cp_o) AS same_order;
-- REINDEX gives the old index the new format
REINDEX INDEX cp_o_i;
SELECT fpb_meta_version('cp_o_i') AS reindexed_version, fpbtree_check('cp_o_i', true);

-- a parallel build equals a serial one
ALTER TABLE cp_t SET (parallel_workers = 2);
SET max_parallel_maintenance_workers = 2;
SET min_parallel_table_scan_size = 0;
SET maintenance_work_mem = '64MB';
CREATE INDEX cp_t_par ON cp_t USING fpbtree (v);
SET max_parallel_maintenance_workers = 0;
CREATE INDEX cp_t_ser ON cp_t USING fpbtree (v);
RESET max_parallel_maintenance_workers;
RESET min_parallel_table_scan_size;
RESET maintenance_work_mem;
SELECT fpb_meta_version('cp_t_par') AS par_version, fpbtree_check('cp_t_par', true),
	   pg_relation_size('cp_t_par') = pg_relation_size('cp_t_ser') AS same_size;
DROP INDEX cp_t_i, cp_t_ser;
SELECT fpb_probe('cp_t', 'cp_t_par', 'v', 'pg_temp.cp_key()', '', 40, 0.5);
DROP INDEX cp_t_par;

-- varchar, bpchar (trailing spaces do not count) and name
CREATE TABLE cp_types (id int, vc varchar(40) COLLATE "C.utf8",
					   bp char(12) COLLATE "C.utf8", nm name COLLATE "C.utf8");
INSERT INTO cp_types SELECT g, v, v, v
FROM (SELECT g, left(pg_temp.cp_value(g), 12) AS v FROM generate_series(1, 6000) g) s;
INSERT INTO cp_types VALUES (6001, 'a', 'a', 'a'), (6002, 'a ', 'a   ', 'a '),
	(6003, 'abcdefgh', 'abcdefgh    ', 'abcdefgh'), (6004, '', '', '');
CREATE INDEX cp_vc_i ON cp_types USING fpbtree (vc);
CREATE INDEX cp_bp_i ON cp_types USING fpbtree (bp);
CREATE INDEX cp_nm_i ON cp_types USING fpbtree (nm);
ANALYZE cp_types;
SELECT fpb_meta_version('cp_vc_i') AS vc, fpb_meta_version('cp_bp_i') AS bp,
	   fpb_meta_version('cp_nm_i') AS nm, fpbtree_check('cp_vc_i', true),
	   fpbtree_check('cp_bp_i', true), fpbtree_check('cp_nm_i', true);
SELECT fpb_same($$SELECT id FROM cp_types WHERE vc BETWEEN 'Key_1' AND 'key_3'$$, 'cp_vc_i');
SELECT fpb_same($$SELECT id FROM cp_types WHERE bp = 'a'$$, 'cp_bp_i');
SELECT fpb_same($$SELECT id FROM cp_types WHERE bp > 'abcdefgh' AND bp < 'zz'$$, 'cp_bp_i');
SELECT fpb_same($$SELECT bp, id FROM cp_types WHERE bp >= 'ABC' ORDER BY bp, id LIMIT 40$$, 'cp_bp_i', true);
SELECT fpb_same($$SELECT id FROM cp_types WHERE nm >= 'ümlaut 1'::text AND nm < 'ümlaut 5'::text$$, 'cp_nm_i');
SELECT fpb_same($$SELECT id FROM cp_types WHERE nm = 'a '::text$$, 'cp_nm_i');
SELECT fpb_same($$SELECT nm FROM cp_types WHERE nm < 'Key'::text ORDER BY nm DESC LIMIT 30$$, 'cp_nm_i', true);

-- multi-column: a C.UTF-8 first column (its prefix under "C"), and one
-- after a narrow first column (the coded prefix, untouched)
CREATE TABLE cp_m (id int, v text COLLATE "C.utf8", g int);
INSERT INTO cp_m SELECT id, v, id % 13 FROM cp_t;
CREATE INDEX cp_m_vg ON cp_m USING fpbtree (v, g) INCLUDE (id);
CREATE INDEX cp_m_gv ON cp_m USING fpbtree (g, v DESC);
ANALYZE cp_m;
SELECT fpb_meta_version('cp_m_vg') AS vg, fpb_meta_version('cp_m_gv') AS gv,
	   fpb_meta_pfxflags('cp_m_vg') AS vg_flags, fpb_meta_pfxflags('cp_m_gv') AS gv_flags,
	   fpbtree_check('cp_m_vg', true), fpbtree_check('cp_m_gv', true);
SELECT fpb_same($$SELECT id FROM cp_m WHERE v = 'key_17' AND g > 3$$, 'cp_m_vg');
SELECT fpb_same($$SELECT id FROM cp_m WHERE v >= 'commonprefix_1' AND v < 'commonprefix_2'$$, 'cp_m_vg');
SELECT fpb_same($$SELECT v, g FROM cp_m WHERE v > 'é' ORDER BY v, g LIMIT 60$$, 'cp_m_vg', true);
SELECT fpb_same($$SELECT v, id FROM cp_m WHERE g = 5 AND v < 'key' ORDER BY g, v DESC LIMIT 60$$, 'cp_m_gv', true);
INSERT INTO cp_m SELECT id + 100000, v || '-', g FROM cp_m WHERE id % 5 = 0;
SELECT fpbtree_check('cp_m_vg', true), fpbtree_check('cp_m_gv', true);
SELECT fpb_same($$SELECT id FROM cp_m WHERE v BETWEEN 'key_1' AND 'key_2-'$$, 'cp_m_vg');

-- unique: duplicates refused, ON CONFLICT takes the index as arbiter
CREATE TABLE cp_u (v text COLLATE "C.utf8", n int);
CREATE UNIQUE INDEX cp_u_i ON cp_u USING fpbtree (v);
INSERT INTO cp_u SELECT DISTINCT pg_temp.cp_value(g), 0 FROM generate_series(1, 3000) g
	WHERE pg_temp.cp_value(g) IS NOT NULL;
INSERT INTO cp_u VALUES ('key_10', 1);
INSERT INTO cp_u VALUES ('key_5', 1), ('Key_5', 1), ('key_5 ', 1), ('😁x', 1)
	ON CONFLICT (v) DO UPDATE SET n = cp_u.n + 1;
SELECT v, n FROM cp_u WHERE v IN ('key_5', 'Key_5', 'key_5 ', '😁x') ORDER BY v;
SELECT fpb_meta_version('cp_u_i') AS version, fpbtree_check('cp_u_i', true);

-- the database's default collation: a database whose LC_COLLATE is C.UTF-8
\set cp_home :DBNAME
CREATE DATABASE fpb_cp_db TEMPLATE template0 ENCODING 'UTF8'
	LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8';
\c fpb_cp_db
\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\i sql/include/pageinspect.sql
\set ECHO all
CREATE TABLE cp_d (id int, v text);
INSERT INTO cp_d SELECT g, CASE g % 4 WHEN 0 THEN 'Item ' || g % 300
	WHEN 1 THEN 'item ' || g % 200 WHEN 2 THEN 'ítem ' || g % 100 ELSE md5(g::text) END
FROM generate_series(1, 8000) g;
CREATE INDEX cp_d_i ON cp_d USING fpbtree (v);
ANALYZE cp_d;
SELECT fpb_meta_version('cp_d_i') AS version, fpbtree_check('cp_d_i', true);
SELECT fpb_same($$SELECT id FROM cp_d WHERE v >= 'Item 1' AND v < 'item 2'$$, 'cp_d_i');
SELECT fpb_same($$SELECT id FROM cp_d WHERE v = ANY ('{"item 7","ítem 7",Item}')$$, 'cp_d_i');
SELECT fpb_same($$SELECT v, id FROM cp_d WHERE v > 'i' ORDER BY v DESC, id LIMIT 70$$, 'cp_d_i', true);
\c :cp_home
DROP DATABASE fpb_cp_db;
DROP TABLE cp_t, cp_o, cp_c, cp_icu, cp_types, cp_m, cp_u;
