/*-------------------------------------------------------------------------
 *
 * dead.c
 *	  Leaf entries marked dead by index scans (kill_prior_tuple), skipped by
 *	  later scans and removed by an inserter before it splits the page;
 *	  bottom-up deletion of old row versions; fpbtree_dead_entries().
 *
 * The mark is a bit of the entry's on-page TID (FPB_TID_DEADFLAG), set as
 * a hint under a share lock like nbtree's LP_DEAD.  A scan only marks an
 * entry the heap reported dead to every snapshot, and only on the page it
 * read the entry from, if that page cannot have lost the entry and had its
 * TID reused since (pin kept, or page LSN unchanged).  An insert that would
 * split a leaf may also ask the heap directly which duplicate-key entries
 * are dead (bottom-up deletion: with the executor's hint that the key did
 * not change, or on a page dominated by runs of equal keys).  See README.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtxlog.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "access/transam.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "catalog/index.h"
#include "common/hashfn.h"
#include "compat.h"
#include "fpbtree.h"
#include "miscadmin.h"
#include "scan.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/varlena.h"

PG_FUNCTION_INFO_V1(fpbtree_dead_entries);

/*
 * What removing one leaf entry frees, as the table AM counts toward a
 * bottom-up pass's target: its key and its TID.
 */
#define FPB_ENTRY_FREESPACE ((int) (sizeof(uint64) + sizeof(ItemPointerData)))

/*
 * amgettuple was told the entry it returned last is dead to everyone:
 * remember its position in the batch.
 */
void
fpb_scan_remember_dead(IndexScanDesc scan)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;

	if (so->cur < 0 || so->cur >= so->nitems)
		return;
	if (so->killed == NULL || so->maxkilled < so->maxitems)
	{
		/* it grows with the batch; positions already noted are kept */
		so->maxkilled = so->maxitems;
		so->killed = so->killed ?
			repalloc(so->killed, sizeof(int) * so->maxkilled) :
			MemoryContextAlloc(so->scancxt, sizeof(int) * so->maxkilled);
	}
	/* a cursor going back and forth may report one twice: harmless */
	if (so->nkilled < so->maxkilled)
		so->killed[so->nkilled++] = so->cur;
}

/* Does a wal_consistency_checking value check generic records? */
static bool
fpb_checks_generic(const char *value)
{
	char	   *copy = pstrdup(value);
	List	   *names;
	ListCell   *lc;
	bool		found = false;

	/* a value the server took is a sound list; otherwise say so */
	if (!SplitIdentifierString(copy, ',', &names))
		found = true;
	else
		foreach(lc, names)
		{
			const char *name = (const char *) lfirst(lc);

			if (pg_strcasecmp(name, "all") == 0 ||
				pg_strcasecmp(name, "generic") == 0)
				found = true;
		}
	list_free(names);
	pfree(copy);
	return found;
}

/*
 * wal_consistency_checking compares every replayed page with the primary's
 * image byte for byte, and generic WAL has no mask for a hint inside the
 * node lines: marks set after a page's last record would show up as
 * differences, and recovery stops at the first.  Marks are only an
 * optimisation, so set none then: neither under this session's value nor
 * under the server's (postgresql.conf), which the sessions that write the
 * next records have unless they changed it.
 */
static bool
fpb_marks_allowed(void)
{
	static char *reset_seen = NULL;
	static bool reset_checks = false;
	const char *reset;

	if (wal_consistency_checking != NULL &&
		wal_consistency_checking[RM_GENERIC_ID])
		return false;
	reset = GetConfigOptionResetString("wal_consistency_checking");
	if (reset == NULL || reset[0] == '\0')
		return true;
	/* parse a value once */
	if (reset_seen == NULL || strcmp(reset, reset_seen) != 0)
	{
		reset_checks = fpb_checks_generic(reset);
		if (reset_seen != NULL)
			pfree(reset_seen);
		reset_seen = MemoryContextStrdup(TopMemoryContext, reset);
	}
	return !reset_checks;
}

