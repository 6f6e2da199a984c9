/* fpbtree--1.2--1.3.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION fpbtree UPDATE TO '1.3'" to load this file. \quit

-- Wide keys (src/am/README.md, "Wide keys"): operator classes whose
-- support function 1 is the value's order-preserving prefix and support
-- function 4 the type's three-way comparison, which decides when prefixes
-- tie.  Their indexes keep each value in full in the page beside the
-- prefix.  varchar columns use text_ops, as with btree.
CREATE OPERATOR CLASS uuid_ops
DEFAULT FOR TYPE uuid USING fpbtree AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(uuid, uuid) fpbtree_prefix_uuid(uuid),
	FUNCTION	4	(uuid, uuid) uuid_cmp(uuid, uuid);

CREATE OPERATOR CLASS text_ops
DEFAULT FOR TYPE text USING fpbtree AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(text, text) fpbtree_prefix_text(text),
	FUNCTION	4	(text, text) bttextcmp(text, text);

CREATE OPERATOR CLASS bpchar_ops
DEFAULT FOR TYPE bpchar USING fpbtree AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(bpchar, bpchar) fpbtree_prefix_bpchar(bpchar),
	FUNCTION	4	(bpchar, bpchar) bpcharcmp(bpchar, bpchar);
