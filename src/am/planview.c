/*-------------------------------------------------------------------------
 *
 * planview.c
 *	  The planner's questions it asks only of btree indexes, answered by
 *	  fpbtree indexes: a column's actual minimum and maximum, and whether
 *	  a unique index proves a relation has one row per key.
 *
 * When a range's constant lies in the first or last bucket of a column's
 * histogram, or beyond it, PostgreSQL 15 reads the column's present
 * extreme value from an index (get_actual_variable_range in selfuncs.c),
 * so that a table grown at one end since its last ANALYZE is not estimated
 * at a row or two.  It asks only entries whose IndexOptInfo says btree,
 * and what it does with one is an index-only scan for the first non-NULL
 * entry in one direction, through the index's own access method.
 *
 * A unique index proves a join's inner side unique (join removal, unique
 * joins, semi-joins made inner joins: relation_has_unique_index_for) when
 * the join's equality operator belongs to the index column's operator
 * family, looked up among the operator's btree families.  An fpbtree
 * family is none of them, even where it holds the same "=".
 *
 * get_relation_info_hook therefore appends to the relation's index list a
 * copy of each fpbtree entry the endpoint lookup can use, which says btree
 * and cannot become a path, and shows a unique index's columns under the
 * btree families that have exactly their families' operators (README,
 * "What the planner asks of btree only").
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_amop.h"
#include "nodes/pathnodes.h"
#include "optimizer/cost.h"
#include "optimizer/plancat.h"
#include "utils/catcache.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "fpbtree.h"

bool		fpb_planner_as_btree = true;

static get_relation_info_hook_type fpb_prev_planview = NULL;

/*
 * A copy gets no path (no key columns, neither amgettuple nor
 * amgetbitmap); should one ever be costed, it is never chosen.
 */
static void
fpb_planview_costestimate(PlannerInfo *root, IndexPath *path,
						  double loop_count, Cost *indexStartupCost,
						  Cost *indexTotalCost, Selectivity *indexSelectivity,
						  double *indexCorrelation, double *indexPages)
{
	*indexStartupCost = disable_cost;
	*indexTotalCost = disable_cost;
	*indexSelectivity = 1.0;
	*indexCorrelation = 0.0;
	*indexPages = 1.0;
}

/*
 * The btree families that stand in for fpbtree families of unique
 * indexes, per (family, type); InvalidOid: none does.  Cleared when any
 * operator family's members change.
 */
typedef struct FpbFamilyView
{
	Oid			fam;
	Oid			type;
	Oid			btfam;
} FpbFamilyView;

#define FPB_FAMILY_VIEWS	32
static FpbFamilyView fpb_family_views[FPB_FAMILY_VIEWS];
static int	fpb_nfamily_views = 0;
static uint64 fpb_family_views_gen = 0;	/* bumped by every clearing */

static void
fpb_planview_inval(Datum arg, int cacheid, uint32 hashvalue)
{
	fpb_nfamily_views = 0;
	fpb_family_views_gen++;
}

/*
 * Have families a and b the same operators whose left input is type, by
 * (right input, strategy)?  Those are all the planner can take as index
 * conditions on a column of type (it commutes a clause to put the column
 * on the left, and no other type is binary-coercible to it and in such a
 * family).  Members of other left inputs may differ: btree's text_ops has
 * (name, name) and (name, text), fpbtree's text_ops has not.
 */
static bool
fpb_planview_same_members(Oid a, Oid b, Oid type)
{
	CatCList   *la = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(a));
	CatCList   *lb = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(b));
	int			na = 0;
	int			nb = 0;
	bool		same = true;

	/*
	 * (left, right, strategy) is unique within a family: as many members,
	 * each found in b, are b's members.
	 */
	for (int i = 0; same && i < la->n_members; i++)
	{
		Form_pg_amop m = (Form_pg_amop) GETSTRUCT(&la->members[i]->tuple);

		if (m->amoplefttype != type)
			continue;
		na++;
		same = m->amoppurpose == AMOP_SEARCH &&
			get_opfamily_member(b, type, m->amoprighttype,
								m->amopstrategy) == m->amopopr;
	}
	for (int i = 0; same && i < lb->n_members; i++)
		if (((Form_pg_amop) GETSTRUCT(&lb->members[i]->tuple))->amoplefttype == type)
			nb++;
	ReleaseSysCacheList(la);
	ReleaseSysCacheList(lb);
	return same && na == nb;
}

/*
 * The btree family with exactly fpbtree family fam's operators on type,
 * found among the btree families of its "=" on type, or InvalidOid.
 */
