/*-------------------------------------------------------------------------
 *
 * insert.c
 *	  Insertion: in-page insert, page split, downlink insertion into the
 *	  parent (splitting upward as needed), root split, and finishing splits
 *	  that a crash or error left incomplete.
 *
 * A page split is one WAL record (left, new right, old right sibling and,
 * when the split page is an internal page, the child whose split caused
 * it).  The left page keeps FPB_F_INCOMPLETE_SPLIT until the downlink to
 * the new right page is in the parent; that insertion clears the flag in
 * its own record.  Locks are taken left-to-right and child-to-parent only.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fpbtree.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "storage/predicate.h"
#include "utils/memutils.h"
#include "utils/rel.h"

static void fpb_insert_downlink(Relation index, Buffer lbuf,
								const FpbEntry *sep, BlockNumber rblk,
								FpbStack stack, Relation heap);

static int
fpb_fillfactor(Relation index)
{
	FpbOptions *opts = (FpbOptions *) index->rd_options;

	return opts ? opts->fillfactor : FPB_DEFAULT_FILLFACTOR;
}

/*
 * Runs of inserts in the middle of the index, as nbtree's split after the
 * new item: a split in the middle leaves behind, at every split, a half
 * that takes no more inserts.  The signs must be strong, since a false one
 * costs a lopsided split (never a wrong entry): the heap TIDs of the new
 * entry and the FPB_SPLIT_RUN_GROUP entries on the run's side each just
 * after the one before (rows inserted one after another), or, in a
 * multi-column index, a group of the first column reaching as far.
 */
#define FPB_SPLIT_RUN_GROUP 8

/* how far back a group's last row may be to count as growing (below) */
#define FPB_SPLIT_ACTIVE_GAPS 16

/* Heap TIDs of ents[lo..hi] in insert order, up or down the index order. */
static bool
fpb_heap_run(const FpbEntry *ents, int lo, int hi, bool up)
{
	for (int i = lo; i < hi; i++)
		if (up ? !fpb_t_follows(ents[i].t, ents[i + 1].t) :
			!fpb_t_follows(ents[i + 1].t, ents[i].t))
			return false;
	return true;
}

/* Is the new entry at pos part of a run of inserts in heap order, either way? */
static bool
fpb_heap_run_near(const FpbEntry *ents, int n, int pos)
{
	return (pos >= FPB_SPLIT_RUN_GROUP &&
			fpb_heap_run(ents, pos - FPB_SPLIT_RUN_GROUP, pos, true)) ||
		(pos + FPB_SPLIT_RUN_GROUP < n &&
		 fpb_heap_run(ents, pos, pos + FPB_SPLIT_RUN_GROUP, false));
}

/*
 * Does the entry at pos of a leaf's n sorted entries (the new one) continue
 * a run of inserts that each land just after the one before: a backfill of
 * ascending keys below existing ones, ascending keys within groups
 * ((tenant, time))?  Then it ends a group that goes back as far.  (Asking
 * that the entries after it be of one group, as for the mirror below, made
 * an index of 1,000 groups grown from empty 4% larger, with 23% more WAL.)
 */
static bool
fpb_split_after_new(const FpbCmp *cmp, const FpbEntry *ents, int n, int pos)
{
	if (pos < FPB_SPLIT_RUN_GROUP)
		return false;
	if (fpb_heap_run(ents, pos - FPB_SPLIT_RUN_GROUP, pos, true))
		return true;
	return cmp != NULL && cmp->multi &&
		fpb_tuple_first_equal(cmp, &ents[pos - FPB_SPLIT_RUN_GROUP],
							  &ents[pos]) &&
		(pos == n - 1 ||
		 !fpb_tuple_first_equal(cmp, &ents[pos], &ents[pos + 1]));
}

/*
 * The mirror: does the entry at pos begin a run of inserts that each land
 * just before the one before (descending keys in the middle of the index,
 * (tenant, time DESC))?  Then it begins a group that fills the rest of the
 * page, and the entries below it, which a split just below it leaves
 * behind (fpb_split: when they are half the page or more), are of one
 * group: a page of several groups' starts takes inserts at each of them
 * (many tenants).
 */
