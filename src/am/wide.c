/*-------------------------------------------------------------------------
 *
 * wide.c
 *	  Full values of wide indexes (README "Wide keys"): the comparison of
 *	  entries by (prefix, NULL bit, full value, TID), the form a value is
 *	  stored in, and the slotted area of a page that holds them.
 *
 * On a page of a wide index the 8-byte key of every node entry and of the
 * high key holds the value's prefix in its top 48 bits and, in the low 16,
 * the byte offset of the value's slot in the same page (0: no value, for
 * NULL entries and minus infinity).  The nodes themselves, and every piece
 * of code that moves keys between nodes, are those of a narrow index: a
 * copied key carries its slot offset along, so an in-page separator shares
 * the slot of the entry it copies.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/relation.h"
#include "access/toast_compression.h"
#include "access/toast_internals.h"
#include "catalog/pg_collation_d.h"
#include "catalog/pg_type_d.h"
#include "fpbtree.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/pg_locale.h"
#include "utils/rel.h"
#include "utils/uuid.h"

/* fpbtree.debug_codepoint_prefix_const: new indexes without FPB_PFX_* flags */
bool		fpb_debug_codepoint_prefix_const = false;

const char	fpb_full_plusinf = 0;

/*
 * fpb_full_cmp of a stored value kept compressed (fpb_full_compress): the
 * inline comparisons read bytes, so both sides are decompressed first, and
 * the copies freed at once (a scan may compare many such values).
 */
static int
fpb_full_cmp_compressed(const FpbCmp *cmp, const char *a, const char *b)
{
	const char *da = (const char *) pg_detoast_datum_packed((struct varlena *) a);
	const char *db = (const char *) pg_detoast_datum_packed((struct varlena *) b);
	int			c = fpb_full_cmp(cmp, da, db);

	if (da != a)
		pfree((void *) da);
	if (db != b)
		pfree((void *) db);
	return c;
}

/* Three-way comparison of two full values. */
int
fpb_full_cmp(const FpbCmp *cmp, const char *a, const char *b)
{
	int32		c;

	if (cmp->multi)
		return fpb_tuple_cmp(cmp, a, b);
	/*
	 * uuid; under suffix slots (cmp->skip) a stored value's first bytes are
	 * not in its slot, and every caller compares values only when their
	 * prefixes, those very bytes, tie (fpb_wide_cmp_values)
	 */
	if (cmp->bytewise)
		return memcmp(a + cmp->skip, b + cmp->skip, cmp->typlen - cmp->skip);
	if (cmp->textc)
	{
		/* text under "C": bttextcmp's answer without its call */
		int			la,
					lb;

		/* compressed stored values; a long bound's, by reference */
		if (unlikely(VARATT_IS_COMPRESSED(a) || VARATT_IS_COMPRESSED(b) ||
					 VARATT_IS_EXTERNAL(a) || VARATT_IS_EXTERNAL(b)))
			return fpb_full_cmp_compressed(cmp, a, b);
		la = VARSIZE_ANY_EXHDR(a);
		lb = VARSIZE_ANY_EXHDR(b);
		c = memcmp(VARDATA_ANY(a), VARDATA_ANY(b), Min(la, lb));
		if (c == 0)
			c = la - lb;
		return (c > 0) - (c < 0);
	}
	c = DatumGetInt32(FunctionCall2Coll((FmgrInfo *) &cmp->proc,
										cmp->collation,
										PointerGetDatum(a),
										PointerGetDatum(b)));
	return (c > 0) - (c < 0);
}

/*
 * The order of a wide index: prefix (without the slot offset bits), then
 * NULL bit, then the full values (none, minus infinity, below any), then
 * the tiebreaker.  The comparison function runs only when prefixes tie.
 */
int
fpb_wide_cmp(const FpbCmp *cmp, uint64 ak, uint64 at, const char *af,
			 uint64 bk, uint64 bt, const char *bf)
{
	int			c = fpb_wide_cmp_head(ak, at, bk, bt);

	if (c != 0)
		return c;
	return fpb_wide_cmp_values(cmp, at, af, bt, bf);
}

