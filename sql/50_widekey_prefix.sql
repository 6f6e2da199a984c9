--
-- 50_widekey_prefix: the prefixes of wide keys (support function 1 of the
-- wide operator classes to come, callable directly).  On generated values
-- each prefix equals its definition computed in SQL, and it agrees with
-- PostgreSQL's own order: along the values sorted by the type's comparison
-- (with the collation) the prefixes, compared unsigned, never decrease, and
-- equal values have equal prefixes.  Under collations other than "C" every
-- text prefix is 0.
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
SELECT count(*), count(DISTINCT v), count(*) FILTER (WHERE v = '') AS empty FROM pfx_t;

-- "C": the definition, for every value
SELECT count(*) AS wrong_c
FROM pfx_t WHERE fpbtree_prefix_text(v COLLATE "C") <> pfx_def(v::bytea);
-- and varchar (text's functions serve it)
SELECT count(*) AS wrong_varchar
FROM pfx_t WHERE fpbtree_prefix_text(v::varchar COLLATE "C") <> pfx_def(v::bytea);

-- "C" and POSIX: the prefixes follow the collation's order; equal values
-- tie; and how often neighbours in that order tie
SELECT c.coll,
	   count(*) FILTER (WHERE pfx_bits(p) < pfx_bits(prev_p)) AS decreasing,
	   count(*) FILTER (WHERE eq AND p <> prev_p) AS equal_values_apart,
	   count(*) FILTER (WHERE NOT eq AND p = prev_p) AS neighbours_tied,
	   count(DISTINCT p) AS distinct_prefixes
FROM (VALUES ('C'), ('POSIX')) c(coll),
LATERAL (
	SELECT p, lag(p) OVER w AS prev_p, v = lag(v) OVER w AS eq
	FROM (SELECT v COLLATE "C" AS v,
				 CASE c.coll WHEN 'C' THEN fpbtree_prefix_text(v COLLATE "C")
					  ELSE fpbtree_prefix_text(v COLLATE "POSIX") END AS p
		  FROM pfx_t) s
	WINDOW w AS (ORDER BY v)
) o
GROUP BY c.coll ORDER BY c.coll;

-- any other collation: prefix 0 for every value, the safe path (libc
-- C.utf8, ICU, and a non-deterministic ICU collation, where values with
-- different bytes compare equal)
CREATE COLLATION pfx_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT count(*) FILTER (WHERE fpbtree_prefix_text(v COLLATE "C.utf8") <> 0) AS c_utf8,
	   count(*) FILTER (WHERE fpbtree_prefix_text(v COLLATE "en-x-icu") <> 0) AS en_icu,
	   count(*) FILTER (WHERE fpbtree_prefix_text(v COLLATE pfx_ci) <> 0) AS nondeterministic
FROM pfx_t;
-- (values equal under pfx_ci with different bytes are in the data)
SELECT count(*) AS equal_under_ci
FROM pfx_t a JOIN pfx_t b ON a.v COLLATE pfx_ci = b.v COLLATE pfx_ci
WHERE a.v <> b.v AND a.g BETWEEN 3000 AND 3199 AND b.g BETWEEN 3000 AND 3199;

-- bpchar: trailing spaces do not count, in the definition and in the order
CREATE TABLE pfx_b AS SELECT g, v::char(12) AS b FROM pfx_t WHERE length(v) < 100;
INSERT INTO pfx_b VALUES (9001, 'a'), (9002, 'a   '), (9003, 'abcdefgh    '),
	(9004, 'abcdefgh'), (9005, ''), (9006, '   '), (9007, 'a' || chr(9));
SELECT count(*) AS wrong_bpchar
FROM pfx_b
WHERE fpbtree_prefix_bpchar(b COLLATE "C") <> pfx_def(rtrim(b::text, ' ')::bytea);
SELECT count(*) FILTER (WHERE pfx_bits(p) < pfx_bits(prev_p)) AS decreasing,
	   count(*) FILTER (WHERE eq AND p <> prev_p) AS equal_values_apart,
	   count(*) FILTER (WHERE b = 'a') AS a_rows,
	   count(*) FILTER (WHERE b = 'a' AND p = pfx_def('\x61')) AS a_rows_prefix_a
FROM (SELECT b, p, lag(p) OVER w AS prev_p, b = lag(b) OVER w AS eq
	  FROM (SELECT b COLLATE "C" AS b, fpbtree_prefix_bpchar(b COLLATE "C") AS p
			FROM pfx_b) s
	  WINDOW w AS (ORDER BY b)) o;
SELECT count(*) AS bpchar_non_c
FROM pfx_b WHERE fpbtree_prefix_bpchar(b COLLATE "en-x-icu") <> 0;

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
DROP FUNCTION pfx_bits(int8), pfx_def(bytea);
