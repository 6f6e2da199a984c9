/*-------------------------------------------------------------------------
 *
 * hashjoin_exec.c
 *	  PrefetchHashJoin, executor side: the CustomScanState, the build and
 *	  probe phases, batching, rescans and EXPLAIN.
 *
 *	  The probe runs over a small array of copied outer tuples ("entries").
 *	  With group prefetching G entries are filled (stage 0: hash, prefetch
 *	  the bucket header), then stage 1 runs for all of them (read header,
 *	  prefetch the cell array), then stage 2 (compare hash codes, prefetch
 *	  candidate tuples), and the entries are then emitted one by one (stage
 *	  3: compare keys, quals, project).  With software pipelining the same
 *	  stages run on a sliding window: entry j gets stage 1 when entry j+D is
 *	  fetched and stage 2 when entry j+2D is fetched.  See README.md.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/explain.h"
#include "common/hashfn.h"
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

#include "hashjoin.h"
#include "mintuple.h"

#define FPB_MAX_BATCHES		(1 << 20)

/* radix-clustered probing (fpb_hj_radix_bits) */
#define FPB_RADIX_MIN_PART		((Size) 1024 * 1024)
#define FPB_RADIX_MAX_BITS		12
#define FPB_RADIX_POOL_MAX		((Size) 128 * 1024 * 1024)
#define FPB_RADIX_MIN_POOL(nparts)	((nparts) * 4 * FPB_RADIX_BLOCK)

typedef enum FpbHjPhase
{
	FPB_HJ_BUILD,				/* load the inner child, build batch 0 */
	FPB_HJ_PROBE,				/* probe the current batch */
	FPB_HJ_FILL_INNER,			/* emit unmatched build tuples */
	FPB_HJ_NEXT_BATCH,			/* move to the next batch pair */
	FPB_HJ_DONE
} FpbHjPhase;

/* one copied outer tuple in flight */
typedef struct FpbProbeEntry
{
	MinimalTuple tuple;			/* the copy, in buf */
	char	   *buf;			/* reusable copy buffer */
	Size		bufsize;
	uint32		hashvalue;
	uint8		stage;			/* last stage done: 0, 1 or 2 */
	bool		nullkey;		/* a key is NULL: matches nothing */
	bool		matched;		/* matched, or its null-extended row done */
	bool		stored;			/* in probe_slot now */
	Datum		key;			/* by-value single key */
	FpbBucket  *bucket;
	FpbHashCell *cells;
	uint32		ncells;
	uint32		pos;			/* next candidate cell */
} FpbProbeEntry;

/*
 * Hash functions and equality operators of the common integer types are
 * computed inline (same results as the catalog functions, which the
 * fallback calls through fmgr): at 10M rows per side the fmgr call per
 * hash and per key comparison is a visible share of the join.
 */
typedef enum FpbHashKind
{
	FPB_HASH_FMGR,
	FPB_HASH_INT2,				/* hashint2 */
	FPB_HASH_INT4,				/* hashint4 */
	FPB_HASH_INT8,				/* hashint8 */
	FPB_HASH_OID				/* hashoid */
} FpbHashKind;

typedef enum FpbEqKind
{
	FPB_EQ_FMGR,
	FPB_EQ_INT2,				/* int2eq */
	FPB_EQ_INT4,				/* int4eq, date_eq, oideq */
	FPB_EQ_INT8,				/* int8eq */
	FPB_EQ_INT48,				/* int48eq: int4 left, int8 right */
	FPB_EQ_INT84				/* int84eq */
} FpbEqKind;

