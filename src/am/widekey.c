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
 * text, varchar, bpchar under an ICU collation, in a UTF8 database:
 *		the first 8 bytes of the value's ICU sort key (bpchar without its
 *		trailing spaces), zero-padded, from ucol_nextSortKeyPart(), which
 *		produces only the bytes asked for.  ICU guarantees that sort keys
 *		compare as ucol_strcoll() compares the strings, and the core's
 *		comparison is ucol_strcoll() (a deterministic collation then breaks
 *		its ties by the bytes, which refines the order without crossing the
 *		sort keys').  Values a non-deterministic collation calls equal have
 *		equal sort keys, so they get one prefix.  The core's abbreviated keys
 *		for ICU are made the same way.
 *
 * text, varchar, bpchar, name under a libc collation without collation
 *		rules (glibc's C.UTF-8 since 2.35), in an index that records it
 *		(FPB_PFX_CODEPOINT):
 *		the "C" prefix.  strcoll() is strcmp() there: code-point order,
 *		which in UTF-8 is the order of the bytes.  The index calls this
 *		procedure with "C" (FpbCmp.pfxcoll); called with C.UTF-8 itself it
 *		still returns 0, as for the indexes built before, whose prefixes are
 *		that.
 *
 * text, varchar, bpchar under any other collation (libc's, or ICU in
 *		another encoding):
 *		0.  Every comparison ties and the collation's own comparison decides,
 *		which is right for every collation.  glibc's strxfrm() is not
 *		trusted to agree with strcoll(), which is why the core has no
 *		abbreviated keys for libc collations either.
 *
 * Like the encode functions of keys.c, these double as the unit-test path:
 * at SQL level a prefix is an int8 holding the uint64 bit pattern, and
 * casting it to bit(64) compares it unsigned.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#ifdef __GLIBC__
#include <langinfo.h>
#endif

#include "catalog/pg_collation.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "port/pg_bswap.h"
#include "utils/builtins.h"
#include "utils/pg_locale.h"
#include "utils/uuid.h"

#include "fpbtree.h"

PG_FUNCTION_INFO_V1(fpbtree_prefix_uuid);
PG_FUNCTION_INFO_V1(fpbtree_prefix_text);
PG_FUNCTION_INFO_V1(fpbtree_prefix_bpchar);

/*
 * The first FPB_PREFIX_LEN of len bytes, big-endian, zero-padded: one load
 * and a byte swap where a byte loop took about 70 instructions a prefix.
 */
uint64
fpb_prefix_bytes(const char *data, Size len)
{
	uint64		k = 0;

	StaticAssertStmt(FPB_PREFIX_LEN == sizeof(uint64),
					 "a prefix is one uint64 of bytes");
	memcpy(&k, data, Min(len, FPB_PREFIX_LEN));
	return pg_ntoh64(k);
}

/* How a collation's prefixes are made */
typedef enum FpbPrefixKind
{
	FPB_PREFIX_CONST,			/* 0 for every value */
	FPB_PREFIX_BYTES,			/* "C", POSIX: the bytes */
	FPB_PREFIX_ICU				/* the ICU sort key */
} FpbPrefixKind;

/*
 * The kind of prefix for collation collid, and for ICU its collator.  The
 * sort key is computed from UTF-8 directly; other encodings would need a
 * conversion per value, and keep the constant.
 */
static FpbPrefixKind
fpb_prefix_kind(Oid collid, pg_locale_t *locale)
{
	*locale = NULL;
	if (lc_collate_is_c(collid))
		return FPB_PREFIX_BYTES;
#ifdef USE_ICU
	if (OidIsValid(collid) && GetDatabaseEncoding() == PG_UTF8)
	{
		*locale = pg_newlocale_from_collation(collid);
		if (*locale != NULL && (*locale)->provider == COLLPROVIDER_ICU)
			return FPB_PREFIX_ICU;
	}
#endif
	return FPB_PREFIX_CONST;
}

/* Prefix of a string of len bytes, of a kind other than the constant */
static uint64
fpb_prefix_string(FpbPrefixKind kind, pg_locale_t locale, const char *data,
				  Size len)
{
#ifdef USE_ICU
	if (kind == FPB_PREFIX_ICU)
	{
		UCharIterator iter;
		uint32_t	state[2] = {0, 0};
		uint8_t		buf[FPB_PREFIX_LEN];
		UErrorCode	status = U_ZERO_ERROR;
		int32_t		n;

		uiter_setUTF8(&iter, data, len);
		n = ucol_nextSortKeyPart(locale->info.icu.ucol, &iter, state, buf,
								 sizeof(buf), &status);
		if (U_FAILURE(status))
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("sort key generation failed: %s",
							u_errorName(status))));
		return fpb_prefix_bytes((const char *) buf, n);
	}
#endif
	Assert(kind == FPB_PREFIX_BYTES);
	return fpb_prefix_bytes(data, len);
}

