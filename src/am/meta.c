/*-------------------------------------------------------------------------
 *
 * meta.c
 *	  The metapage and the buffer helpers every fpbtree operation uses.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/nbtxlog.h"
#include "access/xloginsert.h"
#include "compat.h"
#include "fpbtree.h"
#include "miscadmin.h"
#include "storage/indexfsm.h"
#include "utils/snapmgr.h"
#include "storage/buf_internals.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

/*
 * The metapage's size is part of the on-disk format: an index's pd_lower
 * covers it, and fields added since took the padding of the first layout.
 */
StaticAssertDecl(sizeof(FpbMetaPageData) == 48,
				 "the metapage contents changed size");

/*
 * Do new indexes get version 4, their pages FPB_F_STARTS?  Not while a
 * developer setting builds an index as builds before it did: those tests
 * keep indexes whose leaf nodes start at slot 0.
 */
bool
fpb_build_starts(void)
{
	return !fpb_debug_multi_prefix_first && !fpb_debug_codepoint_prefix_const;
}

/*
 * Initialise page as the metapage of a tree whose root is block root at
 * level rootlevel, built with node widths w/x, fillfactor and the latencies
 * t1/tnext the widths were chosen for.
 */
void
fpb_init_metapage(Page page, BlockNumber root, uint32 rootlevel, int w, int x,
				  int fillfactor, double t1, double tnext, uint16 mprefix,
				  uint16 pfxflags)
{
	FpbMetaPageData *meta;

	/* an empty tree page flagged as the metapage: no nodes, no links */
	fpb_page_init(page, 0, FPB_F_META, w, x);

	meta = FpbPageGetMeta(page);
	memset(meta, 0, sizeof(FpbMetaPageData));
	meta->magic = FPB_META_MAGIC;
	meta->version = fpb_build_starts() ? FPB_VERSION_STARTS :
		pfxflags != 0 ? FPB_VERSION_PFX :
		mprefix == FPB_MPREFIX_CODED ? FPB_VERSION_CODED : FPB_VERSION;
	meta->root = root;
	meta->rootlevel = rootlevel;
	meta->w = w;
	meta->x = x;
	meta->fillfactor = fillfactor;
	meta->t1 = t1;
	meta->tnext = tnext;
	meta->mprefix = mprefix;
	meta->pfxflags = pfxflags;
	meta->vac_delpages = 1;		/* a new index has no deleted pages */
	/* keep the metadata out of the hole generic WAL skips */
	((PageHeader) page)->pd_lower =
		((char *) meta + sizeof(FpbMetaPageData)) - (char *) page;
}

/*
 * Every field of the metapage that is used to find pages is checked when the
 * metapage is read: a root of 0 would make the metapage itself a tree page
 * (inserts would write into it, and a split of it would wait for its own
 * lock), and zero node widths would divide by zero.
 */
static void
fpb_check_meta(Relation index, Page page)
{
	FpbMetaPageData *meta = FpbPageGetMeta(page);
	BlockNumber nblocks;

	if (!(FpbPageGetOpaque(page)->flags & FPB_F_META) ||
		meta->magic != FPB_META_MAGIC)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is not an fpbtree: bad metapage at block %u",
						RelationGetRelationName(index), FPB_METAPAGE_BLKNO)));
	if (meta->version < FPB_VERSION || meta->version > FPB_VERSION_STARTS)
		fpb_index_corrupt(index, FPB_METAPAGE_BLKNO,
						  "Metapage version is %u, expected %u to %u.",
						  meta->version, FPB_VERSION, FPB_VERSION_STARTS);
	if (meta->w < 1 || meta->w > FPB_MAX_WIDTH ||
		meta->x < 1 || meta->x > FPB_MAX_WIDTH)
		fpb_index_corrupt(index, FPB_METAPAGE_BLKNO,
						  "Metapage node widths %u/%u are out of range.",
						  meta->w, meta->x);
	if (meta->rootlevel >= FPB_MAX_LEVELS)
		fpb_index_corrupt(index, FPB_METAPAGE_BLKNO,
						  "Metapage root level %u is impossible.",
						  meta->rootlevel);
	if (!fpb_meta_formats_valid(meta->version, fpb_meta_mprefix(page),
								fpb_meta_pfxflags(page)))
		fpb_index_corrupt(index, FPB_METAPAGE_BLKNO,
						  "Metapage prefix formats %u/%u do not belong to version %u.",
						  fpb_meta_mprefix(page), fpb_meta_pfxflags(page),
						  meta->version);
	nblocks = RelationGetNumberOfBlocks(index);
	if (meta->root == FPB_METAPAGE_BLKNO || meta->root >= nblocks)
		fpb_index_corrupt(index, FPB_METAPAGE_BLKNO,
						  "Metapage root block %u is outside the tree (%u blocks).",
						  meta->root, nblocks);
}

