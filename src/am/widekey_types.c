/*-------------------------------------------------------------------------
 *
 * widekey_types.c
 *	  Prefixes of the wide key types added in extension version 1.4:
 *	  numeric, bytea, bit/varbit, name, the pattern operator classes,
 *	  interval, timetz, inet/cidr, tid, and the constant prefix of the types
 *	  that only have a comparison (arrays, ranges, jsonb, ...).
 *
 * Each obeys the rule of widekey.c: prefix(a) < prefix(b) implies a < b in
 * the comparator's order, and values the comparator calls equal get equal
 * prefixes.  The index keeps the top 48 bits of a prefix; a prefix that is
 * a 48-bit code is returned shifted up by 16.
 *
 * numeric (comparator numeric_cmp):
 *		-Infinity < negative < 0 < positive < +Infinity < NaN as codes, a
 *		finite value's code from its sign, base-10000 weight and first two
 *		base-10000 digits.  Display scale takes no part: 1.0 and 1.00 have
 *		the same digits and weight.
 *			0 -> 800000000000	 1 -> 880000004001 (2^47 + 1 + weight
 *			32768 << 28 + digit 0001 << 14 + digit 0000)
 * bytea, bit, varbit (memcmp over the common length, then the length):
 *		the first bytes, zero-padded (widekey.c's "C" text rule; a zero byte
 *		only makes a tie with a shorter value, never an inversion).
 * name: the first bytes under "C", the ICU sort key, else 0 (as text; an
 *	  index under a collation without rules calls it with "C" too).
 * text_pattern_ops, bpchar_pattern_ops: the "C" prefix of text/bpchar,
 *		whatever the column's collation: the pattern comparisons are bytewise.
 * interval (interval_cmp: the 128-bit span months * 30 days + days + time
 *		in microseconds): a float-like code of the span, sign, bit length,
 *		40 bits below the leading one.  '1 mon' and '30 days' have one span.
 * timetz (timetz_cmp: the UTC time, then the zone): the UTC time in
 *		microseconds, which is exact and small.
 * inet, cidr (network_cmp: family, then the network bits compared over the
 *		shorter netmask, then the netmask, then all bits): the family, then
 *		the first 47 network bits with the host bits cleared, zero-padded.
 *		Comparing network bits over the shorter mask and putting the shorter
 *		mask first is the order of the network bits as bit strings, whose
 *		zero-padded start never inverts it.
 * tid: block and offset, exactly (48 bits).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/socket.h>

#include "catalog/pg_collation.h"
#include "fmgr.h"
#include "storage/itemptr.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/inet.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"
#include "utils/varbit.h"

#include "fpbtree.h"

PG_FUNCTION_INFO_V1(fpbtree_prefix_numeric);
PG_FUNCTION_INFO_V1(fpbtree_prefix_bytea);
PG_FUNCTION_INFO_V1(fpbtree_prefix_bit);
PG_FUNCTION_INFO_V1(fpbtree_prefix_name);
PG_FUNCTION_INFO_V1(fpbtree_prefix_text_pattern);
PG_FUNCTION_INFO_V1(fpbtree_prefix_bpchar_pattern);
PG_FUNCTION_INFO_V1(fpbtree_prefix_interval);
PG_FUNCTION_INFO_V1(fpbtree_prefix_timetz);
PG_FUNCTION_INFO_V1(fpbtree_prefix_inet);
PG_FUNCTION_INFO_V1(fpbtree_prefix_tid);
PG_FUNCTION_INFO_V1(fpbtree_prefix_none);

/* 48-bit codes are returned in the bits the index keeps */
#define FPB_CODE_BITS	48
#define FPB_CODE_MID	(UINT64CONST(1) << (FPB_CODE_BITS - 1))
#define FPB_CODE_MAX	((UINT64CONST(1) << FPB_CODE_BITS) - 1)
#define FPB_RETURN_CODE(c)	PG_RETURN_INT64((int64) ((uint64) (c) << 16))

/*
 * The numeric on-disk header (numeric.c keeps its macros private; the
 * format is fixed by pg_upgrade compatibility).  After the varlena header
 * a uint16: top bits 11 = special (NaN, +Inf, -Inf by the next two bits),
 * 10 = short form (sign, display scale, 7-bit weight in the same word),
 * 00 / 01 = long form, positive / negative, with an int16 weight next.
 * The base-10000 digits follow, most significant first.
 */
