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

#include "access/detoast.h"
#include "access/stratnum.h"
#include "access/tableam.h"
#include "build.h"
#include "catalog/pg_collation_d.h"
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type_d.h"
#include "commands/progress.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/pg_locale.h"
#include "utils/rel.h"
#include "utils/typcache.h"

typedef struct FpbWideSpool
{
	Tuplesortstate *sort;
	TupleTableSlot *slot;
	double		indtuples;
	const FpbCmp *cmp;
	FmgrInfo   *encproc;		/* one column: its prefix procedure */
	MemoryContext tmpcxt;		/* per row: its values fetched from TOAST,
								 * what the prefix computation allocates */
	TupleTableSlot *mtslot;		/* one column: the scan's formed tuples */
	MinimalTuple mtuple;		/* sorted tuples, formed in place (made at
								 * the first value), and where it lives */
	Size		mtroom;			/* varlena: bytes mtuple has room for */
	MemoryContext scancxt;
	bool		sortk;			/* sorted by the prefix first (one column:
								 * unless it is a constant or the column is
								 * text under "C"; multi: in the
								 * coded format, by its sort key, or when
								 * the first column is wide, its prefix not
								 * constant) */
	int			kpos;			/* multi: slot column of the prefix, or 0 */
	int			spos;			/* multi, coded prefix: slot column of the
								 * leading sort key (fpb_multi_sortkey) */
	int			wcol;			/* ... and the first wide key column, whose
								 * prefix it ends with, or -1 */
	FmgrInfo   *wproc;			/* that column's prefix procedure */
	Oid			wcoll;			/* and the collation to call it with */
	int			natts;			/* multi: the index's columns */
	int			keypos[INDEX_MAX_KEYS]; /* multi: slot column of a narrow
										 * key column's key, or 0 */
	int			valpos;			/* multi: slot column of the first value */
} FpbWideSpool;

/*
 * multi: the sorted tuples hold the tiebreaker, the sort key of a coded
 * prefix, the prefix (when sorted by either), the narrow key columns' keys,
 * then the values: the integers first, at fixed offsets, which the sort
 * reads on ties without walking the tuple.
 */
#define FPB_MSLOT_T		0

/*
 * One column: the prefix (its top bit flipped, so that int8 "<" sorts it
 * as unsigned), the tiebreaker, the value; sorted by prefix, value, then
 * tiebreaker.  The prefix is computed once, by whichever process scans the
 * row (in a parallel build, in parallel), and spares the sort most calls of
 * the type's comparison; where the sort leaves it out (sortk false), the
 * load computes it.  The two integers come first and are not NULL
 * but for NULL values, so that the sort reads every column of a tuple at
 * a fixed offset instead of walking it (it does so on every tie of equal
 * values).
 */
#define FPB_WSLOT_K		0
#define FPB_WSLOT_T		1
#define FPB_WSLOT_V		2

/* A prefix as a sort key: int8 "<" on it with its top bit flipped */
static inline Datum
fpb_sortk_datum(uint64 k)
{
	return Int64GetDatum((int64) (FPB_WIDE_PREFIX(k) ^ FPB_T_NULLBIT));
}

/* The prefix a sorted tuple carries in column attnum */
static inline uint64
fpb_sortk_get(TupleTableSlot *slot, int attnum)
{
	bool		isnull;

	return (uint64) DatumGetInt64(slot_getattr(slot, attnum, &isnull)) ^
		FPB_T_NULLBIT;
}

/*
 * One column: the prefix, tiebreaker and value of the sorted tuple in
 * slot.  A tuple without NULLs holds the two integers at offsets 0 and 8
 * and the value at 16, aligned for any type, and is read in place: the
 * generic deforming of three columns took about a third of a uuid load's
 * work (bench/results/NOTES.md).  A NULL entry's through the slot.
 */
