/*-------------------------------------------------------------------------
 *
 * hashjoin_radix.c
 *	  Radix-clustered probing for PrefetchHashJoin (Manegold et al.; DESIGN.md
 *	  section 5).  When the hash table is far larger than the cache, the
 *	  build clusters its tuples by partition (fpb_ht_cluster) and the probe
 *	  reads the outer side in large chunks: each outer tuple is copied into
 *	  the block list of its partition, and the chunk is then handed to the
 *	  probe stages partition by partition.  The probes of one partition
 *	  touch only that partition's slice of the table, which stays in the
 *	  cache (and its translations in the TLB) across the partition's probes
 *	  instead of missing on nearly every one.
 *
 *	  The chunk lives in a pool of fixed-size blocks, allocated once within
 *	  the hash memory budget and reused for every chunk; a partition's list
 *	  grows a block at a time, so the copies are written sequentially per
 *	  partition.  See README.md.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/mman.h>

#include "utils/memutils.h"

#include "hashjoin.h"
#include "mintuple.h"


struct FpbRadixBlock
{
	FpbRadixBlock *next;
	uint32		used;			/* bytes of records */
	uint32		size;			/* bytes for records */
};

#define FPB_RADIX_BLOCK_HDR		MAXALIGN(sizeof(FpbRadixBlock))
#define FPB_RADIX_BLOCK_DATA(b) ((char *) (b) + FPB_RADIX_BLOCK_HDR)

/*
 * The pool is mapped with MAP_POPULATE: hundreds of MB faulted in page by
 * page cost more kernel time than the clustering saves.  Unmapped when the
 * context is reset or deleted.
 */
static void
fpb_radix_unmap(void *arg)
{
	FpbRadix   *r = (FpbRadix *) arg;

	if (r->pool != NULL)
		(void) munmap(r->pool, r->poolsize);
	r->pool = NULL;
}

void
fpb_radix_init(FpbRadix *r, MemoryContext parent)
{
	memset(r, 0, sizeof(FpbRadix));
	r->cxt = AllocSetContextCreate(parent, "PrefetchHashJoin radix",
								   ALLOCSET_DEFAULT_SIZES);
	/* a sibling: resetting cxt (unmapping the pool) leaves it in place */
	r->overflowcxt = AllocSetContextCreate(parent,
										   "PrefetchHashJoin radix overflow",
										   ALLOCSET_DEFAULT_SIZES);
}

/*
 * Map a pool of poolsize bytes and the lists for nparts partitions, for
 * one table (any earlier pool is released first).
 */
void
fpb_radix_setup(FpbRadix *r, int nparts, Size poolsize)
{
	fpb_radix_release(r);
	poolsize = poolsize - poolsize % FPB_RADIX_BLOCK;
	r->pool = fpb_map_anon(poolsize, true);
	r->nparts = nparts;
	r->poolsize = poolsize;
	r->unmap_cb.func = fpb_radix_unmap;
	r->unmap_cb.arg = r;
	MemoryContextRegisterResetCallback(r->cxt, &r->unmap_cb);
	r->head = MemoryContextAlloc(r->cxt, sizeof(FpbRadixBlock *) * nparts);
	r->tail = MemoryContextAlloc(r->cxt, sizeof(FpbRadixBlock *) * nparts);
	fpb_radix_reset(r);
}

/* Empty the chunk. */
void
fpb_radix_reset(FpbRadix *r)
{
	if (r->pool == NULL)
		return;
	MemoryContextReset(r->overflowcxt);
	memset(r->head, 0, sizeof(FpbRadixBlock *) * r->nparts);
	memset(r->tail, 0, sizeof(FpbRadixBlock *) * r->nparts);
	r->poolused = 0;
	r->overflowused = 0;
	r->nrows = 0;
	r->curpart = 0;
	r->curblock = NULL;
	r->curoff = 0;
}

/*
 * Unmap the pool (the table it was sized for is gone): a later build must
 * not load a table up to the budget while the previous pool is still
 * mapped beside it.
 */
void
fpb_radix_release(FpbRadix *r)
{
	if (r->pool == NULL)
		return;
	MemoryContextReset(r->cxt);		/* unmaps the pool */
	MemoryContextReset(r->overflowcxt);
	r->pool = NULL;
	r->poolsize = 0;
	r->nparts = 0;
	r->head = r->tail = NULL;
}

/*
 * No block left in the pool: the caller stops adding.  Overflow blocks
 * (rows wider than a block) count against the pool too, so a chunk never
 * holds more than the pool's size plus one row.
 */
bool
fpb_radix_full(FpbRadix *r)
{
	return r->poolused + r->overflowused + FPB_RADIX_BLOCK > r->poolsize;
}

/* Copy an outer tuple (bytes as for fpb_mintuple_copy) into partition part. */
void
fpb_radix_add(FpbRadix *r, int part, uint32 hashvalue, Datum key,
			  bool nullkey, const char *data, uint32 len)
{
	FpbRadixBlock *b = r->tail[part];
	Size		need = FPB_RADIX_REC_HDR + MAXALIGN(len);
	FpbRadixRec *rec;

	Assert(part >= 0 && part < r->nparts);
	if (b == NULL || b->size - b->used < need)
	{
		Size		size = FPB_RADIX_BLOCK_HDR + need;

		if (size <= FPB_RADIX_BLOCK && !fpb_radix_full(r))
		{
			b = (FpbRadixBlock *) (r->pool + r->poolused);
			r->poolused += FPB_RADIX_BLOCK;
			size = FPB_RADIX_BLOCK;
		}
		else
		{
			/* a row wider than a block, or the pool is used up */
			size = Max(size, FPB_RADIX_BLOCK);
			b = MemoryContextAllocHuge(r->overflowcxt, size);
			r->overflowused += size;
		}
		b->next = NULL;
		b->used = 0;
		b->size = size - FPB_RADIX_BLOCK_HDR;
		if (r->tail[part] != NULL)
			r->tail[part]->next = b;
		else
			r->head[part] = b;
		r->tail[part] = b;
	}
	rec = (FpbRadixRec *) (FPB_RADIX_BLOCK_DATA(b) + b->used);
	rec->len = len;
	rec->hashvalue = hashvalue;
	rec->key = key;
	rec->nullkey = nullkey;
	fpb_mintuple_copy((char *) FPB_RADIX_REC_TUPLE(rec), data, len);
	b->used += need;
	r->nrows++;
}

/* The chunk's next record, partition by partition; NULL at its end. */
FpbRadixRec *
fpb_radix_next(FpbRadix *r)
{
	for (;;)
	{
		FpbRadixBlock *b = r->curblock;

		if (b != NULL && r->curoff < b->used)
		{
			FpbRadixRec *rec = (FpbRadixRec *) (FPB_RADIX_BLOCK_DATA(b) +
												r->curoff);

			r->curoff += FPB_RADIX_REC_HDR + MAXALIGN(rec->len);
			return rec;
		}
		if (b != NULL && b->next != NULL)
			r->curblock = b->next;
		else
		{
			/* the next partition with rows */
			if (b != NULL)
				r->curpart++;
			while (r->curpart < r->nparts && r->head[r->curpart] == NULL)
				r->curpart++;
			if (r->curpart >= r->nparts)
			{
				r->curblock = NULL;
				return NULL;
			}
			r->curblock = r->head[r->curpart];
		}
		r->curoff = 0;
	}
}
