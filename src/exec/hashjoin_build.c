/*-------------------------------------------------------------------------
 *
 * hashjoin_build.c
 *	  PrefetchHashJoin, build phase: hashing a side's keys, loading the
 *	  current batch's build tuples (from the inner child or the batch's
 *	  file) into the hash table, doubling the number of batches when the
 *	  table outgrows the hash memory budget, and choosing whether the
 *	  loaded batch is radix-clustered for probing.  The table itself is in
 *	  hashjoin_table.c, the batch files in hashjoin_spill.c.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/memutils.h"

#include "hashjoin_int.h"

/* radix-clustered probing (fpb_hj_radix_bits) */
#define FPB_RADIX_MIN_PART		((Size) 1024 * 1024)
#define FPB_RADIX_MAX_BITS		12
#define FPB_RADIX_POOL_MAX		((Size) 128 * 1024 * 1024)
#define FPB_RADIX_MIN_POOL(nparts)	((nparts) * 4 * FPB_RADIX_BLOCK)
/* a shared table's participants: see fpb_hj_radix_shared */
#define FPB_RADIX_SHARED_POOL_MAX	((Size) 32 * 1024 * 1024)

/*
 * Evaluate the keys of one side on slot and hash them (combined as the
 * built-in hash join does).  Returns false if a strict key is NULL.
 */
bool
fpb_hj_hash_slot(FpbHjState *st, TupleTableSlot *slot, bool outer,
				 uint32 *hashvalue, Datum *key0)
{
	ExprContext *econtext = st->css.ss.ps.ps_ExprContext;
	ExprState **keys = outer ? st->outer_keys : st->inner_keys;
	FmgrInfo   *fns = outer ? st->outer_hashfn : st->inner_hashfn;
	uint8	   *kinds = outer ? st->outer_hashkind : st->inner_hashkind;
	AttrNumber *atts = outer ? st->outer_keyatt : st->inner_keyatt;
	MemoryContext oldcxt;
	uint32		h = 0;
	bool		result = true;
	int			i;

	MemoryContextReset(st->keycxt);
	oldcxt = MemoryContextSwitchTo(st->keycxt);
	if (outer)
		econtext->ecxt_outertuple = slot;
	else
		econtext->ecxt_innertuple = slot;
	*key0 = (Datum) 0;
	for (i = 0; i < st->nkeys; i++)
	{
		bool		isnull;
		Datum		d;

		h = pg_rotate_left32(h, 1);
		if (atts[i] > 0)
			d = slot_getattr(slot, atts[i], &isnull);
		else
			d = ExecEvalExpr(keys[i], econtext, &isnull);
		if (isnull)
		{
			if (st->strict[i])
			{
				result = false;
				break;
			}
			continue;
		}
		switch (kinds[i])
		{
			case FPB_HASH_INT2:
				h ^= hash_bytes_uint32((uint32) (int32) DatumGetInt16(d));
				break;
			case FPB_HASH_INT4:
				h ^= hash_bytes_uint32((uint32) DatumGetInt32(d));
				break;
			case FPB_HASH_OID:
				h ^= hash_bytes_uint32((uint32) DatumGetObjectId(d));
				break;
			case FPB_HASH_INT8:
				{
					/*
					 * hashint8: fold the high half into the low one, so
					 * that values in int4 range hash as hashint4 does
					 */
					int64		v = DatumGetInt64(d);
					uint32		lo = (uint32) v;
					uint32		hi = (uint32) (v >> 32);

					lo ^= (v >= 0) ? hi : ~hi;
					h ^= hash_bytes_uint32(lo);
				}
				break;
			default:
				h ^= DatumGetUInt32(FunctionCall1Coll(&fns[i],
													  st->collations[i], d));
				break;
		}
		if (i == 0)
			*key0 = d;
	}
	MemoryContextSwitchTo(oldcxt);
	*hashvalue = h;
	return result;
}

/*
 * Form a virtual slot's row as a MinimalTuple in a reusable buffer (valid
 * until the next call) instead of a fresh palloc'd one per row: a child
 * that projects (most scans below us do) hands us virtual slots, and every
 * row of the build side, and every spilled or probed outer row, is copied
 * once anyway.
 */
const char *
fpb_hj_form_minimal(FpbHjState *st, TupleTableSlot *slot, uint32 *len)
{
	FpbMinLayout lay;

	fpb_mintuple_layout(slot, &lay);
	if (lay.total > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row is too big: size %zu, maximum size %zu",
						lay.total, (Size) MaxAllocSize)));
	if (unlikely(st->formbufsize < lay.total))
	{
		if (st->formbuf)
			pfree(st->formbuf);
		st->formbufsize = Max(lay.total, 1024);
		st->formbuf = MemoryContextAlloc(st->probecxt, st->formbufsize);
	}
	fpb_mintuple_fill(slot, &lay, (MinimalTuple) st->formbuf);
	*len = lay.total;
	return (const char *) st->formbuf;
}

