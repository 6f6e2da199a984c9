/*-------------------------------------------------------------------------
 *
 * build.c
 *	  CREATE INDEX: scan the heap (alone, or with parallel workers that
 *	  each sort a share: build_parallel.c), sort (k, t) with a radix sort
 *	  in memory or a tuplesort beyond maintenance_work_mem, merge the sorted
 *	  runs, then load the tree bottom-up: leaf pages filled to the
 *	  fillfactor with their entries spread over all in-page leaf nodes, and
 *	  each level's downlinks fed to the level above as pages complete.
 *	  Pages are WAL-logged at the end with log_newpage_range, as GIN and
 *	  GiST do.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tableam.h"
#include "build.h"
#include "access/tupdesc.h"
#include "access/xloginsert.h"
#include "catalog/index.h"
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type_d.h"
#include "commands/progress.h"
#include "compat.h"
#include "executor/tuptable.h"
#include "fpbtree.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "pgstat.h"
#include "storage/smgr.h"
#include "utils/builtins.h"
#include "utils/rel.h"
#include "utils/tuplesort.h"

/* amphasename: the names pg_stat_progress_create_index shows */
char *
fpbbuildphasename(int64 phasenum)
{
	switch (phasenum)
	{
		case PROGRESS_CREATEIDX_SUBPHASE_INITIALIZE:
			return "initializing";
		case FPB_PHASE_SCAN:
			return "scanning table";
		case FPB_PHASE_SORT:
			return "sorting live tuples";
		case FPB_PHASE_LOAD:
			return "loading tuples in tree";
		default:
			return NULL;
	}
}

/*
 * Enter the sort or load phase of a build with ntuples entries: they are
 * the phase's target, and the table scan's block counts go, as nbtree
 * shows them.
 */
void
fpb_build_progress(int phase, double ntuples)
{
	const int	idx[] = {PROGRESS_CREATEIDX_SUBPHASE,
		PROGRESS_CREATEIDX_TUPLES_TOTAL,
		PROGRESS_CREATEIDX_TUPLES_DONE,
		PROGRESS_SCAN_BLOCKS_TOTAL,
	PROGRESS_SCAN_BLOCKS_DONE};
	const int64 val[] = {phase, (int64) ntuples, 0, 0, 0};

	pgstat_progress_update_multi_param(lengthof(idx), idx, val);
}

/*
 * The pipelined-miss latency a build assumes: fpbtree.tnext_ns, but no more
 * than fpbtree.t1_ns (a pipelined miss cannot take longer than a full one).
 * Each setting is checked alone; a build that finds them inconsistent warns
 * (fpb_build_widths) rather than fails, since TRUNCATE, CLUSTER and
 * VACUUM FULL build indexes too.
 */
static double
fpb_build_tnext(void)
{
	return Min(fpb_tnext_ns, fpb_t1_ns);
}

/*
 * Warn once per build (fpbbuild: not for the slices a parallel build's
 * participants load, nor an unlogged index's init fork) of latencies the
 * build does not take as they are.
 */
static void
fpb_build_warn_latencies(Relation index)
{
	if (fpb_tnext_ns > fpb_t1_ns)
		ereport(WARNING,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("fpbtree.tnext_ns (%g) exceeds fpbtree.t1_ns (%g)",
						fpb_tnext_ns, fpb_t1_ns),
				 errdetail("Index \"%s\" is built as if fpbtree.tnext_ns were %g.",
						   RelationGetRelationName(index), fpb_t1_ns),
				 errhint("fpbtree_calibrate() measures both latencies.")));
}

/* Node widths for a new index: reloptions first, then the width model. */
void
fpb_build_widths(Relation index, int *w, int *x, int *ff)
{
	FpbOptions *opts = (FpbOptions *) index->rd_options;
	FpbWidths	model;

	fpb_choose_widths(fpb_t1_ns, fpb_build_tnext(), &model);
	*w = (opts && opts->nonleaf_lines > 0) ? opts->nonleaf_lines : model.w;
	*x = (opts && opts->leaf_lines > 0) ? opts->leaf_lines : model.x;
	*ff = opts ? opts->fillfactor : FPB_DEFAULT_FILLFACTOR;
}

