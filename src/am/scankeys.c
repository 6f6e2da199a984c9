/*-------------------------------------------------------------------------
 *
 * scankeys.c
 *	  Scan keys to key intervals.
 *
 * A scan's keys become one closed interval [lo, hi] of compound keys, the
 * conjunction of all of them, so no entry is re-checked (but for a
 * timestamptz key in a timestamp column, see fpb_scan_bounds, and a text
 * too long for a name column, fpb_scan_wide_loose).  Equality
 * array keys (k = ANY (array), amsearcharray) match a set of values
 * instead: each element becomes the key range of the column values equal
 * to it, the ranges are sorted in index order and merged where they
 * overlap (which also removes duplicate elements, and -0 against +0), the
 * lists of several array keys are intersected, and each remaining range is
 * clipped to the interval of the other keys.  The scan then reads the
 * resulting disjoint intervals one after another (scan_step.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relscan.h"
#include "catalog/pg_type.h"
#include "fpbtree.h"
#include "scan.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

/* a closed range of column keys [lo, hi], every tiebreaker */
typedef struct FpbKeyRange
{
	uint64		lo;
	uint64		hi;
	const char *f;				/* wide indexes: the value (lo = hi) */
} FpbKeyRange;

static inline void
fpb_lower_f(FpbScanOpaque so, uint64 k, uint64 t, const char *f)
{
	if (fpb_scan_cmp(so, k, t, f, so->lok, so->lot, so->lof) > 0)
	{
		so->lok = k;
		so->lot = t;
		so->lof = f;
	}
}

static inline void
fpb_upper_f(FpbScanOpaque so, uint64 k, uint64 t, const char *f)
{
	if (fpb_scan_cmp(so, k, t, f, so->hik, so->hit, so->hif) < 0)
	{
		so->hik = k;
		so->hit = t;
		so->hif = f;
	}
}

#define fpb_lower(so, k, t)	fpb_lower_f(so, k, t, NULL)
#define fpb_upper(so, k, t)	fpb_upper_f(so, k, t, NULL)

/*
 * Upper bound excluding NULLs: in a wide index above every value, also
 * those whose prefix is all ones.
 */
static inline void
fpb_upper_notnull(FpbScanOpaque so)
{
	fpb_upper_f(so, FPB_KEY_MAX, FPB_T_MAX_NONNULL,
				so->cmp ? FPB_FULL_PLUSINF : NULL);
}

/*
 * Wide index: the key of a scan argument of type subtype, its value kept
 * in the scan's bound memory.  Returns false, setting nothing, when no
 * value of the column's type stands for the argument (widearg.c).
 */
static bool
fpb_scan_wide_key(IndexScanDesc scan, Oid subtype, Datum value, uint64 *k,
				  const char **f)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	Relation	index = scan->indexRelation;
	MemoryContext old = MemoryContextSwitchTo(so->boundcxt);
	const char *img;

	if (!fpb_wide_arg(index->rd_opcintype[0], subtype, &value))
	{
		MemoryContextSwitchTo(old);
		return false;
	}
	*k = FPB_WIDE_PREFIX(fpb_encode(index_getprocinfo(index, 1,
													  FPB_ENCODE_PROC),
									so->cmp->pfxcoll, value));
	img = fpb_full_form(so->cmp, value);
	if (so->cmp->typlen > 0 || img == DatumGetPointer(value))
	{
		FpbEntry	e = fpb_mkkey(0, 0);

		e.f = img;
		fpb_entry_keep_palloc(so->cmp, &e);
		img = e.f;
	}
	*f = img;
	MemoryContextSwitchTo(old);
	return true;
}

/*
 * Can no column value be equal to an argument fpb_scan_wide_key cannot
 * convert?  Under a deterministic collation equal means the same string
 * (fpbtree's name_ops, fpb_wide_arg_loose_known).
 */
static bool
fpb_scan_wide_loose_unequal(IndexScanDesc scan)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;

	return fpb_wide_arg_loose_known(scan->indexRelation, 0) &&
		get_collation_isdeterministic(so->cmp->collation);
}

/*
 * Wide index, a key whose argument no column value stands for
 * (fpb_scan_wide_key returned false): the argument's prefix bounds the
 * scan, and the executor rechecks the key.
 */
