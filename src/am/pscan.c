/*-------------------------------------------------------------------------
 *
 * pscan.c
 *	  Parallel index scans: the shared scan state and the claiming of runs
 *	  of leaves through the jump-pointer array.
 *
 * The participants of a parallel scan split the scan's key interval into
 * consecutive key ranges, one per run of up to FPB_PSCAN_RUN leaves, taken
 * from the downlinks of one level-1 page at a time.  A run is the key range
 * [K_i, K_j) between two downlinks (or the scan's own bound, or the level-1
 * page's high key), and its participant returns exactly the entries in
 * that range, starting at leaf C_i and following right-links.  Because the
 * ranges partition the interval, no entry is returned twice or missed,
 * whatever concurrent splits move meanwhile (see README, "Parallel scans").
 * A scan with array keys has several disjoint intervals; the participants
 * share out one after another the same way, all moving on to the next once
 * the last run of one has been handed out.
 *
 * The shared state is protected by a spinlock, under which nothing but
 * assignments and copies happen: a wide index's comparisons call the
 * operator class, which may fail, so whatever a claim needs to know about
 * the order of keys is worked out when a level-1 page is loaded.  Loading
 * reads buffers, so it is done outside the spinlock by one participant at
 * a time (status ADVANCING) while the others wait on the condition
 * variable, as nbtree serialises its "next page" in _bt_parallel_seize.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relscan.h"
#include "fpbtree.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/condition_variable.h"
#include "storage/spin.h"
#include "utils/rel.h"

/* most downlinks a page can hold: each takes at least key, TID and child */
#define FPB_PSCAN_MAXDL \
	((FPB_NLINES * FPB_LINE) / (sizeof(uint64) + sizeof(ItemPointerData) + \
								sizeof(BlockNumber)) + 1)

/*
 * Room for the values of the copied downlinks and end key of a wide index:
 * they all lie on one page, and each copy is aligned.
 */
#define FPB_PSCAN_VALBYTES	(2 * BLCKSZ)
#define FPB_PSCAN_NOVAL		(-1)

typedef enum FpbPscanStatus
{
	FPB_PS_NOT_STARTED,			/* nothing claimed since (re)start */
	FPB_PS_ADVANCING,			/* one participant is loading a level-1 page */
	FPB_PS_IDLE,				/* runs can be claimed (or a load is due) */
	FPB_PS_DONE					/* the whole interval has been handed out */
} FpbPscanStatus;

/*
 * A key in shared memory: its value, if any, at vpos in the value area (the
 * cursor's: vpos 0 is its own buffer, cval).
 */
typedef struct FpbPscanKey
{
	uint64		k;
	uint64		t;
	BlockNumber child;
	int32		vpos;			/* FPB_PSCAN_NOVAL: no value */
} FpbPscanKey;

typedef struct FpbParallelScanData
{
	slock_t		mutex;
	ConditionVariable cv;
	FpbPscanStatus status;
	bool		forward;		/* direction, set by the first participant */
	bool		first;			/* no run handed out yet */
	bool		rootleaf;		/* no level 1: one run, found by descent */
	bool		lastl1;			/* no level-1 page beyond the copy */
	bool		endin;			/* forward: the end key is in the interval */
	int			nents;
	int			next;			/* first unclaimed entry */
	int			nin;			/* forward: first entry (from 1) above the
								 * interval; backward: first entry at or
								 * below its lower bound; nents if none */
	int			ival;			/* array keys: the interval being shared out,
								 * counted in scan direction */

	/*
	 * The cursor: forward, the inclusive lower bound of the next run;
	 * backward, the exclusive upper bound of the next run.  Unused while
	 * first is set (the scan's own bound applies).  Its value is in cval.
	 */
	FpbPscanKey cur;
	/* forward: the copy's end, the page's high key */
	FpbPscanKey end;
	FpbPscanKey ents[FPB_PSCAN_MAXDL];	/* downlinks, in scan order */
	union
	{
		char		data[FPB_PSCAN_VALBYTES];
		int64		align;
	}			vals;			/* values of ents and end */
	FpbFullBuf	cval;
} FpbParallelScanData;

typedef FpbParallelScanData *FpbParallelScan;