static bool
fpb_split_before_new(const FpbCmp *cmp, const FpbEntry *ents, int n, int pos)
{
	if (pos + FPB_SPLIT_RUN_GROUP >= n)
		return false;
	if (fpb_heap_run(ents, pos, pos + FPB_SPLIT_RUN_GROUP, false))
		return true;
	return cmp != NULL && cmp->multi &&
		fpb_tuple_first_equal(cmp, &ents[pos], &ents[n - 1]) &&
		(pos == 0 ||
		 (!fpb_tuple_first_equal(cmp, &ents[pos - 1], &ents[pos]) &&
		  (pos < n / 2 ||
		   fpb_tuple_first_equal(cmp, &ents[0], &ents[pos - 1]))));
}

/* Does the heap block of tiebreaker t lie in [from, upto]? */
static inline bool
fpb_split_block_recent(uint64 t, uint64 from, uint64 upto)
{
	uint64		blk = (t & ~FPB_T_NULLBIT) >> 16;

	return blk >= from && blk <= upto;
}

/*
 * Where the inserts into a multi-column leaf's n sorted entries land, as
 * far as the entries tell, when the new one at pos ends its group of the
 * first key column (ascending time in (tenant, time)): each group's newest
 * rows go after its last entry, so at each boundary between two groups,
 * and at the page's end when its high key begins another group.  When
 * there are two such places or more, split at the boundary nearest the
 * middle that leaves one in each half: both halves then take inserts and
 * fill up.  A split that leaves a half without one, such as just after the
 * new entry when the entries after it are the start of a group that goes
 * on past the page, freezes that half as it is: many groups of a few dozen
 * rows each, appended to in turn, grew into pages half full.  Returns the
 * split point, or -1: the new entry amid its group (inserts at random
 * places) or at its start (time DESC, where the rule made large groups'
 * pages emptier), fewer than two places that still grow, or none in the
 * middle half (the other rules decide).
 */
static int
fpb_split_growth_point(const FpbCmp *cmp, const FpbEntry *ents, int n,
					   int pos, Page page, BlockNumber blkno)
{
	bool		endgrows;
	bool		after;
	int			best = -1;
	int			places = 0;
	uint64		bnew;
	uint64		bprev;
	uint64		window;
	uint64		recent;
	uint64		upto;

	if (cmp == NULL || !cmp->multi || cmp->nkeys < 2 || n < 4)
		return -1;
	/* the new entry begins its group, or is amid it */
	if (pos > 0 && !fpb_tuple_first_equal(cmp, &ents[pos - 1], &ents[pos]))
		return -1;
	if (pos < n - 1 && fpb_tuple_first_equal(cmp, &ents[pos], &ents[pos + 1]))
		return -1;
	/* the page's last group ends here: the high key begins another */
	endgrows = FpbPageIsRightmost(FpbPageGetOpaque(page));
	if (!endgrows)
	{
		FpbEntry	hk;

		fpb_page_get_hikey(page, &hk, blkno);
		endgrows = !fpb_tuple_first_equal(cmp, &ents[n - 1], &hk);
	}
	/* the new entry at the page's end ends its group only then */
	if (pos == n - 1 && !endgrows)
		return -1;
	/*
	 * A group takes inserts only while its rows arrive.  Rows appended to
	 * the heap get increasing TIDs, and the new entry's group got its
	 * previous row (the entry before it) some blocks back: a group counts
	 * when its last entry is no older than 16 such gaps, or 16 blocks.
	 * Groups that no longer grow (many tenants, a few still active) would
	 * otherwise count, and the halves of them stay half empty (1.2 times
	 * the pages, sql/83).  Four gaps left out too many of the groups that
	 * do grow when rows come to random tenants (bench/results/NOTES.md).
	 * Nor does a block further beyond the new row's than that: new rows
	 * that fill space VACUUM freed lie below older ones.  A heap that gave
	 * the new row a lower TID than its group's previous one tells nothing.
	 */
	if (pos == 0)
		return -1;
	bnew = (ents[pos].t & ~FPB_T_NULLBIT) >> 16;
	bprev = (ents[pos - 1].t & ~FPB_T_NULLBIT) >> 16;
	if (bnew < bprev)
		return -1;
	window = Max(FPB_SPLIT_ACTIVE_GAPS * (bnew - bprev), FPB_SPLIT_ACTIVE_GAPS);
	recent = bnew - Min(bnew, window);
	upto = bnew + window;
	if (endgrows && !fpb_split_block_recent(ents[n - 1].t, recent, upto))
		endgrows = false;
	/* boundaries b (between b - 1 and b), from the right: one after each */
	after = endgrows;
	if (endgrows)
		places++;
	for (int b = n - 1; b >= 1; b--)
	{
		if (!fpb_split_block_recent(ents[b - 1].t, recent, upto) ||
			fpb_tuple_first_equal(cmp, &ents[b - 1], &ents[b]))
			continue;
		places++;
		if (after && b >= n / 4 && b <= n - n / 4 &&
			(best < 0 || abs(b - n / 2) < abs(best - n / 2)))
			best = b;
		after = true;
	}
	return places >= 2 ? best : -1;
}

