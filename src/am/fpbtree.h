/*-------------------------------------------------------------------------
 *
 * fpbtree.h
 *	  Declarations shared by the files of the fpbtree index access method:
 *	  normalised keys, the page format with its in-page tree of cache-line
 *	  nodes, the metapage, and the entry points of each operation.
 *
 * See src/am/README.md for the design and its invariants.
 *
 *-------------------------------------------------------------------------
 */
#ifndef FPBTREE_H
#define FPBTREE_H

#include "access/amapi.h"
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/generic_xlog.h"
#include "access/itup.h"
#include "access/reloptions.h"
#include "access/transam.h"
#include "fmgr.h"
#include "nodes/pathnodes.h"
#include "port/pg_bswap.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/relcache.h"

/*
 * Compound sort key.  Every index entry is ordered by (k, t):
 *	k - the column value normalised to an order-preserving unsigned integer
 *		(see keys.c); NULL entries use k = FPB_KEY_MAX.
 *	t - the tiebreaker: (isnull << 63) | (heap block << 16) | heap offset.
 *		NULLs therefore sort after every non-NULL value (NULLS LAST, as btree
 *		orders an ASC index), and equal keys are ordered by heap TID, which
 *		makes every entry unique.
 * The pair (0, 0) is smaller than every real entry (offset 0 is invalid) and
 * serves as "minus infinity" in the first downlink of a leftmost page.
 */
typedef struct FpbKey
{
	uint64		k;
	uint64		t;
} FpbKey;

#define FPB_KEY_MAX			PG_UINT64_MAX
#define FPB_T_NULLBIT		(UINT64CONST(1) << 63)
#define FPB_T_MAX_NONNULL	(FPB_T_NULLBIT - 1)

/*
 * An entry in memory: key plus, on internal pages, the child block.  In a
 * wide index (README "Wide keys") f points to the entry's full value, as a
 * datum of the column type (NULL for NULL entries and minus infinity, and
 * always NULL in a narrow index); k is then the value's prefix, whose low
 * FPB_WIDE_OFFBITS bits are not part of the key (on a page they hold the
 * offset of the full value's slot).
 */
typedef struct FpbEntry
{
	uint64		k;
	uint64		t;
	BlockNumber child;			/* internal pages only */
	const char *f;				/* wide indexes: the full value */
} FpbEntry;

/*
 * How a wide index compares full values: the operator class's support
 * function 4 (the type's three-way comparison) with the column's
 * collation.  NULL stands for a narrow index everywhere one is passed.
 */
typedef struct FpbCmp
{
	FmgrInfo	proc;
	Oid			collation;
	int16		typlen;			/* > 0 fixed length, -1 varlena */
	bool		bytewise;		/* the comparison is memcmp of the bytes
								 * (uuid): no function call */
	bool		textc;			/* text under "C": memcmp, then length */
	bool		plain;			/* a varlena type stored with a 4-byte header
								 * only (oidvector): never made short */
	bool		byval;			/* passed by value (an enum; only in cols[]):
								 * its "full value" is the Datum itself */
	bool		dedup;			/* equal keys are equal bytes, stored values
								 * are keys only: pages of runs (FPB_F_DEDUP) */
	bool		dedup_base;		/* so are they by the types alone */
	uint16		dedup_flags;	/* but a type shares runs only in indexes
								 * with these FPB_PFX_* flags
								 * (fpb_cmp_set_pfxflags) */
	bool		namepad;		/* name: stored zero after the string
								 * (fpb_full_form) */
	bool		skip_base;		/* a uuid whose prefix is its first bytes */
	int16		skip;			/* and, under FPB_PFX_UUIDSFX, the bytes of
								 * a value its slots leave to the prefix
								 * (FPB_FULLLEN_SFX16); else 0 */
	uint8		rowskip_base;	/* multi-column: a leading uuid, integer
								 * (coded prefix) or timestamp (first
								 * column's prefix), ASC NULLS LAST, at most
								 * 7 columns: the fulllen of pages whose
								 * rows leave it to the prefix
								 * (FPB_FULLLEN_TUPSFX, _TUPINTn, _TUPTS),
								 * else 0 */
	uint8		rowskip;		/* the same, under its FPB_PFX_ROW* flag
								 * and FPB_PFX_PACKED */
	bool		rowdomain;		/* the first column is a domain over such a
								 * type: tupdesc names the base type */
	int			maxkey;			/* largest full value accepted (bytes) */

	/*
	 * Multi-column and INCLUDE indexes (README "Multi-column keys"): a full
	 * value is an index tuple of all columns, compared key column by key
	 * column; the fields above then describe the first column.
	 */
	bool		multi;
	int			nkeys;			/* key columns */
	struct FpbCmp *cols;		/* per key column: its comparison */
	FmgrInfo   *encproc;		/* in cols[]: a narrow column's encode
								 * procedure (compared by key), else NULL */
	bool		canonzero;		/* in cols[]: a float column, whose -0 is
								 * compared as +0 (fpb_col_key) */
	bool		desc;			/* in cols[]: DESC */
	bool		nullsfirst;		/* in cols[]: NULLS FIRST */
	uint16		mprefix;		/* FPB_MPREFIX_*, from the metapage */
	uint16		pfxflags;		/* FPB_PFX_*: the metapage's, or a new
								 * index's (fpb_new_pfxflags) */
	Oid			pfxcoll;		/* the collation support procedure 1 is
								 * called with: the first column's, or "C"
								 * under FPB_PFX_CODEPOINT */
	TupleDesc	tupdesc;		/* the index's: stored tuples */
	TupleDesc	bounddesc;		/* scan bounds: narrow columns as keys */
	uint16		packsize;		/* rows can be packed: the index tuple of
								 * one without NULLs (packed.c), else 0 */
	uint16		packlen;		/* ... and its columns' bytes, unaligned */
	struct FpbPackCol *packcols;	/* and where its columns go in it */
} FpbCmp;

#define FPB_WIDE_OFFBITS	16
#define FPB_WIDE_OFFMASK	((UINT64CONST(1) << FPB_WIDE_OFFBITS) - 1)
#define FPB_WIDE_PREFIX(k)	((k) & ~FPB_WIDE_OFFMASK)

/* fulllen of a multi-column page: a slot holds an index tuple */
#define FPB_FULLLEN_TUPLE	0xFF

/*
 * fulllen of a uuid page of an index with FPB_PFX_UUIDSFX: a value is 16
 * bytes, and its slot holds only the last 10; the first FPB_SFX_SKIP are
 * the top bits of its key (README "Wide keys", Suffix slots).
 */
#define FPB_FULLLEN_SFX16	0xFE
#define FPB_SFX_SKIP		6

