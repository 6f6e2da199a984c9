/*-------------------------------------------------------------------------
 *
 * fkey.c
 *	  Foreign keys referencing a table that has unique fpbtree indexes
 *	  (README "Unique indexes").
 *
 * PostgreSQL 15 lets a foreign key rest only on a btree index.  When the
 * foreign key names the referenced columns, the core takes the first
 * index in OID order that is unique, valid, immediate, neither partial nor
 * on expressions, and has exactly those columns (transformFkeyCheckAttrs),
 * whatever its access method; when that index is an fpbtree one it then
 * fails with an internal error, "only b-tree indexes are supported for
 * foreign keys", although a btree primary key on the same columns may
 * exist.  Which index comes first is a matter of age: REINDEX
 * CONCURRENTLY of the primary key gives it a new, higher OID, and a unique
 * fpbtree index created before the primary key comes first from the
 * start.
 *
 * A ProcessUtility hook looks at every foreign key an ALTER TABLE adds
 * (CREATE TABLE adds its foreign keys by ALTER TABLE subcommands, which
 * pass through the hook too) and asks which index the core would take:
 *
 *	- a btree one, or none: the statement goes on unchanged;
 *	- an fpbtree one, and the named columns are the primary key's in its
 *	  order: the column list is dropped, so the foreign key takes the
 *	  primary key, as it does when no columns are named.  That is the same
 *	  constraint: the same columns paired the same way, the same operators;
 *	- an fpbtree one otherwise: an error with the foreign-key SQLSTATE
 *	  that names the index and says what to do, instead of the internal one.
 *
 * The statement is copied before it is changed (it may belong to a cached
 * plan).  The referenced table is looked up with AccessShareLock, weaker
 * than the core's ShareRowExclusiveLock that follows.  The hook exists once
 * the library is loaded: without preloading, a session that has not used
 * an fpbtree index yet gets the core's behaviour.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "commands/defrem.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/syscache.h"

#include "fpbtree.h"

static ProcessUtility_hook_type fpb_prev_process_utility = NULL;

/* The access method of index indexoid */
static Oid
fpb_fkey_relam(Oid indexoid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(indexoid));
	Oid			am;

	if (!HeapTupleIsValid(tup))
		return InvalidOid;
	am = ((Form_pg_class) GETSTRUCT(tup))->relam;
	ReleaseSysCache(tup);
	return am;
}

/*
 * The index the core would rest a foreign key on the columns attnums of
 * pkrel on (transformFkeyCheckAttrs's choice), or InvalidOid; and in
 * *btree the first btree index that would do, or InvalidOid.
 */
static Oid
fpb_fkey_core_index(Relation pkrel, int n, const AttrNumber *attnums,
					Oid *btree)
{
	List	   *indexes = RelationGetIndexList(pkrel);
	ListCell   *lc;
	Oid			chosen = InvalidOid;

	*btree = InvalidOid;

	foreach(lc, indexes)
	{
		Oid			indexoid = lfirst_oid(lc);
		HeapTuple	tup = SearchSysCache1(INDEXRELID,
										  ObjectIdGetDatum(indexoid));
		Form_pg_index ind;
		bool		match;

		if (!HeapTupleIsValid(tup))
			continue;
		ind = (Form_pg_index) GETSTRUCT(tup);
		match = ind->indnkeyatts == n && ind->indisunique &&
			ind->indisvalid && ind->indimmediate &&
			heap_attisnull(tup, Anum_pg_index_indpred, NULL) &&
			heap_attisnull(tup, Anum_pg_index_indexprs, NULL);
		/* the columns in any order (the core refuses repeated ones) */
		for (int i = 0; match && i < n; i++)
		{
			bool		found = false;

			for (int j = 0; j < n && !found; j++)
				found = ind->indkey.values[j] == attnums[i];
			match = found;
		}
		ReleaseSysCache(tup);
		if (!match)
			continue;
		if (!OidIsValid(chosen))
			chosen = indexoid;
		if (fpb_fkey_relam(indexoid) == BTREE_AM_OID)
		{
			*btree = indexoid;
			break;
		}
	}
	list_free(indexes);
	return chosen;
}

/* Are attnums the key columns of pkrel's primary key, in its order? */
static bool
fpb_fkey_is_pkey(Relation pkrel, int n, const AttrNumber *attnums)
{
	Oid			pkoid = RelationGetPrimaryKeyIndex(pkrel);
	HeapTuple	tup;
	bool		same;

	if (!OidIsValid(pkoid))
		return false;
	tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(pkoid));
	if (!HeapTupleIsValid(tup))
		return false;
	same = ((Form_pg_index) GETSTRUCT(tup))->indnkeyatts == n;
	for (int i = 0; same && i < n; i++)
		same = ((Form_pg_index) GETSTRUCT(tup))->indkey.values[i] == attnums[i];
	ReleaseSysCache(tup);
	return same;
}

/*
 * A foreign key constraint of the statement: keep it, drop its column list
 * (returns true), or refuse it, as the header says.
 */
