/*-------------------------------------------------------------------------
 *
 * hashjoin.c
 *	  PrefetchHashJoin, planning side: the settings, the join path offered
 *	  through set_join_pathlist_hook, its cost model, and the conversion of
 *	  the path into a CustomScan plan.  The executor node is in
 *	  hashjoin_exec.c, the hash table in hashjoin_table.c.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "utils/guc.h"

#include "cpucache.h"
#include "exec.h"
#include "guc_alias.h"
#include "hashjoin.h"

bool		fpb_enable_prefetch_hashjoin = true;
bool		fpb_enable_prefetch_hashjoin_session = true;
int			fpb_hj_group_size = 64;
int			fpb_hj_prefetch_distance = 1;
int			fpb_hj_prefetch = FPB_HJ_PREFETCH_GROUP;
int			fpb_hj_cache_size_kb = -1;
bool		fpb_hj_partition_prefetch = false;
bool		fpb_hj_huge_pages = false;
int			fpb_hj_radix_bits_setting = -1;
bool		fpb_hj_parallel_shared = true;

/* the three kinds of path offered */
typedef enum FpbHjPathKind
{
	FPB_HJ_COMPLETE,			/* serial, or above a Gather */
	FPB_HJ_PARTIAL,				/* below a Gather, private tables */
	FPB_HJ_SHARED				/* below a Gather, one shared table */
} FpbHjPathKind;

/*
 * Detected at load (fpb_hj_detect_cache): the level-2 cache, which the cost
 * model uses when its setting is -1, and the largest data cache, which
 * sizes radix partitions.
 */
static int	fpb_hj_detected_cache_kb = 2 * 1024;
static int	fpb_hj_largest_cache_kb = 32 * 1024;

static const struct config_enum_entry fpb_hj_prefetch_options[] = {
	{"group", FPB_HJ_PREFETCH_GROUP, false},
	{"pipelined", FPB_HJ_PREFETCH_PIPELINED, false},
	{"none", FPB_HJ_PREFETCH_NONE, false},
	{NULL, 0, false}
};

/* The setting's name of a prefetching scheme (for EXPLAIN). */
const char *
fpb_hj_scheme_name(int scheme)
{
	for (const struct config_enum_entry *e = fpb_hj_prefetch_options;
		 e->name != NULL; e++)
	{
		if (e->val == scheme)
			return e->name;
	}
	return "unknown";
}

static set_join_pathlist_hook_type prev_set_join_pathlist_hook = NULL;

static void fpb_hj_join_pathlist(PlannerInfo *root, RelOptInfo *joinrel,
								 RelOptInfo *outerrel, RelOptInfo *innerrel,
								 JoinType jointype, JoinPathExtraData *extra);
static Plan *fpb_hj_plan_path(PlannerInfo *root, RelOptInfo *rel,
							  CustomPath *best_path, List *tlist,
							  List *clauses, List *custom_plans);

static const CustomPathMethods fpb_hj_path_methods = {
	.CustomName = FPB_HJ_NAME,
	.PlanCustomPath = fpb_hj_plan_path,
};

static const CustomScanMethods fpb_hj_scan_methods = {
	.CustomName = FPB_HJ_NAME,
	.CreateCustomScanState = fpb_hj_create_state,
};

/*
 * cpu0's caches from sysfs.  The level-2 cache is what the cost model
 * assumes a table must fit for prefetching not to pay: measured here, a
 * 6 MB table (three times L2, far below L3) is probed twice as fast with
 * prefetching as by the built-in join.  The largest data cache, capped at
 * 32 MB since a VM may report a whole socket's shared L3 of which one
 * backend sees a slice, sizes radix partitions.
 */
