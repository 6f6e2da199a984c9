/*-------------------------------------------------------------------------
 *
 * scankeys_multi.c
 *	  Scan keys of multi-column indexes: the interval of the leading
 *	  columns, and the keys checked on each entry inside it.
 *
 * As nbtree's required keys: equalities on columns 1..m-1 and the bounds
 * on column m make the interval, compared with partial keys (multicol.c:
 * the columns after m are minus or plus infinity).  An equality array key
 * on the first column makes one such interval per element (read one after
 * another, as for a single column).  Every other key (a column after a
 * gap or after an inequality, IS NULL or IS NOT NULL on a later column,
 * further array keys) is a filter: scan.c evaluates it on each entry's
 * index tuple inside the interval, with the key's operator.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relscan.h"
#include "catalog/pg_type.h"
#include "fpbtree.h"
#include "scan.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

/* A key checked on each entry. */
typedef struct FpbFilter
{
	ScanKey		sk;
	Datum	   *elems;			/* array keys: the non-NULL elements */
	int			nelems;
	FpbRowBound *row;			/* a row bound's comparison (rowbound.c) */
} FpbFilter;

/* One side of the keys on one column: from v on, or past v. */
typedef struct FpbColBound
{
	bool		has;
	Datum		v;				/* bounddesc's form: the key (narrow
								 * column) or the value */
	uint64		k;				/* narrow column: the key */
	int			sign;			/* -1: v included; +1: v excluded */
} FpbColBound;

static void
fpb_m_lower(FpbScanOpaque so, uint64 k, uint64 t, const char *f)
{
	if (fpb_scan_cmp(so, k, t, f, so->lok, so->lot, so->lof) > 0)
	{
		so->lok = k;
		so->lot = t;
		so->lof = f;
	}
}

static void
fpb_m_upper(FpbScanOpaque so, uint64 k, uint64 t, const char *f)
{
	if (fpb_scan_cmp(so, k, t, f, so->hik, so->hit, so->hif) < 0)
	{
		so->hik = k;
		so->hit = t;
		so->hif = f;
	}
}

/* Compare two bounds of a column in the index order (DESC reverses). */
/*
 * Only the first column's NULLs (want) or only its values: their entries
 * are (NULL prefix, NULL bit, tuple), last, or first with NULLS FIRST
 * (fpb_multi_prefix: prefix 0, every value's above).
 */
static void
fpb_scan_nulls0(FpbScanOpaque so, bool want)
{
	if (!so->cmp->cols[0].nullsfirst)
	{
		if (want)
			fpb_m_lower(so, FPB_KEY_MAX, FPB_T_NULLBIT, NULL);
		else
			fpb_m_upper(so, FPB_KEY_MAX, FPB_T_MAX_NONNULL,
						FPB_FULL_PLUSINF);
	}
	else if (want)
		fpb_m_upper(so, 0, PG_UINT64_MAX, FPB_FULL_PLUSINF);
	else
		fpb_m_lower(so, 0, PG_UINT64_MAX, FPB_FULL_PLUSINF);
}

static int
fpb_colbound_cmp(const FpbCmp *col, const FpbColBound *a,
				 const FpbColBound *b)
{
	int			c;

	if (col->encproc)
		c = (a->k > b->k) - (a->k < b->k);
	else
		c = fpb_full_cmp(col, DatumGetPointer(a->v), DatumGetPointer(b->v));
	if (c != 0)
		return col->desc ? -c : c;
	return (a->sign > b->sign) - (a->sign < b->sign);
}

/* Narrow *b to (k or v, sign): the larger lower or the smaller upper. */
static void
fpb_colbound_set(const FpbCmp *col, FpbColBound *b, bool lower, uint64 k,
				 Datum v, int sign)
{
	FpbColBound nb;

	nb.has = true;
	nb.k = k;
	nb.v = col->encproc ? Int64GetDatum((int64) k) : v;
	nb.sign = sign;
	if (!b->has || (lower ? fpb_colbound_cmp(col, &nb, b) > 0 :
					fpb_colbound_cmp(col, &nb, b) < 0))
		*b = nb;
}

/*
 * A bound in the type's order, "from v on" (lower) or "up to v": in a DESC
 * column it bounds the other side of the index order.
 */
