/*-------------------------------------------------------------------------
 *
 * keys.c
 *	  Order-preserving normalisation of column values to uint64 keys, and
 *	  the SQL-callable encode/decode support functions of the fpbtree
 *	  operator classes.
 *
 * fpbtree never calls a comparison operator while it searches: every
 * value is turned once into an unsigned 64-bit key whose natural order is
 * the type's btree order, and the in-page search compares those keys.
 * Support function 1 (encode) maps a value to its key; support function 2
 * (decode) maps a key back to exactly the value that produced it, which is
 * what lets index-only scans return values from the index.  At SQL level a
 * key is an int8 holding the uint64 bit pattern, so a key with the top bit
 * set shows up as a negative int8.
 *
 * The mappings, with examples (keys in hex):
 *
 * int2, int4, int8, date (int32), timestamp, timestamptz (int64):
 *		sign-extend to int64 and flip the sign bit, which turns two's
 *		complement order into unsigned order.  The three integer types share
 *		one key domain, so an int2 column can be searched with an int8 key.
 *			INT64_MIN -> 0000000000000000	-1 -> 7FFFFFFFFFFFFFFF
 *			0		  -> 8000000000000000	 1 -> 8000000000000001
 *		The infinities of date and the timestamps are ordinary extreme
 *		integers and need no special case.
 *
 * oid:
 *		zero-extended; oid is unsigned and so is the key.
 *
 * bool, "char":
 *		false -> 0, true -> 1; a "char" is its byte zero-extended, since
 *		"char" compares its bytes as unsigned ('\377' sorts last).
 *
 * money (an int64 count of the smallest currency unit), time (int64
 *		microseconds, 00:00 to 24:00:00):
 *		as the integers, each in a key domain of its own.
 *
 * macaddr, macaddr8:
 *		the bytes in order as one big-endian unsigned number (48 or 64
 *		bits), which is how the core compares them.
 *			08:00:2b:01:02:03 -> 000008002B010203
 *
 * pg_lsn, xid8 (version 1.4):
 *		the unsigned 64-bit number itself.
 *
 * float8:
 *		NaN (any payload, either sign) -> FFFFFFFFFFFFFFFF, the largest key,
 *		since btree sorts all NaNs as equal and above +Infinity.  Otherwise
 *		take the IEEE 754 bits: negative numbers have all bits inverted
 *		(larger magnitude must give a smaller key), positive numbers just get
 *		the sign bit set (placing them above every negative one).
 *			-Inf -> 000FFFFFFFFFFFFF	-0.0 -> 7FFFFFFFFFFFFFFF
 *			+0.0 -> 8000000000000000	 1.0 -> BFF0000000000000
 *			+Inf -> FFF0000000000000	 NaN -> FFFFFFFFFFFFFFFF
 *		-0.0 and +0.0 are equal to "=" but get adjacent distinct keys, so
 *		that decode returns the sign that was stored; fpb_encode_range makes
 *		an equality search cover both.
 *
 * float4:
 *		widened to float8 (exact) and then mapped as float8.  float4 and
 *		float8 therefore share one key domain, matching the cross-type
 *		operators, which also compare in double precision.  Decoding narrows
 *		back, which is exact for every key a float4 produced.
 *
 * The SQL-level functions double as the unit-test path: casting a key to
 * bit(64) compares it as unsigned, so tests can check that
 *		a < b  implies  fpbtree_encode_T(a)::bit(64) < fpbtree_encode_T(b)::bit(64)
 * (with equality of keys iff a = b, apart from the two float zeros), and
 * that fpbtree_decode_T(fpbtree_encode_T(v)) reproduces v exactly.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "utils/cash.h"
#include "utils/date.h"
#include "utils/float.h"
#include "utils/inet.h"
#include "utils/pg_lsn.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"
#include "utils/xid8.h"

#include "fpbtree.h"

#define FPB_SIGNBIT		(UINT64CONST(1) << 63)
#define FPB_NAN_KEY		PG_UINT64_MAX

/* ----------------------------------------------------------------
 * The mappings themselves.  Kept inline so each SQL wrapper compiles to a
 * handful of instructions.
 * ----------------------------------------------------------------
 */

