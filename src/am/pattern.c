/*-------------------------------------------------------------------------
 *
 * pattern.c
 *	  LIKE prefix searches on the pattern operator classes, boolean columns
 *	  as index conditions, and inet's subnet operators as index ranges.
 *
 * The planner turns "col LIKE 'abc%'" into index bounds through the LIKE
 * operators' support function (like_support.c), which uses the bytewise
 * pattern operators ~>=~ and ~<~ only when the index column's operator
 * family is btree's text_pattern_ops or bpchar_pattern_ops, compared by
 * OID.  For any other family it asks for the collation-aware >= and <,
 * which a pattern family does not have, so an fpbtree pattern index would
 * get no bounds.
 *
 * get_relation_info_hook therefore shows the planner btree's pattern
 * family in place of an fpbtree family whose five strategies are exactly
 * btree's pattern operators.  That changes which operators the planner
 * recognises, not what they mean: every operator it can then put in an
 * index condition is a member of both families with the same strategy, and
 * the executor maps operators to strategies through the index's own family
 * (the relcache's).  The sort order it derives is btree's pattern family's
 * already (get_relation_info maps an ordered index's "<" to btree's family).
 *
 * A boolean column is the same case: the planner turns "WHERE flag" and
 * "WHERE NOT flag" into the conditions "flag = true" and "flag = false"
 * (match_boolean_index_clause), and takes such a column as constant for
 * the sort order below it (indexcol_is_bool_constant_for_query), only for
 * btree's and hash's boolean families, again by OID.  An fpbtree boolean
 * column shows btree's family, so "WHERE active AND id = 5" bounds an
 * (active, id) index by both columns rather than scanning it all.
 *
 * So is inet: "col << '10.1.0.0/16'" becomes the range ">= 10.1.0.0/16 and
 * <= 10.1.255.255/16" with the subnet operator kept as a filter
 * (network_subset_support) only for btree's network family.  Unique
 * indexes show btree's families anyway (planview.c); this gives the range
 * to every fpbtree inet index.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "catalog/pg_index.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_opfamily_d.h"
#include "catalog/pg_type_d.h"
#include "optimizer/plancat.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "fpbtree.h"

static get_relation_info_hook_type fpb_prev_relation_info = NULL;

/* Has family fam the same five operators on type as btree family btfam? */
static bool
fpb_same_strategies(Oid fam, Oid btfam, Oid type)
{
	for (int s = 1; s <= BTMaxStrategyNumber; s++)
	{
		Oid			op = get_opfamily_member(fam, type, type, s);

		if (!OidIsValid(op) ||
			op != get_opfamily_member(btfam, type, type, s))
			return false;
	}
	return true;
}

static void
fpb_relation_info(PlannerInfo *root, Oid relid, bool inhparent,
				  RelOptInfo *rel)
{
	ListCell   *lc;

	if (fpb_prev_relation_info)
		fpb_prev_relation_info(root, relid, inhparent, rel);

	foreach(lc, rel->indexlist)
	{
		IndexOptInfo *ind = (IndexOptInfo *) lfirst(lc);

		if (ind->amcostestimate != (void (*) ()) fpbcostestimate)
			continue;
		for (int i = 0; i < ind->nkeycolumns; i++)
		{
			Oid			btfam;

			if (ind->opcintype[i] == TEXTOID)
				btfam = TEXT_PATTERN_BTREE_FAM_OID;
			else if (ind->opcintype[i] == BPCHAROID)
				btfam = BPCHAR_PATTERN_BTREE_FAM_OID;
			else if (ind->opcintype[i] == BOOLOID)
				btfam = BOOL_BTREE_FAM_OID;
			else if (ind->opcintype[i] == INETOID)
				btfam = NETWORK_BTREE_FAM_OID;
			else
				continue;
			if (ind->opfamily[i] != btfam &&
				fpb_same_strategies(ind->opfamily[i], btfam,
									ind->opcintype[i]))
				ind->opfamily[i] = btfam;
		}
	}
}

/*
 * Refuse a pattern class on a column of a nondeterministic collation, as
 * the core refuses btree's (index_create): the planner would take the
 * column's "=" (texteq under that collation, where 'abc' may equal 'ABC')
 * for a condition the index answers, but the index orders the bytes, and
 * the values such an equality admits are not one range of it.  Called when
 * an index is built (CREATE INDEX, REINDEX).
 */
void
fpb_check_pattern_collations(Relation index)
{
	for (int i = 0; i < IndexRelationGetNumberOfKeyAttributes(index); i++)
	{
		Oid			coll = index->rd_indcollation[i];
		Oid			cmpproc = index_getprocid(index, i + 1, FPB_CMP_PROC);
		Datum		d;
		bool		isnull;
		HeapTuple	tup;
		char	   *opcname;

		if (!OidIsValid(coll) ||
			(cmpproc != F_BTTEXT_PATTERN_CMP &&
			 cmpproc != F_BTBPCHAR_PATTERN_CMP) ||
			get_collation_isdeterministic(coll))
			continue;
		/* the operator class's name, for the core's message */
		d = SysCacheGetAttr(INDEXRELID, index->rd_indextuple,
							Anum_pg_index_indclass, &isnull);
		Assert(!isnull);
		tup = SearchSysCache1(CLAOID, ObjectIdGetDatum(
								  ((oidvector *) DatumGetPointer(d))->values[i]));
		if (!HeapTupleIsValid(tup))
			elog(ERROR, "cache lookup failed for operator class of index \"%s\"",
				 RelationGetRelationName(index));
		opcname = pstrdup(NameStr(((Form_pg_opclass) GETSTRUCT(tup))->opcname));
		ReleaseSysCache(tup);
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("nondeterministic collations are not supported for operator class \"%s\"",
						opcname)));
	}
}

/* Called from fpb_am_init (_PG_init). */
void
fpb_pattern_init(void)
{
	fpb_prev_relation_info = get_relation_info_hook;
	get_relation_info_hook = fpb_relation_info;
}
