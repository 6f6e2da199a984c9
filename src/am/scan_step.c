/*-------------------------------------------------------------------------
 *
 * scan_step.c
 *	  Moving an index scan from leaf to leaf: to the right sibling, left
 *	  by the Lehman-Yao walk, to the next key interval or the next claimed
 *	  run of a parallel scan, and the descent that starts each of these.
 *
 * scan.c reads a leaf into the scan's batch; this file decides which leaf
 * is read next.  Both directions, array keys and parallel runs all end in
 * fpb_scan_next, which amgettuple and amgetbitmap call.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/relscan.h"
#include "fpbtree.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "scan.h"
#include "utils/rel.h"

/*
 * A backward run ends at the lowest leaf its downlinks list: that leaf's
 * lower bound is the run's lower bound (or below the scan's), so pages
 * left of it hold nothing of the run.
 */
static inline void
fpb_pscan_stop_left(FpbScanOpaque so)
{
	if (so->curblk == so->runlast)
		so->more_left = false;
}

/*
 * Read the page left of the batch's page (Lehman-Yao walk left): lock the
 * left sibling remembered at read time and move right until the page whose
 * right-link is the batch's page.  Every page on the way must be a leaf
 * whose high key lies below the batch page's (they all lie to its left), but
 * deleted and half-dead ones, whose high keys bound nothing, and
 * fpb_getbuf_right checks each step right (or counts it), so each walk ends.
 *
 * Pages can be deleted meanwhile (pagedel.c).  A deleted page on the way
 * does not count even if its right-link is the batch's page: the page
 * linked to it now lies further left.  When the walk passes the batch's
 * page without finding it, the batch's page is read again: if it was
 * deleted, its key range went to its right sibling, and the page left of
 * that one (reached from its left-link) is the one we want, as nbtree's
 * _bt_walk_left does; if it was not, its left-link must have changed, or
 * the chain is damaged.  A half-dead page is returned like any other: it
 * is empty, and the scan goes on to its left.
 */
static Buffer
fpb_walk_left(IndexScanDesc scan)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	Relation	index = scan->indexRelation;
	BlockNumber target = so->curblk;
	bool		target_rightmost = (so->rightblk == InvalidBlockNumber);
	FpbEntry	thk = fpb_mkkey(so->curhik, so->curhit);
	FpbFullBuf	thkbuf;
	BlockNumber blkno = so->leftblk;
	Buffer		buf;
	int			unchecked = 0;

	thk.f = so->curhif;
	/* a scan that turns back may pass deleted pages again (fpb_getbuf_right) */
	so->unchecked = 0;

	for (;;)
	{
		FpbPageOpaque opq;

		if (blkno == target)
			fpb_index_corrupt(index, target,
							  "Left-link points to the page itself.");
		CHECK_FOR_INTERRUPTS();
		buf = fpb_getbuf(index, blkno, BUFFER_LOCK_SHARE);
		for (;;)
		{
			opq = FpbPageGetOpaque(BufferGetPage(buf));
			if (!FpbPageIsLeaf(opq))
				fpb_index_corrupt(index, blkno,
								  "Page has level %u, but the scan reached it walking left from leaf %u.",
								  opq->level, target);
			if (opq->right == target && !FpbPageIsDeleted(opq))
				return buf;
			if (FpbPageIsRightmost(opq) || opq->right == target)
				break;
			/* a deleted or half-dead page's high key bounds nothing */
			if (!target_rightmost && !FpbPageIsIgnore(opq))
			{
				FpbEntry	hk;

				fpb_page_get_hikey(BufferGetPage(buf), &hk,
								   BufferGetBlockNumber(buf));
				if (fpb_entry_cmp(so->cmp, &hk, &thk) >= 0)
					break;
			}

			/* the left page split since we looked: its new halves lie between */
			buf = fpb_step_right(index, buf, BUFFER_LOCK_SHARE, &unchecked);
			blkno = BufferGetBlockNumber(buf);
		}
		UnlockReleaseBuffer(buf);

		/* not found: what became of the batch's page? */
		CHECK_FOR_INTERRUPTS();
		buf = fpb_getbuf(index, target, BUFFER_LOCK_SHARE);
		opq = FpbPageGetOpaque(BufferGetPage(buf));
		if (!FpbPageIsLeaf(opq))
			fpb_index_corrupt(index, target,
							  "Page has level %u, but the scan read it as a leaf.",
							  opq->level);
		if (FpbPageIsDeleted(opq))
		{
			/*
			 * Its right sibling took its key range; walk left from there.
			 * Deleted pages keep their links, high keys rise to the right,
			 * and the rightmost page is never deleted: this ends.
			 */
			while (FpbPageIsDeleted(opq))
			{
				if (FpbPageIsRightmost(opq))
					fpb_index_corrupt(index, BufferGetBlockNumber(buf),
									  "A deleted page has no right sibling.");
				buf = fpb_step_right(index, buf, BUFFER_LOCK_SHARE,
									 &unchecked);
				opq = FpbPageGetOpaque(BufferGetPage(buf));
			}
			target = BufferGetBlockNumber(buf);
			target_rightmost = FpbPageIsRightmost(opq);
			if (!target_rightmost)
			{
				fpb_page_get_hikey(BufferGetPage(buf), &thk, target);
				fpb_entry_keep(so->cmp, &thk, &thkbuf);
			}
		}
		else if (opq->left == so->leftblk)
			fpb_index_corrupt(index, target,
							  "The page is not reachable from its left sibling %u: the walk right from there passed it at block %u.",
							  so->leftblk, blkno);
		if (FpbPageIsLeftmost(opq))
		{
			/* nothing is left of it any more: an empty batch ends the walk */
			UnlockReleaseBuffer(buf);
			return InvalidBuffer;
		}
		blkno = opq->left;
		so->leftblk = blkno;
		UnlockReleaseBuffer(buf);
	}
}

