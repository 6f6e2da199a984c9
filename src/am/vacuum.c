/*-------------------------------------------------------------------------
 *
 * vacuum.c
 *	  VACUUM: remove dead heap TIDs from leaf pages, report statistics.
 *
 * Leaf pages are visited in physical order under a cleanup lock, which
 * waits until no scan holds a pin on the page.  Scans that must not see a
 * TID removed and reused by the heap under them (index-only scans, non-MVCC
 * snapshots) keep their pin while they return the page's TIDs; plain MVCC
 * scans drop it, so an idle cursor does not hold VACUUM up (see
 * fpb_scan_keeps_pin in scan_step.c).
 *
 * A split moves entries to the right, into a new block at the end of the
 * relation (above every block visited so far: re-reading the relation size
 * at the end catches it) or into a reused deleted page, which may lie below
 * VACUUM's position.  Each VACUUM therefore takes a new cycle id in the
 * metapage, every split stamps the id it reads there on both halves (the
 * right half flagged as the end of the group unless its right sibling was
 * split in the same cycle), and a page found stamped with the current id
 * whose right-link leads below the block being visited sends VACUUM back
 * along the group (nbtree's btvacuumpage backtracking).
 *
 * A leaf left empty is deleted (pagedel.c) and listed in the free space
 * map once no transaction can still reach it: at the end of the walk that
 * deleted it if that is already so, else by a later VACUUM's walk.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/progress.h"
#include "commands/vacuum.h"
#include "fpbtree.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/indexfsm.h"
#include "storage/procarray.h"
#include "utils/memutils.h"

/*
 * The pages one walk deleted at or below its position, in the order it
 * deleted them (so by ascending safexid), to be listed as free at its end
 * (nbtree's _bt_pendingfsm_finalize does the same).  Bounded by work_mem:
 * pages beyond it wait for a later walk, as all did before.
 */
typedef struct FpbVacPendingPage
{
	BlockNumber blkno;
	FullTransactionId safexid;
} FpbVacPendingPage;

typedef struct FpbVacPending
{
	FpbVacPendingPage *pages;
	int			n;
	int			size;
	int			max;
} FpbVacPending;

/* What one page needs after its entries were vacuumed. */
typedef struct FpbVacPage
{
	bool		delete;			/* an empty leaf, or half-dead: delete it */
	BlockNumber backtrack;		/* right sibling split off below us, or
								 * InvalidBlockNumber */
} FpbVacPage;

/*
 * Remove the dead entries of the page in buf (locked) and report what it
 * needs.  orig is the block the scan has reached: a page split in this
 * cycle whose right half lies below it may have moved unvisited entries
 * there.
 */
