/*-------------------------------------------------------------------------
 *
 * prefetch.c
 *	  Range-scan prefetching: leaf pages through the jump-pointer array,
 *	  heap blocks of the TIDs about to be returned, and the per-session
 *	  counters that show it working.
 *
 * The jump-pointer array is the downlinks of the level-1 pages, read in
 * key order across their sibling links: exactly the leaf pages a range scan
 * visits.  A scan that reaches its second leaf locates its end leaf (one
 * descent to level 1 for the other end of the range), then keeps
 * PrefetchBuffer() requests up to `dist` leaves ahead of the leaf it reads
 * (refilled in bursts once half of them are consumed), never past the end
 * leaf.  `dist` starts at 1, doubles each time a prefetched page
 * was not yet in shared buffers, and is capped by the tablespace's
 * effective_io_concurrency (0 disables prefetching).  Downlinks are only
 * hints: a concurrent split or VACUUM can make a prefetch useless, never a
 * result wrong, because the scan itself follows right-links.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "fpbtree.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/rel.h"
#include "utils/spccache.h"

bool		fpb_enable_range_prefetch = true;
bool		fpb_enable_heap_prefetch = true;
int			fpb_prefetch_max = 0;
int			fpb_node_prefetch = 0;

FpbPrefetchCounters fpb_pf_counters;

PG_FUNCTION_INFO_V1(fpbtree_prefetch_stats);
PG_FUNCTION_INFO_V1(fpbtree_prefetch_stats_reset);

/*
 * Should a prefetcher with `ahead` requests outstanding and distance `dist`
 * issue more now?  Refills come in bursts, once half the window has been
 * consumed: back to back posix_fadvise calls cost the kernel less than one
 * call per page (cold 10^6-entry scans ran about 20% faster on virtio
 * storage).  At least dist/2 - 1 requests stay ahead.  Small windows refill
 * at once.
 */
static inline bool
fpb_pf_refill_due(int ahead, int dist)
{
	return dist < 4 || ahead < dist / 2;
}

/* The least distance worth prefetching heap blocks at */
#define FPB_HEAP_PF_MIN		2

/* Largest distance for relation rel: the setting, else the tablespace's. */
static int
fpb_pf_cap(Relation rel)
{
	int			cap = get_tablespace_io_concurrency(rel->rd_rel->reltablespace);

	if (cap > 0 && fpb_prefetch_max > 0)
		cap = Min(cap, fpb_prefetch_max);
	return cap;
}

void
fpb_pf_init(FpbPrefetcher *pf, BlockNumber startl1, bool forward)
{
	memset(pf, 0, sizeof(FpbPrefetcher));
	pf->state = FPB_PF_PENDING;
	pf->forward = forward;
	pf->l1blk = startl1;
	pf->endleaf = InvalidBlockNumber;
	pf->nextl1 = InvalidBlockNumber;
	if (!fpb_enable_range_prefetch || startl1 == InvalidBlockNumber)
		pf->state = FPB_PF_OFF;
}

void
fpb_pf_stop(FpbPrefetcher *pf)
{
	pf->state = FPB_PF_OFF;
	if (pf->jump)
		pfree(pf->jump);
	pf->jump = NULL;
	pf->njump = 0;
}

/*
 * Read one level-1 page's downlinks into the jump array, in scan order.
 * The pages come from the scan's descent and from level-1 sibling links, so
 * a page that is not a level-1 page with downlinks, or is its own sibling,
 * is damage.  Every load yields at least one downlink to prefetch, which is
 * what bounds the loop in fpb_pf_advance.
 */