typedef struct FpbHjState
{
	CustomScanState css;

	JoinType	jointype;
	int			nkeys;
	int			nouter;
	bool		single_match;	/* stop after the first match */
	bool		fill_outer;		/* left, anti, full */
	bool		fill_inner;		/* right, full */

	ExprState **outer_keys;
	ExprState **inner_keys;
	FmgrInfo   *outer_hashfn;
	FmgrInfo   *inner_hashfn;
	uint8	   *outer_hashkind;	/* FpbHashKind per key */
	uint8	   *inner_hashkind;
	AttrNumber *outer_keyatt;	/* key is this plain column, or 0 */
	AttrNumber *inner_keyatt;
	Oid		   *collations;
	bool	   *strict;
	ExprState  *hashquals;		/* the key equalities, both sides */
	ExprState  *joinqual;
	ExprState  *otherqual;
	ProjectionInfo *proj;
	bool		byval_fast;		/* single strict by-value key in cells */
	FmgrInfo	eqfn;
	int			eqkind;			/* FpbEqKind of the by-value key */
	Oid			eqcoll;
	bool		eq_outer_left;

	PlanState  *outer_ps;
	PlanState  *inner_ps;
	Bitmapset  *inner_key_params;	/* PARAM_EXECs the inner keys read */
	TupleTableSlot *probe_slot;
	TupleTableSlot *outer_file_slot;
	TupleTableSlot *build_slot;
	TupleTableSlot *inner_file_slot;
	TupleTableSlot *null_outer;
	TupleTableSlot *null_inner;

	MemoryContext keycxt;		/* key evaluation, reset per tuple */
	MemoryContext filecxt;		/* BufFiles and read buffers */
	MemoryContext probecxt;		/* entry copies */

	int			scheme;
	int			partition_scheme;	/* scheme of the partition phase */
	int			group_size;
	int			distance;
	bool		prefetch;

	FpbHashTable ht;
	Size		space_allowed;
	int			plan_nbatch;
	int			nbatch;
	int			curbatch;
	FpbSpillSet inner_spill;	/* build side's batch files */
	FpbSpillSet outer_spill;	/* probe side's batch files */
	BufFile    *outer_read;		/* the current batch's outer file */
	bool		grow_enabled;
	uint32		nokey_seq;		/* spreads NULL-key build tuples over batches */
	char	   *readbuf;
	Size		readbufsize;
	char	   *formbuf;		/* rows of virtual slots formed here */
	Size		formbufsize;

	FpbHjPhase	phase;
	TupleTableSlot *first_outer;	/* fetched before the build, not used yet */
	bool		outer_not_empty;	/* the last scan found an outer tuple */
	int64		inner_total;	/* build rows kept in this build, all batches */
	bool		outer_done;
	FpbProbeEntry *ring;
	int			ringsize;		/* group size, or a power of two */
	uint64		head;			/* next entry to fill */
	uint64		emit;			/* next entry to emit */
	int			ramp;			/* size of the next group (ramps up to G) */
	FpbArenaIter fill_iter;

	/* radix-clustered probing (hashjoin_radix.c) */
	FpbRadix	radix;
	bool		radix_on;		/* the current batch is probed by chunks */
	bool		source_done;	/* radix: the outer side is used up */
	int64		radix_ramp;		/* rows of the next chunk */
	Size		radix_pool;		/* chunk memory for the current batch */
	int			max_radix_parts;	/* EXPLAIN */

	/* EXPLAIN ANALYZE */
	int64		nbuilds;		/* tables built, over batches and rescans */
	Size		peak_space;
	uint32		max_buckets;
	bool		spilled;
} FpbHjState;

static void fpb_hj_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *fpb_hj_exec(CustomScanState *node);
static void fpb_hj_end(CustomScanState *node);
static void fpb_hj_rescan(CustomScanState *node);
static void fpb_hj_explain(CustomScanState *node, List *ancestors,
						   ExplainState *es);

