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
 * See src/exec/README.md.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/parsenodes.h"
#include "nodes/pathnodes.h"
#include "nodes/plannodes.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"

#include "buffer.h"
#include "exec.h"
#include "hashjoin.h"

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

/*
 * Largest plan_node_id in a plan tree (new Buffers get ids above it); the
 * largest estimated row count goes to *maxrows.
 */
static int
max_plan_node_id(Plan *plan, double *maxrows)
{
	int			result;
	ListCell   *lc;
	List	   *children = NIL;

	if (plan == NULL)
		return -1;
	result = plan->plan_node_id;
	*maxrows = Max(*maxrows, plan->plan_rows);
	result = Max(result, max_plan_node_id(plan->lefttree, maxrows));
	result = Max(result, max_plan_node_id(plan->righttree, maxrows));
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
			result = Max(result,
						 max_plan_node_id(((SubqueryScan *) plan)->subplan,
										  maxrows));
			break;
		case T_CustomScan:
			children = ((CustomScan *) plan)->custom_plans;
			break;
		default:
			break;
	}
	foreach(lc, children)
		result = Max(result, max_plan_node_id((Plan *) lfirst(lc), maxrows));
	return result;
}

/*
 * What the pass needs to know about each kind of node: the measured module
 * of its code, and how it behaves.
 *
 * PIPELINED: it hands out its output tuple by tuple while pulling its input
 * (so a Buffer above it changes the interleaving), as opposed to consuming
 * its input in a loop of its own first.  SCAN: it projects only when its
 * targetlist computes something (ExecConditionalAssignProjectionInfo).
 * NOPROJECT: it never projects.  Other nodes always run a projection.
 */
#define KIND_PIPELINED	0x01
#define KIND_SCAN		0x02
#define KIND_NOPROJECT	0x04

typedef struct NodeKind
{
	NodeTag		tag;
	FpbModule	module;
	int			flags;
} NodeKind;

static const NodeKind node_kinds[] = {
	{T_SeqScan, FPB_MOD_SEQSCAN, KIND_PIPELINED | KIND_SCAN},
	{T_SampleScan, FPB_MOD_SEQSCAN, KIND_PIPELINED | KIND_SCAN},
	{T_IndexScan, FPB_MOD_INDEXSCAN, KIND_PIPELINED | KIND_SCAN},
	{T_IndexOnlyScan, FPB_MOD_INDEXONLYSCAN, KIND_PIPELINED | KIND_SCAN},
	{T_BitmapHeapScan, FPB_MOD_BITMAPHEAPSCAN, KIND_PIPELINED | KIND_SCAN},
	{T_TidScan, FPB_MOD_OTHERSCAN, KIND_PIPELINED | KIND_SCAN},
	{T_TidRangeScan, FPB_MOD_OTHERSCAN, KIND_PIPELINED | KIND_SCAN},
	{T_FunctionScan, FPB_MOD_OTHERSCAN, KIND_PIPELINED | KIND_SCAN},
	{T_ValuesScan, FPB_MOD_OTHERSCAN, KIND_PIPELINED | KIND_SCAN},
	{T_CteScan, FPB_MOD_OTHERSCAN, KIND_PIPELINED | KIND_SCAN},
	{T_NamedTuplestoreScan, FPB_MOD_OTHERSCAN, KIND_PIPELINED | KIND_SCAN},
	{T_WorkTableScan, FPB_MOD_OTHERSCAN, KIND_PIPELINED | KIND_SCAN},
	{T_TableFuncScan, FPB_MOD_OTHERSCAN, KIND_PIPELINED | KIND_SCAN},
	{T_SubqueryScan, FPB_MOD_SUBQUERYSCAN, KIND_PIPELINED | KIND_SCAN},
	{T_Result, FPB_MOD_RESULT, KIND_PIPELINED},
	{T_ProjectSet, FPB_MOD_RESULT, KIND_PIPELINED},
	{T_Append, FPB_MOD_APPEND, KIND_PIPELINED | KIND_NOPROJECT},
	{T_MergeAppend, FPB_MOD_OTHER, KIND_PIPELINED},
	{T_NestLoop, FPB_MOD_NESTLOOP, KIND_PIPELINED},
	{T_MergeJoin, FPB_MOD_MERGEJOIN, KIND_PIPELINED},
	{T_HashJoin, FPB_MOD_HASHJOIN, KIND_PIPELINED},
	{T_Group, FPB_MOD_OTHER, KIND_PIPELINED},
	{T_Unique, FPB_MOD_UNIQUE, KIND_PIPELINED | KIND_NOPROJECT},
	{T_Hash, FPB_MOD_HASH, KIND_NOPROJECT},
	{T_Sort, FPB_MOD_SORT, KIND_NOPROJECT},
	{T_IncrementalSort, FPB_MOD_SORT, KIND_NOPROJECT},
	{T_Material, FPB_MOD_MATERIAL, KIND_NOPROJECT},
	{T_Limit, FPB_MOD_LIMIT, KIND_NOPROJECT},
	{T_WindowAgg, FPB_MOD_WINDOWAGG, 0},
};

