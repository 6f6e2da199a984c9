/* fpbtree--1.5--1.6.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION fpbtree UPDATE TO '1.6'" to load this file. \quit

-- The name/text operators of btree's text_ops family (src/am/README.md,
-- "Cross-type keys of wide columns"): a name column against a text value
-- (which LIKE on a name column also produces) and a text or varchar column
-- against a name.  The scan turns the argument into a value of the
-- column's type; a text longer than a name can hold bounds the scan by its
-- prefix and leaves the rest to a recheck.
ALTER OPERATOR FAMILY name_ops USING fpbtree ADD
	OPERATOR	1	< (name, text) ,
	OPERATOR	2	<= (name, text) ,
	OPERATOR	3	= (name, text) ,
	OPERATOR	4	>= (name, text) ,
	OPERATOR	5	> (name, text) ;

ALTER OPERATOR FAMILY text_ops USING fpbtree ADD
	OPERATOR	1	< (text, name) ,
	OPERATOR	2	<= (text, name) ,
	OPERATOR	3	= (text, name) ,
	OPERATOR	4	>= (text, name) ,
	OPERATOR	5	> (text, name) ;
