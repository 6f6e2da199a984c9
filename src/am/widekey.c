/*-------------------------------------------------------------------------
 *
 * widekey.c
 *	  Prefixes of wide keys: the 8-byte order-preserving part of a value
 *	  too wide to be its own key (uuid, text, varchar, bpchar), and the
 *	  SQL-callable prefix functions that will be the support procedure 1
 *	  of their operator classes.
 *
 * A wide index orders its entries by (prefix, NULL bit, full value by the
 * type's comparison, TID), and calls the comparison only when prefixes tie
 * (src/am/README.md, "Wide keys").  That is correct only if the prefix
 * agrees with the comparison:
 *		prefix(a) < prefix(b)  implies  a < b,	and  a = b  implies
 *		prefix(a) = prefix(b).
 * The prefixes, with examples (keys in hex):
 *
 * uuid:
 *		the first 8 of its 16 bytes as one big-endian number; uuid_cmp
 *		compares the bytes with memcmp.
 *			a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 -> A0EEBC999C0B4EF8
 *
 * text, varchar, under the "C" or POSIX collation:
 *		the first 8 bytes, big-endian, zero-padded.  The C comparison is
 *		memcmp over the common length, the shorter value first on a tie; a
 *		text value never contains a zero byte, so zero padding sorts a
 *		shorter value before every longer one it starts.
 *			''	   -> 0000000000000000		'ab' -> 6162000000000000
 *
 * bpchar, under "C":
 *		the same after trailing spaces are removed, as bpchar comparisons
 *		ignore them ('a ' = 'a').
 *
 * text, varchar, bpchar under any other collation:
 *		0.  Every comparison ties and the collation's own comparison decides,
 *		which is right for every collation, non-deterministic ones included
 *		(a prefix must never separate values the collation calls equal).
 *		glibc's strxfrm() is not trusted to agree with strcoll(), which is
 *		why the core has no abbreviated keys for libc collations either.
 *
 * Like the encode functions of keys.c, these double as the unit-test path:
 * at SQL level a prefix is an int8 holding the uint64 bit pattern, and
 * casting it to bit(64) compares it unsigned.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/pg_locale.h"
#include "utils/uuid.h"

#include "fpbtree.h"

PG_FUNCTION_INFO_V1(fpbtree_prefix_uuid);
PG_FUNCTION_INFO_V1(fpbtree_prefix_text);
PG_FUNCTION_INFO_V1(fpbtree_prefix_bpchar);

/* The first FPB_PREFIX_LEN of len bytes, big-endian, zero-padded. */
uint64
fpb_prefix_bytes(const char *data, Size len)
{
	uint64		k = 0;
	int			i;

	for (i = 0; i < FPB_PREFIX_LEN; i++)
	{
		k <<= 8;
		if ((Size) i < len)
			k |= (unsigned char) data[i];
	}
	return k;
}

/*
 * Prefix of a text or varchar value compared with collation collid.
 * Reads only the first bytes of a toasted value.
 */
uint64
fpb_prefix_text(Datum value, Oid collid)
{
	text	   *t;
	uint64		k;

	if (!lc_collate_is_c(collid))
		return 0;
	t = DatumGetTextPSlice(value, 0, FPB_PREFIX_LEN);
	k = fpb_prefix_bytes(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
	if ((Pointer) t != DatumGetPointer(value))
		pfree(t);
	return k;
}

/*
 * Prefix of a bpchar value compared with collation collid.  Detoasts the
 * whole value: whether the bytes after the first eight are all padding
 * decides how many of them count.
 */
uint64
fpb_prefix_bpchar(Datum value, Oid collid)
{
	BpChar	   *b;
	uint64		k;

	if (!lc_collate_is_c(collid))
		return 0;
	b = DatumGetBpCharPP(value);
	k = fpb_prefix_bytes(VARDATA_ANY(b),
						 bpchartruelen(VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b)));
	if ((Pointer) b != DatumGetPointer(value))
		pfree(b);
	return k;
}

Datum
fpbtree_prefix_uuid(PG_FUNCTION_ARGS)
{
	pg_uuid_t  *u = PG_GETARG_UUID_P(0);

	PG_RETURN_INT64((int64) fpb_prefix_bytes((const char *) u->data,
											 UUID_LEN));
}

Datum
fpbtree_prefix_text(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) fpb_prefix_text(PG_GETARG_DATUM(0),
											PG_GET_COLLATION()));
}

Datum
fpbtree_prefix_bpchar(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) fpb_prefix_bpchar(PG_GETARG_DATUM(0),
											  PG_GET_COLLATION()));
}
