/*-------------------------------------------------------------------------
 *
 * page_insert.c
 *	  Insertion into one fpbtree page's in-page tree: the in-place insert
 *	  into a leaf node with room, in-page node splits (with the rules for
 *	  runs of inserts), and the reorganisation of the whole in-page tree.
 *
 * As in page.c, nothing here touches buffers, locks or WAL, except that
 * the in-place insert names the bytes it changed for wal.c.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "compat.h"
#include "fpbtree.h"
#include "page.h"

/* Allocate a node of width lines above the high-water mark. */
static uint16
fpb_alloc_node(Page page, FpbPageOpaque opq, int width, int kind)
{
	uint16		line = opq->hwm;
	FpbNodeHeader *hdr;

	if ((int) line + width > fpb_page_nlines(page))
		return FPB_NONE;
	fpb_page_set_hwm(page, opq, line + width);
	memset(fpb_line(page, line), 0, (Size) width * FPB_LINE);
	hdr = (FpbNodeHeader *) fpb_line(page, line);
	hdr->kind = kind;
	hdr->next = hdr->prev = FPB_NONE;
	return line;
}

/*
 * Move entries [from, to) of a leaf node's arrays (internal: with children)
 * by delta slots.
 */
static void
fpb_leafnode_move(char *node, int cap, bool internal, int from, int to,
				  int delta)
{
	uint64	   *keys = fpb_node_keys(node);
	ItemPointerData *tids = fpb_node_tids(node, cap);

	memmove(&keys[from + delta], &keys[from], (to - from) * sizeof(uint64));
	memmove(&tids[from + delta], &tids[from],
			(to - from) * sizeof(ItemPointerData));
	if (internal)
	{
		BlockNumber *ch = fpb_node_children(node, cap);

		memmove(&ch[from + delta], &ch[from],
				(to - from) * sizeof(BlockNumber));
	}
}

/*
 * Insert (k, t, child) at position pos of a leaf node with room.  The
 * entries on the shorter side of pos move, into a free slot before the
 * first entry or after the last.  When that side has no free slot and the
 * other is the longer one, the node is centred in its arrays instead,
 * which moves all its entries once rather than the longer side on every
 * insert to come there.  starts: the page has FPB_F_STARTS (else the
 * entries stay from slot 0).  Sets *from and *count to the entries, after the
 * insert, whose slots were written (the new one included).
 */
static void
fpb_leafnode_insert(char *node, int cap, bool internal, bool starts, int pos,
					const FpbEntry *e, int *from, int *count)
{
	FpbNodeHeader *hdr = (FpbNodeHeader *) node;
	int			n = hdr->n;
	int			front = hdr->start;
	int			back = cap - hdr->start - n;
	bool		down = (pos < n - pos);

	Assert(n < cap);
	if (down ? front == 0 : back == 0)
	{
		int			start = (cap - n - 1) / 2;

		if (starts && cap - n >= 3)
		{
			/* centre the node, leaving pos free */
			int			delta = start - hdr->start;

			if (delta < 0)
			{
				fpb_leafnode_move(node, cap, internal, 0, pos, delta);
				fpb_leafnode_move(node, cap, internal, pos, n, delta + 1);
			}
			else
			{
				fpb_leafnode_move(node, cap, internal, pos, n, delta + 1);
				fpb_leafnode_move(node, cap, internal, 0, pos, delta);
			}
			hdr->start = start;
			*from = 0;
			*count = n + 1;
			goto put;
		}
		down = !down;
	}
	if (down)
	{
		fpb_leafnode_move(node, cap, internal, 0, pos, -1);
		hdr->start--;
		*from = 0;
		*count = pos + 1;
	}
	else
	{
		fpb_leafnode_move(node, cap, internal, pos, n, 1);
		*from = pos;
		*count = n - pos + 1;
	}
put:
	fpb_node_keys(node)[pos] = e->k;
	fpb_t_to_tid(e->t, &fpb_node_tids(node, cap)[pos]);
	if (internal)
		fpb_node_children(node, cap)[pos] = e->child;
	hdr->n++;
}

/*
 * The common insert: the entry's in-page leaf node has room.  Returns the
 * node's byte offset in the page and sets *pos to the entry's position in
 * it, or returns -1 when the general path (fpb_page_insert) must run.
 * Changes nothing; errors on a damaged page come from here, before the
 * caller's critical section.
 */
