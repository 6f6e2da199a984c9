/*-------------------------------------------------------------------------
 *
 * hashjoin_probe.c
 *	  PrefetchHashJoin, probe phase: fetching outer tuples (spilling those
 *	  of later batches), the prefetching stages, emission of joined and
 *	  null-extended rows, and the unmatched build tuples of right/full
 *	  joins.
 *
 *	  The probe runs over a small array of copied outer tuples ("entries").
 *	  With group prefetching G entries are filled (stage 0: hash, prefetch
 *	  the bucket header), then stage 1 runs for all of them (read header,
 *	  prefetch the cell array), then stage 2 (compare hash codes, prefetch
 *	  candidate tuples), and the entries are then emitted one by one (stage
 *	  3: compare keys, quals, project).  With software pipelining the same
 *	  stages run on a sliding window: entry j gets stage 1 when entry j+D is
 *	  fetched and stage 2 when entry j+2D is fetched.  Radix-clustered
 *	  probing feeds the entries from chunks of outer tuples grouped by
 *	  partition (hashjoin_radix.c).  See README.md.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/executor.h"
#include "miscadmin.h"

#include "hashjoin_int.h"

static inline bool
fpb_hj_key_equal(FpbHjState *st, Datum outerkey, Datum innerkey)
{
	Datum		l = st->eq_outer_left ? outerkey : innerkey;
	Datum		r = st->eq_outer_left ? innerkey : outerkey;

	switch (st->eqkind)
	{
		case FPB_EQ_INT2:
			return DatumGetInt16(l) == DatumGetInt16(r);
		case FPB_EQ_INT4:
			return DatumGetInt32(l) == DatumGetInt32(r);
		case FPB_EQ_INT8:
			return DatumGetInt64(l) == DatumGetInt64(r);
		case FPB_EQ_INT48:
			return (int64) DatumGetInt32(l) == DatumGetInt64(r);
		case FPB_EQ_INT84:
			return DatumGetInt64(l) == (int64) DatumGetInt32(r);
		default:
			return DatumGetBool(FunctionCall2Coll(&st->eqfn, st->eqcoll,
												  l, r));
	}
}

void
fpb_hj_reset_ring(FpbHjState *st)
{
	int			i;

	for (i = 0; i < st->ringsize; i++)
		st->ring[i].tuple = NULL;
	st->head = st->emit = 0;
	st->ramp = 1;
	st->outer_done = false;
	fpb_radix_reset(&st->radix);
	st->source_done = false;
	st->radix_ramp = 1;
}

/* Start probing the current batch (or skip it if no row can come out). */
void
fpb_hj_start_probe(FpbHjState *st)
{
	fpb_hj_reset_ring(st);
	if (st->nbatch == 1 && st->ht.ntuples == 0 && !st->fill_outer)
		st->phase = FPB_HJ_DONE;	/* empty build side: nothing can join */
	else
		st->phase = FPB_HJ_PROBE;
}

/*
 * Copy an outer tuple into a ring entry's reusable buffer.  A heap tuple is
 * copied straight from the scan's buffer (no MinimalTuple is formed and
 * freed per row).
 */
static void
fpb_hj_copy_entry(FpbHjState *st, FpbProbeEntry *e, TupleTableSlot *slot)
{
	const char *data;
	uint32		len;
	MinimalTuple tofree;

	data = fpb_hj_slot_bytes(st, slot, &len, &tofree);
	if (unlikely(e->bufsize < len))
	{
		if (e->buf)
			pfree(e->buf);
		e->bufsize = Max(len, 256);
		e->buf = MemoryContextAlloc(st->probecxt, e->bufsize);
	}
	e->tuple = (MinimalTuple) e->buf;
	fpb_mintuple_copy(e->buf, data, len);
	if (tofree)
		pfree(tofree);
}

/*
 * The next outer tuple of the current batch, hashed: *nullkey is set when a
 * key is NULL (only kept for joins that emit unmatched outer rows).  Tuples
 * of later batches go to their files.  NULL when the batch's outer side is
 * exhausted.
 */