static inline uint64
int_to_key(int64 v)
{
	return ((uint64) v) ^ FPB_SIGNBIT;
}

static inline int64
key_to_int(uint64 k)
{
	return (int64) (k ^ FPB_SIGNBIT);
}

static inline uint64
float8_to_key(float8 v)
{
	uint64		bits;

	/* every NaN must land on one key, or equal values would be scattered */
	if (unlikely(isnan(v)))
		return FPB_NAN_KEY;

	memcpy(&bits, &v, sizeof(bits));
	if (bits & FPB_SIGNBIT)
		return ~bits;
	return bits ^ FPB_SIGNBIT;
}

static inline float8
key_to_float8(uint64 k)
{
	uint64		bits;
	float8		v;

	if (unlikely(k == FPB_NAN_KEY))
		return get_float8_nan();

	/* keys with the top bit set came from non-negative values */
	if (k & FPB_SIGNBIT)
		bits = k ^ FPB_SIGNBIT;
	else
		bits = ~k;
	memcpy(&v, &bits, sizeof(v));
	return v;
}

/* A key travels through SQL as int8 with the same bit pattern. */
#define PG_GETARG_FPBKEY(n)		((uint64) PG_GETARG_INT64(n))
#define PG_RETURN_FPBKEY(k)		PG_RETURN_INT64((int64) (k))

/*
 * The key argument of a decode function for a type whose keys are its
 * values 0..max: a larger key belongs to no value, and msg says so.
 */
static inline uint64
fpb_small_key(FunctionCallInfo fcinfo, uint64 max, const char *msg)
{
	uint64		k = PG_GETARG_FPBKEY(0);

	if (unlikely(k > max))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s", msg)));
	return k;
}

/* ----------------------------------------------------------------
 * Integer types
 * ----------------------------------------------------------------
 */

PG_FUNCTION_INFO_V1(fpbtree_encode_int2);
PG_FUNCTION_INFO_V1(fpbtree_decode_int2);
PG_FUNCTION_INFO_V1(fpbtree_encode_int4);
PG_FUNCTION_INFO_V1(fpbtree_decode_int4);
PG_FUNCTION_INFO_V1(fpbtree_encode_int8);
PG_FUNCTION_INFO_V1(fpbtree_decode_int8);

Datum
fpbtree_encode_int2(PG_FUNCTION_ARGS)
{
	PG_RETURN_FPBKEY(int_to_key(PG_GETARG_INT16(0)));
}

Datum
fpbtree_decode_int2(PG_FUNCTION_ARGS)
{
	int64		v = key_to_int(PG_GETARG_FPBKEY(0));

	/*
	 * Keys read from an int2 index are always in range; the check guards
	 * direct SQL calls with arbitrary keys.
	 */
	if (unlikely(v < PG_INT16_MIN || v > PG_INT16_MAX))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("smallint out of range")));
	PG_RETURN_INT16((int16) v);
}

Datum
fpbtree_encode_int4(PG_FUNCTION_ARGS)
{
	PG_RETURN_FPBKEY(int_to_key(PG_GETARG_INT32(0)));
}

Datum
fpbtree_decode_int4(PG_FUNCTION_ARGS)
{
	int64		v = key_to_int(PG_GETARG_FPBKEY(0));

	if (unlikely(v < PG_INT32_MIN || v > PG_INT32_MAX))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("integer out of range")));
	PG_RETURN_INT32((int32) v);
}

/*
 * Encode and decode of a type whose values are exactly the int64s: the key
 * is the value with its sign bit flipped.
 */
#define FPB_INT64_CODEC(type, getarg, ret, ctype) \
Datum \
fpbtree_encode_##type(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_FPBKEY(int_to_key(getarg(0))); \
} \
 \
Datum \
fpbtree_decode_##type(PG_FUNCTION_ARGS) \
{ \
	ret((ctype) key_to_int(PG_GETARG_FPBKEY(0))); \
}

FPB_INT64_CODEC(int8, PG_GETARG_INT64, PG_RETURN_INT64, int64)

/* ----------------------------------------------------------------
 * Floating-point types
 * ----------------------------------------------------------------
 */