/*
 * The scan is about to leave the batch's page (or end, or rescan): mark the
 * entries reported dead on it.  With the pin kept since the read, VACUUM
 * cannot have removed an entry and let the heap reuse its TID, so the entry
 * with the same (k, t) is the one we read (a split may have moved it right:
 * then it is not found here and stays unmarked).  Without the pin, only if
 * the page's LSN is unchanged, i.e. nothing was logged for it since, as
 * _bt_killitems.
 */
void
fpb_scan_kill_items(IndexScanDesc scan)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	Relation	index = scan->indexRelation;
	int			nkilled = so->nkilled;
	BlockNumber blkno = so->curblk;
	Buffer		buf;
	Page		page;
	bool		pinned;
	bool		marked = false;

	so->nkilled = 0;
	if (nkilled == 0 || !BlockNumberIsValid(blkno) || !fpb_marks_allowed())
		return;
	pinned = BufferIsValid(so->pinbuf);
	if (pinned)
	{
		Assert(BufferGetBlockNumber(so->pinbuf) == blkno);
		buf = so->pinbuf;
		LockBuffer(buf, BUFFER_LOCK_SHARE);
	}
	else
	{
		buf = fpb_getbuf(index, blkno, BUFFER_LOCK_SHARE);
		if (BufferGetLSNAtomic(buf) != so->curlsn)
		{
			UnlockReleaseBuffer(buf);
			return;
		}
	}
	page = BufferGetPage(buf);
	/* a deleted page has no entries; one reused since has other ones */
	if (FpbPageIsLeaf(FpbPageGetOpaque(page)) &&
		!FpbPageIsIgnore(FpbPageGetOpaque(page)))
	{
		for (int i = 0; i < nkilled; i++)
		{
			FpbScanItem *item;

			if (so->killed[i] < 0 || so->killed[i] >= so->nitems)
				continue;
			item = &so->items[so->killed[i]];
			if (fpb_page_mark_dead(page, item->k, item->t, blkno))
				marked = true;
		}
	}
	if (marked)
		MarkBufferDirtyHint(buf, true);
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	if (!pinned)
		ReleaseBuffer(buf);
}

/*
 * The uniqueness check found the heap tuple of entry (k, t), with klo <= k
 * <= khi, dead to everyone (as _bt_check_unique does): mark the entry on
 * the page in buf, which the check holds locked since it read the entry.
 * Only the two float zeros make klo and khi differ.
 */
void
fpb_unique_mark_dead(Buffer buf, uint64 klo, uint64 khi, uint64 t)
{
	Page		page = BufferGetPage(buf);
	BlockNumber blkno = BufferGetBlockNumber(buf);

	if (!fpb_marks_allowed())
		return;
	if (fpb_page_mark_dead(page, klo, t, blkno) ||
		(khi != klo && fpb_page_mark_dead(page, khi, t, blkno)))
		MarkBufferDirtyHint(buf, true);
}

/*
 * The latest xid among the heap tuples of the entries about to be removed,
 * for the standby's recovery conflict (as nbtree's simple deletion gets it:
 * the entries are known deletable, the heap only reports the horizon).
 */
static TransactionId
fpb_dead_horizon(Relation index, Relation heap, BlockNumber blkno,
				 const FpbEntry *ents, const bool *dead, int n, int ndead)
{
	TM_IndexDeleteOp delstate;
	int			j = 0;

	delstate.irel = index;
	delstate.iblknum = blkno;
	delstate.bottomup = false;
	delstate.bottomupfreespace = 0;
	delstate.ndeltids = 0;
	delstate.deltids = palloc(sizeof(TM_IndexDelete) * ndead);
	delstate.status = palloc(sizeof(TM_IndexStatus) * ndead);
	for (int i = 0; i < n; i++)
	{
		if (!dead[i])
			continue;
		fpb_t_to_heaptid(ents[i].t, &delstate.deltids[j].tid);
		delstate.deltids[j].id = j;
		delstate.status[j].idxoffnum = (OffsetNumber) (i + 1);
		delstate.status[j].knowndeletable = true;
		delstate.status[j].promising = false;
		delstate.status[j].freespace = 0;
		j++;
	}
	delstate.ndeltids = j;
	return table_index_delete_tuples(heap, &delstate);
}

