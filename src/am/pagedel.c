/*-------------------------------------------------------------------------
 *
 * pagedel.c
 *	  Deletion of empty leaf pages by VACUUM, in two WAL-logged steps as in
 *	  nbtree: the leaf loses its downlink and becomes half-dead, then it
 *	  leaves the sibling chain and becomes deleted.  A deleted page is
 *	  reused (meta.c: fpb_newbuf) once no transaction that could still hold
 *	  a link to it is left.  See src/am/README.md, "Page deletion".
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "fpbtree.h"
#include "miscadmin.h"
#include "storage/predicate.h"

/* developer setting: stop with an ERROR between the two steps (tests) */
bool		fpb_debug_pagedel_stop = false;

FullTransactionId
fpb_page_safexid(FpbPageOpaque opq)
{
	return FullTransactionIdFromU64(((uint64) opq->safexid_hi << 32) |
									opq->safexid_lo);
}

/*
 * A page's entries, collected into a palloc'd array.
 */
static FpbEntry *
fpb_pagedel_collect(Buffer buf, int *n)
{
	Page		page = BufferGetPage(buf);
	FpbEntry   *ents = palloc(sizeof(FpbEntry) *
							  (FpbPageGetOpaque(page)->nentries + 1));

	*n = fpb_page_collect(page, ents, BufferGetBlockNumber(buf));
	return ents;
}

/*
 * Step one when the leaf (tbuf) is the only child of its parent P (pbuf,
 * level 1, with entries pents[0..0]): P goes with it.  P's range moves to
 * its right sibling P2, whose first downlink (the leaf's right sibling's)
 * then starts at P's lower bound, and P's downlink in the grandparent G
 * is removed as the leaf's is in the simple case: (K_P, P), (K_P2, P2)
 * becomes (K_P, P2).  Both P and the leaf are flagged half-dead, in one
 * record of four pages (P2, G, P, leaf).  Only within one grandparent, and
 * never the rightmost page of level 1.
 *
 * Locks: the leaf and P are held; P2 is locked next (left to right on its
 * level), then G by a descent (below before above, as inserters lock).
 * Returns whether it was done; releases pbuf either way.
 */
