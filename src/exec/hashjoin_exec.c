/*-------------------------------------------------------------------------
 *
 * hashjoin_exec.c
 *	  PrefetchHashJoin, executor node: the CustomScanState's methods.  Owns
 *	  ExecInit (expressions mapped back to the child slots, hash and
 *	  equality functions, settings read per execution), the phase state
 *	  machine (build, probe, fill inner, next batch), moving between
 *	  batches, rescan, end and EXPLAIN.
 *
 *	  The build phase (loading, batch growth, radix choice) is in
 *	  hashjoin_build.c, the staged probe and row emission in
 *	  hashjoin_probe.c; hashjoin_int.h holds the node state they share.
 *	  See README.md.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/nodeHash.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "port/pg_bitutils.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"

#include "hashjoin_int.h"

static void fpb_hj_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *fpb_hj_exec(CustomScanState *node);
static void fpb_hj_end(CustomScanState *node);
static void fpb_hj_rescan(CustomScanState *node);
static void fpb_hj_batch_reset(FpbHjState *st);
static void fpb_hj_explain(CustomScanState *node, List *ancestors,
						   ExplainState *es);

static const CustomExecMethods fpb_hj_exec_methods = {
	.CustomName = FPB_HJ_NAME,
	.BeginCustomScan = fpb_hj_begin,
	.ExecCustomScan = fpb_hj_exec,
	.EndCustomScan = fpb_hj_end,
	.ReScanCustomScan = fpb_hj_rescan,
	.ExplainCustomScan = fpb_hj_explain,
	.EstimateDSMCustomScan = fpb_hj_estimate_dsm,
	.InitializeDSMCustomScan = fpb_hj_initialize_dsm,
	.ReInitializeDSMCustomScan = fpb_hj_reinitialize_dsm,
	.InitializeWorkerCustomScan = fpb_hj_initialize_worker,
	.ShutdownCustomScan = fpb_hj_shutdown,
};

Node *
fpb_hj_create_state(CustomScan *cscan)
{
	FpbHjState *st = (FpbHjState *) newNode(sizeof(FpbHjState),
											T_CustomScanState);

	st->css.methods = &fpb_hj_exec_methods;
	return (Node *) st;
}

/*
 * setrefs turned every Var into an INDEX_VAR reference to custom_scan_tlist,
 * which is the outer child's tlist followed by the inner child's: map them
 * back to OUTER_VAR / INNER_VAR so expressions read the child slots.
 */
static Node *
fpb_hj_map_vars(Node *node, void *context)
{
	int			nouter = *(int *) context;

	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varno == INDEX_VAR)
	{
		Var		   *var = (Var *) copyObject(node);

		if (var->varattno <= nouter)
			var->varno = OUTER_VAR;
		else
		{
			var->varno = INNER_VAR;
			var->varattno -= nouter;
		}
		return (Node *) var;
	}
	return expression_tree_mutator(node, fpb_hj_map_vars, context);
}

static List *
fpb_hj_map_list(List *exprs, int nouter)
{
	return (List *) fpb_hj_map_vars((Node *) exprs, &nouter);
}

static uint8
fpb_hj_hash_kind(Oid fn)
{
	switch (fn)
	{
		case F_HASHINT2:
			return FPB_HASH_INT2;
		case F_HASHINT4:
			return FPB_HASH_INT4;
		case F_HASHINT8:
			return FPB_HASH_INT8;
		case F_HASHOID:
			return FPB_HASH_OID;
		default:
			return FPB_HASH_FMGR;
	}
}

static int
fpb_hj_eq_kind(Oid fn)
{
	switch (fn)
	{
		case F_INT2EQ:
			return FPB_EQ_INT2;
		case F_INT4EQ:
		case F_DATE_EQ:
		case F_OIDEQ:
			return FPB_EQ_INT4;
		case F_INT8EQ:
			return FPB_EQ_INT8;
		case F_INT48EQ:
			return FPB_EQ_INT48;
		case F_INT84EQ:
			return FPB_EQ_INT84;
		default:
			return FPB_EQ_FMGR;
	}
}

/* A key that is a plain column of the given side is read off the slot. */
static AttrNumber
fpb_hj_key_column(Expr *expr, int varno)
{
	if (IsA(expr, Var) && ((Var *) expr)->varno == varno &&
		((Var *) expr)->varattno > 0)
		return ((Var *) expr)->varattno;
	return 0;
}

