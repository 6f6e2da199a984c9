/*-------------------------------------------------------------------------
 *
 * build_parallel.c
 *	  Parallel CREATE INDEX.  PostgreSQL 15 plans build workers for btree
 *	  only, so fpbtree launches its own, as nbtree does: the participants
 *	  (the workers, and the leader unless parallel_leader_participation is
 *	  off) scan shares of the table through one parallel heap scan, and each
 *	  sorts its own entries in maintenance_work_mem / participants and
 *	  writes them to a run file of a SharedFileSet.  The leader then cuts
 *	  the key space into slices whose sizes are whole leaves, and the
 *	  participants load the slices' leaves at once, each slice merged from
 *	  its part of every run; the leader links the slices' leaves together
 *	  and builds the levels above them (see README, "Parallel build").
 *	  A wide index's participants sort into one shared tuplesort instead
 *	  (build_wide.c), which the leader merges and loads alone.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>

#include "access/parallel.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "build.h"
#include "catalog/index.h"
#include "commands/progress.h"
#include "executor/instrument.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "pgstat.h"
#include "storage/condition_variable.h"
#include "storage/lmgr.h"
#include "storage/sharedfileset.h"
#include "storage/spin.h"
#include "tcop/tcopprot.h"
#include "utils/snapmgr.h"

#define FPB_KEY_SHARED		UINT64CONST(0xFB00000000000001)
#define FPB_KEY_TABLESCAN	UINT64CONST(0xFB00000000000002)
#define FPB_KEY_FILESET		UINT64CONST(0xFB00000000000003)
#define FPB_KEY_QUERY_TEXT	UINT64CONST(0xFB00000000000004)
#define FPB_KEY_WAL_USAGE	UINT64CONST(0xFB00000000000005)
#define FPB_KEY_BUFFER_USAGE UINT64CONST(0xFB00000000000006)
#define FPB_KEY_SLICES		UINT64CONST(0xFB00000000000007)
#define FPB_KEY_SHAREDSORT	UINT64CONST(0xFB00000000000008)

/* slices per participant: a few, so that a slow participant holds no one up */
#define FPB_SLICES_PER_PARTICIPANT	2

/* Shared state of a parallel build, in the DSM segment. */
typedef struct FpbShared
{
	/* set by the leader before the launch */
	Oid			heaprelid;
	Oid			indexrelid;
	bool		isconcurrent;
	bool		wide;			/* participants sort into the shared sort
								 * (build_wide.c), which the leader merges
								 * and loads */
	bool		needwal;		/* as the leader sees it: a worker cannot
								 * tell the index was made in this
								 * transaction (wal_level = minimal) */
	int			workmem;		/* kB per participant */
	int			nworkers;		/* planned; run nworkers is the leader's */

	ConditionVariable cv;		/* runs written, slices published, loaded */

	/* what the participants report when they are done */
	slock_t		mutex;
	int			ndone;			/* runs written */
	double		reltuples;
	double		indtuples;
	bool		brokenhotchain;
	int64		maxdup;			/* longest run of one key in a run file */
	int64		ndup;			/* entries equal to the one before them in
								 * their run file, all run files together */

	/* the load, set up by the leader once every run is written */
	bool		loading;
	int			nslices;
	int			nextslice;		/* next slice to claim */
	int			nslicesdone;
	int64		loaded;
	int64		nentries[FLEXIBLE_ARRAY_MEMBER];	/* per run file, -1 until
													 * written */
} FpbShared;

/* What the participant that loaded a slice reports. */
typedef struct FpbSliceResult
{
	int64		nentries;
	int64		nleaves;
	FpbKey		first;			/* its first and last entries */
	FpbKey		last;
	BlockNumber firstblk;		/* its first and last leaves */
	BlockNumber lastblk;
} FpbSliceResult;

/*
 * The slices: slice s is entries [pos[s][r], pos[s + 1][r]) of every run r,
 * runs numbered as FpbShared.nentries.  Sized for the planned participants;
 * this is a process's view of the segment's chunk.
 */
typedef struct FpbSlices
{
	int			nruns;			/* nworkers + 1 */
	int			maxslices;
	int64	   *pos;			/* (maxslices + 1) x nruns */
	FpbSliceResult *results;	/* maxslices */
} FpbSlices;

struct FpbParallel
{
	ParallelContext *pcxt;
	FpbShared  *shared;
	ParallelTableScanDesc pscan;
	SharedFileSet *fileset;
	Sharedsort *sharedsort;		/* wide indexes */
	SortCoordinateData coord;
	FpbSlices	slices;
	Snapshot	snapshot;
	WalUsage   *walusage;
	BufferUsage *bufferusage;
	bool		leaderparticipates;
};

