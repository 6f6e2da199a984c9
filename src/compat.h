/*-------------------------------------------------------------------------
 *
 * compat.h
 *	  The one place for PostgreSQL version and compiler differences.  Code
 *	  elsewhere uses the macros below instead of testing PG_VERSION_NUM or
 *	  compiler builtins itself.
 *
 *-------------------------------------------------------------------------
 */
#ifndef FPB_COMPAT_H
#define FPB_COMPAT_H

#include "storage/lmgr.h"

#if PG_VERSION_NUM < 150000
#error "fpbtree needs PostgreSQL 15 or later"
#endif

#define FPB_EXTEND_LOCK(rel)	LockRelationForExtension((rel), ExclusiveLock)
#define FPB_EXTEND_UNLOCK(rel)	UnlockRelationForExtension((rel), ExclusiveLock)

/* the RelFileNode of an index's storage manager relation (16: RelFileLocator) */
#if PG_VERSION_NUM >= 160000
#define FPB_SMGR_RNODE(rel)	(&RelationGetSmgr(rel)->smgr_rlocator.locator)
#else
#define FPB_SMGR_RNODE(rel)	(&RelationGetSmgr(rel)->smgr_rnode.node)
#endif

/*
 * Log the recovery conflict of reusing a deleted index page whose deletion
 * horizon is safexid: nbtree's XLOG_BTREE_REUSE_PAGE, whose redo touches no
 * page and only resolves the conflict on a hot standby (see src/am/README.md,
 * WAL).  Its layout changed in 16.
 */
#if PG_VERSION_NUM >= 160000
#define FPB_LOG_REUSE_PAGE(rel, blk, safexid) \
	do { \
		xl_btree_reuse_page xlrec_reuse; \
		xlrec_reuse.locator = *FPB_SMGR_RNODE(rel); \
		xlrec_reuse.block = (blk); \
		xlrec_reuse.snapshotConflictHorizon = (safexid); \
		xlrec_reuse.isCatalogRel = false; \
		XLogBeginInsert(); \
		XLogRegisterData((char *) &xlrec_reuse, SizeOfBtreeReusePage); \
		XLogInsert(RM_BTREE_ID, XLOG_BTREE_REUSE_PAGE); \
	} while (0)
#else
#define FPB_LOG_REUSE_PAGE(rel, blk, safexid) \
	do { \
		xl_btree_reuse_page xlrec_reuse; \
		xlrec_reuse.node = *FPB_SMGR_RNODE(rel); \
		xlrec_reuse.block = (blk); \
		xlrec_reuse.latestRemovedFullXid = (safexid); \
		XLogBeginInsert(); \
		XLogRegisterData((char *) &xlrec_reuse, SizeOfBtreeReusePage); \
		XLogInsert(RM_BTREE_ID, XLOG_BTREE_REUSE_PAGE); \
	} while (0)
#endif

/* a page-sized buffer for smgr writes (16 adds palloc_aligned) */
#if PG_VERSION_NUM >= 160000
#define palloc_aligned_compat(sz)	palloc_aligned((sz), PG_IO_ALIGN_SIZE, 0)
#else
#define palloc_aligned_compat(sz)	palloc(sz)
#endif

/*
 * src/am/wal.c writes the deltas of generic WAL records itself.  Their
 * format is private to PostgreSQL (generic_xlog.c); it has been checked for
 * these versions only, and others use GenericXLog (as does a build with
 * -DFPB_USE_GENERICXLOG, for comparison).
 */
#if PG_VERSION_NUM >= 150000 && PG_VERSION_NUM < 160000 && !defined(FPB_USE_GENERICXLOG)
#define FPB_OWN_GENERIC_DELTA
#endif

/*
 * Prefetch a cache line for reading or for writing, kept in every cache
 * level.  Only a hint: without compiler support it vanishes and the code
 * still runs correctly.
 */
#if defined(__GNUC__) || defined(__clang__)
#define FPB_PREFETCH_R(p)	__builtin_prefetch((p), 0, 3)
#define FPB_PREFETCH_W(p)	__builtin_prefetch((p), 1, 3)
#else
#define FPB_PREFETCH_R(p)	((void) (p))
#define FPB_PREFETCH_W(p)	((void) (p))
#endif

#endif							/* FPB_COMPAT_H */
