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

#include "port/pg_bitutils.h"
#include "utils/uuid.h"

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
 * its prefix; one of a page of FPB_FULLLEN_TUPINTn(D) whose first column,
 * an integer, has a code (multicol.c, fpb_mprefix_code) that fits the
 * prefix leaves out the whole value, which the prefix then gives; one of a
 * page of FPB_FULLLEN_TUPTS(D) whose first column, a timestamp, keeps
 * only the value's low 16 bits (a uint16), the prefix being the rest of its
 * key (README "Packed rows", Prefix bytes left out).  Such a row says so
 * by the top bit of its NULL bitmap: the index has at most 7 columns, so
 * the bit names none.  Readers point a uuid FPB_SFX_SKIP bytes before its
 * remaining bytes, read an integer as 0 and a timestamp as its low 16
 * bits; that is not the value, and only comparisons under equal prefixes,
 * which skip the rest, read it in place.  Copies that may be read whole
 * get it back from the key (fpb_packed_unskip).
 */
#define FPB_PACKED_SKIPBIT	0x80
#define FPB_PACKED_SKIP_MAX	8	/* the most bytes a row leaves out */

/* Does the stored row f (of an index of natts columns) leave them out? */
static inline bool
fpb_packed_skipped(const char *f, int natts)
{
	return natts < 8 && fpb_is_packed(f) &&
		(((const uint8 *) f)[1] & FPB_PACKED_SKIPBIT) != 0;
}

/*
 * The length r of the run of equal bits that starts at bit 62 of the key k
 * of a narrow column: its code (fpb_mprefix_code) takes 8 bits, and the
 * 62 - r bits after the one that ends the run.
 */
static inline int
fpb_mprefix_run(uint64 k)
{
	uint64		x = k << 1;

	return 63 - pg_leftmost_one_pos64((x >> 63) ? ~x : (x | 1));
}

/* Does the code of key k fit the 48 bits of a prefix? */
static inline bool
fpb_mprefix_code_fits(uint64 k)
{
	return 8 + 62 - fpb_mprefix_run(k) <= 64 - FPB_WIDE_OFFBITS;
}

/*
 * The key whose code leads the coded prefix p, when that code fits it
 * (fpb_mprefix_code_fits): the inverse of fpb_mprefix_code.
 */
static inline uint64
fpb_mprefix_first_key(uint64 p)
{
	bool		b = ((p >> 62) & 1) != 0;
	int			field = (int) ((p >> 56) & 63);
	int			r = b ? field : 63 - field;
	uint64		k = p & (UINT64CONST(1) << 63);

	if (b)
		k |= ((UINT64CONST(1) << r) - 1) << (63 - r);
	if (r < 63)
		k |= (uint64) !b << (62 - r);
	if (r < 62)
		k |= (p << 8) >> (r + 2);
	return k;
}

/* The integer of w bytes at p (unaligned), and its key */
static inline uint64
fpb_packed_int_key(const char *p, int w)
{
	int64		v;

	if (w == 8)
		memcpy(&v, p, 8);
	else if (w == 4)
	{
		int32		v4;

		memcpy(&v4, p, 4);
		v = v4;
	}
	else
	{
		int16		v2;

		memcpy(&v2, p, 2);
		v = v2;
	}
	return (uint64) v ^ (UINT64CONST(1) << 63);
}

/*
 * Would the whole packed row f leave its first bytes out on a page of
 * fulllen fl?  Its first column is not NULL (bit 0 of its bitmap); an
 * integer's code fits the prefix.  In a DESC column, which has its NULLs
 * first (multicol.c, fpb_multi_rowskip_kind), an integer whose
 * complemented key is 0, or a timestamp whose complemented key's top 48
 * bits are, keeps its value: the prefix 0 is the NULLs', and such a row's
 * prefix is moved off it (fpb_multi_prefix), so that it no longer gives
 * the value.
 */