static inline void
fpb_wide_read(TupleTableSlot *slot, Form_pg_attribute vatt, uint64 *k,
			  uint64 *t, Datum *v, bool *isnull)
{
	MinimalTuple mt = ((MinimalTupleTableSlot *) slot)->mintuple;
	bool		knull;

	if (!(mt->t_infomask & HEAP_HASNULL))
	{
		char	   *data = (char *) mt + mt->t_hoff - MINIMAL_TUPLE_OFFSET;
		int64		i;

		memcpy(&i, data + 8 * FPB_WSLOT_K, sizeof(int64));
		*k = (uint64) i ^ FPB_T_NULLBIT;
		memcpy(&i, data + 8 * FPB_WSLOT_T, sizeof(int64));
		*t = (uint64) i;
		*v = fetch_att(data + 8 * FPB_WSLOT_V, vatt->attbyval, vatt->attlen);
		*isnull = false;
		return;
	}
	*k = (uint64) DatumGetInt64(slot_getattr(slot, FPB_WSLOT_K + 1, &knull)) ^
		FPB_T_NULLBIT;
	*t = (uint64) DatumGetInt64(slot_getattr(slot, FPB_WSLOT_T + 1, &knull));
	*v = slot_getattr(slot, FPB_WSLOT_V + 1, isnull);
}

/* The bytes a value takes in a compacted slot, alignment included. */
Size
fpb_build_slot_bound(const FpbCmp *cmp, const char *f)
{
	if (f == NULL)
		return 0;
	/*
	 * The bytes layout.c's compacted rewrite gives the value: its size,
	 * rounded up for an index tuple (MAXALIGNed anyway) and a 4-byte
	 * varlena header (fpb_slot_align).
	 */
	if (cmp->multi)
		return !fpb_is_packed(f) ? MAXALIGN(fpb_full_size(cmp, f)) :
			fpb_full_size(cmp, f) -
			(fpb_packed_skippable(cmp->rowskip, f) ?
			 fpb_rowskip_len(cmp->rowskip) : 0);
	if (cmp->typlen < 0 && VARATT_IS_4B(f))
		return INTALIGN(fpb_full_size(cmp, f));
	/* a suffix slot leaves the prefix's bytes out */
	return fpb_full_size(cmp, f) - cmp->skip;
}

/*
 * Do n entries whose slots take bytes fit the page of level lv?  With
 * room, a leaf's slots must also leave the fillfactor's share of their
 * bytes free, as each leaf node leaves its share of entries: a leaf filled
 * by its slots would split at its first insert.  Not an internal page's:
 * at a low fillfactor and large values its downlinks would then take a
 * page each, and the levels never narrow to a root.  Without room, whether
 * they fit at all (the high key beside them, the choice of a page of runs).
 */
bool
fpb_build_fits(const FpbBuildState *bs, FpbLevel *lv, int n, Size bytes,
			   bool room)
{
	bool		leaf = (lv == &bs->levels[0]);
	int			m;

	/* fpb_page_fits, with the room of m leaf nodes kept: asked per entry */
	if (lv->fitper == 0)
		lv->fitper = fpb_page_per(bs->x, !leaf, bs->fillfactor / 100.0);
	m = (n + lv->fitper - 1) / lv->fitper;
	if (lv->fitm != m + 1)
	{
		lv->fitroom = fpb_page_slot_room(bs->w, bs->x, m);
		lv->fitm = m + 1;
	}
	if (lv->fitroom < 0)
		return false;
	/* bytes / fill <= room, rounded down, in integers */
	if (room && leaf)
		return (uint64) bytes * 100 <
			((uint64) lv->fitroom + 1) * (uint64) bs->fillfactor;
	return bytes <= (Size) lv->fitroom;
}

/*
 * One column: form the sorted tuple of the slot's three columns in
 * sp->mtuple, without NULLs, instead of through the slot: the generic
 * forming cost more than the sort's comparisons (NOTES, 2026-12-01).
 * Every such tuple has the first one's header and layout, the integers at
 * offsets 0 and 8 and the value at 16 (aligned for any type), so the first
 * is formed the generic way and the others copy its header.  A varlena is
 * stored as heap_fill_tuple stores it: a short header kept, a plain one
 * made short where it can be, else as it is.  Returns false for values it
 * leaves to the slot: compressed and out-of-line ones.
 */
