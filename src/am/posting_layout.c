/*-------------------------------------------------------------------------
 *
 * posting_layout.c
 *	  Posting pages: whether sorted entries become a page of runs, laying
 *	  one out, and where a leaf page of runs splits.  The format is
 *	  described in posting.c; see README.md "Duplicates: posting pages".
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fpbtree.h"
#include "posting.h"

static bool fpb_posting_regular_fits_at(Page page, int n, double fill,
										int upper);

/* Distinct keys of sorted entries. */
static int
fpb_entries_runs(Page page, const FpbEntry *entries, int n)
{
	int			nruns = n > 0 ? 1 : 0;

	for (int i = 1; i < n; i++)
		nruns += !fpb_posting_same(page, &entries[i - 1], &entries[i]);
	return nruns;
}

/*
 * Bytes of lines a posting page of the sorted entries may use: all on a
 * narrow page; on a wide one what the slots of the runs' values and of the
 * high key's leave, in whole lines.
 */
static int
fpb_posting_room(Page page, const FpbEntry *entries, int n)
{
	int			upper;
	FpbEntry   *heads;
	int			nheads = 0;

	if (!(FpbPageGetOpaque(page)->flags & FPB_F_WIDE))
		return FPB_POSTING_BYTES;
	/* the runs' first entries, placed as fpb_layout_slots places them */
	heads = palloc(sizeof(FpbEntry) * Max(n, 1));
	for (int i = 0; i < n; i++)
		if (i == 0 || !fpb_posting_same(page, &entries[i - 1], &entries[i]))
			heads[nheads++] = entries[i];
	upper = fpb_slots_upper(page, heads, nheads);
	pfree(heads);
	if (upper < FPB_DATA_START)
		return 0;
	return Min(FPB_POSTING_BYTES,
			   (upper - FPB_DATA_START) / FPB_LINE * FPB_LINE);
}

/*
 * Do n entries in nruns runs fit one posting page with room bytes?  A
 * narrow page of one key has its own format; a wide page always has runs.
 */
static inline bool
fpb_runs_fit(bool wide, int nruns, int n, int room)
{
	if (n < 1 || n > FPB_POSTING_CAP)
		return false;
	return (nruns == 1 && !wide) || fpb_runs_bytes(nruns, n) <= room;
}

/*
 * Posting pages are leaves of narrow indexes, or of wide ones whose equal
 * values are equal bytes (FPB_F_DEDUP): there a run keeps one value.
 */
bool
fpb_posting_page_ok(Page page, int n)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);

	return FpbPageIsLeaf(opq) &&
		(!(opq->flags & FPB_F_WIDE) || (opq->flags & FPB_F_DEDUP)) &&
		n > 0 && n <= FPB_POSTING_CAP;
}

/* TID slots of a page of nruns runs format with room bytes */
static inline int
fpb_runs_slots(int nruns, int room)
{
	return Max(0, Min(FPB_POSTING_CAP,
					  (room - FPB_RUNS_HDR - nruns * FPB_RUN_BYTES) /
					  (int) sizeof(ItemPointerData)));
}

/*
 * Are n entries in nruns runs worth a posting page of room bytes instead
 * of a split?  They fit one, and have one key, or runs of two entries or
 * more on average that leave an eighth of the page's slots free.  A page
 * of runs of distinct keys would hold about what a regular page holds, and each entry of a new key would lay it out
 * again; and a page of runs with few free slots would be laid out again
 * (its free slots shared out anew, a record of most of the page) every few
 * inserts: better to split it, or first to let the inserter remove the
 * dead versions it may hold (insert.c), as a full page does.  (A split's
 * half may still become a page of shorter runs when it cannot be a regular
 * page: fpb_posting_layout.)
 */
static bool
fpb_runs_worth(bool wide, int nruns, int n, int room)
{
	int			nslots;

	if (nruns == 1 && !wide)
		return true;
	if (!fpb_runs_fit(wide, nruns, n, room))
		return false;
	if (nruns == 1)
		return true;
	if (2 * nruns > n)
		return false;
	nslots = fpb_runs_slots(nruns, room);
	return nslots - n >= nslots / 8;
}

/*
 * Could the sorted entries on page become a page of runs at all: a page
 * that may hold runs, and two equal entries or more?  A wide page that
 * could is laid out again while it fits, as before there were room rules
 * (page_insert.c), so that it becomes a page of runs where its entries no
 * longer fit a regular one (the versions of updated rows in a unique index,
 * say).
 */
bool
fpb_posting_candidate(Page page, const FpbEntry *entries, int n)
{
	return fpb_posting_page_ok(page, n) &&
		fpb_entries_runs(page, entries, n) < n;
}

