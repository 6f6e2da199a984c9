/*-------------------------------------------------------------------------
 *
 * page.c
 *	  One fpbtree page and the in-page tree of cache-line nodes inside it:
 *	  checks, search and reading entries (insertion into it is in
 *	  page_insert.c, the layout of a whole page in layout.c).
 *
 * Nothing here touches buffers, locks or WAL: callers hand in a page they
 * may modify (usually wal.c's copy) and log it themselves.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "compat.h"
#include "fpbtree.h"
#include "page.h"

/* Raise the error every damaged-structure path uses. */
void
fpb_page_corrupt(BlockNumber blkno, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("fpbtree page %u is corrupted: %s", blkno, what)));
}

void
fpb_prefetch_node(char *node, int lines)
{
	for (int i = 0; i < lines; i++)
		FPB_PREFETCH_R(node + i * FPB_LINE);
}

void
fpb_page_init(Page page, uint16 level, uint16 flags, int w, int x)
{
	FpbPageOpaque opq;

	PageInit(page, BLCKSZ, FPB_SPECIAL_SIZE);
	opq = FpbPageGetOpaque(page);
	memset(opq, 0, sizeof(FpbPageOpaqueData));
	opq->level = level;
	opq->flags = flags;
	opq->left = InvalidBlockNumber;
	opq->right = InvalidBlockNumber;
	opq->root = FPB_NONE;
	opq->firstleaf = FPB_NONE;
	opq->lastleaf = FPB_NONE;
	opq->w = w;
	opq->x = x;
	opq->pageid = FPB_PAGE_ID;
	fpb_page_set_hwm(page, opq, 0);
}

/*
 * Set the page's high key.  On a wide page its full value goes into a new
 * slot: the caller sets it while the page has room (before the layout,
 * which keeps it).
 */
/* A page of the same form (narrow or wide, version) and widths as like's. */
void
fpb_page_init_as(Page page, uint16 level, uint16 flags, FpbPageOpaque like)
{
	fpb_page_init(page, level,
				  flags | (like->flags & (FPB_F_WIDE | FPB_F_DEDUP |
										  FPB_F_STARTS)),
				  like->w, like->x);
	FpbPageGetOpaque(page)->fulllen = like->fulllen;
}

void
fpb_page_set_hikey(Page page, const FpbEntry *key)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);

	if (opq->flags & FPB_F_WIDE)
	{
		PageHeader	ph = (PageHeader) page;

		if (ph->pd_upper - fpb_slot_need(page, key->f, ph->pd_upper) <
			ph->pd_lower)
			elog(ERROR, "fpbtree: no room for a high key");
		opq->hikey = fpb_slot_put(page, key->k, key->f);
	}
	else
		opq->hikey = key->k;
	fpb_t_to_tid(key->t, &opq->hitid);
}

/* The page's high key; on a wide page its value points into the page. */
void
fpb_page_get_hikey(Page page, FpbEntry *key, BlockNumber blkno)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);

	*key = fpb_mkkey(opq->hikey, fpb_tid_to_t(&opq->hitid));
	if (opq->flags & FPB_F_WIDE)
		key->f = fpb_slot_get(page, opq->hikey, blkno);
}

/* Is key at or beyond the high key, i.e. does it belong further right? */
bool
fpb_page_above_hikey(Page page, const FpbCmp *cmp, const FpbEntry *key,
					 BlockNumber blkno)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	FpbEntry	hk;

	if (FpbPageIsRightmost(opq))
		return false;
	fpb_page_get_hikey(page, &hk, blkno);
	return fpb_entry_cmp(cmp, key, &hk) >= 0;
}

/*
 * Cheap checks done whenever a page is read, so that garbage is reported
 * with its block number before any pointer inside it is followed.
 */