static void
fpb_scan_wide_loose(IndexScanDesc scan, ScanKey sk)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	Relation	index = scan->indexRelation;
	int			strat = sk->sk_strategy;
	uint64		k;

	if (strat == BTEqualStrategyNumber && fpb_scan_wide_loose_unequal(scan))
	{
		so->empty = true;
		return;
	}
	so->recheck = true;
	if (!fpb_wide_arg_loose_known(index, 0))
		return;
	k = FPB_WIDE_PREFIX(fpb_wide_arg_prefix(index->rd_opcintype[0],
											sk->sk_subtype, sk->sk_argument,
											so->cmp->pfxcoll));
	if (strat != BTLessStrategyNumber && strat != BTLessEqualStrategyNumber)
		fpb_lower_f(so, k, 0, NULL);
	if (strat != BTGreaterStrategyNumber &&
		strat != BTGreaterEqualStrategyNumber)
		fpb_upper_f(so, k, FPB_T_MAX_NONNULL, FPB_FULL_PLUSINF);
}

/*
 * Wide index: a key of strategy strat on value becomes bounds: the same
 * compound keys as in a narrow index, the value deciding ties of the
 * prefix.  A value's entries have tiebreakers in [1, FPB_T_MAX_NONNULL),
 * so (k, v, 0) lies below them and (k, v, FPB_T_MAX_NONNULL) above.
 */
static void
fpb_scan_wide_bound(FpbScanOpaque so, int strat, uint64 k, const char *f)
{
	switch (strat)
	{
		case BTLessStrategyNumber:
			fpb_upper_f(so, k, 0, f);
			break;
		case BTLessEqualStrategyNumber:
			fpb_upper_f(so, k, FPB_T_MAX_NONNULL, f);
			break;
		case BTEqualStrategyNumber:
			fpb_lower_f(so, k, 0, f);
			fpb_upper_f(so, k, FPB_T_MAX_NONNULL, f);
			break;
		case BTGreaterEqualStrategyNumber:
			fpb_lower_f(so, k, 0, f);
			break;
		case BTGreaterStrategyNumber:
			fpb_lower_f(so, k, FPB_T_MAX_NONNULL, f);
			break;
		default:
			elog(ERROR, "fpbtree: unsupported strategy number %d", strat);
	}
}

/*
 * Wide index, array key: an inequality is bounded by the element that
 * admits the most values, as fpb_array_inequality does.  Returns false
 * when the array has no non-NULL element.
 */
static bool
fpb_scan_wide_array(IndexScanDesc scan, ScanKey sk)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	int			strat = sk->sk_strategy;
	Datum	   *elems;
	int			nelems;
	uint64		mink = 0,
				maxk = 0;
	const char *minf = NULL,
			   *maxf = NULL;

	/* an element no column value stands for: no bound, a recheck */
	if (!fpb_scan_key_fits(scan, 0, sk))
	{
		so->recheck = true;
		return true;
	}
	elems = fpb_array_elems(sk, &nelems);
	for (int i = 0; i < nelems; i++)
	{
		uint64		k;
		const char *f;

		(void) fpb_scan_wide_key(scan, sk->sk_subtype, elems[i], &k, &f);
		if (i == 0 || fpb_wide_cmp(so->cmp, k, 0, f, mink, 0, minf) < 0)
		{
			mink = k;
			minf = f;
		}
		if (i == 0 || fpb_wide_cmp(so->cmp, k, 0, f, maxk, 0, maxf) > 0)
		{
			maxk = k;
			maxf = f;
		}
	}
	if (nelems == 0)
		return false;
	switch (strat)
	{
		case BTLessStrategyNumber:
		case BTLessEqualStrategyNumber:
			fpb_scan_wide_bound(so, strat, maxk, maxf);
			break;
		case BTGreaterStrategyNumber:
		case BTGreaterEqualStrategyNumber:
			fpb_scan_wide_bound(so, strat, mink, minf);
			break;
		default:
			elog(ERROR, "fpbtree: unsupported strategy number %d", strat);
	}
	return true;
}

static int
fpb_keyrange_cmp_wide(const void *a, const void *b, void *arg)
{
	const FpbKeyRange *x = (const FpbKeyRange *) a;
	const FpbKeyRange *y = (const FpbKeyRange *) b;

	return fpb_wide_cmp((const FpbCmp *) arg, x->lo, 0, x->f, y->lo, 0, y->f);
}