PGDLLEXPORT void fpb_parallel_build_main(dsm_segment *seg, shm_toc *toc);

static void
fpb_run_name(char *name, int worker)
{
	snprintf(name, MAXPGPATH, "fpbrun.%d", worker);
}

/*
 * One participant's share: scan the blocks the parallel scan hands out,
 * sort the entries and write them to the participant's run file (run
 * `run`: a worker's number, nworkers for the leader).
 */
static void
fpb_participate(FpbShared *shared, ParallelTableScanDesc pscan,
				SharedFileSet *fileset, Sharedsort *sharedsort,
				Relation heap, Relation index, FpbSpool *sp, int run,
				bool progress)
{
	IndexInfo  *indexInfo;
	TableScanDesc scan;
	double		reltuples;
	int64		written = 0;
	char		name[MAXPGPATH];
	BufFile    *file;
	FpbKey	   *scratch = palloc(sizeof(FpbKey) * FPB_RUN_BATCH);
	FpbKey	   *keys;
	int64		n;
	uint64		prevk = 0;
	int64		dup = 0;
	int64		maxdup = 0;
	int64		ndup = 0;

	indexInfo = BuildIndexInfo(index);
	indexInfo->ii_Concurrent = shared->isconcurrent;
	scan = table_beginscan_parallel(heap, pscan);
	if (shared->wide)
	{
		double		indtuples = 0;

		reltuples = fpb_wide_participate(heap, index, indexInfo, scan,
										 sharedsort, shared->workmem,
										 progress, &indtuples);
		pfree(scratch);
		SpinLockAcquire(&shared->mutex);
		shared->ndone++;
		shared->reltuples += reltuples;
		shared->indtuples += indtuples;
		if (indexInfo->ii_BrokenHotChain)
			shared->brokenhotchain = true;
		shared->nentries[run] = (int64) indtuples;
		SpinLockRelease(&shared->mutex);
		ConditionVariableBroadcast(&shared->cv);
		return;
	}
	reltuples = table_index_build_scan(heap, index, indexInfo, true, progress,
									   fpb_spool_callback, sp, scan);
	/* the target comes with the load, once every participant's is known */
	if (progress)
		fpb_build_progress(FPB_PHASE_SORT, 0);
	fpb_spool_sort(sp);

	fpb_run_name(name, run);
	file = BufFileCreateFileSet(&fileset->fs, name);
	while ((n = fpb_spool_batch(sp, &keys, scratch, FPB_RUN_BATCH)) > 0)
	{
		/* the longest run of one key (see fpb_parallel_load) */
		for (int64 i = 0; i < n; i++)
		{
			dup = (dup > 0 && keys[i].k == prevk) ? dup + 1 : 1;
			prevk = keys[i].k;
			maxdup = Max(maxdup, dup);
			ndup += dup > 1;
		}
		BufFileWrite(file, keys, sizeof(FpbKey) * n);
		written += n;
		CHECK_FOR_INTERRUPTS();
	}
	BufFileClose(file);
	pfree(scratch);

	SpinLockAcquire(&shared->mutex);
	shared->ndone++;
	shared->reltuples += reltuples;
	shared->indtuples += sp->indtuples;
	if (indexInfo->ii_BrokenHotChain)
		shared->brokenhotchain = true;
	shared->nentries[run] = written;
	shared->maxdup = Max(shared->maxdup, maxdup);
	shared->ndup += ndup;
	SpinLockRelease(&shared->mutex);
	ConditionVariableBroadcast(&shared->cv);
}

/* This process's view of the slices chunk of the segment. */
static void
fpb_slices_view(FpbSlices *sl, void *chunk, int nworkers)
{
	sl->nruns = nworkers + 1;
	sl->maxslices = sl->nruns * FPB_SLICES_PER_PARTICIPANT;
	sl->results = (FpbSliceResult *) chunk;
	sl->pos = (int64 *) ((char *) chunk +
						 MAXALIGN(sizeof(FpbSliceResult) * sl->maxslices));
}

static Size
fpb_slices_size(int nworkers)
{
	int			nruns = nworkers + 1;
	int			maxslices = nruns * FPB_SLICES_PER_PARTICIPANT;

	return add_size(MAXALIGN(mul_size(sizeof(FpbSliceResult), maxslices)),
					mul_size(sizeof(int64), mul_size(maxslices + 1, nruns)));
}