/* The rest of fpb_wide_cmp, once prefixes and NULL bits tie. */
int
fpb_wide_cmp_values(const FpbCmp *cmp, uint64 at, const char *af,
					uint64 bt, const char *bf)
{
	if (af != bf)
	{
		int			c;

		if (af == NULL || bf == FPB_FULL_PLUSINF)
			return -1;
		if (bf == NULL || af == FPB_FULL_PLUSINF)
			return 1;
		c = fpb_full_cmp(cmp, af, bf);
		if (c != 0)
			return c;
	}
	if (at != bt)
		return at < bt ? -1 : 1;
	return 0;
}

/* Bytes a full value takes. */
Size
fpb_full_size(const FpbCmp *cmp, const char *f)
{
	if (cmp->multi)
		return fpb_tuple_size(f);
	return cmp->typlen > 0 ? (Size) cmp->typlen : VARSIZE_ANY(f);
}

/* The same on a wide page, which records the length of fixed-size values. */
static inline Size
fpb_page_full_size(Page page, const char *f)
{
	int			len = FpbPageGetOpaque(page)->fulllen;

	if (FPB_FULLLEN_IS_TUPLE(len))
		return fpb_tuple_size(f);
	if (len == FPB_FULLLEN_SFX16)
		return UUID_LEN;
	return len > 0 ? (Size) len : VARSIZE_ANY(f);
}

/*
 * Largest full value a wide index with node widths w and x accepts: a page
 * must hold three entries and a high key besides two leaf nodes and one
 * non-leaf node, as btree keeps three items to a page.
 */
int
fpb_wide_maxkey(int w, int x)
{
	int			room = BLCKSZ - FPB_DATA_START - FPB_SPECIAL_SIZE -
		FPB_LINE * (2 * x + w);

	return Min(FPB_FULL_MAX, (room / 4) & ~7);
}

/*
 * The stored form of a column value: the datum itself for a fixed-length
 * type, an untoasted varlena with a 1-byte header when it is short enough
 * (as in an index tuple; not for a type stored plain, such as oidvector,
 * whose functions read the header without detoasting).  A scan key's value
 * takes this form too, at any size: it is compared, never stored.
 */
const char *
fpb_full_form(const FpbCmp *cmp, Datum value)
{
	struct varlena *v;

	if (cmp->typlen > 0)
	{
		if (unlikely(cmp->namepad))
			return DatumGetPointer(fpb_name_padded(value));
		return DatumGetPointer(value);
	}
	if (cmp->plain)
		return (const char *) pg_detoast_datum((struct varlena *)
											   DatumGetPointer(value));
	v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value));
	if (VARATT_IS_4B_U(v) && VARATT_CAN_MAKE_SHORT(v))
	{
		Size		len = VARATT_CONVERTED_SHORT_SIZE(v);
		char	   *s = palloc(len);

		SET_VARSIZE_SHORT(s, len);
		memcpy(s + 1, VARDATA(v), len - 1);
		v = (struct varlena *) s;
	}
	return (const char *) v;
}

/*
 * A varlena value too long for a slot, compressed as index_form_tuple
 * compresses btree's, or v itself when it does not compress.  Always with
 * pglz, whatever the column's or the server's setting: equal values must
 * get equal bytes (pages of runs keep one copy of a run's value), and pglz
 * is in every build.
 */
const char *
fpb_full_compress(const char *v)
{
	Datum		c;

	Assert(!VARATT_IS_EXTERNAL(v) && !VARATT_IS_COMPRESSED(v));
	c = toast_compress_datum(PointerGetDatum(v), TOAST_PGLZ_COMPRESSION);
	return DatumGetPointer(c) != NULL ? DatumGetPointer(c) : v;
}

/*
 * The stored form of a value to be stored in the index.  A varlena value
 * above maxkey is compressed (README "Limit"); one that stays above it is
 * refused as btree refuses index rows too large for a page.  Stored values
 * at or below maxkey are never compressed: the comparisons read them in
 * place.
 */
