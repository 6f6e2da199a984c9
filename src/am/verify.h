/*-------------------------------------------------------------------------
 *
 * verify.h
 *	  The state of one fpbtree_check() call, shared by verify.c (the walk
 *	  of the levels) and verify_heap.c (heapallindexed).
 *
 *-------------------------------------------------------------------------
 */
#ifndef FPB_VERIFY_H
#define FPB_VERIFY_H

#include "fpbtree.h"
#include "utils/snapshot.h"

/* State of one fpbtree_check() call */
typedef struct FpbCheckState
{
	Relation	index;
	Relation	heap;
	BlockNumber nblocks;		/* relation size; fixed under our locks */
	FpbMetaPageData meta;
	uint8	   *reached;		/* bitmap: block reached by the walk */
	BlockNumber nreached;
	MemoryContext pagecxt;		/* reset for every page */
	Page		page;			/* private copy of the page being checked */
	Page		page2;			/* another, for re-reading a sibling */

	/*
	 * Relaxed: the tree may change while we walk it (on a hot standby, where
	 * ShareLock cannot be had and WAL replay goes on), so only invariants
	 * that survive concurrent splits are checked.
	 */
	bool		relaxed;

	/* heapallindexed: leaf keys in key order, and the encode procedure */
	bool		heapallindexed;
	FpbKey	   *leafkeys;
	int64		nleafkeys;
	int64		maxleafkeys;
	FmgrInfo   *encproc;
	const FpbCmp *cmp;			/* wide indexes: their comparison */
	int64		heaptuples;
} FpbCheckState;

extern Snapshot fpb_check_snapshot(FpbCheckState *st);
extern void fpb_check_heapallindexed(FpbCheckState *st, Snapshot snapshot);

#endif							/* FPB_VERIFY_H */
