/*-------------------------------------------------------------------------
 *
 * scan.c
 *	  Index scans: amgettuple (both directions, index-only) and amgetbitmap.
 *
 * The scan keys are turned into one closed interval [lo, hi] of compound
 * keys, or with equality array keys into a sorted list of disjoint ones
 * read one after another (see scankeys.c), so no per-entry qual evaluation
 * is needed.
 * Each leaf page is read under a share lock: the matching entries are
 * copied into the scan state and the lock is released, then the scan steps
 * to the sibling remembered at read time.  Only scans that must hold VACUUM
 * off the TIDs they return keep the pin meanwhile (see fpb_scan_keeps_pin).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/relscan.h"
#include "access/tupmacs.h"
#include "fpbtree.h"
#include "miscadmin.h"
#include "nodes/tidbitmap.h"
#include "pgstat.h"
#include "scan.h"
#include "storage/predicate.h"
#include "utils/memutils.h"
#include "utils/rel.h"

IndexScanDesc
fpbbeginscan(Relation r, int nkeys, int norderbys)
{
	IndexScanDesc scan = RelationGetIndexScan(r, nkeys, norderbys);
	FpbScanOpaque so = palloc0(sizeof(FpbScanOpaqueData));

	so->pinbuf = InvalidBuffer;
	so->curblk = InvalidBlockNumber;
	so->runlast = InvalidBlockNumber;
	/*
	 * The matches of a few leaf nodes: a point lookup needs no more, and a
	 * range scan grows it to a page's entry count when a node might not fit
	 * (readpage).  A full page's (12 kB) would be a malloc and a free per
	 * scan.
	 */
	so->maxitems = FPB_SCAN_ITEMS_INITIAL;
	so->items = palloc(sizeof(FpbScanItem) * so->maxitems);
	so->scancxt = CurrentMemoryContext;
	scan->opaque = so;
	scan->xs_itupdesc = RelationGetDescr(r);
	return scan;
}

/* Room for n matches in the batch, which is grown (in the scan's context). */
void
fpb_scan_grow_items(FpbScanOpaque so, int n)
{
	so->maxitems = n;
	so->items = repalloc(so->items, sizeof(FpbScanItem) * n);
}

/*
 * The scan leaves its batch (or ends): drop the batch's pin, unless the
 * batch is the marked one, whose copy takes it (markpos.c).
 */
void
fpb_scan_release(FpbScanOpaque so)
{
	fpb_mark_leave(so);
	if (BufferIsValid(so->pinbuf))
		ReleaseBuffer(so->pinbuf);
	so->pinbuf = InvalidBuffer;
}

void
fpbrescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
		  ScanKey orderbys, int norderbys)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;

	fpb_scan_kill_items(scan);
	fpb_mark_forget(so);
	fpb_scan_release(so);
	fpb_pf_stop(&so->pf);
	if (scankey && scan->numberOfKeys > 0)
		memmove(scan->keyData, scankey,
				scan->numberOfKeys * sizeof(ScanKeyData));
	fpb_scan_bounds(scan);
	so->started = false;
	so->curblk = InvalidBlockNumber;
	so->nitems = 0;
	so->cur = 0;
	so->more_left = so->more_right = false;
}

/* where the value sits in the index tuple of a one-column wide index */
#define FPB_ITUP_HOFF	MAXALIGN(sizeof(IndexTupleData))

/*
 * Wide index-only scans: copy the value of stored key k of the leaf to vp
 * (the batch's value buffer, which ends at end) for item, and return where
 * the next goes.  The copy is an index tuple the executor gets in place: a
 * multi-column slot (mcmp, the index's comparison) is one, or a packed row
 * is made one; a one-column value gets a tuple header in front (item->f
 * still points at the value).
 */
