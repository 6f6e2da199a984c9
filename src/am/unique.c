/*-------------------------------------------------------------------------
 *
 * unique.c
 *	  Unique fpbtree indexes: the check an insertion makes before its entry
 *	  goes in, and the check CREATE UNIQUE INDEX makes over sorted entries.
 *
 * Every entry of one key value k lies in the run of entries (k, t) that
 * starts at (k, 0) (for NULLs under NULLS NOT DISTINCT: at (k, NULL bit))
 * and may continue over right siblings.  An inserter of k first locks,
 * exclusively, the leaf whose key range holds the start of that run, and
 * keeps a lock on that page or a page to its right until its own entry is
 * on a page: it reads the whole run (share-locking right siblings one at a
 * time, left to right, so lock order is that of every other operation),
 * asks the heap about each entry's tuple under a dirty snapshot, and then
 * moves right to the page where its entry belongs by lock coupling (the
 * right page is locked before the left one is released).  A second inserter
 * of k must lock the run's first page too, and then reads the run up to
 * wherever the first one is; so it either waits for the first one's entry
 * or sees it, and learns from the heap whether that transaction is still
 * running (wait for it and start over), committed (conflict) or aborted.
 * This is nbtree's protocol; the run's first page is found with the same
 * descent and move-right as any search, so concurrent splits are handled
 * as they are there.
 *
 * PostgreSQL 15 passes UNIQUE_CHECK_PARTIAL and UNIQUE_CHECK_EXISTING only
 * for deferrable unique constraints and ON CONFLICT, which it allows on
 * btree indexes only; they are implemented to the index AM contract all
 * the same.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/tableam.h"
#include "fpbtree.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/predicate.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

/* What the check found. */
typedef enum FpbUniqueVerdict
{
	FPB_UNIQUE_OK,				/* no live duplicate */
	FPB_UNIQUE_WAIT,			/* a duplicate's transaction is in progress */
	FPB_UNIQUE_MAYBE,			/* UNIQUE_CHECK_PARTIAL: a possible conflict */
	FPB_UNIQUE_CONFLICT			/* a committed live duplicate */
} FpbUniqueVerdict;

/*
 * The run e belongs to, from *lo to *hi: keys [lo->k, hi->k] (one key but
 * for the float zeros; in a wide index e's prefix and value) and
 * tiebreakers [lo->t, hi->t].
 */
static inline void
fpb_unique_run_bounds(Relation index, const FpbCmp *cmp, const FpbEntry *e,
					  FpbEntry *lo, FpbEntry *hi)
{
	*lo = fpb_mkkey(e->k, 0);
	*hi = fpb_mkkey(e->k, FPB_T_MAX_NONNULL);
	if (cmp)
		lo->f = hi->f = e->f;
	else
		fpb_key_equal_range(index->rd_opcintype[0], e->k, &lo->k, &hi->k);
	if (e->t & FPB_T_NULLBIT)
	{
		lo->t = FPB_T_NULLBIT;
		hi->t = PG_UINT64_MAX;
	}
}

/*
 * Read the run of e's key from the locked leaf in buf (not released) and
 * its right siblings, checking each entry's heap tuple.  On FPB_UNIQUE_WAIT
 * *xwait and *spectoken say whom to wait for.
 */