static void
fpb_colbound_add(const FpbCmp *col, FpbColBound *lower, FpbColBound *upper,
				 bool islower, uint64 k, Datum v, int sign)
{
	if (col->desc)
	{
		islower = !islower;
		sign = -sign;
	}
	fpb_colbound_set(col, islower ? lower : upper, islower, k, v, sign);
}

/* Do the keys of a column admit exactly one value (in the index order)? */
static bool
fpb_colbound_exact(const FpbCmp *col, const FpbColBound *lo,
				   const FpbColBound *hi)
{
	if (!lo->has || !hi->has || lo->sign != -1 || hi->sign != 1)
		return false;
	if (col->encproc)
		return lo->k == hi->k;
	return fpb_full_cmp(col, DatumGetPointer(lo->v),
						DatumGetPointer(hi->v)) == 0;
}

/* A wide column's scan argument in its stored form, in the bound memory. */
static Datum
fpb_scan_colvalue(const FpbCmp *col, Datum value)
{
	const char *img;

	if (col->byval)
		return value;
	img = fpb_full_form(col, value);
	if (col->typlen > 0 || img == DatumGetPointer(value))
	{
		Size		size = fpb_full_size(col, img);
		char	   *copy = palloc(MAXALIGN(size));

		memcpy(copy, img, size);
		img = copy;
	}
	return PointerGetDatum(img);
}

/* The key range [lo, hi] of column j a scan argument stands for. */
static void
fpb_scan_colkeys(IndexScanDesc scan, int j, ScanKey sk, Datum arg,
				 uint64 *klo, uint64 *khi, Datum *v)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	const FpbCmp *col = &so->cmp->cols[j];

	if (col->encproc)
	{
		fpb_scan_encode_col(scan, j, sk->sk_subtype, arg, klo, khi);
		*klo = fpb_col_key(col, *klo);
		*khi = fpb_col_key(col, *khi);
		*v = (Datum) 0;
	}
	else
	{
		/* fpb_scan_bounds_multi has made the other arguments filters */
		if (!fpb_wide_arg(scan->indexRelation->rd_opcintype[j],
						  sk->sk_subtype, &arg))
			elog(ERROR, "fpbtree: scan argument of type %u has no value of column %d",
				 sk->sk_subtype, j + 1);
		*klo = *khi = 0;
		*v = fpb_scan_colvalue(col, arg);
	}
}

/* A scalar key on column j narrows that column's bounds. */
static void
fpb_scan_colkey(IndexScanDesc scan, int j, ScanKey sk, FpbColBound *lower,
				FpbColBound *upper)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	const FpbCmp *col = &so->cmp->cols[j];
	uint64		elo,
				ehi;
	Datum		v;

	fpb_scan_colkeys(scan, j, sk, sk->sk_argument, &elo, &ehi, &v);
	switch (fpb_scan_strategy(scan->indexRelation, j, sk))
	{
		case BTLessStrategyNumber:
			fpb_colbound_add(col, &lower[j], &upper[j], false, elo, v, -1);
			break;
		case BTLessEqualStrategyNumber:
			fpb_colbound_add(col, &lower[j], &upper[j], false, ehi, v, 1);
			break;
		case BTEqualStrategyNumber:
			fpb_colbound_add(col, &lower[j], &upper[j], true, elo, v, -1);
			fpb_colbound_add(col, &lower[j], &upper[j], false, ehi, v, 1);
			break;
		case BTGreaterEqualStrategyNumber:
			fpb_colbound_add(col, &lower[j], &upper[j], true, elo, v, -1);
			break;
		case BTGreaterStrategyNumber:
			fpb_colbound_add(col, &lower[j], &upper[j], true, ehi, v, 1);
			break;
		default:
			elog(ERROR, "fpbtree: unsupported strategy number %d",
				 sk->sk_strategy);
	}
}

/*
 * One end of an interval: the first column's side c0, then the exact
 * equalities of columns 1..m-1 (side's values), then column m's side.
 * Returns false when no column bounds it.  twin, when not NULL, is the
 * interval's other end, made by this function: where every key column is
 * an exact equality, this end holds the same values (a point lookup), and
 * its tuple is twin's with the other sign.
 */