/*
 * Must an amgettuple scan keep its pin on the leaf whose TIDs it returns?
 * The pin makes VACUUM's cleanup lock wait, so no TID in the batch can be
 * removed and reused by the heap meanwhile.  A plain scan under an MVCC
 * snapshot does not need that: a heap tuple stored at a reused TID was
 * created after the scan read the leaf, so the snapshot cannot see it, and
 * the heap fetch skips it (as nbtree argues).  Dropping the pin lets VACUUM
 * run past an idle cursor.  Index-only scans trust the visibility map
 * instead of the heap: they would return the stale entry of a TID VACUUM
 * removed once its page is all-visible.  Non-MVCC snapshots could see the
 * new tuple.  Unlogged and temporary
 * indexes keep it too, as in nbtree: marking dead entries without a pin
 * needs page LSNs that advance (dead.c).  Dropping the pin is safe for the
 * links too: the scan goes on from the block numbers it noted, and a page
 * deleted meanwhile keeps its links and is not reused while the scan's
 * snapshot is held (see README).
 */
static bool
fpb_scan_keeps_pin(IndexScanDesc scan)
{
	return scan->xs_want_itup ||
		!IsMVCCSnapshot(scan->xs_snapshot) ||
		!RelationNeedsWAL(scan->indexRelation);
}

/* The scan moved to a new leaf: keep the leaf prefetches ahead of it. */
static void
fpb_scan_advance_prefetch(IndexScanDesc scan, bool forward)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;

	if (so->pf.state == FPB_PF_OFF)
		return;
	if (scan->parallel_scan != NULL)
	{
		fpb_pf_run_advance(scan->indexRelation, &so->pf, so->curblk);
		return;
	}
	if (so->pf.forward != forward)
	{
		/* a cursor changed direction: the array no longer fits */
		fpb_pf_stop(&so->pf);
		return;
	}
	{
		FpbEntry	end = forward ? fpb_scan_hi(so) : fpb_scan_lo(so);

		fpb_pf_advance(scan->indexRelation, &so->pf, so->curblk, &end);
	}
}

/*
 * A participant has read its last run: say how many it read (tests count
 * the runs of a scan with the leader alone).  Returns false.
 */
static bool
fpb_scan_claims_end(IndexScanDesc scan)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;

	ereport(DEBUG1,
			(errmsg_internal("fpbtree: parallel scan of \"%s\": runs read by this participant: %d",
							 RelationGetRelationName(scan->indexRelation),
							 so->nruns)));
	return false;
}