static inline bool
fpb_packed_skippable(int fl, const char *f)
{
	int			w = fpb_rowskip_len(fl);
	uint64		k;

	if (w == 0 || !fpb_is_packed(f) ||
		(((const uint8 *) f)[1] & (FPB_PACKED_SKIPBIT | 1)) != 0)
		return false;
	if (fl == FPB_FULLLEN_TUPSFX)
		return true;
	k = fpb_packed_int_key(f + 2, FPB_FULLLEN_ROWTS(fl) ? 8 : w);
	if (FPB_FULLLEN_ROWDESC(fl))
	{
		k = ~k;
		if (FPB_FULLLEN_ROWTS(fl) ? (k >> FPB_WIDE_OFFBITS) == 0 : k == 0)
			return false;
	}
	return FPB_FULLLEN_ROWTS(fl) || fpb_mprefix_code_fits(k);
}

/*
 * The timestamp whose key's top 48 bits are those of the prefix in k (for
 * DESC, complemented), and whose low 16 bits are lo, as a packed row of
 * FPB_FULLLEN_TUPTS(D) keeps them.
 */
static inline int64
fpb_packed_ts_value(int fl, uint64 k, uint16 lo)
{
	if (FPB_FULLLEN_ROWDESC(fl))
		k = ~k;
	return (int64) (((k & ~UINT64CONST(0xFFFF)) | lo) ^
					(UINT64CONST(1) << 63));
}

/*
 * Write to dst the first value of a row of a page of fulllen fl that left
 * bytes of it to its key k and kept the rest at kept; return the bytes it
 * kept: a uuid's last 10, a timestamp's low 16 bits, an integer's none.
 */
static inline int
fpb_packed_first_value(int fl, uint64 k, const char *kept, char *dst)
{
	if (fl == FPB_FULLLEN_TUPSFX)
	{
		uint64		be = pg_hton64(k);

		memcpy(dst, &be, FPB_SFX_SKIP);
		memcpy(dst + FPB_SFX_SKIP, kept, UUID_LEN - FPB_SFX_SKIP);
		return UUID_LEN - FPB_SFX_SKIP;
	}
	if (FPB_FULLLEN_ROWTS(fl))
	{
		uint16		lo;
		int64		v;

		memcpy(&lo, kept, sizeof(lo));
		v = fpb_packed_ts_value(fl, k, lo);
		memcpy(dst, &v, sizeof(v));
		return sizeof(lo);
	}
	else
	{
		uint64		key = fpb_mprefix_first_key(k);
		int64		v;
		int32		v4;
		int16		v2;

		if (FPB_FULLLEN_ROWDESC(fl))
			key = ~key;
		v = (int64) (key ^ (UINT64CONST(1) << 63));
		v4 = (int32) v;
		v2 = (int16) v;
		if (fpb_rowskip_len(fl) == sizeof(v))
			memcpy(dst, &v, sizeof(v));
		else if (fpb_rowskip_len(fl) == sizeof(v4))
			memcpy(dst, &v4, sizeof(v4));
		else
			memcpy(dst, &v2, sizeof(v2));
		return 0;
	}
}

/*
 * Write the whole form of the row f of a page of fulllen fl that left its
 * first bytes out, whose stored key is k, to dst (room for
 * fpb_tuple_size(f) + FPB_PACKED_SKIP_MAX bytes); return its size.
 */
static inline Size
fpb_packed_unskip(int fl, const char *f, uint64 k, char *dst)
{
	Size		len = *(const uint8 *) f;
	int			w = fpb_rowskip_len(fl);
	int			kept;

	Assert(w > 0);
	dst[0] = (char) (uint8) (len + w);
	dst[1] = (char) (((const uint8 *) f)[1] & ~FPB_PACKED_SKIPBIT);
	kept = fpb_packed_first_value(fl, k, f + 2, dst + 2);
	memcpy(dst + 2 + w + kept, f + 2 + kept, len - 2 - kept);
	return len + w;
}

/*
 * Write the whole packed row f to dst without the bytes of its first value
 * a page of fulllen fl leaves out: the form fpb_slot_put stores.  dst may
 * be f itself.
 */
