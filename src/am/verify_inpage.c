/*-------------------------------------------------------------------------
 *
 * verify_inpage.c
 *	  fpbtree_check()'s verification of one page's in-page tree of
 *	  cache-line nodes (the "in-page tree" invariants listed in verify.c).
 *
 * The check works on a private copy of the page, with no buffer lock held,
 * so it may raise its errors anywhere.  Node references are followed only
 * after they were found inside the used lines and unclaimed by another
 * node, so a damaged page can neither send the walk outside the page nor
 * around a cycle.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fpbtree.h"

/* One (optional) bound of an in-page key range */
typedef struct FpbBound
{
	bool		valid;
	uint64		k;
	uint64		t;
	const char *f;				/* wide pages: the value */
} FpbBound;

/* State of the walk of one page's in-page tree */
typedef struct FpbInpageWalk
{
	Relation	index;
	Page		page;
	FpbPageOpaque opq;
	BlockNumber blkno;
	bool		internal;
	const FpbCmp *cmp;			/* wide pages: the comparison */
	FmgrInfo   *encproc;		/* wide pages: the prefix function */
	int			lcap;
	int			icap;
	bool		used[FPB_NLINES];	/* lines owned by a node already seen */
	uint16		order[FPB_NLINES];	/* leaf nodes in key order */
	int			nleafnodes;
} FpbInpageWalk;

/* Compare stored key (k, t) of the page with bound b. */
static int
fpb_check_cmp(FpbInpageWalk *ws, uint64 k, uint64 t, const FpbBound *b)
{
	if (ws->cmp == NULL)
		return fpb_key_cmp(k, t, b->k, b->t);
	return fpb_wide_cmp(ws->cmp, k, t, fpb_slot_get(ws->page, k, ws->blkno),
						b->k, b->t, b->f);
}

/*
 * A wide page's stored key: its slot lies in the slotted area, ends before
 * the special space, and holds a value whose prefix is the key's; an entry
 * without value is NULL (or minus infinity, the first downlink of an
 * internal page).
 */
static void
fpb_check_wide_key(FpbInpageWalk *ws, uint64 k, uint64 t, bool leaf,
				   uint16 line, int i)
{
	const char *f = fpb_slot_get(ws->page, k, ws->blkno);
	uint64		p;

	if (f == NULL)
	{
		/* a multi-column entry has a tuple even when its first column is NULL */
		if ((!(t & FPB_T_NULLBIT) || ws->cmp->multi) &&
			!(!leaf && k == 0 && t == 0))
			fpb_index_corrupt(ws->index, ws->blkno,
							  "Entry %d %s of in-page node at line %u has no full value.",
							  i, fpb_keydesc(k, t), line);
		return;
	}
	if (ws->cmp->multi)
	{
		char	   *what = psprintf("Entry %d of in-page node at line %u", i,
									line);

		if (f + (fpb_is_packed(f) ? 1 : sizeof(IndexTupleData)) >
			(char *) ws->page + BLCKSZ - FPB_SPECIAL_SIZE)
			fpb_index_corrupt(ws->index, ws->blkno,
							  "%s %s runs into the special space.",
							  what, fpb_keydesc(k, t));
	}
	else if (t & FPB_T_NULLBIT)
		fpb_index_corrupt(ws->index, ws->blkno,
						  "NULL entry %d %s of in-page node at line %u has a full value.",
						  i, fpb_keydesc(k, t), line);
	if (f + fpb_slot_len(ws->page, f) >
		(char *) ws->page + BLCKSZ - FPB_SPECIAL_SIZE)
		fpb_index_corrupt(ws->index, ws->blkno,
						  "Full value of entry %d %s of in-page node at line %u runs into the special space.",
						  i, fpb_keydesc(k, t), line);
	if (ws->cmp->multi)
	{
		fpb_check_multi_key(ws->index, ws->cmp, f, k, t, ws->blkno,
							psprintf("Entry %d of in-page node at line %u",
									 i, line), !leaf);
		return;
	}
	/* a value is compressed only when too long, and where the format says */
	if (!fpb_full_compress_ok(ws->cmp, f))
		fpb_index_corrupt(ws->index, ws->blkno,
						  "Entry %d %s of in-page node at line %u has a compressed value the index's format does not allow.",
						  i, fpb_keydesc(k, t), line);
	if (!fpb_full_prefix_ok(ws->cmp, ws->encproc, f, k, &p))
		fpb_index_corrupt(ws->index, ws->blkno,
						  "Entry %d %s of in-page node at line %u has a prefix that differs from its full value's, %s.",
						  i, fpb_keydesc(k, t), line,
						  fpb_keydesc(FPB_WIDE_PREFIX(p), t));
}

