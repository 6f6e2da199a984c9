/*-------------------------------------------------------------------------
 *
 * hashjoin.h
 *	  PrefetchHashJoin: a CustomScan hash join whose build and probe phases
 *	  use group prefetching or software-pipelined prefetching (Chen's thesis,
 *	  chapter 4).  Shared between the planning code (hashjoin.c), the
 *	  executor node (hashjoin_exec.c, hashjoin_build.c, hashjoin_probe.c;
 *	  their private declarations are in hashjoin_int.h), the hash table
 *	  (hashjoin_table.c), the batch files (hashjoin_spill.c) and the radix
 *	  chunks (hashjoin_radix.c).  See src/exec/README.md.
 *
 *-------------------------------------------------------------------------
 */
#ifndef FPB_HASHJOIN_H
#define FPB_HASHJOIN_H

#include "access/htup_details.h"
#include "executor/tuptable.h"
#include "nodes/execnodes.h"
#include "nodes/extensible.h"
#include "storage/buffile.h"

#include "compat.h"

#define FPB_HJ_NAME		"PrefetchHashJoin"

/* fpbtree.hashjoin_prefetch */
typedef enum FpbHjPrefetch
{
	FPB_HJ_PREFETCH_GROUP,
	FPB_HJ_PREFETCH_PIPELINED,
	FPB_HJ_PREFETCH_NONE
} FpbHjPrefetch;

extern const char *fpb_hj_scheme_name(int scheme);
extern Size fpb_hj_cache_bytes(void);
extern Size fpb_hj_partition_bytes(void);

/* settings (hashjoin.c) */
extern bool fpb_enable_prefetch_hashjoin;
extern bool fpb_enable_prefetch_hashjoin_session;
extern int	fpb_hj_group_size;
extern int	fpb_hj_prefetch_distance;
extern int	fpb_hj_prefetch;
extern int	fpb_hj_cache_size_kb;
extern bool fpb_hj_partition_prefetch;
extern bool fpb_hj_huge_pages;
extern int	fpb_hj_radix_bits_setting;
extern bool fpb_hj_parallel_shared;

/*
 * A build tuple as stored in the tuple arena: a small header, then the
 * MinimalTuple at a MAXALIGNed offset.
 */
typedef struct FpbHashTuple
{
	uint32		hashvalue;
	uint16		flags;
	uint16		pad;
	Datum		key;			/* first key, only kept for a by-value key */
} FpbHashTuple;

#define FPB_HT_MATCHED	0x0001	/* matched a probe (right/full joins) */
#define FPB_HT_NOKEY	0x0002	/* a key is NULL: never in a bucket */

#define FPB_HT_OVERHEAD		MAXALIGN(sizeof(FpbHashTuple))
#define FPB_HT_MINTUPLE(ht) ((MinimalTuple) ((char *) (ht) + FPB_HT_OVERHEAD))
/* arena bytes taken by a stored tuple */
#define FPB_HT_SIZE(ht)		MAXALIGN(FPB_HT_OVERHEAD + FPB_HT_MINTUPLE(ht)->t_len)

/* A cell: hash code, key (single by-value key only) and tuple reference. */
typedef struct FpbHashCell
{
	uint32		hashvalue;
	uint32		pad;
	Datum		key;
	FpbHashTuple *tuple;
} FpbHashCell;

/*
 * A bucket header.  A one-entry bucket keeps its cell inline; a larger one
 * points to a cell array whose capacity doubles when full.  "busy" is set
 * while a build group has an insertion into this bucket in flight.
 */
typedef struct FpbBucket
{
	uint32		count;
	uint16		cap_log2;
	uint16		busy;
	union
	{
		FpbHashCell one;
		FpbHashCell *cells;
	}			u;
} FpbBucket;

/* A chunk of the dense tuple / cell arena. */
typedef struct FpbArenaChunk
{
	struct FpbArenaChunk *next;
	Size		used;
	Size		size;
	bool		mapped;			/* from mmap (hashjoin_table.c), not palloc */
} FpbArenaChunk;

typedef struct FpbMapList FpbMapList;