static bool
fpb_wide_form(FpbWideSpool *sp, TupleTableSlot *slot, Datum value)
{
	Form_pg_attribute vatt = TupleDescAttr(slot->tts_tupleDescriptor,
										   FPB_WSLOT_V);
	MinimalTuple mt;
	char	   *data;
	Size		hdr;
	Size		vlen;
	bool		toshort = false;
	int64		i;

	if (vatt->attlen == -1)
	{
		struct varlena *v = (struct varlena *) DatumGetPointer(value);

		/* a short header is a 1-byte one too, an external pointer's */
		if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v))
			return false;
		if (VARATT_IS_SHORT(v))
			vlen = VARSIZE_SHORT(v);
		else if (vatt->attstorage != TYPSTORAGE_PLAIN &&
				 VARATT_CAN_MAKE_SHORT(v))
		{
			vlen = VARATT_CONVERTED_SHORT_SIZE(v);
			toshort = true;
		}
		else
			vlen = VARSIZE(v);
	}
	else if (vatt->attlen > 0)
		vlen = vatt->attlen;
	else
		return false;

	if (sp->mtuple == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(sp->scancxt);

		sp->mtuple = ExecCopySlotMinimalTuple(slot);
		sp->mtroom = sp->mtuple->t_len;
		MemoryContextSwitchTo(old);
		Assert(!(sp->mtuple->t_infomask & (HEAP_HASNULL | HEAP_HASEXTERNAL)));
		return true;
	}
	mt = sp->mtuple;
	hdr = mt->t_hoff - MINIMAL_TUPLE_OFFSET;
	if (hdr + 8 * FPB_WSLOT_V + vlen > sp->mtroom)
	{
		sp->mtroom = Max(hdr + 8 * FPB_WSLOT_V + vlen, 2 * sp->mtroom);
		sp->mtuple = mt = repalloc(mt, sp->mtroom);
	}
	data = (char *) mt + hdr;
	i = DatumGetInt64(slot->tts_values[FPB_WSLOT_K]);
	memcpy(data + 8 * FPB_WSLOT_K, &i, sizeof(int64));
	i = DatumGetInt64(slot->tts_values[FPB_WSLOT_T]);
	memcpy(data + 8 * FPB_WSLOT_T, &i, sizeof(int64));
	if (vatt->attbyval)
		store_att_byval(data + 8 * FPB_WSLOT_V, value, vatt->attlen);
	else if (toshort)
	{
		SET_VARSIZE_SHORT(data + 8 * FPB_WSLOT_V, vlen);
		memcpy(data + 8 * FPB_WSLOT_V + 1, VARDATA(DatumGetPointer(value)),
			   vlen - 1);
	}
	else
		memcpy(data + 8 * FPB_WSLOT_V, DatumGetPointer(value), vlen);
	mt->t_len = hdr + 8 * FPB_WSLOT_V + vlen;
	return true;
}

/*
 * The row's values with those stored out of line fetched, into sp->tmpcxt
 * (own holds the array when one is), as index_form_tuple fetches them for
 * btree: the sort would otherwise fetch a value at each comparison, and
 * its tuples would point into the table's TOAST data.
 */
static Datum *
fpb_wide_fetch(FpbWideSpool *sp, Relation index, Datum *values, bool *isnull,
			   int natts, Datum *own)
{
	TupleDesc	desc = RelationGetDescr(index);
	Datum	   *res = values;

	for (int i = 0; i < natts; i++)
	{
		MemoryContext old;

		if (isnull[i] || TupleDescAttr(desc, i)->attlen != -1 ||
			!VARATT_IS_EXTERNAL(DatumGetPointer(values[i])))
			continue;
		if (res == values)
		{
			memcpy(own, values, sizeof(Datum) * natts);
			res = own;
		}
		old = MemoryContextSwitchTo(sp->tmpcxt);
		own[i] = PointerGetDatum(detoast_external_attr((struct varlena *)
													   DatumGetPointer(values[i])));
		MemoryContextSwitchTo(old);
	}
	return res;
}