/*
 * PARAM_EXEC parameters an expression depends on, counted as finalize_plan
 * counts them: its Params, and what its SubPlans read from outside (their
 * extParam less the parameters passed down to them).
 */
typedef struct FpbParamContext
{
	PlannedStmt *stmt;
	Bitmapset  *ids;
} FpbParamContext;

static bool
fpb_hj_params_walker(Node *node, FpbParamContext *cxt)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param))
	{
		Param	   *param = (Param *) node;

		if (param->paramkind == PARAM_EXEC)
			cxt->ids = bms_add_member(cxt->ids, param->paramid);
		return false;
	}
	if (IsA(node, SubPlan))
	{
		SubPlan    *subplan = (SubPlan *) node;
		Plan	   *plan = list_nth(cxt->stmt->subplans, subplan->plan_id - 1);
		Bitmapset  *ext = bms_copy(plan->extParam);
		ListCell   *lc;

		foreach(lc, subplan->parParam)
			ext = bms_del_member(ext, lfirst_int(lc));
		cxt->ids = bms_join(cxt->ids, ext);
		/* on to its arguments and test expression */
	}
	return expression_tree_walker(node, fpb_hj_params_walker, (void *) cxt);
}

static Bitmapset *
fpb_hj_expr_params(Node *expr, EState *estate)
{
	FpbParamContext cxt;

	cxt.stmt = estate->es_plannedstmt;
	cxt.ids = NULL;
	(void) fpb_hj_params_walker(expr, &cxt);
	return cxt.ids;
}