static FpbUniqueVerdict
fpb_unique_check_run(Relation index, Relation heap, Buffer buf,
					 const FpbEntry *e, IndexUniqueCheck checkUnique,
					 TransactionId *xwait, uint32 *spectoken)
{
	SnapshotData dirty;
	const FpbCmp *cmp = fpb_index_cmp(index);
	FpbEntry	lo,
				hi;
	uint64	   *ts = NULL;
	Buffer		nbuf = InvalidBuffer;
	Page		page = BufferGetPage(buf);
	BlockNumber blkno = BufferGetBlockNumber(buf);
	bool		found_own = false;
	FpbUniqueVerdict verdict = FPB_UNIQUE_OK;
	int64		steps = 0;
	int			unchecked = 0;

	InitDirtySnapshot(dirty);
	fpb_unique_run_bounds(index, cmp, e, &lo, &hi);
	for (;;)
	{
		FpbPageOpaque opq = FpbPageGetOpaque(page);
		bool		ended;
		int			n;

		ts = ts ? repalloc(ts, sizeof(uint64) * Max(opq->nentries, 1))
			: palloc(sizeof(uint64) * Max(opq->nentries, 1));
		n = fpb_page_key_run(page, cmp, &lo, &hi, blkno, ts, &ended);
		for (int i = 0; i < n; i++)
		{
			ItemPointerData htid;
			bool		all_dead = false;

			fpb_t_to_heaptid(ts[i], &htid);
			if (checkUnique == UNIQUE_CHECK_EXISTING && ts[i] == e->t)
			{
				/* the entry being rechecked is not its own duplicate */
				found_own = true;
				continue;
			}
			if (!table_index_fetch_tuple_check(heap, &htid, &dirty, &all_dead))
			{
				/* dead to everyone: mark it for removal before a split */
				if (all_dead)
					fpb_unique_mark_dead(BufferIsValid(nbuf) ? nbuf : buf,
										 lo.k, hi.k, ts[i]);
				continue;
			}
			if (checkUnique == UNIQUE_CHECK_PARTIAL)
			{
				verdict = FPB_UNIQUE_MAYBE;
				goto done;
			}
			*xwait = TransactionIdIsValid(dirty.xmin) ? dirty.xmin : dirty.xmax;
			if (TransactionIdIsValid(*xwait))
			{
				*spectoken = dirty.speculativeToken;
				verdict = FPB_UNIQUE_WAIT;
				goto done;
			}

			/*
			 * A committed live duplicate.  CREATE INDEX CONCURRENTLY inserts
			 * entries for tuples that may be dead by now: a dead tuple of
			 * ours conflicts with nothing.
			 */
			{
				ItemPointerData own;

				fpb_t_to_heaptid(e->t, &own);
				if (!table_index_fetch_tuple_check(heap, &own, SnapshotSelf,
												   NULL))
					goto done;
			}
			verdict = FPB_UNIQUE_CONFLICT;
			goto done;
		}
		if (ended || FpbPageIsRightmost(opq))
			break;
		/* a deleted or half-dead page's range is its right sibling's */
		if (!FpbPageIsIgnore(opq))
		{
			FpbEntry	hk;

			fpb_page_get_hikey(page, &hk, blkno);
			if (cmp ? fpb_entry_cmp(cmp, &hk, &hi) > 0 : hk.k > hi.k)
				break;
		}
		/* the run may go on to the right sibling */
		if (++steps > (int64) RelationGetNumberOfBlocks(index))
			fpb_index_corrupt(index, blkno,
							  "The right-links of level 0 form a cycle.");
		{
			FpbEntry	hk;
			Buffer		next;

			fpb_page_get_hikey(page, &hk, blkno);
			next = fpb_getbuf_right(index, blkno, 0,
									FpbPageIsIgnore(opq) ? NULL : &hk,
									opq->right, BUFFER_LOCK_SHARE, true,
									&unchecked);

			if (BufferIsValid(nbuf))
				UnlockReleaseBuffer(nbuf);
			nbuf = next;
		}
		page = BufferGetPage(nbuf);
		blkno = BufferGetBlockNumber(nbuf);
		fpb_page_check_sane(index, page, blkno);
	}

	if (checkUnique == UNIQUE_CHECK_EXISTING && !found_own)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("failed to re-find tuple within index \"%s\"",
						RelationGetRelationName(index)),
				 errhint("This may be because of a non-immutable index expression."),
				 errtableconstraint(heap, RelationGetRelationName(index))));
done:
	if (BufferIsValid(nbuf))
		UnlockReleaseBuffer(nbuf);
	if (ts)
		pfree(ts);
	return verdict;
}

/*
 * From the locked leaf in buf, lock the leaf where (k, t) belongs, moving
 * right by lock coupling; finishes incomplete splits on the way, as any
 * inserter does.
 */
static Buffer
fpb_unique_move_to_insert(Relation index, Buffer buf, const FpbEntry *key,
						  FpbStack stack, Relation heap)
{
	int64		steps = 0;
	int			unchecked = 0;
	const FpbCmp *cmp = fpb_index_cmp(index);

	/* half-dead and deleted pages: their right sibling has their range */
	while (FpbPageIsIgnore(FpbPageGetOpaque(BufferGetPage(buf))) ||
		   fpb_page_above_hikey(BufferGetPage(buf), cmp, key,
								BufferGetBlockNumber(buf)))
	{
		FpbPageOpaque opq = FpbPageGetOpaque(BufferGetPage(buf));
		BlockNumber from = BufferGetBlockNumber(buf);
		Buffer		next;
		FpbEntry	hk;

		if (++steps > (int64) RelationGetNumberOfBlocks(index))
			fpb_index_corrupt(index, from,
							  "The right-links of level 0 form a cycle.");
		fpb_page_get_hikey(BufferGetPage(buf), &hk, from);
		next = fpb_getbuf_right(index, from, 0,
								FpbPageIsIgnore(opq) ? NULL : &hk,
								opq->right, BUFFER_LOCK_EXCLUSIVE, true,
								&unchecked);
		fpb_page_check_sane(index, BufferGetPage(next),
							BufferGetBlockNumber(next));
		if (FpbPageGetOpaque(BufferGetPage(next))->flags &
			FPB_F_INCOMPLETE_SPLIT)
		{
			BlockNumber nblk = BufferGetBlockNumber(next);

			/* releases next; we keep buf, so no other inserter passes */
			fpb_finish_split(index, next, stack, heap);
			next = fpb_getbuf(index, nblk, BUFFER_LOCK_EXCLUSIVE);
			fpb_page_check_sane(index, BufferGetPage(next), nblk);
		}
		UnlockReleaseBuffer(buf);
		buf = next;
	}
	return buf;
}

