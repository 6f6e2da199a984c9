/*-------------------------------------------------------------------------
 *
 * hashjoin_int.h
 *	  PrefetchHashJoin executor node, private: the node state and the
 *	  functions shared between the node (hashjoin_exec.c), its build phase
 *	  (hashjoin_build.c) and its probe phase (hashjoin_probe.c).  The
 *	  planning code does not include it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef FPB_HASHJOIN_INT_H
#define FPB_HASHJOIN_INT_H

#include "common/hashfn.h"

#include "hashjoin.h"
#include "mintuple.h"

#define FPB_MAX_BATCHES		(1 << 20)

typedef enum FpbHjPhase
{
	FPB_HJ_BUILD,				/* load the inner child, build batch 0 */
	FPB_HJ_PROBE,				/* probe the current batch */
	FPB_HJ_FILL_INNER,			/* emit unmatched build tuples */
	FPB_HJ_NEXT_BATCH,			/* move to the next batch pair */
	FPB_HJ_DONE
} FpbHjPhase;

/* one copied outer tuple in flight */
typedef struct FpbProbeEntry
{
	MinimalTuple tuple;			/* the copy, in buf */
	char	   *buf;			/* reusable copy buffer */
	Size		bufsize;
	uint32		hashvalue;
	uint8		stage;			/* last stage done: 0, 1 or 2 */
	bool		nullkey;		/* a key is NULL: matches nothing */
	bool		matched;		/* matched, or its null-extended row done */
	bool		stored;			/* in probe_slot now */
	Datum		key;			/* by-value single key */
	FpbBucket  *bucket;
	const uint32 *start;		/* a shared table's bucket (FpbHashTable) */
	char	   *rec;			/* its next candidate tuple */
	char	   *recend;			/* the end of its bucket's tuples */
	FpbHashCell *cells;
	uint32		ncells;
	uint32		pos;			/* next candidate cell */
} FpbProbeEntry;

/*
 * Hash functions and equality operators of the common integer types are
 * computed inline (same results as the catalog functions, which the
 * fallback calls through fmgr): at 10M rows per side the fmgr call per
 * hash and per key comparison is a visible share of the join.
 */
typedef enum FpbHashKind
{
	FPB_HASH_FMGR,
	FPB_HASH_INT2,				/* hashint2 */
	FPB_HASH_INT4,				/* hashint4 */
	FPB_HASH_INT8,				/* hashint8 */
	FPB_HASH_OID				/* hashoid */
} FpbHashKind;

typedef enum FpbEqKind
{
	FPB_EQ_FMGR,
	FPB_EQ_INT2,				/* int2eq */
	FPB_EQ_INT4,				/* int4eq, date_eq, oideq */
	FPB_EQ_INT8,				/* int8eq */
	FPB_EQ_INT48,				/* int48eq: int4 left, int8 right */
	FPB_EQ_INT84				/* int84eq */
} FpbEqKind;

/* EXPLAIN ANALYZE figures of one participant (hashjoin_parallel.c) */
typedef struct FpbHjInstr
{
	bool		ran;			/* built a table */
	bool		spilled;
	int			nbatch;
	int64		loaded;			/* shared table: inner rows it loaded */
	int64		claimed;		/* shared batches it joined */
	int			max_radix_parts;
	uint32		max_buckets;
	int64		nbuilds;
	int64		nchunks;
	Size		peak_space;
} FpbHjInstr;

/* reads one shared batch's files of one side (hashjoin_batches.c) */
typedef struct FpbShReader
{
	char		side;			/* 'i' or 'o' */
	int			batch;
	int			next;			/* next participant's chain */
	int			cur;			/* participant of the chain being read */
	int64		pos;			/* its next chunk, or -1 */
	BufFile   **files;			/* per participant, opened when first read */
	int			nfiles;
	char	   *chunk;			/* the chunk being read */
	Size		chunksize;
	uint32		len;			/* its bytes */
	uint32		off;			/* next record */
} FpbShReader;