static void
fpb_hj_begin(CustomScanState *node, EState *estate, int eflags)
{
	FpbHjState *st = (FpbHjState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *ints = linitial(cscan->custom_private);
	List	   *hashops = lsecond(cscan->custom_private);
	List	   *colls = lthird(cscan->custom_private);
	List	   *outer_left = lfourth(cscan->custom_private);
	List	   *outer_keys;
	List	   *inner_keys;
	TupleDesc	outerdesc;
	TupleDesc	innerdesc;
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	int			i;
	bool		inner_unique;

	st->jointype = (JoinType) linitial_int(ints);
	st->nouter = lsecond_int(ints);
	st->plan_nbatch = lthird_int(ints);
	inner_unique = lfourth_int(ints) != 0;
	st->inner_unique = inner_unique;
	st->shared_table = list_nth_int(ints, 4) != 0;

	/* children: never asked to go backward or to mark/restore */
	eflags &= ~(EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK);
	st->outer_ps = ExecInitNode(outerPlan(cscan), estate, eflags);
	st->inner_ps = ExecInitNode(innerPlan(cscan), estate, eflags);
	outerPlanState(node) = st->outer_ps;
	innerPlanState(node) = st->inner_ps;

	/*
	 * Expressions must not assume fixed slot types for OUTER_VAR /
	 * INNER_VAR: we feed them minimal-tuple copies as well as the children's
	 * own slots.
	 */
	node->ss.ps.outeropsset = true;
	node->ss.ps.outeropsfixed = false;
	node->ss.ps.inneropsset = true;
	node->ss.ps.inneropsfixed = false;

	outerdesc = ExecGetResultType(st->outer_ps);
	innerdesc = ExecGetResultType(st->inner_ps);
	st->probe_slot = ExecInitExtraTupleSlot(estate, outerdesc,
											&TTSOpsMinimalTuple);
	st->outer_file_slot = ExecInitExtraTupleSlot(estate, outerdesc,
												 &TTSOpsMinimalTuple);
	st->build_slot = ExecInitExtraTupleSlot(estate, innerdesc,
											&TTSOpsMinimalTuple);
	st->inner_file_slot = ExecInitExtraTupleSlot(estate, innerdesc,
												 &TTSOpsMinimalTuple);
	st->null_outer = ExecInitNullTupleSlot(estate, outerdesc, &TTSOpsVirtual);
	st->null_inner = ExecInitNullTupleSlot(estate, innerdesc, &TTSOpsVirtual);

	/* expressions, mapped back to the child slots */
	outer_keys = fpb_hj_map_list(linitial(cscan->custom_exprs), st->nouter);
	inner_keys = fpb_hj_map_list(lsecond(cscan->custom_exprs), st->nouter);
	st->nkeys = list_length(outer_keys);

	/*
	 * The table holds the inner child's rows and the values of the inner
	 * keys: a rescan may keep it only if neither changed.  The child's own
	 * parameters arrive in its chgParam; those of the keys (evaluated by
	 * this node) only in ours, so remember which they are.
	 */
	st->inner_key_params = fpb_hj_expr_params((Node *) inner_keys, estate);
	st->outer_keys = palloc(sizeof(ExprState *) * st->nkeys);
	st->inner_keys = palloc(sizeof(ExprState *) * st->nkeys);
	st->outer_hashfn = palloc(sizeof(FmgrInfo) * st->nkeys);
	st->inner_hashfn = palloc(sizeof(FmgrInfo) * st->nkeys);
	st->outer_hashkind = palloc(sizeof(uint8) * st->nkeys);
	st->inner_hashkind = palloc(sizeof(uint8) * st->nkeys);
	st->outer_keyatt = palloc(sizeof(AttrNumber) * st->nkeys);
	st->inner_keyatt = palloc(sizeof(AttrNumber) * st->nkeys);
	st->collations = palloc(sizeof(Oid) * st->nkeys);
	st->strict = palloc(sizeof(bool) * st->nkeys);
	for (i = 0; i < st->nkeys; i++)
	{
		Oid			op = list_nth_oid(hashops, i);
		bool		oleft = list_nth_int(outer_left, i) != 0;
		Oid			lfn;
		Oid			rfn;

		st->outer_keys[i] = ExecInitExpr(list_nth(outer_keys, i), &node->ss.ps);
		st->inner_keys[i] = ExecInitExpr(list_nth(inner_keys, i), &node->ss.ps);
		if (!get_op_hash_functions(op, &lfn, &rfn))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_FUNCTION),
					 errmsg("could not find hash function for hash operator %u",
							op)));
		fmgr_info(oleft ? lfn : rfn, &st->outer_hashfn[i]);
		fmgr_info(oleft ? rfn : lfn, &st->inner_hashfn[i]);
		st->outer_hashkind[i] = fpb_hj_hash_kind(oleft ? lfn : rfn);
		st->inner_hashkind[i] = fpb_hj_hash_kind(oleft ? rfn : lfn);
		st->outer_keyatt[i] = fpb_hj_key_column(list_nth(outer_keys, i),
												 OUTER_VAR);
		st->inner_keyatt[i] = fpb_hj_key_column(list_nth(inner_keys, i),
												 INNER_VAR);
		st->collations[i] = list_nth_oid(colls, i);
		st->strict[i] = op_strict(op);
	}
	st->byval_fast = st->nkeys == 1 && st->strict[0] &&
		get_typbyval(exprType(linitial(outer_keys))) &&
		get_typbyval(exprType(linitial(inner_keys)));
	if (st->byval_fast)
	{
		Oid			op = linitial_oid(hashops);

		fmgr_info(get_opcode(op), &st->eqfn);
		st->eqkind = fpb_hj_eq_kind(get_opcode(op));
		st->eqcoll = linitial_oid(colls);
		st->eq_outer_left = linitial_int(outer_left) != 0;
	}

	st->hashquals = ExecInitQual(fpb_hj_map_list(lthird(cscan->custom_exprs),
												 st->nouter),
								 &node->ss.ps);
	st->joinqual = ExecInitQual(fpb_hj_map_list(lfourth(cscan->custom_exprs),
												st->nouter),
								&node->ss.ps);
	st->otherqual = ExecInitQual(fpb_hj_map_list(list_nth(cscan->custom_exprs, 4),
												 st->nouter),
								 &node->ss.ps);
	st->proj = ExecBuildProjectionInfo(fpb_hj_map_list(cscan->scan.plan.targetlist,
													   st->nouter),
									   econtext,
									   node->ss.ps.ps_ResultTupleSlot,
									   &node->ss.ps,
									   NULL);

	st->fill_outer = (st->jointype == JOIN_LEFT ||
					  st->jointype == JOIN_ANTI ||
					  st->jointype == JOIN_FULL);
	st->fill_inner = (st->jointype == JOIN_RIGHT ||
					  st->jointype == JOIN_FULL);
	st->single_match = inner_unique || st->jointype == JOIN_SEMI;

	st->keycxt = AllocSetContextCreate(CurrentMemoryContext,
									   "PrefetchHashJoin keys",
									   ALLOCSET_SMALL_SIZES);
	st->filecxt = AllocSetContextCreate(CurrentMemoryContext,
										"PrefetchHashJoin files",
										ALLOCSET_DEFAULT_SIZES);
	st->probecxt = AllocSetContextCreate(CurrentMemoryContext,
										 "PrefetchHashJoin probe",
										 ALLOCSET_DEFAULT_SIZES);

	/* settings are read once per execution */
	st->scheme = fpb_hj_prefetch;
	st->group_size = fpb_hj_group_size;
	st->distance = fpb_hj_prefetch_distance;
	st->prefetch = st->scheme != FPB_HJ_PREFETCH_NONE;
	if (st->scheme == FPB_HJ_PREFETCH_NONE)
		st->group_size = 1;
	if (st->scheme == FPB_HJ_PREFETCH_PIPELINED)
		st->ringsize = (int) pg_nextpower2_32(2 * st->distance + 2);
	else
		st->ringsize = st->group_size;
	st->ring = MemoryContextAllocZero(st->probecxt,
									  sizeof(FpbProbeEntry) * st->ringsize);
	fpb_radix_init(&st->radix, CurrentMemoryContext);

	st->space_allowed = get_hash_memory_limit();
	fpb_ht_init(&st->ht, CurrentMemoryContext, st->space_allowed);
	st->nbatch = (int) pg_nextpower2_32(Max(st->plan_nbatch, 1));
	st->nbatch = Min(st->nbatch, FPB_MAX_BATCHES);
	/*
	 * A shared table starts as one batch built together; shared batches
	 * and each claimed batch's private ones are counted elsewhere
	 * (hashjoin_shared.c, hashjoin_batches.c).
	 */
	if (st->shared_table)
		st->nbatch = 1;
	st->sh_batch = -1;
	st->curbatch = 0;
	st->grow_enabled = true;
	/*
	 * The partition phase follows the scheme only when asked: on x86 the
	 * output buffers' misses are stores, which the store buffer already
	 * overlaps, and staging costs more than it hides (README.md).
	 */
	st->partition_scheme = fpb_hj_partition_prefetch ? st->scheme :
		FPB_HJ_PREFETCH_NONE;
	fpb_spill_init(&st->inner_spill, st->filecxt, st->nbatch,
				   st->partition_scheme, st->group_size, st->distance);
	fpb_spill_init(&st->outer_spill, st->filecxt, st->nbatch,
				   st->partition_scheme, st->group_size, st->distance);
	st->phase = FPB_HJ_BUILD;
}

