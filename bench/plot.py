#!/usr/bin/env python3
"""Charts of an fpbtree benchmark run, drawn with gnuplot from the run's
results.csv (and the SCALE, ROUNDS, date and commit of its results.md).

    python3 bench/plot.py DIR [DIR ...]

The benchmark (bench/fpbench/report.py) calls plot_run() at the end of
every run; by hand it re-draws a committed copy of a run (older CSVs,
without the view and comparison columns, are read too: those runs were all
serial).

One horizontal bar chart per comparison, so that btree against fpbtree and
a feature off against on are never mixed:

* timed runs: ratios_index.png (A = btree, B = fpbtree) and
  ratios_executor.png (A = PrefetchHashJoin / Buffer off, B = on), one bar
  per view (default parallel settings, serial) for every workload row;
* the cachegrind mode: cachegrind_index.png and cachegrind_q1.png.

The ratio axis is logarithmic and every bar starts at 1, so a loss (0.5)
points left as far as a win (2) points right.  The whiskers are the
per-round min-max; the numbers on the right are the medians' ratios, with
"same plan" where B ran A's plan and "A: 2 workers" where only A's plan was
parallel.  A footnote explains every abbreviation the labels use.
Standard library only.
"""

import csv
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

VIEWS = {
    "default": ("default parallel settings (the headline)", "#2f6fad"),
    "serial": ("serial: max_parallel_workers_per_gather = 0", "#a8a8a8"),
}

# what the A and B of each comparison are
SIDES = {
    ("timed", "index"): "A = PostgreSQL's btree, B = fpbtree.",
    ("timed", "executor"): "A = the feature off, B = on: enable_prefetch_hashjoin (hash joins), "
                           "enable_buffer_operator (TPC-H).",
    ("cachegrind", "index"): "A = PostgreSQL's btree, B = fpbtree; counts per lookup or query, "
                             "simulated caches.",
    ("cachegrind", "executor"): "A = enable_buffer_operator off, B = on; counts per row of lineitem, "
                                "simulated caches.",
}

TITLES = {
    ("timed", "index"): "fpbtree (B) vs btree (A): index workloads",
    ("timed", "executor"): "executor nodes on (B) vs off (A): hash joins, TPC-H-shaped queries",
    ("cachegrind", "index"): "cachegrind: fpbtree (B) vs btree (A), events per lookup or query",
    ("cachegrind", "executor"): "cachegrind: TPC-H Q1 with the Buffer operator on (B) vs off (A), events per row",
}

FILES = {
    ("timed", "index"): "ratios_index.png",
    ("timed", "executor"): "ratios_executor.png",
    ("cachegrind", "index"): "cachegrind_index.png",
    ("cachegrind", "executor"): "cachegrind_q1.png",
}

# (pattern in a chart's labels, its explanation for the footnote)
ABBREVIATIONS = [
    (r"\b\d+(\.\d+)?[kM]\b", "k, M = thousand, million"),
    (r"\b10\^\d", "10^n = 10 to the power n"),
    (r"\bint8\b", "int8 = 64-bit integer keys"),
    (r"\bG=\d", "G = group size (keys per prefetch group)"),
    (r"\bD=\d", "D = prefetch distance (pipelined)"),
    (r"\bradix\b", "radix = radix-clustered probing"),
    (r"\bwork_mem\b", "work_mem = memory of one hash table before it spills to batches"),
    (r"\bTPC-H Q\d|\bQ1\b", "Qn = TPC-H query n (data generated in SQL)"),
    (r"\bL1i\b", "L1i = simulated level-1 instruction cache size"),
    (r"\bI1\b", "I1 = level-1 instruction cache"),
    (r"\bD1\b", "D1 = level-1 data cache"),
    (r"\bLLd\b", "LLd = last-level cache, data accesses"),
    (r"\bLL\b", "LL = last-level cache"),
    (r"\bEXECUTE\b", "EXECUTE = a prepared statement's execution"),
]


def gp_str(s):
    """a gnuplot double-quoted string (noenhanced text)"""
    return '"' + s.replace("\\", "\\\\").replace('"', "'") + '"'


