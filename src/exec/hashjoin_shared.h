/*-------------------------------------------------------------------------
 *
 * hashjoin_shared.h
 *	  PrefetchHashJoin, parallel-aware: the state all participants share in
 *	  the node's DSM chunk, for the one-table build (hashjoin_shared.c) and
 *	  for shared batches (hashjoin_batches.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef FPB_HASHJOIN_SHARED_H
#define FPB_HASHJOIN_SHARED_H

#include "port/atomics.h"
#include "storage/barrier.h"
#include "storage/dsm.h"
#include "storage/sharedfileset.h"
#include "utils/dsa.h"

/* phases of the barrier with one table in memory */
#define FPB_SH_LOAD		0
#define FPB_SH_COUNT	1
#define FPB_SH_SCATTER	2
#define FPB_SH_BUILD	3
#define FPB_SH_PROBE	4
/* after LOAD, with shared batches */
#define FPB_SH_PARTITION	1
#define FPB_SH_BATCHES		2

/* at most 2^10 slices: enough claims for 64 participants, small counts */
#define FPB_SH_MAX_BITS		10
#define FPB_SH_MAX_SLICES	(1 << FPB_SH_MAX_BITS)

/*
 * Shared batches: at most this many (two open files of 12 kB each per
 * batch and participant while partitioning); a batch larger than a
 * participant's budget is split further in private files.
 */
#define FPB_SH_MAX_BATCHES	1024

typedef struct FpbShCount
{
	int64		ntuples;
	uint64		bytes;
} FpbShCount;

struct FpbHjShared
{
	Barrier		barrier;
	int			nparticipants;	/* slots in counts: workers + leader */
	pg_atomic_uint64 total_tuples;
	pg_atomic_uint64 total_bytes;
	pg_atomic_uint32 next_slice;	/* BUILD: next slice to claim */
	dsa_pointer region;			/* the table, from the DSA area */
	Size		region_size;

	/* shared batches (hashjoin_batches.c) */
	SharedFileSet fileset;		/* the batch files; set up once per segment */
	dsm_handle	seg;			/* the segment workers attach it to */
	int			node_nbatch;	/* the node's planned batches */
	int			plan_nbatch;	/* shared batches from the start, or 0 */
	int			grow_nbatch;	/* batches when LOAD overflows the budget */
	pg_atomic_uint32 nbatch;	/* 0 while the table is in memory */
	pg_atomic_uint32 next_batch;	/* next batch to claim */

	/*
	 * per participant, FPB_SH_MAX_SLICES slices each; then the heads of the
	 * batch files' chunk chains (fpb_hj_shared_heads)
	 */
	FpbShCount	counts[FLEXIBLE_ARRAY_MEMBER];
};

/*
 * The heads of participant p's chains of one side ('i' or 'o'): one per
 * batch, grow_nbatch of them (the most batches there can be).
 */
static inline int64 *
fpb_hj_shared_heads(FpbHjShared *sh, char side, int p)
{
	int64	   *heads = (int64 *) &sh->counts[(Size) sh->nparticipants *
											  FPB_SH_MAX_SLICES];

	return heads + ((Size) (side == 'i' ? 0 : 1) * sh->nparticipants + p) *
		sh->grow_nbatch;
}

#endif							/* FPB_HASHJOIN_SHARED_H */
