--
-- 00_setup: the access method and its operator classes in the catalogs, and
-- a self-test of the comparison helpers (sql/include/fpb_helpers.sql) that
-- other files include.  Like every file here, it runs on its own.
--

-- on its own: the extension and settings
\set ECHO none
\i sql/include/setup.sql
\set ECHO all

-- the access method is there, with the capabilities of a btree
SELECT amname, amtype FROM pg_am WHERE amname = 'fpbtree';

-- its operator classes and families: one default class per type, and
-- the non-default classes btree has (varchar_ops, the pattern classes)
SELECT opc.opcname, opc.opcintype::regtype AS type, opf.opfname AS family,
	   opc.opcdefault
FROM pg_opclass opc
	JOIN pg_am am ON am.oid = opc.opcmethod
	JOIN pg_opfamily opf ON opf.oid = opc.opcfamily
WHERE am.amname = 'fpbtree'
ORDER BY opc.opcintype::regtype::text, opc.opcname;

-- which types share a family (cross-type comparisons)
SELECT array_agg(opc.opcintype::regtype::text ORDER BY opc.opcintype::regtype::text, opc.opcname) AS types
FROM pg_opclass opc
	JOIN pg_am am ON am.oid = opc.opcmethod
WHERE am.amname = 'fpbtree'
GROUP BY opc.opcfamily
ORDER BY 1;

-- every comparison operator of every family: five strategies for every
-- pair of types in the family, and each is the btree's operator for that
-- pair
SELECT opf.opfname AS family,
	   count(*) AS operators,
	   count(DISTINCT (ao.amoplefttype, ao.amoprighttype)) AS type_pairs,
	   bool_and(ao.amopstrategy BETWEEN 1 AND 5) AS strategies_1_to_5,
	   bool_and(ao.amoppurpose = 's') AS all_search
FROM pg_amop ao
	JOIN pg_opfamily opf ON opf.oid = ao.amopfamily
	JOIN pg_am am ON am.oid = opf.opfmethod
WHERE am.amname = 'fpbtree' AND ao.amopstrategy <= 5
GROUP BY opf.opfname
ORDER BY 1;

-- and in every family the four row bound operators (strategies 6 to 9,
-- src/am/README.md "Row comparisons"), the same four in each
SELECT ao.amopstrategy, ao.amopopr::regoperator, count(*) AS families
FROM pg_amop ao
	JOIN pg_opfamily opf ON opf.oid = ao.amopfamily
	JOIN pg_am am ON am.oid = opf.opfmethod
WHERE am.amname = 'fpbtree' AND ao.amopstrategy > 5
GROUP BY 1, 2
ORDER BY 1;
SELECT count(*) AS families FROM pg_opfamily opf
	JOIN pg_am am ON am.oid = opf.opfmethod
WHERE am.amname = 'fpbtree';

-- an fpbtree operator that is not the btree operator of the same types and
-- strategy (expect none)
SELECT ao.amopopr::regoperator, ao.amopstrategy
FROM pg_amop ao
	JOIN pg_opfamily opf ON opf.oid = ao.amopfamily
	JOIN pg_am am ON am.oid = opf.opfmethod
WHERE am.amname = 'fpbtree' AND ao.amopstrategy <= 5
  AND NOT EXISTS (
	SELECT 1 FROM pg_amop b
		JOIN pg_opfamily bf ON bf.oid = b.amopfamily
		JOIN pg_am bam ON bam.oid = bf.opfmethod
	WHERE bam.amname = 'btree'
	  AND b.amopopr = ao.amopopr
	  AND b.amopstrategy = ao.amopstrategy)
ORDER BY 1;

-- amvalidate() on every fpbtree operator class
SELECT opc.opcname, amvalidate(opc.oid)
FROM pg_opclass opc
	JOIN pg_am am ON am.oid = opc.opcmethod
WHERE am.amname = 'fpbtree'
ORDER BY opc.opcintype::regtype::text, opc.opcname;

-- fpb_same() and the helpers it uses
\set ECHO none
\i sql/include/fpb_helpers.sql
\set ECHO all

-- self-test of the helpers on a btree index, which must pass
CREATE TABLE helper_selftest (a int4);
INSERT INTO helper_selftest SELECT g % 10 FROM generate_series(1, 100) g;
CREATE INDEX helper_selftest_a ON helper_selftest USING btree (a);
VACUUM ANALYZE helper_selftest;
SELECT fpb_same('SELECT a FROM helper_selftest WHERE a < 3', 'helper_selftest_a');
SELECT fpb_same('SELECT a FROM helper_selftest WHERE a > 3 ORDER BY a', 'helper_selftest_a', true);
-- and that can fail
SELECT fpb_same('SELECT a FROM helper_selftest WHERE a < 3', 'no_such_index') LIKE 'index: plan does not use%' AS fails;
DROP TABLE helper_selftest;