def chart_label(label):
    """the table's label without its parenthesized details"""
    out, depth = [], 0
    for ch in label:
        if ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        elif not depth:
            out.append(ch)
    s = re.sub(r"\s+", " ", "".join(out)).strip()
    s = re.sub(r"\s+([,:])", r"\1", s).rstrip(",:; ")
    return s if len(s) <= 72 else s[:71] + "…"


def legacy_comparison(key):
    return "executor" if key.startswith(("hj_", "tpch_", "cg_q1")) else "index"


def fnum(x):
    try:
        return float(x) if x not in (None, "") else None
    except ValueError:
        return None


def read_csv(path):
    """rows of a results.csv, new or old format, as dicts"""
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            key = r["metric"]
            rows.append({
                "view": r.get("view") or "serial",
                "comparison": r.get("comparison") or legacy_comparison(key),
                "key": key,
                "label": r["label"],
                "unit": r["unit"],
                "ratio": fnum(r.get("ratio_B_better_if_gt_1", r.get("ratio_fpbtree_better_if_gt_1"))),
                "lo": fnum(r.get("spread_min")),
                "hi": fnum(r.get("spread_max")),
                "status": r.get("status") or "",
                "plan_A": r.get("plan_A") or "",
                "plan_B": r.get("plan_B") or "",
            })
    return rows


def read_info(md_path):
    """the | key | value | lines of a results.md"""
    info = {}
    try:
        with open(md_path) as f:
            for line in f:
                m = re.match(r"\|\s*([^|]+?)\s*\|\s*([^|]*?)\s*\|\s*$", line)
                if m and m.group(1) not in ("", "---"):
                    info.setdefault(m.group(1), m.group(2))
    except OSError:
        pass
    return info


def workers(plan):
    ns = [int(n) for n in re.findall(r"\((\d+) workers?\)", plan)]
    return max(ns) if ns else 0


def marker(r):
    """what a reader must know beside the ratio: same plan, or parallelism on
    one side only"""
    if r["status"]:
        return "not run" if r["status"].startswith("(not run") else "FAILED" if "FAIL" in r["status"] else "—"
    if r["plan_B"] == "same plan as A":
        return "same plan"
    if r["comparison"] == "executor" and r["plan_A"] and r["plan_A"] == r["plan_B"]:
        return "same plan shape"    # e.g. from EXPLAIN ANALYZE texts, which never match
    wa, wb = workers(r["plan_A"]), workers(r["plan_B"])
    if wa and not wb:
        return "A: %d worker%s" % (wa, "s" if wa > 1 else "")
    if wb and not wa:
        return "B: %d worker%s" % (wb, "s" if wb > 1 else "")
    if re.search(r"parallel build", r["plan_A"]) and not re.search(r"parallel build", r["plan_B"]):
        return "A: parallel build"
    return ""


def log_ticks(xmin, xmax):
    span = math.log2(xmax / xmin)
    if span <= 2.2:
        cand = [0.33, 0.5, 0.67, 0.8, 1, 1.25, 1.5, 2, 3]
    elif span <= 4.5:
        cand = [0.125, 0.25, 0.33, 0.5, 0.67, 1, 1.5, 2, 3, 4, 6, 8]
    else:
        cand = [2.0 ** e for e in range(-10, 11)]
    return [t for t in cand if xmin <= t <= xmax]


def tick_label(t):
    return ("%.2f" % t).rstrip("0").rstrip(".") if t < 1 else "%g" % t


