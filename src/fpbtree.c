/*-------------------------------------------------------------------------
 *
 * fpbtree.c
 *	  Library entry point: settings, reloptions and (in later issues) the
 *	  planner hooks and custom scan methods.
 *
 * The access method works without preloading: calling its handler loads
 * the library, which runs _PG_init.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "fpbtree.h"
#include "utils/guc.h"

PG_MODULE_MAGIC;

/* the paper's example machine (T1 = 150 ns, Tnext = 10 ns) until calibrated */
double		fpb_t1_ns = 150.0;
double		fpb_tnext_ns = 10.0;

void		_PG_init(void);

void
_PG_init(void)
{
	DefineCustomRealVariable("fpbtree.t1_ns",
							 "Full cache-miss latency used by the fpbtree node-width model.",
							 "Measured by fpbtree_calibrate(); read when an index is created.",
							 &fpb_t1_ns, 150.0, 1.0, 100000.0,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("fpbtree.tnext_ns",
							 "Latency of each further pipelined cache miss, for the fpbtree node-width model.",
							 "Measured by fpbtree_calibrate(); read when an index is created.",
							 &fpb_tnext_ns, 10.0, 1.0, 100000.0,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("fpbtree");

	fpb_init_reloptions();
}