/*
 * Extend the index by one page, initialised empty, and keep it pinned.
 * While participants load slices at once (build_parallel.c), each takes
 * its pages in chunks under the relation extension lock, so that a
 * slice's leaves lie in runs of consecutive blocks; it asks for no more
 * than the slice needs, so no page stays uninitialised.
 */
static Buffer
fpb_build_newpage(FpbBuildState *bs, uint16 level)
{
	Buffer		buf;

	if (bs->downlinks == NULL)
		buf = ReadBufferExtended(bs->index, MAIN_FORKNUM, P_NEW,
								 RBM_NORMAL, NULL);
	else
	{
		if (bs->chunkpos >= bs->nchunk)
		{
			int			n = (int) Min(bs->pagesleft, FPB_BUILD_CHUNK);

			if (n <= 0)
				elog(ERROR, "fpbtree: build slice needs more leaves than planned");
			LockRelationForExtension(bs->index, ExclusiveLock);
			for (int i = 0; i < n; i++)
				bs->chunk[i] = ReadBufferExtended(bs->index, MAIN_FORKNUM,
												  P_NEW, RBM_NORMAL, NULL);
			UnlockRelationForExtension(bs->index, ExclusiveLock);
			if (bs->nruns >= bs->maxruns)
			{
				bs->maxruns = Max(8, bs->maxruns * 2);
				bs->runstart = bs->runstart ?
					repalloc(bs->runstart, sizeof(BlockNumber) * bs->maxruns) :
					palloc(sizeof(BlockNumber) * bs->maxruns);
				bs->runlen = bs->runlen ?
					repalloc(bs->runlen, sizeof(int) * bs->maxruns) :
					palloc(sizeof(int) * bs->maxruns);
			}
			bs->runstart[bs->nruns] = BufferGetBlockNumber(bs->chunk[0]);
			bs->runlen[bs->nruns] = n;
			bs->nruns++;
			bs->nchunk = n;
			bs->chunkpos = 0;
			bs->pagesleft -= n;
		}
		buf = bs->chunk[bs->chunkpos++];
	}
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	fpb_page_init(BufferGetPage(buf), level,
				  (level == 0 ? FPB_F_LEAF : 0) | (bs->cmp ? FPB_F_WIDE : 0) |
				  (bs->cmp && bs->cmp->dedup ? FPB_F_DEDUP : 0) |
				  (fpb_build_starts() ? FPB_F_STARTS : 0),
				  bs->w, bs->x);
	if (bs->cmp)
		FpbPageGetOpaque(BufferGetPage(buf))->fulllen =
			fpb_cmp_fulllen(bs->cmp);
	MarkBufferDirty(buf);
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	return buf;
}

/*
 * A leaf of one key becomes a posting page and takes that many entries of
 * the key (posting.c): at the fillfactor, but at least at nbtree's
 * single-value fill (96%), since a page of one key is given new entries only
 * for TIDs inside its range, rarely (new rows of the key go to the run's
 * end, at the heap's end or in space VACUUM freed).  Not in a parallel build's
 * slices: they are cut at multiples of the regular leaf capacity, so that
 * they make exactly the serial load's leaves.
 */
static int
fpb_build_posting_cap(FpbBuildState *bs, int level)
{
	if (level > 0 || bs->downlinks != NULL)
		return 0;
	return (int) ((int64) FPB_POSTING_CAP *
				  Max(bs->fillfactor, FPB_POSTING_SPLIT_FILL) / 100);
}

/*
 * Does a narrow leaf that has its regular share of entries take e as well,
 * to become a posting page (posting.c)?  A run of one key goes on up to
 * pcap (the entries are sorted: all are e's key); runs of several keys go
 * on while they average two entries or more (fpb_posting_worth, the
 * inserts' rule) and fill no more than the fillfactor of the page's bytes.
 */
static bool
fpb_build_posting_takes(const FpbLevel *lv, const FpbEntry *e)
{
	int			nruns;

	if (lv->pcap == 0)
		return false;
	if (lv->ents[0].k == e->k)
		return lv->n < lv->pcap;
	nruns = lv->nruns + (lv->ents[lv->n - 1].k != e->k);
	return 2 * nruns <= lv->n + 1 &&
		fpb_runs_bytes(nruns, lv->n + 1) <= lv->rbytes;
}

