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
	BlockNumber nextl1;			/* wide, forward: the page's right sibling */
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
 * Wide indexes share out runs between *cut points* instead of downlink keys,
 * since the shared state has no room for values: the cut point of a key is
 * the smallest key with its prefix, (prefix, no value, 0).  Cut points of
 * increasing keys never decrease, so they partition the key space as the
 * downlinks do; a run bounded by them may start left of its first listed
 * leaf, so it is found by descent and read to its key bounds, not to its
 * leaf list.  Under a collation whose prefixes are all 0 every cut point is
 * minus infinity and the last run takes the whole interval.
 */
static inline void
fpb_pscan_cut(const FpbCmp *cmp, uint64 *k, uint64 *t)
{
	if (cmp && !(*k == 0 && *t == 0))
	{
		*k = FPB_WIDE_PREFIX(*k);
		*t = 0;
	}
}

/*
 * The key just below the cut point or key (k, t) of the scan's index, with
 * *f the value to compare it by (a wide predecessor of a cut point lies
 * above every value of the prefix before).  False when there is none.
 */
static inline bool
fpb_pscan_pred(const FpbCmp *cmp, uint64 *k, uint64 *t, const char **f)
{
	if (*k == 0 && *t == 0)
		return false;
	if (cmp)
	{
		Assert(*t == 0);
		*k = FPB_WIDE_PREFIX(*k) - (UINT64CONST(1) << FPB_WIDE_OFFBITS);
		*t = PG_UINT64_MAX;
		*f = FPB_FULL_PLUSINF;
		return true;
	}
	fpb_key_pred(k, t);
	return true;
}

static inline int
fpb_pscan_cmp(const FpbCmp *cmp, uint64 ak, uint64 at, const char *af,
			  uint64 bk, uint64 bt, const char *bf)
{
	if (cmp == NULL)
		return fpb_key_cmp(ak, at, bk, bt);
	return fpb_wide_cmp(cmp, ak, at, af, bk, bt, bf);
}

/*
 * Load the level-1 page holding (k, t) into the shared state: its downlinks
 * from the one whose child holds (k, t) on, in scan direction.  Called by
 * the one participant that set status ADVANCING, with no lock held; it
 * alone writes the array until it publishes it.
 */
