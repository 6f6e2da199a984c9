/*-------------------------------------------------------------------------
 *
 * build_sort.c
 *	  The spool of CREATE INDEX (build.c, build_parallel.c): one
 *	  participant's (k, t) entries, radix-sorted in memory while they fit in
 *	  its share of maintenance_work_mem, in a tuplesort (which spills) beyond,
 *	  and handed to the merge in batches.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "build.h"
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type_d.h"
#include "fpbtree.h"
#include "miscadmin.h"
#include "utils/tuplesort.h"

/* flips int8 order into uint64 order for the tuplesort */
#define FPB_SIGNBIT			(UINT64CONST(1) << 63)

/*
 * A spool for one participant of the build; workmem (kB) bounds the
 * in-memory entries (with their radix-sort scratch) and then the tuplesort.
 */
void
fpb_spool_init(FpbSpool *sp, Relation index, int workmem)
{
	TupleDesc	tupdesc;

	memset(sp, 0, sizeof(FpbSpool));
	sp->encproc = index_getprocinfo(index, 1, FPB_ENCODE_PROC);
	sp->workmem = workmem;
	tupdesc = CreateTemplateTupleDesc(2);
	TupleDescInitEntry(tupdesc, 1, "k", INT8OID, -1, 0);
	TupleDescInitEntry(tupdesc, 2, "t", INT8OID, -1, 0);
	sp->sortdesc = tupdesc;
	sp->slot = MakeSingleTupleTableSlot(tupdesc, &TTSOpsVirtual);
	sp->maxmem = 1024;
	sp->mem = palloc(sizeof(FpbKey) * sp->maxmem);
}

/* Hand one entry to the tuplesort (the spill path). */
static void
fpb_spool_puttuplesort(FpbSpool *sp, uint64 k, uint64 t)
{
	TupleTableSlot *slot = sp->slot;

	/* flip the top bits so that int8 (signed) order is unsigned order */
	ExecClearTuple(slot);
	slot->tts_values[0] = Int64GetDatum((int64) (k ^ FPB_SIGNBIT));
	slot->tts_values[1] = Int64GetDatum((int64) (t ^ FPB_SIGNBIT));
	slot->tts_isnull[0] = slot->tts_isnull[1] = false;
	ExecStoreVirtualTuple(slot);
	tuplesort_puttupleslot(sp->sort, slot);
}

/*
 * The entries no longer fit in the spool's memory: move them to a
 * tuplesort, which spills to disk as btree's build does.
 */
static void
fpb_spool_spill(FpbSpool *sp)
{
	AttrNumber	attnums[2] = {1, 2};
	Oid			sortops[2] = {Int8LessOperator, Int8LessOperator};
	Oid			colls[2] = {InvalidOid, InvalidOid};
	bool		nullsfirst[2] = {false, false};

	sp->sort = tuplesort_begin_heap(sp->sortdesc, 2, attnums, sortops, colls,
									nullsfirst, sp->workmem, NULL,
									TUPLESORT_NONE);
	for (int64 i = 0; i < sp->nmem; i++)
		fpb_spool_puttuplesort(sp, sp->mem[i].k, sp->mem[i].t);
	pfree(sp->mem);
	sp->mem = NULL;
	sp->nmem = 0;
}

/*
 * The table scan's callback: collect the entry key of one heap tuple, in
 * memory while the spool's memory allows and in the tuplesort after.
 */
void
fpb_spool_callback(Relation index, ItemPointer tid, Datum *values,
				   bool *isnull, bool tupleIsAlive, void *state)
{
	FpbSpool   *sp = (FpbSpool *) state;
	FpbKey		key = fpb_heap_key(sp->encproc, index->rd_indcollation[0],
									   values[0], isnull[0], tid);

	sp->indtuples++;

	if (sp->sort == NULL)
	{
		if (sp->nmem >= sp->maxmem)
		{
			int64		limit = (int64) sp->workmem * 1024 /
				(2 * sizeof(FpbKey));

			if (sp->maxmem * 2 <= limit)
			{
				sp->maxmem *= 2;
				sp->mem = repalloc_huge(sp->mem, sizeof(FpbKey) * sp->maxmem);
			}
			else
				fpb_spool_spill(sp);
		}
		if (sp->sort == NULL)
		{
			sp->mem[sp->nmem] = key;
			sp->nmem++;
			return;
		}
	}
	fpb_spool_puttuplesort(sp, key.k, key.t);
}

static int
fpb_keycmp_qsort(const void *a, const void *b)
{
	const FpbKey *x = a;
	const FpbKey *y = b;

	return fpb_key_cmp(x->k, x->t, y->k, y->t);
}

/*
 * LSD radix sort of a[0..n) on key bits [0, bits), `digit` bits a pass,
 * skipping the passes whose digit all keys share; tmp is scratch of n
 * entries, count of 2^digit.  Stable.  Returns the array holding the result
 * (a or tmp).
 */