static bool
fpb_mark_subtree_halfdead(Relation index, Buffer tbuf, Buffer pbuf,
						  FpbEntry *pents)
{
	FpbPageOpaque popq = FpbPageGetOpaque(BufferGetPage(pbuf));
	BlockNumber pblk = BufferGetBlockNumber(pbuf);
	BlockNumber right = FpbPageGetOpaque(BufferGetPage(tbuf))->right;
	BlockNumber p2blk = popq->right;
	Buffer		p2buf;
	Buffer		gbuf;
	FpbEntry   *p2ents;
	FpbEntry   *gents;
	int			n2,
				ng,
				i;
	FpbWalState *state;
	Page		wpage;

	if (FpbPageIsRightmost(popq) || FpbPageIsIgnore(popq) ||
		(popq->flags & FPB_F_INCOMPLETE_SPLIT) || popq->level != 1 ||
		p2blk == pblk || fpb_cached_meta(index, true)->rootlevel < 2)
	{
		UnlockReleaseBuffer(pbuf);
		return false;
	}
	p2buf = fpb_getbuf(index, p2blk, BUFFER_LOCK_EXCLUSIVE);
	p2ents = fpb_pagedel_collect(p2buf, &n2);
	if (FpbPageGetOpaque(BufferGetPage(p2buf))->level != 1 ||
		FpbPageIsIgnore(FpbPageGetOpaque(BufferGetPage(p2buf))) ||
		FpbPageGetOpaque(BufferGetPage(p2buf))->left != pblk ||
		n2 < 1 || p2ents[0].child != right)
	{
		UnlockReleaseBuffer(p2buf);
		UnlockReleaseBuffer(pbuf);
		return false;
	}

	/* the grandparent: the level-2 page whose range holds P's lower bound */
	gbuf = fpb_descend_to(index, &pents[0], 2,
						  BUFFER_LOCK_EXCLUSIVE, false, NULL, NULL);
	gents = fpb_pagedel_collect(gbuf, &ng);
	for (i = 0; i < ng; i++)
		if (gents[i].child == pblk)
			break;
	if (i >= ng - 1 || gents[i + 1].child != p2blk)
	{
		UnlockReleaseBuffer(gbuf);
		UnlockReleaseBuffer(p2buf);
		UnlockReleaseBuffer(pbuf);
		return false;
	}
	gents[i].child = p2blk;
	memmove(&gents[i + 1], &gents[i + 2], sizeof(FpbEntry) * (ng - i - 2));
	ng--;
	p2ents[0].k = gents[i].k;
	p2ents[0].t = gents[i].t;
	p2ents[0].f = gents[i].f;

	state = fpb_wal_start(index);

	/*
	 * P2's first downlink takes P's lower bound, which on a wide index may
	 * be longer than the key it replaces: a full P2 may not hold it.  Then
	 * the subtree stays for now, as when P2 is not P's right sibling; the
	 * leaf stays empty until a later VACUUM finds P2 with room.
	 */
	wpage = fpb_wal_register(state, p2buf, 0);
	if (!fpb_page_layout(wpage, p2ents, n2, 0))
	{
		fpb_wal_abort(state);
		UnlockReleaseBuffer(gbuf);
		UnlockReleaseBuffer(p2buf);
		UnlockReleaseBuffer(pbuf);
		pfree(gents);
		pfree(p2ents);
		return false;
	}
	wpage = fpb_wal_register(state, gbuf, 0);
	if (!fpb_page_layout(wpage, gents, ng, 0))
		elog(ERROR, "fpbtree: block %u does not fit after removing a downlink",
			 BufferGetBlockNumber(gbuf));
	wpage = fpb_wal_register(state, pbuf, 0);
	FpbPageGetOpaque(wpage)->flags |= FPB_F_HALF_DEAD;
	wpage = fpb_wal_register(state, tbuf, 0);
	FpbPageGetOpaque(wpage)->flags |= FPB_F_HALF_DEAD;
	fpb_wal_finish(state);

	UnlockReleaseBuffer(gbuf);
	UnlockReleaseBuffer(p2buf);
	UnlockReleaseBuffer(pbuf);
	pfree(gents);
	pfree(p2ents);
	return true;
}

/*
 * Step one.  buf is the empty leaf, exclusively locked, neither rightmost
 * nor flagged, and (lk, lt) its lower bound.  Its parent P is found by a
 * descent to level 1 for that key.  If the leaf's downlink is followed on
 * P by its right sibling's, (K_leaf, leaf), (K_right, right) becomes
 * (K_leaf, right): the right sibling takes over the leaf's key range, the
 * Lehman-Yao direction (no high key changes), and the leaf is flagged
 * half-dead in the same record.  If the leaf is P's only child, P goes too
 * (fpb_mark_subtree_halfdead).  Otherwise (the leaf is P's rightmost child
 * among others: its range would have to move to another parent, changing
 * high keys above; or it has no downlink yet) nothing is done.
 *
 * Returns the number of pages made half-dead (0, 1, or 2 with *pblk set to
 * P); buf stays locked.  Child before parent is the lock order of inserters
 * too; the descent holds one internal page at a time.
 */
