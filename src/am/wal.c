/*-------------------------------------------------------------------------
 *
 * wal.c
 *	  WAL-logged page changes, written as generic WAL records.
 *
 * Every change to an fpbtree page is made on a private copy of the page and
 * applied at once, like GenericXLog: fpb_wal_start(), fpb_wal_register() for
 * up to FPB_WAL_MAX_PAGES buffers (each returns the copy to modify), then
 * fpb_wal_finish() or fpb_wal_abort().  An error before the finish changes
 * nothing.
 *
 * The records are ordinary RM_GENERIC_ID records, replayed by PostgreSQL's
 * own generic redo, so a standby or a crash recovery needs nothing of
 * fpbtree.  What differs from GenericXLogFinish is how the delta is found:
 * GenericXLog compares the two page images byte by byte, which cost about
 * 60% of an insert's CPU time.  Our pages are made of 64-byte lines, and a
 * change touches a few of them, so we compare line-sized chunks with
 * memcmp and log each run of changed chunks whole.  The delta is a few
 * dozen bytes larger per record and several times cheaper to compute.
 *
 * The record format (a series of fragments: uint16 offset, uint16 length,
 * the bytes) is what generic redo applies; it is private to PostgreSQL, so
 * compat.h enables this code only for the versions whose format we have
 * checked, and falls back to GenericXLog itself elsewhere.  Redo zeroes the
 * "hole" between pd_lower and pd_upper after applying a delta; so do we.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/generic_xlog.h"
#include "access/nbtxlog.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "compat.h"
#include "fpbtree.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

/*
 * Apply img to the cleanup-locked page in buf and log it as nbtree's
 * XLOG_BTREE_VACUUM record with a full image and no items: its redo takes
 * a cleanup lock on the block and restores the image, nothing else, so a
 * hot standby's scans that hold the page pinned are waited for or
 * cancelled before the change (README, "WAL": changes replayed under a
 * cleanup lock).  The hole is zeroed, as the image's restore leaves it.
 */
static void
fpb_wal_cleanup_record(Buffer buf, const char *img)
{
	xl_btree_vacuum xlrec;
	PageHeader	ih = (PageHeader) img;
	char	   *cur = BufferGetPage(buf);
	XLogRecPtr	lsn;

	/* a bad header on the copy must not become a PANIC below */
	if (ih->pd_lower < SizeOfPageHeaderData || ih->pd_lower > ih->pd_upper ||
		ih->pd_upper > BLCKSZ)
		elog(ERROR, "fpbtree: page of block %u has pd_lower %u, pd_upper %u",
			 BufferGetBlockNumber(buf), ih->pd_lower, ih->pd_upper);
	xlrec.ndeleted = 0;
	xlrec.nupdated = 0;
	XLogBeginInsert();
	START_CRIT_SECTION();
	memcpy(cur, img, ih->pd_lower);
	memset(cur + ih->pd_lower, 0, ih->pd_upper - ih->pd_lower);
	memcpy(cur + ih->pd_upper, img + ih->pd_upper, BLCKSZ - ih->pd_upper);
	MarkBufferDirty(buf);
	XLogRegisterData((char *) &xlrec, SizeOfBtreeVacuum);
	XLogRegisterBuffer(0, buf, REGBUF_FORCE_IMAGE | REGBUF_STANDARD);
	lsn = XLogInsert(RM_BTREE_ID, XLOG_BTREE_VACUUM);
	PageSetLSN(cur, lsn);
	END_CRIT_SECTION();
}

#ifdef FPB_OWN_GENERIC_DELTA

/* chunk compared and logged as a unit: one node line */
#define FPB_WAL_CHUNK		64
#define FPB_WAL_FRAG_HDR	(2 * sizeof(uint16))
#define FPB_WAL_MAX_DELTA	(BLCKSZ + 2 * FPB_WAL_FRAG_HDR)

typedef struct FpbWalPage
{
	Buffer		buf;
	int			flags;
	int			deltalen;
	char		delta[FPB_WAL_MAX_DELTA];
} FpbWalPage;

struct FpbWalState
{
	bool		inuse;			/* between start and finish or abort */
	bool		logged;
	FpbWalPage	pages[FPB_WAL_MAX_PAGES];
	PGAlignedBlock images[FPB_WAL_MAX_PAGES];
};

/*
 * One state per backend, reused: GenericXLogStart pallocs 64 kB for every
 * change.  Changes never nest.  An error between start and finish leaves
 * the state in use; the transaction abort that follows resets it.
 */
static FpbWalState *fpb_wal_state = NULL;

static void fpb_wal_xact_callback(XactEvent event, void *arg);
static void fpb_wal_subxact_callback(SubXactEvent event,
									 SubTransactionId mySubid,
									 SubTransactionId parentSubid, void *arg);

