--
-- 07_keys: the key normalisation (support functions 1 and 2, callable
-- directly): the encoded keys, compared as unsigned 64-bit integers, are in
-- the order of the values, and decoding gives back exactly the value.
--

-- on its own: the extension and settings
\set ECHO none
\i sql/include/setup.sql
\set ECHO all

-- unsigned comparison of two bit-cast keys, as a signed one after flipping
-- the sign bit
CREATE FUNCTION keys_u(k int8) RETURNS int8
LANGUAGE sql IMMUTABLE AS $$ SELECT k # (-9223372036854775808)::int8 $$;

CREATE TABLE keys_v (typ text, v text);
INSERT INTO keys_v SELECT 'int2', x::text FROM unnest(ARRAY[-32768, -32767, -256, -255, -1, 0, 1, 255, 256, 32766, 32767]::int2[]) x;
INSERT INTO keys_v SELECT 'int4', x::text FROM unnest(ARRAY[-2147483648, -2147483647, -65536, -1, 0, 1, 65535, 65536, 2147483646, 2147483647]::int4[]) x;
INSERT INTO keys_v SELECT 'int8', x::text FROM unnest(ARRAY[-9223372036854775808, -9223372036854775807, -4294967296, -1, 0, 1, 4294967295, 4294967296, 9223372036854775806, 9223372036854775807]::int8[]) x;
INSERT INTO keys_v SELECT 'float4', x FROM unnest(ARRAY['-Infinity', '-3.4028235e+38', '-1', '-1.1754944e-38', '-1e-45', '-0', '0', '1e-45', '1.1754944e-38', '0.1', '1', '16777216', '3.4028235e+38', 'Infinity', 'NaN']) x;
INSERT INTO keys_v SELECT 'float8', x FROM unnest(ARRAY['-Infinity', '-1.7976931348623157e+308', '-1', '-2.2250738585072014e-308', '-5e-324', '-0', '0', '5e-324', '2.2250738585072014e-308', '0.1', '1', '9007199254740992', '1.7976931348623157e+308', 'Infinity', 'NaN']) x;
INSERT INTO keys_v SELECT 'date', x FROM unnest(ARRAY['-infinity', '4714-11-24 BC', '0001-01-01', '1999-12-31', '2000-01-01', '2000-01-02', '5874897-12-31', 'infinity']) x;
INSERT INTO keys_v SELECT 'timestamp', x FROM unnest(ARRAY['-infinity', '4714-11-24 00:00:00 BC', '1999-12-31 23:59:59.999999', '2000-01-01 00:00:00', '2000-01-01 00:00:00.000001', '294276-12-31 23:59:59.999999', 'infinity']) x;
INSERT INTO keys_v SELECT 'timestamptz', x FROM unnest(ARRAY['-infinity', '4714-11-24 00:00:00+00 BC', '1999-12-31 23:59:59.999999+00', '2000-01-01 00:00:00+00', '2000-01-01 00:00:00.000001+00', '294276-12-31 23:59:59.999999+00', 'infinity']) x;
INSERT INTO keys_v SELECT 'oid', x FROM unnest(ARRAY['0', '1', '2147483647', '2147483648', '4294967294', '4294967295']) x;

-- encode each value with its type's function, decode it back
CREATE FUNCTION keys_enc(typ text, v text) RETURNS int8
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE r int8;
BEGIN
	EXECUTE format('SELECT fpbtree_encode_%s(%L::%s)', typ, v, typ) INTO r;
	RETURN r;
END $$;
CREATE FUNCTION keys_dec(typ text, k int8) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE r text;
BEGIN
	EXECUTE format('SELECT fpbtree_decode_%s((%s)::int8)::text', typ, k) INTO r;
	RETURN r;
END $$;
-- -1, 0, 1 comparing two values of a type
CREATE FUNCTION keys_cmp(typ text, a text, b text) RETURNS int
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE r int;
BEGIN
	EXECUTE format('SELECT CASE WHEN %L::%s < %L::%s THEN -1 WHEN %L::%s = %L::%s THEN 0 ELSE 1 END',
				   a, typ, b, typ, a, typ, b, typ) INTO r;
	RETURN r;
END $$;

CREATE TABLE keys_e AS SELECT typ, v, keys_enc(typ, v) AS k FROM keys_v;

-- round trip: the same value, to the last bit of its text form (-0 stays
-- -0); expect no row listed
CREATE FUNCTION keys_norm(typ text, v text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE r text;
BEGIN
	EXECUTE format('SELECT %L::%s::text', v, typ) INTO r;
	RETURN r;
END $$;
SELECT typ, v, keys_dec(typ, k) AS decoded FROM keys_e
WHERE keys_dec(typ, k) IS DISTINCT FROM keys_norm(typ, v)
ORDER BY typ, v;
SELECT count(*) AS values,
	   count(*) FILTER (WHERE keys_dec(typ, k) = keys_norm(typ, v)) AS round_trips_ok
FROM keys_e;

-- order: for every pair of values of a type, the unsigned order of the keys
-- is the order of the values; equal values (0 and -0) may have different
-- keys, but then no other value lies between them
SELECT a.typ, a.v, b.v AS v2, keys_cmp(a.typ, a.v, b.v) AS value_cmp,
	   (keys_u(a.k) > keys_u(b.k))::int - (keys_u(a.k) < keys_u(b.k))::int AS key_cmp
FROM keys_e a JOIN keys_e b ON a.typ = b.typ
WHERE keys_cmp(a.typ, a.v, b.v) <> 0
  AND keys_cmp(a.typ, a.v, b.v) <> (keys_u(a.k) > keys_u(b.k))::int - (keys_u(a.k) < keys_u(b.k))::int
ORDER BY 1, 2, 3;
SELECT a.typ, a.v, b.v AS v2
FROM keys_e a JOIN keys_e b ON a.typ = b.typ
WHERE keys_cmp(a.typ, a.v, b.v) = 0 AND a.k <> b.k AND a.v < b.v
ORDER BY 1, 2, 3;

-- the integer types share one key domain, and so do float4 and float8: a
-- value has the same key whatever its type
SELECT v, fpbtree_encode_int2(v::int2) = fpbtree_encode_int4(v::int4) AS i2_i4,
	   fpbtree_encode_int4(v::int4) = fpbtree_encode_int8(v::int8) AS i4_i8
FROM unnest(ARRAY[-32768, -1, 0, 1, 32767]) v ORDER BY v;
SELECT v, fpbtree_encode_float4(v::float4) = fpbtree_encode_float8(v::float4::float8) AS f4_f8
FROM unnest(ARRAY['-Infinity', '-1', '-0', '0', '0.1', '1e-45', '3.4028235e+38', 'Infinity', 'NaN']) v
ORDER BY v;

DROP TABLE keys_v, keys_e;
DROP FUNCTION keys_norm(text, text), keys_u(int8), keys_enc(text, text), keys_dec(text, int8), keys_cmp(text, text, text);
