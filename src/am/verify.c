/*-------------------------------------------------------------------------
 *
 * verify.c
 *	  fpbtree_check(): verification of an fpbtree index's structure and,
 *	  optionally, that every heap tuple is indexed.
 *
 * The check walks the tree level by level from the root, each level from its
 * leftmost page along the right-links, in the spirit of contrib/amcheck.  It
 * verifies, and reports as ERRCODE_INDEX_CORRUPTED with the block number:
 *
 *	- the metapage (magic, version, root block and level);
 *	- per page: sanity, level, leaf flag, widths as in the metapage, sibling
 *	  link symmetry, no page reached twice (no cycles), the level's first
 *	  page leftmost and its last page rightmost;
 *	- the in-page tree (verify_inpage.c): every node inside [0, hwm) and no
 *	  two overlapping, node kinds and counts, non-leaf nodes at the right
 *	  depth with their separators consistent with the keys below them, the
 *	  in-page leaf chain visiting exactly the leaf nodes of the tree in
 *	  order, the entry count, dead marks (dead.c) on leaf entries only;
 *	- keys: strictly increasing in (k, t) order along each whole level, below
 *	  the page's high key, at or above its lower bound (the left sibling's
 *	  high key);
 *	- downlinks: the leftmost internal page's first downlink is minus
 *	  infinity, every other downlink key equals its child's lower bound, and
 *	  the children of a level's downlinks, in order, are exactly the pages of
 *	  the level below, except pages whose left sibling carries
 *	  FPB_F_INCOMPLETE_SPLIT (their downlink is legitimately missing);
 *	- page deletion: no deleted page on a chain; half-dead pages only empty
 *	  leaves and level-1 pages with one downlink (to their half-dead or
 *	  deleted child), with a right sibling and no downlink, the right
 *	  sibling's downlink carrying the half-dead page's lower bound (its key
 *	  range went there); every deleted page such a page;
 *	- every page of the relation that is neither all-zeros nor deleted was
 *	  reached;
 *	- a unique index holds no two entries of one key whose heap tuples are
 *	  both live (unique.c; not on a standby).
 *
 * Several cross-page invariants only hold while nobody changes the tree, so
 * the check takes ShareLock on the table: it blocks inserts, updates,
 * deletes and VACUUM (as amcheck's bt_index_parent_check does) but not
 * readers.  A hot standby cannot take ShareLock, and WAL replay changes the
 * tree under us anyway, so there the check runs in "relaxed" mode with
 * AccessShareLock and skips what a concurrent split can falsify: it still
 * checks every page it meets, key order along each level, lower bounds and
 * the keys of the downlinks it finds (lower bounds only move left, when a
 * left sibling is deleted), and that
 * every downlink leads to a page of the level below; it does not require a
 * downlink for every page, and re-reads the left sibling before calling a
 * left-link wrong; unreachable pages are not looked for.
 *
 * With heapallindexed, the keys of all leaf entries are collected (they come
 * out of the walk already sorted), and the table is scanned with
 * table_index_build_scan under an MVCC snapshot taken before the walk; each
 * tuple it reports gets its entry key from fpb_heap_key, as in the build and
 * in insertion, and is looked up.
 * An MVCC snapshot rather than SnapshotAny: an index built or rebuilt
 * CONCURRENTLY legitimately lacks tuples that were already dead to its
 * reference snapshot yet may still be RECENTLY_DEAD now, which a SnapshotAny
 * scan would report.  Entries without a heap tuple are not errors (VACUUM
 * removes them later).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/index.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "commands/defrem.h"
#include "fpbtree.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "verify.h"

PG_FUNCTION_INFO_V1(fpbtree_check);

/* Report a broken invariant of block blkno of the index being checked. */
#define fpb_corrupt(st, blkno, ...) \
	fpb_index_corrupt((st)->index, (blkno), __VA_ARGS__)

/* Is (k, t, f) the same key as b (in a wide index: the same value)? */
static bool
fpb_check_same_key(const FpbCmp *cmp, uint64 k, uint64 t, const char *f,
				   const FpbEntry *b)
{
	FpbEntry	a = fpb_mkkey(k, t);

	if (cmp == NULL)
		return k == b->k && t == b->t;
	a.f = f;
	return fpb_entry_cmp(cmp, &a, b) == 0;
}

/* A downlink of the level above, as the walk of the level below needs it. */
typedef struct FpbDownlink
{
	uint64		k;
	uint64		t;
	BlockNumber child;
	BlockNumber parent;			/* the page holding it, for messages */
	bool		found;			/* relaxed mode: child met on its level */
	const char *f;				/* wide indexes: its value */
} FpbDownlink;


static inline bool
fpb_bit_test(const uint8 *map, BlockNumber b)
{
	return (map[b / 8] & (1 << (b % 8))) != 0;
}

static inline void
fpb_bit_set(uint8 *map, BlockNumber b)
{
	map[b / 8] |= (1 << (b % 8));
}

