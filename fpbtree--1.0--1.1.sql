/* fpbtree--1.0--1.1.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION fpbtree UPDATE TO '1.1'" to load this file. \quit

-- Cross-type scan keys of the date/time families: support function 3,
-- registered as (column type, scan key type), gives the key of the least
-- column value >= the scan value (upper = false) or of the greatest one
-- <= it (upper = true), as the core's cross-type operators compare them.
CREATE FUNCTION fpbtree_xkey_date_timestamp(timestamp, bool)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_xkey_date_timestamptz(timestamptz, bool)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_xkey_timestamp_date(date, bool)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_xkey_timestamp_timestamptz(timestamptz, bool)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_xkey_timestamptz_date(date, bool)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_xkey_timestamptz_timestamp(timestamp, bool)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- each family gets the operators whose left input is its own type, so a
-- date, timestamp or timestamptz column can be scanned with a bound of any
-- of the three types (btree's datetime_ops has them all in one family)
ALTER OPERATOR FAMILY date_ops USING fpbtree ADD
	OPERATOR	1	< (date, timestamp),
	OPERATOR	2	<= (date, timestamp),
	OPERATOR	3	= (date, timestamp),
	OPERATOR	4	>= (date, timestamp),
	OPERATOR	5	> (date, timestamp),
	FUNCTION	3	(date, timestamp) fpbtree_xkey_date_timestamp(timestamp, bool),
	OPERATOR	1	< (date, timestamptz),
	OPERATOR	2	<= (date, timestamptz),
	OPERATOR	3	= (date, timestamptz),
	OPERATOR	4	>= (date, timestamptz),
	OPERATOR	5	> (date, timestamptz),
	FUNCTION	3	(date, timestamptz) fpbtree_xkey_date_timestamptz(timestamptz, bool);

ALTER OPERATOR FAMILY timestamp_ops USING fpbtree ADD
	OPERATOR	1	< (timestamp, date),
	OPERATOR	2	<= (timestamp, date),
	OPERATOR	3	= (timestamp, date),
	OPERATOR	4	>= (timestamp, date),
	OPERATOR	5	> (timestamp, date),
	FUNCTION	3	(timestamp, date) fpbtree_xkey_timestamp_date(date, bool),
	OPERATOR	1	< (timestamp, timestamptz),
	OPERATOR	2	<= (timestamp, timestamptz),
	OPERATOR	3	= (timestamp, timestamptz),
	OPERATOR	4	>= (timestamp, timestamptz),
	OPERATOR	5	> (timestamp, timestamptz),
	FUNCTION	3	(timestamp, timestamptz) fpbtree_xkey_timestamp_timestamptz(timestamptz, bool);

ALTER OPERATOR FAMILY timestamptz_ops USING fpbtree ADD
	OPERATOR	1	< (timestamptz, date),
	OPERATOR	2	<= (timestamptz, date),
	OPERATOR	3	= (timestamptz, date),
	OPERATOR	4	>= (timestamptz, date),
	OPERATOR	5	> (timestamptz, date),
	FUNCTION	3	(timestamptz, date) fpbtree_xkey_timestamptz_date(date, bool),
	OPERATOR	1	< (timestamptz, timestamp),
	OPERATOR	2	<= (timestamptz, timestamp),
	OPERATOR	3	= (timestamptz, timestamp),
	OPERATOR	4	>= (timestamptz, timestamp),
	OPERATOR	5	> (timestamptz, timestamp),
	FUNCTION	3	(timestamptz, timestamp) fpbtree_xkey_timestamptz_timestamp(timestamp, bool);

-- More types, each in a family of its own as in btree (none of these
-- families has cross-type operators there): bool, "char" (its byte as
-- unsigned), money and time (int64 inside), macaddr and macaddr8 (their
-- bytes as one big-endian number).  Every value maps to a key of its own
-- and back exactly.

CREATE FUNCTION fpbtree_encode_bool(bool)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_decode_bool(int8)
RETURNS bool AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR FAMILY bool_ops USING fpbtree;
CREATE OPERATOR CLASS bool_ops
DEFAULT FOR TYPE bool USING fpbtree FAMILY bool_ops AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(bool, bool) fpbtree_encode_bool(bool),
	FUNCTION	2	(bool, bool) fpbtree_decode_bool(int8);

CREATE FUNCTION fpbtree_encode_char("char")
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_decode_char(int8)
RETURNS "char" AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR FAMILY char_ops USING fpbtree;
CREATE OPERATOR CLASS char_ops
DEFAULT FOR TYPE "char" USING fpbtree FAMILY char_ops AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	("char", "char") fpbtree_encode_char("char"),
	FUNCTION	2	("char", "char") fpbtree_decode_char(int8);

CREATE FUNCTION fpbtree_encode_money(money)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_decode_money(int8)
RETURNS money AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR FAMILY money_ops USING fpbtree;
CREATE OPERATOR CLASS money_ops
DEFAULT FOR TYPE money USING fpbtree FAMILY money_ops AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(money, money) fpbtree_encode_money(money),
	FUNCTION	2	(money, money) fpbtree_decode_money(int8);

CREATE FUNCTION fpbtree_encode_time(time)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_decode_time(int8)
RETURNS time AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR FAMILY time_ops USING fpbtree;
CREATE OPERATOR CLASS time_ops
DEFAULT FOR TYPE time USING fpbtree FAMILY time_ops AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(time, time) fpbtree_encode_time(time),
	FUNCTION	2	(time, time) fpbtree_decode_time(int8);

CREATE FUNCTION fpbtree_encode_macaddr(macaddr)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_decode_macaddr(int8)
RETURNS macaddr AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR FAMILY macaddr_ops USING fpbtree;
CREATE OPERATOR CLASS macaddr_ops
DEFAULT FOR TYPE macaddr USING fpbtree FAMILY macaddr_ops AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(macaddr, macaddr) fpbtree_encode_macaddr(macaddr),
	FUNCTION	2	(macaddr, macaddr) fpbtree_decode_macaddr(int8);

CREATE FUNCTION fpbtree_encode_macaddr8(macaddr8)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_decode_macaddr8(int8)
RETURNS macaddr8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR FAMILY macaddr8_ops USING fpbtree;
CREATE OPERATOR CLASS macaddr8_ops
DEFAULT FOR TYPE macaddr8 USING fpbtree FAMILY macaddr8_ops AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(macaddr8, macaddr8) fpbtree_encode_macaddr8(macaddr8),
	FUNCTION	2	(macaddr8, macaddr8) fpbtree_decode_macaddr8(int8);