/*
 * Before a standby replays the removal, cancel its queries whose snapshots
 * could still see one of the removed entries' tuples.  nbtree's
 * XLOG_BTREE_REUSE_PAGE record does exactly that on replay and nothing
 * else (it reads no page), so it serves here as a public conflict record.
 */
static void
fpb_log_dead_conflict(Relation index, BlockNumber blkno, TransactionId xid)
{
	FullTransactionId next = ReadNextFullTransactionId();
	uint32		epoch = EpochFromFullTransactionId(next);

	/* xid is in the past: in next's epoch, or the one before if larger */
	if (xid > XidFromFullTransactionId(next))
		epoch--;
	FPB_LOG_REUSE_PAGE(index, blkno,
					   FullTransactionIdFromEpochAndXid(epoch, xid));
}

/*
 * Rewrite the exclusively locked leaf page in buf without the entries of
 * ents (all n of the page's, in order) flagged in gone.  xid, if valid, is
 * the latest xid among the removed entries' heap tuples: a standby's
 * queries that could still see one are cancelled first.
 */
static void
fpb_remove_entries(Relation index, Buffer buf, FpbEntry *ents,
				   const bool *gone, int n, TransactionId xid)
{
	BlockNumber blkno = BufferGetBlockNumber(buf);
	int			kept = 0;
	FpbWalState *state;
	Page		wpage;

	if (TransactionIdIsValid(xid) &&
		XLogStandbyInfoActive() && RelationNeedsWAL(index))
		fpb_log_dead_conflict(index, blkno, xid);

	for (int i = 0; i < n; i++)
		if (!gone[i])
			ents[kept++] = ents[i];
	state = fpb_wal_start(index);
	wpage = fpb_wal_register(state, buf, 0);
	if (!fpb_page_layout(wpage, ents, kept, 0))
		elog(ERROR, "fpbtree: block %u does not fit after removing dead entries",
			 blkno);
	fpb_wal_finish(state);
}

/*
 * The exclusively locked leaf page in buf has no room for an insert without
 * splitting a node or the page: remove its entries marked dead, and re-lay
 * the page out.  Returns true if any were removed (the caller retries the
 * insert).  Only an exclusive lock is needed, as for nbtree's simple
 * deletion: the entries are dead to every snapshot, so no scan would return
 * them, and their TIDs cannot be reused before VACUUM has passed this page
 * under a cleanup lock, which waits for the pins of scans holding them.  (A
 * hot standby replays only VACUUM's rewrites under one, as it does nbtree's
 * records: README, "Concurrency".)
 */
bool
fpb_remove_dead(Relation index, Relation heap, Buffer buf)
{
	BlockNumber blkno = BufferGetBlockNumber(buf);
	Page		page = BufferGetPage(buf);
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	FpbEntry   *ents;
	bool	   *dead;
	int			n,
				ndead = 0;
	TransactionId xid = InvalidTransactionId;

	if (!FpbPageIsLeaf(opq) || opq->nentries == 0 ||
		fpb_page_count_dead(page, blkno) == 0)
		return false;
	ents = palloc(sizeof(FpbEntry) * opq->nentries);
	dead = palloc(sizeof(bool) * opq->nentries);
	n = fpb_page_collect_marks(page, ents, dead, blkno);
	for (int i = 0; i < n; i++)
		ndead += dead[i];
	if (ndead == 0)
	{
		pfree(ents);
		pfree(dead);
		return false;
	}

	/* the heap is asked for the horizon only when a standby needs it */
	if (XLogStandbyInfoActive() && RelationNeedsWAL(index))
		xid = fpb_dead_horizon(index, heap, blkno, ents, dead, n, ndead);
	fpb_remove_entries(index, buf, ents, dead, n, xid);
	pfree(ents);
	pfree(dead);
	return true;
}