const char *
fpb_full_image(const FpbCmp *cmp, Datum value, Relation index,
			   ItemPointer htid)
{
	const char *v = fpb_full_form(cmp, value);
	Size		size;

	if (cmp->typlen > 0)
		return v;
	size = VARSIZE_ANY(v);
	if (size > (Size) cmp->maxkey && (cmp->pfxflags & FPB_PFX_COMPRESS) &&
		fpb_storage_compresses(TupleDescAttr(RelationGetDescr(index), 0)->attstorage))
	{
		v = fpb_full_compress(v);
		size = VARSIZE_ANY(v);
	}
	fpb_check_row_size(cmp, index, size, htid);
	return (const char *) v;
}

/*
 * fpbtree_check of a one-column index's stored value f: compressed only
 * where the format allows it and the value is too long for a slot.
 */
bool
fpb_full_compress_ok(const FpbCmp *cmp, const char *f)
{
	if (f == NULL || cmp->typlen != -1 || !VARATT_IS_COMPRESSED(f))
		return true;
	return (cmp->pfxflags & FPB_PFX_COMPRESS) != 0 &&
		toast_raw_datum_size(PointerGetDatum(f)) > (Size) cmp->maxkey;
}

/*
 * Refuse a stored value (or multi-column row) of the heap row at htid above
 * the page's limit, saying which row as btree does.
 */
void
fpb_check_row_size(const FpbCmp *cmp, Relation index, Size size,
				   ItemPointer htid)
{
	Relation	heap;

	if (size <= (Size) cmp->maxkey)
		return;
	/* the caller (insert, build) holds a lock on the table */
	heap = relation_open(index->rd_index->indrelid, NoLock);
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("index row size %zu exceeds fpbtree maximum %d for index \"%s\"",
					size, cmp->maxkey, RelationGetRelationName(index)),
			 errdetail("Index row references tuple (%u,%u) in relation \"%s\".",
					   ItemPointerGetBlockNumber(htid),
					   ItemPointerGetOffsetNumber(htid),
					   RelationGetRelationName(heap)),
			 errhint("Values larger than a quarter of a page after compression cannot be indexed."),
			 errtableconstraint(heap, RelationGetRelationName(index))));
}

/*
 * Set up the comparison of column col (0-based) of a wide index, or return
 * false for a narrow column (its operator class has no support function 4).
 */
bool
fpb_col_init(Relation index, int col, FpbCmp *cmp)
{
	Oid			procid = index_getprocid(index, col + 1, FPB_CMP_PROC);

	if (!OidIsValid(procid))
		return false;
	fmgr_info_cxt(procid, &cmp->proc, index->rd_indexcxt);
	cmp->collation = index->rd_indcollation[col];
	cmp->typlen = get_typlen(index->rd_opcintype[col]);
	cmp->bytewise = (procid == F_UUID_CMP);
	/* so does a collation without rules (fpb_collation_is_codepoint) */
	cmp->textc = (procid == F_BTTEXTCMP && OidIsValid(cmp->collation) &&
				  (lc_collate_is_c(cmp->collation) ||
				   fpb_collation_is_codepoint(cmp->collation)));
	/* the column's type: an array class may index oidvector */
	cmp->plain = (TupleDescAttr(RelationGetDescr(index), col)->attstorage ==
				  TYPSTORAGE_PLAIN);
	cmp->byval = TupleDescAttr(RelationGetDescr(index), col)->attbyval;
	cmp->namepad = (index->rd_opcintype[col] == NAMEOID);
	return true;
}

/*
 * May equal values of a one-column wide index share one stored value on a
 * page of runs (posting.c)?  Only where the comparison calls values equal
 * exactly when their bytes are (fpb_full_image_eq): uuid, bytea, enums
 * (one OID per label), and text (varchar) under a deterministic collation
 * or in the pattern classes; and, in indexes built since (FPB_PFX_RUNS),
 * timetz (equal only with the same time and zone), inet and cidr (family,
 * mask length and the address's bytes) and bit and varbit (length and
 * bits, the last byte's unused bits zero), for which btree deduplicates
 * too; and, in indexes built since FPB_PFX_NAMERUNS, name under a
 * deterministic collation, which fpb_full_form and fpb_form_tuple store
 * zero after the string.
 * Elsewhere equal values may differ (numeric 1.0 and 1.00, interval
 * 1 mon and 30 days, bpchar's trailing spaces, a case-insensitive
 * collation): an index-only scan must return each entry's own, and runs
 * of equal bytes could then interleave.
 */