/* fpb_runs_worth of sorted entries on page */
bool
fpb_posting_worth(Page page, const FpbEntry *entries, int n)
{
	if (!fpb_posting_page_ok(page, n))
		return false;
	return fpb_runs_worth((FpbPageGetOpaque(page)->flags & FPB_F_WIDE) != 0,
						  fpb_entries_runs(page, entries, n), n,
						  fpb_posting_room(page, entries, n));
}

/*
 * Would the entries fit a regular page laid out with fill?  On a wide page
 * each entry's value takes a slot besides.
 */
bool
fpb_posting_regular_fits(Page page, const FpbEntry *entries, int n,
						 double fill)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);

	return fpb_posting_regular_fits_at(page, n, fill,
									   (opq->flags & FPB_F_WIDE) ?
									   fpb_slots_upper(page, entries, n) : 0);
}

/* The same, with the entries' fpb_slots_upper (wide pages) given. */
static bool
fpb_posting_regular_fits_at(Page page, int n, double fill, int upper)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);

	if (!(opq->flags & FPB_F_WIDE))
		return n <= fpb_page_capacity(opq->w, opq->x, false, fill);
	return fpb_page_fits(opq->w, opq->x, false, fill, n,
						 (BLCKSZ - FPB_SPECIAL_SIZE) - upper);
}

/*
 * fpb_page_layout's choice: lay the sorted entries out as a posting page
 * when they fit one and are more than a regular page takes at the layout's
 * fill (the bulk load's fill, or FPB_REORG_MAX_FILL for the rebuilds after
 * the load), and, when of several keys, are worth it (fpb_posting_worth) or
 * too many for a regular page (a split's half, say).  Fewer entries stay a
 * regular page, where any entry can still be inserted in place.  Returns
 * true when it laid the page out.  On a wide page upper is where the
 * entries' values would begin on a regular page (fpb_slots_upper), which
 * the caller has worked out anyway.
 *
 * A page of runs takes every line: the slots the entries leave free are
 * shared out among the runs in proportion to their entries (a longer run
 * gets more new rows), each run's after its TIDs.  A wide page's lines end
 * where the slots of the runs' values begin, one value a run.
 */
bool
fpb_posting_layout(Page page, const FpbEntry *entries, int n, double fill,
				   int upper)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	bool		wide = (opq->flags & FPB_F_WIDE) != 0;
	FpbRuns		v;
	int			nruns;
	int			nslots;
	int			lines;
	int			slot;
	int			i;
	int		   *runlen;
	uint64	   *wkeys = NULL;
	double		regfill = fill > 0 ? fill : FPB_REORG_MAX_FILL;

	/* the cheap tests first: most layouts are of a regular page's entries */
	if (!fpb_posting_page_ok(page, n) ||
		(!wide && n <= fpb_page_capacity(opq->w, opq->x, false, regfill)) ||
		(wide && fpb_posting_regular_fits_at(page, n, regfill, upper)))
	{
		opq->flags &= ~(FPB_F_POSTING | FPB_F_RUNS);
		return false;
	}
	nruns = fpb_entries_runs(page, entries, n);
	{
		int			room = fpb_posting_room(page, entries, n);

		if (!fpb_runs_fit(wide, nruns, n, room) ||
			(fpb_posting_regular_fits_at(page, n, 1.0, upper) &&
			 !fpb_runs_worth(wide, nruns, n, room)))
		{
			opq->flags &= ~(FPB_F_POSTING | FPB_F_RUNS);
			return false;
		}
		nslots = (nruns == 1 && !wide) ? n : fpb_runs_slots(nruns, room);
	}
	Assert(nslots >= n);
	lines = (nruns == 1 && !wide) ? fpb_posting_lines(n) :
		fpb_runs_lines(nruns, nslots);

	/* the runs, before a wide page's values are rewritten */
	runlen = palloc(sizeof(int) * nruns);
	for (int r = 0, j = 0; r < nruns; r++)
	{
		int			first = j;

		for (j++; j < n && fpb_posting_same(page, &entries[j - 1], &entries[j]);
			 j++)
			;
		runlen[r] = j - first;
	}
	if (wide)
	{
		/* one value a run: the slots of the runs' first entries */
		FpbEntry   *heads = palloc(sizeof(FpbEntry) * nruns);

		for (int r = 0, j = 0; r < nruns; j += runlen[r++])
			heads[r] = entries[j];
		wkeys = fpb_layout_slots(page, heads, nruns,
								 fpb_slots_upper(page, heads, nruns));
		pfree(heads);
		Assert(FPB_DATA_START + lines * FPB_LINE <=
			   ((PageHeader) page)->pd_upper);
	}
	memset(fpb_line(page, 0), 0, (Size) lines * FPB_LINE);
	opq->flags |= FPB_F_POSTING;
	if (nruns == 1 && !wide)
		opq->flags &= ~FPB_F_RUNS;
	else
	{
		opq->flags |= FPB_F_RUNS;
		((uint32 *) fpb_line(page, 0))[0] = (uint32) nruns;
		((uint32 *) fpb_line(page, 0))[1] = (uint32) nslots;
	}
	opq->nentries = n;
	fpb_posting_view(page, &v);
	slot = 0;
	i = 0;
	for (int r = 0; r < nruns; r++)
	{
		v.keys[r] = wkeys ? wkeys[r] : entries[i].k;
		if (v.starts)
			v.starts[r] = (uint16) slot;
		for (int j = 0; j < runlen[r]; j++, i++)
			fpb_t_to_tid(entries[i].t, &v.tids[slot++]);
		if (v.ends)
		{
			v.ends[r] = (uint16) slot;
			/* this run's share of the free slots, the rest after the last */
			if (r + 1 < nruns)
				slot += (int) ((int64) (nslots - n) * runlen[r] / n);
		}
	}
	Assert(i == n && slot <= nslots);
	pfree(runlen);
	if (wkeys)
		pfree(wkeys);
	opq->root = opq->firstleaf = opq->lastleaf = FPB_NONE;
	opq->ipheight = 0;
	opq->hwm = lines;
	((PageHeader) page)->pd_lower = FPB_DATA_START + opq->hwm * FPB_LINE;
	return true;
}

