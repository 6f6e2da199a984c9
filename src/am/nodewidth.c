/*-------------------------------------------------------------------------
 *
 * nodewidth.c
 *	  The node width model of disk-first fpB+-trees (Chen et al., SIGMOD
 *	  2002, section 3.1.1).
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
 * The latencies themselves are measured by fpbtree_calibrate() (see
 * calibrate.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"

#include "fpbtree.h"

PG_FUNCTION_INFO_V1(fpbtree_node_widths);

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
