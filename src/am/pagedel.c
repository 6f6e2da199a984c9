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

/* developer setting: stop with an ERROR between the two steps (tests) */
bool		fpb_debug_pagedel_stop = false;

FullTransactionId
fpb_page_safexid(FpbPageOpaque opq)
{
	return FullTransactionIdFromU64(((uint64) opq->safexid_hi << 32) |
									opq->safexid_lo);
}

/*
 * Step one.  buf is the empty leaf, exclusively locked, neither rightmost
 * nor flagged.  Find its parent by a descent for the leaf's high key, which
 * leads to the level-1 page holding the right sibling's downlink; unless
 * the leaf's downlink is the one just before it on that page, give up: the
 * leaf is its parent's rightmost child (its key range would have to move to
 * another parent, changing high keys above) or has no downlink yet.
 * Otherwise remove the downlink (K_leaf, leaf) and (K_right, right) becomes
 * (K_leaf, right): the right sibling takes over the leaf's key range, the
 * Lehman-Yao direction (no high key changes).  In the same record the leaf
 * is flagged half-dead.  Returns whether it was; buf stays locked.
 *
 * Child before parent is the lock order of inserters too; the descent holds
 * one internal page at a time.
 */
static bool
fpb_mark_halfdead(Relation index, Buffer buf)
{
	BlockNumber blkno = BufferGetBlockNumber(buf);
	Page		page = BufferGetPage(buf);
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	BlockNumber right = opq->right;
	uint64		hik,
				hit;
	Buffer		pbuf;
	Page		ppage;
	BlockNumber pblk;
	FpbEntry   *ents;
	int			n,
				j;
	FpbWalState *state;
	Page		wpage;

	fpb_page_get_hikey(page, &hik, &hit);
	if (fpb_cached_meta(index, true)->rootlevel < 1)
		return false;			/* the root is a leaf: no parent */
	pbuf = fpb_descend_to(index, hik, hit, 1, BUFFER_LOCK_EXCLUSIVE, false,
						  NULL, NULL);
	ppage = BufferGetPage(pbuf);
	pblk = BufferGetBlockNumber(pbuf);
	ents = palloc(sizeof(FpbEntry) * (FpbPageGetOpaque(ppage)->nentries + 1));
	n = fpb_page_collect(ppage, ents, pblk);
	for (j = 0; j < n; j++)
		if (ents[j].child == blkno)
			break;
	if (j >= n - 1 || ents[j + 1].child != right)
	{
		UnlockReleaseBuffer(pbuf);
		pfree(ents);
		return false;
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
	return true;
}

/*
 * Step two: unlink the half-dead leaf blkno from its siblings and mark it
 * deleted.  Locks left to right (left sibling, leaf, right sibling), the
 * order of splits, so the leaf's lock is let go first and the left sibling
 * found again: the page whose right-link is the leaf, reached from the
 * leaf's left-link by moving right (it may have split).  Returns whether
 * the leaf was deleted.
 */
static bool
fpb_unlink_halfdead(Relation index, BlockNumber blkno)
{
	Buffer		lbuf = InvalidBuffer;
	Buffer		tbuf;
	Buffer		rbuf;
	BlockNumber left;
	BlockNumber right;
	FpbPageOpaque opq;
	uint64		hik,
				hit;
	FpbWalState *state;
	Page		wpage;
	FullTransactionId safexid;

	tbuf = fpb_getbuf(index, blkno, BUFFER_LOCK_SHARE);
	opq = FpbPageGetOpaque(BufferGetPage(tbuf));
	if (!FpbPageIsHalfDead(opq) || FpbPageIsDeleted(opq))
	{
		UnlockReleaseBuffer(tbuf);
		return false;
	}
	left = opq->left;
	fpb_page_get_hikey(BufferGetPage(tbuf), &hik, &hit);
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

			if (lopq->level != 0 || FpbPageIsDeleted(lopq))
				fpb_index_corrupt(index, blkno,
								  "Left sibling %u of the half-dead page is not a live leaf.",
								  BufferGetBlockNumber(lbuf));
			if (lopq->right == blkno)
				break;

			/*
			 * The left sibling split since: its new pages lie between.  High
			 * keys rise along the walk (fpb_step_right checks it), so passing
			 * the leaf's own high key means the chain does not lead to it.
			 */
			if (FpbPageIsRightmost(lopq) ||
				fpb_key_cmp(lopq->hikey, fpb_tid_to_t(&lopq->hitid),
							hik, hit) >= 0)
				fpb_index_corrupt(index, blkno,
								  "The half-dead page is not reachable from its left sibling %u.",
								  left);
			lbuf = fpb_step_right(index, lbuf, BUFFER_LOCK_EXCLUSIVE);
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
		FpbPageGetOpaque(BufferGetPage(rbuf))->level != 0)
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

	/* the leaf keeps its links and high key for scans still on their way */
	UnlockReleaseBuffer(rbuf);
	UnlockReleaseBuffer(tbuf);
	if (BufferIsValid(lbuf))
		UnlockReleaseBuffer(lbuf);
	return true;
}

/*
 * Delete leaf blkno if it is empty (or finish it if it is half-dead, after
 * a crash or an error between the steps).  No buffer lock may be held.
 * Returns the number of pages deleted (0 or 1).
 */
int
fpb_pagedel(Relation index, BlockNumber blkno)
{
	Buffer		buf = fpb_getbuf(index, blkno, BUFFER_LOCK_EXCLUSIVE);
	FpbPageOpaque opq = FpbPageGetOpaque(BufferGetPage(buf));

	if (FpbPageIsDeleted(opq) || !FpbPageIsLeaf(opq))
	{
		UnlockReleaseBuffer(buf);
		return 0;
	}
	if (!FpbPageIsHalfDead(opq))
	{
		if (FpbPageIsRightmost(opq) || opq->nentries > 0 ||
			(opq->flags & FPB_F_INCOMPLETE_SPLIT) ||
			!fpb_mark_halfdead(index, buf))
		{
			UnlockReleaseBuffer(buf);
			return 0;
		}
		UnlockReleaseBuffer(buf);
		if (fpb_debug_pagedel_stop)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("fpbtree: stopped after marking block %u of index \"%s\" half-dead",
							blkno, RelationGetRelationName(index)),
					 errdetail("fpbtree.debug_pagedel_stop is on.")));
	}
	else
		UnlockReleaseBuffer(buf);
	CHECK_FOR_INTERRUPTS();
	return fpb_unlink_halfdead(index, blkno) ? 1 : 0;
}