Size
fpbestimateparallelscan(void)
{
	return sizeof(FpbParallelScanData);
}

static void
fpb_pscan_reset(FpbParallelScan ps)
{
	ps->status = FPB_PS_NOT_STARTED;
	ps->first = true;
	ps->nents = ps->next = 0;
}

void
fpbinitparallelscan(void *target)
{
	FpbParallelScan ps = (FpbParallelScan) target;

	SpinLockInit(&ps->mutex);
	ConditionVariableInit(&ps->cv);
	fpb_pscan_reset(ps);
	ps->ival = 0;
}

void
fpbparallelrescan(IndexScanDesc scan)
{
	ParallelIndexScanDesc pscan = scan->parallel_scan;
	FpbParallelScan ps = (FpbParallelScan)
	OffsetToPointer(pscan, pscan->ps_offset);

	SpinLockAcquire(&ps->mutex);
	fpb_pscan_reset(ps);
	ps->ival = 0;
	SpinLockRelease(&ps->mutex);
}

/*
 * Make (k, t, f) the inclusive bound just below the key (k, t, f), an
 * exclusive upper bound.  A narrow key has a predecessor.  A wide key's
 * value has none, but entries with it differ by the tiebreaker: a heap TID
 * is never 0, so when the tiebreaker is 0 (its NULL bit aside) the key is
 * below every entry of its value, none equals it, and it is its own bound
 * (as the scan's "< v" is (k(v), v, 0)).  False when nothing lies below.
 */
static inline bool
fpb_pscan_pred(const FpbCmp *cmp, uint64 *k, uint64 *t, const char *f)
{
	if (*k == 0 && *t == 0 && f == NULL)
		return false;
	if (cmp)
	{
		if ((*t & FPB_T_MAX_NONNULL) > 0)
			(*t)--;
		return true;
	}
	if (*t > 0)
		(*t)--;
	else
	{
		(*k)--;
		*t = PG_UINT64_MAX;
	}
	return true;
}

static inline const char *
fpb_pscan_val(FpbParallelScan ps, const FpbPscanKey *key)
{
	return key->vpos == FPB_PSCAN_NOVAL ? NULL : ps->vals.data + key->vpos;
}

/*
 * Copy a shared key out into (k, t, f), its value into buf; src its value
 * in shared memory.  Plain copies: this runs under the spinlock.
 */
static inline void
fpb_pscan_take(const FpbCmp *cmp, const FpbPscanKey *key, const char *src,
			   FpbFullBuf *buf, uint64 *k, uint64 *t, const char **f)
{
	*k = key->k;
	*t = key->t;
	*f = NULL;
	if (src != NULL)
	{
		memcpy(buf->data, src, fpb_full_size(cmp, src));
		*f = buf->data;
	}
}

/* Set the cursor to key (value src); under the spinlock. */
static inline void
fpb_pscan_set_cursor(const FpbCmp *cmp, FpbParallelScan ps,
					 const FpbPscanKey *key, const char *src)
{
	ps->cur = *key;
	ps->cur.vpos = FPB_PSCAN_NOVAL;
	if (src != NULL)
	{
		memcpy(ps->cval.data, src, fpb_full_size(cmp, src));
		ps->cur.vpos = 0;
	}
}

static inline const char *
fpb_pscan_curval(FpbParallelScan ps)
{
	return ps->cur.vpos == FPB_PSCAN_NOVAL ? NULL : ps->cval.data;
}

/*
 * Store the entry e of page blkno in the shared key *out, its value in the
 * value area at *used.  The values of one page fit, with room to spare for
 * their alignment: they are at most a page, and a page holds at most
 * FPB_PSCAN_MAXDL entries.
 */
