/*-------------------------------------------------------------------------
 *
 * packed.c
 *	  Packed rows: the stored form of a multi-column row whose columns are
 *	  all of fixed-length types, by value or without alignment (README
 *	  "Multi-column keys", "Packed rows").
 *
 * An index tuple spends 8 bytes on its header (a TID the node holds
 * already, and a size) and pads every column to its alignment: 24 bytes for
 * an (int4, int8) row.  A packed row is its length (one byte), a bitmap of
 * its NULL columns, and the values of the others one after another without
 * padding: 14 bytes.  Its first byte is never zero, where every index tuple
 * fpbtree makes has a zero first byte (a stored tuple's TID is zero, and a
 * scan bound's holds its column count and a sign past its first two bytes,
 * fpb_make_bound), so the readers below take either form and a scan bound
 * (an index tuple) compares with a packed row.
 * By-value columns are read with memcpy: a packed row has no alignment,
 * nor does its slot; the other columns it takes are of types without
 * alignment, whose values are read in place.
 *
 * Under FPB_PFX_PACKVAR a row may also hold varlena values, each with a
 * one-byte header, as a heap tuple stores a short value: unaligned, read in
 * place by every function that takes a varlena (they all detoast, and a
 * short header is what they meet in heap tuples).  A row with a longer
 * value, or longer than FPB_PACKED_MAX, stays an index tuple
 * (fpb_packed_row_size): the header such a row saves is little beside it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/itup.h"
#include "catalog/pg_type.h"
#include "fpbtree.h"

/* bytes of the NULL bitmap of a row of natts columns */
#define FPB_PACKED_BITMAP(natts)	(((natts) + 7) / 8)

/*
 * Can the rows of desc be packed: every column of a fixed length, and
 * either by value (so of length 1, 2, 4 or 8, read by memcpy) or of a type
 * without alignment (uuid, name: its functions read it in place, as they
 * read a value at any byte of a heap tuple), and a row without NULLs at
 * most FPB_PACKED_MAX bytes?
 */
bool
fpb_packed_eligible(TupleDesc desc)
{
	Size		size = 1 + FPB_PACKED_BITMAP(desc->natts);

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attlen <= 0 ||
			(att->attbyval ? att->attlen > 8 :
			 att->attalign != TYPALIGN_CHAR))
			return false;
		size += att->attlen;
	}
	return size <= FPB_PACKED_MAX;
}

/*
 * Can rows of desc be packed under FPB_PFX_PACKVAR: every column either as
 * fpb_packed_eligible takes it or a varlena of a type that may be stored
 * with a short header (not of plain storage, whose functions may read a
 * value's four-byte header in place), and at least one varlena.  Whether a
 * given row is packed depends on its values (fpb_packed_row_size).
 */
bool
fpb_packed_var_eligible(TupleDesc desc)
{
	Size		size = 1 + FPB_PACKED_BITMAP(desc->natts);
	bool		var = false;

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attlen == -1 && att->attstorage != TYPSTORAGE_PLAIN)
		{
			var = true;
			size += VARHDRSZ_SHORT;
			continue;
		}
		if (att->attlen <= 0 ||
			(att->attbyval ? att->attlen > 8 :
			 att->attalign != TYPALIGN_CHAR))
			return false;
		size += att->attlen;
	}
	return var && size <= FPB_PACKED_MAX;
}

/*
 * The bytes of the packed form of a row of desc with values v (untoasted:
 * fpb_untoast_values), or 0 when it has none: a varlena value too long for
 * a one-byte header, or a row longer than FPB_PACKED_MAX.
 */
Size
fpb_packed_row_size(TupleDesc desc, const Datum *v, const bool *isnull)
{
	Size		size = 1 + FPB_PACKED_BITMAP(desc->natts);

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (isnull[i])
			continue;
		if (att->attlen == -1)
		{
			const char *p = DatumGetPointer(v[i]);

			/* compressed or toasted (a 1-byte header too): not from here */
			if (VARATT_IS_EXTERNAL(p) || VARATT_IS_COMPRESSED(p))
				return 0;
			if (VARSIZE_ANY_EXHDR(p) + VARHDRSZ_SHORT > VARATT_SHORT_MAX)
				return 0;
			size += VARSIZE_ANY_EXHDR(p) + VARHDRSZ_SHORT;
		}
		else
			size += att->attlen;
		if (size > FPB_PACKED_MAX)
			return 0;
	}
	return size;
}

