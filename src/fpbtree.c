/*-------------------------------------------------------------------------
 *
 * fpbtree.c
 *	  Library entry point: calls the init function of each part (the access
 *	  method, PrefetchHashJoin, the Buffer operator, the plan refinement),
 *	  each of which defines its own settings, hooks and custom scan methods.
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

void		_PG_init(void);

/*
 * One init per part; none calls another's.  The prefix is reserved last:
 * reserving it removes every "fpbtree.*" placeholder not defined by then,
 * dropping the value postgresql.conf gave it.
 */
void
_PG_init(void)
{
	fpb_am_init();
	fpb_hashjoin_init();
	fpb_buffer_init();
	fpb_refine_init();

	MarkGUCPrefixReserved("fpbtree");
}