/*
 * Bottom-up deletion (nbtree's, after _bt_bottomupdel_pass): the leaf in
 * buf, exclusively locked, must split for an insert that the executor said
 * is a new version of a row whose key did not change, and fpb_remove_dead
 * has found no marks to remove.  Such updates leave several versions of
 * one key on the page, the older ones soon dead though no scan has marked
 * them.  Offer every entry to the table AM, the duplicates of a key as
 * promising, and let it find entries whose whole HOT chain is dead to
 * every snapshot until about an eighth of the page's entries would be
 * freed; remove those as fpb_remove_dead does.  Returns true if any were
 * removed.  The table AM decides what is deletable (nothing is passed as
 * known deletable) and bounds its own work (a few heap blocks).
 */
bool
fpb_bottomup_delete(Relation index, Relation heap, Buffer buf)
{
	BlockNumber blkno = BufferGetBlockNumber(buf);
	Page		page = BufferGetPage(buf);
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	FpbEntry   *ents;
	bool	   *gone;
	int			n,
				npromising = 0,
				ngone = 0;
	TM_IndexDeleteOp delstate;
	TransactionId xid;

	if (!FpbPageIsLeaf(opq) || opq->nentries < 2)
		return false;
	ents = palloc(sizeof(FpbEntry) * opq->nentries);
	n = fpb_page_collect(page, ents, blkno);

	delstate.irel = index;
	delstate.iblknum = blkno;
	delstate.bottomup = true;
	delstate.bottomupfreespace = Max(1, n / 8) * FPB_ENTRY_FREESPACE;
	delstate.ndeltids = n;
	delstate.deltids = palloc(sizeof(TM_IndexDelete) * n);
	delstate.status = palloc(sizeof(TM_IndexStatus) * n);
	for (int i = 0; i < n; i++)
	{
		/* entries are in (k, t) order: the versions of a key are adjacent */
		bool		dup = (i > 0 && ents[i - 1].k == ents[i].k) ||
			(i + 1 < n && ents[i + 1].k == ents[i].k);

		fpb_t_to_heaptid(ents[i].t, &delstate.deltids[i].tid);
		delstate.deltids[i].id = i;
		delstate.status[i].idxoffnum = (OffsetNumber) (i + 1);
		delstate.status[i].knowndeletable = false;
		delstate.status[i].promising = dup;
		delstate.status[i].freespace = FPB_ENTRY_FREESPACE;
		npromising += dup;
	}

	/* no key repeats: no sign of old versions, not worth the heap reads */
	if (npromising == 0)
	{
		pfree(delstate.deltids);
		pfree(delstate.status);
		pfree(ents);
		return false;
	}

	xid = table_index_delete_tuples(heap, &delstate);

	gone = palloc0(sizeof(bool) * n);
	for (int i = 0; i < delstate.ndeltids; i++)
	{
		TM_IndexStatus *st = &delstate.status[delstate.deltids[i].id];

		if (st->knowndeletable)
		{
			Assert(st->idxoffnum >= 1 && st->idxoffnum <= n);
			if (!gone[st->idxoffnum - 1])
				ngone++;
			gone[st->idxoffnum - 1] = true;
		}
	}
	if (ngone > 0)
		fpb_remove_entries(index, buf, ents, gone, n, xid);
	pfree(gone);
	pfree(delstate.deltids);
	pfree(delstate.status);
	pfree(ents);
	return ngone > 0;
}

/*
 * The duplicates pass (fpb_dupes_delete) runs only on a page whose entries
 * average at least FPB_DUPES_MIN_RUN per key, and asks the heap about
 * FPB_DUPES_CHUNK heap blocks at a time.
 */
#define FPB_DUPES_MIN_RUN	4
#define FPB_DUPES_CHUNK		16

