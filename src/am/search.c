/*-------------------------------------------------------------------------
 *
 * search.c
 *	  Descent from the root to a leaf (or to a given level), with the
 *	  Lehman-Yao move-right rule.  Inserters finish incomplete splits they
 *	  meet on the way.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fpbtree.h"
#include "miscadmin.h"
#include "storage/buf_internals.h"

/*
 * Lock block `to`, reached by the right-link of block `from` (at `level`,
 * with high key (hik, hit), as read under from's lock, which the caller has
 * released), and check that the link really leads right:
 *
 *	- not to from itself;
 *	- to a page of the same level;
 *	- whose high key, if it has one, is above from's.  A page's high key is
 *	  its upper bound and the right sibling's lower bound, and splits only
 *	  lower the high key of the page they split to a key still above that
 *	  lower bound, so high keys increase along a walk to the right as long
 *	  as no page the walk has left is deleted.  Page deletion breaks that:
 *	  when from is made half-dead or deleted, `to` takes over its range
 *	  (its lower bound moves left) and may then split below from's old
 *	  high key.  So a from deleted or half-dead when it was read (hik NULL)
 *	  bounds nothing, and when the check fails for a from the caller has
 *	  released, from is read again (fpb_from_now): deleted or half-dead
 *	  since, it bounds nothing either; live, its current high key must be
 *	  below to's, or the link is damaged.  Steps without a check are
 *	  counted in *unchecked, and a walk that takes more of them than the
 *	  index has blocks has gone round a cycle: every other step rises, and
 *	  a walk passes each deleted or half-dead page once;
 *	- whose left-link is not itself, and leads to a page whose high key
 *	  (`to`'s lower bound) is not above from's.  The left-link need not be
 *	  from: a split of from since the link was read puts new pages in
 *	  between (in reused blocks as well as new ones), the last of them with
 *	  from's old high key, and a deletion of from or of pages after it
 *	  (pagedel.c) gives `to` a lower bound further left.  A lower bound only
 *	  ever moves left, so one above from's high key means the right-link
 *	  skipped pages.  That page is only tried-locked (we hold `to`, right of
 *	  it): when it is busy the check is skipped.
 *
 * A deleted or half-dead page keeps its high key (no longer its upper
 * bound) and right-link, so walks over it go on to the right; the caller
 * decides to skip it.  Deleted pages are not reused while a transaction that may have read
 * a link to them is running (meta.c: fpb_page_recyclable), so the page
 * reached is the one the link meant, or that page deleted.
 *
 * No buffer lock is held on entry unless the caller holds one on another
 * page (inserters hold the child while they look for its parent), so check
 * for interrupts here: long walks stay cancellable.
 */
/*
 * fpb_getbuf_right's check of the lower bound of block `to` (locked), the
 * high key of its left sibling `left`, against from's high key (hik, hit).
 */
static void
fpb_check_lower_bound(Relation index, BlockNumber to, BlockNumber left,
					  BlockNumber from, uint16 level, const FpbEntry *hik)
{
	Buffer		lbuf = ReadBuffer(index, left);
	FpbPageOpaque lopq;
	bool		skipped;
	FpbEntry	lhk;

	if (!BufferIsLocal(lbuf) &&
		LWLockHeldByMe(BufferDescriptorGetContentLock(GetBufferDescriptor(lbuf - 1))))
	{
		ReleaseBuffer(lbuf);
		return;
	}
	if (!ConditionalLockBuffer(lbuf))
	{
		ReleaseBuffer(lbuf);
		return;
	}
	if (PageIsNew(BufferGetPage(lbuf)))
	{
		UnlockReleaseBuffer(lbuf);
		return;
	}
	fpb_page_check_sane(index, BufferGetPage(lbuf), left);
	lopq = FpbPageGetOpaque(BufferGetPage(lbuf));
	/* a deleted or half-dead page's high key bounds nothing */
	skipped = lopq->level == level && lopq->right == to &&
		!FpbPageIsRightmost(lopq) && !FpbPageIsIgnore(lopq);
	if (skipped)
	{
		fpb_page_get_hikey(BufferGetPage(lbuf), &lhk, left);
		skipped = fpb_entry_cmp(fpb_index_cmp(index), &lhk, hik) > 0;
	}
	UnlockReleaseBuffer(lbuf);
	if (skipped)
		fpb_index_corrupt(index, to,
						  "Left sibling %u has a high key above that of block %u, whose right-link leads here: pages were skipped.",
						  left, from);
}