FpbWalState *
fpb_wal_start(Relation index)
{
	FpbWalState *st = fpb_wal_state;

	if (st == NULL)
	{
		st = MemoryContextAllocZero(TopMemoryContext, sizeof(FpbWalState));
		fpb_wal_state = st;
		RegisterXactCallback(fpb_wal_xact_callback, NULL);
		RegisterSubXactCallback(fpb_wal_subxact_callback, NULL);
	}
	if (st->inuse)
		elog(ERROR, "fpbtree: nested WAL-logged page change");
	st->inuse = true;
	st->logged = RelationNeedsWAL(index);
	for (int i = 0; i < FPB_WAL_MAX_PAGES; i++)
		st->pages[i].buf = InvalidBuffer;
	return st;
}

Page
fpb_wal_register(FpbWalState *st, Buffer buf, int flags)
{
	for (int i = 0; i < FPB_WAL_MAX_PAGES; i++)
	{
		FpbWalPage *p = &st->pages[i];

		if (p->buf == buf)
		{
			p->flags |= flags;
			return (Page) st->images[i].data;
		}
		if (BufferIsInvalid(p->buf))
		{
			p->buf = buf;
			p->flags = flags;
			memcpy(st->images[i].data, BufferGetPage(buf), BLCKSZ);
			return (Page) st->images[i].data;
		}
	}
	elog(ERROR, "fpbtree: more than %d pages in one WAL record",
		 FPB_WAL_MAX_PAGES);
	return NULL;				/* keep compiler quiet */
}

void
fpb_wal_abort(FpbWalState *st)
{
	for (int i = 0; i < FPB_WAL_MAX_PAGES; i++)
		st->pages[i].buf = InvalidBuffer;
	st->inuse = false;
}

/* an error left a change unfinished: forget it */
static void
fpb_wal_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		fpb_wal_abort(fpb_wal_state);
}

static void
fpb_wal_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						 SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		fpb_wal_abort(fpb_wal_state);
}

static void
fpb_wal_fragment(FpbWalPage *p, int off, int len, const char *data)
{
	uint16		o = (uint16) off;
	uint16		l = (uint16) len;

	memcpy(p->delta + p->deltalen, &o, sizeof(o));
	p->deltalen += sizeof(o);
	memcpy(p->delta + p->deltalen, &l, sizeof(l));
	p->deltalen += sizeof(l);
	memcpy(p->delta + p->deltalen, data, len);
	p->deltalen += len;
}

/*
 * Log [from, to) of the new image, less the words at either end that the
 * current page already holds (a changed chunk rarely changes all 64 bytes).
 * Inside the current page's hole nothing counts as unchanged.
 */
static void
fpb_wal_run(FpbWalPage *p, const char *cur, const char *img, int from, int to,
			int curlo, int curhi)
{
#define FPB_WAL_WORD	8
	while (to - from >= FPB_WAL_WORD &&
		   (from >= curhi || from + FPB_WAL_WORD <= curlo) &&
		   memcmp(cur + from, img + from, FPB_WAL_WORD) == 0)
		from += FPB_WAL_WORD;
	while (to - from >= FPB_WAL_WORD &&
		   (to - FPB_WAL_WORD >= curhi || to <= curlo) &&
		   memcmp(cur + to - FPB_WAL_WORD, img + to - FPB_WAL_WORD,
				  FPB_WAL_WORD) == 0)
		to -= FPB_WAL_WORD;
	if (to > from)
		fpb_wal_fragment(p, from, to - from, img + from);
}

/*
 * Fragments for the bytes of [start, end) where the new image differs from
 * the current page, found chunk by chunk; neighbouring changed chunks make
 * one fragment.  Bytes the current page keeps in its hole [curlo, curhi)
 * count as changed whatever they hold, as generic redo may have them zero.
 */
static void
fpb_wal_region(FpbWalPage *p, const char *cur, const char *img,
			   int start, int end, int curlo, int curhi)
{
	int			run = -1;		/* start of the pending changed run */
	int			off = start;

	if (curlo >= curhi)
		curlo = curhi = 0;		/* no hole */
	while (off < end)
	{
		int			next = Min(end, (off / FPB_WAL_CHUNK + 1) * FPB_WAL_CHUNK);
		bool		changed;

		changed = (off < curhi && next > curlo) ||
			memcmp(cur + off, img + off, next - off) != 0;
		if (changed && run < 0)
			run = off;
		else if (!changed && run >= 0)
		{
			fpb_wal_run(p, cur, img, run, off, curlo, curhi);
			run = -1;
		}
		off = next;
	}
	if (run >= 0)
		fpb_wal_run(p, cur, img, run, end, curlo, curhi);
}

