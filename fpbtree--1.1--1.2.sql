/* fpbtree--1.1--1.2.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION fpbtree UPDATE TO '1.2'" to load this file. \quit

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
