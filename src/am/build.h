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

/* CREATE INDEX progress: the build's phases (fpbbuildphasename) */
#define FPB_PHASE_SCAN		2
#define FPB_PHASE_SORT		3
#define FPB_PHASE_LOAD		4

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
	int64		limit;			/* entries to read from the file's current
								 * position (a slice), -1 for all */
	FpbKey	   *keys;			/* current batch */
	int64		n;
	int64		pos;
	int64		nread;
	FpbKey	   *scratch;		/* FPB_RUN_BATCH entries */
} FpbRun;

/* One level of the bottom-up load: the page being filled. */
typedef struct FpbLevel
{
	Buffer		buf;			/* pinned, pre-initialised page */
	BlockNumber blkno;
	BlockNumber leftblk;
	uint64		lowk;			/* lower bound = left sibling's high key */
	uint64		lowt;
	const char *lowf;			/* wide: its value */
	FpbEntry   *ents;
	int			n;
	int			cap;
	Size		bytes;			/* wide: bound of the entries' slot bytes */
	int			pcap;			/* entries of one key a leaf may take, as a
								 * posting page (posting.c); 0: none */
	int			nruns;			/* distinct keys among ents (leaves) */
	Size		hbytes;			/* wide: bound of the slot bytes of the
								 * runs' first values (posting.c) */
	int			rbytes;			/* bytes a page of runs may fill */
	int			fitper;			/* wide: fpb_build_fits' entries per leaf
								 * node (0: not yet known), */
	int			fitm;			/* leaf nodes + 1 it knows the room of */
	int			fitroom;		/* (fpb_page_slot_room) */
} FpbLevel;

/* pages a slice's loader adds to the index per extension-lock hold */
#define FPB_BUILD_CHUNK		32

/* the bottom-up load */
typedef struct FpbBuildState
{
	Relation	index;
	const FpbCmp *cmp;			/* wide indexes (build_wide.c), else NULL */
	FpbCmp		cmpdata;
	int			w;
	int			x;
	int			fillfactor;
	int			nlevels;
	int			baselevel;		/* lowest level built by this state: 1 when
								 * the leaves came from parallel slices */
	BlockNumber onlyleaf;		/* the root when the slices made one leaf */
	BlockNumber firstleaf;		/* the first leaf page added */
	FpbKey		first;			/* first and last entries loaded */
	FpbKey		last;
	/* loading one slice of the leaves (build_parallel.c) */
	BufFile    *downlinks;		/* the leaves' downlinks go here, not up */
	int64		pagesleft;		/* pages the slice still has to add */
	int			nchunk;
	int			chunkpos;
	Buffer		chunk[FPB_BUILD_CHUNK];
	BlockNumber *runstart;		/* the slice's runs of consecutive blocks */
	int		   *runlen;
	int			nruns;
	int			maxruns;
	/* what the leader of a parallel build WAL-logs itself (the rest is) */
	BlockNumber upperstart;		/* first block after the leaves */
	BlockNumber *tolog;			/* slices' first and last leaves */
	int			ntolog;
	FpbLevel	levels[32];
} FpbBuildState;

/* build.c */
extern void fpb_build_widths(Relation index, int *w, int *x, int *ff);
extern void fpb_build_progress(int phase, double ntuples);
extern void fpb_build_initlevel(FpbBuildState *bs, int level);
extern void fpb_build_add(FpbBuildState *bs, int level, const FpbEntry *e);
extern FpbEntry fpb_build_downlink(const FpbLevel *lv);
extern void fpb_build_writepage(FpbBuildState *bs, FpbLevel *lv,
								BlockNumber right, const FpbEntry *hikey);
extern BlockNumber fpb_build_finish(FpbBuildState *bs, uint32 *rootlevel);
extern int64 fpb_build_load(FpbBuildState *bs, FpbRun *runs, int nruns);
extern void fpb_build_log(Relation index, BlockNumber start, BlockNumber end,
						  BlockNumber skip1, BlockNumber skip2);
extern void fpb_spool_init(FpbSpool *sp, Relation index, int workmem);
extern void fpb_spool_callback(Relation index, ItemPointer tid,
							   Datum *values, bool *isnull,
							   bool tupleIsAlive, void *state);
extern void fpb_spool_sort(FpbSpool *sp);
extern int64 fpb_spool_batch(FpbSpool *sp, FpbKey **out, FpbKey *scratch,
							 int max);
extern void fpb_spool_end(FpbSpool *sp);

/* build_wide.c */
extern Size fpb_build_slot_bound(const FpbCmp *cmp, const char *f);
extern bool fpb_build_fits(const FpbBuildState *bs, FpbLevel *lv,
						   int n, Size bytes, bool room);

/* build_parallel.c */
typedef struct FpbParallel FpbParallel;

extern int64 fpb_build_wide(FpbBuildState *bs, Relation heap,
							IndexInfo *indexInfo, FpbParallel *fp,
							double *reltuples, double *indtuples);
extern double fpb_wide_participate(Relation heap, Relation index,
								   IndexInfo *indexInfo, TableScanDesc scan,
								   Sharedsort *sharedsort, int workmem,
								   bool progress, double *indtuples);

extern FpbParallel *fpb_parallel_begin(Relation heap, Relation index,
									   IndexInfo *indexInfo, int nworkers,
									   bool wide);
extern double fpb_parallel_scan(FpbParallel *fp, Relation heap,
								Relation index, IndexInfo *indexInfo,
								double *indtuples);
extern int64 fpb_parallel_load(FpbParallel *fp, FpbBuildState *bs);
extern void fpb_parallel_end(FpbParallel *fp);
extern SortCoordinate fpb_parallel_coordinate(FpbParallel *fp);

/* build_cut.c */
/* Random access to a sorted run file, one block cached. */
typedef struct FpbRunReader
{
	BufFile    *file;
	int			run;
	int64		n;
	long		blk;
	FpbKey		buf[BLCKSZ / sizeof(FpbKey)];
} FpbRunReader;

extern void fpb_cut(FpbRunReader *rr, int nrr, int64 total, int64 want,
					int64 *pos);

#endif							/* FPB_BUILD_H */