void
fpb_wal_finish(FpbWalState *st)
{
	XLogRecPtr	lsn;

	if (!st->logged)
	{
		START_CRIT_SECTION();
		for (int i = 0; i < FPB_WAL_MAX_PAGES; i++)
		{
			FpbWalPage *p = &st->pages[i];

			if (BufferIsInvalid(p->buf))
				continue;
			memcpy(BufferGetPage(p->buf), st->images[i].data, BLCKSZ);
			MarkBufferDirty(p->buf);
		}
		END_CRIT_SECTION();
		fpb_wal_abort(st);
		return;
	}

	/* a bad header on a copy must not become a PANIC below */
	for (int i = 0; i < FPB_WAL_MAX_PAGES; i++)
	{
		PageHeader	ih = (PageHeader) st->images[i].data;

		if (BufferIsValid(st->pages[i].buf) &&
			(ih->pd_lower < SizeOfPageHeaderData ||
			 ih->pd_lower > ih->pd_upper || ih->pd_upper > BLCKSZ))
			elog(ERROR, "fpbtree: page of block %u has pd_lower %u, pd_upper %u",
				 BufferGetBlockNumber(st->pages[i].buf),
				 ih->pd_lower, ih->pd_upper);
	}

	/* a change a hot standby must replay under a cleanup lock: one page */
	for (int i = 0; i < FPB_WAL_MAX_PAGES; i++)
	{
		if (BufferIsInvalid(st->pages[i].buf) ||
			!(st->pages[i].flags & FPB_WAL_CLEANUP))
			continue;
		if (i > 0 || BufferIsValid(st->pages[1].buf))
			elog(ERROR, "fpbtree: a change replayed under a cleanup lock spans pages");
		if (XLogStandbyInfoActive())
		{
			fpb_wal_cleanup_record(st->pages[0].buf, st->images[0].data);
			fpb_wal_abort(st);
			return;
		}
	}

	XLogBeginInsert();
	START_CRIT_SECTION();
	for (int i = 0; i < FPB_WAL_MAX_PAGES; i++)
	{
		FpbWalPage *p = &st->pages[i];
		char	   *cur;
		char	   *img = st->images[i].data;
		PageHeader	ih = (PageHeader) img;
		PageHeader	ch;

		if (BufferIsInvalid(p->buf))
			continue;
		cur = BufferGetPage(p->buf);
		ch = (PageHeader) cur;
		if (!(p->flags & FPB_WAL_FULL_IMAGE))
		{
			p->deltalen = 0;
			fpb_wal_region(p, cur, img, 0, ih->pd_lower,
						   ch->pd_lower, ch->pd_upper);
			fpb_wal_region(p, cur, img, ih->pd_upper, BLCKSZ,
						   ch->pd_lower, ch->pd_upper);
		}
		/* apply, with the hole zeroed as redo will leave it */
		memcpy(cur, img, ih->pd_lower);
		memset(cur + ih->pd_lower, 0, ih->pd_upper - ih->pd_lower);
		memcpy(cur + ih->pd_upper, img + ih->pd_upper,
			   BLCKSZ - ih->pd_upper);
		MarkBufferDirty(p->buf);
		if (p->flags & FPB_WAL_FULL_IMAGE)
			XLogRegisterBuffer(i, p->buf, REGBUF_FORCE_IMAGE | REGBUF_STANDARD);
		else
		{
			XLogRegisterBuffer(i, p->buf, REGBUF_STANDARD);
			XLogRegisterBufData(i, p->delta, p->deltalen);
		}
	}
	lsn = XLogInsert(RM_GENERIC_ID, 0);
	for (int i = 0; i < FPB_WAL_MAX_PAGES; i++)
	{
		if (BufferIsValid(st->pages[i].buf))
			PageSetLSN(BufferGetPage(st->pages[i].buf), lsn);
	}
	END_CRIT_SECTION();
	fpb_wal_abort(st);
}

/*
 * A change made in place, for the common insert: the caller knows which
 * bytes it changes, so neither a private copy of the page nor a comparison
 * is needed (on random inserts the copy and compare took a third of the
 * time).  fpb_wal_inplace_begin() returns the page to change and enters a
 * critical section: the change must not be able to fail.
 * fpb_wal_inplace_end() logs the given ranges of the changed page as one
 * delta, sets the LSN and leaves the critical section.  The change must not
 * touch the hole between pd_lower and pd_upper, which stays zero, as
 * generic redo leaves it.
 */
static char fpb_wal_inplace_delta[FPB_WAL_MAX_DELTA];

