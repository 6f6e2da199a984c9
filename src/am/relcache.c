/*-------------------------------------------------------------------------
 *
 * relcache.c
 *	  What fpbtree keeps per relcache entry of an index: a copy of the
 *	  metapage, the comparison of a wide index, and the encode procedures
 *	  of the cross-type scan arguments seen last.  See src/am/README.md,
 *	  "The relcache entry".
 *
 * The relcache frees rd_amcache whenever it processes an invalidation of
 * the index, also while the index is open, and it processes invalidations
 * whenever the backend locks a relation for the first time in a
 * transaction: a catalog lookup that misses the caches, an enum comparison
 * reloading its labels' order, a comparison written in SQL.  Those happen
 * inside our calls, while a descent or a scan holds the comparison.  So the
 * data lives in a memory context of its own, a child of the entry's
 * rd_indexcxt, which the relcache keeps as long as the entry
 * (RelationReloadIndexInfo leaves it; it goes when the entry is destroyed,
 * which happens only while nobody has the index open).  rd_amcache holds a
 * handle to it, and an invalidation frees only the handle.  The next use
 * finds the data again through a table of this backend keyed by the
 * index's OID, reads the metapage again, and makes a new handle; a memory
 * context callback removes the table's entry when the context goes.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fpbtree.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

/* A cross-type scan argument's encode procedure (fpb_cross_encoder). */
typedef struct FpbXEncoder
{
	Oid			subtype;		/* InvalidOid: unused */
	int			col;
	bool		xbound;			/* proc is support function 3 */
	FmgrInfo	proc;
} FpbXEncoder;

#define FPB_XENCODERS	4

/* The data of one relcache entry, in its own memory context. */
typedef struct FpbRelCache
{
	Oid			relid;
	MemoryContext cxt;
	FpbMetaPageData meta;
	bool		cmpknown;		/* wide and cmp are set */
	bool		wide;
	int			xnext;			/* the xenc entry to fill next */
	FpbXEncoder xenc[FPB_XENCODERS];
	FpbCmp		cmp;			/* followed by fpb_cmp_space bytes */
} FpbRelCache;

/* What rd_amcache points to: the only part the relcache frees. */
typedef struct FpbRelCacheHandle
{
	FpbRelCache *data;
} FpbRelCacheHandle;

/* The context's callback: which table entry may point into it. */
typedef struct FpbRelCacheForget
{
	MemoryContextCallback cb;
	Oid			relid;
	MemoryContext cxt;
} FpbRelCacheForget;

typedef struct FpbRelCacheSlot
{
	Oid			relid;			/* hash key */
	FpbRelCache *data;
} FpbRelCacheSlot;

static HTAB *fpb_relcache_table = NULL;

/*
 * The entry's context is going (the relcache entry is destroyed): forget
 * the table's entry if its data, whichever of the context's, is there.
 * Called before the memory goes, so the data can still be read.
 */
static void
fpb_relcache_forget(void *arg)
{
	FpbRelCacheForget *f = (FpbRelCacheForget *) arg;
	FpbRelCacheSlot *slot;

	slot = hash_search(fpb_relcache_table, &f->relid, HASH_FIND, NULL);
	if (slot != NULL && slot->data->cxt == f->cxt)
		hash_search(fpb_relcache_table, &f->relid, HASH_REMOVE, NULL);
}

/*
 * New data for index in cxt (the entry's, or NULL for a new one), with the
 * metapage in *meta.
 */
static FpbRelCache *
fpb_relcache_new(Relation index, MemoryContext cxt,
				 const FpbMetaPageData *meta)
{
	FpbRelCache *c;

	if (cxt == NULL)
	{
		FpbRelCacheForget *f;

		cxt = AllocSetContextCreate(index->rd_indexcxt, "fpbtree relcache",
									ALLOCSET_SMALL_SIZES);
		f = MemoryContextAlloc(cxt, sizeof(FpbRelCacheForget));
		f->relid = RelationGetRelid(index);
		f->cxt = cxt;
		f->cb.func = fpb_relcache_forget;
		f->cb.arg = f;
		MemoryContextRegisterResetCallback(cxt, &f->cb);
	}
	c = MemoryContextAllocZero(cxt, MAXALIGN(sizeof(FpbRelCache)) +
							   fpb_cmp_space(index));
	c->relid = RelationGetRelid(index);
	c->cxt = cxt;
	c->meta = *meta;
	return c;
}

/* Does the comparison made for metapage a also serve metapage b? */
static bool
fpb_relcache_same_format(const FpbMetaPageData *a, const FpbMetaPageData *b)
{
	return a->version == b->version && a->w == b->w && a->x == b->x &&
		a->mprefix == b->mprefix && a->pfxflags == b->pfxflags;
}

