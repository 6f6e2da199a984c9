/*-------------------------------------------------------------------------
 *
 * multicol.c
 *	  Multi-column and INCLUDE indexes (README "Multi-column keys"): the
 *	  index tuple a slot holds, the comparison of key columns one by one,
 *	  and the partial keys that bound scans.
 *
 * Such an index is wide: a node key is the first key column's prefix with
 * the slot offset, and the slot holds an index tuple of every column (key
 * and INCLUDE) in the index's tuple descriptor.  Entries compare by prefix,
 * then by the first column's NULL bit, then key column by key column, then
 * by heap TID.  A narrow column (no support function 4) compares by its
 * 64-bit key, a wide one by its comparison function under its collation;
 * NULLs sort last, as in an ascending btree column.
 *
 * A scan bound is a partial key: an index tuple of the first m key columns
 * in bounddesc, where a narrow column holds its key as an int8 (so a key
 * that no value of the column has, such as a cross-type bound, can be
 * one).  Its t_tid, which a stored tuple leaves zero, gives m (offset
 * number) and whether the missing columns are minus or plus infinity.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/heaptoast.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "fpbtree.h"
#include "port/pg_bitutils.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/uuid.h"

/* developer setting: new indexes take the old prefix format (tests) */
bool		fpb_debug_multi_prefix_first = false;

/*
 * The prefix format of an index being built.  Coded unless the first
 * column's keys are large numbers whose top bits vary: a float's or a
 * timestamp's key leaves no room for a second column in 48 bits, where its
 * code (8 bits of header) would keep fewer of its own bits than the key.
 */
uint16
fpb_new_mprefix(Relation index)
{
	Oid			typid = index->rd_opcintype[0];

	if (fpb_debug_multi_prefix_first || typid == FLOAT4OID ||
		typid == FLOAT8OID || typid == TIMESTAMPOID ||
		typid == TIMESTAMPTZOID)
		return FPB_MPREFIX_FIRST;
	return FPB_MPREFIX_CODED;
}

/* What the metapage of an index being built with cmp records. */
uint16
fpb_cmp_mprefix(const FpbCmp *cmp)
{
	return cmp != NULL && cmp->multi ? cmp->mprefix : FPB_MPREFIX_FIRST;
}

/*
 * The type a domain over the first column's type stands for, when rows
 * led by that type may leave it to the prefix (fpb_multi_rowskip_kind);
 * else InvalidOid.  The readers of such rows (packed.c) tell the bytes
 * left out by the column's type, so the comparison's descriptor names the
 * base type instead (fpb_multi_init): both have the same storage.
 */
static Oid
fpb_multi_domain0(Relation index)
{
	Oid			typid = TupleDescAttr(RelationGetDescr(index), 0)->atttypid;
	Oid			base;

	if (typid < FirstGenbkiObjectId)
		return InvalidOid;
	base = getBaseType(typid);
	switch (base)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case DATEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
		case UUIDOID:
			return base == typid ? InvalidOid : base;
	}
	return InvalidOid;
}

/*
 * Bytes fpb_multi_init needs: the columns' comparisons, bounddesc, the
 * layout of unpacked rows, and for a leading domain the descriptor that
 * names its base type.
 */
Size
fpb_multi_space(Relation index)
{
	int			nkeys = IndexRelationGetNumberOfKeyAttributes(index);
	TupleDesc	desc = RelationGetDescr(index);

	return MAXALIGN(sizeof(FpbCmp) * nkeys) +
		MAXALIGN(offsetof(struct TupleDescData, attrs) +
				 nkeys * sizeof(FormData_pg_attribute)) +
		fpb_packed_space(desc) +
		(OidIsValid(fpb_multi_domain0(index)) ?
		 MAXALIGN(TupleDescSize(desc)) : 0);
}

/*
 * The fulllen of the pages of an index whose packed rows may leave their
 * first value, or part of it, to the prefix (README "Packed rows", Prefix
 * bytes left out), or 0.  The top bit of a packed row's bitmap names no
 * column of at most 7.  A leading uuid, ascending with NULLs last, has its
 * first bytes as its rows' prefix (FPB_MPREFIX_FIRST: a wide first
 * column's key).  A leading integer whose key is the value with its sign
 * bit flipped (int2, int4, date, int8) has, under a coded prefix
 * (fpb_cmp_set_pfxflags), its code at the prefix's start; a leading
 * timestamp, whose key is that too, has its key's top 48 bits as the
 * prefix (FPB_MPREFIX_FIRST, which timestamps get); DESC, those of its
 * complemented key (the _D codes).  Integers and timestamps take the
 * directions' default NULLs options only.
 */
static uint8
fpb_multi_rowskip_kind(Relation index, const FpbCmp *cmp)
{
	Form_pg_attribute att = TupleDescAttr(cmp->tupdesc, 0);
	PGFunction	fn = index_getprocinfo(index, 1, FPB_ENCODE_PROC)->fn_addr;
	bool		desc = cmp->cols[0].desc;

	if (cmp->tupdesc->natts >= 8)
		return 0;
	if (cmp->cols[0].bytewise && cmp->cols[0].typlen == UUID_LEN &&
		att->atttypid == UUIDOID && fn == fpbtree_prefix_uuid &&
		!desc && !cmp->cols[0].nullsfirst)
		return FPB_FULLLEN_TUPSFX;
	/* ASC NULLS LAST or DESC NULLS FIRST, the defaults (fpb_packed_skippable) */
	if (!cmp->cols[0].encproc || cmp->cols[0].nullsfirst != desc)
		return 0;
	if (att->atttypid == INT8OID && fn == fpbtree_encode_int8)
		return desc ? FPB_FULLLEN_TUPINT8D : FPB_FULLLEN_TUPINT8;
	if ((att->atttypid == INT4OID && fn == fpbtree_encode_int4) ||
		(att->atttypid == DATEOID && fn == fpbtree_encode_date))
		return desc ? FPB_FULLLEN_TUPINT4D : FPB_FULLLEN_TUPINT4;
	if (att->atttypid == INT2OID && fn == fpbtree_encode_int2)
		return desc ? FPB_FULLLEN_TUPINT2D : FPB_FULLLEN_TUPINT2;
	if ((att->atttypid == TIMESTAMPOID && fn == fpbtree_encode_timestamp) ||
		(att->atttypid == TIMESTAMPTZOID && fn == fpbtree_encode_timestamptz))
		return desc ? FPB_FULLLEN_TUPTSD : FPB_FULLLEN_TUPTS;
	return 0;
}