int
fpb_col_dedup(const FpbCmp *cmp)
{
	switch (cmp->proc.fn_oid)
	{
		case F_UUID_CMP:
		case F_BYTEACMP:
		case F_BTTEXT_PATTERN_CMP:
		case F_ENUM_CMP:
			return FPB_DEDUP_YES;
		case F_BTTEXTCMP:
			return OidIsValid(cmp->collation) &&
				get_collation_isdeterministic(cmp->collation) ?
				FPB_DEDUP_YES : FPB_DEDUP_NO;
		case F_TIMETZ_CMP:
		case F_NETWORK_CMP:
		case F_BITCMP:
			return FPB_DEDUP_FLAGGED;
		case F_BTNAMECMP:
			return OidIsValid(cmp->collation) &&
				get_collation_isdeterministic(cmp->collation) ?
				FPB_DEDUP_NAME : FPB_DEDUP_NO;
		default:
			return FPB_DEDUP_NO;
	}
}

/*
 * Is name f zero after its string?  PostgreSQL makes every name so, but
 * the type does not promise it; fpbtree stores names so (fpb_full_form),
 * since runs of names (FPB_PFX_NAMERUNS) are told apart by their bytes.
 */
bool
fpb_name_is_padded(const char *f)
{
	for (Size i = strnlen(f, NAMEDATALEN); i < NAMEDATALEN; i++)
	{
		if (f[i] != '\0')
			return false;
	}
	return true;
}

/*
 * fpbtree_check: are the names of stored value f (a one-column index's, or
 * a multi-column row's key columns) zero after their strings?  Required
 * where runs of equal values rely on it (cmp->dedup).
 */
bool
fpb_full_names_padded(const FpbCmp *cmp, const char *f)
{
	bool		isnull;
	Datum		d;

	if (f == NULL || f == FPB_FULL_PLUSINF || !cmp->dedup)
		return true;
	if (!cmp->multi)
		return !cmp->namepad || fpb_name_is_padded(f);
	for (int j = 0; j < cmp->nkeys; j++)
	{
		if (!cmp->cols[j].namepad)
			continue;
		d = fpb_tuple_getattr(cmp->tupdesc, f, j + 1, &isnull);
		if (!isnull && !fpb_name_is_padded(DatumGetPointer(d)))
			return false;
	}
	return true;
}

/* Name value as fpbtree stores it: itself, or a copy zero after the string */
Datum
fpb_name_padded(Datum value)
{
	const char *f = DatumGetPointer(value);
	char	   *copy;

	if (fpb_name_is_padded(f))
		return value;
	copy = palloc0(NAMEDATALEN);
	memcpy(copy, f, Min(strnlen(f, NAMEDATALEN), NAMEDATALEN - 1));
	return PointerGetDatum(copy);
}

/*
 * Are two full values the same bytes (the varlena header's form aside)?
 * fl is what a wide page records as their size (fpb_cmp_fulllen).  Either
 * may be NULL (no value).  A value compressed for its length
 * (fpb_full_compress) compares as its compressed bytes: equal values have
 * equal lengths, so both are compressed, and by one method, which gives
 * equal bytes.
 */