static void
fpb_hj_detect_cache(void)
{
	FpbCpuCache caches[FPB_MAX_CPU_CACHES];
	int			n = fpb_cpu_caches(caches);
	int64		largest = 0;
	int64		l2 = 0;
	int			i;

	for (i = 0; i < n; i++)
	{
		if (caches[i].instruction)
			continue;
		largest = Max(largest, caches[i].bytes);
		if (caches[i].level == 2)
			l2 = Max(l2, caches[i].bytes);
	}
	if (largest > 0)
		fpb_hj_largest_cache_kb = (int) Min(largest / 1024, 32 * 1024);
	if (l2 > 0)
		fpb_hj_detected_cache_kb = (int) Min(l2 / 1024, INT_MAX / 2);
	else if (largest > 0)
		fpb_hj_detected_cache_kb = fpb_hj_largest_cache_kb;
}

/* Radix partition size target: the largest data cache (capped). */
Size
fpb_hj_partition_bytes(void)
{
	return (Size) fpb_hj_largest_cache_kb * 1024;
}

/* The cache size the join plans for: the setting, or the detected size. */
Size
fpb_hj_cache_bytes(void)
{
	return (Size) (fpb_hj_cache_size_kb >= 0 ? fpb_hj_cache_size_kb :
				   fpb_hj_detected_cache_kb) * 1024;
}

