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
 * copied into the scan state and the lock is released; scan_step.c then
 * moves the scan to the sibling remembered at read time.  Only scans that
 * must hold VACUUM off the TIDs they return keep the pin meanwhile (see
 * fpb_scan_keeps_pin).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relscan.h"
#include "access/tupmacs.h"
#include "fpbtree.h"
#include "miscadmin.h"
#include "nodes/tidbitmap.h"
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
	so->leaves = 0;
	so->unchecked = 0;
	so->behind = false;
	so->posvalid = false;
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
static pg_attribute_always_inline char *
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
		/* a row that left its first bytes to k gets them back */
		Size		size = vp < end ?
			fpb_tuple_unpack_row(mcmp, f, k, vp, end - vp) : 0;

		if (size == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("fpbtree page %u is corrupted: its index-only values are unsound or overrun the scan's buffer",
							blkno)));
		item->f = vp;
		return vp + size;
	}
	len = fpb_slot_len(page, f);
	if (vp + hoff + len > end)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("fpbtree page %u is corrupted: its index-only values overrun the scan's buffer",
						blkno)));
	/* as index_form_tuple makes it: no NULL, one value at hoff */
	t = (IndexTuple) vp;
	memset(&t->t_tid, 0, sizeof(t->t_tid));
	t->t_info = MAXALIGN(hoff + len) |
		(FpbPageGetOpaque(page)->fulllen == 0 ? INDEX_VAR_MASK : 0);
	memcpy(vp + hoff, f, len);
	fpb_full_unskip(fpb_fulllen_skip(FpbPageGetOpaque(page)->fulllen), k,
					vp + hoff);
	item->f = vp + hoff;
	return vp + hoff + len;
}

/*
 * Wide index-only scans: the values of the batch just read from the locked
 * leaf.  A few matches (a point lookup) get their index tuples at once.
 * More, on the first leaves of a scan, get a copy of their slots instead,
 * from which each tuple is made when it is returned (fpb_scan_itup): a scan
 * under a LIMIT returns few of a page's matches, and unpacking every one of
 * them cost more than the rest of the scan.  A scan that went on past them
 * likely returns every match: it is spared the copy.
 */
static void
fpb_scan_keepvals(FpbScanOpaque so, Page page, BlockNumber blkno,
				  bool unfiltered)
{
	const FpbCmp *mcmp = so->cmp->multi ? so->cmp : NULL;
	char	   *vp;
	char	   *vend;

	if (so->itemvals == NULL)
		so->itemvals = MemoryContextAlloc(so->scancxt, FPB_ITEMVALS_SIZE);
	if (so->nitems > FPB_SCAN_EAGER_VALS && so->leaves <= FPB_SCAN_LAZY_LEAVES)
	{
		uint64		kfirst = 0;
		uint64		klast = 0;
		uint64		offfirst = BLCKSZ;
		uint64		offlast = 0;

		/*
		 * What fpb_slot_get reads: the page header and the special space,
		 * and the slots from the matches' first to their last (no more: a
		 * scan that starts in the middle of a leaf needs the slots of its
		 * matches only, mostly one side of the area).
		 */
		memcpy(so->itemvals, page, SizeOfPageHeaderData);
		memcpy(so->itemvals + BLCKSZ - FPB_SPECIAL_SIZE,
			   (char *) page + BLCKSZ - FPB_SPECIAL_SIZE, FPB_SPECIAL_SIZE);
		for (int i = 0; i < so->nitems; i++)
		{
			uint64		off = so->items[i].k & FPB_WIDE_OFFMASK;

			if (off == 0)
				continue;
			if (off < offfirst)
			{
				offfirst = off;
				kfirst = so->items[i].k;
			}
			if (off > offlast)
			{
				offlast = off;
				klast = so->items[i].k;
			}
		}
		if (offlast > 0)
		{
			const char *first = fpb_slot_get(page, kfirst, blkno);
			const char *last = fpb_slot_get(page, klast, blkno);
			const char *end = last + fpb_slot_len(page, last);

			memcpy(so->itemvals + (first - (char *) page), first, end - first);
		}
		so->itemvals_page = true;
		so->itemvals_used = BLCKSZ;
		/* the matches' filters are checked from the copy, when returned */
		so->filter_late = unfiltered;
		return;
	}
	if (unfiltered)
	{
		int			m = 0;

		for (int i = 0; i < so->nitems; i++)
			if (fpb_scan_filter(so, so->items[i].k,
								fpb_slot_get(page, so->items[i].k, blkno)))
				so->items[m++] = so->items[i];
		so->nitems = m;
	}

	/*
	 * Each an index tuple handed out in place (fpb_scan_keepval), at most
	 * a header and twice the row: the buffer's three pages hold them.
	 * Entries of one slot (a run of a posting page) share their copy.
	 */
	vp = so->itemvals;
	vend = so->itemvals + FPB_ITEMVALS_SIZE;
	for (int i = 0; i < so->nitems; i++)
	{
		FpbScanItem *item = &so->items[i];

		if (i > 0 && item->k == item[-1].k)
			item->f = item[-1].f;
		else
			vp = fpb_scan_keepval(page, item->k, blkno, vp, vend, mcmp, item);
	}
	so->itemvals_used = vp - so->itemvals;
}

