/*-------------------------------------------------------------------------
 *
 * layout.c
 *	  The layout of a whole page's in-page tree from sorted entries: bulk
 *	  load, reorganisation, page split halves, VACUUM's rewrite; for a wide
 *	  page also its slotted area, compacted on the way (README "Wide keys").
 *
 * Nothing here touches buffers, locks or WAL (see page.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fpbtree.h"

/* Number of non-leaf nodes above m leaf nodes, and levels (incl. leaves). */
static int
fpb_inner_nodes(int m, int icap, int *levels)
{
	int			total = 0;
	int			lv = 1;

	while (m > 1)
	{
		m = (m + icap - 1) / icap;
		total += m;
		lv++;
	}
	if (levels)
		*levels = lv;
	return total;
}

/* Most in-page leaf nodes nlines lines can hold with widths w, x. */
static int
fpb_max_leafnodes(int w, int x, int nlines)
{
	int			icap = fpb_innercap(w);
	int			m = nlines / x;

	while (m > 1 && m * x + fpb_inner_nodes(m, icap, NULL) * w > nlines)
		m--;
	return m;
}

/*
 * Wide page, entries spread (fill 0): how many leaf nodes.  Values and
 * nodes share the page, so spreading the entries over every line the values
 * leave, as a narrow page does, would leave no room for the next value: the
 * page would be laid out again (a record of most of it) every few inserts.
 * Take the number of nodes that leaves room for the most entries of the
 * entries' average size (a free place in a node and the bytes for its
 * value; slotbytes leaves out the high key's), the fewest among equals.
 * *room gets how many such entries that is; -1 when n entries do not fit
 * at all.
 */
static int
fpb_wide_leafnodes(int w, int x, int lcap, int nlines, int n, int slotbytes,
				   int *room)
{
	int			icap = fpb_innercap(w);
	int			mmax = Min(fpb_max_leafnodes(w, x, nlines), n);
	int			mmin = (n + lcap - 1) / lcap;
	int			avg = Max(1, slotbytes / n);
	int			best = mmax;
	int			bestr = -1;

	Assert(n > 0);
	*room = -1;
	if (mmin > mmax)
		return mmax;

	/*
	 * Keeping the bytes of a node split aside as well, so that the first
	 * node to fill need not have the page laid out again, was tried: the
	 * pages then split that much emptier, and an index grown by random
	 * inserts came out 7% larger (bench/results/NOTES.md, 2026-11-29).
	 */
	for (int m = mmax; m >= mmin; m--)
	{
		int			freebytes = (nlines - m * x -
								 fpb_inner_nodes(m, icap, NULL) * w) * FPB_LINE;
		int			r = Min(m * lcap - n, freebytes / avg);

		/* ties go to fewer nodes: their lines are bytes for values */
		if (r >= bestr)
		{
			bestr = r;
			best = m;
		}
	}
	*room = bestr;
	return best;
}

/*
 * Wide page: how many more entries of their average size the page takes
 * after n entries are laid out spread (fill 0); -1 if they do not fit.
 * A reorganisation that would leave little room is not worth its record
 * (page.c).
 */
int
fpb_wide_room(Page page, const FpbEntry *entries, int n)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	int			upper = fpb_slots_upper(page, entries, n);
	int			nlines = (upper - FPB_DATA_START) / FPB_LINE;
	int			room;

	if (nlines < 0)
		return -1;
	(void) fpb_wide_leafnodes(opq->w, opq->x,
							  fpb_leafcap(opq->x, !FpbPageIsLeaf(opq)),
							  nlines, n, fpb_slots_upper(page, NULL, 0) - upper,
							  &room);
	return room;
}

/*
 * Would n entries laid out with fill (> 0), beside slots of slotbytes,
 * fit a page?  The bulk load of a wide index asks, with fpb_page_layout's
 * arithmetic.
 */
bool
fpb_page_fits(int w, int x, bool internal_page, double fill, int n,
			  Size slotbytes)
{
	int			per = fpb_page_per(x, internal_page, fill);
	int			room = fpb_page_slot_room(w, x, (n + per - 1) / per);

	return room >= 0 && slotbytes <= (Size) room;
}

/* Entries a leaf node gets when a page is laid out with fill (> 0). */
int
fpb_page_per(int x, bool internal_page, double fill)
{
	int			lcap = fpb_leafcap(x, internal_page);

	return Max(1, Min(lcap, (int) (lcap * fill)));
}

