/*-------------------------------------------------------------------------
 *
 * wide.h
 *	  Full values of wide indexes (wide.c) and the rows of multi-column
 *	  ones (multicol.c): comparison, slots, copies that outlive a page.
 *
 * Included by fpbtree.h, after FpbCmp and before packed.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef FPB_WIDE_H
#define FPB_WIDE_H

/* ---- wide.c: full values of wide indexes ---- */
extern int	fpb_full_cmp(const FpbCmp *cmp, const char *a, const char *b);
extern int	fpb_wide_cmp(const FpbCmp *cmp, uint64 ak, uint64 at,
						 const char *af, uint64 bk, uint64 bt,
						 const char *bf);
extern int	fpb_wide_cmp_values(const FpbCmp *cmp, uint64 at, const char *af,
								uint64 bt, const char *bf);

/* The first steps of fpb_wide_cmp: prefix (no slot offset), NULL bit. */
static inline int
fpb_wide_cmp_head(uint64 ak, uint64 at, uint64 bk, uint64 bt)
{
	uint64		pa = FPB_WIDE_PREFIX(ak);
	uint64		pb = FPB_WIDE_PREFIX(bk);

	if (pa != pb)
		return pa < pb ? -1 : 1;
	if ((at ^ bt) & FPB_T_NULLBIT)
		return (at & FPB_T_NULLBIT) ? 1 : -1;
	return 0;
}
extern Size fpb_full_size(const FpbCmp *cmp, const char *f);
extern int	fpb_wide_maxkey(int w, int x);
extern const char *fpb_full_form(const FpbCmp *cmp, Datum value);
extern const char *fpb_full_compress(const char *v);
extern bool fpb_full_compress_ok(const FpbCmp *cmp, const char *f);

/* A storage class whose long values are compressed, as btree's are */
static inline bool
fpb_storage_compresses(char storage)
{
	return storage == TYPSTORAGE_EXTENDED || storage == TYPSTORAGE_MAIN;
}
extern const char *fpb_full_image(const FpbCmp *cmp, Datum value,
								  Relation index, ItemPointer htid);
extern Size fpb_cmp_space(Relation index);
extern void fpb_check_row_size(const FpbCmp *cmp, Relation index, Size size,
							   ItemPointer htid);
extern uint16 fpb_new_pfxflags(Relation index, const FpbCmp *cmp);
extern void fpb_cmp_set_pfxflags(FpbCmp *cmp, uint16 pfxflags);
extern uint16 fpb_cmp_pfxflags(const FpbCmp *cmp);
extern bool fpb_debug_codepoint_prefix_const;
extern bool fpb_cmp_init(Relation index, FpbCmp *cmp, int w, int x,
						 void *space);
extern bool fpb_col_init(Relation index, int col, FpbCmp *cmp);
/* fpb_col_dedup: may equal values of a column share runs? */
#define FPB_DEDUP_NO		0
#define FPB_DEDUP_YES		1
#define FPB_DEDUP_FLAGGED	2	/* yes, in indexes with FPB_PFX_RUNS */
#define FPB_DEDUP_NAME		3	/* yes, in indexes with FPB_PFX_NAMERUNS */
extern int	fpb_col_dedup(const FpbCmp *cmp);
extern const char *fpb_slot_get(Page page, uint64 storedk, BlockNumber blkno);
extern int	fpb_slot_need(Page page, const char *f, int upper);
extern Size fpb_slot_len(Page page, const char *f);
extern bool fpb_full_image_eq(int fl, const char *a, const char *b);
extern bool fpb_name_is_padded(const char *f);
extern Datum fpb_name_padded(Datum value);
extern bool fpb_full_names_padded(const FpbCmp *cmp, const char *f);
extern bool fpb_entry_image_same(int fl, const FpbEntry *a,
								 const FpbEntry *b);
extern uint64 fpb_slot_put(Page page, uint64 k, const char *f);

/*
 * Give the copy f of a value read from a suffix slot the skip bytes its
 * slot left out, from its stored key k (for uuid, its first bytes
 * big-endian): a copy outlives the key beside it, or leaves the index.
 */
