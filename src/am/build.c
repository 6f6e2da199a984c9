/*-------------------------------------------------------------------------
 *
 * build.c
 *	  CREATE INDEX: scan the heap, sort (k, t) with tuplesort (so the build
 *	  respects maintenance_work_mem and spills like btree's), then load the
 *	  tree bottom-up: leaf pages filled to the fillfactor with their entries
 *	  spread over all in-page leaf nodes, and each level's downlinks fed to
 *	  the level above as pages complete.  Pages are WAL-logged at the end
 *	  with log_newpage_range, as GIN and GiST do.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tableam.h"
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
#include "pgstat.h"
#include "storage/smgr.h"
#include "utils/rel.h"
#include "utils/tuplesort.h"

#define FPB_PHASE_SCAN		2
#define FPB_PHASE_SORT		3
#define FPB_PHASE_LOAD		4

#define FPB_SIGNBIT			(UINT64CONST(1) << 63)

/* the page being filled at one level of the bulk load */
typedef struct FpbLevel
{
	Buffer		buf;			/* pinned, pre-initialised page */
	BlockNumber blkno;
	BlockNumber leftblk;
	uint64		lowk;			/* lower bound = left sibling's high key */
	uint64		lowt;
	FpbEntry   *ents;
	int			n;
	int			cap;
} FpbLevel;

typedef struct FpbBuildState
{
	Relation	index;
	int			w;
	int			x;
	int			fillfactor;
	double		t1;
	double		tnext;
	FmgrInfo   *encproc;
	Tuplesortstate *sort;		/* NULL while the entries fit in memory */
	TupleDesc	sortdesc;
	TupleTableSlot *slot;
	FpbKey	   *mem;			/* in-memory entries, radix-sorted later */
	int64		nmem;
	int64		maxmem;
	double		indtuples;
	int			nlevels;
	FpbLevel	levels[32];
} FpbBuildState;

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

/* Node widths for a new index: reloptions first, then the width model. */
static void
fpb_build_widths(Relation index, int *w, int *x, int *ff)
{
	FpbOptions *opts = (FpbOptions *) index->rd_options;
	FpbWidths	model;

	fpb_choose_widths(fpb_t1_ns, fpb_tnext_ns, &model);
	*w = (opts && opts->nonleaf_lines > 0) ? opts->nonleaf_lines : model.w;
	*x = (opts && opts->leaf_lines > 0) ? opts->leaf_lines : model.x;
	*ff = opts ? opts->fillfactor : FPB_DEFAULT_FILLFACTOR;
}

/* Hand one entry to the tuplesort (the spill path). */
static void
fpb_build_puttuplesort(FpbBuildState *bs, uint64 k, uint64 t)
{
	TupleTableSlot *slot = bs->slot;

	/* flip the top bits so that int8 (signed) order is unsigned order */
	ExecClearTuple(slot);
	slot->tts_values[0] = Int64GetDatum((int64) (k ^ FPB_SIGNBIT));
	slot->tts_values[1] = Int64GetDatum((int64) (t ^ FPB_SIGNBIT));
	slot->tts_isnull[0] = slot->tts_isnull[1] = false;
	ExecStoreVirtualTuple(slot);
	tuplesort_puttupleslot(bs->sort, slot);
}

/*
 * The entries no longer fit in maintenance_work_mem: move them to a
 * tuplesort, which spills to disk as btree's build does.
 */
static void
fpb_build_spill(FpbBuildState *bs)
{
	AttrNumber	attnums[2] = {1, 2};
	Oid			sortops[2] = {Int8LessOperator, Int8LessOperator};
	Oid			colls[2] = {InvalidOid, InvalidOid};
	bool		nullsfirst[2] = {false, false};

	bs->sort = tuplesort_begin_heap(bs->sortdesc, 2, attnums, sortops, colls,
									nullsfirst, maintenance_work_mem, NULL,
									TUPLESORT_NONE);
	for (int64 i = 0; i < bs->nmem; i++)
		fpb_build_puttuplesort(bs, bs->mem[i].k, bs->mem[i].t);
	pfree(bs->mem);
	bs->mem = NULL;
	bs->nmem = 0;
}