/* Bytes fpb_packed_init needs for the rows of desc. */
Size
fpb_packed_space(TupleDesc desc)
{
	return fpb_packed_eligible(desc) || fpb_packed_var_eligible(desc) ?
		MAXALIGN(sizeof(FpbPackCol) * desc->natts) : 0;
}

/*
 * Work out, in space (fpb_packed_space bytes), where the columns of a
 * packed row without NULLs go in its index tuple, as heap_fill_tuple
 * places them: an index-only scan unpacks every row it returns.
 */
void
fpb_packed_init(FpbCmp *cmp, char *space)
{
	TupleDesc	desc = cmp->tupdesc;
	Size		off = IndexInfoFindDataOffset(0);

	cmp->packsize = 0;
	cmp->packlen = 0;
	cmp->packcols = NULL;
	if (fpb_packed_var_eligible(desc))
	{
		/* places depend on the varlena values: only each one's alignment */
		cmp->packcols = (FpbPackCol *) space;
		for (int i = 0; i < desc->natts; i++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, i);

			cmp->packcols[i].off = att_align_nominal(1, att->attalign) - 1;
			cmp->packcols[i].len = att->attlen > 0 ? att->attlen : 0;
		}
		return;
	}
	if (!fpb_packed_eligible(desc))
		return;
	cmp->packcols = (FpbPackCol *) space;
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		off = att_align_nominal(off, att->attalign);
		cmp->packcols[i].off = off;
		cmp->packcols[i].len = att->attlen;
		off += att->attlen;
		cmp->packlen += att->attlen;
	}
	cmp->packsize = MAXALIGN(off);
}

/* The packed form of a row of desc, in the current memory context. */
const char *
fpb_pack_row(TupleDesc desc, const Datum *values, const bool *isnull)
{
	char		buf[FPB_PACKED_MAX];
	int			nb = FPB_PACKED_BITMAP(desc->natts);
	Size		off = 1 + nb;
	char	   *row;

	memset(buf, 0, 1 + nb);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		int			len = att->attlen;

		if (isnull[i])
		{
			buf[1 + i / 8] |= (char) (1 << (i % 8));
			continue;
		}
		if (len == -1)
		{
			const char *p = DatumGetPointer(values[i]);
			Size		dlen = VARSIZE_ANY_EXHDR(p);

			/* the caller asked fpb_packed_row_size */
			if (off + VARHDRSZ_SHORT + dlen > FPB_PACKED_MAX ||
				VARHDRSZ_SHORT + dlen > VARATT_SHORT_MAX ||
				VARATT_IS_EXTERNAL(p) || VARATT_IS_COMPRESSED(p))
				elog(ERROR, "fpbtree: cannot pack a value of %zu bytes", dlen);
			SET_VARSIZE_1B(buf + off, VARHDRSZ_SHORT + dlen);
			memcpy(buf + off + VARHDRSZ_SHORT, VARDATA_ANY(p), dlen);
			off += VARHDRSZ_SHORT + dlen;
			continue;
		}
		Assert(off + len <= FPB_PACKED_MAX);
		if (!att->attbyval)
		{
			memcpy(buf + off, DatumGetPointer(values[i]), len);
			off += len;
			continue;
		}
		switch (len)
		{
			case 1:
				buf[off] = DatumGetChar(values[i]);
				break;
			case 2:
				{
					int16		v = DatumGetInt16(values[i]);

					memcpy(buf + off, &v, 2);
					break;
				}
			case 4:
				{
					int32		v = DatumGetInt32(values[i]);

					memcpy(buf + off, &v, 4);
					break;
				}
			case 8:
				{
					int64		v = DatumGetInt64(values[i]);

					memcpy(buf + off, &v, 8);
					break;
				}
			default:
				elog(ERROR, "fpbtree: cannot pack a value of length %d", len);
		}
		off += len;
	}
	buf[0] = (char) (uint8) off;
	row = palloc(off);
	memcpy(row, buf, off);
	return row;
}

