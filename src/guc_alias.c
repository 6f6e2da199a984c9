/*-------------------------------------------------------------------------
 *
 * guc_alias.c
 *	  Session-only short names for the executor switches.
 *
 * Every setting of ours has a dotted name under "fpbtree.", the only kind
 * PostgreSQL accepts in postgresql.conf before the library is loaded: it
 * reads the configuration first and refuses to start on an unknown undotted
 * name.  The familiar switches "enable_prefetch_hashjoin" and
 * "enable_buffer_operator" (shaped like enable_hashjoin) are kept for SET,
 * as separate boolean settings; a feature is used only while both its
 * dotted setting and its short switch are on.  The short names must never
 * reach a configuration file or a stored database/role setting, which
 * might later be read without the library:
 *
 *	- they are GUC_DISALLOW_IN_FILE, so ALTER SYSTEM itself refuses them,
 *	  and their check hook refuses them in a configuration file read at a
 *	  reload (PostgreSQL 15 applies that flag to ALTER SYSTEM only);
 *	- a ProcessUtility hook rewrites ALTER SYSTEM, ALTER DATABASE ... SET,
 *	  ALTER ROLE ... SET and the SET clauses of functions and procedures
 *	  (stored in pg_proc) of a short name to the dotted name before
 *	  PostgreSQL sees the statement, with a NOTICE saying so.  Both
 *	  switches default to on, so a stored "off" keeps its effect; a stored
 *	  "on" sets the dotted name only, and does not undo a session's SET of
 *	  the short switch to off (README, "Settings").
 *
 * Without the library loaded the short names are unknown and PostgreSQL
 * rejects them in every one of those statements, so nothing is stored.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "guc_alias.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"
#include "utils/guc.h"

typedef struct FpbGucAlias
{
	const char *alias;
	const char *name;
} FpbGucAlias;

#define FPB_MAX_ALIASES 4

static FpbGucAlias fpb_aliases[FPB_MAX_ALIASES];
static int	fpb_naliases = 0;

static ProcessUtility_hook_type prev_process_utility = NULL;

static const char *
fpb_alias_target(const char *name)
{
	int			i;

	if (name == NULL)
		return NULL;
	for (i = 0; i < fpb_naliases; i++)
	{
		/* setting names are case-insensitive */
		if (pg_strcasecmp(name, fpb_aliases[i].alias) == 0)
			return fpb_aliases[i].name;
	}
	return NULL;
}

/*
 * The SET clauses of a statement that stores settings: ALTER SYSTEM,
 * ALTER DATABASE/ROLE ... SET, and the SET clauses of CREATE FUNCTION /
 * PROCEDURE and ALTER FUNCTION / PROCEDURE / ROUTINE (kept in proconfig).
 */
static List *
fpb_stored_setstmts(Node *parsetree)
{
	List	   *defs = NIL;
	List	   *result = NIL;
	ListCell   *lc;

	switch (nodeTag(parsetree))
	{
		case T_AlterSystemStmt:
			return list_make1(((AlterSystemStmt *) parsetree)->setstmt);
		case T_AlterDatabaseSetStmt:
			return list_make1(((AlterDatabaseSetStmt *) parsetree)->setstmt);
		case T_AlterRoleSetStmt:
			return list_make1(((AlterRoleSetStmt *) parsetree)->setstmt);
		case T_CreateFunctionStmt:
			defs = ((CreateFunctionStmt *) parsetree)->options;
			break;
		case T_AlterFunctionStmt:
			defs = ((AlterFunctionStmt *) parsetree)->actions;
			break;
		default:
			return NIL;
	}
	foreach(lc, defs)
	{
		DefElem    *def = lfirst_node(DefElem, lc);

		if (strcmp(def->defname, "set") == 0 && def->arg != NULL &&
			IsA(def->arg, VariableSetStmt))
			result = lappend(result, def->arg);
	}
	return result;
}

static bool
fpb_names_alias(List *setstmts)
{
	ListCell   *lc;

	foreach(lc, setstmts)
	{
		VariableSetStmt *set = (VariableSetStmt *) lfirst(lc);

		if (set != NULL && fpb_alias_target(set->name) != NULL)
			return true;
	}
	return false;
}

