/*-------------------------------------------------------------------------
 *
 * rowbound.c
 *	  Row bounds: the scan key "a >| ROW(x, y)" that stands, inside an
 *	  fpbtree index scan, for the row comparison "(a, b) > (x, y)" over the
 *	  index's first key columns (README "Row comparisons").
 *
 * PostgreSQL 15 passes a row comparison to btree alone (the executor
 * refuses a RowCompare index qualification on any other access method),
 * so rowcompare.c's planner hook puts an operator of strategy 6 to 9 (<|,
 * <=|, >=|, >|) of the first column's family in its place, with the
 * comparison's right-hand values as one record.  The executor evaluates
 * that record once per rescan, as any scan key argument; the scan then
 * starts where the row bound does (scankeys_multi.c) and checks the
 * comparison on each entry itself (fpb_rowbound_check), so neither the
 * values' expressions nor the executor's filter run per row.
 *
 * Members compare with the family's own "=" and "<" or ">" operators for
 * (column type, value type), as the row comparison compares with them:
 * the first unequal pair decides, a NULL before that makes the comparison
 * NULL (the entry fails), and equal rows pass only "<=" and ">=".
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relscan.h"
#include "fmgr.h"
#include "scan.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/typcache.h"

PG_FUNCTION_INFO_V1(fpbtree_row_bound);

/*
 * fpbtree_row_bound(anyelement, record): the function of the row bound
 * operators, which mean something only to an fpbtree index scan.  Only a
 * query that names one itself gets here (the planner hook's never leave
 * the index scan: the access method does not ask for rechecks then).
 */
Datum
fpbtree_row_bound(PG_FUNCTION_ARGS)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("fpbtree row bound operators are evaluated only by fpbtree index scans"),
			 errhint("Write the row comparison itself, as in (a, b) > (x, y).")));
	PG_RETURN_NULL();
}

/* The row comparison's strategy (BTLessStrategyNumber...) of a row bound. */
int
fpb_rowbound_strategy(int strategy)
{
	switch (strategy)
	{
		case FPB_ROW_LT:
			return BTLessStrategyNumber;
		case FPB_ROW_LE:
			return BTLessEqualStrategyNumber;
		case FPB_ROW_GE:
			return BTGreaterEqualStrategyNumber;
		case FPB_ROW_GT:
			return BTGreaterStrategyNumber;
	}
	return InvalidStrategy;
}

/* Column j's operator of strategy for values of type argtype, in cxt. */
static void
fpb_rowbound_op(Relation index, int j, Oid argtype, int strategy,
				FmgrInfo *finfo, MemoryContext cxt)
{
	Oid			op = get_opfamily_member(index->rd_opfamily[j],
										 index->rd_opcintype[j], argtype,
										 strategy);

	if (!OidIsValid(op))
		op = get_opfamily_member(index->rd_opfamily[j],
								 index->rd_opcintype[j],
								 getBaseType(argtype), strategy);
	if (!OidIsValid(op))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("fpbtree row bound: column %d of index \"%s\" has no operator for type %s",
						j + 1, RelationGetRelationName(index),
						format_type_be(argtype))));
	fmgr_info_cxt(get_opcode(op), finfo, cxt);
}

/*
 * Look up the members' operators: at the first row checked, as a scan
 * positioned at the values (fpb_scan_rowend) checks only rows with NULLs.
 */
static void
fpb_rowbound_ops(FpbRowBound *rb)
{
	int			strict = (rb->strategy == BTLessStrategyNumber ||
						  rb->strategy == BTLessEqualStrategyNumber) ?
		BTLessStrategyNumber : BTGreaterStrategyNumber;

	for (int j = 0; j < rb->n; j++)
	{
		FpbRowMember *m = &rb->members[j];

		fpb_rowbound_op(rb->index, j, m->type, BTEqualStrategyNumber, &m->eq,
						rb->cxt);
		fpb_rowbound_op(rb->index, j, m->type, strict, &m->beyond, rb->cxt);
	}
	rb->ops = true;
}

