/* fpbtree--1.1--1.2.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION fpbtree UPDATE TO '1.2'" to load this file. \quit

-- Prefixes of wide keys (src/am/README.md, "Wide keys"): the 8-byte
-- order-preserving part of a uuid, text/varchar or bpchar value, as an int8
-- holding the uint64 bit pattern.  Under an ICU collation (UTF8 database)
-- a text prefix is the start of the ICU sort key; under other collations
-- than "C" or POSIX it is 0, and the collation's comparison decides every
-- order.  They will be support function 1 of the wide operator classes.
CREATE FUNCTION fpbtree_prefix_uuid(uuid)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_prefix_text(text)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION fpbtree_prefix_bpchar(bpchar)
RETURNS int8 AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Leaf entries that index scans marked dead (their heap tuples are dead to
-- every snapshot) and that no insert has removed yet.
CREATE FUNCTION fpbtree_dead_entries(index regclass)
RETURNS bigint AS 'MODULE_PATHNAME' LANGUAGE C STRICT;

-- VACUUM deletes empty leaf pages and reuses them: fpbtree_stats also
-- counts the pages that are off the tree (deleted; of those, recyclable:
-- no transaction can reach them any more; free: listed in the free space
-- map) and the leaves left half-dead by a deletion that stopped half-way.
DROP FUNCTION fpbtree_stats(regclass);
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
	OUT tnext_ns float8,
	OUT deleted_pages int8,
	OUT recyclable_pages int8,
	OUT free_pages int8,
	OUT half_dead_pages int8)
RETURNS record
AS 'MODULE_PATHNAME', 'fpbtree_stats'
LANGUAGE C STRICT;