/* The values in both sorted lists a and b (several array keys). */
static FpbKeyRange *
fpb_ranges_intersect_wide(FpbScanOpaque so, FpbKeyRange *a, int na,
						  FpbKeyRange *b, int nb, int *nout)
{
	FpbKeyRange *r = MemoryContextAlloc(so->arrcxt,
										sizeof(FpbKeyRange) * Max(na, 1));
	int			i = 0,
				j = 0,
				n = 0;

	while (i < na && j < nb)
	{
		int			c = fpb_keyrange_cmp_wide(&a[i], &b[j], (void *) so->cmp);

		if (c == 0)
			r[n++] = a[i];
		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
	}
	*nout = n;
	return r;
}

/*
 * The closed range [*lo, *hi] of the column's keys whose values compare
 * equal to a scan key's value of type typid (empty, lo > hi, when none
 * does).  A cross-type value is bounded by its family's support function 3
 * for (column type, typid) when there is one (the date/time families), or
 * else encoded by typid's own encode function (a family whose types share
 * one key domain): fpb_cross_encoder.  col is 0-based.
 */
void
fpb_scan_encode_col(IndexScanDesc scan, int col, Oid typid, Datum value,
					uint64 *lo, uint64 *hi)
{
	Relation	index = scan->indexRelation;
	Oid			coltype = index->rd_opcintype[col];
	FmgrInfo   *xproc;
	bool		xbound;

	if (typid == InvalidOid || typid == coltype)
	{
		fpb_encode_range(index_getprocinfo(index, col + 1, FPB_ENCODE_PROC),
						 coltype, value, lo, hi);
		return;
	}
	xproc = fpb_cross_encoder(index, col, typid, &xbound);
	if (xbound)
	{
		*lo = (uint64) DatumGetInt64(FunctionCall2(xproc, value,
												   BoolGetDatum(false)));
		*hi = (uint64) DatumGetInt64(FunctionCall2(xproc, value,
												   BoolGetDatum(true)));
		/* bisected across daylight-saving gaps: see fpb_scan_key_gap */
		if (coltype == TIMESTAMPOID && typid == TIMESTAMPTZOID)
			fpb_ts_tstz_widen(lo, hi);
	}
	else
		fpb_encode_range(xproc, typid, value, lo, hi);
}

static inline void
fpb_scan_encode(IndexScanDesc scan, Oid typid, Datum value,
				uint64 *lo, uint64 *hi)
{
	fpb_scan_encode_col(scan, 0, typid, value, lo, hi);
}

/*
 * The non-NULL elements of an array scan key's argument (allocated in the
 * current context, the scan's arrcxt).
 */
Datum *
fpb_array_elems(ScanKey sk, int *nelems)
{
	ArrayType  *arr = DatumGetArrayTypeP(sk->sk_argument);
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	int			j = 0;

	get_typlenbyvalalign(ARR_ELEMTYPE(arr), &elmlen, &elmbyval, &elmalign);
	deconstruct_array(arr, ARR_ELEMTYPE(arr), elmlen, elmbyval, elmalign,
					  &elems, &nulls, &n);
	/* a NULL element is equal to, less or greater than nothing */
	for (int i = 0; i < n; i++)
		if (!nulls[i])
			elems[j++] = elems[i];
	*nelems = j;
	return elems;
}

/*
 * Does every value of the non-NULL scan key sk on column col (each
 * non-NULL element of an array) turn into a value of the column's type
 * (widearg.c)?
 */
bool
fpb_scan_key_fits(IndexScanDesc scan, int col, ScanKey sk)
{
	Oid			coltype = scan->indexRelation->rd_opcintype[col];
	Datum	   *elems;
	int			nelems;
	bool		fits = true;

	if (!fpb_wide_arg_lossy(coltype, sk->sk_subtype))
		return true;
	if (!(sk->sk_flags & SK_SEARCHARRAY))
		return fpb_wide_arg_fits(coltype, sk->sk_subtype, sk->sk_argument);
	elems = fpb_array_elems(sk, &nelems);
	for (int i = 0; i < nelems && fits; i++)
		fits = fpb_wide_arg_fits(coltype, sk->sk_subtype, elems[i]);
	pfree(elems);
	return fits;
}