static bool
fpb_scan_end(IndexScanDesc scan, const FpbColBound *c0, bool exact0,
			 const FpbColBound *side, const FpbColBound *other, int m,
			 bool upper, const char *twin, uint64 *k, const char **f)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	const FpbCmp *cmp = so->cmp;
	Datum		vals[INDEX_MAX_KEYS];
	bool		nulls[INDEX_MAX_KEYS];
	uint64		keys[INDEX_MAX_KEYS];
	int			ncols = exact0 ? m : 0;
	int			sign = upper ? 1 : -1;

	memset(nulls, 0, sizeof(nulls));
	for (int j = 0; j < ncols; j++)
		vals[j] = j == 0 ? c0->v : side[j].v;
	if (ncols > 0 && ncols < cmp->nkeys)
	{
		if (side[ncols].has)
		{
			vals[ncols] = side[ncols].v;
			sign = side[ncols].sign;
			ncols++;
		}
		else if (other[ncols].has && upper != cmp->cols[ncols].nullsfirst)
		{
			/*
			 * A comparison excludes the column's NULLs: the end on their
			 * side lies just short of them (a NULL in a bound is NULL).
			 */
			nulls[ncols] = true;
			vals[ncols] = (Datum) 0;
			sign = upper ? -1 : 1;
			ncols++;
		}
	}
	else if (ncols == 0 && c0->has)
	{
		vals[ncols++] = c0->v;
		sign = c0->sign;
	}
	if (ncols == 0)
		return false;
	/* the columns' keys: a narrow column's bound holds its key */
	for (int j = 0; j < ncols; j++)
	{
		if (nulls[j])
			break;
		if (cmp->cols[j].encproc)
			keys[j] = (uint64) DatumGetInt64(vals[j]);
		else if (j == 0)
			keys[j] = fpb_encode(index_getprocinfo(scan->indexRelation, 1,
												   FPB_ENCODE_PROC),
								 cmp->pfxcoll, vals[0]);
		else
			break;
	}
	*k = fpb_multi_prefix(cmp, ncols, keys, nulls, sign);
	if (twin != NULL && exact0 && m == cmp->nkeys)
		*f = fpb_bound_resign(twin, sign);
	else
		*f = fpb_make_bound(cmp, ncols, vals, nulls, sign);
	return true;
}

/* Columns 1.. whose keys are exact equalities, from the first on: m. */
static int
fpb_scan_extent(const FpbCmp *cmp, const FpbColBound *lower,
				const FpbColBound *upper)
{
	int			m = 1;

	while (m < cmp->nkeys &&
		   fpb_colbound_exact(&cmp->cols[m], &lower[m], &upper[m]))
		m++;
	return m;
}

static int
fpb_ival_cmp(const void *a, const void *b, void *arg)
{
	const FpbScanInterval *x = (const FpbScanInterval *) a;
	const FpbScanInterval *y = (const FpbScanInterval *) b;

	return fpb_wide_cmp((const FpbCmp *) arg, x->lok, x->lot, x->lof,
						y->lok, y->lot, y->lof);
}

/*
 * The intervals of an equality array key on the first column: one per
 * element (but those no column value can equal, widearg.c), extended by the
 * exact equalities of the next columns when every element is exact itself;
 * sorted, overlapping ones merged.  Returns the last column the intervals
 * bound (for the filters).
 */
