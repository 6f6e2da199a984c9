/* fpbtree--1.1--1.2.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION fpbtree UPDATE TO '1.2'" to load this file. \quit

-- Leaf entries that index scans marked dead (their heap tuples are dead to
-- every snapshot) and that no insert has removed yet.
CREATE FUNCTION fpbtree_dead_entries(index regclass)
RETURNS bigint AS 'MODULE_PATHNAME' LANGUAGE C STRICT;