bool
fpb_full_image_eq(int fl, const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	if (FPB_FULLLEN_IS_TUPLE(fl))
	{
		Size		size = fpb_tuple_size(a);

		/*
		 * A row that left its first bytes out, beside a whole one: the
		 * prefix, the caller's to compare, holds them
		 */
		if (fpb_rowskip_len(fl) != 0 && fpb_is_packed(a) &&
			fpb_is_packed(b) &&
			(a[1] & FPB_PACKED_SKIPBIT) != (b[1] & FPB_PACKED_SKIPBIT))
		{
			char		skipped[FPB_PACKED_MAX];

			if (a[1] & FPB_PACKED_SKIPBIT)
			{
				const char *w = a;

				a = b;
				b = w;
			}
			/* b left bytes out: a the same way */
			if (!fpb_packed_skippable(fl, a))
				return false;
			fpb_packed_skip(fl, skipped, a);
			size = fpb_tuple_size(skipped);
			return size == fpb_tuple_size(b) &&
				memcmp(skipped, b, size) == 0;
		}
		return size == fpb_tuple_size(b) &&
			memcmp(a, b, size) == 0;
	}
	/* the bytes a slot holds; the prefix is the caller's to compare */
	if (fl == FPB_FULLLEN_SFX16)
		return memcmp(a + FPB_SFX_SKIP, b + FPB_SFX_SKIP,
					  UUID_LEN - FPB_SFX_SKIP) == 0;
	if (fl > 0)
		return memcmp(a, b, fl) == 0;
	return VARSIZE_ANY_EXHDR(a) == VARSIZE_ANY_EXHDR(b) &&
		memcmp(VARDATA_ANY(a), VARDATA_ANY(b), VARSIZE_ANY_EXHDR(a)) == 0;
}

/*
 * Do two wide entries belong to one run of a page of runs (posting.c)?  The
 * same prefix, NULL bit and value bytes; fl as for fpb_full_image_eq.
 */
bool
fpb_entry_image_same(int fl, const FpbEntry *a, const FpbEntry *b)
{
	return FPB_WIDE_PREFIX(a->k) == FPB_WIDE_PREFIX(b->k) &&
		((a->t ^ b->t) & FPB_T_NULLBIT) == 0 &&
		fpb_full_image_eq(fl, a->f, b->f);
}

/*
 * Is the prefix of stored key k the prefix of its one-column value f
 * (encproc: support procedure 1)?  *p gets the value's.  A value read from
 * a suffix slot has no bytes of its own where its prefix lies: its key
 * holds them, so there is nothing to disagree.
 */
bool
fpb_full_prefix_ok(const FpbCmp *cmp, FmgrInfo *encproc, const char *f,
				   uint64 k, uint64 *p)
{
	if (cmp->skip)
	{
		*p = FPB_WIDE_PREFIX(k);
		return true;
	}
	*p = FPB_WIDE_PREFIX(fpb_encode(encproc, cmp->pfxcoll,
									PointerGetDatum(f)));
	return *p == FPB_WIDE_PREFIX(k);
}

/* Bytes fpb_cmp_init needs besides the FpbCmp (its space argument). */
Size
fpb_cmp_space(Relation index)
{
	if (fpb_index_is_multi(index))
		return fpb_multi_space(index);
	return 0;
}

/*
 * Set up the comparison of a wide index, or return false for a narrow one.
 * A multi-column or INCLUDE index is always wide; what its columns need
 * goes into space, fpb_cmp_space bytes (NULL: palloc'd), so that it lives
 * and dies with the FpbCmp.
 */
bool
fpb_cmp_init(Relation index, FpbCmp *cmp, int w, int x, void *space)
{
	memset(cmp, 0, sizeof(FpbCmp));
	cmp->maxkey = fpb_wide_maxkey(w, x);
	/*
	 * A new index's format; fpb_index_cmp sets the metapage's, which every
	 * use of an existing index must take.
	 */
	cmp->mprefix = fpb_new_mprefix(index);
	if (fpb_index_is_multi(index))
	{
		if (space == NULL)
			space = palloc(fpb_multi_space(index));
		fpb_multi_init(index, cmp, space);
	}
	else
	{
		int			dedup;

		if (!fpb_col_init(index, 0, cmp))
			return false;
		dedup = fpb_col_dedup(cmp);
		cmp->dedup_base = dedup != FPB_DEDUP_NO;
		/* a uuid prefix is the value's first bytes exactly */
		cmp->skip_base = cmp->bytewise && cmp->typlen == UUID_LEN &&
			index_getprocinfo(index, 1, FPB_ENCODE_PROC)->fn_addr ==
			fpbtree_prefix_uuid;
		cmp->dedup_flags = dedup == FPB_DEDUP_FLAGGED ? FPB_PFX_RUNS :
			dedup == FPB_DEDUP_NAME ? FPB_PFX_NAMERUNS : 0;
	}
	fpb_cmp_set_pfxflags(cmp, fpb_new_pfxflags(index, cmp));
	return true;
}

