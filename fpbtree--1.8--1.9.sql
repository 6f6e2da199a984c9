/* fpbtree--1.8--1.9.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION fpbtree UPDATE TO '1.9'" to load this file. \quit

-- Row bounds (src/am/README.md, "Row comparisons"): "a >| ROW(x, y)" is,
-- inside an fpbtree index scan, the row comparison "(a, b) > (x, y)" over
-- the index's key columns from its first on.  The planner hook puts one in
-- place of a row comparison it covers exactly, so that the scan starts at
-- (x, y) and checks the comparison itself.  PostgreSQL 15 gives row
-- comparisons as index conditions to btree alone.  Out of an index scan
-- the operators have no meaning: their function raises an error.
CREATE FUNCTION fpbtree_row_bound(anyelement, record)
RETURNS bool
AS 'MODULE_PATHNAME', 'fpbtree_row_bound'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR <| (LEFTARG = anyelement, RIGHTARG = record,
					FUNCTION = fpbtree_row_bound);
CREATE OPERATOR <=| (LEFTARG = anyelement, RIGHTARG = record,
					 FUNCTION = fpbtree_row_bound);
CREATE OPERATOR >=| (LEFTARG = anyelement, RIGHTARG = record,
					 FUNCTION = fpbtree_row_bound);
CREATE OPERATOR >| (LEFTARG = anyelement, RIGHTARG = record,
					FUNCTION = fpbtree_row_bound);

-- strategies 6 to 9 of every fpbtree operator family: <, <=, >=, >
DO $$
DECLARE
	fam record;
BEGIN
	FOR fam IN
		SELECT f.opfname, n.nspname
		FROM pg_opfamily f
		JOIN pg_am a ON a.oid = f.opfmethod
		JOIN pg_namespace n ON n.oid = f.opfnamespace
		WHERE a.amname = 'fpbtree'
	LOOP
		-- the script runs with the extension's schema as current one
		EXECUTE format('ALTER OPERATOR FAMILY %I.%I USING fpbtree ADD '
					   'OPERATOR 6 %I.<| (anyelement, record), '
					   'OPERATOR 7 %I.<=| (anyelement, record), '
					   'OPERATOR 8 %I.>=| (anyelement, record), '
					   'OPERATOR 9 %I.>| (anyelement, record)',
					   fam.nspname, fam.opfname, current_schema(),
					   current_schema(), current_schema(), current_schema());
	END LOOP;
END
$$;