static int
fpb_scan_array0(IndexScanDesc scan, ScanKey sk, FpbColBound *lower,
				FpbColBound *upper, FpbScanInterval **out, int *nout)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	const FpbCmp *cmp = so->cmp;
	const FpbCmp *col = &cmp->cols[0];
	Datum	   *elems;
	int			nelems;
	FpbColBound *lo,
			   *hi;
	FpbScanInterval *iv;
	bool		exact = true;
	int			m;
	int			n = 0;
	int			nfit = 0;

	elems = fpb_array_elems(sk, &nelems);
	if (nelems == 0)
		so->noscan = true;
	/* equal to no column value (fpb_scan_bounds_multi let them through) */
	for (int e = 0; e < nelems; e++)
		if (fpb_wide_arg_fits(scan->indexRelation->rd_opcintype[0],
							  sk->sk_subtype, elems[e]))
			elems[nfit++] = elems[e];
	nelems = nfit;
	lo = palloc(sizeof(FpbColBound) * Max(nelems, 1));
	hi = palloc(sizeof(FpbColBound) * Max(nelems, 1));
	for (int i = 0; i < nelems; i++)
	{
		uint64		elo,
					ehi;
		Datum		v;

		fpb_scan_colkeys(scan, 0, sk, elems[i], &elo, &ehi, &v);
		lo[i].has = hi[i].has = false;
		fpb_colbound_add(col, &lo[i], &hi[i], true, elo, v, -1);
		fpb_colbound_add(col, &lo[i], &hi[i], false, ehi, v, 1);
		if (!fpb_colbound_exact(col, &lo[i], &hi[i]))
			exact = false;
	}
	m = exact ? fpb_scan_extent(cmp, lower, upper) : 0;
	iv = palloc(sizeof(FpbScanInterval) * Max(nelems, 1));
	for (int i = 0; i < nelems; i++)
	{
		/* a value no column value equals (elo > ehi) is empty anyway */
		if (fpb_colbound_cmp(col, &lo[i], &hi[i]) > 0)
			continue;
		(void) fpb_scan_end(scan, &lo[i], exact, lower, upper, m, false,
							NULL, &iv[n].lok, &iv[n].lof);
		(void) fpb_scan_end(scan, &hi[i], exact, upper, lower, m, true,
							iv[n].lof, &iv[n].hik, &iv[n].hif);
		iv[n].lot = 0;
		iv[n].hit = FPB_T_MAX_NONNULL;
		n++;
	}
	if (n > 1)
		qsort_arg(iv, n, sizeof(FpbScanInterval), fpb_ival_cmp,
				  (void *) cmp);
	*nout = 0;
	for (int i = 0; i < n; i++)
	{
		FpbScanInterval *last = *nout > 0 ? &iv[*nout - 1] : NULL;

		if (last && fpb_wide_cmp(cmp, iv[i].lok, iv[i].lot, iv[i].lof,
								 last->hik, last->hit, last->hif) <= 0)
		{
			if (fpb_wide_cmp(cmp, iv[i].hik, iv[i].hit, iv[i].hif,
							 last->hik, last->hit, last->hif) > 0)
			{
				last->hik = iv[i].hik;
				last->hit = iv[i].hit;
				last->hif = iv[i].hif;
			}
		}
		else
			iv[(*nout)++] = iv[i];
	}
	*out = iv;
	return exact ? m : 0;
}

/* A scan key of strategy on column j (0-based) for row member m's value. */
static void
fpb_row_member_key(ScanKey sk, int j, const FpbRowMember *m, int strategy)
{
	memset(sk, 0, sizeof(ScanKeyData));
	sk->sk_attno = j + 1;
	sk->sk_strategy = strategy;
	sk->sk_subtype = m->type;
	sk->sk_collation = m->collation;
	sk->sk_argument = m->value;
}

/*
 * A row bound "(c1, ..., cn) op ROW(v1, ..., vn)" (rowbound.c): checked on
 * each entry, its first column bounded as "c1 >= v1" (or "<="), which
 * every passing entry meets, and its first column's NULLs left out.
 */
static FpbRowBound *
fpb_scan_rowkey(IndexScanDesc scan, ScanKey sk, FpbColBound *lower,
				FpbColBound *upper)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	FpbRowBound *rb = fpb_rowbound_make(scan, sk);
	const FpbRowMember *m0 = &rb->members[0];
	FpbFilter  *fl = &so->filters[so->nfilters++];
	ScanKeyData k0;

	fl->sk = sk;
	fl->elems = NULL;
	fl->nelems = 0;
	fl->row = rb;
	fpb_scan_nulls0(so, false);
	if (m0->isnull)
	{
		so->empty = true;		/* the first pair is NULL for every entry */
		return rb;
	}
	fpb_row_member_key(&k0, 0, m0,
					   rb->strategy >= BTGreaterEqualStrategyNumber ?
					   BTGreaterEqualStrategyNumber :
					   BTLessEqualStrategyNumber);
	/* an argument no column value stands for bounds nothing */
	if (fpb_scan_key_fits(scan, 0, &k0))
		fpb_scan_colkey(scan, 0, &k0, lower, upper);
	return rb;
}

/*
 * Where row bound rb starts the scan (or ends it) in the index order: at
 * its values (minus or plus infinity after them), when each is exactly one
 * key of its column and the columns share one direction.  The entries the
 * comparison passes then all lie on one side of that point; an entry on
 * that side it fails (a NULL among its columns) its check leaves out.
 */
