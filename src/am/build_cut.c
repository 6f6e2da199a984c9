/*-------------------------------------------------------------------------
 *
 * build_cut.c
 *	  Where a parallel build cuts its sorted runs into slices: the position
 *	  in every run below which exactly a given number of entries of all runs
 *	  lie, found by bisecting between pivot keys, reading the run files
 *	  through a one-block cache (README, "Parallel build").
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "build.h"
#include "miscadmin.h"

#define FPB_KEYS_PER_BLOCK	((int64) (BLCKSZ / sizeof(FpbKey)))

static FpbKey
fpb_rr_get(FpbRunReader *rr, int64 i)
{
	long		blk = (long) (i / FPB_KEYS_PER_BLOCK);

	Assert(i >= 0 && i < rr->n);
	if (blk != rr->blk)
	{
		int64		want = Min(FPB_KEYS_PER_BLOCK,
							   rr->n - (int64) blk * FPB_KEYS_PER_BLOCK);

		if (BufFileSeekBlock(rr->file, blk) != 0 ||
			BufFileRead(rr->file, rr->buf, sizeof(FpbKey) * want) !=
			sizeof(FpbKey) * want)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("fpbtree: could not read sorted run %d of the build",
							rr->run)));
		rr->blk = blk;
	}
	return rr->buf[i % FPB_KEYS_PER_BLOCK];
}

static inline bool
fpb_fpbkey_less(FpbKey a, FpbKey b)
{
	return fpb_key_cmp(a.k, a.t, b.k, b.t) < 0;
}

/* entries of the run below x, known to be between lo and hi */
static int64
fpb_rr_lower(FpbRunReader *rr, FpbKey x, int64 lo, int64 hi)
{
	while (lo < hi)
	{
		int64		mid = lo + (hi - lo) / 2;

		if (fpb_fpbkey_less(fpb_rr_get(rr, mid), x))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* the cut's brackets hold at most this many entries before it steps */
#define FPB_CUT_STEPS		4096

/*
 * Where each run must be cut so that exactly `want` entries of all runs
 * lie before the cut.  Every run r keeps a bracket [lo[r], hi[r]) that
 * holds its cut: lo counts, in every run, the entries below a pivot key
 * with at most `want` entries of all runs below it, hi those below one
 * with more.  The first pivot is the entry at the proportional position of
 * the largest run: the runs are random shares of the heap, so it is
 * usually close.  But a run need not be a uniform sample (a key-clustered
 * heap whose first blocks the leader scanned alone, before the workers
 * started), so the next pivots are the middle of the widest bracket, each
 * halving it.  Once the brackets hold few entries, the cut moves from lo
 * one entry at a time (the next smallest of all runs) until the count is
 * right.
 */
void
fpb_cut(FpbRunReader *rr, int nrr, int64 total, int64 want, int64 *pos)
{
	int64	   *lo = palloc(sizeof(int64) * nrr);
	int64	   *hi = palloc(sizeof(int64) * nrr);
	int64		rank;
	bool		first = true;

	if (want >= total)
	{
		for (int r = 0; r < nrr; r++)
			pos[r] = rr[r].n;
		return;
	}
	for (int r = 0; r < nrr; r++)
	{
		lo[r] = 0;
		hi[r] = rr[r].n;
	}
	for (;;)
	{
		int			wide = 0;
		int64		width = 0;
		int64		at;
		FpbKey		x;

		for (int r = 0; r < nrr; r++)
		{
			width += hi[r] - lo[r];
			if (hi[r] - lo[r] > hi[wide] - lo[wide])
				wide = r;
		}
		if (width <= Max(FPB_CUT_STEPS, nrr))
			break;
		/* at first the widest bracket is the largest run */
		if (first)
			at = Min(rr[wide].n - 1,
					 (int64) ((double) want / total * rr[wide].n));
		else
			at = lo[wide] + (hi[wide] - lo[wide]) / 2;
		first = false;
		x = fpb_rr_get(&rr[wide], at);
		rank = 0;
		for (int r = 0; r < nrr; r++)
		{
			pos[r] = fpb_rr_lower(&rr[r], x, lo[r], hi[r]);
			rank += pos[r];
		}
		if (rank == want)
		{
			pfree(lo);
			pfree(hi);
			return;
		}
		memcpy(rank < want ? lo : hi, pos, sizeof(int64) * nrr);
		CHECK_FOR_INTERRUPTS();
	}

	rank = 0;
	for (int r = 0; r < nrr; r++)
	{
		pos[r] = lo[r];
		rank += pos[r];
	}
	while (rank < want)
	{
		int			best = -1;
		FpbKey		bk = {0, 0};

		for (int r = 0; r < nrr; r++)
		{
			FpbKey		c;

			if (pos[r] >= hi[r])
				continue;
			c = fpb_rr_get(&rr[r], pos[r]);
			if (best < 0 || fpb_fpbkey_less(c, bk))
			{
				best = r;
				bk = c;
			}
		}
		if (best < 0)
			elog(ERROR, "fpbtree: build runs hold fewer entries than counted");
		pos[best]++;
		rank++;
	}
	pfree(lo);
	pfree(hi);
}