/*
 * Split the page in buf (exclusively locked) so that entry e fits.  The left
 * page keeps the lower half and stays locked, flagged incomplete; the new
 * right page gets the upper half.  cbuf, if valid, is a child whose
 * incomplete-split flag is cleared in the same record (and released).
 */
static void
fpb_split(Relation index, Buffer buf, const FpbEntry *e, Buffer cbuf,
		  FpbEntry *sep, BlockNumber *rblkp)
{
	const FpbCmp *cmp = fpb_index_cmp(index);
	BlockNumber lblk = BufferGetBlockNumber(buf);
	Page		origpage = BufferGetPage(buf);
	FpbPageOpaque oopq = FpbPageGetOpaque(origpage);
	int			n = oopq->nentries;
	FpbEntry   *ents = palloc(sizeof(FpbEntry) * (n + 1));
	int			pos;
	int			mid;
	Buffer		rbuf;
	BlockNumber rblk;
	BlockNumber oldright = oopq->right;
	Buffer		obuf = InvalidBuffer;
	FpbWalState *state;
	Page		lpage,
				rpage;
	FpbPageOpaque lopq,
				ropq;
	uint16		cycle;
	int			want;
	int			ff;
	bool		append;
	bool		prepend;
	int			runmid = -1;	/* a run's split point */
	const char *fresh = NULL;	/* a separator tuple of our own */
	bool		runbefore = false;
	bool		packleft;
	bool		packright;

	fpb_page_collect(origpage, ents, lblk);
	for (pos = n; pos > 0 && fpb_entry_cmp(cmp, &ents[pos - 1], e) > 0; pos--)
		ents[pos] = ents[pos - 1];
	ents[pos] = *e;
	n++;

	/*
	 * Ascending inserts at the right edge leave the left page filled to the
	 * fillfactor, as btree does; descending inserts at the left edge (and
	 * ascending ones into a DESC column) leave the right page so filled,
	 * where btree splits in the middle and leaves half-empty pages behind.
	 * Runs in the middle of the index split next to the new entry (below);
	 * other inserts in the middle.  A wide page may hold only a few
	 * entries: there, a low fillfactor would leave the half that takes the
	 * next inserts as full as the old page, every later insert at the edge
	 * would split it again and add a level at the root each time, so that
	 * half gets at most as many entries as a split in the middle.
	 */
	ff = (int) ((int64) n * fpb_fillfactor(index) / 100);
	append = FpbPageIsRightmost(oopq) && pos == n - 1;
	prepend = FpbPageIsLeftmost(oopq) && pos == 0 && !append;
	if (!append && !prepend && FpbPageIsLeaf(oopq) &&
		!fpb_heap_run_near(ents, n, pos) &&
		(runmid = fpb_split_growth_point(cmp, ents, n, pos, origpage,
										   lblk)) >= 0)
	{
		/* inserts land in both halves: runmid is the boundary */
	}
	else if (!append && !prepend && FpbPageIsLeaf(oopq) &&
			 fpb_split_after_new(cmp, ents, n, pos))
	{
		/*
		 * The run goes on after e.  Past the fillfactor (at the page's end,
		 * say) split as an append: the left page no fuller than that.
		 */
		if (pos + 1 > ff)
			append = true;
		else
			runmid = pos + 1;
	}
	else if (!append && !prepend && FpbPageIsLeaf(oopq) &&
			 fpb_split_before_new(cmp, ents, n, pos))
	{
		/*
		 * The run goes on before e: its next inserts come between e and the
		 * entry before it, which must stay on one page.  The page that takes
		 * no more inserts is made the larger: with fewer than half the
		 * entries below e, the run's older entries after e (the left page
		 * keeps e; a right page past the fillfactor keeps that share, as
		 * for a prepend); with more, the entries below e but the last,
		 * which goes right with e and the run (the left page no fuller
		 * than the fillfactor).
		 */
		runbefore = true;
		if (pos >= n / 2)
			runmid = Min(pos - 1, ff);
		else if (n - pos - 1 > ff)
			prepend = true;
		else
			runmid = pos + 1;
	}
	if (append)
		want = cmp ? Max(ff, n / 2) : ff;
	else if (prepend)
		want = cmp ? Min(n - ff, n / 2) : n - ff;
	else if (runmid >= 0)
		want = runmid;
	else
		want = n / 2;

	/*
	 * The half that takes the next inserts is laid out with packed nodes
	 * (page_insert.c), leaving free lines for the in-page node splits at
	 * the run's edge that follow.  So are both halves of a descending run's
	 * split: the run goes on down through the entries below it.
	 */
	packright = append || runbefore;
	packleft = prepend || runbefore || runmid > pos;
	want = Max(1, Min(want, n - 1));
	/*
	 * A leaf's split point keeps runs of one key whole (posting.c), where
	 * the page may become a posting page
	 */
	if (FpbPageIsLeaf(oopq) &&
		(cmp == NULL || (oopq->flags & FPB_F_DEDUP)))
		want = fpb_posting_split_point(origpage, ents, n, want, pos);

	rbuf = fpb_newbuf(index);
	rblk = BufferGetBlockNumber(rbuf);
	cycle = fpb_vacuum_cycleid(index);
	if (oldright != InvalidBlockNumber)
		obuf = fpb_getbuf(index, oldright, BUFFER_LOCK_EXCLUSIVE);

	state = fpb_wal_start(index);
	lpage = fpb_wal_register(state, buf, FPB_WAL_FULL_IMAGE);
	rpage = fpb_wal_register(state, rbuf, FPB_WAL_FULL_IMAGE);
	lopq = FpbPageGetOpaque(lpage);

	fpb_page_init_as(rpage, lopq->level, lopq->flags & FPB_F_LEAF, lopq);
	ropq = FpbPageGetOpaque(rpage);
	ropq->left = lblk;
	ropq->right = oldright;
	if (!FpbPageIsRightmost(lopq))
	{
		FpbEntry	ohk;

		fpb_page_get_hikey(origpage, &ohk, lblk);
		fpb_page_set_hikey(rpage, &ohk);
	}
	lopq->right = rblk;

	/*
	 * The halves of a wide page hold values of any size: when the wanted
	 * split point leaves a half too large, take the nearest one that fits
	 * (a value is at most a quarter of a page, so one does).
	 */
	for (int step = 0;; step++)
	{
		mid = want + ((step & 1) ? -(step + 1) / 2 : step / 2);
		if (step >= 2 * n)
			elog(ERROR, "fpbtree: split halves of block %u do not fit", lblk);
		if (mid < 1 || mid > n - 1)
			continue;
		*sep = ents[mid];
		/* leaf: drop the tiebreaker when the key alone separates (build.c) */
		if (FpbPageIsLeaf(oopq) && fpb_entry_keys_differ(cmp, &ents[mid - 1],
														 &ents[mid]))
			sep->t = cmp ? (ents[mid].t & FPB_T_NULLBIT) : 0;
		/* and the INCLUDE columns (multicol.c): a tuple of our own then */
		if (fresh != NULL)
			pfree((char *) fresh);
		fresh = NULL;
		if (FpbPageIsLeaf(oopq))
		{
			sep->f = fpb_tuple_separator(cmp, sep->f);
			if (sep->f != ents[mid].f)
				fresh = sep->f;
		}
		if (!fpb_page_layout(rpage, ents + mid, n - mid, packright ? 1.0 : 0))
			continue;
		if (cmp)
		{
			/* room for the new high key first: the layout keeps it */
			(void) fpb_page_layout(lpage, NULL, 0, 0);
			fpb_page_set_hikey(lpage, sep);
		}
		if (fpb_page_layout(lpage, ents, mid, packleft ? 1.0 : 0))
			break;
		if (!cmp)
			elog(ERROR, "fpbtree: split halves of block %u do not fit", lblk);
	}
	if (!cmp)
		fpb_page_set_hikey(lpage, sep);
	/* the separator outlives the old page image */
	if (fresh == NULL)
		fpb_entry_keep_palloc(cmp, sep);
	lopq->flags |= FPB_F_INCOMPLETE_SPLIT;

	/*
	 * VACUUM's cycle id on both halves: a VACUUM that has passed the new
	 * block comes back to it from the left half (vacuum.c).  The right half
	 * ends the group of pages split in this cycle unless the old right
	 * sibling belongs to it too.
	 */
	lopq->flags &= ~FPB_F_SPLIT_END;
	lopq->cycleid = cycle;
	ropq->cycleid = cycle;
	if (!BufferIsValid(obuf) ||
		FpbPageGetOpaque(BufferGetPage(obuf))->cycleid != cycle)
		ropq->flags |= FPB_F_SPLIT_END;

	if (BufferIsValid(obuf))
	{
		Page		opage = fpb_wal_register(state, obuf, 0);

		FpbPageGetOpaque(opage)->left = rblk;
	}
	if (BufferIsValid(cbuf))
	{
		Page		cpage = fpb_wal_register(state, cbuf, 0);

		FpbPageGetOpaque(cpage)->flags &= ~FPB_F_INCOMPLETE_SPLIT;
	}
	fpb_wal_finish(state);

	/*
	 * The upper half's key range now lies on the new page: so do the
	 * predicate locks of the left page, before anyone can insert there.
	 */
	if (FpbPageIsLeaf(FpbPageGetOpaque(BufferGetPage(buf))))
		PredicateLockPageSplit(index, lblk, rblk);
	UnlockReleaseBuffer(rbuf);
	if (BufferIsValid(obuf))
		UnlockReleaseBuffer(obuf);
	if (BufferIsValid(cbuf))
		UnlockReleaseBuffer(cbuf);
	pfree(ents);
	*rblkp = rblk;
}