void
fpb_hashjoin_init(void)
{
	DefineCustomBoolVariable("fpbtree.enable_prefetch_hashjoin",
							 "Enables the planner's use of PrefetchHashJoin.",
							 "The session switch enable_prefetch_hashjoin must be on too.",
							 &fpb_enable_prefetch_hashjoin,
							 true,
							 PGC_USERSET,
							 GUC_EXPLAIN,
							 NULL, NULL, NULL);
	fpb_define_session_alias("enable_prefetch_hashjoin",
							 "fpbtree.enable_prefetch_hashjoin",
							 "Enables the planner's use of PrefetchHashJoin (fpbtree) in this session.",
							 &fpb_enable_prefetch_hashjoin_session);
	DefineCustomIntVariable("fpbtree.hashjoin_group_size",
							"Outer tuples probed per group by PrefetchHashJoin (G).",
							NULL,
							&fpb_hj_group_size,
							64, 1, 256,
							PGC_USERSET,
							GUC_EXPLAIN,
							NULL, NULL, NULL);
	DefineCustomIntVariable("fpbtree.hashjoin_prefetch_distance",
							"Software-pipelining distance (D) of PrefetchHashJoin, in tuples per stage.",
							NULL,
							&fpb_hj_prefetch_distance,
							1, 1, 16,
							PGC_USERSET,
							GUC_EXPLAIN,
							NULL, NULL, NULL);
	DefineCustomEnumVariable("fpbtree.hashjoin_prefetch",
							 "Prefetching scheme of PrefetchHashJoin.",
							 "group, pipelined (software-pipelined) or none.",
							 &fpb_hj_prefetch,
							 FPB_HJ_PREFETCH_GROUP,
							 fpb_hj_prefetch_options,
							 PGC_USERSET,
							 GUC_EXPLAIN,
							 NULL, NULL, NULL);
	DefineCustomBoolVariable("fpbtree.hashjoin_partition_prefetch",
							 "Applies the prefetching scheme to PrefetchHashJoin's partition phase too.",
							 "When a join spills, tuples are copied into per-batch output buffers; on, they are staged and copied in groups (or pipelined) with prefetches, off, copied at once.",
							 &fpb_hj_partition_prefetch,
							 false,
							 PGC_USERSET,
							 GUC_EXPLAIN,
							 NULL, NULL, NULL);
	DefineCustomBoolVariable("fpbtree.hashjoin_huge_pages",
							 "Asks for transparent huge pages for PrefetchHashJoin's large hash tables.",
							 "madvise(MADV_HUGEPAGE) on the bucket array and on arena chunks of 1 MB and more; a hint only.",
							 &fpb_hj_huge_pages,
							 false,
							 PGC_USERSET,
							 GUC_EXPLAIN,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("fpbtree.hashjoin_radix_bits",
							"Radix bits of PrefetchHashJoin's clustered probing; -1 chooses them, 0 turns it off.",
							"A hash table far larger than the cache is clustered into 2^bits partitions of about the cache size and the outer side is probed in chunks, partition by partition.",
							&fpb_hj_radix_bits_setting,
							-1, -1, 12,
							PGC_USERSET,
							GUC_EXPLAIN,
							NULL, NULL, NULL);
	DefineCustomBoolVariable("fpbtree.hashjoin_parallel_shared",
							 "Offers PrefetchHashJoin with one hash table shared by the participants of a Gather.",
							 "The participants load their shares of a partial inner side and build one table in shared memory together.",
							 &fpb_hj_parallel_shared,
							 true,
							 PGC_USERSET,
							 GUC_EXPLAIN,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("fpbtree.hashjoin_cache_size",
							"Cache size the PrefetchHashJoin cost model assumes; -1 reads the level-2 cache size.",
							"Hash tables larger than this are where prefetching pays; 0 treats every table as out of cache.",
							&fpb_hj_cache_size_kb,
							-1, -1, INT_MAX / 2,
							PGC_USERSET,
							GUC_UNIT_KB | GUC_EXPLAIN,
							NULL, NULL, NULL);

	fpb_hj_detect_cache();

	RegisterCustomScanMethods(&fpb_hj_scan_methods);

	prev_set_join_pathlist_hook = set_join_pathlist_hook;
	set_join_pathlist_hook = fpb_hj_join_pathlist;
}

/* Is the clause "outer op inner" or "inner op outer"?  Sets outer_is_left. */
static bool
fpb_hj_clause_sides_match(RestrictInfo *rinfo, RelOptInfo *outerrel,
						  RelOptInfo *innerrel)
{
	if (bms_is_subset(rinfo->left_relids, outerrel->relids) &&
		bms_is_subset(rinfo->right_relids, innerrel->relids))
	{
		rinfo->outer_is_left = true;
		return true;
	}
	if (bms_is_subset(rinfo->left_relids, innerrel->relids) &&
		bms_is_subset(rinfo->right_relids, outerrel->relids))
	{
		rinfo->outer_is_left = false;
		return true;
	}
	return false;
}

/*
 * Cost: start from the built-in hash join's estimate for the same inputs
 * (so batching, hash_mem, bucket skew and enable_hashjoin are respected),
 * then credit the cache misses that prefetching hides and charge the
 * per-tuple overhead of copying probe tuples into groups.  The misses are
 * proportional to the share of the per-batch hash table that does not fit
 * in the cache; with a table that fits, the overhead makes the path lose.
 */
static void
fpb_hj_cost(PlannerInfo *root, RelOptInfo *joinrel, JoinType jointype,
			List *hashclauses, Path *outer_path, Path *inner_path,
			JoinPathExtraData *extra, bool shared, Cost *startup,
			Cost *total, int *nbatch, double *rows)
{
	JoinCostWorkspace ws;
	HashPath	hp;
	double		inner_rows = inner_path->rows;
	double		outer_rows = outer_path->rows;
	double		tuple_bytes;
	double		table_bytes;
	double		cache_bytes;
	double		miss_share = 0.0;
	Cost		build_credit;
	Cost		probe_credit;
	Cost		overhead;

	/*
	 * Shared: the inner path is partial, each participant builds with its
	 * share of the rows, and the budget is hash_mem times the participants
	 * (Parallel Hash's costing).
	 */
	initial_cost_hashjoin(root, &ws, jointype, hashclauses,
						  outer_path, inner_path, extra, shared);

	memset(&hp, 0, sizeof(hp));
	hp.jpath.path.type = T_HashPath;
	hp.jpath.path.pathtype = T_HashJoin;
	hp.jpath.path.parent = joinrel;
	hp.jpath.path.pathtarget = joinrel->reltarget;
	/* a partial outer side: the join's rows are counted per participant */
	hp.jpath.path.parallel_workers = outer_path->parallel_workers;
	hp.jpath.jointype = jointype;
	hp.jpath.inner_unique = extra->inner_unique;
	hp.jpath.outerjoinpath = outer_path;
	hp.jpath.innerjoinpath = inner_path;
	hp.jpath.joinrestrictinfo = extra->restrictlist;
	hp.path_hashclauses = hashclauses;
	final_cost_hashjoin(root, &hp, &ws, extra);

	*nbatch = Max(hp.num_batches, 1);
	*rows = hp.jpath.path.rows;

	/* stored tuple + bucket share + cell, per build tuple */
	tuple_bytes = MAXALIGN(inner_path->pathtarget->width) +
		MAXALIGN(SizeofMinimalTupleHeader) + FPB_HT_OVERHEAD +
		sizeof(FpbBucket) + sizeof(FpbHashCell);
	/* a shared table holds the whole rel, not one participant's share */
	table_bytes = (shared ? inner_path->parent->rows : inner_rows) *
		tuple_bytes / *nbatch;
	cache_bytes = (double) fpb_hj_cache_bytes();
	if (table_bytes > cache_bytes)
		miss_share = 1.0 - cache_bytes / table_bytes;
	else if (cache_bytes == 0)
		miss_share = 1.0;		/* 0: every table counts as out of cache */

	/*
	 * About two dependent misses per probe (header, then cell array or
	 * tuple) and one per insertion; each priced like a few operator calls.
	 */
	probe_credit = miss_share * outer_rows * 3.0 * cpu_operator_cost;
	build_credit = miss_share * inner_rows * 1.5 * cpu_operator_cost;
	overhead = outer_rows * 0.25 * cpu_operator_cost +
		inner_rows * 0.1 * cpu_operator_cost;

	*startup = hp.jpath.path.startup_cost - build_credit +
		inner_rows * 0.1 * cpu_operator_cost;
	*startup = Max(*startup, 0);
	*total = hp.jpath.path.total_cost - build_credit - probe_credit + overhead;
	*total = Max(*total, *startup);
}

/*
 * Offer one join path over the given inputs: a complete one, or with a
 * partial outer side a partial one that every participant of a Gather runs
 * on its share of the outer side against a private copy of the whole inner
 * side (parallel-oblivious, as the built-in hash join without Parallel
 * Hash).  The inner build is then paid by every participant, which the
 * cost of the inner path in the startup cost already says.  Or, shared,
 * with a partial inner side too, one table built by all participants
 * together, each paying for its share (hashjoin_shared.c).
 */
static void
fpb_hj_try_path(PlannerInfo *root, RelOptInfo *joinrel, JoinType jointype,
				JoinPathExtraData *extra, List *hashclauses,
				Path *outer_path, Path *inner_path, FpbHjPathKind kind)
{
	Cost		startup;
	Cost		total;
	int			nbatch;
	double		rows;
	CustomPath *cpath;
	bool		partial = kind != FPB_HJ_COMPLETE;

	fpb_hj_cost(root, joinrel, jointype, hashclauses, outer_path, inner_path,
				extra, kind == FPB_HJ_SHARED, &startup, &total, &nbatch, &rows);

	/*
	 * A shared right or full join always runs in shared batches, each
	 * joined by one participant, which then alone knows which of the
	 * batch's inner tuples matched (hashjoin_batches.c): charge writing and
	 * reading both sides once where the estimate did not.
	 */
	if (kind == FPB_HJ_SHARED && nbatch == 1 &&
		(jointype == JOIN_RIGHT || jointype == JOIN_FULL))
	{
		double		tup = MAXALIGN(SizeofHeapTupleHeader);
		double		innerpages = ceil(inner_path->rows *
									  (MAXALIGN(inner_path->pathtarget->width) + tup) / BLCKSZ);
		double		outerpages = ceil(outer_path->rows *
									  (MAXALIGN(outer_path->pathtarget->width) + tup) / BLCKSZ);

		startup += seq_page_cost * innerpages;
		total += seq_page_cost * (2 * innerpages + 2 * outerpages);
		nbatch = 2;
	}

	if (partial ? !add_partial_path_precheck(joinrel, total, NIL) :
		!add_path_precheck(joinrel, startup, total, NIL, NULL))
		return;

	cpath = makeNode(CustomPath);
	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = joinrel;
	cpath->path.pathtarget = joinrel->reltarget;
	cpath->path.param_info = NULL;

	/*
	 * The partial paths are parallel-aware for the DSM callbacks: the shared
	 * one keeps its table's state there, and through them the workers hand
	 * their EXPLAIN ANALYZE figures to the leader (hashjoin_parallel.c).  It is
	 * parallel-safe (the caller checked the join rel's quals and target and
	 * both children).  The complete one is not: a worker running it alone
	 * (force_parallel_mode) would keep those figures from the leader.
	 */
	cpath->path.parallel_aware = partial;
	cpath->path.parallel_safe = partial;
	cpath->path.parallel_workers = partial ? outer_path->parallel_workers : 0;
	cpath->path.rows = rows;
	cpath->path.startup_cost = startup;
	cpath->path.total_cost = total;
	cpath->path.pathkeys = NIL;
	cpath->flags = CUSTOMPATH_SUPPORT_PROJECTION;
	cpath->custom_paths = list_make2(outer_path, inner_path);
	cpath->custom_private = list_make3(hashclauses, extra->restrictlist,
									   list_make4_int(nbatch,
													  extra->inner_unique ? 1 : 0,
													  (int) jointype,
													  kind == FPB_HJ_SHARED ? 1 : 0));
	cpath->methods = &fpb_hj_path_methods;

	if (partial)
		add_partial_path(joinrel, &cpath->path);
	else
		add_path(joinrel, &cpath->path);
}

/* The cheapest unparameterized parallel-safe complete path of a rel. */
static Path *
fpb_hj_cheapest_safe(RelOptInfo *rel)
{
	ListCell   *lc;

	if (rel->cheapest_total_path != NULL &&
		rel->cheapest_total_path->parallel_safe &&
		rel->cheapest_total_path->param_info == NULL)
		return rel->cheapest_total_path;
	foreach(lc, rel->pathlist)
	{
		Path	   *path = (Path *) lfirst(lc);

		/* pathlist is sorted by total cost */
		if (path->parallel_safe && path->param_info == NULL)
			return path;
	}
	return NULL;
}

static void
fpb_hj_join_pathlist(PlannerInfo *root, RelOptInfo *joinrel,
					 RelOptInfo *outerrel, RelOptInfo *innerrel,
					 JoinType jointype, JoinPathExtraData *extra)
{
	bool		isouterjoin = IS_OUTER_JOIN(jointype);
	List	   *hashclauses = NIL;
	ListCell   *lc;
	Path	   *outer_path;
	Path	   *inner_path;

	if (prev_set_join_pathlist_hook)
		prev_set_join_pathlist_hook(root, joinrel, outerrel, innerrel,
									jointype, extra);

	if (!fpb_enable_prefetch_hashjoin || !fpb_enable_prefetch_hashjoin_session)
		return;
	/* reading the outer side ahead must not be observable */
	if (fpb_statement_volatile())
		return;

	switch (jointype)
	{
		case JOIN_INNER:
		case JOIN_LEFT:
		case JOIN_SEMI:
		case JOIN_ANTI:
		case JOIN_RIGHT:
		case JOIN_FULL:
			break;
		default:
			/* JOIN_UNIQUE_*: the plain semi join path covers these */
			return;
	}

	foreach(lc, extra->restrictlist)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);

		/* an outer join hashes on its own join clauses only */
		if (isouterjoin && RINFO_IS_PUSHED_DOWN(rinfo, joinrel->relids))
			continue;
		if (!rinfo->can_join || rinfo->hashjoinoperator == InvalidOid)
			continue;
		if (!fpb_hj_clause_sides_match(rinfo, outerrel, innerrel))
			continue;
		hashclauses = lappend(hashclauses, rinfo);
	}
	if (hashclauses == NIL)
		return;

	/*
	 * Only the unparameterized cheapest inputs: the node is never the inner
	 * side of a parameterized nested loop, which keeps it simple.
	 */
	outer_path = outerrel->cheapest_total_path;
	inner_path = innerrel->cheapest_total_path;
	if (outer_path != NULL && inner_path != NULL &&
		outer_path->param_info == NULL && inner_path->param_info == NULL)
		fpb_hj_try_path(root, joinrel, jointype, extra, hashclauses,
						outer_path, inner_path, FPB_HJ_COMPLETE);

	/*
	 * The partial paths.  As for the built-in join, not below a rel with
	 * lateral references.
	 */
	if (!joinrel->consider_parallel || outerrel->partial_pathlist == NIL ||
		!bms_is_empty(joinrel->lateral_relids))
		return;
	outer_path = (Path *) linitial(outerrel->partial_pathlist);
	if (!outer_path->parallel_safe || outer_path->param_info != NULL)
		return;

	/*
	 * The shared table: the inner side partial too, each participant loading
	 * its share (hashjoin_shared.c).
	 */
	if (fpb_hj_parallel_shared && innerrel->partial_pathlist != NIL)
	{
		inner_path = (Path *) linitial(innerrel->partial_pathlist);
		if (inner_path->parallel_safe && inner_path->param_info == NULL)
			fpb_hj_try_path(root, joinrel, jointype, extra, hashclauses,
							outer_path, inner_path, FPB_HJ_SHARED);
	}

	/*
	 * The private-table partial path, where each participant's output
	 * depends on its share of the outer side only: not for right and full
	 * joins, whose every copy would emit the unmatched inner tuples it alone
	 * did not match.
	 */
	if (jointype == JOIN_RIGHT || jointype == JOIN_FULL)
		return;
	inner_path = fpb_hj_cheapest_safe(innerrel);
	if (inner_path == NULL)
		return;
	fpb_hj_try_path(root, joinrel, jointype, extra, hashclauses,
					outer_path, inner_path, FPB_HJ_PARTIAL);
}

