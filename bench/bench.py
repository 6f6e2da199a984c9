#!/usr/bin/env python3
"""fpbtree benchmark: PostgreSQL's btree (side A, the baseline) against
fpbtree (side B) on identical tables in one scratch cluster.

Run through bench/run_bench.sh (`make bench`), which installs what is
missing, builds the extension, starts the cluster and sets the BENCH_*
variables read in fpbench/common.py.  Standard library only.

This file is the entry point: the workload list (make_workloads), the rounds
loop and main().  The rest lives in bench/fpbench/: common (settings, psql /
pgbench / server control, timing, plan checks, the Metric / Test / Workload
classes), index, hashjoin and tpch (one module per workload family),
cachegrind (the CACHEGRIND=1 mode) and report (tables, CSV, results.md);
bench/plot.py draws the charts.

Every workload runs in each of the VIEWS (parallel settings: PostgreSQL's
defaults, the headline, and serial), ROUNDS rounds each; in each round
every test runs on A and then on B (A, B, A, B, ...).  The table of a view
reports the median of each side, the ratio of the medians oriented so that
> 1 always means fpbtree is better (baseline/fpbtree for times and sizes,
fpbtree/baseline for TPS), the spread (min-max of the per-round ratios)
and the shape of the plan each side ran.

Adding a workload: write a function returning a Workload (tests with a
measure(side, rnd) callable each) in the module of its family and add it
to make_workloads().
"""

import os
import sys
import time

from fpbench import common as C
from fpbench.common import (BenchError, CACHEGRIND, DATADIR, DB, DURATION, Metric, ROOT, ROUNDS, SCALE, SIDES,
    SOCKDIR, VIEWS_ENV, VIEW_DEFS, WORKLOADS_ENV, Workload, log, make_run_dir, psql, set_view)
from fpbench.index import wl_cold, wl_createindex, wl_half, wl_insert, wl_point, wl_probe, wl_range
from fpbench.hashjoin import (wl_hashjoin_large, wl_hashjoin_scaling, wl_hashjoin_schemes, wl_hashjoin_shared,
    wl_hashjoin_small, wl_hashjoin_spill)
from fpbench.tpch import wl_tpch
from fpbench.pgbench_std import wl_pgbench_std
from fpbench.serializable import wl_serializable
from fpbench.keyset import wl_keyset
from fpbench.space import wl_churn, wl_queue
from fpbench.widekeys import wl_widekey
from fpbench.report import (fmt_val, info_md, loadavg, machine_info, md_table, settings, table_rows,
    text_table, write_csv, write_md_and_charts)
from fpbench.cachegrind import main_cachegrind


def wl_pending(key, label, unit, better, pending):
    m = Metric(key, label, unit, better)
    m.status = "(%s)" % pending
    return Workload(key, label, None, [], [m], pending=pending)


def make_workloads():
    return [
        wl_point(),
        wl_probe(),
        wl_range(),
        wl_cold(),
        wl_half(),
        wl_insert(),
        wl_createindex(),
        wl_pgbench_std(),
        wl_serializable(),
        wl_keyset(),
        wl_queue(),
        wl_churn(),
        wl_widekey(),
        # the prefetching executor nodes: A = feature off, B = on
        wl_hashjoin_large(),
        wl_hashjoin_shared(),
        wl_hashjoin_small(),
        wl_hashjoin_spill(),
        wl_hashjoin_schemes(),
        wl_hashjoin_scaling(),
        wl_tpch("q1"),
        wl_tpch("q3"),
        wl_tpch("q6"),
    ]


# ------------------------------------------------------------------ main

def run_workloads(workloads):
    failures = []
    for wl in workloads:
        if wl.pending:
            continue
        log("\n=== %s" % wl.title)
        t0 = time.time()
        try:
            if wl.prepare:
                wl.prepare()
            if wl.skip:
                log("  not run: %s" % wl.skip)
                for m in wl.metrics:
                    m.status = "(not run: %s)" % wl.skip
                continue
            for rnd in range(1, ROUNDS + 1):
                for test in wl.tests:
                    for side in SIDES:
                        vals = test.measure(side, rnd)
                        for m in test.metrics:
                            m.values[side["id"]].append(vals[m.key])
                            log("  round %d  %-5s %-45s %s %s" % (rnd, side["id"] + ":" + side["name"][:2],
                                                               m.label, fmt_val(vals[m.key], m.unit), m.unit))
        except BenchError as e:
            msg = str(e)
            log("\n!!! %s FAILED:\n%s\n" % (wl.title, msg))
            failures.append((wl.title, msg))
            first = msg.strip().splitlines()[0] if msg.strip() else "error"
            for m in wl.metrics:
                m.status = "FAILED: " + first[:80].replace("|", "/")
        finally:
            log("  (%s: %.0f s)" % (wl.key, time.time() - t0))
    return failures


READING = ("A = PostgreSQL's btree, or for the executor workloads (hash joins, TPC-H) the feature off; "
           "B = fpbtree, or the feature on. Ratio > 1 means B is better: A/B for times and sizes, B/A "
           "for TPS. Medians of %d rounds, A and B alternating; spread = min–max of the per-round "
           "ratios. Plan A / plan B: the shape of the plan each side ran (its joins, or its scans; "
           "Buffer nodes; the workers its Gather planned), from EXPLAIN; \"same plan as A\" when B's "
           "plan is A's." % ROUNDS)
