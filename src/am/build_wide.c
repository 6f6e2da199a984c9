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
 * NULLs sort last, by tiebreaker, as their entries do.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "access/tableam.h"
#include "build.h"
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type_d.h"
#include "commands/progress.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

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
 * Scan, sort and load a wide index.  Returns the entries loaded; sets
 * *reltuples and *indtuples as the table scan counted them.
 */
int64
fpb_build_wide(FpbBuildState *bs, Relation heap, IndexInfo *indexInfo,
			   double *reltuples, double *indtuples)
{
	Relation	index = bs->index;
	const FpbCmp *cmp = bs->cmp;
	Oid			typid = TupleDescAttr(RelationGetDescr(index), 0)->atttypid;

	/*
	 * The family's own "<": not the type's default one for the pattern
	 * classes; (anyarray, anyarray) and the like for polymorphic classes.
	 */
	Oid			ltopr = get_opfamily_member(index->rd_opfamily[0],
											index->rd_opcintype[0],
											index->rd_opcintype[0],
											BTLessStrategyNumber);
	FmgrInfo   *encproc = index_getprocinfo(index, 1, FPB_ENCODE_PROC);
	TupleDesc	desc;
	FpbWideSpool sp;
	AttrNumber	attnums[2] = {1, 2};
	Oid			sortops[2];
	Oid			colls[2];
	bool		nullsfirst[2] = {false, false};
	MemoryContext valcxt[2];
	int			cur = 0;
	int64		loaded = 0;
	FpbEntry	prev = fpb_mkkey(0, 0);

	if (!OidIsValid(ltopr))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("could not identify an ordering operator for type %s",
						format_type_be(typid))));
	desc = CreateTemplateTupleDesc(2);
	TupleDescInitEntry(desc, 1, "v", typid, -1, 0);
	TupleDescInitEntryCollation(desc, 1, cmp->collation);
	TupleDescInitEntry(desc, 2, "t", INT8OID, -1, 0);
	sortops[0] = ltopr;
	sortops[1] = Int8LessOperator;
	colls[0] = cmp->collation;
	colls[1] = InvalidOid;
	sp.sort = tuplesort_begin_heap(desc, 2, attnums, sortops, colls,
								   nullsfirst, maintenance_work_mem, NULL,
								   TUPLESORT_NONE);
	sp.slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	sp.indtuples = 0;

	/* the scan puts virtual tuples; the sort hands back minimal ones */
	{
		TupleTableSlot *vslot = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
		TupleTableSlot *mslot = sp.slot;

		sp.slot = vslot;
		*reltuples = table_index_build_scan(heap, index, indexInfo, false,
											true, fpb_wide_callback, &sp,
											NULL);
		ExecDropSingleTupleTableSlot(vslot);
		sp.slot = mslot;
	}
	*indtuples = sp.indtuples;

	pgstat_progress_update_param(PROGRESS_CREATEIDX_SUBPHASE, 2);
	tuplesort_performsort(sp.sort);
	{
		const int	idx[] = {PROGRESS_CREATEIDX_SUBPHASE,
			PROGRESS_CREATEIDX_TUPLES_TOTAL,
		PROGRESS_CREATEIDX_TUPLES_DONE};
		const int64 val[] = {3, (int64) sp.indtuples, 0};

		pgstat_progress_update_multi_param(3, idx, val);
	}

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
	while (tuplesort_gettupleslot(sp.sort, true, false, sp.slot, NULL))
	{
		bool		isnull,
					tnull;
		Datum		v = slot_getattr(sp.slot, 1, &isnull);
		uint64		t = (uint64) DatumGetInt64(slot_getattr(sp.slot, 2,
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
	tuplesort_end(sp.sort);
	ExecDropSingleTupleTableSlot(sp.slot);
	return loaded;
}
