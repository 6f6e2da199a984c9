/*-------------------------------------------------------------------------
 *
 * posting.c
 *	  Posting pages: a leaf page of runs of equal keys keeps each key once
 *	  and the sorted arrays of their tiebreakers (heap TIDs).
 *
 * The page has the flag FPB_F_POSTING and no in-page tree (ipheight 0,
 * root and leaf node lines FPB_NONE).  A page of one key has, from
 * FPB_DATA_START: the key (8 bytes), then nentries 6-byte TIDs in
 * ascending tiebreaker order, each as a leaf node keeps it (NULL flag, dead
 * mark); hwm = fpb_posting_lines(nentries).  A page of several keys (flag
 * FPB_F_RUNS as well) has a header word holding the number of runs r and of
 * TID slots s, the r keys ascending, the r runs' first slots, the r runs'
 * end slots (uint16 each), then the s slots: each run's TIDs, ascending,
 * followed by free (zero) slots up to the next run's first slot; hwm =
 * fpb_runs_lines(r, s).  The free slots let a run take new entries in
 * place, shifting only its own TIDs above the new one (none when it comes
 * last, as a new heap row's does), so the record of such an insert is a few
 * bytes, not the rest of the page.  The lines holding the body are in use,
 * pd_lower just past.  The order (k, t) is the one of every other page; a
 * (k, t) is found by a binary search on the keys, then one on t within the
 * run.  fpb_page_layout chooses the format (posting_layout.c), so
 * every writer that rebuilds a page (build, reorganisation, split halves,
 * VACUUM, removal of dead entries) makes or undoes posting pages by itself;
 * page.c's readers call in here when they meet the flag.  See README.md
 * "Duplicates: posting pages".
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "fpbtree.h"
#include "posting.h"

static void
fpb_posting_corrupt(BlockNumber blkno, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("fpbtree page %u is corrupted: %s", blkno, what)));
}

/* The pointers of a page's runs, unchecked (see fpb_posting_get). */
void
fpb_posting_view(Page page, FpbRuns *v)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	char	   *body = fpb_line(page, 0);

	v->page = page;
	v->blkno = InvalidBlockNumber;
	v->wide = (opq->flags & FPB_F_WIDE) != 0;
	v->n = opq->nentries;
	if (!(opq->flags & FPB_F_RUNS))
	{
		v->nslots = v->n;
		v->nruns = 1;
		v->keys = (uint64 *) body;
		v->starts = v->ends = NULL;
		v->tids = (ItemPointerData *) (body + sizeof(uint64));
		return;
	}
	v->nruns = (int) ((uint32 *) body)[0];
	v->nslots = (int) ((uint32 *) body)[1];
	v->keys = (uint64 *) (body + FPB_RUNS_HDR);
	v->starts = (uint16 *) (body + FPB_RUNS_HDR + v->nruns * sizeof(uint64));
	v->ends = v->starts + v->nruns;
	v->tids = (ItemPointerData *) (body + FPB_RUNS_HDR +
								   v->nruns * FPB_RUN_BYTES);
}

/*
 * Is the header of a page of runs sound: run and slot counts within the
 * lines in use?  (Then its arrays lie inside the page.)
 */
static bool
fpb_runs_header_ok(Page page)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	uint32		nruns = ((uint32 *) fpb_line(page, 0))[0];
	uint32		nslots = ((uint32 *) fpb_line(page, 0))[1];
	int			n = opq->nentries;

	/* a wide page's runs always have this format, even a single one */
	return n >= 1 && n <= FPB_POSTING_CAP &&
		nruns >= ((opq->flags & FPB_F_WIDE) ? 1 : 2) &&
		nruns <= (uint32) n && nslots >= (uint32) n &&
		nslots <= (uint32) FPB_POSTING_CAP &&
		fpb_runs_bytes((int) nruns, (int) nslots) <= FPB_POSTING_BYTES &&
		opq->hwm == fpb_runs_lines((int) nruns, (int) nslots);
}

/*
 * Are the runs of a page with a sound header in order: each run's slots
 * inside the array, after the previous run's, not empty, the first at slot
 * 0, the keys strictly ascending, and the entries adding up to the count?
 * Returns NULL or what is wrong.
 */
