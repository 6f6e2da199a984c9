/*-------------------------------------------------------------------------
 *
 * exec.h
 *	  Entry points of the executor extensions (custom scan nodes and the
 *	  planner hooks that place them), called from _PG_init.
 *
 *-------------------------------------------------------------------------
 */
#ifndef FPB_EXEC_H
#define FPB_EXEC_H

/* PrefetchHashJoin: settings, set_join_pathlist_hook, custom scan methods */
extern void fpb_hashjoin_init(void);

/* Buffer operator: settings, custom scan methods */
extern void fpb_buffer_init(void);

/* plan refinement: the planner_hook that places Buffers */
extern void fpb_refine_init(void);

/* does the statement being planned call a volatile function? (refine.c) */
extern bool fpb_statement_volatile(void);

#endif							/* FPB_EXEC_H */