int
fpb_page_insert_slot(Page page, const FpbCmp *cmp, const FpbEntry *e,
					 BlockNumber blkno, int *pos)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	bool		internal = !FpbPageIsLeaf(opq);
	int			lcap = fpb_leafcap(opq->x, internal);
	uint16		path[FPB_MAX_IPHEIGHT];
	int			pidx[FPB_MAX_IPHEIGHT];
	char	   *leaf;
	FpbNodeHeader *lhdr;

	if (FpbPageIsPosting(opq))
		return fpb_posting_insert_slot(page, cmp, e, blkno, pos);
	if (opq->ipheight == 0)
		return -1;
	leaf = fpb_get_node(page, opq, fpb_descend(page, cmp, e, blkno, path, pidx),
						opq->x, lcap, FPB_NODE_LEAF, blkno);
	lhdr = (FpbNodeHeader *) leaf;
	if (lhdr->n >= lcap)
		return -1;

	/*
	 * fpb_page_insert_at changes the node on the shared page and logs only
	 * the bytes it names, so it must stay below pd_lower: the hole above is
	 * neither logged nor kept.  Checked here, before the critical section.
	 */
	if ((leaf - (char *) page) + opq->x * FPB_LINE >
		((PageHeader) page)->pd_lower)
		fpb_page_corrupt(blkno, "in-page leaf node lies above pd_lower");

	/* a wide page needs room for the value's slot above pd_lower */
	if (opq->flags & FPB_F_WIDE)
	{
		PageHeader	ph = (PageHeader) page;

		if (ph->pd_upper - fpb_slot_need(page, e->f, ph->pd_upper) <
			ph->pd_lower)
			return -1;
	}
	*pos = fpb_node_find_lower(cmp, page, blkno, fpb_node_keys(leaf),
							   fpb_node_tids(leaf, lcap), lhdr->n, e);
	return (int) (leaf - (char *) page);
}

/*
 * Do the insert found by fpb_page_insert_slot, on page (which may be a copy
 * of the page it was found on).  Cannot fail.  Fills ranges with the bytes
 * it changed (at most FPB_INSERT_RANGES) and returns their number.
 */
int
fpb_page_insert_at(Page page, int nodeoff, int pos, const FpbEntry *e,
				   FpbByteRange *ranges)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	bool		internal = !FpbPageIsLeaf(opq);
	int			lcap = fpb_leafcap(opq->x, internal);
	char	   *leaf = (char *) page + nodeoff;
	FpbNodeHeader *lhdr = (FpbNodeHeader *) leaf;
	int			from;
	int			moved;
	int			nr = 0;
	PageHeader	ph = (PageHeader) page;
	uint16		oldupper = ph->pd_upper;
	uint8		oldstart = lhdr->start;
	bool		starts = (opq->flags & FPB_F_STARTS) != 0;
	FpbEntry	se = *e;

	if (FpbPageIsPosting(opq))
		return fpb_posting_insert_at(page, pos, e, ranges);
	/* checked by fpb_page_insert_slot: the change stays out of the hole */
	Assert(nodeoff + opq->x * FPB_LINE <= ((PageHeader) page)->pd_lower);
	if (opq->flags & FPB_F_WIDE)
		se.k = fpb_slot_put(page, e->k, e->f);
	fpb_leafnode_insert(leaf, lcap, internal, starts, pos, &se, &from,
						&moved);
	opq->nentries++;

#define FPB_RANGE(ptr, size) \
	(ranges[nr].off = (uint16) ((char *) (ptr) - (char *) page), \
	 ranges[nr].len = (uint16) (size), nr++)
	FPB_RANGE(&lhdr->n, sizeof(lhdr->n));
	if (lhdr->start != oldstart)
		FPB_RANGE(&lhdr->start, sizeof(lhdr->start));
	FPB_RANGE(&fpb_node_keys(leaf)[from], moved * sizeof(uint64));
	FPB_RANGE(&fpb_node_tids(leaf, lcap)[from],
			  moved * sizeof(ItemPointerData));
	if (internal)
		FPB_RANGE(&fpb_node_children(leaf, lcap)[from],
				  moved * sizeof(BlockNumber));
	FPB_RANGE(&opq->nentries, sizeof(opq->nentries));
	if (ph->pd_upper != oldupper)
	{
		/* the new slot, and pd_upper below it */
		FPB_RANGE((char *) page + ph->pd_upper, oldupper - ph->pd_upper);
		FPB_RANGE(&ph->pd_upper, sizeof(ph->pd_upper));
	}
#undef FPB_RANGE
	Assert(nr <= FPB_INSERT_RANGES);
	return nr;
}

