/*-------------------------------------------------------------------------
 *
 * buffer.c
 *	  The buffer operator (Zhou & Ross, SIGMOD 2004) as a CustomScan node,
 *	  and the settings of the buffer operator and of the plan refinement.
 *
 * A Buffer has one child (in lefttree, see fpb_make_buffer_plan).  When
 * its ring is empty it calls the child until the ring holds
 * fpbtree.buffer_size tuples (or the child is exhausted; after a start or
 * rescan the fills ramp up from one tuple, see buffer_refill), then hands
 * the tuples to its parent one by one, so the child's code runs many times
 * in a row and then the parent's,
 * instead of alternating per tuple: each group's code stays in the L1
 * instruction cache.  The paper's prototype kept pointers to the child's
 * tuples; in PostgreSQL a child's slot is only valid until the child is
 * called again, so tuples are copied as minimal tuples into an arena of
 * memory blocks that is reused from one refill to the next (no palloc per
 * tuple), together with the values the child has already deformed.  A
 * refill stops once the arena holds work_mem, and tuples too wide for a
 * block get memory of their own that the next refill frees, so a Buffer
 * holds about work_mem plus its widest tuple, whatever the rows' widths.
 *
 * The node is transparent: its output columns are the child's, one for
 * one, so the parent's references to its child stay valid when a Buffer is
 * slipped in between.  It supports neither backward scans nor mark/restore;
 * the refinement pass (refine.c) never places it where they are needed.
 *
 * See src/exec/README.md.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "buffer.h"
#include "cpucache.h"
#include "exec.h"
#include "guc_alias.h"
#include "mintuple.h"

/* settings */
bool		fpb_enable_buffer = true;
bool		fpb_enable_buffer_session = true;
int			fpb_buffer_size = 1000;
int			fpb_buffer_min_rows = 300;
int			fpb_l1i_cache_size = 32 * 1024;

/* arena blocks: big enough that a refill of narrow tuples needs a few */
#define BUFFER_BLOCK_SIZE	(64 * 1024)

/*
 * A tuple (with its values) larger than this that does not fit in the rest
 * of the current block gets an allocation of its own, freed at the next
 * refill: blocks are reused for every refill, so one sized for a wide tuple
 * would be kept for good, and moving on to the next block leaves less than
 * this unused at the end of the current one.
 */
#define BUFFER_LARGE_TUPLE	(BUFFER_BLOCK_SIZE / 4)

typedef struct BufferBlock
{
	struct BufferBlock *next;
	Size		size;			/* usable bytes in data[] */
	char		data[FLEXIBLE_ARRAY_MEMBER];
} BufferBlock;

#define BUFFER_BLOCK_BYTES(size)	(offsetof(BufferBlock, data) + (size))

/* entries of a new ring: the default buffer_size's, in 32 kB */
#define BUFFER_RING_START	1024

/*
 * One buffered tuple: the minimal tuple and, when the child had already
 * deformed some of its attributes, their values (by-reference ones
 * pointing into the copy), so the parent does not deform the tuple again.
 */
typedef struct BufferEntry
{
	MinimalTuple tuple;
	Datum	   *values;			/* nvalid values, then nvalid isnull flags */
	int			nvalid;
	uint32		off;			/* deforming state after nvalid attributes */
	bool		slow;
} BufferEntry;

typedef struct BufferState
{
	CustomScanState css;
	PlanState  *child;
	TupleDesc	tupdesc;		/* = the child's output columns */
	bool	   *byval;			/* attbyval of each column */
	TupleTableSlot *outslot;	/* minimal-tuple slot handed to the parent */
	int			nslots;			/* ring capacity */
	int			fill_target;	/* tuples the next refill takes (ramp) */
	BufferEntry *ring;
	int			ring_alloc;		/* entries allocated: grows as filled */
	int			ntuples;		/* tuples in the ring */
	int			next;			/* next tuple to hand out */
	bool		child_done;		/* child returned end of data */

	/*
	 * The arena: a chain of BUFFER_BLOCK_SIZE blocks, refilled from the first
	 * block each time, and the large tuples' own allocations of the current
	 * refill.
	 */
	BufferBlock *blocks;
	BufferBlock *curblock;
	Size		curoff;
	BufferBlock *large;			/* this refill's large tuples */
	Size		arena_used;		/* bytes this refill took or skipped */
	Size		arena_limit;	/* stop filling beyond this (work_mem) */
	Size		mem_held;		/* bytes of the ring and all blocks */
	Size		mem_peak;		/* highest mem_held, for EXPLAIN ANALYZE */

	/* for EXPLAIN ANALYZE (summed over rescans) */
	int64		refills;
	int			group_bytes;	/* footprint of the group below, for EXPLAIN */
} BufferState;