PG_FUNCTION_INFO_V1(fpbtree_encode_float4);
PG_FUNCTION_INFO_V1(fpbtree_decode_float4);
PG_FUNCTION_INFO_V1(fpbtree_encode_float8);
PG_FUNCTION_INFO_V1(fpbtree_decode_float8);

Datum
fpbtree_encode_float4(PG_FUNCTION_ARGS)
{
	/* widening is exact, so float4 keys interleave correctly with float8 */
	PG_RETURN_FPBKEY(float8_to_key((float8) PG_GETARG_FLOAT4(0)));
}

Datum
fpbtree_decode_float4(PG_FUNCTION_ARGS)
{
	float8		d = key_to_float8(PG_GETARG_FPBKEY(0));
	float4		f;

	if (unlikely(isnan(d)))
		PG_RETURN_FLOAT4(get_float4_nan());

	/*
	 * Narrowing is exact for keys a float4 produced.  Anything else could
	 * only come from a direct SQL call, and rounding it silently would break
	 * the promise that decode inverts encode.
	 */
	f = (float4) d;
	if (unlikely((float8) f != d))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("fpbtree key is not the key of a real value")));
	PG_RETURN_FLOAT4(f);
}

Datum
fpbtree_encode_float8(PG_FUNCTION_ARGS)
{
	PG_RETURN_FPBKEY(float8_to_key(PG_GETARG_FLOAT8(0)));
}

Datum
fpbtree_decode_float8(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(key_to_float8(PG_GETARG_FPBKEY(0)));
}

/* ----------------------------------------------------------------
 * Date and time types: plain integers underneath
 * ----------------------------------------------------------------
 */

PG_FUNCTION_INFO_V1(fpbtree_encode_date);
PG_FUNCTION_INFO_V1(fpbtree_decode_date);
PG_FUNCTION_INFO_V1(fpbtree_encode_timestamp);
PG_FUNCTION_INFO_V1(fpbtree_decode_timestamp);
PG_FUNCTION_INFO_V1(fpbtree_encode_timestamptz);
PG_FUNCTION_INFO_V1(fpbtree_decode_timestamptz);

Datum
fpbtree_encode_date(PG_FUNCTION_ARGS)
{
	PG_RETURN_FPBKEY(int_to_key(PG_GETARG_DATEADT(0)));
}

Datum
fpbtree_decode_date(PG_FUNCTION_ARGS)
{
	int64		v = key_to_int(PG_GETARG_FPBKEY(0));

	if (unlikely(v < PG_INT32_MIN || v > PG_INT32_MAX))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("date out of range")));
	PG_RETURN_DATEADT((DateADT) v);
}

FPB_INT64_CODEC(timestamp, PG_GETARG_TIMESTAMP, PG_RETURN_TIMESTAMP, Timestamp)

FPB_INT64_CODEC(timestamptz, PG_GETARG_TIMESTAMPTZ, PG_RETURN_TIMESTAMPTZ, TimestampTz)

/* ----------------------------------------------------------------
 * oid: already unsigned
 * ----------------------------------------------------------------
 */

PG_FUNCTION_INFO_V1(fpbtree_encode_oid);
PG_FUNCTION_INFO_V1(fpbtree_decode_oid);

Datum
fpbtree_encode_oid(PG_FUNCTION_ARGS)
{
	PG_RETURN_FPBKEY((uint64) PG_GETARG_OID(0));
}

Datum
fpbtree_decode_oid(PG_FUNCTION_ARGS)
{
	PG_RETURN_OID((Oid) fpb_small_key(fcinfo, PG_UINT32_MAX, "OID out of range"));
}

/* ----------------------------------------------------------------
 * bool, "char", money, time: small or plain integers
 * ----------------------------------------------------------------
 */

PG_FUNCTION_INFO_V1(fpbtree_encode_bool);
PG_FUNCTION_INFO_V1(fpbtree_decode_bool);
PG_FUNCTION_INFO_V1(fpbtree_encode_char);
PG_FUNCTION_INFO_V1(fpbtree_decode_char);
PG_FUNCTION_INFO_V1(fpbtree_encode_money);
PG_FUNCTION_INFO_V1(fpbtree_decode_money);
PG_FUNCTION_INFO_V1(fpbtree_encode_time);
PG_FUNCTION_INFO_V1(fpbtree_decode_time);

