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
 * Only statements that add foreign keys (and columns without primary key,
 * unique or exclusion constraints) are looked at: another subcommand could
 * change the indexes between the hook's look and the core's, and such a
 * statement is left to the core as it is.  The statement is copied before
 * it is changed (it may belong to a cached plan), and the referenced table
 * it names is then qualified with its schema, so that the core finds the
 * table the hook looked at.  That table is locked before it is looked at,
 * in the mode the core locks it in first: the statement's own when it is
 * the altered table, else AccessShareLock (the core's ShareRowExclusiveLock
 * follows; the altered table is locked by the core before it).  The hook
 * exists once the library is loaded: without preloading, a session that
 * has not used an fpbtree index yet gets the core's behaviour.
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
#include "commands/tablecmds.h"
#include "storage/lmgr.h"
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
fpb_fkey_check(Constraint *con, Oid am, Oid selfrelid, LOCKMODE selflock)
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
	/*
	 * A missing table or column is the core's to report.  The table is
	 * locked as the core will lock it first: the altered table (a foreign
	 * key to itself) in the statement's mode, another one weaker than the
	 * core's ShareRowExclusiveLock; no lock is upgraded from a weaker one
	 * the hook took on the altered table.
	 */
	pkrelid = RangeVarGetRelid(con->pktable, NoLock, true);
	if (!OidIsValid(pkrelid))
		return false;
	LockRelationOid(pkrelid, pkrelid == selfrelid ? selflock : AccessShareLock);
	if (get_rel_relkind(pkrelid) != RELKIND_RELATION &&
		get_rel_relkind(pkrelid) != RELKIND_PARTITIONED_TABLE)
		return false;
	foreach(lc, con->pk_attrs)
	{
		attnums[n] = get_attnum(pkrelid, strVal(lfirst(lc)));
		if (attnums[n] == InvalidAttrNumber)
			return false;
		/* a column named twice is the core's to report */
		for (int j = 0; j < n; j++)
			if (attnums[j] == attnums[n])
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
					 errhint("REINDEX INDEX CONCURRENTLY \"%s\" makes it newer than \"%s\". pg_restore creates plain indexes in name order, but constraints first: a UNIQUE constraint using \"%s\" stays the older one.",
							 get_rel_name(chosen), get_rel_name(btree),
							 get_rel_name(btree))));
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
	if (drop)
	{
		/* the core must find this very table again */
		RangeVar   *rv = copyObject(con->pktable);

		rv->catalogname = NULL;
		rv->schemaname = get_namespace_name(get_rel_namespace(pkrelid));
		rv->relname = get_rel_name(pkrelid);
		con->pktable = rv;
	}
	return drop;
}

/* The foreign keys an ALTER TABLE command adds; drops column lists. */
static bool
fpb_fkey_cmds(AlterTableStmt *stmt, Oid am)
{
	List	   *cmds = stmt->cmds;
	Oid			selfrelid = RangeVarGetRelid(stmt->relation, NoLock, true);
	LOCKMODE	selflock = AlterTableGetLockLevel(cmds);
	ListCell   *lc;
	bool		changed = false;

	foreach(lc, cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);

		if (cmd->subtype == AT_AddConstraint && IsA(cmd->def, Constraint))
		{
			Constraint *con = (Constraint *) cmd->def;

			if (fpb_fkey_check(con, am, selfrelid, selflock))
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

				if (fpb_fkey_check(con, am, selfrelid, selflock))
				{
					con->pk_attrs = NIL;
					changed = true;
				}
			}
		}
	}
	return changed;
}

/*
 * Does an ALTER TABLE command add a foreign key that names its columns,
 * and nothing that could change the indexes the hook looks at (then the
 * statement is left to the core as it is)?  Only foreign keys, and columns
 * without primary key, unique or exclusion constraints.
 */
static bool
fpb_fkey_named(List *cmds)
{
	ListCell   *lc;
	bool		named = false;

	foreach(lc, cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);
		List	   *cons = NIL;
		ListCell   *cc;

		if (cmd->subtype == AT_AddConstraint && IsA(cmd->def, Constraint))
			cons = list_make1(cmd->def);
		else if (cmd->subtype == AT_AddColumn && IsA(cmd->def, ColumnDef))
			cons = ((ColumnDef *) cmd->def)->constraints;
		else
			return false;
		foreach(cc, cons)
		{
			Constraint *con = lfirst_node(Constraint, cc);

			if (con->contype == CONSTR_FOREIGN && con->pk_attrs != NIL)
				named = true;
			else if (con->contype == CONSTR_PRIMARY ||
					 con->contype == CONSTR_UNIQUE ||
					 con->contype == CONSTR_EXCLUSION ||
					 (cmd->subtype == AT_AddConstraint &&
					  con->contype != CONSTR_FOREIGN))
				return false;
		}
	}
	return named;
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

			if (fpb_fkey_cmds((AlterTableStmt *) copy->utilityStmt, am))
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