/*
 * Bytes a page with m leaf nodes (and the non-leaf nodes above them) leaves
 * for its slots, in whole lines' worth of nodes; -1 when m is too many.
 */
int
fpb_page_slot_room(int w, int x, int m)
{
	int			levels;
	int			ninner = fpb_inner_nodes(m, fpb_innercap(w), &levels);

	if (levels > FPB_MAX_IPHEIGHT)
		return -1;
	return BLCKSZ - FPB_SPECIAL_SIZE - FPB_DATA_START -
		FPB_LINE * (m * x + ninner * w);
}

/*
 * Entries a page holds when laid out with every leaf node filled to fill
 * (the bulk-load target) -- or completely, with fill = 1.
 */
int
fpb_page_capacity(int w, int x, bool internal_page, double fill)
{
	int			lcap = fpb_leafcap(x, internal_page);
	int			per = Max(1, Min(lcap, (int) (lcap * fill)));

	return fpb_max_leafnodes(w, x, FPB_NLINES) * per;
}

/*
 * The order in which a compaction writes a wide page's values into its
 * slotted area, from the top down.  Slots align by their kind
 * (fpb_slot_align): index tuples beside packed rows in a multi-column
 * index with FPB_PFX_PACKVAR, 4-byte varlena headers beside 1-byte ones in
 * a one-column one; each aligned value pads by what the value above it
 * left, so the same values need more or less room in different orders.
 *
 * Usually the aligned values go first, from the aligned end of the area,
 * each taking exactly its size rounded up to its alignment, then the others
 * without padding.  For values of one kind, and for index tuples beside
 * packed rows (tuples are multiples of their alignment), that is the least
 * room any order takes, and it is what the bulk load counts
 * (fpb_build_slot_bound) for a page of new values and its high key.
 *
 * With both kinds of varlena header it is not always the least: an insert
 * places a long value right below a short one where that leaves no
 * padding.  So when every value already lies in this page's area, the
 * rewrite removes entries and adds none (VACUUM, removal of dead entries,
 * a removed downlink), and the values are written in the order they lie
 * there, highest first: each then lands at or above where it lies, since
 * the value above it does and its alignment still holds, and the rewrite
 * needs no more room than the page gave the values, whatever order inserts
 * and older builds left them in.  Any other rewrite
 * of such a page may need more room than its values had; those that add a
 * value split the page when it does not fit.
 *
 * fpb_slots_upper and fpb_layout_slots share the order, so the count and
 * the rewrite agree.
 */
#define FPB_SLOT_HIKEY	(-1)

typedef struct FpbSlotRef
{
	int			off;			/* where it lies in this page's area */
	int			idx;			/* entry, or FPB_SLOT_HIKEY */
} FpbSlotRef;

static inline void
fpb_slotref_put(FpbSlotRef *ref, int off, int idx)
{
	ref->off = off;
	ref->idx = idx;
}

/* highest offset first */
static int
fpb_slotref_cmp(const void *a, const void *b)
{
	int			x = ((const FpbSlotRef *) a)->off;
	int			y = ((const FpbSlotRef *) b)->off;

	return (x < y) - (x > y);
}

/* Where the value f of stored key k lies in page's area (0: it does not). */
static int
fpb_slot_in_page(Page page, uint64 k, const char *f)
{
	int			off = (int) (k & FPB_WIDE_OFFMASK);
	int			skip = fpb_fulllen_skip(FpbPageGetOpaque(page)->fulllen);
	Size		len;

	if (off == 0 || off < ((PageHeader) page)->pd_upper ||
		off >= BLCKSZ - FPB_SPECIAL_SIZE)
		return 0;
	/* a suffix slot holds the value from its skip bytes on */
	len = fpb_slot_len(page, f) - skip;
	if (off + len > BLCKSZ - FPB_SPECIAL_SIZE ||
		(off & (fpb_slot_align(page, f) - 1)) != 0)
		return 0;
	/* collected from this page, or from the copy a change is made on */
	if (f + skip != (const char *) page + off &&
		memcmp((const char *) page + off, f + skip, len) != 0)
		return 0;
	return off;
}

/*
 * Fill refs (room for n + 1) with the values to write, the high key's (if
 * hk) and the entries' that have one, aligned ones first, each kind in the
 * order given.  *nunal gets how many are unaligned; returns how many in
 * all.
 */