static inline void
fpb_packed_skip(int fl, char *dst, const char *f)
{
	Size		len = *(const uint8 *) f;
	int			w = fpb_rowskip_len(fl);
	char		bitmap = (char) (f[1] | FPB_PACKED_SKIPBIT);

	Assert(w > 0 && len >= 2 + w);
	if (FPB_FULLLEN_ROWTS(fl))
	{
		int64		v;
		uint16		lo;

		/* the low 16 bits, then the rest of the row */
		memcpy(&v, f + 2, sizeof(v));
		lo = (uint16) v;
		memmove(dst + 2 + sizeof(lo), f + 2 + sizeof(v),
				len - 2 - sizeof(v));
		memcpy(dst + 2, &lo, sizeof(lo));
	}
	else
		memmove(dst + 2, f + 2 + w, len - 2 - w);
	dst[0] = (char) (uint8) (len - w);
	dst[1] = bitmap;
}

/*
 * The stored row f of key k whole: itself, or its copy in buf (room for
 * FPB_PACKED_MAX + FPB_PACKED_SKIP_MAX bytes) with the bytes it left out.
 */
static inline const char *
fpb_packed_whole(const FpbCmp *cmp, const char *f, uint64 k, char *buf)
{
	if (!cmp->rowskip || !fpb_packed_skipped(f, cmp->tupdesc->natts))
		return f;
	(void) fpb_packed_unskip(cmp->rowskip, f, k, buf);
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
extern Size fpb_tuple_unpack_whole(const FpbCmp *cmp, const char *f, uint64 k,
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
 * Zero the index tuple of a packed row without NULLs at dst.  (cmp's
 * fields are read once: stores through dst may alias them.)
 */
static inline void
fpb_packed_zero(const FpbCmp *cmp, char *dst)
{
	int			size = cmp->packsize;

	for (int o = 0; o < size; o += sizeof(uint64))
		*(uint64 *) (dst + o) = 0;
}

/*
 * Copy columns from, from + 1, ... of a packed row without NULLs, whose
 * bytes begin at p, to their places (fpb_packed_init) in the zeroed index
 * tuple at dst; return its size.
 */
static inline Size
fpb_packed_place(const FpbCmp *cmp, const char *p, int from, char *dst)
{
	const FpbPackCol *cols = cmp->packcols;
	int			natts = cmp->tupdesc->natts;
	Size		size = cmp->packsize;

	for (int i = from; i < natts; i++)
	{
		const FpbPackCol *c = &cols[i];

		if (c->len == 8)
			memcpy(dst + c->off, p, 8);
		else if (c->len == 4)
			memcpy(dst + c->off, p, 4);
		else
			memcpy(dst + c->off, p, c->len);
		p += c->len;
	}
	((IndexTuple) dst)->t_info = size;
	return size;
}

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
		fpb_packed_zero(cmp, dst);
		return fpb_packed_place(cmp, f + 2, 0, dst);
	}
	if (fpb_is_packed(f) && cmp->packsize == 0 && cmp->packcols != NULL &&
		f[1] == 0 && cmp->tupdesc->natts <= 8)
		return fpb_tuple_unpack_var(cmp, f, dst, room);
	return fpb_tuple_unpack_slow(cmp, f, dst, room);
}

/*
 * fpb_tuple_unpack of the stored row f of key k, for an index-only scan:
 * a row without NULLs that left its first value, or its first bytes, to
 * the prefix is unpacked from the key and the row at once (every such row
 * an index-only scan returns comes here); others through their whole copy
 * (fpb_packed_whole).
 */
static inline Size
fpb_tuple_unpack_row(const FpbCmp *cmp, const char *f, uint64 k, char *dst,
					 Size room)
{
	int			natts = cmp->tupdesc->natts;

	if (!cmp->rowskip || !fpb_packed_skipped(f, natts))
		return fpb_tuple_unpack(cmp, f, dst, room);
	/* the fixed length of such a row, the one an unsound row lacks */
	if (cmp->packsize != 0 && (uint8) f[1] == FPB_PACKED_SKIPBIT &&
		cmp->packsize <= room &&
		*(const uint8 *) f == 2 - fpb_rowskip_len(cmp->rowskip) + cmp->packlen)
	{
		int			kept;

		fpb_packed_zero(cmp, dst);
		kept = fpb_packed_first_value(cmp->rowskip, k, f + 2,
									  dst + cmp->packcols[0].off);
		return fpb_packed_place(cmp, f + 2 + kept, 1, dst);
	}
	return fpb_tuple_unpack_whole(cmp, f, k, dst, room);
}

#endif							/* FPB_PACKED_H */