void
fpb_build_initlevel(FpbBuildState *bs, int level)
{
	FpbLevel   *lv = &bs->levels[level];

	if (level >= lengthof(bs->levels))
		elog(ERROR, "fpbtree: too many levels");
	lv->buf = fpb_build_newpage(bs, level);
	lv->blkno = BufferGetBlockNumber(lv->buf);
	if (level == 0)
		bs->firstleaf = lv->blkno;
	lv->leftblk = InvalidBlockNumber;
	lv->cap = fpb_page_capacity(bs->w, bs->x, level > 0,
								bs->fillfactor / 100.0);
	lv->pcap = fpb_build_posting_cap(bs, level);
	lv->rbytes = lv->pcap > 0 ?
		(int) ((int64) FPB_NLINES * FPB_LINE * bs->fillfactor / 100) : 0;
	lv->ents = palloc(sizeof(FpbEntry) *
					  (lv->pcap > 0 ? Max(lv->cap, FPB_POSTING_CAP) : lv->cap));
	lv->n = 0;
	lv->nruns = 0;
	lv->bytes = 0;
	lv->hbytes = 0;
	bs->nlevels = level + 1;
}

/* Write out the page being filled at this level. */
void
fpb_build_writepage(FpbBuildState *bs, FpbLevel *lv, BlockNumber right,
					const FpbEntry *hikey)
{
	Page		page;
	FpbPageOpaque opq;

	LockBuffer(lv->buf, BUFFER_LOCK_EXCLUSIVE);
	page = BufferGetPage(lv->buf);
	opq = FpbPageGetOpaque(page);
	opq->left = lv->leftblk;
	opq->right = right;
	if (hikey)
		fpb_page_set_hikey(page, hikey);
	if (!fpb_page_layout(page, lv->ents, lv->n, bs->fillfactor / 100.0))
		elog(ERROR, "fpbtree: bulk-load page %u overflows", lv->blkno);
	MarkBufferDirty(lv->buf);
	UnlockReleaseBuffer(lv->buf);
	lv->buf = InvalidBuffer;
}

/* The downlink to the page being filled: its lower bound, -inf at the left */
FpbEntry
fpb_build_downlink(const FpbLevel *lv)
{
	FpbEntry	down = fpb_mkkey(0, 0);

	if (lv->leftblk != InvalidBlockNumber)
	{
		down.k = lv->lowk;
		down.t = lv->lowt;
		down.f = lv->lowf;
	}
	down.child = lv->blkno;
	return down;
}

/* The page at this level is full: finish it and start its right sibling. */
static void
fpb_build_nextpage(FpbBuildState *bs, int level, const FpbEntry *first)
{
	FpbLevel   *lv = &bs->levels[level];
	Buffer		nbuf = fpb_build_newpage(bs, level);
	BlockNumber nblk = BufferGetBlockNumber(nbuf);
	FpbEntry	down = fpb_build_downlink(lv);
	FpbEntry	sep;

	/*
	 * The separator is the next page's first key.  On the leaf level its
	 * tiebreaker is dropped (0) when the key differs from this page's last:
	 * like nbtree's suffix truncation, a search for (k, 0) then lands on the
	 * page where k starts, not on the page before.  Internal pages keep the
	 * exact key: their first downlink must equal their lower bound.
	 */
	sep = *first;
	if (level == 0 && fpb_entry_keys_differ(bs->cmp, &lv->ents[lv->n - 1],
											first))
		sep.t = bs->cmp ? (first->t & FPB_T_NULLBIT) : 0;
	/*
	 * A wide separator lives on as the next page's lower bound: a copy of
	 * the row's, or the tuple without INCLUDE values, ours already.
	 */
	if (level == 0)
		sep.f = fpb_tuple_separator(bs->cmp, first->f);
	if (sep.f == first->f)
		fpb_entry_keep_palloc(bs->cmp, &sep);
	fpb_build_writepage(bs, lv, nblk, &sep);

	/*
	 * The values of an internal page's entries are the separators of the
	 * level below, each copied once and handed up to this page alone: now
	 * that it is written they go, or the build would keep a copy of every
	 * separator (with large values, a third of all the index's bytes).
	 */
	if (bs->cmp && level > 0)
		for (int i = 0; i < lv->n; i++)
			if (lv->ents[i].f)
				pfree((char *) lv->ents[i].f);
	lv->lowk = sep.k;
	lv->lowt = sep.t;
	lv->lowf = sep.f;
	lv->leftblk = lv->blkno;
	lv->blkno = nblk;
	lv->buf = nbuf;
	lv->n = 0;
	lv->nruns = 0;
	lv->bytes = 0;
	lv->hbytes = 0;

	/* a slice's leaves: the leader builds the levels above from the file */
	if (level == 0 && bs->downlinks != NULL)
	{
		BufFileWrite(bs->downlinks, &down, sizeof(FpbEntry));
		return;
	}
	if (level + 1 >= bs->nlevels)
		fpb_build_initlevel(bs, level + 1);
	fpb_build_add(bs, level + 1, &down);
}

