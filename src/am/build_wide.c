/*-------------------------------------------------------------------------
 *
 * build_wide.c
 *	  CREATE INDEX of a wide index (README "Wide keys"): the table's values
 *	  and tiebreakers are sorted by a tuplesort with the type's "<" operator
 *	  under the column's collation, then loaded bottom-up as build.c loads a
 *	  narrow index, pages filled by bytes as well as entries.
 *
 * The sort's order is the index's: the type's btree "<" agrees with its
 * comparison function (support function 4), and the prefix agrees with
 * both, so (value, tiebreaker) order is (prefix, value, tiebreaker) order.
 * NULLs sort last, by tiebreaker, as their entries do.  A parallel build's
 * participants sort their shares with the same sort and a worker
 * coordinate, and the leader's sort merges them before the (serial) load.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tableam.h"
#include "build.h"
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type_d.h"
#include "commands/progress.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/typcache.h"

typedef struct FpbWideSpool
{
	Tuplesortstate *sort;
	TupleTableSlot *slot;
	double		indtuples;
} FpbWideSpool;

/* Upper bound of the bytes a value takes in a slot, alignment included. */
Size
fpb_build_slot_bound(const FpbCmp *cmp, const char *f)
{
	if (f == NULL)
		return 0;
	return fpb_full_size(cmp, f) +
		((cmp->typlen < 0 && VARATT_IS_4B(f)) ? 3 : 0);
}

/* Do n entries whose slots take bytes fit the page of level lv? */
bool
fpb_build_fits(const FpbBuildState *bs, const FpbLevel *lv, int n, Size bytes)
{
	return fpb_page_fits(bs->w, bs->x, lv != &bs->levels[0],
						 bs->fillfactor / 100.0, n, bytes);
}

static void
fpb_wide_callback(Relation index, ItemPointer tid, Datum *values,
				  bool *isnull, bool tupleIsAlive, void *state)
{
	FpbWideSpool *sp = (FpbWideSpool *) state;
	TupleTableSlot *slot = sp->slot;

	ExecClearTuple(slot);
	slot->tts_values[0] = values[0];
	slot->tts_isnull[0] = isnull[0];
	slot->tts_values[1] = Int64GetDatum((int64) fpb_make_t(tid, false));
	slot->tts_isnull[1] = false;
	ExecStoreVirtualTuple(slot);
	tuplesort_puttupleslot(sp->sort, slot);
	sp->indtuples++;
}

/*
 * The sort of a wide index's entries: (value, tiebreaker) by the type's "<"
 * under the column's collation, then the tiebreaker.  coord is NULL for a
 * serial build; a parallel build's participants and its leader pass theirs
 * (the sort of every participant must be begun the same way).
 */
static Tuplesortstate *
fpb_wide_sort_begin(Relation index, const FpbCmp *cmp, int workmem,
					SortCoordinate coord, TupleDesc *descp)
{
	Oid			typid = index->rd_opcintype[0];
	TypeCacheEntry *tc = lookup_type_cache(typid, TYPECACHE_LT_OPR);
	TupleDesc	desc;
	AttrNumber	attnums[2] = {1, 2};
	Oid			sortops[2];
	Oid			colls[2];
	bool		nullsfirst[2] = {false, false};

	if (!OidIsValid(tc->lt_opr))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("could not identify an ordering operator for type %s",
						format_type_be(typid))));
	desc = CreateTemplateTupleDesc(2);
	TupleDescInitEntry(desc, 1, "v", typid, -1, 0);
	TupleDescInitEntryCollation(desc, 1, cmp->collation);
	TupleDescInitEntry(desc, 2, "t", INT8OID, -1, 0);
	sortops[0] = tc->lt_opr;
	sortops[1] = Int8LessOperator;
	colls[0] = cmp->collation;
	colls[1] = InvalidOid;
	*descp = desc;
	return tuplesort_begin_heap(desc, 2, attnums, sortops, colls, nullsfirst,
								workmem, coord, TUPLESORT_NONE);
}

/*
 * Feed the entries of the heap tuples that scan returns (all of the table
 * when scan is NULL) to a sort.  Returns the heap tuples seen; adds the
 * entries to *indtuples.
 */
static double
fpb_wide_scan(Relation heap, Relation index, IndexInfo *indexInfo,
			  Tuplesortstate *sort, TupleDesc desc, TableScanDesc scan,
			  bool progress, double *indtuples)
{
	FpbWideSpool sp;
	double		reltuples;

	/* the scan puts virtual tuples */
	sp.sort = sort;
	sp.slot = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
	sp.indtuples = 0;
	reltuples = table_index_build_scan(heap, index, indexInfo, scan != NULL,
									   progress, fpb_wide_callback, &sp,
									   scan);
	ExecDropSingleTupleTableSlot(sp.slot);
	*indtuples += sp.indtuples;
	return reltuples;
}

/*
 * A parallel build participant's share of a wide index: the entries of the
 * blocks the parallel scan hands it, sorted into the shared sort's runs
 * for the leader to merge.
 */