static const CustomExecMethods fpb_hj_exec_methods = {
	.CustomName = FPB_HJ_NAME,
	.BeginCustomScan = fpb_hj_begin,
	.ExecCustomScan = fpb_hj_exec,
	.EndCustomScan = fpb_hj_end,
	.ReScanCustomScan = fpb_hj_rescan,
	.ExplainCustomScan = fpb_hj_explain,
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

	/* children: never asked to go backward or to mark/restore */
	eflags &= ~(EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK);
	st->outer_ps = ExecInitNode(linitial(cscan->custom_plans), estate, eflags);
	st->inner_ps = ExecInitNode(lsecond(cscan->custom_plans), estate, eflags);
	node->custom_ps = list_make2(st->outer_ps, st->inner_ps);

	/*
	 * The child plan states are not lefttree/righttree, so expressions must
	 * not assume fixed slot types for OUTER_VAR / INNER_VAR: we feed them
	 * minimal-tuple copies as well as the children's own slots.
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
 * Evaluate the keys of one side on slot and hash them (combined as the
 * built-in hash join does).  Returns false if a strict key is NULL.
 */
static bool
fpb_hj_hash_slot(FpbHjState *st, TupleTableSlot *slot, bool outer,
				 uint32 *hashvalue, Datum *key0)
{
	ExprContext *econtext = st->css.ss.ps.ps_ExprContext;
	ExprState **keys = outer ? st->outer_keys : st->inner_keys;
	FmgrInfo   *fns = outer ? st->outer_hashfn : st->inner_hashfn;
	uint8	   *kinds = outer ? st->outer_hashkind : st->inner_hashkind;
	AttrNumber *atts = outer ? st->outer_keyatt : st->inner_keyatt;
	MemoryContext oldcxt;
	uint32		h = 0;
	bool		result = true;
	int			i;

	MemoryContextReset(st->keycxt);
	oldcxt = MemoryContextSwitchTo(st->keycxt);
	if (outer)
		econtext->ecxt_outertuple = slot;
	else
		econtext->ecxt_innertuple = slot;
	*key0 = (Datum) 0;
	for (i = 0; i < st->nkeys; i++)
	{
		bool		isnull;
		Datum		d;

		h = pg_rotate_left32(h, 1);
		if (atts[i] > 0)
			d = slot_getattr(slot, atts[i], &isnull);
		else
			d = ExecEvalExpr(keys[i], econtext, &isnull);
		if (isnull)
		{
			if (st->strict[i])
			{
				result = false;
				break;
			}
			continue;
		}
		switch (kinds[i])
		{
			case FPB_HASH_INT2:
				h ^= hash_bytes_uint32((uint32) (int32) DatumGetInt16(d));
				break;
			case FPB_HASH_INT4:
				h ^= hash_bytes_uint32((uint32) DatumGetInt32(d));
				break;
			case FPB_HASH_OID:
				h ^= hash_bytes_uint32((uint32) DatumGetObjectId(d));
				break;
			case FPB_HASH_INT8:
				{
					/*
					 * hashint8: fold the high half into the low one, so
					 * that values in int4 range hash as hashint4 does
					 */
					int64		v = DatumGetInt64(d);
					uint32		lo = (uint32) v;
					uint32		hi = (uint32) (v >> 32);

					lo ^= (v >= 0) ? hi : ~hi;
					h ^= hash_bytes_uint32(lo);
				}
				break;
			default:
				h ^= DatumGetUInt32(FunctionCall1Coll(&fns[i],
													  st->collations[i], d));
				break;
		}
		if (i == 0)
			*key0 = d;
	}
	MemoryContextSwitchTo(oldcxt);
	*hashvalue = h;
	return result;
}

/* Batch of a hash code: bits independent of the bucket bits. */
static inline int
fpb_hj_batchno(FpbHjState *st, uint32 hashvalue)
{
	if (st->nbatch == 1)
		return 0;
	return (int) (murmurhash32(hashvalue) & (uint32) (st->nbatch - 1));
}

static inline bool
fpb_hj_key_equal(FpbHjState *st, Datum outerkey, Datum innerkey)
{
	Datum		l = st->eq_outer_left ? outerkey : innerkey;
	Datum		r = st->eq_outer_left ? innerkey : outerkey;

	switch (st->eqkind)
	{
		case FPB_EQ_INT2:
			return DatumGetInt16(l) == DatumGetInt16(r);
		case FPB_EQ_INT4:
			return DatumGetInt32(l) == DatumGetInt32(r);
		case FPB_EQ_INT8:
			return DatumGetInt64(l) == DatumGetInt64(r);
		case FPB_EQ_INT48:
			return (int64) DatumGetInt32(l) == DatumGetInt64(r);
		case FPB_EQ_INT84:
			return DatumGetInt64(l) == (int64) DatumGetInt32(r);
		default:
			return DatumGetBool(FunctionCall2Coll(&st->eqfn, st->eqcoll,
												  l, r));
	}
}

/*
 * Form a virtual slot's row as a MinimalTuple in a reusable buffer (valid
 * until the next call) instead of a fresh palloc'd one per row: a child
 * that projects (most scans below us do) hands us virtual slots, and every
 * row of the build side, and every spilled or probed outer row, is copied
 * once anyway.
 */
static const char *
fpb_hj_form_minimal(FpbHjState *st, TupleTableSlot *slot, uint32 *len)
{
	FpbMinLayout lay;

	fpb_mintuple_layout(slot, &lay);
	if (lay.total > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row is too big: size %zu, maximum size %zu",
						lay.total, (Size) MaxAllocSize)));
	if (unlikely(st->formbufsize < lay.total))
	{
		if (st->formbuf)
			pfree(st->formbuf);
		st->formbufsize = Max(lay.total, 1024);
		st->formbuf = MemoryContextAlloc(st->probecxt, st->formbufsize);
	}
	fpb_mintuple_fill(slot, &lay, (MinimalTuple) st->formbuf);
	*len = lay.total;
	return (const char *) st->formbuf;
}

/*
 * The bytes of slot's tuple in MinimalTuple layout, without forming a copy
 * when the slot holds a heap tuple (a scan's buffer tuple): a MinimalTuple
 * is the heap tuple from MINIMAL_TUPLE_OFFSET on, except for its first word
 * (t_len), which the callers never read from these bytes; they copy the
 * rest and write the length themselves.  Other slots fall back to
 * ExecFetchSlotMinimalTuple; *tofree is then set when it made a copy.
 */
static inline const char *
fpb_hj_slot_bytes(FpbHjState *st, TupleTableSlot *slot, uint32 *len,
				  MinimalTuple *tofree)
{
	MinimalTuple mt;
	bool		shouldFree;

	*tofree = NULL;
	if (TTS_IS_BUFFERTUPLE(slot) || TTS_IS_HEAPTUPLE(slot))
	{
		HeapTuple	tuple = ((HeapTupleTableSlot *) slot)->tuple;

		if (tuple != NULL)
		{
			*len = tuple->t_len - MINIMAL_TUPLE_OFFSET;
			return (char *) tuple->t_data + MINIMAL_TUPLE_OFFSET;
		}
	}
	else if (TTS_IS_VIRTUAL(slot))
		return fpb_hj_form_minimal(st, slot, len);
	else if (TTS_IS_MINIMALTUPLE(slot) &&
			 ((MinimalTupleTableSlot *) slot)->mintuple != NULL)
	{
		mt = ((MinimalTupleTableSlot *) slot)->mintuple;
		*len = mt->t_len;
		return (const char *) mt;
	}
	mt = ExecFetchSlotMinimalTuple(slot, &shouldFree);
	if (shouldFree)
		*tofree = mt;
	*len = mt->t_len;
	return (const char *) mt;
}

/* fpb_ht_compact callback: keep the tuples of the current batch */
static bool
fpb_hj_keep_tuple(FpbHashTuple *htup, void *arg)
{
	FpbHjState *st = (FpbHjState *) arg;
	int			batchno = fpb_hj_batchno(st, htup->hashvalue);

	if (batchno == st->curbatch)
		return true;
	Assert(batchno > st->curbatch);
	fpb_spill_add(&st->inner_spill, batchno, htup->hashvalue,
				  (char *) FPB_HT_MINTUPLE(htup), FPB_HT_MINTUPLE(htup)->t_len);
	return false;
}