/*
 * Does a leaf split's half [from, to) fit one page?  bnd[i] counts the key
 * changes among ents[0..i], so the half has 1 + bnd[to - 1] - bnd[from]
 * keys.
 */
static inline bool
fpb_split_half_fits(const int *bnd, int from, int to, int regcap, bool wide)
{
	/* a wide half's fit depends on its values: the split tries layouts */
	return wide || (to - from <= regcap) ||
		fpb_runs_fit(false, 1 + bnd[to - 1] - bnd[from], to - from,
					 FPB_POSTING_BYTES);
}

/*
 * Where a leaf page split divides its n sorted entries (the new one
 * included), given the split point mid the page would have without posting
 * pages.  Both halves must fit (a half of more than a regular page's
 * entries only as a posting page), and the boundary between two keys
 * nearest to mid is taken over any cut inside a run, as nbtree's
 * many-duplicates split does: a run then stays whole on one side and grows
 * there.  Cut inside a run, its half would never fill when the run grows at
 * its end (new heap rows: ascending TIDs go to the right half), and the
 * run would be left on half-full pages.  A page of one key whose new entry
 * comes last keeps 96% on the left, as nbtree's single-value split does,
 * since the left half of such a run rarely gets more; a page of one run
 * that a greater key splits sends the run's last entry right with it.
 */
int
fpb_posting_split_point(Page page, const FpbEntry *ents, int n, int mid,
						int newpos)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	bool		wide = (opq->flags & FPB_F_WIDE) != 0;
	int			regcap = fpb_page_capacity(opq->w, opq->x, false, 1.0);
	int		   *bnd = palloc(sizeof(int) * n);
	bool		onekey;
	int			best = -1;
	int64		bestcost = PG_INT64_MAX;

	bnd[0] = 0;
	for (int i = 1; i < n; i++)
		bnd[i] = bnd[i - 1] + !fpb_posting_same(page, &ents[i], &ents[i - 1]);
	onekey = (bnd[n - 1] == 0);
	if (onekey && newpos == n - 1)
		mid = Max(1, (int) ((int64) n * FPB_POSTING_SPLIT_FILL / 100));
	if (!onekey &&
		fpb_split_half_fits(bnd, 0, mid, regcap, wide) &&
		fpb_split_half_fits(bnd, mid, n, regcap, wide) &&
		bnd[mid - 1] != bnd[mid])
		best = mid;
	else
	{
		for (int i = 1; i < n; i++)
		{
			int64		cost = Abs(i - mid);

			if (bnd[i - 1] == bnd[i])
				cost += n;
			if (cost < bestcost &&
				fpb_split_half_fits(bnd, 0, i, regcap, wide) &&
				fpb_split_half_fits(bnd, i, n, regcap, wide))
			{
				best = i;
				bestcost = cost;
			}
		}
		if (best < 0)
			elog(ERROR, "fpbtree: no split point of %d entries fits two pages",
				 n);
	}

	/*
	 * A page of one run that a greater key splits: kept whole, the run would
	 * stay full on the left behind the separator (new key, -inf), and the
	 * next key between the run and the new one (a descending key just above
	 * a growing run) would come back to it, split it again and get a page
	 * of its own, one page per entry.  The run's last entry goes right as
	 * well: the separator then lies inside the run, and such keys, and the
	 * run's later entries, join the right page.
	 */
	if (FpbPageIsPosting(opq) && newpos == n - 1 && best == n - 1 &&
		n >= 3 && bnd[n - 2] == 0 && bnd[n - 1] == 1)
		best = n - 2;
	pfree(bnd);
	return best;
}