static int
fpb_keyrange_cmp(const void *a, const void *b)
{
	const FpbKeyRange *x = (const FpbKeyRange *) a;
	const FpbKeyRange *y = (const FpbKeyRange *) b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return 0;
}

/*
 * The key ranges an equality array key matches: one per element that some
 * column value equals, sorted, overlapping ones merged (equal elements, and
 * elements such as -0 and +0 whose ranges overlap, become one range).  The
 * result is strictly increasing and disjoint.  In a wide index each range
 * is one element's value, sorted by the index order and merged where the
 * comparison calls elements equal.  Returns NULL when an element bounds no
 * range (fpb_scan_wide_loose): the key then bounds nothing.
 */
static FpbKeyRange *
fpb_array_ranges(IndexScanDesc scan, ScanKey sk, int *nranges)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	Datum	   *elems;
	int			nelems;
	FpbKeyRange *r;
	int			n = 0;
	int			m = 0;

	elems = fpb_array_elems(sk, &nelems);
	/* an empty array (or all NULLs): btree starts no descent either */
	if (nelems == 0)
		so->noscan = true;
	r = MemoryContextAlloc(so->arrcxt, sizeof(FpbKeyRange) * Max(nelems, 1));
	for (int i = 0; i < nelems; i++)
	{
		r[n].f = NULL;
		if (so->cmp)
		{
			if (!fpb_scan_wide_key(scan, sk->sk_subtype, elems[i], &r[n].lo,
								   &r[n].f))
			{
				/* as fpb_scan_wide_loose: equal to nothing, or a recheck */
				if (fpb_scan_wide_loose_unequal(scan))
					continue;
				so->recheck = true;
				return NULL;
			}
			r[n].hi = r[n].lo;
		}
		else
			fpb_scan_encode(scan, sk->sk_subtype, elems[i], &r[n].lo,
							&r[n].hi);
		if (r[n].lo <= r[n].hi)
			n++;
	}
	if (n > 1 && so->cmp)
		qsort_arg(r, n, sizeof(FpbKeyRange), fpb_keyrange_cmp_wide,
				  (void *) so->cmp);
	else if (n > 1)
		qsort(r, n, sizeof(FpbKeyRange), fpb_keyrange_cmp);
	for (int i = 0; i < n; i++)
	{
		if (so->cmp)
		{
			if (m == 0 ||
				fpb_keyrange_cmp_wide(&r[m - 1], &r[i], (void *) so->cmp) != 0)
				r[m++] = r[i];
		}
		else if (m > 0 && r[i].lo <= r[m - 1].hi)
			r[m - 1].hi = Max(r[m - 1].hi, r[i].hi);
		else
			r[m++] = r[i];
	}
	*nranges = m;
	return r;
}

/*
 * Intersect two increasing disjoint range lists (several array keys on the
 * column: a value must satisfy each of them).  The result is one too.
 */
static FpbKeyRange *
fpb_ranges_intersect(FpbScanOpaque so, FpbKeyRange *a, int na,
					 FpbKeyRange *b, int nb, int *nout)
{
	FpbKeyRange *r = MemoryContextAlloc(so->arrcxt,
										sizeof(FpbKeyRange) *
										Max(na + nb, 1));
	int			i = 0,
				j = 0,
				n = 0;

	while (i < na && j < nb)
	{
		uint64		lo = Max(a[i].lo, b[j].lo);
		uint64		hi = Min(a[i].hi, b[j].hi);

		if (lo <= hi)
		{
			r[n].lo = lo;
			r[n].hi = hi;
			n++;
		}
		/* the range that ends first overlaps nothing further in the other */
		if (a[i].hi < b[j].hi)
			i++;
		else
			j++;
	}
	*nout = n;
	return r;
}

/*
 * An inequality against ANY (array): the element that admits the most
 * values decides (as btree reduces it), since the key is true when any
 * element's comparison is.  Returns false when the array has no non-NULL
 * element, and the key then matches nothing.
 */