static int
fpb_hj_cmp_attno(const ListCell *a, const ListCell *b)
{
	AttrNumber	x = ((Var *) lfirst_node(TargetEntry, a)->expr)->varattno;
	AttrNumber	y = ((Var *) lfirst_node(TargetEntry, b)->expr)->varattno;

	return (x > y) - (x < y);
}

/*
 * A custom scan's children are planned with an exact target list, in the
 * order the join's columns were first referenced: a heap scan that returns
 * every column of its table then still projects each row into a virtual
 * slot (and we form a MinimalTuple out of it), where with its columns in
 * table order it hands out the heap tuple itself, as the built-in join's
 * outer scan does.  So put such a list in table order.
 */
static void
fpb_hj_physical_order(PlannerInfo *root, Plan *plan)
{
	Index		scanrelid;
	RelOptInfo *rel;
	Bitmapset  *seen = NULL;
	ListCell   *lc;
	int			resno = 1;

	if (!IsA(plan, SeqScan) && !IsA(plan, IndexScan) &&
		!IsA(plan, BitmapHeapScan) && !IsA(plan, SampleScan) &&
		!IsA(plan, TidScan))
		return;
	scanrelid = ((Scan *) plan)->scanrelid;
	rel = find_base_rel(root, scanrelid);
	if (rel->rtekind != RTE_RELATION ||
		list_length(plan->targetlist) != rel->max_attr)
		return;
	foreach(lc, plan->targetlist)
	{
		Var		   *var = (Var *) lfirst_node(TargetEntry, lc)->expr;

		if (!IsA(var, Var) || var->varno != scanrelid ||
			var->varlevelsup != 0 || var->varattno < 1 ||
			var->varattno > rel->max_attr ||
			bms_is_member(var->varattno, seen))
			return;
		seen = bms_add_member(seen, var->varattno);
	}
	plan->targetlist = list_copy(plan->targetlist);
	list_sort(plan->targetlist, fpb_hj_cmp_attno);
	foreach(lc, plan->targetlist)
	{
		TargetEntry *tle = flatCopyTargetEntry(lfirst_node(TargetEntry, lc));

		tle->resno = resno++;
		lfirst(lc) = tle;
	}
}