/* The in-memory hash table of the current batch. */
typedef struct FpbHashTable
{
	MemoryContext cxt;			/* everything below; reset per batch */
	Size		chunk_size;		/* size of the next arena chunk */
	Size		chunk_max;		/* chunks grow up to this */
	FpbArenaChunk *tuples;		/* newest chunk first */
	FpbArenaChunk *cellarena;	/* cell arrays */
	Size		tuple_bytes;	/* chunk bytes holding tuples */
	Size		cell_bytes;		/* chunk bytes holding cell arrays */
	int64		ntuples;		/* tuples stored (with NOKEY ones) */
	int64		ninserted;		/* tuples in buckets */
	FpbBucket  *buckets;
	struct FpbMapList *maps;	/* mmap'ed memory, unmapped at reset */
	uint32		nbuckets;
	uint32		mask;
	int			radix_bits;		/* tuples clustered by partition; 0 = not */
	int			radix_shift;	/* partition = bucket index >> this */
	bool		built;

	/*
	 * A shared table (hashjoin_shared.c) has neither bucket headers nor
	 * cells: its tuples (FpbHashTuple header, MinimalTuple) lie in bucket
	 * order, bucket b's from records + starts[b] * MAXIMUM_ALIGNOF up to
	 * records + starts[b + 1] * MAXIMUM_ALIGNOF.  It is mapped at a
	 * different address in each process, so it holds positions, never
	 * pointers.  NULL for a private table.
	 */
	const uint32 *starts;
	char	   *records;
} FpbHashTable;

/* The tuple of a cell and the cell array of a bucket (private tables). */
static inline FpbHashTuple *
fpb_ht_cell_tuple(const FpbHashTable *ht, const FpbHashCell *c)
{
	Assert(ht->starts == NULL);
	return c->tuple;
}

static inline FpbHashCell *
fpb_ht_bucket_cells(const FpbHashTable *ht, const FpbBucket *b)
{
	Assert(ht->starts == NULL);
	return b->u.cells;
}

/*
 * Radix partition of a hash code: the top radix_bits bits of its bucket
 * index, so that a partition's buckets are one contiguous slice of the
 * bucket array.
 */
static inline int
fpb_ht_partition(const FpbHashTable *ht, uint32 hashvalue)
{
	return (int) ((hashvalue & ht->mask) >> ht->radix_shift);
}

/* ---- hashjoin_table.c: the hash table and its tuple arena ---- */
extern void fpb_ht_init(FpbHashTable *ht, MemoryContext parent,
						Size space_allowed);
extern void fpb_ht_reset(FpbHashTable *ht);
extern void fpb_advise_huge(void *p, Size len);
extern void *fpb_map_anon(Size len, bool populate);
extern FpbHashTuple *fpb_ht_store(FpbHashTable *ht, const char *data,
								  uint32 len, uint32 hashvalue, Datum key,
								  uint16 flags);
extern Size fpb_ht_projected_space(FpbHashTable *ht, int64 extra_tuples,
								   Size extra_bytes);
extern void fpb_ht_cluster(FpbHashTable *ht, int bits, bool populate);
extern void fpb_ht_build(FpbHashTable *ht, int group_size, bool prefetch);
extern void fpb_ht_clear_matched(FpbHashTable *ht);
extern int64 fpb_ht_compact(FpbHashTable *ht,
							bool (*keep) (FpbHashTuple *, void *),
							void *arg);

/* iterate over the stored tuples of the arena */
typedef struct FpbArenaIter
{
	FpbArenaChunk *chunk;
	Size		off;
} FpbArenaIter;

extern void fpb_arena_iter_init(FpbArenaIter *it, FpbArenaChunk *first);
extern FpbHashTuple *fpb_arena_iter_next(FpbArenaIter *it);

/*
 * Batch files of one side (hashjoin_spill.c).  Each batch has an output
 * buffer of its own in front of its BufFile, so that the partition phase
 * can prefetch where a record goes (thesis section 4.6).
 */
typedef struct FpbSpillFile
{
	uint32		used;			/* bytes in buf */
	char	   *buf;			/* the set's bufsize bytes, on first use */
	BufFile    *file;			/* created at the first flush */
} FpbSpillFile;

/* a tuple on its way to a batch file */
typedef struct FpbSpillEntry
{
	char	   *data;			/* staged MinimalTuple bytes */
	char	   *dst;			/* reserved place in the output buffer */
	uint32		len;
	uint32		hashvalue;
	int			batchno;
	uint8		stage;			/* last stage done: 0, 1 or 2 */
} FpbSpillEntry;