static int
fpb_slot_order_aligned(Page page, const FpbEntry *entries, int n,
					   const FpbEntry *hk, FpbSlotRef *refs, int *nunal)
{
	int			nal = 0;
	int			nun = 0;

	/* aligned ones from the front, the others from the back, reversed */
	if (hk)
	{
		if (fpb_slot_align(page, hk->f) != 1)
			fpb_slotref_put(&refs[nal++], 0, FPB_SLOT_HIKEY);
		else
			fpb_slotref_put(&refs[n - nun++], 0, FPB_SLOT_HIKEY);
	}
	for (int i = 0; i < n; i++)
	{
		if (entries[i].f == NULL)
			continue;
		if (fpb_slot_align(page, entries[i].f) != 1)
			fpb_slotref_put(&refs[nal++], 0, i);
		else
			fpb_slotref_put(&refs[n - nun++], 0, i);
	}
	for (int a = n - nun + 1, b = n; a < b; a++, b--)
	{
		FpbSlotRef	t = refs[a];

		refs[a] = refs[b];
		refs[b] = t;
	}
	memmove(&refs[nal], &refs[n - nun + 1], sizeof(FpbSlotRef) * nun);
	*nunal = nun;
	return nal + nun;
}

/*
 * Fill refs (room for n + 1) with the values to write in the order above;
 * returns how many.
 */
static int
fpb_slot_order(Page page, const FpbEntry *entries, int n, const FpbEntry *hk,
			   FpbSlotRef *refs)
{
	int			nunal;
	int			nrefs = fpb_slot_order_aligned(page, entries, n, hk, refs,
											   &nunal);

	if (FpbPageGetOpaque(page)->fulllen != 0 || nunal == 0 || nunal == nrefs)
		return nrefs;
	for (int j = 0; j < nrefs; j++)
	{
		int			idx = refs[j].idx;
		const FpbEntry *e = idx == FPB_SLOT_HIKEY ? hk : &entries[idx];

		refs[j].off = fpb_slot_in_page(page, e->k, e->f);
		if (refs[j].off == 0)
			return nrefs;		/* a value from elsewhere: aligned first */
	}
	qsort(refs, nrefs, sizeof(FpbSlotRef), fpb_slotref_cmp);
	for (int j = 1; j < nrefs; j++)
	{
		/* two values of one slot: the page never held them apart */
		if (refs[j].off == refs[j - 1].off)
			return fpb_slot_order_aligned(page, entries, n, hk, refs, &nunal);
	}
	return nrefs;
}

/* The page's high key, if it has a value (NULL if not). */
static const FpbEntry *
fpb_slot_hikey(Page page, FpbEntry *hk)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);

	if (FpbPageIsRightmost(opq) || (opq->hikey & FPB_WIDE_OFFMASK) == 0)
		return NULL;
	fpb_page_get_hikey(page, hk, InvalidBlockNumber);
	return hk;
}

/*
 * The order of a wide page's values and where they would begin, worked out
 * once for fpb_page_layout's count and its rewrite.
 */
typedef struct FpbSlotPlan
{
	FpbEntry	hkbuf;
	const FpbEntry *hk;			/* &hkbuf, or NULL: no high key value */
	FpbSlotRef *refs;			/* palloc'd; the rewrite frees it */
	int			nrefs;
	int			upper;
	bool		keep;			/* the values that lie in the page stay
								 * (refs[].off), the others go below them */
} FpbSlotPlan;

/*
 * Would the values that lie in the page, left where they are, and the
 * others below them take no more room than compacting all of them (upper)?
 * Then the rewrite moves no value, and its record (the changed bytes) is
 * the nodes' and the new values': a page grown by inserts has no gaps, and
 * compacting its values in key order moved nearly all of them.  Sets each
 * ref's off (0: not in the page).
 */
