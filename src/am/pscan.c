/*-------------------------------------------------------------------------
 *
 * pscan.c
 *	  Parallel index scans: the shared scan state and the claiming of runs
 *	  of leaves through the jump-pointer array.
 *
 * The participants of a parallel scan split the scan's key interval into
 * consecutive key ranges, one per run of up to FPB_PSCAN_RUN leaves, taken
 * from the downlinks of one level-1 page at a time.  A run is the key range
 * [K_i, K_j) between two downlinks (or the scan's own bound, or the level-1
 * page's high key), and its participant returns exactly the entries in
 * that range, starting at leaf C_i and following right-links.  Because the
 * ranges partition the interval, no entry is returned twice or missed,
 * whatever concurrent splits move meanwhile (see README, "Parallel scans").
 * A scan with array keys has several disjoint intervals; the participants
 * share out one after another the same way, all moving on to the next once
 * the last run of one has been handed out.
 *
 * The shared state is protected by a spinlock.  Loading the next level-1
 * page reads buffers, so it is done outside the spinlock by one participant
 * at a time (status ADVANCING) while the others wait on the condition
 * variable, as nbtree serialises its "next page" in _bt_parallel_seize.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relscan.h"
#include "fpbtree.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/condition_variable.h"
#include "storage/spin.h"
#include "utils/rel.h"

/* most downlinks a page can hold: each takes at least key, TID and child */
#define FPB_PSCAN_MAXDL \
	((FPB_NLINES * FPB_LINE) / (sizeof(uint64) + sizeof(ItemPointerData) + \
								sizeof(BlockNumber)) + 1)

typedef enum FpbPscanStatus
{
	FPB_PS_NOT_STARTED,			/* nothing claimed since (re)start */
	FPB_PS_ADVANCING,			/* one participant is loading a level-1 page */
	FPB_PS_IDLE,				/* runs can be claimed (or a load is due) */
	FPB_PS_DONE					/* the whole interval has been handed out */
} FpbPscanStatus;

typedef struct FpbParallelScanData
{
	slock_t		mutex;
	ConditionVariable cv;
	FpbPscanStatus status;
	bool		forward;		/* direction, set by the first participant */
	bool		first;			/* no run handed out yet */
	bool		rootleaf;		/* no level 1: one run, found by descent */
	bool		lastl1;			/* no level-1 page beyond the loaded one */

	/*
	 * The cursor: forward, the inclusive lower bound of the next run;
	 * backward, the exclusive upper bound of the next run.  Unused while
	 * first is set (the scan's own bound applies).
	 */
	uint64		ck;
	uint64		ct;
	/* the loaded page's end in scan direction: its high key, or K_0 */
	uint64		ek;
	uint64		et;
	int			nents;
	int			next;			/* first unclaimed entry */
	int			ival;			/* array keys: the interval being shared out,
								 * counted in scan direction */
	FpbEntry	ents[FLEXIBLE_ARRAY_MEMBER];	/* downlinks, in scan order */
} FpbParallelScanData;

typedef FpbParallelScanData *FpbParallelScan;

Size
fpbestimateparallelscan(void)
{
	return add_size(offsetof(FpbParallelScanData, ents),
					mul_size(sizeof(FpbEntry), FPB_PSCAN_MAXDL));
}

void
fpbinitparallelscan(void *target)
{
	FpbParallelScan ps = (FpbParallelScan) target;

	SpinLockInit(&ps->mutex);
	ConditionVariableInit(&ps->cv);
	ps->status = FPB_PS_NOT_STARTED;
	ps->first = true;
	ps->nents = ps->next = 0;
	ps->ival = 0;
}

void
fpbparallelrescan(IndexScanDesc scan)
{
	ParallelIndexScanDesc pscan = scan->parallel_scan;
	FpbParallelScan ps = (FpbParallelScan)
	OffsetToPointer(pscan, pscan->ps_offset);

	SpinLockAcquire(&ps->mutex);
	ps->status = FPB_PS_NOT_STARTED;
	ps->first = true;
	ps->nents = ps->next = 0;
	ps->ival = 0;
	SpinLockRelease(&ps->mutex);
}