static void
fpb_pf_load(Relation index, FpbPrefetcher *pf, BlockNumber l1blk)
{
	Buffer		buf;
	Page		page;
	FpbPageOpaque opq;
	FpbEntry   *ents;
	int			n;

	CHECK_FOR_INTERRUPTS();
	buf = fpb_getbuf(index, l1blk, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	opq = FpbPageGetOpaque(page);
	if (opq->level != 1)
		fpb_index_corrupt(index, l1blk,
						  "Page has level %u, but the scan reached it as a level-1 page.",
						  opq->level);
	ents = palloc(sizeof(FpbEntry) * (opq->nentries + 1));
	n = fpb_page_collect(page, ents, l1blk);
	if (n == 0)
		fpb_index_corrupt(index, l1blk, "Internal page has no downlinks.");
	pf->nextl1 = pf->forward ? opq->right : opq->left;
	if (pf->nextl1 == l1blk)
		fpb_index_corrupt(index, l1blk, "Sibling link points to the page itself.");
	UnlockReleaseBuffer(buf);

	if (pf->maxjump < n)
	{
		pf->maxjump = Max(n, 64);
		pf->jump = pf->jump ? repalloc(pf->jump, sizeof(BlockNumber) * pf->maxjump)
			: palloc(sizeof(BlockNumber) * pf->maxjump);
	}
	for (int i = 0; i < n; i++)
		pf->jump[i] = ents[pf->forward ? i : n - 1 - i].child;
	pfree(ents);
	pf->base += pf->njump;
	pf->njump = n;
	pf->l1blk = l1blk;
}

/*
 * First time the scan moves past its first leaf: find the end leaf and the
 * start position in the jump array.  Short scans never get here.
 */
static void
fpb_pf_begin(Relation index, FpbPrefetcher *pf, BlockNumber curleaf,
			 const FpbEntry *end)
{
	FpbMetaPageData *meta = fpb_cached_meta(index, false);
	Buffer		buf;

	pf->cap = fpb_pf_cap(index);
	if (pf->cap <= 0 || meta->rootlevel < 1)
	{
		fpb_pf_stop(pf);
		return;
	}
	buf = fpb_descend_to(index, end, 1, BUFFER_LOCK_SHARE, false,
						 NULL, NULL);
	pf->endleaf = fpb_page_child(BufferGetPage(buf), fpb_index_cmp(index),
								 end, BufferGetBlockNumber(buf));
	UnlockReleaseBuffer(buf);
	if (pf->endleaf == curleaf)
	{
		fpb_pf_stop(pf);		/* nothing beyond the current leaf */
		return;
	}
	fpb_pf_load(index, pf, pf->l1blk);
	pf->dist = 1;
	pf->pos = -1;
	pf->pfpos = -1;
	pf->state = FPB_PF_ON;
}

/*
 * The scan has just read leaf curleaf (not its first): keep the prefetches
 * dist leaves ahead of it.
 */
void
fpb_pf_advance(Relation index, FpbPrefetcher *pf, BlockNumber curleaf,
			   const FpbEntry *end)
{
	int			idx = -1;

	if (pf->state == FPB_PF_OFF || pf->state == FPB_PF_DONE)
		return;
	if (pf->state == FPB_PF_PENDING)
	{
		fpb_pf_begin(index, pf, curleaf, end);
		if (pf->state != FPB_PF_ON)
			return;
	}
	if (curleaf == pf->endleaf)
	{
		fpb_pf_stop(pf);
		return;
	}

	/* where is the scan in the jump array? (a split page may not be) */
	for (int i = Max(0, pf->pos - pf->base); i < pf->njump; i++)
	{
		if (pf->jump[i] == curleaf)
		{
			idx = i;
			break;
		}
	}
	if (idx >= 0)
		pf->pos = pf->base + idx;
	else
		pf->pos++;
	if (pf->pfpos < pf->pos)
		pf->pfpos = pf->pos;

	if (!fpb_pf_refill_due(pf->pfpos - pf->pos, pf->dist))
		return;
	while (pf->pfpos < pf->pos + pf->dist)
	{
		BlockNumber blk;
		PrefetchBufferResult r;
		int			next = pf->pfpos + 1 - pf->base;

		if (next >= pf->njump)
		{
			/* on to the next level-1 page, if the range goes on */
			if (pf->nextl1 == InvalidBlockNumber)
			{
				fpb_pf_stop(pf);
				return;
			}
			fpb_pf_load(index, pf, pf->nextl1);
			continue;
		}
		blk = pf->jump[next];
		pf->pfpos++;
		r = PrefetchBuffer(index, MAIN_FORKNUM, blk);
		fpb_pf_counters.leaf_issued++;
		if (BufferIsValid(r.recent_buffer))
			fpb_pf_counters.leaf_cached++;
		else if (pf->dist < pf->cap)
			pf->dist = Min(pf->dist * 2, pf->cap);
		if (blk == pf->endleaf)
		{
			/* never past the end leaf */
			pf->state = FPB_PF_DONE;
			break;
		}
	}
}

/*
 * Parallel scans: each participant prefetches the leaves of the run it
 * claimed (listed by the downlinks, in scan order; blks[0] is read at
 * once), with the same ramp and bursts as above, and on into the leaves of
 * the run it claimed ahead (fpb_pf_run_append), which follow in jump.  The
 * state must have been set up by fpb_pf_init with no level-1 page and then
 * marked PENDING.
 */
static void
fpb_pf_run_fill(Relation index, FpbPrefetcher *pf)
{
	if (!fpb_pf_refill_due(pf->pfpos - pf->pos, pf->dist))
		return;
	while (pf->pfpos < pf->pos + pf->dist && pf->pfpos + 1 < pf->njump)
	{
		PrefetchBufferResult r;

		pf->pfpos++;
		r = PrefetchBuffer(index, MAIN_FORKNUM, pf->jump[pf->pfpos]);
		fpb_pf_counters.leaf_issued++;
		if (BufferIsValid(r.recent_buffer))
			fpb_pf_counters.leaf_cached++;
		else if (pf->dist < pf->cap)
			pf->dist = Min(pf->dist * 2, pf->cap);
	}
}

void
fpb_pf_run_begin(Relation index, FpbPrefetcher *pf, const BlockNumber *blks,
				 int n)
{
	if (pf->state == FPB_PF_OFF)
		return;
	if (pf->state == FPB_PF_PENDING)
	{
		pf->cap = fpb_pf_cap(index);
		if (pf->cap <= 0)
		{
			fpb_pf_stop(pf);
			return;
		}
		pf->maxjump = 2 * FPB_PSCAN_RUN;
		pf->jump = palloc(sizeof(BlockNumber) * pf->maxjump);
		pf->dist = 1;
		pf->state = FPB_PF_ON;
	}
	Assert(n <= FPB_PSCAN_RUN);
	memcpy(pf->jump, blks, sizeof(BlockNumber) * n);
	pf->njump = n;
	pf->nahead = 0;
	pf->base = 0;
	pf->pos = 0;
	pf->pfpos = 0;
	fpb_pf_run_fill(index, pf);
}

/*
 * The run claimed ahead, whose n leaves are blks, follows the current one:
 * prefetch on into it.
 */
void
fpb_pf_run_append(Relation index, FpbPrefetcher *pf, const BlockNumber *blks,
				  int n)
{
	if (pf->state != FPB_PF_ON)
		return;
	Assert(pf->nahead == 0 && pf->njump + n <= pf->maxjump);
	memcpy(pf->jump + pf->njump, blks, sizeof(BlockNumber) * n);
	pf->njump += n;
	pf->nahead = n;
	fpb_pf_run_fill(index, pf);
}

/*
 * The run claimed ahead becomes the current one: its leaves move to the
 * front, those already prefetched stay so.
 */
void
fpb_pf_run_next(Relation index, FpbPrefetcher *pf)
{
	int			first;

	if (pf->state != FPB_PF_ON)
		return;
	first = pf->njump - pf->nahead;
	memmove(pf->jump, pf->jump + first, sizeof(BlockNumber) * pf->nahead);
	pf->pfpos = Max(0, pf->pfpos - first);
	pf->njump = pf->nahead;
	pf->nahead = 0;
	pf->pos = 0;
	fpb_pf_run_fill(index, pf);
}

/* The participant has read leaf curleaf of its run (not the first). */
void
fpb_pf_run_advance(Relation index, FpbPrefetcher *pf, BlockNumber curleaf)
{
	if (pf->state != FPB_PF_ON)
		return;
	/* a leaf split off since the downlinks were read is not listed */
	for (int i = pf->pos + 1; i < pf->njump; i++)
	{
		if (pf->jump[i] == curleaf)
		{
			pf->pos = i;
			break;
		}
	}
	if (pf->pfpos < pf->pos)
		pf->pfpos = pf->pos;
	fpb_pf_run_fill(index, pf);
}

/*
 * Heap prefetch for plain index scans: the heap blocks of the next TIDs of
 * the batch, skipping repeats of the block prefetched last.
 */
void
fpb_heap_prefetch_init(FpbHeapPrefetcher *hp, Relation heap)
{
	memset(hp, 0, sizeof(FpbHeapPrefetcher));
	hp->lastblk = InvalidBlockNumber;
	/* the cap is looked up when first needed: point lookups never need it */
	hp->cap = (fpb_enable_heap_prefetch && heap != NULL) ? -1 : 0;
	hp->dist = 1;
}

void
fpb_heap_prefetch(FpbHeapPrefetcher *hp, Relation heap,
				  const FpbScanItem *items, int nitems, int cur, bool forward)
{
	int			step = forward ? 1 : -1;

	if (hp->cap == 0 || (cur + step < 0 || cur + step >= nitems))
		return;
	if (hp->cap < 0)
	{
		/*
		 * One block ahead is not worth it: it overlaps little, and costs a
		 * buffer lookup and, for a block outside shared buffers, a
		 * posix_fadvise (README, "Heap blocks").
		 */
		hp->cap = fpb_pf_cap(heap);
		if (hp->cap < FPB_HEAP_PF_MIN)
		{
			hp->cap = 0;
			return;
		}
	}
	/* a new batch (or a change of direction) restarts the cursor */
	if (hp->batch != hp->curbatch || hp->forward != forward)
	{
		hp->curbatch = hp->batch;
		hp->forward = forward;
		hp->pos = cur;
	}
	if ((hp->pos - cur) * step < 0)
		hp->pos = cur;
	if (!fpb_pf_refill_due((hp->pos - cur) * step, hp->dist))
		return;
	while ((hp->pos - cur) * step < hp->dist)
	{
		int			next = hp->pos + step;
		BlockNumber blk;
		PrefetchBufferResult r;

		if (next < 0 || next >= nitems)
			break;
		hp->pos = next;
		blk = (BlockNumber) ((items[next].t >> 16) & 0xFFFFFFFF);
		if (blk == hp->lastblk)
			continue;
		hp->lastblk = blk;
		r = PrefetchBuffer(heap, MAIN_FORKNUM, blk);
		fpb_pf_counters.heap_issued++;
		if (BufferIsValid(r.recent_buffer))
			fpb_pf_counters.heap_cached++;
		else if (hp->dist < hp->cap)
			hp->dist = Min(hp->dist * 2, hp->cap);
	}
}

Datum
fpbtree_prefetch_stats(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Int64GetDatum(fpb_pf_counters.leaf_issued);
	values[1] = Int64GetDatum(fpb_pf_counters.leaf_cached);
	values[2] = Int64GetDatum(fpb_pf_counters.heap_issued);
	values[3] = Int64GetDatum(fpb_pf_counters.heap_cached);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

Datum
fpbtree_prefetch_stats_reset(PG_FUNCTION_ARGS)
{
	memset(&fpb_pf_counters, 0, sizeof(fpb_pf_counters));
	PG_RETURN_VOID();
}