#define FPB_SLICE_POS(sl, s, r)	((sl)->pos[(int64) (s) * (sl)->nruns + (r)])

/*
 * Set up the shared state and launch the workers.  NULL (build serially)
 * when no DSM segment or no worker could be had.
 */
FpbParallel *
fpb_parallel_begin(Relation heap, Relation index, IndexInfo *indexInfo,
				   int nworkers, bool wide)
{
	FpbParallel *fp = palloc0(sizeof(FpbParallel));
	ParallelContext *pcxt;
	Size		estshared;
	Size		estscan;
	int			querylen = 0;
	FpbShared  *shared;
	char	   *query;

	fp->leaderparticipates = parallel_leader_participation;

	EnterParallelMode();
	pcxt = CreateParallelContext("fpbtree", "fpb_parallel_build_main",
								 nworkers);

	/*
	 * CREATE INDEX CONCURRENTLY indexes what an MVCC snapshot sees; a plain
	 * build indexes every tuple not yet dead to everyone (SnapshotAny and
	 * the table AM's visibility checks), as the serial scan does.
	 */
	if (indexInfo->ii_Concurrent)
		fp->snapshot = RegisterSnapshot(GetTransactionSnapshot());
	else
		fp->snapshot = SnapshotAny;

	estshared = add_size(offsetof(FpbShared, nentries),
						 mul_size(sizeof(int64), nworkers + 1));
	estscan = table_parallelscan_estimate(heap, fp->snapshot);
	shm_toc_estimate_chunk(&pcxt->estimator, estshared);
	shm_toc_estimate_chunk(&pcxt->estimator, estscan);
	shm_toc_estimate_chunk(&pcxt->estimator, sizeof(SharedFileSet));
	shm_toc_estimate_chunk(&pcxt->estimator,
						   mul_size(sizeof(WalUsage), pcxt->nworkers));
	shm_toc_estimate_chunk(&pcxt->estimator,
						   mul_size(sizeof(BufferUsage), pcxt->nworkers));
	shm_toc_estimate_chunk(&pcxt->estimator, fpb_slices_size(nworkers));
	shm_toc_estimate_keys(&pcxt->estimator, 6);
	if (wide)
	{
		shm_toc_estimate_chunk(&pcxt->estimator,
							   tuplesort_estimate_shared(nworkers + 1));
		shm_toc_estimate_keys(&pcxt->estimator, 1);
	}
	if (debug_query_string)
	{
		querylen = strlen(debug_query_string);
		shm_toc_estimate_chunk(&pcxt->estimator, querylen + 1);
		shm_toc_estimate_keys(&pcxt->estimator, 1);
	}

	InitializeParallelDSM(pcxt);
	if (pcxt->seg == NULL)
	{
		if (IsMVCCSnapshot(fp->snapshot))
			UnregisterSnapshot(fp->snapshot);
		DestroyParallelContext(pcxt);
		ExitParallelMode();
		pfree(fp);
		return NULL;
	}

	shared = shm_toc_allocate(pcxt->toc, estshared);
	shared->heaprelid = RelationGetRelid(heap);
	shared->indexrelid = RelationGetRelid(index);
	shared->isconcurrent = indexInfo->ii_Concurrent;
	shared->wide = wide;
	shared->needwal = RelationNeedsWAL(index);
	shared->nworkers = nworkers;
	shared->workmem = maintenance_work_mem /
		(nworkers + (fp->leaderparticipates ? 1 : 0));
	SpinLockInit(&shared->mutex);
	shared->ndone = 0;
	shared->reltuples = 0;
	shared->indtuples = 0;
	shared->brokenhotchain = false;
	ConditionVariableInit(&shared->cv);
	shared->loading = false;
	shared->nslices = 0;
	shared->maxdup = 0;
	shared->ndup = 0;
	shared->nextslice = 0;
	shared->nslicesdone = 0;
	shared->loaded = 0;
	for (int i = 0; i <= nworkers; i++)
		shared->nentries[i] = -1;
	shm_toc_insert(pcxt->toc, FPB_KEY_SHARED, shared);

	{
		void	   *chunk = shm_toc_allocate(pcxt->toc,
											 fpb_slices_size(nworkers));

		fpb_slices_view(&fp->slices, chunk, nworkers);
		shm_toc_insert(pcxt->toc, FPB_KEY_SLICES, chunk);
	}

	fp->pscan = shm_toc_allocate(pcxt->toc, estscan);
	table_parallelscan_initialize(heap, fp->pscan, fp->snapshot);

	/*
	 * Start at block 0, as the serial build does: participants then get
	 * their blocks in ascending order, so each one's equal keys arrive in
	 * TID order and the radix sort's final pass has nothing to re-sort.  A
	 * synchronised scan could start mid-table and wrap around.
	 */
	fp->pscan->phs_syncscan = false;
	shm_toc_insert(pcxt->toc, FPB_KEY_TABLESCAN, fp->pscan);

	fp->fileset = shm_toc_allocate(pcxt->toc, sizeof(SharedFileSet));
	SharedFileSetInit(fp->fileset, pcxt->seg);
	shm_toc_insert(pcxt->toc, FPB_KEY_FILESET, fp->fileset);

	if (wide)
	{
		/* participants: the workers and perhaps the leader */
		fp->sharedsort = shm_toc_allocate(pcxt->toc,
										  tuplesort_estimate_shared(nworkers + 1));
		tuplesort_initialize_shared(fp->sharedsort, nworkers + 1, pcxt->seg);
		shm_toc_insert(pcxt->toc, FPB_KEY_SHAREDSORT, fp->sharedsort);
	}

	fp->walusage = shm_toc_allocate(pcxt->toc,
									mul_size(sizeof(WalUsage), pcxt->nworkers));
	shm_toc_insert(pcxt->toc, FPB_KEY_WAL_USAGE, fp->walusage);
	fp->bufferusage = shm_toc_allocate(pcxt->toc,
									   mul_size(sizeof(BufferUsage),
												pcxt->nworkers));
	shm_toc_insert(pcxt->toc, FPB_KEY_BUFFER_USAGE, fp->bufferusage);

	if (debug_query_string)
	{
		query = shm_toc_allocate(pcxt->toc, querylen + 1);
		memcpy(query, debug_query_string, querylen + 1);
		shm_toc_insert(pcxt->toc, FPB_KEY_QUERY_TEXT, query);
	}

	LaunchParallelWorkers(pcxt);
	fp->pcxt = pcxt;
	fp->shared = shared;

	/* no worker started: the leader builds alone, with all the memory */
	if (pcxt->nworkers_launched == 0)
	{
		fpb_parallel_end(fp);
		return NULL;
	}
	ereport(DEBUG1,
			(errmsg_internal("fpbtree: parallel build, workers launched: %d",
							 pcxt->nworkers_launched)));
	return fp;
}