void
fpb_page_check_sane(Relation index, Page page, BlockNumber blkno)
{
	FpbPageOpaque opq;

	if (PageIsNew(page))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" contains unexpected zero page at block %u",
						RelationGetRelationName(index), blkno),
				 errhint("Please REINDEX it.")));
	if (PageGetSpecialSize(page) != FPB_SPECIAL_SIZE)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" contains corrupted page at block %u",
						RelationGetRelationName(index), blkno),
				 errdetail("Special space size is %u, expected %u.",
						   (unsigned) PageGetSpecialSize(page),
						   (unsigned) FPB_SPECIAL_SIZE)));
	opq = FpbPageGetOpaque(page);
	if (opq->pageid != FPB_PAGE_ID)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" contains corrupted page at block %u",
						RelationGetRelationName(index), blkno),
				 errdetail("Page id is 0x%04x, expected 0x%04x.",
						   opq->pageid, FPB_PAGE_ID)));
	/* the metapage is block 0 and no other block */
	if ((blkno == FPB_METAPAGE_BLKNO) != ((opq->flags & FPB_F_META) != 0))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" contains corrupted page at block %u",
						RelationGetRelationName(index), blkno),
				 errdetail(blkno == FPB_METAPAGE_BLKNO ?
						   "The metapage is not flagged as one." :
						   "A page other than block 0 is flagged as the metapage.")));
	if (opq->flags & FPB_F_META)
		return;

	/*
	 * Narrow pages have no slotted area; a wide page's lies between its
	 * nodes and the special space (wide.c checks each offset it follows).
	 */
	if ((opq->flags & FPB_F_WIDE) ?
		(((PageHeader) page)->pd_upper < ((PageHeader) page)->pd_lower ||
		 ((PageHeader) page)->pd_upper > BLCKSZ - FPB_SPECIAL_SIZE) :
		((PageHeader) page)->pd_upper != BLCKSZ - FPB_SPECIAL_SIZE)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" contains corrupted page at block %u",
						RelationGetRelationName(index), blkno),
				 errdetail("pd_upper %u is outside the page's slotted area.",
						   ((PageHeader) page)->pd_upper)));

	/*
	 * Generic WAL and full-page images leave out the hole from pd_lower on,
	 * and the in-place insert changes node lines without copying the page:
	 * a node above pd_lower would be written into the hole and lost.
	 */
	if (((PageHeader) page)->pd_lower < FPB_DATA_START + opq->hwm * FPB_LINE)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" contains corrupted page at block %u",
						RelationGetRelationName(index), blkno),
				 errdetail("pd_lower %u does not cover the %u node lines in use.",
						   ((PageHeader) page)->pd_lower, opq->hwm)));
	/*
	 * nentries sizes the scans' arrays: no page holds more entries than a
	 * posting page's TIDs (node entries take at least 14 bytes, TIDs 6).
	 */
	if (opq->hwm > FPB_NLINES || opq->nentries > FPB_POSTING_CAP ||
		opq->w < 1 || opq->w > FPB_MAX_WIDTH ||
		opq->x < 1 || opq->x > FPB_MAX_WIDTH ||
		opq->ipheight > FPB_MAX_IPHEIGHT ||
		(opq->ipheight > 0 && (opq->root >= opq->hwm ||
							   opq->firstleaf >= opq->hwm ||
							   opq->lastleaf >= opq->hwm)) ||
		(opq->ipheight == 0 && opq->nentries != 0 &&
		 !FpbPageIsPosting(opq)) ||
		(FpbPageIsPosting(opq) &&
		 (opq->level != 0 || opq->ipheight != 0 || opq->nentries < 1 ||
		  opq->nentries > FPB_POSTING_CAP ||
		  ((opq->flags & FPB_F_RUNS) ?
		   opq->hwm < fpb_runs_lines(1, opq->nentries) :
		   opq->hwm != fpb_posting_lines(opq->nentries)) ||
		  ((opq->flags & FPB_F_WIDE) &&
		   (opq->flags & (FPB_F_DEDUP | FPB_F_RUNS)) !=
		   (FPB_F_DEDUP | FPB_F_RUNS)))) ||
		((opq->flags & FPB_F_RUNS) && !FpbPageIsPosting(opq)) ||
		((opq->level == 0) != FpbPageIsLeaf(opq)))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" contains corrupted page at block %u",
						RelationGetRelationName(index), blkno),
				 errdetail("Page header fields are inconsistent (hwm %u, height %u, widths %u/%u, %u entries).",
						   opq->hwm, opq->ipheight, opq->w, opq->x,
						   (unsigned) opq->nentries)));
}

/*
 * Binary search of a node of a wide page (cmp): the same with the order of
 * wide.c, whose comparison function runs only on a prefix tie.
 */