Datum
fpbtree_encode_bool(PG_FUNCTION_ARGS)
{
	PG_RETURN_FPBKEY(PG_GETARG_BOOL(0) ? 1 : 0);
}

Datum
fpbtree_decode_bool(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(fpb_small_key(fcinfo, 1,
								 "fpbtree key is not the key of a boolean value") == 1);
}

Datum
fpbtree_encode_char(PG_FUNCTION_ARGS)
{
	/* charlt and friends compare the byte as unsigned */
	PG_RETURN_FPBKEY((uint8) PG_GETARG_CHAR(0));
}

Datum
fpbtree_decode_char(PG_FUNCTION_ARGS)
{
	PG_RETURN_CHAR((char) (uint8) fpb_small_key(fcinfo, PG_UINT8_MAX,
												 "\"char\" out of range"));
}

FPB_INT64_CODEC(money, PG_GETARG_CASH, PG_RETURN_CASH, Cash)

Datum
fpbtree_encode_time(PG_FUNCTION_ARGS)
{
	PG_RETURN_FPBKEY(int_to_key(PG_GETARG_TIMEADT(0)));
}

Datum
fpbtree_decode_time(PG_FUNCTION_ARGS)
{
	int64		v = key_to_int(PG_GETARG_FPBKEY(0));

	/* 24:00:00 is a valid time */
	if (unlikely(v < 0 || v > USECS_PER_DAY))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("time out of range")));
	PG_RETURN_TIMEADT((TimeADT) v);
}

/* ----------------------------------------------------------------
 * macaddr, macaddr8: bytes compared as one big-endian unsigned number
 * ----------------------------------------------------------------
 */

PG_FUNCTION_INFO_V1(fpbtree_encode_macaddr);
PG_FUNCTION_INFO_V1(fpbtree_decode_macaddr);
PG_FUNCTION_INFO_V1(fpbtree_encode_macaddr8);
PG_FUNCTION_INFO_V1(fpbtree_decode_macaddr8);

Datum
fpbtree_encode_macaddr(PG_FUNCTION_ARGS)
{
	macaddr    *m = PG_GETARG_MACADDR_P(0);

	PG_RETURN_FPBKEY(((uint64) m->a << 40) | ((uint64) m->b << 32) |
					 ((uint64) m->c << 24) | ((uint64) m->d << 16) |
					 ((uint64) m->e << 8) | (uint64) m->f);
}

Datum
fpbtree_decode_macaddr(PG_FUNCTION_ARGS)
{
	uint64		k = PG_GETARG_FPBKEY(0);
	macaddr    *m;

	if (unlikely(k >> 48))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("fpbtree key is not the key of a macaddr value")));
	m = (macaddr *) palloc(sizeof(macaddr));
	m->a = (unsigned char) (k >> 40);
	m->b = (unsigned char) (k >> 32);
	m->c = (unsigned char) (k >> 24);
	m->d = (unsigned char) (k >> 16);
	m->e = (unsigned char) (k >> 8);
	m->f = (unsigned char) k;
	PG_RETURN_MACADDR_P(m);
}

Datum
fpbtree_encode_macaddr8(PG_FUNCTION_ARGS)
{
	macaddr8   *m = PG_GETARG_MACADDR8_P(0);

	PG_RETURN_FPBKEY(((uint64) m->a << 56) | ((uint64) m->b << 48) |
					 ((uint64) m->c << 40) | ((uint64) m->d << 32) |
					 ((uint64) m->e << 24) | ((uint64) m->f << 16) |
					 ((uint64) m->g << 8) | (uint64) m->h);
}