/*
 * The format flag under which the packed rows of cmp's index leave their
 * first value, or part of it, to the prefix (rowskip_base), or 0: a uuid's
 * first bytes are its prefix, an integer's code leads the coded prefix
 * (FPB_MPREFIX_CODED), a timestamp's key's top bits are the first column's
 * prefix (FPB_MPREFIX_FIRST).  A domain over the type reads as the type
 * (fpb_multi_init), so the flag decides for it too: also in an index that
 * ALTER COLUMN TYPE kept when it made the column a domain over its type,
 * or its type from such a domain.
 */
static uint16
fpb_rowskip_flag(const FpbCmp *cmp)
{
	if (cmp->rowskip_base == FPB_FULLLEN_TUPSFX)
		return FPB_PFX_ROWSFX;
	if (FPB_FULLLEN_ROWINT(cmp->rowskip_base) &&
		cmp->mprefix == FPB_MPREFIX_CODED)
		return FPB_PFX_ROWINT;
	if (FPB_FULLLEN_ROWTS(cmp->rowskip_base) &&
		cmp->mprefix == FPB_MPREFIX_FIRST)
		return FPB_PFX_ROWTS;
	return 0;
}

/*
 * The format flags of a new wide index (FPB_PFX_*): FPB_PFX_CODEPOINT when
 * its first column is compared and prefixed by fpbtree's own text, bpchar
 * or name functions (whose "C" prefixes agree with the comparison under
 * such a collation) and its collation compares as strcmp()
 * (fpb_collation_is_codepoint); FPB_PFX_COMPRESS when a column is a
 * varlena that may be compressed (not a type stored plain); FPB_PFX_PACKED
 * for a multi-column index whose rows can be packed (packed.c), with
 * FPB_PFX_PACKVAR when they hold varlena values;
 * FPB_PFX_RUNS where cmp's values share runs only with it;
 * FPB_PFX_UUIDSFX for a uuid, whose slots then leave its prefix's bytes
 * out.  The debugging
 * settings make an index as a build before the flags did.
 */
uint16
fpb_new_pfxflags(Relation index, const FpbCmp *cmp)
{
	TupleDesc	desc = RelationGetDescr(index);
	Oid			cmpproc;
	PGFunction	fn;
	uint16		flags = 0;

	if (fpb_debug_codepoint_prefix_const)
		return 0;
	/* a version 4 flag: not under the settings that build version 3 */
	if (cmp->dedup_base && fpb_build_starts())
		flags |= cmp->dedup_flags;
	if (cmp->skip_base && fpb_build_starts())
		flags |= FPB_PFX_UUIDSFX;
	if (fpb_rowskip_flag(cmp) != 0 &&
		(fpb_packed_eligible(desc) || fpb_packed_var_eligible(desc)) &&
		!fpb_debug_multi_prefix_first && fpb_build_starts())
	{
		flags |= fpb_rowskip_flag(cmp);
		/* which a build before it, reading by the domain, would misread */
		if (cmp->rowdomain)
			flags |= FPB_PFX_ROWDOMAIN;
	}
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attlen == -1 && att->attstorage != TYPSTORAGE_PLAIN)
			flags |= FPB_PFX_COMPRESS;
	}
	if (fpb_index_is_multi(index) && fpb_packed_eligible(desc) &&
		!fpb_debug_multi_prefix_first)
		flags |= FPB_PFX_PACKED;
	else if (fpb_index_is_multi(index) && fpb_packed_var_eligible(desc) &&
			 !fpb_debug_multi_prefix_first && fpb_build_starts())
		flags |= FPB_PFX_PACKED | FPB_PFX_PACKVAR;
	cmpproc = index_getprocid(index, 1, FPB_CMP_PROC);
	if (cmpproc != F_BTTEXTCMP && cmpproc != F_BPCHARCMP &&
		cmpproc != F_BTNAMECMP)
		return flags;
	fn = index_getprocinfo(index, 1, FPB_ENCODE_PROC)->fn_addr;
	if ((fn == fpbtree_prefix_text || fn == fpbtree_prefix_bpchar ||
		 fn == fpbtree_prefix_name) &&
		fpb_collation_is_codepoint(index->rd_indcollation[0]))
		flags |= FPB_PFX_CODEPOINT;
	return flags;
}