static void
fpb_pscan_store(Relation index, BlockNumber blkno, const FpbCmp *cmp,
				FpbParallelScan ps, const FpbEntry *e, FpbPscanKey *out,
				Size *used)
{
	/* a wide page's key carries its slot's offset, meaningless elsewhere */
	out->k = cmp ? FPB_WIDE_PREFIX(e->k) : e->k;
	out->t = e->t;
	out->child = e->child;
	out->vpos = FPB_PSCAN_NOVAL;
	if (cmp && e->f != NULL)
	{
		Size		size = fpb_full_size(cmp, e->f);

		/* a damaged page: values are copied into buffers of FPB_FULL_MAX */
		if (size > FPB_FULL_MAX)
			fpb_index_corrupt(index, blkno,
							  "Internal page has a key of %zu bytes, more than %d.",
							  size, FPB_FULL_MAX);
		if (*used + size > FPB_PSCAN_VALBYTES)
			fpb_index_corrupt(index, blkno,
							  "The keys of internal page take more than %d bytes.",
							  FPB_PSCAN_VALBYTES);
		memcpy(ps->vals.data + *used, e->f, size);
		fpb_full_unskip(cmp->skip, e->k, ps->vals.data + *used);
		out->vpos = (int32) *used;
		*used += MAXALIGN(size);
	}
}

/*
 * A backward load for a key x that no entry equals found the level-1 page
 * whose lower bound is x, which holds nothing below it: the keys just below
 * x are on a page to its left.  Move there from its left-link, stepping
 * right (over deleted pages, and pages split off since) to the first live
 * page whose high key is at or above x: its lower bound is below x.  The
 * walk ends at the latest at the page that holds x.
 */
static Buffer
fpb_pscan_left_of(Relation index, Buffer buf, const FpbEntry *x)
{
	FpbPageOpaque opq = FpbPageGetOpaque(BufferGetPage(buf));
	BlockNumber left = opq->left;

	if (FpbPageIsLeftmost(opq))
		fpb_index_corrupt(index, BufferGetBlockNumber(buf),
						  "Leftmost level-1 page has a lower bound above minus infinity.");
	UnlockReleaseBuffer(buf);
	CHECK_FOR_INTERRUPTS();
	buf = fpb_getbuf(index, left, BUFFER_LOCK_SHARE);
	opq = FpbPageGetOpaque(BufferGetPage(buf));
	if (opq->level != 1)
		fpb_index_corrupt(index, BufferGetBlockNumber(buf),
						  "Page has level %u, but a level-1 page's left-link leads here.",
						  opq->level);
	/* each step right checks the sibling's level */
	return fpb_moveright_below(index, buf, x, BUFFER_LOCK_SHARE);
}

/*
 * Load the level-1 page holding x into the shared state: its downlinks
 * from the one whose child holds x on, in scan direction (with strict, the
 * one whose child holds the keys just below x), and where the interval
 * [lo, hi] ends within them.  Called by the one participant that set
 * status ADVANCING, with no lock held; it alone writes the shared state
 * until it publishes it.
 */
