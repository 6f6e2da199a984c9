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
 * fpb_scan_keeps_pin in scan.c).  Pages are never recycled in this
 * version, and a split only moves entries to a newly added block, which is
 * above every block already visited; re-reading the relation size at the end
 * therefore catches every page.  Emptied pages stay in the tree.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "commands/vacuum.h"
#include "fpbtree.h"
#include "miscadmin.h"
#include "storage/indexfsm.h"
#include "utils/memutils.h"

static void
fpb_vacuum_page(Relation index, Buffer buf, IndexBulkDeleteResult *stats,
				IndexBulkDeleteCallback callback, void *callback_state,
				FpbEntry *ents)
{
	BlockNumber blkno = BufferGetBlockNumber(buf);
	Page		page = BufferGetPage(buf);
	FpbPageOpaque opq;
	int			n,
				kept = 0;

	if (PageIsNew(page))
		return;					/* extended but never initialised (crash) */
	fpb_page_check_sane(index, page, blkno);
	opq = FpbPageGetOpaque(page);
	if ((opq->flags & FPB_F_META) || !FpbPageIsLeaf(opq))
		return;

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
		Page		wpage = fpb_wal_register(state, buf, 0);

		if (!fpb_page_layout(wpage, ents, kept, 0))
			elog(ERROR, "fpbtree: block %u does not fit after deletion", blkno);
		fpb_wal_finish(state);
	}
	stats->num_index_tuples += kept;
}

static void
fpb_vacuum_scan(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
				IndexBulkDeleteCallback callback, void *callback_state)
{
	Relation	index = info->index;
	BlockNumber blkno = FPB_METAPAGE_BLKNO + 1;
	BlockNumber npages;
	MemoryContext cxt,
				old;
	FpbEntry   *ents = palloc(sizeof(FpbEntry) * BLCKSZ / 8);

	cxt = AllocSetContextCreate(CurrentMemoryContext, "fpbtree vacuum",
								ALLOCSET_DEFAULT_SIZES);
	stats->num_index_tuples = 0;
	for (;;)
	{
		npages = RelationGetNumberOfBlocks(index);
		if (blkno >= npages)
			break;
		for (; blkno < npages; blkno++)
		{
			Buffer		buf;

			vacuum_delay_point();
			buf = ReadBufferExtended(index, MAIN_FORKNUM, blkno, RBM_NORMAL,
									 info->strategy);
			if (callback)
				LockBufferForCleanup(buf);
			else
				LockBuffer(buf, BUFFER_LOCK_SHARE);
			old = MemoryContextSwitchTo(cxt);
			fpb_vacuum_page(index, buf, stats, callback, callback_state, ents);
			MemoryContextSwitchTo(old);
			MemoryContextReset(cxt);
			UnlockReleaseBuffer(buf);
		}
	}
	stats->num_pages = npages;
	stats->pages_free = 0;
	MemoryContextDelete(cxt);
	pfree(ents);
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

	/* no bulk delete ran (nothing to remove): count entries and pages */
	if (stats == NULL)
	{
		stats = palloc0(sizeof(IndexBulkDeleteResult));
		fpb_vacuum_scan(info, stats, NULL, NULL);
	}
	stats->estimated_count = false;
	return stats;
}