static bool
fpb_slots_keep(Page page, const FpbEntry *entries, const FpbEntry *hk,
			   FpbSlotRef *refs, int nrefs, int upper, int *keepupper)
{
	uint64		seen[BLCKSZ / 64];
	int			kupper = ((PageHeader) page)->pd_upper;

	memset(seen, 0, sizeof(seen));
	for (int j = 0; j < nrefs; j++)
	{
		int			idx = refs[j].idx;
		const FpbEntry *e = idx == FPB_SLOT_HIKEY ? hk : &entries[idx];
		int			off = fpb_slot_in_page(page, e->k, e->f);

		refs[j].off = off;
		/* a value of this page that is not where its key says: staged */
		if (off == 0 && e->f >= (const char *) page &&
			e->f < (const char *) page + BLCKSZ)
			return false;
		if (off == 0)
			continue;
		/* two values of one slot: the page never held them apart */
		if (seen[off / 64] & (UINT64CONST(1) << (off % 64)))
			return false;
		seen[off / 64] |= UINT64CONST(1) << (off % 64);
	}
	/* the others below pd_upper, in the order the rewrite writes them */
	for (int j = 0; j < nrefs; j++)
	{
		int			idx = refs[j].idx;

		if (refs[j].off == 0)
			kupper -= fpb_slot_need(page, idx == FPB_SLOT_HIKEY ? hk->f :
									entries[idx].f, kupper);
	}
	*keepupper = kupper;
	return kupper >= upper;
}

static int
fpb_slots_plan(Page page, const FpbEntry *entries, int n, FpbSlotPlan *plan)
{
	int			upper = BLCKSZ - FPB_SPECIAL_SIZE;
	int			keepupper;

	plan->hk = fpb_slot_hikey(page, &plan->hkbuf);
	plan->refs = palloc(sizeof(FpbSlotRef) * (n + 1));
	plan->nrefs = fpb_slot_order(page, entries, n, plan->hk, plan->refs);
	for (int j = 0; j < plan->nrefs; j++)
	{
		int			idx = plan->refs[j].idx;

		upper -= fpb_slot_need(page, idx == FPB_SLOT_HIKEY ? plan->hk->f :
							   entries[idx].f, upper);
	}
	plan->keep = fpb_slots_keep(page, entries, plan->hk, plan->refs,
								plan->nrefs, upper, &keepupper);
	plan->upper = plan->keep ? keepupper : upper;
	return plan->upper;
}

/*
 * Wide page: where its slotted area would begin (pd_upper) with the high
 * key's value and the values of entries, compacted.
 */
int
fpb_slots_upper(Page page, const FpbEntry *entries, int n)
{
	FpbSlotPlan plan;

	fpb_slots_plan(page, entries, n, &plan);
	pfree(plan.refs);
	return plan.upper;
}

/* fpb_layout_slots of a plan made on the page as it is */
static uint64 *
fpb_layout_planned(Page page, const FpbEntry *entries, int n,
				   FpbSlotPlan *plan)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	PageHeader	ph = (PageHeader) page;
	const FpbEntry *hk = plan->hk;
	FpbSlotRef *refs = plan->refs;
	int			nrefs = plan->nrefs;
	Size		total = 0;
	char	   *stage,
			   *sp;
	const char **copies;
	uint64	   *keys;

	keys = palloc(sizeof(uint64) * Max(n, 1));
	for (int i = 0; i < n; i++)
		if (entries[i].f == NULL)
			keys[i] = FPB_WIDE_PREFIX(entries[i].k);

	if (plan->keep)
	{
		/* the values in the page stay; the others go below pd_upper */
		for (int j = 0; j < nrefs; j++)
		{
			int			idx = refs[j].idx;
			int			off = refs[j].off;

			if (idx == FPB_SLOT_HIKEY)
				opq->hikey = off != 0 ?
					FPB_WIDE_PREFIX(hk->k) | (uint64) off :
					fpb_slot_put(page, hk->k, hk->f);
			else
				keys[idx] = off != 0 ?
					FPB_WIDE_PREFIX(entries[idx].k) | (uint64) off :
					fpb_slot_put(page, entries[idx].k, entries[idx].f);
		}
		Assert(ph->pd_upper == plan->upper);
		pfree(refs);
		plan->refs = NULL;
		return keys;
	}

	/*
	 * Copy out the values that lie in this page, which the rewrite may
	 * overwrite; the others (a build's, or the buffer's while the change is
	 * made on its copy) are written from where they are.
	 */
	copies = palloc(sizeof(char *) * Max(nrefs, 1));
	for (int j = 0; j < nrefs; j++)
	{
		int			idx = refs[j].idx;
		const char *f = idx == FPB_SLOT_HIKEY ? hk->f : entries[idx].f;

		copies[j] = f;
		if (f >= (const char *) page && f < (const char *) page + BLCKSZ)
			total += MAXALIGN(fpb_slot_len(page, f));
	}
	stage = sp = total > 0 ? palloc(total) : NULL;
	for (int j = 0; j < nrefs && total > 0; j++)
	{
		const char *f = copies[j];

		if (f >= (const char *) page && f < (const char *) page + BLCKSZ)
		{
			Size		len = fpb_slot_len(page, f);

			memcpy(sp, f, len);
			copies[j] = sp;
			sp += MAXALIGN(len);
		}
	}
	ph->pd_upper = BLCKSZ - FPB_SPECIAL_SIZE;
	for (int j = 0; j < nrefs; j++)
	{
		int			idx = refs[j].idx;

		if (idx == FPB_SLOT_HIKEY)
			opq->hikey = fpb_slot_put(page, hk->k, copies[j]);
		else
			keys[idx] = fpb_slot_put(page, entries[idx].k, copies[j]);
	}
	Assert(ph->pd_upper == plan->upper);
	pfree(copies);
	if (stage)
		pfree(stage);
	pfree(refs);
	plan->refs = NULL;
	return keys;
}

