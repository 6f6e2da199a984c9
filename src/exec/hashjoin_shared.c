/*-------------------------------------------------------------------------
 *
 * hashjoin_shared.c
 *	  PrefetchHashJoin, parallel-aware shared table: every participant of a
 *	  Gather loads its share of a partial inner side, the participants build
 *	  one hash table together in the query's DSA area, and then each probes
 *	  its share of the partial outer side against it.
 *
 *	  Phases of shared->barrier (README.md, "Shared hash table"):
 *
 *	  LOAD	  each participant reads its share of the inner side into a
 *			  private arena and adds its row and byte counts to the totals;
 *			  the participant elected at the end allocates the region.
 *	  COUNT	  the table's geometry follows from the totals; each counts its
 *			  tuples per slice (the top bits of the bucket index).
 *	  SCATTER each copies its tuples into the region, grouped by slice, at
 *			  offsets that all compute alike from the published counts;
 *			  the private arena is freed.
 *	  BUILD	  slices are claimed through an atomic counter; the claimer of a
 *			  slice alone sorts its tuples into bucket order and writes its
 *			  buckets' starts.
 *	  PROBE	  read-only: each detaches and probes with the serial code.
 *
 *	  When LOAD finds that the table would not fit the participants'
 *	  combined budget (or batches were planned), the phases after it are
 *	  PARTITION and BATCHES instead (hashjoin_batches.c).
 *
 *	  Only the build waits.  Nobody emits a row before PROBE, so a
 *	  participant waiting at the barrier never waits for one that is stuck
 *	  on a full tuple queue; a participant attaching late (the inner side is
 *	  used up by then) joins the phase it finds, with nothing of its own to
 *	  add.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "port/pg_bitutils.h"
#include "storage/barrier.h"
#include "utils/dsa.h"
#include "utils/memutils.h"

#include "hashjoin_int.h"
#include "hashjoin_shared.h"


/* geometry of the table, the same in every participant */
typedef struct FpbShGeom
{
	int64		ntuples;
	uint64		tuple_bytes;
	int			log2nb;
	int			bits;			/* slices = 2^bits */
	int			shift;			/* slice = bucket index >> shift */
	uint32		nbuckets;
	Size		tuples_off;		/* region layout: starts, tuples */
	Size		size;
} FpbShGeom;

/*
 * The shared batches: planned (plan_nbatch is the node's planned number for
 * the participants' combined budget, so every participant's share of the
 * budget gets a batch), or 0 when one table is planned; and how many a
 * misestimate found by LOAD switches to.  How much larger than the budget
 * the inner side is, is unknown then: four batches per participant, and
 * the claimers split larger batches further on their own.
 */
static void
fpb_hj_shared_nbatch(int nparticipants, int plan_nbatch, int *plan, int *grow)
{
	int64		n;

	*plan = 0;
	if (plan_nbatch > 1)
	{
		n = Min((int64) plan_nbatch * nparticipants, FPB_SH_MAX_BATCHES);
		*plan = (int) pg_nextpower2_32((uint32) n);
	}
	n = Min(4 * nparticipants, FPB_SH_MAX_BATCHES);
	*grow = Max(*plan, (int) pg_nextpower2_32((uint32) n));
}

Size
fpb_hj_shared_size(int nparticipants, int plan_nbatch)
{
	int			plan;
	int			grow;
	Size		size;

	fpb_hj_shared_nbatch(nparticipants, plan_nbatch, &plan, &grow);
	size = add_size(offsetof(FpbHjShared, counts),
					mul_size(sizeof(FpbShCount),
							 mul_size(nparticipants, FPB_SH_MAX_SLICES)));
	return add_size(size, mul_size(sizeof(int64),
								   mul_size(2 * nparticipants, grow)));
}

/*
 * Before a (re)start: no table, phase LOAD, counts zero.  plan_nbatch is
 * the node's planned number of batches (for the participants' combined
 * budget): above one, every participant's share of the budget gets a
 * batch, and the inner side goes to batch files from the start.  The
 * fileset is set up by the caller, once per segment.
 */
