/*-------------------------------------------------------------------------
 *
 * validate.c
 *	  amvalidate for fpbtree: sanity checks on an operator class and its
 *	  family, reported at INFO level the way the core validators do.
 *
 * What fpbtree needs from a family:
 *	- operators are the five btree comparison strategies (1 <, 2 <=, 3 =,
 *	  4 >=, 5 >), boolean, binary, used for searching only;
 *	- every type T that appears in the family has support function 1
 *	  (encode: T -> int8) and 2 (decode: int8 -> T), registered as (T, T).
 *	  The AM never calls the operators; it encodes a scan key with its own
 *	  type's encode function, which is why a cross-type operator (T1, T2) is
 *	  only usable when both T1 and T2 have their support functions, or when
 *	  the pair has support function 3, (T2, bool) -> int8, which bounds a T2
 *	  value in T1's key domain (the date/time families), or when the scan
 *	  turns a T2 into a T1 itself (name and text, widearg.c);
 *	- each registered type pair has the complete set of five operators, so
 *	  that every scan key strategy can be turned into a key range.
 *
 * Unlike btree we do not insist on the full cross-type matrix: a partial
 * one still gives correct results, it merely limits what the planner can
 * derive.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/amvalidate.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_amproc.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_type.h"
#include "nodes/pg_list.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"

#include "fpbtree.h"

/* bitmasks in the format identify_opfamily_groups() produces */
#define FPB_ALL_OPERATORS \
	(((uint64) 1 << BTLessStrategyNumber) | \
	 ((uint64) 1 << BTLessEqualStrategyNumber) | \
	 ((uint64) 1 << BTEqualStrategyNumber) | \
	 ((uint64) 1 << BTGreaterEqualStrategyNumber) | \
	 ((uint64) 1 << BTGreaterStrategyNumber))
#define FPB_WIDE_PROCS \
	(((uint64) 1 << FPB_ENCODE_PROC) | ((uint64) 1 << FPB_CMP_PROC))
#define FPB_ALL_PROCS \
	(((uint64) 1 << FPB_ENCODE_PROC) | ((uint64) 1 << FPB_DECODE_PROC))

/*
 * Validator for an fpbtree opclass.
 *
 * Like the core validators, this checks the whole family each time it is
 * called for one of its classes; families are small, so the repetition is
 * cheap.
 */
