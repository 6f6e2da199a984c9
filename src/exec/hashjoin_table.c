/*-------------------------------------------------------------------------
 *
 * hashjoin_table.c
 *	  The cache-conscious hash table of PrefetchHashJoin (thesis section
 *	  4.3): an array of bucket headers, each with one inline cell or a
 *	  pointer to a cell array; cells carry the hash code (and, for a single
 *	  by-value key, the key) so a probe touches a build tuple only when it
 *	  is likely to match.  Tuples live in a dense arena of large chunks.
 *
 *	  The build runs in groups of G tuples, stage by stage, prefetching the
 *	  bucket headers and then the cell slots; a tuple whose bucket is
 *	  already being written by an earlier member of its group is deferred
 *	  to the end of the group (busy-bucket deferral, thesis section 4.4.3).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/mman.h>

#include "port/pg_bitutils.h"
#include "utils/memutils.h"

#include "hashjoin.h"
#include "mintuple.h"

#define FPB_MIN_BUCKETS		64
#define FPB_FIRST_ARRAY_LOG2	2	/* a bucket's first cell array holds 4 */
#define FPB_MAX_BUILD_GROUP	256

/* the tuple arena's chunks, and the huge page size they align to */
#define FPB_CHUNK_HDR		MAXALIGN(sizeof(FpbArenaChunk))
#define FPB_CHUNK_DATA(c)	((char *) (c) + FPB_CHUNK_HDR)
#define FPB_CHUNK_SIZE		(64 * 1024)	/* first arena chunk */
#define FPB_CHUNK_MAX		(16 * 1024 * 1024)	/* chunks double up to this */
#define FPB_HUGE_PAGE		(2 * 1024 * 1024)

void
fpb_ht_init(FpbHashTable *ht, MemoryContext parent, Size space_allowed)
{
	memset(ht, 0, sizeof(FpbHashTable));

	/*
	 * Chunks are a small fraction of the budget, so that a tiny work_mem is
	 * not overrun by the slack of one chunk.  They start at 64 kB and double
	 * up to that fraction (at most FPB_CHUNK_MAX): a large table then sits
	 * in chunks big enough for huge pages.
	 */
	ht->chunk_max = Min(FPB_CHUNK_MAX, Max(1024, space_allowed / 16));
	ht->chunk_size = Min(FPB_CHUNK_SIZE, ht->chunk_max);
	ht->cxt = AllocSetContextCreate(parent, "PrefetchHashJoin batch",
									ALLOCSET_DEFAULT_SIZES);
}

/* Forget the current batch; the memory goes back in one reset. */
void
fpb_ht_reset(FpbHashTable *ht)
{
	MemoryContext cxt = ht->cxt;
	Size		chunk_max = ht->chunk_max;

	MemoryContextReset(cxt);
	memset(ht, 0, sizeof(FpbHashTable));
	ht->cxt = cxt;
	ht->chunk_max = chunk_max;
	ht->chunk_size = Min(FPB_CHUNK_SIZE, chunk_max);
}

/*
 * Ask for transparent huge pages on a large allocation before it is first
 * touched.  The probes and the build hit the bucket array and the tuple
 * chunks at random: with 4 kB pages a table of hundreds of MB misses the
 * TLB on nearly every access, and the page walk is one more dependent miss
 * that prefetching only partly hides.  Only a hint (THP "madvise" mode);
 * failure is harmless.
 */
void
fpb_advise_huge(void *p, Size len)
{
#ifdef MADV_HUGEPAGE
	uintptr_t	start = TYPEALIGN(FPB_HUGE_PAGE, (uintptr_t) p);
	uintptr_t	end = TYPEALIGN_DOWN(FPB_HUGE_PAGE, (uintptr_t) p + len);

	if (fpb_hj_huge_pages && end > start)
		(void) madvise((void *) start, end - start, MADV_HUGEPAGE);
#endif
}

/*
 * Large allocations (the bucket array, big arena chunks) come straight from
 * mmap: fresh anonymous memory is already zero, so the bucket array needs no
 * memset (half a GB at 10M build tuples), and MAP_POPULATE maps the pages in
 * one go instead of one page fault per 4 kB page on first touch (the kernel
 * zeroes them either way).  The mappings are listed in the batch context
 * and unmapped by its reset callback, so an error or a rescan cannot leak
 * them.
 */
#define FPB_MMAP_MIN		(1024 * 1024)