static Oid
fpb_planview_btfamily(Oid fam, Oid type)
{
	Oid			eqop;
	List	   *fams;
	ListCell   *lc;
	Oid			result = InvalidOid;
	uint64		gen = fpb_family_views_gen;

	for (int i = 0; i < fpb_nfamily_views; i++)
		if (fpb_family_views[i].fam == fam && fpb_family_views[i].type == type)
			return fpb_family_views[i].btfam;
	eqop = get_opfamily_member(fam, type, type, BTEqualStrategyNumber);
	fams = OidIsValid(eqop) ? get_mergejoin_opfamilies(eqop) : NIL;
	foreach(lc, fams)
	{
		if (fpb_planview_same_members(fam, lfirst_oid(lc), type))
		{
			result = lfirst_oid(lc);
			break;
		}
	}
	list_free(fams);

	/*
	 * The lookups may have taken in invalidations: an answer from members
	 * since changed is neither kept nor used.
	 */
	if (gen != fpb_family_views_gen)
		return InvalidOid;
	if (fpb_nfamily_views == FPB_FAMILY_VIEWS)
		fpb_nfamily_views = 0;
	fpb_family_views[fpb_nfamily_views].fam = fam;
	fpb_family_views[fpb_nfamily_views].type = type;
	fpb_family_views[fpb_nfamily_views].btfam = result;
	fpb_nfamily_views++;
	return result;
}

/*
 * A unique fpbtree index shows the planner, for each key column, the btree
 * family with exactly its family's operators on the column's type, when
 * every column has one: the uniqueness test finds the join's "=" among
 * that family's, and every other use of the families sees the same
 * operators under another OID (what the planner derives from btree's
 * families by OID, as pattern.c shows them, it derives for these: inet's
 * "<<" bounds, LIKE on bytea; all with the same operators).  Keys
 * unique under the fpbtree family's "=" are unique under every equality of
 * a btree family holding it (cross-type ones too): a btree family is
 * consistent.
 */
static void
fpb_planview_unique(IndexOptInfo *ind)
{
	Oid			fams[INDEX_MAX_KEYS];

	if (!ind->unique || !ind->immediate || ind->indpred != NIL)
		return;
	for (int c = 0; c < ind->nkeycolumns; c++)
	{
		fams[c] = fpb_planview_btfamily(ind->opfamily[c], ind->opcintype[c]);
		if (!OidIsValid(fams[c]))
			return;
	}
	memcpy(ind->opfamily, fams, sizeof(Oid) * ind->nkeycolumns);
}

/*
 * The copy of index ind that the endpoint lookup can use, or NULL: not
 * partial or hypothetical (the lookup skips those), ordered, its first
 * column returnable.  It says btree, and can become no path.
 */
static IndexOptInfo *
fpb_planview_copy(IndexOptInfo *ind)
{
	IndexOptInfo *copy;

	if (ind->indpred != NIL || ind->hypothetical || ind->nkeycolumns < 1 ||
		ind->sortopfamily == NULL || !ind->canreturn[0])
		return NULL;
	copy = makeNode(IndexOptInfo);
	memcpy(copy, ind, sizeof(IndexOptInfo));
	copy->relam = BTREE_AM_OID;
	copy->opfamily = palloc0(sizeof(Oid) * ind->nkeycolumns);
	copy->canreturn = palloc0(sizeof(bool) * ind->ncolumns);
	/*
	 * No key column for clauses, pathkeys or the uniqueness test to look
	 * at: the path builders pass it by.  The lookup reads column 0 of the
	 * original's arrays (indexkeys, sortopfamily, reverse_sort, ...).
	 */
	copy->nkeycolumns = 0;
	copy->unique = false;
	copy->immediate = false;
	copy->amcanorderbyop = false;
	copy->amsearcharray = false;
	copy->amhasgettuple = false;
	copy->amhasgetbitmap = false;
	copy->amcanparallel = false;
	copy->amcanmarkpos = false;
	copy->amcostestimate = fpb_planview_costestimate;
	return copy;
}

static void
fpb_planview_relation_info(PlannerInfo *root, Oid relid, bool inhparent,
						   RelOptInfo *rel)
{
	List	   *copies = NIL;
	ListCell   *lc;

	if (fpb_prev_planview)
		fpb_prev_planview(root, relid, inhparent, rel);
	if (!fpb_planner_as_btree)
		return;
	foreach(lc, rel->indexlist)
	{
		IndexOptInfo *ind = (IndexOptInfo *) lfirst(lc);
		IndexOptInfo *copy;

		if (ind->amcostestimate != (void (*) ()) fpbcostestimate)
			continue;
		fpb_planview_unique(ind);
		copy = fpb_planview_copy(ind);
		if (copy)
			copies = lappend(copies, copy);
	}
	/* after the originals, which plan_cluster_use_sort looks for by OID */
	rel->indexlist = list_concat(rel->indexlist, copies);
}

/* Called from fpb_am_init (_PG_init). */
void
fpb_planview_init(void)
{
	fpb_prev_planview = get_relation_info_hook;
	get_relation_info_hook = fpb_planview_relation_info;
	CacheRegisterSyscacheCallback(AMOPSTRATEGY, fpb_planview_inval, (Datum) 0);
}