static int
fpb_node_search_wide(const FpbCmp *cmp, Page page, BlockNumber blkno,
					 const uint64 *keys, const ItemPointerData *tids, int n,
					 const FpbEntry *key, bool after_equal)
{
	int			lo = 0,
				hi = n;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;
		int			c;

		c = fpb_wide_cmp_at(cmp, page, blkno, keys[mid],
							fpb_tid_to_t(&tids[mid]), key->k, key->t, key->f);
		if (after_equal ? c <= 0 : c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Binary search of a node: the first index whose entry is >= key, or,
 * with after_equal, the first whose entry is > key.  The form of the
 * index is chosen once per node: a narrow index compares integers only.
 */
static inline int
fpb_node_search(const FpbCmp *cmp, Page page, BlockNumber blkno,
				const uint64 *keys, const ItemPointerData *tids, int n,
				const FpbEntry *key, bool after_equal)
{
	int			lo = 0,
				hi = n;
	uint64		k = key->k,
				t = key->t;

	if (cmp)
		return fpb_node_search_wide(cmp, page, blkno, keys, tids, n, key,
									after_equal);
	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;
		bool		below;

		if (keys[mid] != k)
			below = keys[mid] < k;
		else
		{
			uint64		mt = fpb_tid_to_t(&tids[mid]);

			below = after_equal ? (mt <= t) : (mt < t);
		}
		if (below)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#define fpb_node_lower(keys, tids, n, key) \
	fpb_node_search(cmp, page, blkno, keys, tids, n, key, false)
#define fpb_node_upper(keys, tids, n, key) \
	fpb_node_search(cmp, page, blkno, keys, tids, n, key, true)

/*
 * Descend the in-page tree to the leaf node responsible for (k, t).
 * path[i] / pidx[i] receive the node and chosen child index at each
 * non-leaf level (index 0 = the level just above the leaf nodes), when
 * path is given.  Every node is prefetched whole before it is searched.
 */
uint16
fpb_descend(Page page, const FpbCmp *cmp, const FpbEntry *key,
			BlockNumber blkno, uint16 *path, int *pidx)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	int			icap = fpb_innercap(opq->w);
	uint16		line = opq->root;
	int			lvl;

	if (opq->ipheight == 0)
		return FPB_NONE;
	for (lvl = opq->ipheight - 1; lvl > 0; lvl--)
	{
		char	   *node;
		int			n,
					i;
		int			childw = (lvl == 1) ? opq->x : opq->w;

		fpb_prefetch_node(fpb_line(page, line), opq->w);
		node = fpb_get_node(page, opq, line, opq->w, icap, FPB_NODE_INNER,
							blkno);
		n = ((FpbNodeHeader *) node)->n;
		if (n < 1)
			fpb_page_corrupt(blkno, "empty non-leaf node");
		i = fpb_node_upper(fpb_node_keys(node), fpb_node_tids(node, icap),
						   n, key) - 1;
		if (i < 0)
			i = 0;
		if (path)
		{
			path[lvl - 1] = line;
			pidx[lvl - 1] = i;
		}
		line = fpb_node_lines(node, icap)[i];
		fpb_prefetch_node(fpb_line(page, line), childw);
	}
	return line;
}

uint16
fpb_page_find_leafnode(Page page, const FpbCmp *cmp, const FpbEntry *key,
					   BlockNumber blkno)
{
	return fpb_descend(page, cmp, key, blkno, NULL, NULL);
}

/*
 * Internal page: the child whose key range holds (k, t), i.e. the last
 * downlink whose key is <= (k, t).
 */
BlockNumber
fpb_page_child(Page page, const FpbCmp *cmp, const FpbEntry *key,
			   BlockNumber blkno)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	int			cap = fpb_leafcap(opq->x, true);
	uint16		line;
	char	   *node;
	int			i;

	line = fpb_descend(page, cmp, key, blkno, NULL, NULL);
	if (line == FPB_NONE)
		fpb_page_corrupt(blkno, "internal page without downlinks");
	node = fpb_get_node(page, opq, line, opq->x, cap, FPB_NODE_LEAF, blkno);
	i = fpb_node_upper(fpb_node_keys(node), fpb_node_tids(node, cap),
					   ((FpbNodeHeader *) node)->n, key) - 1;
	if (i < 0)
	{
		/* key below this node's first downlink: the previous node's last */
		uint16		prev = ((FpbNodeHeader *) node)->prev;

		if (prev == FPB_NONE)
			return fpb_node_children(node, cap)[0];
		node = fpb_get_node(page, opq, prev, opq->x, cap, FPB_NODE_LEAF,
							blkno);
		i = ((FpbNodeHeader *) node)->n - 1;
		if (i < 0)
			fpb_page_corrupt(blkno, "empty leaf node on internal page");
	}
	return fpb_node_children(node, cap)[i];
}

/*
 * The node at *line of the page's in-page leaf chain; advances *line to the
 * next one.  *guard counts the steps, so that a damaged chain with a cycle
 * is reported rather than followed for ever.
 */
static char *
fpb_chain_step(Page page, FpbPageOpaque opq, uint16 *line, int cap,
			   BlockNumber blkno, int *guard)
{
	char	   *node = fpb_get_node(page, opq, *line, opq->x, cap,
									FPB_NODE_LEAF, blkno);

	if (++(*guard) > FPB_NLINES)
		fpb_page_corrupt(blkno, "cycle in the in-page leaf chain");
	*line = ((FpbNodeHeader *) node)->next;
	return node;
}

/* Does this internal page hold a downlink to child? */
bool
fpb_page_find_child(Page page, BlockNumber child, BlockNumber blkno)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	int			cap = fpb_leafcap(opq->x, true);
	uint16		line = opq->firstleaf;
	int			guard = 0;

	if (opq->ipheight == 0)
		return false;
	while (line != FPB_NONE)
	{
		char	   *node = fpb_chain_step(page, opq, &line, cap, blkno, &guard);
		FpbNodeHeader *hdr = (FpbNodeHeader *) node;
		BlockNumber *ch = fpb_node_children(node, cap);

		for (int i = 0; i < hdr->n; i++)
			if (ch[i] == child)
				return true;
	}
	return false;
}