/*
 * fulllen of a page of a multi-column index with FPB_PFX_ROWSFX: slots hold
 * index tuples and packed rows, and a packed row whose first column, a
 * uuid, is not NULL leaves that column's first FPB_SFX_SKIP bytes to the
 * prefix (packed.h, fpb_packed_skipped).
 */
#define FPB_FULLLEN_TUPSFX	0xFD

/*
 * fulllen of a page of a multi-column index with FPB_PFX_ROWINT: as
 * FPB_FULLLEN_TUPLE, and a packed row whose first column, an integer of
 * 2, 4 or 8 bytes (int2, int4 and date, int8), has a code that fits the
 * prefix leaves the whole value to the prefix (packed.h,
 * fpb_packed_skippable); the _D codes where the column is DESC, whose
 * code is that of the complemented key.
 */
#define FPB_FULLLEN_TUPINT2	0xFC
#define FPB_FULLLEN_TUPINT4	0xFB
#define FPB_FULLLEN_TUPINT8	0xFA
#define FPB_FULLLEN_TUPINT2D	0xF8
#define FPB_FULLLEN_TUPINT4D	0xF7
#define FPB_FULLLEN_TUPINT8D	0xF6

/*
 * fulllen of a page of a multi-column index with FPB_PFX_ROWTS: as
 * FPB_FULLLEN_TUPLE, and a packed row whose first column, a timestamp or
 * timestamptz (FPB_MPREFIX_FIRST: its key's top 48 bits are the prefix,
 * or its complemented key's under DESC: FPB_FULLLEN_TUPTSD), is not NULL
 * keeps only the value's low 16 bits (packed.h).
 */
#define FPB_FULLLEN_TUPTS	0xF9
#define FPB_FULLLEN_TUPTSD	0xF5

/* Does a page of fulllen fl hold index tuples or packed rows? */
#define FPB_FULLLEN_IS_TUPLE(fl) \
	((fl) == FPB_FULLLEN_TUPLE || \
	 ((fl) >= FPB_FULLLEN_TUPTSD && (fl) <= FPB_FULLLEN_TUPSFX))

/* Does a row of a page of fulllen fl leave out a leading integer? */
#define FPB_FULLLEN_ROWINT(fl) \
	(((fl) >= FPB_FULLLEN_TUPINT8 && (fl) <= FPB_FULLLEN_TUPINT2) || \
	 ((fl) >= FPB_FULLLEN_TUPINT8D && (fl) <= FPB_FULLLEN_TUPINT2D))

/* ... or the top bits of a leading timestamp? */
#define FPB_FULLLEN_ROWTS(fl) \
	((fl) == FPB_FULLLEN_TUPTS || (fl) == FPB_FULLLEN_TUPTSD)

/* ... of a DESC column, whose prefix is of the complemented key? */
#define FPB_FULLLEN_ROWDESC(fl) \
	((fl) >= FPB_FULLLEN_TUPTSD && (fl) <= FPB_FULLLEN_TUPINT2D)

/*
 * The bytes of its first value a packed row of a page of fulllen fl may
 * leave to its prefix: a uuid's first FPB_SFX_SKIP, an integer whole, a
 * timestamp's all but its low 16 bits.
 */
static inline int
fpb_rowskip_len(int fl)
{
	switch (fl)
	{
		case FPB_FULLLEN_TUPSFX:
		case FPB_FULLLEN_TUPTS:
		case FPB_FULLLEN_TUPTSD:
			return FPB_SFX_SKIP;
		case FPB_FULLLEN_TUPINT2:
		case FPB_FULLLEN_TUPINT2D:
			return 2;
		case FPB_FULLLEN_TUPINT4:
		case FPB_FULLLEN_TUPINT4D:
			return 4;
		case FPB_FULLLEN_TUPINT8:
		case FPB_FULLLEN_TUPINT8D:
			return 8;
	}
	return 0;
}

/* The bytes of a value the slots of pages of fulllen fl leave out */
static inline int
fpb_fulllen_skip(int fl)
{
	return fl == FPB_FULLLEN_SFX16 ? FPB_SFX_SKIP : 0;
}

/*
 * A value above every full value, for the upper bounds of scans (never
 * stored, never read: compared by address).
 */
extern const char fpb_full_plusinf;

#define FPB_FULL_PLUSINF	(&fpb_full_plusinf)

/* A full value copied out of a page, for as long as the page may change. */
#define FPB_FULL_MAX		2048
typedef union FpbFullBuf
{
	char		data[FPB_FULL_MAX];
	int64		align;
} FpbFullBuf;

static inline int
fpb_key_cmp(uint64 ak, uint64 at, uint64 bk, uint64 bt)
{
	if (ak != bk)
		return ak < bk ? -1 : 1;
	if (at != bt)
		return at < bt ? -1 : 1;
	return 0;
}

/*
 * On the page the tiebreaker is kept as a 6-byte ItemPointerData; the NULL
 * flag lives in the otherwise unused top bit of the offset number.  The next
 * bit is the dead mark of a leaf entry (dead.c): a hint, never part of the
 * key, so every reader of an on-page TID masks it (fpb_tid_to_t).  Heap
 * offsets stay far below 2^14 (MaxHeapTuplesPerPage).
 */
#define FPB_TID_NULLFLAG	0x8000
#define FPB_TID_DEADFLAG	0x4000
#define FPB_TID_OFFMASK		0x3FFF

StaticAssertDecl(MaxHeapTuplesPerPage <= FPB_TID_OFFMASK,
				 "heap offsets must leave the dead and NULL bits free");

static inline bool
fpb_tid_is_dead(const ItemPointerData *tid)
{
	return (tid->ip_posid & FPB_TID_DEADFLAG) != 0;
}

static inline uint64
fpb_tid_to_t(const ItemPointerData *tid)
{
	uint64		blk = ((uint64) tid->ip_blkid.bi_hi << 16) | tid->ip_blkid.bi_lo;
	uint64		off = tid->ip_posid & FPB_TID_OFFMASK;
	uint64		t = (blk << 16) | off;

	if (tid->ip_posid & FPB_TID_NULLFLAG)
		t |= FPB_T_NULLBIT;
	return t;
}

static inline void
fpb_t_to_tid(uint64 t, ItemPointerData *tid)
{
	uint32		blk = (uint32) ((t >> 16) & 0xFFFFFFFF);

	tid->ip_blkid.bi_hi = (uint16) (blk >> 16);
	tid->ip_blkid.bi_lo = (uint16) (blk & 0xFFFF);
	tid->ip_posid = (uint16) (t & FPB_TID_OFFMASK);
	if (t & FPB_T_NULLBIT)
		tid->ip_posid |= FPB_TID_NULLFLAG;
}

static inline uint64
fpb_make_t(ItemPointer htid, bool isnull)
{
	uint64		t = ((uint64) ItemPointerGetBlockNumberNoCheck(htid) << 16) |
		ItemPointerGetOffsetNumberNoCheck(htid);

	return isnull ? (t | FPB_T_NULLBIT) : t;
}

