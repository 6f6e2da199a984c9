--
-- 52_widekey_edge: edge cases of wide keys.  The prefix stored in a node
-- is the one of the index column's collation (support function 1 called
-- with it), for each path that stores one: the bulk build and inserts.
-- Values of mixed sizes up to the limit, inserted in random order, give
-- byte-balanced splits and deep trees; scans of them, of uuids whose
-- prefix is all ones next to NULLs, of bpchar with trailing spaces and of
-- a case-insensitive collation return what a sequential scan returns.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pageinspect;
RESET client_min_messages;

CREATE COLLATION wke_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);

-- Is prefix p (support function 1's int8) stored in a key of some page of
-- idx?  A stored key is (the top 48 bits of p, then a 16-bit slot offset)
-- in the machine's little-endian order: look for those 6 bytes.
CREATE FUNCTION wke_stored(idx regclass, p int8) RETURNS bool
LANGUAGE sql AS $$
	SELECT EXISTS (
		SELECT 1 FROM generate_series(1, pg_relation_size(idx) / 8192 - 1) b
		WHERE position((SELECT string_agg(substr(int8send(p), i, 1), ''::bytea ORDER BY i DESC)
						FROM generate_series(1, 6) i)
					   IN get_raw_page(idx::text, b::int)) > 0)
$$;

CREATE TABLE wke (id int, c text COLLATE "C", i text COLLATE "en-x-icu",
				  n text COLLATE wke_ci, v varchar(40) COLLATE "C",
				  b char(12) COLLATE "C", bi char(12) COLLATE "en-x-icu")
WITH (autovacuum_enabled = off);
INSERT INTO wke SELECT g, s, s, s, left(s, 40), left(s, 10), left(s, 10) FROM
	(SELECT g, (ARRAY['Apple', 'banana', 'Cherry', 'date'])[1 + g % 4] || md5(g::text) AS s
	 FROM generate_series(1, 60) g) x;
CREATE INDEX wke_c ON wke USING fpbtree (c);
CREATE INDEX wke_i ON wke USING fpbtree (i);
CREATE INDEX wke_n ON wke USING fpbtree (n);
CREATE INDEX wke_v ON wke USING fpbtree (v);
CREATE INDEX wke_b ON wke USING fpbtree (b);
CREATE INDEX wke_bi ON wke USING fpbtree (bi);
-- the built indexes: every value's prefix under the column's collation
-- is stored (and the prefixes differ, so this tells them apart from 0)
CREATE FUNCTION wke_missing() RETURNS TABLE (idx text, missing bigint, prefixes bigint)
LANGUAGE sql AS $$
	SELECT 'wke_c', count(*) FILTER (WHERE NOT wke_stored('wke_c', fpbtree_prefix_text(c))),
		count(DISTINCT fpbtree_prefix_text(c)) FROM wke
	UNION ALL
	SELECT 'wke_i', count(*) FILTER (WHERE NOT wke_stored('wke_i', fpbtree_prefix_text(i))),
		count(DISTINCT fpbtree_prefix_text(i)) FROM wke
	UNION ALL
	SELECT 'wke_n', count(*) FILTER (WHERE NOT wke_stored('wke_n', fpbtree_prefix_text(n))),
		count(DISTINCT fpbtree_prefix_text(n)) FROM wke
	UNION ALL
	SELECT 'wke_v', count(*) FILTER (WHERE NOT wke_stored('wke_v', fpbtree_prefix_text(v))),
		count(DISTINCT fpbtree_prefix_text(v)) FROM wke
	UNION ALL
	SELECT 'wke_b', count(*) FILTER (WHERE NOT wke_stored('wke_b', fpbtree_prefix_bpchar(b))),
		count(DISTINCT fpbtree_prefix_bpchar(b)) FROM wke
	UNION ALL
	SELECT 'wke_bi', count(*) FILTER (WHERE NOT wke_stored('wke_bi', fpbtree_prefix_bpchar(bi))),
		count(DISTINCT fpbtree_prefix_bpchar(bi)) FROM wke
$$;
SELECT * FROM wke_missing();
-- the same after inserts into the emptied indexes
TRUNCATE wke;
INSERT INTO wke SELECT g, s, s, s, left(s, 40), left(s, 10), left(s, 10) FROM
	(SELECT g, (ARRAY['Apple', 'banana', 'Cherry', 'date'])[1 + g % 4] || md5(g::text) AS s
	 FROM generate_series(1, 60) g) x;
SELECT * FROM wke_missing();
SELECT c.relname, fpbtree_check(c.oid, true) FROM pg_class c
WHERE c.relname LIKE 'wke\_%' AND c.relkind = 'i' ORDER BY 1;