/*
 * Path to plan.  The scan tuple (custom_scan_tlist) is the outer child's
 * target list followed by the inner child's, so that after setrefs every
 * INDEX_VAR reference maps back to one child column (hashjoin_exec.c).
 * custom_exprs holds five lists: outer keys, inner keys, the hash clauses
 * (for EXPLAIN and the key check), the other join quals and the filter
 * quals of an outer join; custom_private holds only integers and OIDs.
 */
static Plan *
fpb_hj_plan_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				 List *tlist, List *clauses, List *custom_plans)
{
	List	   *hashrinfos = linitial(best_path->custom_private);
	List	   *restrictlist = lsecond(best_path->custom_private);
	List	   *ints = lthird(best_path->custom_private);
	JoinType	jointype;
	Plan	   *outer_plan = linitial(custom_plans);
	Plan	   *inner_plan = lsecond(custom_plans);
	CustomScan *cscan = makeNode(CustomScan);
	List	   *rest;
	List	   *joinquals;
	List	   *otherquals;
	List	   *outer_keys = NIL;
	List	   *inner_keys = NIL;
	List	   *hashexprs = NIL;
	List	   *hashops = NIL;
	List	   *collations = NIL;
	List	   *outer_left = NIL;
	List	   *scan_tlist = NIL;
	ListCell   *lc;
	AttrNumber	resno = 1;
	Relids		outer_relids;

	outer_relids = ((Path *) linitial(best_path->custom_paths))->parent->relids;
	jointype = (JoinType) lthird_int(ints);

	rest = list_difference_ptr(restrictlist, hashrinfos);
	if (IS_OUTER_JOIN(jointype))
		extract_actual_join_clauses(rest, rel->relids, &joinquals, &otherquals);
	else
	{
		joinquals = extract_actual_clauses(rest, false);
		otherquals = NIL;
	}

	foreach(lc, hashrinfos)
	{
		RestrictInfo *rinfo = lfirst_node(RestrictInfo, lc);
		OpExpr	   *op = castNode(OpExpr, rinfo->clause);
		Node	   *l = linitial(op->args);
		Node	   *r = lsecond(op->args);
		bool		oleft;

		/*
		 * rinfo->outer_is_left is shared with paths for the other join order,
		 * so decide from the relids (as the built-in join's createplan does).
		 */
		oleft = bms_is_subset(rinfo->left_relids, outer_relids);
		outer_keys = lappend(outer_keys, oleft ? l : r);
		inner_keys = lappend(inner_keys, oleft ? r : l);
		hashexprs = lappend(hashexprs, op);
		hashops = lappend_oid(hashops, rinfo->hashjoinoperator);
		collations = lappend_oid(collations, op->inputcollid);
		outer_left = lappend_int(outer_left, oleft ? 1 : 0);
	}

	fpb_hj_physical_order(root, outer_plan);
	fpb_hj_physical_order(root, inner_plan);
	foreach(lc, outer_plan->targetlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);

		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry(copyObject(tle->expr), resno++,
											 NULL, false));
	}
	foreach(lc, inner_plan->targetlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);

		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry(copyObject(tle->expr), resno++,
											 NULL, false));
	}

	cscan->scan.plan.targetlist = tlist;
	/*
	 * The filter quals stay out of plan.qual: EXPLAIN would print them
	 * without table prefixes there.  They go in custom_exprs, which setrefs
	 * fixes up the same way, and our EXPLAIN callback prints them.
	 */
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	/*
	 * The children are the plan's lefttree and righttree, as a join's: then
	 * EXPLAIN labels them Outer and Inner (custom_plans would be "children"),
	 * and setrefs, finalize_plan and ExecReScan treat them as any node's
	 * children.  Not in custom_plans as well: a node reachable twice would be
	 * copied and fixed up twice.
	 */
	cscan->scan.plan.lefttree = outer_plan;
	cscan->scan.plan.righttree = inner_plan;
	cscan->custom_plans = NIL;
	cscan->custom_exprs = list_make5(outer_keys, inner_keys, hashexprs,
									 joinquals, otherquals);
	cscan->custom_private =
		list_make4(list_make5_int(jointype,
								  list_length(outer_plan->targetlist),
								  linitial_int(ints),
								  lsecond_int(ints),
								  lfourth_int(ints)),
				   hashops, collations, outer_left);
	cscan->custom_scan_tlist = scan_tlist;
	cscan->methods = &fpb_hj_scan_methods;

	return &cscan->scan.plan;
}