/*
 * The index tuple of a wide index-only scan's item whose batch holds a
 * copy of the leaf's slots (fpb_scan_keepvals): made after the copy's page,
 * where it stays until the next call.
 */
static pg_noinline IndexTuple
fpb_scan_itup(FpbScanOpaque so, const FpbScanItem *item)
{
	const FpbCmp *mcmp = so->cmp->multi ? so->cmp : NULL;
	FpbScanItem made;

	made.f = NULL;
	(void) fpb_scan_keepval((Page) so->itemvals, item->k, so->curblk,
							so->itemvals + BLCKSZ,
							so->itemvals + FPB_ITEMVALS_SIZE, mcmp, &made);
	if (mcmp)
		return (IndexTuple) made.f;
	return (IndexTuple) (made.f - FPB_ITUP_HOFF);
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
 * The first of the n entries of a leaf node (keys, tids) at or above the
 * bound (bk, bt, bf) (sign 0), or above it (sign 1); n if none.  A binary
 * search: in a wide index entries whose prefixes tie with the bound (a
 * multi-column index's equal first column, values with a common start)
 * each cost a value comparison, and a run of them can fill a node.
 */
static int
fpb_scan_node_bound(FpbScanOpaque so, Page page, BlockNumber blkno,
					const uint64 *keys, const ItemPointerData *tids, int n,
					uint64 bk, uint64 bt, const char *bf, int sign)
{
	int			lo = 0;
	int			hi = n;

	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (fpb_scan_cmp_at(so, page, blkno, keys[mid],
							fpb_tid_to_t(&tids[mid]), bk, bt, bf) < sign)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Copy the entries of the locked leaf page in buf that lie in [lo, hi]
 * into the batch (but those marked dead, unless the transaction began in
 * recovery: see dead.c), note the page's links, LSN and whether the scan
 * may continue past it, then unlock (keeping the pin if keep_pin).
 */
void
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
	bool		filter = so->nfilters > 0;
	bool		late = false;

	if (!FpbPageIsLeaf(opq))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("fpbtree \"%s\": scan reached non-leaf block %u",
						RelationGetRelationName(scan->indexRelation), blkno)));
	/* a forward step sets them again (scan_step.c) */
	so->behind = false;
	so->posvalid = false;
	if (so->vmgroup && so->nitems > 0)
		fpb_scan_group_note_last(so);

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
	/* index-only scans check positioned row bounds later (keepvals) */
	if (filter && wantvals && !FpbPageIsPosting(opq) &&
		fpb_scan_filters_late(so))
	{
		late = true;
		filter = false;
	}
	if (FpbPageIsPosting(opq))
	{
		FpbEntry	lo = fpb_scan_lo(so);
		FpbEntry	hi = fpb_scan_hi(so);

		n = fpb_posting_scan(page, so->cmp, blkno, &lo, &hi, so->skipdead,
							 so->items, &before_lo);
		if (wide)
		{
			/* a run's entries share one value: filter it once */
			int			m = 0;
			uint64		lastk = 0;
			bool		keep = true;

			for (int i = 0; i < n; i++)
			{
				FpbScanItem *item = &so->items[i];

				if (i == 0 || item->k != lastk)
				{
					lastk = item->k;
					keep = so->nfilters == 0 ||
						fpb_scan_filter(so, item->k,
										fpb_slot_get(page, item->k, blkno));
				}
				if (!keep)
					continue;
				so->items[m] = *item;
				so->items[m].f = NULL;
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
		if (need_lo && wide)
		{
			i = fpb_scan_node_bound(so, page, blkno, keys, tids, hdr->n,
									so->lok, so->lot, so->lof, 0);
			if (i > 0)
				before_lo = true;
			if (i < hdr->n)
				need_lo = false;
		}
		else if (need_lo)
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
				if (filter &&
					!fpb_scan_filter(so, keys[i],
									 fpb_slot_get(page, keys[i], blkno)))
					continue;
				so->items[n].k = keys[i];
				so->items[n].t = fpb_tid_to_t(&tids[i]);
				so->items[n].f = NULL;
				n++;
			}
		}
		else
		{
			/* the last match: the others are above hi (searched, if wide) */
			int			end = wide ?
				fpb_scan_node_bound(so, page, blkno, keys, tids, hdr->n - 1,
									so->hik, so->hit, so->hif, 1) : hdr->n;

			for (; i < end; i++)
			{
				uint64		t = fpb_tid_to_t(&tids[i]);

				if (!wide && fpb_scan_cmp_at(so, page, blkno, keys[i], t,
											 so->hik, so->hit, so->hif) > 0)
					break;
				if (so->skipdead && fpb_tid_is_dead(&tids[i]))
					continue;
				if (filter &&
					!fpb_scan_filter(so, keys[i],
									 fpb_slot_get(page, keys[i], blkno)))
					continue;
				so->items[n].k = keys[i];
				so->items[n].t = t;
				so->items[n].f = NULL;
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
	so->leaves++;
	so->itemvals_used = 0;
	so->itemvals_page = false;
	so->filter_late = false;
	if (wantvals)
		fpb_scan_keepvals(so, page, blkno, late);
	/* (keepvals may have dropped matches its filters fail) */
	if (so->vmgroup && so->nitems > 1 &&
		(!so->recheck || so->vmrecheck_state > 0))
		fpb_scan_group_vm(so);
	so->batchgen++;
	so->hp.batch++;
	so->curblk = blkno;
	so->curlsn = BufferGetLSNAtomic(buf);
	so->leftblk = opq->left;
	so->rightblk = opq->right;
	so->curgone = FpbPageIsIgnore(opq);
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
	while (unlikely(so->filter_late) &&
		   !fpb_scan_filter(so, item->k,
							fpb_slot_get((Page) so->itemvals, item->k,
										 so->curblk)))
	{
		CHECK_FOR_INTERRUPTS();
		if (!fpb_scan_next(scan, dir, true))
			return false;
		item = &so->items[so->cur];
	}
	fpb_t_to_heaptid(item->t, &scan->xs_heaptid);
	if (so->vmgroup && so->recheck && so->vmrecheck_state == 0)
		fpb_scan_group_recheck_ok(so);
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
			 * in the batch, which keeps it at least until the next call:
			 * the executor reads it before asking for the next row.
			 */
			scan->xs_itup = so->itemvals_page ? fpb_scan_itup(so, item) :
				(IndexTuple) item->f;
			return true;
		}
		if (so->cmp)
		{
			/* a value's tuple was made with its copy (fpb_scan_keepval) */
			if (isnull)
				scan->xs_itup = fpb_scan_nulltup(scan);
			else if (so->itemvals_page)
				scan->xs_itup = fpb_scan_itup(so, item);
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
	if (so->items2)
		pfree(so->items2);
	if (so->curhikbuf)
		pfree(so->curhikbuf);
	if (so->posbuf)
		pfree(so->posbuf);
	if (so->killed)
		pfree(so->killed);
	pfree(so);
}