/*
 * Claim a run of the shared scan into run, whose bound values (wide
 * indexes) go into pair `pair` of the scan's run buffers.  False when
 * everything has been handed out.
 */
static bool
fpb_scan_claim_run(IndexScanDesc scan, bool forward, FpbScanRun *run,
				   int pair)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;

	run->lobuf = so->cmp != NULL ? &so->runbufs[2 * pair] : NULL;
	run->hibuf = so->cmp != NULL ? &so->runbufs[2 * pair + 1] : NULL;
	if (so->nivals > 0)
	{
		/* array keys: the participants go through the intervals together */
		return fpb_pscan_claim(scan, forward, so->ivals, so->nivals, run);
	}
	else
	{
		FpbScanInterval whole = {so->slok, so->slot, so->shik, so->shit,
		so->slof, so->shif};

		return fpb_pscan_claim(scan, forward, &whole, 1, run);
	}
}

/*
 * Parallel scans: take the next run of leaves and read its first page.
 * Returns false when the shared scan has handed everything out.  The run's
 * key range becomes [lok, hik], so fpb_scan_readpage copies only its
 * entries and stops at its end; the scan's own interval is kept in
 * [slok, shik].
 *
 * While leaves are prefetched, a participant holds the run after the one it
 * reads, claimed as it starts this one, and prefetches on into its leaves:
 * otherwise the first leaves of every run would be read as they are needed
 * (README, "Claiming ahead").  The run claimed ahead is read next, whatever
 * was handed out meanwhile; runs still come to a participant in key order.
 */
static bool
fpb_scan_claim(IndexScanDesc scan, bool forward)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	Relation	index = scan->indexRelation;
	FpbScanRun	run;
	Buffer		buf;
	FpbEntry	startkey;
	bool		wasahead = so->hasahead;

	fpb_scan_release(so);
	/* run bounds with values need room for them (wide indexes only) */
	if (so->cmp != NULL && so->runbufs == NULL)
		so->runbufs = MemoryContextAlloc(so->scancxt, 4 * sizeof(FpbFullBuf));
	if (so->ahead == NULL)
		so->ahead = MemoryContextAlloc(so->scancxt, sizeof(FpbScanRun));
	if (so->hasahead)
	{
		run = *so->ahead;
		so->hasahead = false;
		so->runpair ^= 1;
	}
	else if (!fpb_scan_claim_run(scan, forward, &run, so->runpair))
		return fpb_scan_claims_end(scan);
	so->nruns++;
	so->lok = run.lok;
	so->lot = run.lot;
	so->hik = run.hik;
	so->hit = run.hit;
	so->lof = run.lof;
	so->hif = run.hif;
	so->runlast = forward ? InvalidBlockNumber : run.last;
	startkey = forward ? fpb_scan_lo(so) : fpb_scan_hi(so);
	if (run.start == InvalidBlockNumber)
		buf = fpb_search(index, &startkey, BUFFER_LOCK_SHARE, NULL, NULL);
	else
	{
		/*
		 * The leaf a downlink names has at most that downlink's key as its
		 * lower bound (a deletion of its left sibling lowers it), or it was
		 * deleted and its right sibling took its key range; if it split
		 * since, the run's start key may lie further right.  Moving right
		 * finds it either way.
		 */
		CHECK_FOR_INTERRUPTS();
		buf = fpb_getbuf(index, run.start, BUFFER_LOCK_SHARE);
		if (!FpbPageIsLeaf(FpbPageGetOpaque(BufferGetPage(buf))))
			fpb_index_corrupt(index, run.start,
							  "Page has level %u, but a level-1 downlink leads here.",
							  FpbPageGetOpaque(BufferGetPage(buf))->level);
		if (!forward && fpb_wide_key_between(so->cmp, &startkey))
			buf = fpb_moveright_below(index, buf, &startkey,
									  BUFFER_LOCK_SHARE);
		else
			buf = fpb_moveright(index, buf, &startkey, BUFFER_LOCK_SHARE,
								false, NULL, NULL);
	}
	fpb_scan_readpage(scan, buf, so->keep_pin);
	so->cur = forward ? 0 : so->nitems - 1;
	fpb_pscan_stop_left(so);
	if (wasahead)
		fpb_pf_run_next(index, &so->pf);
	else
		fpb_pf_run_begin(index, &so->pf, run.blks, run.nblks);
	if (so->pf.state == FPB_PF_ON &&
		fpb_scan_claim_run(scan, forward, so->ahead, so->runpair ^ 1))
	{
		so->hasahead = true;
		fpb_pf_run_append(index, &so->pf, so->ahead->blks,
						  so->ahead->nblks);
	}
	return true;
}

