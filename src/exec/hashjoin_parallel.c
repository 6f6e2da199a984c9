/*-------------------------------------------------------------------------
 *
 * hashjoin_parallel.c
 *	  PrefetchHashJoin below a Gather: the CustomScan DSM callbacks.
 *
 *	  The partial path is parallel-oblivious in what it computes: every
 *	  participant probes its share of a parallel outer scan against a
 *	  private table of the whole inner side, and nothing of the join is
 *	  shared.  The node is still marked parallel-aware so that it gets a
 *	  chunk of the query's dynamic shared memory: there each worker leaves
 *	  its EXPLAIN ANALYZE figures (tables built, batches, peak memory), which
 *	  the leader, whose own node state holds only its own figures, shows
 *	  next to them.
 *
 *	  The leader cannot read the chunk when its node shuts down, since the
 *	  workers may still be running then (a Gather shuts its children down
 *	  before it waits for its workers), nor at EXPLAIN time, when the
 *	  segment is gone.  So it copies the chunk in a callback run when the
 *	  segment is detached, after the workers finished.  The copy lives in
 *	  TopTransactionContext, which outlives the segment on every path,
 *	  error included, so the callback never writes into executor memory
 *	  that an abort may already have released.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/parallel.h"
#include "commands/explain.h"
#include "lib/stringinfo.h"
#include "storage/dsm.h"
#include "utils/dsa.h"
#include "utils/memutils.h"

#include "hashjoin_int.h"
#include "hashjoin_shared.h"

/* the DSM chunk: one slot per planned worker */
typedef struct FpbHjSharedInstr
{
	int			nworkers;
	FpbHjInstr	w[FLEXIBLE_ARRAY_MEMBER];
} FpbHjSharedInstr;

/* the leader's copy, filled when the segment is detached */
struct FpbHjInstrCopy
{
	FpbHjSharedInstr *src;		/* in the segment, until it is detached */
	bool		valid;
	FpbHjSharedInstr copy;		/* nworkers slots follow */
};

static Size
fpb_hj_instr_size(int nworkers)
{
	return add_size(offsetof(FpbHjSharedInstr, w),
					mul_size(sizeof(FpbHjInstr), Max(nworkers, 0)));
}

/*
 * The chunk: the instrumentation slots, then for the shared table its
 * state (hashjoin_shared.c), with a slot per worker and one for the leader.
 */
static Size
fpb_hj_chunk_size(FpbHjState *st, int nworkers)
{
	Size		size = MAXALIGN(fpb_hj_instr_size(nworkers));

	if (st->shared_table)
		size = add_size(size, fpb_hj_shared_size(nworkers + 1,
												 st->plan_nbatch));
	return size;
}

static FpbHjShared *
fpb_hj_chunk_shared(FpbHjState *st, void *coordinate)
{
	FpbHjSharedInstr *instr = (FpbHjSharedInstr *) coordinate;

	if (!st->shared_table)
		return NULL;
	return (FpbHjShared *) ((char *) coordinate +
							MAXALIGN(fpb_hj_instr_size(instr->nworkers)));
}

Size
fpb_hj_estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	return fpb_hj_chunk_size((FpbHjState *) node, pcxt->nworkers);
}

static void
fpb_hj_instr_detach(dsm_segment *seg, Datum arg)
{
	FpbHjInstrCopy *c = (FpbHjInstrCopy *) DatumGetPointer(arg);

	memcpy(&c->copy, c->src, fpb_hj_instr_size(c->src->nworkers));
	c->valid = true;
}