/*
 * Insert e into the page in buf (exclusively locked, and the right page
 * for e).  cbuf as for fpb_split.  Splits and recurses upward as needed.
 * Releases buf and cbuf.
 */
static void
fpb_insert_onpage(Relation index, Buffer buf, const FpbEntry *e,
				  FpbStack stack, Buffer cbuf, Relation heap, bool unchanged)
{
	FpbWalState *state;
	Page		page;
	FpbEntry	sep;
	BlockNumber rblk;
	bool		bottomup_tried = false;
	const FpbCmp *cmp = fpb_index_cmp(index);

	/*
	 * A leaf entry conflicts with the serializable transactions that read
	 * this leaf (README, "Predicate locks"); checked under the exclusive
	 * lock, before the entry can be seen.  A split below copies the locks
	 * to the new page.
	 */
	if (!BufferIsValid(cbuf) &&
		FpbPageIsLeaf(FpbPageGetOpaque(BufferGetPage(buf))))
		CheckForSerializableConflictIn(index, NULL, BufferGetBlockNumber(buf));

retry:
	/* the common case: a leaf entry whose in-page node has room */
	if (!BufferIsValid(cbuf) &&
		FpbPageIsLeaf(FpbPageGetOpaque(BufferGetPage(buf))))
	{
		int			pos;
		int			nodeoff = fpb_page_insert_slot(BufferGetPage(buf), cmp, e,
												   BufferGetBlockNumber(buf),
												   &pos);

		/*
		 * The node is full: removing the entries scans marked dead may make
		 * room without splitting the node or the page (dead.c).
		 */
		if (nodeoff < 0 && heap != NULL && fpb_remove_dead(index, heap, buf))
			nodeoff = fpb_page_insert_slot(BufferGetPage(buf), cmp, e,
										   BufferGetBlockNumber(buf), &pos);
		if (nodeoff >= 0)
		{
			FpbByteRange ranges[FPB_INSERT_RANGES];
			int			nranges;

			page = fpb_wal_inplace_begin(index, buf);
			nranges = fpb_page_insert_at(page, nodeoff, pos, e, ranges);
			fpb_wal_inplace_end(index, buf, ranges, nranges);
			UnlockReleaseBuffer(buf);
			return;
		}
	}

	state = fpb_wal_start(index);
	page = fpb_wal_register(state, buf, 0);
	if (fpb_page_insert(page, cmp, e, BufferGetBlockNumber(buf)))
	{
		if (BufferIsValid(cbuf))
		{
			Page		cpage = fpb_wal_register(state, cbuf, 0);

			FpbPageGetOpaque(cpage)->flags &= ~FPB_F_INCOMPLETE_SPLIT;
		}
		fpb_wal_finish(state);
		UnlockReleaseBuffer(buf);
		if (BufferIsValid(cbuf))
			UnlockReleaseBuffer(cbuf);
		return;
	}
	fpb_wal_abort(state);

	/*
	 * The leaf must split.  If the entry is a new version of a row whose key
	 * the update left unchanged, the page's older versions of such rows may
	 * be dead to everyone by now; so may those of a page full of runs of
	 * equal keys, whatever the entry.  Ask the heap (bottom-up deletion,
	 * dead.c), once, and retry if it removed any.
	 */
	if (!bottomup_tried && heap != NULL && !BufferIsValid(cbuf) &&
		FpbPageIsLeaf(FpbPageGetOpaque(BufferGetPage(buf))))
	{
		bottomup_tried = true;
		if ((unchanged && fpb_bottomup_delete(index, heap, buf)) ||
			fpb_dupes_delete(index, heap, buf, e->t, unchanged))
			goto retry;
	}

	fpb_split(index, buf, e, cbuf, &sep, &rblk);
	fpb_insert_downlink(index, buf, &sep, rblk, stack, heap);
	/* the parent has its copy; aminsert runs in the statement's memory */
	fpb_entry_free_kept(cmp, &sep);
}