/*
 * Set up the comparison of a multi-column or INCLUDE index: each key
 * column's own, and the descriptor of scan bounds, in space
 * (fpb_multi_space bytes).
 */
void
fpb_multi_init(Relation index, FpbCmp *cmp, char *space)
{
	int			nkeys = IndexRelationGetNumberOfKeyAttributes(index);
	TupleDesc	bd = CreateTemplateTupleDesc(nkeys);
	Oid			base0 = fpb_multi_domain0(index);
	char	   *packspace = space + MAXALIGN(sizeof(FpbCmp) * nkeys) +
		MAXALIGN(offsetof(struct TupleDescData, attrs) +
				 nkeys * sizeof(FormData_pg_attribute));

	cmp->multi = true;
	cmp->nkeys = nkeys;
	cmp->collation = index->rd_indcollation[0];
	cmp->typlen = -1;
	cmp->tupdesc = RelationGetDescr(index);
	cmp->rowdomain = OidIsValid(base0);
	if (cmp->rowdomain)
	{
		TupleDesc	own = (TupleDesc) (packspace +
									   fpb_packed_space(cmp->tupdesc));

		TupleDescCopy(own, cmp->tupdesc);
		TupleDescAttr(own, 0)->atttypid = base0;
		cmp->tupdesc = own;
	}
	cmp->cols = (FpbCmp *) space;
	memset(cmp->cols, 0, sizeof(FpbCmp) * nkeys);
	for (int j = 0; j < nkeys; j++)
	{
		FpbCmp	   *col = &cmp->cols[j];
		Form_pg_attribute att = TupleDescAttr(cmp->tupdesc, j);
		int16		opt = index->rd_indoption[j];

		if (fpb_col_init(index, j, col))
		{
			TupleDescInitEntry(bd, j + 1, NULL, att->atttypid,
							   att->atttypmod, 0);
			TupleDescInitEntryCollation(bd, j + 1, col->collation);
		}
		else
		{
			col->encproc = index_getprocinfo(index, j + 1, FPB_ENCODE_PROC);
			col->collation = index->rd_indcollation[j];
			col->canonzero = (index->rd_opcintype[j] == FLOAT8OID ||
							  index->rd_opcintype[j] == FLOAT4OID);
			TupleDescInitEntry(bd, j + 1, NULL, INT8OID, -1, 0);
		}
		/* the comparison knows them; the first column's, the prefix too */
		col->desc = (opt & INDOPTION_DESC) != 0;
		col->nullsfirst = (opt & INDOPTION_NULLS_FIRST) != 0;
	}

	/*
	 * Runs of equal tuples share one (posting.c) when equal tuples are
	 * equal bytes: no INCLUDE columns (rows of one key differ there), and
	 * no key column whose equal values may differ (a float's two zeros, a
	 * wide type fpb_col_dedup refuses, or allows only in indexes with
	 * FPB_PFX_RUNS or FPB_PFX_NAMERUNS).  fpb_form_tuple (names zero after
	 * the string) and fpb_build_tuple make the bytes of a tuple depend on
	 * its values alone.
	 */
	cmp->dedup_base = (nkeys == cmp->tupdesc->natts);
	cmp->dedup_flags = 0;
	for (int j = 0; j < nkeys; j++)
	{
		int			dedup = cmp->cols[j].encproc ?
			(cmp->cols[j].canonzero ? FPB_DEDUP_NO : FPB_DEDUP_YES) :
			fpb_col_dedup(&cmp->cols[j]);

		if (dedup == FPB_DEDUP_NO)
			cmp->dedup_base = false;
		else if (dedup == FPB_DEDUP_FLAGGED)
			cmp->dedup_flags |= FPB_PFX_RUNS;
		else if (dedup == FPB_DEDUP_NAME)
			cmp->dedup_flags |= FPB_PFX_NAMERUNS;
	}
	/* final with the index's flags (fpb_cmp_set_pfxflags) */
	cmp->dedup = cmp->dedup_base && cmp->dedup_flags == 0;

	cmp->rowskip_base = fpb_multi_rowskip_kind(index, cmp);
	cmp->bounddesc = (TupleDesc) (space + MAXALIGN(sizeof(FpbCmp) * nkeys));
	TupleDescCopy(cmp->bounddesc, bd);
	FreeTupleDesc(bd);
	fpb_packed_init(cmp, packspace);
}

/*
 * The key a narrow column compares by.  The two float zeros are equal but
 * have distinct keys; here they must be one (a -0 row must not sort before
 * a +0 row whose next column is smaller), as in a btree.
 */
uint64
fpb_col_key(const FpbCmp *col, uint64 k)
{
	if (col->canonzero)
	{
		uint64		lo;

		fpb_key_equal_range(FLOAT8OID, k, &lo, &k);
	}
	return k;
}