void
fpb_hj_shared_init(FpbHjShared *sh, int nparticipants, int plan_nbatch)
{
	int64	   *heads;
	Size		i;

	memset(sh->counts, 0,
		   sizeof(FpbShCount) * (Size) nparticipants * FPB_SH_MAX_SLICES);
	sh->nparticipants = nparticipants;
	BarrierInit(&sh->barrier, 0);
	pg_atomic_init_u64(&sh->total_tuples, 0);
	pg_atomic_init_u64(&sh->total_bytes, 0);
	pg_atomic_init_u32(&sh->next_slice, 0);
	sh->region = InvalidDsaPointer;
	sh->region_size = 0;

	sh->node_nbatch = plan_nbatch;
	fpb_hj_shared_nbatch(nparticipants, plan_nbatch, &sh->plan_nbatch,
						 &sh->grow_nbatch);
	pg_atomic_init_u32(&sh->nbatch, (uint32) sh->plan_nbatch);
	pg_atomic_init_u32(&sh->next_batch, 0);
	heads = fpb_hj_shared_heads(sh, 'i', 0);
	for (i = 0; i < (Size) 2 * nparticipants * sh->grow_nbatch; i++)
		heads[i] = -1;
}

/*
 * Rescan of the Gather, in the leader, after the workers have ended: free
 * the last table, delete the batch files and start again.
 */
void
fpb_hj_shared_reinit(FpbHjShared *sh, dsa_area *area)
{
	if (DsaPointerIsValid(sh->region))
		dsa_free(area, sh->region);
	SharedFileSetDeleteAll(&sh->fileset);
	fpb_hj_shared_init(sh, sh->nparticipants, sh->node_nbatch);
}

static void
fpb_hj_shared_geometry(FpbHjShared *sh, FpbShGeom *g)
{
	g->ntuples = (int64) pg_atomic_read_u64(&sh->total_tuples);
	g->tuple_bytes = pg_atomic_read_u64(&sh->total_bytes);
	/* load factor at most 1, as the private table */
	g->log2nb = g->ntuples <= 2 ? 1 : pg_ceil_log2_64((uint64) g->ntuples);
	g->log2nb = Min(g->log2nb, 31);
	g->bits = Min(g->log2nb, FPB_SH_MAX_BITS);
	g->shift = g->log2nb - g->bits;
	g->nbuckets = (uint32) 1 << g->log2nb;
	/* starts are uint32 (LOAD switches to batches long before that) */
	if (g->tuple_bytes / MAXIMUM_ALIGNOF >= PG_UINT32_MAX)
		elog(ERROR, "shared hash table too large: " UINT64_FORMAT " bytes",
			 g->tuple_bytes);
	g->tuples_off = MAXALIGN(((Size) g->nbuckets + 1) * sizeof(uint32));
	g->size = g->tuples_off + g->tuple_bytes;
}

static inline int
fpb_hj_slice(const FpbShGeom *g, uint32 hashvalue)
{
	return (int) ((hashvalue & (g->nbuckets - 1)) >> g->shift);
}

/* The elected participant, after LOAD: allocate the region. */
static void
fpb_hj_shared_allocate(FpbHjState *st, FpbShGeom *g)
{
	FpbHjShared *sh = st->shared;

	sh->region_size = g->size;
	sh->region = dsa_allocate_extended(st->area, g->size,
									   DSA_ALLOC_HUGE | DSA_ALLOC_NO_OOM);
	if (!DsaPointerIsValid(sh->region))
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of shared memory"),
				 errdetail("Failed on a shared hash table of %zu bytes.",
						   g->size)));
}

static char *
fpb_hj_shared_map(FpbHjState *st)
{
	return (char *) dsa_get_address(st->area, st->shared->region);
}

/*
 * What the shared table of n tuples of these bytes would take; too much
 * when its tuples could not be addressed by uint32 starts.
 */
static Size
fpb_hj_shared_projected(int64 n, uint64 bytes)
{
	int			log2nb = n <= 2 ? 1 : pg_ceil_log2_64((uint64) n);

	if (bytes / MAXIMUM_ALIGNOF >= PG_UINT32_MAX / 2)
		return SIZE_MAX;
	return (((Size) 1 << Min(log2nb, 31)) + 1) * sizeof(uint32) + bytes;
}

/*
 * LOAD: this participant's share of the inner side, into its own arena
 * while the shared table fits the participants' combined budget, else (or
 * when batches were planned) into its shared batch files.  Its counts are
 * published every few kB; when the published totals would overflow the
 * budget, the first to see it switches everyone to batches
 * (hashjoin_batches.c), and the others follow at their next publication.
 * So no participant holds much more than the combined budget, and all
 * together hold at most one publication step each beyond it.
 */
