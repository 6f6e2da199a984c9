/* fpbtree--1.3--1.4.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION fpbtree UPDATE TO '1.4'" to load this file. \quit

-- More wide key types (src/am/README.md, "Wide keys"): each prefix
-- function returns the value's order-preserving prefix as an int8 holding
-- the uint64 bit pattern (widekey_types.c), and the type's btree
-- comparison decides when prefixes tie.
CREATE FUNCTION fpbtree_prefix_numeric(numeric)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_prefix_bytea(bytea)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_prefix_bit(bit)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_prefix_name(name)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_prefix_text_pattern(text)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_prefix_bpchar_pattern(bpchar)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_prefix_interval(interval)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_prefix_timetz(timetz)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_prefix_inet(inet)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_prefix_tid(tid)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- The constant prefix 0, for types whose comparison alone orders them.
CREATE FUNCTION fpbtree_prefix_none("any")
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- numeric: NaN sorts above every other value, as in btree.
CREATE OPERATOR CLASS numeric_ops
DEFAULT FOR TYPE numeric USING fpbtree AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(numeric, numeric) fpbtree_prefix_numeric(numeric),
	FUNCTION	4	(numeric, numeric) numeric_cmp(numeric, numeric);

-- bytea, bit, varbit: bytewise, then by length.
CREATE OPERATOR CLASS bytea_ops
DEFAULT FOR TYPE bytea USING fpbtree AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(bytea, bytea) fpbtree_prefix_bytea(bytea),
	FUNCTION	4	(bytea, bytea) byteacmp(bytea, bytea);

CREATE OPERATOR CLASS bit_ops
DEFAULT FOR TYPE bit USING fpbtree AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(bit, bit) fpbtree_prefix_bit(bit),
	FUNCTION	4	(bit, bit) bitcmp(bit, bit);

CREATE OPERATOR CLASS varbit_ops
DEFAULT FOR TYPE varbit USING fpbtree AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(varbit, varbit) fpbtree_prefix_bit(bit),
	FUNCTION	4	(varbit, varbit) bitcmp(bit, bit);

-- name, under its collation as text.  Its family has no name/text
-- operators: a wide scan key must have the column's type.
CREATE OPERATOR CLASS name_ops
DEFAULT FOR TYPE name USING fpbtree AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(name, name) fpbtree_prefix_name(name),
	FUNCTION	4	(name, name) btnamecmp(name, name);

-- varchar columns take text_ops by default; the class can also be named,
-- as with btree.
CREATE OPERATOR CLASS varchar_ops
FOR TYPE text USING fpbtree FAMILY text_ops AS STORAGE text;

-- Bytewise order whatever the collation, for LIKE prefix searches.
CREATE OPERATOR CLASS text_pattern_ops
FOR TYPE text USING fpbtree AS
	OPERATOR	1	~<~ ,
	OPERATOR	2	~<=~ ,
	OPERATOR	3	= ,
	OPERATOR	4	~>=~ ,
	OPERATOR	5	~>~ ,
	FUNCTION	1	(text, text) fpbtree_prefix_text_pattern(text),
	FUNCTION	4	(text, text) bttext_pattern_cmp(text, text);

CREATE OPERATOR CLASS varchar_pattern_ops
FOR TYPE text USING fpbtree FAMILY text_pattern_ops AS STORAGE text;

CREATE OPERATOR CLASS bpchar_pattern_ops
FOR TYPE bpchar USING fpbtree AS
	OPERATOR	1	~<~ ,
	OPERATOR	2	~<=~ ,
	OPERATOR	3	= ,
	OPERATOR	4	~>=~ ,
	OPERATOR	5	~>~ ,
	FUNCTION	1	(bpchar, bpchar) fpbtree_prefix_bpchar_pattern(bpchar),
	FUNCTION	4	(bpchar, bpchar) btbpchar_pattern_cmp(bpchar, bpchar);

-- interval ('1 mon' = '30 days': the index keeps each value as stored),
-- timetz, inet and cidr, tid.
CREATE OPERATOR CLASS interval_ops
DEFAULT FOR TYPE interval USING fpbtree AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(interval, interval) fpbtree_prefix_interval(interval),
	FUNCTION	4	(interval, interval) interval_cmp(interval, interval);

CREATE OPERATOR CLASS timetz_ops
DEFAULT FOR TYPE timetz USING fpbtree AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(timetz, timetz) fpbtree_prefix_timetz(timetz),
	FUNCTION	4	(timetz, timetz) timetz_cmp(timetz, timetz);

CREATE OPERATOR FAMILY network_ops USING fpbtree;

CREATE OPERATOR CLASS inet_ops
DEFAULT FOR TYPE inet USING fpbtree FAMILY network_ops AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(inet, inet) fpbtree_prefix_inet(inet),
	FUNCTION	4	(inet, inet) network_cmp(inet, inet);

CREATE OPERATOR CLASS cidr_ops
FOR TYPE inet USING fpbtree FAMILY network_ops AS STORAGE inet;

CREATE OPERATOR CLASS tid_ops
DEFAULT FOR TYPE tid USING fpbtree AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(tid, tid) fpbtree_prefix_tid(tid),
	FUNCTION	4	(tid, tid) bttidcmp(tid, tid);

-- Types that have only a comparison: every prefix ties.

CREATE OPERATOR CLASS oidvector_ops
DEFAULT FOR TYPE oidvector USING fpbtree AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(oidvector, oidvector) fpbtree_prefix_none("any"),
	FUNCTION	4	(oidvector, oidvector) btoidvectorcmp(oidvector, oidvector);

CREATE OPERATOR CLASS array_ops
DEFAULT FOR TYPE anyarray USING fpbtree AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(anyarray, anyarray) fpbtree_prefix_none("any"),
	FUNCTION	4	(anyarray, anyarray) btarraycmp(anyarray, anyarray);

CREATE OPERATOR CLASS range_ops
DEFAULT FOR TYPE anyrange USING fpbtree AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(anyrange, anyrange) fpbtree_prefix_none("any"),
	FUNCTION	4	(anyrange, anyrange) range_cmp(anyrange, anyrange);

CREATE OPERATOR CLASS multirange_ops
DEFAULT FOR TYPE anymultirange USING fpbtree AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(anymultirange, anymultirange) fpbtree_prefix_none("any"),
	FUNCTION	4	(anymultirange, anymultirange) multirange_cmp(anymultirange, anymultirange);

CREATE OPERATOR CLASS jsonb_ops
DEFAULT FOR TYPE jsonb USING fpbtree AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(jsonb, jsonb) fpbtree_prefix_none("any"),
	FUNCTION	4	(jsonb, jsonb) jsonb_cmp(jsonb, jsonb);

CREATE OPERATOR CLASS tsvector_ops
DEFAULT FOR TYPE tsvector USING fpbtree AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(tsvector, tsvector) fpbtree_prefix_none("any"),
	FUNCTION	4	(tsvector, tsvector) tsvector_cmp(tsvector, tsvector);

CREATE OPERATOR CLASS tsquery_ops
DEFAULT FOR TYPE tsquery USING fpbtree AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(tsquery, tsquery) fpbtree_prefix_none("any"),
	FUNCTION	4	(tsquery, tsquery) tsquery_cmp(tsquery, tsquery);

-- pg_lsn and xid8: narrow, the unsigned 64-bit number is the key.
CREATE FUNCTION fpbtree_encode_pg_lsn(pg_lsn)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_decode_pg_lsn(int8)
RETURNS pg_lsn AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_encode_xid8(xid8)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_decode_xid8(int8)
RETURNS xid8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR CLASS pg_lsn_ops
DEFAULT FOR TYPE pg_lsn USING fpbtree AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(pg_lsn, pg_lsn) fpbtree_encode_pg_lsn(pg_lsn),
	FUNCTION	2	(pg_lsn, pg_lsn) fpbtree_decode_pg_lsn(int8);

CREATE OPERATOR CLASS xid8_ops
DEFAULT FOR TYPE xid8 USING fpbtree AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(xid8, xid8) fpbtree_encode_xid8(xid8),
	FUNCTION	2	(xid8, xid8) fpbtree_decode_xid8(int8);