static void
fpb_pscan_load(Relation index, FpbParallelScan ps, const FpbEntry *x,
			   bool strict, const FpbEntry *lo, const FpbEntry *hi)
{
	const FpbCmp *cmp = fpb_index_cmp(index);
	Buffer		buf;
	Page		page;
	FpbPageOpaque opq;
	BlockNumber blkno;
	FpbEntry   *ents;
	Size		used = 0;
	bool		left = false;
	int			n;
	int			i;
	int			m;

	buf = fpb_descend_to(index, x, 1, BUFFER_LOCK_SHARE, false, NULL, NULL);
	ents = palloc(sizeof(FpbEntry) * (FPB_PSCAN_MAXDL + 1));
	for (;;)
	{
		page = BufferGetPage(buf);
		opq = FpbPageGetOpaque(page);
		blkno = BufferGetBlockNumber(buf);
		if (opq->nentries > FPB_PSCAN_MAXDL)
			fpb_index_corrupt(index, blkno,
							  "Internal page counts %u entries, more than a page can hold.",
							  opq->nentries);
		n = fpb_page_collect(page, ents, blkno);
		if (n == 0)
			fpb_index_corrupt(index, blkno, "Internal page has no downlinks.");

		/*
		 * The first downlink's key is the page's lower bound (minus infinity
		 * on the leftmost page), at or below every key the page covers.
		 */
		if (!strict || left || fpb_entry_cmp(cmp, &ents[0], x) < 0)
			break;
		buf = fpb_pscan_left_of(index, buf, x);
		left = true;
	}
	if (fpb_entry_cmp(cmp, &ents[0], x) >= (strict ? 0 : 1))
		fpb_index_corrupt(index, blkno,
						  strict ? "First downlink is not below the key a descent to level 1 was for." :
						  "First downlink is above the key a descent to level 1 was for.");
	/* the downlink whose child holds x (or the keys just below it) */
	for (i = 0; i + 1 < n &&
		 fpb_entry_cmp(cmp, &ents[i + 1], x) < (strict ? 0 : 1); i++)
		;

	if (ps->forward)
	{
		m = n - i;
		for (int j = 0; j < m; j++)
			fpb_pscan_store(index, blkno, cmp, ps, &ents[i + j],
							&ps->ents[j], &used);
		ps->lastl1 = FpbPageIsRightmost(opq);
		if (!ps->lastl1)
		{
			FpbEntry	hk;

			fpb_page_get_hikey(page, &hk, blkno);
			fpb_pscan_store(index, blkno, cmp, ps, &hk, &ps->end, &used);
		}

		/* children from the first above hi on lie outside the interval */
		ps->nin = 1;
		while (ps->nin < m &&
			   fpb_entry_cmp(cmp, &ents[i + ps->nin], hi) <= 0)
			ps->nin++;
		ps->endin = false;
		if (!ps->lastl1)
		{
			FpbEntry	e = fpb_mkkey(ps->end.k, ps->end.t);

			e.f = fpb_pscan_val(ps, &ps->end);
			ps->endin = fpb_entry_cmp(cmp, &e, hi) <= 0;
		}
	}
	else
	{
		m = i + 1;
		for (int j = 0; j < m; j++)
			fpb_pscan_store(index, blkno, cmp, ps, &ents[i - j],
							&ps->ents[j], &used);
		ps->lastl1 = FpbPageIsLeftmost(opq);
		/* the first child holding keys at or below lo ends the interval */
		ps->nin = 0;
		while (ps->nin < m &&
			   fpb_entry_cmp(cmp, &ents[i - ps->nin], lo) > 0)
			ps->nin++;
	}
	ps->nents = m;
	ps->next = 0;
	UnlockReleaseBuffer(buf);
	pfree(ents);
}

/*
 * Length of the run starting at entry a.  Near the end of the scan, when
 * the copy shows how many leaves are left, runs shrink to a quarter of them
 * (guided self-scheduling), so that the participants finish together and
 * short scans are shared too; elsewhere FPB_PSCAN_RUN.  Any length from 1
 * is correct: the runs partition the interval whatever their lengths.
 */
static int
fpb_pscan_runlen(FpbParallelScan ps, int a)
{
	int			limit = Min(ps->nents, a + 4 * FPB_PSCAN_RUN);
	int			left = -1;

	if (ps->forward && Max(a + 1, ps->nin) < limit)
		left = Max(a + 1, ps->nin) - a; /* children from nin on lie above hi */
	else if (!ps->forward && Max(a, ps->nin) < limit)
		left = Max(a, ps->nin) - a + 1; /* nin's child holds lo */
	if (left < 0 && limit == ps->nents &&
		(ps->lastl1 || (ps->forward && !ps->endin)))
		left = ps->nents - a;
	if (left < 0)
		return Min(FPB_PSCAN_RUN, ps->nents - a);
	return Max(1, Min(FPB_PSCAN_RUN, (left + 3) / 4));
}

/*
 * Hand out the run of entries [a, b) of the copy into run; under the
 * spinlock.  Returns false if the run is empty by construction.
 */