/* participants: the launched workers and the leader unless it only leads */
static int
fpb_nparticipants(FpbParallel *fp)
{
	return fp->pcxt->nworkers_launched + (fp->leaderparticipates ? 1 : 0);
}

/*
 * The leader's part of the scan: take a share of it (unless it does not
 * participate) and wait until every participant has written its sorted
 * run.  Returns the heap tuples the participants saw; *indtuples the
 * entries they collected.
 */
double
fpb_parallel_scan(FpbParallel *fp, Relation heap, Relation index,
				  IndexInfo *indexInfo, double *indtuples)
{
	FpbShared  *shared = fp->shared;
	int			nparticipants = fpb_nparticipants(fp);

	if (fp->leaderparticipates && shared->wide)
		fpb_participate(shared, fp->pscan, fp->fileset, fp->sharedsort,
						heap, index, NULL, shared->nworkers, true);
	else if (fp->leaderparticipates)
	{
		FpbSpool	sp;

		fpb_spool_init(&sp, index, shared->workmem);
		fpb_participate(shared, fp->pscan, fp->fileset, NULL, heap, index,
						&sp, shared->nworkers, true);
		fpb_spool_end(&sp);
	}

	/*
	 * Wait on the condition variable, not for the workers to exit: they
	 * load slices next.  A worker's error reaches us as an interrupt; one
	 * that failed to start is found by WaitForParallelWorkersToAttach.
	 */
	WaitForParallelWorkersToAttach(fp->pcxt);
	ConditionVariablePrepareToSleep(&shared->cv);
	for (;;)
	{
		int			ndone;

		SpinLockAcquire(&shared->mutex);
		ndone = shared->ndone;
		SpinLockRelease(&shared->mutex);
		if (ndone >= nparticipants)
			break;
		ConditionVariableSleep(&shared->cv,
							   WAIT_EVENT_PARALLEL_CREATE_INDEX_SCAN);
	}
	ConditionVariableCancelSleep();

	if (shared->brokenhotchain)
		indexInfo->ii_BrokenHotChain = true;
	*indtuples = shared->indtuples;
	return shared->reltuples;
}