/*
 * Find and exclusively lock the parent of child (at level clevel), which
 * holds the downlink to it.  stack is our remembered path (may be stale or
 * empty); the parent may have split since, so move right until found.
 * *pstack receives the ancestors of the returned page.
 */
static Buffer
fpb_get_parent(Relation index, FpbStack stack, Buffer cbuf, uint32 clevel,
			   FpbStack *pstack, Relation heap)
{
	BlockNumber child = BufferGetBlockNumber(cbuf);
	BlockNumber blkno;
	Buffer		pbuf;
	int			unchecked = 0;

	if (stack == NULL)
	{
		/*
		 * We came down a tree that was shorter at the time (a concurrent root
		 * split): descend again to the parent level using the child's first
		 * key, which lies in the parent's range.
		 */
		Page		cpage = BufferGetPage(cbuf);
		FpbEntry   *ents = palloc(sizeof(FpbEntry) *
								  (FpbPageGetOpaque(cpage)->nentries + 1));
		int			n = fpb_page_collect(cpage, ents, child);

		if (n == 0)
			elog(ERROR, "fpbtree: cannot re-find parent of empty block %u",
				 child);
		pbuf = fpb_descend_to(index, &ents[0], clevel + 1,
							  BUFFER_LOCK_SHARE, false, &stack, heap);
		blkno = BufferGetBlockNumber(pbuf);
		UnlockReleaseBuffer(pbuf);
		pfree(ents);
	}
	else
	{
		blkno = stack->blkno;
		stack = stack->parent;
	}

	/*
	 * Move right along the parent level.  The child stays locked, so this
	 * cannot be interrupted; fpb_step_right's checks (each step leads to a
	 * page of the same level with a higher high key, or from a half-dead
	 * page, and those are counted) make it end.
	 */
	pbuf = fpb_getbuf(index, blkno, BUFFER_LOCK_EXCLUSIVE);
	for (;;)
	{
		Page		page = BufferGetPage(pbuf);
		FpbPageOpaque opq = FpbPageGetOpaque(page);

		blkno = BufferGetBlockNumber(pbuf);
		if (opq->flags & FPB_F_INCOMPLETE_SPLIT)
		{
			/* finish the parent's own split first, then look again */
			fpb_finish_split(index, pbuf, stack, heap);
			pbuf = fpb_getbuf(index, blkno, BUFFER_LOCK_EXCLUSIVE);
			continue;
		}
		if (opq->level != clevel + 1)
			fpb_index_corrupt(index, blkno,
							  "Page has level %u, but the parent of block %u must have level %u.",
							  opq->level, child, clevel + 1);
		if (fpb_page_find_child(page, child, blkno))
		{
			*pstack = stack;
			return pbuf;
		}
		if (FpbPageIsRightmost(opq))
			fpb_index_corrupt(index, blkno,
							  "Level %u ends at this page without a downlink to block %u.",
							  clevel + 1, child);
		pbuf = fpb_step_right(index, pbuf, BUFFER_LOCK_EXCLUSIVE, &unchecked);
	}
}

