/*-------------------------------------------------------------------------
 *
 * refine.c
 *	  Plan refinement (Zhou & Ross §6.2): a planner_hook pass over the
 *	  finished plan and every subplan that groups operators into execution
 *	  groups whose instruction footprint fits the L1 instruction cache and
 *	  puts a Buffer operator above each group.
 *
 * Bottom-up, each node's "group footprint" is its own code plus the code of
 * the children that run interleaved with it.  A child may end its group
 * (get a Buffer above it) only if it is eligible: it produces its output
 * tuple by tuple (not blocking), its estimated output rows exceed
 * fpbtree.buffer_min_rows, the parent does not need backward scan or
 * mark/restore from it, and the consumer above is not expected to stop
 * early (LIMIT, cursors, semi/anti joins, subplans), where reading ahead
 * would only add work.  An eligible child's group joins its parent's while
 * the combined footprint, with the Buffer's own code, fits
 * fpbtree.l1i_cache_size; otherwise the child gets a Buffer.  Ineligible
 * children always join: their code runs interleaved with the parent.
 * Blocking operators (Sort, Hash, hashed or plain Agg, Material, WindowAgg)
 * consume their input in a loop of their own: their input side is grouped
 * with their children, but nothing is buffered above them.  No Buffer goes
 * above the top of a plan or subplan.
 *
 * See src/exec/BUFFER.md.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"
#include "optimizer/planner.h"

#include "buffer.h"

typedef struct RefineContext
{
	int			next_plan_node_id;
	int			buffers_added;
	FpbFootprint buffer_fp;		/* the Buffer operator's own code */
} RefineContext;

static planner_hook_type prev_planner_hook = NULL;

static PlannedStmt *fpb_planner(Query *parse, const char *query_string,
								int cursorOptions, ParamListInfo boundParams);
static bool refine_node(RefineContext *ctx, Plan *plan, bool restricted,
						bool early, FpbFootprint *out);

void
fpb_refine_init(void)
{
	prev_planner_hook = planner_hook;
	planner_hook = fpb_planner;
}

/* largest plan_node_id in a plan tree (new Buffers get ids above it) */
static int
max_plan_node_id(Plan *plan)
{
	int			result;
	ListCell   *lc;
	List	   *children = NIL;

	if (plan == NULL)
		return -1;
	result = plan->plan_node_id;
	result = Max(result, max_plan_node_id(plan->lefttree));
	result = Max(result, max_plan_node_id(plan->righttree));
	switch (nodeTag(plan))
	{
		case T_Append:
			children = ((Append *) plan)->appendplans;
			break;
		case T_MergeAppend:
			children = ((MergeAppend *) plan)->mergeplans;
			break;
		case T_BitmapAnd:
			children = ((BitmapAnd *) plan)->bitmapplans;
			break;
		case T_BitmapOr:
			children = ((BitmapOr *) plan)->bitmapplans;
			break;
		case T_SubqueryScan:
			result = Max(result, max_plan_node_id(((SubqueryScan *) plan)->subplan));
			break;
		case T_CustomScan:
			children = ((CustomScan *) plan)->custom_plans;
			break;
		default:
			break;
	}
	foreach(lc, children)
		result = Max(result, max_plan_node_id((Plan *) lfirst(lc)));
	return result;
}

/*
 * Does the node hand out its output tuple by tuple while pulling its input
 * (so a Buffer above it changes the interleaving), as opposed to consuming
 * its input in a loop of its own first?
 */