/* fpb_ht_compact callback: keep the tuples of the current batch */
static bool
fpb_hj_keep_tuple(FpbHashTuple *htup, void *arg)
{
	FpbHjState *st = (FpbHjState *) arg;
	int			batchno = fpb_hj_batchno(st, htup->hashvalue);

	if (batchno == st->curbatch)
		return true;
	Assert(batchno > st->curbatch);
	fpb_spill_add(&st->inner_spill, batchno, htup->hashvalue,
				  (char *) FPB_HT_MINTUPLE(htup), FPB_HT_MINTUPLE(htup)->t_len);
	return false;
}

/*
 * Double the number of batches while loading the current batch's build
 * tuples: move those that now belong to a later batch out to its file,
 * compacting the arena in place.  Gives up growing (like the built-in
 * join) when a split moves nothing or everything, i.e. duplicates of one
 * key fill the batch.
 */
static void
fpb_hj_increase_batches(FpbHjState *st)
{
	int			oldn = st->nbatch;
	int			newn = oldn * 2;
	int64		before = st->ht.ntuples;
	int64		kept;

	if (newn > FPB_MAX_BATCHES)
	{
		st->grow_enabled = false;
		return;
	}
	/* staged records hold batch numbers of the old count: write them */
	fpb_spill_finish(&st->inner_spill);
	fpb_spill_finish(&st->outer_spill);
	fpb_spill_grow(&st->inner_spill, newn);
	fpb_spill_grow(&st->outer_spill, newn);
	st->nbatch = newn;
	st->spilled = true;
	st->peak_space = Max(st->peak_space, st->ht.tuple_bytes);

	kept = fpb_ht_compact(&st->ht, fpb_hj_keep_tuple, st);
	if (kept == before || kept == 0)
		st->grow_enabled = false;
}

/* Add one build tuple to the current batch (or to a later batch's file). */
static void
fpb_hj_add_inner(FpbHjState *st, TupleTableSlot *slot, bool from_file,
				 uint32 filehash)
{
	uint32		hashvalue;
	Datum		key;
	uint16		flags = 0;
	int			batchno;
	const char *data;
	uint32		len;
	MinimalTuple tofree;

	if (!fpb_hj_hash_slot(st, slot, false, &hashvalue, &key))
	{
		/* a NULL key never matches; only right/full joins emit it */
		if (!st->fill_inner)
			return;
		flags = FPB_HT_NOKEY;
		hashvalue = from_file ? filehash : murmurhash32(st->nokey_seq++);
	}
	if (!from_file)
		st->inner_total++;
	if (!st->byval_fast)
		key = (Datum) 0;

	batchno = fpb_hj_batchno(st, hashvalue);
	data = fpb_hj_slot_bytes(st, slot, &len, &tofree);
	if (batchno == st->curbatch)
	{
		Size		need = MAXALIGN(FPB_HT_OVERHEAD + len);

		while (st->grow_enabled &&
			   fpb_ht_projected_space(&st->ht, 1, need) > st->space_allowed)
		{
			fpb_hj_increase_batches(st);
			batchno = fpb_hj_batchno(st, hashvalue);
			if (batchno != st->curbatch)
				break;
		}
	}
	if (batchno == st->curbatch)
		fpb_ht_store(&st->ht, data, len, hashvalue, key, flags);
	else
	{
		fpb_spill_add(&st->inner_spill, batchno, hashvalue, data, len);
		st->spilled = true;
	}
	if (tofree)
		pfree(tofree);
}

/*
 * Radix bits for the loaded batch (0: probe directly).  Automatic: when the
 * table is more than four times the largest data cache (capped at 32 MB),
 * as many bits as make a partition about that size, so that a partition's
 * probes hit the cache instead of missing on nearly every access; and
 * only if the hash memory budget has room left for a chunk of
 * outer tuples big enough to probe each partition many times per visit.
 * Only the group scheme (and "none") probe by chunks: the pipelined ring
 * keeps entries in flight across the end of a chunk.
 */
static int
fpb_hj_radix_bits(FpbHjState *st, Size table)
{
	Size		room;
	int			bits;

	st->radix_pool = 0;
	if (fpb_hj_radix_bits_setting == 0 ||
		st->scheme == FPB_HJ_PREFETCH_PIPELINED || st->ht.ntuples == 0)
		return 0;
	if (fpb_hj_radix_bits_setting > 0)
		bits = fpb_hj_radix_bits_setting;
	else
	{
		Size		part = Max(fpb_hj_partition_bytes(), FPB_RADIX_MIN_PART);

		if (table <= 4 * part)
			return 0;
		bits = pg_ceil_log2_64((table + part - 1) / part);
		bits = Max(1, Min(bits, FPB_RADIX_MAX_BITS));
	}
	room = st->space_allowed > table ? st->space_allowed - table : 0;
	room = Min(room, FPB_RADIX_POOL_MAX);
	/* at least a few blocks per partition, or the chunks are too small */
	if (room < FPB_RADIX_MIN_POOL((Size) 1 << bits))
		return 0;
	st->radix_pool = room;
	return bits;
}