static const char *
fpb_runs_order_problem(const FpbRuns *v)
{
	int			n = 0;

	if (v->starts[0] != 0)
		return "posting page's first run does not start at slot 0";
	for (int r = 0; r < v->nruns; r++)
	{
		if (fpb_run_end(v, r) <= fpb_run_start(v, r) ||
			fpb_run_end(v, r) > fpb_run_limit(v, r))
			return "posting page runs overlap or are empty";
		/* a wide key's order lies in its value: fpb_check_posting */
		if (r > 0 && (v->wide ?
					  FPB_WIDE_PREFIX(v->keys[r]) <
					  FPB_WIDE_PREFIX(v->keys[r - 1]) :
					  v->keys[r] <= v->keys[r - 1]))
			return "posting page runs' keys are out of order";
		n += fpb_run_end(v, r) - fpb_run_start(v, r);
	}
	if (n != v->n)
		return "posting page runs do not add up to its entry count";
	return NULL;
}

/*
 * The page's runs, checked against the lines in use before anything is
 * read through them: a damaged page raises an error here, never sends a
 * reader out of the page.  O(runs), a small part of reading the page.
 */
static void
fpb_posting_get(Page page, BlockNumber blkno, FpbRuns *v)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	int			n = opq->nentries;
	const char *problem;

	if (!(opq->flags & FPB_F_RUNS))
	{
		if (n < 1 || n > FPB_POSTING_CAP ||
			opq->hwm != fpb_posting_lines(n) || (opq->flags & FPB_F_WIDE))
			fpb_posting_corrupt(blkno, "posting page header is invalid");
		fpb_posting_view(page, v);
		v->blkno = blkno;
		return;
	}
	if (!fpb_runs_header_ok(page))
		fpb_posting_corrupt(blkno, "posting page header is invalid");
	fpb_posting_view(page, v);
	v->blkno = blkno;
	if ((problem = fpb_runs_order_problem(v)) != NULL)
		fpb_posting_corrupt(blkno, problem);
}

/* A run's value on a wide page (NULL for a run of NULLs). */
static inline const char *
fpb_run_value(const FpbRuns *v, int r)
{
	return fpb_slot_get(v->page, v->keys[r], v->blkno);
}

/*
 * Run r's key against the key of (k, t, f), tiebreakers aside: on a wide
 * page by prefix, NULL bit (each TID of a run carries it) and value.
 */
static inline int
fpb_run_keycmp(const FpbRuns *v, const FpbCmp *cmp, int r, uint64 k,
			   uint64 t, const char *f)
{
	uint64		rt;

	if (!v->wide)
		return v->keys[r] < k ? -1 : (v->keys[r] > k ? 1 : 0);
	Assert(cmp != NULL);
	rt = fpb_tid_to_t(&v->tids[fpb_run_start(v, r)]) & FPB_T_NULLBIT;
	return fpb_wide_cmp(cmp, v->keys[r], rt, fpb_run_value(v, r),
						k, t & FPB_T_NULLBIT, f);
}