typedef struct FpbHjSharedInstr FpbHjSharedInstr;
typedef struct FpbHjShared FpbHjShared;
typedef struct FpbHjInstrCopy FpbHjInstrCopy;

typedef struct FpbHjState
{
	CustomScanState css;

	JoinType	jointype;
	int			nkeys;
	int			nouter;
	bool		single_match;	/* stop after the first match */
	bool		inner_unique;	/* the planner proved it (EXPLAIN) */
	bool		fill_outer;		/* left, anti, full */
	bool		fill_inner;		/* right, full */

	ExprState **outer_keys;
	ExprState **inner_keys;
	FmgrInfo   *outer_hashfn;
	FmgrInfo   *inner_hashfn;
	uint8	   *outer_hashkind;	/* FpbHashKind per key */
	uint8	   *inner_hashkind;
	AttrNumber *outer_keyatt;	/* key is this plain column, or 0 */
	AttrNumber *inner_keyatt;
	Oid		   *collations;
	bool	   *strict;
	ExprState  *hashquals;		/* the key equalities, both sides */
	ExprState  *joinqual;
	ExprState  *otherqual;
	ProjectionInfo *proj;
	bool		byval_fast;		/* single strict by-value key in cells */
	FmgrInfo	eqfn;
	int			eqkind;			/* FpbEqKind of the by-value key */
	Oid			eqcoll;
	bool		eq_outer_left;

	PlanState  *outer_ps;
	PlanState  *inner_ps;
	Bitmapset  *inner_key_params;	/* PARAM_EXECs the inner keys read */
	TupleTableSlot *probe_slot;
	TupleTableSlot *outer_file_slot;
	TupleTableSlot *build_slot;
	TupleTableSlot *inner_file_slot;
	TupleTableSlot *null_outer;
	TupleTableSlot *null_inner;

	MemoryContext keycxt;		/* key evaluation, reset per tuple */
	MemoryContext filecxt;		/* BufFiles and read buffers */
	MemoryContext probecxt;		/* entry copies */

	int			scheme;
	int			partition_scheme;	/* scheme of the partition phase */
	int			group_size;
	int			distance;
	bool		prefetch;

	FpbHashTable ht;
	Size		space_allowed;
	int			plan_nbatch;
	int			nbatch;
	int			curbatch;
	FpbSpillSet inner_spill;	/* build side's batch files */
	FpbSpillSet outer_spill;	/* probe side's batch files */
	BufFile    *outer_read;		/* the current batch's outer file */
	bool		grow_enabled;
	uint32		nokey_seq;		/* spreads NULL-key build tuples over batches */
	char	   *readbuf;
	Size		readbufsize;
	char	   *formbuf;		/* rows of virtual slots formed here */
	Size		formbufsize;

	FpbHjPhase	phase;
	TupleTableSlot *first_outer;	/* fetched before the build, not used yet */
	bool		outer_not_empty;	/* the last scan found an outer tuple */
	int64		inner_total;	/* build rows kept in this build, all batches */
	bool		outer_done;
	FpbProbeEntry *ring;
	int			ringsize;		/* group size, or a power of two */
	uint64		head;			/* next entry to fill */
	uint64		emit;			/* next entry to emit */
	int			ramp;			/* size of the next group (ramps up to G) */
	FpbArenaIter fill_iter;

	/* radix-clustered probing (hashjoin_radix.c) */
	FpbRadix	radix;
	bool		radix_on;		/* the current batch is probed by chunks */
	bool		source_done;	/* radix: the outer side is used up */
	int64		radix_ramp;		/* rows of the next chunk */
	Size		radix_pool;		/* chunk memory for the current batch */
	int			max_radix_parts;	/* EXPLAIN */

	/* EXPLAIN ANALYZE */
	int64		nbuilds;		/* tables built, over batches and rescans */
	Size		peak_space;
	uint32		max_buckets;
	bool		spilled;
	FpbHjSharedInstr *shared_instr; /* a worker's slots in the DSM chunk */
	FpbHjInstrCopy *instr_copy;	/* the leader's copy of the workers' */

	/* parallel-aware: one table for all participants (hashjoin_shared.c) */
	bool		shared_table;
	FpbHjShared *shared;		/* in the DSM chunk; NULL: run serially */
	struct dsa_area *area;		/* the query's DSA area */
	int			participant;	/* slot in shared's counts */
	bool		attached;		/* to shared's barrier */
	int64		sh_loaded;		/* inner rows this participant loaded */

	/* shared batches (hashjoin_batches.c) */
	int			sh_nbatch;		/* 0: one table in memory */
	int			sh_shift;		/* batch = murmurhash32(hash) >> this */
	int			sh_batch;		/* the claimed batch, or -1 */
	bool		sh_claims_done; /* no batch left to claim */
	bool		sh_sets;		/* sh_inner and sh_outer are set up */
	int64		sh_claimed;		/* batches claimed (EXPLAIN) */
	int			sh_max_nbatch;	/* shared batches, over rescans (EXPLAIN) */
	FpbSpillSet sh_inner;		/* this participant's batch files */
	FpbSpillSet sh_outer;
	FpbShReader sh_read_inner;	/* the claimed batch's files */
	FpbShReader sh_read_outer;
} FpbHjState;

