/*-------------------------------------------------------------------------
 *
 * handler.c
 *	  The fpbtree access method handler, its init (settings, reloptions) and
 *	  amcanreturn.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/amapi.h"
#include "access/reloptions.h"
#include "commands/vacuum.h"
#include "fpbtree.h"
#include "utils/guc.h"

PG_FUNCTION_INFO_V1(fpbtree_handler);

relopt_kind fpb_relopt_kind;
static relopt_parse_elt fpb_relopt_tab[3];

/* the paper's example machine (T1 = 150 ns, Tnext = 10 ns) until calibrated */
double		fpb_t1_ns = 150.0;
double		fpb_tnext_ns = 10.0;

static void fpb_init_reloptions(void);

/* Called from _PG_init: the access method's settings and reloptions. */
void
fpb_am_init(void)
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
							 PGC_USERSET, GUC_EXPLAIN, NULL, NULL, NULL);
	DefineCustomBoolVariable("fpbtree.heap_prefetch",
							 "Prefetch the heap blocks of the TIDs an fpbtree index scan is about to return.",
							 "The distance is capped by the heap tablespace's effective_io_concurrency.",
							 &fpb_enable_heap_prefetch, true,
							 PGC_USERSET, GUC_EXPLAIN, NULL, NULL, NULL);
	DefineCustomBoolVariable("fpbtree.planner_as_btree",
							 "Let the planner ask fpbtree indexes what it asks only btree indexes: a column's actual minimum and maximum, and whether a unique index makes a join's inner side unique.",
							 "The first serves range estimates beyond the column's histogram, the second join removal and unique joins.",
							 &fpb_planner_as_btree, true,
							 PGC_USERSET, GUC_EXPLAIN, NULL, NULL, NULL);
	DefineCustomIntVariable("fpbtree.prefetch_distance_max",
							"Upper limit of the leaf and heap prefetch distance (0 = effective_io_concurrency alone).",
							NULL,
							&fpb_prefetch_max, 0, 0, 1000,
							PGC_USERSET, GUC_EXPLAIN, NULL, NULL, NULL);
	DefineCustomIntVariable("fpbtree.node_prefetch_distance",
							"In-page leaf nodes prefetched ahead of a range scan (0 = ceil(T1 / (x * Tnext))).",
							NULL,
							&fpb_node_prefetch, 0, 0, 64,
							PGC_USERSET, GUC_EXPLAIN, NULL, NULL, NULL);
	DefineCustomBoolVariable("fpbtree.debug_pagedel_stop",
							 "Developer setting: VACUUM stops with an error between the two steps of an fpbtree page deletion.",
							 "For tests of half-dead pages left by a crash; never for production use.",
							 &fpb_debug_pagedel_stop, false,
							 PGC_SUSET, GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);
	DefineCustomBoolVariable("fpbtree.debug_multi_prefix_first",
							 "Developer setting: CREATE INDEX gives multi-column fpbtree indexes the old prefix format, the first column's key alone, and the page format of builds before version 4.",
							 "For tests of indexes built by older builds of fpbtree; never for production use.",
							 &fpb_debug_multi_prefix_first, false,
							 PGC_SUSET, GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);
	DefineCustomBoolVariable("fpbtree.debug_codepoint_prefix_const",
							 "Developer setting: CREATE INDEX makes fpbtree indexes without format flags, as older builds of fpbtree did: text under C.UTF-8 gets the constant prefix, long values are refused instead of compressed, leaf nodes start at their first slot.",
							 "For tests of indexes built by older builds of fpbtree; never for production use.",
							 &fpb_debug_codepoint_prefix_const, false,
							 PGC_SUSET, GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);

	fpb_init_reloptions();
	fpb_pattern_init();
	fpb_planview_init();
	fpb_rowcompare_init();
	fpb_upsert_init();
	fpb_fkey_init();
	fpb_scan_group_init();
}

