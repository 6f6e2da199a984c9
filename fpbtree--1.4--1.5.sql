/* fpbtree--1.4--1.5.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION fpbtree UPDATE TO '1.5'" to load this file. \quit

-- The last btree operator classes without an fpbtree one (src/am/README.md,
-- "Wide keys"): enums and composite types.  Their comparisons alone order
-- them, so every prefix ties (fpbtree_prefix_none).  An enum's order is its
-- labels' sort positions, which ALTER TYPE ... ADD VALUE may renumber: no
-- prefix taken from them would stay valid.

CREATE OPERATOR CLASS enum_ops
DEFAULT FOR TYPE anyenum USING fpbtree AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(anyenum, anyenum) fpbtree_prefix_none("any"),
	FUNCTION	4	(anyenum, anyenum) enum_cmp(anyenum, anyenum);

CREATE OPERATOR CLASS record_ops
DEFAULT FOR TYPE record USING fpbtree AS
	OPERATOR	1	< ,
	OPERATOR	2	<= ,
	OPERATOR	3	= ,
	OPERATOR	4	>= ,
	OPERATOR	5	> ,
	FUNCTION	1	(record, record) fpbtree_prefix_none("any"),
	FUNCTION	4	(record, record) btrecordcmp(record, record);

-- Binary equality of the columns, as btree's record_image_ops.
CREATE OPERATOR CLASS record_image_ops
FOR TYPE record USING fpbtree AS
	OPERATOR	1	*< ,
	OPERATOR	2	*<= ,
	OPERATOR	3	*= ,
	OPERATOR	4	*>= ,
	OPERATOR	5	*> ,
	FUNCTION	1	(record, record) fpbtree_prefix_none("any"),
	FUNCTION	4	(record, record) btrecordimagecmp(record, record);