/* The key just below (k, t); (k, t) is above (0, 0). */
static inline void
fpb_key_pred(uint64 *k, uint64 *t)
{
	if (*t > 0)
		(*t)--;
	else
	{
		Assert(*k > 0);
		(*k)--;
		*t = PG_UINT64_MAX;
	}
}

/*
 * Load the level-1 page holding (k, t) into the shared state: its downlinks
 * from the one whose child holds (k, t) on, in scan direction.  Called by
 * the one participant that set status ADVANCING, with no lock held; it
 * alone writes the array until it publishes it.
 */
static void
fpb_pscan_load(Relation index, FpbParallelScan ps, uint64 k, uint64 t)
{
	Buffer		buf;
	Page		page;
	FpbPageOpaque opq;
	BlockNumber blkno;
	FpbEntry   *ents;
	int			n;
	int			i;
	FpbEntry	key = fpb_mkkey(k, t);

	buf = fpb_descend_to(index, &key, 1, BUFFER_LOCK_SHARE, false, NULL,
						 NULL);
	page = BufferGetPage(buf);
	opq = FpbPageGetOpaque(page);
	blkno = BufferGetBlockNumber(buf);
	if (opq->nentries > FPB_PSCAN_MAXDL)
		fpb_index_corrupt(index, blkno,
						  "Internal page counts %u entries, more than a page can hold.",
						  opq->nentries);
	ents = palloc(sizeof(FpbEntry) * (opq->nentries + 1));
	n = fpb_page_collect(page, ents, blkno);
	if (n == 0)
		fpb_index_corrupt(index, blkno, "Internal page has no downlinks.");

	/*
	 * The downlink whose child holds (k, t): the last one at or below it.
	 * The first downlink's key is the page's lower bound (minus infinity on
	 * the leftmost page), at or below every key the page covers; the
	 * backward cursor moves to just below it, so it must be below (k, t)
	 * for the cursor to make progress.
	 */
	if (fpb_key_cmp(ents[0].k, ents[0].t, k, t) > 0)
		fpb_index_corrupt(index, blkno,
						  "First downlink is above the key a descent to level 1 was for.");
	for (i = 0; i + 1 < n &&
		 fpb_key_cmp(ents[i + 1].k, ents[i + 1].t, k, t) <= 0; i++)
		;
	if (ps->forward)
	{
		ps->nents = n - i;
		memcpy(ps->ents, ents + i, sizeof(FpbEntry) * ps->nents);
		ps->lastl1 = FpbPageIsRightmost(opq);
		if (!ps->lastl1)
		{
			FpbEntry	hk;

			fpb_page_get_hikey(page, &hk, blkno);
			ps->ek = hk.k;
			ps->et = hk.t;
		}
	}
	else
	{
		ps->nents = i + 1;
		for (int j = 0; j <= i; j++)
			ps->ents[j] = ents[i - j];
		ps->lastl1 = FpbPageIsLeftmost(opq);
		ps->ek = ents[0].k;
		ps->et = ents[0].t;
	}
	ps->next = 0;
	UnlockReleaseBuffer(buf);
	pfree(ents);
}

/*
 * Length of the run starting at entry a.  Near the end of the scan, when
 * the copy shows how many leaves are left, runs shrink to a quarter of them
 * (guided self-scheduling), so that the participants finish together and
 * short scans are shared too; elsewhere FPB_PSCAN_RUN.  Any length from 1
 * is correct: the runs partition the interval whatever their lengths.
 */