/* Do two wide entries share a run of a page of runs (posting.c)? */
static inline bool
fpb_build_same(const FpbCmp *cmp, const FpbEntry *a, const FpbEntry *b)
{
	return fpb_entry_image_same(fpb_cmp_fulllen(cmp), a, b);
}

/*
 * Bytes of lines and run values a wide leaf of runs may take in all: a
 * line fewer than the page has, for the layout's rounding of the values'
 * area down to whole lines.
 */
#define FPB_BUILD_WIDE_ROOM	((Size) (FPB_NLINES - 1) * FPB_LINE)

/*
 * Does a wide leaf that has its regular share of entries take e as well,
 * to become a page of runs (posting.c)?  As a narrow leaf's: its runs
 * average two entries or more and fill no more than the fillfactor of the
 * page; and the page keeps room for one more copy of its last run's value,
 * e's, so that when the next entry does not fit beside the entries as high
 * key, the last entry can move on to be the high key (fpb_build_add).
 */
static bool
fpb_build_wide_takes(const FpbBuildState *bs, const FpbLevel *lv,
					 const FpbEntry *e, Size eb)
{
	bool		newrun;
	int			nruns;
	Size		bytes;

	if (lv->pcap == 0 || !bs->cmp->dedup || lv->n + 1 > FPB_POSTING_CAP)
		return false;
	newrun = !fpb_build_same(bs->cmp, &lv->ents[lv->n - 1], e);
	nruns = lv->nruns + newrun;
	bytes = fpb_runs_bytes(nruns, lv->n + 1) + lv->hbytes + (newrun ? eb : 0);
	return 2 * nruns <= lv->n + 1 && bytes <= (Size) lv->rbytes &&
		bytes + eb <= FPB_BUILD_WIDE_ROOM;
}

/* Note e's run in a wide leaf's counts (before adding it). */
static inline void
fpb_build_wide_count(const FpbBuildState *bs, FpbLevel *lv, const FpbEntry *e,
					 Size eb)
{
	if (lv->n == 0 || !fpb_build_same(bs->cmp, &lv->ents[lv->n - 1], e))
	{
		lv->nruns++;
		lv->hbytes += eb;
	}
}

void
fpb_build_add(FpbBuildState *bs, int level, const FpbEntry *e)
{
	FpbLevel   *lv = &bs->levels[level];
	Size		eb = 0;

	if (bs->cmp)
	{
		/*
		 * A wide page is full when the values' slots leave too few lines.
		 * The page holds its entries without a high key, so when the high
		 * key (the next entry) does not fit beside them, the last entry
		 * moves to the next page and becomes the high key: entries and one
		 * of their own values as high key always fit.
		 */
		eb = fpb_build_slot_bound(bs->cmp, e->f);
		if (lv->n > 0 &&
			(lv->n >= lv->cap || !fpb_build_fits(bs, lv, lv->n + 1,
												 lv->bytes + eb, true)) &&
			!fpb_build_wide_takes(bs, lv, e, eb))
		{
			/*
			 * The entries and e's value as high key: a page of runs keeps
			 * one value a run (fpb_build_wide_takes), a regular page one
			 * an entry.
			 */
			bool		runs = lv->n > lv->cap ||
				!fpb_build_fits(bs, lv, lv->n, lv->bytes, false);
			bool		hkfits = runs ?
				fpb_runs_bytes(lv->nruns, lv->n) + lv->hbytes + eb <=
				FPB_BUILD_WIDE_ROOM :
				fpb_build_fits(bs, lv, lv->n, lv->bytes + eb, false);

			if (!hkfits)
			{
				FpbEntry	last = lv->ents[--lv->n];
				Size		lb = fpb_build_slot_bound(bs->cmp, last.f);

				lv->bytes -= lb;
				fpb_build_nextpage(bs, level, &last);
				lv = &bs->levels[level];
				fpb_build_wide_count(bs, lv, &last, lb);
				lv->ents[lv->n++] = last;
				lv->bytes = lb;
			}
			else
			{
				fpb_build_nextpage(bs, level, e);
				lv = &bs->levels[level];
			}
		}
		if (level == 0)
			fpb_build_wide_count(bs, lv, e, eb);
		lv->bytes += eb;
		lv->ents[lv->n++] = *e;
		return;
	}
	if (lv->n >= lv->cap && !fpb_build_posting_takes(lv, e))
	{
		fpb_build_nextpage(bs, level, e);
		lv = &bs->levels[level];
	}
	if (lv->n == 0 || lv->ents[lv->n - 1].k != e->k)
		lv->nruns++;
	lv->ents[lv->n++] = *e;
}