static void
fpb_wide_callback(Relation index, ItemPointer tid, Datum *values,
				  bool *isnull, bool tupleIsAlive, void *state)
{
	FpbWideSpool *sp = (FpbWideSpool *) state;
	TupleTableSlot *slot = sp->slot;
	Datum		own[INDEX_MAX_KEYS];

	ExecClearTuple(slot);
	/* what the row's last call kept in tmpcxt went with its tuple */
	MemoryContextReset(sp->tmpcxt);
	values = fpb_wide_fetch(sp, index, values, isnull,
							sp->cmp->multi ? sp->natts : 1, own);
	if (sp->cmp->multi)
	{
		/* the values, and the key of each narrow key column to sort by */
		slot->tts_values[FPB_MSLOT_T] =
			Int64GetDatum((int64) fpb_make_t(tid, false));
		slot->tts_isnull[FPB_MSLOT_T] = false;
		for (int i = 0; i < sp->natts; i++)
		{
			int			kp = i < sp->cmp->nkeys ? sp->keypos[i] : 0;

			slot->tts_values[sp->valpos + i] = values[i];
			slot->tts_isnull[sp->valpos + i] = isnull[i];
			if (kp == 0)
				continue;
			slot->tts_isnull[kp] = isnull[i];
			slot->tts_values[kp] = (Datum) 0;
			if (!isnull[i])
			{
				const FpbCmp *col = &sp->cmp->cols[i];
				uint64		k = fpb_encode(col->encproc, col->collation,
										   values[i]);

				/* signed order of the key with its top bit flipped: its order */
				k = fpb_col_key(col, k) ^ FPB_T_NULLBIT;
				slot->tts_values[kp] = Int64GetDatum((int64) k);
			}
		}
		if (sp->kpos)
		{
			MemoryContext old = MemoryContextSwitchTo(sp->tmpcxt);
			uint64		keys[INDEX_MAX_KEYS];
			uint64		p;

			fpb_multi_row_keys(sp->cmp, index, values, isnull, keys);
			p = fpb_multi_prefix(sp->cmp, sp->cmp->nkeys, keys, isnull, 0);
			if (sp->spos)
			{
				bool		havew = sp->wcol >= 0 && !isnull[sp->wcol];
				uint64		s;

				s = fpb_multi_sortkey(sp->cmp, keys, isnull,
									  fpb_make_t(tid, false), havew,
									  havew ? fpb_encode(sp->wproc, sp->wcoll,
														 values[sp->wcol]) : 0);

				slot->tts_values[sp->spos] = fpb_sortk_datum(s);
				slot->tts_isnull[sp->spos] = false;
			}
			MemoryContextSwitchTo(old);
			slot->tts_values[sp->kpos] = fpb_sortk_datum(p);
			slot->tts_isnull[sp->kpos] = false;
		}
		ExecStoreVirtualTuple(slot);
		tuplesort_puttupleslot(sp->sort, slot);
		sp->indtuples++;
		return;
	}
	slot->tts_values[FPB_WSLOT_K] = (Datum) 0;
	slot->tts_isnull[FPB_WSLOT_K] = isnull[0];
	if (!isnull[0] && sp->sortk)
	{
		MemoryContext old = MemoryContextSwitchTo(sp->tmpcxt);
		uint64		k = fpb_encode(sp->encproc, sp->cmp->pfxcoll, values[0]);

		MemoryContextSwitchTo(old);
		slot->tts_values[FPB_WSLOT_K] = fpb_sortk_datum(k);
	}
	slot->tts_values[FPB_WSLOT_V] = values[0];
	slot->tts_isnull[FPB_WSLOT_V] = isnull[0];
	slot->tts_values[FPB_WSLOT_T] =
		Int64GetDatum((int64) fpb_make_t(tid, false));
	slot->tts_isnull[FPB_WSLOT_T] = false;
	ExecStoreVirtualTuple(slot);
	if (sp->mtslot != NULL && !isnull[0] &&
		fpb_wide_form(sp, slot, values[0]))
	{
		ExecStoreMinimalTuple(sp->mtuple, sp->mtslot, false);
		tuplesort_puttupleslot(sp->sort, sp->mtslot);
	}
	else
		tuplesort_puttupleslot(sp->sort, slot);
	sp->indtuples++;
}

/*
 * The sort of a multi-column index: the tuples hold the tiebreaker, every
 * column's value and, for each narrow key column, its key.  They are
 * sorted by each key column (a wide one by its value with the type's "<"
 * under the column's collation, a narrow one by its key), then by the
 * tiebreaker, NULLs last: the index's order (multicol.c).
 */