static int
fpb_pscan_runlen(FpbParallelScan ps, int a,
				 uint64 lok, uint64 lot, uint64 hik, uint64 hit)
{
	int			limit = Min(ps->nents, a + 4 * FPB_PSCAN_RUN);
	int			left = -1;

	for (int i = a; i < limit; i++)
	{
		FpbEntry   *e = &ps->ents[i];

		if (ps->forward && i > a &&
			fpb_key_cmp(e->k, e->t, hik, hit) > 0)
		{
			left = i - a;		/* children from e on lie above hi */
			break;
		}
		if (!ps->forward && fpb_key_cmp(e->k, e->t, lok, lot) <= 0)
		{
			left = i - a + 1;	/* e's child holds lo */
			break;
		}
	}
	if (left < 0 && limit == ps->nents && ps->lastl1)
		left = ps->nents - a;
	if (left < 0)
		return Min(FPB_PSCAN_RUN, ps->nents - a);
	return Max(1, Min(FPB_PSCAN_RUN, (left + 3) / 4));
}

/*
 * Claim the next run of the parallel scan for direction `forward` over the
 * scan's intervals ivals[0 .. nivals - 1] (disjoint, in key order; one
 * [lo, hi] without array keys).  The intervals are shared out one after
 * another: once the last run of one is handed out (DONE), the next claimant
 * starts the next one afresh.  Returns false once everything has been
 * handed out.  On success, run holds the run's key range intersected with
 * its interval (never empty), where to start, and the run's leaves as
 * listed by the downlinks (hints for prefetching).
 */