/*
 * The prefix of the first format (FPB_MPREFIX_FIRST): the first column's key
 * k (fpb_heap_key) cut to 48 bits, or its NULL.  It follows the column's
 * order: a DESC column's prefix is that of the complemented key.  NULLs are
 * last by their NULL bit, with the largest prefix; NULLS FIRST gives them
 * prefix 0 instead and every value a prefix above 0, which merges the lowest
 * prefix into the next but keeps the order (a prefix need only never
 * decrease along the index order).
 */
static uint64
fpb_multi_prefix_first(const FpbCmp *cmp, uint64 k, bool isnull)
{
	const FpbCmp *col = &cmp->cols[0];
	uint64		p;

	if (isnull)
		return col->nullsfirst ? 0 : FPB_WIDE_PREFIX(FPB_KEY_MAX);
	k = fpb_col_key(col, k);
	p = FPB_WIDE_PREFIX(col->desc ? ~k : k);
	if (col->nullsfirst && p == 0)
		p = UINT64CONST(1) << FPB_WIDE_OFFBITS;
	return p;
}

/* bits of a coded prefix: those above the slot offset */
#define FPB_MPREFIX_BITS	(64 - FPB_WIDE_OFFBITS)

/* Append the top n bits of v to *p of *used bits, while below limit bits. */
static inline void
fpb_mprefix_put(uint64 *p, int *used, uint64 v, int n, int limit)
{
	n = Min(n, limit - *used);
	if (n <= 0)
		return;
	*p |= (v >> (64 - n)) << (64 - *used - n);
	*used += n;
}

/*
 * Append the code of a column's key k (README "Multi-column keys"): its top
 * bit, its next bit b, the length r of the run of b that starts there (a
 * run of ones counts up, one of zeros down, so that longer runs of zeros
 * code lower), then the bits after the bit that ends the run.  The code is
 * one-to-one and order-preserving, and no code is a prefix of another, so
 * codes put one after another compare as the columns do; a small number,
 * whose key has a long run at the top, takes few bits.
 */
static inline void
fpb_mprefix_code(uint64 *p, int *used, uint64 k, int limit)
{
	bool		b = ((k >> 62) & 1) != 0;
	int			r = fpb_mprefix_run(k);

	fpb_mprefix_put(p, used,
					((k >> 63) << 63) | ((uint64) b << 62) |
					((uint64) (b ? r : 63 - r) << 56), 8, limit);
	if (r < 62)
		fpb_mprefix_put(p, used, k << (r + 2), 62 - r, limit);
}

/*
 * The prefix of a row or a scan bound: the first m key columns have keys
 * keys[] (a narrow column's, or the first column's fpb_encode value) or are
 * NULL; the rest are absent, below (sign < 0) or above (sign > 0) every
 * value, or, for a stored row (sign 0), nothing.
 *
 * FPB_MPREFIX_CODED (README "Multi-column keys"): the codes of the leading
 * narrow columns one after another (a DESC column's of its complemented
 * key), cut to 48 bits.  A NULL column ends it with all ones (NULLS LAST) or
 * zeros (NULLS FIRST), a wide column with zeros, the end of a bound's
 * columns with its sign's side.  Rows of one prefix then share every column
 * the prefix spans, or tie; the order of the columns is kept.  An index with
 * a wide first column, or built before the format (mprefix 0), keeps
 * FPB_MPREFIX_FIRST.
 */
uint64
fpb_multi_prefix(const FpbCmp *cmp, int m, const uint64 *keys,
				 const bool *isnull, int sign)
{
	uint64		p = 0;
	int			used = 0;
	bool		ones = sign > 0;

	if (cmp->mprefix == FPB_MPREFIX_FIRST || !cmp->cols[0].encproc ||
		isnull[0])
		return fpb_multi_prefix_first(cmp, keys[0], isnull[0]);
	for (int j = 0; j < m && used < FPB_MPREFIX_BITS; j++)
	{
		const FpbCmp *col = &cmp->cols[j];
		uint64		k;

		if (!col->encproc || isnull[j])
		{
			ones = col->encproc && !col->nullsfirst;
			break;
		}
		k = fpb_col_key(col, keys[j]);
		fpb_mprefix_code(&p, &used, col->desc ? ~k : k, FPB_MPREFIX_BITS);
	}
	if (ones)
		fpb_mprefix_put(&p, &used, PG_UINT64_MAX, FPB_MPREFIX_BITS,
						FPB_MPREFIX_BITS);
	/* strictly above the NULLs' 0, see fpb_multi_prefix_first */
	if (cmp->cols[0].nullsfirst && p == 0)
		p = UINT64CONST(1) << FPB_WIDE_OFFBITS;
	return p;
}

/*
 * The leading sort key of a row (keys as for fpb_multi_prefix, t its
 * tiebreaker) when a coded-prefix index is built (build_wide.c): the
 * prefix's codes continued to 64 bits and, when every key column's code
 * fits whole, the tiebreaker's bits after them.  Codes keep the columns'
 * order and none is a prefix of another, so two rows' keys differ where
 * their codes first differ, before any tiebreaker bit; it never decreases
 * along the index order, and unlike the prefix it separates rows whose key
 * columns have few distinct values.  A NULL first column sorts at either
 * end, as the first column's sort key then orders it.  The codes end at the
 * first wide column, with its value's prefix wpfx when the caller has one
 * (havewpfx): a wide prefix never decreases along its column's order but
 * may tie for different values, so nothing follows it.
 */
