/*-------------------------------------------------------------------------
 *
 * posting.h
 *	  The runs of a posting page as pointers into it, shared by posting.c
 *	  (reading and changing a posting page in place) and posting_layout.c
 *	  (choosing the format and laying a page out).
 *
 *-------------------------------------------------------------------------
 */
#ifndef FPB_POSTING_H
#define FPB_POSTING_H

/* bytes of the lines a posting page may use */
#define FPB_POSTING_BYTES	(FPB_NLINES * FPB_LINE)

/*
 * A posting page's runs, as pointers into the page.  Positions are slots of
 * the TID array; run r holds slots [fpb_run_start, fpb_run_end).
 */
typedef struct FpbRuns
{
	Page		page;
	BlockNumber blkno;
	bool		wide;			/* keys name their values' slots */
	int			n;				/* entries */
	int			nslots;			/* TID slots (n on a page of one key) */
	int			nruns;			/* 1: a page of one key */
	uint64	   *keys;			/* nruns keys, strictly ascending (wide:
								 * prefix and slot of a value) */
	uint16	   *starts;			/* first slots; NULL with one key */
	uint16	   *ends;			/* end slots; NULL with one key */
	ItemPointerData *tids;
} FpbRuns;

static inline int
fpb_run_start(const FpbRuns *v, int r)
{
	return v->starts ? v->starts[r] : 0;
}

static inline int
fpb_run_end(const FpbRuns *v, int r)
{
	return v->ends ? v->ends[r] : v->n;
}

/* the first slot after run r's free slots */
static inline int
fpb_run_limit(const FpbRuns *v, int r)
{
	return r + 1 < v->nruns ? fpb_run_start(v, r + 1) : v->nslots;
}

extern void fpb_posting_view(Page page, FpbRuns *v);
extern bool fpb_posting_regular_fits(Page page, const FpbEntry *entries,
									 int n, double fill);

#endif							/* FPB_POSTING_H */
