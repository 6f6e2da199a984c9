/*-------------------------------------------------------------------------
 *
 * widearg.c
 *	  Scan arguments of another type than their wide column (README
 *	  "Cross-type keys of wide columns"): the name/text operators that
 *	  btree's text_ops family has.
 *
 * A wide index compares a scan argument with its entries by the column
 * type's own comparison (support function 4) on the stored form of values,
 * so an argument of another type is first turned into a value of the
 * column's type that every entry compares with exactly as with the
 * argument.  A name as a text is the same string.  A text as a name is
 * the same string too while it fits in a name (NAMEDATALEN - 1 bytes);
 * a longer text has no such value, and the scan then treats the key
 * loosely (see scankeys.c).
 *
 * The pairs are few and known here, so amvalidate asks fpb_wide_arg_known
 * rather than requiring a conversion function in the family.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "catalog/pg_type_d.h"
#include "utils/builtins.h"

#include "fpbtree.h"

/* Is a text of toast_raw_datum_size raw too long for a name? */
static inline bool
fpb_text_overflows_name(Size raw)
{
	return raw - VARHDRSZ >= NAMEDATALEN;
}

/*
 * Can a scan argument of type argtype be turned into a value of the wide
 * column type coltype?
 */
bool
fpb_wide_arg_known(Oid coltype, Oid argtype)
{
	if (!OidIsValid(argtype) || argtype == coltype)
		return true;
	return (coltype == NAMEOID && argtype == TEXTOID) ||
		(coltype == TEXTOID && argtype == NAMEOID);
}

/*
 * Turn *value, of type argtype, into the value of the wide column type
 * coltype that compares with every column value as *value does.  Returns
 * false, leaving *value alone, when there is none (a text longer than a
 * name holds: it may compare differently from any name).  Any other pair
 * than fpb_wide_arg_known's is left alone as of the column's type: the
 * polymorphic classes (anyenum, anyarray, record, ...) register their
 * operators under the pseudo-type.  The result is allocated in the current
 * memory context.
 */
bool
fpb_wide_arg(Oid coltype, Oid argtype, Datum *value)
{
	if (coltype == NAMEOID && argtype == TEXTOID)
	{
		text	   *t;
		int			len;
		Name		n;

		if (fpb_text_overflows_name(toast_raw_datum_size(*value)))
			return false;
		t = DatumGetTextPP(*value);
		len = VARSIZE_ANY_EXHDR(t);
		/*
		 * zeros after the string, as namein leaves them: a stored name is
		 * compared and deduplicated as its NAMEDATALEN bytes
		 */
		n = (Name) palloc0(NAMEDATALEN);
		memcpy(NameStr(*n), VARDATA_ANY(t), len);
		*value = NameGetDatum(n);
		return true;
	}
	if (coltype == TEXTOID && argtype == NAMEOID)
	{
		Name		n = DatumGetName(*value);

		*value = PointerGetDatum(cstring_to_text_with_len(NameStr(*n),
														  strnlen(NameStr(*n),
																  NAMEDATALEN)));
		return true;
	}
	return true;
}

/*
 * Can fpb_wide_arg fail to convert an argument of type argtype for the
 * wide column type coltype (the arguments then need fpb_wide_arg_fits)?
 */
bool
fpb_wide_arg_lossy(Oid coltype, Oid argtype)
{
	return coltype == NAMEOID && argtype == TEXTOID;
}

/* Does fpb_wide_arg turn the argument value into a value of coltype? */
bool
fpb_wide_arg_fits(Oid coltype, Oid argtype, Datum value)
{
	if (!fpb_wide_arg_lossy(coltype, argtype))
		return true;
	return !fpb_text_overflows_name(toast_raw_datum_size(value));
}

/*
 * The prefix, in the order of the wide column type coltype under
 * collation collid, of an argument fpb_wide_arg cannot turn into a value
 * of coltype: no column value below it has a greater prefix, none above
 * it a smaller one.
 */
uint64
fpb_wide_arg_prefix(Oid coltype, Oid argtype, Datum value, Oid collid)
{
	Assert(coltype == NAMEOID && argtype == TEXTOID);
	/* a name's prefix is its string's as a text (fpbtree_prefix_name) */
	return fpb_prefix_text(value, collid);
}

/*
 * Does the loose treatment of an argument fpb_wide_arg cannot convert hold
 * for column col of index: is its class fpbtree's name_ops, whose prefix
 * is fpb_wide_arg_prefix's and whose (name, text) "=" is nameeqtext (equal
 * under a deterministic collation only for the same string)?  A family
 * of someone else's with those operators gets a plain recheck.
 */
bool
fpb_wide_arg_loose_known(Relation index, int col)
{
	return index_getprocinfo(index, col + 1, FPB_ENCODE_PROC)->fn_addr ==
		fpbtree_prefix_name;
}
