/*-------------------------------------------------------------------------
 *
 * build.h
 *	  CREATE INDEX internals shared by build.c (collection, sort, merge,
 *	  bottom-up load) and build_parallel.c (workers, run files).
 *
 *-------------------------------------------------------------------------
 */
#ifndef FPB_BUILD_H
#define FPB_BUILD_H

#include "access/relscan.h"
#include "executor/tuptable.h"
#include "nodes/execnodes.h"
#include "fpbtree.h"
#include "storage/buffile.h"
#include "utils/tuplesort.h"

/* entries a run hands to the merge at a time (also the run-file batch) */
#define FPB_RUN_BATCH		1024

/*
 * One participant's entries: in memory (radix-sorted) while they fit in
 * workmem, in a tuplesort (which spills) after that.
 */
typedef struct FpbSpool
{
	FmgrInfo   *encproc;
	int			workmem;		/* kB */
	Tuplesortstate *sort;		/* NULL while the entries fit in memory */
	TupleDesc	sortdesc;
	TupleTableSlot *slot;
	FpbKey	   *mem;			/* in-memory entries, radix-sorted later */
	int64		nmem;
	int64		maxmem;
	int64		readpos;		/* next in-memory entry to hand out */
	double		indtuples;
} FpbSpool;

/* A sorted run being merged: a spool of this process or a worker's file. */
typedef struct FpbRun
{
	FpbSpool   *spool;
	BufFile    *file;
	int			participant;	/* for error messages */
	int64		expect;			/* entries in the file, -1 for a spool */
	FpbKey	   *keys;			/* current batch */
	int64		n;
	int64		pos;
	int64		nread;
	FpbKey	   *scratch;		/* FPB_RUN_BATCH entries */
} FpbRun;

/* build.c */
extern void fpb_spool_init(FpbSpool *sp, Relation index, int workmem);
extern void fpb_spool_callback(Relation index, ItemPointer tid,
							   Datum *values, bool *isnull,
							   bool tupleIsAlive, void *state);
extern void fpb_spool_sort(FpbSpool *sp);
extern int64 fpb_spool_batch(FpbSpool *sp, FpbKey **out, FpbKey *scratch,
							 int max);
extern void fpb_spool_end(FpbSpool *sp);

/* build_parallel.c */
typedef struct FpbParallel FpbParallel;

extern FpbParallel *fpb_parallel_begin(Relation heap, Relation index,
									   IndexInfo *indexInfo, int nworkers);
extern double fpb_parallel_scan(FpbParallel *fp, Relation heap,
								Relation index, IndexInfo *indexInfo,
								double *indtuples, FpbRun **runs,
								int *nruns);
extern void fpb_parallel_end(FpbParallel *fp);

#endif							/* FPB_BUILD_H */
