/*-------------------------------------------------------------------------
 *
 * markpos.c
 *	  Mark and restore of a scan position (ammarkpos, amrestrpos), which a
 *	  merge join asks of its inner scan to read a run of equal keys again
 *	  (README "Mark and restore").
 *
 * A position is an item of a batch, the copy of one leaf's matching
 * entries (scan.c).  Marking notes the batch's generation and the item;
 * nothing is copied while the scan stays in that batch, and restoring
 * there only resets the item.  When the scan leaves the marked batch
 * (fpb_scan_release, before the next batch is read), the batch is saved
 * whole: its items (and their index-only values), its page's links, high
 * key, LSN and pin; the array-key interval it belongs to is noted when the
 * position is marked (the step to the next interval moves to it before it
 * leaves the batch).  Restoring then puts that
 * copy back as the current batch, so the scan goes on from the marked leaf
 * exactly as it went the first time: right (or left) by the links saved
 * with it, each later page checked against the saved high key, as after
 * any read of a leaf (splits and deletions since are handled by the steps
 * as they always are).  The pin moves with the batch, so a scan that keeps
 * pins (index-only, non-MVCC) keeps VACUUM from removing the marked TIDs.
 * Entries the scan reported dead while in the marked batch were marked on
 * the page when it left; the restored batch starts with no pending marks.
 * The leaf prefetcher is stopped on such a restore (its place in the jump
 * pointers is past the restored leaf); the heap prefetcher restarts.
 *
 * Parallel scans are never marked: the planner puts no merge join's inner
 * side under a parallel-aware scan, and a run claimed once may not be
 * read again.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relscan.h"
#include "scan.h"
#include "storage/bufmgr.h"

typedef struct FpbScanMark
{
	bool		valid;			/* a position is marked */
	bool		saved;			/* the scan left the marked batch: below */
	uint64		gen;			/* generation of the marked batch */
	int			cur;			/* the marked item */
	int			ival;			/* the array-key interval it belongs to */

	/* the marked batch, once the scan left it */
	FpbScanItem *items;
	int			nitems;
	int			maxitems;
	char	   *itemvals;		/* copy of the batch's value buffer */
	Size		itemvals_used;	/* the bytes of it in use */
	bool		itemvals_page;	/* it holds a copy of the leaf's slots */
	bool		filter_late;	/* the items' filters are unchecked */
	BlockNumber curblk;
	BlockNumber leftblk;
	BlockNumber rightblk;
	uint64		curhik;
	uint64		curhit;
	const char *curhif;			/* in curhikbuf, or NULL */
	FpbFullBuf	curhikbuf;
	bool		curgone;
	bool		more_left;
	bool		more_right;
	bool		moved;
	XLogRecPtr	curlsn;
	Buffer		pinbuf;
} FpbScanMark;

/* A pointer into the batch's value buffer from, moved into to */
static inline const char *
fpb_mark_rebase(const char *p, const char *from, const char *to)
{
	return p == NULL ? NULL : to + (p - from);
}

/*
 * Copy the batch from the scan into the mark (save) or back.  The items
 * arrays must be large enough; pointers into the value buffer and the high
 * key's buffer are rebased into the copies, and the pin moves with the
 * batch.
 */
#define FPB_MARK_COPY(field) \
	do { \
		if (save) \
			m->field = so->field; \
		else \
			so->field = m->field; \
	} while (0)

static void
fpb_mark_copy(FpbScanOpaque so, FpbScanMark *m, bool save)
{
	FpbScanItem *items = save ? m->items : so->items;
	char	   *vals = save ? m->itemvals : so->itemvals;
	const char *fromvals = save ? so->itemvals : m->itemvals;
	FpbFullBuf *hikbuf = save ? &m->curhikbuf : so->curhikbuf;
	const FpbFullBuf *fromhikbuf = save ? so->curhikbuf : &m->curhikbuf;
	const char *fromhif = save ? so->curhif : m->curhif;
	const char *hif = NULL;

	memcpy(items, save ? so->items : m->items,
		   sizeof(FpbScanItem) * (save ? so->nitems : m->nitems));
	FPB_MARK_COPY(nitems);
	if (fromvals != NULL)
	{
		Assert(vals != NULL);
		FPB_MARK_COPY(itemvals_used);
		FPB_MARK_COPY(itemvals_page);
		FPB_MARK_COPY(filter_late);
		memcpy(vals, fromvals, save ? so->itemvals_used : m->itemvals_used);
		for (int i = 0; i < (save ? m->nitems : so->nitems); i++)
			items[i].f = fpb_mark_rebase(items[i].f, fromvals, vals);
	}
	FPB_MARK_COPY(curblk);
	FPB_MARK_COPY(leftblk);
	FPB_MARK_COPY(rightblk);
	FPB_MARK_COPY(curhik);
	FPB_MARK_COPY(curhit);
	FPB_MARK_COPY(curgone);
	if (fromhif != NULL)
	{
		/* the scan's buffer was made when the marked page was read */
		Assert(hikbuf != NULL && fromhikbuf != NULL);
		memcpy(hikbuf, fromhikbuf, sizeof(FpbFullBuf));
		hif = fpb_mark_rebase(fromhif, fromhikbuf->data, hikbuf->data);
	}
	if (save)
		m->curhif = hif;
	else
		so->curhif = hif;
	FPB_MARK_COPY(more_left);
	FPB_MARK_COPY(more_right);
	FPB_MARK_COPY(moved);
	FPB_MARK_COPY(curlsn);
	FPB_MARK_COPY(pinbuf);
	if (save)
		so->pinbuf = InvalidBuffer;
	else
		m->pinbuf = InvalidBuffer;
}