static bool
is_pipelined(Plan *plan)
{
	switch (nodeTag(plan))
	{
		case T_SeqScan:
		case T_SampleScan:
		case T_IndexScan:
		case T_IndexOnlyScan:
		case T_BitmapHeapScan:
		case T_TidScan:
		case T_TidRangeScan:
		case T_FunctionScan:
		case T_ValuesScan:
		case T_CteScan:
		case T_NamedTuplestoreScan:
		case T_WorkTableScan:
		case T_TableFuncScan:
		case T_SubqueryScan:
		case T_Result:
		case T_ProjectSet:
		case T_Append:
		case T_MergeAppend:
		case T_NestLoop:
		case T_MergeJoin:
		case T_HashJoin:
		case T_Group:
		case T_Unique:
			return true;
		case T_Agg:
			return ((Agg *) plan)->aggstrategy == AGG_SORTED;
		case T_SetOp:
			return ((SetOp *) plan)->strategy == SETOP_SORTED;
		default:
			return false;
	}
}

/* does the node's targetlist compute anything beyond passing columns on? */
static bool
tlist_projects(Plan *plan)
{
	ListCell   *lc;
	AttrNumber	attno = 1;

	foreach(lc, plan->targetlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		Var		   *var = (Var *) tle->expr;

		if (!IsA(var, Var) || var->varattno != attno)
			return true;
		attno++;
	}
	return false;
}

/* the node's own per-tuple code: its module plus the functions it calls */
static void
node_footprint(Plan *plan, FpbFootprint *fp)
{
	FpbModule	mod;
	bool		projects = true;

	switch (nodeTag(plan))
	{
		case T_SeqScan:
		case T_SampleScan:
			mod = FPB_MOD_SEQSCAN;
			projects = tlist_projects(plan);
			break;
		case T_IndexScan:
			mod = FPB_MOD_INDEXSCAN;
			projects = tlist_projects(plan);
			fpb_footprint_add_exprs(fp, (Node *) ((IndexScan *) plan)->indexqualorig);
			break;
		case T_IndexOnlyScan:
			mod = FPB_MOD_INDEXONLYSCAN;
			projects = tlist_projects(plan);
			break;
		case T_BitmapHeapScan:
			mod = FPB_MOD_BITMAPHEAPSCAN;
			projects = tlist_projects(plan);
			break;
		case T_TidScan:
		case T_TidRangeScan:
		case T_FunctionScan:
		case T_ValuesScan:
		case T_CteScan:
		case T_NamedTuplestoreScan:
		case T_WorkTableScan:
		case T_TableFuncScan:
			mod = FPB_MOD_OTHERSCAN;
			projects = tlist_projects(plan);
			break;
		case T_SubqueryScan:
			mod = FPB_MOD_SUBQUERYSCAN;
			projects = tlist_projects(plan);
			break;
		case T_Result:
		case T_ProjectSet:
			mod = FPB_MOD_RESULT;
			break;
		case T_Append:
			mod = FPB_MOD_APPEND;
			projects = false;
			break;
		case T_NestLoop:
			mod = FPB_MOD_NESTLOOP;
			fpb_footprint_add_exprs(fp, (Node *) ((Join *) plan)->joinqual);
			break;
		case T_MergeJoin:
			mod = FPB_MOD_MERGEJOIN;
			fpb_footprint_add_exprs(fp, (Node *) ((Join *) plan)->joinqual);
			fpb_footprint_add_exprs(fp, (Node *) ((MergeJoin *) plan)->mergeclauses);
			break;
		case T_HashJoin:
			mod = FPB_MOD_HASHJOIN;
			fpb_footprint_add_exprs(fp, (Node *) ((Join *) plan)->joinqual);
			fpb_footprint_add_exprs(fp, (Node *) ((HashJoin *) plan)->hashclauses);
			break;
		case T_Hash:
			mod = FPB_MOD_HASH;
			projects = false;
			fpb_footprint_add_exprs(fp, (Node *) ((Hash *) plan)->hashkeys);
			break;
		case T_Agg:
			mod = (((Agg *) plan)->aggstrategy == AGG_PLAIN ||
				   ((Agg *) plan)->aggstrategy == AGG_SORTED) ?
				FPB_MOD_AGG : FPB_MOD_HASHAGG;
			break;
		case T_Sort:
		case T_IncrementalSort:
			mod = FPB_MOD_SORT;
			projects = false;
			break;
		case T_Material:
			mod = FPB_MOD_MATERIAL;
			projects = false;
			break;
		case T_Unique:
			mod = FPB_MOD_UNIQUE;
			projects = false;
			break;
		case T_Limit:
			mod = FPB_MOD_LIMIT;
			projects = false;
			break;
		case T_WindowAgg:
			mod = FPB_MOD_WINDOWAGG;
			break;
		default:
			mod = FPB_MOD_OTHER;
			break;
	}
	fpb_footprint_add_module(fp, mod);
	if (plan->qual != NIL)
	{
		fpb_footprint_add_module(fp, FPB_MOD_QUAL);
		fpb_footprint_add_exprs(fp, (Node *) plan->qual);
	}
	if (projects)
	{
		fpb_footprint_add_module(fp, FPB_MOD_PROJECT);
		fpb_footprint_add_exprs(fp, (Node *) plan->targetlist);
	}
}