static void
fpb_scan_rowend(IndexScanDesc scan, FpbRowBound *rb)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	const FpbCmp *cmp = so->cmp;
	FpbColBound rl[INDEX_MAX_KEYS];
	FpbColBound ru[INDEX_MAX_KEYS];
	bool		gt = rb->strategy >= BTGreaterEqualStrategyNumber;
	bool		strict = (rb->strategy == BTLessStrategyNumber ||
						  rb->strategy == BTGreaterStrategyNumber);
	int			last = rb->n - 1;
	uint64		k;
	const char *f;

	if (rb->n < 2)
		return;
	memset(rl, 0, sizeof(FpbColBound) * rb->n);
	memset(ru, 0, sizeof(FpbColBound) * rb->n);
	for (int j = 0; j < rb->n; j++)
	{
		const FpbRowMember *m = &rb->members[j];
		const FpbCmp *col = &cmp->cols[j];
		ScanKeyData sk;
		uint64		elo,
					ehi;
		Datum		v;

		if (m->isnull || col->desc != cmp->cols[0].desc)
			return;
		fpb_row_member_key(&sk, j, m, BTEqualStrategyNumber);
		if (fpb_scan_key_gap(scan->indexRelation, j, &sk) ||
			!fpb_scan_key_fits(scan, j, &sk))
			return;
		fpb_scan_colkeys(scan, j, &sk, m->value, &elo, &ehi, &v);
		if (elo != ehi)
			return;				/* a cross-type value between two keys */
		if (j < last)
		{
			rl[j].has = ru[j].has = true;
			rl[j].k = ru[j].k = elo;
			rl[j].v = ru[j].v = col->encproc ? Int64GetDatum((int64) elo) : v;
		}
		else
			fpb_colbound_add(col, &rl[j], &ru[j], gt, elo, v,
							 gt == strict ? 1 : -1);
	}
	if (gt != cmp->cols[0].desc)
	{
		if (!fpb_scan_end(scan, &rl[0], true, rl, ru, last, false, NULL,
						  &k, &f))
			return;
		fpb_m_lower(so, k, 0, f);
	}
	else
	{
		if (!fpb_scan_end(scan, &ru[0], true, ru, rl, last, true, NULL,
						  &k, &f))
			return;
		fpb_m_upper(so, k, FPB_T_MAX_NONNULL, f);
	}

	/*
	 * Past that point, the first column an entry differs from the values
	 * in is on the comparison's side, so the entry passes, unless one of
	 * its columns is NULL: only those are checked (fpb_scan_filter).
	 */
	rb->positioned = true;
}

/*
 * fpb_scan_bounds of a multi-column index (the scan state is reset by the
 * caller): the interval, the array intervals, the filters.
 */