/*
 * Descend to the start of the scan's current key interval in direction
 * forward (its upper end backward), start the leaf prefetcher from the
 * leaf's parent, whose downlinks are the first jump-pointer array, and read
 * the leaf.
 */
static void
fpb_scan_descend(IndexScanDesc scan, bool forward)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	FpbStack	stack;
	Buffer		buf;
	FpbEntry	start = forward ? fpb_scan_lo(so) : fpb_scan_hi(so);

	buf = fpb_search(scan->indexRelation, &start, BUFFER_LOCK_SHARE, &stack,
					 NULL);
	fpb_pf_init(&so->pf, stack ? stack->blkno : InvalidBlockNumber, forward);
	fpb_free_stack(stack);
	fpb_scan_readpage(scan, buf, so->keep_pin);
	so->cur = forward ? 0 : so->nitems - 1;
}

/* Make key interval i of a scan with array keys the one being read. */
void
fpb_scan_set_interval(FpbScanOpaque so, int i)
{
	FpbScanInterval *iv = &so->ivals[i];

	so->ival = i;
	so->lok = iv->lok;
	so->lot = iv->lot;
	so->hik = iv->hik;
	so->hit = iv->hit;
	so->lof = iv->lof;
	so->hif = iv->hif;
	so->runlast = InvalidBlockNumber;
}

/*
 * Serial scans with array keys: start reading the next of the key
 * intervals in direction forward, by a descent to its start.  Returns false
 * when no interval is left (the batch and position are then left as they
 * were).  (Parallel scans share out each interval in runs: fpb_scan_claim.)
 *
 * Forward, an interval that begins on the leaf just read (below its high
 * key then) is read from that leaf without a descent: the leaf's lower
 * bound, which can only move left (a deletion of its left sibling), is at
 * or below the new interval's start (every leaf a forward scan reaches
 * starts at or below the end of the interval it reads, and the intervals
 * come in key order), so moving right from it finds the start as a descent
 * would, also after concurrent splits; if the leaf was deleted since, its
 * right sibling took its key range, and moving right steps over it.
 * Only while the scan has not left the leaf its last descent found: the
 * leaf prefetcher set up by that descent is then still untouched and fits.
 */
static bool
fpb_scan_next_interval(IndexScanDesc scan, bool forward)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	Buffer		buf;
	int			i;

	i = so->ival + (forward ? 1 : -1);
	if (i < 0 || i >= so->nivals)
		return false;
	CHECK_FOR_INTERRUPTS();
	fpb_scan_set_interval(so, i);
	/* one index scan per array element, as in btree */
	pgstat_count_index_scan(scan->indexRelation);
	fpb_scan_release(so);
	if (forward && !so->moved && BlockNumberIsValid(so->curblk) &&
		(so->rightblk == InvalidBlockNumber ||
		 fpb_scan_cmp(so, so->lok, so->lot, so->lof,
					  so->curhik, so->curhit, so->curhif) < 0))
	{
		BlockNumber blkno = so->curblk;
		FpbEntry	lo = fpb_scan_lo(so);

		buf = fpb_getbuf(scan->indexRelation, blkno, BUFFER_LOCK_SHARE);
		buf = fpb_moveright(scan->indexRelation, buf, &lo,
							BUFFER_LOCK_SHARE, false, NULL, NULL);
		fpb_scan_readpage(scan, buf, so->keep_pin);
		so->cur = 0;
		so->moved = (so->curblk != blkno);
		return true;
	}
	fpb_pf_stop(&so->pf);
	fpb_scan_descend(scan, forward);
	so->moved = false;
	return true;
}

