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
 *
 * Where the row's columns are the index's first key columns in order, the
 * index paths' condition then becomes the row bound "a >| ROW(x, y)"
 * (rowbound.c; extension version 1.9) with the row comparison itself as
 * the clause it enforces: no filter is left, and the scan starts at (x, y)
 * instead of the first "a = x" entry.
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
#include "optimizer/pathnode.h"
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

/*
 * The row bound (rowbound.c) that stands for row comparison rc of relation
 * rel on index ind, or NULL when it would not stand for it exactly: rc's
 * columns must be the index's first key columns in order, compared by
 * operators of their families of one strategy under their collations,
 * with values of the operators' types that the scan can know.  Only where
 * the extension's version has the row bound operators (1.9).
 */
static Expr *
fpb_rowbound_expr(PlannerInfo *root, RelOptInfo *rel, IndexOptInfo *ind,
				  RowCompareExpr *rc)
{
	int			n = list_length(rc->opnos);
	bool		varleft;
	List	   *vars;
	List	   *vals;
	List	   *args = NIL;
	List	   *names = NIL;
	int			strategy = InvalidStrategy;
	int			rowstrategy;
	Oid			op;
	RowExpr    *row;

	if (n < 2 || n > ind->nkeycolumns)
		return NULL;
	varleft = bms_is_member(rel->relid,
							pull_varnos(root, linitial(rc->largs)));
	vars = varleft ? rc->largs : rc->rargs;
	vals = varleft ? rc->rargs : rc->largs;
	for (int j = 0; j < n; j++)
	{
		Node	   *var = list_nth(vars, j);
		Node	   *val = list_nth(vals, j);
		Oid			opno = list_nth_oid(rc->opnos, j);
		Oid			coll = ind->indexcollations[j];
		int			s;
		Oid			lefttype;
		Oid			righttype;

		if (!varleft && !OidIsValid(opno = get_commutator(opno)))
			return NULL;
		if (!match_index_to_operand(var, j, ind) ||
			bms_is_member(rel->relid, pull_varnos(root, val)) ||
			contain_volatile_functions(val) ||
			!op_in_opfamily(opno, ind->opfamily[j]) ||
			(OidIsValid(coll) && coll != list_nth_oid(rc->inputcollids, j)))
			return NULL;
		get_op_opfamily_properties(opno, ind->opfamily[j], false, &s,
								   &lefttype, &righttype);
		if ((j > 0 && s != strategy) || exprType(val) != righttype)
			return NULL;
		strategy = s;
		args = lappend(args, copyObject(val));
		names = lappend(names, makeString(psprintf("f%d", j + 1)));
	}
	switch (strategy)
	{
		case BTLessStrategyNumber:
			rowstrategy = FPB_ROW_LT;
			break;
		case BTLessEqualStrategyNumber:
			rowstrategy = FPB_ROW_LE;
			break;
		case BTGreaterEqualStrategyNumber:
			rowstrategy = FPB_ROW_GE;
			break;
		case BTGreaterStrategyNumber:
			rowstrategy = FPB_ROW_GT;
			break;
		default:
			return NULL;
	}
	op = get_opfamily_member(ind->opfamily[0], ANYELEMENTOID, RECORDOID,
							 rowstrategy);
	if (!OidIsValid(op))
		return NULL;
	row = makeNode(RowExpr);
	row->args = args;
	row->row_typeid = RECORDOID;
	row->row_format = COERCE_IMPLICIT_CAST;
	row->colnames = names;
	row->location = -1;
	return make_opclause(op, BOOLOID, false,
						 (Expr *) copyObject(linitial(vars)), (Expr *) row,
						 InvalidOid, ind->indexcollations[0]);
}

/*
 * The index paths of paths whose condition on the first column is one of
 * the implied bounds, with the row bound of its row comparison (origs, in
 * step) in its place where there is one: the row comparison's own
 * restriction then is the index clause, which leaves it out of the scan's
 * filter.  The paths are copied; bitmap paths may share the originals.
 */
static void
fpb_rowbound_paths(PlannerInfo *root, RelOptInfo *rel, List *paths,
				   List *indexes, List *implied, List *origs)
{
	ListCell   *lc;

	foreach(lc, paths)
	{
		IndexPath  *ip = (IndexPath *) lfirst(lc);
		List	   *clauses = NIL;
		bool		changed = false;
		ListCell   *lc2;

		if (!IsA(ip, IndexPath) ||
			!list_member_ptr(indexes, ip->indexinfo))
			continue;
		foreach(lc2, ip->indexclauses)
		{
			IndexClause *ic = lfirst_node(IndexClause, lc2);
			ListCell   *li;
			ListCell   *lo;
			Expr	   *rb = NULL;
			RestrictInfo *orig = NULL;

			forboth(li, implied, lo, origs)
			{
				/*
				 * The scan evaluates every pair's operator on the rows,
				 * before any policy's conditions: only as the core would
				 */
				if (ic->indexcol == 0 && lfirst(li) == ic->rinfo &&
					restriction_is_securely_promotable(lfirst(lo), rel))
				{
					orig = lfirst(lo);
					rb = fpb_rowbound_expr(root, rel, ip->indexinfo,
										   (RowCompareExpr *) orig->clause);
					break;
				}
			}
			if (rb != NULL)
			{
				IndexClause *nic = makeNode(IndexClause);

				nic->rinfo = orig;
				nic->indexquals = list_make1(make_simple_restrictinfo(root,
																	  rb));
				nic->lossy = false;
				nic->indexcol = 0;
				nic->indexcols = NIL;
				ic = nic;
				changed = true;
			}
			clauses = lappend(clauses, ic);
		}
		if (changed)
		{
			IndexPath  *copy = makeNode(IndexPath);

			memcpy(copy, ip, sizeof(IndexPath));
			copy->indexclauses = clauses;
			lfirst(lc) = copy;
		}
	}
}