/*
 * The row bound of scan key sk (strategy FPB_ROW_*, a record argument), in
 * the current memory context (the scan's bound memory): its values copied
 * (the operators come at the first row checked, fpb_rowbound_ops).
 */
FpbRowBound *
fpb_rowbound_make(IndexScanDesc scan, ScanKey sk)
{
	Relation	index = scan->indexRelation;
	int			nkeys = IndexRelationGetNumberOfKeyAttributes(index);
	HeapTupleHeader td = DatumGetHeapTupleHeader(sk->sk_argument);
	TupleDesc	rdesc;
	HeapTupleData tup;
	Datum		values[INDEX_MAX_KEYS];
	bool		nulls[INDEX_MAX_KEYS];
	FpbRowBound *rb;

	rdesc = lookup_rowtype_tupdesc(HeapTupleHeaderGetTypeId(td),
								   HeapTupleHeaderGetTypMod(td));
	for (int j = 0; j < rdesc->natts; j++)
	{
		/* the planner hook's ROW() has none; a written composite may */
		if (TupleDescAttr(rdesc, j)->attisdropped)
		{
			ReleaseTupleDesc(rdesc);
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("fpbtree row bound with a dropped column")));
		}
	}
	if (rdesc->natts < 1 || rdesc->natts > nkeys)
	{
		int			natts = rdesc->natts;

		ReleaseTupleDesc(rdesc);
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("fpbtree row bound has %d values, index \"%s\" %d key columns",
						natts, RelationGetRelationName(index), nkeys)));
	}
	tup.t_len = HeapTupleHeaderGetDatumLength(td);
	ItemPointerSetInvalid(&tup.t_self);
	tup.t_tableOid = InvalidOid;
	tup.t_data = td;
	heap_deform_tuple(&tup, rdesc, values, nulls);

	rb = palloc(offsetof(FpbRowBound, members) +
				sizeof(FpbRowMember) * rdesc->natts);
	rb->n = rdesc->natts;
	rb->strategy = fpb_rowbound_strategy(sk->sk_strategy);
	rb->positioned = false;
	rb->index = index;
	rb->cxt = CurrentMemoryContext;
	rb->ops = false;
	for (int j = 0; j < rb->n; j++)
	{
		Form_pg_attribute att = TupleDescAttr(rdesc, j);
		FpbRowMember *m = &rb->members[j];

		m->type = att->atttypid;
		m->isnull = nulls[j];
		m->value = nulls[j] ? (Datum) 0 :
			datumCopy(values[j], att->attbyval, att->attlen);
		m->collation = index->rd_indcollation[j];
	}
	ReleaseTupleDesc(rdesc);
	return rb;
}

/* Has the stored row f a NULL among its first n columns? */
bool
fpb_rowbound_nulls(const char *f, int n)
{
	bits8	   *bits;

	if (fpb_is_packed(f))
		return fpb_packed_any_null(f, n);
	if (!IndexTupleHasNulls((IndexTuple) f))
		return false;
	bits = (bits8 *) (f + sizeof(IndexTupleData));
	for (int j = 0; j < n; j++)
		if (att_isnull(j, bits))
			return true;
	return false;
}

/*
 * Does the stored row whole (every value in place) pass row bound rb?
 * (A positioned bound's callers ask only about rows with NULLs:
 * fpb_scan_filter.)
 */
bool
fpb_rowbound_check(const FpbCmp *cmp, FpbRowBound *rb, const char *whole)
{
	if (!rb->ops)
		fpb_rowbound_ops(rb);
	for (int j = 0; j < rb->n; j++)
	{
		FpbRowMember *m = &rb->members[j];
		bool		isnull;
		Datum		d = fpb_tuple_getattr(cmp->tupdesc, whole, j + 1, &isnull);

		if (isnull || m->isnull)
			return false;
		if (DatumGetBool(FunctionCall2Coll(&m->beyond, m->collation, d,
										   m->value)))
			return true;
		if (!DatumGetBool(FunctionCall2Coll(&m->eq, m->collation, d,
											m->value)))
			return false;
	}
	return rb->strategy == BTLessEqualStrategyNumber ||
		rb->strategy == BTGreaterEqualStrategyNumber;
}