/*
 * Close every level: the last page of each is rightmost; its downlink goes
 * up unless it is the only page of the top level, which becomes the root.
 */
BlockNumber
fpb_build_finish(FpbBuildState *bs, uint32 *rootlevel)
{
	int			level;

	/* parallel slices that made a single leaf: it is the root */
	if (bs->nlevels == 0 && BlockNumberIsValid(bs->onlyleaf))
	{
		*rootlevel = 0;
		return bs->onlyleaf;
	}
	if (bs->nlevels == 0)
	{
		bs->baselevel = 0;
		fpb_build_initlevel(bs, 0);
	}

	for (level = bs->baselevel;; level++)
	{
		FpbLevel   *lv = &bs->levels[level];
		FpbEntry	down = fpb_build_downlink(lv);
		BlockNumber blk = lv->blkno;

		if (lv->leftblk == InvalidBlockNumber && level == bs->nlevels - 1)
		{
			fpb_build_writepage(bs, lv, InvalidBlockNumber, NULL);
			*rootlevel = level;
			return blk;
		}
		fpb_build_writepage(bs, lv, InvalidBlockNumber, NULL);
		if (level + 1 >= bs->nlevels)
			fpb_build_initlevel(bs, level + 1);
		fpb_build_add(bs, level + 1, &down);
	}
}

static void
fpb_write_meta(Relation index, Buffer metabuf, BlockNumber root,
			   uint32 rootlevel, int w, int x, int ff, const FpbCmp *cmp)
{
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	fpb_init_metapage(BufferGetPage(metabuf), root, rootlevel, w, x, ff,
					  fpb_t1_ns, fpb_build_tnext(), fpb_cmp_mprefix(cmp),
					  fpb_cmp_pfxflags(cmp));
	MarkBufferDirty(metabuf);
	LockBuffer(metabuf, BUFFER_LOCK_UNLOCK);
}

/*
 * The k-way merge of the sorted runs.  Each run's next entry is copied into
 * a slot of one array, so that choosing the smallest reads only that array.
 * Up to FPB_MERGE_LINEAR runs (the usual few workers) the smallest is found
 * by a scan of the slots; beyond, the slots form a binary min-heap.
 * Entries are unique, so keys never tie.
 */
#define FPB_MERGE_LINEAR	8

typedef struct FpbMergeSlot
{
	uint64		k;
	uint64		t;
	int			run;
} FpbMergeSlot;

typedef struct FpbMerge
{
	FpbRun	   *runs;
	FpbMergeSlot *heap;			/* a min-heap unless linear */
	int			nheap;
	bool		linear;
} FpbMerge;

static inline bool
fpb_slot_less(const FpbMergeSlot *x, const FpbMergeSlot *y)
{
	return x->k < y->k || (x->k == y->k && x->t < y->t);
}