static char *
fpb_scan_keepval(Page page, uint64 k, BlockNumber blkno, char *vp,
				 const char *end, const FpbCmp *mcmp, FpbScanItem *item)
{
	const char *f = fpb_slot_get(page, k, blkno);
	Size		len;
	Size		hoff = FPB_ITUP_HOFF;
	IndexTuple	t;

	if (f == NULL)
		return vp;
	vp = (char *) MAXALIGN(vp);
	if (mcmp)
	{
		Size		size = vp < end ? fpb_tuple_unpack(mcmp, f, vp, end - vp) : 0;

		if (size == 0)
			elog(ERROR, "fpbtree: index-only copies of block %u overrun their buffer",
				 blkno);
		item->f = vp;
		return vp + size;
	}
	len = fpb_slot_len(page, f);
	if (vp + hoff + len > end)
		elog(ERROR, "fpbtree: index-only copies of block %u overrun their buffer",
			 blkno);
	/* as index_form_tuple makes it: no NULL, one value at hoff */
	t = (IndexTuple) vp;
	memset(&t->t_tid, 0, sizeof(t->t_tid));
	t->t_info = MAXALIGN(hoff + len) |
		(FpbPageGetOpaque(page)->fulllen == 0 ? INDEX_VAR_MASK : 0);
	memcpy(vp + hoff, f, len);
	item->f = vp + hoff;
	return vp + hoff + len;
}

/* Prefetch the leaf node after `line` in the in-page chain; return it. */
static inline uint16
fpb_scan_prefetch_next(Page page, FpbPageOpaque opq, uint16 line)
{
	uint16		next;

	if ((int) line + opq->x > opq->hwm)
		return FPB_NONE;
	next = ((FpbNodeHeader *) fpb_line(page, line))->next;
	if (next == FPB_NONE || (int) next + opq->x > opq->hwm)
		return FPB_NONE;
	fpb_prefetch_node(fpb_line(page, next), opq->x);
	return next;
}

/*
 * Copy the entries of the locked leaf page in buf that lie in [lo, hi]
 * into the batch (but those marked dead, unless the transaction began in
 * recovery: see dead.c), note the page's links, LSN and whether the scan
 * may continue past it, then unlock (keeping the pin if keep_pin).
 */