#define FPB_NUM_FLAGS		0xC000
#define FPB_NUM_NEG			0x4000
#define FPB_NUM_SHORT		0x8000
#define FPB_NUM_SPECIAL		0xC000
#define FPB_NUM_NAN			0xC000
#define FPB_NUM_PINF		0xD000
#define FPB_NUM_NINF		0xF000
#define FPB_NUM_SHORT_NEG	0x2000
#define FPB_NUM_SHORT_WNEG	0x0040
#define FPB_NUM_SHORT_WMASK 0x003F

/*
 * Code of a finite value: sign, then (weight + 32768) in 16 bits and two
 * 14-bit digits, at most 2^44, mirrored below the middle when negative so
 * that a larger magnitude sorts first.
 */
Datum
fpbtree_prefix_numeric(PG_FUNCTION_ARGS)
{
	Numeric		num = PG_GETARG_NUMERIC(0);
	const char *p = VARDATA(num);
	uint16		hdr;
	bool		neg;
	int			weight;
	const int16 *digits;
	int			ndigits;
	int			i;
	uint64		mag;

	memcpy(&hdr, p, sizeof(hdr));
	if ((hdr & FPB_NUM_FLAGS) == FPB_NUM_SPECIAL)
	{
		if (hdr == FPB_NUM_NINF)
			FPB_RETURN_CODE(0);
		if (hdr == FPB_NUM_PINF)
			FPB_RETURN_CODE(FPB_CODE_MAX - 1);
		FPB_RETURN_CODE(FPB_CODE_MAX);	/* NaN, above everything */
	}
	if (hdr & FPB_NUM_SHORT)
	{
		neg = (hdr & FPB_NUM_SHORT_NEG) != 0;
		weight = hdr & FPB_NUM_SHORT_WMASK;
		if (hdr & FPB_NUM_SHORT_WNEG)
			weight |= ~FPB_NUM_SHORT_WMASK;
		digits = (const int16 *) (p + sizeof(uint16));
		ndigits = (VARSIZE(num) - VARHDRSZ - sizeof(uint16)) / sizeof(int16);
	}
	else
	{
		int16		w;

		neg = (hdr & FPB_NUM_FLAGS) == FPB_NUM_NEG;
		memcpy(&w, p + sizeof(uint16), sizeof(w));
		weight = w;
		digits = (const int16 *) (p + 2 * sizeof(uint16));
		ndigits = (VARSIZE(num) - VARHDRSZ - 2 * sizeof(uint16)) /
			sizeof(int16);
	}

	/* stored values have no leading zero digits; be sure anyway */
	for (i = 0; i < ndigits && digits[i] == 0; i++)
		weight--;
	if (i == ndigits)
		FPB_RETURN_CODE(FPB_CODE_MID);	/* zero, whatever its sign */

	/* weights of representable values lie well inside int16 */
	weight = Max(Min(weight, PG_INT16_MAX), PG_INT16_MIN);
	mag = ((uint64) (weight + 32768) << 28) |
		((uint64) digits[i] << 14) |
		(uint64) (i + 1 < ndigits ? digits[i + 1] : 0);
	FPB_RETURN_CODE(neg ? FPB_CODE_MID - 1 - mag : FPB_CODE_MID + 1 + mag);
}

Datum
fpbtree_prefix_bytea(PG_FUNCTION_ARGS)
{
	bytea	   *b = (bytea *) fpb_varlena_head(PG_GETARG_DATUM(0),
											   FPB_PREFIX_LEN);

	PG_RETURN_INT64((int64) fpb_prefix_bytes(VARDATA_ANY(b),
											 VARSIZE_ANY_EXHDR(b)));
}

/* bit and varbit: the bit string's bytes, unused last bits are zero */
Datum
fpbtree_prefix_bit(PG_FUNCTION_ARGS)
{
	VarBit	   *v = PG_GETARG_VARBIT_P(0);

	PG_RETURN_INT64((int64) fpb_prefix_bytes((const char *) VARBITS(v),
											 VARBITBYTES(v)));
}