/* Load the run's next batch; false at its end. */
static bool
fpb_run_fill(FpbRun *r)
{
	r->pos = 0;
	if (r->file)
	{
		int64		want = FPB_RUN_BATCH;
		size_t		got;

		if (r->limit >= 0)
			want = Min(want, r->limit - r->nread);
		got = want > 0 ? BufFileRead(r->file, r->scratch,
									 sizeof(FpbKey) * want) : 0;

		if (got % sizeof(FpbKey) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("fpbtree: sorted run of build worker %d is truncated",
							r->participant)));
		r->keys = r->scratch;
		r->n = got / sizeof(FpbKey);
	}
	else
		r->n = fpb_spool_batch(r->spool, &r->keys, r->scratch, FPB_RUN_BATCH);
	r->nread += r->n;
	if (r->n == 0 && r->file && r->limit >= 0 && r->nread != r->limit)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("fpbtree: sorted run of build participant %d ends early",
						r->participant)));
	if (r->n == 0 && r->expect >= 0 && r->nread != r->expect)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("fpbtree: sorted run of build worker %d has %lld entries, expected %lld",
						r->participant, (long long) r->nread,
						(long long) r->expect)));
	return r->n > 0;
}

/* Move the run's next entry into slot; false when the run is done. */
static inline bool
fpb_run_next(FpbRun *r, FpbMergeSlot *slot)
{
	if (r->pos >= r->n && !fpb_run_fill(r))
		return false;
	slot->k = r->keys[r->pos].k;
	slot->t = r->keys[r->pos].t;
	r->pos++;
	return true;
}

static void
fpb_merge_siftdown(FpbMerge *m, int i)
{
	FpbMergeSlot x = m->heap[i];

	for (;;)
	{
		int			c = 2 * i + 1;

		if (c >= m->nheap)
			break;
		if (c + 1 < m->nheap && fpb_slot_less(&m->heap[c + 1], &m->heap[c]))
			c++;
		if (!fpb_slot_less(&m->heap[c], &x))
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	m->heap[i] = x;
}

static void
fpb_merge_begin(FpbMerge *m, FpbRun *runs, int nruns)
{
	m->runs = runs;
	m->heap = palloc(sizeof(FpbMergeSlot) * Max(nruns, 1));
	m->nheap = 0;
	m->linear = (nruns <= FPB_MERGE_LINEAR);
	for (int i = 0; i < nruns; i++)
	{
		runs[i].scratch = palloc(sizeof(FpbKey) * FPB_RUN_BATCH);
		if (fpb_run_next(&runs[i], &m->heap[m->nheap]))
			m->heap[m->nheap++].run = i;
	}
	if (!m->linear)
		for (int i = m->nheap / 2 - 1; i >= 0; i--)
			fpb_merge_siftdown(m, i);
}

static inline bool
fpb_merge_next(FpbMerge *m, FpbKey *out)
{
	FpbMergeSlot *top = &m->heap[0];

	if (m->nheap == 0)
		return false;
	if (m->linear)
	{
		int			best = 0;

		/* without branches on the keys, which random keys mispredict */
		for (int i = 1; i < m->nheap; i++)
		{
			const FpbMergeSlot *x = &m->heap[i];
			const FpbMergeSlot *y = &m->heap[best];
			bool		lt = (x->k < y->k) | ((x->k == y->k) & (x->t < y->t));

			best = lt ? i : best;
		}
		top = &m->heap[best];
		out->k = top->k;
		out->t = top->t;
		if (!fpb_run_next(&m->runs[top->run], top))
			*top = m->heap[--m->nheap];
		return true;
	}
	out->k = top->k;
	out->t = top->t;
	if (!fpb_run_next(&m->runs[top->run], top))
	{
		*top = m->heap[--m->nheap];
		if (m->nheap == 0)
			return true;
	}
	if (m->nheap > 1)
		fpb_merge_siftdown(m, 0);
	return true;
}

/*
 * Load the merged runs bottom-up.  Returns the entries loaded; checks that
 * they come in strictly ascending order, as the merge must deliver them.
 */
int64
fpb_build_load(FpbBuildState *bs, FpbRun *runs, int nruns)
{
	FpbMerge	m;
	FpbKey		key;
	uint64		prevk = 0,
				prevt = 0;
	int64		loaded = 0;

	fpb_merge_begin(&m, runs, nruns);
	while (fpb_merge_next(&m, &key))
	{
		FpbEntry	e;

		if (loaded > 0 && fpb_key_cmp(prevk, prevt, key.k, key.t) >= 0)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg_internal("fpbtree: build merged entry %s after %s",
									 fpb_keydesc(key.k, key.t),
									 fpb_keydesc(prevk, prevt))));
		if (loaded == 0)
		{
			bs->first.k = key.k;
			bs->first.t = key.t;
		}
		prevk = key.k;
		prevt = key.t;
		e.k = key.k;
		e.t = key.t;
		e.child = InvalidBlockNumber;
		if (bs->nlevels == 0)
			fpb_build_initlevel(bs, 0);
		fpb_build_add(bs, 0, &e);
		if ((++loaded & 0xFFFF) == 0)
		{
			pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE,
										 loaded);
			CHECK_FOR_INTERRUPTS();
		}
	}
	bs->last.k = prevk;
	bs->last.t = prevt;
	for (int i = 0; i < nruns; i++)
	{
		if (runs[i].file)
			BufFileClose(runs[i].file);
		else
			fpb_spool_end(runs[i].spool);
		pfree(runs[i].scratch);
	}
	pfree(m.heap);
	return loaded;
}