/*
 * Bytes of the value of column att at offset off of the packed row f: a
 * varlena's from its one-byte header.  A page read from disk may hold
 * anything: a value of another header, or one past the row's length, is
 * refused rather than read past the row.
 */
static inline int
fpb_packed_len(const char *f, Size off, Form_pg_attribute att)
{
	if (att->attlen > 0)
		return att->attlen;
	if (unlikely(off >= *(const uint8 *) f || !VARATT_IS_1B(f + off) ||
				 VARATT_IS_1B_E(f + off) ||
				 off + VARSIZE_1B(f + off) > *(const uint8 *) f))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("fpbtree: packed row holds an unsound varlena value")));
	return VARSIZE_1B(f + off);
}

/* Is column i (from 0) of the packed row f NULL? */
static inline bool
fpb_packed_isnull(const char *f, int i)
{
	return (f[1 + i / 8] & (1 << (i % 8))) != 0;
}

static inline Datum
fpb_packed_fetch(const char *p, Form_pg_attribute att)
{
	if (!att->attbyval)
		return PointerGetDatum(p);
	switch (att->attlen)
	{
		case 1:
			return CharGetDatum(*p);
		case 2:
			{
				int16		v;

				memcpy(&v, p, 2);
				return Int16GetDatum(v);
			}
		case 4:
			{
				int32		v;

				memcpy(&v, p, 4);
				return Int32GetDatum(v);
			}
		default:
			{
				int64		v;

				Assert(att->attlen == 8);
				memcpy(&v, p, 8);
				return Int64GetDatum(v);
			}
	}
}

/*
 * The bytes of the first value, of att, that a row leaving them out
 * (fpb_packed_skipped) leaves: a uuid's first FPB_SFX_SKIP, an integer's
 * all, a timestamp's all but its low 16 bits (fpb_rowskip_len; 0 for a
 * type no format leaves out).
 */
static inline int
fpb_packed_skip_att(Form_pg_attribute att)
{
	switch (att->atttypid)
	{
		case UUIDOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return FPB_SFX_SKIP;
		case INT2OID:
		case INT4OID:
		case DATEOID:
		case INT8OID:
			return att->attlen;
	}
	return 0;
}

/*
 * Bytes the value of column i at offset off of the packed row f takes
 * there: a row that left its first value's first bytes out
 * (fpb_packed_skipped: skip) holds fewer of that one.
 */
static inline int
fpb_packed_stored_len(const char *f, Size off, Form_pg_attribute att, int i,
					  bool skip)
{
	if (i == 0 && skip)
		return att->attlen - fpb_packed_skip_att(att);
	return fpb_packed_len(f, off, att);
}

/*
 * The first value, of att, at offset off of a row that left bytes of it
 * out: a uuid's pointer before its remaining bytes, an integer's 0, a
 * timestamp's low 16 bits; none is the value (fpb_packed_skipped), but
 * packed again and left out again (fpb_tuple_separator) each gives the
 * bytes the row kept.
 */
static inline Datum
fpb_packed_skipped_value(const char *f, Size off, Form_pg_attribute att)
{
	uint16		lo;

	if (att->atttypid == UUIDOID)
		return PointerGetDatum(f + off - FPB_SFX_SKIP);
	if (att->atttypid == TIMESTAMPOID || att->atttypid == TIMESTAMPTZOID)
	{
		memcpy(&lo, f + off, sizeof(lo));
		return Int64GetDatum((int64) lo);
	}
	return (Datum) 0;
}

