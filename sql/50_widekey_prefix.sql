--
-- 50_widekey_prefix: the prefixes of wide keys (support function 1 of the
-- wide operator classes to come, callable directly).  On generated values
-- each prefix equals its definition computed in SQL where it has one (the
-- bytes under "C", and uuid), and agrees with PostgreSQL's own order: along
-- the values sorted by the type's comparison (with the collation) the
-- prefixes, compared unsigned, never decrease, and equal values have equal
-- prefixes.  ICU collations take sort-key bytes; under other collations
-- every text prefix is 0.
--

-- on its own: the extension and settings
\set ECHO none
\i sql/include/setup.sql
\set ECHO all

-- the unsigned order of two prefixes: bit strings compare left to right
CREATE FUNCTION pfx_bits(k int8) RETURNS bit(64)
LANGUAGE sql IMMUTABLE AS $$ SELECT k::bit(64) $$;
-- a prefix by its definition: the first 8 bytes, big-endian, zero-padded
CREATE FUNCTION pfx_def(b bytea) RETURNS int8
LANGUAGE sql IMMUTABLE AS $$
	SELECT ('x' || rpad(encode(substring(b FROM 1 FOR 8), 'hex'), 16, '0'))::bit(64)::int8
$$;

CREATE TABLE pfx_t (g int, v text) WITH (autovacuum_enabled = off);
-- random strings of every length 0..40 (empty strings included)
INSERT INTO pfx_t SELECT g, substr(md5(g::text) || md5((g * 7)::text), 1, g % 41)
FROM generate_series(1, 2000) g;
-- a common start longer than the prefix: all of these tie
INSERT INTO pfx_t SELECT 2000 + g, 'common-prefix-' || (g * 7919 % 1000)
FROM generate_series(1, 1000) g;
-- values around the end of the prefix and the zero padding
INSERT INTO pfx_t SELECT 3000 + row_number() OVER (), x FROM unnest(ARRAY[
	'', 'a', 'a' || chr(1), 'a ', 'ab', 'abcdefg', 'abcdefg' || chr(1),
	'abcdefgh', 'abcdefgh' || chr(1), 'abcdefgha', 'abcdefgi', 'abcdefh',
	'abcdefgh', 'zzzzzzzzzzzz', '~~~~~~~~~', chr(127), chr(127) || chr(127)]) x;
-- non-ASCII: two-, three- and four-byte characters, and the largest code point
INSERT INTO pfx_t SELECT 3100 + row_number() OVER (), x FROM unnest(ARRAY[
	'é', 'éa', 'ÿ', 'ÿÿÿÿÿ', 'Ä', 'Ärger', 'ärger', '日本語テキスト', '日本',
	'😀', '😀😀', 'a😀', chr(1114111), chr(1114111) || 'z']) x;
-- duplicates
INSERT INTO pfx_t SELECT 3200 + g, v FROM pfx_t WHERE g % 97 = 0;
-- long values: compressed in line, and out of line (the prefix reads a
-- slice only)
INSERT INTO pfx_t SELECT 4000 + g, repeat(md5(g::text), 300) FROM generate_series(1, 5) g;
CREATE TABLE pfx_ext (g int, v text);
ALTER TABLE pfx_ext ALTER COLUMN v SET STORAGE EXTERNAL;
INSERT INTO pfx_ext SELECT 5000 + g, md5(g::text) || repeat('x', 100000 + g)
FROM generate_series(1, 3) g;
INSERT INTO pfx_ext VALUES (5004, repeat('ab', 50000)), (5005, repeat('ab', 50000) || 'c');
-- (all stored at full size: not compressed, so out of line)
SELECT count(*) AS full_size FROM pfx_ext
WHERE pg_column_size(v) >= 100000;
INSERT INTO pfx_t SELECT * FROM pfx_ext;
-- words where a collation's order is far from the bytes': upper and mixed
-- case, punctuation, spaces, a leading umlaut
INSERT INTO pfx_t SELECT 6000 + g, CASE g % 5 WHEN 0 THEN upper(w) WHEN 1 THEN initcap(w)
	WHEN 2 THEN w || '-' || g WHEN 3 THEN 'Ä' || w ELSE replace(w, 'a', ' ') END