static int
fpb_mark_halfdead(Relation index, Buffer buf, const FpbEntry *low,
				  BlockNumber *pblkp)
{
	BlockNumber blkno = BufferGetBlockNumber(buf);
	BlockNumber right = FpbPageGetOpaque(BufferGetPage(buf))->right;
	Buffer		pbuf;
	BlockNumber pblk;
	FpbEntry   *ents;
	int			n,
				j;
	FpbWalState *state;
	Page		wpage;

	if (fpb_cached_meta(index, true)->rootlevel < 1)
		return 0;				/* the root is a leaf: no parent */
	pbuf = fpb_descend_to(index, low, 1, BUFFER_LOCK_EXCLUSIVE, false,
						  NULL, NULL);
	pblk = BufferGetBlockNumber(pbuf);
	ents = fpb_pagedel_collect(pbuf, &n);
	for (j = 0; j < n; j++)
		if (ents[j].child == blkno)
			break;

	/*
	 * If the leaf goes, inserts into its key range go to its right sibling:
	 * copy the predicate locks there first (a copy: the leaf keeps them, so
	 * nothing is lost when the deletion is given up below).
	 */
	if (j < n)
		PredicateLockPageCombine(index, blkno, right);
	if (j < n && n == 1)
	{
		bool		done = fpb_mark_subtree_halfdead(index, buf, pbuf, ents);

		pfree(ents);
		*pblkp = pblk;
		return done ? 2 : 0;
	}
	if (j >= n - 1 || ents[j + 1].child != right)
	{
		UnlockReleaseBuffer(pbuf);
		pfree(ents);
		return 0;
	}
	ents[j].child = right;
	memmove(&ents[j + 1], &ents[j + 2], sizeof(FpbEntry) * (n - j - 2));
	n--;

	state = fpb_wal_start(index);
	wpage = fpb_wal_register(state, pbuf, 0);
	if (!fpb_page_layout(wpage, ents, n, 0))
		elog(ERROR, "fpbtree: block %u does not fit after removing a downlink",
			 pblk);
	wpage = fpb_wal_register(state, buf, 0);
	FpbPageGetOpaque(wpage)->flags |= FPB_F_HALF_DEAD;
	fpb_wal_finish(state);

	UnlockReleaseBuffer(pbuf);
	pfree(ents);
	return 1;
}

/*
 * Step two: unlink the half-dead page blkno (a leaf, or a level-1 page whose
 * only child went with it) from its siblings and mark it deleted.  Locks
 * left to right (left sibling, page, right sibling), the order of splits,
 * so the page's lock is let go first and the left sibling found again: the
 * page whose right-link is ours, reached from our left-link by moving right
 * (it may have split).  Returns whether the page was deleted.  A deleted
 * level-1 page keeps its one downlink, to its deleted child, so readers that
 * still reach it (the leaf prefetcher) find what they expect.
 */
