/*-------------------------------------------------------------------------
 *
 * scan_group.c
 *	  Index-only scans whose row order no plan node uses hand each leaf's
 *	  rows to the executor grouped by visibility-map page (README,
 *	  "Unordered index-only scans").
 *
 * The executor asks the visibility map about the heap block of every row an
 * index-only scan returns, keeping the map page of the last row pinned.
 * One map page covers 32,672 heap blocks (255 MB); a larger heap whose rows
 * lie in another order than the key's makes the scan release one map
 * buffer and look up the next on nearly every row, for btree as for
 * fpbtree: 1.2M buffer lookups of a count over 2.5M rows of a 444 MB
 * table, a third of the count's time.  When the rows go into a plain
 * aggregate whose value does not depend on their order (count, sums of
 * integers, ...), possibly through Gather or Append, any order of a
 * leaf's rows gives the same answer; the scan then hands each leaf's rows
 * over grouped by map page, and the executor changes map page at most
 * once per group and leaf.
 *
 * An ExecutorStart hook finds such scans in the plan state tree; it cannot
 * reach the scan itself, which the executor opens at the node's first row
 * (or, for a parallel scan, when Gather starts), so the node's first call
 * goes through a wrapper that allows grouping once the scan is open and
 * then takes itself out.  Rows of the first leaf keep key order.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relscan.h"
#include "catalog/pg_proc.h"
#include "exec/buffer.h"
#include "executor/executor.h"
#include "fpbtree.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "scan.h"
#include "storage/bufpage.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

PG_FUNCTION_INFO_V1(fpbtree_scan_stats);
PG_FUNCTION_INFO_V1(fpbtree_scan_stats_reset);

/*
 * Heap blocks per visibility-map page: two bits a block in the page's
 * contents.  Private to visibilitymap.c; a wrong value would only group
 * less well.
 */
#define FPB_VM_HEAPBLOCKS	((BLCKSZ - MAXALIGN(SizeOfPageHeaderData)) * 4)

static bool fpb_group_enabled = true;
static int	fpb_debug_group_blocks = 0;

static ExecutorStart_hook_type fpb_group_prev_start = NULL;

/* the executor's index-only scan node, wrapped for its first call */
static ExecProcNodeMtd fpb_group_ios_exec = NULL;

/* per-backend counters (fpbtree_scan_stats) */
static struct
{
	int64		scans;
	int64		batches;
}			fpb_group_counters;

/*
 * Aggregates whose result does not depend on the order of their input
 * rows: counts, integer and numeric sums and averages (exact; a numeric
 * sum's scale is its inputs' largest), integer extremes, bit and boolean
 * combinations.  Not float sums (rounding), nor min/max of types whose
 * equal values can differ (numeric 1.0 and 1.00, text under a
 * nondeterministic collation), nor anything that collects its input.
 */
static bool
fpb_group_agg_ok(Oid fn)
{
	switch (fn)
	{
		case F_COUNT_:
		case F_COUNT_ANY:
		case F_SUM_INT2:
		case F_SUM_INT4:
		case F_SUM_INT8:
		case F_AVG_INT2:
		case F_AVG_INT4:
		case F_AVG_INT8:
		case F_SUM_NUMERIC:
		case F_AVG_NUMERIC:
		case F_MIN_INT2:
		case F_MIN_INT4:
		case F_MIN_INT8:
		case F_MAX_INT2:
		case F_MAX_INT4:
		case F_MAX_INT8:
		case F_BIT_AND_INT2:
		case F_BIT_AND_INT4:
		case F_BIT_AND_INT8:
		case F_BIT_OR_INT2:
		case F_BIT_OR_INT4:
		case F_BIT_OR_INT8:
		case F_BIT_XOR_INT2:
		case F_BIT_XOR_INT4:
		case F_BIT_XOR_INT8:
		case F_BOOL_AND:
		case F_BOOL_OR:
		case F_EVERY:
			return true;
		default:
			return false;
	}
}

/* A function that may fail or speak on some input, or is volatile. */
static bool
fpb_group_func_unsafe(Oid func_id, void *context)
{
	return !get_func_leakproof(func_id) ||
		func_volatile(func_id) == PROVOLATILE_VOLATILE;
}