double
fpb_wide_participate(Relation heap, Relation index, IndexInfo *indexInfo,
					 TableScanDesc scan, Sharedsort *sharedsort, int workmem,
					 bool progress, double *indtuples)
{
	SortCoordinateData coord;
	FpbCmp		cmp;
	Tuplesortstate *sort;
	TupleDesc	desc;
	double		reltuples;

	/* the metapage is not written yet: the sort needs no node widths */
	if (!fpb_cmp_init(index, &cmp, 0, 0))
		elog(ERROR, "fpbtree: wide build of a narrow index");
	coord.isWorker = true;
	coord.nParticipants = -1;
	coord.sharedsort = sharedsort;
	sort = fpb_wide_sort_begin(index, &cmp, workmem, &coord, &desc);
	reltuples = fpb_wide_scan(heap, index, indexInfo, sort, desc, scan,
							  progress, indtuples);
	tuplesort_performsort(sort);
	tuplesort_end(sort);
	return reltuples;
}

/*
 * Scan, sort and load a wide index; with fp, the participants of a parallel
 * build scan and sort (fpb_wide_participate) and this process merges their
 * runs.  Returns the entries loaded; sets *reltuples and *indtuples as the
 * table scan counted them.
 */
int64
fpb_build_wide(FpbBuildState *bs, Relation heap, IndexInfo *indexInfo,
			   FpbParallel *fp, double *reltuples, double *indtuples)
{
	Relation	index = bs->index;
	const FpbCmp *cmp = bs->cmp;
	FmgrInfo   *encproc = index_getprocinfo(index, 1, FPB_ENCODE_PROC);
	TupleDesc	desc;
	Tuplesortstate *sort;
	TupleTableSlot *slot;
	MemoryContext valcxt[2];
	int			cur = 0;
	int64		loaded = 0;
	FpbEntry	prev = fpb_mkkey(0, 0);

	*indtuples = 0;
	if (fp)
	{
		/* the leader's sort merges the participants' runs */
		*reltuples = fpb_parallel_scan(fp, heap, index, indexInfo, indtuples);
		sort = fpb_wide_sort_begin(index, cmp, maintenance_work_mem,
								   fpb_parallel_coordinate(fp), &desc);
	}
	else
	{
		sort = fpb_wide_sort_begin(index, cmp, maintenance_work_mem, NULL,
								   &desc);
		*reltuples = fpb_wide_scan(heap, index, indexInfo, sort, desc, NULL,
								   true, indtuples);
	}

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, 2);
	tuplesort_performsort(sort);
	{
		const int	idx[] = {PROGRESS_CREATEIDX_SUBPHASE,
			PROGRESS_CREATEIDX_TUPLES_TOTAL,
		PROGRESS_CREATEIDX_TUPLES_DONE};
		const int64 val[] = {3, (int64) *indtuples, 0};

		pgstat_progress_update_multi_param(3, idx, val);
	}
	/* the sort hands back minimal tuples */
	slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);

	/*
	 * Values live until their page is written: those of the page being
	 * filled are in valcxt[cur], the other context is free.  The entries a
	 * new page begins with (one or, when the last entry of the page before
	 * moved on to be its high key, two) were read before it began, so they
	 * are copied into the other context, which becomes cur.  Separators are
	 * copied (build.c) and outlive both.
	 */
	valcxt[0] = AllocSetContextCreate(CurrentMemoryContext, "fpbtree values",
									  ALLOCSET_DEFAULT_SIZES);
	valcxt[1] = AllocSetContextCreate(CurrentMemoryContext, "fpbtree values",
									  ALLOCSET_DEFAULT_SIZES);
	while (tuplesort_gettupleslot(sort, true, false, slot, NULL))
	{
		bool		isnull,
					tnull;
		Datum		v = slot_getattr(slot, 1, &isnull);
		uint64		t = (uint64) DatumGetInt64(slot_getattr(slot, 2,
															&tnull));
		FpbEntry	e;
		MemoryContext old;
		BlockNumber leaf;

		e = fpb_mkkey(FPB_KEY_MAX, t | FPB_T_NULLBIT);
		if (!isnull)
		{
			old = MemoryContextSwitchTo(valcxt[cur]);
			e.k = fpb_encode(encproc, cmp->collation, v);
			e.t = t;
			e.f = fpb_full_image(cmp, v, index);
			if (cmp->typlen > 0 || e.f == DatumGetPointer(v))
				fpb_entry_keep_palloc(cmp, &e);
			MemoryContextSwitchTo(old);
		}
		e.k = FPB_WIDE_PREFIX(e.k);
		if (loaded > 0 && fpb_entry_cmp(cmp, &prev, &e) >= 0)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg_internal("fpbtree: build sorted entry %s after %s",
									 fpb_keydesc(e.k, e.t),
									 fpb_keydesc(prev.k, prev.t))));
		prev = e;
		if (bs->nlevels == 0)
			fpb_build_initlevel(bs, 0);
		leaf = bs->levels[0].blkno;
		fpb_build_add(bs, 0, &e);
		if (bs->levels[0].blkno != leaf)
		{
			FpbLevel   *lv = &bs->levels[0];

			cur = 1 - cur;
			MemoryContextReset(valcxt[cur]);
			old = MemoryContextSwitchTo(valcxt[cur]);
			for (int i = 0; i < lv->n; i++)
				fpb_entry_keep_palloc(cmp, &lv->ents[i]);
			MemoryContextSwitchTo(old);
		}
		if ((++loaded & 0xFFFF) == 0)
		{
			pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE,
										 loaded);
			CHECK_FOR_INTERRUPTS();
		}
	}
	tuplesort_end(sort);
	ExecDropSingleTupleTableSlot(slot);
	return loaded;
}
