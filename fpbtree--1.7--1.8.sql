/* fpbtree--1.7--1.8.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION fpbtree UPDATE TO '1.8'" to load this file. \quit

-- per-session counters of index-only scans that returned rows grouped by
-- visibility-map page, because no plan node used their order
-- (src/am/README.md, "Unordered index-only scans")
CREATE FUNCTION fpbtree_scan_stats(
	OUT grouping_scans int8,
	OUT grouped_batches int8)
RETURNS record
AS 'MODULE_PATHNAME', 'fpbtree_scan_stats'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

CREATE FUNCTION fpbtree_scan_stats_reset()
RETURNS void
AS 'MODULE_PATHNAME', 'fpbtree_scan_stats_reset'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;