/*
 * Prefix of a string of len bytes compared with collation collid (the
 * name type, whose values are not varlenas).
 */
uint64
fpb_prefix_cstring(const char *data, Size len, Oid collid)
{
	pg_locale_t locale;
	FpbPrefixKind kind = fpb_prefix_kind(collid, &locale);

	if (kind == FPB_PREFIX_CONST)
		return 0;
	return fpb_prefix_string(kind, locale, data, len);
}

/*
 * A varlena value with at least its first len bytes in line: the value
 * itself unless it is toasted (a slice of it then).  PostgreSQL's slice
 * functions copy even a plain value, which cost a build or a probe a
 * palloc and about 70 instructions per prefix.
 */
struct varlena *
fpb_varlena_head(Datum value, int32 len)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(value);

	if (!VARATT_IS_EXTERNAL(v) && !VARATT_IS_COMPRESSED(v))
		return v;
	return pg_detoast_datum_slice(v, 0, len);
}

/*
 * Prefix of a text or varchar value compared with collation collid.
 * Under "C" only the first bytes of a toasted value are read; an ICU sort
 * key may depend on the characters that follow, so ICU reads it whole.
 */
uint64
fpb_prefix_text(Datum value, Oid collid)
{
	pg_locale_t locale;
	FpbPrefixKind kind = fpb_prefix_kind(collid, &locale);
	text	   *t;
	uint64		k;

	if (kind == FPB_PREFIX_CONST)
		return 0;
	if (kind == FPB_PREFIX_BYTES)
		return fpb_prefix_text_c(value);
	t = DatumGetTextPP(value);
	k = fpb_prefix_string(kind, locale, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
	if ((Pointer) t != DatumGetPointer(value))
		pfree(t);
	return k;
}

/*
 * The same under "C" or POSIX: the first bytes.  A build's load calls it
 * directly for each value of such an index (build_wide.c), which the sort
 * did not give a prefix.
 */
uint64
fpb_prefix_text_c(Datum value)
{
	text	   *t = (text *) fpb_varlena_head(value, FPB_PREFIX_LEN);
	uint64		k = fpb_prefix_bytes(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));

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
	pg_locale_t locale;
	FpbPrefixKind kind = fpb_prefix_kind(collid, &locale);
	BpChar	   *b;
	uint64		k;

	if (kind == FPB_PREFIX_CONST)
		return 0;
	b = DatumGetBpCharPP(value);
	k = fpb_prefix_string(kind, locale, VARDATA_ANY(b),
						  bpchartruelen(VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b)));
	if ((Pointer) b != DatumGetPointer(value))
		pfree(b);
	return k;
}

/*
 * Does prefix procedure proc give every value under collation collid the
 * same prefix (a build then gains nothing by sorting on it)?
 */
bool
fpb_prefix_is_const(const FmgrInfo *proc, Oid collid)
{
	pg_locale_t locale;

	if (proc->fn_addr == fpbtree_prefix_none)
		return true;
	if (proc->fn_addr == fpbtree_prefix_text ||
		proc->fn_addr == fpbtree_prefix_bpchar ||
		proc->fn_addr == fpbtree_prefix_name)
		return fpb_prefix_kind(collid, &locale) == FPB_PREFIX_CONST;
	return false;
}

/*
 * Does collation collid compare strings as strcmp() does without being "C"
 * or POSIX: a libc locale with no collation rules, as glibc's C.UTF-8 is
 * since 2.35 (codepoint_collation)?  glibc's strcoll() is strcmp() for such
 * a locale, so the collation's comparison is "C"'s, and its values'
 * prefixes may be taken under "C" (FPB_PFX_CODEPOINT).  The number of
 * rules is a word of the locale's data, read as glibc stores it.
 */
bool
fpb_collation_is_codepoint(Oid collid)
{
#ifdef __GLIBC__
	pg_locale_t locale;
	union
	{
		const char *string;
		unsigned int word;
	}			nrules;

	if (!OidIsValid(collid) || lc_collate_is_c(collid))
		return false;
	locale = pg_newlocale_from_collation(collid);
	if (locale == NULL)
	{
		/* the database's libc default: the process's LC_COLLATE */
		nrules.string = nl_langinfo(_NL_COLLATE_NRULES);
	}
	else if (locale->provider == COLLPROVIDER_LIBC)
		nrules.string = nl_langinfo_l(_NL_COLLATE_NRULES, locale->info.lt);
	else
		return false;
	return nrules.word == 0;
#else
	return false;
#endif
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