typedef struct FpbMapping
{
	struct FpbMapping *next;
	void	   *addr;
	Size		len;
} FpbMapping;

struct FpbMapList
{
	MemoryContextCallback cb;
	FpbMapping *head;
};

static void
fpb_unmap_all(void *arg)
{
	FpbMapList *maps = (FpbMapList *) arg;
	FpbMapping *m;

	for (m = maps->head; m != NULL; m = m->next)
		(void) munmap(m->addr, m->len);
	maps->head = NULL;
}

/*
 * Fresh anonymous memory (zeroed), faulted in at once with populate.  The
 * caller unmaps it.
 */
void *
fpb_map_anon(Size len, bool populate)
{
	int			flags = MAP_PRIVATE | MAP_ANONYMOUS;
	void	   *p;

#ifdef MAP_POPULATE
	if (populate)
		flags |= MAP_POPULATE;
#endif
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (p == MAP_FAILED)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Failed on a PrefetchHashJoin request of size %zu: %m.",
						   len)));
	return p;
}

static void *
fpb_big_alloc(FpbHashTable *ht, Size len, bool populate)
{
	FpbMapping *m;
	void	   *p;

	if (ht->maps == NULL)
	{
		/* (re)registered after every reset, which clears the callbacks */
		ht->maps = MemoryContextAllocZero(ht->cxt, sizeof(FpbMapList));
		ht->maps->cb.func = fpb_unmap_all;
		ht->maps->cb.arg = ht->maps;
		MemoryContextRegisterResetCallback(ht->cxt, &ht->maps->cb);
	}
	m = MemoryContextAlloc(ht->cxt, sizeof(FpbMapping));
	/* with huge pages the pages are faulted in after madvise instead */
	p = fpb_map_anon(len, populate && !fpb_hj_huge_pages);
	fpb_advise_huge(p, len);
	m->addr = p;
	m->len = len;
	m->next = ht->maps->head;
	ht->maps->head = m;
	return p;
}

static void
fpb_big_free(FpbHashTable *ht, void *p)
{
	FpbMapping **prev;

	for (prev = &ht->maps->head; *prev != NULL; prev = &(*prev)->next)
	{
		FpbMapping *m = *prev;

		if (m->addr == p)
		{
			(void) munmap(m->addr, m->len);
			*prev = m->next;
			pfree(m);
			return;
		}
	}
	elog(ERROR, "PrefetchHashJoin: unknown mapping %p", p);
}

static void *
fpb_arena_alloc(FpbHashTable *ht, FpbArenaChunk **head, Size *bytes,
				Size size)
{
	FpbArenaChunk *c = *head;
	char	   *p;

	size = MAXALIGN(size);
	if (c == NULL || c->size - c->used < size)
	{
		Size		csize = Max(ht->chunk_size, FPB_CHUNK_HDR + size);

		/*
		 * A big allocation gets its own chunk, placed behind the current one
		 * so that the current chunk's free space is not lost.
		 */
		if (csize >= FPB_MMAP_MIN)
		{
			c = fpb_big_alloc(ht, csize, true);
			c->mapped = true;
		}
		else
		{
			c = MemoryContextAlloc(ht->cxt, csize);
			c->mapped = false;
		}
		c->used = 0;
		c->size = csize - FPB_CHUNK_HDR;
		*bytes += csize;
		if (*head != NULL && csize > ht->chunk_size)
		{
			c->next = (*head)->next;
			(*head)->next = c;
		}
		else
		{
			c->next = *head;
			*head = c;
			/* the next regular chunk is twice as large, up to the cap */
			if (csize == ht->chunk_size)
				ht->chunk_size = Min(ht->chunk_size * 2, ht->chunk_max);
		}
	}
	p = FPB_CHUNK_DATA(c) + c->used;
	c->used += size;
	return p;
}

/*
 * Copy a tuple into the arena: data holds len bytes in MinimalTuple layout
 * whose first word (t_len) is not read, so that a heap tuple's bytes can be
 * passed without forming a MinimalTuple first.
 */