bool
fpbvalidate(Oid opclassoid)
{
	bool		result = true;
	HeapTuple	classtup;
	Form_pg_opclass classform;
	Oid			opfamilyoid;
	Oid			opcintype;
	char	   *opclassname;
	HeapTuple	familytup;
	Form_pg_opfamily familyform;
	char	   *opfamilyname;
	CatCList   *proclist;
	CatCList   *oprlist;
	List	   *grouplist;
	List	   *codedtypes = NIL;
	OpFamilyOpFuncGroup *opclassgroup = NULL;
	ListCell   *lc;
	int			i;

	classtup = SearchSysCache1(CLAOID, ObjectIdGetDatum(opclassoid));
	if (!HeapTupleIsValid(classtup))
		elog(ERROR, "cache lookup failed for operator class %u", opclassoid);
	classform = (Form_pg_opclass) GETSTRUCT(classtup);
	opfamilyoid = classform->opcfamily;
	opcintype = classform->opcintype;
	opclassname = NameStr(classform->opcname);

	familytup = SearchSysCache1(OPFAMILYOID, ObjectIdGetDatum(opfamilyoid));
	if (!HeapTupleIsValid(familytup))
		elog(ERROR, "cache lookup failed for operator family %u", opfamilyoid);
	familyform = (Form_pg_opfamily) GETSTRUCT(familytup);
	opfamilyname = NameStr(familyform->opfname);

	oprlist = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(opfamilyoid));
	proclist = SearchSysCacheList1(AMPROCNUM, ObjectIdGetDatum(opfamilyoid));

	/* Support functions, one at a time */
	for (i = 0; i < proclist->n_members; i++)
	{
		Form_pg_amproc procform =
			(Form_pg_amproc) GETSTRUCT(&proclist->members[i]->tuple);
		Oid			typid = procform->amproclefttype;
		bool		ok;

		/*
		 * Encode and decode concern a single type; the cross-type bound
		 * function a pair of types (column type, scan key type).
		 */
		if ((procform->amproclefttype != procform->amprocrighttype) !=
			(procform->amprocnum == FPB_XKEY_PROC))
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("operator family \"%s\" of access method %s contains support function %s with wrong cross-type registration",
							opfamilyname, "fpbtree",
							format_procedure(procform->amproc))));
			result = false;
			continue;
		}

		switch (procform->amprocnum)
		{
			case FPB_ENCODE_PROC:
				ok = check_amproc_signature(procform->amproc, INT8OID, false,
											1, 1, typid);
				break;
			case FPB_DECODE_PROC:

				/*
				 * Decode must yield exactly the indexed type: its result is
				 * handed back as the column value of index-only scans.
				 */
				ok = check_amproc_signature(procform->amproc, typid, true,
											1, 1, INT8OID);
				break;
			case FPB_XKEY_PROC:
				ok = check_amproc_signature(procform->amproc, INT8OID, false,
											2, 2, procform->amprocrighttype,
											BOOLOID);
				break;
			case FPB_CMP_PROC:
				/*
				 * the type's three-way comparison: the index becomes wide.
				 * Binary-coercible arguments do, as bitcmp serves varbit.
				 */
				ok = check_amproc_signature(procform->amproc, INT4OID, false,
											2, 2, typid, typid);
				break;
			default:
				ereport(INFO,
						(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
						 errmsg("operator family \"%s\" of access method %s contains function %s with invalid support number %d",
								opfamilyname, "fpbtree",
								format_procedure(procform->amproc),
								procform->amprocnum)));
				result = false;
				continue;		/* the signature means nothing then */
		}

		if (!ok)
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("operator family \"%s\" of access method %s contains function %s with wrong signature for support number %d",
							opfamilyname, "fpbtree",
							format_procedure(procform->amproc),
							procform->amprocnum)));
			result = false;
		}
	}

	/* Operators, one at a time */
	for (i = 0; i < oprlist->n_members; i++)
	{
		Form_pg_amop oprform =
			(Form_pg_amop) GETSTRUCT(&oprlist->members[i]->tuple);

		if (oprform->amopstrategy < 1 ||
			oprform->amopstrategy > FPB_NSTRATEGIES)
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("operator family \"%s\" of access method %s contains operator %s with invalid strategy number %d",
							opfamilyname, "fpbtree",
							format_operator(oprform->amopopr),
							oprform->amopstrategy)));
			result = false;
		}

		/* the AM has no amcanorderbyop support */
		if (oprform->amoppurpose != AMOP_SEARCH ||
			OidIsValid(oprform->amopsortfamily))
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("operator family \"%s\" of access method %s contains invalid ORDER BY specification for operator %s",
							opfamilyname, "fpbtree",
							format_operator(oprform->amopopr))));
			result = false;
		}

		/* a row bound operator (rowbound.c) takes a record, any column */
		if (!check_amop_signature(oprform->amopopr, BOOLOID,
								  oprform->amoplefttype,
								  oprform->amoprighttype) ||
			((oprform->amopstrategy > BTMaxStrategyNumber) !=
			 (oprform->amoplefttype == ANYELEMENTOID &&
			  oprform->amoprighttype == RECORDOID)))
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("operator family \"%s\" of access method %s contains operator %s with wrong signature",
							opfamilyname, "fpbtree",
							format_operator(oprform->amopopr))));
			result = false;
		}
	}

	/*
	 * Now the groups of members per (lefttype, righttype).  First pass:
	 * which types can be encoded and decoded, since cross-type groups depend
	 * on that.
	 */
	grouplist = identify_opfamily_groups(oprlist, proclist);
	foreach(lc, grouplist)
	{
		OpFamilyOpFuncGroup *group = (OpFamilyOpFuncGroup *) lfirst(lc);

		/* narrow: encode and decode; wide: prefix and comparison */
		if (group->lefttype == group->righttype &&
			((group->functionset & FPB_ALL_PROCS) == FPB_ALL_PROCS ||
			 (group->functionset & FPB_WIDE_PROCS) == FPB_WIDE_PROCS))
			codedtypes = lappend_oid(codedtypes, group->lefttype);
	}

	foreach(lc, grouplist)
	{
		OpFamilyOpFuncGroup *group = (OpFamilyOpFuncGroup *) lfirst(lc);

		/* the row bound operators: optional, checked one by one above */
		if (group->lefttype == ANYELEMENTOID &&
			group->righttype == RECORDOID && group->functionset == 0)
			continue;
		if (group->lefttype == opcintype && group->righttype == opcintype)
			opclassgroup = group;

		if (group->operatorset != FPB_ALL_OPERATORS)
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("operator family \"%s\" of access method %s is missing operator(s) for types %s and %s",
							opfamilyname, "fpbtree",
							format_type_be(group->lefttype),
							format_type_be(group->righttype))));
			result = false;
		}

		if (group->lefttype == group->righttype)
		{
			if (!list_member_oid(codedtypes, group->lefttype))
			{
				ereport(INFO,
						(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
						 errmsg("operator family \"%s\" of access method %s is missing support function(s) for type %s",
								opfamilyname, "fpbtree",
								format_type_be(group->lefttype))));
				result = false;
			}
		}
		else
		{
			/*
			 * A cross-type group's own functions were reported above; here
			 * the question is whether both sides can be encoded.  A type
			 * with no same-type group at all is caught only here.
			 */
			Oid			types[2];
			int			j;

			types[0] = group->lefttype;
			types[1] = group->righttype;
			for (j = 0; j < 2; j++)
			{
				/* a bound function stands in for the key type's encoding */
				if (j == 1 &&
					(group->functionset & ((uint64) 1 << FPB_XKEY_PROC)))
					continue;
				/* a wide column takes the key types widearg.c converts */
				if (j == 1 && fpb_wide_arg_known(types[0], types[1]))
					continue;
				if (list_member_oid(codedtypes, types[j]))
					continue;
				ereport(INFO,
						(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
						 errmsg("operator family \"%s\" of access method %s has operators for types %s and %s but no support functions for type %s",
								opfamilyname, "fpbtree",
								format_type_be(group->lefttype),
								format_type_be(group->righttype),
								format_type_be(types[j]))));
				result = false;
			}
		}
	}

	/*
	 * The class's own type must have been covered by the loop above; if it
	 * has no group at all, nothing has been said about it yet.
	 */
	if (opclassgroup == NULL)
	{
		ereport(INFO,
				(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
				 errmsg("operator class \"%s\" of access method %s is missing operator(s) and support function(s) for type %s",
						opclassname, "fpbtree",
						format_type_be(opcintype))));
		result = false;
	}

	ReleaseCatCacheList(proclist);
	ReleaseCatCacheList(oprlist);
	ReleaseSysCache(familytup);
	ReleaseSysCache(classtup);

	return result;
}