/* Column attnum (from 1) of the packed row f of desc. */
static Datum
fpb_packed_attr(TupleDesc desc, const char *f, int attnum, bool *isnull)
{
	Size		off = 1 + FPB_PACKED_BITMAP(desc->natts);
	bool		skip = fpb_packed_skipped(f, desc->natts);

	if (fpb_packed_isnull(f, attnum - 1))
	{
		*isnull = true;
		return (Datum) 0;
	}
	for (int i = 0; i < attnum - 1; i++)
		if (!fpb_packed_isnull(f, i))
			off += fpb_packed_stored_len(f, off, TupleDescAttr(desc, i), i,
										 skip);
	*isnull = false;
	if (attnum == 1 && skip)
		return fpb_packed_skipped_value(f, off, TupleDescAttr(desc, 0));
	(void) fpb_packed_len(f, off, TupleDescAttr(desc, attnum - 1));
	return fpb_packed_fetch(f + off, TupleDescAttr(desc, attnum - 1));
}

/* Column attnum (from 1) of the stored row or bound f, either form. */
Datum
fpb_tuple_getattr(TupleDesc desc, const char *f, int attnum, bool *isnull)
{
	if (fpb_is_packed(f))
		return fpb_packed_attr(desc, f, attnum, isnull);
	return index_getattr((IndexTuple) f, attnum, desc, isnull);
}

/* Every column of the stored row f, either form. */
void
fpb_tuple_deform(TupleDesc desc, const char *f, Datum *values, bool *isnull)
{
	Size		off;
	bool		skip;

	if (!fpb_is_packed(f))
	{
		index_deform_tuple((IndexTuple) f, desc, values, isnull);
		return;
	}
	off = 1 + FPB_PACKED_BITMAP(desc->natts);
	skip = fpb_packed_skipped(f, desc->natts);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		isnull[i] = fpb_packed_isnull(f, i);
		values[i] = (Datum) 0;
		if (isnull[i])
			continue;
		values[i] = i == 0 && skip ?
			fpb_packed_skipped_value(f, off, att) :
			fpb_packed_fetch(f + off, att);
		off += fpb_packed_stored_len(f, off, att, i, skip);
	}
}

/* Does the packed row f have a NULL among its first n columns? */
bool
fpb_packed_any_null(const char *f, int n)
{
	for (int i = 0; i < n; i++)
		if (fpb_packed_isnull(f, i))
			return true;
	return false;
}

/*
 * The length a packed row of desc with f's NULL bitmap (and the headers of
 * its varlena values) has, or 0 when its bitmap names columns desc lacks
 * or a varlena's header is not a short one inside the row
 * (fpbtree_check).  Reads nothing past the row's own length.
 */
Size
fpb_packed_expected_size(TupleDesc desc, const char *f)
{
	int			nb = FPB_PACKED_BITMAP(desc->natts);
	Size		have = *(const uint8 *) f;
	Size		size = 1 + nb;
	bool		skip;

	if (have < size)
		return 0;
	/*
	 * The bit of a row that left its first bytes out, on a non-NULL uuid,
	 * integer or timestamp
	 */
	skip = fpb_packed_skipped(f, desc->natts);
	if (skip && (fpb_packed_isnull(f, 0) ||
				 fpb_packed_skip_att(TupleDescAttr(desc, 0)) == 0))
		return 0;
	for (int i = desc->natts; i < nb * 8; i++)
		if (fpb_packed_isnull(f, i) && !(skip && i == 7))
			return 0;
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (fpb_packed_isnull(f, i))
			continue;
		if (i == 0 && skip)
		{
			size += att->attlen - fpb_packed_skip_att(att);
			continue;
		}
		if (att->attlen == -1)
		{
			if (size >= have || !VARATT_IS_1B(f + size) ||
				VARATT_IS_1B_E(f + size) ||
				VARSIZE_1B(f + size) < VARHDRSZ_SHORT)
				return 0;
			size += VARSIZE_1B(f + size);
		}
		else
			size += att->attlen;
	}
	return size;
}

/*
 * fpb_tuple_unpack_row of a row that is not the usual one: through the
 * whole row, made in a buffer of its own (out of the inline path, whose
 * frame then holds no such buffer).
 */
Size
fpb_tuple_unpack_whole(const FpbCmp *cmp, const char *f, uint64 k, char *dst,
					   Size room)
{
	char		whole[FPB_PACKED_MAX + FPB_PACKED_SKIP_MAX];

	return fpb_tuple_unpack(cmp, fpb_packed_whole(cmp, f, k, whole), dst,
							room);
}