/*
 * Cut the runs into slices of whole leaves: every slice but the last holds
 * a multiple of a leaf page's capacity, so the participants fill exactly
 * the leaves a serial load would, and the tree comes out the same.
 */
static int
fpb_make_slices(FpbParallel *fp, FpbBuildState *bs)
{
	FpbShared  *shared = fp->shared;
	FpbSlices  *sl = &fp->slices;
	int			nslices = Min(fpb_nparticipants(fp) * FPB_SLICES_PER_PARTICIPANT,
							  sl->maxslices);
	int64		cap = fpb_page_capacity(bs->w, bs->x, false,
										bs->fillfactor / 100.0);
	int64		total = 0;
	int64		leaves;
	FpbRunReader *rr = palloc0(sizeof(FpbRunReader) * sl->nruns);
	int64	   *pos = palloc(sizeof(int64) * sl->nruns);

	for (int r = 0; r < sl->nruns; r++)
	{
		rr[r].run = r;
		rr[r].blk = -1;
		rr[r].n = Max(shared->nentries[r], 0);
		if (rr[r].n > 0)
		{
			char		name[MAXPGPATH];

			fpb_run_name(name, r);
			rr[r].file = BufFileOpenFileSet(&fp->fileset->fs, name, O_RDONLY,
											false);
		}
		total += rr[r].n;
	}
	leaves = (total + cap - 1) / cap;
	for (int r = 0; r < sl->nruns; r++)
		FPB_SLICE_POS(sl, 0, r) = 0;
	for (int s = 1; s <= nslices; s++)
	{
		/* whole leaves, as evenly as they go */
		int64		want = Min(total, (leaves * s / nslices) * cap);

		fpb_cut(rr, sl->nruns, total, want, pos);
		for (int r = 0; r < sl->nruns; r++)
			FPB_SLICE_POS(sl, s, r) = pos[r];
	}
	for (int r = 0; r < sl->nruns; r++)
		if (rr[r].file)
			BufFileClose(rr[r].file);
	pfree(rr);
	pfree(pos);
	return nslices;
}

/*
 * Load slice s: merge its part of every run into leaf pages, and write
 * their downlinks to the slice's file for the leader.
 */
static void
fpb_load_slice(FpbShared *shared, FpbSlices *sl, SharedFileSet *fileset,
			   Relation index, int s)
{
	FpbSliceResult *res = &sl->results[s];
	FpbBuildState bs;
	FpbRun	   *runs = palloc0(sizeof(FpbRun) * sl->nruns);
	int			nruns = 0;
	int64		total = 0;
	int64		cap;
	int64		loaded;
	char		name[MAXPGPATH];
	FpbLevel   *lv;
	FpbEntry	down;

	memset(&bs, 0, sizeof(bs));
	bs.index = index;
	bs.onlyleaf = InvalidBlockNumber;
	fpb_build_widths(index, &bs.w, &bs.x, &bs.fillfactor);
	cap = fpb_page_capacity(bs.w, bs.x, false, bs.fillfactor / 100.0);

	for (int r = 0; r < sl->nruns; r++)
	{
		int64		from = FPB_SLICE_POS(sl, s, r);
		int64		n = FPB_SLICE_POS(sl, s + 1, r) - from;
		int64		off = from * sizeof(FpbKey);
		FpbRun	   *run = &runs[nruns];

		if (n <= 0)
			continue;
		fpb_run_name(name, r);
		run->file = BufFileOpenFileSet(&fileset->fs, name, O_RDONLY, false);
		run->participant = r;
		run->expect = -1;
		run->limit = n;
		/* a block holds whole entries: seek to its start, skip the rest */
		if (BufFileSeekBlock(run->file, (long) (off / BLCKSZ)) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("fpbtree: could not seek in sorted run %d of the build",
							r)));
		if (off % BLCKSZ != 0)
		{
			char		skip[BLCKSZ];

			if (BufFileRead(run->file, skip, off % BLCKSZ) != off % BLCKSZ)
				ereport(ERROR,
						(errcode_for_file_access(),
						 errmsg("fpbtree: could not read sorted run %d of the build",
								r)));
		}
		total += n;
		nruns++;
	}

	memset(res, 0, sizeof(FpbSliceResult));
	res->firstblk = res->lastblk = InvalidBlockNumber;
	if (total == 0)
	{
		pfree(runs);
		return;
	}

	snprintf(name, MAXPGPATH, "fpbdown.%d", s);
	bs.downlinks = BufFileCreateFileSet(&fileset->fs, name);
	bs.pagesleft = (total + cap - 1) / cap;
	res->nleaves = bs.pagesleft;
	loaded = fpb_build_load(&bs, runs, nruns);

	/* the slice's last leaf: the leader gives it its right link and high key */
	lv = &bs.levels[0];
	down = fpb_build_downlink(lv);
	res->lastblk = lv->blkno;
	fpb_build_writepage(&bs, lv, InvalidBlockNumber, NULL);
	BufFileWrite(bs.downlinks, &down, sizeof(FpbEntry));
	BufFileClose(bs.downlinks);
	if (loaded != total || bs.pagesleft != 0 || bs.chunkpos != bs.nchunk)
		elog(ERROR, "fpbtree: build slice %d loaded %lld of %lld entries",
			 s, (long long) loaded, (long long) total);

	res->nentries = loaded;
	res->firstblk = bs.firstleaf;
	res->first = bs.first;
	res->last = bs.last;

	/*
	 * Log the leaves now, all participants at once, but the first and the
	 * last, which the leader changes when it links the slices.
	 */
	if (shared->needwal)
		for (int i = 0; i < bs.nruns; i++)
			fpb_build_log(index, bs.runstart[i],
						  bs.runstart[i] + bs.runlen[i],
						  res->firstblk, res->lastblk);
	pfree(lv->ents);
	pfree(runs);
}