typedef struct FpbSpillSet
{
	MemoryContext cxt;			/* files, buffers, staging */
	/*
	 * Shared batches (hashjoin_batches.c): one file of the fileset for all
	 * batches, written in chunks (a buffer each) that are chained per batch
	 * backwards from heads[batch] in shared memory.
	 */
	struct FileSet *fileset;	/* or NULL: a temporary file per batch */
	char		side;			/* the file's name: side, participant */
	int			participant;
	int64	   *heads;			/* last chunk of each batch, or -1 */
	BufFile    *sharedfile;
	uint32		bufsize;		/* of each batch's output buffer */
	FpbSpillFile *files;
	int			nfiles;
	int			scheme;			/* FpbHjPrefetch */
	int			group_size;		/* G */
	int			distance;		/* pipelining distance */
	int			ringsize;		/* power of two >= entries in flight; 0 = none */
	FpbSpillEntry *ring;
	char	   *stage;			/* ringsize * FPB_SPILL_STAGE bytes */
	uint64		head;			/* next entry to add */
	uint64		done;			/* oldest entry not yet copied */
	int64		nspilled;		/* records written (EXPLAIN) */
} FpbSpillSet;

/* ---- hashjoin_spill.c: batch files ---- */
extern void fpb_spill_init(FpbSpillSet *set, MemoryContext cxt, int nfiles,
						   int scheme, int group_size, int distance);
extern void fpb_spill_grow(FpbSpillSet *set, int nfiles);
extern void fpb_spill_add(FpbSpillSet *set, int batchno, uint32 hashvalue,
						  const char *data, uint32 len);
extern void fpb_spill_drain(FpbSpillSet *set);
extern void fpb_spill_finish(FpbSpillSet *set);
extern bool fpb_spill_nonempty(FpbSpillSet *set, int batchno);
extern BufFile *fpb_spill_open_read(FpbSpillSet *set, int batchno);
extern void fpb_spill_close(FpbSpillSet *set, int batchno);
extern void fpb_spill_discard(FpbSpillSet *set);
extern MinimalTuple fpb_spill_read(BufFile *file, uint32 *hashvalue,
								   char **buf, Size *bufsize,
								   MemoryContext bufcxt);
extern void fpb_spill_set_shared(FpbSpillSet *set, struct FileSet *fileset,
								 char side, int participant, int64 *heads);
extern void fpb_spill_export(FpbSpillSet *set);
extern void fpb_spill_shared_name(char *name, char side, int participant);

/* a chunk of a shared batch file: the batch's previous chunk, then len bytes */
typedef struct FpbSpillChunk
{
	int64		prev;			/* (segment << 32) | offset, or -1 */
	uint32		len;
	uint32		pad;
} FpbSpillChunk;

/*
 * Radix-clustered probing (hashjoin_radix.c): a chunk of outer tuples, each
 * copied into the block list of its partition, read back partition by
 * partition.
 */
typedef struct FpbRadixRec
{
	uint32		len;			/* MinimalTuple length */
	uint32		hashvalue;
	Datum		key;			/* by-value single key */
	bool		nullkey;		/* a key is NULL: matches nothing */
} FpbRadixRec;

#define FPB_RADIX_REC_HDR		MAXALIGN(sizeof(FpbRadixRec))
#define FPB_RADIX_REC_TUPLE(r)	((MinimalTuple) ((char *) (r) + FPB_RADIX_REC_HDR))

#define FPB_RADIX_BLOCK		(8 * 1024)	/* chunk pool block size */

typedef struct FpbRadixBlock FpbRadixBlock;

typedef struct FpbRadix
{
	MemoryContext cxt;			/* pool and partition lists */
	MemoryContext overflowcxt;	/* blocks outside the pool; reset per chunk */
	int			nparts;
	MemoryContextCallback unmap_cb;	/* unmaps the pool */
	char	   *pool;			/* the chunk's blocks (mmap'ed) */
	Size		poolsize;
	Size		poolused;
	Size		overflowused;	/* bytes of overflow blocks in the chunk */
	FpbRadixBlock **head;		/* per partition */
	FpbRadixBlock **tail;
	int64		nrows;			/* rows in the chunk */
	int64		nchunks;		/* chunks read (EXPLAIN) */
	int			curpart;		/* reading position */
	FpbRadixBlock *curblock;
	uint32		curoff;
} FpbRadix;

extern void fpb_radix_init(FpbRadix *r, MemoryContext parent);
extern void fpb_radix_setup(FpbRadix *r, int nparts, Size poolsize);
extern void fpb_radix_reset(FpbRadix *r);
extern void fpb_radix_release(FpbRadix *r);
extern bool fpb_radix_full(FpbRadix *r);
extern void fpb_radix_add(FpbRadix *r, int part, uint32 hashvalue, Datum key,
						  bool nullkey, const char *data, uint32 len);
extern FpbRadixRec *fpb_radix_next(FpbRadix *r);

/* ---- hashjoin_exec.c: the executor node ---- */
extern Node *fpb_hj_create_state(CustomScan *cscan);

#endif							/* FPB_HASHJOIN_H */