/*
 * The scan's current range is read to its end in direction forward: go on
 * with the next one, a run claimed from the shared state in a parallel
 * scan or the next array-key interval in a serial one.  False when there
 * is none.
 */
static bool
fpb_scan_next_range(IndexScanDesc scan, bool forward)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;

	if (scan->parallel_scan != NULL)
		return fpb_scan_claim(scan, forward);
	return so->nivals > 0 && fpb_scan_next_interval(scan, forward);
}

/*
 * A forward step about to leave a live page that it did not drop: its high
 * key is the scan's position, the key every entry still to come lies at or
 * above (the page was read whole).
 */
static void
fpb_scan_setpos(FpbScanOpaque so)
{
	FpbEntry	pos = fpb_mkkey(so->curhik, so->curhit);

	pos.f = so->curhif;
	if (so->cmp != NULL && so->rightblk != InvalidBlockNumber)
	{
		if (so->posbuf == NULL)
			so->posbuf = MemoryContextAlloc(so->scancxt, sizeof(FpbFullBuf));
		fpb_entry_keep(so->cmp, &pos, so->posbuf);
	}
	so->posk = pos.k;
	so->post = pos.t;
	so->posf = pos.f;
	so->posvalid = true;
}

/*
 * After steps from deleted or half-dead pages, whose high keys bound
 * nothing, or from a page this dropped: is the live page just read behind
 * the scan's position (its high key not above it)?  Then its batch is
 * dropped and the step counted as unchecked.
 *
 * Concurrently this happens only when the page the position came from has
 * been deleted since (it was empty) and a page right of it took over its
 * range and split below its old high key: whatever such a page holds was
 * inserted after the scan read the position's page (whatever the snapshot)
 * and lies behind it, where a scan may miss new rows (nbtree's reads such a
 * page after a deleted one, unchecked).
 * Otherwise right-links lead round a cycle through a deleted page: without
 * this the scan would return each row once per round, and go round as many
 * times as the index has blocks before fpb_count_unchecked reports the
 * cycle; with it, the pages of the second round are dropped and counted,
 * and the cycle is reported within about one round.
 */
static bool
fpb_scan_behind(IndexScanDesc scan)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;

	if (so->curgone || so->rightblk == InvalidBlockNumber ||
		fpb_scan_cmp(so, so->curhik, so->curhit, so->curhif,
					 so->posk, so->post, so->posf) > 0)
		return false;
	fpb_count_unchecked(scan->indexRelation, so->curblk, &so->unchecked);
	so->nitems = 0;
	so->behind = true;
	return true;
}

/*
 * Leave the batch's page for its right sibling and read that into the
 * batch (an empty one if it lies behind the scan).  Kept out of line: it
 * runs once per page, fpb_scan_next once per entry.
 */
static pg_noinline void
fpb_scan_step_right(IndexScanDesc scan)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	FpbEntry	hk = fpb_mkkey(so->curhik, so->curhit);
	bool		frompos;
	bool		havepos;
	Buffer		buf;

	fpb_scan_release(so);
	/* where the scan stands: see fpb_scan_behind */
	frompos = so->curgone || so->behind;
	if (!frompos)
		fpb_scan_setpos(so);
	havepos = !frompos || so->posvalid;
	hk.f = so->curhif;
	buf = fpb_getbuf_right(scan->indexRelation, so->curblk, 0,
						   so->curgone ? NULL : &hk, so->rightblk,
						   BUFFER_LOCK_SHARE, false, &so->unchecked);
	fpb_scan_readpage(scan, buf, so->keep_pin);
	so->posvalid = havepos;
	so->cur = 0;
	so->moved = true;
	if (frompos && havepos && fpb_scan_behind(scan))
		return;
	fpb_scan_advance_prefetch(scan, true);
}

/*
 * Advance to the next matching entry in direction dir.  Returns false at
 * the end of the range.  gettuple: called by amgettuple (not amgetbitmap).
 */