static bool
fpb_fkey_check(Constraint *con, Oid am)
{
	Oid			pkrelid;
	Relation	pkrel;
	AttrNumber	attnums[INDEX_MAX_KEYS];
	int			n = 0;
	ListCell   *lc;
	Oid			chosen;
	Oid			btree;
	bool		drop = false;

	if (con->contype != CONSTR_FOREIGN || con->pk_attrs == NIL ||
		list_length(con->pk_attrs) > INDEX_MAX_KEYS)
		return false;
	/* a missing table or column is the core's to report */
	pkrelid = RangeVarGetRelid(con->pktable, AccessShareLock, true);
	if (!OidIsValid(pkrelid) ||
		(get_rel_relkind(pkrelid) != RELKIND_RELATION &&
		 get_rel_relkind(pkrelid) != RELKIND_PARTITIONED_TABLE))
		return false;
	foreach(lc, con->pk_attrs)
	{
		attnums[n] = get_attnum(pkrelid, strVal(lfirst(lc)));
		if (attnums[n] == InvalidAttrNumber)
			return false;
		n++;
	}
	pkrel = table_open(pkrelid, NoLock);
	chosen = fpb_fkey_core_index(pkrel, n, attnums, &btree);
	if (OidIsValid(chosen) && fpb_fkey_relam(chosen) == am)
	{
		if (fpb_fkey_is_pkey(pkrel, n, attnums))
			drop = true;
		else if (OidIsValid(btree))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_FOREIGN_KEY),
					 errmsg("foreign key referencing table \"%s\" would rest on fpbtree index \"%s\"",
							RelationGetRelationName(pkrel),
							get_rel_name(chosen)),
					 errdetail("PostgreSQL 15 rests a foreign key on the oldest unique index of the referenced columns, and accepts only a btree one; btree index \"%s\" is newer.",
							   get_rel_name(btree)),
					 errhint("REINDEX INDEX CONCURRENTLY \"%s\" makes it newer than \"%s\".",
							 get_rel_name(chosen), get_rel_name(btree))));
		else
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_FOREIGN_KEY),
					 errmsg("foreign key referencing table \"%s\" would rest on fpbtree index \"%s\"",
							RelationGetRelationName(pkrel),
							get_rel_name(chosen)),
					 errdetail("PostgreSQL 15 accepts only a btree primary key or unique index for a foreign key."),
					 errhint("Create a unique btree index on the referenced columns, then REINDEX INDEX CONCURRENTLY \"%s\" to make it the newer one.",
							 get_rel_name(chosen))));
	}
	table_close(pkrel, NoLock);
	return drop;
}

/* The foreign keys an ALTER TABLE command adds; drops column lists. */
static bool
fpb_fkey_cmds(List *cmds, Oid am)
{
	ListCell   *lc;
	bool		changed = false;

	foreach(lc, cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);

		if (cmd->subtype == AT_AddConstraint && IsA(cmd->def, Constraint))
		{
			Constraint *con = (Constraint *) cmd->def;

			if (fpb_fkey_check(con, am))
			{
				con->pk_attrs = NIL;
				changed = true;
			}
		}
		else if (cmd->subtype == AT_AddColumn && IsA(cmd->def, ColumnDef))
		{
			ListCell   *cc;

			foreach(cc, ((ColumnDef *) cmd->def)->constraints)
			{
				Constraint *con = lfirst_node(Constraint, cc);

				if (fpb_fkey_check(con, am))
				{
					con->pk_attrs = NIL;
					changed = true;
				}
			}
		}
	}
	return changed;
}

/* Does an ALTER TABLE command add a foreign key that names its columns? */
static bool
fpb_fkey_named(List *cmds)
{
	ListCell   *lc;

	foreach(lc, cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);
		List	   *cons = NIL;
		ListCell   *cc;

		if (cmd->subtype == AT_AddConstraint && IsA(cmd->def, Constraint))
			cons = list_make1(cmd->def);
		else if (cmd->subtype == AT_AddColumn && IsA(cmd->def, ColumnDef))
			cons = ((ColumnDef *) cmd->def)->constraints;
		foreach(cc, cons)
		{
			Constraint *con = lfirst_node(Constraint, cc);

			if (con->contype == CONSTR_FOREIGN && con->pk_attrs != NIL)
				return true;
		}
	}
	return false;
}

static void
fpb_fkey_process_utility(PlannedStmt *pstmt, const char *queryString,
						 bool readOnlyTree, ProcessUtilityContext context,
						 ParamListInfo params, QueryEnvironment *queryEnv,
						 DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;

	if (IsA(parsetree, AlterTableStmt) &&
		fpb_fkey_named(((AlterTableStmt *) parsetree)->cmds))
	{
		Oid			am = get_index_am_oid("fpbtree", true);

		if (OidIsValid(am))
		{
			PlannedStmt *copy = copyObject(pstmt);

			if (fpb_fkey_cmds(((AlterTableStmt *) copy->utilityStmt)->cmds,
							  am))
			{
				pstmt = copy;
				readOnlyTree = false;
			}
		}
	}
	if (fpb_prev_process_utility)
		fpb_prev_process_utility(pstmt, queryString, readOnlyTree, context,
								 params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
}

/* Called from fpb_am_init (_PG_init). */
void
fpb_fkey_init(void)
{
	fpb_prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = fpb_fkey_process_utility;
}