static bool
fpb_pscan_handout(const FpbCmp *cmp, FpbParallelScan ps, int a, int b,
				  const FpbScanInterval *iv, FpbScanRun *run)
{
	bool		forward = ps->forward;
	bool		endin;			/* the run ends inside the interval */
	bool		nonempty = true;
	const FpbPscanKey *ek;		/* its far end in scan direction */

	run->nblks = b - a;
	for (int i = a; i < b; i++)
		run->blks[i - a] = ps->ents[i].child;
	run->start = ps->rootleaf ? InvalidBlockNumber : ps->ents[a].child;
	run->last = ps->rootleaf ? InvalidBlockNumber : ps->ents[b - 1].child;
	if (forward)
	{
		ek = b < ps->nents ? &ps->ents[b] : &ps->end;
		endin = b < ps->nents ? b < ps->nin : (!ps->lastl1 && ps->endin);
	}
	else
	{
		ek = &ps->ents[b - 1];
		endin = b - 1 < ps->nin;
	}

	/*
	 * The near end: the scan's bound for the first run, else the cursor,
	 * which lies inside the interval (the first run began at the child
	 * holding the near bound, and the cursor has moved on from there).
	 */
	if (forward)
	{
		run->lok = iv->lok;
		run->lot = iv->lot;
		run->lof = iv->lof;
		if (!ps->first)
			fpb_pscan_take(cmp, &ps->cur, fpb_pscan_curval(ps), run->lobuf,
						   &run->lok, &run->lot, &run->lof);
		run->hik = iv->hik;
		run->hit = iv->hit;
		run->hif = iv->hif;
		if (endin)
		{
			/* [start, ek) lies inside the interval: stop below ek */
			fpb_pscan_take(cmp, ek, fpb_pscan_val(ps, ek), run->hibuf,
						   &run->hik, &run->hit, &run->hif);
			nonempty = fpb_pscan_pred(cmp, &run->hik, &run->hit, run->hif);
		}
	}
	else
	{
		run->hik = iv->hik;
		run->hit = iv->hit;
		run->hif = iv->hif;
		if (!ps->first)
		{
			fpb_pscan_take(cmp, &ps->cur, fpb_pscan_curval(ps), run->hibuf,
						   &run->hik, &run->hit, &run->hif);
			nonempty = fpb_pscan_pred(cmp, &run->hik, &run->hit, run->hif);
		}
		run->lok = iv->lok;
		run->lot = iv->lot;
		run->lof = iv->lof;
		if (endin)
		{
			/* [ek, end) lies inside the interval: stop at ek */
			fpb_pscan_take(cmp, ek, fpb_pscan_val(ps, ek), run->lobuf,
						   &run->lok, &run->lot, &run->lof);
		}
	}
	if (endin)
		fpb_pscan_set_cursor(cmp, ps, ek, fpb_pscan_val(ps, ek));
	else
		ps->status = FPB_PS_DONE;
	ps->first = false;
	ps->next = b;
	return nonempty;
}

/* Compare the run's bounds: > 0 if it is empty. */
static inline int
fpb_pscan_cmp_run(const FpbCmp *cmp, const FpbScanRun *run)
{
	if (cmp == NULL)
		return fpb_key_cmp(run->lok, run->lot, run->hik, run->hit);
	return fpb_wide_cmp(cmp, run->lok, run->lot, run->lof,
						run->hik, run->hit, run->hif);
}

/*
 * Claim the next run of the parallel scan for direction `forward` over the
 * scan's intervals ivals[0 .. nivals - 1] (disjoint, in key order; one
 * [lo, hi] without array keys).  The intervals are shared out one after
 * another: once the last run of one is handed out (DONE), the next claimant
 * starts the next one afresh.  Returns false once everything has been
 * handed out.  On success, run holds the run's key range intersected with
 * its interval (never empty; its values copied to run->lobuf and hibuf
 * where they are not the interval's), where to start, and the run's leaves
 * as listed by the downlinks (hints for prefetching).
 */