/* Refuse anything but an fpbtree index, saying what it is instead */
static void
fpb_refuse_relkind(const char *relname, char relkind, Oid relam)
{
	Oid			am = get_index_am_oid("fpbtree", false);

	if (relkind == RELKIND_PARTITIONED_INDEX && relam == am)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is a partitioned fpbtree index", relname),
				 errdetail("A partitioned index has no pages of its own."),
				 errhint("Call the function on the indexes of its partitions.")));
	if (relkind != RELKIND_INDEX || relam != am)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not an fpbtree index", relname)));
}

/*
 * Make sure relid is an fpbtree index before locking anything: a caller
 * naming some other relation must not get to block writers on its table.
 */
void
fpb_precheck_relation(Oid relid)
{
	HeapTuple	tup;
	Form_pg_class classform;

	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	classform = (Form_pg_class) GETSTRUCT(tup);
	fpb_refuse_relkind(NameStr(classform->relname), classform->relkind,
					   classform->relam);
	ReleaseSysCache(tup);
}

/*
 * The same test on the opened relation, which is what counts; also refuses
 * another session's temporary index, whose pages we cannot read.
 */
void
fpb_check_relation(Relation rel)
{
	fpb_refuse_relkind(RelationGetRelationName(rel), rel->rd_rel->relkind,
					   rel->rd_rel->relam);
	if (RELATION_IS_OTHER_TEMP(rel))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot access temporary indexes of other sessions")));
}

/*
 * Copy block blkno into st->page under a share lock, so that the checks
 * (which may raise errors) run with no buffer lock held.
 */
static void
fpb_check_readpage(FpbCheckState *st, BlockNumber blkno, Page dest)
{
	Buffer		buf;

	buf = ReadBuffer(st->index, blkno);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	memcpy(dest, BufferGetPage(buf), BLCKSZ);
	UnlockReleaseBuffer(buf);
}

/*
 * Is blkno a possible tree page?  In relaxed mode the relation may have
 * grown since we looked, so look again before calling it corrupt.
 */
static bool
fpb_check_block_valid(FpbCheckState *st, BlockNumber blkno)
{
	if (blkno == FPB_METAPAGE_BLKNO || blkno == InvalidBlockNumber)
		return false;
	if (blkno < st->nblocks)
		return true;
	if (st->relaxed)
	{
		BlockNumber nblocks = RelationGetNumberOfBlocks(st->index);

		if (nblocks > st->nblocks)
		{
			st->reached = repalloc_huge(st->reached, nblocks / 8 + 1);
			memset(st->reached + st->nblocks / 8 + 1, 0,
				   nblocks / 8 - st->nblocks / 8);
			st->nblocks = nblocks;
		}
	}
	return blkno < st->nblocks;
}

/*
 * Relaxed mode: a downlink read before its child was made half-dead and
 * then deleted leads to a page that is no longer on the chain.
 */
static bool
fpb_check_gone(FpbCheckState *st, BlockNumber blkno)
{
	FpbPageOpaque opq;

	fpb_check_readpage(st, blkno, st->page2);
	if (PageIsNew(st->page2))
		return false;
	fpb_page_check_sane(st->index, st->page2, blkno);
	opq = FpbPageGetOpaque(st->page2);
	return FpbPageIsIgnore(opq) && opq->level <= 1;
}

/*
 * The leftmost page of a level, from the child of the first downlink above:
 * that is it, unless the pages left of it are half-dead (their downlinks
 * are gone, they are still on the chain).  Deleted ones are not: their
 * right siblings' left-links skip them.
 */
static BlockNumber
fpb_check_leftmost(FpbCheckState *st, BlockNumber blkno)
{
	for (BlockNumber steps = 0; steps < st->nblocks; steps++)
	{
		BlockNumber left;

		CHECK_FOR_INTERRUPTS();
		if (!fpb_check_block_valid(st, blkno))
			return blkno;		/* reported by the walk */
		fpb_check_readpage(st, blkno, st->page2);
		if (PageIsNew(st->page2))
			return blkno;
		fpb_page_check_sane(st->index, st->page2, blkno);
		left = FpbPageGetOpaque(st->page2)->left;
		if (left == InvalidBlockNumber || left == blkno ||
			!fpb_check_block_valid(st, left))
			return blkno;		/* the walk reports a bad left-link */
		fpb_check_readpage(st, left, st->page2);
		if (PageIsNew(st->page2))
			return blkno;
		fpb_page_check_sane(st->index, st->page2, left);
		if (!FpbPageIsHalfDead(FpbPageGetOpaque(st->page2)))
			return blkno;
		blkno = left;
	}
	return blkno;
}

static int
fpb_downlink_cmp_child(const void *a, const void *b)
{
	BlockNumber ca = ((const FpbDownlink *) a)->child;
	BlockNumber cb = ((const FpbDownlink *) b)->child;

	return (ca > cb) - (ca < cb);
}

/* ----------------------------------------------------------------
 * Levels
 * ----------------------------------------------------------------
 */

/*
 * Relaxed mode: the left-link of blkno is not prevblk.  If prevblk's
 * right-link has moved on meanwhile, a concurrent split explains it.  If it
 * still points to blkno it did so all along (right-links only ever move to
 * a new page), and a split updates both links in one WAL record, so the
 * left-link must have been prevblk: corruption.
 */
