/*-------------------------------------------------------------------------
 *
 * hashjoin_spill.c
 *	  Batch files of PrefetchHashJoin and the partition phase.  When the
 *	  inner side does not fit in work_mem * hash_mem_multiplier both sides
 *	  are partitioned Grace-style into temporary files, one pair per batch;
 *	  a record is the 32-bit hash code followed by the MinimalTuple.
 *
 *	  Partitioning with prefetching (thesis section 4.6).  Each batch file
 *	  has an output buffer of our own (BufFile keeps its buffer private, so
 *	  we cannot prefetch into it); records are copied into it and it goes to
 *	  the BufFile in one write when full.  The random accesses of the
 *	  partition phase are then the batch's header (FpbSpillFile: buffer
 *	  address and fill) and the buffer's write position.  With group
 *	  prefetching a tuple to spill is staged (copied to a small per-entry
 *	  area that stays in the L1 cache, since the child's slot is only valid
 *	  until its next call) and:
 *
 *		stage 0: prefetch the batch header;
 *		stage 1: (G tuples later) read the header, reserve the record's
 *				 place in the buffer, prefetch it for writing;
 *		stage 2: (after stage 1 of the whole group) copy the record.
 *
 *	  Software pipelining runs stage 1 for entry j - D and stage 2 for entry
 *	  j - 2D when entry j is added.  Conflicts: two entries of a group may
 *	  reserve space in the same buffer, which is fine as long as the buffer
 *	  is not written out while an entry's copy is pending; so before a
 *	  buffer is flushed all pending copies are done ("drain").  Without
 *	  prefetching (scheme none, and by default: the staging applies only
 *	  with fpbtree.hashjoin_partition_prefetch, see README.md for the
 *	  measurements) records are copied into the buffers at once.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "port/pg_bitutils.h"
#include "utils/memutils.h"

#include "hashjoin.h"
#include "mintuple.h"

/* record header: hash code, then the MinimalTuple (which starts with t_len) */
#define FPB_SPILL_RECHDR	sizeof(uint32)

#define FPB_SPILL_BUFSIZE	(4 * 1024)	/* output buffer per batch file */
#define FPB_SPILL_STAGE		1024	/* staging bytes per entry in flight */

static void fpb_spill_stage1(FpbSpillSet *set, FpbSpillEntry *e);
static void fpb_spill_stage2(FpbSpillSet *set, FpbSpillEntry *e);

void
fpb_spill_init(FpbSpillSet *set, MemoryContext cxt, int nfiles, int scheme,
			   int group_size, int distance)
{
	memset(set, 0, sizeof(FpbSpillSet));
	set->cxt = cxt;
	set->bufsize = FPB_SPILL_BUFSIZE;
	set->nfiles = nfiles;
	set->files = MemoryContextAllocZero(cxt, sizeof(FpbSpillFile) * nfiles);
	set->scheme = scheme;
	/* ring sizes are powers of two, so that positions are masked */
	if (scheme == FPB_HJ_PREFETCH_GROUP)
	{
		set->group_size = Max(1, group_size);
		set->ringsize = (int) pg_nextpower2_32(set->group_size);
	}
	else if (scheme == FPB_HJ_PREFETCH_PIPELINED)
	{
		set->distance = Max(1, distance);
		set->ringsize = (int) pg_nextpower2_32(2 * set->distance + 1);
	}
	if (set->ringsize > 0)
	{
		set->ring = MemoryContextAllocZero(cxt,
										   sizeof(FpbSpillEntry) * set->ringsize);
		set->stage = MemoryContextAlloc(cxt,
										(Size) FPB_SPILL_STAGE * set->ringsize);
	}
}

/* More batches: the new files start empty.  Nothing may be in flight. */
void
fpb_spill_grow(FpbSpillSet *set, int nfiles)
{
	Assert(set->head == set->done);
	/* a join whose batches were dropped (empty build side) may regrow */
	if (nfiles <= set->nfiles)
		return;
	set->files = repalloc(set->files, sizeof(FpbSpillFile) * nfiles);
	MemSet(set->files + set->nfiles, 0,
		   sizeof(FpbSpillFile) * (nfiles - set->nfiles));
	set->nfiles = nfiles;
}

