/*-------------------------------------------------------------------------
 *
 * upsert.c
 *	  INSERT ... ON CONFLICT on tables with unique fpbtree indexes (README
 *	  "Unique indexes").
 *
 * PostgreSQL 15's executor refuses every speculative insertion into a table
 * that has a unique index of an access method other than btree, whichever
 * index is the arbiter: ExecOpenIndices gives each unique index the state of
 * the ON CONFLICT checks (BuildSpeculativeIndexInfo), which looks up the
 * equality operator of each column's opfamily, strategy 3, but first raises
 * "unexpected non-btree speculative unique index" unless relam is btree's.
 * Nothing else of ON CONFLICT is btree's own: the planner infers an arbiter
 * from any unique index; the check before the insertion is an index scan
 * by those equality operators, under a dirty snapshot; the insertion itself
 * calls aminsert with UNIQUE_CHECK_PARTIAL, which fpbtree implements as
 * nbtree does (unique.c), waiting on the speculative insertion token of a
 * concurrent inserter; and strategy 3 of fpbtree's families is btree's "=".
 *
 * So once the executor has started such a statement, the ExecutorStart hook
 * opens the target tables' indexes itself, as PostgreSQL 14 did at start
 * (15 opens them at the first row, unless already open), and while it does,
 * the relcache entries of the unique fpbtree indexes among them show btree's
 * relam.  Nothing but the executor's own index opening reads them in that
 * window.  The entries are held open and locked before, so a relcache
 * rebuild can only happen if an invalidation of one of them (a concurrent
 * VACUUM's statistics) is processed inside the window; the statement then
 * fails with the core's error, as it would without this.  A partition that
 * tuple routing opens later is beyond reach: PostgreSQL refuses unique
 * fpbtree indexes on partitioned tables anyway, and one created on a single
 * partition still stops ON CONFLICT through the parent.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "catalog/pg_am_d.h"
#include "executor/executor.h"
#include "nodes/execnodes.h"
#include "utils/rel.h"
#include "utils/relcache.h"

#include "fpbtree.h"

static ExecutorStart_hook_type fpb_prev_executor_start = NULL;

/*
 * Open the indexes of the ON CONFLICT target rri, the unique fpbtree ones
 * looking like btree's meanwhile.  Leaves a table without unique fpbtree
 * indexes to the executor's own opening at its first row.
 */
static void
fpb_upsert_open_indexes(ResultRelInfo *rri)
{
	Relation	rel = rri->ri_RelationDesc;
	List	   *indexes;
	List	   *opened = NIL;
	List	   *flipped = NIL;
	ListCell   *lc;

	if (!rel->rd_rel->relhasindex || rri->ri_IndexRelationDescs != NULL)
		return;
	indexes = RelationGetIndexList(rel);
	foreach(lc, indexes)
	{
		/* the executor's lock, taken first so that it finds it held */
		Relation	irel = index_open(lfirst_oid(lc), RowExclusiveLock);

		opened = lappend(opened, irel);
		if (irel->rd_indam->aminsert == fpbinsert &&
			irel->rd_index->indisunique)
			flipped = lappend(flipped, irel);
	}
	list_free(indexes);

	if (flipped != NIL)
	{
		Oid			relam = ((Relation) linitial(flipped))->rd_rel->relam;

		PG_TRY();
		{
			foreach(lc, flipped)
				((Relation) lfirst(lc))->rd_rel->relam = BTREE_AM_OID;
			ExecOpenIndices(rri, true);
		}
		PG_FINALLY();
		{
			foreach(lc, flipped)
				((Relation) lfirst(lc))->rd_rel->relam = relam;
		}
		PG_END_TRY();
	}
	foreach(lc, opened)
		index_close((Relation) lfirst(lc), NoLock);
	list_free(opened);
	list_free(flipped);
}

/* Open the indexes of each ON CONFLICT target of ModifyTable mtstate. */
static void
fpb_upsert_modifytable(ModifyTableState *mtstate)
{
	ModifyTable *node = (ModifyTable *) mtstate->ps.plan;

	if (mtstate->operation != CMD_INSERT ||
		node->onConflictAction == ONCONFLICT_NONE)
		return;
	for (int i = 0; i < mtstate->mt_nrels; i++)
		fpb_upsert_open_indexes(&mtstate->resultRelInfo[i]);
}

static void
fpb_upsert_executor_start(QueryDesc *queryDesc, int eflags)
{
	EState	   *estate;
	MemoryContext old;
	ListCell   *lc;

	if (fpb_prev_executor_start)
		fpb_prev_executor_start(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);

	/* EXPLAIN without ANALYZE inserts nothing */
	if ((eflags & EXEC_FLAG_EXPLAIN_ONLY) ||
		(queryDesc->operation != CMD_INSERT &&
		 !queryDesc->plannedstmt->hasModifyingCTE))
		return;
	estate = queryDesc->estate;
	old = MemoryContextSwitchTo(estate->es_query_cxt);
	if (IsA(queryDesc->planstate, ModifyTableState))
		fpb_upsert_modifytable((ModifyTableState *) queryDesc->planstate);
	/* data-modifying WITH queries */
	foreach(lc, estate->es_auxmodifytables)
		fpb_upsert_modifytable((ModifyTableState *) lfirst(lc));
	MemoryContextSwitchTo(old);
}

/* Called from fpb_am_init (_PG_init). */
void
fpb_upsert_init(void)
{
	fpb_prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = fpb_upsert_executor_start;
}
