"""Reporting: medians, ratios and spreads, the text and markdown tables,
machine and settings information, results.csv and results.md (the charts
are drawn by bench/plot.py)."""

import csv
import datetime
import os
import statistics

import plot                                  # bench/plot.py

from fpbench import common as C
from fpbench.common import (BenchError, CACHEGRIND, DURATION, HJ_ROWS, PARALLEL_GUCS, RANGE_DURATION, ROUNDS,
    SCALE, TPCH_ROWS, VIEWS_ENV, git_commit, log, psql, psql_val)


# --------------------------------------------------------------- reporting

def median(xs):
    return statistics.median(xs) if xs else None


def ratio(m, a, b):
    if a is None or b is None or a <= 0 or b <= 0:
        return None
    if m.unit.startswith("per ") and (a < 1 or b < 1):
        return None                     # cachegrind counts: noise level
    return b / a if m.better == "higher" else a / b


def summarize(m):
    a, b = median(m.values["A"]), median(m.values["B"])
    r = ratio(m, a, b)
    pairs = [ratio(m, x, y) for x, y in zip(m.values["A"], m.values["B"])]
    pairs = [p for p in pairs if p is not None]
    spread = (min(pairs), max(pairs)) if len(pairs) > 1 else None
    return a, b, r, spread


def fmt_val(v, unit):
    if v is None:
        return "—"
    if unit == "TPS":
        return "{:,.0f}".format(v)
    if unit.startswith("per ") and abs(v) < 1:
        return "%.1f" % v
    if v >= 100:
        return "{:,.0f}".format(v)
    if v >= 10:
        return "%.1f" % v
    if v >= 1:
        return "%.2f" % v
    return "%.3g" % v


def plans_text(m, sid):
    return "; ".join(m.plans[sid]) or "—"


def table_rows(metrics):
    rows = []
    for m in metrics:
        a, b, r, sp = summarize(m)
        label = "%s [%s]" % (m.label, m.unit)
        if m.note:
            label += " " + m.note
        plans = [plans_text(m, "A"), plans_text(m, "B")]
        if m.status:
            rows.append([label, "—", "—", "—", m.status] + plans)
            continue
        rows.append([label, fmt_val(a, m.unit), fmt_val(b, m.unit),
                     "%.2f" % r if r is not None else "—",
                     "%.2f–%.2f" % sp if sp else "—"] + plans)
    return rows


HEADER = ["workload", "A: btree / off", "B: fpbtree / on", "ratio (>1 = B better)", "spread (per-round ratios)",
          "plan A", "plan B"]


def text_table(rows, header=HEADER):
    w = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    line = "  ".join("-" * x for x in w)
    out = ["  ".join(str(h).ljust(w[i]) for i, h in enumerate(header)), line]
    for r in rows:
        out.append("  ".join(str(c).rjust(w[i]) if i else str(c).ljust(w[i]) for i, c in enumerate(r)))
    return "\n".join(out)


def md_table(rows, header=HEADER):
    # numbers right-aligned, the label and the plan columns left
    al = ["---" if i == 0 or h.startswith("plan") else "---:" for i, h in enumerate(header)]
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(al) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out)


def cache_sizes():
    out = []
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for d in sorted(os.listdir(base)):
            if not d.startswith("index"):
                continue
            rd = lambda f: open(os.path.join(base, d, f)).read().strip()
            t = {"Data": "d", "Instruction": "i", "Unified": ""}.get(rd("type"), "?")
            out.append("L%s%s %s" % (rd("level"), t, rd("size")))
    except OSError:
        pass
    return ", ".join(out) or "unknown"