uint64
fpb_multi_sortkey(const FpbCmp *cmp, const uint64 *keys, const bool *isnull,
				  uint64 t, bool havewpfx, uint64 wpfx)
{
	uint64		s = 0;
	int			used = 0;
	int			j;

	Assert(cmp->mprefix == FPB_MPREFIX_CODED && cmp->cols[0].encproc);
	if (isnull[0])
		return cmp->cols[0].nullsfirst ? 0 : PG_UINT64_MAX;
	for (j = 0; j < cmp->nkeys && used < 64; j++)
	{
		const FpbCmp *col = &cmp->cols[j];
		uint64		k;

		if (isnull[j])
		{
			if (!col->nullsfirst)
				fpb_mprefix_put(&s, &used, PG_UINT64_MAX, 64, 64);
			return s;
		}
		if (!col->encproc)
		{
			if (havewpfx)
				fpb_mprefix_put(&s, &used, col->desc ? ~wpfx : wpfx,
								64 - FPB_WIDE_OFFBITS, 64);
			return s;
		}
		k = fpb_col_key(col, keys[j]);
		fpb_mprefix_code(&s, &used, col->desc ? ~k : k, 64);
	}
	if (j == cmp->nkeys && used < 64)
		fpb_mprefix_put(&s, &used, t << 16, 48, 64);
	return s;
}

/* The prefix of an entry whose first column is NULL (either format). */
uint64
fpb_multi_null_prefix(const FpbCmp *cmp)
{
	return fpb_multi_prefix_first(cmp, 0, true);
}

/*
 * The keys fpb_multi_prefix needs of a row: the first column's fpb_encode
 * value, and those of the narrow columns after it up to the first NULL or
 * wide one (the coded format only).
 */
void
fpb_multi_row_keys(const FpbCmp *cmp, Relation index, Datum *values,
				   bool *isnull, uint64 *keys)
{
	keys[0] = isnull[0] ? FPB_KEY_MAX :
		fpb_encode(index_getprocinfo(index, 1, FPB_ENCODE_PROC),
				   cmp->pfxcoll, values[0]);
	if (cmp->mprefix == FPB_MPREFIX_FIRST || !cmp->cols[0].encproc)
		return;
	for (int j = 1; j < cmp->nkeys; j++)
	{
		const FpbCmp *col = &cmp->cols[j];

		if (!col->encproc || isnull[j])
			break;
		keys[j] = fpb_encode(col->encproc, col->collation, values[j]);
	}
}

/*
 * Is the index multi-column in the sense of this file?  Also a one-column
 * index with DESC or NULLS FIRST: only the comparison by columns knows
 * them; and one of a wide by-value type (an enum), whose value the
 * one-column slots, which hold values by reference, cannot store.
 */
bool
fpb_index_is_multi(Relation index)
{
	return IndexRelationGetNumberOfAttributes(index) > 1 ||
		index->rd_indoption[0] != 0 ||
		(TupleDescAttr(RelationGetDescr(index), 0)->attbyval &&
		 OidIsValid(index_getprocid(index, 1, FPB_CMP_PROC)));
}

/* Key columns of a tuple, and the sign of the rest (0: a stored tuple). */
static inline int
fpb_tuple_cols(const FpbCmp *cmp, IndexTuple t, int *sign)
{
	int			m;

	if (fpb_is_packed((const char *) t))
	{
		*sign = 0;
		return cmp->nkeys;
	}
	m = t->t_tid.ip_posid;
	if (m == 0)
	{
		*sign = 0;
		return cmp->nkeys;
	}
	*sign = t->t_tid.ip_blkid.bi_lo ? 1 : -1;
	return Min(m, cmp->nkeys);
}

/*
 * Three-way comparison of column j of two index tuples (a bound's narrow
 * columns are keys already: sa, sb nonzero).
 */
static inline int
fpb_tuple_col_cmp(const FpbCmp *cmp, int j, IndexTuple ta, TupleDesc da,
				  int sa, IndexTuple tb, TupleDesc db, int sb)
{
	const FpbCmp *col = &cmp->cols[j];
	bool		na,
				nb;
	Datum		va = fpb_tuple_getattr(da, (const char *) ta, j + 1, &na);
	Datum		vb = fpb_tuple_getattr(db, (const char *) tb, j + 1, &nb);
	int			c;

	if (na || nb)
	{
		/* NULLs equal to each other, last unless NULLS FIRST */
		if (na && nb)
			return 0;
		return (na != col->nullsfirst) ? 1 : -1;
	}
	if (col->encproc)
	{
		uint64		ka,
					kb;
		bool		skipped = j == 0 && cmp->rowskip &&
			((sa == 0 && fpb_packed_skipped((const char *) ta,
											cmp->tupdesc->natts)) ||
			 (sb == 0 && fpb_packed_skipped((const char *) tb,
											cmp->tupdesc->natts)));

		/*
		 * A leading integer that a stored row left to its prefix, whose
		 * code the prefix holds whole: callers compare under equal
		 * prefixes (fpb_tuple_cmp), which then hold the other side's code
		 * too, as no code is a prefix of another.
		 */
		if (skipped && !FPB_FULLLEN_ROWTS(cmp->rowskip))
			return 0;
		ka = sa ? (uint64) DatumGetInt64(va) :
			fpb_col_key(col, fpb_encode(col->encproc, col->collation, va));
		kb = sb ? (uint64) DatumGetInt64(vb) :
			fpb_col_key(col, fpb_encode(col->encproc, col->collation, vb));

		/*
		 * A leading timestamp of which a stored row kept the low 16 bits,
		 * read as the value: under equal prefixes, the top 48 bits of
		 * both keys, they decide.
		 */
		if (skipped)
		{
			ka = (uint16) ka;
			kb = (uint16) kb;
		}
		if (ka == kb)
			return 0;
		c = ka < kb ? -1 : 1;
	}
	else if (j == 0 && cmp->rowskip == FPB_FULLLEN_TUPSFX)
	{
		/*
		 * A leading uuid whose first bytes a stored row may have left out:
		 * its callers compare under equal prefixes, which are those bytes
		 * (fpb_tuple_cmp, fpb_tuple_first_equal).
		 */
		c = memcmp(DatumGetPointer(va) + FPB_SFX_SKIP,
				   DatumGetPointer(vb) + FPB_SFX_SKIP,
				   UUID_LEN - FPB_SFX_SKIP);
		c = (c > 0) - (c < 0);
	}
	else
		c = fpb_full_cmp(col, DatumGetPointer(va), DatumGetPointer(vb));
	return col->desc ? -c : c;
}