Datum
fpbtree_decode_macaddr8(PG_FUNCTION_ARGS)
{
	uint64		k = PG_GETARG_FPBKEY(0);
	macaddr8   *m = (macaddr8 *) palloc(sizeof(macaddr8));

	m->a = (unsigned char) (k >> 56);
	m->b = (unsigned char) (k >> 48);
	m->c = (unsigned char) (k >> 40);
	m->d = (unsigned char) (k >> 32);
	m->e = (unsigned char) (k >> 24);
	m->f = (unsigned char) (k >> 16);
	m->g = (unsigned char) (k >> 8);
	m->h = (unsigned char) k;
	PG_RETURN_MACADDR8_P(m);
}

/* ----------------------------------------------------------------
 * Entry points for the access method
 *
 * The AM goes through the opclass's support functions rather than
 * switching on type OIDs, so user-defined opclasses work too.  Collation
 * is irrelevant to every mapping of a narrow key, but a wide key's prefix
 * depends on it (widekey.c): callers pass the collation of the index's
 * prefixes (FpbCmp.pfxcoll: the column's, or "C" under FPB_PFX_CODEPOINT).
 * ----------------------------------------------------------------
 */

/*
 * Normalised key of a non-NULL value.
 */
uint64
fpb_encode(FmgrInfo *encproc, Oid collation, Datum value)
{
	/* our own integer encoders inline, as in fpb_decode */
	if (encproc->fn_addr == fpbtree_encode_int8)
		return int_to_key(DatumGetInt64(value));
	if (encproc->fn_addr == fpbtree_encode_int4 ||
		encproc->fn_addr == fpbtree_encode_date)
		return int_to_key(DatumGetInt32(value));
	/* a timestamp, whose rows a multi-column comparison reads */
	if (encproc->fn_addr == fpbtree_encode_timestamptz ||
		encproc->fn_addr == fpbtree_encode_timestamp)
		return int_to_key(DatumGetInt64(value));
	/* and the uuid prefix: a uuid build calls it for every row */
	if (encproc->fn_addr == fpbtree_prefix_uuid)
		return fpb_prefix_bytes((const char *) DatumGetUUIDP(value)->data,
								UUID_LEN);
	return (uint64) DatumGetInt64(FunctionCall1Coll(encproc, collation,
													value));
}

/*
 * The (k, t) key of the index entry for a heap tuple whose indexed column
 * is value (or NULL) at heap TID htid.  The build and fpbinsert store
 * exactly this, and the heapallindexed check looks exactly this up, so it
 * must stay the only place that forms it.  encproc is the column's encode
 * procedure; a NULL never reaches it and sorts after every value.
 */
FpbKey
fpb_heap_key(FmgrInfo *encproc, Oid collation, Datum value, bool isnull,
			 ItemPointer htid)
{
	FpbKey		key;

	key.k = isnull ? FPB_KEY_MAX : fpb_encode(encproc, collation, value);
	key.t = fpb_make_t(htid, isnull);
	return key;
}

/*
 * Describe a key for messages: the normalised key and the tiebreaker as
 * heap TID, palloc'd in the current memory context.
 */
char *
fpb_keydesc(uint64 k, uint64 t)
{
	ItemPointerData tid;

	fpb_t_to_heaptid(t, &tid);
	return psprintf("(%016" INT64_MODIFIER "X, (%u,%u)%s)", k,
					ItemPointerGetBlockNumberNoCheck(&tid),
					ItemPointerGetOffsetNumberNoCheck(&tid),
					(t & FPB_T_NULLBIT) ? " null" : "");
}

/*
 * The value whose normalised key is k.  For pass-by-reference types the
 * result is palloc'd in the current memory context.
 */
Datum
fpb_decode(FmgrInfo *decproc, uint64 k)
{
	/*
	 * Index-only scans decode every returned entry: skip the fmgr call for
	 * our own integer decoders (the inverse is one XOR).  Anything else,
	 * including a user-defined operator class, goes through the function.
	 */
	if (decproc->fn_addr == fpbtree_decode_int8 ||
		decproc->fn_addr == fpbtree_decode_timestamp ||
		decproc->fn_addr == fpbtree_decode_timestamptz)
		return Int64GetDatum(key_to_int(k));
	if (decproc->fn_addr == fpbtree_decode_int4)
		return Int32GetDatum((int32) key_to_int(k));
	return FunctionCall1Coll(decproc, InvalidOid, Int64GetDatum((int64) k));
}