/*
 * Does a node outside the list below see the row?  One that reads no
 * column of it and calls nothing volatile gives every row the same value
 * or the same error (a bound computed from a subplan's parameter), so the
 * order cannot show.
 */
static bool
fpb_group_row_dependent(Node *node)
{
	return contain_var_clause(node) || contain_volatile_functions(node);
}

/*
 * May expression node be evaluated on the rows in any order with the same
 * results, errors and messages?  Only node kinds that cannot fail or speak
 * themselves, and calls of functions that are leakproof (PostgreSQL's mark
 * for functions that neither fail nor reveal anything but their result)
 * and not volatile.  A cast to int2 fails with "value 32780 is out of
 * range", an array constructor on its arguments' dimensions, naming or
 * showing the first row that fails: which row that is must not depend on
 * the order.  A target entry is its expression; an aggregate call, whose
 * function the caller has checked, its arguments and filter.  A Var or
 * Const costs no catalog lookup, so a count's check costs none.  The
 * walker's convention: true means "not free".
 */
static bool
fpb_group_expr_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	switch (nodeTag(node))
	{
		case T_Var:
		case T_Const:
		case T_Param:
		case T_CaseTestExpr:
			return false;
		case T_List:
		case T_TargetEntry:
		case T_RelabelType:
		case T_BoolExpr:
		case T_NullTest:
		case T_BooleanTest:
		case T_CaseExpr:
		case T_CaseWhen:
		case T_CoalesceExpr:
			break;
		case T_Aggref:
			return fpb_group_expr_walker((Node *) ((Aggref *) node)->args,
										 context) ||
				fpb_group_expr_walker((Node *) ((Aggref *) node)->aggfilter,
									  context);
		case T_FuncExpr:
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
		case T_ScalarArrayOpExpr:
			if (check_functions_in_node(node, fpb_group_func_unsafe, context))
				return fpb_group_row_dependent(node);
			break;
		default:
			return fpb_group_row_dependent(node);
	}
	return expression_tree_walker(node, fpb_group_expr_walker, context);
}

static bool
fpb_group_expr_free(Node *node)
{
	return !fpb_group_expr_walker(node, NULL);
}

/* A node's own expressions, evaluated per row, may run in any row order. */
static bool
fpb_group_exprs_ok(PlanState *ps)
{
	return fpb_group_expr_free((Node *) ps->plan->targetlist) &&
		fpb_group_expr_free((Node *) ps->plan->qual);
}

/*
 * Is the order of the Agg's input rows irrelevant to its output?  Only a
 * plain aggregate (one group of all rows) of order-insensitive functions
 * without ORDER BY in their arguments.  Its target list and HAVING are
 * evaluated on the aggregates' results, once.
 */
static bool
fpb_group_agg_input_free(AggState *as)
{
	Agg		   *agg = (Agg *) as->ss.ps.plan;
	ListCell   *lc;

	if (agg->aggstrategy != AGG_PLAIN || agg->numCols != 0 ||
		agg->groupingSets != NIL)
		return false;
	foreach(lc, as->aggs)
	{
		Aggref	   *aggref = lfirst_node(Aggref, lc);

		if (!fpb_group_agg_ok(aggref->aggfnoid) || aggref->aggorder != NIL ||
			!fpb_group_expr_free((Node *) aggref))
			return false;
		/* DISTINCT keeps the first of equal numerics: 1.0 or 1.00 */
		if (aggref->aggdistinct != NIL &&
			(aggref->aggfnoid == F_SUM_NUMERIC ||
			 aggref->aggfnoid == F_AVG_NUMERIC))
			return false;
	}
	return true;
}