/*
 * WAL-log the pages in [start, end) but skip1 and skip2 (full images, as
 * log_newpage_range does).
 */
void
fpb_build_log(Relation index, BlockNumber start, BlockNumber end,
			  BlockNumber skip1, BlockNumber skip2)
{
	BlockNumber from = start;

	for (BlockNumber b = start; b <= end; b++)
	{
		if (b < end && b != skip1 && b != skip2)
			continue;
		if (from < b)
			log_newpage_range(index, MAIN_FORKNUM, from, b, true);
		from = b + 1;
	}
}

IndexBuildResult *
fpbbuild(Relation heap, Relation index, IndexInfo *indexInfo)
{
	IndexBuildResult *result;
	FpbBuildState bs;
	Buffer		metabuf;
	double		reltuples;
	double		indtuples;
	BlockNumber root;
	uint32		rootlevel;
	int64		loaded = 0;
	int			nworkers = 0;
	FpbParallel *fp = NULL;
	FpbRun	   *runs = NULL;
	int			nruns = 0;

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data",
			 RelationGetRelationName(index));
	fpb_check_pattern_collations(index);
	fpb_build_warn_latencies(index);

	memset(&bs, 0, sizeof(bs));
	bs.index = index;
	bs.onlyleaf = InvalidBlockNumber;
	bs.upperstart = InvalidBlockNumber;
	fpb_build_widths(index, &bs.w, &bs.x, &bs.fillfactor);
	if (fpb_cmp_init(index, &bs.cmpdata, bs.w, bs.x, NULL))
		bs.cmp = &bs.cmpdata;

	/* block 0 is the metapage */
	metabuf = ReadBufferExtended(index, MAIN_FORKNUM, P_NEW, RBM_NORMAL, NULL);
	Assert(BufferGetBlockNumber(metabuf) == FPB_METAPAGE_BLKNO);

	/*
	 * PostgreSQL 15 plans workers only for btree builds: ask the planner
	 * ourselves (max_parallel_maintenance_workers, the table's
	 * parallel_workers, maintenance_work_mem of 32 MB per participant).  An
	 * empty table needs none: index_build() asks for none when it rebuilds
	 * the indexes of a table just truncated, and cannot tell us so.
	 */
	if (IsNormalProcessingMode() && RelationGetNumberOfBlocks(heap) > 0)
		nworkers = plan_create_index_workers(RelationGetRelid(heap),
											 RelationGetRelid(index));
	if (nworkers > 0)
		fp = fpb_parallel_begin(heap, index, indexInfo, nworkers,
								bs.cmp != NULL);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, FPB_PHASE_SCAN);
	if (bs.cmp)
		loaded = fpb_build_wide(&bs, heap, indexInfo, fp, &reltuples,
								&indtuples);
	else if (fp)
		reltuples = fpb_parallel_scan(fp, heap, index, indexInfo, &indtuples);
	else
	{
		FpbSpool   *sp = palloc(sizeof(FpbSpool));

		fpb_spool_init(sp, index, maintenance_work_mem);
		reltuples = table_index_build_scan(heap, index, indexInfo, false, true,
										   fpb_spool_callback, sp, NULL);
		fpb_build_progress(FPB_PHASE_SORT, sp->indtuples);
		fpb_spool_sort(sp);
		indtuples = sp->indtuples;
		runs = palloc0(sizeof(FpbRun));
		runs[0].spool = sp;
		runs[0].expect = -1;
		runs[0].limit = -1;
		nruns = 1;
	}

	if (!bs.cmp)
		fpb_build_progress(FPB_PHASE_LOAD, indtuples);
	if (fp && !bs.cmp)
		loaded = fpb_parallel_load(fp, &bs);
	else if (!bs.cmp)
		loaded = fpb_build_load(&bs, runs, nruns);
	if (loaded != (int64) indtuples)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg_internal("fpbtree: build loaded %lld entries of %.0f collected",
								 (long long) loaded, indtuples)));
	/* the run files go with the parallel context */
	if (fp)
		fpb_parallel_end(fp);

	root = fpb_build_finish(&bs, &rootlevel);
	fpb_write_meta(index, metabuf, root, rootlevel, bs.w, bs.x, bs.fillfactor,
				   bs.cmp);
	ReleaseBuffer(metabuf);
	fpb_relcache_rebuilt(index);
	pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, loaded);

	/* no two live tuples may share a key (unique.c) */
	if (indexInfo->ii_Unique)
		fpb_unique_check_built(heap, index, false);

	/*
	 * The participants of a parallel build logged their leaves but the first
	 * and the last of each slice, which the leader changed after them.
	 */
	if (RelationNeedsWAL(index) && BlockNumberIsValid(bs.upperstart))
	{
		log_newpage_range(index, MAIN_FORKNUM, FPB_METAPAGE_BLKNO,
						  FPB_METAPAGE_BLKNO + 1, true);
		for (int i = 0; i < bs.ntolog; i++)
			log_newpage_range(index, MAIN_FORKNUM, bs.tolog[i],
							  bs.tolog[i] + 1, true);
		log_newpage_range(index, MAIN_FORKNUM, bs.upperstart,
						  RelationGetNumberOfBlocks(index), true);
	}
	else if (RelationNeedsWAL(index))
		log_newpage_range(index, MAIN_FORKNUM, 0,
						  RelationGetNumberOfBlocks(index), true);

	result = (IndexBuildResult *) palloc(sizeof(IndexBuildResult));
	result->heap_tuples = reltuples;
	result->index_tuples = indtuples;
	return result;
}