static void
fpb_init_reloptions(void)
{
	fpb_relopt_kind = add_reloption_kind();
	add_int_reloption(fpb_relopt_kind, "fillfactor",
					  "Packs fpbtree leaf nodes only to this percentage at build",
					  FPB_DEFAULT_FILLFACTOR, FPB_MIN_FILLFACTOR, 100,
					  ShareUpdateExclusiveLock);
	add_int_reloption(fpb_relopt_kind, "nonleaf_lines",
					  "Cache lines per in-page non-leaf node (0 = from the width model)",
					  0, 0, FPB_MAX_WIDTH, AccessExclusiveLock);
	add_int_reloption(fpb_relopt_kind, "leaf_lines",
					  "Cache lines per in-page leaf node (0 = from the width model)",
					  0, 0, FPB_MAX_WIDTH, AccessExclusiveLock);
	fpb_relopt_tab[0].optname = "fillfactor";
	fpb_relopt_tab[0].opttype = RELOPT_TYPE_INT;
	fpb_relopt_tab[0].offset = offsetof(FpbOptions, fillfactor);
	fpb_relopt_tab[1].optname = "nonleaf_lines";
	fpb_relopt_tab[1].opttype = RELOPT_TYPE_INT;
	fpb_relopt_tab[1].offset = offsetof(FpbOptions, nonleaf_lines);
	fpb_relopt_tab[2].optname = "leaf_lines";
	fpb_relopt_tab[2].opttype = RELOPT_TYPE_INT;
	fpb_relopt_tab[2].offset = offsetof(FpbOptions, leaf_lines);
}

bytea *
fpboptions(Datum reloptions, bool validate)
{
	return (bytea *) build_reloptions(reloptions, validate, fpb_relopt_kind,
									  sizeof(FpbOptions), fpb_relopt_tab,
									  lengthof(fpb_relopt_tab));
}

/* Every supported type decodes exactly, so index-only scans always work. */
bool
fpbcanreturn(Relation index, int attno)
{
	return true;
}

Datum
fpbtree_handler(PG_FUNCTION_ARGS)
{
	IndexAmRoutine *amroutine = makeNode(IndexAmRoutine);

	amroutine->amstrategies = FPB_NSTRATEGIES;
	amroutine->amsupport = FPB_NPROC;
	amroutine->amoptsprocnum = 0;
	amroutine->amcanorder = true;
	amroutine->amcanorderbyop = false;
	amroutine->amcanbackward = true;
	amroutine->amcanunique = true;
	amroutine->amcanmulticol = true;
	amroutine->amoptionalkey = true;
	amroutine->amsearcharray = true;
	amroutine->amsearchnulls = true;
	amroutine->amstorage = false;
	amroutine->amclusterable = true;
	amroutine->ampredlocks = true;
	amroutine->amcanparallel = true;
	amroutine->amcaninclude = true;
	amroutine->amusemaintenanceworkmem = false;
	amroutine->amparallelvacuumoptions =
		VACUUM_OPTION_PARALLEL_BULKDEL | VACUUM_OPTION_PARALLEL_COND_CLEANUP;
	amroutine->amkeytype = InvalidOid;

	amroutine->ambuild = fpbbuild;
	amroutine->ambuildempty = fpbbuildempty;
	amroutine->aminsert = fpbinsert;
	amroutine->ambulkdelete = fpbbulkdelete;
	amroutine->amvacuumcleanup = fpbvacuumcleanup;
	amroutine->amcanreturn = fpbcanreturn;
	amroutine->amcostestimate = fpbcostestimate;
	amroutine->amoptions = fpboptions;
	amroutine->amproperty = NULL;
	amroutine->ambuildphasename = fpbbuildphasename;
	amroutine->amvalidate = fpbvalidate;
	amroutine->amadjustmembers = NULL;
	amroutine->ambeginscan = fpbbeginscan;
	amroutine->amrescan = fpbrescan;
	amroutine->amgettuple = fpbgettuple;
	amroutine->amgetbitmap = fpbgetbitmap;
	amroutine->amendscan = fpbendscan;
	amroutine->ammarkpos = fpbmarkpos;
	amroutine->amrestrpos = fpbrestrpos;
	amroutine->amestimateparallelscan = fpbestimateparallelscan;
	amroutine->aminitparallelscan = fpbinitparallelscan;
	amroutine->amparallelrescan = fpbparallelrescan;

	PG_RETURN_POINTER(amroutine);
}