/*
 * The closed range [*lo, *hi] of keys whose values compare equal to value
 * (narrow keys only: no collation).
 *
 * Encoding is injective except that "=" identifies values with different
 * keys: for the float types, -0.0 = +0.0.  Their keys are adjacent, so a
 * range covers them.  typid is the type of value (a scan key's subtype may
 * differ from the column type within a family).
 */
void
fpb_encode_range(FmgrInfo *encproc, Oid typid, Datum value,
				 uint64 *lo, uint64 *hi)
{
	if (typid == FLOAT8OID && DatumGetFloat8(value) == 0.0)
	{
		*lo = fpb_encode(encproc, InvalidOid, Float8GetDatum(-0.0));
		*hi = fpb_encode(encproc, InvalidOid, Float8GetDatum(0.0));
	}
	else if (typid == FLOAT4OID && DatumGetFloat4(value) == 0.0f)
	{
		*lo = fpb_encode(encproc, InvalidOid, Float4GetDatum(-0.0f));
		*hi = fpb_encode(encproc, InvalidOid, Float4GetDatum(0.0f));
	}
	else
		*lo = *hi = fpb_encode(encproc, InvalidOid, value);
}

/*
 * The closed range [*lo, *hi] of keys that compare equal to key k in a
 * column whose operator class takes typid.  A unique index must treat
 * the range as one key value: for the float types, whose two zeros are
 * equal but keep adjacent keys, a zero's range holds both.
 */
void
fpb_key_equal_range(Oid typid, uint64 k, uint64 *lo, uint64 *hi)
{
	*lo = *hi = k;
	if ((typid == FLOAT8OID || typid == FLOAT4OID) &&
		(k == float8_to_key(-0.0) || k == float8_to_key(0.0)))
	{
		/* float4 widens exactly, so its zeros have float8's keys */
		*lo = float8_to_key(-0.0);
		*hi = float8_to_key(0.0);
	}
}

/* ----------------------------------------------------------------
 * Cross-type scan keys of the date/time families (support function 3)
 *
 * A scan key whose type S differs from the column type C is turned into
 * C's key domain by support function 3, registered as (C, S) and called
 * as f(value, upper): upper = false gives the key of the least C value
 * that compares >= value, upper = true the key of the greatest C value
 * that compares <= value (as PostgreSQL's own cross-type operators
 * compare them).  The two coincide when value equals some C value; when it
 * falls between two, the scan's "=" range is empty and "<", ">" find their
 * bounds.  Integers and floats need no such function: their types share
 * one key domain.
 *
 * Where the core's comparison converts the scan value to the column type,
 * the converted value is the bound (or, beyond the finite range, the last
 * finite value and infinity).  Where it converts the column value instead
 * (a date column against a timestamp or timestamptz, a timestamp column
 * against a timestamptz), the bound is found by bisection over C's values
 * with the core's comparison, so every subtlety of the conversion (time
 * zone, a date beyond the timestamp range, which compares above every
 * finite timestamp but below infinity) is the core's.  Comparing a timestamp column with a
 * timestamptz converts each column value to timestamptz, which is not
 * monotonic across a daylight-saving gap, so the bisection can land on
 * either side of a gap (as a btree index scan's binary search does, which
 * then leaves rows out).  The scan widens such bounds (fpb_ts_tstz_widen)
 * and has the executor recheck the keys (fpb_scan_key_gap), so it returns
 * what a sequential scan returns.
 * ----------------------------------------------------------------
 */

/* sign of (column value c) compared with the scan value v */
typedef int (*FpbXCmp) (int64 c, Datum v);

/* C's values: -infinity, the finite ones [lo, hi], +infinity */
typedef struct FpbXDomain
{
	int64		noBegin;
	int64		lo;
	int64		hi;
	int64		noEnd;
} FpbXDomain;

static const FpbXDomain fpb_date_domain = {
	PG_INT32_MIN,
	DATETIME_MIN_JULIAN - POSTGRES_EPOCH_JDATE,
	DATE_END_JULIAN - POSTGRES_EPOCH_JDATE - 1,
	PG_INT32_MAX
};