void
fpb_hj_initialize_dsm(CustomScanState *node, ParallelContext *pcxt,
					  void *coordinate)
{
	FpbHjState *st = (FpbHjState *) node;
	FpbHjSharedInstr *shared = (FpbHjSharedInstr *) coordinate;
	Size		size = fpb_hj_instr_size(pcxt->nworkers);

	memset(shared, 0, size);
	shared->nworkers = pcxt->nworkers;

	/*
	 * Without a segment (no dynamic shared memory could be had) no worker
	 * is launched and there is no DSA area nor a place for shared files:
	 * the node then runs the serial build alone.
	 */
	if (st->shared_table && pcxt->seg != NULL)
	{
		FpbHjShared *sh = fpb_hj_chunk_shared(st, coordinate);

		SharedFileSetInit(&sh->fileset, pcxt->seg);
		sh->seg = dsm_segment_handle(pcxt->seg);
		fpb_hj_shared_init(sh, pcxt->nworkers + 1, st->plan_nbatch);
		st->shared = sh;
		st->participant = pcxt->nworkers;
		st->area = node->ss.ps.state->es_query_dsa;
		Assert(st->area != NULL);
	}

	/*
	 * Without a segment (no dynamic shared memory could be had) no worker
	 * is launched, and the chunk is private memory freed with the context.
	 */
	st->instr_copy = NULL;
	if (pcxt->seg == NULL || pcxt->nworkers == 0)
		return;
	st->instr_copy = MemoryContextAllocZero(TopTransactionContext,
											offsetof(FpbHjInstrCopy, copy) +
											size);
	st->instr_copy->src = shared;
	on_dsm_detach(pcxt->seg, fpb_hj_instr_detach,
				  PointerGetDatum(st->instr_copy));
}

/*
 * Rescan of the Gather, once its workers have ended: the workers of the
 * next pass add their figures to the same slots, as the leader's own count
 * over rescans; the shared table is freed and built again.
 */
void
fpb_hj_reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt,
						void *coordinate)
{
	FpbHjState *st = (FpbHjState *) node;

	if (st->shared != NULL)
	{
		st->attached = false;
		fpb_hj_shared_reinit(st->shared, st->area);
	}
}

void
fpb_hj_initialize_worker(CustomScanState *node, shm_toc *toc,
						 void *coordinate)
{
	FpbHjState *st = (FpbHjState *) node;

	st->shared_instr = (FpbHjSharedInstr *) coordinate;
	if (st->shared_table)
	{
		FpbHjShared *sh = fpb_hj_chunk_shared(st, coordinate);
		dsm_segment *seg = dsm_find_mapping(sh->seg);

		/*
		 * Keep the batch files until the last participant detaches from
		 * the segment (the callback does not get it: find it).
		 */
		if (seg == NULL)
			elog(ERROR, "PrefetchHashJoin: parallel query segment not found");
		SharedFileSetAttach(&sh->fileset, seg);
		st->shared = sh;
		st->participant = ParallelWorkerNumber;
		st->area = node->ss.ps.state->es_query_dsa;
	}
}

/*
 * A participant leaves the shared table's barrier if it still is attached
 * (it never is once the build finished) and closes its batch files; a
 * worker leaves its figures in its slot.
 */
void
fpb_hj_shutdown(CustomScanState *node)
{
	FpbHjState *st = (FpbHjState *) node;
	FpbHjInstr *w;

	fpb_hj_shared_detach(st);
	/* close the batch files while the fileset is still there */
	fpb_hj_batches_release(st);

	if (st->shared_instr == NULL || !IsParallelWorker() ||
		ParallelWorkerNumber < 0 ||
		ParallelWorkerNumber >= st->shared_instr->nworkers)
		return;
	w = &st->shared_instr->w[ParallelWorkerNumber];
	fpb_hj_instr_add(w, st);
	st->shared_instr = NULL;	/* once */
}

/* Add a node's own figures to w. */
void
fpb_hj_instr_add(FpbHjInstr *w, FpbHjState *st)
{
	w->ran = w->ran || st->nbuilds > 0 || st->sh_loaded > 0;
	w->nbuilds += st->nbuilds;
	/* with shared batches, those (a claimer may split one further) */
	w->nbatch = Max(w->nbatch, st->sh_max_nbatch > 0 ? st->sh_max_nbatch :
					st->nbatch);
	w->loaded += st->sh_loaded;
	w->claimed += st->sh_claimed;
	w->peak_space = Max(w->peak_space, st->peak_space);
	w->max_buckets = Max(w->max_buckets, st->max_buckets);
	w->max_radix_parts = Max(w->max_radix_parts, st->max_radix_parts);
	w->nchunks += st->radix.nchunks;
	w->spilled = w->spilled || st->spilled;
}