/*
 * Copy every entry of the page, in key order, into out (which must have
 * room for opq->nentries entries).  Returns the count.
 */
int
fpb_page_collect(Page page, FpbEntry *out, BlockNumber blkno)
{
	return fpb_page_collect_marks(page, out, NULL, blkno);
}

/*
 * fpb_page_collect, and with dead given, whether each entry is marked dead
 * (dead.c).  Marks are hints: the entries collected carry none.
 */
int
fpb_page_collect_marks(Page page, FpbEntry *out, bool *dead,
					   BlockNumber blkno)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	bool		internal = !FpbPageIsLeaf(opq);
	bool		wide = (opq->flags & FPB_F_WIDE) != 0;
	int			cap = fpb_leafcap(opq->x, internal);
	uint16		line = (opq->ipheight > 0) ? opq->firstleaf : FPB_NONE;
	int			n = 0;
	int			guard = 0;

	if (FpbPageIsPosting(opq))
		return fpb_posting_collect(page, out, dead, blkno);
	while (line != FPB_NONE)
	{
		char	   *node = fpb_chain_step(page, opq, &line, cap, blkno, &guard);
		FpbNodeHeader *hdr = (FpbNodeHeader *) node;
		uint64	   *keys = fpb_node_keys(node);
		ItemPointerData *tids = fpb_node_tids(node, cap);
		BlockNumber *ch = internal ? fpb_node_children(node, cap) : NULL;

		if (n + hdr->n > (int) opq->nentries)
			fpb_page_corrupt(blkno, "more entries than the page header counts");
		for (int i = 0; i < hdr->n; i++, n++)
		{
			out[n].k = keys[i];
			out[n].t = fpb_tid_to_t(&tids[i]);
			out[n].child = ch ? ch[i] : InvalidBlockNumber;
			out[n].f = wide ? fpb_slot_get(page, keys[i], blkno) : NULL;
			if (dead)
				dead[n] = fpb_tid_is_dead(&tids[i]);
		}
	}
	if (n != (int) opq->nentries)
		fpb_page_corrupt(blkno, "fewer entries than the page header counts");
	return n;
}

/*
 * Leaf page: set the dead mark of entry (k, t), if the page holds it.
 * Returns true when the mark is new.  The caller holds at least a share
 * lock and dirties the buffer as a hint; the mark is one 2-byte store.
 */