/*
 * Three-way comparison of two index tuples (stored or bounds) by their key
 * columns.  A bound's missing columns are minus or plus infinity.
 */
int
fpb_tuple_cmp(const FpbCmp *cmp, const char *a, const char *b)
{
	IndexTuple	ta = (IndexTuple) a;
	IndexTuple	tb = (IndexTuple) b;
	int			sa,
				sb;
	int			ma = fpb_tuple_cols(cmp, ta, &sa);
	int			mb = fpb_tuple_cols(cmp, tb, &sb);
	TupleDesc	da = sa ? cmp->bounddesc : cmp->tupdesc;
	TupleDesc	db = sb ? cmp->bounddesc : cmp->tupdesc;

	for (int j = 0; j < Min(ma, mb); j++)
	{
		int			c = fpb_tuple_col_cmp(cmp, j, ta, da, sa, tb, db, sb);

		if (c != 0)
			return c;
	}
	if (ma < mb)
		return sa;
	if (ma > mb)
		return -sb;
	return (sa > sb) - (sa < sb);
}

/*
 * The key of the leading integer of the stored entry e, from its prefix
 * where its row left it there; false when it is NULL.
 */
static bool
fpb_entry_first_key(const FpbCmp *cmp, const FpbEntry *e, uint64 *key)
{
	bool		isnull;
	Datum		d;

	if (fpb_packed_skipped(e->f, cmp->tupdesc->natts))
	{
		*key = fpb_mprefix_first_key(e->k);
		if (FPB_FULLLEN_ROWDESC(cmp->rowskip))
			*key = ~*key;
		return true;
	}
	d = fpb_tuple_getattr(cmp->tupdesc, e->f, 1, &isnull);
	if (isnull)
		return false;
	*key = fpb_encode(cmp->cols[0].encproc, cmp->cols[0].collation, d);
	return true;
}

/*
 * Do two stored entries of a multi-column index hold equal first key
 * columns (NULLs equal to each other)?  A leaf split looks for the end of
 * a group (insert.c).  Where rows may leave a leading uuid's first bytes
 * or a timestamp's top bits to the prefix, the prefixes are those bits; a
 * leading integer a row left there is its prefix's first code.
 */
bool
fpb_tuple_first_equal(const FpbCmp *cmp, const FpbEntry *a, const FpbEntry *b)
{
	uint64		ka,
				kb;

	/* a damaged page's entry may lack its tuple: no sign, the check finds it */
	if (a->f == NULL || b->f == NULL)
		return false;
	if ((cmp->rowskip == FPB_FULLLEN_TUPSFX ||
		 FPB_FULLLEN_ROWTS(cmp->rowskip)) &&
		FPB_WIDE_PREFIX(a->k) != FPB_WIDE_PREFIX(b->k))
		return false;
	/* the prefix holds the codes of later columns too: compare the keys */
	if (FPB_FULLLEN_ROWINT(cmp->rowskip) &&
		(fpb_packed_skipped(a->f, cmp->tupdesc->natts) ||
		 fpb_packed_skipped(b->f, cmp->tupdesc->natts)))
		return fpb_entry_first_key(cmp, a, &ka) &&
			fpb_entry_first_key(cmp, b, &kb) && ka == kb;
	return fpb_tuple_col_cmp(cmp, 0, (IndexTuple) a->f, cmp->tupdesc, 0,
							 (IndexTuple) b->f, cmp->tupdesc, 0) == 0;
}

static inline bool
fpb_any_null(TupleDesc desc, const bool *isnull)
{
	for (int i = 0; i < desc->natts; i++)
		if (isnull[i])
			return true;
	return false;
}

/*
 * Set v to values with every varlena value untoasted and uncompressed (the
 * comparisons read values in place); returns the bytes of their data, and
 * whether one is NULL.
 */
static Size
fpb_untoast_values(TupleDesc desc, Datum *values, bool *isnull, Datum *v,
				   bool *hasnull)
{
	Assert(desc->natts <= INDEX_MAX_KEYS);
	*hasnull = false;
	for (int i = 0; i < desc->natts; i++)
	{
		v[i] = values[i];
		if (isnull[i])
			*hasnull = true;
		else if (TupleDescAttr(desc, i)->attlen == -1)
			v[i] = PointerGetDatum(pg_detoast_datum_packed((struct varlena *)
														   DatumGetPointer(values[i])));
	}
	return heap_compute_data_size(desc, v, isnull);
}

/* The bytes of an index tuple of data size dsize. */
static inline Size
fpb_tuple_bytes(bool hasnull, Size dsize)
{
	return MAXALIGN(IndexInfoFindDataOffset(hasnull ? INDEX_NULL_MASK : 0) +
					dsize);
}