/*
 * Read the metapage.  The copy kept with the relcache entry (relcache.c)
 * may be stale about the root; callers detect that (see fpb_search) and
 * ask again with refresh.
 */
void
fpb_read_meta(Relation index, FpbMetaPageData *out)
{
	Buffer		buf = fpb_getmetabuf(index, BUFFER_LOCK_SHARE);

	fpb_check_meta(index, BufferGetPage(buf));
	memcpy(out, FpbPageGetMeta(BufferGetPage(buf)), sizeof(FpbMetaPageData));
	out->mprefix = fpb_meta_mprefix(BufferGetPage(buf));
	out->pfxflags = fpb_meta_pfxflags(BufferGetPage(buf));
	UnlockReleaseBuffer(buf);
}

/* Pin, lock (unless lockmode is BUFFER_LOCK_UNLOCK) and sanity-check. */
static Buffer
fpb_getbuf_internal(Relation index, BlockNumber blkno, int lockmode)
{
	Buffer		buf = ReadBuffer(index, blkno);

	/*
	 * Every visit reads the page header, the special space and (after a
	 * layout, which places it first) the root node: start those misses
	 * together instead of one after another.
	 */
	{
		char	   *p = (char *) BufferGetPage(buf);

		FPB_PREFETCH_R(p);
		FPB_PREFETCH_R(p + BLCKSZ - FPB_SPECIAL_SIZE);
		for (int i = 0; i < 4; i++)
			FPB_PREFETCH_R(p + FPB_DATA_START + i * FPB_LINE);
	}
	if (lockmode != BUFFER_LOCK_UNLOCK)
	{
		/*
		 * A damaged link can lead back to a page this backend has locked
		 * (a split locks the page, its new sibling, the old sibling and a
		 * child).  Waiting for our own lock would never end and could not
		 * be cancelled, since buffer lock waits hold off interrupts.
		 */
		if (!BufferIsLocal(buf))
		{
			BufferDesc *desc = GetBufferDescriptor(buf - 1);

			if (LWLockHeldByMe(BufferDescriptorGetContentLock(desc)))
			{
				ReleaseBuffer(buf);
				fpb_index_corrupt(index, blkno,
								  "A link leads back to block %u, which this backend has locked already.",
								  blkno);
			}
		}
		LockBuffer(buf, lockmode);
		fpb_page_check_sane(index, BufferGetPage(buf), blkno);
	}
	return buf;
}

/*
 * A tree page.  The metapage is never one: a link to block 0 is damage
 * (following it would let an insert write entries into the metapage).
 */
Buffer
fpb_getbuf(Relation index, BlockNumber blkno, int lockmode)
{
	if (blkno == InvalidBlockNumber)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" follows an invalid block link",
						RelationGetRelationName(index))));
	if (blkno == FPB_METAPAGE_BLKNO)
		fpb_index_corrupt(index, blkno,
						  "A link to a tree page leads to the metapage.");
	return fpb_getbuf_internal(index, blkno, lockmode);
}

/* The metapage, locked in lockmode. */
Buffer
fpb_getmetabuf(Relation index, int lockmode)
{
	Assert(lockmode != BUFFER_LOCK_UNLOCK);
	return fpb_getbuf_internal(index, FPB_METAPAGE_BLKNO, lockmode);
}

/*
 * May the page, a deleted page, be used again?  Only once no transaction
 * can still hold a link to it that it read before the page was unlinked:
 * all of them began before its safexid was assigned (nbtree's rule; the
 * shared horizon, NULL, is the conservative one).
 */
bool
fpb_page_recyclable(Page page)
{
	FpbPageOpaque opq = FpbPageGetOpaque(page);

	if (PageIsNew(page))
		return true;
	if (PageGetSpecialSize(page) != FPB_SPECIAL_SIZE ||
		opq->pageid != FPB_PAGE_ID || !FpbPageIsDeleted(opq))
		return false;
	return GlobalVisCheckRemovableFullXid(NULL, fpb_page_safexid(opq));
}

/*
 * Does the metapage hold the uint16 field at *field?  A metapage written
 * before the field existed ends (pd_lower) before it.
 */
static inline bool
fpb_meta_has(Page metapage, const uint16 *field)
{
	return ((PageHeader) metapage)->pd_lower >=
		(const char *) field + sizeof(uint16) - (const char *) metapage;
}

/*
 * The VACUUM cycle id in the metapage: the current VACUUM's while one runs.
 * A split stamps it on both halves, so that a VACUUM that has passed the
 * (possibly reused, low) new block comes back for the entries moved there
 * (vacuum.c).  Splits read it after the new block is locked: a VACUUM that
 * starts later visits both halves only after the split.
 */
uint16
fpb_meta_cycleid(Page metapage)
{
	FpbMetaPageData *meta = FpbPageGetMeta(metapage);

	/* an old metapage's pd_lower ends before the field: it is zero */
	return fpb_meta_has(metapage, &meta->vac_cycle) ? meta->vac_cycle : 0;
}