static TupleTableSlot *
fpb_hj_next_outer(FpbHjState *st, uint32 *hashvalue, Datum *key,
				  bool *nullkey)
{
	for (;;)
	{
		TupleTableSlot *slot;
		int			batchno;

		if (st->curbatch == 0 && st->sh_batch >= 0)
		{
			/* a claimed shared batch's outer files */
			slot = fpb_hj_batches_next(st, true);
			if (slot == NULL)
				return NULL;
		}
		else if (st->curbatch == 0)
		{
			slot = st->first_outer;
			if (slot != NULL)
				st->first_outer = NULL;
			else
				slot = ExecProcNode(st->outer_ps);
			if (TupIsNull(slot))
				return NULL;
		}
		else
		{
			BufFile    *file = st->outer_read;
			MinimalTuple tup;
			uint32		filehash;

			if (file == NULL)
				return NULL;
			tup = fpb_spill_read(file, &filehash, &st->readbuf,
								 &st->readbufsize, st->filecxt);
			if (tup == NULL)
				return NULL;
			slot = st->outer_file_slot;
			ExecStoreMinimalTuple(tup, slot, false);
		}

		if (!fpb_hj_hash_slot(st, slot, true, hashvalue, key))
		{
			if (!st->fill_outer)
				continue;
			st->outer_not_empty = true;
			*hashvalue = 0;
			*key = (Datum) 0;
			*nullkey = true;
			return slot;
		}
		st->outer_not_empty = true;

		batchno = fpb_hj_batchno(st, *hashvalue);
		if (batchno != st->curbatch)
		{
			const char *data;
			uint32		len;
			MinimalTuple tofree;

			Assert(batchno > st->curbatch);
			data = fpb_hj_slot_bytes(st, slot, &len, &tofree);
			fpb_spill_add(&st->outer_spill, batchno, *hashvalue, data, len);
			if (tofree)
				pfree(tofree);
			st->spilled = true;
			continue;
		}
		*nullkey = false;
		return slot;
	}
}

/* Set up entry e (its tuple already in place) and run stage 0. */
static inline void
fpb_hj_start_entry(FpbHjState *st, FpbProbeEntry *e, uint32 hashvalue,
				   Datum key, bool nullkey)
{
	e->matched = false;
	e->stored = false;
	e->ncells = 0;
	e->pos = 0;
	e->rec = NULL;
	e->recend = NULL;
	e->nullkey = nullkey;
	if (nullkey)
	{
		e->stage = 2;
		return;
	}
	e->hashvalue = hashvalue;
	e->key = key;
	if (st->ht.starts != NULL)
	{
		e->start = &st->ht.starts[hashvalue & st->ht.mask];
		if (st->prefetch)
			FPB_PREFETCH_R(e->start);
	}
	else
	{
		e->bucket = &st->ht.buckets[hashvalue & st->ht.mask];
		if (st->prefetch)
			FPB_PREFETCH_R(e->bucket);
	}
	e->stage = 0;
}

/*
 * Radix probing: read the next chunk of outer tuples into the partitions.
 * Chunks ramp up from one row, doubling, as groups do, so that a consumer
 * that stops early has not made us read far ahead.  False when the outer
 * side has no more rows.
 */
