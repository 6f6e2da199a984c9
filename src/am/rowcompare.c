/*-------------------------------------------------------------------------
 *
 * rowcompare.c
 *	  Row comparisons such as "(ts, id) > ($1, $2)" bound fpbtree scans.
 *
 * PostgreSQL 15 makes a row comparison an index condition only on a btree
 * index: match_rowcompare_to_indexcol tests the access method, and the
 * executor refuses a RowCompare index qual on any other.  On an fpbtree
 * index it stays a filter, so keyset pagination ("WHERE (ts, id) > ($1,
 * $2) ORDER BY ts, id LIMIT 50") would read the index from its start.
 *
 * A row comparison implies a condition on its first column: "(a, ...) >
 * (x, ...)" and ">=" imply "a >= x"; "<" and "<=" imply "a <= x" (the
 * first unequal pair decides, and a NULL in the first pair makes both
 * conditions null).  set_rel_pathlist_hook adds those conditions to the
 * restrictions of each fpbtree index whose first column is "a" for a
 * second create_index_paths over those indexes, then takes them out again:
 * the paths it makes carry "a >= x" as an index condition, and the row
 * comparison stays in their filter, which decides.  Those indexes' index
 * paths from the core's call are dropped first: each is the same scan
 * without the bound, and never faster.  No other plan filters by the
 * implied conditions, and the relation's row estimate stays the original
 * one.  (The second call makes those indexes' other paths again, bitmap
 * ones among them; add_path drops the copies.)
 * The scan then starts at the first "a = x" entry instead of the index's
 * first entry; only the rows with a = x and the rest below the row bound
 * are read and filtered.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "catalog/pg_class_d.h"
#include "catalog/pg_type_d.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "utils/lsyscache.h"

#include "fpbtree.h"

static set_rel_pathlist_hook_type fpb_prev_rel_pathlist = NULL;

/*
 * The condition on its first column that row comparison rc of relation rel
 * implies, with the column on the left; NULL if there is none to use.
 */
static OpExpr *
fpb_rowcompare_bound(PlannerInfo *root, RelOptInfo *rel, RowCompareExpr *rc)
{
	Node	   *col = (Node *) linitial(rc->largs);
	Node	   *arg = (Node *) linitial(rc->rargs);
	Oid			opfamily = linitial_oid(rc->opfamilies);
	bool		lower = (rc->rctype == ROWCOMPARE_GT ||
						 rc->rctype == ROWCOMPARE_GE);
	int			strategy;
	Oid			lefttype;
	Oid			righttype;
	Oid			op;

	if (rc->rctype != ROWCOMPARE_LT && rc->rctype != ROWCOMPARE_LE &&
		rc->rctype != ROWCOMPARE_GT && rc->rctype != ROWCOMPARE_GE)
		return NULL;
	get_op_opfamily_properties(linitial_oid(rc->opnos), opfamily, false,
							   &strategy, &lefttype, &righttype);
	/* "(x, ...) < (a, ...)": the column on the right, the sense reversed */
	if (!bms_is_member(rel->relid, pull_varnos(root, col)))
	{
		Node	   *t = col;
		Oid			tt = lefttype;

		col = arg;
		arg = t;
		lefttype = righttype;
		righttype = tt;
		lower = !lower;
	}
	/* the other side must be known when the scan starts */
	if (!bms_is_member(rel->relid, pull_varnos(root, col)) ||
		bms_is_member(rel->relid, pull_varnos(root, arg)) ||
		contain_volatile_functions(arg))
		return NULL;
	op = get_opfamily_member(opfamily, lefttype, righttype,
							 lower ? BTGreaterEqualStrategyNumber :
							 BTLessEqualStrategyNumber);
	if (!OidIsValid(op))
		return NULL;
	return (OpExpr *) make_opclause(op, BOOLOID, false,
									(Expr *) copyObject(col),
									(Expr *) copyObject(arg),
									InvalidOid,
									linitial_oid(rc->inputcollids));
}