/*
 * After lbuf's page split off rblk, insert the downlink (sep -> rblk) one
 * level up -- into a new root if lbuf's page was the root -- and clear the
 * incomplete-split flag.  Releases lbuf.
 */
static void
fpb_insert_downlink(Relation index, Buffer lbuf, const FpbEntry *sep,
					BlockNumber rblk, FpbStack stack, Relation heap)
{
	BlockNumber lblk = BufferGetBlockNumber(lbuf);
	FpbPageOpaque lopq = FpbPageGetOpaque(BufferGetPage(lbuf));
	uint32		level = lopq->level;
	FpbEntry	e;
	Buffer		pbuf;
	FpbStack	pstack;

	if (FpbPageIsLeftmost(lopq))
	{
		Buffer		metabuf = fpb_getmetabuf(index, BUFFER_LOCK_EXCLUSIVE);
		FpbMetaPageData *meta = FpbPageGetMeta(BufferGetPage(metabuf));

		if (meta->root == lblk)
		{
			/* root split: a new root above the two halves */
			Buffer		nbuf = fpb_newbuf(index);
			BlockNumber nblk = BufferGetBlockNumber(nbuf);
			FpbWalState *state;
			Page		npage,
						mpage,
						lpage;
			FpbEntry	ents[2];

			ents[0] = fpb_mkkey(0, 0);	/* minus infinity */
			ents[0].child = lblk;
			ents[1] = *sep;
			ents[1].child = rblk;

			state = fpb_wal_start(index);
			npage = fpb_wal_register(state, nbuf, FPB_WAL_FULL_IMAGE);
			mpage = fpb_wal_register(state, metabuf, 0);
			lpage = fpb_wal_register(state, lbuf, 0);
			fpb_page_init_as(npage, level + 1, 0, lopq);
			if (!fpb_page_layout(npage, ents, 2, 0))
				elog(ERROR, "fpbtree: new root does not fit");
			FpbPageGetMeta(mpage)->root = nblk;
			FpbPageGetMeta(mpage)->rootlevel = level + 1;
			FpbPageGetOpaque(lpage)->flags &= ~FPB_F_INCOMPLETE_SPLIT;
			fpb_wal_finish(state);
		
			UnlockReleaseBuffer(nbuf);
			UnlockReleaseBuffer(metabuf);
			UnlockReleaseBuffer(lbuf);
			fpb_cached_meta(index, true);
			return;
		}
		UnlockReleaseBuffer(metabuf);
	}

	pbuf = fpb_get_parent(index, stack, lbuf, level, &pstack, heap);
	e = *sep;
	e.child = rblk;
	fpb_insert_onpage(index, pbuf, &e, pstack, lbuf, heap, false);
}