/*
 * The table scan's callback: collect the entry key of one heap tuple, in
 * memory while maintenance_work_mem allows and in the tuplesort after.
 */
static void
fpb_build_callback(Relation index, ItemPointer tid, Datum *values,
				   bool *isnull, bool tupleIsAlive, void *state)
{
	FpbBuildState *bs = (FpbBuildState *) state;
	FpbKey		key = fpb_heap_key(bs->encproc, values[0], isnull[0], tid);

	bs->indtuples++;

	if (bs->sort == NULL)
	{
		if (bs->nmem >= bs->maxmem)
		{
			int64		limit = (int64) maintenance_work_mem * 1024 /
				(2 * sizeof(FpbKey));

			if (bs->maxmem * 2 <= limit)
			{
				bs->maxmem *= 2;
				bs->mem = repalloc_huge(bs->mem, sizeof(FpbKey) * bs->maxmem);
			}
			else
				fpb_build_spill(bs);
		}
		if (bs->sort == NULL)
		{
			bs->mem[bs->nmem] = key;
			bs->nmem++;
			return;
		}
	}
	fpb_build_puttuplesort(bs, key.k, key.t);
}

static int
fpb_keycmp_qsort(const void *a, const void *b)
{
	const FpbKey *x = a;
	const FpbKey *y = b;

	return fpb_key_cmp(x->k, x->t, y->k, y->t);
}

/*
 * Sort the in-memory entries: an LSD radix sort on k (11-bit digits,
 * skipping digits all keys share), which is stable, so entries with equal
 * keys stay in heap-scan order -- ascending TID, except where HOT chains
 * report their root TID; a final pass sorts any run of equal keys that is
 * out of TID order.
 */
static FpbKey *
fpb_build_radixsort(FpbKey *a, int64 n)
{
	FpbKey	   *tmp;
	int64	   *count;

	if (n < 2)
		return a;
	tmp = palloc_extended(sizeof(FpbKey) * n, MCXT_ALLOC_HUGE);
	count = palloc(sizeof(int64) * 2048);
	for (int shift = 0; shift < 64; shift += 11)
	{
		int64		sum = 0;
		int			digit0 = (a[0].k >> shift) & 2047;
		bool		trivial = true;
		FpbKey	   *swap;

		memset(count, 0, sizeof(int64) * 2048);
		for (int64 i = 0; i < n; i++)
		{
			int			d = (a[i].k >> shift) & 2047;

			count[d]++;
			trivial &= (d == digit0);
		}
		if (trivial)
			continue;
		for (int d = 0; d < 2048; d++)
		{
			int64		c = count[d];

			count[d] = sum;
			sum += c;
		}
		for (int64 i = 0; i < n; i++)
			tmp[count[(a[i].k >> shift) & 2047]++] = a[i];
		swap = a;
		a = tmp;
		tmp = swap;
		CHECK_FOR_INTERRUPTS();
	}
	pfree(tmp);
	pfree(count);

	for (int64 i = 1; i < n; i++)
	{
		if (a[i - 1].k == a[i].k && a[i - 1].t > a[i].t)
		{
			int64		s = i - 1,
						e = i + 1;

			while (s > 0 && a[s - 1].k == a[i].k)
				s--;
			while (e < n && a[e].k == a[i].k)
				e++;
			qsort(&a[s], e - s, sizeof(FpbKey), fpb_keycmp_qsort);
			i = e - 1;
		}
	}
	return a;
}

/* Extend the index by one page, initialised empty, and keep it pinned. */
static Buffer
fpb_build_newpage(FpbBuildState *bs, uint16 level)
{
	Buffer		buf = ReadBufferExtended(bs->index, MAIN_FORKNUM, P_NEW,
										 RBM_NORMAL, NULL);

	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	fpb_page_init(BufferGetPage(buf), level, level == 0 ? FPB_F_LEAF : 0,
				  bs->w, bs->x);
	MarkBufferDirty(buf);
	LockBuffer(buf, BUFFER_LOCK_UNLOCK);
	return buf;
}