static FpbKey *
fpb_radix_lsd(FpbKey *a, FpbKey *tmp, int64 n, int bits, int digit,
			  int64 *count)
{
	int			nd = 1 << digit;
	uint64		mask = nd - 1;

	for (int shift = 0; shift < bits; shift += digit)
	{
		int64		sum = 0;
		uint64		digit0 = (a[0].k >> shift) & mask;
		bool		trivial = true;
		FpbKey	   *swap;

		memset(count, 0, sizeof(int64) * nd);
		for (int64 i = 0; i < n; i++)
		{
			uint64		d = (a[i].k >> shift) & mask;

			count[d]++;
			trivial &= (d == digit0);
		}
		if (trivial)
			continue;
		for (int d = 0; d < nd; d++)
		{
			int64		c = count[d];

			count[d] = sum;
			sum += c;
		}
		for (int64 i = 0; i < n; i++)
			tmp[count[(a[i].k >> shift) & mask]++] = a[i];
		swap = a;
		a = tmp;
		tmp = swap;
	}
	return a;
}

#define FPB_RADIX_MSD_MIN	524288	/* fewer entries (8 MB) stay in the cache: LSD only */

/*
 * Sort the in-memory entries by k, stably, so entries with equal keys stay
 * in heap-scan order -- ascending TID, except where HOT chains report their
 * root TID; a final pass sorts any run of equal keys that is out of TID
 * order.
 *
 * A large array is first split on the 11 bits just below the highest bit
 * in which its keys differ (one pass over memory, scattering to 2048
 * buckets), then each bucket -- a few thousand entries for random keys,
 * held in the cache -- is sorted on the bits below with 8-bit LSD passes.
 * Plain LSD passes over the whole array, each scattering to 2048 places in
 * memory, cost several times more: every pass misses the cache and the TLB.
 */
static FpbKey *
fpb_build_radixsort(FpbKey *a, int64 n)
{
	FpbKey	   *tmp;
	FpbKey	   *res;
	int64	   *count;

	if (n < 2)
		return a;
	tmp = palloc_extended(sizeof(FpbKey) * n, MCXT_ALLOC_HUGE);
	count = palloc(sizeof(int64) * 2048);
	if (n < FPB_RADIX_MSD_MIN)
		res = fpb_radix_lsd(a, tmp, n, 64, 11, count);
	else
	{
		uint64		diff = 0;
		int			lo;
		int64		sum = 0;
		int64	   *start = palloc(sizeof(int64) * 2049);

		for (int64 i = 0; i < n; i++)
			diff |= a[i].k ^ a[0].k;
		if (diff == 0)
			res = a;			/* one key: heap order is the order */
		else
		{
			lo = Max(0, 63 - __builtin_clzll(diff) - 10);
			memset(count, 0, sizeof(int64) * 2048);
			for (int64 i = 0; i < n; i++)
				count[(a[i].k >> lo) & 2047]++;
			for (int d = 0; d < 2048; d++)
			{
				start[d] = sum;
				sum += count[d];
			}
			start[2048] = n;
			memcpy(count, start, sizeof(int64) * 2048);
			for (int64 i = 0; i < n; i++)
				tmp[count[(a[i].k >> lo) & 2047]++] = a[i];
			CHECK_FOR_INTERRUPTS();
			for (int d = 0; d < 2048; d++)
			{
				int64		s = start[d];
				int64		c = start[d + 1] - s;
				FpbKey	   *r;

				if (c < 2)
					continue;
				r = fpb_radix_lsd(tmp + s, a + s, c, lo, 8, count);
				if (r != tmp + s)
					memcpy(tmp + s, r, sizeof(FpbKey) * c);
			}
			res = tmp;
		}
		pfree(start);
	}
	CHECK_FOR_INTERRUPTS();
	pfree(res == a ? tmp : a);
	pfree(count);
	a = res;

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

/* Sort the spool's entries, in memory or in its tuplesort. */
void
fpb_spool_sort(FpbSpool *sp)
{
	if (sp->sort)
	{
		tuplesort_performsort(sp->sort);
		ExecDropSingleTupleTableSlot(sp->slot);
		sp->slot = MakeSingleTupleTableSlot(sp->sortdesc, &TTSOpsMinimalTuple);
	}
	else
		sp->mem = fpb_build_radixsort(sp->mem, sp->nmem);
	sp->readpos = 0;
}

/*
 * The next sorted entries of a sorted spool: *out points to them, into the
 * spool's memory (all that is left at once) or into scratch (at most max,
 * from the tuplesort).  Returns how many; 0 at the end.
 */
int64
fpb_spool_batch(FpbSpool *sp, FpbKey **out, FpbKey *scratch, int max)
{
	int			n = 0;

	if (sp->sort == NULL)
	{
		int64		left = sp->nmem - sp->readpos;

		*out = sp->mem + sp->readpos;
		sp->readpos = sp->nmem;
		return left;
	}
	while (n < max &&
		   tuplesort_gettupleslot(sp->sort, true, false, sp->slot, NULL))
	{
		bool		isnull;

		scratch[n].k = (uint64) DatumGetInt64(slot_getattr(sp->slot, 1,
														   &isnull)) ^
			FPB_SIGNBIT;
		scratch[n].t = (uint64) DatumGetInt64(slot_getattr(sp->slot, 2,
														   &isnull)) ^
			FPB_SIGNBIT;
		n++;
	}
	*out = scratch;
	return n;
}

void
fpb_spool_end(FpbSpool *sp)
{
	if (sp->sort)
		tuplesort_end(sp->sort);
	else if (sp->mem)
		pfree(sp->mem);
	sp->sort = NULL;
	sp->mem = NULL;
	ExecDropSingleTupleTableSlot(sp->slot);
}