void
fpb_scan_bounds_multi(IndexScanDesc scan)
{
	FpbScanOpaque so = (FpbScanOpaque) scan->opaque;
	Relation	index = scan->indexRelation;
	const FpbCmp *cmp = so->cmp;
	int			nkeys = cmp->nkeys;
	FpbColBound lower[INDEX_MAX_KEYS];
	FpbColBound upper[INDEX_MAX_KEYS];
	ScanKey		arr0 = NULL;
	FpbScanInterval *aiv = NULL;
	int			naiv = 0;
	int			last;			/* last column the intervals bound */
	FpbRowBound **rows;
	int			nrows = 0;
	MemoryContext old = MemoryContextSwitchTo(so->boundcxt);

	/* stored NULLs of the first column have values: above them all */
	so->hif = FPB_FULL_PLUSINF;
	memset(lower, 0, sizeof(FpbColBound) * nkeys);
	memset(upper, 0, sizeof(FpbColBound) * nkeys);
	so->filters = palloc(sizeof(FpbFilter) * Max(scan->numberOfKeys, 1));
	rows = palloc(sizeof(FpbRowBound *) * Max(scan->numberOfKeys, 1));

	/* first the keys that bound columns; what is left comes below */
	for (int i = 0; i < scan->numberOfKeys; i++)
	{
		ScanKey		sk = &scan->keyData[i];
		int			j = sk->sk_attno - 1;

		if (j < 0 || j >= nkeys)
			elog(ERROR, "fpbtree: scan key on column %d", sk->sk_attno);
		if (fpb_sk_is_row(sk))
		{
			if (sk->sk_flags & SK_ISNULL)
				so->empty = true;
			else
				rows[nrows++] = fpb_scan_rowkey(scan, sk, lower, upper);
			continue;
		}
		/* see fpb_scan_key_gap */
		if (fpb_scan_key_gap(index, j, sk))
			so->recheck = true;
		if (sk->sk_flags & SK_ISNULL)
		{
			if (sk->sk_flags & SK_SEARCHARRAY)
				so->noscan = true;
			if (!(sk->sk_flags & (SK_SEARCHNULL | SK_SEARCHNOTNULL)))
				so->empty = true;	/* comparison with NULL */
			else if (j == 0)
				fpb_scan_nulls0(so, (sk->sk_flags & SK_SEARCHNULL) != 0);
			continue;
		}
		/* a comparison on the first column excludes its NULLs */
		if (j == 0)
			fpb_scan_nulls0(so, false);
		/* an argument that no column value stands for (widearg.c) */
		sk->sk_flags &= ~FPB_SK_FILTER;
		if (!fpb_scan_key_fits(scan, j, sk))
		{
			/* as fpb_scan_wide_loose: an equality no column value meets */
			bool		unequal = sk->sk_strategy == BTEqualStrategyNumber &&
				fpb_wide_arg_loose_known(index, j) &&
				get_collation_isdeterministic(index->rd_indcollation[j]);

			if (!(sk->sk_flags & SK_SEARCHARRAY) && unequal)
				so->empty = true;
			/* such elements of the first column's array are dropped there */
			if (!(j == 0 && (sk->sk_flags & SK_SEARCHARRAY) && unequal))
			{
				sk->sk_flags |= FPB_SK_FILTER;
				continue;
			}
		}
		if (sk->sk_flags & SK_SEARCHARRAY)
		{
			if (j == 0 && sk->sk_strategy == BTEqualStrategyNumber &&
				arr0 == NULL)
				arr0 = sk;
			continue;
		}
		fpb_scan_colkey(scan, j, sk, lower, upper);
	}

	/*
	 * The executor rechecks the index conditions, row bounds among them,
	 * whose function only raises an error: with a row bound, the keys that
	 * would ask for that (fpb_scan_key_gap) are checked here instead.
	 */
	if (nrows > 0 && so->recheck)
	{
		for (int i = 0; i < scan->numberOfKeys; i++)
		{
			ScanKey		sk = &scan->keyData[i];

			if (!fpb_sk_is_row(sk) &&
				fpb_scan_key_gap(index, sk->sk_attno - 1, sk))
				sk->sk_flags |= FPB_SK_FILTER;
		}
		so->recheck = false;
	}

	/* the interval of the scalar keys */
	{
		bool		exact0 = fpb_colbound_exact(&cmp->cols[0], &lower[0],
												&upper[0]);
		int			m = exact0 ? fpb_scan_extent(cmp, lower, upper) : 0;
		uint64		k;
		const char *f;
		const char *lof = NULL;

		if (fpb_scan_end(scan, &lower[0], exact0, lower, upper, m, false,
						 NULL, &k, &f))
		{
			fpb_m_lower(so, k, 0, f);
			lof = f;
		}
		if (fpb_scan_end(scan, &upper[0], exact0, upper, lower, m, true,
						 lof, &k, &f))
			fpb_m_upper(so, k, FPB_T_MAX_NONNULL, f);
		last = m;
	}
	for (int i = 0; i < nrows; i++)
		fpb_scan_rowend(scan, rows[i]);
	if (arr0)
	{
		MemoryContext prev;
		int			alast;

		if (so->arrcxt == NULL)
			so->arrcxt = AllocSetContextCreate(so->scancxt,
											   "fpbtree array keys",
											   ALLOCSET_SMALL_SIZES);
		prev = MemoryContextSwitchTo(so->arrcxt);
		alast = fpb_scan_array0(scan, arr0, lower, upper, &aiv, &naiv);
		MemoryContextSwitchTo(prev);
		last = Max(last, alast);
	}

	/* every key on a column after the intervals' last is a filter */
	for (int i = 0; i < scan->numberOfKeys; i++)
	{
		ScanKey		sk = &scan->keyData[i];
		int			j = sk->sk_attno - 1;
		FpbFilter  *fl;

		if (sk == arr0 || (sk->sk_flags & SK_ISNULL && j == 0) ||
			fpb_sk_is_row(sk))
			continue;
		if (!(sk->sk_flags & (SK_SEARCHARRAY | SK_ISNULL | FPB_SK_FILTER)) &&
			j <= last)
			continue;
		if ((sk->sk_flags & SK_ISNULL) &&
			!(sk->sk_flags & (SK_SEARCHNULL | SK_SEARCHNOTNULL)))
			continue;			/* the scan is empty */
		fl = &so->filters[so->nfilters++];
		fl->sk = sk;
		fl->elems = NULL;
		fl->nelems = 0;
		fl->row = NULL;
		if ((sk->sk_flags & SK_SEARCHARRAY) && !(sk->sk_flags & SK_ISNULL))
		{
			fl->elems = fpb_array_elems(sk, &fl->nelems);
			/* no element: nothing matches the key (btree: no descent) */
			if (fl->nelems == 0)
				so->noscan = so->empty = true;
		}
	}
	MemoryContextSwitchTo(old);

	if (so->noscan ||
		fpb_scan_cmp(so, so->lok, so->lot, so->lof,
					 so->hik, so->hit, so->hif) > 0)
		so->empty = true;
	if (arr0 && !so->empty)
	{
		/* each element's interval, clipped to the other keys' */
		so->ivals = MemoryContextAlloc(so->arrcxt,
									   sizeof(FpbScanInterval) *
									   Max(naiv, 1));
		for (int i = 0; i < naiv; i++)
		{
			FpbScanInterval *iv = &so->ivals[so->nivals];

			*iv = aiv[i];
			fpb_scan_keep_interval(so, iv);
		}
		if (so->nivals == 0)
			so->empty = true;
	}
}