/*
 * Does the heap tuple of tiebreaker cur come just after that of prev (the
 * next offset, or the first of the next block)?  Rows inserted one after
 * another get such TIDs: the split rules' sign of a run of inserts.
 */
static inline bool
fpb_t_follows(uint64 prev, uint64 cur)
{
	prev &= ~FPB_T_NULLBIT;
	cur &= ~FPB_T_NULLBIT;
	return (prev >> 16) == (cur >> 16) ?
		(prev & 0xFFFF) + 1 == (cur & 0xFFFF) :
		(prev >> 16) + 1 == (cur >> 16) && (cur & 0xFFFF) == FirstOffsetNumber;
}

/* heap TID of an entry's tiebreaker */
static inline void
fpb_t_to_heaptid(uint64 t, ItemPointer htid)
{
	ItemPointerSet(htid, (BlockNumber) ((t >> 16) & 0xFFFFFFFF),
				   (OffsetNumber) (t & FPB_TID_OFFMASK));
}

/* ----------------------------------------------------------------
 * Page format
 *
 * [PageHeader | pad to 64] [126 lines of 64 bytes] [special: 64 bytes]
 *
 * Nodes are allocated upward from line 0; opaque->hwm is the high-water
 * mark and pd_lower always points just past it, so generic WAL (which
 * skips the hole between pd_lower and pd_upper) sees every live byte.
 * ----------------------------------------------------------------
 */
#define FPB_LINE			64
#define FPB_DATA_START		64
#define FPB_SPECIAL_SIZE	64
#define FPB_NLINES	((BLCKSZ - FPB_DATA_START - FPB_SPECIAL_SIZE) / FPB_LINE)
#define FPB_NONE			0xFFFF	/* no node */
#define FPB_MAX_WIDTH		32	/* max lines per node (width model range) */
#define FPB_MAX_IPHEIGHT	8

#define FPB_PAGE_ID			0xFB7E
#define FPB_META_MAGIC		0xF9B7EE01
#define FPB_VERSION			1	/* every index but the next */
#define FPB_VERSION_CODED	2	/* a multi-column index whose prefixes are
								 * coded (FPB_MPREFIX_CODED): refused by
								 * builds that would read them as version 1's */
#define FPB_VERSION_PFX		3	/* either of the above with pfxflags set:
								 * refused by builds without the field */
#define FPB_VERSION_STARTS	4	/* every index built since leaf nodes may
								 * start past their first slot, any prefix
								 * format: refused by builds that would
								 * read their entries from slot 0 */

/* page flags */
#define FPB_F_LEAF				0x0001
#define FPB_F_META				0x0002
#define FPB_F_INCOMPLETE_SPLIT	0x0004	/* right sibling has no downlink yet */
#define FPB_F_HALF_DEAD			0x0008	/* empty leaf, downlink removed */
#define FPB_F_DELETED			0x0010	/* unlinked; reusable past safexid */
#define FPB_F_SPLIT_END			0x0020	/* right half of the last split of a
										 * VACUUM cycle's group (vacuum.c) */
#define FPB_F_WIDE				0x0040	/* page of a wide index: full values
										 * in slots below pd_upper */
#define FPB_F_POSTING			0x0080	/* leaf of runs of equal keys: each
										 * key once, its TIDs (posting.c) */
#define FPB_F_RUNS				0x0100	/* with FPB_F_POSTING: several keys,
										 * each once before its run of TIDs */
#define FPB_F_DEDUP				0x0200	/* wide page whose equal values are
										 * equal bytes: a leaf may become a
										 * page of runs (posting.c) */
#define FPB_F_STARTS			0x0400	/* page of a version 4 index: its
										 * layouts leave free slots on both
										 * sides of a leaf node's entries */

typedef struct FpbPageOpaqueData
{
	uint64		hikey;			/* high key (k); valid unless rightmost */
	ItemPointerData hitid;		/* high key tiebreaker, as on-page tids */
	uint16		level;			/* 0 = leaf */
	BlockNumber left;			/* InvalidBlockNumber if leftmost */
	BlockNumber right;			/* InvalidBlockNumber if rightmost */
	uint32		nentries;		/* entries on the page */
	uint16		flags;
	uint16		root;			/* line of the in-page root node or FPB_NONE */
	uint16		hwm;			/* lines in use: nodes live in [0, hwm) */
	uint16		firstleaf;		/* first in-page leaf node, key order */
	uint16		lastleaf;		/* last in-page leaf node */
	uint8		ipheight;		/* in-page tree levels; 0 when empty */
	uint8		w;				/* lines per in-page non-leaf node */
	uint8		x;				/* lines per in-page leaf node */
	uint8		fulllen;		/* wide pages: length of a full value, 0 for
								 * a varlena, else FPB_FULLLEN_* */
	uint16		pageid;			/* FPB_PAGE_ID */
	uint16		cycleid;		/* metapage's VACUUM cycle id when the page
								 * was last split (both halves) */
	uint32		safexid_lo;		/* deleted pages: the full transaction id */
	uint32		safexid_hi;		/* that must be past before reuse */
} FpbPageOpaqueData;

typedef FpbPageOpaqueData *FpbPageOpaque;

StaticAssertDecl(sizeof(FpbPageOpaqueData) <= FPB_SPECIAL_SIZE,
				 "fpbtree special space too small");

#define FpbPageGetOpaque(page) ((FpbPageOpaque) PageGetSpecialPointer(page))
#define FpbPageIsLeaf(opq)		(((opq)->flags & FPB_F_LEAF) != 0)
#define FpbPageIsRightmost(opq) ((opq)->right == InvalidBlockNumber)
#define FpbPageIsLeftmost(opq)	((opq)->left == InvalidBlockNumber)
#define FpbPageIsDeleted(opq)	(((opq)->flags & FPB_F_DELETED) != 0)
#define FpbPageIsPosting(opq)	(((opq)->flags & FPB_F_POSTING) != 0)
#define FpbPageIsHalfDead(opq)	(((opq)->flags & FPB_F_HALF_DEAD) != 0)
/* half-dead or deleted: holds nothing, scans and descents step right */
#define FpbPageIsIgnore(opq) \
	(((opq)->flags & (FPB_F_HALF_DEAD | FPB_F_DELETED)) != 0)

/*
 * In-page node: 8-byte header, then the key array, then the tiebreaker
 * array, then the pointer array (child line offsets in non-leaf nodes,
 * child block numbers in the leaf nodes of internal pages; leaf nodes of
 * leaf pages need none: the tiebreaker is the heap TID).  Keys come first so
 * the search can start while the pointer lines are still arriving.
 */
#define FPB_NODE_LEAF	1
#define FPB_NODE_INNER	2