/*
 * Store the dotted name instead of the alias; return the alias (or NULL).
 * "FROM CURRENT" would read the dotted setting's value once renamed, so it
 * takes the alias's current value as a constant first.
 */
static const char *
fpb_rewrite_setstmt(VariableSetStmt *set)
{
	const char *target = fpb_alias_target(set->name);
	const char *alias = set->name;

	if (target == NULL)
		return NULL;
	if (set->kind == VAR_SET_CURRENT)
	{
		A_Const    *val = makeNode(A_Const);

		val->val.sval.type = T_String;
		val->val.sval.sval = pstrdup(GetConfigOptionByName(set->name, NULL,
															false));
		val->location = -1;
		set->kind = VAR_SET_VALUE;
		set->args = list_make1(val);
	}
	set->name = pstrdup(target);
	return alias;
}

static void
fpb_process_utility(PlannedStmt *pstmt, const char *queryString,
					bool readOnlyTree, ProcessUtilityContext context,
					ParamListInfo params, QueryEnvironment *queryEnv,
					DestReceiver *dest, QueryCompletion *qc)
{
	List	   *setstmts = fpb_stored_setstmts(pstmt->utilityStmt);
	List	   *renamed = NIL;
	ListCell   *lc;

	if (fpb_names_alias(setstmts))
	{
		/* the tree may be cached (e.g. in a plpgsql function): edit a copy */
		if (readOnlyTree)
		{
			pstmt = copyObject(pstmt);
			readOnlyTree = false;
			setstmts = fpb_stored_setstmts(pstmt->utilityStmt);
		}
		foreach(lc, setstmts)
		{
			VariableSetStmt *set = (VariableSetStmt *) lfirst(lc);
			const char *alias = set ? fpb_rewrite_setstmt(set) : NULL;

			if (alias != NULL)
				renamed = lappend(lappend(renamed, (char *) alias),
								  set->name);
		}
	}

	if (prev_process_utility)
		prev_process_utility(pstmt, queryString, readOnlyTree, context,
							 params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);

	/* once stored: a value the statement refused was stored nowhere */
	for (int i = 0; i + 1 < list_length(renamed); i += 2)
		ereport(NOTICE,
				(errmsg("setting \"%s\" is stored as \"%s\"",
						(char *) list_nth(renamed, i),
						(char *) list_nth(renamed, i + 1)),
				 errdetail("\"%s\" is a session-only name; configuration files and stored settings use the dotted name.",
						   (char *) list_nth(renamed, i))));
	list_free(renamed);
}

/*
 * A configuration file read at a reload reaches a switch the library has
 * already defined (the postmaster refuses an undotted unknown name at
 * start, before loading libraries): refuse it there too, or a name that
 * works until the next restart would then stop the server from starting.
 */
static bool
fpb_alias_check(bool *newval, void **extra, GucSource source)
{
	if (source != PGC_S_FILE)
		return true;
	GUC_check_errcode(ERRCODE_CANT_CHANGE_RUNTIME_PARAM);
	GUC_check_errmsg("session switches of fpbtree cannot be set in a configuration file");
	GUC_check_errhint("Use the dotted name under \"fpbtree.\", which the server also reads at start.");
	return false;
}

/*
 * Define the short session switch "alias" for the dotted boolean setting
 * "name" (defined by the caller).  The caller tests both variables.
 */
void
fpb_define_session_alias(const char *alias, const char *name,
						 const char *short_desc, bool *valueAddr)
{
	if (fpb_naliases >= FPB_MAX_ALIASES)
		elog(ERROR, "too many fpbtree setting aliases");

	DefineCustomBoolVariable(alias,
							 short_desc,
							 psprintf("Session switch; in postgresql.conf, ALTER SYSTEM, ALTER DATABASE and ALTER ROLE use %s.",
									  name),
							 valueAddr,
							 true,
							 PGC_USERSET,
							 GUC_DISALLOW_IN_FILE | GUC_NOT_IN_SAMPLE |
							 GUC_EXPLAIN,
							 fpb_alias_check, NULL, NULL);

	fpb_aliases[fpb_naliases].alias = alias;
	fpb_aliases[fpb_naliases].name = name;
	fpb_naliases++;

	if (fpb_naliases == 1)
	{
		prev_process_utility = ProcessUtility_hook;
		ProcessUtility_hook = fpb_process_utility;
	}
}
