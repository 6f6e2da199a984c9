/*-------------------------------------------------------------------------
 *
 * posting.c
 *	  Posting pages: a leaf page whose entries all share one key keeps the
 *	  key once and the sorted array of their tiebreakers (heap TIDs).
 *
 * The page has the flag FPB_F_POSTING and no in-page tree (ipheight 0,
 * root and leaf node lines FPB_NONE).  Its body, from FPB_DATA_START: the
 * key (8 bytes), then nentries 6-byte TIDs in ascending tiebreaker order,
 * each as a leaf node keeps it (NULL flag, dead mark).  The lines holding
 * them are in use: hwm = fpb_posting_lines(nentries), pd_lower just past.
 * The order (k, t) is the one of every other page; a (k, t) is found by a
 * binary search on t.  fpb_page_layout chooses the format (see
 * fpb_posting_layout), so every writer that rebuilds a page (build,
 * reorganisation, split halves, VACUUM, removal of dead entries) makes or
 * undoes posting pages by itself; page.c's readers call in here when they
 * meet the flag.  See README.md "Duplicates: posting pages".
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fpbtree.h"

static inline uint64 *
fpb_posting_keyp(Page page)
{
	return (uint64 *) fpb_line(page, 0);
}

static inline ItemPointerData *
fpb_posting_tids(Page page)
{
	return (ItemPointerData *) (fpb_line(page, 0) + sizeof(uint64));
}

static void
fpb_posting_corrupt(BlockNumber blkno, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("fpbtree page %u is corrupted: %s", blkno, what)));
}

/* The page's key and entry count, checked against the lines in use. */
static int
fpb_posting_get(Page page, BlockNumber blkno, uint64 *k)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	int			n = opq->nentries;

	if (n < 1 || n > FPB_POSTING_CAP || opq->hwm != fpb_posting_lines(n))
		fpb_posting_corrupt(blkno, "posting page header is invalid");
	*k = *fpb_posting_keyp(page);
	return n;
}

/*
 * First position whose entry is >= (k, t), or with after_equal > (k, t),
 * in a posting page of key pk with n TIDs.
 */