static void
fpb_hj_shared_load(FpbHjState *st)
{
	FpbHjShared *sh = st->shared;
	Size		combined = mul_size(st->space_allowed, sh->nparticipants);
	Size		step = Min(st->space_allowed / 8, 64 * 1024);
	int64		n = 0;
	uint64		bytes = 0;

	if (pg_atomic_read_u32(&sh->nbatch) != 0)
		fpb_hj_batches_switch(st);
	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(st->inner_ps);
		uint32		hashvalue;
		Datum		key;
		const char *data;
		uint32		len;
		MinimalTuple tofree;

		if (TupIsNull(slot))
			break;
		/*
		 * A NULL key never matches: dropped, except by right and full
		 * joins, which always run in batches and emit it from batch 0
		 */
		if (!fpb_hj_hash_slot(st, slot, false, &hashvalue, &key))
		{
			if (!st->fill_inner)
				continue;
			Assert(st->sh_sets);
			hashvalue = 0;
		}
		if (!st->byval_fast)
			key = (Datum) 0;
		data = fpb_hj_slot_bytes(st, slot, &len, &tofree);
		st->sh_loaded++;
		if (st->sh_sets)
			fpb_hj_batches_add_inner(st, hashvalue, data, len);
		else
		{
			fpb_ht_store(&st->ht, data, len, hashvalue, key, 0);
			n++;
			bytes += MAXALIGN(FPB_HT_OVERHEAD + len);
			if (bytes >= step)
			{
				uint64		tn = pg_atomic_add_fetch_u64(&sh->total_tuples, n);
				uint64		tb = pg_atomic_add_fetch_u64(&sh->total_bytes, bytes);

				n = 0;
				bytes = 0;
				if (fpb_hj_shared_projected((int64) tn, tb) > combined ||
					pg_atomic_read_u32(&sh->nbatch) != 0)
					fpb_hj_batches_switch(st);
			}
		}
		if (tofree)
			pfree(tofree);
	}
	st->peak_space = Max(st->peak_space, st->ht.tuple_bytes);
	pg_atomic_fetch_add_u64(&sh->total_tuples, (uint64) n);
	pg_atomic_fetch_add_u64(&sh->total_bytes, bytes);
}