/*
 * Take pfxflags (a new index's, or the metapage's): the collation the
 * first column's prefixes are computed under.
 */
void
fpb_cmp_set_pfxflags(FpbCmp *cmp, uint16 pfxflags)
{
	cmp->pfxflags = pfxflags;
	/* an index built before its flag keeps one value an entry */
	cmp->dedup = cmp->dedup_base &&
		(pfxflags & cmp->dedup_flags) == cmp->dedup_flags;
	cmp->skip = cmp->skip_base && (pfxflags & FPB_PFX_UUIDSFX) ?
		FPB_SFX_SKIP : 0;
	cmp->rowskip = (pfxflags & FPB_PFX_PACKED) &&
		(pfxflags & fpb_rowskip_flag(cmp)) ? cmp->rowskip_base : 0;
	cmp->pfxcoll = (pfxflags & FPB_PFX_CODEPOINT) ? C_COLLATION_OID :
		cmp->collation;
}

/* What the metapage of an index being built with cmp records. */
uint16
fpb_cmp_pfxflags(const FpbCmp *cmp)
{
	return cmp != NULL ? cmp->pfxflags : 0;
}

/*
 * The full value of a stored key of a wide page, or NULL when it has none.
 * On a page of suffix slots (FPB_FULLLEN_SFX16) the value begins
 * FPB_SFX_SKIP bytes before its slot, and those bytes are not its own:
 * comparisons read only the rest (fpb_full_cmp), and a copy is given the
 * key's bytes there (fpb_full_unskip).
 */
const char *
fpb_slot_get(Page page, uint64 storedk, BlockNumber blkno)
{
	uint16		off = (uint16) (storedk & FPB_WIDE_OFFMASK);

	if (off == 0)
		return NULL;
	if (off < ((PageHeader) page)->pd_upper ||
		off >= BLCKSZ - FPB_SPECIAL_SIZE)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("fpbtree page %u is corrupted: %s", blkno,
						"full key offset outside the slotted area")));
	{
		int			fl = FpbPageGetOpaque(page)->fulllen;
		int			skip = fpb_fulllen_skip(fl);
		const char *f = (const char *) page + off - skip;
		Size		room = BLCKSZ - FPB_SPECIAL_SIZE - off + skip;

		/*
		 * The value must end in the area too: a copy of it (index-only
		 * scans, keeping a high key) would otherwise run past the page.
		 * Its length field is read only where it lies in the area.
		 */
		if ((FPB_FULLLEN_IS_TUPLE(fl) && !fpb_is_packed(f) &&
			 room < sizeof(IndexTupleData)) ||
			(fl == 0 && !VARATT_IS_1B(f) && room < VARHDRSZ) ||
			fpb_page_full_size(page, f) > room)
			ereport(ERROR,
					(errcode(ERRCODE_INDEX_CORRUPTED),
					 errmsg("fpbtree page %u is corrupted: %s", blkno,
							"full key runs past the slotted area")));
		return f;
	}
}

/*
 * Where a slot of f would start below upper: as high as its alignment
 * (fpb_slot_align) lets it.
 */
static int
fpb_slot_start(Page page, const char *f, int upper)
{
	int			align = fpb_slot_align(page, f);
	int			fl = FpbPageGetOpaque(page)->fulllen;
	int			skip = fpb_fulllen_skip(fl);

	/* a whole packed row that will leave its first value's first bytes out */
	if (fpb_packed_skippable(fl, f))
		skip = fpb_rowskip_len(fl);
	return (upper - (int) fpb_page_full_size(page, f) + skip) & ~(align - 1);
}

