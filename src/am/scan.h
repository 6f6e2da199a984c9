/*-------------------------------------------------------------------------
 *
 * scan.h
 *	  The state of an fpbtree index scan, shared by scan.c (reading leaves),
 *	  scan_step.c (moving between them) and scankeys.c (turning scan keys
 *	  into key intervals).
 *
 *-------------------------------------------------------------------------
 */
#ifndef FPB_SCAN_H
#define FPB_SCAN_H

#include "access/genam.h"
#include "access/stratnum.h"
#include "catalog/pg_type_d.h"
#include "fpbtree.h"

/*
 * sk_flags bit (the access method's bits 16-31, skey.h) of a key that a
 * multi-column scan evaluates as a filter although its column is bounded:
 * its argument has no value of the column's type (widearg.c).
 */
#define FPB_SK_FILTER		0x00010000

/* the row bound strategies (rowbound.c): a scan key of one of them */
static inline bool
fpb_sk_is_row(ScanKey sk)
{
	return sk->sk_strategy >= FPB_ROW_LT && sk->sk_strategy <= FPB_ROW_GT;
}

/* the batch's value buffer (see fpb_scan_keepvals) */
#define FPB_ITEMVALS_SIZE	(3 * BLCKSZ)
/*
 * The most matches of a leaf whose index-only tuples are made at once, and
 * the leaves of a scan after which all are (see fpb_scan_keepvals)
 */
#define FPB_SCAN_EAGER_VALS	8
#define FPB_SCAN_LAZY_LEAVES	2
/* the batch's first size: the matches of a few leaf nodes (scan.c) */
#define FPB_SCAN_ITEMS_INITIAL	64

struct FpbScanMark;

/* One column of a row bound (rowbound.c): its value, its operators. */
typedef struct FpbRowMember
{
	Oid			type;			/* the value's type */
	bool		isnull;
	Datum		value;			/* in the scan's bound memory */
	Oid			collation;		/* the column's */
	FmgrInfo	eq;				/* the family's "=" for (column, type) */
	FmgrInfo	beyond;			/* its "<" or ">": the comparison's side */
} FpbRowMember;				/* (eq and beyond: once a row is checked) */

/* A row bound "(c1, ..., cn) op (v1, ..., vn)" over the first n columns. */
typedef struct FpbRowBound
{
	int			n;
	int			strategy;		/* the comparison's: BTLessStrategyNumber.. */
	bool		positioned;		/* the scan starts (ends) at the values
								 * (fpb_scan_rowend) */
	Relation	index;
	MemoryContext cxt;			/* the scan's bound memory */
	bool		ops;			/* the members' operators are looked up */
	FpbRowMember members[FLEXIBLE_ARRAY_MEMBER];
} FpbRowBound;