/*
 * Double the number of batches while loading the current batch's build
 * tuples: move those that now belong to a later batch out to its file,
 * compacting the arena in place.  Gives up growing (like the built-in
 * join) when a split moves nothing or everything, i.e. duplicates of one
 * key fill the batch.
 */
static void
fpb_hj_increase_batches(FpbHjState *st)
{
	int			oldn = st->nbatch;
	int			newn = oldn * 2;
	int64		before = st->ht.ntuples;
	int64		kept;

	if (newn > FPB_MAX_BATCHES)
	{
		st->grow_enabled = false;
		return;
	}
	/* staged records hold batch numbers of the old count: write them */
	fpb_spill_finish(&st->inner_spill);
	fpb_spill_finish(&st->outer_spill);
	fpb_spill_grow(&st->inner_spill, newn);
	fpb_spill_grow(&st->outer_spill, newn);
	st->nbatch = newn;
	st->spilled = true;
	st->peak_space = Max(st->peak_space, st->ht.tuple_bytes);

	kept = fpb_ht_compact(&st->ht, fpb_hj_keep_tuple, st);
	if (kept == before || kept == 0)
		st->grow_enabled = false;
}

/* Add one build tuple to the current batch (or to a later batch's file). */
static void
fpb_hj_add_inner(FpbHjState *st, TupleTableSlot *slot, bool from_file,
				 uint32 filehash)
{
	uint32		hashvalue;
	Datum		key;
	uint16		flags = 0;
	int			batchno;
	const char *data;
	uint32		len;
	MinimalTuple tofree;

	if (!fpb_hj_hash_slot(st, slot, false, &hashvalue, &key))
	{
		/* a NULL key never matches; only right/full joins emit it */
		if (!st->fill_inner)
			return;
		flags = FPB_HT_NOKEY;
		hashvalue = from_file ? filehash : murmurhash32(st->nokey_seq++);
	}
	if (!from_file)
		st->inner_total++;
	if (!st->byval_fast)
		key = (Datum) 0;

	batchno = fpb_hj_batchno(st, hashvalue);
	data = fpb_hj_slot_bytes(st, slot, &len, &tofree);
	if (batchno == st->curbatch)
	{
		Size		need = MAXALIGN(FPB_HT_OVERHEAD + len);

		while (st->grow_enabled &&
			   fpb_ht_projected_space(&st->ht, 1, need) > st->space_allowed)
		{
			fpb_hj_increase_batches(st);
			batchno = fpb_hj_batchno(st, hashvalue);
			if (batchno != st->curbatch)
				break;
		}
	}
	if (batchno == st->curbatch)
		fpb_ht_store(&st->ht, data, len, hashvalue, key, flags);
	else
	{
		fpb_spill_add(&st->inner_spill, batchno, hashvalue, data, len);
		st->spilled = true;
	}
	if (tofree)
		pfree(tofree);
}

/*
 * Radix bits for the loaded batch (0: probe directly).  Automatic: when the
 * table is more than four times the largest data cache (capped at 32 MB),
 * as many bits as make a partition about that size, so that a partition's
 * probes hit the cache instead of missing on nearly every access; and
 * only if the hash memory budget has room left for a chunk of
 * outer tuples big enough to probe each partition many times per visit.
 * Only the group scheme (and "none") probe by chunks: the pipelined ring
 * keeps entries in flight across the end of a chunk.
 */
static int
fpb_hj_radix_bits(FpbHjState *st, Size table)
{
	Size		room;
	int			bits;

	st->radix_pool = 0;
	if (fpb_hj_radix_bits_setting == 0 ||
		st->scheme == FPB_HJ_PREFETCH_PIPELINED || st->ht.ntuples == 0)
		return 0;
	if (fpb_hj_radix_bits_setting > 0)
		bits = fpb_hj_radix_bits_setting;
	else
	{
		Size		part = Max(fpb_hj_partition_bytes(), FPB_RADIX_MIN_PART);

		if (table <= 4 * part)
			return 0;
		bits = pg_ceil_log2_64((table + part - 1) / part);
		bits = Max(1, Min(bits, FPB_RADIX_MAX_BITS));
	}
	room = st->space_allowed > table ? st->space_allowed - table : 0;
	room = Min(room, FPB_RADIX_POOL_MAX);
	/* at least a few blocks per partition, or the chunks are too small */
	if (room < FPB_RADIX_MIN_POOL((Size) 1 << bits))
		return 0;
	st->radix_pool = room;
	return bits;
}