/* Drop a plan not carried out; returns result */
static bool
fpb_slots_unplan(FpbSlotPlan *plan, bool result)
{
	if (plan->refs != NULL)
		pfree(plan->refs);
	plan->refs = NULL;
	return result;
}

/*
 * Wide page: rewrite the slotted area with the high key's value and the
 * values of entries, compacted, down to upper (fpb_slots_upper), and return
 * the keys the nodes are to hold (prefix and new slot offset; palloc'd).
 */
uint64 *
fpb_layout_slots(Page page, const FpbEntry *entries, int n, int upper)
{
	FpbSlotPlan plan;

	fpb_slots_plan(page, entries, n, &plan);
	Assert(plan.upper == upper);
	return fpb_layout_planned(page, entries, n, &plan);
}

/*
 * Rebuild the page's in-page tree from n sorted entries.  Page-level fields
 * (level, links, high key, flags) are kept.  With fill > 0 each leaf node
 * gets about fill * capacity entries; with fill = 0 the entries are spread
 * over as many leaf nodes as the page holds, which leaves the most free slots
 * in every node (on a wide page, as many as leave room for their values:
 * fpb_wide_leafnodes).  Returns false, leaving the page untouched, if the
 * entries do not fit.
 */
bool
fpb_page_layout(Page page, const FpbEntry *entries, int n, double fill)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	bool		internal = !FpbPageIsLeaf(opq);
	bool		wide = (opq->flags & FPB_F_WIDE) != 0;
	int			w = opq->w,
				x = opq->x;
	int			lcap = fpb_leafcap(x, internal);
	int			icap = fpb_innercap(w);
	int			nlines = FPB_NLINES;
	int			m;
	int			levels;
	int			counts[FPB_MAX_IPHEIGHT];
	uint16		firstline[FPB_MAX_IPHEIGHT] = {0};
	int			ninner;
	int			line;
	uint16	   *lines;
	int		   *firstent;
	uint64	   *wkeys = NULL;
	int			upper = 0;
	FpbSlotPlan plan = {0};

	/*
	 * Leaves of many equal keys become posting pages (on a wide page only
	 * when its equal values are equal bytes: posting.c decides).  Asked
	 * first: such a wide page's values alone may overflow a regular page.
	 */
	if (wide)
		upper = fpb_slots_plan(page, entries, n, &plan);
	if (fpb_posting_layout(page, entries, n, fill, upper))
		return fpb_slots_unplan(&plan, true);

	/* a wide page's nodes get the lines its values leave */
	if (wide)
	{
		nlines = (upper - FPB_DATA_START) / FPB_LINE;
		if (nlines < 0)
			return fpb_slots_unplan(&plan, false);
	}
	if (n == 0)
	{
		if (wide)
			pfree(fpb_layout_planned(page, entries, 0, &plan));
		opq->root = opq->firstleaf = opq->lastleaf = FPB_NONE;
		opq->ipheight = 0;
		opq->nentries = 0;
		fpb_page_set_hwm(page, opq, 0);
		return true;
	}

	if (fill > 0)
	{
		int			per = Max(1, Min(lcap, (int) (lcap * fill)));

		m = (n + per - 1) / per;
	}
	else if (wide)
	{
		int			room;

		m = fpb_wide_leafnodes(w, x, lcap, nlines, n,
							   fpb_slots_upper(page, NULL, 0) - upper, &room);
		if (room < 0)
			return fpb_slots_unplan(&plan, false);
	}
	else
	{
		m = Min(fpb_max_leafnodes(w, x, nlines), n);
		if ((int64) m * lcap < n)
			return false;
	}
	if ((int64) m * lcap < n)
		m = (n + lcap - 1) / lcap;
	ninner = fpb_inner_nodes(m, icap, &levels);
	if (levels > FPB_MAX_IPHEIGHT || m * x + ninner * w > nlines)
		return fpb_slots_unplan(&plan, false);
	if (wide)
	{
		/* the lines were counted above: the values fit */
		wkeys = fpb_layout_planned(page, entries, n, &plan);
	}

	/* node counts per level, 0 = leaf nodes */
	counts[0] = m;
	for (int l = 1; l < levels; l++)
		counts[l] = (counts[l - 1] + icap - 1) / icap;

	/* place the root first, then each level below it, leaves last */
	line = 0;
	for (int l = levels - 1; l >= 0; l--)
	{
		firstline[l] = line;
		line += counts[l] * (l == 0 ? x : w);
	}
	fpb_page_set_hwm(page, opq, line);

	/* leaf nodes: entries spread evenly */
	lines = palloc(sizeof(uint16) * m);
	firstent = palloc(sizeof(int) * m);
	for (int j = 0; j < m; j++)
	{
		int			from = (int) (((int64) n * j) / m);
		int			to = (int) (((int64) n * (j + 1)) / m);
		char	   *node = fpb_line(page, firstline[0] + j * x);
		FpbNodeHeader *hdr = (FpbNodeHeader *) node;
		uint64	   *keys;
		ItemPointerData *tids;
		BlockNumber *ch;

		memset(node, 0, (Size) x * FPB_LINE);
		hdr->kind = FPB_NODE_LEAF;
		hdr->n = to - from;
		/*
		 * Free slots on both sides, so that an insert moves the fewer
		 * entries; a packed layout's (a run's page) all after them.
		 */
		if ((opq->flags & FPB_F_STARTS) && fill < 1.0)
			hdr->start = (lcap - hdr->n) / 2;
		keys = fpb_node_keys(node);
		tids = fpb_node_tids(node, lcap);
		ch = internal ? fpb_node_children(node, lcap) : NULL;
		hdr->prev = (j == 0) ? FPB_NONE : firstline[0] + (j - 1) * x;
		hdr->next = (j == m - 1) ? FPB_NONE : firstline[0] + (j + 1) * x;
		for (int i = from; i < to; i++)
		{
			keys[i - from] = wkeys ? wkeys[i] : entries[i].k;
			fpb_t_to_tid(entries[i].t, &tids[i - from]);
			if (ch)
				ch[i - from] = entries[i].child;
		}
		lines[j] = firstline[0] + j * x;
		firstent[j] = from;
	}
	opq->firstleaf = firstline[0];
	opq->lastleaf = firstline[0] + (m - 1) * x;

	/* non-leaf levels, bottom-up: children spread evenly */
	for (int l = 1; l < levels; l++)
	{
		int			nchild = counts[l - 1];
		int			nnodes = counts[l];

		for (int j = 0; j < nnodes; j++)
		{
			int			from = (int) (((int64) nchild * j) / nnodes);
			int			to = (int) (((int64) nchild * (j + 1)) / nnodes);
			uint16		myline = firstline[l] + j * w;
			char	   *node = fpb_line(page, myline);
			FpbNodeHeader *hdr = (FpbNodeHeader *) node;
			uint64	   *keys;
			ItemPointerData *tids;
			uint16	   *cl;

			/* zeroed first: the arrays' place depends on the header */
			memset(node, 0, (Size) w * FPB_LINE);
			keys = fpb_node_keys(node);
			tids = fpb_node_tids(node, icap);
			cl = fpb_node_lines(node, icap);
			hdr->kind = FPB_NODE_INNER;
			hdr->n = to - from;
			hdr->prev = hdr->next = FPB_NONE;
			for (int i = from; i < to; i++)
			{
				keys[i - from] = wkeys ? wkeys[firstent[i]] :
					entries[firstent[i]].k;
				fpb_t_to_tid(entries[firstent[i]].t, &tids[i - from]);
				cl[i - from] = lines[i];
			}
			/* this level's nodes become the children of the next level */
			lines[j] = myline;
			firstent[j] = firstent[from];
		}
	}
	opq->root = firstline[levels - 1];
	opq->ipheight = levels;
	opq->nentries = n;
	pfree(lines);
	pfree(firstent);
	if (wkeys)
		pfree(wkeys);
	return true;
}