static inline void
fpb_full_unskip(int skip, uint64 k, char *f)
{
	if (skip != 0)
	{
		uint64		be = pg_hton64(k);

		Assert(skip == FPB_SFX_SKIP);
		memcpy(f, &be, FPB_SFX_SKIP);
	}
}
extern bool fpb_full_prefix_ok(const FpbCmp *cmp, FmgrInfo *encproc,
							   const char *f, uint64 k, uint64 *p);
extern void fpb_entry_keep(const FpbCmp *cmp, FpbEntry *e, FpbFullBuf *buf);
extern void fpb_entry_keep_palloc(const FpbCmp *cmp, FpbEntry *e);
extern void fpb_entry_free_kept(const FpbCmp *cmp, FpbEntry *e);
extern bool fpb_entry_keys_differ(const FpbCmp *cmp, const FpbEntry *a,
								  const FpbEntry *b);

/*
 * fpb_wide_cmp of the entry (ak, at) of a wide page with (bk, bt, bf): the
 * entry's value is read only when prefixes and NULL bits tie, so that a
 * search touches the slotted area only there.
 */
static inline int
fpb_wide_cmp_at(const FpbCmp *cmp, Page page, BlockNumber blkno, uint64 ak,
				uint64 at, uint64 bk, uint64 bt, const char *bf)
{
	int			c = fpb_wide_cmp_head(ak, at, bk, bt);

	if (c != 0)
		return c;
	return fpb_wide_cmp_values(cmp, at, fpb_slot_get(page, ak, blkno),
							   bt, bf);
}

/* What a wide page records as the size of its values (fulllen). */
static inline uint8
fpb_cmp_fulllen(const FpbCmp *cmp)
{
	if (cmp->multi)
		return cmp->rowskip ? cmp->rowskip : FPB_FULLLEN_TUPLE;
	if (cmp->skip)
		return FPB_FULLLEN_SFX16;
	return cmp->typlen > 0 ? cmp->typlen : 0;
}

/* ---- multicol.c: multi-column and INCLUDE indexes ---- */
extern Size fpb_multi_space(Relation index);
extern void fpb_multi_init(Relation index, FpbCmp *cmp, char *space);
extern int	fpb_tuple_cmp(const FpbCmp *cmp, const char *a, const char *b);
extern bool fpb_tuple_first_equal(const FpbCmp *cmp, const FpbEntry *a,
								  const FpbEntry *b);
extern const char *fpb_tuple_separator(const FpbCmp *cmp, const char *f);
extern const char *fpb_form_tuple(const FpbCmp *cmp, Relation index,
								  Datum *values, bool *isnull,
								  ItemPointer htid);
extern FpbEntry fpb_multi_entry(const FpbCmp *cmp, Relation index,
								Datum *values, bool *isnull, ItemPointer htid);
extern IndexTuple fpb_build_tuple(TupleDesc desc, Datum *values,
								  bool *isnull);
extern const char *fpb_bound_resign(const char *twin, int sign);
extern const char *fpb_make_bound(const FpbCmp *cmp, int m, Datum *vals,
								  bool *isnull, int sign);
extern uint64 fpb_col_key(const FpbCmp *col, uint64 k);
extern uint64 fpb_multi_prefix(const FpbCmp *cmp, int m, const uint64 *keys,
							   const bool *isnull, int sign);
extern uint64 fpb_multi_null_prefix(const FpbCmp *cmp);
extern uint64 fpb_multi_sortkey(const FpbCmp *cmp, const uint64 *keys,
								const bool *isnull, uint64 t, bool havewpfx,
								uint64 wpfx);
extern uint16 fpb_new_mprefix(Relation index);
extern uint16 fpb_cmp_mprefix(const FpbCmp *cmp);
extern bool fpb_debug_multi_prefix_first;
extern void fpb_multi_row_keys(const FpbCmp *cmp, Relation index,
							   Datum *values, bool *isnull, uint64 *keys);
extern bool fpb_index_is_multi(Relation index);
extern bool fpb_tuple_keys_null(const FpbCmp *cmp, const char *f);
extern void fpb_check_multi_key(Relation index, const FpbCmp *cmp,
								const char *f, uint64 k, uint64 t,
								BlockNumber blkno, const char *what,
								bool sep);

#endif							/* FPB_WIDE_H */