static void
fpb_vacuum_page(Relation index, Buffer buf, IndexBulkDeleteResult *stats,
				IndexBulkDeleteCallback callback, void *callback_state,
				FpbEntry *ents, uint16 cycle, BlockNumber orig,
				FpbVacPage *res)
{
	BlockNumber blkno = BufferGetBlockNumber(buf);
	Page		page = BufferGetPage(buf);
	FpbPageOpaque opq;
	int			n,
				kept = 0;

	res->delete = false;
	res->backtrack = InvalidBlockNumber;
	if (PageIsNew(page))
	{
		if (blkno != orig)
			return;
		/*
		 * Extended but never initialised (crash or error): reusable.
		 * Counted as deleted too, as nbtree does: the deleted pages not
		 * free are the difference (fpb_vacuum_set_delpages).
		 */
		RecordFreeIndexPage(index, blkno);
		stats->pages_deleted++;
		stats->pages_free++;
		return;
	}
	fpb_page_check_sane(index, page, blkno);
	opq = FpbPageGetOpaque(page);
	if (opq->flags & FPB_F_META)
		return;
	if (FpbPageIsDeleted(opq))
	{
		if (blkno != orig)
			return;				/* counted at its own position */
		stats->pages_deleted++;
		if (fpb_page_recyclable(page))
		{
			RecordFreeIndexPage(index, blkno);
			stats->pages_free++;
		}
		return;
	}
	if (FpbPageIsHalfDead(opq))
	{
		/* a deletion left half-way (a leaf, or its level-1 parent) */
		res->delete = true;
		return;
	}
	if (!FpbPageIsLeaf(opq))
		return;
	/* a page reached by backtracking must belong to the split group */
	if (blkno != orig && opq->cycleid != cycle)
		return;
	if (opq->cycleid == cycle && !(opq->flags & FPB_F_SPLIT_END) &&
		opq->right != InvalidBlockNumber && opq->right < orig)
		res->backtrack = opq->right;

	n = fpb_page_collect(page, ents, blkno);
	if (callback)
	{
		for (int i = 0; i < n; i++)
		{
			ItemPointerData htid;

			fpb_t_to_heaptid(ents[i].t, &htid);
			if (callback(&htid, callback_state))
				stats->tuples_removed++;
			else
				ents[kept++] = ents[i];
		}
	}
	else
		kept = n;

	if (kept < n)
	{
		FpbWalState *state = fpb_wal_start(index);
		Page		wpage;

		/*
		 * A standby replays the removal under a cleanup lock, as we made it:
		 * its index-only scans that hold the page pinned with copies of the
		 * entries must be done before the heap's all-visible bits that
		 * follow the removal can be replayed (README, "WAL").
		 */
		wpage = fpb_wal_register(state, buf, FPB_WAL_CLEANUP);
		if (!fpb_page_layout(wpage, ents, kept, 0))
			elog(ERROR, "fpbtree: block %u does not fit after deletion", blkno);
		fpb_wal_finish(state);
	}
	stats->num_index_tuples += kept;
	res->delete = (kept == 0 && !FpbPageIsRightmost(opq));
}

/*
 * Start a VACUUM cycle: the next cycle id (never 0, which unstamped pages
 * carry) goes into the metapage, WAL-logged like every page change.
 */
static uint16
fpb_vacuum_start(Relation index)
{
	Buffer		buf = fpb_getmetabuf(index, BUFFER_LOCK_EXCLUSIVE);
	Page		page = BufferGetPage(buf);
	FpbMetaPageData *meta = FpbPageGetMeta(page);
	uint16		cycle;
	FpbWalState *state;
	Page		wpage;

	cycle = fpb_meta_cycleid(page) + 1;
	if (cycle == 0)
		cycle = 1;
	state = fpb_wal_start(index);
	wpage = fpb_wal_register(state, buf, 0);
	meta = FpbPageGetMeta(wpage);
	meta->vac_cycle = cycle;
	/* an index made before the field existed: cover it */
	((PageHeader) wpage)->pd_lower =
		Max(((PageHeader) wpage)->pd_lower,
			((char *) meta + sizeof(FpbMetaPageData)) - (char *) wpage);
	fpb_wal_finish(state);
	UnlockReleaseBuffer(buf);
	return cycle;
}

/* Remember a page the walk deleted (if there is room: see FpbVacPending). */
static void
fpb_vacuum_pend(FpbVacPending *pend, BlockNumber blkno,
				FullTransactionId safexid)
{
	if (pend->n >= pend->size)
	{
		if (pend->size >= pend->max)
			return;
		pend->size = Min(Max(64, pend->size * 2), pend->max);
		pend->pages = pend->pages ?
			repalloc(pend->pages, sizeof(FpbVacPendingPage) * pend->size) :
			palloc(sizeof(FpbVacPendingPage) * pend->size);
	}
	pend->pages[pend->n].blkno = blkno;
	pend->pages[pend->n].safexid = safexid;
	pend->n++;
}

/*
 * At the end of a walk: list as free the pages it deleted that no
 * transaction can reach any more.  Concurrent transactions that began
 * after a deletion and ended before now make that common in a busy
 * database; in a quiet one no transaction id has been assigned since, and
 * the pages wait for a later walk.
 */