/* Load the current batch's build side and build its hash table. */
static void
fpb_hj_build(FpbHjState *st)
{
	Size		space;
	Size		table;
	int			bits;

	/*
	 * The chunk pool of an earlier table is sized for that table: unmap it
	 * before this one is loaded up to the budget beside it.
	 */
	fpb_radix_release(&st->radix);

	if (st->curbatch == 0)
	{
		st->inner_total = 0;
		for (;;)
		{
			TupleTableSlot *slot = ExecProcNode(st->inner_ps);

			if (TupIsNull(slot))
				break;
			fpb_hj_add_inner(st, slot, false, 0);
		}
	}
	else
	{
		BufFile    *file = fpb_spill_open_read(&st->inner_spill, st->curbatch);
		MinimalTuple tup;
		uint32		hashvalue;

		while (file != NULL && (tup = fpb_spill_read(file, &hashvalue, &st->readbuf,
									 &st->readbufsize, st->filecxt)) != NULL)
		{
			CHECK_FOR_INTERRUPTS();
			ExecStoreMinimalTuple(tup, st->inner_file_slot, false);
			fpb_hj_add_inner(st, st->inner_file_slot, true, hashvalue);
		}
		fpb_spill_close(&st->inner_spill, st->curbatch);
	}

	table = fpb_ht_projected_space(&st->ht, 0, 0);
	bits = fpb_hj_radix_bits(st, table);
	/* the copy may be faulted in at once if the budget holds it twice */
	if (bits > 0)
		fpb_ht_cluster(&st->ht, bits,
					   table + st->radix_pool + st->ht.tuple_bytes <=
					   st->space_allowed);
	fpb_ht_build(&st->ht, st->group_size, st->prefetch);
	st->nbuilds++;
	space = st->ht.tuple_bytes + st->ht.cell_bytes +
		(Size) st->ht.nbuckets * sizeof(FpbBucket);
	st->radix_on = st->ht.radix_bits > 0;
	if (st->radix_on)
	{
		/*
		 * The pool gets what the built table really leaves of the budget:
		 * the projection counts one cell per tuple, and duplicate keys take
		 * more (arrays double, the old ones stay).
		 */
		Size		room = st->space_allowed > space ?
			st->space_allowed - space : 0;

		st->radix_pool = Min(st->radix_pool, room);
		if (st->radix_pool < FPB_RADIX_MIN_POOL((Size) 1 << st->ht.radix_bits))
			st->radix_on = false;	/* clustered, but probed directly */
	}
	if (st->radix_on)
	{
		fpb_radix_setup(&st->radix, 1 << st->ht.radix_bits, st->radix_pool);
		st->max_radix_parts = Max(st->max_radix_parts, st->radix.nparts);
		space += st->radix.poolsize;
	}

	st->peak_space = Max(st->peak_space, space);
	st->max_buckets = Max(st->max_buckets, st->ht.nbuckets);
}