static void
fpb_check_leftlink_again(FpbCheckState *st, BlockNumber blkno,
						 BlockNumber prevblk, BlockNumber left)
{
	fpb_check_readpage(st, prevblk, st->page2);
	fpb_page_check_sane(st->index, st->page2, prevblk);
	if (FpbPageGetOpaque(st->page2)->right == blkno)
		fpb_corrupt(st, blkno,
					"Left-link is %u, but the page is the right sibling of block %u.",
					left, prevblk);
}

/*
 * Walk the level `level` from block leftmost along the right-links.  links
 * (nlinks of them) are the downlinks of the level above in key order, or
 * NULL at the root level.  For an internal level, returns this level's
 * downlinks (allocated in the caller's context) and sets *noutlinks.
 *
 * Strict mode matches the downlinks, in order, against the pages of the
 * level: each page has the next downlink unless its left sibling is flagged
 * as incompletely split.  Relaxed mode looks each page up among the
 * downlinks by block number instead, and only requires that every downlink
 * leads to a page of this level with a lower bound at or below the
 * downlink's key (lower bounds only move left, by deletions), and that a
 * page that existed when its parent was read is still on the chain when
 * this level is walked later, or was deleted meanwhile.
 */
static FpbDownlink *
fpb_check_level(FpbCheckState *st, uint32 level, BlockNumber leftmost,
				FpbDownlink *links, int64 nlinks, int64 *noutlinks)
{
	MemoryContext outercxt = CurrentMemoryContext;
	FpbDownlink *out = NULL;
	int64		nout = 0;
	int64		maxout = 0;
	int64		dl = 0;
	FpbDownlink *bychild = NULL;
	BlockNumber blkno = leftmost;
	BlockNumber prevblk = InvalidBlockNumber;
	uint16		prevflags = 0;
	FpbEntry	prevhikey = fpb_mkkey(0, 0);
	FpbFullBuf	prevhikeybuf;
	bool		have_last = false;
	FpbEntry	last = fpb_mkkey(0, 0);
	FpbFullBuf	lastbuf;
	const FpbCmp *cmp = st->cmp;
	bool		afterdead = false;	/* the page before was half-dead */

	if (links && st->relaxed)
	{
		bychild = MemoryContextAllocHuge(outercxt, sizeof(FpbDownlink) * nlinks);
		memcpy(bychild, links, sizeof(FpbDownlink) * nlinks);
		qsort(bychild, nlinks, sizeof(FpbDownlink), fpb_downlink_cmp_child);
	}

	while (blkno != InvalidBlockNumber)
	{
		FpbPageOpaque opq;
		FpbEntry   *ents;
		int			n;
		FpbDownlink *d = NULL;
		uint64		hik = 0,
					hit = 0;
		FpbEntry	hk = fpb_mkkey(0, 0);
		MemoryContext oldcxt;

		CHECK_FOR_INTERRUPTS();

		if (!fpb_check_block_valid(st, blkno))
		{
			if (prevblk == InvalidBlockNumber)
				fpb_corrupt(st, links ? links[0].parent : FPB_METAPAGE_BLKNO,
							"Link to the leftmost page of level %u points to block %u, outside the tree (%u blocks).",
							level, blkno, st->nblocks);
			fpb_corrupt(st, prevblk,
						"Right-link points to block %u, outside the tree (%u blocks).",
						blkno, st->nblocks);
		}
		if (fpb_bit_test(st->reached, blkno))
			fpb_corrupt(st, prevblk == InvalidBlockNumber ? blkno : prevblk,
						"Block %u is reached a second time on the walk of level %u (a cycle or a shared page).",
						blkno, level);
		fpb_bit_set(st->reached, blkno);
		st->nreached++;

		MemoryContextReset(st->pagecxt);
		oldcxt = MemoryContextSwitchTo(st->pagecxt);

		fpb_check_readpage(st, blkno, st->page);
		fpb_page_check_sane(st->index, st->page, blkno);
		opq = FpbPageGetOpaque(st->page);

		/*
		 * A deleted page is unlinked from its siblings in the record that
		 * marks it.  Only a walk that read its left sibling's right-link
		 * before that (relaxed mode) can reach it: go on to its right, as
		 * scans do.
		 */
		if (FpbPageIsDeleted(opq))
		{
			if (!st->relaxed)
				fpb_corrupt(st, blkno,
							"A deleted page is linked into level %u from block %u.",
							level, prevblk);
			MemoryContextSwitchTo(oldcxt);
			afterdead = true;
			if (FpbPageIsRightmost(opq))
				break;
			blkno = opq->right;
			continue;
		}

		/* page-level fields */
		if (opq->flags & FPB_F_META)
			fpb_corrupt(st, blkno, "A metapage is linked into level %u.", level);
		if (opq->level != level)
			fpb_corrupt(st, blkno, "Page has level %u, expected %u.",
						opq->level, level);
		if (FpbPageIsLeaf(opq) != (level == 0))
			fpb_corrupt(st, blkno, "Leaf flag is %s on a page of level %u.",
						FpbPageIsLeaf(opq) ? "set" : "not set", level);
		if (opq->flags & ~(FPB_F_LEAF | FPB_F_INCOMPLETE_SPLIT |
						   FPB_F_HALF_DEAD | FPB_F_SPLIT_END | FPB_F_WIDE |
						   FPB_F_POSTING | FPB_F_RUNS | FPB_F_DEDUP |
						   FPB_F_STARTS))
			fpb_corrupt(st, blkno, "Page has unknown flags 0x%04x.",
						opq->flags);
		if (((opq->flags & FPB_F_STARTS) != 0) !=
			(st->meta.version >= FPB_VERSION_STARTS))
			fpb_corrupt(st, blkno,
						"Page %s flagged for leaf nodes that start past their first slot, but the index has version %u.",
						(opq->flags & FPB_F_STARTS) ? "is" : "is not",
						st->meta.version);
		/* indexes built before runs of wide values have pages without */
		if ((opq->flags & FPB_F_DEDUP) && (cmp == NULL || !cmp->dedup))
			fpb_corrupt(st, blkno,
						"Page may hold runs of equal values, but the index's values cannot share them.");
		if (((opq->flags & FPB_F_WIDE) != 0) != (cmp != NULL))
			fpb_corrupt(st, blkno,
						"Page is %s, but the index's operator class makes it %s.",
						(opq->flags & FPB_F_WIDE) ? "wide" : "narrow",
						cmp ? "wide" : "narrow");
		/* the size of a value, and for uuid where its slot begins */
		else if (cmp != NULL && opq->fulllen != fpb_cmp_fulllen(cmp))
			fpb_corrupt(st, blkno,
						"Page records values of length code %u, but the index's format makes it %u.",
						opq->fulllen, fpb_cmp_fulllen(cmp));
		if (opq->w != st->meta.w || opq->x != st->meta.x)
			fpb_corrupt(st, blkno,
						"Node widths %u/%u differ from the metapage's %u/%u.",
						opq->w, opq->x, st->meta.w, st->meta.x);
		if (opq->left != prevblk)
		{
			if (prevblk == InvalidBlockNumber)
				fpb_corrupt(st, blkno,
							"Leftmost page of level %u has left-link %u.",
							level, opq->left);
			if (st->relaxed)
				fpb_check_leftlink_again(st, blkno, prevblk, opq->left);
			else
				fpb_corrupt(st, blkno,
							"Left-link is %u, but the page is the right sibling of block %u.",
							opq->left, prevblk);
		}
		if ((opq->flags & FPB_F_INCOMPLETE_SPLIT) && FpbPageIsRightmost(opq))
			fpb_corrupt(st, blkno,
						"Page is flagged as incompletely split but has no right sibling.");
		if (FpbPageIsHalfDead(opq) &&
			(level > 1 || FpbPageIsRightmost(opq) ||
			 opq->nentries != (level == 0 ? 0 : 1) ||
			 (opq->flags & FPB_F_INCOMPLETE_SPLIT)))
			fpb_corrupt(st, blkno,
						"Half-dead page is neither an empty leaf nor a level-1 page with one downlink, unflagged, with a right sibling (level %u, %u entries).",
						level, opq->nentries);
		if (!FpbPageIsRightmost(opq))
		{
			fpb_page_get_hikey(st->page, &hk, blkno);
			hik = hk.k;
			hit = hk.t;
		}

		/* the page's downlink from the level above, if it has one */
		if (links && !st->relaxed)
		{
			if (dl < nlinks && links[dl].child == blkno)
				d = &links[dl++];
		}
		else if (links)
		{
			FpbDownlink key;

			key.child = blkno;
			d = bsearch(&key, bychild, nlinks, sizeof(FpbDownlink),
						fpb_downlink_cmp_child);
			if (d)
				d->found = true;
		}
		if (d && FpbPageIsHalfDead(opq) && !st->relaxed)
			fpb_corrupt(st, d->parent,
						"Downlink leads to half-dead block %u.", blkno);
		if (d && afterdead && st->relaxed)
		{
			/*
			 * The downlink was read before or after a page to the left was
			 * deleted: its key is that page's lower bound or this one's.
			 */
		}
		else if (d && prevblk == InvalidBlockNumber)
		{
			if (d->k != 0 || d->t != 0)
				fpb_corrupt(st, d->parent,
							"Downlink to block %u, the leftmost page of level %u, has key %s instead of minus infinity.",
							blkno, level, fpb_keydesc(d->k, d->t));
		}
		else if (d && st->relaxed)
		{
			FpbEntry	dk = fpb_mkkey(d->k, d->t);

			/*
			 * A deletion since the level above was read may have moved the
			 * lower bound left of the downlink's key; never right of it.
			 */
			dk.f = d->f;
			if (fpb_entry_cmp(cmp, &dk, &prevhikey) < 0)
				fpb_corrupt(st, d->parent,
							"Downlink to block %u has key %s, below the block's lower bound (the high key of its left sibling %u) %s.",
							blkno, fpb_keydesc(d->k, d->t), prevblk,
							fpb_keydesc(prevhikey.k, prevhikey.t));
		}
		else if (d && !fpb_check_same_key(cmp, d->k, d->t, d->f, &prevhikey))
			fpb_corrupt(st, d->parent,
						"Downlink to block %u has key %s, but the block's lower bound (the high key of its left sibling %u) is %s.",
						blkno, fpb_keydesc(d->k, d->t), prevblk,
						fpb_keydesc(prevhikey.k, prevhikey.t));
		if (links && prevblk == InvalidBlockNumber && d == NULL &&
			!FpbPageIsHalfDead(opq))
			fpb_corrupt(st, blkno,
						"Leftmost page of level %u has no downlink.", level);

		if (prevblk != InvalidBlockNumber)
		{
			bool		split = (prevflags & FPB_F_INCOMPLETE_SPLIT) != 0;

			/*
			 * A page without downlink needs a flagged left sibling.  Not
			 * checkable in relaxed mode: the downlink may have been added,
			 * and the flag cleared, after the level above was read.
			 */
			if (!d && !split && !st->relaxed && !FpbPageIsHalfDead(opq))
			{
				if (!links)
					fpb_corrupt(st, prevblk,
								"Page of the root level has right sibling %u but is not flagged as incompletely split.",
								blkno);
				if (dl < nlinks)
					fpb_corrupt(st, blkno,
								"Page has no downlink in level %u and its left sibling %u is not flagged as incompletely split; the next downlink, in block %u, points to block %u.",
								level + 1, prevblk, links[dl].parent,
								links[dl].child);
				fpb_corrupt(st, blkno,
							"Page has no downlink in level %u and its left sibling %u is not flagged as incompletely split.",
							level + 1, prevblk);
			}

			/*
			 * The flag is cleared in the record that adds the downlink, and
			 * the level above was read before the flag was seen, so this
			 * holds in relaxed mode too.
			 */
			if (d && split)
				fpb_corrupt(st, prevblk,
							"Page is flagged as incompletely split, but its right sibling %u has a downlink.",
							blkno);
		}

		/* the page's entries, after its in-page tree is verified */
		ents = fpb_check_inpage(st->index, st->page, blkno, &n);

		/*
		 * A half-dead level-1 page's one downlink leads to its half-dead or
		 * deleted only child, whose range, like its own, went right: it is
		 * not one of the level's downlinks.
		 */
		if (FpbPageIsHalfDead(opq))
			n = 0;

		if (level > 0 && n == 0 && !FpbPageIsHalfDead(opq))
			fpb_corrupt(st, blkno, "Internal page has no downlinks.");
		if (level > 0 && n > 0 && prevblk == InvalidBlockNumber &&
			(ents[0].k != 0 || ents[0].t != 0))
			fpb_corrupt(st, blkno,
						"First downlink of the leftmost page of level %u has key %s instead of minus infinity.",
						level, fpb_keydesc(ents[0].k, ents[0].t));
		if (level > 0 && n > 0 && prevblk != InvalidBlockNumber &&
			!fpb_check_same_key(cmp, ents[0].k, ents[0].t, ents[0].f,
								&prevhikey))
			fpb_corrupt(st, blkno,
						"First downlink has key %s, but the page's lower bound (the high key of its left sibling %u) is %s.",
						fpb_keydesc(ents[0].k, ents[0].t), prevblk,
						fpb_keydesc(prevhikey.k, prevhikey.t));
		if (prevblk != InvalidBlockNumber && !FpbPageIsRightmost(opq) &&
			fpb_entry_cmp(cmp, &hk, &prevhikey) <= 0)
			fpb_corrupt(st, blkno,
						"High key %s is not above the page's lower bound %s (the high key of its left sibling %u).",
						fpb_keydesc(hik, hit),
						fpb_keydesc(prevhikey.k, prevhikey.t), prevblk);

		for (int i = 0; i < n; i++)
		{
			FpbEntry   *e = &ents[i];

			/* strictly increasing along the whole level */
			if (have_last && fpb_entry_cmp(cmp, e, &last) <= 0)
				fpb_corrupt(st, blkno,
							"Entry %d %s is not above the entry before it in key order, %s.",
							i, fpb_keydesc(e->k, e->t),
							fpb_keydesc(last.k, last.t));
			if (i == 0 && prevblk != InvalidBlockNumber &&
				fpb_entry_cmp(cmp, e, &prevhikey) < 0)
				fpb_corrupt(st, blkno,
							"First entry %s is below the page's lower bound %s (the high key of its left sibling %u).",
							fpb_keydesc(e->k, e->t),
							fpb_keydesc(prevhikey.k, prevhikey.t), prevblk);
			if (!FpbPageIsRightmost(opq) && fpb_entry_cmp(cmp, e, &hk) >= 0)
				fpb_corrupt(st, blkno,
							"Entry %d %s is not below the page's high key %s.",
							i, fpb_keydesc(e->k, e->t), fpb_keydesc(hik, hit));
			/* runs of names tell them apart by their bytes */
			if (cmp != NULL && !fpb_full_names_padded(cmp, e->f))
				fpb_corrupt(st, blkno,
							"Entry %d %s has a name value that is not zero after its string.",
							i, fpb_keydesc(e->k, e->t));
			have_last = true;
			if (i == n - 1)
			{
				/* the last of the page outlives it */
				last = *e;
				fpb_entry_keep(cmp, &last, &lastbuf);
			}
			else
				last = *e;

			if (level == 0)
			{
				ItemPointerData htid;

				fpb_t_to_heaptid(e->t, &htid);
				if (!OffsetNumberIsValid(ItemPointerGetOffsetNumberNoCheck(&htid)) ||
					ItemPointerGetOffsetNumberNoCheck(&htid) > MaxHeapTuplesPerPage)
					fpb_corrupt(st, blkno,
								"Entry %d %s has an invalid heap TID.",
								i, fpb_keydesc(e->k, e->t));
				if ((e->t & FPB_T_NULLBIT) &&
					(cmp ? (FPB_WIDE_PREFIX(e->k) !=
							(cmp->multi ? fpb_multi_null_prefix(cmp) :
							 FPB_WIDE_PREFIX(FPB_KEY_MAX)) ||
							(e->f != NULL && !cmp->multi)) :
					 e->k != FPB_KEY_MAX))
					fpb_corrupt(st, blkno,
								"Entry %d %s is flagged NULL but its key is not the NULL key.",
								i, fpb_keydesc(e->k, e->t));
				if (st->heapallindexed)
				{
					if (st->nleafkeys >= st->maxleafkeys)
					{
						st->maxleafkeys *= 2;
						st->leafkeys = repalloc_huge(st->leafkeys,
													 sizeof(FpbKey) * st->maxleafkeys);
					}
					st->leafkeys[st->nleafkeys].k =
						cmp ? FPB_WIDE_PREFIX(e->k) : e->k;
					st->leafkeys[st->nleafkeys].t = e->t;
					st->nleafkeys++;
				}
			}
			else
			{
				if (!fpb_check_block_valid(st, e->child))
					fpb_corrupt(st, blkno,
								"Downlink %d %s points to block %u, outside the tree (%u blocks).",
								i, fpb_keydesc(e->k, e->t), e->child,
								st->nblocks);
				if (nout >= maxout)
				{
					maxout = Max(maxout * 2, 256);
					if (out == NULL)
						out = MemoryContextAllocHuge(outercxt,
													 sizeof(FpbDownlink) * maxout);
					else
						out = repalloc_huge(out, sizeof(FpbDownlink) * maxout);
				}
				out[nout].k = e->k;
				out[nout].t = e->t;
				out[nout].child = e->child;
				out[nout].parent = blkno;
				out[nout].found = false;
				out[nout].f = NULL;
				if (e->f)
				{
					/* the downlinks outlive the page: copy the value */
					FpbEntry	c = *e;
					MemoryContext pc = MemoryContextSwitchTo(outercxt);

					fpb_entry_keep_palloc(cmp, &c);
					MemoryContextSwitchTo(pc);
					out[nout].f = c.f;
				}
				nout++;
			}
		}

		MemoryContextSwitchTo(oldcxt);

		/*
		 * A half-dead page's key range belongs to its right sibling in the
		 * level above: the right sibling's lower bound is the half-dead
		 * page's own (strict mode; relaxed mode accepts either).
		 */
		afterdead = FpbPageIsHalfDead(opq);
		prevblk = blkno;
		prevflags = opq->flags;
		if (!afterdead)
		{
			prevhikey = hk;
			fpb_entry_keep(cmp, &prevhikey, &prevhikeybuf);
		}
		blkno = opq->right;
	}

	if (links && !st->relaxed && dl < nlinks)
		fpb_corrupt(st, links[dl].parent,
					"Downlink %s points to block %u, which is not the next page on the right-link chain of level %u after block %u.",
					fpb_keydesc(links[dl].k, links[dl].t), links[dl].child,
					level, prevblk);
	if (bychild)
	{
		for (int64 i = 0; i < nlinks; i++)
		{
			if (i > 0 && bychild[i].child == bychild[i - 1].child)
				fpb_corrupt(st, bychild[i].parent,
							"Block %u has a second downlink; the other is in block %u.",
							bychild[i].child, bychild[i - 1].parent);
			if (!bychild[i].found && !fpb_check_gone(st, bychild[i].child))
				fpb_corrupt(st, bychild[i].parent,
							"Downlink %s points to block %u, which is not on the right-link chain of level %u.",
							fpb_keydesc(bychild[i].k, bychild[i].t),
							bychild[i].child, level);
		}
		pfree(bychild);
	}

	*noutlinks = nout;
	return out;
}