/* Insert separator (k, t) -> line at position pos of a non-leaf node. */
static void
fpb_innernode_insert(char *node, int cap, int pos, uint64 k, uint64 t,
					 uint16 line)
{
	FpbNodeHeader *hdr = (FpbNodeHeader *) node;
	uint64	   *keys = fpb_node_keys(node);
	ItemPointerData *tids = fpb_node_tids(node, cap);
	uint16	   *cl = fpb_node_lines(node, cap);
	int			move = hdr->n - pos;

	memmove(&keys[pos + 1], &keys[pos], move * sizeof(uint64));
	memmove(&tids[pos + 1], &tids[pos], move * sizeof(ItemPointerData));
	memmove(&cl[pos + 1], &cl[pos], move * sizeof(uint16));
	keys[pos] = k;
	fpb_t_to_tid(t, &tids[pos]);
	cl[pos] = line;
	hdr->n++;
}

/*
 * Reorganise: rebuild the in-page tree with the new entry included.  Up to
 * FPB_REORG_MAX_FILL only: above the build's fill (90% by default), so that
 * a freshly built page absorbs its first inserts as btree's leaves (filled
 * to 90%, split at 100%) do; below 1, because a nearly full page would be
 * rewritten on almost every insert.  A fuller leaf page of one key, or of
 * runs of equal keys (fpb_posting_worth), becomes a posting page instead of
 * splitting.
 */
static bool
fpb_page_reorganise(Page page, const FpbCmp *cmp, const FpbEntry *e,
					BlockNumber blkno)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	int			n = opq->nentries;
	int			maxcap = fpb_page_capacity(opq->w, opq->x, !FpbPageIsLeaf(opq),
										   1.0);
	FpbEntry   *ents;
	int			pos;
	bool		ok;
	bool		full;

	if (n + 1 > maxcap * FPB_REORG_MAX_FILL && !FpbPageIsLeaf(opq))
		return false;
	ents = palloc(sizeof(FpbEntry) * (n + 1));
	fpb_page_collect(page, ents, blkno);
	for (pos = n; pos > 0 && fpb_entry_cmp(cmp, &ents[pos - 1], e) > 0; pos--)
		ents[pos] = ents[pos - 1];
	ents[pos] = *e;
	full = n + 1 > maxcap * FPB_REORG_MAX_FILL;

	/*
	 * A wide page holds fewer entries than maxcap counts: a rule in its own
	 * terms, the room the rewrite would leave for more entries of the
	 * average size, FPB_REORG_MIN_ROOM of them, fewer on a page of fewer
	 * than 128 entries, none below 32 (large values: one entry more or
	 * less is a large share of the page).  Entries that fit no regular page
	 * (room -1) are left to fpb_page_layout, which may lay them out as a
	 * page of runs, denser than a regular page for large values.  Nor for a
	 * page that could become a page of runs of equal values: it is laid out
	 * again until its entries no longer fit a regular page, and then
	 * becomes one instead of splitting.
	 */
	if (!full && (opq->flags & FPB_F_WIDE) &&
		!fpb_posting_candidate(page, ents, n + 1))
	{
		int			room = fpb_wide_room(page, ents, n + 1);

		full = room >= 0 && room < Min(FPB_REORG_MIN_ROOM, (n + 1) / 32);
	}
	if (full && (!FpbPageIsLeaf(opq) || !fpb_posting_worth(page, ents, n + 1)))
	{
		pfree(ents);
		return false;
	}

	/*
	 * An entry that comes last (ascending inserts) fills the last node
	 * only, one that comes first (descending inserts) the first: pack the
	 * nodes and leave the free lines for the node splits that follow, each
	 * of which keeps its old node full.  Spread over every node (fill 0),
	 * the entries would leave the edge node a few free places and no free
	 * line, and the page would be laid out again, a record of most of it,
	 * every few inserts.  Not a page over the limit that goes on only to
	 * become a page of runs: packed, it would be a regular page again as
	 * long as its entries fit one whole.
	 */
	ok = fpb_page_layout(page, ents, n + 1,
						 (!full && (pos == n || pos == 0)) ? 1.0 : 0);
	pfree(ents);
	return ok;
}

/*
 * Is e, a leaf entry between prev (NULL at the start) and next, the newest
 * entry of a descending run whose previous insert is next: the mirror of
 * insert.c's split after the new entry?  Two signs: next's heap tuple is
 * the one just before e's (keys descending in heap order), or, in a
 * multi-column index, e begins a group of the first column that goes on
 * through next to far ((tenant, time DESC) inserts; far NULL: no group
 * counts).  A false sign costs a lopsided split, never a wrong entry.
 */