static void
fpb_hj_reset_ring(FpbHjState *st)
{
	int			i;

	for (i = 0; i < st->ringsize; i++)
		st->ring[i].tuple = NULL;
	st->head = st->emit = 0;
	st->ramp = 1;
	st->outer_done = false;
	fpb_radix_reset(&st->radix);
	st->source_done = false;
	st->radix_ramp = 1;
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

/* Start probing the current batch (or skip it if no row can come out). */
static void
fpb_hj_start_probe(FpbHjState *st)
{
	fpb_hj_reset_ring(st);
	if (st->nbatch == 1 && st->ht.ntuples == 0 && !st->fill_outer)
		st->phase = FPB_HJ_DONE;	/* empty build side: nothing can join */
	else
		st->phase = FPB_HJ_PROBE;
}

/*
 * Copy an outer tuple into a ring entry's reusable buffer.  A heap tuple is
 * copied straight from the scan's buffer (no MinimalTuple is formed and
 * freed per row).
 */
static void
fpb_hj_copy_entry(FpbHjState *st, FpbProbeEntry *e, TupleTableSlot *slot)
{
	const char *data;
	uint32		len;
	MinimalTuple tofree;

	data = fpb_hj_slot_bytes(st, slot, &len, &tofree);
	if (unlikely(e->bufsize < len))
	{
		if (e->buf)
			pfree(e->buf);
		e->bufsize = Max(len, 256);
		e->buf = MemoryContextAlloc(st->probecxt, e->bufsize);
	}
	e->tuple = (MinimalTuple) e->buf;
	fpb_mintuple_copy(e->buf, data, len);
	if (tofree)
		pfree(tofree);
}

/*
 * The next outer tuple of the current batch, hashed: *nullkey is set when a
 * key is NULL (only kept for joins that emit unmatched outer rows).  Tuples
 * of later batches go to their files.  NULL when the batch's outer side is
 * exhausted.
 */
static TupleTableSlot *
fpb_hj_next_outer(FpbHjState *st, uint32 *hashvalue, Datum *key,
				  bool *nullkey)
{
	for (;;)
	{
		TupleTableSlot *slot;
		int			batchno;

		if (st->curbatch == 0)
		{
			slot = st->first_outer;
			if (slot != NULL)
				st->first_outer = NULL;
			else
				slot = ExecProcNode(st->outer_ps);
			if (TupIsNull(slot))
				return NULL;
		}
		else
		{
			BufFile    *file = st->outer_read;
			MinimalTuple tup;
			uint32		filehash;

			if (file == NULL)
				return NULL;
			tup = fpb_spill_read(file, &filehash, &st->readbuf,
								 &st->readbufsize, st->filecxt);
			if (tup == NULL)
				return NULL;
			slot = st->outer_file_slot;
			ExecStoreMinimalTuple(tup, slot, false);
		}

		if (!fpb_hj_hash_slot(st, slot, true, hashvalue, key))
		{
			if (!st->fill_outer)
				continue;
			st->outer_not_empty = true;
			*hashvalue = 0;
			*key = (Datum) 0;
			*nullkey = true;
			return slot;
		}
		st->outer_not_empty = true;

		batchno = fpb_hj_batchno(st, *hashvalue);
		if (batchno != st->curbatch)
		{
			const char *data;
			uint32		len;
			MinimalTuple tofree;

			Assert(batchno > st->curbatch);
			data = fpb_hj_slot_bytes(st, slot, &len, &tofree);
			fpb_spill_add(&st->outer_spill, batchno, *hashvalue, data, len);
			if (tofree)
				pfree(tofree);
			st->spilled = true;
			continue;
		}
		*nullkey = false;
		return slot;
	}
}

/* Set up entry e (its tuple already in place) and run stage 0. */
static inline void
fpb_hj_start_entry(FpbHjState *st, FpbProbeEntry *e, uint32 hashvalue,
				   Datum key, bool nullkey)
{
	e->matched = false;
	e->stored = false;
	e->ncells = 0;
	e->pos = 0;
	e->nullkey = nullkey;
	if (nullkey)
	{
		e->stage = 2;
		return;
	}
	e->hashvalue = hashvalue;
	e->key = key;
	e->bucket = &st->ht.buckets[hashvalue & st->ht.mask];
	if (st->prefetch)
		FPB_PREFETCH_R(e->bucket);
	e->stage = 0;
}

/*
 * Radix probing: read the next chunk of outer tuples into the partitions.
 * Chunks ramp up from one row, doubling, as groups do, so that a consumer
 * that stops early has not made us read far ahead.  False when the outer
 * side has no more rows.
 */
static bool
fpb_hj_radix_fill(FpbHjState *st)
{
	int64		limit = st->radix_ramp;
	FpbRadix   *r = &st->radix;

	fpb_radix_reset(r);
	if (st->source_done)
		return false;
	if (st->radix_ramp < PG_INT64_MAX / 2)
		st->radix_ramp *= 2;
	while (r->nrows < limit && !fpb_radix_full(r))
	{
		TupleTableSlot *slot;
		uint32		hashvalue;
		Datum		key;
		bool		nullkey;
		const char *data;
		uint32		len;
		MinimalTuple tofree;

		/* a batch file's rows come without the child's interrupt checks */
		if ((r->nrows & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		slot = fpb_hj_next_outer(st, &hashvalue, &key, &nullkey);
		if (slot == NULL)
		{
			st->source_done = true;
			break;
		}
		data = fpb_hj_slot_bytes(st, slot, &len, &tofree);
		fpb_radix_add(r, nullkey ? 0 : fpb_ht_partition(&st->ht, hashvalue),
					  hashvalue, key, nullkey, data, len);
		if (tofree)
			pfree(tofree);
	}
	if (r->nrows > 0)
		r->nchunks++;
	return r->nrows > 0;
}

/*
 * Fetch the next outer tuple into e and run stage 0 (hash, prefetch the
 * bucket header).  Radix probing takes it from the current chunk and
 * returns false at the chunk's end (the caller refills once no entry
 * refers to the chunk any more); otherwise false means the batch's outer
 * side is exhausted.
 */
static bool
fpb_hj_fetch_outer(FpbHjState *st, FpbProbeEntry *e)
{
	TupleTableSlot *slot;
	uint32		hashvalue;
	Datum		key;
	bool		nullkey;

	if (st->radix_on)
	{
		FpbRadixRec *rec = fpb_radix_next(&st->radix);

		if (rec == NULL)
			return false;
		e->tuple = FPB_RADIX_REC_TUPLE(rec);
		fpb_hj_start_entry(st, e, rec->hashvalue, rec->key, rec->nullkey);
		return true;
	}
	slot = fpb_hj_next_outer(st, &hashvalue, &key, &nullkey);
	if (slot == NULL)
		return false;
	fpb_hj_copy_entry(st, e, slot);
	fpb_hj_start_entry(st, e, hashvalue, key, nullkey);
	return true;
}

/* stage 1: read the bucket header, prefetch the cells (or the tuple) */
static inline void
fpb_hj_stage1(FpbHjState *st, FpbProbeEntry *e)
{
	FpbBucket  *b;

	if (e->stage != 0)
		return;
	b = e->bucket;
	if (b->count == 0)
		e->ncells = 0;
	else if (b->count == 1)
	{
		e->cells = &b->u.one;
		e->ncells = 1;
		if (st->prefetch && e->cells->hashvalue == e->hashvalue)
			FPB_PREFETCH_R(e->cells->tuple);
	}
	else
	{
		e->cells = b->u.cells;
		e->ncells = b->count;
		if (st->prefetch)
		{
			FPB_PREFETCH_R(e->cells);
			if (e->ncells * sizeof(FpbHashCell) > 64)
				FPB_PREFETCH_R((char *) e->cells + 64);
		}
	}
	e->stage = 1;
}

/* stage 2: compare hash codes, prefetch the first candidate tuples */
static inline void
fpb_hj_stage2(FpbHjState *st, FpbProbeEntry *e)
{
	if (e->stage != 1)
		return;
	if (e->ncells > 1)
	{
		uint32		i;
		int			nprefetched = 0;

		e->pos = e->ncells;
		for (i = 0; i < e->ncells && nprefetched < 4; i++)
		{
			FpbHashCell *c = &e->cells[i];

			if (c->hashvalue != e->hashvalue)
				continue;
			if (e->pos == e->ncells)
				e->pos = i;
			if (st->prefetch)
				FPB_PREFETCH_R(c->tuple);
			nprefetched++;
		}
	}
	e->stage = 2;
}

/*
 * stage 3: walk the candidates of entry e, returning the next joined row,
 * or the null-extended row, or NULL when the entry is finished.
 */
static TupleTableSlot *
fpb_hj_emit(FpbHjState *st, FpbProbeEntry *e)
{
	ExprContext *econtext = st->css.ss.ps.ps_ExprContext;

	if (!e->stored)
	{
		ExecStoreMinimalTuple(e->tuple, st->probe_slot, false);
		e->stored = true;
	}
	econtext->ecxt_outertuple = st->probe_slot;

	while (e->pos < e->ncells)
	{
		FpbHashCell *c = &e->cells[e->pos++];
		FpbHashTuple *htup;

		if (c->hashvalue != e->hashvalue)
			continue;
		if (st->byval_fast && !fpb_hj_key_equal(st, e->key, c->key))
			continue;

		htup = c->tuple;
		ExecStoreMinimalTuple(FPB_HT_MINTUPLE(htup), st->build_slot, false);
		econtext->ecxt_innertuple = st->build_slot;

		/* nothing of this call has been returned yet: safe to reset */
		ResetExprContext(econtext);
		if (!st->byval_fast && !ExecQual(st->hashquals, econtext))
			continue;
		if (st->joinqual != NULL && !ExecQual(st->joinqual, econtext))
		{
			InstrCountFiltered1(&st->css.ss.ps, 1);
			continue;
		}

		e->matched = true;
		if (st->fill_inner)
			htup->flags |= FPB_HT_MATCHED;
		if (st->jointype == JOIN_ANTI)
		{
			e->pos = e->ncells;
			break;
		}
		if (st->single_match)
			e->pos = e->ncells;
		if (st->otherqual == NULL || ExecQual(st->otherqual, econtext))
			return ExecProject(st->proj);
		InstrCountFiltered2(&st->css.ss.ps, 1);
	}

	if (!e->matched && st->fill_outer)
	{
		e->matched = true;
		econtext->ecxt_innertuple = st->null_inner;
		ResetExprContext(econtext);
		if (st->otherqual == NULL || ExecQual(st->otherqual, econtext))
			return ExecProject(st->proj);
		InstrCountFiltered2(&st->css.ss.ps, 1);
	}
	return NULL;
}

/* Group prefetching: fill G entries, run each stage over all, emit. */
static TupleTableSlot *
fpb_hj_probe_group(FpbHjState *st)
{
	for (;;)
	{
		int			n;
		int			i;
		int			limit;

		while (st->emit < st->head)
		{
			TupleTableSlot *slot = fpb_hj_emit(st, &st->ring[st->emit]);

			if (slot != NULL)
				return slot;
			st->emit++;
		}
		if (st->outer_done)
			return NULL;

		CHECK_FOR_INTERRUPTS();

		/*
		 * The first group after a (re)start holds one outer tuple, the next
		 * two, then four, up to G: a consumer that stops early (LIMIT, an
		 * EXISTS subplan, a cursor) has then made us read and evaluate the
		 * keys of at most about as many outer tuples beyond what it used as
		 * it used, instead of up to G - 1 more.  Key expressions of those
		 * extra rows could raise errors the built-in join never reaches.
		 */
		limit = st->ramp;
		if (st->ramp < st->group_size)
			st->ramp = Min(st->ramp * 2, st->group_size);
		n = 0;
		while (n < limit && fpb_hj_fetch_outer(st, &st->ring[n]))
			n++;
		if (st->radix_on)
		{
			/*
			 * A group ends early at the end of a chunk; the next chunk is
			 * read only when no entry refers to this one any more.
			 */
			if (n == 0 && fpb_hj_radix_fill(st))
				while (n < limit && fpb_hj_fetch_outer(st, &st->ring[n]))
					n++;
			if (n == 0)
				st->outer_done = true;
		}
		else if (n < limit)
			st->outer_done = true;
		for (i = 0; i < n; i++)
			fpb_hj_stage1(st, &st->ring[i]);
		for (i = 0; i < n; i++)
			fpb_hj_stage2(st, &st->ring[i]);
		st->head = n;
		st->emit = 0;
	}
}

/*
 * Software-pipelined prefetching: each fetch runs stage 0 for the new
 * entry j, stage 1 for entry j-D and stage 2 for entry j-2D; the oldest
 * entry is emitted once its stage 2 is done.
 */
static TupleTableSlot *
fpb_hj_probe_pipelined(FpbHjState *st)
{
	uint64		mask = (uint64) st->ringsize - 1;
	uint64		d = (uint64) st->distance;

	for (;;)
	{
		if (st->emit < st->head)
		{
			FpbProbeEntry *e = &st->ring[st->emit & mask];

			/*
			 * Ramp up as the group scheme does: right after a (re)start no
			 * more entries are read ahead of the oldest one than have been
			 * emitted so far, so finish its stages here instead of waiting
			 * for 2D newer entries.
			 */
			if (e->stage != 2 && st->head - st->emit > Min(2 * d, st->emit))
			{
				fpb_hj_stage1(st, e);
				fpb_hj_stage2(st, e);
			}
			if (e->stage == 2)
			{
				TupleTableSlot *slot = fpb_hj_emit(st, e);

				if (slot != NULL)
					return slot;
				st->emit++;
				continue;
			}
		}
		else if (st->outer_done)
			return NULL;

		if (!st->outer_done)
		{
			Assert(st->head - st->emit < (uint64) st->ringsize);
			if (fpb_hj_fetch_outer(st, &st->ring[st->head & mask]))
			{
				st->head++;
				if (st->head >= d + 1 && st->head - 1 - d >= st->emit)
					fpb_hj_stage1(st, &st->ring[(st->head - 1 - d) & mask]);
				if (st->head >= 2 * d + 1 && st->head - 1 - 2 * d >= st->emit)
					fpb_hj_stage2(st, &st->ring[(st->head - 1 - 2 * d) & mask]);
				continue;
			}
			st->outer_done = true;
		}

		/* outer side exhausted: finish the stages of what is left */
		{
			uint64		j;

			for (j = st->emit; j < st->head; j++)
			{
				fpb_hj_stage1(st, &st->ring[j & mask]);
				fpb_hj_stage2(st, &st->ring[j & mask]);
			}
		}
	}
}

/* Right/full joins: the build tuples no probe matched. */
static TupleTableSlot *
fpb_hj_fill_inner_next(FpbHjState *st)
{
	ExprContext *econtext = st->css.ss.ps.ps_ExprContext;
	FpbHashTuple *htup;

	while ((htup = fpb_arena_iter_next(&st->fill_iter)) != NULL)
	{
		if (htup->flags & FPB_HT_MATCHED)
			continue;
		ResetExprContext(econtext);
		ExecStoreMinimalTuple(FPB_HT_MINTUPLE(htup), st->build_slot, false);
		econtext->ecxt_outertuple = st->null_outer;
		econtext->ecxt_innertuple = st->build_slot;
		if (st->otherqual == NULL || ExecQual(st->otherqual, econtext))
			return ExecProject(st->proj);
		InstrCountFiltered2(&st->css.ss.ps, 1);
	}
	return NULL;
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
				fpb_hj_build(st);
				if (st->inner_total == 0)
				{
					/*
					 * Nothing can match: a join without outer fill ends
					 * without reading the outer side (as the built-in join
					 * does), and the others need no batches for it.  Nothing
					 * was spilled and no outer tuple has been hashed yet.
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
				return NULL;
		}
	}
}

/* Drop all batches and the hash table: back to the state before a build. */
static void
fpb_hj_release(FpbHjState *st)
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
	st->curbatch = 0;
	st->grow_enabled = true;
	st->nokey_seq = 0;
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
 * starts over.  ExecReScan does not pass chgParam to custom_ps, so do it.
 */
static void
fpb_hj_rescan(CustomScanState *node)
{
	FpbHjState *st = (FpbHjState *) node;
	PlanState  *outer = st->outer_ps;
	PlanState  *inner = st->inner_ps;

	if (node->ss.ps.chgParam != NULL)
	{
		UpdateChangedParamSet(outer, node->ss.ps.chgParam);
		UpdateChangedParamSet(inner, node->ss.ps.chgParam);
	}

	st->first_outer = NULL;
	if (st->phase != FPB_HJ_BUILD && st->ht.built && st->nbatch == 1 &&
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
		ExplainPropertyText("Prefetch", fpb_hj_scheme_name(st->scheme), es);
		if (st->scheme == FPB_HJ_PREFETCH_GROUP)
			ExplainPropertyInteger("Group Size", NULL, st->group_size, es);
		else if (st->scheme == FPB_HJ_PREFETCH_PIPELINED)
			ExplainPropertyInteger("Prefetch Distance", NULL, st->distance, es);
		ExplainPropertyInteger("Buckets", NULL, st->max_buckets, es);
		ExplainPropertyInteger("Batches", NULL, st->nbatch, es);
		ExplainPropertyInteger("Original Batches", NULL, st->plan_nbatch, es);
		ExplainPropertyInteger("Builds", NULL, st->nbuilds, es);
		ExplainPropertyInteger("Peak Memory Usage", "kB",
							   (int64) ((st->peak_space + 1023) / 1024), es);
		ExplainPropertyBool("Spilled", st->spilled, es);
		ExplainPropertyInteger("Radix Partitions", NULL, st->max_radix_parts,
							   es);
		if (st->max_radix_parts > 0)
			ExplainPropertyInteger("Probe Chunks", NULL, st->radix.nchunks, es);
		if (st->spilled)
			ExplainPropertyText("Partition Prefetch",
								fpb_hj_scheme_name(st->partition_scheme), es);
	}
}
