/*-------------------------------------------------------------------------
 *
 * buffer.h
 *	  The buffer operator of Zhou & Ross (SIGMOD 2004) and the plan
 *	  refinement pass that places it: shared declarations of buffer.c (the
 *	  CustomScan node and the settings), refine.c (the planner_hook
 *	  pass) and buffer_footprint.c (the instruction footprint model).
 *
 * See src/exec/README.md for the design.
 *
 *-------------------------------------------------------------------------
 */
#ifndef FPB_BUFFER_H
#define FPB_BUFFER_H

#include "nodes/pg_list.h"
#include "nodes/plannodes.h"

/* name under which the CustomScan methods are registered (and EXPLAIN shows) */
#define FPB_BUFFER_NAME "Buffer"

/* settings (buffer.c) */
extern bool fpb_enable_buffer;
extern bool fpb_enable_buffer_session;
extern int	fpb_buffer_size;
extern int	fpb_buffer_min_rows;
extern int	fpb_l1i_cache_size;

/* buffer.c: a Buffer plan node above child, with plan_node_id as given */
extern Plan *fpb_make_buffer_plan(Plan *child, int nslots, int group_bytes,
								  int plan_node_id);
extern bool fpb_is_buffer_plan(Plan *plan);

/*
 * buffer_footprint.c: the footprint of a set of operators.  A footprint is
 * a set of "atoms": pieces of executable code (cache lines grouped by which
 * operators execute them, as measured by calibrate/footprints.py), or one
 * per unknown SQL function.  Code shared by two operators is one atom, so
 * the size of a union counts it once.
 */
typedef struct FpbFootprint
{
	List	   *atoms;			/* integer keys, no duplicates */
} FpbFootprint;

/* the operator modules the calibration measures (keep in step with it) */
typedef enum FpbModule
{
	FPB_MOD_SEQSCAN,
	FPB_MOD_INDEXSCAN,
	FPB_MOD_INDEXONLYSCAN,
	FPB_MOD_BITMAPHEAPSCAN,
	FPB_MOD_OTHERSCAN,			/* function, values, CTE, tid, sample scans */
	FPB_MOD_SUBQUERYSCAN,
	FPB_MOD_QUAL,				/* a qual on any node */
	FPB_MOD_PROJECT,			/* a projection on any node */
	FPB_MOD_RESULT,
	FPB_MOD_APPEND,
	FPB_MOD_NESTLOOP,
	FPB_MOD_MERGEJOIN,
	FPB_MOD_HASHJOIN,			/* the probe phase */
	FPB_MOD_HASH,				/* the build phase */
	FPB_MOD_AGG,				/* base of plain and sorted aggregation */
	FPB_MOD_HASHAGG,			/* base of hashed aggregation */
	FPB_MOD_SORT,				/* the input phase of a sort */
	FPB_MOD_MATERIAL,
	FPB_MOD_UNIQUE,
	FPB_MOD_LIMIT,
	FPB_MOD_WINDOWAGG,
	FPB_MOD_OTHER,				/* any other operator */
	FPB_MOD_BUFFER,				/* the buffer operator itself */
	FPB_NUM_MODULES
} FpbModule;

extern void fpb_footprint_add_module(FpbFootprint *fp, FpbModule mod);
extern void fpb_footprint_add_function(FpbFootprint *fp, Oid funcid);
extern void fpb_footprint_add_exprs(FpbFootprint *fp, Node *exprs);
extern void fpb_footprint_union(FpbFootprint *dst, const FpbFootprint *src);
extern int	fpb_footprint_bytes(const FpbFootprint *fp);
extern int	fpb_footprint_union_bytes(const FpbFootprint *a,
									  const FpbFootprint *b);

#endif							/* FPB_BUFFER_H */