/*
 * The writer of shared batch files (hashjoin_batches.c): every participant
 * writes one file per side of the fileset, named so that whoever claims a
 * batch can open it, whose chunks of each batch are chained backwards from
 * heads[batch] (this participant's row in shared memory).  One file rather
 * than one per batch: creating and deleting hundreds of files per
 * participant cost more than the join itself with small budgets.
 */
void
fpb_spill_set_shared(FpbSpillSet *set, struct FileSet *fileset, char side,
					 int participant, int64 *heads)
{
	set->fileset = fileset;
	set->side = side;
	set->participant = participant;
	set->heads = heads;

	/*
	 * A chunk and its header fill one BufFile buffer: the claimer seeks to
	 * each chunk, and BufFile reads a whole buffer from there, so smaller
	 * chunks were read twice over (the next chunks, of other batches, with
	 * each).  Before any buffer is made.
	 */
	Assert(set->files == NULL || set->files[0].buf == NULL);
	set->bufsize = BLCKSZ - sizeof(FpbSpillChunk);
}

void
fpb_spill_shared_name(char *name, char side, int participant)
{
	snprintf(name, MAXPGPATH, "fpbhj.%c%d", side, participant);
}

/*
 * Start a chunk of len bytes of batch batchno in the shared file; the
 * caller writes them.
 */
static void
fpb_spill_chunk(FpbSpillSet *set, int batchno, uint32 len)
{
	FpbSpillChunk hdr;
	int			fileno;
	off_t		off;

	if (set->sharedfile == NULL)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(set->cxt);
		char		name[MAXPGPATH];

		fpb_spill_shared_name(name, set->side, set->participant);
		set->sharedfile = BufFileCreateFileSet(set->fileset, name);
		MemoryContextSwitchTo(oldcxt);
	}
	BufFileTell(set->sharedfile, &fileno, &off);
	hdr.prev = set->heads[batchno];
	hdr.len = len;
	hdr.pad = 0;
	BufFileWrite(set->sharedfile, &hdr, sizeof(hdr));
	set->heads[batchno] = ((int64) fileno << 32) | (int64) off;
}

/* f's temporary file, created (in the set's context) on first use */
static BufFile *
fpb_spill_file(FpbSpillSet *set, FpbSpillFile *f)
{
	if (f->file == NULL)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(set->cxt);

		f->file = BufFileCreateTemp(false);
		MemoryContextSwitchTo(oldcxt);
	}
	return f->file;
}

/* Write out a batch's buffer; nothing may still be copied into it. */
static void
fpb_spill_flush_buf(FpbSpillSet *set, FpbSpillFile *f)
{
	if (f->used == 0)
		return;
	if (set->heads != NULL)
	{
		fpb_spill_chunk(set, (int) (f - set->files), f->used);
		BufFileWrite(set->sharedfile, f->buf, f->used);
	}
	else
		BufFileWrite(fpb_spill_file(set, f), f->buf, f->used);
	f->used = 0;
}

/*
 * Make room for len bytes in f's buffer and return where they go.  Records
 * longer than the buffer bypass it (returns NULL after writing nothing: the
 * caller writes them straight to the file).
 */
static inline char *
fpb_spill_reserve(FpbSpillSet *set, FpbSpillFile *f, uint32 len)
{
	char	   *dst;

	if (unlikely(f->buf == NULL))
		f->buf = MemoryContextAlloc(set->cxt, set->bufsize);
	if (unlikely(f->used + len > set->bufsize))
	{
		/* copies still pending may target this buffer: finish them first */
		fpb_spill_drain(set);
		fpb_spill_flush_buf(set, f);
		if (len > set->bufsize)
			return NULL;
	}
	dst = f->buf + f->used;
	f->used += len;
	return dst;
}