/*
 * The multi-column prefix format in the metapage (version 2 has the coded
 * one, version 1 the first).  A metapage older than the field holds zero
 * there (its pd_lower may end before it): the first format, which such an
 * index was built with.
 */
uint16
fpb_meta_mprefix(Page metapage)
{
	FpbMetaPageData *meta = FpbPageGetMeta(metapage);

	return fpb_meta_has(metapage, &meta->mprefix) ? meta->mprefix :
		FPB_MPREFIX_FIRST;
}

/*
 * The prefix flags of the first column in the metapage (FPB_PFX_*, version
 * 3); zero in a metapage older than the field, as in every index built
 * without them.
 */
uint16
fpb_meta_pfxflags(Page metapage)
{
	FpbMetaPageData *meta = FpbPageGetMeta(metapage);

	return fpb_meta_has(metapage, &meta->pfxflags) ? meta->pfxflags : 0;
}

/*
 * The deleted pages the last VACUUM left unlisted, coded as stored
 * (FPB_DELPAGES_*).  The field took the struct's padding, so every
 * metapage covers it; an older one holds zero there.
 */
uint16
fpb_meta_delpages(Page metapage)
{
	FpbMetaPageData *meta = FpbPageGetMeta(metapage);

	return fpb_meta_has(metapage, &meta->vac_delpages) ?
		meta->vac_delpages : FPB_DELPAGES_UNKNOWN;
}

/*
 * Do the prefix formats belong to the metapage version?  Version 1 has
 * the first multi-column format, 2 the coded one, both without flags; 3
 * either, with the flags of its time (a build older than version 3 refuses
 * it rather than compute its prefixes another way); 4 either, with or
 * without any known flag.  FPB_PFX_PACKED and the later flags came after
 * version 4: a build of version 4 without one refuses an index that has it
 * as having unknown flags.
 */
bool
fpb_meta_formats_valid(uint32 version, uint16 mprefix, uint16 pfxflags)
{
	if (version == FPB_VERSION_STARTS)
		return (mprefix == FPB_MPREFIX_FIRST ||
				mprefix == FPB_MPREFIX_CODED) &&
			(pfxflags & ~FPB_PFX_KNOWN) == 0;
	if (version == FPB_VERSION_PFX)
		return (mprefix == FPB_MPREFIX_FIRST ||
				mprefix == FPB_MPREFIX_CODED) &&
			pfxflags != 0 &&
			(pfxflags & ~(FPB_PFX_CODEPOINT | FPB_PFX_COMPRESS)) == 0;
	return pfxflags == 0 &&
		mprefix == (version == FPB_VERSION_CODED ? FPB_MPREFIX_CODED :
					FPB_MPREFIX_FIRST);
}

uint16
fpb_vacuum_cycleid(Relation index)
{
	Buffer		buf = fpb_getmetabuf(index, BUFFER_LOCK_SHARE);
	uint16		cycle = fpb_meta_cycleid(BufferGetPage(buf));

	UnlockReleaseBuffer(buf);
	return cycle;
}

/*
 * A new, exclusively locked page: a deleted page that the free space map
 * lists and that is recyclable, or else a new block at the end of the
 * index.  The caller initialises the page.
 *
 * The map is only a hint (it is not WAL-logged, and a page may have been
 * handed out already), so the page is checked under its lock.  The lock is
 * only tried: the caller may hold other locks, and a page the map lists
 * that somebody else has locked is not free anyway.
 */
Buffer
fpb_newbuf(Relation index)
{
	Buffer		buf;
	bool		needlock = !RELATION_IS_LOCAL(index);

	for (int tries = 0; tries < 64; tries++)
	{
		BlockNumber blkno = GetFreeIndexPage(index);
		Page		page;

		if (blkno == InvalidBlockNumber)
			break;
		if (blkno == FPB_METAPAGE_BLKNO)
			continue;
		buf = ReadBuffer(index, blkno);
		if (!ConditionalLockBuffer(buf))
		{
			ReleaseBuffer(buf);
			continue;
		}
		page = BufferGetPage(buf);
		if (fpb_page_recyclable(page))
		{
			/*
			 * A hot standby may still run queries that could follow a link
			 * to the page; make its replay wait for them or cancel them.
			 */
			if (!PageIsNew(page) && XLogStandbyInfoActive() &&
				RelationNeedsWAL(index))
				FPB_LOG_REUSE_PAGE(index, blkno,
								   fpb_page_safexid(FpbPageGetOpaque(page)));
			return buf;
		}
		UnlockReleaseBuffer(buf);
	}

	if (needlock)
		FPB_EXTEND_LOCK(index);
	buf = ReadBuffer(index, P_NEW);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	if (needlock)
		FPB_EXTEND_UNLOCK(index);
	return buf;
}

void
fpb_relbuf(Buffer buf)
{
	UnlockReleaseBuffer(buf);
}