def draw(rows, views, png, title, footnote, gp_dir, xlabel, key=True):
    """rows: [(label, {view: row})] in order; views: the views to draw, in
    order (a bar each per row, a key entry each if key).  Returns True if
    gnuplot wrote png."""
    n, nv = len(rows), len(views)
    vals = [1.0]
    for _, byv in rows:
        for r in byv.values():
            for k in ("ratio", "lo", "hi"):
                if r[k] and r[k] > 0 and not r["status"]:
                    vals.append(r[k])
    xmin, xmax = min(vals) / 1.3, max(vals) * 1.3
    if xmax / xmin < 4:
        c = math.sqrt(xmax * xmin)
        xmin, xmax = min(xmin, c / 2), max(xmax, c * 2)
    if min(vals) < 1 and xmin > 0.5 and math.log2(xmax / xmin) > 4.5:
        xmin = 0.45                     # a tick on the losing side too
    row_h = 16 * nv + 10
    bar_h = 0.8 / nv
    ytics, y2tics, blocks = [], [], []
    for v_i, view in enumerate(views):
        lines = []
        for i, (label, byv) in enumerate(rows):
            y = n - 1 - i
            yv = y + (nv - 1) / 2.0 * bar_h - v_i * bar_h if nv > 1 else y
            r = byv.get(view)
            if r is None:
                continue
            if r["status"] or r["ratio"] is None:
                y2tics.append((yv, marker(r) or "—"))
                continue
            q = r["ratio"]
            lo = r["lo"] if r["lo"] else q
            hi = r["hi"] if r["hi"] else q
            lines.append("%g %g %g %g %g %g %g %g" % (q, yv, min(q, 1.0), max(q, 1.0), yv - bar_h * 0.42,
                                                      yv + bar_h * 0.42, lo, hi))
            mk = marker(r)
            y2tics.append((yv, "%.2f" % q + ("  " + mk if mk else "")))
        blocks.append(lines or ["NaN NaN NaN NaN NaN NaN NaN NaN"])
    for i, (label, _) in enumerate(rows):
        ytics.append((n - 1 - i, label))
    foot = footnote.split("\n")
    tlines = title.count("\n") + 1
    # title, then the key, then the plot; footnote lines under the x axis
    top_px, bottom_px = 16 + 18 * tlines + 44, 62 + 15 * len(foot)
    h = top_px + bottom_px + row_h * n
    longest = max(len(l) for l, _ in rows)
    w = int(max(1000, min(1500, 620 + 6.5 * longest + 6.5 * max(len(t) for _, t in y2tics or [(0, "")]))))
    gp = ["set terminal pngcairo size %d,%d font \"sans,9\" noenhanced" % (w, h),
          "set output %s" % gp_str(png),
          "set label 100 %s at screen 0.5, screen %g center font \",11\""
          % (gp_str(title).replace("\n", "\\n"), 1 - (12 + 9 * tlines) / float(h)),
          "set key at screen 0.5, screen %g center top horizontal samplen 2 width 2"
          % (1 - (24 + 18 * tlines) / float(h)) if key else "unset key",
          "set tmargin at screen %g" % (1 - top_px / float(h)),
          "set bmargin at screen %g" % (bottom_px / float(h)),
          "set logscale x 2",
          "set xrange [%g:%g]" % (xmin, xmax),
          "set yrange [-0.6:%g]" % (n - 0.4),
          "set y2range [-0.6:%g]" % (n - 0.4),
          "set xtics (%s) nomirror" % ", ".join("%s %g" % (gp_str(tick_label(t)), t) for t in log_ticks(xmin, xmax)),
          "set ytics (%s) nomirror scale 0" % ", ".join("%s %g" % (gp_str(l), y) for y, l in ytics),
          "set y2tics (%s) scale 0 font \",8\"" % ", ".join("%s %g" % (gp_str(t), y) for y, t in y2tics),
          "set grid xtics lc rgb \"#dddddd\"",
          "set xlabel %s" % gp_str(xlabel),
          "set arrow from first 1, graph 0 to first 1, graph 1 nohead lc rgb \"#c03030\" lw 1.5 dt 2",
          "set style fill solid 0.85 border lc rgb \"#404040\""]
    for k, line in enumerate(foot):
        gp.append("set label %d %s at screen 0.01, screen %g font \",8\"" % (
            k + 1, gp_str(line), (bottom_px - 55 - 15 * k) / float(h)))
    for v_i, lines in enumerate(blocks):
        gp += ["$D%d << EOD" % v_i] + lines + ["EOD"]
    plots = []
    for v_i, view in enumerate(views):
        name, colour = VIEWS.get(view, (view, "#2f6fad"))
        plots.append("$D%d using 3:2:3:4:5:6 with boxxyerror lc rgb \"%s\" title %s" % (v_i, colour, gp_str(name)))
    for v_i in range(len(views)):
        plots.append("$D%d using 1:2:7:8 with xerrorbars lc rgb \"black\" pt 7 ps 0.4 notitle" % v_i)
    gp.append("plot " + ", \\\n     ".join(plots))
    script = os.path.join(gp_dir, os.path.basename(png) + ".gp")
    with open(script, "w") as f:
        f.write("\n".join(gp) + "\n")
    p = subprocess.run(["gnuplot", script], capture_output=True, text=True)
    if p.returncode != 0:
        print("gnuplot failed for %s: %s" % (png, p.stderr[-2000:]), file=sys.stderr)
        return False
    return True


