/*-------------------------------------------------------------------------
 *
 * mintuple.h
 *	  Forming a slot's row as a MinimalTuple in memory the caller provides.
 *
 * PrefetchHashJoin and the Buffer operator copy every row a projecting
 * child hands them.  ExecFetchSlotMinimalTuple would palloc each copy; these
 * two steps let the caller size the tuple, place it (a reusable buffer, an
 * arena) and fill it.  Inline: both callers are per-row paths.
 *
 *-------------------------------------------------------------------------
 */
#ifndef FPB_MINTUPLE_H
#define FPB_MINTUPLE_H

#include "access/htup_details.h"
#include "executor/tuptable.h"

typedef struct FpbMinLayout
{
	Size		hoff;			/* header, null bitmap, alignment */
	Size		datalen;		/* the data area */
	Size		total;			/* hoff + datalen: t_len */
	bool		hasnull;
} FpbMinLayout;

/* Deform slot completely and work out its MinimalTuple's layout. */
static inline void
fpb_mintuple_layout(TupleTableSlot *slot, FpbMinLayout *lay)
{
	TupleDesc	desc = slot->tts_tupleDescriptor;
	int			natts = desc->natts;

	slot_getallattrs(slot);
	lay->hasnull = false;
	for (int i = 0; i < natts; i++)
	{
		if (slot->tts_isnull[i])
		{
			lay->hasnull = true;
			break;
		}
	}
	lay->hoff = SizeofMinimalTupleHeader;
	if (lay->hasnull)
		lay->hoff += BITMAPLEN(natts);
	lay->hoff = MAXALIGN(lay->hoff);
	lay->datalen = heap_compute_data_size(desc, slot->tts_values,
										  slot->tts_isnull);
	lay->total = lay->hoff + lay->datalen;
}

/* Write the tuple laid out by fpb_mintuple_layout at mt (lay->total bytes). */
static inline void
fpb_mintuple_fill(TupleTableSlot *slot, const FpbMinLayout *lay,
				  MinimalTuple mt)
{
	TupleDesc	desc = slot->tts_tupleDescriptor;

	/* zeroed: the header and the data's alignment padding */
	memset(mt, 0, lay->total);
	mt->t_len = lay->total;
	HeapTupleHeaderSetNatts(mt, desc->natts);
	mt->t_hoff = lay->hoff + MINIMAL_TUPLE_OFFSET;
	heap_fill_tuple(desc, slot->tts_values, slot->tts_isnull,
					(char *) mt + lay->hoff, lay->datalen, &mt->t_infomask,
					lay->hasnull ? mt->t_bits : NULL);
}

/*
 * Copy a MinimalTuple of len bytes from data, whose first word (t_len) need
 * not be valid -- the bytes of a heap tuple from MINIMAL_TUPLE_OFFSET on --
 * and write len as the copy's t_len.  dst need not be aligned.
 */
static inline void
fpb_mintuple_copy(char *dst, const char *data, uint32 len)
{
	memcpy(dst, &len, sizeof(uint32));
	memcpy(dst + sizeof(uint32), data + sizeof(uint32), len - sizeof(uint32));
}

#endif							/* FPB_MINTUPLE_H */