static bool
fpb_hj_radix_fill(FpbHjState *st)
{
	int64		limit = st->radix_ramp;
	FpbRadix   *r = &st->radix;

	fpb_radix_reset(r);
	if (st->source_done)
		return false;
	if (st->radix_ramp < PG_INT64_MAX / 2)
		st->radix_ramp *= 2;
	while (r->nrows < limit && !fpb_radix_full(r))
	{
		TupleTableSlot *slot;
		uint32		hashvalue;
		Datum		key;
		bool		nullkey;
		const char *data;
		uint32		len;
		MinimalTuple tofree;

		/* a batch file's rows come without the child's interrupt checks */
		if ((r->nrows & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		slot = fpb_hj_next_outer(st, &hashvalue, &key, &nullkey);
		if (slot == NULL)
		{
			st->source_done = true;
			break;
		}
		data = fpb_hj_slot_bytes(st, slot, &len, &tofree);
		fpb_radix_add(r, nullkey ? 0 : fpb_ht_partition(&st->ht, hashvalue),
					  hashvalue, key, nullkey, data, len);
		if (tofree)
			pfree(tofree);
	}
	if (r->nrows > 0)
		r->nchunks++;
	return r->nrows > 0;
}

/*
 * Fetch the next outer tuple into e and run stage 0 (hash, prefetch the
 * bucket header).  Radix probing takes it from the current chunk and
 * returns false at the chunk's end (the caller refills once no entry
 * refers to the chunk any more); otherwise false means the batch's outer
 * side is exhausted.
 */
static bool
fpb_hj_fetch_outer(FpbHjState *st, FpbProbeEntry *e)
{
	TupleTableSlot *slot;
	uint32		hashvalue;
	Datum		key;
	bool		nullkey;

	if (st->radix_on)
	{
		FpbRadixRec *rec = fpb_radix_next(&st->radix);

		if (rec == NULL)
			return false;
		e->tuple = FPB_RADIX_REC_TUPLE(rec);
		fpb_hj_start_entry(st, e, rec->hashvalue, rec->key, rec->nullkey);
		return true;
	}
	slot = fpb_hj_next_outer(st, &hashvalue, &key, &nullkey);
	if (slot == NULL)
		return false;
	fpb_hj_copy_entry(st, e, slot);
	fpb_hj_start_entry(st, e, hashvalue, key, nullkey);
	return true;
}

/* stage 1: read the bucket header, prefetch the cells (or the tuple) */
static inline void
fpb_hj_stage1(FpbHjState *st, FpbProbeEntry *e)
{
	FpbBucket  *b;

	if (e->stage != 0)
		return;
	if (st->ht.starts != NULL)
	{
		/* a shared table: the bucket's tuples themselves (no stage 2) */
		e->rec = st->ht.records + (Size) e->start[0] * MAXIMUM_ALIGNOF;
		e->recend = st->ht.records + (Size) e->start[1] * MAXIMUM_ALIGNOF;
		if (st->prefetch && e->rec < e->recend)
		{
			FPB_PREFETCH_R(e->rec);
			if (e->recend - e->rec > 64)
				FPB_PREFETCH_R(e->rec + 64);
		}
		e->stage = 1;
		return;
	}
	b = e->bucket;
	if (b->count == 0)
		e->ncells = 0;
	else if (b->count == 1)
	{
		e->cells = &b->u.one;
		e->ncells = 1;
		if (st->prefetch && e->cells->hashvalue == e->hashvalue)
			FPB_PREFETCH_R(fpb_ht_cell_tuple(&st->ht, e->cells));
	}
	else
	{
		e->cells = fpb_ht_bucket_cells(&st->ht, b);
		e->ncells = b->count;
		if (st->prefetch)
		{
			FPB_PREFETCH_R(e->cells);
			if (e->ncells * sizeof(FpbHashCell) > 64)
				FPB_PREFETCH_R((char *) e->cells + 64);
		}
	}
	e->stage = 1;
}

/* stage 2: compare hash codes, prefetch the first candidate tuples */
static inline void
fpb_hj_stage2(FpbHjState *st, FpbProbeEntry *e)
{
	if (e->stage != 1)
		return;
	if (e->ncells > 1)
	{
		uint32		i;
		int			nprefetched = 0;

		e->pos = e->ncells;
		for (i = 0; i < e->ncells && nprefetched < 4; i++)
		{
			FpbHashCell *c = &e->cells[i];

			if (c->hashvalue != e->hashvalue)
				continue;
			if (e->pos == e->ncells)
				e->pos = i;
			if (st->prefetch)
				FPB_PREFETCH_R(fpb_ht_cell_tuple(&st->ht, c));
			nprefetched++;
		}
	}
	e->stage = 2;
}

/*
 * The next tuple of entry e's bucket whose hash code (and by-value key)
 * match, or NULL: from the cells of a private table, or from the bucket's
 * run of tuples in a shared one.
 */
static inline FpbHashTuple *
fpb_hj_next_candidate(FpbHjState *st, FpbProbeEntry *e)
{
	while (e->rec < e->recend)
	{
		FpbHashTuple *htup = (FpbHashTuple *) e->rec;

		e->rec += FPB_HT_SIZE(htup);
		if (htup->hashvalue == e->hashvalue &&
			(!st->byval_fast || fpb_hj_key_equal(st, e->key, htup->key)))
			return htup;
	}
	while (e->pos < e->ncells)
	{
		FpbHashCell *c = &e->cells[e->pos++];

		if (c->hashvalue == e->hashvalue &&
			(!st->byval_fast || fpb_hj_key_equal(st, e->key, c->key)))
			return fpb_ht_cell_tuple(&st->ht, c);
	}
	return NULL;
}

/* No more candidates for entry e. */
static inline void
fpb_hj_end_candidates(FpbProbeEntry *e)
{
	e->pos = e->ncells;
	e->rec = e->recend;
}

/*
 * stage 3: walk the candidates of entry e, returning the next joined row,
 * or the null-extended row, or NULL when the entry is finished.
 */
static TupleTableSlot *
fpb_hj_emit(FpbHjState *st, FpbProbeEntry *e)
{
	ExprContext *econtext = st->css.ss.ps.ps_ExprContext;

	if (!e->stored)
	{
		ExecStoreMinimalTuple(e->tuple, st->probe_slot, false);
		e->stored = true;
	}
	econtext->ecxt_outertuple = st->probe_slot;

	for (;;)
	{
		FpbHashTuple *htup = fpb_hj_next_candidate(st, e);

		if (htup == NULL)
			break;
		ExecStoreMinimalTuple(FPB_HT_MINTUPLE(htup), st->build_slot, false);
		econtext->ecxt_innertuple = st->build_slot;

		/* nothing of this call has been returned yet: safe to reset */
		ResetExprContext(econtext);
		if (!st->byval_fast && !ExecQual(st->hashquals, econtext))
			continue;
		if (st->joinqual != NULL && !ExecQual(st->joinqual, econtext))
		{
			InstrCountFiltered1(&st->css.ss.ps, 1);
			continue;
		}

		e->matched = true;
		if (st->fill_inner)
			htup->flags |= FPB_HT_MATCHED;
		if (st->jointype == JOIN_ANTI)
		{
			fpb_hj_end_candidates(e);
			break;
		}
		if (st->single_match)
			fpb_hj_end_candidates(e);
		if (st->otherqual == NULL || ExecQual(st->otherqual, econtext))
			return ExecProject(st->proj);
		InstrCountFiltered2(&st->css.ss.ps, 1);
	}

	if (!e->matched && st->fill_outer)
	{
		e->matched = true;
		econtext->ecxt_innertuple = st->null_inner;
		ResetExprContext(econtext);
		if (st->otherqual == NULL || ExecQual(st->otherqual, econtext))
			return ExecProject(st->proj);
		InstrCountFiltered2(&st->css.ss.ps, 1);
	}
	return NULL;
}

/* Group prefetching: fill G entries, run each stage over all, emit. */
TupleTableSlot *
fpb_hj_probe_group(FpbHjState *st)
{
	for (;;)
	{
		int			n;
		int			i;
		int			limit;

		while (st->emit < st->head)
		{
			TupleTableSlot *slot = fpb_hj_emit(st, &st->ring[st->emit]);

			if (slot != NULL)
				return slot;
			st->emit++;
		}
		if (st->outer_done)
			return NULL;

		CHECK_FOR_INTERRUPTS();

		/*
		 * The first group after a (re)start holds one outer tuple, the next
		 * two, then four, up to G: a consumer that stops early (LIMIT, an
		 * EXISTS subplan, a cursor) has then made us read and evaluate the
		 * keys of at most about as many outer tuples beyond what it used as
		 * it used, instead of up to G - 1 more.  Key expressions of those
		 * extra rows could raise errors the built-in join never reaches.
		 */
		limit = st->ramp;
		if (st->ramp < st->group_size)
			st->ramp = Min(st->ramp * 2, st->group_size);
		n = 0;
		while (n < limit && fpb_hj_fetch_outer(st, &st->ring[n]))
			n++;
		if (st->radix_on)
		{
			/*
			 * A group ends early at the end of a chunk; the next chunk is
			 * read only when no entry refers to this one any more.
			 */
			if (n == 0 && fpb_hj_radix_fill(st))
				while (n < limit && fpb_hj_fetch_outer(st, &st->ring[n]))
					n++;
			if (n == 0)
				st->outer_done = true;
		}
		else if (n < limit)
			st->outer_done = true;
		for (i = 0; i < n; i++)
			fpb_hj_stage1(st, &st->ring[i]);
		for (i = 0; i < n; i++)
			fpb_hj_stage2(st, &st->ring[i]);
		st->head = n;
		st->emit = 0;
	}
}

/*
 * Software-pipelined prefetching: each fetch runs stage 0 for the new
 * entry j, stage 1 for entry j-D and stage 2 for entry j-2D; the oldest
 * entry is emitted once its stage 2 is done.
 */
TupleTableSlot *
fpb_hj_probe_pipelined(FpbHjState *st)
{
	uint64		mask = (uint64) st->ringsize - 1;
	uint64		d = (uint64) st->distance;

	for (;;)
	{
		if (st->emit < st->head)
		{
			FpbProbeEntry *e = &st->ring[st->emit & mask];

			/*
			 * Ramp up as the group scheme does: right after a (re)start no
			 * more entries are read ahead of the oldest one than have been
			 * emitted so far, so finish its stages here instead of waiting
			 * for 2D newer entries.
			 */
			if (e->stage != 2 && st->head - st->emit > Min(2 * d, st->emit))
			{
				fpb_hj_stage1(st, e);
				fpb_hj_stage2(st, e);
			}
			if (e->stage == 2)
			{
				TupleTableSlot *slot = fpb_hj_emit(st, e);

				if (slot != NULL)
					return slot;
				st->emit++;
				continue;
			}
		}
		else if (st->outer_done)
			return NULL;

		if (!st->outer_done)
		{
			Assert(st->head - st->emit < (uint64) st->ringsize);
			if (fpb_hj_fetch_outer(st, &st->ring[st->head & mask]))
			{
				st->head++;
				if (st->head >= d + 1 && st->head - 1 - d >= st->emit)
					fpb_hj_stage1(st, &st->ring[(st->head - 1 - d) & mask]);
				if (st->head >= 2 * d + 1 && st->head - 1 - 2 * d >= st->emit)
					fpb_hj_stage2(st, &st->ring[(st->head - 1 - 2 * d) & mask]);
				continue;
			}
			st->outer_done = true;
		}

		/* outer side exhausted: finish the stages of what is left */
		{
			uint64		j;

			for (j = st->emit; j < st->head; j++)
			{
				fpb_hj_stage1(st, &st->ring[j & mask]);
				fpb_hj_stage2(st, &st->ring[j & mask]);
			}
		}
	}
}

/* Right/full joins: the build tuples no probe matched. */
TupleTableSlot *
fpb_hj_fill_inner_next(FpbHjState *st)
{
	ExprContext *econtext = st->css.ss.ps.ps_ExprContext;
	FpbHashTuple *htup;

	while ((htup = fpb_arena_iter_next(&st->fill_iter)) != NULL)
	{
		if (htup->flags & FPB_HT_MATCHED)
			continue;
		ResetExprContext(econtext);
		ExecStoreMinimalTuple(FPB_HT_MINTUPLE(htup), st->build_slot, false);
		econtext->ecxt_outertuple = st->null_outer;
		econtext->ecxt_innertuple = st->build_slot;
		if (st->otherqual == NULL || ExecQual(st->otherqual, econtext))
			return ExecProject(st->proj);
		InstrCountFiltered2(&st->css.ss.ps, 1);
	}
	return NULL;
}