/* First run whose key is >= (k, f) (nruns when none). */
static int
fpb_runs_lower(const FpbRuns *v, const FpbCmp *cmp, uint64 k, uint64 t,
			   const char *f)
{
	int			lo = 0,
				hi = v->nruns;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (fpb_run_keycmp(v, cmp, mid, k, t, f) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The run whose slots (free ones included) hold slot i, 0 <= i < nslots. */
static int
fpb_run_of(const FpbRuns *v, int i)
{
	int			lo = 0,
				hi = v->nruns - 1;

	while (lo < hi)
	{
		int			mid = (lo + hi + 1) / 2;

		if (fpb_run_start(v, mid) <= i)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/*
 * First slot whose entry is >= (k, t), or with after_equal > (k, t): a slot
 * of k's run (its end slot when every entry is below), or the first slot of
 * the next run, or nslots.  *run is set to the run of key k, or -1 when the
 * page has no such key.
 */
static int
fpb_posting_search(const FpbRuns *v, const FpbCmp *cmp, uint64 k, uint64 t,
				   const char *f, bool after_equal, int *run)
{
	int			r = fpb_runs_lower(v, cmp, k, t, f);
	int			lo,
				hi;

	*run = -1;
	if (r >= v->nruns)
		return v->nslots;
	lo = fpb_run_start(v, r);
	if (fpb_run_keycmp(v, cmp, r, k, t, f) != 0)
		return lo;
	*run = r;
	hi = fpb_run_end(v, r);
	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;
		uint64		mt = fpb_tid_to_t(&v->tids[mid]);

		if (after_equal ? (mt <= t) : (mt < t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Do two entries of the page's index share a run?  Narrow: the same key.
 * Wide (FPB_F_DEDUP): the same prefix, NULL bit and value bytes, which
 * for such an index is the same value (wide.c, fpb_col_dedup).
 */
bool
fpb_posting_same(Page page, const FpbEntry *a, const FpbEntry *b)
{
	if (!(FpbPageGetOpaque(page)->flags & FPB_F_WIDE))
		return a->k == b->k;
	return fpb_entry_image_same(FpbPageGetOpaque(page)->fulllen, a, b);
}

/* fpb_page_collect_marks of a posting page */
int
fpb_posting_collect(Page page, FpbEntry *out, bool *dead, BlockNumber blkno)
{
	FpbRuns		v;
	int			m = 0;

	fpb_posting_get(page, blkno, &v);
	for (int r = 0; r < v.nruns; r++)
	{
		const char *f = v.wide ? fpb_run_value(&v, r) : NULL;

		for (int i = fpb_run_start(&v, r); i < fpb_run_end(&v, r); i++, m++)
		{
			out[m].k = v.keys[r];
			out[m].t = fpb_tid_to_t(&v.tids[i]);
			out[m].child = InvalidBlockNumber;
			out[m].f = f;
			if (dead)
				dead[m] = fpb_tid_is_dead(&v.tids[i]);
		}
	}
	Assert(m == v.n);
	return m;
}

/* fpb_page_mark_dead of a posting page */
bool
fpb_posting_mark_dead(Page page, uint64 k, uint64 t, BlockNumber blkno)
{
	FpbRuns		v;
	int			r;
	int			i;

	fpb_posting_get(page, blkno, &v);
	if (v.wide)
	{
		/*
		 * A scan keeps no values: the entry is the one of its prefix with
		 * TID t (no other entry has that TID), in one of the runs of the
		 * prefix.
		 */
		for (r = 0; r < v.nruns; r++)
		{
			int			lo = fpb_run_start(&v, r),
						hi = fpb_run_end(&v, r);

			if (FPB_WIDE_PREFIX(v.keys[r]) != FPB_WIDE_PREFIX(k))
				continue;
			while (lo < hi)
			{
				int			mid = (lo + hi) / 2;

				if (fpb_tid_to_t(&v.tids[mid]) < t)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < fpb_run_end(&v, r) && fpb_tid_to_t(&v.tids[lo]) == t)
			{
				if (fpb_tid_is_dead(&v.tids[lo]))
					return false;
				v.tids[lo].ip_posid |= FPB_TID_DEADFLAG;
				return true;
			}
		}
		return false;
	}
	i = fpb_posting_search(&v, NULL, k, t, NULL, false, &r);
	if (r < 0 || i >= fpb_run_end(&v, r) ||
		fpb_tid_to_t(&v.tids[i]) != t || fpb_tid_is_dead(&v.tids[i]))
		return false;
	v.tids[i].ip_posid |= FPB_TID_DEADFLAG;
	return true;
}

/* fpb_page_count_dead of a posting page */
int
fpb_posting_count_dead(Page page, BlockNumber blkno)
{
	FpbRuns		v;
	int			ndead = 0;

	fpb_posting_get(page, blkno, &v);
	for (int r = 0; r < v.nruns; r++)
		for (int i = fpb_run_start(&v, r); i < fpb_run_end(&v, r); i++)
			ndead += fpb_tid_is_dead(&v.tids[i]);
	return ndead;
}

/*
 * The entries a posting page holds when full: its slots (a page of one key
 * takes up to FPB_POSTING_CAP).  For fpbtree_stats' fill; the page was
 * checked by fpb_page_check_sane.
 */
int
fpb_posting_capacity(Page page, BlockNumber blkno)
{
	FpbRuns		v;

	if (!(FpbPageGetOpaque(page)->flags & FPB_F_RUNS))
		return FPB_POSTING_CAP;
	if (!fpb_runs_header_ok(page))
		fpb_posting_corrupt(blkno, "posting page header is invalid");
	fpb_posting_view(page, &v);
	return v.nslots;
}

/* fpb_page_key_run of a posting page */
int
fpb_posting_key_run(Page page, const FpbCmp *cmp, const FpbEntry *lo,
					const FpbEntry *hi, BlockNumber blkno, uint64 *out,
					bool *ended)
{
	FpbRuns		v;
	int			r;
	int			from;
	int			m = 0;

	fpb_posting_get(page, blkno, &v);
	from = fpb_posting_search(&v, cmp, lo->k, lo->t, lo->f, false, &r);
	*ended = false;
	if (from >= v.nslots)
		return 0;
	for (r = fpb_run_of(&v, from); r < v.nruns; r++)
	{
		uint64		k = v.keys[r];
		const char *f = v.wide ? fpb_run_value(&v, r) : NULL;

		for (int i = Max(from, fpb_run_start(&v, r)); i < fpb_run_end(&v, r);
			 i++)
		{
			uint64		t = fpb_tid_to_t(&v.tids[i]);

			if (v.wide ? fpb_wide_cmp(cmp, k, t, f, hi->k, hi->t, hi->f) > 0 :
				(k > hi->k || (k == hi->k && t > hi->t)))
			{
				*ended = true;
				return m;
			}
			out[m++] = t;
		}
	}
	return m;
}

/*
 * A scan's copy of the entries in [(lok, lot), (hik, hit)], skipping those
 * marked dead when skipdead.  *before_lo is set when the page holds entries
 * below the interval.  items has room for the page's entries.
 */
int
fpb_posting_scan(Page page, const FpbCmp *cmp, BlockNumber blkno,
				 const FpbEntry *lo, const FpbEntry *hi, bool skipdead,
				 FpbScanItem *items, bool *before_lo)
{
	FpbRuns		v;
	int			r;
	int			from;
	int			to;
	int			m = 0;

	fpb_posting_get(page, blkno, &v);
	from = fpb_posting_search(&v, cmp, lo->k, lo->t, lo->f, false, &r);
	to = fpb_posting_search(&v, cmp, hi->k, hi->t, hi->f, true, &r);
	/* the first run starts at slot 0: any slot before from holds an entry */
	*before_lo = from > 0;
	if (from >= to)
		return 0;
	for (r = fpb_run_of(&v, from); r < v.nruns && fpb_run_start(&v, r) < to;
		 r++)
	{
		int			last = Min(to, fpb_run_end(&v, r));

		for (int i = Max(from, fpb_run_start(&v, r)); i < last; i++)
		{
			if (skipdead && fpb_tid_is_dead(&v.tids[i]))
				continue;
			items[m].k = v.keys[r];
			items[m].t = fpb_tid_to_t(&v.tids[i]);
			items[m].f = NULL;
			m++;
		}
	}
	return m;
}

/*
 * fpb_page_insert_slot of a posting page: the entry's slot when its key has
 * a run on the page and the run a free slot after it (on a page of one key:
 * room in the array), else -1: fpb_posting_insert then lays the page out
 * again with the entry, or the page splits (see fpb_posting_split_point).
 */
int
fpb_posting_insert_slot(Page page, const FpbCmp *cmp, const FpbEntry *e,
						BlockNumber blkno, int *pos)
{
	FpbRuns		v;
	int			r;
	int			i;

	fpb_posting_get(page, blkno, &v);
	i = fpb_posting_search(&v, cmp, e->k, e->t, e->f, false, &r);
	if (r < 0)
		return -1;
	if (v.ends == NULL ? v.n >= FPB_POSTING_CAP :
		fpb_run_end(&v, r) >= fpb_run_limit(&v, r))
		return -1;
	*pos = i;
	return FPB_DATA_START;
}

/*
 * fpb_page_insert_at of a posting page: shift the run's TIDs from pos on up
 * by one slot.  A page of one key takes one more line when its array grows
 * into it: the new line was in the hole, zero in the replayed page and
 * zeroed here; the record names pd_lower and hwm, so the hole shrinks in
 * both.  A page of runs uses all its lines already; the run's end moves.
 */
int
fpb_posting_insert_at(Page page, int pos, const FpbEntry *e,
					  FpbByteRange *ranges)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	FpbRuns		v;
	int			n = opq->nentries;
	int			nr = 0;
	int			r = 0;
	int			end;
	uint16		hwm;

	fpb_posting_view(page, &v);
	if (v.ends)
	{
		/* pos lies in its run's slots, at most at its end (insert_slot) */
		r = fpb_run_of(&v, pos);
		end = fpb_run_end(&v, r);
		Assert(pos >= fpb_run_start(&v, r) && pos <= end);
		Assert(end < fpb_run_limit(&v, r));
		hwm = opq->hwm;
	}
	else
	{
		end = n;
		hwm = fpb_posting_lines(n + 1);
	}

	/*
	 * A new line comes from the hole, which is zero after WAL replay but may
	 * hold old bytes in an unlogged index's page (wal.c zeroes the hole only
	 * when it logs): zero it, so the page past the last TID is zero always.
	 */
	if (hwm != opq->hwm)
		memset(fpb_line(page, opq->hwm), 0, (Size) (hwm - opq->hwm) * FPB_LINE);
	memmove(&v.tids[pos + 1], &v.tids[pos],
			(end - pos) * sizeof(ItemPointerData));
	fpb_t_to_tid(e->t, &v.tids[pos]);
	opq->nentries = n + 1;
	if (v.ends)
		v.ends[r]++;

#define FPB_RANGE(ptr, size) \
	(ranges[nr].off = (uint16) ((char *) (ptr) - (char *) page), \
	 ranges[nr].len = (uint16) (size), nr++)
	FPB_RANGE(&v.tids[pos], (end + 1 - pos) * sizeof(ItemPointerData));
	if (v.ends)
		FPB_RANGE(&v.ends[r], sizeof(uint16));
	FPB_RANGE(&opq->nentries, sizeof(opq->nentries));
	if (hwm != opq->hwm)
	{
		opq->hwm = hwm;
		((PageHeader) page)->pd_lower = FPB_DATA_START + hwm * FPB_LINE;
		FPB_RANGE(&opq->hwm, sizeof(opq->hwm));
		FPB_RANGE(&((PageHeader) page)->pd_lower, sizeof(LocationIndex));
	}
#undef FPB_RANGE
	Assert(nr <= FPB_INSERT_RANGES);
	return nr;
}

/*
 * fpb_page_insert of a posting page: false when the page must split.  An
 * entry of a key with a run and a free slot goes in place; one of a new key
 * (or one that finds no free slot) lays the page out again with it, which
 * shares out the free slots anew, when the entries still fit a page, in
 * either format, and are worth a posting page.
 */
bool
fpb_posting_insert(Page page, const FpbCmp *cmp, const FpbEntry *e,
				   BlockNumber blkno)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	FpbByteRange ranges[FPB_INSERT_RANGES];
	FpbEntry   *ents;
	int			n;
	int			pos;
	bool		ok = false;

	if (fpb_posting_insert_slot(page, cmp, e, blkno, &pos) >= 0)
	{
		(void) fpb_posting_insert_at(page, pos, e, ranges);
		return true;
	}
	n = opq->nentries;
	ents = palloc(sizeof(FpbEntry) * (n + 1));
	(void) fpb_posting_collect(page, ents, NULL, blkno);
	for (pos = n; pos > 0 && fpb_entry_cmp(cmp, &ents[pos - 1], e) > 0; pos--)
		ents[pos] = ents[pos - 1];
	ents[pos] = *e;
	if (fpb_posting_worth(page, ents, n + 1) ||
		fpb_posting_regular_fits(page, ents, n + 1, FPB_REORG_MAX_FILL))
		ok = fpb_page_layout(page, ents, n + 1, 0);
	pfree(ents);
	return ok;
}

/*
 * fpbtree_check of a wide page of runs: the index may have one, each run's
 * value lies in the slotted area, is there exactly for runs that are not
 * NULL, has the key's prefix, and the runs ascend by value.
 */
static void
fpb_check_posting_wide(Relation index, const FpbRuns *v)
{
	const FpbCmp *cmp = fpb_index_cmp(index);
	FmgrInfo   *encproc;

	if (cmp == NULL || !cmp->dedup ||
		!(FpbPageGetOpaque(v->page)->flags & FPB_F_DEDUP))
		fpb_index_corrupt(index, v->blkno,
						  "Page is a wide posting page, but the index's values cannot share runs.");
	encproc = cmp->multi ? NULL : index_getprocinfo(index, 1, FPB_ENCODE_PROC);
	for (int r = 0; r < v->nruns; r++)
	{
		uint64		t = fpb_tid_to_t(&v->tids[fpb_run_start(v, r)]);
		const char *f = fpb_run_value(v, r);

		/* a multi-column entry has a tuple, also with a NULL first column */
		if (cmp->multi ? f == NULL : (f == NULL) != ((t & FPB_T_NULLBIT) != 0))
			fpb_index_corrupt(index, v->blkno,
							  "Posting page run %d %s a value.", r,
							  f ? "is NULL but has" : "has no");
		if (cmp->multi)
			fpb_check_multi_key(index, cmp, f, v->keys[r], t, v->blkno,
								psprintf("Posting page run %d", r), false);
		else if (f != NULL)
		{
			uint64		p;

			if (!fpb_full_compress_ok(cmp, f))
				fpb_index_corrupt(index, v->blkno,
								  "Posting page run %d has a compressed value the index's format does not allow.",
								  r);
			if (!fpb_full_prefix_ok(cmp, encproc, f, v->keys[r], &p))
				fpb_index_corrupt(index, v->blkno,
								  "Posting page run %d has a prefix that differs from its value's, %s.",
								  r, fpb_keydesc(FPB_WIDE_PREFIX(p), t));
		}
		if (r > 0 &&
			fpb_run_keycmp(v, cmp, r - 1, v->keys[r], t, f) >= 0)
			fpb_index_corrupt(index, v->blkno,
							  "Posting page run %d is not above run %d.",
							  r, r - 1);
	}
}

/*
 * fpbtree_check of a posting page: the header, each key once and in
 * ascending order, the runs in order within the slots, the TIDs of each run
 * strictly ascending (dead marks allowed, as on any leaf entry), the free
 * slots and the bytes past the last slot in its line zero.  Returns the
 * entries, as fpb_check_inpage does.
 */
FpbEntry *
fpb_check_posting(Relation index, Page page, BlockNumber blkno,
				  int *nentries)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	int			n = opq->nentries;
	bool		runs = (opq->flags & FPB_F_RUNS) != 0;
	FpbRuns		v;
	FpbEntry   *ents;
	const char *problem;
	char	   *tail;
	char	   *end;
	int			m = 0;

	if (!FpbPageIsLeaf(opq) || opq->ipheight != 0 || opq->root != FPB_NONE ||
		opq->firstleaf != FPB_NONE || opq->lastleaf != FPB_NONE)
		fpb_index_corrupt(index, blkno,
						  "Posting page has level %u, in-page height %u, root %u.",
						  opq->level, opq->ipheight, opq->root);
	if (runs ? !fpb_runs_header_ok(page) :
		(n < 1 || n > FPB_POSTING_CAP || opq->hwm != fpb_posting_lines(n)))
		fpb_index_corrupt(index, blkno,
						  "Posting page holds %d entries in %u runs, %u slots and %u lines.",
						  n, runs ? ((uint32 *) fpb_line(page, 0))[0] : 1,
						  runs ? ((uint32 *) fpb_line(page, 0))[1] : n,
						  opq->hwm);
	fpb_posting_view(page, &v);
	v.blkno = blkno;
	if (runs && (problem = fpb_runs_order_problem(&v)) != NULL)
		fpb_index_corrupt(index, blkno, "The %s.", problem);
	if (v.wide)
		fpb_check_posting_wide(index, &v);
	ents = palloc(sizeof(FpbEntry) * n);
	for (int r = 0; r < v.nruns; r++)
	{
		uint64		k = v.keys[r];
		const char *f = v.wide ? fpb_run_value(&v, r) : NULL;

		for (int i = fpb_run_start(&v, r); i < fpb_run_end(&v, r); i++, m++)
		{
			ents[m].k = k;
			ents[m].t = fpb_tid_to_t(&v.tids[i]);
			ents[m].child = InvalidBlockNumber;
			ents[m].f = f;
			if (v.wide)
			{
				if (((ents[m].t ^ ents[m - (i - fpb_run_start(&v, r))].t) &
					 FPB_T_NULLBIT) != 0)
					fpb_index_corrupt(index, blkno,
									  "Posting page run %d mixes NULL and non-NULL entries.",
									  r);
			}
			else if ((ents[m].t & FPB_T_NULLBIT) && k != FPB_KEY_MAX)
				fpb_index_corrupt(index, blkno,
								  "Posting page entry %d is NULL but the key is %s.",
								  m, fpb_keydesc(k, ents[m].t));
			if (i > fpb_run_start(&v, r) && ents[m].t <= ents[m - 1].t)
				fpb_index_corrupt(index, blkno,
								  "Posting page entry %d %s is not above entry %d.",
								  m, fpb_keydesc(k, ents[m].t), m - 1);
		}
		/* the run's free slots */
		for (tail = (char *) &v.tids[fpb_run_end(&v, r)];
			 tail < (char *) &v.tids[fpb_run_limit(&v, r)]; tail++)
			if (*tail != 0)
				fpb_index_corrupt(index, blkno,
								  "Posting page has data in the free slots of run %d.",
								  r);
	}
	end = fpb_line(page, opq->hwm);
	for (tail = (char *) &v.tids[v.nslots]; tail < end; tail++)
		if (*tail != 0)
			fpb_index_corrupt(index, blkno,
							  "Posting page has data past its %d slots.",
							  v.nslots);
	*nentries = n;
	return ents;
}