/*
 * fpb_getbuf_right's check failed for a from the caller released: read from
 * again, with `to` (tobuf) unlocked meanwhile (from lies left of it) and
 * locked again in lockmode.  Returns true if from has been made half-dead
 * or deleted since; otherwise sets *cur to its current high key.
 */
static bool
fpb_from_now(Relation index, BlockNumber from, Buffer tobuf, int lockmode,
			 FpbEntry *cur, FpbFullBuf *curbuf)
{
	Buffer		fbuf;
	FpbPageOpaque fopq;
	bool		gone;

	LockBuffer(tobuf, BUFFER_LOCK_UNLOCK);
	fbuf = fpb_getbuf(index, from, BUFFER_LOCK_SHARE);
	fopq = FpbPageGetOpaque(BufferGetPage(fbuf));
	gone = FpbPageIsIgnore(fopq);
	if (!gone)
	{
		if (FpbPageIsRightmost(fopq))
			fpb_index_corrupt(index, from,
							  "Page has no right sibling, but its right-link led to block %u.",
							  BufferGetBlockNumber(tobuf));
		fpb_page_get_hikey(BufferGetPage(fbuf), cur, from);
		fpb_entry_keep(fpb_index_cmp(index), cur, curbuf);
	}
	UnlockReleaseBuffer(fbuf);
	LockBuffer(tobuf, lockmode);
	fpb_page_check_sane(index, BufferGetPage(tobuf),
						BufferGetBlockNumber(tobuf));
	return gone;
}

/* A step right without the check of high keys: count it (see above). */
void
fpb_count_unchecked(Relation index, BlockNumber to, int *unchecked)
{
	if (++*unchecked > (int) RelationGetNumberOfBlocks(index))
		fpb_index_corrupt(index, to,
						  "Right-links lead round a cycle through deleted or half-dead pages.");
}

/* Is `to` (locked) rightmost, or its high key above hik? */
static bool
fpb_hikey_rises(Relation index, Buffer tobuf, const FpbEntry *hik)
{
	Page		page = BufferGetPage(tobuf);
	FpbEntry	thk;

	if (FpbPageIsRightmost(FpbPageGetOpaque(page)))
		return true;
	fpb_page_get_hikey(page, &thk, BufferGetBlockNumber(tobuf));
	return fpb_entry_cmp(fpb_index_cmp(index), &thk, hik) > 0;
}

Buffer
fpb_getbuf_right(Relation index, BlockNumber from, uint16 level,
				 const FpbEntry *hik, BlockNumber to, int lockmode,
				 bool fromheld, int *unchecked)
{
	Buffer		buf;
	FpbPageOpaque opq;
	FpbEntry	cur;
	FpbFullBuf	curbuf;

	if (to == from)
		fpb_index_corrupt(index, from, "Right-link points to the page itself.");
	CHECK_FOR_INTERRUPTS();
	buf = fpb_getbuf(index, to, lockmode);
	opq = FpbPageGetOpaque(BufferGetPage(buf));
	if (opq->level != level)
		fpb_index_corrupt(index, to,
						  "Page has level %u, but it is the right sibling of block %u at level %u.",
						  opq->level, from, level);
	if (hik != NULL && !fpb_hikey_rises(index, buf, hik))
	{
		bool		gone;

		/* a released from may have been deleted or split since */
		gone = !fromheld &&
			fpb_from_now(index, from, buf, lockmode, &cur, &curbuf);
		if (!fromheld && opq->level != level)
			fpb_index_corrupt(index, to,
							  "Page has level %u, but it is the right sibling of block %u at level %u.",
							  opq->level, from, level);
		if (!gone && (fromheld || !fpb_hikey_rises(index, buf, &cur)))
			fpb_index_corrupt(index, to,
							  "High key is not above the high key of block %u, whose right-link leads here.",
							  from);
		hik = gone ? NULL : &cur;
	}
	if (hik == NULL)
		fpb_count_unchecked(index, to, unchecked);
	if (opq->left == to)
		fpb_index_corrupt(index, to,
						  "Left-link points to the page itself; the page is the right sibling of block %u.",
						  from);
	if (hik != NULL && opq->left != from && opq->left != InvalidBlockNumber &&
		opq->left != FPB_METAPAGE_BLKNO &&
		opq->left < RelationGetNumberOfBlocks(index))
		fpb_check_lower_bound(index, to, opq->left, from, level, hik);
	return buf;
}