/* Write one record (tuple bytes after the length word at data + 4). */
static void
fpb_spill_copy(FpbSpillSet *set, FpbSpillFile *f, char *dst, uint32 hashvalue,
			   const char *data, uint32 len)
{
	if (dst == NULL)
	{
		/* longer than a buffer: f's buffer was flushed by the reserve */
		BufFile    *file;

		if (set->heads != NULL)
		{
			/* a chunk of its own */
			fpb_spill_chunk(set, (int) (f - set->files),
							FPB_SPILL_RECHDR + len);
			file = set->sharedfile;
		}
		else
			file = fpb_spill_file(set, f);
		BufFileWrite(file, &hashvalue, sizeof(uint32));
		BufFileWrite(file, &len, sizeof(uint32));
		BufFileWrite(file, (char *) data + sizeof(uint32),
					 len - sizeof(uint32));
		return;
	}
	memcpy(dst, &hashvalue, sizeof(uint32));
	fpb_mintuple_copy(dst + FPB_SPILL_RECHDR, data, len);
}

/* stage 1: read the batch header, reserve the record, prefetch its place */
static void
fpb_spill_stage1(FpbSpillSet *set, FpbSpillEntry *e)
{
	FpbSpillFile *f;
	uint32		reclen;

	if (e->stage != 0)
		return;
	f = &set->files[e->batchno];
	reclen = FPB_SPILL_RECHDR + e->len;

	/*
	 * Still stage 0 during the reserve: a drain it triggers must not copy
	 * this entry before it has a place.  Staged records are shorter than a
	 * buffer, so they always get one.
	 */
	e->dst = fpb_spill_reserve(set, f, reclen);
	Assert(e->dst != NULL);
	e->stage = 1;
	{
		char	   *p = (char *) TYPEALIGN_DOWN(64, e->dst);
		char	   *end = Min(e->dst + reclen, p + 256);

		/* the record's lines, at most four */
		for (; p < end; p += 64)
			FPB_PREFETCH_W(p);
	}
}

/* stage 2: copy the record */
static void
fpb_spill_stage2(FpbSpillSet *set, FpbSpillEntry *e)
{
	if (e->stage != 1)
		return;
	fpb_spill_copy(set, &set->files[e->batchno], e->dst, e->hashvalue,
				   e->data, e->len);
	e->stage = 2;
}

/*
 * Finish the copies of every entry that has reserved its place (those are
 * the only ones a flush could lose).
 */
void
fpb_spill_drain(FpbSpillSet *set)
{
	uint64		j;

	for (j = set->done; j < set->head; j++)
	{
		FpbSpillEntry *e = &set->ring[j & (set->ringsize - 1)];

		if (e->stage == 1)
			fpb_spill_stage2(set, e);
	}
}

/* Complete everything in flight (before files are read or the set grows). */
void
fpb_spill_finish(FpbSpillSet *set)
{
	uint64		j;

	for (j = set->done; j < set->head; j++)
		fpb_spill_stage1(set, &set->ring[j & (set->ringsize - 1)]);
	for (j = set->done; j < set->head; j++)
		fpb_spill_stage2(set, &set->ring[j & (set->ringsize - 1)]);
	set->done = set->head = 0;
}

/*
 * Append a tuple to batch batchno's file.  data points to a MinimalTuple's
 * bytes, len long; its first word (t_len) is not read, so the bytes of a
 * heap tuple from MINIMAL_TUPLE_OFFSET on can be passed without forming a
 * MinimalTuple first.  data need only be valid during the call.
 */
void
fpb_spill_add(FpbSpillSet *set, int batchno, uint32 hashvalue,
			  const char *data, uint32 len)
{
	FpbSpillEntry *e;
	uint64		j;

	Assert(batchno >= 0 && batchno < set->nfiles);
	set->nspilled++;

	if (set->ringsize == 0 || len > FPB_SPILL_STAGE)
	{
		/* no prefetching, or too long to stage: copy at once */
		FpbSpillFile *f = &set->files[batchno];

		fpb_spill_copy(set, f,
					   fpb_spill_reserve(set, f, FPB_SPILL_RECHDR + len),
					   hashvalue, data, len);
		return;
	}

	if (set->scheme == FPB_HJ_PREFETCH_GROUP &&
		set->head - set->done == (uint64) set->group_size)
	{
		/* a full group: stage 1 for all of it, then stage 2 */
		fpb_spill_finish(set);
	}

	/* stage 0: stage the tuple, prefetch the batch header */
	j = set->head;
	e = &set->ring[j & (set->ringsize - 1)];
	e->data = set->stage + (Size) (j & (set->ringsize - 1)) * FPB_SPILL_STAGE;
	memcpy(e->data, data, len);
	e->len = len;
	e->hashvalue = hashvalue;
	e->batchno = batchno;
	e->stage = 0;
	e->dst = NULL;
	FPB_PREFETCH_R(&set->files[batchno]);
	set->head++;

	if (set->scheme == FPB_HJ_PREFETCH_PIPELINED)
	{
		uint64		d = (uint64) set->distance;

		/* stage 2 for entry j - 2D, stage 1 for entry j - D */
		if (j >= 2 * d)
		{
			fpb_spill_stage2(set, &set->ring[(j - 2 * d) & (set->ringsize - 1)]);
			set->done = j - 2 * d + 1;
		}
		if (j >= d)
			fpb_spill_stage1(set, &set->ring[(j - d) & (set->ringsize - 1)]);
	}
}

