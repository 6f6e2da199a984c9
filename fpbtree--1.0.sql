/* fpbtree--1.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION fpbtree" to load this file. \quit

--
-- The access method
--
CREATE FUNCTION fpbtree_handler(internal)
RETURNS index_am_handler
AS 'MODULE_PATHNAME'
LANGUAGE C;

CREATE ACCESS METHOD fpbtree TYPE INDEX HANDLER fpbtree_handler;
COMMENT ON ACCESS METHOD fpbtree IS 'fractal prefetching B+-tree index access method';

--
-- Key normalisation: support function 1 (encode) maps a value to an
-- order-preserving uint64 key, returned bit-cast as int8; support function 2
-- (decode) is its exact inverse.  They are also callable directly, which is
-- how the tests check the orderings.
--

CREATE FUNCTION fpbtree_encode_int2(int2)
RETURNS int8
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION fpbtree_decode_int2(int8)
RETURNS int2
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION fpbtree_encode_int4(int4)
RETURNS int8
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION fpbtree_decode_int4(int8)
RETURNS int4
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION fpbtree_encode_int8(int8)
RETURNS int8
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION fpbtree_decode_int8(int8)
RETURNS int8
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION fpbtree_encode_float4(float4)
RETURNS int8
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION fpbtree_decode_float4(int8)
RETURNS float4
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION fpbtree_encode_float8(float8)
RETURNS int8
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION fpbtree_decode_float8(int8)
RETURNS float8
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION fpbtree_encode_date(date)
RETURNS int8
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION fpbtree_decode_date(int8)
RETURNS date
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION fpbtree_encode_timestamp(timestamp)
RETURNS int8
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION fpbtree_decode_timestamp(int8)
RETURNS timestamp
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION fpbtree_encode_timestamptz(timestamptz)
RETURNS int8
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION fpbtree_decode_timestamptz(int8)
RETURNS timestamptz
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION fpbtree_encode_oid(oid)
RETURNS int8
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION fpbtree_decode_oid(int8)
RETURNS oid
AS 'MODULE_PATHNAME'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

--
-- Inspection and tuning
--

-- structural check of an index; with heapallindexed also that every heap
-- tuple is indexed
CREATE FUNCTION fpbtree_check(index regclass, heapallindexed bool DEFAULT false)
RETURNS void
AS 'MODULE_PATHNAME', 'fpbtree_check'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

CREATE FUNCTION fpbtree_stats(index regclass,
	OUT height int4,
	OUT pages_per_level int8[],
	OUT total_pages int8,
	OUT entries int8,
	OUT avg_fill float8,
	OUT nonleaf_node_bytes int4,
	OUT leaf_node_bytes int4,
	OUT leaf_page_fanout int4,
	OUT t1_ns float8,
	OUT tnext_ns float8)
RETURNS record
AS 'MODULE_PATHNAME', 'fpbtree_stats'
LANGUAGE C STRICT;

-- measure the cache-miss latencies the node width model needs
CREATE FUNCTION fpbtree_calibrate(OUT t1_ns float8, OUT tnext_ns float8)
RETURNS record
AS 'MODULE_PATHNAME', 'fpbtree_calibrate'
LANGUAGE C VOLATILE;

-- per-session counters of range-scan prefetching (leaf pages through the
-- jump-pointer array, heap blocks of upcoming TIDs); "cached" counts the
-- prefetched blocks that were already in shared buffers
CREATE FUNCTION fpbtree_prefetch_stats(
	OUT leaf_prefetches int8,
	OUT leaf_prefetches_cached int8,
	OUT heap_prefetches int8,
	OUT heap_prefetches_cached int8)
RETURNS record
AS 'MODULE_PATHNAME', 'fpbtree_prefetch_stats'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

CREATE FUNCTION fpbtree_prefetch_stats_reset()
RETURNS void
AS 'MODULE_PATHNAME', 'fpbtree_prefetch_stats_reset'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

-- the node widths the model picks for given latencies
CREATE FUNCTION fpbtree_node_widths(t1_ns float8, tnext_ns float8,
	OUT nonleaf_lines int4,
	OUT leaf_lines int4,
	OUT leaf_page_fanout int4,
	OUT inpage_levels int4,
	OUT cost_ns float8)
RETURNS record
AS 'MODULE_PATHNAME', 'fpbtree_node_widths'
LANGUAGE C IMMUTABLE STRICT;

--
-- Operator families and classes.  Strategies are btree's: 1 <, 2 <=, 3 =,
-- 4 >=, 5 >.  Support functions are per type, registered as (T, T); a
-- cross-type scan key is encoded with its own type's function, so
-- cross-type operators need only be added to the family.
--

-- integers: one key domain for int2, int4 and int8
CREATE OPERATOR FAMILY integer_ops USING fpbtree;

CREATE OPERATOR CLASS int2_ops
DEFAULT FOR TYPE int2 USING fpbtree FAMILY integer_ops AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(int2, int2) fpbtree_encode_int2(int2),
	FUNCTION	2	(int2, int2) fpbtree_decode_int2(int8);

CREATE OPERATOR CLASS int4_ops
DEFAULT FOR TYPE int4 USING fpbtree FAMILY integer_ops AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(int4, int4) fpbtree_encode_int4(int4),
	FUNCTION	2	(int4, int4) fpbtree_decode_int4(int8);

CREATE OPERATOR CLASS int8_ops
DEFAULT FOR TYPE int8 USING fpbtree FAMILY integer_ops AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(int8, int8) fpbtree_encode_int8(int8),
	FUNCTION	2	(int8, int8) fpbtree_decode_int8(int8);

ALTER OPERATOR FAMILY integer_ops USING fpbtree ADD
	OPERATOR	1	< (int2, int4),
	OPERATOR	2	<= (int2, int4),
	OPERATOR	3	= (int2, int4),
	OPERATOR	4	>= (int2, int4),
	OPERATOR	5	> (int2, int4),
	OPERATOR	1	< (int2, int8),
	OPERATOR	2	<= (int2, int8),
	OPERATOR	3	= (int2, int8),
	OPERATOR	4	>= (int2, int8),
	OPERATOR	5	> (int2, int8),
	OPERATOR	1	< (int4, int2),
	OPERATOR	2	<= (int4, int2),
	OPERATOR	3	= (int4, int2),
	OPERATOR	4	>= (int4, int2),
	OPERATOR	5	> (int4, int2),
	OPERATOR	1	< (int4, int8),
	OPERATOR	2	<= (int4, int8),
	OPERATOR	3	= (int4, int8),
	OPERATOR	4	>= (int4, int8),
	OPERATOR	5	> (int4, int8),
	OPERATOR	1	< (int8, int2),
	OPERATOR	2	<= (int8, int2),
	OPERATOR	3	= (int8, int2),
	OPERATOR	4	>= (int8, int2),
	OPERATOR	5	> (int8, int2),
	OPERATOR	1	< (int8, int4),
	OPERATOR	2	<= (int8, int4),
	OPERATOR	3	= (int8, int4),
	OPERATOR	4	>= (int8, int4),
	OPERATOR	5	> (int8, int4);

-- float4 and float8: one key domain (float4 widens exactly)
CREATE OPERATOR FAMILY float_ops USING fpbtree;

CREATE OPERATOR CLASS float4_ops
DEFAULT FOR TYPE float4 USING fpbtree FAMILY float_ops AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(float4, float4) fpbtree_encode_float4(float4),
	FUNCTION	2	(float4, float4) fpbtree_decode_float4(int8);

CREATE OPERATOR CLASS float8_ops
DEFAULT FOR TYPE float8 USING fpbtree FAMILY float_ops AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(float8, float8) fpbtree_encode_float8(float8),
	FUNCTION	2	(float8, float8) fpbtree_decode_float8(int8);

ALTER OPERATOR FAMILY float_ops USING fpbtree ADD
	OPERATOR	1	< (float4, float8),
	OPERATOR	2	<= (float4, float8),
	OPERATOR	3	= (float4, float8),
	OPERATOR	4	>= (float4, float8),
	OPERATOR	5	> (float4, float8),
	OPERATOR	1	< (float8, float4),
	OPERATOR	2	<= (float8, float4),
	OPERATOR	3	= (float8, float4),
	OPERATOR	4	>= (float8, float4),
	OPERATOR	5	> (float8, float4);

-- date
CREATE OPERATOR FAMILY date_ops USING fpbtree;

CREATE OPERATOR CLASS date_ops
DEFAULT FOR TYPE date USING fpbtree FAMILY date_ops AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(date, date) fpbtree_encode_date(date),
	FUNCTION	2	(date, date) fpbtree_decode_date(int8);

-- timestamp without time zone
CREATE OPERATOR FAMILY timestamp_ops USING fpbtree;

CREATE OPERATOR CLASS timestamp_ops
DEFAULT FOR TYPE timestamp USING fpbtree FAMILY timestamp_ops AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(timestamp, timestamp) fpbtree_encode_timestamp(timestamp),
	FUNCTION	2	(timestamp, timestamp) fpbtree_decode_timestamp(int8);

-- timestamp with time zone
CREATE OPERATOR FAMILY timestamptz_ops USING fpbtree;

CREATE OPERATOR CLASS timestamptz_ops
DEFAULT FOR TYPE timestamptz USING fpbtree FAMILY timestamptz_ops AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(timestamptz, timestamptz) fpbtree_encode_timestamptz(timestamptz),
	FUNCTION	2	(timestamptz, timestamptz) fpbtree_decode_timestamptz(int8);

-- oid
CREATE OPERATOR FAMILY oid_ops USING fpbtree;

CREATE OPERATOR CLASS oid_ops
DEFAULT FOR TYPE oid USING fpbtree FAMILY oid_ops AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(oid, oid) fpbtree_encode_oid(oid),
	FUNCTION	2	(oid, oid) fpbtree_decode_oid(int8);