/*
 * Insert e into a unique index (e's key is not a NULL that is distinct
 * from every other), after checking its run.  Returns false when a
 * UNIQUE_CHECK_PARTIAL check found a possible conflict, true otherwise;
 * raises unique_violation on a definite one.  values / isnull are the
 * index column values, for the error message; unchanged is the executor's
 * indexUnchanged hint (fpb_insert_entry).
 */
bool
fpb_insert_unique(Relation index, const FpbEntry *e, Relation heap,
				  IndexUniqueCheck checkUnique, Datum *values, bool *isnull,
				  bool unchanged)
{
	FpbEntry	lo,
				hi;

	fpb_unique_run_bounds(index, fpb_index_cmp(index), e, &lo, &hi);
	for (;;)
	{
		FpbStack	stack;
		Buffer		buf;
		TransactionId xwait = InvalidTransactionId;
		uint32		spectoken = 0;
		FpbUniqueVerdict verdict;

		buf = fpb_search(index, &lo, BUFFER_LOCK_EXCLUSIVE, &stack, heap);
		verdict = fpb_unique_check_run(index, heap, buf, e, checkUnique,
									   &xwait, &spectoken);
		if (verdict == FPB_UNIQUE_WAIT)
		{
			UnlockReleaseBuffer(buf);
			fpb_free_stack(stack);
			if (spectoken)
				SpeculativeInsertionWait(xwait, spectoken);
			else
			{
				ItemPointerData own;

				fpb_t_to_heaptid(e->t, &own);
				XactLockTableWait(xwait, heap, &own, XLTW_InsertIndex);
			}
			CHECK_FOR_INTERRUPTS();
			continue;
		}
		if (verdict == FPB_UNIQUE_CONFLICT)
		{
			char	   *keydesc;

			/*
			 * As nbtree: a serializable transaction that read this leaf
			 * learns of the conflict as a serialization failure, which a
			 * retry may resolve, rather than as this duplicate.
			 */
			CheckForSerializableConflictIn(index, NULL,
										   BufferGetBlockNumber(buf));
			/* the description may read catalogs: hold no buffer lock */
			UnlockReleaseBuffer(buf);
			fpb_free_stack(stack);
			keydesc = BuildIndexValueDescription(index, values, isnull);
			ereport(ERROR,
					(errcode(ERRCODE_UNIQUE_VIOLATION),
					 errmsg("duplicate key value violates unique constraint \"%s\"",
							RelationGetRelationName(index)),
					 keydesc ? errdetail("Key %s already exists.", keydesc) : 0,
					 errtableconstraint(heap, RelationGetRelationName(index))));
		}
		if (checkUnique == UNIQUE_CHECK_EXISTING)
		{
			UnlockReleaseBuffer(buf);
			fpb_free_stack(stack);
			return true;
		}
		buf = fpb_unique_move_to_insert(index, buf, e, stack, heap);
		fpb_insert_at_leaf(index, buf, e, stack, heap, unchanged);
		fpb_free_stack(stack);
		return verdict != FPB_UNIQUE_MAYBE;
	}
}

/* Is the heap tuple an index entry points to visible to ourselves? */
static bool
fpb_unique_live(Relation heap, uint64 t)
{
	ItemPointerData htid;

	fpb_t_to_heaptid(t, &htid);
	return table_index_fetch_tuple_check(heap, &htid, SnapshotSelf, NULL);
}

/*
 * CREATE UNIQUE INDEX: after the build, read the leaf level in key order and
 * refuse the index if two entries of one key value point to tuples that
 * are both live.  Only keys that repeat cost heap fetches.  Run after the
 * load rather than inside it, so that serial and parallel builds share it,
 * and because a repeated key's older versions (deleted, not yet vacuumed)
 * are no conflict: live means visible to ourselves, which is what the
 * build's heap scan calls alive while it holds its ShareLock.  fpbtree_check
 * (verifying) runs it too, and reports a duplicate as corruption.
 */