/* Wait for the leader's slices, then load slices until none is left. */
static void
fpb_load_slices(FpbShared *shared, FpbSlices *sl, SharedFileSet *fileset,
				Relation index)
{
	ConditionVariablePrepareToSleep(&shared->cv);
	for (;;)
	{
		bool		loading;

		SpinLockAcquire(&shared->mutex);
		loading = shared->loading;
		SpinLockRelease(&shared->mutex);
		if (loading)
			break;
		ConditionVariableSleep(&shared->cv,
							   WAIT_EVENT_PARALLEL_CREATE_INDEX_SCAN);
	}
	ConditionVariableCancelSleep();

	for (;;)
	{
		int			s;

		SpinLockAcquire(&shared->mutex);
		s = shared->nextslice < shared->nslices ? shared->nextslice++ : -1;
		SpinLockRelease(&shared->mutex);
		if (s < 0)
			break;
		fpb_load_slice(shared, sl, fileset, index, s);
		SpinLockAcquire(&shared->mutex);
		shared->nslicesdone++;
		shared->loaded += sl->results[s].nentries;
		SpinLockRelease(&shared->mutex);
		ConditionVariableBroadcast(&shared->cv);
	}
}

/* Give a leaf page its right link and high key, or its left link. */
static void
fpb_link_leaf(Relation index, BlockNumber blk, BlockNumber left,
			  BlockNumber right, const FpbEntry *hikey)
{
	Buffer		buf = ReadBuffer(index, blk);
	FpbPageOpaque opq;

	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	opq = FpbPageGetOpaque(BufferGetPage(buf));
	if (BlockNumberIsValid(left))
		opq->left = left;
	if (BlockNumberIsValid(right))
	{
		opq->right = right;
		fpb_page_set_hikey(BufferGetPage(buf), hikey);
	}
	MarkBufferDirty(buf);
	UnlockReleaseBuffer(buf);
}

/*
 * The load of a parallel build: cut the runs into slices, let the
 * participants load them, then link the slices' leaves and feed their
 * downlinks to bs, which builds the levels above (fpb_build_finish closes
 * them).  Returns the entries loaded.
 */
/*
 * The load of a build whose entries hold a run of one key longer than a
 * leaf: the serial load, by the leader, of the merged runs.  Such a run
 * may become posting pages (posting.c), whose leaves hold more entries than
 * a regular leaf, so the slices, cut at multiples of the regular capacity,
 * would not make the serial load's leaves.  The workers find no slice and
 * end.
 */
