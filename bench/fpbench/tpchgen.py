"""The TPC-H-shaped data generator, written once: the benchmark's TPC-H
workloads (fpbench.tpch), its cachegrind part (fpbench.cachegrind) and the
calibration scripts in calibrate/ all load their tables from tpch_sql().
It imports nothing from the benchmark, so calibrate/ can use it alone:

    python3 bench/fpbench/tpchgen.py ROWS [--lineitem-only] [--sel] [--single-user]

prints the SQL (--single-user: statements separated by blank lines, as
`postgres --single -j` reads them)."""

import argparse


def bh(expr, seed):
    """a non-negative deterministic pseudo-random int8 of expr"""
    return "(hashint8extended(%s, %d) & 9223372036854775807)" % (expr, seed)


def tpch_sql(rows, prefix="", lineitem_only=False, sel=False):
    """TPC-H-shaped customer / orders / lineitem: 4 lineitems per order, 10
    orders per customer, dates and flags derived as in dbgen (returnflag R/A
    up to 1995-06-17 receipt, else N; linestatus O after 1995-06-17 ship).
    sel adds l_sel int4, a permutation of 0 .. rows - 1 spread over the
    table, so that `l_sel < K` lets exactly K rows through, evenly spaced
    (the calibration's varying selectivity)."""
    if sel and rows % 7919 == 0:
        raise ValueError("rows must not be a multiple of 7919 when sel is set")
    norders = (rows + 3) // 4
    ncust = max(1, norders // 10)
    def odate(key):
        return "(date '1992-01-01' + (%s %% 2406)::int)" % bh(key, 32)
    li = """
DROP TABLE IF EXISTS {p}lineitem;
CREATE TABLE {p}lineitem (
  l_orderkey int8, l_partkey int8, l_suppkey int8, l_linenumber int4,
  l_quantity numeric(15,2), l_extendedprice numeric(15,2), l_discount numeric(15,2), l_tax numeric(15,2),
  l_returnflag char(1), l_linestatus char(1), l_shipdate date, l_commitdate date, l_receiptdate date,
  l_shipinstruct char(25), l_shipmode char(10), l_comment varchar(44){selcol}) WITH (autovacuum_enabled = off);
INSERT INTO {p}lineitem
SELECT ok, 1 + {hp} % 200000, 1 + {hs} % 10000, (i - 1) % 4 + 1,
       q, q * (900 + ({hpr} % 100000) / 100.0), ({hd} % 11) / 100.0, ({ht} % 9) / 100.0,
       CASE WHEN rd <= date '1995-06-17' THEN (ARRAY['R', 'A'])[1 + {hf} % 2] ELSE 'N' END,
       CASE WHEN sd > date '1995-06-17' THEN 'O' ELSE 'F' END,
       sd, od + 30 + ({hc} % 61)::int, rd,
       (ARRAY['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'])[1 + {hi} % 4],
       (ARRAY['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'])[1 + {hm} % 7],
       substr(md5(i::text), 1, 10 + ({hl} % 23)::int){selval}
FROM (SELECT i, ok, od, sd, sd + 1 + ({hr} % 30)::int AS rd, (1 + {hq} % 50)::numeric AS q
      FROM (SELECT i, ok, od, od + 1 + ({hsd} % 121)::int AS sd
            FROM (SELECT i, (i - 1) / 4 + 1 AS ok, {od} AS od
                  FROM generate_series(1::int8, {rows}) AS i) a) b) c;
""".format(p=prefix, rows=rows, od=odate("(i - 1) / 4 + 1"),
           hp=bh("i", 40), hs=bh("i", 41), hpr=bh("i", 42), hd=bh("i", 43), ht=bh("i", 44), hf=bh("i", 45),
           hc=bh("i", 46), hi=bh("i", 47), hm=bh("i", 48), hl=bh("i", 49), hr=bh("i", 50), hq=bh("i", 51),
           hsd=bh("i", 52),
           selcol=",\n  l_sel int4" if sel else "",
           selval=",\n       ((i - 1) * 7919 % {rows})::int4".format(rows=rows) if sel else "")
    if lineitem_only:
        return li + "VACUUM (ANALYZE) {p}lineitem;\n".format(p=prefix)
    return """
DROP TABLE IF EXISTS {p}customer, {p}orders;
CREATE TABLE {p}customer (c_custkey int8 PRIMARY KEY, c_name text, c_mktsegment char(10),
  c_acctbal numeric(15,2)) WITH (autovacuum_enabled = off);
INSERT INTO {p}customer
SELECT i, 'Customer#' || lpad(i::text, 9, '0'),
       (ARRAY['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'HOUSEHOLD', 'MACHINERY'])[1 + {hseg} % 5],
       ({hbal} % 1100000 - 100000) / 100.0
FROM generate_series(1::int8, {nc}) AS i;
CREATE TABLE {p}orders (o_orderkey int8 PRIMARY KEY, o_custkey int8, o_orderstatus char(1),
  o_totalprice numeric(15,2), o_orderdate date, o_orderpriority char(15), o_shippriority int4)
  WITH (autovacuum_enabled = off);
INSERT INTO {p}orders
SELECT i, 1 + {hcust} % {nc}, 'O', ({htp} % 50000000) / 100.0, {od},
       (ARRAY['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'])[1 + {hpri} % 5], 0
FROM generate_series(1::int8, {no}) AS i;
""".format(p=prefix, nc=ncust, no=norders, od=odate("i"), hseg=bh("i", 20), hbal=bh("i", 21),
           hcust=bh("i", 30), htp=bh("i", 31), hpri=bh("i", 33)) + li + \
        "VACUUM (ANALYZE) {p}customer, {p}orders, {p}lineitem;\n".format(p=prefix)


def single_user(sql):
    """sql for `postgres --single -j`: each statement ends with ; and a blank line"""
    stmts = [s.strip() for s in sql.split(";\n")]
    return "".join(s + ";\n\n" for s in stmts if s)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rows", type=int)
    ap.add_argument("--prefix", default="")
    ap.add_argument("--lineitem-only", action="store_true")
    ap.add_argument("--sel", action="store_true")
    ap.add_argument("--single-user", action="store_true")
    a = ap.parse_args()
    out = tpch_sql(a.rows, a.prefix, a.lineitem_only, a.sel)
    print(single_user(out) if a.single_user else out, end="")
