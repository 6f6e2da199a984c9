"""TPC-H-shaped workloads, Buffer operator off (A) against on (B): the
queries (TPCH_Q) and the tpch_q* workloads, on tables from fpbench.tpchgen."""

import os
import time

from fpbench import common as C
from fpbench.common import (BenchError, Metric, SETUP, SIDES, TPCH_ROWS, Test, Workload, check_same, explain,
    log, note_plans, prewarm, psql, rows_label, timed_sql)
from fpbench.tpchgen import tpch_sql


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