typedef struct FpbScanOpaqueData
{
	bool		empty;			/* the keys can match nothing */
	bool		noscan;			/* ... because an array key has no element */
	bool		recheck;		/* the executor must recheck the keys */
	uint64		lok,
				lot,
				hik,
				hit;			/* inclusive bounds */
	const FpbCmp *cmp;			/* wide index: its comparison, else NULL */
	const char *lof;			/* wide: the bounds' values (NULL: none, */
	const char *hif;			/* FPB_FULL_PLUSINF above every value) */
	MemoryContext boundcxt;		/* their memory, reset by rescan */

	bool		started;
	uint64		batchgen;		/* batches read so far (markpos.c) */
	struct FpbScanMark *mark;	/* the marked position, or NULL */
	BlockNumber curblk;			/* page the batch came from */
	bool		keep_pin;		/* hold a pin on curblk while returning it */
	Buffer		pinbuf;			/* pin on curblk, or InvalidBuffer */
	BlockNumber leftblk;		/* its links when it was read */
	BlockNumber rightblk;
	uint64		curhik;			/* and its high key, unless rightmost */
	uint64		curhit;
	const char *curhif;			/* wide: its value, in curhikbuf */
	FpbFullBuf *curhikbuf;		/* wide: made at the first page read */
	bool		curgone;		/* curblk was deleted or half-dead: its high
								 * key bounds nothing (fpb_getbuf_right) */
	int			unchecked;		/* steps right from such pages, per scan */
	bool		behind;			/* curblk lies behind the scan's position,
								 * its batch dropped (fpb_scan_next) */
	bool		posvalid;		/* forward steps: pos* hold the high key of
								 * the last live page the walk left */
	uint64		posk;
	uint64		post;
	const char *posf;			/* wide: in posbuf */
	FpbFullBuf *posbuf;
	char	   *itemvals;		/* wide index-only scans: the batch's values */
	Size		itemvals_used;	/* ... the bytes of it the batch uses */
	bool		itemvals_page;	/* ... it holds a copy of the leaf's slots */
	bool		filter_late;	/* ... and the items' filters are unchecked */
	int			leaves;			/* leaves read since the last rescan */
	bool		more_left;		/* may pages to the left hold matches? */
	bool		more_right;
	FpbScanItem *items;
	int			nitems;
	int			cur;
	int			maxitems;

	/*
	 * Index-only scans whose row order no plan node uses: each batch
	 * grouped by heap blocks of vmgroup_blocks (scan_group.c), through a
	 * second array of maxitems2 entries.
	 */
	bool		vmgroup;
	int			vmgroup_blocks;
	FpbScanItem *items2;
	int			maxitems2;
	uint32		vmlast;			/* group of the row returned last */
	bool		vmhaslast;
	bool		vmlastfwd;		/* ... moving forward */
	List	   *vmrecheck;		/* the plan's recheck form of the keys */
	int			vmrecheck_state;	/* may it see any order: 1 yes, -1 no,
									 * 0 not asked yet */

	MemoryContext scancxt;		/* where the scan lives */
	MemoryContext tupcxt;		/* index-only scan tuples, made when needed */
	IndexTuple	valtup;			/* reusable index-only tuple (narrow by-value
								 * types: the datum is overwritten) */
	IndexTuple	nulltup;		/* index-only tuple of a NULL */
	FmgrInfo   *decproc;		/* index-only scans: decode, looked up once */
	char	   *valdata;		/* where valtup's datum lives */

	/*
	 * Multi-column indexes: the keys the interval does not express, checked
	 * on each entry's index tuple (scankeys_multi.c), in boundcxt.
	 */
	struct FpbFilter *filters;
	int			nfilters;

	/* parallel scans: the scan's interval; [lok, hik] is the run's */
	uint64		slok,
				slot,
				shik,
				shit;
	const char *slof,
			   *shif;
	BlockNumber runlast;		/* lowest leaf listed for a backward run */
	FpbFullBuf *runbufs;		/* wide: two pairs, for the bound values of
								 * the run and of the one claimed ahead */
	int			runpair;		/* the pair of the run being read */
	FpbScanRun *ahead;			/* the run claimed ahead, if hasahead */
	bool		hasahead;
	int			nruns;			/* runs this participant claimed */

	/*
	 * Scans with equality array keys: the disjoint key intervals they match,
	 * in index order; [lok, hik] is the one being read (see scankeys.c).
	 */
	FpbScanInterval *ivals;
	int			nivals;			/* 0: no array keys, [lok, hik] is all */
	int			ival;			/* the interval being read */
	bool		moved;			/* left the leaf of the last descent */
	MemoryContext arrcxt;		/* ivals and the arrays, reset by rescan */

	/*
	 * Entries reported dead (kill_prior_tuple): positions in items, marked
	 * on curblk when the scan leaves it (dead.c).  curlsn is the page's LSN
	 * when it was read, for scans that do not keep the pin.
	 */
	bool		skipdead;		/* skip entries marked dead */
	XLogRecPtr	curlsn;
	int		   *killed;
	int			nkilled;
	int			maxkilled;

	FpbPrefetcher pf;			/* leaf pages, through the jump pointers */
	FpbHeapPrefetcher hp;		/* heap blocks of upcoming TIDs */
	int			nodedist;		/* in-page leaf nodes prefetched ahead */
} FpbScanOpaqueData;

typedef FpbScanOpaqueData *FpbScanOpaque;

extern void fpb_scan_bounds(IndexScanDesc scan);
extern void fpb_scan_encode_col(IndexScanDesc scan, int col, Oid typid,
								Datum value, uint64 *lo, uint64 *hi);