static FpbRelCache *
fpb_relcache(Relation index)
{
	FpbRelCacheSlot *slot;
	FpbMetaPageData meta;
	FpbRelCacheHandle *h;
	bool		found;

	if (index->rd_amcache != NULL)
		return ((FpbRelCacheHandle *) index->rd_amcache)->data;

	if (fpb_relcache_table == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(FpbRelCacheSlot);
		ctl.hcxt = CacheMemoryContext;
		fpb_relcache_table = hash_create("fpbtree relcache", 64, &ctl,
										 HASH_ELEM | HASH_BLOBS |
										 HASH_CONTEXT);
	}
	fpb_read_meta(index, &meta);
	slot = hash_search(fpb_relcache_table, &index->rd_id, HASH_FIND, NULL);
	if (slot == NULL || slot->data->cxt->parent != index->rd_indexcxt)
	{
		/* the first use of this entry (made before the table entry) */
		FpbRelCache *c = fpb_relcache_new(index, NULL, &meta);

		slot = hash_search(fpb_relcache_table, &index->rd_id, HASH_ENTER,
						   &found);
		slot->data = c;
	}
	else if (!fpb_relcache_same_format(&slot->data->meta, &meta))
	{
		/*
		 * Rebuilt in this transaction in another format (a REINDEX after
		 * a change of the developer settings): new data.  The old stays
		 * in the context until the entry goes; nobody uses it any more,
		 * as REINDEX refuses an index this session has open.
		 */
		slot->data = fpb_relcache_new(index, slot->data->cxt, &meta);
	}
	else
		slot->data->meta = meta;

	h = MemoryContextAlloc(index->rd_indexcxt, sizeof(FpbRelCacheHandle));
	h->data = slot->data;
	index->rd_amcache = h;
	return h->data;
}

/*
 * The index was just built again: forget what the entry holds.  A rebuild
 * into the same files (the TRUNCATE of a table created or truncated in this
 * transaction, ON COMMIT DELETE ROWS) comes without an invalidation before
 * the build's own reads (a unique check), which would otherwise descend
 * from the old root.  The next use reads the new metapage, and makes new
 * data if the format changed.
 */
void
fpb_relcache_rebuilt(Relation index)
{
	if (index->rd_amcache != NULL)
	{
		pfree(index->rd_amcache);
		index->rd_amcache = NULL;
	}
}

FpbMetaPageData *
fpb_cached_meta(Relation index, bool refresh)
{
	bool		fresh = (index->rd_amcache == NULL);
	FpbRelCache *c = fpb_relcache(index);

	if (refresh && !fresh)
		fpb_read_meta(index, &c->meta);
	return &c->meta;
}

/*
 * The comparison of a wide index, NULL for a narrow one.  The node widths
 * that bound the full values' size come from the metapage.  It stays valid
 * as long as the index is open.
 */
const FpbCmp *
fpb_index_cmp(Relation index)
{
	FpbRelCache *c = fpb_relcache(index);

	if (!c->cmpknown)
	{
		c->wide = fpb_cmp_init(index, &c->cmp, c->meta.w, c->meta.x,
							   (char *) c + MAXALIGN(sizeof(FpbRelCache)));
		/* how this index's multi-column prefixes were made */
		c->cmp.mprefix = c->meta.mprefix;
		/* and its first column's (the code-point collations) */
		if (c->wide)
			fpb_cmp_set_pfxflags(&c->cmp, c->meta.pfxflags);
		c->cmpknown = true;
	}
	return c->wide ? &c->cmp : NULL;
}

/*
 * The procedure that turns a scan argument of type typid on column col
 * (0-based) into keys: the family's support function 3 for (column type,
 * typid) when there is one (*xbound), else typid's own encode function.
 * Looked up once per relcache entry rather than once per scan: a query
 * run many times (an index nested loop's inner side aside, each execution
 * begins a scan) would otherwise pay two catalog lookups every time.
 */
FmgrInfo *
fpb_cross_encoder(Relation index, int col, Oid typid, bool *xbound)
{
	FpbRelCache *c = fpb_relcache(index);
	Oid			coltype = index->rd_opcintype[col];
	FpbXEncoder *x;
	Oid			proc;

	for (int i = 0; i < FPB_XENCODERS; i++)
	{
		x = &c->xenc[i];
		if (x->subtype == typid && x->col == col)
		{
			*xbound = x->xbound;
			return &x->proc;
		}
	}
	proc = get_opfamily_proc(index->rd_opfamily[col], coltype, typid,
							 FPB_XKEY_PROC);
	*xbound = OidIsValid(proc);
	if (!*xbound)
		proc = get_opfamily_proc(index->rd_opfamily[col], typid, typid,
								 FPB_ENCODE_PROC);
	if (!OidIsValid(proc))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("operator family of index \"%s\" has no encode function for type %s",
						RelationGetRelationName(index), format_type_be(typid))));
	x = &c->xenc[c->xnext];
	c->xnext = (c->xnext + 1) % FPB_XENCODERS;
	x->subtype = InvalidOid;	/* unused until filled in */
	fmgr_info_cxt(proc, &x->proc, c->cxt);
	x->col = col;
	x->xbound = *xbound;
	x->subtype = typid;
	return &x->proc;
}
