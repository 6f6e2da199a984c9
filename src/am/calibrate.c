/*-------------------------------------------------------------------------
 *
 * calibrate.c
 *	  fpbtree_calibrate(): measurement of the two memory latencies the node
 *	  width model (nodewidth.c) needs, T1 and Tnext (Chen's thesis, section
 *	  2.4.1).
 *
 * fpbtree_calibrate() measures T1 and Tnext on the current host and sets
 * them for the session, like SET would; indexes created (or reindexed)
 * afterwards in the session use them.  Existing indexes keep the widths
 * stored in their metapage.  To make the values the default for every
 * session, persist them with
 *
 *		ALTER SYSTEM SET fpbtree.t1_ns = ...;
 *		ALTER SYSTEM SET fpbtree.tnext_ns = ...;
 *		SELECT pg_reload_conf();
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>
#include <unistd.h>

#include "access/htup_details.h"
#include "common/pg_prng.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/guc.h"

#include "compat.h"
#include "fpbtree.h"

PG_FUNCTION_INFO_V1(fpbtree_calibrate);

/* ----------------------------------------------------------------
 * Calibration (thesis section 2.4.1)
 *
 * Each measurement ("run") uses its own region of FPB_CAL_PAGES 4 KB pages,
 * as in the thesis: few enough pages that the TLB covers them all, so we
 * time cache misses and not page walks -- which is also what an in-page
 * search sees, its nodes sharing one buffer page.  Line 0 of every page is
 * kept free and read just before the run to load the TLB.  Nodes use only
 * the even lines, because adjacent-line prefetchers fetch 128-byte pairs
 * and would otherwise hand us the odd neighbour of every node for free.
 *
 * The pages of a region are spread over the whole buffer, one per
 * 1/FPB_CAL_PAGES of it (4 MB apart in a 256 MB buffer); page p of region
 * i sits at p * pstride + i * 4 KB.  With a region's pages side by side,
 * its nodes shared a few DRAM rows and some runs measured half the real
 * latency (seen on the project's test host); spread out, the runs agree
 * within a few percent.  Pages that belong to no region are never touched,
 * so the buffer costs address space only.
 *
 * Every region is built first, then all of them are evicted from the
 * caches at once, and then the runs go through the regions in order, each
 * touching nothing but its own, never-since-cached region.
 *
 * Eviction: where the CPU lets us (x86, aarch64 Linux) we flush the region
 * lines explicitly.  Streaming over a buffer larger than the last-level
 * cache, the thesis' way, would need gigabytes today (the test host
 * reports a 260 MB L3), and scan-resistant replacement policies keep some
 * old lines anyway.  Elsewhere we do stream: we write the pages that belong
 * to no region, and the buffer is sized to a multiple of the last-level
 * cache.
 * ----------------------------------------------------------------
 */
#define FPB_CAL_PAGE		4096
#define FPB_CAL_PAGES		64	/* pages per region, TLB-sized */
#define FPB_CAL_LINES_PER_PAGE	(FPB_CAL_PAGE / FPB_LINE)
#define FPB_CAL_NODES_PER_PAGE	(FPB_CAL_LINES_PER_PAGE / 2 - 1)
#define FPB_CAL_NODES		(FPB_CAL_PAGES * FPB_CAL_NODES_PER_PAGE)
#define FPB_CAL_T1_RUNS		10
#define FPB_CAL_MAX_DIST	20	/* prefetch distances 0..20 */
#define FPB_CAL_TNEXT_RUNS	4	/* runs per distance */
#define FPB_CAL_REGIONS \
	(FPB_CAL_T1_RUNS + (FPB_CAL_MAX_DIST + 1) * FPB_CAL_TNEXT_RUNS)
#define FPB_CAL_MIN_BUFFER	((Size) 256 * 1024 * 1024)
#define FPB_CAL_MAX_BUFFER	((Size) 1024 * 1024 * 1024)