static bool
fpb_array_inequality(IndexScanDesc scan, ScanKey sk)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	Datum	   *elems;
	int			nelems;
	StrategyNumber strat = fpb_scan_strategy(scan->indexRelation, 0, sk);
	bool		upper = (strat == BTLessStrategyNumber ||
						 strat == BTLessEqualStrategyNumber);
	uint64		bk = 0,
				bt = 0;

	elems = fpb_array_elems(sk, &nelems);
	for (int i = 0; i < nelems; i++)
	{
		uint64		elo,
					ehi,
					k,
					t;

		fpb_scan_encode(scan, sk->sk_subtype, elems[i], &elo, &ehi);
		switch (strat)
		{
			case BTLessStrategyNumber:
				k = elo;
				t = 0;
				break;
			case BTLessEqualStrategyNumber:
				k = ehi;
				t = FPB_T_MAX_NONNULL;
				break;
			case BTGreaterEqualStrategyNumber:
				k = elo;
				t = 0;
				break;
			case BTGreaterStrategyNumber:
				k = ehi;
				t = FPB_T_NULLBIT;
				break;
			default:
				elog(ERROR, "fpbtree: unsupported strategy number %d",
					 sk->sk_strategy);
		}
		if (i == 0 || (upper ? fpb_key_cmp(k, t, bk, bt) > 0 :
					   fpb_key_cmp(k, t, bk, bt) < 0))
		{
			bk = k;
			bt = t;
		}
	}
	if (nelems == 0)
		return false;
	if (upper)
		fpb_upper(so, bk, bt);
	else
		fpb_lower(so, bk, bt);
	return true;
}

/*
 * Intersect all scan keys into [lo, hi].  Every comparison also excludes
 * NULLs (they sort last, with the tiebreaker's top bit set).  With
 * equality array keys, also make the list of intervals to read, ivals.
 */