static TupleDesc
fpb_build_multi_sortdesc(Relation index, FpbWideSpool *sp, int workmem,
						 SortCoordinate coord)
{
	const FpbCmp *cmp = sp->cmp;
	TupleDesc	itd = RelationGetDescr(index);
	int			natts = itd->natts;
	int			ncols = FPB_MSLOT_T + 1;
	AttrNumber	attnums[INDEX_MAX_KEYS + 2];
	Oid			sortops[INDEX_MAX_KEYS + 2];
	Oid			colls[INDEX_MAX_KEYS + 2];
	bool		nullsfirst[INDEX_MAX_KEYS + 2];
	int			o;				/* sort keys before the columns' */
	TupleDesc	desc;

	sp->natts = natts;

	/*
	 * The row's prefix leads the sort (it never decreases along the index
	 * order): computed once per row, by the participant that scans it, it
	 * spares the load its computation, and the sort most calls of a wide
	 * first column's "<".  In the coded format its 64-bit continuation
	 * (fpb_multi_sortkey) leads instead: it separates rows whose columns
	 * have few distinct values, whose ties the tuplesort would resolve by
	 * comparing column after column.  A narrow first column's prefix in the
	 * first format is its key, sorted as an integer already.
	 */
	sp->kpos = 0;
	sp->spos = 0;
	if (cmp->cols[0].encproc ? cmp->mprefix == FPB_MPREFIX_CODED :
		!fpb_prefix_is_const(index_getprocinfo(index, 1, FPB_ENCODE_PROC),
							 cmp->pfxcoll))
	{
		if (cmp->cols[0].encproc)
			sp->spos = ncols++;
		sp->kpos = ncols++;
	}
	sp->wcol = -1;
	for (int j = 0; sp->spos && j < cmp->nkeys; j++)
	{
		const FpbCmp *col = &cmp->cols[j];

		if (col->encproc)
			continue;

		/*
		 * A sort key is never stored: a collation without rules may take its
		 * prefixes under "C" whatever the index records.
		 */
		sp->wproc = index_getprocinfo(index, j + 1, FPB_ENCODE_PROC);
		sp->wcoll = fpb_collation_is_codepoint(col->collation) ?
			C_COLLATION_OID : col->collation;
		if (!fpb_prefix_is_const(sp->wproc, sp->wcoll))
			sp->wcol = j;
		break;
	}
	for (int j = 0; j < cmp->nkeys; j++)
		sp->keypos[j] = cmp->cols[j].encproc ? ncols++ : 0;
	sp->valpos = ncols;
	ncols += natts;
	sp->sortk = sp->kpos != 0;
	o = sp->sortk ? 1 : 0;
	if (sp->sortk)
	{
		attnums[0] = (sp->spos ? sp->spos : sp->kpos) + 1;
		sortops[0] = Int8LessOperator;
		colls[0] = InvalidOid;
		nullsfirst[0] = false;
	}
	desc = CreateTemplateTupleDesc(ncols);
	TupleDescInitEntry(desc, FPB_MSLOT_T + 1, "t", INT8OID, -1, 0);
	for (int i = 0; i < natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(itd, i);

		TupleDescInitEntry(desc, sp->valpos + 1 + i, NULL, att->atttypid,
						   att->atttypmod, 0);
		if (i < cmp->nkeys)
			TupleDescInitEntryCollation(desc, sp->valpos + 1 + i,
										index->rd_indcollation[i]);
	}
	for (int j = 0; j < cmp->nkeys; j++)
	{
		bool		rev = cmp->cols[j].desc;
		Oid			typid = sp->keypos[j] ? INT8OID : index->rd_opcintype[j];
		TypeCacheEntry *tc = lookup_type_cache(typid, TYPECACHE_LT_OPR |
											   TYPECACHE_GT_OPR);

		sortops[o + j] = rev ? tc->gt_opr : tc->lt_opr;
		/* a wide column sorts by its family's own order (pattern classes) */
		if (sp->keypos[j] == 0)
			sortops[o + j] = get_opfamily_member(index->rd_opfamily[j],
												 index->rd_opcintype[j],
												 index->rd_opcintype[j],
												 rev ? BTGreaterStrategyNumber :
												 BTLessStrategyNumber);
		if (!OidIsValid(sortops[o + j]))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_FUNCTION),
					 errmsg("could not identify an ordering operator for type %s",
							format_type_be(typid))));
		nullsfirst[o + j] = cmp->cols[j].nullsfirst;
		if (sp->keypos[j])
		{
			TupleDescInitEntry(desc, sp->keypos[j] + 1, NULL, INT8OID, -1, 0);
			attnums[o + j] = sp->keypos[j] + 1;
			colls[o + j] = InvalidOid;
		}
		else
		{
			attnums[o + j] = sp->valpos + 1 + j;
			colls[o + j] = index->rd_indcollation[j];
		}
	}
	attnums[o + cmp->nkeys] = FPB_MSLOT_T + 1;
	sortops[o + cmp->nkeys] = Int8LessOperator;
	colls[o + cmp->nkeys] = InvalidOid;
	nullsfirst[o + cmp->nkeys] = false;
	if (sp->sortk)
		TupleDescInitEntry(desc, sp->kpos + 1, "k", INT8OID, -1, 0);
	if (sp->spos)
		TupleDescInitEntry(desc, sp->spos + 1, "s", INT8OID, -1, 0);
	sp->sort = tuplesort_begin_heap(desc, o + cmp->nkeys + 1, attnums,
									sortops, colls,
									nullsfirst, workmem, coord,
									TUPLESORT_NONE);
	return desc;
}