/*
 * Write a line back to memory and drop it from every cache level, and wait
 * for all such flushes to finish.  Linux lets user code use the aarch64
 * instructions (SCTLR_EL1.UCI).
 */
#if defined(__x86_64__) || defined(__i386__)
#define FPB_HAVE_LINE_FLUSH 1
#define fpb_cal_flush_line(p)	__builtin_ia32_clflush(p)
#define fpb_cal_flush_wait()	__builtin_ia32_mfence()
#elif defined(__aarch64__) && defined(__linux__)
#define FPB_HAVE_LINE_FLUSH 1
#define fpb_cal_flush_line(p) \
	__asm__ __volatile__("dc civac, %0" : : "r" (p) : "memory")
#define fpb_cal_flush_wait() \
	__asm__ __volatile__("dsb ish" : : : "memory")
#endif

typedef struct FpbCalRegion
{
	char	   *base;			/* first byte of the region's first page */
	Size		pstride;		/* distance between its pages */
	char	  **order;			/* its nodes in (shuffled) visiting order */
} FpbCalRegion;

/* keeps the compiler from dropping loads whose values we never use */
static volatile uint64 fpb_cal_sink;

static inline char *
fpb_cal_page(const FpbCalRegion *r, int page)
{
	return r->base + (Size) page * r->pstride;
}

/* Load a random permutation of the region's nodes into r->order. */
static void
fpb_cal_shuffle(FpbCalRegion *r, pg_prng_state *rng)
{
	for (int i = 0; i < FPB_CAL_NODES; i++)
	{
		int			page = i / FPB_CAL_NODES_PER_PAGE;
		int			slot = i % FPB_CAL_NODES_PER_PAGE;

		/* even lines 2, 4, ..., 62 */
		r->order[i] = fpb_cal_page(r, page) + (Size) (slot + 1) * 2 * FPB_LINE;
	}
	for (int i = FPB_CAL_NODES - 1; i > 0; i--)
	{
		int			j = (int) pg_prng_uint64_range(rng, 0, i);
		char	   *tmp = r->order[i];

		r->order[i] = r->order[j];
		r->order[j] = tmp;
	}
}

/* Read line 0 of every page of the region, filling the TLB. */
static void
fpb_cal_warm_tlb(const FpbCalRegion *r)
{
	uint64		sum = 0;

	for (int p = 0; p < FPB_CAL_PAGES; p++)
		sum += *(volatile uint64 *) fpb_cal_page(r, p);
	fpb_cal_sink += sum;
}

#ifdef FPB_HAVE_LINE_FLUSH
static void
fpb_cal_evict(FpbCalRegion *regions, int nregions, char *buf, Size bufsize)
{
	for (int i = 0; i < nregions; i++)
		for (int p = 0; p < FPB_CAL_PAGES; p++)
			for (int l = 0; l < FPB_CAL_LINES_PER_PAGE; l++)
				fpb_cal_flush_line(fpb_cal_page(&regions[i], p) +
								   (Size) l * FPB_LINE);
	fpb_cal_flush_wait();
}
#else
static void
fpb_cal_evict(FpbCalRegion *regions, int nregions, char *buf, Size bufsize)
{
	Size		pstride = regions[0].pstride;

	/*
	 * Store into every line of the pages that belong to no region: those
	 * after the nregions region pages in each pstride-sized slice.  Stores,
	 * because unwritten anonymous memory would all map one zero page; our
	 * own loop, because memset() may use non-temporal stores for large
	 * sizes, which bypass the cache and evict nothing.
	 */
	for (int p = 0; p < FPB_CAL_PAGES; p++)
	{
		char	   *start = buf + (Size) p * pstride +
			(Size) nregions * FPB_CAL_PAGE;
		char	   *end = buf + (Size) (p + 1) * pstride;

		for (char *q = start; q < end; q += FPB_LINE)
			*(volatile uint64 *) q = (uint64) p;
		CHECK_FOR_INTERRUPTS();
	}
}
#endif