typedef struct FpbDupTid
{
	ItemPointerData tid;
	int			idx;			/* the entry's position in the page's order */
} FpbDupTid;

static int
fpb_duptid_cmp(const void *a, const void *b)
{
	return ItemPointerCompare((ItemPointer) &((const FpbDupTid *) a)->tid,
							  (ItemPointer) &((const FpbDupTid *) b)->tid);
}

/*
 * Bottom-up deletion without the executor's hint: the leaf in buf,
 * exclusively locked, must split, and no marked entry or hinted pass made
 * room.  In a low-cardinality index whose key the updates change (a
 * balance, a status), each update adds its new version under another key,
 * so the hint is never given, yet the page's old versions die as fast as
 * the rows are updated again.  A page dominated by runs of equal keys is
 * the sign of such an index (a unique or random-key index has none, and
 * pays nothing here); the heap is asked about the entries of those runs.
 * With the hint (unchanged), the pass also follows a hinted pass that
 * removed nothing, on any page where some key repeats: the table AM's
 * bottom-up mode gives up at its first fruitless heap block, which may
 * hold only live versions, and the page would split for nothing.
 *
 * Their heap blocks are scattered (rows of one key were updated at
 * unrelated times), so the table AM's bottom-up mode, which visits a few
 * blocks and gives up at the first that frees nothing, would free a few
 * entries per pass.  Instead the blocks are asked about in chunks of
 * FPB_DUPES_CHUNK, each chunk a stride through the whole block range (so
 * its yield is the page's), starting at a chunk chosen by seed (the new
 * entry's tiebreaker) so that successive passes do not ask first about the
 * survivors of the previous one.  The table AM's simple mode tests each
 * TID's whole HOT chain against the vacuum horizon, exactly as in the
 * bottom-up mode.  The pass ends once a quarter of the page is freed, or
 * when fewer than an eighth of the entries asked about so far were dead
 * (mostly live rows: the split is the right answer, and further heap
 * reads would be wasted).  Returns true if any entry was removed.
 */