/*
 * The scan is about to leave its batch: save it if it is the marked one.
 * The batch's pin passes to the copy.
 */
void
fpb_mark_leave(FpbScanOpaque so)
{
	FpbScanMark *m = so->mark;

	if (m == NULL || !m->valid || m->saved || m->gen != so->batchgen)
		return;
	if (m->maxitems < so->nitems)
	{
		m->maxitems = Max(so->nitems, so->maxitems);
		m->items = m->items ?
			repalloc(m->items, sizeof(FpbScanItem) * m->maxitems) :
			MemoryContextAlloc(so->scancxt, sizeof(FpbScanItem) * m->maxitems);
	}
	if (so->itemvals != NULL && m->itemvals == NULL)
		m->itemvals = MemoryContextAlloc(so->scancxt, FPB_ITEMVALS_SIZE);
	fpb_mark_copy(so, m, true);
	m->saved = true;
}

/* The end of the scan: forget the mark, free its memory. */
void
fpb_mark_free(FpbScanOpaque so)
{
	FpbScanMark *m = so->mark;

	if (m == NULL)
		return;
	fpb_mark_forget(so);
	if (m->items)
		pfree(m->items);
	if (m->itemvals)
		pfree(m->itemvals);
	pfree(m);
	so->mark = NULL;
}

/* Forget the mark (rescan, end of scan): drop the saved batch's pin. */
void
fpb_mark_forget(FpbScanOpaque so)
{
	FpbScanMark *m = so->mark;

	if (m == NULL)
		return;
	if (m->saved && BufferIsValid(m->pinbuf))
		ReleaseBuffer(m->pinbuf);
	m->pinbuf = InvalidBuffer;
	m->valid = m->saved = false;
}

void
fpbmarkpos(IndexScanDesc scan)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;

	if (scan->parallel_scan != NULL)
		elog(ERROR, "fpbtree: a parallel scan cannot mark its position");
	if (so->mark == NULL)
		so->mark = MemoryContextAllocZero(so->scancxt, sizeof(FpbScanMark));
	fpb_mark_forget(so);
	/* no current item (not started, or past either end): nothing to mark */
	if (!so->started || so->cur < 0 || so->cur >= so->nitems)
		return;
	so->mark->valid = true;
	so->mark->gen = so->batchgen;
	so->mark->cur = so->cur;
	/* now: the step to the next interval sets it before leaving the batch */
	so->mark->ival = so->ival;
}

void
fpbrestrpos(IndexScanDesc scan)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	FpbScanMark *m = so->mark;

	/* the scan goes back: it may pass deleted pages again (fpb_getbuf_right) */
	so->unchecked = 0;
	/* and its position is the mark's, not that of the pages after it */
	so->behind = false;
	so->posvalid = false;
	if (m == NULL || !m->valid)
	{
		/* nothing marked: start over, as nbtree does */
		fpb_scan_kill_items(scan);
		fpb_scan_release(so);
		fpb_pf_stop(&so->pf);
		so->started = false;
		return;
	}
	if (!m->saved)
	{
		/* still in the marked batch */
		Assert(m->gen == so->batchgen);
		so->cur = m->cur;
		return;
	}

	/* put the saved batch back; the mark then names it, unsaved */
	fpb_scan_kill_items(scan);
	fpb_scan_release(so);
	fpb_pf_stop(&so->pf);
	if (so->maxitems < m->nitems)
	{
		so->maxitems = m->nitems;
		so->items = repalloc(so->items, sizeof(FpbScanItem) * so->maxitems);
	}
	fpb_mark_copy(so, m, false);
	if (so->nivals > 0 && m->ival != so->ival)
		fpb_scan_set_interval(so, m->ival);
	so->cur = m->cur;
	so->batchgen++;
	so->hp.batch++;
	m->gen = so->batchgen;
	m->saved = false;
}