/*
 * Filters an index-only scan checks only on the matches it returns: row
 * bounds positioned at their values (fpb_scan_rowend), which only entries
 * with a NULL among their columns can fail.  A scan under a LIMIT thus
 * checks the rows it returns, not every match of the leaf.
 */
bool
fpb_scan_filters_late(FpbScanOpaque so)
{
	for (int i = 0; i < so->nfilters; i++)
		if (so->filters[i].row == NULL || !so->filters[i].row->positioned)
			return false;
	return true;
}

/*
 * Does the stored tuple f of key k pass every filter of the scan?  A filter
 * on the first column of a row that left its first bytes to k reads a copy
 * given them back.
 */
bool
fpb_scan_filter(FpbScanOpaque so, uint64 k, const char *f)
{
	char		whole[FPB_PACKED_MAX + FPB_PACKED_SKIP_MAX];

	if (f == NULL)
		return false;
	for (int i = 0; i < so->nfilters; i++)
	{
		FpbFilter  *fl = &so->filters[i];
		ScanKey		sk = fl->sk;
		bool		isnull;
		Datum		d;

		if (fl->row && fl->row->positioned &&
			!fpb_rowbound_nulls(f, fl->row->n))
			continue;
		if (sk->sk_attno == 1)
			f = fpb_packed_whole(so->cmp, f, k, whole);
		if (fl->row)
		{
			if (!fpb_rowbound_check(so->cmp, fl->row, f))
				return false;
			continue;
		}
		d = fpb_tuple_getattr(so->cmp->tupdesc, f, sk->sk_attno, &isnull);

		if (sk->sk_flags & SK_SEARCHNULL)
		{
			if (!isnull)
				return false;
			continue;
		}
		if (isnull)
			return false;
		if (sk->sk_flags & SK_SEARCHNOTNULL)
			continue;
		if (sk->sk_flags & SK_SEARCHARRAY)
		{
			bool		any = false;

			for (int e = 0; e < fl->nelems && !any; e++)
				any = DatumGetBool(FunctionCall2Coll(&sk->sk_func,
													 sk->sk_collation,
													 d, fl->elems[e]));
			if (!any)
				return false;
		}
		else if (!DatumGetBool(FunctionCall2Coll(&sk->sk_func,
												 sk->sk_collation, d,
												 sk->sk_argument)))
			return false;
	}
	return true;
}