/* The node's first call: allow grouping once the scan is open. */
static TupleTableSlot *
fpb_group_ios_first(PlanState *ps)
{
	IndexOnlyScanState *node = (IndexOnlyScanState *) ps;
	TupleTableSlot *slot = NULL;
	bool		ran = false;

	/* serial scans are opened by this call, parallel ones before it */
	if (node->ioss_ScanDesc == NULL)
	{
		slot = fpb_group_ios_exec(ps);
		ran = true;
	}
	if (node->ioss_ScanDesc != NULL)
	{
		FpbScanOpaque so = (FpbScanOpaque) node->ioss_ScanDesc->opaque;

		so->vmgroup_blocks = fpb_debug_group_blocks > 0 ?
			fpb_debug_group_blocks : FPB_VM_HEAPBLOCKS;

		/*
		 * A heap of one group never needs grouping: spare its batches the
		 * look.  Its size as of the last VACUUM or ANALYZE, which also set
		 * the visibility map that index-only scans need: no system call
		 * per scan.
		 */
		so->vmgroup = node->ioss_ScanDesc->xs_want_itup &&
			node->ioss_ScanDesc->heapRelation->rd_rel->relpages >
			so->vmgroup_blocks;
		if (so->vmgroup)
			fpb_group_counters.scans++;
		so->vmrecheck = ((IndexOnlyScan *) ps->plan)->recheckqual;
		so->vmrecheck_state = so->vmrecheck == NIL ? 1 : 0;
		ps->ExecProcNodeReal = fpb_group_ios_exec;
		/* the executor's own wrappers call ExecProcNodeReal */
		if (ps->ExecProcNode == fpb_group_ios_first)
			ps->ExecProcNode = fpb_group_ios_exec;
	}
	return ran ? slot : fpb_group_ios_exec(ps);
}

static void fpb_group_visit(PlanState *ps, bool free);

static bool
fpb_group_visit_ordered(PlanState *ps, void *context)
{
	fpb_group_visit(ps, false);
	return false;
}

/* SubPlans and InitPlans: their consumers decide what their order means */
static void
fpb_group_visit_subplans(List *plans)
{
	ListCell   *lc;

	foreach(lc, plans)
		fpb_group_visit(((SubPlanState *) lfirst(lc))->planstate, false);
}

/*
 * Visit ps, whose output rows may come in any order if free, and its
 * children.  Nodes through which that carries: Gather (whose order is the
 * workers' interleaving anyway), Append, Result and SubqueryScan whose
 * per-row expressions cannot tell the order (fpb_group_expr_free), and our
 * Buffer; Agg starts it.  Every other node keeps its children's order.
 */
static void
fpb_group_visit(PlanState *ps, bool free)
{
	bool		childfree;

	if (ps == NULL)
		return;
	check_stack_depth();
	switch (nodeTag(ps))
	{
		case T_IndexOnlyScanState:
			{
				IndexOnlyScanState *node = (IndexOnlyScanState *) ps;
				Relation	index = node->ioss_RelationDesc;

				/* the recheck form: fpb_scan_group_recheck_ok, when needed */
				if (free && index != NULL &&
					index->rd_indam->amgettuple == fpbgettuple &&
					fpb_group_exprs_ok(ps) &&
					ps->ExecProcNodeReal != NULL)
				{
					if (fpb_group_ios_exec == NULL)
						fpb_group_ios_exec = ps->ExecProcNodeReal;
					/* another extension's node function: leave it be */
					if (ps->ExecProcNodeReal == fpb_group_ios_exec)
						ps->ExecProcNodeReal = fpb_group_ios_first;
				}
				planstate_tree_walker(ps, fpb_group_visit_ordered, NULL);
				return;
			}
		case T_AggState:
			childfree = fpb_group_agg_input_free((AggState *) ps);
			break;
		case T_GatherState:
		case T_ResultState:
		case T_SubqueryScanState:
		case T_AppendState:
			childfree = free && fpb_group_exprs_ok(ps);
			break;
		case T_CustomScanState:
			/* a Buffer (src/exec) hands its child's rows on in their order */
			if (fpb_is_buffer_plan(ps->plan))
			{
				CustomScanState *cs = (CustomScanState *) ps;

				fpb_group_visit_subplans(ps->initPlan);
				fpb_group_visit_subplans(ps->subPlan);
				if (cs->custom_ps != NIL)
					fpb_group_visit(linitial(cs->custom_ps), free);
				return;
			}
			planstate_tree_walker(ps, fpb_group_visit_ordered, NULL);
			return;
		default:
			planstate_tree_walker(ps, fpb_group_visit_ordered, NULL);
			return;
	}
	fpb_group_visit_subplans(ps->initPlan);
	fpb_group_visit_subplans(ps->subPlan);
	if (IsA(ps, AppendState))
	{
		AppendState *as = (AppendState *) ps;

		for (int i = 0; i < as->as_nplans; i++)
			fpb_group_visit(as->appendplans[i], childfree);
	}
	else if (IsA(ps, SubqueryScanState))
		fpb_group_visit(((SubqueryScanState *) ps)->subplan, childfree);
	else
	{
		fpb_group_visit(outerPlanState(ps), childfree);
		fpb_group_visit(innerPlanState(ps), childfree);
	}
}