static void
fpb_pscan_load(Relation index, FpbParallelScan ps, const FpbEntry *key,
			   BlockNumber l1)
{
	const FpbCmp *cmp = fpb_index_cmp(index);
	Buffer		buf;
	Page		page;
	FpbPageOpaque opq;
	BlockNumber blkno;
	FpbEntry   *ents;
	int			n;
	int			i;

	if (BlockNumberIsValid(l1))
	{
		/*
		 * Wide, forward: the right sibling of the page loaded last (whose
		 * cut point may not lead past that page by descent).  Deleted
		 * level-1 pages gave their range to their right sibling.
		 */
		CHECK_FOR_INTERRUPTS();
		buf = fpb_getbuf(index, l1, BUFFER_LOCK_SHARE);
		while (FpbPageIsIgnore(FpbPageGetOpaque(BufferGetPage(buf))))
		{
			if (FpbPageIsRightmost(FpbPageGetOpaque(BufferGetPage(buf))))
				fpb_index_corrupt(index, BufferGetBlockNumber(buf),
								  "A deleted or half-dead page has no right sibling.");
			buf = fpb_step_right(index, buf, BUFFER_LOCK_SHARE);
		}
		if (FpbPageGetOpaque(BufferGetPage(buf))->level != 1)
			fpb_index_corrupt(index, BufferGetBlockNumber(buf),
							  "Page has level %u, but a level-1 page's right-link leads here.",
							  FpbPageGetOpaque(BufferGetPage(buf))->level);
	}
	else
		buf = fpb_descend_to(index, key, 1, BUFFER_LOCK_SHARE, false, NULL,
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
	if (!BlockNumberIsValid(l1) && fpb_entry_cmp(cmp, &ents[0], key) > 0)
		fpb_index_corrupt(index, blkno,
						  "First downlink is above the key a descent to level 1 was for.");
	for (i = 0; !BlockNumberIsValid(l1) && i + 1 < n &&
		 fpb_entry_cmp(cmp, &ents[i + 1], key) <= 0; i++)
		;
	for (int j = 0; j < n; j++)
	{
		fpb_pscan_cut(cmp, &ents[j].k, &ents[j].t);
		ents[j].f = NULL;		/* pointers mean nothing in shared memory */
	}
	if (ps->forward)
	{
		ps->nents = n - i;
		memcpy(ps->ents, ents + i, sizeof(FpbEntry) * ps->nents);
		ps->lastl1 = FpbPageIsRightmost(opq);
		ps->nextl1 = opq->right;
		if (!ps->lastl1)
		{
			FpbEntry	hk;

			fpb_page_get_hikey(page, &hk, blkno);
			ps->ek = hk.k;
			ps->et = hk.t;
			fpb_pscan_cut(cmp, &ps->ek, &ps->et);
		}
	}
	else
	{
		ps->nents = i + 1;
		for (int j = 0; j <= i; j++)
			ps->ents[j] = ents[i - j];
		ps->ek = ents[0].k;
		ps->et = ents[0].t;
		/* a cut point at minus infinity: the last run goes to the left end */
		ps->lastl1 = FpbPageIsLeftmost(opq) || (ps->ek == 0 && ps->et == 0);
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
fpb_pscan_runlen(const FpbCmp *cmp, FpbParallelScan ps, int a,
				 uint64 lok, uint64 lot, const char *lof,
				 uint64 hik, uint64 hit, const char *hif)
{
	int			limit = Min(ps->nents, a + 4 * FPB_PSCAN_RUN);
	int			left = -1;

	for (int i = a; i < limit; i++)
	{
		FpbEntry   *e = &ps->ents[i];

		if (ps->forward && i > a &&
			fpb_pscan_cmp(cmp, e->k, e->t, NULL, hik, hit, hif) > 0)
		{
			left = i - a;		/* children from e on lie above hi */
			break;
		}
		if (!ps->forward &&
			fpb_pscan_cmp(cmp, e->k, e->t, NULL, lok, lot, lof) <= 0)
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
	const FpbCmp *cmp = fpb_index_cmp(index);
	ParallelIndexScanDesc pscan = scan->parallel_scan;
	FpbParallelScan ps = (FpbParallelScan)
	OffsetToPointer(pscan, pscan->ps_offset);
	bool		claimed = false;

	for (;;)
	{
		bool		load = false;
		bool		sleep = false;
		bool		got = false;
		bool		empty = false;
		FpbEntry	xkey = fpb_mkkey(0, 0);
		BlockNumber xl1 = InvalidBlockNumber;
		const FpbScanInterval *iv;
		uint64		lok,
					lot,
					hik,
					hit;
		const char *lof,
				   *hif;

		SpinLockAcquire(&ps->mutex);
		if (ps->ival >= nivals)
		{
			SpinLockRelease(&ps->mutex);
			elog(ERROR, "fpbtree: participants of a parallel scan disagree on its array keys");
		}
		iv = &ivals[forward ? ps->ival : nivals - 1 - ps->ival];
		lok = iv->lok;
		lot = iv->lot;
		hik = iv->hik;
		hit = iv->hit;
		lof = iv->lof;
		hif = iv->hif;
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
			xkey = fpb_mkkey(forward ? lok : hik, forward ? lot : hit);
			xkey.f = forward ? lof : hif;
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
			int			b = a + fpb_pscan_runlen(cmp, ps, a, lok, lot, lof,
												 hik, hit, hif);
			bool		end_open;	/* run reaches the scan's far end */
			uint64		ek,
						et;

			run->nblks = b - a;
			for (int i = a; i < b; i++)
				run->blks[i - a] = ps->ents[i].child;
			/* wide: cut points may lie left of the listed leaves */
			run->start = (ps->rootleaf || cmp) ? InvalidBlockNumber :
				ps->ents[a].child;
			run->last = (ps->rootleaf || cmp) ? InvalidBlockNumber :
				ps->ents[b - 1].child;

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
				run->lof = lof;
				if (!ps->first &&
					fpb_pscan_cmp(cmp, ps->ck, ps->ct, NULL, lok, lot, lof) > 0)
				{
					run->lok = ps->ck;
					run->lot = ps->ct;
					run->lof = NULL;
				}
				run->hik = hik;
				run->hit = hit;
				run->hif = hif;
				if (!end_open &&
					fpb_pscan_cmp(cmp, ek, et, NULL, hik, hit, hif) <= 0)
				{
					/* [start, ek) lies inside the scan: stop below ek */
					run->hik = ek;
					run->hit = et;
					run->hif = NULL;
					empty = !fpb_pscan_pred(cmp, &run->hik, &run->hit,
											&run->hif);
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
				run->hif = hif;
				if (!ps->first &&
					fpb_pscan_cmp(cmp, ps->ck, ps->ct, NULL, hik, hit, hif) <= 0)
				{
					run->hik = ps->ck;
					run->hit = ps->ct;
					run->hif = NULL;
					empty = !fpb_pscan_pred(cmp, &run->hik, &run->hit,
											&run->hif);
				}
				run->lok = lok;
				run->lot = lot;
				run->lof = lof;
				if (!end_open &&
					fpb_pscan_cmp(cmp, ek, et, NULL, lok, lot, lof) > 0)
				{
					/* [ek, end) lies inside the scan: stop at ek */
					run->lok = ek;
					run->lot = et;
					run->lof = NULL;
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
			got = !empty &&
				fpb_pscan_cmp(cmp, run->lok, run->lot, run->lof,
							  run->hik, run->hit, run->hif) <= 0;
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
			xkey = fpb_mkkey(ps->ek, ps->et);
			if (!forward)
				(void) fpb_pscan_pred(cmp, &xkey.k, &xkey.t, &xkey.f);
			else if (cmp)
				xl1 = ps->nextl1;
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
			if (first && meta->rootlevel < 1)
			{
				/*
				 * The root is a leaf: one run covers the interval, found by
				 * descent (the tree may grow meanwhile; right-links still
				 * lead through it).  Later loads always find a level 1:
				 * levels are never removed.
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
				fpb_pscan_load(index, ps, &xkey, xl1);
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