/*
 * Check the node at line, at in-page depth depth (0 = leaf nodes), whose
 * keys must lie in [lo, hi), and everything below it.  Leaf nodes are
 * appended to ws->order as they are met, which is key order.
 */
static void
fpb_check_node(FpbInpageWalk *ws, uint16 line, int depth, uint16 parent,
			   FpbBound lo, FpbBound hi)
{
	Relation	index = ws->index;
	BlockNumber blkno = ws->blkno;
	int			width = (depth == 0) ? ws->opq->x : ws->opq->w;
	int			kind = (depth == 0) ? FPB_NODE_LEAF : FPB_NODE_INNER;
	char	   *node;
	FpbNodeHeader *hdr;
	uint64	   *keys;
	ItemPointerData *tids;

	if (line == FPB_NONE || (int) line + width > ws->opq->hwm)
	{
		if (parent == FPB_NONE)
			fpb_index_corrupt(index, blkno,
							  "In-page root node %u is outside the used lines [0, %u).",
							  line, ws->opq->hwm);
		fpb_index_corrupt(index, blkno,
						  "In-page node reference %u (from node at line %u) is outside the used lines [0, %u).",
						  line, parent, ws->opq->hwm);
	}
	for (int i = line; i < line + width; i++)
	{
		if (ws->used[i])
			fpb_index_corrupt(index, blkno,
							  "In-page node at line %u overlaps another node (line %u is used twice).",
							  line, i);
		ws->used[i] = true;
	}

	node = fpb_line(ws->page, line);
	hdr = (FpbNodeHeader *) node;
	if (hdr->kind != kind)
		fpb_index_corrupt(index, blkno,
						  "In-page node at line %u has kind %u, expected %u at in-page depth %d.",
						  line, hdr->kind, kind, depth);

	if (depth == 0)
	{
		keys = fpb_node_keys(node);
		tids = fpb_node_tids(node, ws->lcap);
		if (hdr->start + hdr->n > ws->lcap)
			fpb_index_corrupt(index, blkno,
							  "In-page leaf node at line %u holds %u entries from slot %u, capacity is %d.",
							  line, hdr->n, hdr->start, ws->lcap);
		if (hdr->start != 0 &&
			!(FpbPageGetOpaque(ws->page)->flags & FPB_F_STARTS))
			fpb_index_corrupt(index, blkno,
							  "In-page leaf node at line %u starts at slot %u on a page whose nodes start at slot 0.",
							  line, hdr->start);

		/*
		 * Descent into an internal page takes the previous node's last
		 * downlink for a key below a node's first; an empty node breaks that,
		 * and nothing ever removes downlinks.
		 */
		if (hdr->n == 0 && ws->internal)
			fpb_index_corrupt(index, blkno,
							  "In-page leaf node at line %u of an internal page is empty.",
							  line);
		for (int i = 0; i < hdr->n; i++)
		{
			uint64		t = fpb_tid_to_t(&tids[i]);

			/* scans mark leaf entries only (dead.c) */
			if (ws->internal && fpb_tid_is_dead(&tids[i]))
				fpb_index_corrupt(index, blkno,
								  "Downlink %s in in-page leaf node at line %u carries the dead mark of a leaf entry.",
								  fpb_keydesc(keys[i], t), line);
			if (ws->cmp)
				fpb_check_wide_key(ws, keys[i], t, !ws->internal, line, i);
			if ((lo.valid && fpb_check_cmp(ws, keys[i], t, &lo) < 0) ||
				(hi.valid && fpb_check_cmp(ws, keys[i], t, &hi) >= 0))
				fpb_index_corrupt(index, blkno,
								  "Entry %s in in-page leaf node at line %u lies outside the range %s to %s that its in-page parent at line %u gives it.",
								  fpb_keydesc(keys[i], t), line,
								  lo.valid ? fpb_keydesc(lo.k, lo.t) : "-inf",
								  hi.valid ? fpb_keydesc(hi.k, hi.t) : "+inf",
								  parent);
		}
		ws->order[ws->nleafnodes++] = line;
		return;
	}

	keys = fpb_node_keys(node);
	tids = fpb_node_tids(node, ws->icap);
	if (hdr->n < 1 || hdr->n > ws->icap)
		fpb_index_corrupt(index, blkno,
						  "In-page non-leaf node at line %u has %u children, expected 1 to %d.",
						  line, hdr->n, ws->icap);
	if (hdr->start != 0)
		fpb_index_corrupt(index, blkno,
						  "In-page non-leaf node at line %u starts at slot %u, expected 0.",
						  line, hdr->start);

	/*
	 * The in-page descent picks the last separator <= the key, or child 0
	 * for a key below them all, so separator 0 is only a hint (inserting a
	 * smaller key does not lower it) and is not checked.  Separator i > 0
	 * bounds child i from below and child i - 1 from above.
	 */
	for (int i = 1; i < hdr->n; i++)
	{
		uint64		t = fpb_tid_to_t(&tids[i]);
		uint64		pt = fpb_tid_to_t(&tids[i - 1]);

		if (fpb_tid_is_dead(&tids[i]))
			fpb_index_corrupt(index, blkno,
							  "Separator %d %s of in-page node at line %u carries the dead mark of a leaf entry.",
							  i, fpb_keydesc(keys[i], t), line);
		if ((lo.valid && fpb_check_cmp(ws, keys[i], t, &lo) < 0) ||
			(hi.valid && fpb_check_cmp(ws, keys[i], t, &hi) >= 0))
			fpb_index_corrupt(index, blkno,
							  "Separator %d %s of in-page node at line %u lies outside the node's range %s to %s.",
							  i, fpb_keydesc(keys[i], t), line,
							  lo.valid ? fpb_keydesc(lo.k, lo.t) : "-inf",
							  hi.valid ? fpb_keydesc(hi.k, hi.t) : "+inf");
		if (i > 1)
		{
			FpbBound	prevsep = {true, keys[i - 1], pt, NULL};

			if (ws->cmp)
				prevsep.f = fpb_slot_get(ws->page, keys[i - 1], blkno);
			if (fpb_check_cmp(ws, keys[i], t, &prevsep) <= 0)
			fpb_index_corrupt(index, blkno,
								  "Separators %d and %d of in-page node at line %u are not in increasing order.",
								  i - 1, i, line);
		}
	}

	for (int i = 0; i < hdr->n; i++)
	{
		uint16	   *lines = fpb_node_lines(node, ws->icap);
		FpbBound	clo = lo;
		FpbBound	chi = hi;

		if (i > 0)
		{
			clo.valid = true;
			clo.k = keys[i];
			clo.t = fpb_tid_to_t(&tids[i]);
			clo.f = ws->cmp ? fpb_slot_get(ws->page, keys[i], blkno) : NULL;
		}
		if (i < hdr->n - 1)
		{
			chi.valid = true;
			chi.k = keys[i + 1];
			chi.t = fpb_tid_to_t(&tids[i + 1]);
			chi.f = ws->cmp ? fpb_slot_get(ws->page, keys[i + 1], blkno) : NULL;
		}
		fpb_check_node(ws, lines[i], depth - 1, line, clo, chi);
	}
}