/*
 * Before the first build, fetch the first outer tuple where the built-in
 * join does (ExecHashJoin's HJ_BUILD_HASHTABLE): an empty outer side then
 * ends an inner, left, semi or anti join without loading the build side.
 * Right and full joins need the build side anyway.  An inner or semi join
 * tries only while the outer side's first tuple is expected to cost less
 * than the build side, and not after a scan that found outer tuples (a
 * rescan probably finds some again).  False when the join ends here.
 */
static bool
fpb_hj_fetch_first_outer(FpbHjState *st)
{
	TupleTableSlot *slot;

	st->first_outer = NULL;
	if (st->fill_inner)
		return true;
	/* nor for a shared table, as Parallel Hash: everyone takes part */
	if (st->shared != NULL)
		return true;
	if (!st->fill_outer &&
		(st->outer_ps->plan->startup_cost >= st->inner_ps->plan->total_cost ||
		 st->outer_not_empty))
		return true;
	slot = ExecProcNode(st->outer_ps);
	if (TupIsNull(slot))
	{
		st->outer_not_empty = false;
		return false;
	}
	st->outer_not_empty = true;
	st->first_outer = slot;
	return true;
}

static void
fpb_hj_close_files(FpbHjState *st, int batchno)
{
	fpb_spill_close(&st->inner_spill, batchno);
	fpb_spill_close(&st->outer_spill, batchno);
	if (batchno == st->curbatch)
		st->outer_read = NULL;
}

/*
 * A batch that is skipped may still hold tuples of later batches in its
 * files: a file was written under the number of batches of its time, and
 * when that number has grown since, its tuples belong to this batch or to
 * batch + k * (old number).  Their partners went straight to the later
 * batch (or through another batch's file), so the tuples must follow them
 * there; only those that still belong to this batch can be dropped.
 */