FpbHashTuple *
fpb_ht_store(FpbHashTable *ht, const char *data, uint32 len,
			 uint32 hashvalue, Datum key, uint16 flags)
{
	FpbHashTuple *htup;
	MinimalTuple mt;

	htup = fpb_arena_alloc(ht, &ht->tuples, &ht->tuple_bytes,
						   FPB_HT_OVERHEAD + len);
	htup->hashvalue = hashvalue;
	htup->flags = flags;
	htup->pad = 0;
	htup->key = key;
	mt = FPB_HT_MINTUPLE(htup);
	fpb_mintuple_copy((char *) mt, data, len);
	ht->ntuples++;
	return htup;
}

static uint32
fpb_ht_choose_buckets(int64 ntuples)
{
	uint64		n = Max(ntuples, FPB_MIN_BUCKETS);

	/* load factor at most 1, as in the thesis; cap to keep indexes 32-bit */
	n = Min(n, (uint64) 1 << 30);
	return (uint32) pg_nextpower2_64(n);
}

/*
 * The memory the batch would need once built, if extra_tuples more tuples
 * taking extra_bytes were added: tuples, bucket array, one cell's worth per
 * tuple (cell arrays start at four cells and double, so about half of
 * their space is slack), and a partly filled chunk per arena.
 */
Size
fpb_ht_projected_space(FpbHashTable *ht, int64 extra_tuples, Size extra_bytes)
{
	int64		n = ht->ntuples + extra_tuples;

	return ht->tuple_bytes + extra_bytes +
		(Size) fpb_ht_choose_buckets(n) * sizeof(FpbBucket) +
		(Size) n * sizeof(FpbHashCell) + 2 * ht->chunk_size;
}

/*
 * Reserve the slot for a new cell in bucket b and return it.  Moves an
 * inline cell to a new array, or doubles a full array.
 */
static inline FpbHashCell *
fpb_bucket_reserve(FpbHashTable *ht, FpbBucket *b)
{
	FpbHashCell *cells;
	uint32		cap;

	if (b->count == 0)
	{
		b->count = 1;
		return &b->u.one;
	}
	if (b->count == 1)
	{
		FpbHashCell one = b->u.one;

		cells = fpb_arena_alloc(ht, &ht->cellarena, &ht->cell_bytes,
								sizeof(FpbHashCell) << FPB_FIRST_ARRAY_LOG2);
		cells[0] = one;
		b->u.cells = cells;
		b->cap_log2 = FPB_FIRST_ARRAY_LOG2;
		b->count = 2;
		return &cells[1];
	}
	cap = (uint32) 1 << b->cap_log2;
	if (b->count == cap)
	{
		/* the old array stays in the arena until the batch ends */
		cells = fpb_arena_alloc(ht, &ht->cellarena, &ht->cell_bytes,
								sizeof(FpbHashCell) * cap * 2);
		memcpy(cells, b->u.cells, sizeof(FpbHashCell) * cap);
		b->u.cells = cells;
		b->cap_log2++;
	}
	return &b->u.cells[b->count++];
}

static inline void
fpb_cell_fill(FpbHashCell *cell, FpbHashTuple *htup)
{
	cell->hashvalue = htup->hashvalue;
	cell->pad = 0;
	cell->key = htup->key;
	cell->tuple = htup;
}

/*
 * Radix clustering (Manegold et al.): reorder the stored tuples so that the
 * tuples of each partition (fpb_ht_partition) lie together, in partition
 * order.  The build then fills the bucket array slice by slice and
 * allocates each partition's cell arrays together, and a probe of one
 * partition touches only that partition's slice of the bucket array,
 * cells and tuples: about a cache's worth, which stays cached across the
 * partition's probes, where the whole table would miss on nearly every
 * access.  One counting pass,
 * then a scatter copy into a single mapping, freeing each source chunk once
 * it is copied.  With populate the mapping is faulted in at once (cheaper
 * in kernel time, but the tuples are then held twice for a moment);
 * without, the kernel fills it in as it is written and the memory in use
 * stays near the table's size.  Only before the build.
 */