static Node *buffer_create_state(CustomScan *cscan);
static void buffer_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *buffer_exec(CustomScanState *node);
static TupleTableSlot *buffer_exec_node(PlanState *pstate);
static void buffer_end(CustomScanState *node);
static void buffer_rescan(CustomScanState *node);
static void buffer_explain(CustomScanState *node, List *ancestors,
						   ExplainState *es);
static void buffer_count_memory(BufferState *bs, ssize_t bytes);

static const CustomScanMethods buffer_scan_methods = {
	.CustomName = FPB_BUFFER_NAME,
	.CreateCustomScanState = buffer_create_state,
};

static const CustomExecMethods buffer_exec_methods = {
	.CustomName = FPB_BUFFER_NAME,
	.BeginCustomScan = buffer_begin,
	.ExecCustomScan = buffer_exec,
	.EndCustomScan = buffer_end,
	.ReScanCustomScan = buffer_rescan,
	.ExplainCustomScan = buffer_explain,
};

/*
 * Build a Buffer plan node above a finished (post-setrefs) child plan.
 *
 * The scan tuple is the child's output row: custom_scan_tlist holds one
 * OUTER_VAR reference per child column, and the targetlist one INDEX_VAR
 * reference per scan column, so the executor sees a tlist that matches the
 * scan tuple and does not project.
 *
 * The child is the node's lefttree, and only that: EXPLAIN's deparser
 * resolves those OUTER_VARs in the outer plan, which it takes from
 * lefttree.  It must not be in custom_plans as well: a node reachable
 * twice is copied twice by copyObject (a cached plan) and written twice by
 * nodeToString (the plan sent to a Gather's workers), which doubles the
 * plan with every nested Buffer.  The executor initialises neither for a
 * CustomScan; buffer_begin does, and lists the child's state in custom_ps,
 * where EXPLAIN and the executor's tree walkers find a CustomScan's
 * children.  (custom_plans would need custom_scan_tlist rewritten into
 * base-relation expressions for the deparser, which then names the
 * columns of an Append's children differently from PostgreSQL's own
 * nodes.)
 */
Plan *
fpb_make_buffer_plan(Plan *child, int nslots, int group_bytes,
					 int plan_node_id)
{
	CustomScan *cscan = makeNode(CustomScan);
	Plan	   *plan = &cscan->scan.plan;
	List	   *tlist = NIL;
	List	   *scan_tlist = NIL;
	ListCell   *lc;

	foreach(lc, child->targetlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		Oid			type = exprType((Node *) tle->expr);
		int32		typmod = exprTypmod((Node *) tle->expr);
		Oid			coll = exprCollation((Node *) tle->expr);

		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) makeVar(OUTER_VAR, tle->resno,
															  type, typmod, coll, 0),
											 tle->resno, tle->resname,
											 tle->resjunk));
		tlist = lappend(tlist,
						makeTargetEntry((Expr *) makeVar(INDEX_VAR, tle->resno,
														 type, typmod, coll, 0),
										tle->resno, tle->resname,
										tle->resjunk));
	}

	/* the refinement does not change the estimates */
	plan->startup_cost = child->startup_cost;
	plan->total_cost = child->total_cost;
	plan->plan_rows = child->plan_rows;
	plan->plan_width = child->plan_width;
	plan->parallel_aware = false;
	plan->parallel_safe = child->parallel_safe;
	plan->async_capable = false;
	plan->plan_node_id = plan_node_id;
	plan->targetlist = tlist;
	plan->qual = NIL;
	plan->lefttree = child;
	plan->righttree = NULL;
	plan->initPlan = NIL;

	/*
	 * The parent passes parameter changes on only for the parameters a node
	 * depends on (UpdateChangedParamSet intersects with allParam): the
	 * Buffer depends on exactly what its child depends on.
	 */
	plan->extParam = bms_copy(child->extParam);
	plan->allParam = bms_copy(child->allParam);

	cscan->scan.scanrelid = 0;
	cscan->flags = 0;			/* no backward scan, no mark/restore */
	cscan->custom_plans = NIL;	/* the child is in lefttree only */
	cscan->custom_exprs = NIL;
	cscan->custom_private = list_make2(makeInteger(nslots),
									   makeInteger(group_bytes));
	cscan->custom_scan_tlist = scan_tlist;
	cscan->custom_relids = NULL;
	cscan->methods = &buffer_scan_methods;

	return plan;
}

