"""TPC-H-shaped workloads, Buffer operator off (A) against on (B): the
customer / orders / lineitem generator (tpch_sql, also used by the
cachegrind Q1 part), the queries (TPCH_Q) and the tpch_q* workloads."""

import os
import time

from fpbench import common as C
from fpbench.common import (BenchError, Metric, SETUP, SIDES, TPCH_ROWS, Test, Workload, check_same, explain,
    log, note_plans, prewarm, psql, rows_label, timed_sql)


# ---------------------------------------------------------- TPC-H shaped

def bh(expr, seed):
    """a non-negative deterministic pseudo-random int8 of expr"""
    return "(hashint8extended(%s, %d) & 9223372036854775807)" % (expr, seed)


def tpch_sql(rows, prefix="", lineitem_only=False):
    """TPC-H-shaped customer / orders / lineitem: 4 lineitems per order, 10
    orders per customer, dates and flags derived as in dbgen (returnflag R/A
    up to 1995-06-17 receipt, else N; linestatus O after 1995-06-17 ship)."""
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
  l_shipinstruct char(25), l_shipmode char(10), l_comment varchar(44)) WITH (autovacuum_enabled = off);
INSERT INTO {p}lineitem
SELECT ok, 1 + {hp} % 200000, 1 + {hs} % 10000, (i - 1) % 4 + 1,
       q, q * (900 + ({hpr} % 100000) / 100.0), ({hd} % 11) / 100.0, ({ht} % 9) / 100.0,
       CASE WHEN rd <= date '1995-06-17' THEN (ARRAY['R', 'A'])[1 + {hf} % 2] ELSE 'N' END,
       CASE WHEN sd > date '1995-06-17' THEN 'O' ELSE 'F' END,
       sd, od + 30 + ({hc} % 61)::int, rd,
       (ARRAY['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'])[1 + {hi} % 4],
       (ARRAY['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'])[1 + {hm} % 7],
       substr(md5(i::text), 1, 10 + ({hl} % 23)::int)
FROM (SELECT i, ok, od, sd, sd + 1 + ({hr} % 30)::int AS rd, (1 + {hq} % 50)::numeric AS q
      FROM (SELECT i, ok, od, od + 1 + ({hsd} % 121)::int AS sd
            FROM (SELECT i, (i - 1) / 4 + 1 AS ok, {od} AS od
                  FROM generate_series(1::int8, {rows}) AS i) a) b) c;
""".format(p=prefix, rows=rows, od=odate("(i - 1) / 4 + 1"),
           hp=bh("i", 40), hs=bh("i", 41), hpr=bh("i", 42), hd=bh("i", 43), ht=bh("i", 44), hf=bh("i", 45),
           hc=bh("i", 46), hi=bh("i", 47), hm=bh("i", 48), hl=bh("i", 49), hr=bh("i", 50), hq=bh("i", 51),
           hsd=bh("i", 52))
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


TPCH_Q = {
    "q1": """SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price, \
sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price, \
sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge, avg(l_quantity) AS avg_qty, \
avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc, count(*) AS count_order \
FROM {p}lineitem WHERE l_shipdate <= date '1998-12-01' - interval '90 day' \
GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus""",
    "q3": """SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, o_shippriority \
FROM customer, orders, lineitem \
WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey \
AND o_orderdate < date '1995-03-15' AND l_shipdate > date '1995-03-15' \
GROUP BY l_orderkey, o_orderdate, o_shippriority ORDER BY revenue DESC, o_orderdate, l_orderkey LIMIT 10""",
    "q6": """SELECT sum(l_extendedprice * l_discount) AS revenue FROM lineitem \
WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1994-01-01' + interval '1 year' \
AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND l_quantity < 24""",
}


def ensure_tpch():
    if "tpch" in C._made:
        return
    t0 = time.time()
    psql(tpch_sql(TPCH_ROWS) + "CHECKPOINT;\n", options=SETUP)
    log("  loaded lineitem (%d rows), orders, customer: %.1f s" % (TPCH_ROWS, time.time() - t0))
    C._made.add("tpch")


def tpch_sets(side):
    return ["enable_prefetch_hashjoin = off",
            "enable_buffer_operator = %s" % ("off" if side["id"] == "A" else "on")]


BUFFER_NODE = "Custom Scan (Buffer)"


def wl_tpch(q):
    m = Metric("tpch_%s" % q, "TPC-H %s-shaped query, lineitem %s rows (buffer operator off/on)"
               % (q.upper(), rows_label(TPCH_ROWS)), "ms", "lower")
    sql = TPCH_Q[q].format(p="")
    got = {}

    def prepare():
        ensure_tpch()
        prewarm("customer", "orders", "lineitem")
        pa = explain(sql, tpch_sets(SIDES[0]))
        if BUFFER_NODE in pa:
            raise BenchError("A (enable_buffer_operator off) has a Buffer:\n" + pa)
        pb = explain(sql, tpch_sets(SIDES[1]))
        # the plan columns show B's Buffer nodes, or "same plan as A"
        note_plans(m, pa, pb)
        with open(os.path.join(C.RAW, "plan_tpch_%s_%s.txt" % (q, C.VIEW)), "w") as f:
            f.write("A:\n%s\nB:\n%s\n" % (pa, pb))
        log("  %s: B's plan has %d Buffer node(s)" % (q, pb.count(BUFFER_NODE)))

    def measure(side, rnd):
        ms, res = timed_sql(sql, tpch_sets(side))
        if not res.strip():
            raise BenchError("TPC-H %s returned nothing" % q)
        check_same(got, rnd, side, res, "TPC-H " + q)
        return {m.key: ms}

    return Workload("tpch_%s" % q, "TPC-H %s-shaped query (buffer operator off/on)" % q.upper(), prepare,
                    [Test(measure, [m])], [m], comparison="executor")