def footnote_for(mode, comparison, labels, markers):
    text = " ".join(labels)
    ab = [e for pat, e in ABBREVIATIONS if re.search(pat, text)]
    if mode == "cachegrind":
        lines = [SIDES[(mode, comparison)], "Bars start at 1. Right: the ratio of the counts, A/B."]
    else:
        lines = [SIDES[(mode, comparison)],
                 "Bars start at 1; whiskers: min–max of the per-round ratios. Right: the ratio of the medians"
                 + ("; \"same plan\": B ran A's plan (\"shape\": the same joins or scans); \"A: 2 workers\": only "
                      "A's plan was parallel." if markers
                    else ".")]
    line = ""
    for e in ab:
        if line and len(line) + len(e) > 130:
            lines.append(line)
            line = ""
        line += ("; " if line else "") + e
    if line:
        lines.append(line)
    return "\n".join(lines)


def plot_run(run_dir, gp_dir=None):
    """Draws the charts of run_dir from its results.csv (or, in an older
    copy, latest.csv); returns the file names written."""
    path = os.path.join(run_dir, "results.csv")
    if not os.path.exists(path):
        path = os.path.join(run_dir, "latest.csv")
    if not shutil.which("gnuplot"):
        print("gnuplot not found: no charts for %s" % run_dir, file=sys.stderr)
        return []
    rows = read_csv(path)
    info = read_info(os.path.join(run_dir, "results.md"))
    mode = "cachegrind" if any(r["key"].startswith("cg_") for r in rows) else "timed"
    views = [v for v in VIEWS if any(r["view"] == v for r in rows)]
    views += sorted({r["view"] for r in rows} - set(views))
    sub = ", ".join(x for x in ("SCALE=%s" % info["SCALE"] if "SCALE" in info else "",
                                ("medians of %s rounds" % info["ROUNDS"] if info["ROUNDS"] != "1" else "1 round")
                                if "ROUNDS" in info and mode == "timed" else "",
                                info.get("date", ""),
                                "fpbtree %s" % info["fpbtree commit"] if "fpbtree commit" in info else "") if x)
    written = []
    tmp = None
    if gp_dir is None:
        tmp = tempfile.TemporaryDirectory()
        gp_dir = tmp.name
    try:
        for comparison in ("index", "executor"):
            sel = [r for r in rows if r["comparison"] == comparison]
            if not sel:
                continue
            order, byrow = [], {}
            for r in sel:
                if r["key"] not in byrow:
                    order.append(r["key"])
                    byrow[r["key"]] = (chart_label(r["label"]), {})
                byrow[r["key"]][1][r["view"]] = r
            chart_rows = [byrow[k] for k in order]
            png = os.path.join(run_dir, FILES[(mode, comparison)])
            title = TITLES[(mode, comparison)] + ("\n" + sub if sub else "")
            vs = [v for v in views if any(v in b for _, b in chart_rows)]
            xlabel = ("ratio of the counts, log scale: > 1 = B fewer, < 1 = A fewer" if mode == "cachegrind"
                      else "ratio of the medians, log scale: > 1 = B better, < 1 = A better")
            markers = any(marker(r) for _, b in chart_rows for r in b.values() if not r["status"])
            foot = footnote_for(mode, comparison, [l for l, _ in chart_rows], markers)
            if draw(chart_rows, vs, png, title, foot, gp_dir, xlabel, key=mode != "cachegrind"):
                written.append(os.path.basename(png))
    finally:
        if tmp:
            tmp.cleanup()
    return written


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for d in sys.argv[1:]:
        print("%s: %s" % (d, ", ".join(plot_run(d)) or "nothing drawn"))
