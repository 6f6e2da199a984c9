/*-------------------------------------------------------------------------
 *
 * hashjoin_batches.c
 *	  PrefetchHashJoin, parallel-aware: shared batches.  When the inner
 *	  side does not fit the participants' combined budget (planned, or
 *	  found out while loading), both sides are partitioned into batch files
 *	  of a SharedFileSet, and then each participant claims whole batches
 *	  and joins each one alone with the serial code, in private memory
 *	  within its own share of the budget (README.md, "Shared batches").
 *
 *	  PARTITION  every participant writes what it loaded of the inner side
 *				 and its share of the outer side to its own file per side,
 *				 in chunks chained per batch (through the partition phase's
 *				 buffers and prefetching, hashjoin_spill.c), then closes
 *				 them;
 *	  BATCHES	 each detaches and claims batches through an atomic
 *				 counter; the claimer reads the batch's chunks from every
 *				 participant's file, builds and probes it as the serial
 *				 join's batch 0, splitting it in private files if it
 *				 exceeds its budget.
 *
 *	  An outer tuple is in exactly one batch, which exactly one participant
 *	  joins, so left and anti joins emit an unmatched outer tuple once and
 *	  semi joins a match at most once.  Outer tuples with a NULL key go to
 *	  batch 0.  Shared batch numbers are the high bits of murmurhash32(hash
 *	  code), the claimer's private batches its low bits, buckets the low
 *	  bits of the hash code itself: all independent.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>

#include "executor/executor.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/pg_bitutils.h"
#include "utils/memutils.h"

#include "hashjoin_int.h"
#include "hashjoin_shared.h"

static inline int
fpb_hj_sh_batchno(FpbHjState *st, uint32 hashvalue)
{
	if (st->sh_nbatch <= 1)
		return 0;
	return (int) (murmurhash32(hashvalue) >> st->sh_shift);
}

/* Set up this participant's batch files once the number is known. */
static void
fpb_hj_batches_begin(FpbHjState *st)
{
	FpbHjShared *sh = st->shared;

	st->sh_nbatch = (int) pg_atomic_read_u32(&sh->nbatch);
	Assert(st->sh_nbatch >= 1 && st->sh_nbatch <= FPB_SH_MAX_BATCHES);
	st->sh_shift = 32 - pg_ceil_log2_32((uint32) st->sh_nbatch);
	fpb_spill_init(&st->sh_inner, st->filecxt, st->sh_nbatch,
				   st->partition_scheme, st->group_size, st->distance);
	fpb_spill_set_shared(&st->sh_inner, &sh->fileset.fs, 'i', st->participant,
						 fpb_hj_shared_heads(sh, 'i', st->participant));
	fpb_spill_init(&st->sh_outer, st->filecxt, st->sh_nbatch,
				   st->partition_scheme, st->group_size, st->distance);
	fpb_spill_set_shared(&st->sh_outer, &sh->fileset.fs, 'o', st->participant,
						 fpb_hj_shared_heads(sh, 'o', st->participant));
	st->sh_sets = true;
	st->spilled = true;
}

void
fpb_hj_batches_add_inner(FpbHjState *st, uint32 hashvalue, const char *data,
						 uint32 len)
{
	fpb_spill_add(&st->sh_inner, fpb_hj_sh_batchno(st, hashvalue), hashvalue,
				  data, len);
}

/*
 * Switch this participant to batches: the first to call it chooses their
 * number (unless planned), and what it loaded into its arena so far goes
 * to the batch files.
 */