/*
 * lbuf (exclusively locked) carries FPB_F_INCOMPLETE_SPLIT: insert the
 * missing downlink for its right sibling.  Releases lbuf.
 */
void
fpb_finish_split(Relation index, Buffer lbuf, FpbStack stack, Relation heap)
{
	Page		page = BufferGetPage(lbuf);
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	FpbEntry	hk;

	Assert(opq->flags & FPB_F_INCOMPLETE_SPLIT);
	if (FpbPageIsRightmost(opq))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("fpbtree \"%s\": block %u is flagged as split but has no right sibling",
						RelationGetRelationName(index),
						BufferGetBlockNumber(lbuf))));
	fpb_page_get_hikey(page, &hk, BufferGetBlockNumber(lbuf));
	/* lbuf stays locked until the downlink is in, but its image changes */
	fpb_entry_keep_palloc(fpb_index_cmp(index), &hk);
	fpb_insert_downlink(index, lbuf, &hk, opq->right, stack, heap);
	fpb_entry_free_kept(fpb_index_cmp(index), &hk);
}

/*
 * Insert one entry (leaf level).  unchanged: the executor's indexUnchanged
 * hint (an UPDATE's new version of a row whose key it did not change).
 */
void
fpb_insert_entry(Relation index, const FpbEntry *e, Relation heap,
				 bool unchanged)
{
	FpbStack	stack;
	Buffer		buf;

	buf = fpb_search(index, e, BUFFER_LOCK_EXCLUSIVE, &stack, heap);
	fpb_insert_onpage(index, buf, e, stack, InvalidBuffer, heap, unchanged);
	fpb_free_stack(stack);
}