bool
fpb_page_mark_dead(Page page, uint64 k, uint64 t, BlockNumber blkno)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	int			cap = fpb_leafcap(opq->x, false);
	const FpbCmp *cmp = NULL;
	FpbEntry	key = fpb_mkkey(k, t);
	uint16		line;
	char	   *node;
	uint64	   *keys;
	ItemPointerData *tids;
	int			n,
				i;

	if (FpbPageIsPosting(opq))
		return fpb_posting_mark_dead(page, k, t, blkno);

	/*
	 * A wide page cannot be searched without the full value, which a scan
	 * does not keep: find the entry by its prefix and tiebreaker (the heap
	 * TID, which one entry at most has) in every node.
	 */
	if (opq->flags & FPB_F_WIDE)
	{
		int			guard = 0;

		line = (opq->ipheight > 0) ? opq->firstleaf : FPB_NONE;
		while (line != FPB_NONE)
		{
			node = fpb_chain_step(page, opq, &line, cap, blkno, &guard);
			keys = fpb_node_keys(node);
			tids = fpb_node_tids(node, cap);
			for (i = 0; i < ((FpbNodeHeader *) node)->n; i++)
				if (fpb_tid_to_t(&tids[i]) == t &&
					FPB_WIDE_PREFIX(keys[i]) == FPB_WIDE_PREFIX(k))
				{
					if (fpb_tid_is_dead(&tids[i]))
						return false;
					tids[i].ip_posid |= FPB_TID_DEADFLAG;
					return true;
				}
		}
		return false;
	}

	line = fpb_descend(page, cmp, &key, blkno, NULL, NULL);
	if (line == FPB_NONE)
		return false;
	node = fpb_get_node(page, opq, line, opq->x, cap, FPB_NODE_LEAF, blkno);
	n = ((FpbNodeHeader *) node)->n;
	keys = fpb_node_keys(node);
	tids = fpb_node_tids(node, cap);
	i = fpb_node_lower(keys, tids, n, &key);
	if (i >= n || keys[i] != k || fpb_tid_to_t(&tids[i]) != t ||
		fpb_tid_is_dead(&tids[i]))
		return false;
	tids[i].ip_posid |= FPB_TID_DEADFLAG;
	return true;
}

/* Leaf page: how many of its entries are marked dead. */
int
fpb_page_count_dead(Page page, BlockNumber blkno)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	int			cap = fpb_leafcap(opq->x, false);
	uint16		line = (opq->ipheight > 0) ? opq->firstleaf : FPB_NONE;
	int			ndead = 0;
	int			guard = 0;

	if (FpbPageIsPosting(opq))
		return fpb_posting_count_dead(page, blkno);
	while (line != FPB_NONE)
	{
		char	   *node = fpb_chain_step(page, opq, &line, cap, blkno, &guard);
		ItemPointerData *tids = fpb_node_tids(node, cap);

		for (int i = 0; i < ((FpbNodeHeader *) node)->n; i++)
			ndead += fpb_tid_is_dead(&tids[i]);
	}
	return ndead;
}

/*
 * Leaf page: the tiebreakers of its entries from lo to hi, in order, into
 * out (room for the page's entry count).  Returns how many; *ended is set
 * when an entry above hi follows them on this page, so that the run cannot
 * continue on the right sibling.  Used by the uniqueness check, which reads
 * every entry of one key value: lo and hi differ in the tiebreaker only (in
 * the key too for the two float zeros; no entry between them is of another
 * value).
 */
int
fpb_page_key_run(Page page, const FpbCmp *cmp, const FpbEntry *lo,
				 const FpbEntry *hi, BlockNumber blkno, uint64 *out,
				 bool *ended)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);
	int			cap = fpb_leafcap(opq->x, false);
	uint16		line = fpb_descend(page, cmp, lo, blkno, NULL, NULL);
	bool		first = true;
	int			n = 0;
	int			guard = 0;

	if (FpbPageIsPosting(opq))
		return fpb_posting_key_run(page, cmp, lo, hi, blkno, out, ended);
	*ended = false;
	while (line != FPB_NONE)
	{
		char	   *node = fpb_chain_step(page, opq, &line, cap, blkno, &guard);
		FpbNodeHeader *hdr = (FpbNodeHeader *) node;
		uint64	   *keys = fpb_node_keys(node);
		ItemPointerData *tids = fpb_node_tids(node, cap);
		int			i = first ? fpb_node_lower(keys, tids, hdr->n, lo) : 0;

		first = false;
		for (; i < hdr->n; i++)
		{
			uint64		t = fpb_tid_to_t(&tids[i]);

			if (cmp ? fpb_wide_cmp_at(cmp, page, blkno, keys[i], t,
									  hi->k, hi->t, hi->f) > 0 :
				(keys[i] > hi->k || (keys[i] == hi->k && t > hi->t)))
			{
				*ended = true;
				return n;
			}
			if (n >= (int) opq->nentries)
				fpb_page_corrupt(blkno, "more entries than the page header counts");
			out[n++] = t;
		}
	}
	return n;
}

/* The position of the first entry >= key in a node (page_insert.c). */
int
fpb_node_find_lower(const FpbCmp *cmp, Page page, BlockNumber blkno,
					const uint64 *keys, const ItemPointerData *tids, int n,
					const FpbEntry *key)
{
	return fpb_node_lower(keys, tids, n, key);
}