VIEW_NOTES = {
    "default": "PostgreSQL's default parallel settings (`max_parallel_workers_per_gather = 2`, "
               "`max_parallel_maintenance_workers = 2`, default parallel costs): what users run. btree "
               "scans and builds can use parallel workers, the built-in hash join can be a Parallel Hash "
               "Join; fpbtree's scans and builds can use parallel workers too, and PrefetchHashJoin can run "
               "below a Gather with a private table per participant (Parallel PrefetchHashJoin in the plan "
               "columns).",
    "serial": "Every query and every CREATE INDEX in one process on both sides: the access methods and "
              "the join algorithms compared per core.",
}


def main_timed(info, selected):
    """Runs the selected workload keys in every view of VIEWS_ENV, then writes
    the tables, CSV and charts; returns the failures."""
    load0 = loadavg()
    t0 = time.time()
    failures, done = [], []
    for view in VIEWS_ENV:
        set_view(view)
        log("\n##### view: %s" % VIEW_DEFS[view][0])
        workloads = [w for w in make_workloads() if w.key in selected]
        failures += [("%s view: %s" % (view, t), e) for t, e in run_workloads(workloads)]
        done.append((view, [m for wl in workloads for m in wl.metrics], settings()))
    elapsed = time.time() - t0
    cold_note = None
    if any(m.key.startswith("cold_") for _, metrics, _ in done for m in metrics):
        if C._drop_caches_ok is False:
            cold_note = "cold: OS cache NOT dropped (no permission to write /proc/sys/vm/drop_caches); " \
                        "each cold query ran after a server restart, so only shared_buffers was cold"
        elif C._drop_caches_ok:
            cold_note = "cold: server restarted and OS page cache dropped before each cold query"
        for _, metrics, _ in done:
            for m in metrics:
                if m.key.startswith("cold_") and C._drop_caches_ok is False:
                    m.note = "(OS cache NOT dropped)"
    extra = [("load average (1 min) at start / end", "%s / %s" % (load0, loadavg())),
             ("workloads run for", "%.0f s" % elapsed)]
    for view, metrics, _ in done:
        log("\n=== %s\n" % VIEW_DEFS[view][0] + text_table(table_rows(metrics)))
    if cold_note:
        log(cold_note)
    log("(" + READING.replace("`", "") + ")")
    for k, v in list(info.items()) + extra:
        log("%s: %s" % (k, v))

    write_csv(os.path.join(C.RUN_DIR, "results.csv"), [(v, ms) for v, ms, _ in done])
    md = ["# fpbtree benchmark run %s" % os.path.basename(C.RUN_DIR), "",
          "Produced by `make bench` (bench/run_bench.sh, bench/bench.py); see bench/README.md.", "",
          info_md(info, extra), "", READING, ""]
    for view, metrics, _ in done:
        md += ["## %s" % VIEW_DEFS[view][0][0].upper() + VIEW_DEFS[view][0][1:], "",
               VIEW_NOTES[view], "", md_table(table_rows(metrics)), ""]
    if cold_note:
        md += [cold_note, ""]
    if failures:
        md += ["## Failures", ""] + ["- **%s**: `%s`" % (t, e.strip().splitlines()[0] if e.strip() else "")
                                     for t, e in failures] + [""]
    md += ["## Settings (both sides)", ""]
    for view, _, sets in done:
        md += ["%s:" % VIEW_DEFS[view][0], "", "```"] + sets + ["```", ""]
    write_md_and_charts(md)
    return failures


def main():
    if not DATADIR or not SOCKDIR:
        sys.exit("bench.py is run by bench/run_bench.sh (make bench), which sets BENCH_DATADIR etc.")
    known = [w.key for w in make_workloads()]
    if WORKLOADS_ENV and not CACHEGRIND:
        bad = [w for w in WORKLOADS_ENV if w not in known]
        if bad:
            sys.exit("unknown workload(s) %s; known: %s" % (", ".join(bad), ", ".join(known)))
    selected = [k for k in known if not WORKLOADS_ENV or k in WORKLOADS_ENV]
    bad = [v for v in VIEWS_ENV if v not in VIEW_DEFS]
    if bad or not VIEWS_ENV or len(set(VIEWS_ENV)) != len(VIEWS_ENV):
        sys.exit("VIEWS=%s: a comma list of distinct views out of %s"
                 % (",".join(VIEWS_ENV), ", ".join(VIEW_DEFS)))
    make_run_dir()
    psql("CREATE DATABASE %s;" % DB, db="postgres")
    psql("CREATE EXTENSION fpbtree;")
    info = machine_info()
    log("SCALE=%d ROUNDS=%d DURATION=%d %s, load average %s"
        % (SCALE, ROUNDS, DURATION, "CACHEGRIND=1" if CACHEGRIND else "VIEWS=" + ",".join(VIEWS_ENV), loadavg()))
    t0 = time.time()
    if CACHEGRIND:
        main_cachegrind(info)
        log("total %.0f s" % (time.time() - t0))
        log("\nresults: %s/ (results.md, results.csv, charts; raw/ has the logs)" % os.path.relpath(C.RUN_DIR, ROOT))
        return 0
    failures = main_timed(info, selected)
    log("total %.0f s" % (time.time() - t0))
    log("\nresults: %s/ (results.md, results.csv, charts; raw/ has the logs)" % os.path.relpath(C.RUN_DIR, ROOT))
    if failures:
        log("\n%d workload(s) FAILED: %s" % (len(failures), ", ".join(t for t, _ in failures)))
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchError as e:
        print("\nbench: " + str(e), file=sys.stderr)
        sys.exit(1)