/* Can fpbtree index ind take bound as the condition of its first column? */
static bool
fpb_rowcompare_fits(IndexOptInfo *ind, OpExpr *bound)
{
	return ind->amcostestimate == (void (*) ()) fpbcostestimate &&
		ind->nkeycolumns > 0 &&
		(ind->indpred == NIL || ind->predOK) &&
		match_index_to_operand((Node *) linitial(bound->args), 0, ind) &&
		op_in_opfamily(bound->opno, ind->opfamily[0]) &&
		(!OidIsValid(ind->indexcollations[0]) ||
		 ind->indexcollations[0] == bound->inputcollid);
}

/* paths without the index scans and index-only scans of indexes */
static List *
fpb_drop_index_paths(List *paths, List *indexes)
{
	List	   *kept = NIL;
	ListCell   *lc;

	foreach(lc, paths)
	{
		Path	   *path = (Path *) lfirst(lc);

		if (!IsA(path, IndexPath) ||
			!list_member_ptr(indexes, ((IndexPath *) path)->indexinfo))
			kept = lappend(kept, path);
	}
	return kept;
}

/*
 * After the core's paths: when a row comparison implies a bound an fpbtree
 * index can take, the paths of those indexes once more, each index's
 * restrictions (indrestrictinfo, what create_index_paths matches) with the
 * bounds added for the time of the call.
 */
static void
fpb_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti,
				 RangeTblEntry *rte)
{
	List	   *implied = NIL;
	List	   *indexes = NIL;
	List	   *saved = NIL;
	List	   *indexlist = rel->indexlist;
	ListCell   *lc;

	if (fpb_prev_rel_pathlist)
		fpb_prev_rel_pathlist(root, rel, rti, rte);

	/* the relations whose index paths set_plain_rel_pathlist made */
	if (IS_DUMMY_REL(rel) || rte->inh || rel->rtekind != RTE_RELATION ||
		rte->relkind == RELKIND_FOREIGN_TABLE || rte->tablesample != NULL ||
		rel->indexlist == NIL)
		return;

	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *ri = (RestrictInfo *) lfirst(lc);
		OpExpr	   *bound;

		if (!IsA(ri->clause, RowCompareExpr))
			continue;
		bound = fpb_rowcompare_bound(root, rel, (RowCompareExpr *) ri->clause);
		if (bound != NULL)
			implied = lappend(implied,
							  make_restrictinfo(root, (Expr *) bound,
												true, false, false,
												ri->security_level,
												NULL, NULL, NULL));
	}
	if (implied == NIL)
		return;

	foreach(lc, rel->indexlist)
	{
		IndexOptInfo *ind = (IndexOptInfo *) lfirst(lc);
		List	   *mine = NIL;
		ListCell   *lc2;

		foreach(lc2, implied)
		{
			RestrictInfo *ri = (RestrictInfo *) lfirst(lc2);

			if (fpb_rowcompare_fits(ind, (OpExpr *) ri->clause))
				mine = lappend(mine, ri);
		}
		if (mine == NIL)
			continue;
		indexes = lappend(indexes, ind);
		saved = lappend(saved, ind->indrestrictinfo);
		ind->indrestrictinfo = list_concat_copy(ind->indrestrictinfo, mine);
	}
	if (indexes == NIL)
		return;

	/*
	 * Their paths so far go: made again, each takes the bound where the
	 * first did not (a filter-only scan from the index's start, which the
	 * planner, taking the rows that pass the filter to be spread through
	 * the index, often costs the lower for a LIMIT, though they all come
	 * after the ones that fail it).
	 */
	rel->pathlist = fpb_drop_index_paths(rel->pathlist, indexes);
	rel->partial_pathlist = fpb_drop_index_paths(rel->partial_pathlist,
												 indexes);
	rel->indexlist = indexes;
	PG_TRY();
	{
		create_index_paths(root, rel);
	}
	PG_FINALLY();
	{
		ListCell   *lc2;

		rel->indexlist = indexlist;
		forboth(lc, indexes, lc2, saved)
		{
			IndexOptInfo *ind = (IndexOptInfo *) lfirst(lc);

			ind->indrestrictinfo = (List *) lfirst(lc2);
		}
	}
	PG_END_TRY();
}

/* Called from fpb_am_init (_PG_init). */
void
fpb_rowcompare_init(void)
{
	fpb_prev_rel_pathlist = set_rel_pathlist_hook;
	set_rel_pathlist_hook = fpb_rel_pathlist;
}
