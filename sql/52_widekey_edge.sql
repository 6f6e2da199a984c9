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
\i sql/include/pageinspect.sql
\set ECHO all

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

-- values of 1 to 1,600 bytes in random order, many sharing their first
-- 24 bytes, in case variants, with NULLs and empty strings: splits pick
-- byte-balanced points and the inner pages hold long separators
SELECT setseed(0.52);
CREATE TABLE wke_mix (id int, c text COLLATE "C", n text COLLATE wke_ci,
					  b char(30) COLLATE "C", u uuid)
WITH (autovacuum_enabled = off);
CREATE INDEX wke_mix_c ON wke_mix USING fpbtree (c);
CREATE INDEX wke_mix_n ON wke_mix USING fpbtree (n);
CREATE INDEX wke_mix_b ON wke_mix USING fpbtree (b);
CREATE INDEX wke_mix_u ON wke_mix USING fpbtree (u);
INSERT INTO wke_mix
SELECT g, s, s, left(s, 28) || repeat(' ', g % 3),
	CASE WHEN g % 9 = 0 THEN NULL
		 WHEN g % 2 = 0 THEN ('ffffffff-ffff-' || lpad(to_hex(g % 300), 4, '0') || '-0000-' || lpad(to_hex(g), 12, '0'))::uuid
		 ELSE md5(g::text)::uuid END
FROM (SELECT g, CASE WHEN g % 31 = 0 THEN NULL WHEN g % 29 = 0 THEN ''
		WHEN g % 3 = 0 THEN 'https://www.example.com/' || (ARRAY['a', 'A', 'b'])[1 + g % 3] || (g % 70) || repeat('x', (random() * 1500)::int)
		WHEN g % 3 = 1 THEN (ARRAY['user', 'User', 'USER'])[1 + g % 3] || (g % 40) || '@example.com'
		ELSE left(repeat(md5(g::text), 50), 1 + (random() * 1599)::int) END AS s
	  FROM generate_series(1, 3000) g) x
ORDER BY random();
SELECT height > 2 AS deep FROM fpbtree_stats('wke_mix_c');
SELECT c.relname, fpbtree_check(c.oid, true) FROM pg_class c
WHERE c.relname LIKE 'wke\_mix\_%' AND c.relkind = 'i' ORDER BY 1;
CREATE TABLE wke_q (q text, idx text, ordered bool);
INSERT INTO wke_q SELECT replace(q, '$c', col), 'wke_mix_' || col, o AND col <> 'n'
FROM unnest(ARRAY['c', 'n', 'b']) col, (VALUES
 ('SELECT $c FROM wke_mix WHERE $c >= ''https://www.example.com/a1'' AND $c < ''https://www.example.com/a2'' ORDER BY $c', true),
 ('SELECT $c FROM wke_mix WHERE $c > ''https://www.example.com/A'' ORDER BY $c DESC LIMIT 40', true),
 ('SELECT id FROM wke_mix WHERE $c = ''user7@example.com''', false),
 ('SELECT id FROM wke_mix WHERE $c = ''USER7@example.com''', false),
 ('SELECT id FROM wke_mix WHERE $c = ''''', false),
 ('SELECT id FROM wke_mix WHERE $c IN (''User8@example.com'', ''user9@example.com'', '''')', false),
 ('SELECT id FROM wke_mix WHERE $c < ''User'' AND $c > ''1''', false),
 ('SELECT count(*) FROM wke_mix WHERE $c IS NULL', false),
 ('SELECT count(*) FROM wke_mix WHERE $c IS NOT NULL', false)
) x(q, o)
WHERE col <> 'n' OR q NOT LIKE '%LIMIT%';
INSERT INTO wke_q VALUES
 ('SELECT id FROM wke_mix WHERE b = ''user7@example.com   ''', 'wke_mix_b', false),
 ('SELECT u FROM wke_mix WHERE u >= ''ffffffff-ffff-0010-0000-000000000000'' ORDER BY u', 'wke_mix_u', true),
 ('SELECT u FROM wke_mix WHERE u > ''ffffffff-ffff-0100-0000-000000000000'' ORDER BY u DESC', 'wke_mix_u', true),
 ('SELECT u FROM wke_mix WHERE u IS NOT NULL ORDER BY u DESC LIMIT 20', 'wke_mix_u', true),
 ('SELECT count(*) FROM wke_mix WHERE u IS NULL', 'wke_mix_u', false),
 ('SELECT id FROM wke_mix WHERE u >= ''ffffffff-ffff-ffff-ffff-ffffffffffff''', 'wke_mix_u', false);
SELECT q, left(r, 200) AS diff FROM (SELECT q, fpb_same(q, idx, ordered) r FROM wke_q) s
WHERE r <> 'ok';
SELECT count(*) AS queries FROM wke_q;

-- the same after the bulk build, and after deletes and VACUUM
REINDEX TABLE wke_mix;
SELECT q, left(r, 200) AS diff FROM (SELECT q, fpb_same(q, idx, ordered) r FROM wke_q) s
WHERE r <> 'ok';
DELETE FROM wke_mix WHERE id % 4 <> 0;
VACUUM wke_mix;
SELECT q, left(r, 200) AS diff FROM (SELECT q, fpb_same(q, idx, ordered) r FROM wke_q) s
WHERE r <> 'ok';
SELECT c.relname, fpbtree_check(c.oid, true) FROM pg_class c
WHERE c.relname LIKE 'wke\_mix\_%' AND c.relkind = 'i' ORDER BY 1;

-- ascending inserts of large values at the right edge with the lowest
-- fillfactor: the right page of each split keeps room, the tree stays
-- shallow (it used to gain a level per insert, up to an impossible root)
CREATE TABLE wke_asc (id int, t text COLLATE "C") WITH (autovacuum_enabled = off);
CREATE INDEX wke_asc_t ON wke_asc USING fpbtree (t) WITH (fillfactor = 10);
INSERT INTO wke_asc SELECT g, lpad(g::text, 8, '0') || repeat('a', 1680)
FROM generate_series(1, 200) g;
SELECT height <= 8 AS shallow FROM fpbtree_stats('wke_asc_t');
SELECT fpbtree_check('wke_asc_t', true);
SELECT fpb_same('SELECT id FROM wke_asc WHERE t > ''00000150''', 'wke_asc_t', false);

-- scan keys longer than an index entry may be: compared, never stored
SELECT fpb_same('SELECT id FROM wke_asc WHERE t > ''00000100'' || repeat(''a'', 3000)', 'wke_asc_t', false);
SELECT fpb_same('SELECT id FROM wke_asc WHERE t <= ''00000100'' || repeat(''a'', 3000) ORDER BY t DESC LIMIT 3', 'wke_asc_t', false);
SELECT fpb_same('SELECT id FROM wke_asc WHERE t = repeat(''0'', 5000)', 'wke_asc_t', false);
SELECT fpb_same('SELECT id FROM wke_asc WHERE t IN (repeat(''0'', 5000), ''00000007'' || repeat(''a'', 1680))', 'wke_asc_t', false);