/* The index tuple of v, as they are, whose data takes dsize bytes. */
static IndexTuple
fpb_fill_index_tuple(TupleDesc desc, Datum *v, bool *isnull, bool hasnull,
					 Size dsize)
{
	Size		hoff = IndexInfoFindDataOffset(hasnull ? INDEX_NULL_MASK : 0);
	Size		size = fpb_tuple_bytes(hasnull, dsize);
	uint16		tupmask = 0;
	char	   *tp;
	IndexTuple	t;

	if (size > INDEX_SIZE_MASK)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("index row requires %zu bytes, maximum size is %zu",
						size, (Size) INDEX_SIZE_MASK)));
	tp = palloc0(size);
	t = (IndexTuple) tp;
	heap_fill_tuple(desc, v, isnull, tp + hoff, dsize, &tupmask,
					hasnull ? (bits8 *) (tp + sizeof(IndexTupleData)) : NULL);
	t->t_info = size;
	if (hasnull)
		t->t_info |= INDEX_NULL_MASK;
	if (tupmask & HEAP_HASVARWIDTH)
		t->t_info |= INDEX_VAR_MASK;
	return t;
}

/*
 * An index tuple of desc's columns.  With detoast, every value is taken
 * untoasted and uncompressed; else the caller has made the values what
 * they are to be (a separator's).
 */
static IndexTuple
fpb_build_tuple_ext(TupleDesc desc, Datum *values, bool *isnull,
					bool detoast)
{
	Datum		v[INDEX_MAX_KEYS];
	bool		hasnull;
	Size		dsize;

	if (detoast)
		dsize = fpb_untoast_values(desc, values, isnull, v, &hasnull);
	else
	{
		hasnull = fpb_any_null(desc, isnull);
		dsize = heap_compute_data_size(desc, values, isnull);
	}
	return fpb_fill_index_tuple(desc, detoast ? v : values, isnull, hasnull,
								dsize);
}

/*
 * An index tuple of desc's columns, never toasted or compressed.  Stored
 * tuples (but those fpb_form_tuple compresses) and bounds have a zero
 * t_tid.
 */
IndexTuple
fpb_build_tuple(TupleDesc desc, Datum *values, bool *isnull)
{
	return fpb_build_tuple_ext(desc, values, isnull, true);
}

/*
 * The stored form of an index row: its index tuple, refused when larger
 * than a wide index accepts.
 */
const char *
fpb_form_tuple(const FpbCmp *cmp, Relation index, Datum *values,
			   bool *isnull, ItemPointer htid)
{
	TupleDesc	desc = cmp->tupdesc;
	Datum		v[INDEX_MAX_KEYS];
	Datum		padded[INDEX_MAX_KEYS];
	bool		hasnull;
	Size		dsize;
	IndexTuple	t;

	/* names zero after the string, as fpb_full_form stores them */
	for (int j = 0; j < cmp->nkeys; j++)
	{
		if (unlikely(cmp->cols[j].namepad) && !isnull[j] &&
			!fpb_name_is_padded(DatumGetPointer(values[j])))
		{
			memcpy(padded, values, sizeof(Datum) * desc->natts);
			for (; j < cmp->nkeys; j++)
			{
				if (cmp->cols[j].namepad && !isnull[j])
					padded[j] = fpb_name_padded(values[j]);
			}
			values = padded;
		}
	}

	/* fixed-length columns only: nothing to detoast, never too long */
	if ((cmp->pfxflags & (FPB_PFX_PACKED | FPB_PFX_PACKVAR)) ==
		FPB_PFX_PACKED)
		return fpb_pack_row(desc, values, isnull);

	dsize = fpb_untoast_values(desc, values, isnull, v, &hasnull);
	/* short varlena values too: packed when the row's values allow it */
	if ((cmp->pfxflags & FPB_PFX_PACKVAR) &&
		fpb_packed_row_size(desc, v, isnull) != 0)
		return fpb_pack_row(desc, v, isnull);
	if (fpb_tuple_bytes(hasnull, dsize) > (Size) cmp->maxkey &&
		(cmp->pfxflags & FPB_PFX_COMPRESS))
	{
		/*
		 * Too long for a slot: compress its long values, as
		 * index_form_tuple compresses those of btree's tuples (a row's bytes
		 * still depend on its values alone: fpb_full_compress).  Before the
		 * tuple is formed: uncompressed, it may exceed what an index tuple
		 * can hold at all.
		 */
		for (int i = 0; i < desc->natts; i++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, i);

			if (!isnull[i] && att->attlen == -1 &&
				fpb_storage_compresses(att->attstorage) &&
				VARSIZE_ANY(DatumGetPointer(v[i])) > TOAST_INDEX_TARGET)
				v[i] = PointerGetDatum(fpb_full_compress(DatumGetPointer(v[i])));
		}
		dsize = heap_compute_data_size(desc, v, isnull);
	}
	t = fpb_fill_index_tuple(desc, v, isnull, hasnull, dsize);
	fpb_check_row_size(cmp, index, IndexTupleSize(t), htid);
	return (const char *) t;
}

/*
 * The separator form of a stored tuple f (a high key, a downlink): its
 * INCLUDE columns NULL.  A separator compares by its key columns alone, so
 * their values would only take room in the internal pages, as nbtree's
 * pivot tuples drop them too.  f itself when there is nothing to drop,
 * else a tuple in the current context.  The key columns keep their bytes,
 * compressed ones too (the row's INCLUDE values may have been what made
 * them compressed).  A separator must never be larger than its row (the
 * build and the split size pages by the rows, and a row may be as large as
 * a slot allows), and NULLs cost a bitmap that a row without NULLs lacks:
 * when dropping a few bytes of INCLUDE values gains nothing, f it is.
 */