static bool
fpb_unlink_halfdead(Relation index, BlockNumber blkno,
					FullTransactionId *safexid_out)
{
	Buffer		lbuf = InvalidBuffer;
	Buffer		tbuf;
	Buffer		rbuf;
	BlockNumber left;
	BlockNumber right;
	FpbPageOpaque opq;
	FpbEntry	hik;
	FpbFullBuf	hbuf;
	FpbEntry	lhk;
	FpbWalState *state;
	Page		wpage;
	FullTransactionId safexid;
	uint16		level;
	int			unchecked = 0;

	tbuf = fpb_getbuf(index, blkno, BUFFER_LOCK_SHARE);
	opq = FpbPageGetOpaque(BufferGetPage(tbuf));
	if (!FpbPageIsHalfDead(opq) || FpbPageIsDeleted(opq))
	{
		UnlockReleaseBuffer(tbuf);
		return false;
	}
	left = opq->left;
	level = opq->level;
	fpb_page_get_hikey(BufferGetPage(tbuf), &hik, blkno);
	fpb_entry_keep(fpb_index_cmp(index), &hik, &hbuf);
	UnlockReleaseBuffer(tbuf);

	if (left != InvalidBlockNumber)
	{
		if (left == blkno)
			fpb_index_corrupt(index, blkno,
							  "Left-link points to the page itself.");
		CHECK_FOR_INTERRUPTS();
		lbuf = fpb_getbuf(index, left, BUFFER_LOCK_EXCLUSIVE);
		for (;;)
		{
			FpbPageOpaque lopq = FpbPageGetOpaque(BufferGetPage(lbuf));

			if (lopq->level != level || FpbPageIsDeleted(lopq))
				fpb_index_corrupt(index, blkno,
								  "Left sibling %u of the half-dead page is not a live page of level %u.",
								  BufferGetBlockNumber(lbuf), level);
			if (lopq->right == blkno)
				break;

			/*
			 * The left sibling split since: its new pages lie between.  High
			 * keys rise along the walk (fpb_step_right checks it; the walk
			 * meets no deleted page), so passing the leaf's own high key
			 * means the chain does not lead to it.
			 */
			if (!FpbPageIsRightmost(lopq))
				fpb_page_get_hikey(BufferGetPage(lbuf), &lhk,
								   BufferGetBlockNumber(lbuf));
			if (FpbPageIsRightmost(lopq) ||
				fpb_entry_cmp(fpb_index_cmp(index), &lhk, &hik) >= 0)
				fpb_index_corrupt(index, blkno,
								  "The half-dead page is not reachable from its left sibling %u.",
								  left);
			lbuf = fpb_step_right(index, lbuf, BUFFER_LOCK_EXCLUSIVE,
								  &unchecked);
		}
	}

	tbuf = fpb_getbuf(index, blkno, BUFFER_LOCK_EXCLUSIVE);
	opq = FpbPageGetOpaque(BufferGetPage(tbuf));
	if (!FpbPageIsHalfDead(opq) || FpbPageIsDeleted(opq) ||
		opq->left != (BufferIsValid(lbuf) ? BufferGetBlockNumber(lbuf) :
					  InvalidBlockNumber))
	{
		/* only VACUUM, one at a time, deletes pages: that is damage */
		fpb_index_corrupt(index, blkno,
						  "Half-dead page changed under VACUUM: flags 0x%04x, left-link %u.",
						  opq->flags, opq->left);
	}
	right = opq->right;
	if (right == InvalidBlockNumber || right == blkno)
		fpb_index_corrupt(index, blkno,
						  "Half-dead page has no right sibling.");
	rbuf = fpb_getbuf(index, right, BUFFER_LOCK_EXCLUSIVE);
	if (FpbPageGetOpaque(BufferGetPage(rbuf))->left != blkno ||
		FpbPageGetOpaque(BufferGetPage(rbuf))->level != level)
		fpb_index_corrupt(index, right,
						  "Page is the right sibling of half-dead block %u, but its left-link is %u.",
						  blkno, FpbPageGetOpaque(BufferGetPage(rbuf))->left);

	/*
	 * Every transaction that can still have read a link to the leaf has an
	 * xmin below the next transaction id to be assigned.
	 */
	safexid = ReadNextFullTransactionId();

	state = fpb_wal_start(index);
	if (BufferIsValid(lbuf))
	{
		wpage = fpb_wal_register(state, lbuf, 0);
		FpbPageGetOpaque(wpage)->right = right;
	}
	wpage = fpb_wal_register(state, rbuf, 0);
	FpbPageGetOpaque(wpage)->left = left == InvalidBlockNumber ?
		InvalidBlockNumber : BufferGetBlockNumber(lbuf);
	wpage = fpb_wal_register(state, tbuf, 0);
	opq = FpbPageGetOpaque(wpage);
	opq->flags = (opq->flags & ~FPB_F_HALF_DEAD) | FPB_F_DELETED;
	opq->safexid_lo = (uint32) U64FromFullTransactionId(safexid);
	opq->safexid_hi = (uint32) (U64FromFullTransactionId(safexid) >> 32);
	fpb_wal_finish(state);
	*safexid_out = safexid;

	/* the page keeps its links and high key for scans still on their way */
	UnlockReleaseBuffer(rbuf);
	UnlockReleaseBuffer(tbuf);
	if (BufferIsValid(lbuf))
		UnlockReleaseBuffer(lbuf);
	return true;
}

