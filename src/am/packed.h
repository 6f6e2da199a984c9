/*-------------------------------------------------------------------------
 *
 * packed.h
 *	  Packed multi-column rows (packed.c): telling them from index tuples,
 *	  and unpacking one for an index-only scan, inline.
 *
 * Included by fpbtree.h, after FpbCmp.
 *
 *-------------------------------------------------------------------------
 */
#ifndef FPB_PACKED_H
#define FPB_PACKED_H

#define FPB_PACKED_MAX		255		/* a packed row's length is one byte */

/* Is the stored row (or bound) f packed?  An index tuple's first byte is 0. */
static inline bool
fpb_is_packed(const char *f)
{
	return *(const uint8 *) f != 0;
}

/* Bytes of a stored row or bound of a multi-column index, either form. */
static inline Size
fpb_tuple_size(const char *f)
{
	return fpb_is_packed(f) ? (Size) *(const uint8 *) f :
		IndexTupleSize((const IndexTupleData *) f);
}

/*
 * A packed row of a page of FPB_FULLLEN_TUPSFX whose first column, a uuid,
 * is not NULL leaves out that value's first FPB_SFX_SKIP bytes, which are
 * its prefix (README "Packed rows", Prefix bytes left out), and says so by
 * the top bit of its NULL bitmap: such an index has at most 7 columns, so
 * the bit names none.  Readers point the value FPB_SFX_SKIP bytes before
 * its remaining bytes; those it has no bytes for are not its own, and only
 * comparisons under equal prefixes, which skip them, read it in place.
 * Copies that may be read whole get them back from the key
 * (fpb_packed_unskip).
 */
#define FPB_PACKED_SKIPBIT	0x80

/* Does the stored row f (of an index of natts columns) leave them out? */
static inline bool
fpb_packed_skipped(const char *f, int natts)
{
	return natts < 8 && fpb_is_packed(f) &&
		(((const uint8 *) f)[1] & FPB_PACKED_SKIPBIT) != 0;
}

/*
 * Would the whole packed row f leave them out on a page of
 * FPB_FULLLEN_TUPSFX?  Its first column is not NULL (bit 0 of its bitmap).
 */
static inline bool
fpb_packed_skippable(const char *f)
{
	return fpb_is_packed(f) &&
		(((const uint8 *) f)[1] & (FPB_PACKED_SKIPBIT | 1)) == 0;
}

/*
 * Write the whole form of the row f that left its first bytes out, whose
 * stored key is k, to dst (room for fpb_tuple_size(f) + FPB_SFX_SKIP
 * bytes); return its size.
 */
static inline Size
fpb_packed_unskip(const char *f, uint64 k, char *dst)
{
	Size		len = *(const uint8 *) f;
	uint64		be = pg_hton64(k);

	dst[0] = (char) (uint8) (len + FPB_SFX_SKIP);
	dst[1] = (char) (((const uint8 *) f)[1] & ~FPB_PACKED_SKIPBIT);
	memcpy(dst + 2, &be, FPB_SFX_SKIP);
	memcpy(dst + 2 + FPB_SFX_SKIP, f + 2, len - 2);
	return len + FPB_SFX_SKIP;
}

/*
 * Write the whole packed row f to dst without the first FPB_SFX_SKIP bytes
 * of its first value: the form fpb_slot_put stores.  dst may be f itself.
 */
static inline void
fpb_packed_skip(char *dst, const char *f)
{
	Size		len = *(const uint8 *) f;
	char		bitmap = (char) (f[1] | FPB_PACKED_SKIPBIT);

	Assert(fpb_packed_skippable(f));
	memmove(dst + 2, f + 2 + FPB_SFX_SKIP, len - 2 - FPB_SFX_SKIP);
	dst[0] = (char) (uint8) (len - FPB_SFX_SKIP);
	dst[1] = bitmap;
}

/*
 * The stored row f of key k whole: itself, or its copy in buf (room for
 * FPB_PACKED_MAX + FPB_SFX_SKIP bytes) with the bytes it left out.
 */
static inline const char *
fpb_packed_whole(const FpbCmp *cmp, const char *f, uint64 k, char *buf)
{
	if (!cmp->rowskip || !fpb_packed_skipped(f, cmp->tupdesc->natts))
		return f;
	(void) fpb_packed_unskip(f, k, buf);
	return buf;
}

extern bool fpb_packed_eligible(TupleDesc desc);
extern bool fpb_packed_var_eligible(TupleDesc desc);
extern Size fpb_packed_row_size(TupleDesc desc, const Datum *v,
								const bool *isnull);
extern Size fpb_packed_space(TupleDesc desc);
extern void fpb_packed_init(FpbCmp *cmp, char *space);
extern const char *fpb_pack_row(TupleDesc desc, const Datum *values,
								const bool *isnull);
extern Datum fpb_tuple_getattr(TupleDesc desc, const char *f, int attnum,
							   bool *isnull);
extern void fpb_tuple_deform(TupleDesc desc, const char *f, Datum *values,
							 bool *isnull);
extern bool fpb_packed_any_null(const char *f, int n);
extern Size fpb_packed_expected_size(TupleDesc desc, const char *f);
extern Size fpb_tuple_unpack_slow(const FpbCmp *cmp, const char *f,
								  char *dst, Size room);
extern Size fpb_tuple_unpack_var(const FpbCmp *cmp, const char *f,
								 char *dst, Size room);

/*
 * A column of an unpacked row without NULLs: where it goes, its length.
 * With varlena columns (packsize 0): off is its alignment less one, len
 * its length (0 for a varlena).
 */
typedef struct FpbPackCol
{
	uint16		off;
	uint16		len;
} FpbPackCol;

/*
 * Write the stored row f of cmp's index as an index tuple at dst
 * (MAXALIGNed), which has room bytes, for an index-only scan's executor;
 * return its size, or 0 when it does not fit.  Inline for the usual row, a
 * packed one of up to 8 columns without NULLs, whose columns go to places
 * worked out beforehand (fpb_packed_init): every returned row comes here.
 */
static inline Size
fpb_tuple_unpack(const FpbCmp *cmp, const char *f, char *dst, Size room)
{
	if (fpb_is_packed(f) && cmp->packsize != 0 && f[1] == 0 &&
		cmp->tupdesc->natts <= 8 && cmp->packsize <= room)
	{
		const char *p = f + 2;

		for (int o = 0; o < cmp->packsize; o += sizeof(uint64))
			*(uint64 *) (dst + o) = 0;
		for (int i = 0; i < cmp->tupdesc->natts; i++)
		{
			const FpbPackCol *c = &cmp->packcols[i];

			if (c->len == 8)
				memcpy(dst + c->off, p, 8);
			else if (c->len == 4)
				memcpy(dst + c->off, p, 4);
			else
				memcpy(dst + c->off, p, c->len);
			p += c->len;
		}
		((IndexTuple) dst)->t_info = cmp->packsize;
		return cmp->packsize;
	}
	if (fpb_is_packed(f) && cmp->packsize == 0 && cmp->packcols != NULL &&
		f[1] == 0 && cmp->tupdesc->natts <= 8)
		return fpb_tuple_unpack_var(cmp, f, dst, room);
	return fpb_tuple_unpack_slow(cmp, f, dst, room);
}

#endif							/* FPB_PACKED_H */