static void
fpb_vacuum_pending_free(Relation index, FpbVacPending *pend,
						IndexBulkDeleteResult *stats)
{
	if (pend->n == 0)
		return;

	/*
	 * Recompute the horizons: the GlobalVis test answers from this
	 * backend's last computation, from before the walk, and would keep
	 * every page deleted since.
	 */
	(void) GetOldestNonRemovableTransactionId(NULL);
	for (int i = 0; i < pend->n; i++)
	{
		/* deleted in turn: the later ones are not safe either */
		if (!GlobalVisCheckRemovableFullXid(NULL, pend->pages[i].safexid))
			break;
		RecordFreeIndexPage(index, pend->pages[i].blkno);
		stats->pages_free++;
	}
}

/* Visit block blkno (the scan's position orig), delete it if it emptied. */
static void
fpb_vacuum_block(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
				 IndexBulkDeleteCallback callback, void *callback_state,
				 FpbEntry *ents, MemoryContext cxt, uint16 cycle,
				 FpbVacPending *pend, BlockNumber blkno, BlockNumber orig)
{
	Relation	index = info->index;
	int64		steps = 0;

	while (blkno != InvalidBlockNumber)
	{
		Buffer		buf;
		MemoryContext old;
		FpbVacPage	res;

		vacuum_delay_point();
		buf = ReadBufferExtended(index, MAIN_FORKNUM, blkno, RBM_NORMAL,
								 info->strategy);
		if (callback)
			LockBufferForCleanup(buf);
		else
			LockBuffer(buf, BUFFER_LOCK_SHARE);
		old = MemoryContextSwitchTo(cxt);
		fpb_vacuum_page(index, buf, stats, callback, callback_state, ents,
						cycle, orig, &res);
		MemoryContextSwitchTo(old);
		MemoryContextReset(cxt);
		UnlockReleaseBuffer(buf);

		/* only the page at the scan's position is deleted here */
		if (res.delete && blkno == orig)
		{
			BlockNumber parent;
			FullTransactionId safexid;

			if (fpb_pagedel(index, blkno, &parent, &safexid))
			{
				stats->pages_newly_deleted++;
				stats->pages_deleted++;
				fpb_vacuum_pend(pend, blkno, safexid);
			}

			/*
			 * A parent further right is counted, and listed if it can be,
			 * when the scan gets there.
			 */
			if (parent != InvalidBlockNumber)
			{
				stats->pages_newly_deleted++;
				if (parent < orig)
				{
					stats->pages_deleted++;
					fpb_vacuum_pend(pend, parent, safexid);
				}
			}
		}

		/*
		 * Back to a block below orig, split off this page in this cycle.
		 * Each backtracked page was split off the one before after it was
		 * read, and high keys rise along the way: the chain ends.
		 */
		if (res.backtrack != InvalidBlockNumber &&
			++steps > (int64) RelationGetNumberOfBlocks(index))
			fpb_index_corrupt(index, blkno,
							  "VACUUM's walk back to split pages does not end.");
		blkno = res.backtrack;
	}
}

/*
 * Remember in the metapage how many deleted pages the walk just ended
 * could not list as free (not yet recyclable), if that changed.
 */
static void
fpb_vacuum_set_delpages(Relation index, BlockNumber ndeleted)
{
	uint16		code = ndeleted >= FPB_DELPAGES_MANY - 1 ?
		FPB_DELPAGES_MANY : (uint16) (ndeleted + 1);
	Buffer		buf = fpb_getmetabuf(index, BUFFER_LOCK_SHARE);

	/* usually unchanged: splits reading the cycle id need not wait */
	if (fpb_meta_delpages(BufferGetPage(buf)) == code)
	{
		UnlockReleaseBuffer(buf);
		return;
	}
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	/* only VACUUM writes the field, and one VACUUM runs at a time */
	if (fpb_meta_delpages(BufferGetPage(buf)) != code)
	{
		FpbWalState *state = fpb_wal_start(index);
		Page		wpage = fpb_wal_register(state, buf, 0);

		FpbPageGetMeta(wpage)->vac_delpages = code;
		fpb_wal_finish(state);
	}
	UnlockReleaseBuffer(buf);
}

/*
 * Must a VACUUM that removed nothing walk the index?  Only to list as free
 * the pages earlier VACUUMs deleted, when more than 5% of the index waits
 * for that, as nbtree decides (_bt_vacuum_needs_cleanup); and once for an
 * index older than the count.  Otherwise an insert-only table's VACUUMs,
 * autovacuum's among them, would read every fpbtree index in full, only
 * to count its entries.
 */