static void
fpb_build_initlevel(FpbBuildState *bs, int level)
{
	FpbLevel   *lv = &bs->levels[level];

	if (level >= lengthof(bs->levels))
		elog(ERROR, "fpbtree: too many levels");
	lv->buf = fpb_build_newpage(bs, level);
	lv->blkno = BufferGetBlockNumber(lv->buf);
	lv->leftblk = InvalidBlockNumber;
	lv->cap = fpb_page_capacity(bs->w, bs->x, level > 0,
								bs->fillfactor / 100.0);
	lv->ents = palloc(sizeof(FpbEntry) * lv->cap);
	lv->n = 0;
	bs->nlevels = level + 1;
}

/* Write out the page being filled at this level. */
static void
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
		fpb_page_set_hikey(page, hikey->k, hikey->t);
	if (!fpb_page_layout(page, lv->ents, lv->n, bs->fillfactor / 100.0))
		elog(ERROR, "fpbtree: bulk-load page %u overflows", lv->blkno);
	MarkBufferDirty(lv->buf);
	UnlockReleaseBuffer(lv->buf);
	lv->buf = InvalidBuffer;
}

static void fpb_build_add(FpbBuildState *bs, int level, const FpbEntry *e);

/* The downlink to the page being filled: its lower bound, -inf at the left */
static FpbEntry
fpb_build_downlink(const FpbLevel *lv)
{
	FpbEntry	down;

	if (lv->leftblk == InvalidBlockNumber)
		down.k = down.t = 0;
	else
	{
		down.k = lv->lowk;
		down.t = lv->lowt;
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
	if (level == 0 && lv->ents[lv->n - 1].k != first->k)
		sep.t = 0;
	fpb_build_writepage(bs, lv, nblk, &sep);
	lv->lowk = sep.k;
	lv->lowt = sep.t;
	lv->leftblk = lv->blkno;
	lv->blkno = nblk;
	lv->buf = nbuf;
	lv->n = 0;

	if (level + 1 >= bs->nlevels)
		fpb_build_initlevel(bs, level + 1);
	fpb_build_add(bs, level + 1, &down);
}

static void
fpb_build_add(FpbBuildState *bs, int level, const FpbEntry *e)
{
	FpbLevel   *lv = &bs->levels[level];

	if (lv->n >= lv->cap)
	{
		fpb_build_nextpage(bs, level, e);
		lv = &bs->levels[level];
	}
	lv->ents[lv->n++] = *e;
}

/*
 * Close every level: the last page of each is rightmost; its downlink goes
 * up unless it is the only page of the top level, which becomes the root.
 */
static BlockNumber
fpb_build_finish(FpbBuildState *bs, uint32 *rootlevel)
{
	int			level = 0;

	if (bs->nlevels == 0)
		fpb_build_initlevel(bs, 0);

	for (level = 0;; level++)
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
			   uint32 rootlevel, int w, int x, int ff)
{
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	fpb_init_metapage(BufferGetPage(metabuf), root, rootlevel, w, x, ff,
					  fpb_t1_ns, fpb_tnext_ns);
	MarkBufferDirty(metabuf);
	LockBuffer(metabuf, BUFFER_LOCK_UNLOCK);
}

IndexBuildResult *
fpbbuild(Relation heap, Relation index, IndexInfo *indexInfo)
{
	IndexBuildResult *result;
	FpbBuildState bs;
	Buffer		metabuf;
	TupleDesc	tupdesc;
	double		reltuples;
	BlockNumber root;
	uint32		rootlevel;
	int64		loaded = 0;

	if (index->rd_indoption[0] != 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("fpbtree does not support DESC or NULLS FIRST index columns"),
				 errhint("An ascending fpbtree index is scanned backward for ORDER BY ... DESC.")));
	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data",
			 RelationGetRelationName(index));

	memset(&bs, 0, sizeof(bs));
	bs.index = index;
	fpb_build_widths(index, &bs.w, &bs.x, &bs.fillfactor);
	bs.encproc = index_getprocinfo(index, 1, FPB_ENCODE_PROC);

	/* block 0 is the metapage */
	metabuf = ReadBufferExtended(index, MAIN_FORKNUM, P_NEW, RBM_NORMAL, NULL);
	Assert(BufferGetBlockNumber(metabuf) == FPB_METAPAGE_BLKNO);

	tupdesc = CreateTemplateTupleDesc(2);
	TupleDescInitEntry(tupdesc, 1, "k", INT8OID, -1, 0);
	TupleDescInitEntry(tupdesc, 2, "t", INT8OID, -1, 0);
	bs.sortdesc = tupdesc;
	bs.slot = MakeSingleTupleTableSlot(tupdesc, &TTSOpsVirtual);
	bs.maxmem = 1024;
	bs.mem = palloc(sizeof(FpbKey) * bs.maxmem);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, FPB_PHASE_SCAN);
	reltuples = table_index_build_scan(heap, index, indexInfo, false, true,
									   fpb_build_callback, &bs, NULL);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, FPB_PHASE_SORT);
	if (bs.sort)
		tuplesort_performsort(bs.sort);
	else
		bs.mem = fpb_build_radixsort(bs.mem, bs.nmem);

	{
		const int	idx[] = {PROGRESS_CREATEIDX_SUBPHASE,
			PROGRESS_CREATEIDX_TUPLES_TOTAL,
		PROGRESS_CREATEIDX_TUPLES_DONE};
		const int64 val[] = {FPB_PHASE_LOAD, (int64) bs.indtuples, 0};

		pgstat_progress_update_multi_param(3, idx, val);
	}
	ExecDropSingleTupleTableSlot(bs.slot);
	bs.slot = MakeSingleTupleTableSlot(tupdesc, &TTSOpsMinimalTuple);
	for (int64 i = 0;; i++)
	{
		FpbEntry	e;

		if (bs.sort)
		{
			bool		isnull;

			if (!tuplesort_gettupleslot(bs.sort, true, false, bs.slot, NULL))
				break;
			e.k = (uint64) DatumGetInt64(slot_getattr(bs.slot, 1, &isnull)) ^
				FPB_SIGNBIT;
			e.t = (uint64) DatumGetInt64(slot_getattr(bs.slot, 2, &isnull)) ^
				FPB_SIGNBIT;
		}
		else
		{
			if (i >= bs.nmem)
				break;
			e.k = bs.mem[i].k;
			e.t = bs.mem[i].t;
		}
		e.child = InvalidBlockNumber;
		if (bs.nlevels == 0)
			fpb_build_initlevel(&bs, 0);
		fpb_build_add(&bs, 0, &e);
		if ((++loaded & 0xFFFF) == 0)
		{
			pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE,
										 loaded);
			CHECK_FOR_INTERRUPTS();
		}
	}
	if (bs.sort)
		tuplesort_end(bs.sort);
	else
		pfree(bs.mem);
	ExecDropSingleTupleTableSlot(bs.slot);

	root = fpb_build_finish(&bs, &rootlevel);
	fpb_write_meta(index, metabuf, root, rootlevel, bs.w, bs.x, bs.fillfactor);
	ReleaseBuffer(metabuf);
	pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, loaded);

	/* no two live tuples may share a key (unique.c) */
	if (indexInfo->ii_Unique)
		fpb_unique_check_built(heap, index, false);

	if (RelationNeedsWAL(index))
		log_newpage_range(index, MAIN_FORKNUM, 0,
						  RelationGetNumberOfBlocks(index), true);

	result = (IndexBuildResult *) palloc(sizeof(IndexBuildResult));
	result->heap_tuples = reltuples;
	result->index_tuples = bs.indtuples;
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

	fpb_build_widths(index, &w, &x, &ff);

	fpb_init_metapage(page, 1, 0, w, x, ff, fpb_t1_ns, fpb_tnext_ns);
	PageSetChecksumInplace(page, FPB_METAPAGE_BLKNO);
	smgrextend(RelationGetSmgr(index), INIT_FORKNUM, FPB_METAPAGE_BLKNO,
			   (char *) page, true);
	log_newpage(FPB_SMGR_RNODE(index), INIT_FORKNUM, FPB_METAPAGE_BLKNO,
				page, true);

	fpb_page_init(page, 0, FPB_F_LEAF, w, x);
	PageSetChecksumInplace(page, 1);
	smgrextend(RelationGetSmgr(index), INIT_FORKNUM, 1, (char *) page, true);
	log_newpage(FPB_SMGR_RNODE(index), INIT_FORKNUM, 1, page, true);

	smgrimmedsync(RelationGetSmgr(index), INIT_FORKNUM);
	pfree(page);
}