def machine_info():
    info = {}
    info["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    info["nproc"] = str(os.cpu_count())
    try:
        mem = [l for l in open("/proc/meminfo") if l.startswith("MemTotal:")][0]
        info["RAM"] = "%.1f GiB" % (int(mem.split()[1]) / 1048576.0)
    except (OSError, IndexError):
        info["RAM"] = "unknown"
    try:
        cpu = [l for l in open("/proc/cpuinfo") if l.startswith("model name")][0]
        info["CPU"] = cpu.split(":", 1)[1].strip()
    except (OSError, IndexError):
        info["CPU"] = "unknown"
    info["caches"] = cache_sizes()
    info["kernel"] = os.uname().release
    try:
        info["PostgreSQL"] = psql_val("SELECT version();", db="postgres")
    except BenchError:
        info["PostgreSQL"] = "unknown"
    rev, dirty = git_commit()
    info["fpbtree commit"] = rev + (" + uncommitted changes in src/" if dirty else "")
    info["SCALE"] = str(SCALE)
    info["ROUNDS"] = str(ROUNDS)
    if not CACHEGRIND:
        info["VIEWS"] = ", ".join(VIEWS_ENV)
    info["HJ_ROWS, TPCH_ROWS"] = "%d, %d" % (HJ_ROWS, TPCH_ROWS)
    info["DURATION"] = "%d s per TPS run, %d s per warm range size" % (DURATION, RANGE_DURATION)
    return info


def loadavg():
    try:
        return open("/proc/loadavg").read().split()[0]
    except OSError:
        return "?"


SETTING_NAMES = ["shared_buffers", "effective_cache_size", "maintenance_work_mem", "work_mem",
                 "effective_io_concurrency",
                 "max_wal_size", "checkpoint_timeout", "synchronous_commit", "autovacuum", "jit",
                 "shared_preload_libraries"] + PARALLEL_GUCS


def settings():
    out = psql("SELECT name || ' = ' || current_setting(name) FROM unnest(ARRAY[%s]) AS name;"
               % ",".join("'%s'" % n for n in SETTING_NAMES), db="postgres")
    return [l for l in out.splitlines() if l.strip()]


CSV_HEADER = ["view", "comparison", "metric", "label", "unit", "better", "median_A", "median_B",
              "ratio_B_better_if_gt_1", "spread_min", "spread_max", "status", "plan_A", "plan_B",
              "rounds_A", "rounds_B"]


def write_csv(path, views):
    """views: [(view name, metrics)].  comparison: "index" (A = btree, B =
    fpbtree) or "executor" (A = feature off, B = on)."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(CSV_HEADER)
        for view, metrics in views:
            for m in metrics:
                a, b, r, sp = summarize(m)
                w.writerow([view, m.comparison, m.key, m.label + (" " + m.note if m.note else ""), m.unit, m.better,
                            "" if a is None else "%.6g" % a, "" if b is None else "%.6g" % b,
                            "" if r is None else "%.4f" % r,
                            "%.4f" % sp[0] if sp else "", "%.4f" % sp[1] if sp else "", m.status,
                            "; ".join(m.plans["A"]), "; ".join(m.plans["B"]),
                            " ".join("%.6g" % x for x in m.values["A"]),
                            " ".join("%.6g" % x for x in m.values["B"])])


def write_md_and_charts(md):
    """Writes results.md (md, then the charts), drawing the charts from the
    results.csv and results.md just written (bench/plot.py)."""
    path = os.path.join(C.RUN_DIR, "results.md")
    with open(path, "w") as f:
        f.write("\n".join(md))
    pngs = plot.plot_run(C.RUN_DIR, C.RAW)
    if pngs:
        with open(path, "a") as f:
            f.write("\n".join(["## Charts", ""] + ["![%s](%s)\n" % (os.path.splitext(p)[0], p) for p in pngs]))
    log("charts: %s" % (", ".join(pngs) or "none (gnuplot missing or failed)"))


def info_md(info, extra=()):
    lines = ["| | |", "|---|---|"]
    for k, v in list(info.items()) + list(extra):
        lines.append("| %s | %s |" % (k, v))
    return "\n".join(lines)