/* one child position of a node, with what the node requires from it */
typedef struct ChildRef
{
	Plan	  **ptr;			/* where the parent points to the child */
	bool		restricted;		/* must support backward scan / mark */
	bool		early;			/* its consumer may stop before the end */
	bool		may_buffer;		/* the parent accepts a Buffer here */
	FpbFootprint fp;
	bool		eligible;
} ChildRef;

static int
collect_list(List *plans, ChildRef *refs, int n, int max, bool restricted,
			 bool early, bool may_buffer)
{
	ListCell   *lc;

	foreach(lc, plans)
	{
		if (n >= max)
			break;
		refs[n].ptr = (Plan **) &lfirst(lc);
		refs[n].restricted = restricted;
		refs[n].early = early;
		refs[n].may_buffer = may_buffer;
		n++;
	}
	return n;
}

#define MAX_REFINE_CHILDREN 64

/*
 * Refine the subtree at plan.  restricted: the parent needs backward scan or
 * mark/restore from this node; early: the consumer may stop reading before
 * the end.  *out receives the code that runs interleaved with the parent
 * each time it pulls a tuple from this node.  Returns whether a Buffer may
 * go directly above this node.
 */
static bool
refine_node(RefineContext *ctx, Plan *plan, bool restricted, bool early,
			FpbFootprint *out)
{
	ChildRef	local[4];
	ChildRef   *refs = local;
	int			nrefs = 0;
	int			max = lengthof(local);
	FpbFootprint group = {NIL};
	bool		pipelined;
	int			i;

	check_stack_depth();
	out->atoms = NIL;
	if (plan == NULL)
		return false;

	/* children, with what this node requires from each */
	switch (nodeTag(plan))
	{
		case T_Result:
		case T_ProjectSet:
		case T_Limit:
			if (plan->lefttree)
			{
				refs[0].ptr = &plan->lefttree;
				refs[0].restricted = restricted;
				refs[0].early = early || IsA(plan, Limit);
				refs[0].may_buffer = true;
				nrefs = 1;
			}
			break;
		case T_SubqueryScan:
			refs[0].ptr = &((SubqueryScan *) plan)->subplan;
			refs[0].restricted = restricted;
			refs[0].early = early;
			refs[0].may_buffer = true;
			nrefs = 1;
			break;
		case T_Append:
		case T_MergeAppend:
			{
				List	   *l = IsA(plan, Append) ?
				((Append *) plan)->appendplans : ((MergeAppend *) plan)->mergeplans;

				max = Min(list_length(l), MAX_REFINE_CHILDREN);
				refs = palloc0(sizeof(ChildRef) * Max(max, 1));
				nrefs = collect_list(l, refs, 0, max, restricted, early, true);
				break;
			}
		case T_NestLoop:
			{
				Join	   *join = (Join *) plan;
				bool		inner_stops = join->jointype == JOIN_SEMI ||
				join->jointype == JOIN_ANTI || join->inner_unique;

				refs[0].ptr = &plan->lefttree;
				refs[0].restricted = false;
				refs[0].early = early;
				refs[0].may_buffer = true;
				refs[1].ptr = &plan->righttree;
				refs[1].restricted = false;
				refs[1].early = early || inner_stops;
				refs[1].may_buffer = true;
				nrefs = 2;
				break;
			}
		case T_MergeJoin:
			refs[0].ptr = &plan->lefttree;
			refs[0].restricted = false;
			refs[0].early = early;
			refs[0].may_buffer = true;
			/* the inner side is marked and restored */
			refs[1].ptr = &plan->righttree;
			refs[1].restricted = true;
			refs[1].early = early;
			refs[1].may_buffer = false;
			nrefs = 2;
			break;
		case T_HashJoin:
			refs[0].ptr = &plan->lefttree;
			refs[0].restricted = false;
			refs[0].early = early;
			refs[0].may_buffer = true;
			/* the inner side is a Hash node, driven by MultiExecProcNode */
			refs[1].ptr = &plan->righttree;
			refs[1].restricted = false;
			refs[1].early = false;
			refs[1].may_buffer = false;
			nrefs = 2;
			break;
		case T_Hash:
		case T_Sort:
		case T_Agg:
		case T_Material:
		case T_WindowAgg:
		case T_IncrementalSort:
		case T_Unique:
		case T_Group:
		case T_SetOp:
			{
				/* nodes that read all input before their first output */
				bool		consumes_all = IsA(plan, Hash) || IsA(plan, Sort) ||
				(IsA(plan, Agg) && ((Agg *) plan)->aggstrategy != AGG_SORTED) ||
				(IsA(plan, SetOp) && ((SetOp *) plan)->strategy == SETOP_HASHED);

				refs[0].ptr = &plan->lefttree;
				refs[0].restricted = false;
				refs[0].early = consumes_all ? false : early;
				refs[0].may_buffer = true;
				nrefs = 1;
				break;
			}
		case T_Gather:
		case T_GatherMerge:
		case T_Memoize:
			/* refine below, but leave their direct child alone */
			refs[0].ptr = &plan->lefttree;
			refs[0].restricted = false;
			refs[0].early = early;
			refs[0].may_buffer = false;
			nrefs = 1;
			break;
		case T_CustomScan:
			if (fpb_is_buffer_plan(plan))
				return false;
			/* someone else's node: unknown needs, no Buffer directly below */
			max = Min(list_length(((CustomScan *) plan)->custom_plans),
					  MAX_REFINE_CHILDREN);
			refs = palloc0(sizeof(ChildRef) * Max(max, 1));
			nrefs = collect_list(((CustomScan *) plan)->custom_plans, refs, 0,
								 max, restricted, early, false);
			break;
		default:

			/*
			 * Leaf scans, BitmapHeapScan (its bitmap subtree is not a tuple
			 * pipeline), RecursiveUnion, ModifyTable, LockRows and anything
			 * else: no Buffer inside.
			 */
			nrefs = 0;
			break;
	}

	node_footprint(plan, &group);

	/* refine the children first (bottom-up) */
	for (i = 0; i < nrefs; i++)
	{
		ChildRef   *c = &refs[i];

		c->fp.atoms = NIL;
		c->eligible = refine_node(ctx, *c->ptr, c->restricted, c->early,
								  &c->fp) && c->may_buffer;
	}

	/* children that cannot be cut run interleaved with this node */
	for (i = 0; i < nrefs; i++)
		if (!refs[i].eligible)
			fpb_footprint_union(&group, &refs[i].fp);

	/* the others join this node's group while it fits, else are buffered */
	for (i = 0; i < nrefs; i++)
	{
		ChildRef   *c = &refs[i];
		FpbFootprint with_buffer = {NIL};
		int			bytes;

		if (!c->eligible)
			continue;
		fpb_footprint_union(&with_buffer, &group);
		fpb_footprint_union(&with_buffer, &ctx->buffer_fp);
		bytes = fpb_footprint_union_bytes(&with_buffer, &c->fp);
		if (bytes <= fpb_l1i_cache_size)
		{
			fpb_footprint_union(&group, &c->fp);
			elog(DEBUG2, "fpbtree buffer: node %d joins the group of node %d (%d bytes)",
				 (*c->ptr)->plan_node_id, plan->plan_node_id, bytes);
		}
		else
		{
			int			child_bytes;

			fpb_footprint_union(&c->fp, &ctx->buffer_fp);
			child_bytes = fpb_footprint_bytes(&c->fp);
			elog(DEBUG2, "fpbtree buffer: Buffer above node %d (%d bytes with node %d, group %d bytes)",
				 (*c->ptr)->plan_node_id, bytes, plan->plan_node_id,
				 child_bytes);
			*c->ptr = fpb_make_buffer_plan(*c->ptr, fpb_buffer_size,
										   child_bytes,
										   ctx->next_plan_node_id++);
			ctx->buffers_added++;
			fpb_footprint_union(&group, &ctx->buffer_fp);
		}
	}

	if (refs != local)
		pfree(refs);

	pipelined = is_pipelined(plan);
	if (pipelined)
		*out = group;
	return pipelined && !restricted && !early &&
		plan->plan_rows > (double) fpb_buffer_min_rows;
}