/* ----------------------------------------------------------------
 * fpbtree_check(index regclass, heapallindexed bool)
 * ----------------------------------------------------------------
 */

static void
fpb_check_index(Relation index, Relation heap, bool heapallindexed,
				bool relaxed)
{
	FpbCheckState *st = palloc0(sizeof(FpbCheckState));
	Snapshot	snapshot = NULL;
	FpbMetaPageData *meta;
	FpbPageOpaque mopq;
	FpbDownlink *links = NULL;
	int64		nlinks = 0;
	BlockNumber leftmost;
	BlockNumber nonnew = 0;

	st->index = index;
	st->heap = heap;
	st->heapallindexed = heapallindexed;
	st->relaxed = relaxed;
	st->nblocks = RelationGetNumberOfBlocks(index);
	st->pagecxt = AllocSetContextCreate(CurrentMemoryContext,
										"fpbtree_check page",
										ALLOCSET_DEFAULT_SIZES);
	st->page = palloc(BLCKSZ);
	st->page2 = palloc(BLCKSZ);
	st->reached = MemoryContextAllocHuge(CurrentMemoryContext,
										 st->nblocks / 8 + 1);
	memset(st->reached, 0, st->nblocks / 8 + 1);
	if (heapallindexed)
	{
		snapshot = fpb_check_snapshot(st);
		st->maxleafkeys = 1024;
		st->leafkeys = MemoryContextAllocHuge(CurrentMemoryContext,
											  sizeof(FpbKey) * st->maxleafkeys);
	}

	/* the metapage */
	if (st->nblocks == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("fpbtree index \"%s\" has no metapage",
						RelationGetRelationName(index))));
	fpb_check_readpage(st, FPB_METAPAGE_BLKNO, st->page);
	fpb_page_check_sane(index, st->page, FPB_METAPAGE_BLKNO);
	mopq = FpbPageGetOpaque(st->page);
	meta = FpbPageGetMeta(st->page);
	if (!(mopq->flags & FPB_F_META))
		fpb_corrupt(st, FPB_METAPAGE_BLKNO,
					"Metapage flag is not set (flags 0x%04x).", mopq->flags);
	if (meta->magic != FPB_META_MAGIC)
		fpb_corrupt(st, FPB_METAPAGE_BLKNO,
					"Metapage magic is 0x%08x, expected 0x%08x.",
					meta->magic, FPB_META_MAGIC);
	if (meta->version < FPB_VERSION || meta->version > FPB_VERSION_STARTS)
		fpb_corrupt(st, FPB_METAPAGE_BLKNO,
					"Metapage version is %u, expected %u to %u.",
					meta->version, FPB_VERSION, FPB_VERSION_STARTS);
	if (((PageHeader) st->page)->pd_lower <
		(char *) meta + sizeof(FpbMetaPageData) - (char *) st->page)
		fpb_corrupt(st, FPB_METAPAGE_BLKNO,
					"pd_lower %u does not cover the metapage contents.",
					((PageHeader) st->page)->pd_lower);
	memcpy(&st->meta, meta, sizeof(FpbMetaPageData));
	st->meta.mprefix = fpb_meta_mprefix(st->page);
	st->meta.pfxflags = fpb_meta_pfxflags(st->page);
	if (!fpb_meta_formats_valid(st->meta.version, st->meta.mprefix,
								st->meta.pfxflags))
		fpb_corrupt(st, FPB_METAPAGE_BLKNO,
					"Metapage prefix formats %u/%u do not belong to version %u.",
					st->meta.mprefix, st->meta.pfxflags, st->meta.version);
	if (st->meta.w < 1 || st->meta.w > FPB_MAX_WIDTH ||
		st->meta.x < 1 || st->meta.x > FPB_MAX_WIDTH)
		fpb_corrupt(st, FPB_METAPAGE_BLKNO,
					"Metapage node widths %u/%u are out of range.",
					st->meta.w, st->meta.x);
	if (!fpb_check_block_valid(st, st->meta.root))
		fpb_corrupt(st, FPB_METAPAGE_BLKNO,
					"Root block %u is outside the tree (%u blocks).",
					st->meta.root, st->nblocks);
	if (st->meta.rootlevel >= FPB_MAX_LEVELS ||
		st->meta.rootlevel >= st->nblocks)
		fpb_corrupt(st, FPB_METAPAGE_BLKNO,
					"Root level %u is impossible for a tree of %u blocks.",
					st->meta.rootlevel, st->nblocks);
	fpb_bit_set(st->reached, FPB_METAPAGE_BLKNO);
	st->nreached = 1;
	st->cmp = fpb_index_cmp(st->index);

	/* the levels, root first; each level's leftmost page is the first child */
	leftmost = st->meta.root;
	for (uint32 level = st->meta.rootlevel;; level--)
	{
		FpbDownlink *next;
		int64		nnext;

		next = fpb_check_level(st, level, leftmost, links, nlinks, &nnext);
		if (links)
			pfree(links);
		links = next;
		nlinks = nnext;
		if (level == 0)
			break;
		leftmost = fpb_check_leftmost(st, links[0].child);
	}

	/*
	 * Every initialised page but the deleted ones must be in the tree: a
	 * crash during a split leaves either a zero page or a page linked from
	 * its left sibling, and a page is unlinked only in the record that marks
	 * it deleted.  (In relaxed mode a page may have been added
	 * after its level was walked.)
	 */
	for (BlockNumber blkno = 0; blkno < st->nblocks && !relaxed; blkno++)
	{
		FpbPageOpaque opq;

		CHECK_FOR_INTERRUPTS();
		if (fpb_bit_test(st->reached, blkno))
		{
			nonnew++;
			continue;
		}
		fpb_check_readpage(st, blkno, st->page);
		if (PageIsNew(st->page))
			continue;
		fpb_page_check_sane(index, st->page, blkno);

		/*
		 * Deleted pages are off the chain (recyclable or not): an empty
		 * leaf that no sibling and no downlink leads to.
		 */
		opq = FpbPageGetOpaque(st->page);
		if (FpbPageIsDeleted(opq))
		{
			if (opq->level > 1 ||
				opq->nentries != (opq->level == 0 ? 0 : 1) ||
				FpbPageIsRightmost(opq))
				fpb_corrupt(st, blkno,
							"Deleted page is neither an empty leaf nor a level-1 page with one downlink, with a right sibling (level %u, %u entries).",
							opq->level, opq->nentries);
			continue;
		}
		nonnew++;
		fpb_corrupt(st, blkno,
					"Page is initialised but not reachable from the root.");
	}
	Assert(relaxed || nonnew == st->nreached);

	if (heapallindexed)
	{
		fpb_check_heapallindexed(st, snapshot);
		UnregisterSnapshot(snapshot);
		pfree(st->leafkeys);
	}

	/* no writer runs under our ShareLock: the build's check applies */
	if (index->rd_index->indisunique && !relaxed)
		fpb_unique_check_built(heap, index, true);

	/* the key array and bitmap can be large: do not wait for the context */
	MemoryContextDelete(st->pagecxt);
	pfree(st->reached);
	pfree(st->page);
	pfree(st->page2);
	pfree(st);
}

