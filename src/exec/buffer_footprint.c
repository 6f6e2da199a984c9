/*-------------------------------------------------------------------------
 *
 * buffer_footprint.c
 *	  Instruction footprints of operators and SQL functions, for the plan
 *	  refinement pass (Zhou & Ross §6.1).
 *
 * The measured data are in buffer_fptable.h, written by
 * calibrate/footprints.py: the executed code of each operator module and
 * of each common built-in function, partitioned into atoms — runs of code
 * shared by exactly the same modules — so that the footprint of a group of
 * operators is the sum of the distinct atoms it uses and code shared by
 * two operators (expression evaluation, tuple deforming, numeric
 * arithmetic) counts once.  A function the table does not know becomes an
 * atom of its own of a default size, and so does an operator the
 * calibration did not measure.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/transam.h"
#include "catalog/pg_aggregate.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "buffer.h"

typedef struct FpbAtomDef
{
	const char *name;			/* a function the atom's code belongs to */
	int			bytes;
} FpbAtomDef;

typedef struct FpbModuleDef
{
	FpbModule	module;
	const int16 *atoms;			/* -1 terminated */
} FpbModuleDef;

typedef struct FpbFunctionDef
{
	const char *proname;		/* a built-in function, by name */
	const int16 *atoms;			/* -1 terminated */
} FpbFunctionDef;

#include "buffer_fptable.h"

/* model built at first use: module -> atoms, and the function table */
static bool fp_ready = false;
static const int16 *module_atoms[FPB_NUM_MODULES];

static void
fp_init(void)
{
	int			i;

	if (fp_ready)
		return;
	for (i = 0; i < lengthof(fpb_module_defs); i++)
		module_atoms[fpb_module_defs[i].module] = fpb_module_defs[i].atoms;
	fp_ready = true;
}

static void
add_atoms(FpbFootprint *fp, const int16 *atoms)
{
	for (; *atoms >= 0; atoms++)
		fp->atoms = list_append_unique_int(fp->atoms, *atoms);
}

void
fpb_footprint_add_module(FpbFootprint *fp, FpbModule mod)
{
	fp_init();
	if (module_atoms[mod] != NULL)
		add_atoms(fp, module_atoms[mod]);
	else
	{
		/* not measured: an atom of its own, as big as the largest module */
		fp->atoms = list_append_unique_int(fp->atoms, FPB_NATOMS + (int) mod);
	}
}

/*
 * Unknown functions are keyed by OID as negative numbers (below -1), so
 * that they cannot collide with the table's atoms.  OIDs beyond INT_MAX
 * fold onto one key; they only lose the "counted once" distinction.
 */
#define UNKNOWN_FUNC_KEY(oid) \
	(-2 - (int) Min((oid), (Oid) (PG_INT32_MAX - 2)))

void
fpb_footprint_add_function(FpbFootprint *fp, Oid funcid)
{
	int			i;

	fp_init();

	/* only built-in functions are known by name: user code is not ours */
	if (funcid < FirstGenbkiObjectId)
	{
		char	   *name = get_func_name(funcid);

		if (name != NULL)
		{
			for (i = 0; i < lengthof(fpb_function_defs); i++)
			{
				if (strcmp(fpb_function_defs[i].proname, name) == 0)
				{
					add_atoms(fp, fpb_function_defs[i].atoms);
					pfree(name);
					return;
				}
			}
			pfree(name);
		}
	}
	fp->atoms = list_append_unique_int(fp->atoms, UNKNOWN_FUNC_KEY(funcid));
}

static void
add_aggregate(FpbFootprint *fp, Oid aggfnoid)
{
	HeapTuple	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggfnoid));

	if (HeapTupleIsValid(tup))
	{
		Form_pg_aggregate agg = (Form_pg_aggregate) GETSTRUCT(tup);

		if (OidIsValid(agg->aggtransfn))
			fpb_footprint_add_function(fp, agg->aggtransfn);
		if (OidIsValid(agg->aggfinalfn))
			fpb_footprint_add_function(fp, agg->aggfinalfn);
		ReleaseSysCache(tup);
	}
	else
		fpb_footprint_add_function(fp, aggfnoid);
}

static bool
add_exprs_walker(Node *node, FpbFootprint *fp)
{
	if (node == NULL)
		return false;
	switch (nodeTag(node))
	{
		case T_FuncExpr:
			fpb_footprint_add_function(fp, ((FuncExpr *) node)->funcid);
			break;
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			set_opfuncid((OpExpr *) node);
			fpb_footprint_add_function(fp, ((OpExpr *) node)->opfuncid);
			break;
		case T_ScalarArrayOpExpr:
			set_sa_opfuncid((ScalarArrayOpExpr *) node);
			fpb_footprint_add_function(fp, ((ScalarArrayOpExpr *) node)->opfuncid);
			break;
		case T_Aggref:
			add_aggregate(fp, ((Aggref *) node)->aggfnoid);
			break;
		case T_WindowFunc:
			fpb_footprint_add_function(fp, ((WindowFunc *) node)->winfnoid);
			break;
		case T_SubPlan:
		case T_AlternativeSubPlan:
			/* a subplan runs a whole plan per evaluation: count it as big */
			fpb_footprint_add_module(fp, FPB_MOD_OTHER);
			break;
		default:
			break;
	}
	return expression_tree_walker(node, add_exprs_walker, (void *) fp);
}

void
fpb_footprint_add_exprs(FpbFootprint *fp, Node *exprs)
{
	(void) add_exprs_walker(exprs, fp);
}

void
fpb_footprint_union(FpbFootprint *dst, const FpbFootprint *src)
{
	dst->atoms = list_concat_unique_int(dst->atoms, src->atoms);
}

static int
atom_bytes(int key)
{
	if (key >= 0 && key < FPB_NATOMS)
		return fpb_atoms[key].bytes;
	if (key >= FPB_NATOMS)
		return FPB_UNKNOWN_MODULE_BYTES;
	return FPB_UNKNOWN_FUNCTION_BYTES;
}

int
fpb_footprint_bytes(const FpbFootprint *fp)
{
	ListCell   *lc;
	int			sum = 0;

	foreach(lc, fp->atoms)
		sum += atom_bytes(lfirst_int(lc));
	return sum;
}

/* bytes of a ∪ b, without building the union */
int
fpb_footprint_union_bytes(const FpbFootprint *a, const FpbFootprint *b)
{
	ListCell   *lc;
	int			sum = fpb_footprint_bytes(a);

	foreach(lc, b->atoms)
	{
		if (!list_member_int(a->atoms, lfirst_int(lc)))
			sum += atom_bytes(lfirst_int(lc));
	}
	return sum;
}