/*
 * Begin the sort of a wide index's entries into sp->sort; returns the
 * descriptor of its tuples.  One column: (prefix, value, tiebreaker) by the
 * prefix, the family's "<" under the column's collation, then the
 * tiebreaker; the prefix agrees with the "<", so this is the order of the
 * values, and that of the entries, also without the prefix.  coord
 * is NULL for a serial build; a parallel build's participants and its
 * leader pass theirs (every participant's sort must be begun the same way).
 */
static TupleDesc
fpb_wide_sort_begin(Relation index, const FpbCmp *cmp, int workmem,
					SortCoordinate coord, FpbWideSpool *sp)
{
	Oid			typid = TupleDescAttr(RelationGetDescr(index), 0)->atttypid;

	/*
	 * The family's own "<": not the type's default one for the pattern
	 * classes; (anyarray, anyarray) and the like for polymorphic classes.
	 */
	Oid			ltopr = get_opfamily_member(index->rd_opfamily[0],
											index->rd_opcintype[0],
											index->rd_opcintype[0],
											BTLessStrategyNumber);
	TupleDesc	desc;
	/* sort keys: prefix, value, tiebreaker */
	AttrNumber	attnums[3] = {FPB_WSLOT_K + 1, FPB_WSLOT_V + 1, FPB_WSLOT_T + 1};
	Oid			sortops[3] = {Int8LessOperator, InvalidOid, Int8LessOperator};
	Oid			colls[3] = {InvalidOid, InvalidOid, InvalidOid};
	bool		nullsfirst[3] = {false, false, false};

	memset(sp, 0, sizeof(*sp));
	sp->cmp = cmp;
	sp->encproc = cmp->multi ? NULL :
		index_getprocinfo(index, 1, FPB_ENCODE_PROC);
	/* text under "C": tuplesort abbreviates the value (README, "Build") */
	sp->sortk = !cmp->multi &&
		!fpb_prefix_is_const(sp->encproc, cmp->pfxcoll) &&
		!(cmp->textc && lc_collate_is_c(cmp->collation));
	if (cmp->multi)
		return fpb_build_multi_sortdesc(index, sp, workmem, coord);
	if (!OidIsValid(ltopr))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("could not identify an ordering operator for type %s",
						format_type_be(typid))));
	desc = CreateTemplateTupleDesc(3);
	TupleDescInitEntry(desc, FPB_WSLOT_K + 1, "k", INT8OID, -1, 0);
	TupleDescInitEntry(desc, FPB_WSLOT_T + 1, "t", INT8OID, -1, 0);
	TupleDescInitEntry(desc, FPB_WSLOT_V + 1, "v", typid, -1, 0);
	TupleDescInitEntryCollation(desc, FPB_WSLOT_V + 1, cmp->collation);
	sortops[1] = ltopr;
	colls[1] = cmp->collation;
	/* without the prefix: (value, tiebreaker) */
	sp->sort = sp->sortk ?
		tuplesort_begin_heap(desc, 3, attnums, sortops, colls,
							 nullsfirst, workmem, coord, TUPLESORT_NONE) :
		tuplesort_begin_heap(desc, 2, attnums + 1, sortops + 1, colls + 1,
							 nullsfirst, workmem, coord, TUPLESORT_NONE);
	return desc;
}

/*
 * Feed the entries of the heap tuples that scan returns (all of the table
 * when scan is NULL) to sp's sort.  Returns the heap tuples seen; adds the
 * entries to *indtuples.
 */
