/*-------------------------------------------------------------------------
 *
 * nodewidth.c
 *	  The node width model of disk-first fpB+-trees (Chen et al., SIGMOD
 *	  2002, section 3.1.1) and the measurement of the two memory latencies
 *	  it needs (Chen's thesis, section 2.4.1).
 *
 * An in-page search visits L nodes; each is prefetched whole before it is
 * searched, so a node of w lines costs one full miss plus w - 1 pipelined
 * misses:
 *
 *		cost = (L - 1) [T1 + (w - 1) Tnext] + T1 + (x - 1) Tnext
 *
 * with w lines per non-leaf node and x lines per leaf node.  Wide nodes
 * make the in-page tree shallow but pay for the extra lines; what is left
 * of the page after the non-leaf nodes decides the page fan-out.  The
 * paper's goal G: among all (w, x) in 1..32, take the one with the largest
 * leaf page fan-out whose cost is within 10% of the cheapest.  The choice
 * is made once, at CREATE INDEX, from the settings fpbtree.t1_ns and
 * fpbtree.tnext_ns.
 *
 * Widths chosen for our 8 KB pages (8-byte keys, 6-byte tiebreakers, 2-byte
 * in-page offsets; see fpb_leafcap/fpb_innercap), as fpbtree_node_widths()
 * reports them; "optimum" is the cheapest pair, which G trades for fan-out:
 *
 *	  T1	Tnext	non-leaf	leaf		fan-out  levels  cost	optimum
 *	  150	10		4 (256 B)	8 (512 B)	  540	   2	  400	390 (5/6, 494)
 *	  189	24		4 (256 B)	8 (512 B)	  540	   2	  618	594 (5/6, 494)
 *	  100	5		4 (256 B)	8 (512 B)	  540	   2	  250	245 (5/6, 494)
 *	  300	30		4 (256 B)	8 (512 B)	  540	   2	  900	870 (5/6, 494)
 *	  80	20		6 (384 B)	5 (320 B)	  506	   2	  340	320 (2/3, 481)
 *
 * The paper's Table 2 (4-byte keys and tuple ids, T1 = 150, Tnext = 10)
 * has 192 B non-leaf and 256 B leaf nodes for 8 KB pages, fan-out 961.  Our
 * leaf entries take 14 bytes instead of 8, so a 512 B leaf node holds 36
 * entries, about what the paper's 256 B node held; our 256 B non-leaf node
 * has 15 children.  Both are wider, and the page holds fewer entries, but
 * the in-page tree keeps the paper's two levels.  (The thesis' Table 3.2,
 * 8-byte keys with T1 = 189, Tnext = 24, has 128 B / 640 B.)
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

#include "fpbtree.h"

PG_FUNCTION_INFO_V1(fpbtree_node_widths);
PG_FUNCTION_INFO_V1(fpbtree_calibrate);

/* goal G: cost within this factor of the optimum */
#define FPB_COST_SLACK		1.1

/*
 * In-page levels of a page holding the most leaf nodes it can.  This
 * follows the layout of page.c (fpb_max_leafnodes / fpb_inner_nodes): the
 * leaf nodes, then one level of non-leaf nodes per fpb_innercap(w)-fold
 * reduction down to a single root.
 */
static int
fpb_full_page_levels(int w, int x)
{
	int			lcap = fpb_leafcap(x, false);
	int			icap = fpb_innercap(w);
	int			m = fpb_page_capacity(w, x, false, 1.0) / lcap;
	int			levels = 1;

	while (m > 1)
	{
		m = (m + icap - 1) / icap;
		levels++;
	}
	return levels;
}

/*
 * Fan-out, in-page height and modelled search cost of a completely full
 * leaf page with w-line non-leaf and x-line leaf nodes.
 */
void
fpb_widths_for(int w, int x, double t1, double tnext, FpbWidths *out)
{
	int			levels;

	if (w < 1 || w > FPB_MAX_WIDTH || x < 1 || x > FPB_MAX_WIDTH)
		elog(ERROR, "fpbtree node widths out of range: %d, %d", w, x);

	levels = fpb_full_page_levels(w, x);
	out->w = w;
	out->x = x;
	out->leaf_fanout = fpb_page_capacity(w, x, false, 1.0);
	out->levels = levels;
	out->cost = (levels - 1) * (t1 + (w - 1) * tnext) + t1 + (x - 1) * tnext;
}