/*
 * Bytes of a value of a wide page (0 for none), padding excluded; of a
 * suffix slot's, the whole value's from where fpb_slot_get puts it.
 */
Size
fpb_slot_len(Page page, const char *f)
{
	return f ? fpb_page_full_size(page, f) : 0;
}

/* Bytes f would take in a slot of page below upper, padding included. */
int
fpb_slot_need(Page page, const char *f, int upper)
{
	return f ? upper - fpb_slot_start(page, f, upper) : 0;
}

/*
 * Store f in a new slot just below pd_upper and return the key to put in a
 * node: the prefix bits of k with the slot's offset.  The caller has made
 * sure that the slot stays above pd_lower.
 */
uint64
fpb_slot_put(Page page, uint64 k, const char *f)
{
	PageHeader	ph = (PageHeader) page;
	int			fl = FpbPageGetOpaque(page)->fulllen;
	int			skip = fpb_fulllen_skip(fl);
	int			start;

	if (f == NULL)
		return FPB_WIDE_PREFIX(k);
	start = fpb_slot_start(page, f, ph->pd_upper);
	Assert(start >= ph->pd_lower);
	/* a row without its first value's first bytes, which k holds */
	if (fpb_packed_skippable(fl, f))
		fpb_packed_skip(fl, (char *) page + start, f);
	else
		memcpy((char *) page + start, f + skip,
			   fpb_page_full_size(page, f) - skip);
	ph->pd_upper = start;
	return FPB_WIDE_PREFIX(k) | (uint64) start;
}

/* Copy e's full value into buf, so that e survives changes of its page. */
void
fpb_entry_keep(const FpbCmp *cmp, FpbEntry *e, FpbFullBuf *buf)
{
	if (cmp == NULL || e->f == NULL || e->f == FPB_FULL_PLUSINF)
		return;
	if (cmp->rowskip && fpb_packed_skipped(e->f, cmp->tupdesc->natts))
		(void) fpb_packed_unskip(cmp->rowskip, e->f, e->k, buf->data);
	else
	{
		memcpy(buf->data, e->f, fpb_full_size(cmp, e->f));
		fpb_full_unskip(cmp->skip, e->k, buf->data);
	}
	e->f = buf->data;
}

/* The same into memory of the current context. */
void
fpb_entry_keep_palloc(const FpbCmp *cmp, FpbEntry *e)
{
	char	   *copy;
	Size		size;

	if (cmp == NULL || e->f == NULL || e->f == FPB_FULL_PLUSINF)
		return;
	size = fpb_full_size(cmp, e->f);
	if (cmp->rowskip && fpb_packed_skipped(e->f, cmp->tupdesc->natts))
	{
		copy = palloc(MAXALIGN(size + FPB_PACKED_SKIP_MAX));
		(void) fpb_packed_unskip(cmp->rowskip, e->f, e->k, copy);
	}
	else
	{
		copy = palloc(MAXALIGN(size));
		memcpy(copy, e->f, size);
		fpb_full_unskip(cmp->skip, e->k, copy);
	}
	e->f = copy;
}

/* Free what fpb_entry_keep_palloc copied. */
void
fpb_entry_free_kept(const FpbCmp *cmp, FpbEntry *e)
{
	if (cmp == NULL || e->f == NULL || e->f == FPB_FULL_PLUSINF)
		return;
	pfree((char *) e->f);
	e->f = NULL;
}

/* Do a and b differ in more than the tiebreaker (its NULL bit counts)? */
bool
fpb_entry_keys_differ(const FpbCmp *cmp, const FpbEntry *a, const FpbEntry *b)
{
	if (cmp == NULL)
		return a->k != b->k;
	return fpb_wide_cmp(cmp, a->k, a->t & FPB_T_NULLBIT, a->f,
						b->k, b->t & FPB_T_NULLBIT, b->f) != 0;
}
