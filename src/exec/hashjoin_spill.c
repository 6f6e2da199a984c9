/*-------------------------------------------------------------------------
 *
 * hashjoin_spill.c
 *	  Batch files of PrefetchHashJoin.  When the inner side does not fit in
 *	  work_mem * hash_mem_multiplier both sides are partitioned Grace-style
 *	  into temporary files, one pair per batch; a record is the 32-bit hash
 *	  code followed by the MinimalTuple.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "hashjoin.h"

/*
 * Append a tuple to a batch file, creating the file on first use.  The
 * BufFile must outlive the per-batch memory, hence filecxt.
 */
void
fpb_spill_write(BufFile **file, uint32 hashvalue, MinimalTuple tup,
				MemoryContext filecxt)
{
	if (*file == NULL)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(filecxt);

		*file = BufFileCreateTemp(false);
		MemoryContextSwitchTo(oldcxt);
	}
	BufFileWrite(*file, &hashvalue, sizeof(uint32));
	BufFileWrite(*file, tup, tup->t_len);
}

void
fpb_spill_rewind(BufFile *file)
{
	if (BufFileSeek(file, 0, 0L, SEEK_SET) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not rewind PrefetchHashJoin temporary file")));
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