static double
fpb_wide_scan(Relation heap, Relation index, IndexInfo *indexInfo,
			  FpbWideSpool *sp, TupleDesc desc, TableScanDesc scan,
			  bool progress, double *indtuples)
{
	double		reltuples;

	/* the scan puts virtual tuples, or formed ones (fpb_wide_callback) */
	sp->slot = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
	sp->mtslot = !sp->cmp->multi ?
		MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple) : NULL;
	sp->mtuple = NULL;
	sp->mtroom = 0;
	sp->scancxt = CurrentMemoryContext;
	sp->indtuples = 0;
	sp->tmpcxt = AllocSetContextCreate(CurrentMemoryContext,
									   "fpbtree prefix", ALLOCSET_SMALL_SIZES);
	reltuples = table_index_build_scan(heap, index, indexInfo, scan != NULL,
									   progress, fpb_wide_callback, sp,
									   scan);
	MemoryContextDelete(sp->tmpcxt);
	ExecDropSingleTupleTableSlot(sp->slot);
	sp->slot = NULL;
	if (sp->mtslot != NULL)
	{
		ExecDropSingleTupleTableSlot(sp->mtslot);
		sp->mtslot = NULL;
	}
	if (sp->mtuple != NULL)
		pfree(sp->mtuple);
	sp->mtuple = NULL;
	*indtuples += sp->indtuples;
	return reltuples;
}

/*
 * A parallel build participant's share of a wide index (one column, or
 * several): the entries of the blocks the parallel scan hands it, sorted
 * into the shared sort's runs for the leader to merge.
 */
double
fpb_wide_participate(Relation heap, Relation index, IndexInfo *indexInfo,
					 TableScanDesc scan, Sharedsort *sharedsort, int workmem,
					 bool progress, double *indtuples)
{
	SortCoordinateData coord;
	FpbCmp		cmp;
	FpbWideSpool sp;
	TupleDesc	desc;
	double		reltuples;

	/* the metapage is not written yet: the sort needs no node widths */
	if (!fpb_cmp_init(index, &cmp, 0, 0, NULL))
		elog(ERROR, "fpbtree: parallel wide build of an unexpected index");
	coord.isWorker = true;
	coord.nParticipants = -1;
	coord.sharedsort = sharedsort;
	desc = fpb_wide_sort_begin(index, &cmp, workmem, &coord, &sp);
	reltuples = fpb_wide_scan(heap, index, indexInfo, &sp, desc, scan,
							  progress, indtuples);
	tuplesort_performsort(sp.sort);
	tuplesort_end(sp.sort);
	return reltuples;
}

/*
 * The values of the load's current page, kept until it is written: copied
 * one after another into blocks of one of two contexts in turn.  A palloc
 * and its bookkeeping per value cost a uuid build's load a tenth of its
 * instructions (NOTES, 2026-12-01).
 */
typedef struct FpbValArena
{
	MemoryContext cxt;
	char	   *next;			/* free bytes of the current block */
	char	   *end;
} FpbValArena;

#define FPB_ARENA_BLOCK		4096

static void
fpb_arena_init(FpbValArena *a)
{
	/* the first block outlives resets and holds a page's values */
	a->cxt = AllocSetContextCreate(CurrentMemoryContext, "fpbtree values",
								   0, 32 * 1024, ALLOCSET_DEFAULT_MAXSIZE);
	a->next = a->end = NULL;
}

static void
fpb_arena_reset(FpbValArena *a)
{
	MemoryContextReset(a->cxt);
	a->next = a->end = NULL;
}