typedef struct FpbNodeHeader
{
	uint16		n;				/* entries (leaf) or children (inner) */
	uint16		next;			/* leaf nodes: next leaf node in key order */
	uint16		prev;			/* leaf nodes: previous leaf node */
	uint8		kind;			/* FPB_NODE_LEAF or FPB_NODE_INNER */
	uint8		start;			/* leaf nodes: array slot of entry 0 */
} FpbNodeHeader;

#define FPB_NODE_HDR	sizeof(FpbNodeHeader)

static inline char *
fpb_line(Page page, uint16 line)
{
	return (char *) page + FPB_DATA_START + (Size) line * FPB_LINE;
}

/* Set the high-water mark of node lines; pd_lower follows it (above). */
static inline void
fpb_page_set_hwm(Page page, FpbPageOpaque opq, int hwm)
{
	opq->hwm = hwm;
	((PageHeader) page)->pd_lower = FPB_DATA_START + hwm * FPB_LINE;
}

/* capacities (entries per node) for given widths */
static inline int
fpb_leafcap(int x, bool internal_page)
{
	int			bytes = x * FPB_LINE - FPB_NODE_HDR;

	if (internal_page)
		return (bytes - 2) / (8 + 6 + 4);	/* 2: alignment of child array */
	return bytes / (8 + 6);
}

static inline int
fpb_innercap(int w)
{
	return (w * FPB_LINE - FPB_NODE_HDR) / (8 + 6 + 2);
}

/*
 * A node's arrays, from its entry 0.  A leaf node's entries occupy array
 * slots start .. start + n - 1 of its cap, so that an insert may shift the
 * entries on either side of it into free slots (README "Page format").
 */
static inline int
fpb_node_start(char *node)
{
	return ((FpbNodeHeader *) node)->start;
}

static inline uint64 *
fpb_node_keys(char *node)
{
	return (uint64 *) (node + FPB_NODE_HDR) + fpb_node_start(node);
}

static inline ItemPointerData *
fpb_node_tids(char *node, int cap)
{
	return (ItemPointerData *) (node + FPB_NODE_HDR + 8 * cap) +
		fpb_node_start(node);
}

static inline uint16 *
fpb_node_lines(char *node, int cap)
{
	return (uint16 *) (node + FPB_NODE_HDR + 14 * cap);
}

static inline BlockNumber *
fpb_node_children(char *node, int cap)
{
	return (BlockNumber *) TYPEALIGN(4, node + FPB_NODE_HDR + 14 * cap) +
		fpb_node_start(node);
}

/*
 * Posting pages (posting.c): the key once at FPB_DATA_START, then the TIDs.
 * FPB_POSTING_CAP is 1,342 with 8 kB pages, against 540 entries of a
 * regular leaf page with the usual widths.  A page of several runs
 * (FPB_F_RUNS) has a header word (the run count and the TID slots), the
 * keys, each run's first and end slot, then the TID slots, each run's
 * followed by free slots: 8 + 12 r + 6 s bytes for r runs in s slots.
 */
#define FPB_POSTING_CAP \
	((int) ((FPB_NLINES * FPB_LINE - sizeof(uint64)) / sizeof(ItemPointerData)))
#define FPB_POSTING_SPLIT_FILL	96	/* % left in a single-key split's left
									 * half, as nbtree's single-value split */
#define FPB_RUNS_HDR	((int) sizeof(uint64))
#define FPB_RUN_BYTES	((int) (sizeof(uint64) + 2 * sizeof(uint16)))

static inline int
fpb_posting_lines(int n)
{
	return (int) ((sizeof(uint64) + n * sizeof(ItemPointerData) +
				   FPB_LINE - 1) / FPB_LINE);
}

/* bytes of a page of nruns runs (> 1) in nslots TID slots */
static inline int
fpb_runs_bytes(int nruns, int nslots)
{
	return FPB_RUNS_HDR + nruns * FPB_RUN_BYTES +
		nslots * (int) sizeof(ItemPointerData);
}

static inline int
fpb_runs_lines(int nruns, int nslots)
{
	return (fpb_runs_bytes(nruns, nslots) + FPB_LINE - 1) / FPB_LINE;
}

/*
 * Up to this fill a page whose in-page tree has no room for a node split is
 * reorganised rather than split; above it, a leaf page of one key becomes a
 * posting page (page_insert.c, posting.c).
 */
#define FPB_REORG_MAX_FILL	0.97
/* ... and a wide page while the rewrite leaves room for this many more */
#define FPB_REORG_MIN_ROOM	4

/* Metapage, block 0 */
#define FPB_METAPAGE_BLKNO	0

/* levels we are prepared to believe in (a 2^32-block tree has far fewer) */
#define FPB_MAX_LEVELS		64

typedef struct FpbMetaPageData
{
	uint32		magic;
	uint32		version;
	BlockNumber root;			/* root page */
	uint32		rootlevel;		/* level of the root (0 = root is a leaf) */
	uint8		w;				/* chosen widths, copied into every page */
	uint8		x;
	uint16		fillfactor;
	float8		t1;				/* calibration used by the width model (ns) */
	float8		tnext;
	uint16		vac_cycle;		/* last VACUUM cycle id (0 in old indexes) */
	uint16		mprefix;		/* multi-column prefix: FPB_MPREFIX_* (0 in
								 * old indexes) */
	uint16		pfxflags;		/* FPB_PFX_*: format flags (0 in old
								 * indexes) */
	uint16		vac_delpages;	/* deleted pages the last VACUUM could not
								 * list as free, plus one (FPB_DELPAGES_*) */
} FpbMetaPageData;

/*
 * vac_delpages: 0 in indexes older than the field (it lies in what was
 * the struct's padding), FPB_DELPAGES_MANY for more than fit.  Either
 * makes the next VACUUM without a bulk delete walk the index (vacuum.c).
 */
#define FPB_DELPAGES_UNKNOWN	0
#define FPB_DELPAGES_MANY		0xFFFF

/*
 * pfxflags, the format flags of version 3.  FPB_PFX_CODEPOINT: the first
 * column's collation compares as strcmp() (a libc locale without collation
 * rules, as glibc's C.UTF-8), and its prefixes are taken under "C" (README
 * "Wide keys").  FPB_PFX_COMPRESS: a value (or row) too long for a slot may
 * be stored compressed (fpb_full_compress); a build older than the flag,
 * whose comparisons would read the compressed bytes, refuses such an index.
 */
#define FPB_PFX_CODEPOINT	0x0001
#define FPB_PFX_COMPRESS	0x0002
#define FPB_PFX_PACKED		0x0004	/* multi-column rows stored packed
									 * (packed.c): version 4 only */
#define FPB_PFX_RUNS		0x0008	/* timetz, inet/cidr and bit/varbit
									 * values share runs (fpb_col_dedup):
									 * version 4 only */