static void
fpb_hj_reroute_file(FpbHjState *st, FpbSpillSet *set)
{
	BufFile    *file = fpb_spill_open_read(set, st->curbatch);
	MinimalTuple tup;
	uint32		hashvalue;

	if (file == NULL)
		return;
	while ((tup = fpb_spill_read(file, &hashvalue, &st->readbuf,
								 &st->readbufsize, st->filecxt)) != NULL)
	{
		int			batchno = fpb_hj_batchno(st, hashvalue);

		CHECK_FOR_INTERRUPTS();
		if (batchno == st->curbatch)
			continue;
		Assert(batchno > st->curbatch);
		fpb_spill_add(set, batchno, hashvalue, (char *) tup, tup->t_len);
	}
}

/* Advance to the next batch that can produce rows; false when none. */
static bool
fpb_hj_next_batch(FpbHjState *st)
{
	fpb_hj_close_files(st, st->curbatch);
	fpb_ht_reset(&st->ht);

	/* the partition phase's last staged records */
	fpb_spill_finish(&st->inner_spill);
	fpb_spill_finish(&st->outer_spill);

	for (;;)
	{
		bool		has_inner;
		bool		has_outer;

		st->curbatch++;
		if (st->curbatch >= st->nbatch)
			return false;
		has_inner = fpb_spill_nonempty(&st->inner_spill, st->curbatch);
		has_outer = fpb_spill_nonempty(&st->outer_spill, st->curbatch);
		if ((!has_outer && !st->fill_inner) ||
			(!has_inner && !st->fill_outer) ||
			(!has_inner && !has_outer))
		{
			fpb_hj_reroute_file(st, &st->inner_spill);
			fpb_hj_reroute_file(st, &st->outer_spill);
			fpb_spill_finish(&st->inner_spill);
			fpb_spill_finish(&st->outer_spill);
			fpb_hj_close_files(st, st->curbatch);
			continue;
		}
		break;
	}

	fpb_hj_build(st);
	fpb_spill_finish(&st->inner_spill);
	st->outer_read = fpb_spill_open_read(&st->outer_spill, st->curbatch);
	fpb_hj_reset_ring(st);
	st->phase = FPB_HJ_PROBE;
	return true;
}

static TupleTableSlot *
fpb_hj_exec(CustomScanState *node)
{
	FpbHjState *st = (FpbHjState *) node;
	TupleTableSlot *slot;

	ResetExprContext(node->ss.ps.ps_ExprContext);
	for (;;)
	{
		switch (st->phase)
		{
			case FPB_HJ_BUILD:
				if (!fpb_hj_fetch_first_outer(st))
				{
					st->phase = FPB_HJ_DONE;
					break;
				}
				/*
				 * With a parallel context a shared table is built together,
				 * or both sides are partitioned into shared batches, of
				 * which this participant then claims one after the other;
				 * without one the serial build runs alone.
				 */
				if (st->shared != NULL && !st->sh_claims_done &&
					st->sh_nbatch == 0)
					fpb_hj_shared_build(st);
				if (st->sh_nbatch > 0)
				{
					fpb_hj_batch_reset(st);
					if (!fpb_hj_batches_claim(st))
					{
						st->phase = FPB_HJ_DONE;
						break;
					}
					fpb_hj_build(st);
				}
				else if (st->shared == NULL)
					fpb_hj_build(st);
				if (st->inner_total == 0)
				{
					/*
					 * Nothing can match: a join without outer fill ends
					 * without reading the outer side (as the built-in join
					 * does), and the others need no batches for it.  Nothing
					 * was spilled and no outer tuple has been hashed yet.
					 * A claimed shared batch's files are left unread.
					 */
					st->nbatch = 1;
					if (!st->fill_outer)
					{
						st->phase = FPB_HJ_DONE;
						break;
					}
				}
				/* set again by the outer tuples of this scan */
				st->outer_not_empty = false;
				fpb_hj_start_probe(st);
				break;
			case FPB_HJ_PROBE:
				if (st->scheme == FPB_HJ_PREFETCH_PIPELINED)
					slot = fpb_hj_probe_pipelined(st);
				else
					slot = fpb_hj_probe_group(st);
				if (slot != NULL)
					return slot;
				if (st->fill_inner)
				{
					fpb_arena_iter_init(&st->fill_iter, st->ht.tuples);
					st->phase = FPB_HJ_FILL_INNER;
				}
				else
					st->phase = FPB_HJ_NEXT_BATCH;
				break;
			case FPB_HJ_FILL_INNER:
				slot = fpb_hj_fill_inner_next(st);
				if (slot != NULL)
					return slot;
				st->phase = FPB_HJ_NEXT_BATCH;
				break;
			case FPB_HJ_NEXT_BATCH:
				/* a single batch's table stays for a rescan that keeps it */
				if (st->nbatch == 1 || !fpb_hj_next_batch(st))
					st->phase = FPB_HJ_DONE;
				break;
			case FPB_HJ_DONE:
				/* with shared batches: on to the next one to claim */
				if (st->sh_nbatch > 0 && !st->sh_claims_done)
				{
					st->phase = FPB_HJ_BUILD;
					break;
				}
				return NULL;
		}
	}
}

