/*-------------------------------------------------------------------------
 *
 * cpucache.h
 *	  cpu0's caches as sysfs describes them, for the settings whose
 *	  defaults follow the machine (fpbtree.l1i_cache_size, the hash join's
 *	  cache sizes).
 *
 *-------------------------------------------------------------------------
 */
#ifndef FPB_CPUCACHE_H
#define FPB_CPUCACHE_H

#define FPB_MAX_CPU_CACHES	8

typedef struct FpbCpuCache
{
	int			level;
	bool		instruction;	/* an instruction cache (not data/unified) */
	int64		bytes;
} FpbCpuCache;

extern int	fpb_cpu_caches(FpbCpuCache *caches);

#endif							/* FPB_CPUCACHE_H */