void
fpb_scan_bounds(IndexScanDesc scan)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	FpbKeyRange *eq = NULL;
	int			neq = -1;		/* -1: no equality array key */

	so->empty = false;
	so->noscan = false;
	so->recheck = false;
	so->lok = 0;
	so->lot = 0;
	so->hik = FPB_KEY_MAX;
	so->hit = PG_UINT64_MAX;
	so->lof = so->hif = NULL;
	so->ivals = NULL;
	so->nivals = 0;
	if (so->arrcxt)
		MemoryContextReset(so->arrcxt);
	so->nfilters = 0;
	so->cmp = fpb_index_cmp(scan->indexRelation);
	if (so->cmp && so->boundcxt == NULL)
		so->boundcxt = AllocSetContextCreate(so->scancxt,
											 "fpbtree scan bounds",
											 ALLOCSET_SMALL_SIZES);
	else if (so->boundcxt)
		MemoryContextReset(so->boundcxt);
	if (so->cmp && so->cmp->multi)
	{
		fpb_scan_bounds_multi(scan);
		return;
	}

	for (int i = 0; i < scan->numberOfKeys; i++)
	{
		ScanKey		sk = &scan->keyData[i];
		Oid			typid;
		uint64		elo,
					ehi;

		/* the planner hook gives row bounds to multi-column indexes only */
		if (fpb_sk_is_row(sk))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("fpbtree row bound on index \"%s\", which has one column",
							RelationGetRelationName(scan->indexRelation))));

		/* its interval may hold entries that fail the key: see the function */
		if (fpb_scan_key_gap(scan->indexRelation, 0, sk))
			so->recheck = true;

		if (sk->sk_flags & SK_ISNULL)
		{
			/* a NULL array: btree starts no descent */
			if (sk->sk_flags & SK_SEARCHARRAY)
				so->noscan = true;
			if (sk->sk_flags & SK_SEARCHNULL)
				fpb_lower(so, FPB_KEY_MAX, FPB_T_NULLBIT);
			else if (sk->sk_flags & SK_SEARCHNOTNULL)
				fpb_upper_notnull(so);
			else
				so->empty = true;	/* comparison with NULL */
			continue;
		}

		if (sk->sk_flags & SK_SEARCHARRAY)
		{
			bool		wide = (so->cmp != NULL);
			MemoryContext old;

			if (so->arrcxt == NULL)
				so->arrcxt = AllocSetContextCreate(so->scancxt,
												   "fpbtree array keys",
												   ALLOCSET_SMALL_SIZES);
			/* what the elements' encoding allocates goes with the list */
			old = MemoryContextSwitchTo(so->arrcxt);
			if (sk->sk_strategy == BTEqualStrategyNumber)
			{
				FpbKeyRange *r;
				int			nr;

				/* NULL: no bound, the executor rechecks the key */
				r = fpb_array_ranges(scan, sk, &nr);
				if (r != NULL)
				{
					if (neq < 0)
					{
						eq = r;
						neq = nr;
					}
					else if (wide)
						eq = fpb_ranges_intersect_wide(so, eq, neq, r, nr,
													   &neq);
					else
						eq = fpb_ranges_intersect(so, eq, neq, r, nr, &neq);
				}
			}
			else if (!(wide ? fpb_scan_wide_array(scan, sk) :
					   fpb_array_inequality(scan, sk)))
				so->noscan = so->empty = true;
			MemoryContextSwitchTo(old);
			fpb_upper_notnull(so);
			continue;
		}
		if (so->cmp)
		{
			uint64		k;
			const char *f;

			if (fpb_scan_wide_key(scan, sk->sk_subtype, sk->sk_argument,
								  &k, &f))
				fpb_scan_wide_bound(so, sk->sk_strategy, k, f);
			else
				fpb_scan_wide_loose(scan, sk);
			fpb_upper_notnull(so);
			continue;
		}

		typid = sk->sk_subtype;
		fpb_scan_encode(scan, typid, sk->sk_argument, &elo, &ehi);

		switch (fpb_scan_strategy(scan->indexRelation, 0, sk))
		{
			case BTLessStrategyNumber:
				/* (elo, 0) itself is no entry: offset 0 is never used */
				fpb_upper(so, elo, 0);
				break;
			case BTLessEqualStrategyNumber:
				fpb_upper(so, ehi, FPB_T_MAX_NONNULL);
				break;
			case BTEqualStrategyNumber:
				fpb_lower(so, elo, 0);
				fpb_upper(so, ehi, FPB_T_MAX_NONNULL);
				break;
			case BTGreaterEqualStrategyNumber:
				fpb_lower(so, elo, 0);
				break;
			case BTGreaterStrategyNumber:
				fpb_lower(so, ehi, FPB_T_NULLBIT);
				break;
			default:
				elog(ERROR, "fpbtree: unsupported strategy number %d",
					 sk->sk_strategy);
		}
		fpb_upper(so, FPB_KEY_MAX, FPB_T_MAX_NONNULL);
	}
	if (fpb_scan_cmp(so, so->lok, so->lot, so->lof,
					 so->hik, so->hit, so->hif) > 0)
		so->empty = true;
	if (neq == 0)
		so->empty = true;
	if (neq > 0 && !so->empty)
	{
		/* each element's range, clipped to the other keys' interval */
		so->ivals = MemoryContextAlloc(so->arrcxt,
									   sizeof(FpbScanInterval) * neq);
		for (int i = 0; i < neq; i++)
		{
			FpbScanInterval *iv = &so->ivals[so->nivals];

			iv->lok = eq[i].lo;
			iv->lot = 0;
			iv->hik = eq[i].hi;
			iv->hit = FPB_T_MAX_NONNULL;
			iv->lof = iv->hif = so->cmp ? eq[i].f : NULL;
			fpb_scan_keep_interval(so, iv);
		}
		if (so->nivals == 0)
			so->empty = true;
	}
}

/*
 * Narrow interval *iv (the next slot of so->ivals) to the scan's own bounds
 * and keep it unless that leaves it empty.
 */
void
fpb_scan_keep_interval(FpbScanOpaque so, FpbScanInterval *iv)
{
	if (fpb_scan_cmp(so, so->lok, so->lot, so->lof,
					 iv->lok, iv->lot, iv->lof) > 0)
	{
		iv->lok = so->lok;
		iv->lot = so->lot;
		iv->lof = so->lof;
	}
	if (fpb_scan_cmp(so, so->hik, so->hit, so->hif,
					 iv->hik, iv->hit, iv->hif) < 0)
	{
		iv->hik = so->hik;
		iv->hit = so->hit;
		iv->hif = so->hif;
	}
	if (fpb_scan_cmp(so, iv->lok, iv->lot, iv->lof,
					 iv->hik, iv->hit, iv->hif) <= 0)
		so->nivals++;
}