/* ---- hashjoin_build.c: hashing and loading the build side ---- */

/*
 * Evaluate the keys of the outer (outer = true) or inner side on slot and
 * combine their hashes into *hashvalue; *key0 gets the first key's value.
 * False if a strict key is NULL (the hash is then meaningless).  Key
 * evaluation memory is st->keycxt, reset on every call.
 */
extern bool fpb_hj_hash_slot(FpbHjState *st, TupleTableSlot *slot,
							 bool outer, uint32 *hashvalue, Datum *key0);

/*
 * A virtual slot's row formed as a MinimalTuple in st->formbuf: valid until
 * the next call, *len set to its length.
 */
extern const char *fpb_hj_form_minimal(FpbHjState *st, TupleTableSlot *slot,
									   uint32 *len);

/*
 * Load batch st->curbatch's build side (the inner child for batch 0, the
 * batch's inner file otherwise) and build its table, radix-clustered if
 * worthwhile; the table must be empty.  May raise st->nbatch.
 */
extern void fpb_hj_build(FpbHjState *st);

/*
 * Probe the shared table by radix partitions if worthwhile (the slices are
 * partitions already): sets st->radix_on and the chunk pool.
 */
extern void fpb_hj_radix_shared(FpbHjState *st, Size table, Size room,
								int max_bits, int log2nb);

/* ---- hashjoin_probe.c: the staged probe ---- */

/* Empty the entry ring and the radix chunk: the next probe starts afresh. */
extern void fpb_hj_reset_ring(FpbHjState *st);

/*
 * Start probing the built table of the current batch: sets st->phase to
 * FPB_HJ_PROBE, or to FPB_HJ_DONE when no row can come out.
 */
extern void fpb_hj_start_probe(FpbHjState *st);

/*
 * The next result row of the current batch's probe, by group prefetching
 * or software pipelining (st->scheme); NULL when the batch's outer side is
 * used up.  Outer tuples of later batches are written to their files.
 */
extern TupleTableSlot *fpb_hj_probe_group(FpbHjState *st);
extern TupleTableSlot *fpb_hj_probe_pipelined(FpbHjState *st);

/*
 * Right/full joins: the next null-extended row of a build tuple no probe
 * matched, walking st->fill_iter; NULL at the end.
 */
extern TupleTableSlot *fpb_hj_fill_inner_next(FpbHjState *st);

/* ---- hashjoin_parallel.c: below a Gather ---- */
extern Size fpb_hj_estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
extern void fpb_hj_initialize_dsm(CustomScanState *node, ParallelContext *pcxt,
								  void *coordinate);