/* Does batch batchno's file hold anything?  (After fpb_spill_finish.) */
bool
fpb_spill_nonempty(FpbSpillSet *set, int batchno)
{
	FpbSpillFile *f = &set->files[batchno];

	return f->file != NULL || f->used > 0;
}

/*
 * Get batch batchno's file ready for reading from its start: write out its
 * buffer, rewind.  NULL if nothing was written to it.
 */
BufFile *
fpb_spill_open_read(FpbSpillSet *set, int batchno)
{
	FpbSpillFile *f = &set->files[batchno];

	fpb_spill_finish(set);
	fpb_spill_flush_buf(set, f);
	if (f->file == NULL)
		return NULL;
	if (BufFileSeek(f->file, 0, 0L, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not rewind PrefetchHashJoin temporary file")));
	return f->file;
}

/* Close batch batchno's file and free its buffer. */
void
fpb_spill_close(FpbSpillSet *set, int batchno)
{
	FpbSpillFile *f = &set->files[batchno];

	if (f->file != NULL)
		BufFileClose(f->file);
	if (f->buf != NULL)
		pfree(f->buf);
	f->file = NULL;
	f->buf = NULL;
	f->used = 0;
}

/*
 * Shared batch files: write out everything and close the file, so that
 * other participants can open it by name and follow the published chains.
 */
void
fpb_spill_export(FpbSpillSet *set)
{
	int			i;

	fpb_spill_finish(set);
	for (i = 0; i < set->nfiles; i++)
	{
		fpb_spill_flush_buf(set, &set->files[i]);
		fpb_spill_close(set, i);
	}
	if (set->sharedfile != NULL)
		BufFileClose(set->sharedfile);
	set->sharedfile = NULL;
}

/* Drop whatever is in flight (rescan, end); files are closed separately. */
void
fpb_spill_discard(FpbSpillSet *set)
{
	set->head = set->done = 0;
}

/*
 * Read the next record into *buf (grown as needed, in bufcxt).  Returns
 * NULL at the end of the file.
 */
MinimalTuple
fpb_spill_read(BufFile *file, uint32 *hashvalue, char **buf, Size *bufsize,
			   MemoryContext bufcxt)
{
	uint32		header[2];
	size_t		nread;
	MinimalTuple tup;

	nread = BufFileRead(file, header, sizeof(header));
	if (nread == 0)
		return NULL;
	if (nread != sizeof(header))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read from PrefetchHashJoin temporary file: read only %zu of %zu bytes",
						nread, sizeof(header))));
	*hashvalue = header[0];
	if (*bufsize < header[1])
	{
		Size		newsize = Max(header[1], 2 * *bufsize);

		if (*buf)
			pfree(*buf);
		*buf = MemoryContextAlloc(bufcxt, newsize);
		*bufsize = newsize;
	}
	tup = (MinimalTuple) *buf;
	tup->t_len = header[1];
	nread = BufFileRead(file, (char *) tup + sizeof(uint32),
						header[1] - sizeof(uint32));
	if (nread != header[1] - sizeof(uint32))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read from PrefetchHashJoin temporary file: read only %zu of %zu bytes",
						nread, (size_t) (header[1] - sizeof(uint32)))));
	return tup;
}