bool
fpb_pscan_claim(IndexScanDesc scan, bool forward,
				const FpbScanInterval *ivals, int nivals, FpbScanRun *run)
{
	Relation	index = scan->indexRelation;
	const FpbCmp *cmp = fpb_index_cmp(index);
	ParallelIndexScanDesc pscan = scan->parallel_scan;
	FpbParallelScan ps = (FpbParallelScan)
	OffsetToPointer(pscan, pscan->ps_offset);
	bool		claimed = false;
	FpbFullBuf	xbuf;

	for (;;)
	{
		bool		load = false;
		bool		sleep = false;
		bool		got = false;
		bool		strict = false;
		FpbEntry	x = fpb_mkkey(0, 0);
		const FpbScanInterval *iv;

		SpinLockAcquire(&ps->mutex);
		if (ps->ival >= nivals)
		{
			SpinLockRelease(&ps->mutex);
			elog(ERROR, "fpbtree: participants of a parallel scan disagree on its array keys");
		}
		iv = &ivals[forward ? ps->ival : nivals - 1 - ps->ival];
		if (ps->status == FPB_PS_DONE && ps->ival + 1 < nivals)
		{
			/* on to the next interval: start it as a new scan */
			ps->ival++;
			fpb_pscan_reset(ps);
			SpinLockRelease(&ps->mutex);
			continue;
		}
		if (ps->status == FPB_PS_NOT_STARTED)
		{
			ps->forward = forward;
			ps->status = FPB_PS_ADVANCING;
			load = true;
			x = fpb_mkkey(forward ? iv->lok : iv->hik,
						  forward ? iv->lot : iv->hit);
			x.f = forward ? iv->lof : iv->hif;
			strict = !forward && fpb_wide_key_between(cmp, &x);
		}
		else if (ps->status == FPB_PS_DONE)
		{
			SpinLockRelease(&ps->mutex);
			break;
		}
		else if (ps->status == FPB_PS_ADVANCING)
			sleep = true;
		else if (ps->forward != forward)
		{
			SpinLockRelease(&ps->mutex);
			elog(ERROR, "fpbtree: participants of a parallel scan disagree on its direction");
		}
		else if (ps->next < ps->nents)
		{
			int			a = ps->next;

			got = fpb_pscan_handout(cmp, ps, a, a + fpb_pscan_runlen(ps, a),
									iv, run);
		}
		else
		{
			/* the copy is handed out: load the next level-1 page */
			if (ps->first || ps->lastl1)
			{
				/* the last run of the last page ends the scan (DONE) */
				SpinLockRelease(&ps->mutex);
				elog(ERROR, "fpbtree: parallel scan ran out of runs before its end");
			}
			ps->status = FPB_PS_ADVANCING;
			load = true;

			/*
			 * Forward, to the cursor; backward, to just below it, strictly
			 * below a wide key that has no predecessor.
			 */
			fpb_pscan_take(cmp, &ps->cur, fpb_pscan_curval(ps), &xbuf,
						   &x.k, &x.t, &x.f);
			if (!forward)
			{
				strict = fpb_wide_key_between(cmp, &x);
				(void) fpb_pscan_pred(cmp, &x.k, &x.t, x.f);
			}
		}
		SpinLockRelease(&ps->mutex);

		/* an empty run (a bound below its start) is claimed and skipped */
		if (got && fpb_pscan_cmp_run(cmp, run) <= 0)
		{
			claimed = true;
			break;
		}
		if (sleep)
		{
			/* btree's event for the same wait: monitoring knows it */
			ConditionVariableSleep(&ps->cv, WAIT_EVENT_BTREE_PAGE);
			continue;
		}
		if (load)
		{
			FpbMetaPageData *meta = fpb_cached_meta(index, false);
			bool		first = ps->first;

			if (first && meta->rootlevel < 1)
				meta = fpb_cached_meta(index, true);
			if (first && meta->rootlevel < 1)
			{
				/*
				 * The root is a leaf: one run covers the interval, found by
				 * descent (the tree may grow meanwhile; right-links still
				 * lead through it).  Later loads always find a level 1:
				 * levels are never removed.
				 */
				ps->rootleaf = true;
				ps->lastl1 = true;
				ps->endin = false;
				ps->nents = 1;
				ps->nin = forward ? 1 : 0;	/* ends the interval */
				ps->next = 0;
				ps->ents[0].child = InvalidBlockNumber;
			}
			else
			{
				FpbEntry	lo = fpb_mkkey(iv->lok, iv->lot);
				FpbEntry	hi = fpb_mkkey(iv->hik, iv->hit);

				lo.f = iv->lof;
				hi.f = iv->hif;
				ps->rootleaf = false;
				fpb_pscan_load(index, ps, &x, strict, &lo, &hi);
			}
			SpinLockAcquire(&ps->mutex);
			ps->status = FPB_PS_IDLE;
			SpinLockRelease(&ps->mutex);
			ConditionVariableBroadcast(&ps->cv);
		}
		CHECK_FOR_INTERRUPTS();
	}
	ConditionVariableCancelSleep();
	return claimed;
}