bool
fpb_run_descends(const FpbCmp *cmp, const FpbEntry *prev, const FpbEntry *e,
				 const FpbEntry *next, const FpbEntry *far)
{
	if (fpb_t_follows(next->t, e->t))
		return true;
	if (cmp == NULL || !cmp->multi || far == NULL)
		return false;
	return fpb_tuple_first_equal(cmp, e, next) &&
		fpb_tuple_first_equal(cmp, e, far) &&
		(prev == NULL || !fpb_tuple_first_equal(cmp, prev, e));
}

/*
 * Entry i of a leaf node, with its tuple when the index is a multi-column
 * one (fpb_run_descends compares first columns).
 */
static FpbEntry
fpb_node_entry(const FpbCmp *cmp, Page page, char *node, int cap, int i,
			   BlockNumber blkno)
{
	FpbEntry	e;

	e.k = fpb_node_keys(node)[i];
	e.t = fpb_tid_to_t(&fpb_node_tids(node, cap)[i]);
	e.child = InvalidBlockNumber;
	e.f = (cmp && cmp->multi) ? fpb_slot_get(page, e.k, blkno) : NULL;
	return e;
}

/*
 * Does the new entry e, after the last entry of the full leaf node leaf,
 * begin a descending run that goes on in the next node (fpb_run_descends
 * with that node's first entry)?  Then the node split keeps the entry with
 * the node's last one, or fpb_run_front puts it ahead of the next node.
 */
static bool
fpb_run_at_end(const FpbCmp *cmp, Page page, FpbPageOpaque opq, char *leaf,
			   const FpbEntry *e, BlockNumber blkno)
{
	int			lcap = fpb_leafcap(opq->x, false);
	FpbNodeHeader *lhdr = (FpbNodeHeader *) leaf;
	char	   *next;
	FpbEntry	pe,
				ne;

	if (lhdr->next == FPB_NONE || lhdr->n < 2)
		return false;
	next = fpb_get_node(page, opq, lhdr->next, opq->x, lcap, FPB_NODE_LEAF,
						blkno);
	if (((FpbNodeHeader *) next)->n < 1)
		return false;
	pe = fpb_node_entry(cmp, page, leaf, lcap, lhdr->n - 1, blkno);
	ne = fpb_node_entry(cmp, page, next, lcap, 0, blkno);
	return fpb_run_descends(cmp, &pe, e, &ne, &ne);
}

/*
 * For such a run (fpb_run_at_end): the next node, if it has room and the
 * same in-page parent, else NULL.  The entry may go to its front and become
 * its separator (a separator need only lie above the entries of the node
 * before and at or below its node's first), and the node's room takes the
 * run's next inserts without a new node's line.
 */
static char *
fpb_run_front(Page page, FpbPageOpaque opq, char *leaf, const uint16 *path,
			  const int *pidx, BlockNumber blkno)
{
	int			lcap = fpb_leafcap(opq->x, false);
	FpbNodeHeader *lhdr = (FpbNodeHeader *) leaf;
	char	   *parent;
	char	   *next;

	if (opq->ipheight < 2)
		return NULL;
	parent = fpb_line(page, path[0]);
	if (pidx[0] + 1 >= ((FpbNodeHeader *) parent)->n ||
		fpb_node_lines(parent, fpb_innercap(opq->w))[pidx[0] + 1] !=
		lhdr->next)
		return NULL;
	next = fpb_get_node(page, opq, lhdr->next, opq->x, lcap, FPB_NODE_LEAF,
						blkno);
	return ((FpbNodeHeader *) next)->n < lcap ? next : NULL;
}

/*
 * Insert one entry into the page: shift it into its in-page leaf node; if
 * the node is full, put it at the front of the next node (a descending
 * run, fpb_run_front) or split the node inside the page; if the page has
 * no free lines (or the parent node is full), reorganise the whole in-page
 * tree.  Returns false, with the page unchanged, when the page must split.
 */