/*
 * Release the locked page in buf (which has a right sibling) and lock its
 * right sibling instead, checked as fpb_getbuf_right does (*unchecked: the
 * walk's count of steps from deleted and half-dead pages).
 */
Buffer
fpb_step_right(Relation index, Buffer buf, int lockmode, int *unchecked)
{
	FpbPageOpaque opq = FpbPageGetOpaque(BufferGetPage(buf));
	BlockNumber from = BufferGetBlockNumber(buf);
	BlockNumber to = opq->right;
	uint16		level = opq->level;
	bool		ignore = FpbPageIsIgnore(opq);
	FpbEntry	hik;
	FpbFullBuf	hbuf;

	Assert(!FpbPageIsRightmost(opq));
	if (!ignore)
	{
		fpb_page_get_hikey(BufferGetPage(buf), &hik, from);
		fpb_entry_keep(fpb_index_cmp(index), &hik, &hbuf);
	}
	UnlockReleaseBuffer(buf);
	return fpb_getbuf_right(index, from, level, ignore ? NULL : &hik, to,
							lockmode, false, unchecked);
}

/*
 * Step right while (k, t) is at or above the page's high key: a concurrent
 * split may have moved our key range to a right sibling; and over deleted
 * and half-dead pages, whose key range their right sibling has taken over
 * (never the rightmost page of a level).  With forupdate,
 * an incomplete split on the way is finished first (stack holds the
 * page's ancestors).  The buffer is returned locked in lockmode.
 */
Buffer
fpb_moveright(Relation index, Buffer buf, const FpbEntry *key, int lockmode,
			  bool forupdate, FpbStack stack, Relation heap)
{
	const FpbCmp *cmp = fpb_index_cmp(index);
	int			unchecked = 0;

	for (;;)
	{
		Page		page = BufferGetPage(buf);
		FpbPageOpaque opq = FpbPageGetOpaque(page);

		if (forupdate && (opq->flags & FPB_F_INCOMPLETE_SPLIT))
		{
			BlockNumber blkno = BufferGetBlockNumber(buf);

			if (lockmode != BUFFER_LOCK_EXCLUSIVE)
			{
				LockBuffer(buf, BUFFER_LOCK_UNLOCK);
				LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
				fpb_page_check_sane(index, BufferGetPage(buf), blkno);
			}
			if (FpbPageGetOpaque(BufferGetPage(buf))->flags &
				FPB_F_INCOMPLETE_SPLIT)
				fpb_finish_split(index, buf, stack, heap);	/* releases buf */
			else
				UnlockReleaseBuffer(buf);
			CHECK_FOR_INTERRUPTS();
			buf = fpb_getbuf(index, blkno, lockmode);
			continue;
		}

		if (FpbPageIsIgnore(opq) ||
			fpb_page_above_hikey(page, cmp, key, BufferGetBlockNumber(buf)))
		{
			if (FpbPageIsRightmost(opq))
				fpb_index_corrupt(index, BufferGetBlockNumber(buf),
								  "A deleted or half-dead page has no right sibling.");
			buf = fpb_step_right(index, buf, lockmode, &unchecked);
			continue;
		}
		return buf;
	}
}

/*
 * fpb_moveright for a key that no entry equals, bounding the keys below it
 * (fpb_wide_key_between): step right while the page's high key is below
 * key, not at it (the page that begins at key holds nothing below it), and
 * over deleted and half-dead pages.  Returns the buffer locked in lockmode.
 */
Buffer
fpb_moveright_below(Relation index, Buffer buf, const FpbEntry *key,
					int lockmode)
{
	const FpbCmp *cmp = fpb_index_cmp(index);
	int			unchecked = 0;

	for (;;)
	{
		Page		page = BufferGetPage(buf);
		FpbPageOpaque opq = FpbPageGetOpaque(page);
		FpbEntry	hk;

		if (FpbPageIsRightmost(opq))
		{
			if (FpbPageIsIgnore(opq))
				fpb_index_corrupt(index, BufferGetBlockNumber(buf),
								  "A deleted or half-dead page has no right sibling.");
			return buf;
		}
		if (!FpbPageIsIgnore(opq))
		{
			fpb_page_get_hikey(page, &hk, BufferGetBlockNumber(buf));
			if (fpb_entry_cmp(cmp, &hk, key) >= 0)
				return buf;
		}
		buf = fpb_step_right(index, buf, lockmode, &unchecked);
	}
}

static FpbStack
fpb_push(FpbStack stack, BlockNumber blkno)
{
	FpbStack	s = palloc(sizeof(FpbStackData));

	s->blkno = blkno;
	s->parent = stack;
	return s;
}