/*
 * Delete leaf blkno if it is empty, with its parent if it is the parent's
 * only child; or finish the deletion of a half-dead page (after a crash or
 * an error between the steps).  No buffer lock may be held.  Returns
 * whether blkno was deleted; *parent is set to the parent's block if that
 * was deleted too, else to InvalidBlockNumber.  *safexid is set to the
 * safexid of the last page deleted (the latest of them), when any was.
 */
bool
fpb_pagedel(Relation index, BlockNumber blkno, BlockNumber *parent,
			FullTransactionId *safexid)
{
	Buffer		buf = fpb_getbuf(index, blkno, BUFFER_LOCK_EXCLUSIVE);
	FpbPageOpaque opq = FpbPageGetOpaque(BufferGetPage(buf));
	BlockNumber left;
	BlockNumber pblk = InvalidBlockNumber;
	FpbEntry	low = fpb_mkkey(0, 0);
	FpbFullBuf	lowbuf;
	int			nhalf;
	bool		deleted;

	*parent = InvalidBlockNumber;
	if (FpbPageIsDeleted(opq))
	{
		UnlockReleaseBuffer(buf);
		return false;
	}
	if (FpbPageIsHalfDead(opq))
	{
		UnlockReleaseBuffer(buf);
		CHECK_FOR_INTERRUPTS();
		return fpb_unlink_halfdead(index, blkno, safexid);
	}
	if (!FpbPageIsLeaf(opq) || FpbPageIsRightmost(opq) || opq->nentries > 0 ||
		(opq->flags & FPB_F_INCOMPLETE_SPLIT))
	{
		UnlockReleaseBuffer(buf);
		return false;
	}

	/*
	 * The leaf's lower bound, its left sibling's high key, finds its parent
	 * (the high key would lead past a parent whose last child it is).  The
	 * left sibling is read before the leaf is locked again (left to right);
	 * a left-link that changed meanwhile makes us give up.
	 */
	left = opq->left;
	UnlockReleaseBuffer(buf);
	if (left != InvalidBlockNumber)
	{
		Buffer		lbuf;
		FpbPageOpaque lopq;

		if (left == blkno)
			fpb_index_corrupt(index, blkno,
							  "Left-link points to the page itself.");
		lbuf = fpb_getbuf(index, left, BUFFER_LOCK_SHARE);
		lopq = FpbPageGetOpaque(BufferGetPage(lbuf));
		if (lopq->right != blkno || FpbPageIsDeleted(lopq) ||
			FpbPageIsRightmost(lopq))
		{
			UnlockReleaseBuffer(lbuf);
			return false;
		}
		fpb_page_get_hikey(BufferGetPage(lbuf), &low, left);
		fpb_entry_keep(fpb_index_cmp(index), &low, &lowbuf);
		UnlockReleaseBuffer(lbuf);
	}
	CHECK_FOR_INTERRUPTS();
	buf = fpb_getbuf(index, blkno, BUFFER_LOCK_EXCLUSIVE);
	opq = FpbPageGetOpaque(BufferGetPage(buf));
	if (FpbPageIsIgnore(opq) || !FpbPageIsLeaf(opq) ||
		FpbPageIsRightmost(opq) || opq->nentries > 0 ||
		(opq->flags & FPB_F_INCOMPLETE_SPLIT) || opq->left != left)
	{
		UnlockReleaseBuffer(buf);
		return false;
	}
	nhalf = fpb_mark_halfdead(index, buf, &low, &pblk);
	UnlockReleaseBuffer(buf);
	if (nhalf == 0)
		return false;
	if (fpb_debug_pagedel_stop)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("fpbtree: stopped after marking block %u of index \"%s\" half-dead",
						blkno, RelationGetRelationName(index)),
				 errdetail("fpbtree.debug_pagedel_stop is on.")));
	CHECK_FOR_INTERRUPTS();
	deleted = fpb_unlink_halfdead(index, blkno, safexid);
	if (nhalf == 2)
	{
		CHECK_FOR_INTERRUPTS();
		if (fpb_unlink_halfdead(index, pblk, safexid))
			*parent = pblk;
	}
	return deleted;
}