bool
fpb_dupes_delete(Relation index, Relation heap, Buffer buf, uint64 seed,
				 bool unchanged)
{
	BlockNumber blkno = BufferGetBlockNumber(buf);
	Page		page = BufferGetPage(buf);
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	const FpbCmp *cmp = fpb_index_cmp(index);
	FpbEntry   *ents;
	bool	   *same;
	FpbDupTid  *cand;
	int		   *group;
	bool	   *gone;
	int			n,
				nkeys = 0,
				ncand = 0,
				ngroups = 0,
				nchunks,
				start,
				checked = 0,
				ngone = 0;
	TM_IndexDeleteOp delstate;
	TransactionId xid = InvalidTransactionId;

	if (!FpbPageIsLeaf(opq) || opq->nentries < 2 * FPB_DUPES_MIN_RUN)
		return false;
	ents = palloc(sizeof(FpbEntry) * opq->nentries);
	n = fpb_page_collect(page, ents, blkno);
	/* same[i]: entry i has entry i - 1's key (a wide key's full value) */
	same = palloc(sizeof(bool) * (n + 1));
	for (int i = 0; i < n; i++)
	{
		same[i] = i > 0 &&
			!fpb_entry_keys_differ(cmp, &ents[i - 1], &ents[i]);
		nkeys += !same[i];
	}
	same[n] = false;
	if (nkeys == n ||
		(!unchanged && (int64) nkeys * FPB_DUPES_MIN_RUN > n))
	{
		pfree(same);
		pfree(ents);
		return false;
	}

	/* the entries of runs, in heap TID order, grouped by heap block */
	cand = palloc(sizeof(FpbDupTid) * n);
	for (int i = 0; i < n; i++)
	{
		if (same[i] || same[i + 1])
		{
			fpb_t_to_heaptid(ents[i].t, &cand[ncand].tid);
			cand[ncand].idx = i;
			ncand++;
		}
	}
	qsort(cand, ncand, sizeof(FpbDupTid), fpb_duptid_cmp);
	group = palloc(sizeof(int) * (ncand + 1));
	for (int i = 0; i < ncand; i++)
		if (i == 0 || ItemPointerGetBlockNumber(&cand[i - 1].tid) !=
			ItemPointerGetBlockNumber(&cand[i].tid))
			group[ngroups++] = i;
	group[ngroups] = ncand;

	nchunks = (ngroups + FPB_DUPES_CHUNK - 1) / FPB_DUPES_CHUNK;
	start = (int) (murmurhash32((uint32) (seed ^ (seed >> 32))) % nchunks);
	delstate.irel = index;
	delstate.iblknum = blkno;
	delstate.bottomup = false;
	delstate.bottomupfreespace = 0;
	delstate.deltids = palloc(sizeof(TM_IndexDelete) * ncand);
	delstate.status = palloc(sizeof(TM_IndexStatus) * ncand);
	gone = palloc0(sizeof(bool) * n);
	for (int c = 0; c < nchunks; c++)
	{
		int			chunk = (start + c) % nchunks;
		int			m = 0;
		TransactionId cxid;

		for (int g = chunk; g < ngroups; g += nchunks)
		{
			for (int i = group[g]; i < group[g + 1]; i++)
			{
				delstate.deltids[m].tid = cand[i].tid;
				delstate.deltids[m].id = m;
				delstate.status[m].idxoffnum = (OffsetNumber) (cand[i].idx + 1);
				delstate.status[m].knowndeletable = false;
				delstate.status[m].promising = false;
				delstate.status[m].freespace = 0;
				m++;
			}
		}
		Assert(m > 0);
		delstate.ndeltids = m;
		cxid = table_index_delete_tuples(heap, &delstate);
		if (TransactionIdIsValid(cxid) &&
			(!TransactionIdIsValid(xid) || TransactionIdFollows(cxid, xid)))
			xid = cxid;
		/* simple mode asks about every TID; status is indexed by id */
		for (int j = 0; j < m; j++)
		{
			TM_IndexStatus *st = &delstate.status[j];

			if (st->knowndeletable && !gone[st->idxoffnum - 1])
			{
				gone[st->idxoffnum - 1] = true;
				ngone++;
			}
		}
		checked += m;
		if (ngone >= n / 4 || ngone * 8 < checked)
			break;
	}

	if (ngone > 0)
		fpb_remove_entries(index, buf, ents, gone, n, xid);
	pfree(gone);
	pfree(delstate.deltids);
	pfree(delstate.status);
	pfree(group);
	pfree(cand);
	pfree(same);
	pfree(ents);
	return ngone > 0;
}

/*
 * fpbtree_dead_entries(index regclass) -> bigint: the leaf entries marked
 * dead.  Reads each block under a share lock, like fpbtree_stats.
 */
Datum
fpbtree_dead_entries(PG_FUNCTION_ARGS)
{
	Oid			indrelid = PG_GETARG_OID(0);
	Relation	index;
	BlockNumber nblocks;
	int64		ndead = 0;

	index = fpb_open_for_stats(indrelid);
	nblocks = RelationGetNumberOfBlocks(index);
	for (BlockNumber blkno = FPB_METAPAGE_BLKNO + 1; blkno < nblocks; blkno++)
	{
		Buffer		buf;
		Page		page;

		CHECK_FOR_INTERRUPTS();
		buf = ReadBuffer(index, blkno);
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		/* an all-zero page can follow a crash during a split */
		if (!PageIsNew(page))
		{
			fpb_page_check_sane(index, page, blkno);
			if (FpbPageIsLeaf(FpbPageGetOpaque(page)))
				ndead += fpb_page_count_dead(page, blkno);
		}
		UnlockReleaseBuffer(buf);
	}
	index_close(index, AccessShareLock);
	PG_RETURN_INT64(ndead);
}