void
fpb_free_stack(FpbStack stack)
{
	while (stack)
	{
		FpbStack	p = stack->parent;

		pfree(stack);
		stack = p;
	}
}

/*
 * Descend to the page at `level` whose key range holds (k, t); lock it in
 * lockmode (pages above are share-locked one at a time).  If stackp is
 * given, it receives the blocks passed through on the way down, innermost
 * first.
 */
Buffer
fpb_descend_to(Relation index, const FpbEntry *key, uint32 level,
			   int lockmode, bool forupdate, FpbStack *stackp, Relation heap)
{
	FpbMetaPageData *meta = fpb_cached_meta(index, false);
	FpbStack	stack = NULL;
	Buffer		buf;
	Page		page;
	FpbPageOpaque opq;
	int			curlock;
	bool		refreshed = false;

	for (;;)
	{
		if (meta->rootlevel < level)
		{
			/* the tree is not that tall (yet, as far as we know) */
			if (!refreshed)
			{
				meta = fpb_cached_meta(index, true);
				refreshed = true;
				continue;
			}
			fpb_index_corrupt(index, FPB_METAPAGE_BLKNO,
							  "Metapage root level %u is below level %u, which a page being split needs.",
							  meta->rootlevel, level);
		}
		curlock = (meta->rootlevel == level) ? lockmode : BUFFER_LOCK_SHARE;
		buf = fpb_getbuf(index, meta->root, curlock);
		opq = FpbPageGetOpaque(BufferGetPage(buf));

		/*
		 * The only page at its level is the root; if the cached root has
		 * gained a sibling, a new root may exist above it.
		 */
		if (!FpbPageIsLeftmost(opq) || !FpbPageIsRightmost(opq) ||
			opq->level != meta->rootlevel)
		{
			if (!refreshed)
			{
				UnlockReleaseBuffer(buf);
				meta = fpb_cached_meta(index, true);
				refreshed = true;
				continue;
			}

			/*
			 * Just read from the metapage, the root may have split since
			 * (then it has a right sibling), but it keeps its level and
			 * stays the leftmost page of that level.  Starting from any
			 * other page would miss everything to its left.
			 */
			if (opq->level != meta->rootlevel)
				fpb_index_corrupt(index, FPB_METAPAGE_BLKNO,
								  "Metapage root is block %u at level %u, but that page has level %u.",
								  meta->root, meta->rootlevel, opq->level);
			if (!FpbPageIsLeftmost(opq))
				fpb_index_corrupt(index, FPB_METAPAGE_BLKNO,
								  "Metapage root is block %u, but that page has a left sibling, block %u.",
								  meta->root, opq->left);
		}
		break;
	}

	for (;;)
	{
		BlockNumber child;
		uint32		curlevel;

		buf = fpb_moveright(index, buf, key, curlock, forupdate, stack, heap);
		page = BufferGetPage(buf);
		opq = FpbPageGetOpaque(page);
		curlevel = opq->level;
		if (curlevel <= level)
		{
			if (curlevel < level)
				fpb_index_corrupt(index, BufferGetBlockNumber(buf),
								  "Descent to level %u reached this page at level %u.",
								  level, curlevel);
			break;
		}
		child = fpb_page_child(page, fpb_index_cmp(index), key,
							   BufferGetBlockNumber(buf));
		stack = fpb_push(stack, BufferGetBlockNumber(buf));
		UnlockReleaseBuffer(buf);
		curlock = (curlevel - 1 == level) ? lockmode : BUFFER_LOCK_SHARE;
		buf = fpb_getbuf(index, child, curlock);
		/* a downlink must lead exactly one level down, or we could loop */
		if (FpbPageGetOpaque(BufferGetPage(buf))->level != curlevel - 1)
			fpb_index_corrupt(index, child,
							  "Page has level %u, but a downlink of block %u at level %u leads here.",
							  FpbPageGetOpaque(BufferGetPage(buf))->level,
							  stack->blkno, curlevel);
	}

	if (stackp)
		*stackp = stack;
	else
		fpb_free_stack(stack);
	return buf;
}

/* Descend to the leaf page for key, locked in leaflock. */
Buffer
fpb_search(Relation index, const FpbEntry *key, int leaflock,
		   FpbStack *stackp, Relation heap)
{
	return fpb_descend_to(index, key, 0, leaflock,
						  leaflock == BUFFER_LOCK_EXCLUSIVE, stackp, heap);
}
