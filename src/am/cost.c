/*-------------------------------------------------------------------------
 *
 * cost.c
 *	  amcostestimate: weigh an fpbtree scan the way btree's is weighed, so
 *	  the planner treats the two alike (selectivity and page fetches from
 *	  genericcostestimate, a descent charge per scan, and the heap column's
 *	  correlation for the cost of fetching heap pages in index order).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "catalog/pg_statistic.h"
#include "fpbtree.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/paths.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"

static double
fpb_column_correlation(PlannerInfo *root, IndexOptInfo *index)
{
	RangeTblEntry *rte;
	HeapTuple	stats;
	AttStatsSlot sslot;
	double		corr = 0.0;

	if (index->indexkeys[0] == 0)
		return 0.0;				/* expression index: no heap column stats */
	rte = planner_rt_fetch(index->rel->relid, root);
	if (rte->rtekind != RTE_RELATION)
		return 0.0;
	stats = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(rte->relid),
							Int16GetDatum(index->indexkeys[0]),
							BoolGetDatum(rte->inh));
	if (!HeapTupleIsValid(stats))
		return 0.0;
	if (get_attstatsslot(&sslot, stats, STATISTIC_KIND_CORRELATION,
						 InvalidOid, ATTSTATSSLOT_NUMBERS))
	{
		if (sslot.nnumbers == 1)
			corr = sslot.numbers[0];
		free_attstatsslot(&sslot);
	}
	ReleaseSysCache(stats);
	return corr;
}

/*
 * The index tuples a scan of a multi-column index reads: only the quals
 * that bound its interval (scankeys_multi.c: equalities on the leading
 * columns, then the next column's comparisons; IS NULL and IN on the first
 * column) narrow it; the others are checked on each entry inside.  Sets
 * *nsa to the scans an IN list on the first column makes.
 */
static double
fpb_multicol_tuples(PlannerInfo *root, IndexPath *path, double *nsa)
{
	IndexOptInfo *index = path->indexinfo;
	List	   *bound = NIL;
	int			col = 0;
	bool		eq = false;		/* col has an equality */
	ListCell   *lc;

	*nsa = 1;
	foreach(lc, path->indexclauses)
	{
		IndexClause *ic = lfirst_node(IndexClause, lc);
		ListCell   *lc2;

		if (ic->indexcol != col)
		{
			/* the next column counts only after equalities on this one */
			if (!eq || ic->indexcol != col + 1)
				break;
			col = ic->indexcol;
			eq = false;
		}
		foreach(lc2, ic->indexquals)
		{
			RestrictInfo *ri = lfirst_node(RestrictInfo, lc2);
			Expr	   *clause = ri->clause;

			if (IsA(clause, OpExpr))
			{
				Oid			opno = ((OpExpr *) clause)->opno;

				if (get_op_opfamily_strategy(opno, index->opfamily[col]) ==
					BTEqualStrategyNumber)
					eq = true;
				bound = lappend(bound, ri);
			}
			else if (col == 0 && IsA(clause, ScalarArrayOpExpr))
			{
				ScalarArrayOpExpr *sa = (ScalarArrayOpExpr *) clause;

				*nsa *= Max(estimate_array_length(lsecond(sa->args)), 1);
				/* each element's interval takes the next columns' too */
				eq = true;
				bound = lappend(bound, ri);
			}
			else if (col == 0 && IsA(clause, NullTest))
				bound = lappend(bound, ri);
		}
	}
	return clauselist_selectivity(root, bound, index->rel->relid,
								  JOIN_INNER, NULL) * index->rel->tuples;
}

void
fpbcostestimate(PlannerInfo *root, IndexPath *path, double loop_count,
				Cost *indexStartupCost, Cost *indexTotalCost,
				Selectivity *indexSelectivity, double *indexCorrelation,
				double *indexPages)
{
	IndexOptInfo *index = path->indexinfo;
	GenericCosts costs;
	Cost		descent;

	MemSet(&costs, 0, sizeof(costs));
	if (index->nkeycolumns > 1)
	{
		double		nsa;
		double		ntuples = fpb_multicol_tuples(root, path, &nsa);

		costs.numIndexTuples = Max(rint(ntuples / nsa), 1.0);
	}
	genericcostestimate(root, path, loop_count, &costs);

	/*
	 * Descending costs some comparisons per level and a page visit per
	 * level; charge it like btree does, once per (re)scan.
	 */
	if (index->tuples > 1)
	{
		descent = ceil(log(index->tuples) / log(2.0)) * cpu_operator_cost;
		costs.indexStartupCost += descent;
		costs.indexTotalCost += costs.num_sa_scans * descent;
	}
	{
		/*
		 * The height comes from the metapage, which this also caches in the
		 * relcache for the executor (btree reads its metapage at plan time
		 * too), so a first scan does not pay for it.
		 */
		double		height;

		if (index->hypothetical)
			height = index->pages > 1 ? ceil(log((double) index->pages) / log(400.0)) : 0;
		else
		{
			Relation	irel = index_open(index->indexoid, NoLock);

			height = fpb_cached_meta(irel, false)->rootlevel;
			index_close(irel, NoLock);
		}
		descent = (height + 1) * 50.0 * cpu_operator_cost;
		costs.indexStartupCost += descent;
		costs.indexTotalCost += costs.num_sa_scans * descent;
	}

	costs.indexCorrelation = fpb_column_correlation(root, index);

	*indexStartupCost = costs.indexStartupCost;
	*indexTotalCost = costs.indexTotalCost;
	*indexSelectivity = costs.indexSelectivity;
	*indexCorrelation = costs.indexCorrelation;
	*indexPages = costs.numIndexPages;
}