static void
refine_plannedstmt(PlannedStmt *stmt, int cursorOptions)
{
	RefineContext ctx;
	ListCell   *lc;
	FpbFootprint out;
	int			maxid;
	bool		cursor;

	/*
	 * Plain queries are planned with CURSOR_OPT_PARALLEL_OK; cursors (SQL
	 * and SPI) are not.  A cursor may be fetched backward unless declared
	 * NO SCROLL (without SCROLL it is still scrollable when the plan allows,
	 * which is decided after planning), and may be read partially.
	 */
	cursor = (cursorOptions & CURSOR_OPT_PARALLEL_OK) == 0;

	maxid = max_plan_node_id(stmt->planTree);
	foreach(lc, stmt->subplans)
		maxid = Max(maxid, max_plan_node_id((Plan *) lfirst(lc)));

	memset(&ctx, 0, sizeof(ctx));
	ctx.next_plan_node_id = maxid + 1;
	fpb_footprint_add_module(&ctx.buffer_fp, FPB_MOD_BUFFER);

	(void) refine_node(&ctx, stmt->planTree,
					   (cursorOptions & CURSOR_OPT_SCROLL) != 0 ||
					   (cursor && (cursorOptions & CURSOR_OPT_NO_SCROLL) == 0),
					   cursor, &out);

	/* subplans (SubPlans, InitPlans, CTEs) are often read only partly */
	foreach(lc, stmt->subplans)
	{
		Plan	   *sub = (Plan *) lfirst(lc);

		if (sub != NULL)
			(void) refine_node(&ctx, sub, false, true, &out);
	}

	if (ctx.buffers_added > 0)
		elog(DEBUG1, "fpbtree buffer: %d Buffer operators added", ctx.buffers_added);
}

static PlannedStmt *
fpb_planner(Query *parse, const char *query_string, int cursorOptions,
			ParamListInfo boundParams)
{
	PlannedStmt *stmt;

	if (prev_planner_hook)
		stmt = prev_planner_hook(parse, query_string, cursorOptions,
								 boundParams);
	else
		stmt = standard_planner(parse, query_string, cursorOptions,
								boundParams);

	/*
	 * Only read-only queries: with row locks or data-modifying statements,
	 * reading ahead would change when rows are locked or seen.
	 */
	if (fpb_enable_buffer &&
		stmt->commandType == CMD_SELECT &&
		stmt->utilityStmt == NULL &&
		!stmt->hasModifyingCTE &&
		stmt->rowMarks == NIL)
		refine_plannedstmt(stmt, cursorOptions);

	return stmt;
}