#define FPB_PFX_PACKVAR		0x0010	/* with FPB_PFX_PACKED: rows with
									 * short varlena values packed too
									 * (packed.c): version 4 only */
#define FPB_PFX_NAMERUNS	0x0020	/* name values share runs, stored zero
									 * after the string (fpb_col_dedup):
									 * version 4 only */
#define FPB_PFX_UUIDSFX		0x0040	/* uuid slots hold the bytes after
									 * the prefix (FPB_FULLLEN_SFX16):
									 * version 4 only */
#define FPB_PFX_ROWSFX		0x0080	/* packed rows leave a leading
									 * uuid's prefix bytes out
									 * (FPB_FULLLEN_TUPSFX): version 4 */
#define FPB_PFX_ROWINT		0x0100	/* packed rows leave a leading
									 * integer whose code fits the prefix
									 * out (FPB_FULLLEN_TUPINTn): version 4 */
#define FPB_PFX_ROWTS		0x0200	/* packed rows leave a leading
									 * timestamp's top 48 bits out
									 * (FPB_FULLLEN_TUPTS): version 4 */
#define FPB_PFX_ROWDOMAIN	0x0400	/* with one of the three above: the
									 * leading column is a domain over
									 * the type: version 4 */
#define FPB_PFX_KNOWN		(FPB_PFX_CODEPOINT | FPB_PFX_COMPRESS | \
							 FPB_PFX_PACKED | FPB_PFX_RUNS | \
							 FPB_PFX_PACKVAR | FPB_PFX_NAMERUNS | \
							 FPB_PFX_UUIDSFX | FPB_PFX_ROWSFX | \
							 FPB_PFX_ROWINT | FPB_PFX_ROWTS | \
							 FPB_PFX_ROWDOMAIN)

/* the prefix of a multi-column entry (multicol.c) */
#define FPB_MPREFIX_FIRST	0	/* the first column's key, top 48 bits */
#define FPB_MPREFIX_CODED	1	/* the narrow leading columns, coded */

#define FpbPageGetMeta(page) ((FpbMetaPageData *) PageGetContents(page))

/* reloptions */
typedef struct FpbOptions
{
	int32		vl_len_;
	int			fillfactor;
	int			nonleaf_lines;	/* 0 = from the width model */
	int			leaf_lines;
} FpbOptions;

#define FPB_DEFAULT_FILLFACTOR	90
#define FPB_MIN_FILLFACTOR		10

/* support procedures of every operator class */
#define FPB_ENCODE_PROC		1	/* type -> int8 (normalised key, bit-cast) */
#define FPB_DECODE_PROC		2	/* int8 -> type (exact inverse) */
#define FPB_XKEY_PROC		3	/* (S, upper) -> key bound in the column's
								 * domain; cross-type only, optional */
#define FPB_CMP_PROC		4	/* (T, T) -> int4 three-way comparison;
								 * makes the index wide, optional */
#define FPB_NPROC			4

/*
 * Strategies after btree's five: the row bound operators <|, <=|, >=| and
 * >| (anyelement, record) of every family (version 1.9, rowbound.c)
 */
#define FPB_ROW_LT			6
#define FPB_ROW_LE			7
#define FPB_ROW_GE			8
#define FPB_ROW_GT			9
#define FPB_NSTRATEGIES		FPB_ROW_GT

/* ---- handler.c / nodewidth.c: settings and the width model ---- */
extern double fpb_t1_ns;
extern double fpb_tnext_ns;
extern relopt_kind fpb_relopt_kind;
/* the access method's settings and reloptions, called from _PG_init */
extern void fpb_am_init(void);
extern void fpb_pattern_init(void);
extern bool fpb_planner_as_btree;
extern void fpb_planview_init(void);
extern void fpb_check_pattern_collations(Relation index);
extern void fpb_rowcompare_init(void);
extern void fpb_upsert_init(void);
extern void fpb_fkey_init(void);
extern void fpb_scan_group_init(void);

typedef struct FpbWidths
{
	int			w;
	int			x;
	int			leaf_fanout;	/* entries per full leaf page */
	int			levels;			/* in-page levels of a full page */
	double		cost;			/* modelled in-page search cost (ns) */
} FpbWidths;

extern void fpb_choose_widths(double t1, double tnext, FpbWidths *out);
extern void fpb_widths_for(int w, int x, double t1, double tnext, FpbWidths *out);

/* ---- keys.c: normalisation through the operator class ---- */
extern uint64 fpb_encode(FmgrInfo *encproc, Oid collation, Datum value);
extern FpbKey fpb_heap_key(FmgrInfo *encproc, Oid collation, Datum value,
						   bool isnull, ItemPointer htid);
extern char *fpb_keydesc(uint64 k, uint64 t);
extern Datum fpb_decode(FmgrInfo *decproc, uint64 k);
extern void fpb_encode_range(FmgrInfo *encproc, Oid typid, Datum value,
							 uint64 *lo, uint64 *hi);
extern void fpb_key_equal_range(Oid typid, uint64 k, uint64 *lo, uint64 *hi);
extern void fpb_ts_tstz_widen(uint64 *lo, uint64 *hi);