bool
fpb_pscan_claim(IndexScanDesc scan, bool forward,
				const FpbScanInterval *ivals, int nivals, FpbScanRun *run)
{
	Relation	index = scan->indexRelation;
	ParallelIndexScanDesc pscan = scan->parallel_scan;
	FpbParallelScan ps = (FpbParallelScan)
	OffsetToPointer(pscan, pscan->ps_offset);
	bool		claimed = false;

	for (;;)
	{
		bool		load = false;
		bool		sleep = false;
		bool		got = false;
		uint64		xk = 0,
					xt = 0;
		const FpbScanInterval *iv;
		uint64		lok,
					lot,
					hik,
					hit;

		SpinLockAcquire(&ps->mutex);
		if (ps->ival >= nivals)
		{
			SpinLockRelease(&ps->mutex);
			elog(ERROR, "fpbtree: participants of a parallel scan disagree on its array keys");
		}
		iv = &ivals[forward ? ps->ival : nivals - 1 - ps->ival];
		run->ival = forward ? ps->ival : nivals - 1 - ps->ival;
		lok = iv->lok;
		lot = iv->lot;
		hik = iv->hik;
		hit = iv->hit;
		if (ps->status == FPB_PS_DONE && ps->ival + 1 < nivals)
		{
			/* on to the next interval: start it as a new scan */
			ps->ival++;
			ps->status = FPB_PS_NOT_STARTED;
			ps->first = true;
			ps->nents = ps->next = 0;
			SpinLockRelease(&ps->mutex);
			continue;
		}
		if (ps->status == FPB_PS_NOT_STARTED)
		{
			ps->forward = forward;
			ps->status = FPB_PS_ADVANCING;
			load = true;
			xk = forward ? lok : hik;
			xt = forward ? lot : hit;
		}
		else if (ps->status == FPB_PS_DONE)
		{
			SpinLockRelease(&ps->mutex);
			break;
		}
		else if (ps->status == FPB_PS_ADVANCING)
			sleep = true;
		else if (ps->forward != forward)
		{
			SpinLockRelease(&ps->mutex);
			elog(ERROR, "fpbtree: participants of a parallel scan disagree on its direction");
		}
		else if (ps->next < ps->nents)
		{
			int			a = ps->next;
			int			b = a + fpb_pscan_runlen(ps, a, lok, lot, hik, hit);
			bool		end_open;	/* run reaches the scan's far end */
			uint64		ek,
						et;

			run->nblks = b - a;
			for (int i = a; i < b; i++)
				run->blks[i - a] = ps->ents[i].child;
			run->start = ps->rootleaf ? InvalidBlockNumber : ps->ents[a].child;
			run->last = ps->rootleaf ? InvalidBlockNumber : ps->ents[b - 1].child;

			/* far end of the run in scan direction */
			end_open = (b == ps->nents && ps->lastl1);
			if (b < ps->nents)
			{
				ek = ps->ents[forward ? b : b - 1].k;
				et = ps->ents[forward ? b : b - 1].t;
			}
			else
			{
				ek = ps->ek;
				et = ps->et;
			}

			if (forward)
			{
				run->lok = lok;
				run->lot = lot;
				if (!ps->first &&
					fpb_key_cmp(ps->ck, ps->ct, lok, lot) > 0)
				{
					run->lok = ps->ck;
					run->lot = ps->ct;
				}
				run->hik = hik;
				run->hit = hit;
				if (!end_open && fpb_key_cmp(ek, et, hik, hit) <= 0)
				{
					/* [start, ek) lies inside the scan: stop below ek */
					run->hik = ek;
					run->hit = et;
					fpb_key_pred(&run->hik, &run->hit);
					ps->ck = ek;
					ps->ct = et;
				}
				else
					end_open = true;
			}
			else
			{
				run->hik = hik;
				run->hit = hit;
				if (!ps->first &&
					fpb_key_cmp(ps->ck, ps->ct, hik, hit) <= 0)
				{
					run->hik = ps->ck;
					run->hit = ps->ct;
					fpb_key_pred(&run->hik, &run->hit);
				}
				run->lok = lok;
				run->lot = lot;
				if (!end_open && fpb_key_cmp(ek, et, lok, lot) > 0)
				{
					/* [ek, end) lies inside the scan: stop at ek */
					run->lok = ek;
					run->lot = et;
					ps->ck = ek;
					ps->ct = et;
				}
				else
					end_open = true;
			}
			ps->first = false;
			ps->next = b;
			if (end_open)
				ps->status = FPB_PS_DONE;
			got = fpb_key_cmp(run->lok, run->lot, run->hik, run->hit) <= 0;
		}
		else
		{
			/* this page's downlinks are all handed out: load the next */
			if (ps->first || ps->lastl1)
			{
				/* the last run of the last page ends the scan (DONE) */
				SpinLockRelease(&ps->mutex);
				elog(ERROR, "fpbtree: parallel scan ran out of runs before its end");
			}
			ps->status = FPB_PS_ADVANCING;
			load = true;
			xk = ps->ek;
			xt = ps->et;
			if (!forward)
				fpb_key_pred(&xk, &xt);
		}
		SpinLockRelease(&ps->mutex);

		if (got)
		{
			claimed = true;
			break;
		}
		if (sleep)
		{
			ConditionVariableSleep(&ps->cv, PG_WAIT_EXTENSION);
			continue;
		}
		if (load)
		{
			FpbMetaPageData *meta = fpb_cached_meta(index, false);
			bool		first = ps->first;

			if (first && meta->rootlevel < 1)
				meta = fpb_cached_meta(index, true);
			if (first && (meta->rootlevel < 1 || fpb_index_cmp(index)))
			{
				/*
				 * The root is a leaf: one run covers the interval, found by
				 * descent (the tree may grow meanwhile; right-links still
				 * lead through it).  Later loads always find a level 1:
				 * levels are never removed.  A wide index is read so too,
				 * by one participant: the shared state has no room for
				 * the values that would bound its runs.
				 */
				ps->rootleaf = true;
				ps->lastl1 = true;
				ps->nents = 1;
				ps->next = 0;
				ps->ents[0].child = InvalidBlockNumber;
			}
			else
			{
				ps->rootleaf = false;
				fpb_pscan_load(index, ps, xk, xt);
			}
			SpinLockAcquire(&ps->mutex);
			ps->status = FPB_PS_IDLE;
			SpinLockRelease(&ps->mutex);
			ConditionVariableBroadcast(&ps->cv);
		}
		CHECK_FOR_INTERRUPTS();
	}
	ConditionVariableCancelSleep();
	return claimed;
}