static bool
fpb_vacuum_needs_cleanup(Relation index)
{
	Buffer		buf = fpb_getmetabuf(index, BUFFER_LOCK_SHARE);
	uint16		code = fpb_meta_delpages(BufferGetPage(buf));

	UnlockReleaseBuffer(buf);
	if (code == FPB_DELPAGES_UNKNOWN || code == FPB_DELPAGES_MANY)
		return true;
	return code - 1 > 0 &&
		code - 1 > RelationGetNumberOfBlocks(index) / 20;
}

static void
fpb_vacuum_scan(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
				IndexBulkDeleteCallback callback, void *callback_state)
{
	Relation	index = info->index;
	BlockNumber blkno = FPB_METAPAGE_BLKNO + 1;
	BlockNumber npages;
	MemoryContext cxt;
	/* a page's entries: a regular page holds fewer than a posting page */
	FpbEntry   *ents = palloc(sizeof(FpbEntry) * FPB_POSTING_CAP);
	uint16		cycle = fpb_vacuum_start(index);
	FpbVacPending pend = {0};

	cxt = AllocSetContextCreate(CurrentMemoryContext, "fpbtree vacuum",
								ALLOCSET_DEFAULT_SIZES);
	stats->num_index_tuples = 0;
	stats->pages_deleted = 0;
	stats->pages_free = 0;
	pend.max = (int) Min((Size) work_mem * 1024 / sizeof(FpbVacPendingPage),
						 MaxAllocSize / sizeof(FpbVacPendingPage));
	for (;;)
	{
		npages = RelationGetNumberOfBlocks(index);
		if (blkno >= npages)
			break;
		/* CREATE INDEX CONCURRENTLY's validation shows the walk's blocks */
		if (info->report_progress)
			pgstat_progress_update_param(PROGRESS_SCAN_BLOCKS_TOTAL, npages);
		for (; blkno < npages; blkno++)
		{
			fpb_vacuum_block(info, stats, callback, callback_state, ents, cxt,
							 cycle, &pend, blkno, blkno);
			if (info->report_progress)
				pgstat_progress_update_param(PROGRESS_SCAN_BLOCKS_DONE,
											 blkno + 1);
		}
	}
	stats->num_pages = npages;
	MemoryContextDelete(cxt);
	pfree(ents);
	fpb_vacuum_pending_free(index, &pend, stats);
	if (pend.pages)
		pfree(pend.pages);

	/*
	 * Make the pages just listed findable now (fpb_newbuf's search starts
	 * at the map's upper levels), as btvacuumscan does: not only in
	 * amvacuumcleanup, which a VACUUM cancelled after its bulk deletes
	 * never reaches, while the count written next tells the VACUUMs after
	 * it that no walk is needed.
	 */
	if (stats->pages_free > 0)
		IndexFreeSpaceMapVacuum(index);
	fpb_vacuum_set_delpages(index, stats->pages_deleted - stats->pages_free);
}

IndexBulkDeleteResult *
fpbbulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
			  IndexBulkDeleteCallback callback, void *callback_state)
{
	if (stats == NULL)
		stats = palloc0(sizeof(IndexBulkDeleteResult));
	fpb_vacuum_scan(info, stats, callback, callback_state);
	return stats;
}

IndexBulkDeleteResult *
fpbvacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	if (info->analyze_only)
		return stats;

	/*
	 * No bulk delete ran (nothing to remove): walk the index only when
	 * enough deleted pages wait to be listed as free.  The walk also
	 * counts entries and pages, and finishes deletions left half-way.
	 * Without it the index's statistics stay as they were, as with btree.
	 */
	if (stats == NULL)
	{
		if (!fpb_vacuum_needs_cleanup(info->index))
			return NULL;
		stats = palloc0(sizeof(IndexBulkDeleteResult));
		fpb_vacuum_scan(info, stats, NULL, NULL);
	}
	stats->estimated_count = false;
	return stats;
}
