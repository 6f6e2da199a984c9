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
