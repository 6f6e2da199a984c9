/*-------------------------------------------------------------------------
 *
 * fpbtree.c
 *	  Library entry point: the access method's settings and reloptions,
 *	  then the executor parts (PrefetchHashJoin, the Buffer operator and its
 *	  plan refinement), which define their own settings and hooks.
 *
 * The access method works without preloading: calling its handler loads
 * the library, which runs _PG_init.  The custom scans need the library
 * preloaded (shared_preload_libraries or session_preload_libraries).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "exec/exec.h"
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
	DefineCustomBoolVariable("fpbtree.range_prefetch",
							 "Prefetch the leaf pages of fpbtree range scans through the jump-pointer array.",
							 "The distance is capped by the tablespace's effective_io_concurrency.",
							 &fpb_enable_range_prefetch, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("fpbtree.heap_prefetch",
							 "Prefetch the heap blocks of the TIDs an fpbtree index scan is about to return.",
							 "The distance is capped by the heap tablespace's effective_io_concurrency.",
							 &fpb_enable_heap_prefetch, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("fpbtree.prefetch_distance_max",
							"Upper limit of the leaf and heap prefetch distance (0 = effective_io_concurrency alone).",
							NULL,
							&fpb_prefetch_max, 0, 0, 1000,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("fpbtree.node_prefetch_distance",
							"In-page leaf nodes prefetched ahead of a range scan (0 = ceil(T1 / (x * Tnext))).",
							NULL,
							&fpb_node_prefetch, 0, 0, 64,
							PGC_USERSET, 0, NULL, NULL, NULL);

	fpb_init_reloptions();

	fpb_hashjoin_init();
	fpb_buffer_init();

	/*
	 * Last: reserving the prefix removes every "fpbtree.*" placeholder not
	 * defined by now, dropping the value postgresql.conf gave it.
	 */
	MarkGUCPrefixReserved("fpbtree");
}