bool
fpb_is_buffer_plan(Plan *plan)
{
	return plan != NULL && IsA(plan, CustomScan) &&
		((CustomScan *) plan)->methods == &buffer_scan_methods;
}

static Node *
buffer_create_state(CustomScan *cscan)
{
	BufferState *bs = palloc0(sizeof(BufferState));

	NodeSetTag(bs, T_CustomScanState);
	bs->css.methods = &buffer_exec_methods;
	bs->nslots = intVal(linitial(cscan->custom_private));
	bs->group_bytes = intVal(lsecond(cscan->custom_private));
	return (Node *) bs;
}

static void
buffer_begin(CustomScanState *node, EState *estate, int eflags)
{
	BufferState *bs = (BufferState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	int			i;

	/*
	 * The pass never puts a Buffer where these are needed; an executor that
	 * asks anyway gets an error rather than wrong results.
	 */
	if (eflags & (EXEC_FLAG_BACKWARD | EXEC_FLAG_MARK))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the Buffer operator supports neither backward scans nor mark/restore")));

	bs->child = ExecInitNode(outerPlan(cscan), estate, eflags);
	node->custom_ps = list_make1(bs->child);

	/* the tlist matches the scan tuple, so ExecInitCustomScan set no projection */
	Assert(node->ss.ps.ps_ProjInfo == NULL);

	bs->tupdesc = node->ss.ss_ScanTupleSlot->tts_tupleDescriptor;
	bs->byval = palloc(sizeof(bool) * Max(bs->tupdesc->natts, 1));
	for (i = 0; i < bs->tupdesc->natts; i++)
		bs->byval[i] = TupleDescAttr(bs->tupdesc, i)->attbyval;
	bs->outslot = ExecInitExtraTupleSlot(estate, bs->tupdesc,
										 &TTSOpsMinimalTuple);

	/*
	 * Tell the parent (whose expressions are initialised after us) what kind
	 * of slot it gets, so that compiled deforming matches it.
	 */
	node->ss.ps.resultops = &TTSOpsMinimalTuple;
	node->ss.ps.resultopsfixed = true;
	node->ss.ps.resultopsset = true;

	/*
	 * The parent calls us directly, not through ExecCustomScan (which
	 * ExecInitCustomScan installed before calling us, and ExecInitNode wraps
	 * whatever is here when we return): one function less on the parent's
	 * per-tuple path, which shares the instruction cache with the parent's
	 * code.  ExecCustomScan's interrupt check moves to buffer_refill.
	 */
	node->ss.ps.ExecProcNode = buffer_exec_node;

	if (bs->nslots < 1)
		bs->nslots = 1;

	/*
	 * The ring grows as refills fill it (buffer_refill): a large
	 * fpbtree.buffer_size costs memory only where rows of the width seen
	 * fit work_mem, not at executor start for every Buffer of the plan.
	 */
	bs->ring_alloc = Min(bs->nslots, BUFFER_RING_START);
	bs->ring = palloc(sizeof(BufferEntry) * bs->ring_alloc);
	bs->arena_limit = (Size) work_mem * 1024;
	bs->fill_target = 1;
	buffer_count_memory(bs, sizeof(BufferEntry) * bs->ring_alloc);
}

/* Room for one more entry in the ring (never beyond nslots). */
static pg_noinline void
buffer_grow_ring(BufferState *bs)
{
	int			n = Min(bs->ring_alloc * 2, bs->nslots);

	Assert(bs->ring_alloc < bs->nslots);
	bs->ring = repalloc(bs->ring, sizeof(BufferEntry) * n);
	buffer_count_memory(bs, sizeof(BufferEntry) * (n - bs->ring_alloc));
	bs->ring_alloc = n;
}

/* account for bytes allocated (or, negative, freed) for this node */
static void
buffer_count_memory(BufferState *bs, ssize_t bytes)
{
	bs->mem_held += bytes;
	bs->mem_peak = Max(bs->mem_peak, bs->mem_held);
}

/* free a chain of blocks */
static void
buffer_free_blocks(BufferState *bs, BufferBlock *blk)
{
	while (blk != NULL)
	{
		BufferBlock *next = blk->next;

		buffer_count_memory(bs, -(ssize_t) BUFFER_BLOCK_BYTES(blk->size));
		pfree(blk);
		blk = next;
	}
}

/*
 * Forget the ring's tuples: the blocks are reused by the next refill, the
 * large tuples' memory is freed.
 */
static void
buffer_reset_arena(BufferState *bs)
{
	buffer_free_blocks(bs, bs->large);
	bs->large = NULL;
	bs->curblock = bs->blocks;
	bs->curoff = 0;
	bs->arena_used = 0;
	bs->ntuples = 0;
	bs->next = 0;
}

/*
 * len bytes for a tuple that does not fit in the rest of the current block
 * (buffer_alloc).  Out of line: it runs once per block or per large tuple,
 * and the per-tuple path of the fill stays short (it shares the
 * instruction cache with the child's code).
 */
static pg_noinline char *
buffer_alloc_slow(BufferState *bs, Size len)
{
	MemoryContext cxt = bs->css.ss.ps.state->es_query_cxt;
	BufferBlock *blk;

	if (len > BUFFER_LARGE_TUPLE)
	{
		/*
		 * The blocks this refill has not reached are only kept for reuse:
		 * give them back rather than hold them and the large tuples (a run
		 * of narrow rows followed by wide ones would hold both).
		 */
		if (bs->curblock != NULL &&
			bs->mem_held + BUFFER_BLOCK_BYTES(len) > bs->arena_limit)
		{
			buffer_free_blocks(bs, bs->curblock->next);
			bs->curblock->next = NULL;
		}
		blk = MemoryContextAlloc(cxt, BUFFER_BLOCK_BYTES(len));
		blk->size = len;
		blk->next = bs->large;
		bs->large = blk;
		buffer_count_memory(bs, BUFFER_BLOCK_BYTES(len));
		bs->arena_used += len;
		return blk->data;
	}

	/* the next block of the chain, or a new one at its end */
	if (bs->curblock != NULL)
	{
		bs->arena_used += bs->curblock->size - bs->curoff;
		if (bs->curblock->next == NULL)
		{
			blk = MemoryContextAlloc(cxt, BUFFER_BLOCK_BYTES(BUFFER_BLOCK_SIZE));
			blk->next = NULL;
			blk->size = BUFFER_BLOCK_SIZE;
			bs->curblock->next = blk;
			buffer_count_memory(bs, BUFFER_BLOCK_BYTES(BUFFER_BLOCK_SIZE));
		}
		bs->curblock = bs->curblock->next;
	}
	else
	{
		/* the first block of the node */
		Assert(bs->blocks == NULL);
		blk = MemoryContextAlloc(cxt, BUFFER_BLOCK_BYTES(BUFFER_BLOCK_SIZE));
		blk->next = NULL;
		blk->size = BUFFER_BLOCK_SIZE;
		bs->blocks = bs->curblock = blk;
		buffer_count_memory(bs, BUFFER_BLOCK_BYTES(BUFFER_BLOCK_SIZE));
	}
	bs->curoff = len;
	bs->arena_used += len;
	return bs->curblock->data;
}

/* len bytes (MAXALIGNed) from the arena, reusing blocks before adding any */
static inline char *
buffer_alloc(BufferState *bs, Size len)
{
	char	   *p;

	len = MAXALIGN(len);
	if (unlikely(bs->curblock == NULL ||
				 bs->curoff + len > bs->curblock->size))
		return buffer_alloc_slow(bs, len);
	p = bs->curblock->data + bs->curoff;
	bs->curoff += len;
	bs->arena_used += len;
	return p;
}

/*
 * Form the child's current tuple (a virtual one, or a table row older than
 * an ADD COLUMN) from its values into the arena.  Out of line: Q1-shaped
 * scans never get here, and the per-tuple path of the fill stays short.
 */
static pg_noinline void
buffer_form_tuple(BufferState *bs, TupleTableSlot *slot, BufferEntry *e)
{
	FpbMinLayout lay;
	MinimalTuple mtup;

	fpb_mintuple_layout(slot, &lay);
	mtup = (MinimalTuple) buffer_alloc(bs, lay.total);
	fpb_mintuple_fill(slot, &lay, mtup);
	e->tuple = mtup;
	e->nvalid = 0;
}

/*
 * Copy the child's current tuple into the arena as a minimal tuple.
 *
 * A child that hands out a materialised heap or minimal tuple of the full
 * width (scans without projection, sorts, materialisations) is copied with
 * one memcpy: len bytes at src, a minimal tuple or a heap tuple's bytes from
 * MINIMAL_TUPLE_OFFSET on.  Anything else is formed from its values
 * (buffer_form_tuple).
 *
 * The values of the attributes the child has already deformed are kept as
 * well (a scan deforms its row for its qual; the parent would otherwise
 * deform the copy again: a few hundred instructions per row for Q1, and the
 * deforming code in the parent's execution group).  By-reference values
 * point into src and are moved to the copy in the same loop that copies
 * them (no library calls: this runs in the child's execution group); if one
 * points elsewhere (it cannot be moved), none are kept and the parent
 * deforms as usual.  One allocation holds the values, their null flags and
 * the tuple.
 */
static inline void
buffer_copy_tuple(BufferState *bs, TupleTableSlot *slot, BufferEntry *e)
{
	const char *src = NULL;
	uint32		len = 0;
	uint32		off = 0;
	int			nvalid;
	Size		vsize;
	Size		nsize;
	char	   *mem;
	char	   *dst;
	Datum	   *values;
	bool	   *isnull;
	const bool *byval;
	int			i;

	if (TTS_IS_HEAPTUPLE(slot) || TTS_IS_BUFFERTUPLE(slot))
	{
		HeapTupleTableSlot *hslot = (HeapTupleTableSlot *) slot;
		HeapTuple	htup = hslot->tuple;

		if (htup != NULL &&
			HeapTupleHeaderGetNatts(htup->t_data) == bs->tupdesc->natts)
		{
			src = (char *) htup->t_data + MINIMAL_TUPLE_OFFSET;
			len = htup->t_len - MINIMAL_TUPLE_OFFSET;
			off = hslot->off;
		}
	}
	else if (TTS_IS_MINIMALTUPLE(slot))
	{
		MinimalTupleTableSlot *mslot = (MinimalTupleTableSlot *) slot;
		MinimalTuple mtup = mslot->mintuple;

		if (mtup != NULL && HeapTupleHeaderGetNatts(mtup) == bs->tupdesc->natts)
		{
			src = (char *) mtup;
			len = mtup->t_len;
			off = mslot->off;
		}
	}
	if (unlikely(src == NULL))
	{
		buffer_form_tuple(bs, slot, e);
		return;
	}

	nvalid = slot->tts_nvalid;
	vsize = MAXALIGN(sizeof(Datum) * nvalid);
	nsize = MAXALIGN(sizeof(bool) * nvalid);
	mem = buffer_alloc(bs, vsize + nsize + len);
	dst = mem + vsize + nsize;
	values = (Datum *) mem;
	isnull = (bool *) (mem + vsize);

	/* a heap tuple's first word is not t_len: write it */
	memcpy(dst, src, len);
	((MinimalTuple) dst)->t_len = len;
	e->tuple = (MinimalTuple) dst;
	e->values = values;
	e->nvalid = 0;

	byval = bs->byval;
	for (i = 0; i < nvalid; i++)
	{
		Datum		v = slot->tts_values[i];
		bool		n = slot->tts_isnull[i];

		if (!byval[i] && !n)
		{
			uintptr_t	rel = (uintptr_t) (DatumGetPointer(v) - src);

			if (unlikely(rel >= len))
				return;
			v = PointerGetDatum(dst + rel);
		}
		values[i] = v;
		isnull[i] = n;
	}
	e->nvalid = nvalid;
	e->off = off;
	e->slow = TTS_SLOW(slot);
}

/*
 * Call the child until the ring holds fill_target tuples, the arena limit
 * is hit or the child ends.  Once the child has ended, only empty the ring.
 *
 * The fill ramps up: after each (re)start the first refill takes one tuple,
 * and each later one twice as many as the one before, up to the ring size.
 * A parent that stops reading early (a merge join whose inner side ran out,
 * a hash join whose hash table is empty, anything the refinement pass could
 * not foresee) has then made the child produce at most about twice the
 * tuples it consumed, never a whole ring: the child does little work the
 * unbuffered plan would not have done, and evaluates few rows (which might
 * raise errors) that plan would never have reached.  A full-length scan
 * pays about log2(ring size) extra refills per start, nothing per tuple.
 *
 * Kept out of line, so that buffer_exec's per-tuple path in the parent's
 * execution group is a few cache lines.
 */
static pg_noinline void
buffer_refill(BufferState *bs)
{
	PlanState  *child = bs->child;
	int			target = bs->fill_target;

	/*
	 * ExecCustomScan's interrupt check, which the parent bypasses (see
	 * buffer_begin), once per refill instead of once per tuple: the
	 * parent's work between two checks is at most one ring of tuples, and
	 * the child checks as usual while we fill.
	 */
	CHECK_FOR_INTERRUPTS();

	/* the parent is done with the last tuple, which may be freed now */
	ExecClearTuple(bs->outslot);
	buffer_reset_arena(bs);
	if (bs->child_done)
		return;
	bs->refills++;
	if (bs->fill_target < bs->nslots)
		bs->fill_target = Min(bs->fill_target * 2, bs->nslots);
	while (bs->ntuples < target)
	{
		TupleTableSlot *slot = ExecProcNode(child);

		if (TupIsNull(slot))
		{
			bs->child_done = true;
			break;
		}
		if (bs->ntuples >= bs->ring_alloc)
			buffer_grow_ring(bs);
		buffer_copy_tuple(bs, slot, &bs->ring[bs->ntuples++]);
		if (bs->arena_used >= bs->arena_limit)
			break;
	}
}

/*
 * Hand out the next tuple.  This is the Buffer's per-tuple code in the
 * parent's execution group, so it is kept to one function and one call
 * (ExecStoreMinimalTuple): the deformed values go into the slot with a
 * plain loop rather than through the C library's memcpy.
 */
static inline TupleTableSlot *
buffer_next(BufferState *bs)
{
	BufferEntry *e;
	TupleTableSlot *slot;
	int			nvalid;

	if (unlikely(bs->next >= bs->ntuples))
	{
		buffer_refill(bs);
		if (bs->ntuples == 0)
			return bs->outslot; /* cleared by buffer_refill */
	}

	/* the arena keeps the tuple until the next refill: no copy, no pfree */
	e = &bs->ring[bs->next++];
	slot = ExecStoreMinimalTuple(e->tuple, bs->outslot, false);
	nvalid = e->nvalid;
	if (nvalid > 0)
	{
		const Datum *values = e->values;
		const bool *isnull = (const bool *)
			((const char *) values + MAXALIGN(sizeof(Datum) * nvalid));
		Datum	   *tvalues = slot->tts_values;
		bool	   *tisnull = slot->tts_isnull;
		int			i;

		/* the child's deformed values, as if this slot had deformed them */
		for (i = 0; i < nvalid; i++)
		{
			tvalues[i] = values[i];
			tisnull[i] = isnull[i];
		}
		slot->tts_nvalid = nvalid;
		((MinimalTupleTableSlot *) slot)->off = e->off;
		if (e->slow)
			slot->tts_flags |= TTS_FLAG_SLOW;
		else
			slot->tts_flags &= ~TTS_FLAG_SLOW;
	}
	return slot;
}

/* the parent's ExecProcNode (installed by buffer_begin) */
static TupleTableSlot *
buffer_exec_node(PlanState *pstate)
{
	return buffer_next((BufferState *) pstate);
}

/* the CustomScan callback; unused while buffer_exec_node is installed */
static TupleTableSlot *
buffer_exec(CustomScanState *node)
{
	return buffer_next((BufferState *) node);
}

static void
buffer_end(CustomScanState *node)
{
	BufferState *bs = (BufferState *) node;

	ExecClearTuple(bs->outslot);
	buffer_reset_arena(bs);
	buffer_free_blocks(bs, bs->blocks);
	bs->blocks = bs->curblock = NULL;
	ExecEndNode(bs->child);
}

static void
buffer_rescan(CustomScanState *node)
{
	BufferState *bs = (BufferState *) node;
	PlanState  *child = bs->child;

	ExecClearTuple(bs->outslot);
	buffer_reset_arena(bs);
	bs->child_done = false;
	bs->fill_target = 1;		/* ramp up again: the parent may stop early */

	/*
	 * ExecReScan passes changed parameters to the lefttree/righttree states
	 * only; our child's state is in custom_ps.  If parameters changed, the
	 * child rescans itself on its next ExecProcNode; otherwise rescan it now.
	 */
	if (node->ss.ps.chgParam != NULL)
		UpdateChangedParamSet(child, node->ss.ps.chgParam);
	if (child->chgParam == NULL)
		ExecReScan(child);
}

static void
buffer_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	BufferState *bs = (BufferState *) node;

	ExplainPropertyInteger("Buffer Size", NULL, bs->nslots, es);
	/* an estimate from the footprint table, so shown with the costs */
	if (es->verbose && es->costs)
		ExplainPropertyInteger("Group Footprint", "bytes", bs->group_bytes, es);
	if (es->analyze)
	{
		ExplainPropertyInteger("Refills", NULL, bs->refills, es);
		/* the ring and the arena at their largest, rounded up */
		ExplainPropertyInteger("Peak Memory", "kB",
							   (bs->mem_peak + 1023) / 1024, es);
	}
}