Datum
fpbtree_check(PG_FUNCTION_ARGS)
{
	Oid			indrelid = PG_GETARG_OID(0);
	bool		heapallindexed = PG_GETARG_BOOL(1);
	Oid			heapid;
	Relation	heap = NULL;
	Relation	index;
	Oid			save_userid;
	int			save_sec_context;
	int			save_nestlevel;
	bool		relaxed;
	LOCKMODE	heaplock;

	fpb_precheck_relation(indrelid);

	/*
	 * Lock the table before the index, as every other path does, so we do
	 * not deadlock against writers.  ShareLock keeps the tree unchanged
	 * while we walk it (see the file header); the caller must be allowed
	 * to take it (the rule of LOCK TABLE ... IN SHARE MODE).  A hot standby
	 * cannot take it, and WAL replay changes the tree anyway: there the
	 * check runs in relaxed mode.
	 */
	relaxed = RecoveryInProgress();
	heaplock = relaxed ? AccessShareLock : ShareLock;
	heapid = IndexGetRelation(indrelid, true);
	if (OidIsValid(heapid))
	{
		AclResult	aclresult;

		aclresult = pg_class_aclcheck(heapid, GetUserId(),
									  relaxed ? ACL_SELECT :
									  (ACL_UPDATE | ACL_DELETE | ACL_TRUNCATE));
		if (aclresult != ACLCHECK_OK)
			aclcheck_error(aclresult, OBJECT_TABLE, get_rel_name(heapid));
		heap = table_open(heapid, heaplock);
	}
	index = index_open(indrelid, AccessShareLock);

	/* the index may have been dropped and its OID reused meanwhile */
	if (heap == NULL || heapid != IndexGetRelation(indrelid, false))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("could not open parent table of index \"%s\"",
						RelationGetRelationName(index))));
	fpb_check_relation(index);

	/*
	 * An invalid index (a failed CREATE INDEX CONCURRENTLY, or one still
	 * being built) need not hold the invariants: a failed unique build
	 * holds the duplicates that failed it.  Refused, as amcheck does.
	 */
	if (!index->rd_index->indisvalid)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot check index \"%s\"",
						RelationGetRelationName(index)),
				 errdetail("Index is not valid.")));

	/*
	 * An unlogged index has no pages on a hot standby (only its init
	 * fork): nothing to check, as amcheck says of btree's.
	 */
	if (relaxed && index->rd_rel->relpersistence == RELPERSISTENCE_UNLOGGED)
	{
		ereport(DEBUG1,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("cannot check unlogged index \"%s\" during recovery, skipping",
						RelationGetRelationName(index))));
		index_close(index, AccessShareLock);
		table_close(heap, heaplock);
		PG_RETURN_VOID();
	}

	/*
	 * Index expressions and predicates run as the table owner, in a
	 * security-restricted operation, as in CREATE INDEX.
	 */
	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	SetUserIdAndSecContext(heap->rd_rel->relowner,
						   save_sec_context | SECURITY_RESTRICTED_OPERATION);
	save_nestlevel = NewGUCNestLevel();

	fpb_check_index(index, heap, heapallindexed, relaxed);

	AtEOXact_GUC(false, save_nestlevel);
	SetUserIdAndSecContext(save_userid, save_sec_context);

	index_close(index, AccessShareLock);
	table_close(heap, heaplock);

	PG_RETURN_VOID();
}