/*
 * Drop the current batches and the hash table: back to the state before a
 * build (of the next claimed shared batch, too).
 */
static void
fpb_hj_batch_reset(FpbHjState *st)
{
	int			i;

	fpb_spill_discard(&st->inner_spill);
	fpb_spill_discard(&st->outer_spill);
	/* the sets may have more files than batches (see FPB_HJ_BUILD) */
	Assert(st->inner_spill.nfiles == st->outer_spill.nfiles);
	for (i = 0; i < st->inner_spill.nfiles; i++)
		fpb_hj_close_files(st, i);
	st->outer_read = NULL;
	fpb_ht_reset(&st->ht);
	fpb_hj_reset_ring(st);
	fpb_radix_release(&st->radix);
	st->radix_on = false;
	st->nbatch = 1;
	st->curbatch = 0;
	st->grow_enabled = true;
	st->nokey_seq = 0;
}

/*
 * Drop everything of this scan.  A shared table stays until the Gather's
 * next start (fpb_hj_shared_reinit) or the end of the query.
 */
static void
fpb_hj_release(FpbHjState *st)
{
	int			nbatch = st->nbatch;

	fpb_hj_batch_reset(st);
	st->nbatch = nbatch;
	fpb_hj_shared_detach(st);
	fpb_hj_batches_release(st);
}

static void
fpb_hj_end(CustomScanState *node)
{
	FpbHjState *st = (FpbHjState *) node;

	fpb_hj_release(st);
	ExecEndNode(st->outer_ps);
	ExecEndNode(st->inner_ps);
}

/*
 * Rescan.  A single-batch table is kept when nothing it was built from
 * changed: the inner child's parameters and those of the inner keys (the
 * outer keys and the quals are evaluated per probe, so their parameters do
 * not matter).  Right/full joins forget their matches.  Anything else
 * starts over.  ExecReScan has passed chgParam to the children (lefttree
 * and righttree) before it calls this.
 */
static void
fpb_hj_rescan(CustomScanState *node)
{
	FpbHjState *st = (FpbHjState *) node;
	PlanState  *outer = st->outer_ps;
	PlanState  *inner = st->inner_ps;

	st->first_outer = NULL;
	/*
	 * A shared table is never kept: the Gather above starts its workers
	 * again, and they build it again (fpb_hj_reinitialize_dsm).
	 */
	if (!st->shared_table &&
		st->phase != FPB_HJ_BUILD && st->ht.built && st->nbatch == 1 &&
		st->curbatch == 0 && inner->chgParam == NULL &&
		!bms_overlap(node->ss.ps.chgParam, st->inner_key_params))
	{
		if (st->fill_inner)
			fpb_ht_clear_matched(&st->ht);
		st->outer_not_empty = false;
		fpb_hj_start_probe(st);
	}
	else
	{
		fpb_hj_release(st);
		st->phase = FPB_HJ_BUILD;
		/* a child with changed parameters rescans on its next call */
		if (inner->chgParam == NULL)
			ExecReScan(inner);
	}
	if (outer->chgParam == NULL)
		ExecReScan(outer);
}

static const char *
fpb_hj_jointype_name(JoinType jointype)
{
	switch (jointype)
	{
		case JOIN_INNER:
			return "Inner";
		case JOIN_LEFT:
			return "Left";
		case JOIN_FULL:
			return "Full";
		case JOIN_RIGHT:
			return "Right";
		case JOIN_SEMI:
			return "Semi";
		case JOIN_ANTI:
			return "Anti";
		default:
			return "???";
	}
}