static int
fpb_posting_search(const ItemPointerData *tids, int n, uint64 pk,
				   uint64 k, uint64 t, bool after_equal)
{
	int			lo = 0,
				hi = n;

	if (pk != k)
		return pk < k ? n : 0;
	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;
		uint64		mt = fpb_tid_to_t(&tids[mid]);

		if (after_equal ? (mt <= t) : (mt < t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Can entries[0..n) be one posting page?  Leaf pages only, one key, and
 * the TIDs fit.
 */
bool
fpb_posting_fits(Page page, const FpbEntry *entries, int n)
{
	/* narrow leaves only: a wide entry's key is its value, not k */
	return FpbPageIsLeaf(FpbPageGetOpaque(page)) &&
		!(FpbPageGetOpaque(page)->flags & FPB_F_WIDE) && n > 0 &&
		n <= FPB_POSTING_CAP && entries[0].k == entries[n - 1].k;
}

/*
 * fpb_page_layout's choice: lay the sorted entries out as a posting page
 * when they share one key and are more than a regular page takes at the
 * layout's fill (the bulk load's fill, or FPB_REORG_MAX_FILL for the
 * rebuilds after the load).  Fewer entries stay a regular page, where
 * entries of other keys can still be inserted without a split.  Returns
 * true when it laid the page out.
 */
bool
fpb_posting_layout(Page page, const FpbEntry *entries, int n, double fill)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	ItemPointerData *tids;

	if (!fpb_posting_fits(page, entries, n) ||
		n <= fpb_page_capacity(opq->w, opq->x, false,
							   fill > 0 ? fill : FPB_REORG_MAX_FILL))
	{
		opq->flags &= ~FPB_F_POSTING;
		return false;
	}
	memset(fpb_line(page, 0), 0, (Size) fpb_posting_lines(n) * FPB_LINE);
	*fpb_posting_keyp(page) = entries[0].k;
	tids = fpb_posting_tids(page);
	for (int i = 0; i < n; i++)
		fpb_t_to_tid(entries[i].t, &tids[i]);
	opq->flags |= FPB_F_POSTING;
	opq->root = opq->firstleaf = opq->lastleaf = FPB_NONE;
	opq->ipheight = 0;
	opq->nentries = n;
	opq->hwm = fpb_posting_lines(n);
	((PageHeader) page)->pd_lower = FPB_DATA_START + opq->hwm * FPB_LINE;
	return true;
}

/* fpb_page_collect_marks of a posting page */
int
fpb_posting_collect(Page page, FpbEntry *out, bool *dead, BlockNumber blkno)
{
	uint64		k;
	int			n = fpb_posting_get(page, blkno, &k);
	ItemPointerData *tids = fpb_posting_tids(page);

	for (int i = 0; i < n; i++)
	{
		out[i].k = k;
		out[i].t = fpb_tid_to_t(&tids[i]);
		out[i].child = InvalidBlockNumber;
		if (dead)
			dead[i] = fpb_tid_is_dead(&tids[i]);
	}
	return n;
}

/* fpb_page_mark_dead of a posting page */
bool
fpb_posting_mark_dead(Page page, uint64 k, uint64 t, BlockNumber blkno)
{
	uint64		pk;
	int			n = fpb_posting_get(page, blkno, &pk);
	ItemPointerData *tids = fpb_posting_tids(page);
	int			i = fpb_posting_search(tids, n, pk, k, t, false);

	if (i >= n || pk != k || fpb_tid_to_t(&tids[i]) != t ||
		fpb_tid_is_dead(&tids[i]))
		return false;
	tids[i].ip_posid |= FPB_TID_DEADFLAG;
	return true;
}

/* fpb_page_count_dead of a posting page */
int
fpb_posting_count_dead(Page page, BlockNumber blkno)
{
	uint64		k;
	int			n = fpb_posting_get(page, blkno, &k);
	ItemPointerData *tids = fpb_posting_tids(page);
	int			ndead = 0;

	for (int i = 0; i < n; i++)
		ndead += fpb_tid_is_dead(&tids[i]);
	return ndead;
}

/* fpb_page_key_run of a posting page */
int
fpb_posting_key_run(Page page, uint64 klo, uint64 khi, uint64 tlo,
					uint64 thi, BlockNumber blkno, uint64 *out, bool *ended)
{
	uint64		k;
	int			n = fpb_posting_get(page, blkno, &k);
	ItemPointerData *tids = fpb_posting_tids(page);
	int			i = fpb_posting_search(tids, n, k, klo, tlo, false);
	int			m = 0;

	*ended = false;
	for (; i < n; i++)
	{
		uint64		t = fpb_tid_to_t(&tids[i]);

		if (k > khi || (k == khi && t > thi))
		{
			*ended = true;
			break;
		}
		out[m++] = t;
	}
	return m;
}

/*
 * A scan's copy of the entries in [(lok, lot), (hik, hit)], skipping those
 * marked dead when skipdead.  *before_lo is set when the page holds entries
 * below the interval.  items has room for the page's entries.
 */
int
fpb_posting_scan(Page page, BlockNumber blkno, uint64 lok, uint64 lot,
				 uint64 hik, uint64 hit, bool skipdead, FpbScanItem *items,
				 bool *before_lo)
{
	uint64		k;
	int			n = fpb_posting_get(page, blkno, &k);
	ItemPointerData *tids = fpb_posting_tids(page);
	int			from = fpb_posting_search(tids, n, k, lok, lot, false);
	int			to = fpb_posting_search(tids, n, k, hik, hit, true);
	int			m = 0;

	*before_lo = from > 0;
	for (int i = from; i < to; i++)
	{
		if (skipdead && fpb_tid_is_dead(&tids[i]))
			continue;
		items[m].k = k;
		items[m].t = fpb_tid_to_t(&tids[i]);
		m++;
	}
	return m;
}

/*
 * fpb_page_insert_slot of a posting page: the entry's position when it has
 * the page's key and there is room, else -1 (the page must split: see
 * fpb_posting_split_point).
 */
int
fpb_posting_insert_slot(Page page, const FpbEntry *e, BlockNumber blkno,
						int *pos)
{
	uint64		k;
	int			n = fpb_posting_get(page, blkno, &k);

	if (e->k != k || n >= FPB_POSTING_CAP)
		return -1;
	*pos = fpb_posting_search(fpb_posting_tids(page), n, k, e->k, e->t, false);
	return FPB_DATA_START;
}

/*
 * fpb_page_insert_at of a posting page: shift the TIDs from pos on up by
 * one, and take one more line when the array grows into it.  The new line
 * was in the hole, zero in the replayed page and zeroed here; the record
 * names pd_lower and hwm, so the hole shrinks in both.
 */
int
fpb_posting_insert_at(Page page, int pos, const FpbEntry *e,
					  FpbByteRange *ranges)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	ItemPointerData *tids = fpb_posting_tids(page);
	int			n = opq->nentries;
	int			nr = 0;
	uint16		hwm = fpb_posting_lines(n + 1);

	/*
	 * A new line comes from the hole, which is zero after WAL replay but may
	 * hold old bytes in an unlogged index's page (wal.c zeroes the hole only
	 * when it logs): zero it, so the page past the last TID is zero always.
	 */
	if (hwm != opq->hwm)
		memset(fpb_line(page, opq->hwm), 0, (Size) (hwm - opq->hwm) * FPB_LINE);
	memmove(&tids[pos + 1], &tids[pos], (n - pos) * sizeof(ItemPointerData));
	fpb_t_to_tid(e->t, &tids[pos]);
	opq->nentries = n + 1;

#define FPB_RANGE(ptr, size) \
	(ranges[nr].off = (uint16) ((char *) (ptr) - (char *) page), \
	 ranges[nr].len = (uint16) (size), nr++)
	FPB_RANGE(&tids[pos], (n + 1 - pos) * sizeof(ItemPointerData));
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

/* fpb_page_insert of a posting page: false when the page must split */
bool
fpb_posting_insert(Page page, const FpbEntry *e, BlockNumber blkno)
{
	FpbByteRange ranges[FPB_INSERT_RANGES];
	int			pos;

	if (fpb_posting_insert_slot(page, e, blkno, &pos) < 0)
		return false;
	(void) fpb_posting_insert_at(page, pos, e, ranges);
	return true;
}

/* A leaf page's half [from, to) of a split fits one page? */
static inline bool
fpb_split_half_fits(const FpbEntry *ents, int from, int to, int regcap)
{
	return (to - from <= regcap) ||
		(to - from <= FPB_POSTING_CAP && ents[from].k == ents[to - 1].k);
}

/*
 * Where a leaf page split divides its n sorted entries (the new one
 * included), given the split point mid the page would have without posting
 * pages.  Both halves must fit (a half of more than a regular page's
 * entries only as a posting page, so with one key), and the boundary
 * between two keys nearest to mid is taken over any cut inside a run, as
 * nbtree's many-duplicates split does: a run then stays whole on one side
 * and grows there into a posting page.  Cut inside a run, its half would
 * never fill when the run grows at its end (new heap rows: ascending TIDs
 * go to the right half), and the run would be left on half-full regular
 * pages.  A page of one key whose new entry comes last keeps 96% on the
 * left, as nbtree's single-value split does, since the left half of such a
 * run rarely gets more.
 */
int
fpb_posting_split_point(Page page, const FpbEntry *ents, int n, int mid,
						int newpos)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	int			regcap = fpb_page_capacity(opq->w, opq->x, false, 1.0);
	int			best = -1;
	int64		bestcost = PG_INT64_MAX;

	if (ents[0].k == ents[n - 1].k && newpos == n - 1)
		mid = Max(1, (int) ((int64) n * FPB_POSTING_SPLIT_FILL / 100));
	if (n <= 2 * regcap && ents[0].k != ents[n - 1].k &&
		fpb_split_half_fits(ents, 0, mid, regcap) &&
		fpb_split_half_fits(ents, mid, n, regcap) &&
		ents[mid - 1].k != ents[mid].k)
		return mid;
	for (int i = 1; i < n; i++)
	{
		int64		cost = Abs(i - mid);

		if (ents[i - 1].k == ents[i].k)
			cost += n;
		if (cost < bestcost &&
			fpb_split_half_fits(ents, 0, i, regcap) &&
			fpb_split_half_fits(ents, i, n, regcap))
		{
			best = i;
			bestcost = cost;
		}
	}
	if (best < 0)
		elog(ERROR, "fpbtree: no split point of %d entries fits two pages", n);
	return best;
}

/*
 * fpbtree_check of a posting page: the header, the key once, the TIDs
 * strictly ascending (dead marks allowed, as on any leaf entry), the bytes
 * past them in the last line zero.  Returns the entries, as
 * fpb_check_inpage does.
 */
FpbEntry *
fpb_check_posting(Relation index, Page page, BlockNumber blkno,
				  int *nentries)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	int			n = opq->nentries;
	ItemPointerData *tids = fpb_posting_tids(page);
	uint64		k = *fpb_posting_keyp(page);
	FpbEntry   *ents;
	char	   *tail;
	char	   *end;

	if (!FpbPageIsLeaf(opq) || opq->ipheight != 0 || opq->root != FPB_NONE ||
		opq->firstleaf != FPB_NONE || opq->lastleaf != FPB_NONE)
		fpb_index_corrupt(index, blkno,
						  "Posting page has level %u, in-page height %u, root %u.",
						  opq->level, opq->ipheight, opq->root);
	if (n < 1 || n > FPB_POSTING_CAP || opq->hwm != fpb_posting_lines(n))
		fpb_index_corrupt(index, blkno,
						  "Posting page holds %d entries in %u lines.",
						  n, opq->hwm);
	ents = palloc(sizeof(FpbEntry) * n);
	for (int i = 0; i < n; i++)
	{
		ents[i].k = k;
		ents[i].t = fpb_tid_to_t(&tids[i]);
		ents[i].child = InvalidBlockNumber;
		if ((ents[i].t & FPB_T_NULLBIT) && k != FPB_KEY_MAX)
			fpb_index_corrupt(index, blkno,
							  "Posting page entry %d is NULL but the key is %s.",
							  i, fpb_keydesc(k, ents[i].t));
		if (i > 0 && ents[i].t <= ents[i - 1].t)
			fpb_index_corrupt(index, blkno,
							  "Posting page entry %d %s is not above entry %d.",
							  i, fpb_keydesc(k, ents[i].t), i - 1);
	}
	end = fpb_line(page, opq->hwm);
	for (tail = (char *) &tids[n]; tail < end; tail++)
		if (*tail != 0)
			fpb_index_corrupt(index, blkno,
							  "Posting page has data past its %d entries.", n);
	*nentries = n;
	return ents;
}