/*
 * Radix-clustered probing of the shared table (hashjoin_shared.c), whose
 * slices are radix partitions already (the starts and tuples of a slice lie
 * together): at most max_bits bits; room is this participant's share of
 * what the combined budget leaves beside the table, for its chunk pool.
 * The pool is smaller than the serial join's: every participant faults in
 * a fresh one per build, and a chunk larger than the largest cache is read
 * back from memory anyway (enough for the most slices: 1024 partitions of
 * four blocks).
 */
void
fpb_hj_radix_shared(FpbHjState *st, Size table, Size room, int max_bits,
					int log2nb)
{
	Size		saved = st->space_allowed;
	int			bits;

	fpb_radix_release(&st->radix);
	st->space_allowed = add_size(table, Min(room, FPB_RADIX_SHARED_POOL_MAX));
	bits = fpb_hj_radix_bits(st, table);
	st->space_allowed = saved;
	bits = Min(bits, max_bits);
	st->radix_on = bits > 0 &&
		st->radix_pool >= FPB_RADIX_MIN_POOL((Size) 1 << bits);
	if (!st->radix_on)
		return;
	st->ht.radix_bits = bits;
	st->ht.radix_shift = log2nb - bits;
	fpb_radix_setup(&st->radix, 1 << bits, st->radix_pool);
	st->max_radix_parts = Max(st->max_radix_parts, st->radix.nparts);
}

/* Load the current batch's build side and build its hash table. */
void
fpb_hj_build(FpbHjState *st)
{
	Size		space;
	Size		table;
	int			bits;

	/*
	 * The chunk pool of an earlier table is sized for that table: unmap it
	 * before this one is loaded up to the budget beside it.
	 */
	fpb_radix_release(&st->radix);

	if (st->curbatch == 0)
	{
		st->inner_total = 0;
		for (;;)
		{
			TupleTableSlot *slot;

			/* a claimed shared batch's files, or the inner child */
			if (st->sh_batch >= 0)
				slot = fpb_hj_batches_next(st, false);
			else
				slot = ExecProcNode(st->inner_ps);
			if (TupIsNull(slot))
				break;
			fpb_hj_add_inner(st, slot, false, 0);
		}
	}
	else
	{
		BufFile    *file = fpb_spill_open_read(&st->inner_spill, st->curbatch);
		MinimalTuple tup;
		uint32		hashvalue;

		while (file != NULL && (tup = fpb_spill_read(file, &hashvalue, &st->readbuf,
									 &st->readbufsize, st->filecxt)) != NULL)
		{
			CHECK_FOR_INTERRUPTS();
			ExecStoreMinimalTuple(tup, st->inner_file_slot, false);
			fpb_hj_add_inner(st, st->inner_file_slot, true, hashvalue);
		}
		fpb_spill_close(&st->inner_spill, st->curbatch);
	}

	table = fpb_ht_projected_space(&st->ht, 0, 0);
	bits = fpb_hj_radix_bits(st, table);
	/* the copy may be faulted in at once if the budget holds it twice */
	if (bits > 0)
		fpb_ht_cluster(&st->ht, bits,
					   table + st->radix_pool + st->ht.tuple_bytes <=
					   st->space_allowed);
	fpb_ht_build(&st->ht, st->group_size, st->prefetch);
	st->nbuilds++;
	space = st->ht.tuple_bytes + st->ht.cell_bytes +
		(Size) st->ht.nbuckets * sizeof(FpbBucket);
	st->radix_on = st->ht.radix_bits > 0;
	if (st->radix_on)
	{
		/*
		 * The pool gets what the built table really leaves of the budget:
		 * the projection counts one cell per tuple, and duplicate keys take
		 * more (arrays double, the old ones stay).
		 */
		Size		room = st->space_allowed > space ?
			st->space_allowed - space : 0;

		st->radix_pool = Min(st->radix_pool, room);
		if (st->radix_pool < FPB_RADIX_MIN_POOL((Size) 1 << st->ht.radix_bits))
			st->radix_on = false;	/* clustered, but probed directly */
	}
	if (st->radix_on)
	{
		fpb_radix_setup(&st->radix, 1 << st->ht.radix_bits, st->radix_pool);
		st->max_radix_parts = Max(st->max_radix_parts, st->radix.nparts);
		space += st->radix.poolsize;
	}

	st->peak_space = Max(st->peak_space, space);
	st->max_buckets = Max(st->max_buckets, st->ht.nbuckets);
}
