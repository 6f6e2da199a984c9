/*-------------------------------------------------------------------------
 *
 * scan.h
 *	  The state of an fpbtree index scan, shared by scan.c (reading leaves)
 *	  and scankeys.c (turning scan keys into key intervals).
 *
 *-------------------------------------------------------------------------
 */
#ifndef FPB_SCAN_H
#define FPB_SCAN_H

#include "access/genam.h"
#include "fpbtree.h"

typedef struct FpbScanOpaqueData
{
	bool		empty;			/* the keys can match nothing */
	bool		noscan;			/* ... because an array key has no element */
	bool		recheck;		/* the executor must recheck the keys */
	uint64		lok,
				lot,
				hik,
				hit;			/* inclusive bounds */

	bool		started;
	BlockNumber curblk;			/* page the batch came from */
	bool		keep_pin;		/* hold a pin on curblk while returning it */
	Buffer		pinbuf;			/* pin on curblk, or InvalidBuffer */
	BlockNumber leftblk;		/* its links when it was read */
	BlockNumber rightblk;
	uint64		curhik;			/* and its high key, unless rightmost */
	uint64		curhit;
	bool		more_left;		/* may pages to the left hold matches? */
	bool		more_right;
	FpbScanItem *items;
	int			nitems;
	int			cur;
	int			maxitems;

	/* encode procedure for a cross-type scan argument, cached */
	Oid			xtype;
	FmgrInfo	xproc;
	bool		xbound;			/* xproc is support function 3 */
	MemoryContext scancxt;		/* where the scan lives */
	MemoryContext tupcxt;		/* index-only scan tuples, made when needed */
	IndexTuple	valtup;			/* reusable index-only tuples (by-value */
	IndexTuple	nulltup;		/* types: the datum is overwritten) */
	FmgrInfo   *decproc;		/* index-only scans: decode, looked up once */
	char	   *valdata;		/* where valtup's datum lives */

	/* parallel scans: the scan's interval; [lok, hik] is the run's */
	uint64		slok,
				slot,
				shik,
				shit;
	BlockNumber runlast;		/* lowest leaf listed for a backward run */

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

#endif							/* FPB_SCAN_H */
