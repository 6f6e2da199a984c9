/*-------------------------------------------------------------------------
 *
 * verify_heap.c
 *	  fpbtree_check(index, heapallindexed => true): every tuple an MVCC
 *	  snapshot taken before the walk sees must have its entry among the
 *	  leaf keys the walk collected (verify.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/tableam.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "utils/snapmgr.h"
#include "verify.h"

static int
fpb_check_key_qcmp(const void *a, const void *b)
{
	const FpbKey *x = (const FpbKey *) a;
	const FpbKey *y = (const FpbKey *) b;

	return fpb_key_cmp(x->k, x->t, y->k, y->t);
}

/* ----------------------------------------------------------------
 * heapallindexed
 * ----------------------------------------------------------------
 */

/*
 * The table scan's callback: look the heap tuple's entry key up among the
 * leaf keys (sorted), and raise ERRCODE_INDEX_CORRUPTED if it is missing.
 */
static void
fpb_check_heap_callback(Relation index, ItemPointer tid, Datum *values,
						bool *isnull, bool tupleIsAlive, void *state)
{
	FpbCheckState *st = (FpbCheckState *) state;
	FpbKey		key;
	int64		lo = 0,
				hi = st->nleafkeys;

	/* wide indexes: prefix and TID, the TID naming one entry */
	if (st->cmp && st->cmp->multi)
	{
		uint64		keys[INDEX_MAX_KEYS];

		fpb_multi_row_keys(st->cmp, index, values, isnull, keys);
		key.k = fpb_multi_prefix(st->cmp, st->cmp->nkeys, keys, isnull, 0);
		key.t = fpb_make_t(tid, isnull[0]);
	}
	else
	{
		key = fpb_heap_key(st->encproc,
						   st->cmp ? st->cmp->pfxcoll :
						   index->rd_indcollation[0],
						   values[0], isnull[0], tid);
		if (st->cmp)
			key.k = FPB_WIDE_PREFIX(key.k);
	}

	st->heaptuples++;

	while (lo < hi)
	{
		int64		mid = lo + (hi - lo) / 2;
		int			c = fpb_key_cmp(st->leafkeys[mid].k, st->leafkeys[mid].t,
									key.k, key.t);

		if (c == 0)
			return;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("heap tuple (%u,%u) from table \"%s\" lacks a matching entry in fpbtree index \"%s\"",
					ItemPointerGetBlockNumber(tid),
					ItemPointerGetOffsetNumber(tid),
					RelationGetRelationName(st->heap),
					RelationGetRelationName(st->index)),
			 errdetail("Expected entry %s.", fpb_keydesc(key.k, key.t))));
}

/*
 * Take the snapshot for heapallindexed.  It is taken before the walk: every
 * tuple it sees was indexed before it was taken, and a walk that starts
 * later meets every entry then present even if pages split meanwhile, which
 * matters in relaxed mode.
 */
Snapshot
fpb_check_snapshot(FpbCheckState *st)
{
	Snapshot	snapshot = RegisterSnapshot(GetTransactionSnapshot());

	/*
	 * A transaction snapshot from before the index became usable may see
	 * tuples the index need not hold (see indcheckxmin); refuse, as amcheck
	 * does, rather than report them.
	 */
	if (IsolationUsesXactSnapshot() && st->index->rd_index->indcheckxmin &&
		!TransactionIdPrecedes(HeapTupleHeaderGetXmin(st->index->rd_indextuple->t_data),
							   snapshot->xmin))
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("index \"%s\" cannot be verified using transaction snapshot",
						RelationGetRelationName(st->index))));
	return snapshot;
}

/* Look up every tuple the snapshot sees among the collected leaf keys. */
void
fpb_check_heapallindexed(FpbCheckState *st, Snapshot snapshot)
{
	IndexInfo  *indexInfo = BuildIndexInfo(st->index);
	TableScanDesc scan;

	st->encproc = index_getprocinfo(st->index, 1, FPB_ENCODE_PROC);

	/*
	 * A wide index's leaf order breaks prefix ties by value: sort the keys
	 * by (prefix, TID) for the lookups.
	 */
	if (st->cmp && st->nleafkeys > 1)
		qsort(st->leafkeys, st->nleafkeys, sizeof(FpbKey), fpb_check_key_qcmp);

	/*
	 * An MVCC scan (see the file header); ii_Concurrent tells the build scan
	 * not to expect SnapshotAny.
	 */
	indexInfo->ii_Concurrent = true;
	scan = table_beginscan_strat(st->heap, snapshot, 0, NULL, true, false);
	table_index_build_scan(st->heap, st->index, indexInfo, true, false,
						   fpb_check_heap_callback, (void *) st, scan);
	/* the build scan has ended the scan */
}