/* fpb_entry_keep_palloc into a */
static void
fpb_arena_keep(const FpbCmp *cmp, FpbValArena *a, FpbEntry *e)
{
	Size		size,
				need;

	if (e->f == NULL || e->f == FPB_FULL_PLUSINF)
		return;
	size = fpb_full_size(cmp, e->f);
	need = MAXALIGN(size);
	if ((Size) (a->end - a->next) < need)
	{
		Size		blk = Max(need, FPB_ARENA_BLOCK);

		a->next = MemoryContextAlloc(a->cxt, blk);
		a->end = a->next + blk;
	}
	memcpy(a->next, e->f, size);
	e->f = a->next;
	a->next += need;
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
	TupleDesc	desc;
	Form_pg_attribute vatt;
	FpbWideSpool sp;
	FpbValArena val[2];
	int			cur = 0;
	int64		loaded = 0;
	bool		textcpfx;
	FpbEntry	prev = fpb_mkkey(0, 0);

	*indtuples = 0;
	if (fp)
	{
		/* the leader's sort merges the participants' runs */
		*reltuples = fpb_parallel_scan(fp, heap, index, indexInfo, indtuples);
		desc = fpb_wide_sort_begin(index, cmp, maintenance_work_mem,
								   fpb_parallel_coordinate(fp), &sp);
	}
	else
	{
		desc = fpb_wide_sort_begin(index, cmp, maintenance_work_mem, NULL,
								   &sp);
		*reltuples = fpb_wide_scan(heap, index, indexInfo, &sp, desc, NULL,
								   true, indtuples);
	}

	fpb_build_progress(FPB_PHASE_SORT, *indtuples);
	tuplesort_performsort(sp.sort);
	fpb_build_progress(FPB_PHASE_LOAD, *indtuples);
	/* the sort hands back minimal tuples */
	sp.slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	vatt = cmp->multi ? NULL : TupleDescAttr(desc, FPB_WSLOT_V);
	/* text under "C", sorted without prefixes: its first bytes, directly */
	textcpfx = !cmp->multi && !sp.sortk &&
		sp.encproc->fn_addr == fpbtree_prefix_text &&
		lc_collate_is_c(cmp->pfxcoll);

	/*
	 * Values live until their page is written: those of the page being
	 * filled are in val[cur], the other arena is free.  The entries a new
	 * page begins with (one or, when the last entry of the page before moved
	 * on to be its high key, two) were read before it began, so they are
	 * copied into the other arena, which becomes cur.  Separators are copied
	 * (build.c) and outlive both.
	 */
	fpb_arena_init(&val[0]);
	fpb_arena_init(&val[1]);
	while (tuplesort_gettupleslot(sp.sort, true, false, sp.slot, NULL))
	{
		bool		isnull = false,
					tnull;
		Datum		v = (Datum) 0;
		uint64		t = 0,
					k = 0;
		FpbEntry	e;
		MemoryContext old;
		BlockNumber leaf;
		ItemPointerData htid;

		if (!cmp->multi)
			fpb_wide_read(sp.slot, vatt, &k, &t, &v, &isnull);
		e = fpb_mkkey(FPB_KEY_MAX, t | FPB_T_NULLBIT);
		if (cmp->multi)
		{
			Datum		values[INDEX_MAX_KEYS];
			bool		nulls[INDEX_MAX_KEYS];

			t = (uint64) DatumGetInt64(slot_getattr(sp.slot,
													FPB_MSLOT_T + 1, &tnull));
			for (int i = 0; i < sp.natts; i++)
				values[i] = slot_getattr(sp.slot, sp.valpos + 1 + i,
										 &nulls[i]);
			fpb_t_to_heaptid(t, &htid);
			old = MemoryContextSwitchTo(val[cur].cxt);
			if (sp.kpos)
			{
				/* the prefix the scan computed */
				e = fpb_mkkey(fpb_sortk_get(sp.slot, sp.kpos + 1),
							  fpb_make_t(&htid, nulls[0]));
				e.f = fpb_form_tuple(cmp, index, values, nulls, &htid);
			}
			else
				e = fpb_multi_entry(cmp, index, values, nulls, &htid);
			MemoryContextSwitchTo(old);
		}
		else if (!isnull)
		{
			old = MemoryContextSwitchTo(val[cur].cxt);
			if (sp.sortk)
				e.k = k;
			else if (textcpfx)
				e.k = fpb_prefix_text_c(v);
			else
				e.k = fpb_encode(sp.encproc, cmp->pfxcoll, v);
			e.t = t;
			fpb_t_to_heaptid(t, &htid);
			e.f = fpb_full_image(cmp, v, index, &htid);
			MemoryContextSwitchTo(old);
			if (cmp->typlen > 0 || e.f == DatumGetPointer(v))
				fpb_arena_keep(cmp, &val[cur], &e);
		}
		e.k = FPB_WIDE_PREFIX(e.k);

		/*
		 * Where the sort compared prefixes first, this check alone cannot see
		 * a prefix that disagrees with the values' order; fpbtree_check does
		 * not either.  Assert-enabled builds compare the values too.
		 */
		Assert(loaded == 0 || e.f == NULL || prev.f == NULL ||
			   (cmp->skip != 0 &&
				FPB_WIDE_PREFIX(prev.k) != FPB_WIDE_PREFIX(e.k)) ||
			   fpb_full_cmp(cmp, prev.f, e.f) <= 0);
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
			fpb_arena_reset(&val[cur]);
			for (int i = 0; i < lv->n; i++)
				fpb_arena_keep(cmp, &val[cur], &lv->ents[i]);
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