const char *
fpb_tuple_separator(const FpbCmp *cmp, const char *f)
{
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	bool		any = false;
	IndexTuple	sep;

	if (cmp == NULL || !cmp->multi || f == NULL ||
		cmp->nkeys == cmp->tupdesc->natts)
		return f;
	fpb_tuple_deform(cmp->tupdesc, f, values, isnull);
	for (int i = cmp->nkeys; i < cmp->tupdesc->natts; i++)
	{
		any |= !isnull[i];
		isnull[i] = true;
	}
	if (!any)
		return f;
	/*
	 * A packed row's bitmap is there anyway: dropping values always gains.
	 * A row kept as an index tuple for its long INCLUDE values may become
	 * one that packs (fpbtree_check wants the packed form where it fits).
	 */
	if (fpb_is_packed(f) ||
		((cmp->pfxflags & FPB_PFX_PACKVAR) &&
		 fpb_packed_row_size(cmp->tupdesc, values, isnull) != 0))
	{
		char	   *row = (char *) fpb_pack_row(cmp->tupdesc, values, isnull);

		/*
		 * The first value of a row that left its first bytes out was read
		 * from before them: leave them out again (the key has them).
		 */
		if (fpb_packed_skipped(f, cmp->tupdesc->natts))
			fpb_packed_skip(cmp->rowskip, row, row);
		return row;
	}
	sep = fpb_build_tuple_ext(cmp->tupdesc, values, isnull, false);
	if (IndexTupleSize(sep) >= IndexTupleSize((IndexTuple) f))
	{
		pfree(sep);
		return f;
	}
	return (const char *) sep;
}

/* The entry of a heap row at htid: its prefix and its index tuple. */
FpbEntry
fpb_multi_entry(const FpbCmp *cmp, Relation index, Datum *values,
				bool *isnull, ItemPointer htid)
{
	uint64		keys[INDEX_MAX_KEYS];
	FpbEntry	e;

	fpb_multi_row_keys(cmp, index, values, isnull, keys);
	e = fpb_mkkey(fpb_multi_prefix(cmp, cmp->nkeys, keys, isnull, 0),
				  fpb_make_t(htid, isnull[0]));
	e.f = fpb_form_tuple(cmp, index, values, isnull, htid);
	return e;
}

/* Is some key column of the stored tuple f NULL? */
bool
fpb_tuple_keys_null(const FpbCmp *cmp, const char *f)
{
	IndexTuple	t = (IndexTuple) f;
	bits8	   *bp = (bits8 *) ((char *) t + sizeof(IndexTupleData));

	if (fpb_is_packed(f))
		return fpb_packed_any_null(f, cmp->nkeys);
	if (!IndexTupleHasNulls(t))
		return false;
	for (int j = 0; j < cmp->nkeys; j++)
		if (att_isnull(j, bp))
			return true;
	return false;
}

/*
 * fpbtree_check of a stored tuple f with node key (k, t) at blkno: a
 * stored tuple (zero t_tid) of a sound size, or a packed row whose length
 * agrees with its NULL bitmap, as the index's format has them, whose first
 * column is NULL
 * exactly when the entry is flagged NULL, whose prefix is the key's, and
 * whose values are compressed only where the format allows it and the row
 * would not fit without (fpb_form_tuple; the slack covers alignment).  A
 * separator (sep: a downlink, a high key) keeps the bytes of the row it was
 * cut from without its INCLUDE values (fpb_tuple_separator), so the size
 * need not call for them.
 */
void
fpb_check_multi_key(Relation index, const FpbCmp *cmp, const char *f,
					uint64 k, uint64 t, BlockNumber blkno, const char *what,
					bool sep)
{
	IndexTuple	tup = (IndexTuple) f;
	Size		size = fpb_tuple_size(f);
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS] = {0};
	uint64		keys[INDEX_MAX_KEYS];
	uint64		p;
	bool		compressed = false;
	Size		grow = 0;
	char		whole[FPB_PACKED_MAX + FPB_PACKED_SKIP_MAX];
	bool		skipped = fpb_packed_skipped(f, cmp->tupdesc->natts);

	if (fpb_is_packed(f) != ((cmp->pfxflags & FPB_PFX_PACKED) != 0) &&
		!(!fpb_is_packed(f) && (cmp->pfxflags & FPB_PFX_PACKVAR)))
		fpb_index_corrupt(index, blkno,
						  "%s %s is %s, which the index's format does not allow.",
						  what, fpb_keydesc(k, t),
						  fpb_is_packed(f) ? "a packed row" : "an index tuple");
	if (fpb_is_packed(f) ?
		size != fpb_packed_expected_size(cmp->tupdesc, f) :
		(tup->t_tid.ip_posid != 0 || tup->t_tid.ip_blkid.bi_lo != 0 ||
		 tup->t_tid.ip_blkid.bi_hi != 0 ||
		 size < IndexInfoFindDataOffset(tup->t_info) ||
		 size > (Size) cmp->maxkey || size != MAXALIGN(size)))
		fpb_index_corrupt(index, blkno,
						  "%s %s holds no sound %s.",
						  what, fpb_keydesc(k, t),
						  fpb_is_packed(f) ? "packed row" : "index tuple");
	/* its left-out bytes from its key: what the prefix says, checked below */
	f = fpb_packed_whole(cmp, f, k, whole);
	if (fpb_is_packed(f) &&
		skipped != fpb_packed_skippable(cmp->rowskip, f))
		fpb_index_corrupt(index, blkno,
						  "%s %s is a packed row that %s its first value's prefix bytes, unlike the index's format.",
						  what, fpb_keydesc(k, t),
						  skipped ? "leaves out" : "keeps");
	if (!fpb_is_packed(f) && (cmp->pfxflags & FPB_PFX_PACKVAR))
	{
		/* only a row whose values do not pack is kept as an index tuple */
		fpb_tuple_deform(cmp->tupdesc, f, values, isnull);
		if (fpb_packed_row_size(cmp->tupdesc, values, isnull) != 0)
			fpb_index_corrupt(index, blkno,
							  "%s %s is an index tuple, though its values fit a packed row.",
							  what, fpb_keydesc(k, t));
	}
	for (int j = 0; j < cmp->nkeys; j++)
		values[j] = fpb_tuple_getattr(cmp->tupdesc, f, j + 1, &isnull[j]);
	if (isnull[0] != ((t & FPB_T_NULLBIT) != 0))
		fpb_index_corrupt(index, blkno,
						  "%s %s has a NULL flag that differs from its first column's.",
						  what, fpb_keydesc(k, t));
	for (int j = 0; j < cmp->tupdesc->natts; j++)
	{
		bool		n;
		Datum		d;

		if (TupleDescAttr(cmp->tupdesc, j)->attlen != -1)
			continue;
		d = fpb_tuple_getattr(cmp->tupdesc, f, j + 1, &n);
		if (n || !VARATT_IS_COMPRESSED(DatumGetPointer(d)))
			continue;
		compressed = true;
		grow += toast_raw_datum_size(d) - VARSIZE(DatumGetPointer(d));
	}
	if (compressed && (!(cmp->pfxflags & FPB_PFX_COMPRESS) ||
					   (!sep && size + grow + 8 + 4 * cmp->tupdesc->natts <=
						(Size) cmp->maxkey)))
		fpb_index_corrupt(index, blkno,
						  "%s %s holds compressed values its format or size does not allow.",
						  what, fpb_keydesc(k, t));
	fpb_multi_row_keys(cmp, index, values, isnull, keys);
	p = fpb_multi_prefix(cmp, cmp->nkeys, keys, isnull, 0);
	if (p != FPB_WIDE_PREFIX(k))
		fpb_index_corrupt(index, blkno,
						  "%s %s has a prefix that differs from its columns', %s.",
						  what, fpb_keydesc(k, t), fpb_keydesc(p, t));
}