/*
 * The init fork of an unlogged index: a metapage and an empty root leaf,
 * written directly and WAL-logged so the fork survives a crash.
 */
void
fpbbuildempty(Relation index)
{
	Page		page = (Page) palloc_aligned_compat(BLCKSZ);
	int			w,
				x,
				ff;
	FpbCmp		cmp;
	bool		wide;

	fpb_build_widths(index, &w, &x, &ff);
	wide = fpb_cmp_init(index, &cmp, w, x, NULL);

	fpb_init_metapage(page, 1, 0, w, x, ff, fpb_t1_ns, fpb_build_tnext(),
					  fpb_cmp_mprefix(wide ? &cmp : NULL),
					  fpb_cmp_pfxflags(wide ? &cmp : NULL));
	PageSetChecksumInplace(page, FPB_METAPAGE_BLKNO);
	smgrextend(RelationGetSmgr(index), INIT_FORKNUM, FPB_METAPAGE_BLKNO,
			   (char *) page, true);
	log_newpage(FPB_SMGR_RNODE(index), INIT_FORKNUM, FPB_METAPAGE_BLKNO,
				page, true);

	fpb_page_init(page, 0,
				  FPB_F_LEAF | (fpb_build_starts() ? FPB_F_STARTS : 0), w, x);
	/* a wide index's pages say so from the first (README "Wide keys") */
	if (wide)
	{
		FpbPageGetOpaque(page)->flags |= FPB_F_WIDE |
			(cmp.dedup ? FPB_F_DEDUP : 0);
		FpbPageGetOpaque(page)->fulllen = fpb_cmp_fulllen(&cmp);
	}
	PageSetChecksumInplace(page, 1);
	smgrextend(RelationGetSmgr(index), INIT_FORKNUM, 1, (char *) page, true);
	log_newpage(FPB_SMGR_RNODE(index), INIT_FORKNUM, 1, page, true);

	smgrimmedsync(RelationGetSmgr(index), INIT_FORKNUM);
	pfree(page);
}
