/*-------------------------------------------------------------------------
 *
 * stats.c
 *	  fpbtree_stats(): the shape and fill of an fpbtree index;
 *	  fpbtree_format(): the format it was built in.
 *
 * Unlike fpbtree_check() (verify.c) this takes no lock on the table beyond
 * the index's AccessShareLock and only needs SELECT on the table: it reads
 * one page at a time under a share lock, so its figures are a snapshot of a
 * tree that may be growing.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xlog.h"
#include "catalog/index.h"
#include "catalog/pg_type.h"
#include "fpbtree.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/freespace.h"
#include "storage/indexfsm.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

PG_FUNCTION_INFO_V1(fpbtree_stats);
PG_FUNCTION_INFO_V1(fpbtree_format);

/*
 * Open an fpbtree index for a statistics function, as amcheck's functions
 * do: the caller must be allowed to read its table.  Locked AccessShare.
 */
Relation
fpb_open_for_stats(Oid indrelid)
{
	Relation	index;
	Oid			heapid;

	fpb_precheck_relation(indrelid);
	heapid = IndexGetRelation(indrelid, true);
	if (OidIsValid(heapid))
	{
		AclResult	aclresult;

		aclresult = pg_class_aclcheck(heapid, GetUserId(), ACL_SELECT);
		if (aclresult != ACLCHECK_OK)
			aclcheck_error(aclresult, OBJECT_TABLE, get_rel_name(heapid));
	}
	index = index_open(indrelid, AccessShareLock);
	fpb_check_relation(index);
	/* only its init fork exists until the standby is promoted */
	if (index->rd_rel->relpersistence == RELPERSISTENCE_UNLOGGED &&
		RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot access temporary or unlogged relations during recovery")));
	return index;
}

/*
 * fpbtree_stats(index regclass) -> height, pages per level, size, entries,
 * average leaf fill, node sizes, fan-out and the latencies of the metapage;
 * from version 1.2 on also deleted, recyclable, free (in the free space
 * map) and half-dead pages.
 */
Datum
fpbtree_stats(PG_FUNCTION_ARGS)
{
	Oid			indrelid = PG_GETARG_OID(0);
	Relation	index;
	TupleDesc	tupdesc;
	FpbMetaPageData meta;
	uint32		height;
	int64	   *perlevel;
	Datum	   *elems;
	int64		entries = 0;
	double		fillsum = 0;
	int64		leafpages = 0;
	int			fanout;
	BlockNumber nblocks;
	BlockNumber blkno;
	int64		deleted = 0,
				recyclable = 0,
				freepages = 0,
				halfdead = 0;
	Datum		values[14];
	bool		nulls[14] = {0};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	index = fpb_open_for_stats(indrelid);

	/* checks the widths and root level the computations below rely on */
	fpb_read_meta(index, &meta);
	nblocks = RelationGetNumberOfBlocks(index);
	fanout = fpb_page_capacity(meta.w, meta.x, false, 1.0);
	height = meta.rootlevel + 1;
	perlevel = palloc0(sizeof(int64) * height);

	/*
	 * Walk each level along the right-links, one share-locked page at a
	 * time.  Splits only add pages to the right of a level's leftmost page,
	 * and a page deleted meanwhile keeps its right-link, so concurrent
	 * inserts and VACUUM make the counts approximate but never break the
	 * walk.
	 */
	blkno = meta.root;
	for (uint32 level = meta.rootlevel;; level--)
	{
		BlockNumber leftmost = blkno;
		BlockNumber firstchild = InvalidBlockNumber;
		int64		steps = 0;

		while (blkno != InvalidBlockNumber)
		{
			Buffer		buf;
			Page		page;
			FpbPageOpaque opq;

			CHECK_FOR_INTERRUPTS();
			/* a level has fewer pages than the index; the index may grow */
			if (++steps > (int64) nblocks &&
				steps > (int64) (nblocks = RelationGetNumberOfBlocks(index)))
				fpb_index_corrupt(index, blkno,
								  "The right-links of level %u form a cycle.",
								  level);
			buf = fpb_getbuf(index, blkno, BUFFER_LOCK_SHARE);
			page = BufferGetPage(buf);
			opq = FpbPageGetOpaque(page);
			if ((opq->flags & FPB_F_META) || opq->level != level)
				fpb_index_corrupt(index, blkno,
								  "Page has level %u, expected %u.",
								  opq->level, level);
			perlevel[level]++;
			if (level == 0)
			{
				entries += opq->nentries;
				fillsum += (double) opq->nentries /
					(FpbPageIsPosting(opq) ? fpb_posting_capacity(page, blkno) :
					 fanout);
				leafpages++;
			}
			else if (blkno == leftmost)
			{
				FpbEntry	minkey = fpb_mkkey(0, 0);

				firstchild = fpb_page_child(page, fpb_index_cmp(index),
											&minkey, blkno);
			}
			blkno = opq->right;
			UnlockReleaseBuffer(buf);
		}
		if (level == 0)
			break;
		blkno = firstchild;
	}

	/*
	 * Deleted pages are off the chains, and a half-dead page may be left of
	 * the first downlink: count them in physical order (the columns exist
	 * from version 1.2 of the SQL function on).
	 */
	if (tupdesc->natts >= 14)
	{
		for (blkno = FPB_METAPAGE_BLKNO + 1; blkno < nblocks; blkno++)
		{
			Buffer		buf;
			Page		page;

			CHECK_FOR_INTERRUPTS();
			if (GetRecordedFreeSpace(index, blkno) > 0)
				freepages++;
			buf = ReadBuffer(index, blkno);
			LockBuffer(buf, BUFFER_LOCK_SHARE);
			page = BufferGetPage(buf);
			if (!PageIsNew(page))
			{
				fpb_page_check_sane(index, page, blkno);
				if (FpbPageIsHalfDead(FpbPageGetOpaque(page)))
					halfdead++;
				if (FpbPageIsDeleted(FpbPageGetOpaque(page)))
				{
					deleted++;
					if (fpb_page_recyclable(page))
						recyclable++;
				}
			}
			UnlockReleaseBuffer(buf);
		}
	}

	elems = palloc(sizeof(Datum) * height);
	for (uint32 i = 0; i < height; i++)
		elems[i] = Int64GetDatum(perlevel[i]);

	values[0] = Int32GetDatum((int32) height);
	values[1] = PointerGetDatum(construct_array(elems, height, INT8OID,
												sizeof(int64), FLOAT8PASSBYVAL,
												TYPALIGN_DOUBLE));
	values[2] = Int64GetDatum((int64) nblocks);
	values[3] = Int64GetDatum(entries);
	values[4] = Float8GetDatum(leafpages > 0 ? fillsum / leafpages : 0.0);
	values[5] = Int32GetDatum(meta.w * FPB_LINE);
	values[6] = Int32GetDatum(meta.x * FPB_LINE);
	values[7] = Int32GetDatum(fanout);
	values[8] = Float8GetDatum(meta.t1);
	values[9] = Float8GetDatum(meta.tnext);
	values[10] = Int64GetDatum(deleted);
	values[11] = Int64GetDatum(recyclable);
	values[12] = Int64GetDatum(freepages);
	values[13] = Int64GetDatum(halfdead);

	index_close(index, AccessShareLock);

	tupdesc = BlessTupleDesc(tupdesc);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * The names fpbtree_format() gives the format features of an index: what
 * its metapage records, or what a new build of it would record.
 */
typedef struct FpbFormat
{
	bool		starts;			/* version 4: leaf nodes start anywhere */
	bool		coded;			/* FPB_MPREFIX_CODED */
	uint16		pfxflags;		/* FPB_PFX_* */
} FpbFormat;

static ArrayType *
fpb_format_names(const FpbFormat *f, const FpbFormat *without)
{
	Datum		names[16];	/* every name below */
	int			n = 0;

#define FPB_FORMAT_NAME(cond, name) \
	do { \
		if (cond) \
			names[n++] = CStringGetTextDatum(name); \
	} while (0)
	FPB_FORMAT_NAME(f->starts && !(without && without->starts),
					"node_starts");
	FPB_FORMAT_NAME(f->coded && !(without && without->coded),
					"coded_prefix");
	/* a format flag the index has and, if asked, without lacks */
#define FPB_FORMAT_FLAG(flag, name) \
	FPB_FORMAT_NAME((f->pfxflags & (flag)) && \
					!(without && (without->pfxflags & (flag))), name)
	FPB_FORMAT_FLAG(FPB_PFX_CODEPOINT, "codepoint_prefix");
	FPB_FORMAT_FLAG(FPB_PFX_COMPRESS, "compression");
	FPB_FORMAT_FLAG(FPB_PFX_PACKED, "packed_rows");
	FPB_FORMAT_FLAG(FPB_PFX_RUNS, "more_runs");
	FPB_FORMAT_FLAG(FPB_PFX_PACKVAR, "packed_varlena_rows");
	FPB_FORMAT_FLAG(FPB_PFX_NAMERUNS, "name_runs");
	FPB_FORMAT_FLAG(FPB_PFX_UUIDSFX, "uuid_suffix_slots");
	FPB_FORMAT_FLAG(FPB_PFX_ROWSFX, "uuid_prefix_rows");
	FPB_FORMAT_FLAG(FPB_PFX_ROWINT, "int_prefix_rows");
	FPB_FORMAT_FLAG(FPB_PFX_ROWTS, "timestamp_prefix_rows");
	FPB_FORMAT_FLAG(FPB_PFX_ROWDOMAIN, "domain_prefix_rows");
#undef FPB_FORMAT_FLAG
#undef FPB_FORMAT_NAME
	return construct_array(names, n, TEXTOID, -1, false, TYPALIGN_INT);
}

/*
 * fpbtree_format(index regclass) -> the metapage version, the format
 * features the index has, and those a REINDEX would add: an index keeps
 * the format it was built with (each version reads the older ones), so an
 * index built by an older release lacks what later builds do until it is
 * rebuilt.  What a rebuild gives is asked of the build code itself, with
 * this session's settings.
 */
Datum
fpbtree_format(PG_FUNCTION_ARGS)
{
	Oid			indrelid = PG_GETARG_OID(0);
	Relation	index;
	TupleDesc	tupdesc;
	FpbMetaPageData meta;
	FpbCmp		cmp;
	bool		wide,
				codable;
	FpbFormat	has,
				fresh;
	Datum		values[3];
	bool		nulls[3] = {0};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	index = fpb_open_for_stats(indrelid);
	fpb_read_meta(index, &meta);
	wide = fpb_cmp_init(index, &cmp, meta.w, meta.x, NULL);

	/* the coded format changes nothing when the first column is wide */
	codable = wide && cmp.multi && cmp.cols[0].encproc != NULL;
	has.starts = meta.version >= FPB_VERSION_STARTS;
	has.coded = codable && meta.mprefix == FPB_MPREFIX_CODED;
	has.pfxflags = meta.pfxflags;
	fresh.starts = fpb_build_starts();
	fresh.coded = codable &&
		fpb_cmp_mprefix(&cmp) == FPB_MPREFIX_CODED;
	fresh.pfxflags = fpb_cmp_pfxflags(wide ? &cmp : NULL);
	index_close(index, AccessShareLock);

	values[0] = Int32GetDatum((int32) meta.version);
	values[1] = PointerGetDatum(fpb_format_names(&has, NULL));
	values[2] = PointerGetDatum(fpb_format_names(&fresh, &has));

	tupdesc = BlessTupleDesc(tupdesc);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