static void
fpb_scan_readpage(IndexScanDesc scan, Buffer buf, bool keep_pin)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	Page		page = BufferGetPage(buf);
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	BlockNumber blkno = BufferGetBlockNumber(buf);
	int			cap = fpb_leafcap(opq->x, false);
	uint16		line;
	uint16		pfline;
	bool		before_lo = false;
	bool		need_lo = true;
	int			n = 0;
	int			guard = 0;
	bool		wide = (so->cmp != NULL);
	bool		wantvals = wide && scan->xs_want_itup;
	char	   *vp = NULL;
	char	   *vend = NULL;
	const FpbCmp *mcmp = wide && so->cmp->multi ? so->cmp : NULL;

	if (!FpbPageIsLeaf(opq))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("fpbtree \"%s\": scan reached non-leaf block %u",
						RelationGetRelationName(scan->indexRelation), blkno)));

	/*
	 * Serializable transactions lock the leaves they read (README,
	 * "Predicate locks"), while the page is share-locked: an insert into it
	 * checks for such locks under its exclusive lock, so one of the two
	 * sees the other.
	 */
	PredicateLockPage(scan->indexRelation, blkno, scan->xs_snapshot);
	/*
	 * A posting page's matches are copied at once: room for all of them
	 * first.  Other pages' node by node, growing before a node that might
	 * not fit.
	 */
	if (FpbPageIsPosting(opq) && opq->nentries > so->maxitems)
		fpb_scan_grow_items(so, opq->nentries);
	if (wantvals)
	{
		/*
		 * Copied for index-only scans, each an index tuple handed out in
		 * place (fpb_scan_keepval).  The values fit in a page; a copy adds
		 * at most 15 bytes (alignment, a tuple header), about what its
		 * entry takes in its node (a key and a TID, 14 bytes), and a packed
		 * row's as much again as the row (padding at most doubles it), so
		 * a page's copies take less than three pages.  They take the places
		 * of the last page's, which the executor has read.
		 */
		if (so->itemvals == NULL)
			so->itemvals = MemoryContextAlloc(so->scancxt, FPB_ITEMVALS_SIZE);
		vp = so->itemvals;
		vend = so->itemvals + FPB_ITEMVALS_SIZE;
	}

	if (FpbPageIsPosting(opq))
	{
		FpbEntry	lo = fpb_scan_lo(so);
		FpbEntry	hi = fpb_scan_hi(so);

		n = fpb_posting_scan(page, so->cmp, blkno, &lo, &hi, so->skipdead,
							 so->items, &before_lo);
		if (wide)
		{
			/* a run's entries share one value: filter and copy it once */
			int			m = 0;
			uint64		lastk = 0;
			bool		keep = true;
			const char *kept = NULL;

			for (int i = 0; i < n; i++)
			{
				FpbScanItem *item = &so->items[i];

				if (i == 0 || item->k != lastk)
				{
					lastk = item->k;
					keep = so->nfilters == 0 ||
						fpb_scan_filter(so, fpb_slot_get(page, item->k, blkno));
					kept = NULL;
					if (keep && wantvals)
					{
						vp = fpb_scan_keepval(page, item->k, blkno, vp,
											  vend, mcmp, item);
						kept = item->f;
					}
				}
				if (!keep)
					continue;
				so->items[m] = *item;
				so->items[m].f = kept;
				m++;
			}
			n = m;
		}
		line = FPB_NONE;
	}
	else
	{
		FpbEntry	lo = fpb_scan_lo(so);

		line = fpb_page_find_leafnode(page, so->cmp, &lo, blkno);
	}
	if (line != FPB_NONE && line != opq->firstleaf)
		before_lo = true;

	/*
	 * Prefetch the in-page leaf chain nodedist nodes ahead of the node being
	 * copied (the internal jump-pointer array of the page); pfline runs ahead.
	 */
	pfline = line;
	for (int i = 0; i < so->nodedist && pfline != FPB_NONE; i++)
		pfline = fpb_scan_prefetch_next(page, opq, pfline);
	while (line != FPB_NONE)
	{
		char	   *node;
		FpbNodeHeader *hdr;
		uint64	   *keys;
		ItemPointerData *tids;
		int			i;
		bool		done = false;

		if ((int) line + opq->x > opq->hwm)
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("fpbtree page %u is corrupted: node reference outside the used lines",
							blkno)));
		node = fpb_line(page, line);
		hdr = (FpbNodeHeader *) node;
		if (hdr->kind != FPB_NODE_LEAF || hdr->start + hdr->n > cap ||
			(hdr->start != 0 && !(opq->flags & FPB_F_STARTS)) ||
			n + hdr->n > Max((int) opq->nentries, so->maxitems))
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("fpbtree page %u is corrupted: node header is invalid",
							blkno)));
		if (n + hdr->n > so->maxitems)
			fpb_scan_grow_items(so, Max(n + hdr->n, (int) opq->nentries));
		if (pfline != FPB_NONE)
			pfline = fpb_scan_prefetch_next(page, opq, pfline);
		keys = fpb_node_keys(node);
		tids = fpb_node_tids(node, cap);
		i = 0;

		/*
		 * Entries are in key order along the chain: compare with the lower
		 * bound only until one passes it, and with the upper bound only in
		 * the node holding the last match (its last entry is above it).
		 */
		if (need_lo)
		{
			while (i < hdr->n &&
				   fpb_scan_cmp_at(so, page, blkno, keys[i],
								   fpb_tid_to_t(&tids[i]),
								   so->lok, so->lot, so->lof) < 0)
			{
				before_lo = true;
				i++;
			}
			if (i < hdr->n)
				need_lo = false;
		}
		if (hdr->n == 0 ||
			fpb_scan_cmp_at(so, page, blkno, keys[hdr->n - 1],
							fpb_tid_to_t(&tids[hdr->n - 1]),
							so->hik, so->hit, so->hif) <= 0)
		{
			for (; i < hdr->n; i++)
			{
				if (so->skipdead && fpb_tid_is_dead(&tids[i]))
					continue;
				if (so->nfilters > 0 &&
					!fpb_scan_filter(so, fpb_slot_get(page, keys[i], blkno)))
					continue;
				so->items[n].k = keys[i];
				so->items[n].t = fpb_tid_to_t(&tids[i]);
				so->items[n].f = NULL;
				if (wantvals)
					vp = fpb_scan_keepval(page, keys[i], blkno, vp, vend,
										  mcmp, &so->items[n]);
				n++;
			}
		}
		else
		{
			for (; i < hdr->n; i++)
			{
				uint64		t = fpb_tid_to_t(&tids[i]);

				if (fpb_scan_cmp_at(so, page, blkno, keys[i], t,
									so->hik, so->hit, so->hif) > 0)
					break;
				if (so->skipdead && fpb_tid_is_dead(&tids[i]))
					continue;
				if (so->nfilters > 0 &&
					!fpb_scan_filter(so, fpb_slot_get(page, keys[i], blkno)))
					continue;
				so->items[n].k = keys[i];
				so->items[n].t = t;
				so->items[n].f = NULL;
				if (wantvals)
					vp = fpb_scan_keepval(page, keys[i], blkno, vp, vend,
										  mcmp, &so->items[n]);
				n++;
			}
			done = true;
		}
		if (done)
			break;
		line = hdr->next;
		if (++guard > FPB_NLINES)
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("fpbtree page %u is corrupted: cycle in the in-page leaf chain",
							blkno)));
	}
	so->nitems = n;
	so->itemvals_used = wantvals ? (Size) (vp - so->itemvals) : 0;
	so->batchgen++;
	so->hp.batch++;
	so->curblk = blkno;
	so->curlsn = BufferGetLSNAtomic(buf);
	so->leftblk = opq->left;
	so->rightblk = opq->right;
	{
		FpbEntry	hk;

		fpb_page_get_hikey(page, &hk, blkno);
		if (!FpbPageIsRightmost(opq) && so->cmp != NULL)
		{
			if (so->curhikbuf == NULL)
				so->curhikbuf = MemoryContextAlloc(so->scancxt,
												   sizeof(FpbFullBuf));
			fpb_entry_keep(so->cmp, &hk, so->curhikbuf);
		}
		so->curhik = hk.k;
		so->curhit = hk.t;
		so->curhif = hk.f;
		so->more_right = !FpbPageIsRightmost(opq) &&
			fpb_scan_cmp(so, hk.k, hk.t, hk.f, so->hik, so->hit,
						 so->hif) <= 0;

		/*
		 * A half-dead or deleted leaf's key range belongs to its right
		 * sibling: inserts into it go there.  Read on to the right
		 * whatever the high key says, as nbtree steps over such pages,
		 * so that a serializable scan also locks the page those inserts
		 * check (README, "Predicate locks").
		 */
		if (FpbPageIsIgnore(opq) && !FpbPageIsRightmost(opq))
			so->more_right = true;
	}
	so->more_left = !FpbPageIsLeftmost(opq) && !before_lo;

	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	if (keep_pin)
		so->pinbuf = buf;
	else
		ReleaseBuffer(buf);
}

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
 * whose high key lies below the batch page's (they all lie to its left), and
 * fpb_getbuf_right checks each step right, so each walk ends.
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

	thk.f = so->curhif;

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
			if (!target_rightmost)
			{
				FpbEntry	hk;

				fpb_page_get_hikey(BufferGetPage(buf), &hk,
								   BufferGetBlockNumber(buf));
				if (fpb_entry_cmp(so->cmp, &hk, &thk) >= 0)
					break;
			}

			/* the left page split since we looked: its new halves lie between */
			buf = fpb_step_right(index, buf, BUFFER_LOCK_SHARE);
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
				buf = fpb_step_right(index, buf, BUFFER_LOCK_SHARE);
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
 * Parallel scans: claim the next run of leaves and read its first page.
 * Returns false when the shared scan has handed everything out.  The run's
 * key range becomes [lok, hik], so fpb_scan_readpage copies only its
 * entries and stops at its end; the scan's own interval is kept in
 * [slok, shik].
 */