Page
fpb_wal_inplace_begin(Relation index, Buffer buf)
{
	if (RelationNeedsWAL(index))
		XLogBeginInsert();
	START_CRIT_SECTION();
	return BufferGetPage(buf);
}

void
fpb_wal_inplace_end(Relation index, Buffer buf, const FpbByteRange *ranges,
					int nranges)
{
	Page		page = BufferGetPage(buf);

	MarkBufferDirty(buf);
	if (RelationNeedsWAL(index))
	{
		int			len = 0;
		XLogRecPtr	lsn;

		for (int i = 0; i < nranges; i++)
		{
			uint16		o = ranges[i].off;
			uint16		l = ranges[i].len;

			if (l == 0)
				continue;
			Assert(len + FPB_WAL_FRAG_HDR + l <= FPB_WAL_MAX_DELTA);
			memcpy(fpb_wal_inplace_delta + len, &o, sizeof(o));
			memcpy(fpb_wal_inplace_delta + len + sizeof(o), &l, sizeof(l));
			memcpy(fpb_wal_inplace_delta + len + FPB_WAL_FRAG_HDR,
				   (char *) page + o, l);
			len += FPB_WAL_FRAG_HDR + l;
		}
		XLogRegisterBuffer(0, buf, REGBUF_STANDARD);
		XLogRegisterBufData(0, fpb_wal_inplace_delta, len);
		lsn = XLogInsert(RM_GENERIC_ID, 0);
		PageSetLSN(page, lsn);
	}
	END_CRIT_SECTION();
}

#else							/* !FPB_OWN_GENERIC_DELTA */

/* A version whose generic WAL format we have not checked: GenericXLog. */

/* the page of a change replayed under a cleanup lock, and its copy */
static bool fpb_wal_logged = false;
static Buffer fpb_wal_first = InvalidBuffer;
static bool fpb_wal_more = false;	/* a second page registered */
static Buffer fpb_wal_cleanup_buf = InvalidBuffer;
static Page fpb_wal_cleanup_page = NULL;

FpbWalState *
fpb_wal_start(Relation index)
{
	fpb_wal_logged = RelationNeedsWAL(index);
	fpb_wal_first = InvalidBuffer;
	fpb_wal_more = false;
	fpb_wal_cleanup_buf = InvalidBuffer;
	return (FpbWalState *) GenericXLogStart(index);
}

Page
fpb_wal_register(FpbWalState *st, Buffer buf, int flags)
{
	Page		page;

	page = GenericXLogRegisterBuffer((GenericXLogState *) st, buf,
									 (flags & FPB_WAL_FULL_IMAGE) ?
									 GENERIC_XLOG_FULL_IMAGE : 0);
	if (BufferIsInvalid(fpb_wal_first))
		fpb_wal_first = buf;
	else if (buf != fpb_wal_first)
		fpb_wal_more = true;
	if (flags & FPB_WAL_CLEANUP)
	{
		fpb_wal_cleanup_buf = buf;
		fpb_wal_cleanup_page = page;
	}
	return page;
}

void
fpb_wal_finish(FpbWalState *st)
{
	if (BufferIsValid(fpb_wal_cleanup_buf) && fpb_wal_more)
		elog(ERROR, "fpbtree: a change replayed under a cleanup lock spans pages");
	if (BufferIsValid(fpb_wal_cleanup_buf) && fpb_wal_logged &&
		XLogStandbyInfoActive())
	{
		PGAlignedBlock img;
		Buffer		buf = fpb_wal_cleanup_buf;

		memcpy(img.data, fpb_wal_cleanup_page, BLCKSZ);
		fpb_wal_abort(st);
		fpb_wal_cleanup_record(buf, img.data);
		return;
	}
	fpb_wal_cleanup_buf = InvalidBuffer;
	GenericXLogFinish((GenericXLogState *) st);
}

void
fpb_wal_abort(FpbWalState *st)
{
	fpb_wal_cleanup_buf = InvalidBuffer;
	GenericXLogAbort((GenericXLogState *) st);
}

/* In-place changes, through GenericXLog: on its copy of the page. */
static GenericXLogState *fpb_wal_inplace_state = NULL;

Page
fpb_wal_inplace_begin(Relation index, Buffer buf)
{
	fpb_wal_inplace_state = GenericXLogStart(index);
	return GenericXLogRegisterBuffer(fpb_wal_inplace_state, buf, 0);
}

void
fpb_wal_inplace_end(Relation index, Buffer buf, const FpbByteRange *ranges,
					int nranges)
{
	GenericXLogFinish(fpb_wal_inplace_state);
	fpb_wal_inplace_state = NULL;
}

#endif							/* FPB_OWN_GENERIC_DELTA */