/*
 * Does path scan an index by a row bound operator (rowbound.c) that the
 * query wrote itself?  The hook's own come in after the core's paths, with
 * the row comparison as their clause; a written one is the clause.
 */
static bool
fpb_written_rowbound(Path *path)
{
	ListCell   *lc;

	if (IsA(path, BitmapHeapPath))
		return fpb_written_rowbound(((BitmapHeapPath *) path)->bitmapqual);
	if (IsA(path, BitmapAndPath) || IsA(path, BitmapOrPath))
	{
		List	   *quals = IsA(path, BitmapAndPath) ?
			((BitmapAndPath *) path)->bitmapquals :
			((BitmapOrPath *) path)->bitmapquals;

		foreach(lc, quals)
			if (fpb_written_rowbound((Path *) lfirst(lc)))
				return true;
		return false;
	}
	if (!IsA(path, IndexPath) ||
		((IndexPath *) path)->indexinfo->amcostestimate !=
		(void (*) ()) fpbcostestimate)
		return false;
	foreach(lc, ((IndexPath *) path)->indexclauses)
	{
		IndexClause *ic = lfirst_node(IndexClause, lc);
		OpExpr	   *op = (OpExpr *) ic->rinfo->clause;

		/* whatever the value's type: a named composite needs no cast */
		if (IsA(op, OpExpr) &&
			get_op_opfamily_strategy(op->opno,
									 ((IndexPath *) path)->indexinfo->opfamily[ic->indexcol]) >
			BTMaxStrategyNumber)
			return true;
	}
	return false;
}

/*
 * Drop rel's paths that take a written row bound: its function only raises
 * an error, and in an fpbtree scan it would compare more columns than the
 * query names.  A sequential scan, which add_path may have dropped for
 * them, evaluates it instead, and fails.
 */
static void
fpb_drop_written_rowbounds(PlannerInfo *root, RelOptInfo *rel)
{
	List	   *kept = NIL;
	List	   *partial = NIL;
	bool		dropped = false;
	ListCell   *lc;

	foreach(lc, rel->pathlist)
	{
		if (!fpb_written_rowbound((Path *) lfirst(lc)))
			kept = lappend(kept, lfirst(lc));
		else
			dropped = true;
	}
	foreach(lc, rel->partial_pathlist)
	{
		if (!fpb_written_rowbound((Path *) lfirst(lc)))
			partial = lappend(partial, lfirst(lc));
	}
	rel->partial_pathlist = partial;
	if (!dropped)
		return;
	rel->pathlist = kept;
	add_path(rel, create_seqscan_path(root, rel, rel->lateral_relids, 0));
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
	List	   *origs = NIL;
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
	/* nothing to do for a relation without fpbtree indexes */
	foreach(lc, rel->indexlist)
	{
		if (((IndexOptInfo *) lfirst(lc))->amcostestimate ==
			(void (*) ()) fpbcostestimate)
			break;
	}
	if (lc == NULL)
		return;
	fpb_drop_written_rowbounds(root, rel);

	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *ri = (RestrictInfo *) lfirst(lc);
		OpExpr	   *bound;

		if (!IsA(ri->clause, RowCompareExpr))
			continue;
		bound = fpb_rowcompare_bound(root, rel, (RowCompareExpr *) ri->clause);
		if (bound != NULL)
		{
			implied = lappend(implied,
							  make_restrictinfo(root, (Expr *) bound,
												true, false, false,
												ri->security_level,
												NULL, NULL, NULL));
			origs = lappend(origs, ri);
		}
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
		fpb_rowbound_paths(root, rel, rel->pathlist, indexes, implied, origs);
		fpb_rowbound_paths(root, rel, rel->partial_pathlist, indexes,
						   implied, origs);
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
	fpb_drop_written_rowbounds(root, rel);
}

/* Called from fpb_am_init (_PG_init). */
void
fpb_rowcompare_init(void)
{
	fpb_prev_rel_pathlist = set_rel_pathlist_hook;
	set_rel_pathlist_hook = fpb_rel_pathlist;
}