static bool
fpb_scan_claim(IndexScanDesc scan, bool forward)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	Relation	index = scan->indexRelation;
	FpbScanRun		run;
	Buffer		buf;
	FpbEntry	startkey;

	fpb_scan_release(so);
	/* run bounds with values need room for them (wide indexes only) */
	if (so->cmp != NULL && so->runbufs == NULL)
		so->runbufs = MemoryContextAlloc(so->scancxt, 2 * sizeof(FpbFullBuf));
	run.lobuf = so->cmp != NULL ? &so->runbufs[0] : NULL;
	run.hibuf = so->cmp != NULL ? &so->runbufs[1] : NULL;
	if (so->nivals > 0)
	{
		/* array keys: the participants go through the intervals together */
		if (!fpb_pscan_claim(scan, forward, so->ivals, so->nivals, &run))
			return fpb_scan_claims_end(scan);
	}
	else
	{
		FpbScanInterval whole = {so->slok, so->slot, so->shik, so->shit,
		so->slof, so->shif};

		if (!fpb_pscan_claim(scan, forward, &whole, 1, &run))
			return fpb_scan_claims_end(scan);
	}
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
	fpb_pf_run_begin(index, &so->pf, run.blks, run.nblks);
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
 * Advance to the next matching entry in direction dir.  Returns false at
 * the end of the range.  gettuple: called by amgettuple (not amgetbitmap).
 */