static const FpbXDomain fpb_timestamp_domain = {
	PG_INT64_MIN, MIN_TIMESTAMP, END_TIMESTAMP - 1, PG_INT64_MAX
};

/* the least (upper: greatest) C value that compares >= (<=) v */
static int64
fpb_xbound(const FpbXDomain *d, FpbXCmp cmp, Datum v, bool upper)
{
	int64		a = d->lo,
				b = d->hi;

	if (!upper)
	{
		if (cmp(d->noBegin, v) >= 0)
			return d->noBegin;
		if (cmp(b, v) < 0)
			return d->noEnd;	/* +infinity is >= every value */
		if (cmp(a, v) >= 0)
			return a;
		/* cmp(a) < 0 <= cmp(b); the span of timestamps exceeds int64 */
		while ((uint64) b - (uint64) a > 1)
		{
			int64		m = a + (int64) (((uint64) b - (uint64) a) / 2);

			if (cmp(m, v) >= 0)
				b = m;
			else
				a = m;
		}
		return b;
	}
	if (cmp(d->noEnd, v) <= 0)
		return d->noEnd;
	if (cmp(a, v) > 0)
		return d->noBegin;		/* -infinity is <= every value */
	if (cmp(b, v) <= 0)
		return b;
	/* cmp(a) <= 0 < cmp(b) */
	while ((uint64) b - (uint64) a > 1)
	{
		int64		m = a + (int64) (((uint64) b - (uint64) a) / 2);

		if (cmp(m, v) <= 0)
			a = m;
		else
			b = m;
	}
	return a;
}

static int
fpb_xcmp_date_ts(int64 c, Datum v)
{
	return date_cmp_timestamp_internal((DateADT) c, DatumGetTimestamp(v));
}

static int
fpb_xcmp_date_tstz(int64 c, Datum v)
{
	return date_cmp_timestamptz_internal((DateADT) c, DatumGetTimestampTz(v));
}

static int
fpb_xcmp_ts_tstz(int64 c, Datum v)
{
	return timestamp_cmp_timestamptz_internal((Timestamp) c,
											  DatumGetTimestampTz(v));
}

/*
 * The bound when the comparison converts the scan value to the column type
 * (a timestamp column against a date, a timestamptz column against a date
 * or a timestamp): exact, or beyond the finite range (overflow) and so
 * between the last finite value and infinity.
 */
static int64
fpb_xbound_converted(const FpbXDomain *d, int64 conv, int overflow,
					 bool upper)
{
	if (overflow > 0)
		return upper ? d->hi : d->noEnd;
	if (overflow < 0)
		return upper ? d->noBegin : d->lo;
	return conv;
}

/* a support function 3 whose bound is the converted scan value */
#define FPB_XKEY_CONVERTED(name, getarg, convert) \
PG_FUNCTION_INFO_V1(name); \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	int			overflow; \
	int64		conv = convert(getarg(0), &overflow); \
 \
	PG_RETURN_FPBKEY(int_to_key(fpb_xbound_converted(&fpb_timestamp_domain, \
													 conv, overflow, \
													 PG_GETARG_BOOL(1)))); \
}

FPB_XKEY_CONVERTED(fpbtree_xkey_timestamp_date, PG_GETARG_DATEADT,
				   date2timestamp_opt_overflow)
FPB_XKEY_CONVERTED(fpbtree_xkey_timestamptz_date, PG_GETARG_DATEADT,
				   date2timestamptz_opt_overflow)
FPB_XKEY_CONVERTED(fpbtree_xkey_timestamptz_timestamp, PG_GETARG_TIMESTAMP,
				   timestamp2timestamptz_opt_overflow)

#define FPB_XKEY_FUNC(name, domain, cmp) \
PG_FUNCTION_INFO_V1(name); \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_FPBKEY(int_to_key(fpb_xbound(&(domain), (cmp), PG_GETARG_DATUM(0), \
										   PG_GETARG_BOOL(1)))); \
}

