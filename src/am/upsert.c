/*-------------------------------------------------------------------------
 *
 * upsert.c
 *	  INSERT ... ON CONFLICT on tables with unique fpbtree indexes (README
 *	  "Unique indexes").
 *
 * PostgreSQL 15's executor refuses every speculative insertion into a table
 * that has a unique index of an access method other than btree, whichever
 * index is the arbiter: ExecOpenIndices gives each unique index the state of
 * the ON CONFLICT checks (BuildSpeculativeIndexInfo: the equality operator,
 * strategy 3, of each key column's opfamily), and that function raises
 * "unexpected non-btree speculative unique index" unless relam is btree's.
 * Nothing else of ON CONFLICT is btree's own: the planner infers an arbiter
 * from any unique index; the check before the insertion is an index scan by
 * those equality operators under a dirty snapshot; the insertion itself
 * calls aminsert with UNIQUE_CHECK_PARTIAL, which fpbtree implements as
 * nbtree does (unique.c), waiting on the speculative insertion token of a
 * concurrent inserter; and strategy 3 of fpbtree's families is btree's "=".
 *
 * So once the executor has started an ON CONFLICT statement whose target
 * table has a unique fpbtree index, the ExecutorStart hook opens the
 * table's indexes itself, as ExecOpenIndices would at its first row
 * (PostgreSQL 14 did it at start), filling in the same state: for a unique
 * fpbtree index from its own families, for any other unique index by the
 * core's function.  The executor then finds the indexes open.  Other
 * tables are left to the executor as they are: whether a table has such an
 * index is read from the catalog caches, opening and locking nothing.  A partition that tuple routing
 * opens later is beyond reach: PostgreSQL refuses unique fpbtree indexes on
 * partitioned tables anyway, and one created on a single partition still
 * stops ON CONFLICT through the parent.  The core's internal error there
 * is turned into a feature_not_supported error that says why, by an
 * ExecutorRun hook around such statements only.  The hooks exist once the
 * library is loaded: an ON CONFLICT without a conflict target opens no
 * index while it is planned, so in a session that has not used an fpbtree
 * index yet it needs the library preloaded.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/stratnum.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "commands/defrem.h"
#include "executor/executor.h"
#include "nodes/execnodes.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/syscache.h"

#include "fpbtree.h"

static ExecutorStart_hook_type fpb_prev_executor_start = NULL;
static ExecutorRun_hook_type fpb_prev_executor_run = NULL;

/* The core's error for a unique index of another access method (elog) */
#define FPB_SPECULATIVE_ERROR "unexpected non-btree speculative unique index"

/*
 * BuildSpeculativeIndexInfo for a unique fpbtree index: the equality
 * operator of each key column, strategy 3 of its family.
 */
static void
fpb_upsert_index_info(Relation index, IndexInfo *ii)
{
	int			nkeys = IndexRelationGetNumberOfKeyAttributes(index);

	ii->ii_UniqueOps = (Oid *) palloc(sizeof(Oid) * nkeys);
	ii->ii_UniqueProcs = (Oid *) palloc(sizeof(Oid) * nkeys);
	ii->ii_UniqueStrats = (uint16 *) palloc(sizeof(uint16) * nkeys);
	for (int i = 0; i < nkeys; i++)
	{
		Oid			eq = get_opfamily_member(index->rd_opfamily[i],
											 index->rd_opcintype[i],
											 index->rd_opcintype[i],
											 BTEqualStrategyNumber);

		if (!OidIsValid(eq))
			elog(ERROR, "operator family %u of index \"%s\" has no equality operator for type %s",
				 index->rd_opfamily[i], RelationGetRelationName(index),
				 format_type_be(index->rd_opcintype[i]));
		ii->ii_UniqueStrats[i] = BTEqualStrategyNumber;
		ii->ii_UniqueOps[i] = eq;
		ii->ii_UniqueProcs[i] = get_opcode(eq);
	}
}

/* Has rel a unique fpbtree index (ready or not)? */
static bool
fpb_upsert_has_unique_fpbtree(Relation rel)
{
	Oid			am = get_index_am_oid("fpbtree", true);
	List	   *indexes;
	ListCell   *lc;
	bool		found = false;

	if (!OidIsValid(am))
		return false;
	indexes = RelationGetIndexList(rel);
	foreach(lc, indexes)
	{
		Oid			indexoid = lfirst_oid(lc);
		HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(indexoid));

		if (!HeapTupleIsValid(tup))
			continue;			/* dropped meanwhile: ExecOpenIndices's concern */
		if (((Form_pg_class) GETSTRUCT(tup))->relam == am)
		{
			HeapTuple	itup = SearchSysCache1(INDEXRELID,
											   ObjectIdGetDatum(indexoid));

			if (HeapTupleIsValid(itup))
			{
				found = ((Form_pg_index) GETSTRUCT(itup))->indisunique;
				ReleaseSysCache(itup);
			}
		}
		ReleaseSysCache(tup);
		if (found)
			break;
	}
	list_free(indexes);
	return found;
}