Datum
fpbtree_prefix_name(PG_FUNCTION_ARGS)
{
	Name		n = PG_GETARG_NAME(0);

	PG_RETURN_INT64((int64) fpb_prefix_cstring(NameStr(*n),
											   strnlen(NameStr(*n), NAMEDATALEN),
											   PG_GET_COLLATION()));
}

Datum
fpbtree_prefix_text_pattern(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) fpb_prefix_text(PG_GETARG_DATUM(0),
											C_COLLATION_OID));
}

Datum
fpbtree_prefix_bpchar_pattern(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) fpb_prefix_bpchar(PG_GETARG_DATUM(0),
											  C_COLLATION_OID));
}

/*
 * interval: the span interval_cmp compares, |span| < 2^74.  Code of a
 * nonzero magnitude: its bit length (7 bits) and the 40 bits after its
 * leading one, so two spans that differ in their first 41 bits get
 * different codes.  Without a 128-bit integer type the prefix is 0.
 */
Datum
fpbtree_prefix_interval(PG_FUNCTION_ARGS)
{
#ifdef HAVE_INT128
	Interval   *iv = PG_GETARG_INTERVAL_P(0);
	int128		span;
	uint128		mag;
	int			nbits = 0;
	uint64		mant;
	uint64		code;

	span = (int128) iv->time +
		((int128) iv->month * 30 + iv->day) * USECS_PER_DAY;
	if (span == 0)
		FPB_RETURN_CODE(FPB_CODE_MID);
	mag = span < 0 ? (uint128) -span : (uint128) span;
	for (uint128 m = mag; m != 0; m >>= 1)
		nbits++;
	/* the bits below the leading one, aligned to 40 */
	if (nbits - 1 >= 40)
		mant = (uint64) (mag >> (nbits - 1 - 40));
	else
		mant = (uint64) (mag << (40 - (nbits - 1)));
	mant &= (UINT64CONST(1) << 40) - 1;
	code = ((uint64) nbits << 40) | mant;
	FPB_RETURN_CODE(span < 0 ? FPB_CODE_MID - 1 - code : FPB_CODE_MID + code);
#else
	PG_RETURN_INT64(0);
#endif
}

/* timetz: UTC time in microseconds, within +-2^38, offset to be positive */
Datum
fpbtree_prefix_timetz(PG_FUNCTION_ARGS)
{
	TimeTzADT  *t = PG_GETARG_TIMETZADT_P(0);
	int64		utc = t->time + (int64) t->zone * USECS_PER_SEC;
	int64		lim = INT64CONST(1) << 46;

	/* valid values are far inside; clamping keeps the order non-strictly */
	utc = Max(Min(utc, lim - 1), -lim);
	FPB_RETURN_CODE((uint64) (utc + lim));
}

Datum
fpbtree_prefix_inet(PG_FUNCTION_ARGS)
{
	inet	   *ip = PG_GETARG_INET_PP(0);
	const unsigned char *addr = ip_addr(ip);
	int			bits = Min(ip_bits(ip), FPB_CODE_BITS - 1);
	uint64		net = 0;

	for (int i = 0; i < 6; i++)
		net = (net << 8) | (i < ip_addrsize(ip) ? addr[i] : 0);
	/* 48 bits of address; keep the network's first "bits" of them */
	net >>= 1;
	net &= bits == 0 ? 0 :
		~((UINT64CONST(1) << (FPB_CODE_BITS - 1 - bits)) - 1) &
		((UINT64CONST(1) << (FPB_CODE_BITS - 1)) - 1);
	FPB_RETURN_CODE((ip_family(ip) == PGSQL_AF_INET ? 0 : FPB_CODE_MID) |
					net);
}

Datum
fpbtree_prefix_tid(PG_FUNCTION_ARGS)
{
	ItemPointer tid = (ItemPointer) PG_GETARG_POINTER(0);

	FPB_RETURN_CODE(((uint64) ItemPointerGetBlockNumberNoCheck(tid) << 16) |
					ItemPointerGetOffsetNumberNoCheck(tid));
}

/*
 * Types with a comparison and no prefix: every prefix ties and the
 * comparator decides, which is correct for any total order.
 */
Datum
fpbtree_prefix_none(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(0);
}