/*
 * Insert leaf entry e into the exclusively locked leaf in buf, which is the
 * page for it (stack: its ancestors).  Releases buf.  unchanged as for
 * fpb_insert_entry.
 */
void
fpb_insert_at_leaf(Relation index, Buffer buf, const FpbEntry *e,
				   FpbStack stack, Relation heap, bool unchanged)
{
	fpb_insert_onpage(index, buf, e, stack, InvalidBuffer, heap, unchanged);
}

/*
 * The memory of one fpbinsert call.  aminsert runs in the statement's
 * memory, so whatever a row's insert allocates and does not free (its
 * multi-column tuple, a value converted or detoasted for its slot, a
 * comparison's copies) would stay until the statement ends: an INSERT of
 * many rows would keep all of it.  A context of our own, reset after each
 * row, lives in the IndexInfo's context, as BRIN's cache does.  Without
 * an IndexInfo the caller's context is used.
 */
static MemoryContext
fpb_insert_context(IndexInfo *indexInfo)
{
	if (indexInfo == NULL || indexInfo->ii_Context == NULL)
		return CurrentMemoryContext;
	if (indexInfo->ii_AmCache == NULL)
		indexInfo->ii_AmCache =
			AllocSetContextCreate(indexInfo->ii_Context, "fpbtree insert",
								  ALLOCSET_SMALL_SIZES);
	return (MemoryContext) indexInfo->ii_AmCache;
}

/*
 * aminsert.  For a unique index the result is false only when a partial
 * check (deferred constraint) found a possible duplicate.
 */
bool
fpbinsert(Relation index, Datum *values, bool *isnull, ItemPointer ht_ctid,
		  Relation heapRel, IndexUniqueCheck checkUnique, bool indexUnchanged,
		  IndexInfo *indexInfo)
{
	const FpbCmp *cmp = fpb_index_cmp(index);
	FpbEntry	e;
	bool		anynull = isnull[0];
	bool		result;
	MemoryContext rowcxt = fpb_insert_context(indexInfo);
	MemoryContext oldcxt = MemoryContextSwitchTo(rowcxt);

	if (cmp && cmp->multi)
	{
		e = fpb_multi_entry(cmp, index, values, isnull, ht_ctid);
		anynull = fpb_tuple_keys_null(cmp, e.f);
	}
	else
	{
		FpbKey		key = fpb_heap_key(index_getprocinfo(index, 1,
														 FPB_ENCODE_PROC),
									   cmp ? cmp->pfxcoll :
									   index->rd_indcollation[0],
									   values[0], isnull[0], ht_ctid);

		e = fpb_mkkey(key.k, key.t);
		if (cmp)
		{
			e.k = FPB_WIDE_PREFIX(key.k);
			if (!isnull[0])
				e.f = fpb_full_image(cmp, values[0], index, ht_ctid);
		}
	}

	/*
	 * A row with a NULL key column is distinct from every row unless NULLS
	 * NOT DISTINCT.
	 */
	if (checkUnique != UNIQUE_CHECK_NO &&
		(!anynull || index->rd_index->indnullsnotdistinct))
		result = fpb_insert_unique(index, &e, heapRel, checkUnique, values,
								   isnull, indexUnchanged);
	else
	{
		if (checkUnique != UNIQUE_CHECK_EXISTING)
			fpb_insert_entry(index, &e, heapRel, indexUnchanged);
		result = checkUnique != UNIQUE_CHECK_NO;
	}

	MemoryContextSwitchTo(oldcxt);
	if (rowcxt != oldcxt)
		MemoryContextReset(rowcxt);
	return result;
}