extern Datum *fpb_array_elems(ScanKey sk, int *nelems);
extern bool fpb_scan_key_fits(IndexScanDesc scan, int col, ScanKey sk);
extern void fpb_scan_bounds_multi(IndexScanDesc scan);
extern bool fpb_scan_filters_late(FpbScanOpaque so);
extern bool fpb_scan_filter(FpbScanOpaque so, uint64 k, const char *f);

/* The scan's bounds as keys. */
static inline FpbEntry
fpb_scan_lo(FpbScanOpaque so)
{
	FpbEntry	e = fpb_mkkey(so->lok, so->lot);

	e.f = so->lof;
	return e;
}

static inline FpbEntry
fpb_scan_hi(FpbScanOpaque so)
{
	FpbEntry	e = fpb_mkkey(so->hik, so->hit);

	e.f = so->hif;
	return e;
}

/* Compare (k, t, f) with (bk, bt, bf) in the scan's index order. */
static inline int
fpb_scan_cmp(FpbScanOpaque so, uint64 k, uint64 t, const char *f,
			 uint64 bk, uint64 bt, const char *bf)
{
	if (so->cmp == NULL)
		return fpb_key_cmp(k, t, bk, bt);
	return fpb_wide_cmp(so->cmp, k, t, f, bk, bt, bf);
}

/* fpb_scan_cmp of an entry of page, whose value is read only if needed */
static inline int
fpb_scan_cmp_at(FpbScanOpaque so, Page page, BlockNumber blkno, uint64 k,
				uint64 t, uint64 bk, uint64 bt, const char *bf)
{
	if (so->cmp == NULL)
		return fpb_key_cmp(k, t, bk, bt);
	return fpb_wide_cmp_at(so->cmp, page, blkno, k, t, bk, bt, bf);
}

/*
 * A timestamp column against a timestamptz argument: the core converts each
 * column value, which is not monotonic across a daylight-saving gap, so the
 * values that satisfy the key need not be one key range.  The scan reads a
 * widened interval (fpb_ts_tstz_widen) and the executor rechecks the key.
 */
static inline bool
fpb_scan_key_gap(Relation index, int col, ScanKey sk)
{
	return sk->sk_subtype == TIMESTAMPTZOID &&
		index->rd_opcintype[col] == TIMESTAMPOID;
}

/*
 * The strategy a key's bounds are made for: a rechecked timestamptz key
 * on a timestamp column is read as its non-strict form, whose bounds the
 * widening moves outwards (the strict forms' "< v" uses the lower end as
 * an upper bound).
 */
static inline StrategyNumber
fpb_scan_strategy(Relation index, int col, ScanKey sk)
{
	if (fpb_scan_key_gap(index, col, sk))
	{
		if (sk->sk_strategy == BTLessStrategyNumber)
			return BTLessEqualStrategyNumber;
		if (sk->sk_strategy == BTGreaterStrategyNumber)
			return BTGreaterEqualStrategyNumber;
	}
	return sk->sk_strategy;
}

extern void fpb_scan_keep_interval(FpbScanOpaque so, FpbScanInterval *iv);
extern void fpb_scan_set_interval(FpbScanOpaque so, int i);
extern void fpb_scan_release(FpbScanOpaque so);
extern void fpb_scan_grow_items(FpbScanOpaque so, int n);
extern void fpb_scan_readpage(IndexScanDesc scan, Buffer buf, bool keep_pin);
extern bool fpb_scan_next(IndexScanDesc scan, ScanDirection dir,
						  bool gettuple);

/* scan_group.c */
extern void fpb_scan_group_note_last(FpbScanOpaque so);
extern void fpb_scan_group_recheck_ok(FpbScanOpaque so);
extern void fpb_scan_group_vm(FpbScanOpaque so);

/* rowbound.c */
extern int	fpb_rowbound_strategy(int strategy);
extern FpbRowBound *fpb_rowbound_make(IndexScanDesc scan, ScanKey sk);
extern bool fpb_rowbound_check(const FpbCmp *cmp, FpbRowBound *rb,
							   const char *whole);
extern bool fpb_rowbound_nulls(const char *f, int n);

/* markpos.c */
extern void fpb_mark_leave(FpbScanOpaque so);
extern void fpb_mark_forget(FpbScanOpaque so);
extern void fpb_mark_free(FpbScanOpaque so);

#endif							/* FPB_SCAN_H */
