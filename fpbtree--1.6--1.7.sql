/* fpbtree--1.6--1.7.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION fpbtree UPDATE TO '1.7'" to load this file. \quit

-- An index keeps the format it was built in until it is rebuilt: the
-- metapage version, the format features the index has, and those a
-- REINDEX would add (src/am/README.md, "Formats and versions").
CREATE FUNCTION fpbtree_format(index regclass,
	OUT version int4,
	OUT format text[],
	OUT reindex_adds text[])
RETURNS record
AS 'MODULE_PATHNAME', 'fpbtree_format'
LANGUAGE C STRICT;