/*
 * Is a better than b under goal G, given both are within the cost bound?
 * Ties are broken so that the answer never depends on enumeration order.
 */
static bool
fpb_widths_better(const FpbWidths *a, const FpbWidths *b)
{
	if (a->leaf_fanout != b->leaf_fanout)
		return a->leaf_fanout > b->leaf_fanout;
	if (a->cost != b->cost)
		return a->cost < b->cost;
	if (a->w != b->w)
		return a->w < b->w;
	return a->x < b->x;
}

/*
 * Apply goal G: the largest leaf page fan-out among all width pairs whose
 * modelled cost is within 10% of the cheapest pair.
 */
void
fpb_choose_widths(double t1, double tnext, FpbWidths *out)
{
	FpbWidths	all[FPB_MAX_WIDTH][FPB_MAX_WIDTH];
	double		best = 0;
	double		bound;
	bool		found = false;
	bool		have_best = false;

	/* the settings' ranges guarantee this; callers from C might not */
	if (isnan(t1) || isinf(t1) || isnan(tnext) || isinf(tnext) ||
		t1 <= 0 || tnext <= 0)
		elog(ERROR, "invalid fpbtree latencies: T1 %g, Tnext %g", t1, tnext);

	for (int w = 1; w <= FPB_MAX_WIDTH; w++)
	{
		for (int x = 1; x <= FPB_MAX_WIDTH; x++)
		{
			FpbWidths  *c = &all[w - 1][x - 1];

			fpb_widths_for(w, x, t1, tnext, c);
			/* page.c cannot lay out a taller in-page tree */
			if (c->levels > FPB_MAX_IPHEIGHT)
				continue;
			if (!have_best || c->cost < best)
				best = c->cost;
			have_best = true;
		}
	}
	if (!have_best)
		elog(ERROR, "no fpbtree node widths fit a page");

	/*
	 * The costs are sums of a few products of the same inputs; a relative
	 * epsilon keeps a pair whose cost lands exactly on the bound from
	 * dropping out through rounding alone.
	 */
	bound = best * FPB_COST_SLACK * (1.0 + 1e-12);

	for (int w = 1; w <= FPB_MAX_WIDTH; w++)
	{
		for (int x = 1; x <= FPB_MAX_WIDTH; x++)
		{
			FpbWidths  *c = &all[w - 1][x - 1];

			if (c->levels > FPB_MAX_IPHEIGHT || c->cost > bound)
				continue;
			if (!found || fpb_widths_better(c, out))
				*out = *c;
			found = true;
		}
	}
	Assert(found);
}

/* Reject latencies the model cannot use, with the user's own numbers. */
static void
fpb_check_latencies(double t1, double tnext)
{
	if (isnan(t1) || isinf(t1) || t1 <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("t1_ns must be a positive finite number, not %g", t1)));
	if (isnan(tnext) || isinf(tnext) || tnext <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("tnext_ns must be a positive finite number, not %g",
						tnext)));
	if (tnext > t1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("tnext_ns (%g) must not exceed t1_ns (%g)", tnext, t1),
				 errdetail("A pipelined cache miss cannot take longer than a full one.")));
}

/*
 * fpbtree_node_widths(t1_ns, tnext_ns) -> the widths CREATE INDEX would
 * choose for these latencies, with their fan-out, height and cost.
 */
Datum
fpbtree_node_widths(PG_FUNCTION_ARGS)
{
	double		t1 = PG_GETARG_FLOAT8(0);
	double		tnext = PG_GETARG_FLOAT8(1);
	FpbWidths	res;
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5] = {false, false, false, false, false};

	fpb_check_latencies(t1, tnext);

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("function returning record called in context that cannot accept type record")));
	tupdesc = BlessTupleDesc(tupdesc);

	fpb_choose_widths(t1, tnext, &res);

	values[0] = Int32GetDatum(res.w);
	values[1] = Int32GetDatum(res.x);
	values[2] = Int32GetDatum(res.leaf_fanout);
	values[3] = Int32GetDatum(res.levels);
	values[4] = Float8GetDatum(res.cost);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

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
			__builtin_prefetch(order[j]);
		for (; i < FPB_CAL_NODES - dist; i++)
		{
			__builtin_prefetch(order[i + dist]);
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