static bool
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
			fpb_scan_release(so);
			{
				FpbEntry	hk = fpb_mkkey(so->curhik, so->curhit);

				hk.f = so->curhif;
				buf = fpb_getbuf_right(scan->indexRelation, so->curblk, 0,
									   &hk, so->rightblk, BUFFER_LOCK_SHARE);
			}
			fpb_scan_readpage(scan, buf, so->keep_pin);
			so->cur = 0;
			so->moved = true;
			fpb_scan_advance_prefetch(scan, true);
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
				continue;
			}
			fpb_scan_readpage(scan, buf, so->keep_pin);
			so->cur = so->nitems - 1;
			so->moved = true;
			fpb_pscan_stop_left(so);
			fpb_scan_advance_prefetch(scan, false);
		}
	}
}

/*
 * The context of index-only scan tuples.  Made on first use: most scans
 * (plain, bitmap, and short index-only ones of by-value types) need little
 * or nothing from it, and short scans should not pay for a context.
 */
static MemoryContext
fpb_scan_tupcxt(FpbScanOpaque so)
{
	if (so->tupcxt == NULL)
		so->tupcxt = AllocSetContextCreate(so->scancxt,
										   "fpbtree index-only tuples",
										   ALLOCSET_SMALL_SIZES);
	return so->tupcxt;
}

/* The index-only tuple of a NULL, formed once per scan. */
static IndexTuple
fpb_scan_nulltup(IndexScanDesc scan)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;

	if (so->nulltup == NULL)
	{
		/* in the scan's context: tupcxt is reset for each narrow value */
		MemoryContext old = MemoryContextSwitchTo(so->scancxt);
		Datum		zero = (Datum) 0;
		bool		t = true;

		so->nulltup = index_form_tuple(scan->xs_itupdesc, &zero, &t);
		MemoryContextSwitchTo(old);
	}
	return so->nulltup;
}

