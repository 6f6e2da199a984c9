"""CACHEGRIND=1: the cache-simulation mode, single-user backends under
valgrind --tool=cachegrind; the index part (btree / fpbtree: point lookups,
a nested-loop join, range counts) and TPC-H Q1 (Buffer operator off / on)."""

import os
import random
import re
import shlex
import shutil
import time

from fpbench import common as C
from fpbench.common import (BenchError, DATADIR, DB, FORCE_NESTLOOP, Metric, PGBIN, RUNAS, SCALE, SETUP,
    SIDES, SOCKDIR, WORKLOADS_ENV, check_plan, explain, idx, log, psql, run, server_start, server_stop,
    set_view, tbl)
from fpbench.index import count_ok, ensure_base, lit, random_ranges, size_label
from fpbench.tpch import BUFFER_NODE, TPCH_Q
from fpbench.tpchgen import tpch_sql
from fpbench.report import (info_md, md_table, table_rows, text_table, write_csv, write_md_and_charts)


# ------------------------------------------------------------ cachegrind

CG_EVENTS = [("Ir", "instructions"), ("I1m", "I1 misses"), ("D1m", "D1 misses"), ("LLdm", "LLd misses"),
             ("LLm", "LL misses")]
CG_POINTS = int(os.environ.get("CG_POINTS") or 1000)     # EXECUTEd point lookups
CG_PROBES = int(os.environ.get("CG_PROBES") or 20000)    # lookups inside one nested-loop join
CG_RANGES = int(os.environ.get("CG_RANGES") or 20)       # EXECUTEd range counts
# cachegrind's LL model: by default a fixed 8 MB, 16-way last-level cache (the
# host's L3 as a VM reports it may be far larger than what one core really
# gets, and would hold everything); CG_CACHE_OPTS="" keeps the host's geometry.
CG_CACHE_OPTS = shlex.split(os.environ.get("CG_CACHE_OPTS", "--LL=8388608,16,64"))
CG_BATCHES = ["points", "join", "ranges"]


def cg_parse(stderr):
    vals = {}
    for kind, what, num in re.findall(r"^==\d+==\s+(I|I1|LLi|D|D1|LLd|LL)\s+(refs|misses):\s+([\d,]+)",
                                      stderr, re.M):
        vals[kind + ("r" if what == "refs" else "m")] = int(num.replace(",", ""))
    if any(e not in vals for e, _ in CG_EVENTS):
        raise BenchError("cannot parse cachegrind summary:\n" + stderr[-3000:])
    return vals