/* T1: nanoseconds per hop of a pointer chase through the region. */
static double
fpb_cal_chase(const FpbCalRegion *r)
{
	instr_time	start,
				duration;
	char	   *p = r->order[0];

	fpb_cal_warm_tlb(r);
	INSTR_TIME_SET_CURRENT(start);
	for (int i = 0; i < FPB_CAL_NODES; i++)
		p = *(char **) p;
	INSTR_TIME_SET_CURRENT(duration);
	INSTR_TIME_SUBTRACT(duration, start);
	fpb_cal_sink += (uintptr_t) p;
	return INSTR_TIME_GET_DOUBLE(duration) * 1e9 / FPB_CAL_NODES;
}

/*
 * Tnext: nanoseconds per node when reading the region's nodes through the
 * pointer array, prefetching dist nodes ahead; prefetching stops at the end
 * of the array, so there is no overshoot to pay for.
 */
static double
fpb_cal_stream(const FpbCalRegion *r, int dist)
{
	instr_time	start,
				duration;
	char	  **order = r->order;
	uint64		sum = 0;
	int			i = 0;

	/* the pointer array itself must come from the cache */
	for (int j = 0; j < FPB_CAL_NODES; j++)
		sum += (uintptr_t) order[j];
	fpb_cal_warm_tlb(r);

	INSTR_TIME_SET_CURRENT(start);
	if (dist > 0)
	{
		for (int j = 0; j < dist && j < FPB_CAL_NODES; j++)
			FPB_PREFETCH_R(order[j]);
		for (; i < FPB_CAL_NODES - dist; i++)
		{
			FPB_PREFETCH_R(order[i + dist]);
			sum += *(uint64 *) order[i];
		}
	}
	for (; i < FPB_CAL_NODES; i++)
		sum += *(uint64 *) order[i];
	INSTR_TIME_SET_CURRENT(duration);
	INSTR_TIME_SUBTRACT(duration, start);
	fpb_cal_sink += sum;
	return INSTR_TIME_GET_DOUBLE(duration) * 1e9 / FPB_CAL_NODES;
}

#ifndef FPB_HAVE_LINE_FLUSH
/* Size of the last-level cache, or 0 if the platform will not say. */
static Size
fpb_cal_llc_size(void)
{
	long		sz = -1;

#if defined(_SC_LEVEL3_CACHE_SIZE)
	sz = sysconf(_SC_LEVEL3_CACHE_SIZE);
	if (sz <= 0)
		sz = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
	return sz > 0 ? (Size) sz : 0;
}
#endif

/*
 * Measure T1 and Tnext (ns).  Takes the minimum over runs, as the thesis
 * does: interference can only make a run slower than the hardware.
 */