/* ---- widekey.c: prefixes of wide keys (README "Wide keys") ---- */
#define FPB_PREFIX_LEN		8	/* bytes of a value in its prefix */
extern uint64 fpb_prefix_bytes(const char *data, Size len);
extern struct varlena *fpb_varlena_head(Datum value, int32 len);
extern uint64 fpb_prefix_text(Datum value, Oid collid);
extern uint64 fpb_prefix_text_c(Datum value);
extern bool fpb_prefix_is_const(const FmgrInfo *proc, Oid collid);
extern bool fpb_collation_is_codepoint(Oid collid);
/* prefix procedures fpb_prefix_is_const knows by address */
extern PGDLLEXPORT Datum fpbtree_prefix_text(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum fpbtree_prefix_bpchar(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum fpbtree_prefix_name(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum fpbtree_prefix_none(PG_FUNCTION_ARGS);
/* ... and one fpb_encode calls directly */
extern PGDLLEXPORT Datum fpbtree_prefix_uuid(PG_FUNCTION_ARGS);
/* encode procedures multicol.c knows by address (keys.c) */
extern PGDLLEXPORT Datum fpbtree_encode_int2(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum fpbtree_encode_int4(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum fpbtree_encode_int8(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum fpbtree_encode_date(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum fpbtree_encode_timestamp(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum fpbtree_encode_timestamptz(PG_FUNCTION_ARGS);
extern uint64 fpb_prefix_bpchar(Datum value, Oid collid);
extern uint64 fpb_prefix_cstring(const char *data, Size len, Oid collid);

/* ---- widearg.c: cross-type arguments of wide columns ---- */
extern bool fpb_wide_arg_known(Oid coltype, Oid argtype);
extern bool fpb_wide_arg(Oid coltype, Oid argtype, Datum *value);
extern bool fpb_wide_arg_lossy(Oid coltype, Oid argtype);
extern bool fpb_wide_arg_fits(Oid coltype, Oid argtype, Datum value);
extern uint64 fpb_wide_arg_prefix(Oid coltype, Oid argtype, Datum value,
								  Oid collid);
extern bool fpb_wide_arg_loose_known(Relation index, int col);

#include "wide.h"
#include "packed.h"

/*
 * The alignment of f's slot on its wide page: an index tuple's MAXALIGN, a
 * 4-byte varlena header's 4; a packed row, a 1-byte header and a fixed-size
 * value are read by memcpy or byte by byte, and take none.
 */
static inline int
fpb_slot_align(Page page, const char *f)
{
	int			fl = FpbPageGetOpaque(page)->fulllen;

	if (FPB_FULLLEN_IS_TUPLE(fl))
		return fpb_is_packed(f) ? 1 : MAXIMUM_ALIGNOF;
	if (fl == 0 && VARATT_IS_4B(f))
		return 4;
	return 1;
}

/* Compare two entries in the order of the index (cmp NULL: narrow). */
static inline int
fpb_entry_cmp(const FpbCmp *cmp, const FpbEntry *a, const FpbEntry *b)
{
	if (cmp == NULL)
		return fpb_key_cmp(a->k, a->t, b->k, b->t);
	return fpb_wide_cmp(cmp, a->k, a->t, a->f, b->k, b->t, b->f);
}

/*
 * Is (k, t, f) a wide key that no entry equals, one whose tiebreaker is 0
 * but for its NULL bit (a heap TID never is), other than minus infinity?
 * As an inclusive upper bound it admits exactly the entries below it.
 */
static inline bool
fpb_wide_key_between(const FpbCmp *cmp, const FpbEntry *e)
{
	return cmp && (e->t & FPB_T_MAX_NONNULL) == 0 &&
		!(e->k == 0 && e->t == 0 && e->f == NULL);
}

/* A key without a full value (narrow indexes, bounds of the key space). */
static inline FpbEntry
fpb_mkkey(uint64 k, uint64 t)
{
	FpbEntry	e;

	e.k = k;
	e.t = t;
	e.child = InvalidBlockNumber;
	e.f = NULL;
	return e;
}

/* ---- wal.c: WAL-logged page changes (generic WAL records) ---- */
typedef struct FpbWalState FpbWalState;

#define FPB_WAL_MAX_PAGES	MAX_GENERIC_XLOG_PAGES
#define FPB_WAL_FULL_IMAGE	0x0001	/* log the whole page, not a delta */
#define FPB_WAL_CLEANUP		0x0002	/* replayed under a cleanup lock (one page) */

/* bytes [off, off + len) of a page, changed in place */
typedef struct FpbByteRange
{
	uint16		off;
	uint16		len;
} FpbByteRange;

extern FpbWalState *fpb_wal_start(Relation index);
extern Page fpb_wal_register(FpbWalState *st, Buffer buf, int flags);
extern void fpb_wal_finish(FpbWalState *st);
extern void fpb_wal_abort(FpbWalState *st);
extern Page fpb_wal_inplace_begin(Relation index, Buffer buf);
extern void fpb_wal_inplace_end(Relation index, Buffer buf,
								const FpbByteRange *ranges, int nranges);

/* ---- page.c: one page and its in-page tree ---- */
extern void fpb_page_init(Page page, uint16 level, uint16 flags, int w, int x);
extern void fpb_page_init_as(Page page, uint16 level, uint16 flags,
							 FpbPageOpaque like);
extern bool fpb_page_layout(Page page, const FpbEntry *entries, int n,
							double fill);
extern int	fpb_page_collect(Page page, FpbEntry *out, BlockNumber blkno);
extern int	fpb_page_collect_marks(Page page, FpbEntry *out, bool *dead,
								   BlockNumber blkno);
extern bool fpb_page_mark_dead(Page page, uint64 k, uint64 t,
							   BlockNumber blkno);
extern int	fpb_page_count_dead(Page page, BlockNumber blkno);
extern int	fpb_page_key_run(Page page, const FpbCmp *cmp, const FpbEntry *lo,
							 const FpbEntry *hi, BlockNumber blkno,
							 uint64 *out, bool *ended);
extern bool fpb_run_descends(const FpbCmp *cmp, const FpbEntry *prev,
							 const FpbEntry *e, const FpbEntry *next,
							 const FpbEntry *far);
extern bool fpb_page_insert(Page page, const FpbCmp *cmp,
							const FpbEntry *entry, BlockNumber blkno);
#define FPB_INSERT_RANGES	8
extern int	fpb_page_insert_slot(Page page, const FpbCmp *cmp, const FpbEntry *e,
								 BlockNumber blkno, int *pos);
extern int	fpb_page_insert_at(Page page, int nodeoff, int pos,
							   const FpbEntry *e, FpbByteRange *ranges);
extern int	fpb_page_capacity(int w, int x, bool internal_page, double fill);
extern bool fpb_page_fits(int w, int x, bool internal_page, double fill,
						  int n, Size slotbytes);
extern int	fpb_page_per(int x, bool internal_page, double fill);
extern int	fpb_page_slot_room(int w, int x, int m);
extern int	fpb_slots_upper(Page page, const FpbEntry *entries, int n);
extern int	fpb_wide_room(Page page, const FpbEntry *entries, int n);
extern uint64 *fpb_layout_slots(Page page, const FpbEntry *entries, int n,
								int upper);
extern uint16 fpb_page_find_leafnode(Page page, const FpbCmp *cmp,
									 const FpbEntry *key, BlockNumber blkno);
extern BlockNumber fpb_page_child(Page page, const FpbCmp *cmp,
								  const FpbEntry *key, BlockNumber blkno);
extern bool fpb_page_find_child(Page page, BlockNumber child,
								BlockNumber blkno);
extern bool fpb_page_above_hikey(Page page, const FpbCmp *cmp,
								 const FpbEntry *key, BlockNumber blkno);
extern void fpb_page_set_hikey(Page page, const FpbEntry *key);
extern void fpb_page_get_hikey(Page page, FpbEntry *key, BlockNumber blkno);
extern void fpb_page_check_sane(Relation index, Page page, BlockNumber blkno);
extern void fpb_prefetch_node(char *node, int lines);

/*
 * Report damage found at block blkno of an index; the detail (a sentence
 * with arguments) says what is wrong.  Paths that follow links use it, so
 * the error names the index and the block.
 */
#define fpb_index_corrupt(index, blkno, ...) \
	ereport(ERROR, \
			(errcode(ERRCODE_INDEX_CORRUPTED), \
			 errmsg("fpbtree index \"%s\" is corrupted at block %u", \
					RelationGetRelationName(index), (blkno)), \
			 errdetail(__VA_ARGS__)))

/* ---- posting.c, posting_layout.c: leaves of runs of equal keys ---- */
extern bool fpb_posting_page_ok(Page page, int n);
extern bool fpb_posting_same(Page page, const FpbEntry *a, const FpbEntry *b);
extern bool fpb_posting_worth(Page page, const FpbEntry *entries, int n);
extern bool fpb_posting_candidate(Page page, const FpbEntry *entries,
								  int n);
extern bool fpb_posting_layout(Page page, const FpbEntry *entries, int n,
							   double fill, int upper);
extern int	fpb_posting_collect(Page page, FpbEntry *out, bool *dead,
								BlockNumber blkno);
extern bool fpb_posting_mark_dead(Page page, uint64 k, uint64 t,
								  BlockNumber blkno);
extern int	fpb_posting_count_dead(Page page, BlockNumber blkno);
extern int	fpb_posting_capacity(Page page, BlockNumber blkno);
extern int	fpb_posting_key_run(Page page, const FpbCmp *cmp,
								const FpbEntry *lo, const FpbEntry *hi,
								BlockNumber blkno, uint64 *out, bool *ended);
extern int	fpb_posting_insert_slot(Page page, const FpbCmp *cmp,
									const FpbEntry *e, BlockNumber blkno,
									int *pos);
extern int	fpb_posting_insert_at(Page page, int pos, const FpbEntry *e,
								  FpbByteRange *ranges);
extern bool fpb_posting_insert(Page page, const FpbCmp *cmp,
							   const FpbEntry *e, BlockNumber blkno);
extern int	fpb_posting_split_point(Page page, const FpbEntry *ents, int n,
									int mid, int newpos);
extern FpbEntry *fpb_check_posting(Relation index, Page page,
								   BlockNumber blkno, int *nentries);

/* ---- meta.c ---- */
extern void fpb_init_metapage(Page page, BlockNumber root, uint32 rootlevel,
							  int w, int x, int fillfactor, double t1,
							  double tnext, uint16 mprefix, uint16 pfxflags);
extern void fpb_read_meta(Relation index, FpbMetaPageData *meta);
extern FpbMetaPageData *fpb_cached_meta(Relation index, bool refresh);
extern void fpb_relcache_rebuilt(Relation index);
extern const FpbCmp *fpb_index_cmp(Relation index);
extern FmgrInfo *fpb_cross_encoder(Relation index, int col, Oid typid,
								   bool *xbound);
extern Buffer fpb_getbuf(Relation index, BlockNumber blkno, int lockmode);
extern Buffer fpb_getmetabuf(Relation index, int lockmode);
extern Buffer fpb_newbuf(Relation index);
extern bool fpb_page_recyclable(Page page);
extern uint16 fpb_vacuum_cycleid(Relation index);
extern uint16 fpb_meta_cycleid(Page metapage);
extern uint16 fpb_meta_mprefix(Page metapage);
extern uint16 fpb_meta_pfxflags(Page metapage);
extern uint16 fpb_meta_delpages(Page metapage);
extern bool fpb_build_starts(void);
extern bool fpb_meta_formats_valid(uint32 version, uint16 mprefix,
								   uint16 pfxflags);
extern void fpb_relbuf(Buffer buf);

/* ---- search.c: descent ---- */
typedef struct FpbStackData
{
	BlockNumber blkno;
	struct FpbStackData *parent;
} FpbStackData;

typedef FpbStackData *FpbStack;

extern Buffer fpb_search(Relation index, const FpbEntry *key, int leaflock,
						 FpbStack *stack, Relation heap);
extern Buffer fpb_moveright(Relation index, Buffer buf, const FpbEntry *key,
							int lockmode, bool forupdate, FpbStack stack,
							Relation heap);
extern Buffer fpb_moveright_below(Relation index, Buffer buf,
								  const FpbEntry *key, int lockmode);
extern Buffer fpb_getbuf_right(Relation index, BlockNumber from, uint16 level,
							   const FpbEntry *hik, BlockNumber to,
							   int lockmode, bool fromheld, int *unchecked);
extern void fpb_count_unchecked(Relation index, BlockNumber to,
								int *unchecked);
extern Buffer fpb_step_right(Relation index, Buffer buf, int lockmode,
							 int *unchecked);
extern Buffer fpb_descend_to(Relation index, const FpbEntry *key,
							 uint32 level, int lockmode, bool forupdate,
							 FpbStack *stackp, Relation heap);
extern void fpb_free_stack(FpbStack stack);

/* ---- insert.c ---- */
extern bool fpbinsert(Relation index, Datum *values, bool *isnull,
					  ItemPointer ht_ctid, Relation heapRel,
					  IndexUniqueCheck checkUnique, bool indexUnchanged,
					  struct IndexInfo *indexInfo);
extern void fpb_finish_split(Relation index, Buffer lbuf, FpbStack stack,
							 Relation heap);
extern void fpb_insert_entry(Relation index, const FpbEntry *e, Relation heap,
							 bool unchanged);
extern void fpb_insert_at_leaf(Relation index, Buffer buf, const FpbEntry *e,
							   FpbStack stack, Relation heap, bool unchanged);

/* ---- dead.c: entries marked dead by scans, removed before splits ---- */
extern void fpb_scan_remember_dead(IndexScanDesc scan);
extern void fpb_scan_kill_items(IndexScanDesc scan);
extern bool fpb_remove_dead(Relation index, Relation heap, Buffer buf);
extern bool fpb_bottomup_delete(Relation index, Relation heap, Buffer buf);
extern bool fpb_dupes_delete(Relation index, Relation heap, Buffer buf,
							 uint64 seed, bool unchanged);
extern void fpb_unique_mark_dead(Buffer buf, uint64 klo, uint64 khi,
								 uint64 t);

/* ---- unique.c ---- */
extern bool fpb_insert_unique(Relation index, const FpbEntry *e, Relation heap,
							  IndexUniqueCheck checkUnique, Datum *values,
							  bool *isnull, bool unchanged);
extern void fpb_unique_check_built(Relation heap, Relation index,
								   bool verifying);

/* ---- build.c ---- */
extern IndexBuildResult *fpbbuild(Relation heap, Relation index,
								  struct IndexInfo *indexInfo);
extern void fpbbuildempty(Relation index);
extern char *fpbbuildphasename(int64 phasenum);

/* ---- prefetch.c: range-scan prefetching ---- */
typedef struct FpbScanItem
{
	uint64		k;
	uint64		t;
	const char *f;				/* wide index-only scans: the value */
} FpbScanItem;

/* posting.c: a scan's copy of a posting page */
extern int	fpb_posting_scan(Page page, const FpbCmp *cmp, BlockNumber blkno,
							 const FpbEntry *lo, const FpbEntry *hi,
							 bool skipdead, FpbScanItem *items,
							 bool *before_lo);

#define FPB_PF_OFF		0		/* disabled, short scan, or finished */
#define FPB_PF_PENDING	1		/* decide when the scan reaches leaf two */
#define FPB_PF_ON		2
#define FPB_PF_DONE		3		/* the end leaf has been prefetched */

typedef struct FpbPrefetcher
{
	int			state;
	bool		forward;
	int			cap;			/* effective_io_concurrency */
	int			dist;			/* current distance, in leaves */
	BlockNumber endleaf;		/* leaf holding the far end of the range */
	BlockNumber l1blk;			/* level-1 page whose downlinks we hold */
	BlockNumber nextl1;			/* its sibling in scan direction */
	BlockNumber *jump;			/* its downlinks, in scan order */
	int			njump;
	int			maxjump;
	int			nahead;			/* parallel: jump's last nahead leaves are
								 * the run claimed ahead */
	int			base;			/* sequence number of jump[0] */
	int			pos;			/* sequence number of the scan's leaf */
	int			pfpos;			/* sequence number of the last prefetch */
} FpbPrefetcher;

typedef struct FpbHeapPrefetcher
{
	int			cap;			/* 0 = off, -1 = not looked up yet */
	int			dist;
	int			pos;			/* last batch item prefetched */
	uint64		batch;			/* bumped by the scan per leaf read */
	uint64		curbatch;
	bool		forward;
	BlockNumber lastblk;
} FpbHeapPrefetcher;

typedef struct FpbPrefetchCounters
{
	int64		leaf_issued;
	int64		leaf_cached;
	int64		heap_issued;
	int64		heap_cached;
} FpbPrefetchCounters;

extern bool fpb_enable_range_prefetch;
extern bool fpb_enable_heap_prefetch;
extern int	fpb_prefetch_max;
extern int	fpb_node_prefetch;
extern FpbPrefetchCounters fpb_pf_counters;

extern void fpb_pf_init(FpbPrefetcher *pf, BlockNumber startl1, bool forward);
extern void fpb_pf_stop(FpbPrefetcher *pf);
extern void fpb_pf_advance(Relation index, FpbPrefetcher *pf,
						   BlockNumber curleaf, const FpbEntry *end);
extern void fpb_pf_run_begin(Relation index, FpbPrefetcher *pf,
							 const BlockNumber *blks, int n);
extern void fpb_pf_run_advance(Relation index, FpbPrefetcher *pf,
							   BlockNumber curleaf);
extern void fpb_pf_run_append(Relation index, FpbPrefetcher *pf,
							  const BlockNumber *blks, int n);
extern void fpb_pf_run_next(Relation index, FpbPrefetcher *pf);
extern void fpb_heap_prefetch_init(FpbHeapPrefetcher *hp, Relation heap);
extern void fpb_heap_prefetch(FpbHeapPrefetcher *hp, Relation heap,
							  const FpbScanItem *items, int nitems, int cur,
							  bool forward);

/* ---- pscan.c: parallel scans ---- */
#define FPB_PSCAN_RUN	16		/* leaves per claimed run (see README) */

/* a closed interval [(lok, lot), (hik, hit)] of compound keys */
typedef struct FpbScanInterval
{
	uint64		lok,
				lot,
				hik,
				hit;
	const char *lof,			/* wide indexes: the bounds' values */
			   *hif;
} FpbScanInterval;

/* A run of a parallel scan, as claimed by one participant. */
typedef struct FpbScanRun
{
	uint64		lok;			/* its key range within the scan's, */
	uint64		lot;			/* inclusive */
	uint64		hik;
	uint64		hit;
	const char *lof;			/* wide: the bounds' values (the interval's */
	const char *hif;			/* own, or in lobuf and hibuf) */
	FpbFullBuf *lobuf;			/* the caller's, for copies of values (wide) */
	FpbFullBuf *hibuf;
	BlockNumber start;			/* leaf to start from (Invalid: descend) */
	BlockNumber last;			/* last leaf listed for it (scan order) */
	BlockNumber blks[FPB_PSCAN_RUN];	/* its leaves per the downlinks */
	int			nblks;
} FpbScanRun;

extern Size fpbestimateparallelscan(void);
extern void fpbinitparallelscan(void *target);
extern void fpbparallelrescan(IndexScanDesc scan);
extern bool fpb_pscan_claim(IndexScanDesc scan, bool forward,
							const FpbScanInterval *ivals, int nivals,
							FpbScanRun *run);

/* ---- scan.c ---- */
extern IndexScanDesc fpbbeginscan(Relation r, int nkeys, int norderbys);
extern void fpbrescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
					  ScanKey orderbys, int norderbys);
extern bool fpbgettuple(IndexScanDesc scan, ScanDirection dir);
extern int64 fpbgetbitmap(IndexScanDesc scan, TIDBitmap *tbm);
extern void fpbendscan(IndexScanDesc scan);
extern void fpbmarkpos(IndexScanDesc scan);
extern void fpbrestrpos(IndexScanDesc scan);

/* ---- vacuum.c ---- */
extern IndexBulkDeleteResult *fpbbulkdelete(IndexVacuumInfo *info,
											IndexBulkDeleteResult *stats,
											IndexBulkDeleteCallback callback,
											void *callback_state);
extern IndexBulkDeleteResult *fpbvacuumcleanup(IndexVacuumInfo *info,
											   IndexBulkDeleteResult *stats);

/* ---- pagedel.c: deletion of empty leaf pages ---- */
extern bool fpb_debug_pagedel_stop;
extern bool fpb_pagedel(Relation index, BlockNumber blkno,
						BlockNumber *parent, FullTransactionId *safexid);
extern FullTransactionId fpb_page_safexid(FpbPageOpaque opq);

/* ---- verify.c: fpbtree_check(); its relation checks serve stats.c too ---- */
extern void fpb_precheck_relation(Oid relid);
extern void fpb_check_relation(Relation rel);

/* ---- stats.c ---- */
extern Relation fpb_open_for_stats(Oid indrelid);

/* ---- verify_inpage.c: fpbtree_check() of one page's in-page tree ---- */
extern FpbEntry *fpb_check_inpage(Relation index, Page page,
								  BlockNumber blkno, int *nentries);

/* ---- cost.c, validate.c, handler.c ---- */
extern void fpbcostestimate(PlannerInfo *root, IndexPath *path,
							double loop_count, Cost *indexStartupCost,
							Cost *indexTotalCost, Selectivity *indexSelectivity,
							double *indexCorrelation, double *indexPages);
extern bool fpbvalidate(Oid opclassoid);
extern bytea *fpboptions(Datum reloptions, bool validate);
extern bool fpbcanreturn(Relation index, int attno);

#endif							/* FPBTREE_H */