void
fpb_hj_batches_switch(FpbHjState *st)
{
	FpbHjShared *sh = st->shared;
	uint32		expected = 0;
	FpbArenaIter it;
	FpbHashTuple *htup;
	int64		n = 0;

	if (st->sh_sets)
		return;
	(void) pg_atomic_compare_exchange_u32(&sh->nbatch, &expected,
										  (uint32) sh->grow_nbatch);
	fpb_hj_batches_begin(st);

	st->peak_space = Max(st->peak_space, st->ht.tuple_bytes);
	fpb_arena_iter_init(&it, st->ht.tuples);
	while ((htup = fpb_arena_iter_next(&it)) != NULL)
	{
		MinimalTuple mt = FPB_HT_MINTUPLE(htup);

		fpb_hj_batches_add_inner(st, htup->hashvalue, (const char *) mt,
								 mt->t_len);
		if ((++n & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	fpb_ht_reset(&st->ht);
}

/*
 * PARTITION (from whatever phase this participant attached in): write the
 * loaded inner tuples and the outer share to the batch files, close them
 * and wait for everyone, so that all files are complete before anyone
 * claims a batch.  Nothing is emitted before, so nobody waits for a
 * participant blocked on a full tuple queue.  A participant attaching
 * after PARTITION finds both sides used up (everyone attached exhausted
 * its scans before PARTITION ended) and just claims batches.
 */
void
fpb_hj_batches_partition(FpbHjState *st, int phase)
{
	FpbHjShared *sh = st->shared;

	if (phase == FPB_SH_PARTITION)
	{
		fpb_hj_batches_switch(st);
		for (;;)
		{
			TupleTableSlot *slot = ExecProcNode(st->outer_ps);
			uint32		hashvalue;
			Datum		key;
			int			batchno;
			const char *data;
			uint32		len;
			MinimalTuple tofree;

			if (TupIsNull(slot))
				break;
			if (fpb_hj_hash_slot(st, slot, true, &hashvalue, &key))
				batchno = fpb_hj_sh_batchno(st, hashvalue);
			else if (st->fill_outer)
			{
				/* matches nothing: emitted null-extended by batch 0 */
				hashvalue = 0;
				batchno = 0;
			}
			else
				continue;
			data = fpb_hj_slot_bytes(st, slot, &len, &tofree);
			fpb_spill_add(&st->sh_outer, batchno, hashvalue, data, len);
			if (tofree)
				pfree(tofree);
		}
		fpb_spill_export(&st->sh_inner);
		fpb_spill_export(&st->sh_outer);
		/* Parallel Hash's event for the end of partitioning the outer side */
		BarrierArriveAndWait(&sh->barrier, WAIT_EVENT_HASH_BUILD_HASH_OUTER);
	}
	else if (!st->sh_sets)
	{
		st->sh_nbatch = (int) pg_atomic_read_u32(&sh->nbatch);
		st->spilled = true;
	}
	st->sh_max_nbatch = Max(st->sh_max_nbatch, st->sh_nbatch);
	st->sh_batch = -1;
	st->sh_claims_done = false;
}

static void
fpb_hj_reader_start(FpbShReader *r, char side, int batch)
{
	r->side = side;
	r->batch = batch;
	r->next = 0;
	r->cur = -1;
	r->pos = -1;
	r->len = r->off = 0;
}

/*
 * Claim the next batch: false when none is left.  The caller has dropped
 * the previous batch's private state.
 */
bool
fpb_hj_batches_claim(FpbHjState *st)
{
	uint32		b;

	b = pg_atomic_fetch_add_u32(&st->shared->next_batch, 1);
	if (b >= (uint32) st->sh_nbatch)
	{
		st->sh_batch = -1;
		st->sh_claims_done = true;
		return false;
	}
	st->sh_batch = (int) b;
	st->sh_claimed++;
	fpb_hj_reader_start(&st->sh_read_inner, 'i', (int) b);
	fpb_hj_reader_start(&st->sh_read_outer, 'o', (int) b);
	return true;
}

/* Read the chunk at r->pos of participant r->cur's file into r->chunk. */
static void
fpb_hj_reader_chunk(FpbHjState *st, FpbShReader *r)
{
	FpbHjShared *sh = st->shared;
	BufFile    *file;
	FpbSpillChunk hdr;

	if (r->files == NULL)
	{
		r->nfiles = sh->nparticipants;
		r->files = MemoryContextAllocZero(st->filecxt,
										  sizeof(BufFile *) * r->nfiles);
	}
	file = r->files[r->cur];
	if (file == NULL)
	{
		char		name[MAXPGPATH];
		MemoryContext oldcxt = MemoryContextSwitchTo(st->filecxt);

		fpb_spill_shared_name(name, r->side, r->cur);
		file = BufFileOpenFileSet(&sh->fileset.fs, name, O_RDONLY, false);
		MemoryContextSwitchTo(oldcxt);
		r->files[r->cur] = file;
	}
	if (BufFileSeek(file, (int) (r->pos >> 32), (off_t) (r->pos & 0xFFFFFFFF),
					SEEK_SET) != 0 ||
		BufFileRead(file, &hdr, sizeof(hdr)) != sizeof(hdr))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read from PrefetchHashJoin shared batch file")));
	if (r->chunksize < hdr.len)
	{
		if (r->chunk != NULL)
			pfree(r->chunk);
		r->chunksize = Max(hdr.len, 8192);
		r->chunk = MemoryContextAlloc(st->filecxt, r->chunksize);
	}
	if (BufFileRead(file, r->chunk, hdr.len) != hdr.len)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read from PrefetchHashJoin shared batch file")));
	r->len = hdr.len;
	r->off = 0;
	r->pos = hdr.prev;
}

/*
 * The next tuple of the claimed batch's inner (outer = false) or outer
 * side, following every participant's chain in turn, in the side's file
 * slot; NULL at the end.
 */
TupleTableSlot *
fpb_hj_batches_next(FpbHjState *st, bool outer)
{
	FpbShReader *r = outer ? &st->sh_read_outer : &st->sh_read_inner;
	TupleTableSlot *slot = outer ? st->outer_file_slot : st->inner_file_slot;

	for (;;)
	{
		if (r->off < r->len)
		{
			char	   *rec = r->chunk + r->off;
			uint32		tlen;
			MinimalTuple tup;

			/* a record: hash code, then the MinimalTuple; copied aligned */
			memcpy(&tlen, rec + sizeof(uint32), sizeof(uint32));
			if (tlen < sizeof(uint32) ||
				(Size) r->off + sizeof(uint32) + tlen > r->len)
				elog(ERROR, "corrupt PrefetchHashJoin shared batch chunk");
			if (st->readbufsize < tlen)
			{
				if (st->readbuf != NULL)
					pfree(st->readbuf);
				st->readbufsize = Max(tlen, 2 * st->readbufsize);
				st->readbuf = MemoryContextAlloc(st->filecxt, st->readbufsize);
			}
			tup = (MinimalTuple) st->readbuf;
			memcpy(tup, rec + sizeof(uint32), tlen);
			r->off += sizeof(uint32) + tlen;
			ExecStoreMinimalTuple(tup, slot, false);
			return slot;
		}
		CHECK_FOR_INTERRUPTS();
		if (r->pos < 0)
		{
			/* on to the next participant's chain */
			if (r->next >= st->shared->nparticipants)
				return NULL;
			r->cur = r->next++;
			r->pos = fpb_hj_shared_heads(st->shared, r->side, r->cur)[r->batch];
			continue;
		}
		fpb_hj_reader_chunk(st, r);
	}
}

static void
fpb_hj_reader_release(FpbHjState *st, FpbShReader *r)
{
	int			i;

	if (r->files != NULL)
	{
		for (i = 0; i < r->nfiles; i++)
			if (r->files[i] != NULL)
				BufFileClose(r->files[i]);
		pfree(r->files);
	}
	if (r->chunk != NULL)
		pfree(r->chunk);
	memset(r, 0, sizeof(FpbShReader));
}

static void
fpb_hj_spill_free(FpbSpillSet *set)
{
	int			i;

	fpb_spill_discard(set);
	for (i = 0; i < set->nfiles; i++)
		fpb_spill_close(set, i);
	if (set->sharedfile != NULL)
		BufFileClose(set->sharedfile);
	if (set->files != NULL)
		pfree(set->files);
	if (set->ring != NULL)
		pfree(set->ring);
	if (set->stage != NULL)
		pfree(set->stage);
	memset(set, 0, sizeof(FpbSpillSet));
}

/*
 * Forget this scan's batches (shutdown, rescan, end): close what is open,
 * without touching the shared state (at the end of the query the segment
 * may be gone).  The files themselves belong to the fileset, which the
 * Gather's next start (fpb_hj_shared_reinit) or the segment's end deletes.
 */
void
fpb_hj_batches_release(FpbHjState *st)
{
	fpb_hj_reader_release(st, &st->sh_read_inner);
	fpb_hj_reader_release(st, &st->sh_read_outer);
	if (st->sh_sets)
	{
		fpb_hj_spill_free(&st->sh_inner);
		fpb_hj_spill_free(&st->sh_outer);
	}
	st->sh_sets = false;
	st->sh_nbatch = 0;
	st->sh_batch = -1;
	st->sh_claims_done = false;
}