FPB_XKEY_FUNC(fpbtree_xkey_date_timestamp, fpb_date_domain, fpb_xcmp_date_ts)
FPB_XKEY_FUNC(fpbtree_xkey_date_timestamptz, fpb_date_domain, fpb_xcmp_date_tstz)
FPB_XKEY_FUNC(fpbtree_xkey_timestamp_timestamptz, fpb_timestamp_domain, fpb_xcmp_ts_tstz)

/*
 * A timestamp column against a timestamptz argument: how far the bisected
 * bound b may lie from the true end of the values satisfying the key.
 *
 * The core maps a column value c to timestamptz with the session's zone.
 * That map f increases everywhere but at the end of a spring-forward gap
 * of D microseconds, where it falls by D: a local time in the gap reads
 * with the offset before it, so it lands after the first times past the
 * gap.  The least c with f(c) >= v is then either b or a gap value below
 * it, and b lies at most D past the gap's end: b - c <= 2D.  The greatest
 * c with f(c) <= v is symmetric.  Transitions are looked for within three
 * days of b (local times and instants differ by less than a day, and no
 * zone has jumped by more than one); without any there, f is exact and the
 * slack 0.  The scan rechecks such keys, so a wider interval only reads
 * more entries.
 */
static int64
fpb_ts_tstz_slack(Timestamp b)
{
	pg_time_t	t;
	pg_time_t	end;
	int64		slack = 0;

	if (TIMESTAMP_NOT_FINITE(b) || session_timezone == NULL)
		return 0;
	/* b as if it were UTC, in seconds since the Unix epoch */
	t = (pg_time_t) (b / USECS_PER_SEC) +
		(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY;
	end = t + 3 * SECS_PER_DAY;
	t -= 3 * SECS_PER_DAY;
	/* bounded: a zone changes its offset a few times a year at most */
	for (int i = 0; i < 16; i++)
	{
		long int	before,
					after;
		int			bdst,
					adst;
		pg_time_t	boundary;

		if (pg_next_dst_boundary(&t, &before, &bdst, &boundary, &after,
								 &adst, session_timezone) != 1 ||
			boundary > end || boundary <= t)
			break;
		if (after > before)
			slack += 2 * (int64) (after - before) * USECS_PER_SEC;
		t = boundary;
	}
	return slack;
}

/*
 * Widen the key range [*lo, *hi] of a timestamp column bisected against a
 * timestamptz argument (see fpb_ts_tstz_slack), keeping infinite ends.
 */
void
fpb_ts_tstz_widen(uint64 *lo, uint64 *hi)
{
	int64		a = key_to_int(*lo);
	int64		b = key_to_int(*hi);
	int64		s;

	s = fpb_ts_tstz_slack(a);
	if (s > 0)
		*lo = int_to_key(Max(a - s, MIN_TIMESTAMP));
	s = fpb_ts_tstz_slack(b);
	if (s > 0)
		*hi = int_to_key(Min(b + s, END_TIMESTAMP - 1));
}

/* ----------------------------------------------------------------
 * pg_lsn, xid8: unsigned 64-bit numbers, their own keys
 * ----------------------------------------------------------------
 */

PG_FUNCTION_INFO_V1(fpbtree_encode_pg_lsn);
PG_FUNCTION_INFO_V1(fpbtree_decode_pg_lsn);
PG_FUNCTION_INFO_V1(fpbtree_encode_xid8);
PG_FUNCTION_INFO_V1(fpbtree_decode_xid8);

Datum
fpbtree_encode_pg_lsn(PG_FUNCTION_ARGS)
{
	PG_RETURN_FPBKEY((uint64) PG_GETARG_LSN(0));
}

Datum
fpbtree_decode_pg_lsn(PG_FUNCTION_ARGS)
{
	PG_RETURN_LSN((XLogRecPtr) PG_GETARG_FPBKEY(0));
}

Datum
fpbtree_encode_xid8(PG_FUNCTION_ARGS)
{
	PG_RETURN_FPBKEY(U64FromFullTransactionId(PG_GETARG_FULLTRANSACTIONID(0)));
}

Datum
fpbtree_decode_xid8(PG_FUNCTION_ARGS)
{
	PG_RETURN_FULLTRANSACTIONID(FullTransactionIdFromU64(PG_GETARG_FPBKEY(0)));
}