/* the node's kind; unlisted nodes are big, blocking and projecting */
static NodeKind
node_kind(Plan *plan)
{
	NodeKind	kind = {nodeTag(plan), FPB_MOD_OTHER, 0};
	int			i;

	switch (nodeTag(plan))
	{
		case T_Agg:
			/* sorted aggregation emits each group as its input moves on */
			kind.module = ((Agg *) plan)->aggstrategy == AGG_HASHED ||
				((Agg *) plan)->aggstrategy == AGG_MIXED ?
				FPB_MOD_HASHAGG : FPB_MOD_AGG;
			if (((Agg *) plan)->aggstrategy == AGG_SORTED)
				kind.flags = KIND_PIPELINED;
			return kind;
		case T_SetOp:
			if (((SetOp *) plan)->strategy == SETOP_SORTED)
				kind.flags = KIND_PIPELINED;
			return kind;
		default:
			break;
	}
	for (i = 0; i < lengthof(node_kinds); i++)
		if (node_kinds[i].tag == nodeTag(plan))
			return node_kinds[i];
	return kind;
}

static bool
is_pipelined(Plan *plan)
{
	return (node_kind(plan).flags & KIND_PIPELINED) != 0;
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
	NodeKind	kind = node_kind(plan);
	FpbModule	mod = kind.module;
	bool		projects;

	if (kind.flags & KIND_NOPROJECT)
		projects = false;
	else if (kind.flags & KIND_SCAN)
		projects = tlist_projects(plan);
	else
		projects = true;

	/* expressions evaluated outside the qual and the targetlist */
	switch (nodeTag(plan))
	{
		case T_IndexScan:
			fpb_footprint_add_exprs(fp, (Node *) ((IndexScan *) plan)->indexqualorig);
			break;
		case T_NestLoop:
		case T_MergeJoin:
		case T_HashJoin:
			fpb_footprint_add_exprs(fp, (Node *) ((Join *) plan)->joinqual);
			if (IsA(plan, MergeJoin))
				fpb_footprint_add_exprs(fp, (Node *) ((MergeJoin *) plan)->mergeclauses);
			if (IsA(plan, HashJoin))
				fpb_footprint_add_exprs(fp, (Node *) ((HashJoin *) plan)->hashclauses);
			break;
		case T_Hash:
			fpb_footprint_add_exprs(fp, (Node *) ((Hash *) plan)->hashkeys);
			break;
		default:
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

/* the child at *ptr, with what its parent requires from it */
static void
set_child(ChildRef *c, Plan **ptr, bool restricted, bool early,
		  bool may_buffer)
{
	c->ptr = ptr;
	c->restricted = restricted;
	c->early = early;
	c->may_buffer = may_buffer;
	c->fp.atoms = NIL;
	c->eligible = false;
}

/* the children in a list (Append, CustomScan), all with the same needs */
static int
collect_list(List *plans, ChildRef *refs, int max, bool restricted,
			 bool early, bool may_buffer)
{
	ListCell   *lc;
	int			n = 0;

	foreach(lc, plans)
	{
		if (n >= max)
			break;
		set_child(&refs[n++], (Plan **) &lfirst(lc), restricted, early,
				  may_buffer);
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
				set_child(&refs[nrefs++], &plan->lefttree, restricted,
						  early || IsA(plan, Limit), true);
			break;
		case T_SubqueryScan:
			set_child(&refs[nrefs++], &((SubqueryScan *) plan)->subplan,
					  restricted, early, true);
			break;
		case T_Append:
		case T_MergeAppend:
			{
				List	   *l = IsA(plan, Append) ?
				((Append *) plan)->appendplans : ((MergeAppend *) plan)->mergeplans;

				max = Min(list_length(l), MAX_REFINE_CHILDREN);
				refs = palloc0(sizeof(ChildRef) * Max(max, 1));
				nrefs = collect_list(l, refs, max, restricted, early, true);
				break;
			}
		case T_NestLoop:
			{
				Join	   *join = (Join *) plan;
				bool		inner_stops = join->jointype == JOIN_SEMI ||
				join->jointype == JOIN_ANTI || join->inner_unique;

				set_child(&refs[nrefs++], &plan->lefttree, false, early, true);
				set_child(&refs[nrefs++], &plan->righttree, false,
						  early || inner_stops, true);
				break;
			}
		case T_MergeJoin:

			/*
			 * The outer side may stop early too (when the inner side runs
			 * out), but the Buffer's ramped fill bounds what it reads ahead
			 * there (buffer.c); the inner side is marked and restored.
			 */
			set_child(&refs[nrefs++], &plan->lefttree, false, early, true);
			set_child(&refs[nrefs++], &plan->righttree, true, early, false);
			break;
		case T_HashJoin:
			set_child(&refs[nrefs++], &plan->lefttree, false, early, true);
			/* the inner side is a Hash node, driven by MultiExecProcNode */
			set_child(&refs[nrefs++], &plan->righttree, false, false, false);
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

				set_child(&refs[nrefs++], &plan->lefttree, false,
						  consumes_all ? false : early, true);
				break;
			}
		case T_Gather:
		case T_GatherMerge:
		case T_Memoize:
			/* refine below, but leave their direct child alone */
			set_child(&refs[nrefs++], &plan->lefttree, false, early, false);
			break;
		case T_CustomScan:
			if (fpb_is_buffer_plan(plan))
				return false;
			/*
			 * Someone else's node, or PrefetchHashJoin (whose children are its
			 * lefttree and righttree): unknown needs, no Buffer directly below.
			 */
			max = Min(list_length(((CustomScan *) plan)->custom_plans),
					  MAX_REFINE_CHILDREN - 2);
			refs = palloc0(sizeof(ChildRef) * (max + 2));
			if (plan->lefttree)
				set_child(&refs[nrefs++], &plan->lefttree, restricted, early,
						  false);
			if (plan->righttree)
				set_child(&refs[nrefs++], &plan->righttree, restricted, early,
						  false);
			nrefs += collect_list(((CustomScan *) plan)->custom_plans,
								  refs + nrefs, max, restricted, early, false);
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
	double		maxrows = 0;
	bool		cursor;

	/*
	 * Plain queries are planned with CURSOR_OPT_PARALLEL_OK; cursors (SQL
	 * and SPI) are not.  A cursor may be fetched backward unless declared
	 * NO SCROLL (without SCROLL it is still scrollable when the plan allows,
	 * which is decided after planning), and may be read partially.
	 */
	cursor = (cursorOptions & CURSOR_OPT_PARALLEL_OK) == 0;

	maxid = max_plan_node_id(stmt->planTree, &maxrows);
	foreach(lc, stmt->subplans)
		maxid = Max(maxid, max_plan_node_id((Plan *) lfirst(lc), &maxrows));

	/*
	 * Only a child estimated above fpbtree.buffer_min_rows gets a Buffer:
	 * without one (point queries) the footprints need not be worked out.
	 */
	if (maxrows <= (double) fpb_buffer_min_rows)
		return;

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

/*
 * Does the statement being planned call a volatile function (in any
 * subquery, CTE or sublink)?  Set by fpb_planner before planning, as the
 * planner later turns sublinks into subplans the walk cannot enter; -1
 * outside it: the library was loaded while the statement was being planned
 * (not preloaded), or a later planner_hook does not call ours.
 */
static int	fpb_stmt_volatile = -1;

/*
 * Reading ahead (a Buffer, PrefetchHashJoin's groups) evaluates some
 * expressions earlier than the plan without it would, relative to others.
 * Without volatile functions nothing can tell; with them (nextval beside
 * currval, a function that writes what another reads) the answer could
 * change, so such statements get neither (nor statements planned without
 * fpb_planner, which could not look).
 */
bool
fpb_statement_volatile(void)
{
	/* a statement the hook did not see is taken as volatile */
	return fpb_stmt_volatile != 0;
}

/*
 * contain_volatile_functions of the whole statement.  A SELECT from one
 * table with no sublink, CTE, set operation or window (most point queries)
 * has its expressions in a few fields: walking those alone costs a small
 * part of walking the Query (measured 2.3k instructions a query).
 */
static bool
fpb_query_volatile(Query *q)
{
	RangeTblEntry *rte;

	if (q->commandType != CMD_SELECT || list_length(q->rtable) != 1 ||
		q->hasSubLinks || q->cteList != NIL || q->setOperations != NULL ||
		q->windowClause != NIL)
		return contain_volatile_functions((Node *) q);
	rte = linitial_node(RangeTblEntry, q->rtable);
	if (rte->rtekind != RTE_RELATION)
		return contain_volatile_functions((Node *) q);
#define FPB_VOLATILE(node) \
	((node) != NULL && contain_volatile_functions((Node *) (node)))
	return FPB_VOLATILE(q->targetList) || FPB_VOLATILE(q->jointree->quals) ||
		FPB_VOLATILE(q->havingQual) || FPB_VOLATILE(q->limitOffset) ||
		FPB_VOLATILE(q->limitCount) || FPB_VOLATILE(rte->securityQuals) ||
		FPB_VOLATILE(rte->tablesample);
#undef FPB_VOLATILE
}

static PlannedStmt *
fpb_planner(Query *parse, const char *query_string, int cursorOptions,
			ParamListInfo boundParams)
{
	PlannedStmt *stmt;
	int			outer = fpb_stmt_volatile;	/* planning may nest */
	bool		isvolatile;

	/* with both nodes switched off nobody asks: skip the walk */
	if ((fpb_enable_buffer && fpb_enable_buffer_session) ||
		(fpb_enable_prefetch_hashjoin && fpb_enable_prefetch_hashjoin_session))
		isvolatile = fpb_query_volatile(parse);
	else
		isvolatile = true;

	fpb_stmt_volatile = isvolatile ? 1 : 0;
	PG_TRY();
	{
		if (prev_planner_hook)
			stmt = prev_planner_hook(parse, query_string, cursorOptions,
									 boundParams);
		else
			stmt = standard_planner(parse, query_string, cursorOptions,
									boundParams);
	}
	PG_FINALLY();
	{
		fpb_stmt_volatile = outer;
	}
	PG_END_TRY();

	/*
	 * Only read-only queries: with row locks or data-modifying statements,
	 * reading ahead would change when rows are locked or seen.
	 */
	if (fpb_enable_buffer && fpb_enable_buffer_session &&
		stmt->commandType == CMD_SELECT &&
		stmt->utilityStmt == NULL &&
		!stmt->hasModifyingCTE &&
		stmt->rowMarks == NIL && !isvolatile)
		refine_plannedstmt(stmt, cursorOptions);

	return stmt;
}