/*
 * The L1 instruction cache of cpu0 from sysfs, or 32kB if it is not there.
 * Only the level-1 "Instruction" cache counts (a unified L1 would be shared
 * with data; we do not guess at that and use the fallback).
 */
static int
buffer_detect_l1i(void)
{
	FpbCpuCache caches[FPB_MAX_CPU_CACHES];
	int			n = fpb_cpu_caches(caches);
	int			i;

	for (i = 0; i < n; i++)
	{
		if (caches[i].level == 1 && caches[i].instruction &&
			caches[i].bytes <= INT_MAX)
			return (int) caches[i].bytes;
	}
	return 32 * 1024;
}

void
fpb_buffer_init(void)
{
	fpb_l1i_cache_size = buffer_detect_l1i();

	DefineCustomBoolVariable("fpbtree.enable_buffer_operator",
							 "Enables the plan refinement that inserts Buffer operators above execution groups.",
							 "Takes effect when a query is planned; the session switch enable_buffer_operator must be on too.",
							 &fpb_enable_buffer, true,
							 PGC_USERSET, GUC_EXPLAIN, NULL, NULL, NULL);
	fpb_define_session_alias("enable_buffer_operator",
							 "fpbtree.enable_buffer_operator",
							 "Enables the Buffer operator's plan refinement (fpbtree) in this session.",
							 &fpb_enable_buffer_session);
	DefineCustomIntVariable("fpbtree.buffer_size",
							"Tuples a Buffer operator collects from its child before handing them on.",
							NULL,
							&fpb_buffer_size, 1000, 1, 1000000,
							PGC_USERSET, GUC_EXPLAIN, NULL, NULL, NULL);
	DefineCustomIntVariable("fpbtree.buffer_min_rows",
							"Estimated output rows below which an operator joins no execution group.",
							"Operators with fewer rows are never buffered (the paper's cardinality threshold).",
							&fpb_buffer_min_rows, 300, 0, INT_MAX,
							PGC_USERSET, GUC_EXPLAIN, NULL, NULL, NULL);
	DefineCustomIntVariable("fpbtree.l1i_cache_size",
							"Size of the L1 instruction cache an execution group must fit.",
							"Read from sysfs at load time; set it to emulate another machine.",
							&fpb_l1i_cache_size, fpb_l1i_cache_size,
							1024, 64 * 1024 * 1024,
							PGC_USERSET, GUC_UNIT_BYTE | GUC_EXPLAIN, NULL, NULL, NULL);

	RegisterCustomScanMethods(&buffer_scan_methods);
}