bool
fpb_scan_next(IndexScanDesc scan, ScanDirection dir, bool gettuple)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	bool		forward = ScanDirectionIsForward(dir);

	if (!so->started)
	{
		FpbMetaPageData *meta;

		so->started = true;

		/*
		 * One scan per (re)scan, as nbtree counts in _bt_first, even when
		 * the keys can match nothing (but not for an array without
		 * elements, nor here for array keys: fpb_scan_next_interval counts
		 * each interval).  Tuples are counted by the caller
		 * (index_getnext_tid, index_getbitmap).
		 */
		if (!so->noscan &&
			(so->empty || so->nivals == 0 || scan->parallel_scan != NULL))
			pgstat_count_index_scan(scan->indexRelation);
		if (so->empty)
		{
			so->nitems = 0;
			so->cur = 0;
			return false;
		}
		so->keep_pin = gettuple && fpb_scan_keeps_pin(scan);
		/* not in a transaction begun in recovery: marks are the primary's */
		so->skipdead = scan->ignore_killed_tuples;
		fpb_heap_prefetch_init(&so->hp, (gettuple && !scan->xs_want_itup) ?
							   scan->heapRelation : NULL);
		meta = fpb_cached_meta(scan->indexRelation, false);
		so->nodedist = fpb_node_prefetch;
		if (so->nodedist <= 0)
			so->nodedist = (int) ceil(meta->t1 / (meta->x * meta->tnext));
		so->nodedist = Max(1, so->nodedist);
		if (so->nivals > 0 && scan->parallel_scan == NULL)
		{
			so->ival = forward ? -1 : so->nivals;
			so->curblk = InvalidBlockNumber;	/* the first needs a descent */
			if (!fpb_scan_next_interval(scan, forward))
			{
				so->nitems = 0;
				so->cur = 0;
				return false;
			}
		}
		else if (scan->parallel_scan != NULL)
		{
			/*
			 * The participants share out the interval (with array keys,
			 * each of the intervals in turn) in runs (bitmap scans are never
			 * parallel).  Each prefetches its own runs' leaves.
			 */
			Assert(gettuple);
			so->slok = so->lok;
			so->slot = so->lot;
			so->shik = so->hik;
			so->shit = so->hit;
			so->slof = so->lof;
			so->shif = so->hif;
			fpb_pf_init(&so->pf, InvalidBlockNumber, forward);
			if (fpb_enable_range_prefetch)
				so->pf.state = FPB_PF_PENDING;
			so->nruns = 0;
			so->hasahead = false;
			if (!fpb_scan_claim(scan, forward))
			{
				so->nitems = 0;
				so->cur = 0;
				return false;
			}
		}
		else
		{
			fpb_scan_descend(scan, forward);
		}
	}
	else if (forward)
		so->cur++;
	else
		so->cur--;

	for (;;)
	{
		Buffer		buf;

		if (so->cur >= 0 && so->cur < so->nitems)
			return true;
		/* leaving the batch's page: mark what the heap reported dead */
		fpb_scan_kill_items(scan);
		if (forward)
		{
			if (!so->more_right)
			{
				if (fpb_scan_next_range(scan, true))
					continue;
				so->cur = so->nitems;
				return false;
			}
			fpb_scan_step_right(scan);
		}
		else
		{
			if (!so->more_left)
			{
				if (fpb_scan_next_range(scan, false))
					continue;
				so->cur = -1;
				return false;
			}
			buf = fpb_walk_left(scan);
			fpb_scan_release(so);
			if (!BufferIsValid(buf))
			{
				/* the pages left of ours were all deleted meanwhile */
				so->nitems = 0;
				so->more_left = false;
				if (fpb_scan_next_range(scan, false))
					continue;

				/*
				 * Before the first entry now, with an empty batch that still
				 * has the links of the page left behind: a scroll cursor
				 * that turns forward would step right of that page and skip
				 * its entries.  It starts afresh instead, as nbtree's scan
				 * does after _bt_walk_left finds nothing.
				 */
				fpb_pf_stop(&so->pf);
				so->started = false;
				so->cur = -1;
				return false;
			}
			fpb_scan_readpage(scan, buf, so->keep_pin);
			so->cur = so->nitems - 1;
			so->moved = true;
			fpb_pscan_stop_left(so);
			fpb_scan_advance_prefetch(scan, false);
		}
	}
}
