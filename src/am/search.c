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

/*
 * Step right while (k, t) is at or above the page's high key: a concurrent
 * split may have moved our key range to a right sibling.  With forupdate,
 * an incomplete split on the way is finished first (stack holds the
 * page's ancestors).  The buffer is returned locked in lockmode.
 */
Buffer
fpb_moveright(Relation index, Buffer buf, uint64 k, uint64 t, int lockmode,
			  bool forupdate, FpbStack stack, Relation heap)
{
	for (;;)
	{
		Page		page = BufferGetPage(buf);
		FpbPageOpaque opq = FpbPageGetOpaque(page);

		CHECK_FOR_INTERRUPTS();

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
			buf = fpb_getbuf(index, blkno, lockmode);
			continue;
		}

		if (fpb_page_above_hikey(page, k, t))
		{
			BlockNumber next = opq->right;

			if (next == BufferGetBlockNumber(buf))
				ereport(ERROR,
						(errcode(ERRCODE_INDEX_CORRUPTED),
						 errmsg("fpbtree page %u of index \"%s\" is corrupted: it is its own right sibling",
								next, RelationGetRelationName(index))));

			UnlockReleaseBuffer(buf);
			buf = fpb_getbuf(index, next, lockmode);
			continue;
		}
		return buf;
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
fpb_descend_to(Relation index, uint64 k, uint64 t, uint32 level,
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
			elog(ERROR, "fpbtree \"%s\": no level %u below the root",
				 RelationGetRelationName(index), level);
		}
		curlock = (meta->rootlevel == level) ? lockmode : BUFFER_LOCK_SHARE;
		buf = fpb_getbuf(index, meta->root, curlock);
		opq = FpbPageGetOpaque(BufferGetPage(buf));

		/*
		 * The only page at its level is the root; if the cached root has
		 * gained a sibling, a new root may exist above it.
		 */
		if ((!FpbPageIsLeftmost(opq) || !FpbPageIsRightmost(opq) ||
			 opq->level != meta->rootlevel) && !refreshed)
		{
			UnlockReleaseBuffer(buf);
			meta = fpb_cached_meta(index, true);
			refreshed = true;
			continue;
		}
		break;
	}

	for (;;)
	{
		BlockNumber child;
		uint32		curlevel;

		buf = fpb_moveright(index, buf, k, t, curlock, forupdate, stack, heap);
		page = BufferGetPage(buf);
		opq = FpbPageGetOpaque(page);
		curlevel = opq->level;
		if (curlevel <= level)
		{
			if (curlevel < level)
				elog(ERROR, "fpbtree \"%s\": descent passed level %u at block %u",
					 RelationGetRelationName(index), level,
					 BufferGetBlockNumber(buf));
			break;
		}
		child = fpb_page_child(page, k, t, BufferGetBlockNumber(buf));
		stack = fpb_push(stack, BufferGetBlockNumber(buf));
		UnlockReleaseBuffer(buf);
		curlock = (curlevel - 1 == level) ? lockmode : BUFFER_LOCK_SHARE;
		buf = fpb_getbuf(index, child, curlock);
		/* a downlink must lead exactly one level down, or we could loop */
		if (FpbPageGetOpaque(BufferGetPage(buf))->level != curlevel - 1)
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("fpbtree page %u of index \"%s\" is corrupted: level %u below a level-%u page",
							child, RelationGetRelationName(index),
							FpbPageGetOpaque(BufferGetPage(buf))->level,
							curlevel)));
	}

	if (stackp)
		*stackp = stack;
	else
		fpb_free_stack(stack);
	return buf;
}

/* Descend to the leaf page for (k, t), locked in leaflock. */
Buffer
fpb_search(Relation index, uint64 k, uint64 t, int leaflock, FpbStack *stackp,
		   Relation heap)
{
	return fpb_descend_to(index, k, t, 0, leaflock,
						  leaflock == BUFFER_LOCK_EXCLUSIVE, stackp, heap);
}