FROM (SELECT g, substr(translate(md5(g::text), '0123456789', 'ghijklmnop'), 1, 4 + g % 12) AS w
	  FROM generate_series(1, 600) g) s;
SELECT count(*), count(DISTINCT v), count(*) FILTER (WHERE v = '') AS empty FROM pfx_t;

-- "C": the definition, for every value
SELECT count(*) AS wrong_c
FROM pfx_t WHERE fpbtree_prefix_text(v COLLATE "C") <> pfx_def(v::bytea);
-- and varchar (text's functions serve it)
SELECT count(*) AS wrong_varchar
FROM pfx_t WHERE fpbtree_prefix_text(v::varchar COLLATE "C") <> pfx_def(v::bytea);

-- The prefixes under collation coll against PostgreSQL's order of the
-- values (of type typ, from column col of table tab) under it: pairs of
-- neighbours whose prefixes decrease, equal neighbours with different
-- prefixes, neighbours that tie, prefixes that differ.
CREATE FUNCTION pfx_order(tab text, col text, typ text, coll text)
RETURNS TABLE (decreasing bigint, equal_values_apart bigint,
			   neighbours_tied bigint, distinct_prefixes bigint)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format($q$
		SELECT count(*) FILTER (WHERE pfx_bits(p) < pfx_bits(prev_p)),
			   count(*) FILTER (WHERE eq AND p <> prev_p),
			   count(*) FILTER (WHERE NOT eq AND p = prev_p),
			   count(DISTINCT p)
		FROM (SELECT p, lag(p) OVER w AS prev_p, v = lag(v) OVER w AS eq
			  FROM (SELECT %2$I COLLATE %4$I AS v,
						   fpbtree_prefix_%3$s(%2$I COLLATE %4$I) AS p
					FROM %1$I) s
			  WINDOW w AS (ORDER BY v)) o$q$, tab, col, typ, coll);
END $$;

-- "C" and POSIX: the prefixes follow the collation's order, equal values
-- tie, and neighbours in that order tie only where they share 8 bytes
SELECT c, o.* FROM unnest(ARRAY['C', 'POSIX']) c, pfx_order('pfx_t', 'v', 'text', c) o;

-- libc collations other than "C": prefix 0 for every value, the safe path
SELECT count(*) FILTER (WHERE fpbtree_prefix_text(v COLLATE "C.utf8") <> 0) AS c_utf8
FROM pfx_t;

-- ICU collations: the first bytes of the sort key follow the collation's
-- order too, also for a collation with numeric ordering and for a
-- non-deterministic one, where values with different bytes compare equal
-- and must get one prefix.  (How many prefixes differ depends on the ICU
-- version; that they mostly do is the point.)
CREATE COLLATION pfx_num (provider = icu, locale = 'en-u-kn-true');
CREATE COLLATION pfx_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT c, o.decreasing, o.equal_values_apart, o.distinct_prefixes > 2000 AS mostly_distinct
FROM unnest(ARRAY['en-x-icu', 'de-x-icu', 'pfx_num', 'pfx_ci']) c,
	 pfx_order('pfx_t', 'v', 'text', c) o;
-- (values equal under pfx_ci with different bytes are in the data)
SELECT count(*) AS equal_under_ci
FROM pfx_t a JOIN pfx_t b ON a.v COLLATE pfx_ci = b.v COLLATE pfx_ci
WHERE a.v <> b.v AND a.g BETWEEN 3000 AND 3199 AND b.g BETWEEN 3000 AND 3199;
-- values that only ICU's numeric ordering sorts by number
SELECT pfx_bits(fpbtree_prefix_text('a9' COLLATE pfx_num)) <
	   pfx_bits(fpbtree_prefix_text('a10' COLLATE pfx_num)) AS numeric_order,
	   pfx_bits(fpbtree_prefix_text('a9' COLLATE "C")) >
	   pfx_bits(fpbtree_prefix_text('a10' COLLATE "C")) AS byte_order;

-- bpchar: trailing spaces do not count, in the definition and in the order
CREATE TABLE pfx_b AS SELECT g, v::char(12) AS b FROM pfx_t WHERE length(v) < 100;
INSERT INTO pfx_b VALUES (9001, 'a'), (9002, 'a   '), (9003, 'abcdefgh    '),
	(9004, 'abcdefgh'), (9005, ''), (9006, '   '), (9007, 'a' || chr(9));
SELECT count(*) AS wrong_bpchar
FROM pfx_b
WHERE fpbtree_prefix_bpchar(b COLLATE "C") <> pfx_def(rtrim(b::text, ' ')::bytea);
SELECT c, o.decreasing, o.equal_values_apart, o.distinct_prefixes > 1000 AS mostly_distinct
FROM unnest(ARRAY['C', 'en-x-icu', 'pfx_ci']) c, pfx_order('pfx_b', 'b', 'bpchar', c) o;
SELECT count(*) AS a_rows,
	   count(*) FILTER (WHERE fpbtree_prefix_bpchar(b COLLATE "C") = pfx_def('\x61')) AS c_prefix_a,
	   count(DISTINCT fpbtree_prefix_bpchar(b COLLATE "en-x-icu")) AS icu_prefixes
FROM pfx_b WHERE b = 'a';
SELECT count(*) AS bpchar_libc
FROM pfx_b WHERE fpbtree_prefix_bpchar(b COLLATE "C.utf8") <> 0;

-- uuid: the first 8 bytes; random values, the extremes, and values that
-- differ only in their last 8 bytes (their prefixes tie)
CREATE TABLE pfx_u AS
SELECT md5(g::text)::uuid AS u FROM generate_series(1, 3000) g
UNION ALL
SELECT ('12345678-9abc-def0-' || lpad(to_hex(g), 4, '0') || '-' || md5(g::text)::char(12))::uuid
FROM generate_series(1, 200) g
UNION ALL
SELECT x::uuid FROM unnest(ARRAY['00000000-0000-0000-0000-000000000000',
	'00000000-0000-0000-0000-000000000001', '7fffffff-ffff-ffff-ffff-ffffffffffff',
	'80000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff',
	'ffffffff-ffff-ffff-0000-000000000000']) x
UNION ALL
SELECT md5(g::text)::uuid FROM generate_series(1, 3000, 50) g;
SELECT count(*) AS wrong_uuid
FROM pfx_u
WHERE fpbtree_prefix_uuid(u) <> pfx_def(decode(replace(u::text, '-', ''), 'hex'));
SELECT count(*) FILTER (WHERE pfx_bits(p) < pfx_bits(prev_p)) AS decreasing,
	   count(*) FILTER (WHERE eq AND p <> prev_p) AS equal_values_apart,
	   count(*) FILTER (WHERE NOT eq AND p = prev_p) AS neighbours_tied
FROM (SELECT p, lag(p) OVER w AS prev_p, u = lag(u) OVER w AS eq
	  FROM (SELECT u, fpbtree_prefix_uuid(u) AS p FROM pfx_u) s
	  WINDOW w AS (ORDER BY u)) o;

-- NULL in, NULL out (the index keeps NULLs apart by the tiebreaker)
SELECT fpbtree_prefix_text(NULL) IS NULL AS t, fpbtree_prefix_bpchar(NULL) IS NULL AS b,
	   fpbtree_prefix_uuid(NULL) IS NULL AS u;

DROP TABLE pfx_t, pfx_ext, pfx_b, pfx_u;
DROP COLLATION pfx_ci;
DROP COLLATION pfx_num;
DROP FUNCTION pfx_order(text, text, text, text);
DROP FUNCTION pfx_bits(int8), pfx_def(bytea);