bool
fpbgettuple(IndexScanDesc scan, ScanDirection dir)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	FpbScanItem *item;

	/* the entry returned last is dead to every snapshot (see dead.c) */
	if (scan->kill_prior_tuple && so->started)
		fpb_scan_remember_dead(scan);
	if (!fpb_scan_next(scan, dir, true))
		return false;
	item = &so->items[so->cur];
	fpb_t_to_heaptid(item->t, &scan->xs_heaptid);
	if (so->hp.cap != 0)
		fpb_heap_prefetch(&so->hp, scan->heapRelation, so->items, so->nitems,
						  so->cur, ScanDirectionIsForward(dir));
	scan->xs_recheck = so->recheck;

	if (scan->xs_want_itup)
	{
		bool		isnull = (item->t & FPB_T_NULLBIT) != 0;
		Datum		value = (Datum) 0;
		Form_pg_attribute att = TupleDescAttr(scan->xs_itupdesc, 0);

		if (so->cmp && so->cmp->multi)
		{
			/*
			 * The tuple copied from the leaf holds every column, MAXALIGNed
			 * in the batch, which keeps it until the next page is read: the
			 * executor reads it before asking for the next row.
			 */
			scan->xs_itup = (IndexTuple) item->f;
			return true;
		}
		if (so->cmp)
		{
			/* a value's tuple was made with its copy (fpb_scan_keepval) */
			if (isnull)
				scan->xs_itup = fpb_scan_nulltup(scan);
			else
				scan->xs_itup = (IndexTuple) (item->f - FPB_ITUP_HOFF);
			return true;
		}
		/* every returned entry passes here: look the procedure up once */
		if (so->decproc == NULL)
			so->decproc = index_getprocinfo(scan->indexRelation, 1,
											FPB_DECODE_PROC);
		if (!isnull)
			value = fpb_decode(so->decproc, item->k);
		if (isnull)
			scan->xs_itup = fpb_scan_nulltup(scan);
		else if (att->attbyval)
		{
			/* form the tuple once; then only the datum changes */
			if (so->valtup == NULL)
			{
				MemoryContext old = MemoryContextSwitchTo(so->scancxt);
				Datum		zero = (Datum) 0;
				bool		f = false;

				so->valtup = index_form_tuple(scan->xs_itupdesc, &zero, &f);
				so->valdata = (char *) so->valtup +
					IndexInfoFindDataOffset(so->valtup->t_info);
				MemoryContextSwitchTo(old);
			}
			store_att_byval(so->valdata, value, att->attlen);
			scan->xs_itup = so->valtup;
		}
		else
		{
			/* a narrow by-reference value, decoded from the key */
			MemoryContext old;

			MemoryContextReset(fpb_scan_tupcxt(so));
			old = MemoryContextSwitchTo(so->tupcxt);
			scan->xs_itup = index_form_tuple(scan->xs_itupdesc, &value,
											 &isnull);
			MemoryContextSwitchTo(old);
		}
	}
	return true;
}

int64
fpbgetbitmap(IndexScanDesc scan, TIDBitmap *tbm)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	ItemPointerData *tids = NULL;
	int			ntids = 0;
	int64		total = 0;

	if (!fpb_scan_next(scan, ForwardScanDirection, false))
		return 0;
	for (;;)
	{
		if (ntids < so->nitems)
		{
			ntids = so->nitems;
			tids = tids ? repalloc(tids, sizeof(ItemPointerData) * ntids)
				: palloc(sizeof(ItemPointerData) * ntids);
		}
		for (int i = so->cur; i < so->nitems; i++)
			fpb_t_to_heaptid(so->items[i].t, &tids[i - so->cur]);
		tbm_add_tuples(tbm, tids, so->nitems - so->cur, so->recheck);
		total += so->nitems - so->cur;
		so->cur = so->nitems - 1;
		CHECK_FOR_INTERRUPTS();
		if (!fpb_scan_next(scan, ForwardScanDirection, false))
			break;
	}
	if (tids)
		pfree(tids);
	return total;
}

void
fpbendscan(IndexScanDesc scan)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;

	fpb_scan_kill_items(scan);
	fpb_mark_free(so);
	fpb_scan_release(so);
	fpb_pf_stop(&so->pf);
	if (so->tupcxt)
		MemoryContextDelete(so->tupcxt);
	if (so->boundcxt)
		MemoryContextDelete(so->boundcxt);
	if (so->itemvals)
		pfree(so->itemvals);
	if (so->valtup)
		pfree(so->valtup);
	if (so->nulltup)
		pfree(so->nulltup);
	pfree(so->items);
	if (so->curhikbuf)
		pfree(so->curhikbuf);
	if (so->killed)
		pfree(so->killed);
	pfree(so);
}