void
fpb_ht_cluster(FpbHashTable *ht, int bits, bool populate)
{
	Size	   *offs;
	FpbArenaIter it;
	FpbHashTuple *htup;
	FpbArenaChunk *dest;
	FpbArenaChunk *c;
	Size		total;
	int			log2nb;
	int			nparts;
	int			i;

	Assert(!ht->built);
	ht->nbuckets = fpb_ht_choose_buckets(ht->ntuples);
	ht->mask = ht->nbuckets - 1;
	log2nb = pg_leftmost_one_pos32(ht->nbuckets);
	bits = Min(bits, log2nb);
	if (bits <= 0 || ht->tuples == NULL)
		return;
	nparts = 1 << bits;
	ht->radix_bits = bits;
	ht->radix_shift = log2nb - bits;

	/* bytes per partition, then each partition's start offset */
	offs = MemoryContextAllocZero(ht->cxt, sizeof(Size) * (nparts + 1));
	fpb_arena_iter_init(&it, ht->tuples);
	while ((htup = fpb_arena_iter_next(&it)) != NULL)
		offs[fpb_ht_partition(ht, htup->hashvalue) + 1] += FPB_HT_SIZE(htup);
	for (i = 0; i < nparts; i++)
		offs[i + 1] += offs[i];
	total = offs[nparts];

	dest = fpb_big_alloc(ht, FPB_CHUNK_HDR + total, populate);
	dest->next = NULL;
	dest->used = total;
	dest->size = total;
	dest->mapped = true;

	c = ht->tuples;
	while (c != NULL)
	{
		FpbArenaChunk *next = c->next;
		Size		off = 0;

		while (off < c->used)
		{
			Size		len;
			int			p;

			htup = (FpbHashTuple *) (FPB_CHUNK_DATA(c) + off);
			len = FPB_HT_SIZE(htup);
			p = fpb_ht_partition(ht, htup->hashvalue);
			memcpy(FPB_CHUNK_DATA(dest) + offs[p], htup, len);
			offs[p] += len;
			off += len;
		}
		if (c->mapped)
			fpb_big_free(ht, c);
		else
			pfree(c);
		c = next;
	}
	pfree(offs);
	ht->tuples = dest;
	ht->tuple_bytes = FPB_CHUNK_HDR + total;
}

/*
 * Build the bucket array over every stored tuple.  The input is read in
 * arena order (sequential, so the hardware prefetcher covers it); the
 * random accesses are the bucket headers and cell slots, which the group
 * stages prefetch.
 */
void
fpb_ht_build(FpbHashTable *ht, int group_size, bool prefetch)
{
	FpbArenaIter it;
	FpbHashTuple *grp[FPB_MAX_BUILD_GROUP];
	FpbBucket  *bkt[FPB_MAX_BUILD_GROUP];
	FpbHashCell *slot[FPB_MAX_BUILD_GROUP];
	int			deferred[FPB_MAX_BUILD_GROUP];
	MemoryContext oldcxt;

	Assert(!ht->built);
	/* the same count fpb_ht_cluster chose, if it ran */
	ht->nbuckets = fpb_ht_choose_buckets(ht->ntuples);
	ht->mask = ht->nbuckets - 1;
	oldcxt = MemoryContextSwitchTo(ht->cxt);
	if ((Size) ht->nbuckets * sizeof(FpbBucket) >= FPB_MMAP_MIN)
		ht->buckets = fpb_big_alloc(ht, (Size) ht->nbuckets * sizeof(FpbBucket),
									 true);
	else
	{
		ht->buckets = MemoryContextAlloc(ht->cxt,
										 (Size) ht->nbuckets * sizeof(FpbBucket));
		MemSet(ht->buckets, 0, (Size) ht->nbuckets * sizeof(FpbBucket));
	}
	MemoryContextSwitchTo(oldcxt);

	if (!prefetch)
		group_size = 1;
	group_size = Max(1, Min(group_size, FPB_MAX_BUILD_GROUP));

	fpb_arena_iter_init(&it, ht->tuples);
	for (;;)
	{
		int			n = 0;
		int			ndeferred = 0;
		int			i;
		FpbHashTuple *htup;

		/* gather a group, stage 0: bucket address, prefetch the header */
		while (n < group_size && (htup = fpb_arena_iter_next(&it)) != NULL)
		{
			if (htup->flags & FPB_HT_NOKEY)
				continue;
			grp[n] = htup;
			bkt[n] = &ht->buckets[htup->hashvalue & ht->mask];
			if (prefetch)
				FPB_PREFETCH_W(bkt[n]);
			n++;
		}
		if (n == 0)
			break;

		/*
		 * stage 1: read the header, claim the bucket, reserve the cell slot
		 * and prefetch it.  A bucket claimed earlier in this group is busy:
		 * its slot may still move (array growth), so defer the tuple.
		 */
		for (i = 0; i < n; i++)
		{
			FpbBucket  *b = bkt[i];

			if (b->busy)
			{
				deferred[ndeferred++] = i;
				slot[i] = NULL;
				continue;
			}
			b->busy = 1;
			slot[i] = fpb_bucket_reserve(ht, b);
			if (prefetch)
				FPB_PREFETCH_W(slot[i]);
		}

		/* stage 2: write the cells, release the buckets */
		for (i = 0; i < n; i++)
		{
			if (slot[i] == NULL)
				continue;
			fpb_cell_fill(slot[i], grp[i]);
			bkt[i]->busy = 0;
		}

		/* the deferred tuples, now that no insertion is in flight */
		for (i = 0; i < ndeferred; i++)
		{
			int			j = deferred[i];

			fpb_cell_fill(fpb_bucket_reserve(ht, bkt[j]), grp[j]);
		}
		ht->ninserted += n;
	}
	ht->built = true;
}