/* COUNT: this participant's tuples and bytes per slice. */
static void
fpb_hj_shared_count(FpbHjState *st, const FpbShGeom *g)
{
	FpbShCount *mine = &st->shared->counts[st->participant * FPB_SH_MAX_SLICES];
	FpbArenaIter it;
	FpbHashTuple *htup;
	int64		n = 0;

	fpb_arena_iter_init(&it, st->ht.tuples);
	while ((htup = fpb_arena_iter_next(&it)) != NULL)
	{
		FpbShCount *c = &mine[fpb_hj_slice(g, htup->hashvalue)];

		c->ntuples++;
		c->bytes += FPB_HT_SIZE(htup);
		if ((++n & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Where slice s's tuples start in the region (all participants' tuples of
 * a slice lie together, in participant order), and, when mycursor is
 * given, where this participant's tuples of each slice go.
 */
static void
fpb_hj_shared_offsets(FpbHjState *st, const FpbShGeom *g, Size *tstart,
					  Size *mycursor)
{
	FpbHjShared *sh = st->shared;
	int			nslices = 1 << g->bits;
	Size		toff = g->tuples_off;
	int			s;
	int			p;

	for (s = 0; s <= nslices; s++)
	{
		tstart[s] = toff;
		if (s == nslices)
			break;
		for (p = 0; p < sh->nparticipants; p++)
		{
			FpbShCount *c = &sh->counts[p * FPB_SH_MAX_SLICES + s];

			if (mycursor != NULL && p == st->participant)
				mycursor[s] = toff;
			toff += c->bytes;
		}
	}
	Assert(toff == g->size);
}

/* SCATTER: copy this participant's tuples into their slices. */
static void
fpb_hj_shared_scatter(FpbHjState *st, const FpbShGeom *g, char *region)
{
	int			nslices = 1 << g->bits;
	Size	   *tstart = palloc(sizeof(Size) * (nslices + 1));
	Size	   *cursor = palloc0(sizeof(Size) * nslices);
	FpbArenaIter it;
	FpbHashTuple *htup;
	int64		n = 0;

	fpb_hj_shared_offsets(st, g, tstart, cursor);
	fpb_arena_iter_init(&it, st->ht.tuples);
	while ((htup = fpb_arena_iter_next(&it)) != NULL)
	{
		int			s = fpb_hj_slice(g, htup->hashvalue);
		Size		size = FPB_HT_SIZE(htup);

		/* the counts of COUNT hold: never write past the slice */
		if (unlikely(cursor[s] + size > tstart[s + 1]))
			elog(ERROR, "shared hash table slice %d overflows", s);
		memcpy(region + cursor[s], htup, size);
		cursor[s] += size;
		if ((++n & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	pfree(tstart);
	pfree(cursor);
	/* the private copies are not needed any more */
	fpb_ht_reset(&st->ht);
}

/*
 * BUILD of one slice: its buckets' starts are a contiguous range that only
 * the claimer writes, its tuples a contiguous range in the order SCATTER
 * wrote them.  Count each bucket's bytes, then move the tuples into bucket
 * order through a private copy (a slice is a thousandth of the table: the
 * copy stays in the cache).  starts[b] is where bucket b's tuples begin,
 * starts[b + 1] where they end, in MAXALIGN units from the first tuple;
 * the claimer of the last slice writes the final end.
 */
static void
fpb_hj_shared_build_slice(const FpbShGeom *g, char *region, int s,
						  Size tbegin, Size tend, char **tmp, Size *tmpsize)
{
	uint32	   *starts = (uint32 *) region;
	char	   *tuples = region + g->tuples_off;
	uint32		mask = g->nbuckets - 1;
	uint32		b0 = (uint32) s << g->shift;
	uint32		nb = (uint32) 1 << g->shift;
	uint32		cur = (uint32) ((tbegin - g->tuples_off) / MAXIMUM_ALIGNOF);
	Size		len = tend - tbegin;
	Size		off;
	uint32		b;

	if (len > *tmpsize)
	{
		if (*tmp != NULL)
			pfree(*tmp);
		*tmpsize = Max(len, 1024 * 1024);
		*tmp = MemoryContextAllocHuge(CurrentMemoryContext, *tmpsize);
	}
	if (len > 0)
		memcpy(*tmp, region + tbegin, len);

	memset(&starts[b0], 0, sizeof(uint32) * nb);
	for (off = 0; off < len;)
	{
		FpbHashTuple *htup = (FpbHashTuple *) (*tmp + off);
		Size		size = FPB_HT_SIZE(htup);

		starts[htup->hashvalue & mask] += (uint32) (size / MAXIMUM_ALIGNOF);
		off += size;
	}
	/* each bucket's end; filled backwards, each ends at its start */
	for (b = b0; b < b0 + nb; b++)
	{
		cur += starts[b];
		starts[b] = cur;
	}
	for (off = 0; off < len;)
	{
		FpbHashTuple *htup = (FpbHashTuple *) (*tmp + off);
		Size		size = FPB_HT_SIZE(htup);
		uint32	   *start = &starts[htup->hashvalue & mask];

		*start -= (uint32) (size / MAXIMUM_ALIGNOF);
		memcpy(tuples + (Size) *start * MAXIMUM_ALIGNOF, htup, size);
		off += size;
	}
	if (b0 + nb == g->nbuckets)
		starts[g->nbuckets] = cur;
}

static void
fpb_hj_shared_build_slices(FpbHjState *st, const FpbShGeom *g, char *region)
{
	int			nslices = 1 << g->bits;
	Size	   *tstart = palloc(sizeof(Size) * (nslices + 1));
	char	   *tmp = NULL;
	Size		tmpsize = 0;
	uint32		s;

	fpb_hj_shared_offsets(st, g, tstart, NULL);
	while ((s = pg_atomic_fetch_add_u32(&st->shared->next_slice, 1)) <
		   (uint32) nslices)
	{
		CHECK_FOR_INTERRUPTS();
		fpb_hj_shared_build_slice(g, region, (int) s, tstart[s],
								  tstart[s + 1], &tmp, &tmpsize);
	}
	if (tmp != NULL)
		pfree(tmp);
	pfree(tstart);
}

/*
 * Take part in building the shared table (from whatever phase it is in),
 * then point st->ht at it for the probe.  Or, when the inner side does not
 * fit the combined budget, take part in partitioning both sides into
 * shared batches and return with st->sh_nbatch set: the caller then
 * claims batches (hashjoin_batches.c).  Without a parallel context the
 * node runs the serial build instead (hashjoin_exec.c).
 */
void
fpb_hj_shared_build(FpbHjState *st)
{
	FpbHjShared *sh;
	FpbShGeom	g;
	int			phase;
	char	   *region;
	Size		combined;

	sh = st->shared;
	Assert(st->participant >= 0 && st->participant < sh->nparticipants);

	fpb_ht_reset(&st->ht);
	phase = BarrierAttach(&sh->barrier);
	st->attached = true;
	/*
	 * The waits show as Parallel Hash's (pg_stat_activity.wait_event): the
	 * inner side's loading and building are its "hashing the inner
	 * relation".
	 */
	if (phase == FPB_SH_LOAD)
	{
		fpb_hj_shared_load(st);
		if (BarrierArriveAndWait(&sh->barrier,
								 WAIT_EVENT_HASH_BUILD_HASH_INNER) &&
			pg_atomic_read_u32(&sh->nbatch) == 0)
		{
			fpb_hj_shared_geometry(sh, &g);
			fpb_hj_shared_allocate(st, &g);
		}
		phase = FPB_SH_LOAD + 1;
	}

	/* the choice is final once LOAD has ended: batches, or one table */
	if (pg_atomic_read_u32(&sh->nbatch) != 0)
	{
		fpb_hj_batches_partition(st, phase);
		BarrierDetach(&sh->barrier);
		st->attached = false;
		return;
	}
	if (phase <= FPB_SH_BUILD)
		fpb_hj_shared_geometry(sh, &g);
	if (phase == FPB_SH_COUNT)
	{
		fpb_hj_shared_count(st, &g);
		BarrierArriveAndWait(&sh->barrier, WAIT_EVENT_HASH_BUILD_HASH_INNER);
		phase = FPB_SH_SCATTER;
	}
	if (phase == FPB_SH_SCATTER)
	{
		fpb_hj_shared_scatter(st, &g, fpb_hj_shared_map(st));
		BarrierArriveAndWait(&sh->barrier, WAIT_EVENT_HASH_BUILD_HASH_INNER);
		phase = FPB_SH_BUILD;
	}
	if (phase == FPB_SH_BUILD)
	{
		fpb_hj_shared_build_slices(st, &g, fpb_hj_shared_map(st));
		BarrierArriveAndWait(&sh->barrier, WAIT_EVENT_HASH_BUILD_HASH_INNER);
		phase = FPB_SH_PROBE;
		st->nbuilds++;
	}
	/* nobody waits for the probe: leave now, the table stays until reinit */
	BarrierDetach(&sh->barrier);
	st->attached = false;

	fpb_hj_shared_geometry(sh, &g);
	region = fpb_hj_shared_map(st);
	st->ht.starts = (const uint32 *) region;
	st->ht.records = region + g.tuples_off;
	st->ht.nbuckets = g.nbuckets;
	st->ht.mask = g.nbuckets - 1;
	st->ht.ntuples = g.ntuples;
	st->ht.ninserted = g.ntuples;
	st->ht.built = true;
	st->inner_total = g.ntuples;
	st->nbatch = 1;

	/*
	 * Radix-clustered probing as the serial join's: each participant's
	 * chunk pool comes from what the combined budget leaves beside the
	 * table, shared out among the planned participants.
	 */
	combined = mul_size(st->space_allowed, sh->nparticipants);
	fpb_hj_radix_shared(st, sh->region_size,
						combined > sh->region_size ?
						(combined - sh->region_size) / sh->nparticipants : 0,
						g.bits, g.log2nb);
	st->peak_space = Max(st->peak_space, sh->region_size +
						 (st->radix_on ? st->radix.poolsize : 0));
	st->max_buckets = Max(st->max_buckets, g.nbuckets);
}

/* Leave the barrier if still attached (shutdown before the build ended). */
void
fpb_hj_shared_detach(FpbHjState *st)
{
	if (st->attached && st->shared != NULL)
		BarrierDetach(&st->shared->barrier);
	st->attached = false;
}