/*
 * ExecOpenIndices(rri, true) for the ON CONFLICT target rri, in the current
 * (the query's) memory context, if rri has a unique fpbtree index.  The
 * indexes are left to the executor if it has opened them, and so are a
 * partitioned table's (tuple routing opens each partition's).
 */
static void
fpb_upsert_open_indexes(ResultRelInfo *rri)
{
	Relation	rel = rri->ri_RelationDesc;
	List	   *indexes;
	ListCell   *lc;
	int			n;
	int			i = 0;

	if (!rel->rd_rel->relhasindex || rri->ri_IndexRelationDescs != NULL ||
		rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE ||
		!fpb_upsert_has_unique_fpbtree(rel))
		return;
	indexes = RelationGetIndexList(rel);
	n = list_length(indexes);
	if (n == 0)
		return;
	rri->ri_IndexRelationDescs = (RelationPtr) palloc(sizeof(Relation) * n);
	rri->ri_IndexRelationInfo = (IndexInfo **) palloc(sizeof(IndexInfo *) * n);
	foreach(lc, indexes)
	{
		/* the executor's lock: it will write the index */
		Relation	index = index_open(lfirst_oid(lc), RowExclusiveLock);
		IndexInfo  *ii = BuildIndexInfo(index);

		if (ii->ii_Unique)
		{
			if (index->rd_indam->aminsert == fpbinsert)
				fpb_upsert_index_info(index, ii);
			else
				BuildSpeculativeIndexInfo(index, ii);
		}
		rri->ri_IndexRelationDescs[i] = index;
		rri->ri_IndexRelationInfo[i] = ii;
		/* counted as opened (an error leaves them to the resource owner) */
		rri->ri_NumIndices = ++i;
	}
	list_free(indexes);
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

/* The partitioned table ModifyTable mtstate inserts into ON CONFLICT, or NULL */
static Relation
fpb_upsert_partitioned_target(ModifyTableState *mtstate)
{
	ModifyTable *node = (ModifyTable *) mtstate->ps.plan;
	Relation	rel;

	if (mtstate->operation != CMD_INSERT ||
		node->onConflictAction == ONCONFLICT_NONE || mtstate->mt_nrels < 1)
		return NULL;
	rel = mtstate->resultRelInfo[0].ri_RelationDesc;
	return rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE ? rel : NULL;
}

/*
 * Tuple routing opens a partition's indexes as ExecOpenIndices does, and
 * the core raises its internal error when one of them is a unique fpbtree
 * index, whatever the arbiter and also without a conflict.  Around the
 * statements that can meet it, give the user an error that says so.
 */
static void
fpb_upsert_executor_run(QueryDesc *queryDesc, ScanDirection direction,
						uint64 count, bool execute_once)
{
	Relation	target = NULL;
	char		name[NAMEDATALEN];
	MemoryContext cxt = CurrentMemoryContext;

	if (queryDesc->estate != NULL &&
		(queryDesc->operation == CMD_INSERT ||
		 queryDesc->plannedstmt->hasModifyingCTE))
	{
		ListCell   *lc;

		if (IsA(queryDesc->planstate, ModifyTableState))
			target = fpb_upsert_partitioned_target((ModifyTableState *) queryDesc->planstate);
		foreach(lc, queryDesc->estate->es_auxmodifytables)
		{
			if (target != NULL)
				break;
			target = fpb_upsert_partitioned_target((ModifyTableState *) lfirst(lc));
		}
	}
	if (target == NULL)
	{
		if (fpb_prev_executor_run)
			fpb_prev_executor_run(queryDesc, direction, count, execute_once);
		else
			standard_ExecutorRun(queryDesc, direction, count, execute_once);
		return;
	}

	/* the relcache entry is not to be read once an error is under way */
	strlcpy(name, RelationGetRelationName(target), sizeof(name));
	PG_TRY();
	{
		if (fpb_prev_executor_run)
			fpb_prev_executor_run(queryDesc, direction, count, execute_once);
		else
			standard_ExecutorRun(queryDesc, direction, count, execute_once);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		/* most errors pass untouched, without a copy */
		if (geterrcode() != ERRCODE_INTERNAL_ERROR)
			PG_RE_THROW();
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode != ERRCODE_INTERNAL_ERROR ||
			edata->message == NULL ||
			strcmp(edata->message, FPB_SPECULATIVE_ERROR) != 0)
		{
			FreeErrorData(edata);
			PG_RE_THROW();
		}
		FlushErrorState();
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("INSERT ... ON CONFLICT into partitioned table \"%s\" is not supported when a partition has a unique fpbtree index",
						name),
				 errdetail("PostgreSQL 15 prepares every unique index of a partition it routes rows to for ON CONFLICT, and accepts only btree indexes there, whichever index is the arbiter."),
				 errhint("Insert into the partition itself, or make the partition's unique index a btree index.")));
	}
	PG_END_TRY();
}

/* Called from fpb_am_init (_PG_init). */
void
fpb_upsert_init(void)
{
	fpb_prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = fpb_upsert_executor_start;
	fpb_prev_executor_run = ExecutorRun_hook;
	ExecutorRun_hook = fpb_upsert_executor_run;
}