def cg_range_n():
    return min(10000, max(1, SCALE // 4))


def cg_statements(side, batches):
    t = tbl(side)
    lines = ["SET enable_seqscan = off", "SET enable_bitmapscan = off", "SET enable_hashjoin = off",
             "SET enable_mergejoin = off", "SET enable_memoize = off",
             "PREPARE pt(int8) AS SELECT a FROM %s WHERE a = hashint8extended($1, 0)" % t,
             "PREPARE rc(int8, int8) AS SELECT count(*) AS rc FROM %s WHERE a >= $1 AND a < $2" % t]
    rng = random.Random(4242)
    points = [rng.randint(1, SCALE) for _ in range(CG_POINTS)]
    ranges = random_ranges(4343, cg_range_n(), SCALE, CG_RANGES)
    for b in batches:
        if b == "points":
            lines += ["EXECUTE pt(%d)" % i for i in points]
        elif b == "join":
            lines.append("SELECT count(*) AS nj FROM cg_probes p JOIN %s t ON t.a = p.k" % t)
        else:
            lines += ["EXECUTE rc(%s, %s)" % (lit(lo), lit(hi)) for lo, hi in ranges]
    return "\n".join(lines) + "\n"


def cg_run(side, batches, tag):
    """One single-user backend under cachegrind, fed batches on stdin;
    returns the summary counts and what the queries returned."""
    out = os.path.join(SOCKDIR, "cachegrind.%s.%s.out" % (side["s"], tag))
    cmd = RUNAS + ["valgrind", "--tool=cachegrind", "--cache-sim=yes"] + CG_CACHE_OPTS + [
        "--cachegrind-out-file=" + out, PGBIN + "/postgres", "--single", "-D", DATADIR, DB]
    t0 = time.time()
    p = run(cmd, stdin=cg_statements(side, batches), check=False)
    with open(os.path.join(C.RAW, "cachegrind.%s.%s.log" % (side["s"], tag)), "w") as f:
        f.write(p.stdout[-100000:] + "\n---\n" + p.stderr)
    if p.returncode != 0 or "ERROR:" in p.stdout or "ERROR:" in p.stderr:
        raise BenchError("single-user backend under cachegrind failed (%s %s):\n%s\n%s"
                         % (side["name"], tag, p.stdout[-2000:], p.stderr[-3000:]))
    got = {"points": len(re.findall(r'\ba = "-?\d+"', p.stdout)),
           "join": [int(x) for x in re.findall(r'\bnj = "(\d+)"', p.stdout)],
           "ranges": [int(x) for x in re.findall(r'\brc = "(\d+)"', p.stdout)]}
    log("  cachegrind %-7s %-6s %3.0f s" % (side["name"], tag, time.time() - t0))
    return cg_parse(p.stderr), got


CG_INDEX_KEYS = ("point", "probe", "range", "cold", "insert", "createindex")
CG_TPCH_ROWS = int(os.environ.get("CG_TPCH_ROWS") or 100000)   # lineitem rows of the Q1 cache run
CG_I1 = os.environ.get("CG_I1") or "16384,4,64"                 # the simulated L1i of the Q1 run


def cg_index(info):
    """The index part: point lookups, nested-loop lookups, range counts."""
    ensure_base()
    n = cg_range_n()
    psql("""
DROP TABLE IF EXISTS cg_probes;
CREATE TABLE cg_probes (k int8) WITH (autovacuum_enabled = off);
INSERT INTO cg_probes
  SELECT hashint8extended(1 + (hashint8extended(g, 43) & 9223372036854775807) %% %d, 0)
  FROM generate_series(1, %d) AS g;
VACUUM (ANALYZE) cg_probes;
""" % (SCALE, CG_PROBES), options=SETUP)
    for side in SIDES:
        check_plan("SELECT count(*) FROM cg_probes p JOIN %s t ON t.a = p.k" % tbl(side),
                   ["Nested Loop", "Seq Scan on cg_probes p",
                    "Index Only Scan using %s on %s t" % (idx(side), tbl(side))], FORCE_NESTLOOP, analyze=True)
    server_stop()
    res = {}
    try:
        for side in SIDES:
            # "base" runs every batch once (start-up and warm-up); each other
            # run repeats one batch, warm; the difference is that batch alone
            base, got0 = cg_run(side, CG_BATCHES, "base")
            per = {}
            for b, div in (("points", CG_POINTS), ("join", CG_PROBES), ("ranges", CG_RANGES)):
                vals, got = cg_run(side, CG_BATCHES + [b], b)
                per[b] = {e: (vals[e] - base[e]) / div for e, _ in CG_EVENTS}
                if b == "points" and got["points"] != 2 * CG_POINTS:
                    raise BenchError("%s: %d of %d point lookups found their key"
                                     % (side["name"], got["points"], 2 * CG_POINTS))
                if b == "join" and got["join"] != [CG_PROBES, CG_PROBES]:
                    raise BenchError("%s: nested-loop join found %s of %d keys"
                                     % (side["name"], got["join"], CG_PROBES))
                if b == "ranges":
                    if not all(count_ok(c, n) for c in got["ranges"]):
                        raise BenchError("%s: range counts %s far from %d" % (side["name"], got["ranges"], n))
                    per["counts"] = got["ranges"]
            res[side["id"]] = per
        if res["A"]["counts"] != res["B"]["counts"]:
            raise BenchError("range counts differ: btree %s, fpbtree %s"
                             % (res["A"]["counts"], res["B"]["counts"]))
    finally:
        server_start()
    metrics = []
    for q, qlabel in (("points", "point lookup (one EXECUTE each)"),
                      ("join", "lookup in a nested-loop join"),
                      ("ranges", "range count %s entries" % size_label(n))):
        for e, elabel in CG_EVENTS:
            m = Metric("cg_%s_%s" % (q, e), "%s: %s" % (qlabel, elabel), "per lookup" if q != "ranges"
                       else "per query", "lower")
            m.values["A"].append(res["A"][q][e])
            m.values["B"].append(res["B"][q][e])
            metrics.append(m)
    note = ("Index part (A = btree, B = fpbtree): single-user backend (`postgres --single`) under "
            "`valgrind --tool=cachegrind --cache-sim=yes %s`; batches: %d point lookups (EXECUTE of a "
            "prepared SELECT each), one forced nested-loop join doing %d index lookups, %d range counts of "
            "about %d entries (EXECUTE). A first run does every batch once (start-up, warm-up); one more run "
            "per batch repeats it, warm; the figures are the difference divided by the number of lookups or "
            "queries, so start-up cancels out. Counts are deterministic up to small noise (a few misses); "
            "ratios are left out when a figure is below 1. Host caches: %s."
            % (" ".join(CG_CACHE_OPTS), CG_POINTS, CG_PROBES, CG_RANGES, n, info.get("caches")))
    return metrics, note


CG_Q1_SETS = {
    "A": ["SET enable_buffer_operator = off"],
    "B": ["SET enable_buffer_operator = on", "SET fpbtree.l1i_cache_size = '%dB'" % int(CG_I1.split(",")[0])],
}


# the three-aggregate Q1 shape of the I1 calibration (as
# calibrate/cachegrind_q1.sh's QUERY=short)
CG_Q1_SHORT = ("SELECT sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge, "
               "avg(l_quantity) AS avg_qty, count(*) AS count_order FROM cg_lineitem "
               "WHERE l_shipdate <= date '1998-11-01'")


def cg_q1_run(sid, nq, tag, q1, qkey):
    """A single-user backend under cachegrind with the simulated L1i CG_I1,
    running side sid's SETs and query q1 nq times; returns the summary counts
    and the query's output lines."""
    out = os.path.join(SOCKDIR, "cachegrind.%s.%s.%s.out" % (qkey, sid, tag))
    # no parameters: the first EXECUTE plans (generic plan, refinement pass
    # included) and caches the plan, so the second one is execution only
    stmts = "\n".join(["SET enable_prefetch_hashjoin = off"] + CG_Q1_SETS[sid] + ["PREPARE q1 AS " + q1]
                      + ["EXECUTE q1"] * nq) + "\n"
    cmd = RUNAS + ["valgrind", "--tool=cachegrind", "--cache-sim=yes"] + CG_CACHE_OPTS + [
        "--I1=" + CG_I1, "--cachegrind-out-file=" + out, PGBIN + "/postgres", "--single", "-D", DATADIR, DB]
    t0 = time.time()
    p = run(cmd, stdin=stmts, check=False)
    with open(os.path.join(C.RAW, "cachegrind.%s.%s.%s.log" % (qkey, sid, tag)), "w") as f:
        f.write(p.stdout[-100000:] + "\n---\n" + p.stderr)
    if p.returncode != 0 or "ERROR:" in p.stdout or "ERROR:" in p.stderr:
        raise BenchError("single-user backend under cachegrind failed (Q1 %s %s):\n%s\n%s"
                         % (sid, tag, p.stdout[-2000:], p.stderr[-3000:]))
    rows = re.findall(r'\bsum_charge = "([^"]*)"', p.stdout)
    log("  cachegrind %s %s %-6s %3.0f s" % (qkey, sid, tag, time.time() - t0))
    return cg_parse(p.stderr), rows


def cg_q1(info):
    """TPC-H Q1, and the three-aggregate Q1 shape, with a simulated 16 kB L1i:
    A = enable_buffer_operator off, B = on with fpbtree.l1i_cache_size set to
    the simulated L1i, so the pass buffers as it would on such a machine.
    Per row of lineitem, warm: a run with the query twice minus a run with it
    once."""
    psql(tpch_sql(CG_TPCH_ROWS, prefix="cg_", lineitem_only=True) + "CHECKPOINT;\n", options=SETUP)
    queries = [("q1", "TPC-H Q1", TPCH_Q["q1"].format(p="cg_")),
               ("q1_short", "Q1 shape, 3 aggregates", CG_Q1_SHORT)]
    nbufs = {}
    for qkey, qlabel, q in queries:
        pa = explain(q, [x[4:] for x in CG_Q1_SETS["A"]])
        pb = explain(q, [x[4:] for x in CG_Q1_SETS["B"]])
        with open(os.path.join(C.RAW, "plan_cachegrind_%s.txt" % qkey), "w") as f:
            f.write("A:\n%s\nB:\n%s\n" % (pa, pb))
        if BUFFER_NODE in pa:
            raise BenchError("%s with enable_buffer_operator off has a Buffer:\n%s" % (qlabel, pa))
        nbufs[qkey] = pb.count(BUFFER_NODE)
    server_stop()
    res = {}
    try:
        for qkey, qlabel, q in queries:
            for sid in ("A", "B"):
                one, r1 = cg_q1_run(sid, 1, "once", q, qkey)
                two, r2 = cg_q1_run(sid, 2, "twice", q, qkey)
                if not r1 or r2 != r1 + r1:
                    raise BenchError("%s under cachegrind (%s): results %s / %s" % (qlabel, sid, r1, r2))
                res[qkey, sid] = ({e: (two[e] - one[e]) / CG_TPCH_ROWS for e, _ in CG_EVENTS}, r1)
            if res[qkey, "A"][1] != res[qkey, "B"][1]:
                raise BenchError("%s results differ: off %s, on %s"
                                 % (qlabel, res[qkey, "A"][1], res[qkey, "B"][1]))
    finally:
        server_start()
    metrics = []
    for qkey, qlabel, q in queries:
        for e, elabel in CG_EVENTS[:3]:
            m = Metric("cg_%s_%s" % (qkey, e), "%s, L1i %s B (Buffer off/on): %s"
                       % (qlabel, CG_I1.split(",")[0], elabel), "per row", "lower")
            m.values["A"].append(res[qkey, "A"][0][e])
            m.values["B"].append(res[qkey, "B"][0][e])
            m.comparison = "executor"
            metrics.append(m)
    note = ("Q1 part (A = `enable_buffer_operator = off`, B = on with `fpbtree.l1i_cache_size` = %s "
            "bytes; B's plan has %s Buffer node(s) in TPC-H Q1 and %s in the 3-aggregate shape, "
            "`sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)), avg(l_quantity), count(*)` under "
            "`l_shipdate <= date '1998-11-01'`): `cg_lineitem` of %d rows, single-user backend under "
            "cachegrind with `--I1=%s %s`; each query is PREPAREd and a run with two EXECUTEs minus a run "
            "with one, divided by the rows, so start-up, planning (the plan is cached at the first EXECUTE) "
            "and the first execution's catalog loads cancel out. Both sides return the same rows."
            % (CG_I1.split(",")[0], nbufs["q1"], nbufs["q1_short"], CG_TPCH_ROWS, CG_I1,
               " ".join(CG_CACHE_OPTS)))
    if not all(nbufs.values()):
        note += " (Where the pass placed no Buffer both runs have the same plan.)"
    return metrics, note


def main_cachegrind(info):
    """CACHEGRIND=1: the index part (A = btree, B = fpbtree) and TPC-H Q1 with
    a 16 kB L1i (A = Buffer off, B = on).  WORKLOADS narrows it: any index
    workload key selects the index part, tpch_q1 the Q1 part."""
    if not shutil.which("valgrind"):
        raise BenchError("valgrind not installed")
    # a single-user backend launches no parallel workers: plan as it runs
    set_view("serial")
    do_index = not WORKLOADS_ENV or any(w in CG_INDEX_KEYS for w in WORKLOADS_ENV)
    do_q1 = not WORKLOADS_ENV or "tpch_q1" in WORKLOADS_ENV
    metrics, notes = [], []
    if do_index:
        ms, note = cg_index(info)
        metrics += ms
        notes.append(note)
    if do_q1:
        ms, note = cg_q1(info)
        metrics += ms
        notes.append(note)
    rows = table_rows(metrics)
    hdr = ["cachegrind (simulated caches)", "A: btree / Buffer off", "B: fpbtree / Buffer on",
           "ratio (>1 = B fewer)"]
    rows = [r[:4] for r in rows]
    log("\n" + text_table(rows, hdr))
    for note in notes:
        log(note)
    write_csv(os.path.join(C.RUN_DIR, "results.csv"), [("serial", metrics)])
    md = ["# fpbtree benchmark: cache simulation (CACHEGRIND=1), run %s" % os.path.basename(C.RUN_DIR), "",
          info_md(info), ""]
    for note in notes:
        md += [note, ""]
    md += [md_table(rows, hdr), ""]
    write_md_and_charts(md)