/*
 * A filter's removed-row count, as EXPLAIN prints it for the built-in joins
 * (show_instrumentation_count): nfiltered1 for the join filter, nfiltered2
 * for the filter, per loop, only with ANALYZE, and in text format only when
 * not zero.
 */
static void
fpb_hj_explain_removed(const char *label, int which, PlanState *ps,
					   ExplainState *es)
{
	double		nfiltered;
	double		nloops;

	if (!es->analyze || ps->instrument == NULL)
		return;
	nfiltered = which == 1 ? ps->instrument->nfiltered1 :
		ps->instrument->nfiltered2;
	nloops = ps->instrument->nloops;
	if (nfiltered > 0 || es->format != EXPLAIN_FORMAT_TEXT)
		ExplainPropertyFloat(label, NULL,
							 nloops > 0 ? nfiltered / nloops : 0.0, 0, es);
}

static void
fpb_hj_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	FpbHjState *st = (FpbHjState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *context;
	bool		useprefix;
	List	   *joinquals = lfourth(cscan->custom_exprs);
	List	   *otherquals = list_nth(cscan->custom_exprs, 4);
	JoinType	jointype = (JoinType) linitial_int(linitial(cscan->custom_private));

	context = set_deparse_context_plan(es->deparse_cxt, &cscan->scan.plan,
									   ancestors);
	useprefix = list_length(es->rtable) > 1 || es->verbose;

	ExplainPropertyText("Join Type", fpb_hj_jointype_name(jointype), es);
	/* as the core shows it for its joins */
	if (es->format != EXPLAIN_FORMAT_TEXT ||
		(es->verbose && st->inner_unique))
		ExplainPropertyBool("Inner Unique", st->inner_unique, es);
	if (st->shared_table)
		ExplainPropertyBool("Shared Hash Table", true, es);
	ExplainPropertyText("Hash Cond",
						deparse_expression((Node *) make_ands_explicit(lthird(cscan->custom_exprs)),
										   context, useprefix, false),
						es);
	if (joinquals != NIL)
	{
		ExplainPropertyText("Join Filter",
							deparse_expression((Node *) make_ands_explicit(joinquals),
											   context, useprefix, false),
							es);
		fpb_hj_explain_removed("Rows Removed by Join Filter", 1,
							   &node->ss.ps, es);
	}
	if (otherquals != NIL)
	{
		ExplainPropertyText("Filter",
							deparse_expression((Node *) make_ands_explicit(otherquals),
											   context, useprefix, false),
							es);
		fpb_hj_explain_removed("Rows Removed by Filter", 2, &node->ss.ps, es);
	}

	if (es->analyze)
	{
		FpbHjInstr	all;
		FpbHjInstr *workers;
		int			nworkers;

		/* over all participants when below a Gather (hashjoin_parallel.c) */
		nworkers = fpb_hj_instr_collect(st, &all, &workers);
		ExplainPropertyText("Prefetch", fpb_hj_scheme_name(st->scheme), es);
		if (st->scheme == FPB_HJ_PREFETCH_GROUP)
			ExplainPropertyInteger("Group Size", NULL, st->group_size, es);
		else if (st->scheme == FPB_HJ_PREFETCH_PIPELINED)
			ExplainPropertyInteger("Prefetch Distance", NULL, st->distance, es);
		ExplainPropertyInteger("Buckets", NULL, all.max_buckets, es);
		ExplainPropertyInteger("Batches", NULL, all.nbatch, es);
		ExplainPropertyInteger("Original Batches", NULL, st->plan_nbatch, es);
		ExplainPropertyInteger("Builds", NULL, all.nbuilds, es);
		ExplainPropertyInteger("Peak Memory Usage", "kB",
							   (int64) ((all.peak_space + 1023) / 1024), es);
		ExplainPropertyBool("Spilled", all.spilled, es);
		ExplainPropertyInteger("Radix Partitions", NULL, all.max_radix_parts,
							   es);
		if (all.max_radix_parts > 0)
			ExplainPropertyInteger("Probe Chunks", NULL, all.nchunks, es);
		if (all.spilled)
			ExplainPropertyText("Partition Prefetch",
								fpb_hj_scheme_name(st->partition_scheme), es);
		if (es->verbose && nworkers > 0)
			fpb_hj_explain_workers(workers, nworkers, st->shared_table, es);
	}
}
