/*-------------------------------------------------------------------------
 *
 * build_parallel.c
 *	  Parallel CREATE INDEX.  PostgreSQL 15 plans build workers for btree
 *	  only, so fpbtree launches its own, as nbtree does: the participants
 *	  (the workers, and the leader unless parallel_leader_participation is
 *	  off) scan shares of the table through one parallel heap scan and each
 *	  sorts its own entries in maintenance_work_mem / participants.  Every
 *	  worker writes its sorted run to a file of a SharedFileSet; the leader
 *	  keeps its own run in memory, then merges all runs into the serial
 *	  bottom-up load (build.c).
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

#define FPB_PHASE_SORT		3	/* as build.c's */

/* Shared state of a parallel build, in the DSM segment. */
typedef struct FpbShared
{
	/* set by the leader before the launch */
	Oid			heaprelid;
	Oid			indexrelid;
	bool		isconcurrent;
	int			workmem;		/* kB per participant */
	int			nworkers;		/* planned: the size of nentries */

	/* what the participants report when they are done */
	slock_t		mutex;
	int			ndone;
	double		reltuples;
	double		indtuples;
	bool		brokenhotchain;
	int64		nentries[FLEXIBLE_ARRAY_MEMBER];	/* per worker run file,
													 * -1 until written */
} FpbShared;

struct FpbParallel
{
	ParallelContext *pcxt;
	FpbShared  *shared;
	ParallelTableScanDesc pscan;
	SharedFileSet *fileset;
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
 * sort the entries, and (a worker) write them to its run file.  The leader
 * keeps its sorted spool for the merge.
 */
static void
fpb_participate(FpbShared *shared, ParallelTableScanDesc pscan,
				SharedFileSet *fileset, Relation heap, Relation index,
				FpbSpool *sp, int worker, bool progress)
{
	IndexInfo  *indexInfo;
	TableScanDesc scan;
	double		reltuples;
	int64		written = -1;

	indexInfo = BuildIndexInfo(index);
	indexInfo->ii_Concurrent = shared->isconcurrent;
	scan = table_beginscan_parallel(heap, pscan);
	reltuples = table_index_build_scan(heap, index, indexInfo, true, progress,
									   fpb_spool_callback, sp, scan);
	if (progress)
		pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE,
									 FPB_PHASE_SORT);
	fpb_spool_sort(sp);

	if (worker >= 0)
	{
		char		name[MAXPGPATH];
		BufFile    *file;
		FpbKey	   *scratch = palloc(sizeof(FpbKey) * FPB_RUN_BATCH);
		FpbKey	   *keys;
		int64		n;

		fpb_run_name(name, worker);
		file = BufFileCreateFileSet(&fileset->fs, name);
		written = 0;
		while ((n = fpb_spool_batch(sp, &keys, scratch, FPB_RUN_BATCH)) > 0)
		{
			BufFileWrite(file, keys, sizeof(FpbKey) * n);
			written += n;
			CHECK_FOR_INTERRUPTS();
		}
		BufFileClose(file);
		pfree(scratch);
	}

	SpinLockAcquire(&shared->mutex);
	shared->ndone++;
	shared->reltuples += reltuples;
	shared->indtuples += sp->indtuples;
	if (indexInfo->ii_BrokenHotChain)
		shared->brokenhotchain = true;
	if (worker >= 0)
		shared->nentries[worker] = written;
	SpinLockRelease(&shared->mutex);
}

/*
 * Set up the shared state and launch the workers.  NULL (build serially)
 * when no DSM segment or no worker could be had.
 */