/*
 * The figures of every participant that ran the node: the leader's own
 * (when it built a table, or when no worker reported) and the workers'.
 * Returns the number of workers whose slots are in *workers (0 when none
 * reported); *all gets the sum / maximum over all participants.
 */
int
fpb_hj_instr_collect(FpbHjState *st, FpbHjInstr *all, FpbHjInstr **workers)
{
	FpbHjInstrCopy *c = st->instr_copy;
	int			n = 0;
	int			i;

	memset(all, 0, sizeof(FpbHjInstr));
	*workers = NULL;
	if (c != NULL && c->valid)
	{
		n = c->copy.nworkers;
		*workers = c->copy.w;
		for (i = 0; i < n; i++)
		{
			FpbHjInstr *w = &c->copy.w[i];

			if (!w->ran)
				continue;
			all->ran = true;
			all->nbuilds += w->nbuilds;
			all->loaded += w->loaded;
			all->claimed += w->claimed;
			all->nbatch = Max(all->nbatch, w->nbatch);
			all->peak_space = Max(all->peak_space, w->peak_space);
			all->max_buckets = Max(all->max_buckets, w->max_buckets);
			all->max_radix_parts = Max(all->max_radix_parts,
									   w->max_radix_parts);
			all->nchunks += w->nchunks;
			all->spilled = all->spilled || w->spilled;
		}
	}
	if (st->nbuilds > 0 || st->sh_loaded > 0 || !all->ran)
		fpb_hj_instr_add(all, st);
	return n;
}

/*
 * EXPLAIN (ANALYZE, VERBOSE): the figures of each worker that ran; for a
 * shared table also the inner rows it loaded and the batches it claimed.
 * Text format gives one line per worker.  The structured formats give an
 * array of objects, so that tools reading them need not parse a string;
 * it is not named "Workers", which the core fills with the workers' own
 * instrumentation in the same node object.
 */
void
fpb_hj_explain_workers(FpbHjInstr *workers, int n, bool shared,
					   ExplainState *es)
{
	bool		text = es->format == EXPLAIN_FORMAT_TEXT;
	int			i;

	if (!text)
		ExplainOpenGroup("Worker Hash Tables", "Worker Hash Tables", false,
						 es);
	for (i = 0; i < n; i++)
	{
		FpbHjInstr *w = &workers[i];
		int64		peak_kb = (int64) ((w->peak_space + 1023) / 1024);
		StringInfoData buf;
		char		label[32];

		if (!w->ran)
			continue;
		if (!text)
		{
			ExplainOpenGroup("Worker", NULL, true, es);
			ExplainPropertyInteger("Worker Number", NULL, i, es);
			ExplainPropertyInteger("Builds", NULL, w->nbuilds, es);
			ExplainPropertyInteger("Batches", NULL, w->nbatch, es);
			if (shared)
			{
				ExplainPropertyInteger("Inner Rows", NULL, w->loaded, es);
				ExplainPropertyInteger("Batches Claimed", NULL, w->claimed,
									   es);
			}
			ExplainPropertyInteger("Peak Memory Usage", "kB", peak_kb, es);
			ExplainCloseGroup("Worker", NULL, true, es);
			continue;
		}
		initStringInfo(&buf);
		appendStringInfo(&buf, "Builds: " INT64_FORMAT ", Batches: %d, ",
						 w->nbuilds, w->nbatch);
		if (shared)
			appendStringInfo(&buf, "Inner Rows: " INT64_FORMAT
							 ", Batches Claimed: " INT64_FORMAT ", ",
							 w->loaded, w->claimed);
		appendStringInfo(&buf, "Peak Memory Usage: " INT64_FORMAT " kB",
						 peak_kb);
		snprintf(label, sizeof(label), "Worker %d", i);
		ExplainPropertyText(label, buf.data, es);
		pfree(buf.data);
	}
	if (!text)
		ExplainCloseGroup("Worker Hash Tables", "Worker Hash Tables", false,
						  es);
}