static void
fpb_group_executor_start(QueryDesc *queryDesc, int eflags)
{
	if (fpb_group_prev_start)
		fpb_group_prev_start(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
	if (fpb_group_enabled && !(eflags & EXEC_FLAG_EXPLAIN_ONLY))
		fpb_group_visit(queryDesc->planstate, false);
}

/* The group of a batch entry's heap block. */
static inline uint32
fpb_group_of(const FpbScanItem *item, uint32 blocks)
{
	return (uint32) (((item->t >> 16) & 0xFFFFFFFF) / blocks);
}

/*
 * The executor evaluates the index conditions' recheck form per row where
 * fpbtree asks it to (a timestamp column against a timestamptz, loose wide
 * keys): may that form run in any row order?  Asked once per scan, at the
 * first row of a batch that needs the recheck (fpbgettuple: no buffer lock
 * is held there, and the catalog lookups are paid only by such scans);
 * until then such batches keep key order.
 */
void
fpb_scan_group_recheck_ok(FpbScanOpaque so)
{
	so->vmrecheck_state = fpb_group_expr_free((Node *) so->vmrecheck) ? 1 : -1;
}

/*
 * Before the batch is replaced: the group of the row the scan returned
 * last, the one whose map page the executor holds (the batch's last row
 * going forward, its first going backward).  Called by fpb_scan_readpage.
 */
void
fpb_scan_group_note_last(FpbScanOpaque so)
{
	so->vmlastfwd = so->cur >= so->nitems;
	so->vmlast = fpb_group_of(&so->items[so->vmlastfwd ? so->nitems - 1 : 0],
							  (uint32) so->vmgroup_blocks);
	so->vmhaslast = true;
}

/* The batch's two arrays trade places, with their sizes. */
static inline void
fpb_group_swap(FpbScanOpaque so)
{
	FpbScanItem *tmp = so->items;
	int			m = so->maxitems;

	so->items = so->items2;
	so->items2 = tmp;
	so->maxitems = so->maxitems2;
	so->maxitems2 = m;
}

/* Move the batch's first k entries behind the others, through items2. */
static void
fpb_group_rotate(FpbScanOpaque so, int k)
{
	int			n = so->nitems;

	memcpy(so->items2, so->items + k, sizeof(FpbScanItem) * (n - k));
	memcpy(so->items2 + (n - k), so->items, sizeof(FpbScanItem) * k);
	fpb_group_swap(so);
}

/*
 * A look at FPB_GROUP_SAMPLES + 1 rows spread evenly over the batch
 * estimates how often the executor would switch map page between rows: if
 * the group changes at most FPB_GROUP_SAMPLE_CHANGES times between them
 * (about 15% of the rows or fewer), the batch is left as it is.  By hand a
 * batch's sort cost about a fifth of what a switch saves per row (NOTES),
 * so rarer switches do not repay it: a heap in key order, or one filled in
 * stripes, whose rows lie in long runs of one group.  Rows in random order
 * against the key change group between two rows with a probability of
 * 2pq for two groups holding p and q of the heap (half of the pairs for an
 * even split, 0.385 for the 74% and 26% of a 346 MB heap).
 */
#define FPB_GROUP_SAMPLES			32
#define FPB_GROUP_SAMPLE_CHANGES	4

/*
 * Order the batch by group, keeping key order within each (a stable LSD
 * radix sort of the groups' offsets from the lowest, a byte a pass: one
 * pass below 256 groups, 64 GB of heap), then rotate it so that the group
 * the executor holds comes first (last, going backward): sorted from the
 * lowest group, a batch would switch away from it and back.  Batches that
 * the samples find in runs are left alone.  Called by fpb_scan_readpage.
 */
void
fpb_scan_group_vm(FpbScanOpaque so)
{
	uint32		blocks = (uint32) so->vmgroup_blocks;
	uint32		lo = PG_UINT32_MAX;
	uint32		hi = 0;
	int			n = so->nitems;
	uint32		prev = fpb_group_of(&so->items[0], blocks);
	int			changes = 0;
	int			first;
	int			end;

	for (int s = 1; s <= FPB_GROUP_SAMPLES; s++)
	{
		uint32		g = fpb_group_of(&so->items[(int64) s * (n - 1) /
												FPB_GROUP_SAMPLES], blocks);

		changes += (g != prev);
		prev = g;
	}
	if (changes <= FPB_GROUP_SAMPLE_CHANGES)
		return;
	for (int i = 0; i < n; i++)
	{
		uint32		g = fpb_group_of(&so->items[i], blocks);

		lo = Min(lo, g);
		hi = Max(hi, g);
	}
	if (so->maxitems2 < so->maxitems)
	{
		if (so->items2)
			pfree(so->items2);
		so->items2 = MemoryContextAlloc(so->scancxt,
										sizeof(FpbScanItem) * so->maxitems);
		so->maxitems2 = so->maxitems;
	}
	for (int shift = 0; shift < 32 && ((hi - lo) >> shift) != 0; shift += 8)
	{
		int			start[257];

		memset(start, 0, sizeof(start));
		for (int i = 0; i < n; i++)
			start[(((fpb_group_of(&so->items[i], blocks) - lo) >> shift) & 0xFF) + 1]++;
		for (int d = 1; d < 257; d++)
			start[d] += start[d - 1];
		for (int i = 0; i < n; i++)
		{
			int			d = ((fpb_group_of(&so->items[i], blocks) - lo) >> shift) & 0xFF;

			so->items2[start[d]++] = so->items[i];
		}
		fpb_group_swap(so);
	}
	fpb_group_counters.batches++;

	/* where the held group lies in the sorted batch, if it is there */
	if (!so->vmhaslast || so->vmlast < lo || so->vmlast > hi)
		return;
	for (first = 0; first < n; first++)
	{
		if (fpb_group_of(&so->items[first], blocks) >= so->vmlast)
			break;
	}
	for (end = first; end < n; end++)
	{
		if (fpb_group_of(&so->items[end], blocks) != so->vmlast)
			break;
	}
	if (end == first)
		return;
	if (so->vmlastfwd && first > 0)
		fpb_group_rotate(so, first);
	else if (!so->vmlastfwd && end < n)
		fpb_group_rotate(so, end);
}

/* Called from fpb_am_init (_PG_init). */
void
fpb_scan_group_init(void)
{
	DefineCustomBoolVariable("fpbtree.unordered_scan_grouping",
							 "Let fpbtree index-only scans whose row order no plan node uses return each leaf's rows grouped by visibility-map page.",
							 "Read when the executor starts a query.",
							 &fpb_group_enabled, true,
							 PGC_USERSET, GUC_EXPLAIN, NULL, NULL, NULL);
	DefineCustomIntVariable("fpbtree.debug_group_blocks",
							"Developer setting: heap blocks per group of unordered index-only scans (0 = a visibility-map page's).",
							"For tests on small tables; never for production use.",
							&fpb_debug_group_blocks, 0, 0, INT_MAX,
							PGC_SUSET, GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);
	fpb_group_prev_start = ExecutorStart_hook;
	ExecutorStart_hook = fpb_group_executor_start;
}

Datum
fpbtree_scan_stats(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Int64GetDatum(fpb_group_counters.scans);
	values[1] = Int64GetDatum(fpb_group_counters.batches);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

Datum
fpbtree_scan_stats_reset(PG_FUNCTION_ARGS)
{
	memset(&fpb_group_counters, 0, sizeof(fpb_group_counters));
	PG_RETURN_VOID();
}