void
fpb_unique_check_built(Relation heap, Relation index, bool verifying)
{
	bool		nnd = index->rd_index->indnullsnotdistinct;
	Oid			typid = index->rd_opcintype[0];
	const FpbCmp *cmp = fpb_index_cmp(index);
	Buffer		buf;
	FpbEntry   *ents = NULL;
	bool		have = false;
	uint64		pk = 0,
				pt = 0;
	FpbEntry	prev = fpb_mkkey(0, 0);	/* wide: the previous entry */
	FpbFullBuf	prevbuf;
	int			plive = -1;		/* previous entry live? -1: not asked */
	int64		steps = 0;
	int			unchecked = 0;

	{
		FpbEntry	minkey = fpb_mkkey(0, 0);

		buf = fpb_search(index, &minkey, BUFFER_LOCK_SHARE, NULL, heap);
	}
	for (;;)
	{
		Page		page = BufferGetPage(buf);
		FpbPageOpaque opq = FpbPageGetOpaque(page);
		BlockNumber blkno = BufferGetBlockNumber(buf);
		int			n;

		ents = ents ? repalloc(ents, sizeof(FpbEntry) * Max(opq->nentries, 1))
			: palloc(sizeof(FpbEntry) * Max(opq->nentries, 1));
		n = fpb_page_collect(page, ents, blkno);
		for (int i = 0; i < n; i++)
		{
			uint64		k = ents[i].k;
			uint64		t = ents[i].t;
			bool		isnull = (t & FPB_T_NULLBIT) != 0;
			uint64		klo,
						ck;

			/* keys that compare equal (the float zeros) share ck */
			if (cmp && cmp->multi)
			{
				klo = ck = 0;
				/* a row with a NULL key column is distinct */
				isnull = fpb_tuple_keys_null(cmp, ents[i].f);
			}
			else
				fpb_key_equal_range(typid, k, &klo, &ck);

			if (isnull && !nnd)
			{
				have = false;
				continue;
			}
			if (have && ((pt ^ t) & FPB_T_NULLBIT) == 0 &&
				(cmp ? !fpb_entry_keys_differ(cmp, &prev, &ents[i]) :
				 pk == ck))
			{
				if (plive < 0)
					plive = fpb_unique_live(heap, pt);
				if (fpb_unique_live(heap, t))
				{
					if (plive)
					{
						Datum		value = (Datum) 0;
						char	   *keydesc;
						FpbEntry	dup = ents[i];
						FpbFullBuf	dupbuf;
						Datum		mvals[INDEX_MAX_KEYS];
						bool		mnulls[INDEX_MAX_KEYS];

						/* the value outlives the page lock */
						fpb_entry_keep(cmp, &dup, &dupbuf);
						UnlockReleaseBuffer(buf);
						if (cmp && cmp->multi)
							fpb_tuple_deform(cmp->tupdesc, dup.f,
											 mvals, mnulls);
						else if (!isnull && cmp)
							value = PointerGetDatum(dup.f);
						else if (!isnull)
							value = fpb_decode(index_getprocinfo(index, 1,
																 FPB_DECODE_PROC),
											   k);
						keydesc = (cmp && cmp->multi) ?
							BuildIndexValueDescription(index, mvals, mnulls) :
							BuildIndexValueDescription(index, &value, &isnull);
						if (verifying)
							ereport(ERROR,
									(errcode(ERRCODE_INDEX_CORRUPTED),
									 errmsg("unique index \"%s\" holds two live entries of one key",
											RelationGetRelationName(index)),
									 keydesc ? errdetail("Key %s is duplicated.", keydesc) : 0));
						ereport(ERROR,
								(errcode(ERRCODE_UNIQUE_VIOLATION),
								 errmsg("could not create unique index \"%s\"",
										RelationGetRelationName(index)),
								 keydesc ? errdetail("Key %s is duplicated.", keydesc) :
								 errdetail("Duplicate keys exist."),
								 errtableconstraint(heap,
													RelationGetRelationName(index))));
					}
					plive = 1;
				}
				/* a dead entry leaves the live one (if any) as reference */
				continue;
			}
			have = true;
			pk = ck;
			pt = t;
			plive = -1;
			if (cmp)
			{
				prev = ents[i];
				/* the page's last entry is compared with the next page's */
				if (i == n - 1)
					fpb_entry_keep(cmp, &prev, &prevbuf);
			}
		}
		if (FpbPageIsRightmost(opq))
			break;
		if (++steps > (int64) RelationGetNumberOfBlocks(index))
			fpb_index_corrupt(index, blkno,
							  "The right-links of level 0 form a cycle.");
		buf = fpb_step_right(index, buf, BUFFER_LOCK_SHARE, &unchecked);
	}
	UnlockReleaseBuffer(buf);
	if (ents)
		pfree(ents);
}