bool
fpb_page_insert(Page page, const FpbCmp *cmp, const FpbEntry *e,
				BlockNumber blkno)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	bool		internal = !FpbPageIsLeaf(opq);
	int			lcap = fpb_leafcap(opq->x, internal);
	int			icap = fpb_innercap(opq->w);
	uint16		path[FPB_MAX_IPHEIGHT];
	int			pidx[FPB_MAX_IPHEIGHT];
	uint16		leafline;
	char	   *leaf;
	FpbNodeHeader *lhdr;
	int			pos;
	uint16		newline;
	char	   *newnode;
	FpbNodeHeader *nhdr;
	int			mid;
	int			nmove;
	int			nlines = FPB_NLINES;
	FpbEntry	se = *e;
	char	   *front = NULL;
	bool		endrun = false;
	bool		starts = (opq->flags & FPB_F_STARTS) != 0;
	int			from;			/* what fpb_leafnode_insert moved: unused */
	int			count;

	if (FpbPageIsPosting(opq))
		return fpb_posting_insert(page, cmp, e, blkno);
	if (opq->ipheight == 0)
	{
		/* empty page: one leaf node is the whole in-page tree */
		return fpb_page_layout(page, e, 1, 0);
	}

	leafline = fpb_descend(page, cmp, e, blkno, path, pidx);
	leaf = fpb_get_node(page, opq, leafline, opq->x, lcap, FPB_NODE_LEAF,
						blkno);
	lhdr = (FpbNodeHeader *) leaf;
	pos = fpb_node_find_lower(cmp, page, blkno, fpb_node_keys(leaf),
							  fpb_node_tids(leaf, lcap), lhdr->n, e);
	if (lhdr->n >= lcap && pos == lhdr->n && !internal &&
		fpb_run_at_end(cmp, page, opq, leaf, e, blkno))
	{
		endrun = true;
		front = fpb_run_front(page, opq, leaf, path, pidx, blkno);
	}

	/*
	 * A wide page needs a slot for the value as well; the lines left below
	 * it bound a node split.  With no room the page is reorganised, which
	 * compacts the slotted area.
	 */
	if (opq->flags & FPB_F_WIDE)
	{
		PageHeader	ph = (PageHeader) page;
		int			upper = ph->pd_upper - fpb_slot_need(page, e->f,
														 ph->pd_upper);

		if (upper < ph->pd_lower)
			return fpb_page_reorganise(page, cmp, e, blkno);
		nlines = (upper - FPB_DATA_START) / FPB_LINE;
		if (lhdr->n >= lcap && front == NULL &&
			((int) opq->hwm + opq->x + (opq->ipheight == 1 ? opq->w : 0) >
			 nlines ||
			 (opq->ipheight > 1 &&
			  ((FpbNodeHeader *) fpb_line(page, path[0]))->n >= icap)))
			return fpb_page_reorganise(page, cmp, e, blkno);
		se.k = fpb_slot_put(page, e->k, e->f);
	}

	if (lhdr->n < lcap)
	{
		fpb_leafnode_insert(leaf, lcap, internal, starts, pos, &se, &from,
							&count);
		opq->nentries++;
		return true;
	}
	if (front != NULL)
	{
		char	   *parent = fpb_line(page, path[0]);

		fpb_leafnode_insert(front, lcap, false, starts, 0, &se, &from,
							&count);
		fpb_node_keys(parent)[pidx[0] + 1] = se.k;
		fpb_t_to_tid(se.t, &fpb_node_tids(parent, icap)[pidx[0] + 1]);
		opq->nentries++;
		return true;
	}

	/* the node split below rewrites the next node's back link */
	if (lhdr->next != FPB_NONE)
		(void) fpb_get_node(page, opq, lhdr->next, opq->x, lcap,
							FPB_NODE_LEAF, blkno);

	/*
	 * Split the leaf node inside the page, if there are free lines for the
	 * new node and its parent has room for the separator (a root leaf node
	 * needs a new non-leaf root as well).
	 */
	if (opq->ipheight == 1)
	{
		if ((int) opq->hwm + opq->x + opq->w > nlines)
			return fpb_page_reorganise(page, cmp, e, blkno);
	}
	else
	{
		char	   *parent = fpb_line(page, path[0]);

		if (((FpbNodeHeader *) parent)->n >= icap ||
			(int) opq->hwm + opq->x > nlines)
			return fpb_page_reorganise(page, cmp, e, blkno);
	}

	newline = fpb_alloc_node(page, opq, opq->x, FPB_NODE_LEAF);
	newnode = fpb_line(page, newline);
	nhdr = (FpbNodeHeader *) newnode;

	/*
	 * Appending at the end (ascending inserts) keeps the old node full; so
	 * does an entry at the front (descending inserts), which stays alone in
	 * the old node while all its entries move to the new one.  Split in the
	 * middle, each would leave a trail of half-full nodes, and the page
	 * would run out of lines and be laid out again every few inserts.
	 *
	 * A descending run in the middle of a leaf page (fpb_run_descends: the
	 * entry after the new one is the run's previous insert) is the mirror
	 * of appending, and its next inserts come between the new entry and the
	 * one before it, which must stay in one node.  As for pages (insert.c),
	 * the node that takes no more inserts is the larger part: with few
	 * entries before the new one, the run's older entries after it; with
	 * many, the entries before it but the last, which moves with the new
	 * one.  That holds at the node's end too, the run going on in the next
	 * node: a new node of the entry alone would never take the run's next
	 * insert, which comes before it, and each insert would start a node.
	 */
	if (pos == lhdr->n)
		mid = endrun ? lhdr->n - 1 : lhdr->n;
	else if (pos == 0)
	{
		/*
		 * The old node's separator stays below e (the descent chose it),
		 * the new node's is its first entry, above e.  Only the ignored
		 * first separator of a non-leaf node (README "Page format") may
		 * exceed the next one, after front inserts into the page's first
		 * node.
		 */
		mid = 0;
	}
	else
	{
		mid = lhdr->n / 2;
		if (!internal)
		{
			/* a group's run must fill the rest of the node */
			FpbEntry	pe = fpb_node_entry(cmp, page, leaf, lcap, pos - 1,
											blkno);
			FpbEntry	ne = fpb_node_entry(cmp, page, leaf, lcap, pos,
											blkno);
			FpbEntry	le = fpb_node_entry(cmp, page, leaf, lcap,
											lhdr->n - 1, blkno);

			if (fpb_run_descends(cmp, &pe, e, &ne, &le))
				mid = (pos >= lhdr->n / 2 && pos > 1) ? pos - 1 : pos;
		}
	}
	nmove = lhdr->n - mid;

	/*
	 * Free slots where the next inserts go (FPB_F_STARTS): before the new
	 * node's entries down a descending run through the node's end, after
	 * them otherwise (centred, the slots after a split in the middle wrote
	 * more WAL under ascending runs within groups, and no less under random
	 * inserts).  A split at the front leaves the new entry alone in the old
	 * node, at its last slot: the inserts at a node's front are a
	 * descending run's.
	 */
	if (starts && endrun)
		nhdr->start = Max(lcap - nmove - 1, 0);
	memcpy(fpb_node_keys(newnode), &fpb_node_keys(leaf)[mid],
		   nmove * sizeof(uint64));
	memcpy(fpb_node_tids(newnode, lcap), &fpb_node_tids(leaf, lcap)[mid],
		   nmove * sizeof(ItemPointerData));
	if (internal)
		memcpy(fpb_node_children(newnode, lcap),
			   &fpb_node_children(leaf, lcap)[mid],
			   nmove * sizeof(BlockNumber));
	nhdr->n = nmove;
	lhdr->n = mid;
	if (mid == 0 && starts)
		lhdr->start = lcap - 1;
	if (pos <= mid && mid < lcap)
		fpb_leafnode_insert(leaf, lcap, internal, starts, pos, &se, &from,
							&count);
	else
		fpb_leafnode_insert(newnode, lcap, internal, starts, pos - mid, &se,
							&from, &count);
	opq->nentries++;

	/* sibling chain */
	nhdr->prev = leafline;
	nhdr->next = lhdr->next;
	if (lhdr->next != FPB_NONE)
		((FpbNodeHeader *) fpb_line(page, lhdr->next))->prev = newline;
	else
		opq->lastleaf = newline;
	lhdr->next = newline;

	/* separator = first entry of the new node */
	{
		uint64		sk = fpb_node_keys(newnode)[0];
		uint64		st = fpb_tid_to_t(&fpb_node_tids(newnode, lcap)[0]);

		if (opq->ipheight == 1)
		{
			uint16		rootline = fpb_alloc_node(page, opq, opq->w,
												  FPB_NODE_INNER);
			char	   *root = fpb_line(page, rootline);
			uint64		fk = fpb_node_keys(leaf)[0];
			uint64		ft = fpb_tid_to_t(&fpb_node_tids(leaf, lcap)[0]);

			fpb_innernode_insert(root, icap, 0, fk, ft, leafline);
			fpb_innernode_insert(root, icap, 1, sk, st, newline);
			opq->root = rootline;
			opq->ipheight = 2;
		}
		else
			fpb_innernode_insert(fpb_line(page, path[0]), icap, pidx[0] + 1,
								 sk, st, newline);
	}
	return true;
}