static int64
fpb_parallel_load_serial(FpbParallel *fp, FpbBuildState *bs)
{
	FpbShared  *shared = fp->shared;
	FpbSlices  *sl = &fp->slices;
	FpbRun	   *runs = palloc0(sizeof(FpbRun) * sl->nruns);
	int			nruns = 0;
	int64		loaded;

	SpinLockAcquire(&shared->mutex);
	shared->nslices = 0;
	shared->loading = true;
	SpinLockRelease(&shared->mutex);
	ConditionVariableBroadcast(&shared->cv);
	WaitForParallelWorkersToFinish(fp->pcxt);
	for (int i = 0; i < fp->pcxt->nworkers_launched; i++)
		InstrAccumParallelQuery(&fp->bufferusage[i], &fp->walusage[i]);

	for (int r = 0; r < sl->nruns; r++)
	{
		int64		n = Max(shared->nentries[r], 0);
		char		name[MAXPGPATH];

		if (n == 0)
			continue;
		fpb_run_name(name, r);
		runs[nruns].file = BufFileOpenFileSet(&fp->fileset->fs, name,
											  O_RDONLY, false);
		runs[nruns].participant = r;
		runs[nruns].expect = -1;
		runs[nruns].limit = n;
		nruns++;
	}
	loaded = fpb_build_load(bs, runs, nruns);
	pfree(runs);
	return loaded;
}

int64
fpb_parallel_load(FpbParallel *fp, FpbBuildState *bs)
{
	FpbShared  *shared = fp->shared;
	FpbSlices  *sl = &fp->slices;
	int			nslices;
	int			prev = -1;
	int64		nleaves = 0;
	FpbEntry	first = {0};

	/*
	 * Only the serial load makes posting pages (its leaves end where their
	 * entries do not fit, not at multiples of the regular capacity).  A key
	 * with more entries than a leaf takes has more than 1/nruns of them in
	 * some run; a leaf of runs of several keys needs runs of two entries on
	 * average, which leave at least one entry in 16 equal to the one before
	 * it in its run file unless most keys' entries are spread over several
	 * files.  Then load serially: keys that are all distinct, or repeat
	 * rarely, keep the parallel load.
	 */
	if (shared->maxdup * sl->nruns >
		fpb_page_capacity(bs->w, bs->x, false, bs->fillfactor / 100.0) ||
		shared->ndup * 16 >= shared->indtuples)
		return fpb_parallel_load_serial(fp, bs);
	nslices = fpb_make_slices(fp, bs);

	SpinLockAcquire(&shared->mutex);
	shared->nslices = nslices;
	shared->loading = true;
	SpinLockRelease(&shared->mutex);
	ConditionVariableBroadcast(&shared->cv);

	if (fp->leaderparticipates)
		fpb_load_slices(shared, sl, fp->fileset, bs->index);

	ConditionVariablePrepareToSleep(&shared->cv);
	for (;;)
	{
		int			done;

		SpinLockAcquire(&shared->mutex);
		done = shared->nslicesdone;
		SpinLockRelease(&shared->mutex);
		if (done >= nslices)
			break;
		ConditionVariableSleep(&shared->cv,
							   WAIT_EVENT_PARALLEL_CREATE_INDEX_SCAN);
	}
	ConditionVariableCancelSleep();

	/* raises any worker's error; after it every worker has reported */
	WaitForParallelWorkersToFinish(fp->pcxt);
	for (int i = 0; i < fp->pcxt->nworkers_launched; i++)
		InstrAccumParallelQuery(&fp->bufferusage[i], &fp->walusage[i]);

	/* the leader logs what comes next, and the slices' end leaves */
	bs->upperstart = RelationGetNumberOfBlocks(bs->index);
	bs->tolog = palloc(sizeof(BlockNumber) * 2 * nslices);
	bs->ntolog = 0;
	bs->baselevel = 1;
	for (int s = 0; s < nslices; s++)
	{
		FpbSliceResult *res = &sl->results[s];
		char		name[MAXPGPATH];
		BufFile    *file;
		FpbEntry	down;
		FpbEntry	sep = {0};

		if (res->nleaves == 0)
			continue;
		bs->tolog[bs->ntolog++] = res->firstblk;
		if (res->lastblk != res->firstblk)
			bs->tolog[bs->ntolog++] = res->lastblk;

		/* the separator as a serial load would make it (build.c) */
		if (prev >= 0)
		{
			FpbSliceResult *pres = &sl->results[prev];

			sep.k = res->first.k;
			sep.t = (pres->last.k == res->first.k) ? res->first.t : 0;
			fpb_link_leaf(bs->index, pres->lastblk, InvalidBlockNumber,
						  res->firstblk, &sep);
			fpb_link_leaf(bs->index, res->firstblk, pres->lastblk,
						  InvalidBlockNumber, NULL);
		}

		snprintf(name, MAXPGPATH, "fpbdown.%d", s);
		file = BufFileOpenFileSet(&fp->fileset->fs, name, O_RDONLY, false);
		for (int64 i = 0; i < res->nleaves; i++)
		{
			if (BufFileRead(file, &down, sizeof(FpbEntry)) != sizeof(FpbEntry))
				ereport(ERROR,
						(errcode_for_file_access(),
						 errmsg("fpbtree: could not read the leaves of build slice %d",
								s)));
			if (i == 0)
			{
				down.k = sep.k;
				down.t = sep.t;
			}
			/* a single leaf is the root: start level 1 at the second */
			if (nleaves == 0)
				first = down;
			else
			{
				if (nleaves == 1)
				{
					fpb_build_initlevel(bs, 1);
					fpb_build_add(bs, 1, &first);
				}
				fpb_build_add(bs, 1, &down);
			}
			nleaves++;
			if ((nleaves & 0xFFF) == 0)
				CHECK_FOR_INTERRUPTS();
		}
		BufFileClose(file);
		prev = s;
	}
	if (nleaves == 1)
		bs->onlyleaf = first.child;
	return shared->loaded;
}