static void
fpb_measure_latencies(double *t1_out, double *tnext_out)
{
	Size		bufsize;
	char	   *raw = NULL;
	char	   *buf;
	Size		pstride;
	FpbCalRegion *regions;
	char	  **orders;
	pg_prng_state rng;
	double		t1 = -1;
	double		tnext = -1;
	int			next = 0;

	/* only the streaming eviction needs more than the regions' spread */
#ifdef FPB_HAVE_LINE_FLUSH
	bufsize = FPB_CAL_MIN_BUFFER;
#else
	bufsize = Max(FPB_CAL_MIN_BUFFER, 4 * fpb_cal_llc_size());
	bufsize = Min(bufsize, FPB_CAL_MAX_BUFFER);
#endif

	/*
	 * Each of the FPB_CAL_PAGES slices must hold one page of every region;
	 * if memory is short, halve the buffer while that still holds (twice
	 * over, so that regions stay apart).
	 */
	while (bufsize >= (Size) 2 * FPB_CAL_PAGES * FPB_CAL_REGIONS * FPB_CAL_PAGE)
	{
		raw = palloc_extended(bufsize + FPB_CAL_PAGE,
							  MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
		if (raw != NULL)
			break;
		bufsize /= 2;
	}
	if (raw == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Failed to allocate the fpbtree calibration buffer.")));
	buf = (char *) TYPEALIGN(FPB_CAL_PAGE, raw);
	pstride = (bufsize / FPB_CAL_PAGES) & ~((Size) FPB_CAL_PAGE - 1);

	/* a fixed seed: the same layout, hence comparable numbers, each time */
	pg_prng_seed(&rng, UINT64CONST(0xF9B7EE01C0FFEE15));
	regions = palloc(sizeof(FpbCalRegion) * FPB_CAL_REGIONS);
	orders = palloc(sizeof(char *) * FPB_CAL_NODES * FPB_CAL_REGIONS);
	for (int i = 0; i < FPB_CAL_REGIONS; i++)
	{
		FpbCalRegion *r = &regions[i];

		r->base = buf + (Size) i * FPB_CAL_PAGE;
		r->pstride = pstride;
		r->order = orders + (Size) i * FPB_CAL_NODES;
		for (int p = 0; p < FPB_CAL_PAGES; p++)
			memset(fpb_cal_page(r, p), 0, FPB_CAL_PAGE);
		fpb_cal_shuffle(r, &rng);
		if (i < FPB_CAL_T1_RUNS)
		{
			/* a cycle through all nodes in shuffled order */
			for (int j = 0; j < FPB_CAL_NODES; j++)
				*(char **) r->order[j] = r->order[(j + 1) % FPB_CAL_NODES];
		}
	}
	CHECK_FOR_INTERRUPTS();
	fpb_cal_evict(regions, FPB_CAL_REGIONS, buf, bufsize);

	for (int run = 0; run < FPB_CAL_T1_RUNS; run++)
	{
		double		v;

		CHECK_FOR_INTERRUPTS();
		v = fpb_cal_chase(&regions[next++]);
		if (t1 < 0 || v < t1)
			t1 = v;
	}
	for (int dist = 0; dist <= FPB_CAL_MAX_DIST; dist++)
	{
		for (int run = 0; run < FPB_CAL_TNEXT_RUNS; run++)
		{
			double		v;

			CHECK_FOR_INTERRUPTS();
			v = fpb_cal_stream(&regions[next++], dist);
			if (tnext < 0 || v < tnext)
				tnext = v;
		}
	}
	Assert(next == FPB_CAL_REGIONS);

	pfree(orders);
	pfree(regions);
	pfree(raw);

	*t1_out = t1;
	*tnext_out = tnext;
}

/* Set a real-valued setting for the session, as SET would. */
static void
fpb_set_session_real(const char *name, double value)
{
	char		buf[64];

	snprintf(buf, sizeof(buf), "%.1f", value);
	(void) set_config_option(name, buf, PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SET, true, 0, false);
}

/*
 * fpbtree_calibrate() -> (t1_ns, tnext_ns) measured on this host, also set
 * as fpbtree.t1_ns / fpbtree.tnext_ns for the rest of the session (use
 * ALTER SYSTEM SET to keep them; see the head of this file).
 */
Datum
fpbtree_calibrate(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	double		t1,
				tnext;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("function returning record called in context that cannot accept type record")));
	tupdesc = BlessTupleDesc(tupdesc);

	fpb_measure_latencies(&t1, &tnext);

	/*
	 * Keep the results within what the settings accept and the model
	 * assumes (a pipelined miss is no slower than a full one), rounded to
	 * what we print into the settings, so SHOW agrees with our result.
	 */
	t1 = rint(Min(Max(t1, 1.0), 100000.0) * 10) / 10;
	tnext = rint(Min(Max(tnext, 1.0), t1) * 10) / 10;

	fpb_set_session_real("fpbtree.t1_ns", t1);
	fpb_set_session_real("fpbtree.tnext_ns", tnext);

	values[0] = Float8GetDatum(t1);
	values[1] = Float8GetDatum(tnext);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