/*
 * fpb_tuple_unpack (fpbtree.h) for a packed row without NULLs of an index
 * with varlena columns (packcols holds each column's alignment mask and
 * fixed length, 0 for a varlena): the index tuple heap_fill_tuple would
 * make, its fixed-length values aligned and its short varlena values not,
 * the padding zero (index_deform_tuple tells a short value from padding by
 * its first byte).  0 when the row is unsound.  Every row an index-only
 * scan returns comes here, so values are copied in 8-byte words, which may
 * read up to 7 bytes past the row (f lies in a page's slotted area, which
 * the special space follows) and write as far past the tuple into dst:
 * with less room than that, the slow path, which counts every byte.
 */
Size
fpb_tuple_unpack_var(const FpbCmp *cmp, const char *f, char *dst,
					 Size room)
{
	Size		have = *(const uint8 *) f;
	Size		in = 2;
	Size		off = IndexInfoFindDataOffset(0);
	int			natts = cmp->tupdesc->natts;
	Size		size;

	/* header, values, a word of padding a column, a word of slack */
	if (room < have + (Size) (natts + 3) * sizeof(uint64))
		return fpb_tuple_unpack_slow(cmp, f, dst, room);
	for (int i = 0; i < natts; i++)
	{
		const FpbPackCol *c = &cmp->packcols[i];
		Size		len = c->len;

		if (len == 0)
		{
			if (in >= have || !VARATT_IS_1B(f + in) || VARATT_IS_1B_E(f + in))
				return 0;
			len = VARSIZE_1B(f + in);
		}
		else
		{
			/* zero the gap to the column's alignment (at most 7 bytes) */
			memset(dst + off, 0, sizeof(uint64));
			off = (off + c->off) & ~(Size) c->off;
		}
		if (in + len > have)
			return 0;
		for (Size o = 0; o < len; o += sizeof(uint64))
			memcpy(dst + off + o, f + in + o, sizeof(uint64));
		off += len;
		in += len;
	}
	if (in != have)
		return 0;
	size = MAXALIGN(off);
	memset(dst + off, 0, sizeof(uint64));
	memset(dst, 0, sizeof(IndexTupleData));
	((IndexTuple) dst)->t_info = size | INDEX_VAR_MASK;
	return size;
}

/*
 * fpb_tuple_unpack (fpbtree.h) for the other rows: index tuples, packed
 * rows with NULLs, of more than 8 columns or with varlena values.  0 also
 * for a packed row whose values disagree with its length (a damaged page:
 * the caller names the block).
 */
Size
fpb_tuple_unpack_slow(const FpbCmp *cmp, const char *f, char *dst,
					  Size room)
{
	TupleDesc	desc = cmp->tupdesc;
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	bool		hasnull = false;
	Size		hoff,
				dsize,
				size;
	uint16		tupmask = 0;
	IndexTuple	t = (IndexTuple) dst;

	if (!fpb_is_packed(f))
	{
		size = IndexTupleSize((IndexTuple) f);
		if (size > room)
			return 0;
		memcpy(dst, f, size);
		return size;
	}
	if (fpb_packed_expected_size(desc, f) != (Size) *(const uint8 *) f)
		return 0;
	fpb_tuple_deform(desc, f, values, isnull);
	for (int i = 0; i < desc->natts; i++)
		hasnull |= isnull[i];
	hoff = IndexInfoFindDataOffset(hasnull ? INDEX_NULL_MASK : 0);
	dsize = heap_compute_data_size(desc, values, isnull);
	size = MAXALIGN(hoff + dsize);
	if (size > room)
		return 0;
	memset(dst, 0, size);
	heap_fill_tuple(desc, values, isnull, dst + hoff, dsize, &tupmask,
					hasnull ? (bits8 *) (dst + sizeof(IndexTupleData)) : NULL);
	t->t_info = size | (hasnull ? INDEX_NULL_MASK : 0) |
		((tupmask & HEAP_HASVARWIDTH) ? INDEX_VAR_MASK : 0);
	return size;
}