/*
 * Verify the in-page tree of page, block blkno of index, and return its
 * entries in key order (allocated in the current, per-page, context);
 * *nentries gets the count.  Raises ERRCODE_INDEX_CORRUPTED, naming the
 * block, at the first broken invariant.
 */
FpbEntry *
fpb_check_inpage(Relation index, Page page, BlockNumber blkno, int *nentries)
{
	FpbInpageWalk *ws = palloc0(sizeof(FpbInpageWalk));
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	FpbEntry   *ents;
	FpbBound	none = {false, 0, 0, NULL};
	uint16		line;
	uint16		prev = FPB_NONE;
	int			n = 0;

	ws->index = index;
	ws->page = page;
	ws->opq = opq;
	ws->blkno = blkno;
	ws->internal = !FpbPageIsLeaf(opq);
	ws->lcap = fpb_leafcap(opq->x, ws->internal);
	ws->icap = fpb_innercap(opq->w);
	if (opq->flags & FPB_F_WIDE)
	{
		ws->cmp = fpb_index_cmp(index);
		ws->encproc = index_getprocinfo(index, 1, FPB_ENCODE_PROC);
		if (ws->cmp == NULL)
			fpb_index_corrupt(index, blkno,
							  "Page is wide, but the index's operator class has no comparison function.");
		if (!FpbPageIsRightmost(opq))
			fpb_check_wide_key(ws, opq->hikey, fpb_tid_to_t(&opq->hitid),
							   false, FPB_NONE, -1);
	}

	/*
	 * Generic WAL skips the hole from pd_lower on, so nodes above pd_lower
	 * would be lost by WAL replay.
	 */
	if (((PageHeader) page)->pd_lower < FPB_DATA_START + opq->hwm * FPB_LINE)
		fpb_index_corrupt(index, blkno,
						  "pd_lower %u does not cover the %u node lines in use (expected %u).",
						  ((PageHeader) page)->pd_lower, opq->hwm,
						  FPB_DATA_START + opq->hwm * FPB_LINE);

	if (fpb_tid_is_dead(&opq->hitid))
		fpb_index_corrupt(index, blkno,
						  "The high key carries the dead mark of a leaf entry.");

	if (FpbPageIsPosting(opq))
	{
		pfree(ws);
		return fpb_check_posting(index, page, blkno, nentries);
	}
	if (opq->ipheight == 0)
	{
		if (opq->nentries != 0 || opq->root != FPB_NONE ||
			opq->firstleaf != FPB_NONE || opq->lastleaf != FPB_NONE)
			fpb_index_corrupt(index, blkno,
							  "Page without in-page tree has %u entries, root %u, first leaf node %u, last leaf node %u.",
							  opq->nentries, opq->root, opq->firstleaf,
							  opq->lastleaf);
		*nentries = 0;
		pfree(ws);
		return NULL;
	}
	if (ws->lcap < 1 || ws->icap < 2)
		fpb_index_corrupt(index, blkno, "Node widths %u/%u leave no room for entries.",
						  opq->w, opq->x);

	fpb_check_node(ws, opq->root, opq->ipheight - 1, FPB_NONE, none, none);

	/* the leaf chain must visit exactly the tree's leaf nodes, in order */
	if (opq->firstleaf != ws->order[0])
		fpb_index_corrupt(index, blkno,
						  "In-page first leaf node is line %u, but the in-page tree's first leaf node is line %u.",
						  opq->firstleaf, ws->order[0]);
	if (opq->lastleaf != ws->order[ws->nleafnodes - 1])
		fpb_index_corrupt(index, blkno,
						  "In-page last leaf node is line %u, but the in-page tree's last leaf node is line %u.",
						  opq->lastleaf, ws->order[ws->nleafnodes - 1]);
	line = opq->firstleaf;
	for (int j = 0; j < ws->nleafnodes; j++)
	{
		FpbNodeHeader *hdr = (FpbNodeHeader *) fpb_line(page, ws->order[j]);
		uint16		expnext = (j + 1 < ws->nleafnodes) ? ws->order[j + 1] : FPB_NONE;

		if (line != ws->order[j])
			fpb_index_corrupt(index, blkno,
							  "In-page leaf chain reaches line %u where the in-page tree has leaf node %u.",
							  line, ws->order[j]);
		if (hdr->prev != prev)
			fpb_index_corrupt(index, blkno,
							  "In-page leaf node at line %u has previous link %u, expected %u.",
							  line, hdr->prev, prev);
		if (hdr->next != expnext)
			fpb_index_corrupt(index, blkno,
							  "In-page leaf node at line %u has next link %u, expected %u.",
							  line, hdr->next, expnext);
		n += hdr->n;
		prev = line;
		line = hdr->next;
	}
	if (n != (int) opq->nentries)
		fpb_index_corrupt(index, blkno,
						  "In-page leaf nodes hold %d entries, the page header says %u.",
						  n, opq->nentries);

	/* gather the entries in key order */
	ents = palloc(sizeof(FpbEntry) * Max(n, 1));
	n = 0;
	for (int j = 0; j < ws->nleafnodes; j++)
	{
		char	   *node = fpb_line(page, ws->order[j]);
		FpbNodeHeader *hdr = (FpbNodeHeader *) node;
		uint64	   *keys = fpb_node_keys(node);
		ItemPointerData *tids = fpb_node_tids(node, ws->lcap);
		BlockNumber *ch = ws->internal ? fpb_node_children(node, ws->lcap) : NULL;

		for (int i = 0; i < hdr->n; i++, n++)
		{
			ents[n].k = keys[i];
			ents[n].t = fpb_tid_to_t(&tids[i]);
			ents[n].child = ch ? ch[i] : InvalidBlockNumber;
			ents[n].f = ws->cmp ? fpb_slot_get(page, keys[i], blkno) : NULL;
		}
	}
	*nentries = n;
	pfree(ws);
	return ents;
}