FpbParallel *
fpb_parallel_begin(Relation heap, Relation index, IndexInfo *indexInfo,
				   int nworkers)
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
						 mul_size(sizeof(int64), nworkers));
	estscan = table_parallelscan_estimate(heap, fp->snapshot);
	shm_toc_estimate_chunk(&pcxt->estimator, estshared);
	shm_toc_estimate_chunk(&pcxt->estimator, estscan);
	shm_toc_estimate_chunk(&pcxt->estimator, sizeof(SharedFileSet));
	shm_toc_estimate_chunk(&pcxt->estimator,
						   mul_size(sizeof(WalUsage), pcxt->nworkers));
	shm_toc_estimate_chunk(&pcxt->estimator,
						   mul_size(sizeof(BufferUsage), pcxt->nworkers));
	shm_toc_estimate_keys(&pcxt->estimator, 5);
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
	shared->nworkers = nworkers;
	shared->workmem = maintenance_work_mem /
		(nworkers + (fp->leaderparticipates ? 1 : 0));
	SpinLockInit(&shared->mutex);
	shared->ndone = 0;
	shared->reltuples = 0;
	shared->indtuples = 0;
	shared->brokenhotchain = false;
	for (int i = 0; i < nworkers; i++)
		shared->nentries[i] = -1;
	shm_toc_insert(pcxt->toc, FPB_KEY_SHARED, shared);

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

/*
 * The leader's part: take a share of the scan (unless it does not
 * participate), wait for the workers, and hand back the sorted runs to
 * merge -- the leader's spool and one file per worker.  Returns the heap
 * tuples the participants saw; *indtuples the entries they collected.
 */
double
fpb_parallel_scan(FpbParallel *fp, Relation heap, Relation index,
				  IndexInfo *indexInfo, double *indtuples, FpbRun **runs,
				  int *nruns)
{
	FpbShared  *shared = fp->shared;
	int			nlaunched = fp->pcxt->nworkers_launched;
	FpbRun	   *r = palloc0(sizeof(FpbRun) * (nlaunched + 1));
	int			n = 0;

	if (fp->leaderparticipates)
	{
		FpbSpool   *sp = palloc(sizeof(FpbSpool));

		fpb_spool_init(sp, index, shared->workmem);
		fpb_participate(shared, fp->pscan, fp->fileset, heap, index, sp, -1,
						true);
		r[n].spool = sp;
		r[n].participant = -1;
		r[n].expect = -1;
		n++;
	}

	/* raises any worker's error; after it every worker has reported */
	WaitForParallelWorkersToFinish(fp->pcxt);
	for (int i = 0; i < nlaunched; i++)
		InstrAccumParallelQuery(&fp->bufferusage[i], &fp->walusage[i]);

	if (shared->ndone != nlaunched + (fp->leaderparticipates ? 1 : 0))
		elog(ERROR, "fpbtree: %d of %d build participants finished",
			 shared->ndone, nlaunched + (fp->leaderparticipates ? 1 : 0));
	for (int i = 0; i < nlaunched; i++)
	{
		char		name[MAXPGPATH];

		if (shared->nentries[i] < 0)
			elog(ERROR, "fpbtree: build worker %d wrote no sorted run", i);
		fpb_run_name(name, i);
		r[n].file = BufFileOpenFileSet(&fp->fileset->fs, name, O_RDONLY,
									   false);
		r[n].participant = i;
		r[n].expect = shared->nentries[i];
		n++;
	}
	if (shared->brokenhotchain)
		indexInfo->ii_BrokenHotChain = true;

	*indtuples = shared->indtuples;
	*runs = r;
	*nruns = n;
	return shared->reltuples;
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
	fpb_spool_init(&sp, index, shared->workmem);
	fpb_participate(shared, pscan, fileset, heap, index, &sp,
					ParallelWorkerNumber, false);
	fpb_spool_end(&sp);
	bufferusage = shm_toc_lookup(toc, FPB_KEY_BUFFER_USAGE, false);
	walusage = shm_toc_lookup(toc, FPB_KEY_WAL_USAGE, false);
	InstrEndParallelQuery(&bufferusage[ParallelWorkerNumber],
						  &walusage[ParallelWorkerNumber]);

	index_close(index, indexlock);
	table_close(heap, heaplock);
}