extern void fpb_hj_reinitialize_dsm(CustomScanState *node,
									ParallelContext *pcxt, void *coordinate);
extern void fpb_hj_initialize_worker(CustomScanState *node, shm_toc *toc,
									 void *coordinate);
extern void fpb_hj_shutdown(CustomScanState *node);
extern void fpb_hj_instr_add(FpbHjInstr *w, FpbHjState *st);
extern int	fpb_hj_instr_collect(FpbHjState *st, FpbHjInstr *all,
								 FpbHjInstr **workers);
extern void fpb_hj_explain_workers(FpbHjInstr *workers, int n, bool shared,
								   struct ExplainState *es);

/* ---- hashjoin_shared.c: the parallel-aware shared table ---- */
extern Size fpb_hj_shared_size(int nparticipants, int plan_nbatch);
extern void fpb_hj_shared_init(FpbHjShared *sh, int nparticipants,
							   int plan_nbatch);
extern void fpb_hj_shared_reinit(FpbHjShared *sh, struct dsa_area *area);
extern void fpb_hj_shared_build(FpbHjState *st);
extern void fpb_hj_shared_detach(FpbHjState *st);

/* ---- hashjoin_batches.c: shared batches ---- */
extern void fpb_hj_batches_switch(FpbHjState *st);
extern void fpb_hj_batches_add_inner(FpbHjState *st, uint32 hashvalue,
									 const char *data, uint32 len);
extern void fpb_hj_batches_partition(FpbHjState *st, int phase);
extern bool fpb_hj_batches_claim(FpbHjState *st);
extern TupleTableSlot *fpb_hj_batches_next(FpbHjState *st, bool outer);
extern void fpb_hj_batches_release(FpbHjState *st);

/* ---- inline helpers of both phases ---- */

/* Batch of a hash code: bits independent of the bucket bits. */
static inline int
fpb_hj_batchno(FpbHjState *st, uint32 hashvalue)
{
	if (st->nbatch == 1)
		return 0;
	return (int) (murmurhash32(hashvalue) & (uint32) (st->nbatch - 1));
}

/*
 * The bytes of slot's tuple in MinimalTuple layout, without forming a copy
 * when the slot holds a heap tuple (a scan's buffer tuple): a MinimalTuple
 * is the heap tuple from MINIMAL_TUPLE_OFFSET on, except for its first word
 * (t_len), which the callers never read from these bytes; they copy the
 * rest and write the length themselves.  Other slots fall back to
 * ExecFetchSlotMinimalTuple; *tofree is then set when it made a copy.
 */
static inline const char *
fpb_hj_slot_bytes(FpbHjState *st, TupleTableSlot *slot, uint32 *len,
				  MinimalTuple *tofree)
{
	MinimalTuple mt;
	bool		shouldFree;

	*tofree = NULL;
	if (TTS_IS_BUFFERTUPLE(slot) || TTS_IS_HEAPTUPLE(slot))
	{
		HeapTuple	tuple = ((HeapTupleTableSlot *) slot)->tuple;

		if (tuple != NULL)
		{
			*len = tuple->t_len - MINIMAL_TUPLE_OFFSET;
			return (char *) tuple->t_data + MINIMAL_TUPLE_OFFSET;
		}
	}
	else if (TTS_IS_VIRTUAL(slot))
		return fpb_hj_form_minimal(st, slot, len);
	else if (TTS_IS_MINIMALTUPLE(slot) &&
			 ((MinimalTupleTableSlot *) slot)->mintuple != NULL)
	{
		mt = ((MinimalTupleTableSlot *) slot)->mintuple;
		*len = mt->t_len;
		return (const char *) mt;
	}
	mt = ExecFetchSlotMinimalTuple(slot, &shouldFree);
	if (shouldFree)
		*tofree = mt;
	*len = mt->t_len;
	return (const char *) mt;
}

#endif							/* FPB_HASHJOIN_INT_H */