/*
 * The leader's coordinate of a wide index's sort, once every participant
 * has sorted its share (fpb_parallel_scan).
 */
SortCoordinate
fpb_parallel_coordinate(FpbParallel *fp)
{
	Assert(fp->shared->wide);
	fp->coord.isWorker = false;
	fp->coord.nParticipants = fpb_nparticipants(fp);
	fp->coord.sharedsort = fp->sharedsort;
	return &fp->coord;
}

/* Shut down the workers; the run files go with the DSM segment. */
void
fpb_parallel_end(FpbParallel *fp)
{
	WaitForParallelWorkersToFinish(fp->pcxt);
	if (IsMVCCSnapshot(fp->snapshot))
		UnregisterSnapshot(fp->snapshot);
	DestroyParallelContext(fp->pcxt);
	ExitParallelMode();
	pfree(fp);
}

/* A build worker's entry point (the name is given to the parallel context). */
void
fpb_parallel_build_main(dsm_segment *seg, shm_toc *toc)
{
	FpbShared  *shared;
	ParallelTableScanDesc pscan;
	SharedFileSet *fileset;
	WalUsage   *walusage;
	BufferUsage *bufferusage;
	Relation	heap;
	Relation	index;
	LOCKMODE	heaplock;
	LOCKMODE	indexlock;
	FpbSpool	sp;
	FpbSlices	slices;

	debug_query_string = shm_toc_lookup(toc, FPB_KEY_QUERY_TEXT, true);
	pgstat_report_activity(STATE_RUNNING, debug_query_string);

	shared = shm_toc_lookup(toc, FPB_KEY_SHARED, false);
	pscan = shm_toc_lookup(toc, FPB_KEY_TABLESCAN, false);
	fileset = shm_toc_lookup(toc, FPB_KEY_FILESET, false);

	/* the modes index.c holds in the leader (shared by the lock group) */
	if (!shared->isconcurrent)
	{
		heaplock = ShareLock;
		indexlock = AccessExclusiveLock;
	}
	else
	{
		heaplock = ShareUpdateExclusiveLock;
		indexlock = RowExclusiveLock;
	}
	heap = table_open(shared->heaprelid, heaplock);
	index = index_open(shared->indexrelid, indexlock);
	SharedFileSetAttach(fileset, seg);

	InstrStartParallelQuery();
	if (shared->wide)
	{
		Sharedsort *sharedsort = shm_toc_lookup(toc, FPB_KEY_SHAREDSORT,
												false);

		/* a wide index's participants only sort: the leader loads */
		tuplesort_attach_shared(sharedsort, seg);
		fpb_participate(shared, pscan, fileset, sharedsort, heap, index,
						NULL, ParallelWorkerNumber, false);
	}
	else
	{
		fpb_spool_init(&sp, index, shared->workmem);
		fpb_participate(shared, pscan, fileset, NULL, heap, index, &sp,
						ParallelWorkerNumber, false);
		fpb_spool_end(&sp);
		fpb_slices_view(&slices, shm_toc_lookup(toc, FPB_KEY_SLICES, false),
						shared->nworkers);
		fpb_load_slices(shared, &slices, fileset, index);
	}
	bufferusage = shm_toc_lookup(toc, FPB_KEY_BUFFER_USAGE, false);
	walusage = shm_toc_lookup(toc, FPB_KEY_WAL_USAGE, false);
	InstrEndParallelQuery(&bufferusage[ParallelWorkerNumber],
						  &walusage[ParallelWorkerNumber]);

	index_close(index, indexlock);
	table_close(heap, heaplock);
}