/*
 * A bound's index tuple.  A query may compare with values of any length,
 * and a bound's tuple is never stored: when its values take more than an
 * index tuple holds, each (of a type that may be toasted) is kept by
 * reference, as an indirect toast pointer to a copy in the current
 * context.  Every reader of a bound's values detoasts them (the comparison
 * functions of such types do, and fpb_full_cmp's inline comparison of text
 * under "C" does for values not in place); the values are uncompressed,
 * as fpb_build_tuple takes them.  Too many long values of plain-storage
 * types are refused, as before.
 */
static IndexTuple
fpb_build_bound_tuple(TupleDesc desc, Datum *values, bool *isnull)
{
	Datum		v[INDEX_MAX_KEYS];
	bool		hasnull;
	Size		dsize = fpb_untoast_values(desc, values, isnull, v, &hasnull);

	if (fpb_tuple_bytes(hasnull, dsize) > INDEX_SIZE_MASK)
	{
		for (int i = 0; i < desc->natts; i++)
		{
			struct varlena *val = (struct varlena *) DatumGetPointer(v[i]);
			struct varlena *ptr;
			varatt_indirect redirect;

			/*
			 * Not a plain-storage type's: its functions may take their
			 * arguments as they are (oidvector's do), never toasted.
			 */
			if (isnull[i] || TupleDescAttr(desc, i)->attlen != -1 ||
				TupleDescAttr(desc, i)->attstorage == TYPSTORAGE_PLAIN ||
				VARSIZE_ANY(val) <= INDIRECT_POINTER_SIZE)
				continue;
			redirect.pointer = palloc(VARSIZE_ANY(val));
			memcpy(redirect.pointer, val, VARSIZE_ANY(val));
			ptr = palloc(INDIRECT_POINTER_SIZE);
			SET_VARTAG_EXTERNAL(ptr, VARTAG_INDIRECT);
			memcpy(VARDATA_EXTERNAL(ptr), &redirect, sizeof(redirect));
			v[i] = PointerGetDatum(ptr);
		}
		dsize = heap_compute_data_size(desc, v, isnull);
	}
	return fpb_fill_index_tuple(desc, v, isnull, hasnull, dsize);
}

/* Bound twin with the other infinity for missing columns (sign). */
const char *
fpb_bound_resign(const char *twin, int sign)
{
	Size		size = IndexTupleSize((IndexTuple) twin);
	IndexTuple	t = palloc(size);

	memcpy(t, twin, size);
	t->t_tid.ip_blkid.bi_lo = sign > 0 ? 1 : 0;
	return (const char *) t;
}

/*
 * A scan bound: the partial key of the first m key columns with values
 * vals (bounddesc's forms) or NULLs, the rest minus (sign < 0) or plus
 * infinity.
 */
const char *
fpb_make_bound(const FpbCmp *cmp, int m, Datum *vals, bool *isnull,
			   int sign)
{
	Datum		v[INDEX_MAX_KEYS];
	bool		nulls[INDEX_MAX_KEYS];
	IndexTuple	t;

	Assert(m >= 1 && m <= cmp->nkeys);
	for (int j = 0; j < cmp->nkeys; j++)
	{
		v[j] = j < m ? vals[j] : (Datum) 0;
		nulls[j] = (j >= m) || isnull[j];
	}
	t = fpb_build_bound_tuple(cmp->bounddesc, v, nulls);
	t->t_tid.ip_posid = m;
	t->t_tid.ip_blkid.bi_lo = sign > 0 ? 1 : 0;
	return (const char *) t;
}