/*
 * Keep the tuples for which keep() says so, in place: keepers slide toward
 * the start of the chunk sequence (the write position never passes the
 * read position, since a keeper always fits where it already was), and the
 * chunks left empty at the end are freed.  Only before the buckets are
 * built.
 */
int64
fpb_ht_compact(FpbHashTable *ht, bool (*keep) (FpbHashTuple *, void *),
			   void *arg)
{
	FpbArenaChunk *rchunk = ht->tuples;
	FpbArenaChunk *wchunk = ht->tuples;
	Size		woff = 0;
	int64		kept = 0;

	Assert(!ht->built);
	while (rchunk != NULL)
	{
		Size		roff = 0;
		Size		rused = rchunk->used;

		while (roff < rused)
		{
			FpbHashTuple *htup = (FpbHashTuple *) (FPB_CHUNK_DATA(rchunk) + roff);
			Size		len = MAXALIGN(FPB_HT_OVERHEAD +
									   FPB_HT_MINTUPLE(htup)->t_len);

			roff += len;
			if (!keep(htup, arg))
				continue;
			/*
			 * Move on to a chunk with room.  Several may have to be passed
			 * over: a tuple larger than the chunk size has a chunk of its
			 * own, and the chunks before it can be too small for it (they
			 * are then left empty).  The loop stops at rchunk at the
			 * latest, where the tuple already fits.
			 */
			while (wchunk->size - woff < len)
			{
				Assert(wchunk != rchunk);
				wchunk->used = woff;
				wchunk = wchunk->next;
				woff = 0;
			}
			if ((char *) htup != FPB_CHUNK_DATA(wchunk) + woff)
				memmove(FPB_CHUNK_DATA(wchunk) + woff, htup, len);
			woff += len;
			kept++;
		}
		rchunk = rchunk->next;
	}

	/* free what lies beyond the write position */
	if (wchunk != NULL)
	{
		FpbArenaChunk *c = wchunk->next;

		wchunk->used = woff;
		wchunk->next = NULL;
		while (c != NULL)
		{
			FpbArenaChunk *next = c->next;

			ht->tuple_bytes -= FPB_CHUNK_HDR + c->size;
			if (c->mapped)
				fpb_big_free(ht, c);
			else
				pfree(c);
			c = next;
		}
	}
	ht->ntuples = kept;
	return kept;
}

/* Right/full joins: forget the matches of a previous scan (rescan). */
void
fpb_ht_clear_matched(FpbHashTable *ht)
{
	FpbArenaIter it;
	FpbHashTuple *htup;

	fpb_arena_iter_init(&it, ht->tuples);
	while ((htup = fpb_arena_iter_next(&it)) != NULL)
		htup->flags &= ~FPB_HT_MATCHED;
}

void
fpb_arena_iter_init(FpbArenaIter *it, FpbArenaChunk *first)
{
	it->chunk = first;
	it->off = 0;
}

/* Next tuple of the arena (chunks newest first, tuples in order within). */
FpbHashTuple *
fpb_arena_iter_next(FpbArenaIter *it)
{
	while (it->chunk != NULL)
	{
		if (it->off < it->chunk->used)
		{
			FpbHashTuple *htup;

			htup = (FpbHashTuple *) (FPB_CHUNK_DATA(it->chunk) + it->off);
			it->off += MAXALIGN(FPB_HT_OVERHEAD + FPB_HT_MINTUPLE(htup)->t_len);
			return htup;
		}
		it->chunk = it->chunk->next;
		it->off = 0;
	}
	return NULL;
}
