#!/usr/bin/env python3
"""fpbtree benchmark: PostgreSQL's btree (side A, the baseline) against
fpbtree (side B) on identical tables in one scratch cluster.

Run through bench/run_bench.sh (`make bench`), which installs what is
missing, builds the extension, starts the cluster and sets the BENCH_*
variables read below.  Standard library only.

Every workload runs in each of the VIEWS (parallel settings: PostgreSQL's
defaults, the headline, and serial), ROUNDS rounds each; in each round
every test runs on A and then on B (A, B, A, B, ...).  The table of a view
reports the median of each side, the ratio of the medians oriented so that
> 1 always means fpbtree is better (baseline/fpbtree for times and sizes,
fpbtree/baseline for TPS), the spread (min-max of the per-round ratios)
and the shape of the plan each side ran.

Adding a workload: write a function returning a Workload (tests with a
measure(side, rnd) callable each) and add it to make_workloads().
"""

import csv
import datetime
import math
import os
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time

import plot                                  # bench/plot.py

# --------------------------------------------------------------- settings

ROOT = os.environ.get("BENCH_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH_DIR = os.path.join(ROOT, "bench")
RESULTS = os.path.join(BENCH_DIR, "results")
# Every run writes a directory of its own under RUNS (gitignored), named
# after its start (UTC) and the commit; committed results are copies of such
# directories made on purpose (see bench/README.md, "Output").
RUNS = os.path.join(RESULTS, "runs")
RUN_DIR = ""                                 # set by main()
RAW = ""                                     # RUN_DIR/raw: pgbench and valgrind logs, plans, gnuplot input

PGBIN = os.environ.get("BENCH_PGBIN", "/usr/lib/postgresql/15/bin")
DATADIR = os.environ.get("BENCH_DATADIR", "")
LOGFILE = os.environ.get("BENCH_LOGFILE", "")
SOCKDIR = os.environ.get("BENCH_SOCKDIR", "")
PORT = os.environ.get("BENCH_PORT", "5432")
RUNAS = shlex.split(os.environ.get("BENCH_RUNAS", ""))
DB = "bench"

DEFAULT_SCALE = 2000000
SCALE = int(os.environ.get("SCALE") or DEFAULT_SCALE)
ROUNDS = int(os.environ.get("ROUNDS") or 3)
DURATION = int(os.environ.get("DURATION") or 10)           # s per pgbench TPS run
RANGE_DURATION = int(os.environ.get("RANGE_DURATION") or max(2, DURATION // 2))
COLD_QUERIES = int(os.environ.get("COLD_QUERIES") or 3)    # per size, side and round
COLD_HEAP_QUERIES = int(os.environ.get("COLD_HEAP_QUERIES") or 2)   # cold heap-fetch queries per side and round
CACHEGRIND = os.environ.get("CACHEGRIND", "0") not in ("", "0", "no", "off")
WORKLOADS_ENV = [w.strip() for w in os.environ.get("WORKLOADS", "").split(",") if w.strip()]
VIEWS_ENV = [v.strip() for v in (os.environ.get("VIEWS") or "default,serial").split(",") if v.strip()]

# The views: every workload runs once per view, with these parallel settings
# (ALTER SYSTEM, so every session, pgbench's and the cold queries' restarts
# included, gets them).  None = PostgreSQL's default (RESET).  "default" is
# what users run and the headline; "serial" is one process per query and per
# CREATE INDEX on both sides.
VIEW_DEFS = {
    "default": ("default parallel settings (the headline)",
                {"max_parallel_workers_per_gather": None, "max_parallel_maintenance_workers": None}),
    "serial": ("serial (max_parallel_workers_per_gather = 0, max_parallel_maintenance_workers = 0)",
               {"max_parallel_workers_per_gather": "0", "max_parallel_maintenance_workers": "0"}),
}
# checked to be at PostgreSQL's built-in defaults unless a view sets them
PARALLEL_GUCS = ["max_parallel_workers_per_gather", "max_parallel_maintenance_workers", "max_parallel_workers",
                 "max_worker_processes", "parallel_setup_cost", "parallel_tuple_cost",
                 "min_parallel_table_scan_size", "min_parallel_index_scan_size", "parallel_leader_participation"]
VIEW = None                                  # the view being run

NPROBES = max(1, min(1000000, SCALE // 10))
HJ_ROWS = int(os.environ.get("HJ_ROWS") or SCALE)                    # rows of hj_a and hj_b
TPCH_ROWS = int(os.environ.get("TPCH_ROWS") or max(1000, SCALE // 2))  # rows of lineitem
GROWN_ROWS = max(1, SCALE // 2)
RANGE_SIZES = [100, 10000, 1000000]

# side A is the baseline
SIDES = [
    {"id": "A", "name": "btree", "s": "bt", "am": "btree"},
    {"id": "B", "name": "fpbtree", "s": "fp", "am": "fpbtree"},
]

FORCE_INDEX = ["enable_seqscan=off", "enable_bitmapscan=off"]
FORCE_NESTLOOP = FORCE_INDEX + ["enable_hashjoin=off", "enable_mergejoin=off", "enable_memoize=off"]

TWO64 = 1 << 64
INT8_MAX = (1 << 63) - 1


class BenchError(Exception):
    pass


def log(msg):
    print(msg, flush=True)


# --------------------------------------------------------------- running

def run(cmd, stdin=None, check=True, env=None, timeout=None):
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=env, timeout=timeout)
    if check and p.returncode != 0:
        raise BenchError("command failed (%d): %s\n--- stdout\n%s\n--- stderr\n%s"
                         % (p.returncode, " ".join(cmd), p.stdout[-4000:], p.stderr[-4000:]))
    return p


def conn_args():
    return ["-h", SOCKDIR, "-p", str(PORT), "-U", "postgres"]


def pg_env(options=None):
    env = dict(os.environ)
    env.pop("PGOPTIONS", None)
    if options:
        env["PGOPTIONS"] = " ".join("-c " + o for o in options)
    return env


def psql(sql, db=DB, options=None):
    """Runs sql (several statements allowed, psql meta-commands too) and
    returns the unaligned, tuples-only output."""
    cmd = [PGBIN + "/psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"] + conn_args() + ["-d", db]
    return run(cmd, stdin=sql, env=pg_env(options)).stdout


def psql_out_err(sql, db=DB, options=None):
    """psql, returning (stdout, stderr): notices and DEBUG messages too."""
    cmd = [PGBIN + "/psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"] + conn_args() + ["-d", db]
    p = run(cmd, stdin=sql, env=pg_env(options))
    return p.stdout, p.stderr


def psql_val(sql, **kw):
    out = psql(sql, **kw).strip().splitlines()
    return out[-1] if out else ""


def parse_times(out):
    return [float(m) for m in re.findall(r"^Time: ([0-9.]+) ms", out, re.M)]


def pgbench(script, clients=1, duration=None, transactions=None, defines=None,
            mode="prepared", seed=1, options=None, tag=""):
    cmd = [PGBIN + "/pgbench", "-n", "-M", mode, "-c", str(clients), "-j", str(clients),
           "--random-seed=%d" % seed, "-f", os.path.join(BENCH_DIR, script)] + conn_args()
    if duration is not None:
        cmd += ["-T", str(duration)]
    else:
        cmd += ["-t", str(transactions)]
    for k, v in (defines or {}).items():
        cmd += ["-D", "%s=%s" % (k, v)]
    cmd.append(DB)
    p = run(cmd, check=False, env=pg_env(options))
    with open(os.path.join(RAW, "pgbench.log"), "a") as f:
        f.write("### %s %s\n%s\n%s\n" % (tag, " ".join(cmd), p.stdout, p.stderr))
    if p.returncode != 0 or "aborted" in p.stderr:
        raise BenchError("pgbench failed (%s, rc %d):\n%s" % (script, p.returncode, p.stderr[-3000:]))
    tps = re.search(r"^tps = ([0-9.]+) \(without initial connection time\)", p.stdout, re.M)
    lat = re.search(r"^latency average = ([0-9.]+) ms", p.stdout, re.M)
    failed = re.search(r"^number of failed transactions: (\d+)", p.stdout, re.M)
    if not tps or not lat:
        raise BenchError("cannot parse pgbench output:\n" + p.stdout)
    if failed and int(failed.group(1)) != 0:
        raise BenchError("pgbench: %s failed transactions (%s)" % (failed.group(1), script))
    return {"tps": float(tps.group(1)), "lat_ms": float(lat.group(1))}


# ---------------------------------------------------------------- server

def pg_ctl(*args):
    return run(RUNAS + [PGBIN + "/pg_ctl", "-D", DATADIR, "-w"] + list(args))


def server_stop():
    pg_ctl("-m", "fast", "stop")


def server_start():
    pg_ctl("-l", LOGFILE, "start")


def server_restart():
    server_stop()
    server_start()


def set_view(name):
    """Switches the cluster to view name's parallel settings (ALTER SYSTEM,
    reload) and waits until a new session sees them."""
    global VIEW
    sets = VIEW_DEFS[name][1]
    psql("".join("ALTER SYSTEM RESET %s;\n" % k if v is None else "ALTER SYSTEM SET %s = %s;\n" % (k, v)
                 for k, v in sets.items()) + "SELECT pg_reload_conf();", db="postgres")
    q = "SELECT name, setting, boot_val FROM pg_settings WHERE name IN (%s);" % ",".join(
        "'%s'" % g for g in PARALLEL_GUCS)
    deadline = time.time() + 30
    while True:
        got = {}
        for line in psql(q, db="postgres").splitlines():
            if line.strip():
                k, v, boot = line.split("|")
                got[k] = (v, boot)
        wrong = [k for k in PARALLEL_GUCS
                 if got.get(k, (None, None))[0] != (sets.get(k) or got.get(k, (None, None))[1])]
        if not wrong:
            break
        if time.time() > deadline:
            raise BenchError("view %s: %s not in force (got %s)" % (name, ", ".join(wrong), got))
        time.sleep(0.2)
    VIEW = name


def serial_view():
    """One process per query: the strict plan checks apply (PrefetchHashJoin
    must be chosen, or forced, where the workload is about it)."""
    return VIEW_DEFS[VIEW][1]["max_parallel_workers_per_gather"] == "0"


_drop_caches_ok = None


def drop_os_cache():
    """sync; echo 3 > /proc/sys/vm/drop_caches.  Returns True if it worked."""
    global _drop_caches_ok
    os.sync()
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        ok = True
    except OSError:
        ok = False
    if _drop_caches_ok is None:
        _drop_caches_ok = ok
        if not ok:
            log("  cold: cannot write /proc/sys/vm/drop_caches: OS cache NOT dropped "
                "(only shared_buffers is cold)")
    else:
        _drop_caches_ok = _drop_caches_ok and ok
    return ok


# ------------------------------------------------------------ data set-up

def tbl(side, suffix=""):
    return "keys_%s%s" % (side["s"], suffix)


def idx(side, suffix=""):
    return "keys_%s%s_a_idx" % (side["s"], suffix)


_made = set()


# Set-up sessions commit synchronously: VACUUM cannot mark a page all-visible
# while its inserter's commit record may still be unflushed (async commit), and
# index-only scans need all-visible pages.  They load serially whatever the
# view, so the tables are built the same way whichever view runs first.
SETUP = ["synchronous_commit=on", "max_parallel_workers_per_gather=0", "max_parallel_maintenance_workers=0"]


def ensure_base():
    """keys_bt / keys_fp: a = hashint8extended(i, 0), i = 1..SCALE, loaded in
    the same order, one index each, vacuumed so index-only scans need no
    heap visits."""
    if "base" in _made:
        return
    for side in SIDES:
        t0 = time.time()
        psql("""
DROP TABLE IF EXISTS {t};
CREATE TABLE {t} (a int8) WITH (autovacuum_enabled = off);
INSERT INTO {t} SELECT hashint8extended(i, 0) FROM generate_series(1, {n}) AS i;
CREATE INDEX {i} ON {t} USING {am} (a);
VACUUM (ANALYZE) {t};
""".format(t=tbl(side), i=idx(side), am=side["am"], n=SCALE), options=SETUP)
        log("  loaded %s: %d rows, %s index, %.1f s" % (tbl(side), SCALE, side["am"], time.time() - t0))
    # same rows in the same physical order on both sides
    chk = psql_val("""
SELECT count(*) FROM (SELECT ctid, a FROM keys_bt WHERE ctid < '(200,0)'
                      EXCEPT SELECT ctid, a FROM keys_fp WHERE ctid < '(200,0)') d;""")
    if chk != "0":
        raise BenchError("keys_bt and keys_fp differ in their first pages")
    psql("CHECKPOINT;")
    for side in SIDES:
        check_plan("SELECT count(*) FROM %s WHERE a >= %s" % (tbl(side), lit(-INT8_MAX - 1)),
                   ["Index Only Scan using %s on %s" % (idx(side), tbl(side))], FORCE_INDEX,
                   analyze=True)
        n = int(psql_val("SELECT count(*) FROM %s WHERE a >= %s;" % (tbl(side), lit(-INT8_MAX - 1)),
                         options=FORCE_INDEX))
        if n != SCALE:
            raise BenchError("full index-only scan of %s returned %d entries, expected %d"
                             % (idx(side), n, SCALE))
    _made.add("base")


def ensure_probes():
    if "probes" in _made:
        return
    ensure_base()
    psql("""
DROP TABLE IF EXISTS probes;
CREATE TABLE probes (k int8) WITH (autovacuum_enabled = off);
INSERT INTO probes
  SELECT hashint8extended(1 + (hashint8extended(g, 42) & 9223372036854775807) % {n}, 0)
  FROM generate_series(1, {p}) AS g;
VACUUM (ANALYZE) probes;
CHECKPOINT;
""".format(n=SCALE, p=NPROBES), options=SETUP)
    _made.add("probes")


_grow_ms = {}


def ensure_grown():
    """keys_bt_grown / keys_fp_grown: GROWN_ROWS keys inserted one by one in
    random order into a table whose index already exists, so leaves split
    all over the place and end up scattered in the file.  Each row carries a
    50-byte payload (pad) for the cold heap-fetch test: the heap is in
    insertion (random) order, uncorrelated with the key order."""
    if "grown" in _made:
        return
    for side in SIDES:
        out = psql("""
DROP TABLE IF EXISTS {t};
CREATE TABLE {t} (a int8, pad text) WITH (autovacuum_enabled = off);
CREATE INDEX {i} ON {t} USING {am} (a);
CHECKPOINT;
\\timing on
INSERT INTO {t} SELECT hashint8extended(i, 0), {pad} FROM generate_series(1, {n}) AS i
  ORDER BY hashint8extended(i, 7);
\\timing off
VACUUM (ANALYZE) {t};
""".format(t=tbl(side, "_grown"), i=idx(side, "_grown"), am=side["am"], n=GROWN_ROWS, pad=PAD_EXPR),
            options=SETUP)
        _grow_ms[side["id"]] = parse_times(out)[-1]
        log("  grew %s: %d random-order inserts, %.1f s" % (tbl(side, "_grown"), GROWN_ROWS,
                                                          _grow_ms[side["id"]] / 1000.0))
    psql("CHECKPOINT;")
    _made.add("grown")


def ensure_grown_narrow():
    """keys_bt_narrow / keys_fp_narrow: the keys of keys_*_grown alone (no
    payload), inserted in the same random order (that table's heap order)
    into a table whose index already exists.  The grown table's heap spans
    two visibility-map pages, and with its rows in random order an
    index-only scan's visibility check switches VM page on about every
    other row (a buffer release and lookup each: ~0.5M per 10^6 entries, on
    both sides); this heap fits one VM page, so the cold index-only count
    measures the index rather than that executor cost."""
    if "narrow" in _made:
        return
    ensure_grown()
    for side in SIDES:
        psql("""
DROP TABLE IF EXISTS {t};
CREATE TABLE {t} (a int8) WITH (autovacuum_enabled = off);
CREATE INDEX {i} ON {t} USING {am} (a);
INSERT INTO {t} SELECT a FROM {g};
VACUUM (ANALYZE) {t};
""".format(t=tbl(side, "_narrow"), i=idx(side, "_narrow"), am=side["am"], g=tbl(side, "_grown")),
             options=SETUP)
    psql("CHECKPOINT;")
    log("  made keys_*_narrow from keys_*_grown")
    _made.add("narrow")


# 50 bytes per row: 32 hex digits and the row number, zero-padded to 18
PAD_EXPR = "md5(i::text) || lpad(i::text, 18, '0')"
PAD_LEN = 50
WARM_ROWS = 1000


def warm_tbl(side):
    return "warm_%s" % side["s"]


def ensure_warm_tables():
    """warm_bt / warm_fp: WARM_ROWS rows with an index of the side's access
    method.  Before a timed cold query the driver runs one query of the same
    shape on the side's warm table (untimed, same connection): that loads
    what a backend loads once per access method -- the opclass support
    functions (fpbtree's are C functions looked up in pg_proc on first use;
    btree's are built in), the AM's code paths, the relcache machinery --
    without touching a single page of the measured index or table."""
    if "warm" in _made:
        return
    for side in SIDES:
        psql("""
DROP TABLE IF EXISTS {t};
CREATE TABLE {t} (a int8, pad text) WITH (autovacuum_enabled = off);
INSERT INTO {t} SELECT hashint8extended(i, 5), {pad} FROM generate_series(1, {n}) AS i;
CREATE INDEX {t}_a_idx ON {t} USING {am} (a);
VACUUM (ANALYZE) {t};
""".format(t=warm_tbl(side), am=side["am"], n=WARM_ROWS, pad=PAD_EXPR), options=SETUP)
    psql("CHECKPOINT;")
    _made.add("warm")


# the warm tables' query range: about half of their rows
WARM_LO, WARM_HI = -(1 << 62), 1 << 62


def ensure_ins():
    """keys_bt_ins / keys_fp_ins: copies of keys_bt for the insert workload,
    so that the read workloads' tables stay unchanged."""
    if "ins" in _made:
        return
    for side in SIDES:
        psql("""
DROP TABLE IF EXISTS {t};
CREATE TABLE {t} (a int8) WITH (autovacuum_enabled = off);
INSERT INTO {t} SELECT hashint8extended(i, 0) FROM generate_series(1, {n}) AS i;
CREATE INDEX {i} ON {t} USING {am} (a);
VACUUM (ANALYZE) {t};
""".format(t=tbl(side, "_ins"), i=idx(side, "_ins"), am=side["am"], n=SCALE), options=SETUP)
    psql("CHECKPOINT;")
    _made.add("ins")


def check_plan(sql, needles, options, analyze=False):
    """EXPLAIN sql and fail loudly unless every needle is in the plan."""
    what = "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) " if analyze else "EXPLAIN (COSTS OFF) "
    plan = psql(what + sql + ";", options=options)
    missing = [n for n in needles if n not in plan]
    if analyze and "Heap Fetches:" in plan and not re.search(r"Heap Fetches: 0\b", plan):
        missing.append("Heap Fetches: 0")
    if missing:
        raise BenchError("unexpected plan for: %s\nwanted: %s\ngot:\n%s" % (sql, missing, plan))
    return plan


def plan_shape(plan):
    """A short description of an EXPLAIN text: its join nodes (or, without
    joins, its scans), Buffer nodes and the workers planned, e.g. "Parallel
    Hash Join (2 workers)", "PrefetchHashJoin", "Index Only Scan".  Lines
    that are not plan nodes (query results, timings) are ignored."""
    names, workers = [], 0
    for line in plan.splitlines():
        t = line.strip()
        mw = re.match(r"Workers Planned: (\d+)", t)
        if mw:
            workers = max(workers, int(mw.group(1)))
            continue
        if t.startswith("->"):
            t = t[2:].strip()
        elif line[:1] == " " or not t or re.match(r"[A-Za-z][\w ]*:", t):
            continue                    # a node's property, "Planning Time:", "Time:"
        mc = re.match(r"Custom Scan \((\w+)\)", t)
        names.append(mc.group(1) if mc else re.split(r" on | using | \(", t)[0].strip())
    joins = [n for n in names if n.endswith("Join") or n == "Nested Loop"]
    keep = joins or [n for n in names if n.endswith("Scan")]
    parts = []
    for n in dict.fromkeys(keep):
        c = keep.count(n)
        parts.append("%s ×%d" % (n, c) if c > 1 else n)
    nbuf = names.count("Buffer")
    if nbuf:
        parts.append("Buffer ×%d" % nbuf if nbuf > 1 else "Buffer")
    out = ", ".join(parts) or "?"
    return out + (" (%d worker%s)" % (workers, "s" if workers > 1 else "") if workers else "")


SAME_PLAN = "same plan as A"


def note_shape(metrics, sid, shape):
    """Records that side sid ran a plan of this shape for metrics (a Metric
    or a list of them)."""
    for m in metrics if isinstance(metrics, list) else [metrics]:
        if shape not in m.plans[sid]:
            m.plans[sid].append(shape)


def note_plan(metrics, sid, plan):
    """Records plan's shape; the whole text goes to raw/plans_<view>.txt."""
    keys = " ".join(m.key for m in (metrics if isinstance(metrics, list) else [metrics]))
    with open(os.path.join(RAW, "plans_%s.txt" % (VIEW or "none")), "a") as f:
        f.write("### %s, side %s\n%s\n" % (keys, sid, plan.strip()))
    note_shape(metrics, sid, plan_shape(plan))


def note_plans(metrics, pa, pb):
    """A's and B's plans of one query; B's is "same plan as A" when the two
    EXPLAIN texts are identical."""
    note_plan(metrics, "A", pa)
    if pa.strip() == pb.strip():
        note_shape(metrics, "B", SAME_PLAN)
    else:
        note_plan(metrics, "B", pb)


def warm(side, suffix=""):
    """Reads the whole index and the visibility map into shared_buffers."""
    psql("SELECT count(*) FROM %s WHERE a >= %s;" % (tbl(side, suffix), lit(-INT8_MAX - 1)), options=FORCE_INDEX)


def prepared_range_plan(side, n, rows):
    """The plan pgbench -M prepared runs for range_count_*.sql: PREPARE,
    six EXECUTEs over ranges of about n entries (after five the plan cache
    weighs the generic plan against the custom ones, as in pgbench's
    session), then EXPLAIN EXECUTE.  Fails unless it scans the side's index."""
    rs = random_ranges(99 + n, n, rows, 7)
    sql = "PREPARE rq(int8, int8) AS SELECT count(*) AS c FROM %s WHERE a >= $1 AND a < $2;\n" % tbl(side)
    sql += "".join("EXECUTE rq(%s, %s);\n" % (lit(lo), lit(hi)) for lo, hi in rs[:6])
    sql += "\\echo ====\nEXPLAIN (COSTS OFF) EXECUTE rq(%s, %s);\n" % (lit(rs[6][0]), lit(rs[6][1]))
    plan = psql(sql, options=FORCE_INDEX).split("====", 1)[1]
    if "Index Only Scan using %s" % idx(side) not in plan:
        raise BenchError("prepared range count on %s: unexpected plan:\n%s" % (tbl(side), plan))
    return plan


def range_width(n, rows):
    # capped so that pgbench (int64 arithmetic) can hold it: half the table
    return min(n * TWO64 // rows, INT8_MAX)


def lit(v):
    """An int8 literal (a bare -9223372036854775808 would be numeric)."""
    return "'%d'::int8" % v


def range_sizes(rows):
    out = []
    for n in RANGE_SIZES:
        n = min(n, max(1, rows // 2))
        if n not in out:
            out.append(n)
    return out


def size_label(n):
    e = math.log10(n)
    return "10^%d" % round(e) if abs(e - round(e)) < 1e-9 else "%d" % n


def random_ranges(seed, n, rows, count):
    """count deterministic random [lo, hi) ranges of about n entries."""
    w = range_width(n, rows)
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        lo = rng.randint(-INT8_MAX, INT8_MAX - w)
        out.append((lo, lo + w))
    return out


def count_ok(c, n):
    return abs(c - n) <= 6 * math.sqrt(n) + 10


# ------------------------------------------------------------ the workloads

class Metric:
    def __init__(self, key, label, unit, better):
        self.key, self.label, self.unit, self.better = key, label, unit, better
        self.note = ""
        self.values = {"A": [], "B": []}
        self.plans = {"A": [], "B": []}   # shapes of the plans each side ran (plan_shape)
        self.status = ""           # "", "FAILED: ...", or a pending note
        self.comparison = "index"  # "index": btree vs fpbtree; "executor": feature off vs on


class Test:
    """One measurement, taken on A then on B in every round; measure(side,
    rnd) returns {metric key: value}."""

    def __init__(self, measure, metrics):
        self.measure, self.metrics = measure, metrics


class Workload:
    def __init__(self, key, title, prepare=None, tests=(), metrics=(), pending=None, comparison="index"):
        self.key, self.title, self.prepare = key, title, prepare
        self.tests = list(tests)
        self.metrics = list(metrics)      # every metric the workload reports, in order
        self.pending = pending            # why the workload is not implemented yet
        self.skip = None                  # set by prepare(): why the rounds are not run
        for m in self.metrics:
            m.comparison = comparison


def wl_point():
    ms = {c: Metric("point_c%d" % c, "point lookup, %d client%s" % (c, "s" if c > 1 else ""),
                    "TPS", "higher") for c in (1, 2)}

    def prepare():
        ensure_base()
        for side in SIDES:
            plan = check_plan("SELECT a FROM %s WHERE a = hashint8extended(12345 %% %d + 1, 0)" % (tbl(side), SCALE),
                              ["Index Only Scan using %s on %s" % (idx(side), tbl(side))], None)
            note_plan([ms[1], ms[2]], side["id"], plan)
            warm(side)

    def test(c):
        def measure(side, rnd):
            r = pgbench("point_select_%s.sql" % side["s"], clients=c, duration=DURATION,
                        defines={"scale": SCALE}, seed=1000 * rnd + c, tag="point c%d %s" % (c, side["id"]))
            return {ms[c].key: r["tps"]}
        return Test(measure, [ms[c]])

    return Workload("point", "point lookups", prepare, [test(1), test(2)], [ms[1], ms[2]])


def wl_probe():
    m = Metric("probe", "index nested-loop join, %d probes" % NPROBES, "ms", "lower")

    def prepare():
        ensure_probes()
        for side in SIDES:
            # substrings: a Parallel Seq Scan on probes under a Gather passes too
            plan = check_plan("SELECT count(*) FROM probes p JOIN %s t ON t.a = p.k" % tbl(side),
                              ["Nested Loop", "Seq Scan on probes p",
                               "Index Only Scan using %s on %s t" % (idx(side), tbl(side))],
                              FORCE_NESTLOOP, analyze=True)
            note_plan(m, side["id"], plan)
            n = int(psql_val("SELECT count(*) FROM probes p JOIN %s t ON t.a = p.k;" % tbl(side),
                             options=FORCE_NESTLOOP))
            if n != NPROBES:
                raise BenchError("probe join on %s found %d of %d keys" % (tbl(side), n, NPROBES))
            warm(side)

    def measure(side, rnd):
        r = pgbench("probe_join.sql", transactions=3, mode="simple", defines={"tbl": tbl(side)},
                    seed=rnd, tag="probe " + side["id"])
        return {m.key: r["lat_ms"]}

    return Workload("probe", "index nested-loop probes", prepare, [Test(measure, [m])], [m])


def wl_range():
    sizes = range_sizes(SCALE)
    ms = {n: Metric("range_%d" % n, "range count %s entries, warm" % size_label(n), "ms/query", "lower")
          for n in sizes}

    def prepare():
        ensure_base()
        for side in SIDES:
            warm(side)
        # the same deterministic ranges on both sides: identical counts, each
        # close to its expectation, through an index-only scan with no heap fetch
        for n in sizes:
            for lo, hi in random_ranges(77 + n, n, SCALE, 5) + [(-INT8_MAX - 1, -INT8_MAX - 1 + range_width(n, SCALE))]:
                q = "SELECT count(*) FROM {t} WHERE a >= %s AND a < %s" % (lit(lo), lit(hi))
                counts = []
                for side in SIDES:
                    check_plan(q.format(t=tbl(side)), ["Index Only Scan using %s" % idx(side)],
                               FORCE_INDEX, analyze=True)
                    counts.append(int(psql_val(q.format(t=tbl(side)) + ";", options=FORCE_INDEX)))
                if counts[0] != counts[1]:
                    raise BenchError("range [%d, %d): btree counts %d, fpbtree %d" % (lo, hi, counts[0], counts[1]))
                if not count_ok(counts[0], n):
                    raise BenchError("range [%d, %d): count %d far from the expected %d" % (lo, hi, counts[0], n))
            for side in SIDES:
                note_plan(ms[n], side["id"], prepared_range_plan(side, n, SCALE))

    def test(n):
        def measure(side, rnd):
            r = pgbench("range_count_%s.sql" % side["s"], duration=RANGE_DURATION,
                        defines={"w": range_width(n, SCALE), "n": n}, seed=3000 * rnd + n,
                        options=FORCE_INDEX, tag="range %d %s" % (n, side["id"]))
            return {ms[n].key: r["lat_ms"]}
        return Test(measure, [ms[n]])

    return Workload("range", "index-only range counts, warm", prepare, [test(n) for n in sizes],
                    [ms[n] for n in sizes])


_cold_counts = {}


def cold_query(side, sql, warm_sql, plan_needle):
    """One cold query: server restart (empty shared_buffers), OS page cache
    dropped, then in one new connection, untimed: EXPLAIN (loads the
    catalogs, checks the plan) and warm_sql (the same query shape on the
    side's tiny warm table, see ensure_warm_tables); then sql, timed.
    Returns (ms, the last output line, the whole output: the plan and the
    results)."""
    server_restart()
    drop_os_cache()
    out = psql("EXPLAIN (COSTS OFF) %s;\n%s;\n\\timing on\n%s;\n" % (sql, warm_sql, sql), options=FORCE_INDEX)
    if plan_needle not in out:
        raise BenchError("cold query: unexpected plan (wanted %s):\n%s" % (plan_needle, out))
    rows = [ln.strip() for ln in out.splitlines() if re.fullmatch(r"-?\d+(\|-?\d+)*", ln.strip())]
    return parse_times(out)[-1], rows[-1], out


def heap_n():
    """entries of the cold heap-fetch test: 100k, clipped to SCALE/10 and to
    half the grown table"""
    return max(1, min(100000, SCALE // 10, GROWN_ROWS // 2))


def wl_cold():
    sizes = range_sizes(GROWN_ROWS)
    ms = {n: Metric("cold_%d" % n, "range count %s entries, cold" % size_label(n), "ms/query", "lower")
          for n in sizes}
    hn = heap_n()
    mheap = Metric("cold_heap", "index scan fetching %s heap rows (random heap order), cold" % size_label(hn),
                   "ms/query", "lower")
    msize = Metric("size_grown", "index size after %d random-order inserts" % GROWN_ROWS, "MB", "lower")

    mgrow = Metric("grow_time", "INSERT ... SELECT of %d keys in random order (one run)" % GROWN_ROWS,
                   "ms", "lower")
    mgrow.note = "(timed once, when the tables are made: the same in every view)"
    nbig = sizes[-1]
    mnarrow = Metric("cold_narrow_%d" % nbig, "range count %s entries, cold, int8-only table (heap in one "
                     "visibility-map page)" % size_label(nbig), "ms/query", "lower")

    def prepare():
        ensure_grown()
        ensure_grown_narrow()
        ensure_warm_tables()
        for side in SIDES:
            mb = int(psql_val("SELECT pg_relation_size('%s');" % idx(side, "_grown"))) / 1048576.0
            msize.values[side["id"]].append(mb)
            if side["id"] in _grow_ms:
                mgrow.values[side["id"]].append(_grow_ms[side["id"]])
            # the warm-up queries use the warm tables' indexes the same way
            check_plan("SELECT count(*) FROM %s WHERE a >= %s AND a < %s"
                       % (warm_tbl(side), lit(WARM_LO), lit(WARM_HI)),
                       ["Index Only Scan using %s_a_idx" % warm_tbl(side)], FORCE_INDEX, analyze=True)
            check_plan("SELECT count(*), sum(length(pad)) FROM (SELECT * FROM %s WHERE a >= %s AND a < %s) s"
                       % (warm_tbl(side), lit(WARM_LO), lit(WARM_HI)),
                       ["Index Scan using %s_a_idx" % warm_tbl(side)], FORCE_INDEX)

    def test(n, suffix="_grown", metric=None):
        metric = metric or ms[n]

        def measure(side, rnd):
            times = []
            t = tbl(side, suffix)
            for qi, (lo, hi) in enumerate(random_ranges(5000 * rnd + n, n, GROWN_ROWS, COLD_QUERIES)):
                q = "SELECT count(*) FROM %s WHERE a >= %s AND a < %s" % (t, lit(lo), lit(hi))
                wq = "SELECT count(*) FROM %s WHERE a >= %s AND a < %s" % (warm_tbl(side), lit(WARM_LO),
                                                                         lit(WARM_HI))
                tm, last, out = cold_query(side, q, wq, "Index Only Scan using %s" % idx(side, suffix))
                note_plan(metric, side["id"], out)
                cnt = int(last)
                if not count_ok(cnt, n):
                    raise BenchError("cold range [%d, %d) on %s: count %d far from the expected %d"
                                     % (lo, hi, t, cnt, n))
                key = (rnd, n, qi, suffix)
                if key in _cold_counts and _cold_counts[key] != cnt:
                    raise BenchError("cold range [%d, %d): btree counts %d, fpbtree %d"
                                     % (lo, hi, _cold_counts[key], cnt))
                _cold_counts[key] = cnt
                times.append(tm)
            return {metric.key: statistics.mean(times)}
        return Test(measure, [metric])

    def measure_heap(side, rnd):
        times = []
        t = tbl(side, "_grown")
        shape = "SELECT count(*), sum(length(pad)) FROM (SELECT * FROM %s WHERE a >= %s AND a < %s) s"
        for qi, (lo, hi) in enumerate(random_ranges(7000 * rnd + hn, hn, GROWN_ROWS, COLD_HEAP_QUERIES)):
            tm, last, out = cold_query(side, shape % (t, lit(lo), lit(hi)),
                                       shape % (warm_tbl(side), lit(WARM_LO), lit(WARM_HI)),
                                       "Index Scan using %s" % idx(side, "_grown"))
            note_plan(mheap, side["id"], out)
            cnt, total = [int(x) for x in last.split("|")]
            if not count_ok(cnt, hn) or total != PAD_LEN * cnt:
                raise BenchError("cold heap fetch [%d, %d) on %s: %d rows, %d payload bytes (expected about "
                                 "%d rows of %d bytes)" % (lo, hi, t, cnt, total, hn, PAD_LEN))
            key = (rnd, "heap", qi)
            if key in _cold_counts and _cold_counts[key] != (cnt, total):
                raise BenchError("cold heap fetch [%d, %d): btree %s, fpbtree %s"
                                 % (lo, hi, _cold_counts[key], (cnt, total)))
            _cold_counts[key] = (cnt, total)
            times.append(tm)
        return {mheap.key: statistics.mean(times)}

    return Workload("cold", "index range scans, cold, on randomly grown tables", prepare,
                    [test(n) for n in sizes] + [test(nbig, "_narrow", mnarrow), Test(measure_heap, [mheap])],
                    [ms[n] for n in sizes] + [mnarrow, mheap, msize, mgrow])


def wl_insert():
    ms = {c: Metric("insert_c%d" % c, "insert random keys, %d client%s" % (c, "s" if c > 1 else ""),
                    "TPS", "higher") for c in (1, 2)}

    def prepare():
        ensure_ins()
        for side in SIDES:
            warm(side, "_ins")

    def test(c):
        def measure(side, rnd):
            psql("CHECKPOINT;")
            r = pgbench("insert_%s.sql" % side["s"], clients=c, duration=DURATION,
                        seed=2000 * rnd + c, tag="insert c%d %s" % (c, side["id"]))
            return {ms[c].key: r["tps"]}
        return Test(measure, [ms[c]])

    return Workload("insert", "inserts", prepare, [test(1), test(2)], [ms[1], ms[2]])


def wl_createindex():
    mt = Metric("ci_time", "CREATE INDEX, %d rows" % SCALE, "ms", "lower")
    ms = Metric("ci_size", "index size after CREATE INDEX", "MB", "lower")

    def prepare():
        ensure_base()

    def measure(side, rnd):
        # always on keys_bt: the same table for both access methods
        psql("DROP INDEX IF EXISTS ci_tmp; CHECKPOINT;")
        # index_build() says at DEBUG1 whether it builds serially or asks for
        # parallel workers (only btree can, and only where the view allows)
        out, err = psql_out_err("SET client_min_messages = debug1;\n\\timing on\n"
                                "CREATE INDEX ci_tmp ON keys_bt USING %s (a);\n" % side["am"])
        mb = re.search(r'building index "ci_tmp" on table "keys_bt" (serially|with request for (\d+) parallel '
                       r'workers)', err)
        if not mb:
            raise BenchError("CREATE INDEX: no build message at DEBUG1:\n" + err[-2000:])
        note_shape([mt, ms], side["id"], "serial build" if mb.group(1) == "serially"
                   else "parallel build (%s workers requested)" % mb.group(2))
        size = int(psql_val("SELECT pg_relation_size('ci_tmp');"))
        psql("DROP INDEX ci_tmp;")
        return {mt.key: parse_times(out)[-1], ms.key: size / 1048576.0}

    return Workload("createindex", "CREATE INDEX", prepare, [Test(measure, [mt, ms])], [mt, ms])


# ------------------------------------------------- executor workloads
#
# For these A and B are one cluster and one set of tables; A runs with the
# feature off, B with it on (SET in the timed session).

def timed_sql(sql, sets=()):
    """Runs sql once in a new session after the SETs, timed by psql's
    \\timing; returns (ms, the result rows as text)."""
    pre = "".join("SET %s;\n" % s for s in sets)
    out = psql(pre + "\\timing on\n" + sql + ";\n")
    tm = parse_times(out)
    if not tm:
        raise BenchError("no timing for: %s\n%s" % (sql, out))
    res = "\n".join(l for l in out.splitlines() if l.strip() and not l.startswith("Time: "))
    return tm[-1], res


def explain(sql, sets=(), analyze=False):
    pre = "".join("SET %s;\n" % s for s in sets)
    what = "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) " if analyze else "EXPLAIN (COSTS OFF) "
    return psql(pre + what + sql + ";\n")


def prewarm(*tables):
    psql("CREATE EXTENSION IF NOT EXISTS pg_prewarm;\n" +
         "".join("SELECT pg_prewarm('%s');\n" % t for t in tables))


def check_same(store, key, side, res, what):
    """Within a round, B must return what A returned."""
    if side["id"] == "A":
        store[key] = res
    elif store.get(key) != res:
        raise BenchError("%s: A returned %r, B returned %r" % (what, store.get(key), res))


HJ_SMALL_ROWS = max(1, min(100000, HJ_ROWS))
HJ_BASE = ["work_mem = '1GB'"]          # parallel settings: the view's
HJ_LARGE = "SELECT count(*), sum(a.v + b.v) FROM hj_a a JOIN hj_b b ON a.k = b.k"
HJ_SMALL = "SELECT count(*), sum(s.v + a.v) FROM hj_small s JOIN hj_a a ON s.k = a.k"
HJ_NODE = "Custom Scan (PrefetchHashJoin)"


def hj_sets(side, extra=()):
    return HJ_BASE + ["enable_prefetch_hashjoin = %s" % ("off" if side["id"] == "A" else "on")] + list(extra)


def hj_spill_kb():
    """a tenth of what the built-in join's inner side needs (about 600 MB for
    10M rows of two int8): 64 MB at HJ_ROWS = 10M, proportionally less"""
    return max(64, 65536 * HJ_ROWS // 10000000)


def ensure_hj():
    """hj_a, hj_b: HJ_ROWS rows (k, v), k random in 0..HJ_ROWS-1 (each probe
    matches about once); hj_small: the first HJ_SMALL_ROWS rows of hj_a."""
    if "hj" in _made:
        return
    t0 = time.time()
    psql("""
DROP TABLE IF EXISTS hj_a, hj_b, hj_small;
CREATE TABLE hj_a (k int8, v int8) WITH (autovacuum_enabled = off);
CREATE TABLE hj_b (k int8, v int8) WITH (autovacuum_enabled = off);
INSERT INTO hj_a SELECT (hashint8extended(i, 1) & 9223372036854775807) % {n}, i FROM generate_series(1, {n}) AS i;
INSERT INTO hj_b SELECT (hashint8extended(i, 2) & 9223372036854775807) % {n}, i FROM generate_series(1, {n}) AS i;
CREATE TABLE hj_small WITH (autovacuum_enabled = off) AS SELECT k, v FROM hj_a WHERE v <= {s};
VACUUM (ANALYZE) hj_a, hj_b, hj_small;
CHECKPOINT;
""".format(n=HJ_ROWS, s=HJ_SMALL_ROWS), options=SETUP)
    log("  loaded hj_a, hj_b (%d rows each), hj_small (%d rows): %.1f s"
        % (HJ_ROWS, HJ_SMALL_ROWS, time.time() - t0))
    _made.add("hj")


def prepare_hj():
    """the hash-join tables, read into shared_buffers (again after a view
    change or the cold workload's restarts)"""
    ensure_hj()
    prewarm("hj_a", "hj_b", "hj_small")


def hj_check_plans(sql, sets_extra=(), require_b=True):
    """EXPLAINs sql on A (enable_prefetch_hashjoin off) and B (on) with
    sets_extra; returns (whether B's plan has PrefetchHashJoin, A's plan,
    B's plan).  A must not have it.  In the serial view A must be a built-in
    Hash Join and B PrefetchHashJoin (if require_b) or a Hash Join; at
    parallel settings whatever the planner chooses is accepted (a Parallel
    Hash Join, say) and recorded."""
    pa = explain(sql, hj_sets(SIDES[0], sets_extra))
    if HJ_NODE in pa or (serial_view() and "Hash Join" not in pa):
        raise BenchError("A (enable_prefetch_hashjoin off): expected a Hash Join:\n" + pa)
    pb = explain(sql, hj_sets(SIDES[1], sets_extra))
    chosen = HJ_NODE in pb
    if require_b and not chosen:
        raise BenchError("B (enable_prefetch_hashjoin on): expected %s:\n%s" % (HJ_NODE, pb))
    if serial_view() and not chosen and "Hash Join" not in pb:
        raise BenchError("B: neither PrefetchHashJoin nor Hash Join:\n" + pb)
    return chosen, pa, pb


NOT_EVEN_FORCED = "PrefetchHashJoin not chosen, not even with fpbtree.hashjoin_cache_size = 0"


def hj_choose(sql, extra, extra_b, what):
    """The plans of a join workload: B as the planner chooses it; if that is
    not PrefetchHashJoin, B forced with fpbtree.hashjoin_cache_size = 0
    (appended to extra_b).  The serial view requires the node then; at
    parallel settings the planner may still prefer another join.  Returns
    (A's plan, B's plan, a note for the row or "")."""
    chosen, pa, pb = hj_check_plans(sql, extra + extra_b, require_b=False)
    if chosen:
        return pa, pb, ""
    extra_b.extend(HJ_FORCE)
    chosen, pa, pb = hj_check_plans(sql, extra + extra_b, require_b=serial_view())
    log("  %s: PrefetchHashJoin not chosen by the cost model; %s" % (what, "forced" if chosen else NOT_EVEN_FORCED))
    return pa, pb, ("not chosen by the cost model here; B forced with fpbtree.hashjoin_cache_size = 0"
                    if chosen else NOT_EVEN_FORCED)


def hj_count_ok(res, lo):
    try:
        cnt = int(res.split("|")[0])
    except (ValueError, IndexError):
        raise BenchError("hash join: cannot parse result %r" % res)
    if cnt < lo:
        raise BenchError("hash join returned %d rows, expected at least %d" % (cnt, lo))


def wl_hashjoin_large():
    m = Metric("hj_large", "hash join %s x %s int8 (enable_prefetch_hashjoin off/on)"
               % (rows_label(HJ_ROWS), rows_label(HJ_ROWS)), "ms", "lower")
    got = {}
    extra_b = []

    def prepare():
        prepare_hj()
        # below some millions of rows the table fits the cache the cost model
        # assumes and it keeps the built-in join: B is forced, the row says so
        pa, pb, note = hj_choose(HJ_LARGE, [], extra_b, "hashjoin_large")
        m.note = "(%s)" % note if note else ""
        note_plans(m, pa, pb)

    def measure(side, rnd):
        ms, res = timed_sql(HJ_LARGE, hj_sets(side, extra_b if side["id"] == "B" else ()))
        hj_count_ok(res, HJ_ROWS // 2)
        check_same(got, rnd, side, res, "hash join large")
        return {m.key: ms}

    return Workload("hashjoin_large", "hash join, large (PrefetchHashJoin off/on)", prepare,
                    [Test(measure, [m])], [m], comparison="executor")


HJ_FORCE = ["fpbtree.hashjoin_cache_size = 0"]   # the cost model then treats every table as out of cache


def wl_hashjoin_small():
    m = Metric("hj_small", "hash join, %s-row build side x %s probes (enable_prefetch_hashjoin off/on)"
               % (rows_label(HJ_SMALL_ROWS), rows_label(HJ_ROWS)), "ms", "lower")
    mf = Metric("hj_small_forced", "hash join, %s-row build side, B forced (fpbtree.hashjoin_cache_size = 0)"
                % rows_label(HJ_SMALL_ROWS), "ms", "lower")
    got = {}

    def prepare():
        prepare_hj()
        chosen, pa, pb = hj_check_plans(HJ_SMALL, require_b=False)
        if not chosen:
            m.note = "(B: PrefetchHashJoin not chosen by the planner)"
            log("  hashjoin_small: the planner did not choose PrefetchHashJoin for B")
        note_plans(m, pa, pb)
        chosen, pa, pb = hj_check_plans(HJ_SMALL, HJ_FORCE, require_b=serial_view())
        if not chosen:
            mf.note = "(%s)" % NOT_EVEN_FORCED
        note_plans(mf, pa, pb)

    def test(metric, extra_b):
        def measure(side, rnd):
            ms, res = timed_sql(HJ_SMALL, hj_sets(side, extra_b if side["id"] == "B" else ()))
            hj_count_ok(res, HJ_SMALL_ROWS)
            check_same(got, rnd, side, res, "hash join small")
            return {metric.key: ms}
        return Test(measure, [metric])

    return Workload("hashjoin_small", "hash join, 100k-row build side (PrefetchHashJoin off/on)", prepare,
                    [test(m, ()), test(mf, HJ_FORCE)], [m, mf], comparison="executor")


def wl_hashjoin_spill():
    kb = hj_spill_kb()
    extra = ["work_mem = '%dkB'" % kb]
    extra_b = list(extra)
    m = Metric("hj_spill", "hash join %s x %s int8, work_mem %s (multi-batch; off/on)"
               % (rows_label(HJ_ROWS), rows_label(HJ_ROWS), mem_label(kb)), "ms", "lower")
    mp = Metric("hj_spill_pp", "hash join, work_mem %s, B with partition-phase prefetching "
                "(fpbtree.hashjoin_partition_prefetch = on)" % mem_label(kb),
                "ms", "lower")
    got = {}

    def prepare():
        prepare_hj()
        # each batch's table is smaller than the cache the cost model
        # assumes, so it may keep the built-in join: B is forced then
        pa, pb, note = hj_choose(HJ_LARGE, [], extra_b, "hashjoin_spill")
        notes = [note] if note else []
        # once, untimed: A and B really partition into batch files (in the
        # serial view; at parallel settings the batches are recorded)
        pb = explain(HJ_LARGE, hj_sets(SIDES[1], extra_b), analyze=True)
        nb = re.search(r"\bBatches: (\d+)", pb)
        if serial_view() and (not nb or int(nb.group(1)) <= 1 or "Spilled: true" not in pb):
            raise BenchError("hashjoin_spill: B did not spill with work_mem %d kB:\n%s" % (kb, pb))
        pa = explain(HJ_LARGE, hj_sets(SIDES[0], extra), analyze=True)
        na = re.search(r"\bBatches: (\d+)", pa)
        if serial_view() and (not na or int(na.group(1)) <= 1):
            raise BenchError("hashjoin_spill: A did not spill with work_mem %d kB:\n%s" % (kb, pa))
        na, nb = na.group(1) if na else "?", nb.group(1) if nb else "?"
        notes.append("A: %s batches, B: %s" % (na, nb))
        m.note = "(%s)" % "; ".join(notes)
        note_plans([m, mp], pa, pb)
        with open(os.path.join(RAW, "plan_hashjoin_spill_%s.txt" % VIEW), "w") as f:
            f.write("A:\n%s\nB:\n%s\n" % (pa, pb))
        log("  hashjoin_spill: work_mem %d kB, A %s batches, B %s batches" % (kb, na, nb))

    def test(metric, more_b):
        def measure(side, rnd):
            sets = extra_b + more_b if side["id"] == "B" else extra
            ms, res = timed_sql(HJ_LARGE, hj_sets(side, sets))
            hj_count_ok(res, HJ_ROWS // 2)
            check_same(got, rnd, side, res, "hash join spill")
            return {metric.key: ms}
        return Test(measure, [metric])

    return Workload("hashjoin_spill", "hash join, spilling (PrefetchHashJoin off/on)", prepare,
                    [test(m, []), test(mp, ["fpbtree.hashjoin_partition_prefetch = on"])], [m, mp],
                    comparison="executor")


HJ_SCHEMES = [
    ("group_g4", "group G=4", ["fpbtree.hashjoin_prefetch = 'group'", "fpbtree.hashjoin_group_size = 4"]),
    ("group_g16", "group G=16", ["fpbtree.hashjoin_prefetch = 'group'", "fpbtree.hashjoin_group_size = 16"]),
    ("group_g32", "group G=32", ["fpbtree.hashjoin_prefetch = 'group'", "fpbtree.hashjoin_group_size = 32"]),
    ("group_g64", "group G=64", ["fpbtree.hashjoin_prefetch = 'group'", "fpbtree.hashjoin_group_size = 64"]),
    ("pipelined_d1", "pipelined D=1", ["fpbtree.hashjoin_prefetch = 'pipelined'",
                                       "fpbtree.hashjoin_prefetch_distance = 1"]),
    ("pipelined_d4", "pipelined D=4", ["fpbtree.hashjoin_prefetch = 'pipelined'",
                                       "fpbtree.hashjoin_prefetch_distance = 4"]),
    ("none", "no prefetching", ["fpbtree.hashjoin_prefetch = 'none'"]),
    ("group_g64_noradix", "group G=64, radix off", ["fpbtree.hashjoin_prefetch = 'group'",
                                                    "fpbtree.hashjoin_group_size = 64",
                                                    "fpbtree.hashjoin_radix_bits = 0"]),
    ("none_noradix", "no prefetching, radix off", ["fpbtree.hashjoin_prefetch = 'none'",
                                                   "fpbtree.hashjoin_radix_bits = 0"]),
]


def wl_hashjoin_schemes():
    """B only: every scheme against the built-in join of the same round (A
    runs the built-in join once per round; B runs every configuration, in
    reverse order on even rounds)."""
    ms = {k: Metric("hj_scheme_%s" % k, "hash join large, %s (A: built-in)" % lab, "ms", "lower")
          for k, lab, _ in HJ_SCHEMES}
    got = {}
    force = []

    def prepare():
        prepare_hj()
        if not all(hj_check_plans(HJ_LARGE, sets, require_b=False)[0] for k, lab, sets in HJ_SCHEMES):
            # a comparison of B's configurations: force the node where the
            # cost model would keep the built-in join (small HJ_ROWS)
            force.extend(HJ_FORCE)
            for mm in ms.values():
                mm.note = "(B forced with fpbtree.hashjoin_cache_size = 0: not chosen by the cost model here)"
            log("  hashjoin_schemes: PrefetchHashJoin not chosen at %d rows; forcing it" % HJ_ROWS)
        for k, lab, sets in HJ_SCHEMES:
            chosen, pa, pb = hj_check_plans(HJ_LARGE, list(sets) + force, require_b=serial_view())
            note_plans(ms[k], pa, pb)
            if not chosen:
                # (parallel settings only) the rows would time another join
                wl.skip = "PrefetchHashJoin not chosen, even forced"

    def measure(side, rnd):
        if side["id"] == "A":
            t, res = timed_sql(HJ_LARGE, hj_sets(side))
            got[rnd] = res
            return {m.key: t for m in ms.values()}
        out = {}
        order = HJ_SCHEMES if rnd % 2 else list(reversed(HJ_SCHEMES))
        for k, lab, sets in order:
            t, res = timed_sql(HJ_LARGE, hj_sets(side, list(sets) + force))
            if res != got.get(rnd):
                raise BenchError("hash join %s returned %r, built-in %r" % (lab, res, got.get(rnd)))
            out[ms[k].key] = t
        return out

    wl = Workload("hashjoin_schemes", "hash join prefetching schemes (B only)", prepare,
                  [Test(measure, list(ms.values()))], list(ms.values()), comparison="executor")
    return wl


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
    if "tpch" in _made:
        return
    t0 = time.time()
    psql(tpch_sql(TPCH_ROWS) + "CHECKPOINT;\n", options=SETUP)
    log("  loaded lineitem (%d rows), orders, customer: %.1f s" % (TPCH_ROWS, time.time() - t0))
    _made.add("tpch")


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
        with open(os.path.join(RAW, "plan_tpch_%s_%s.txt" % (q, VIEW)), "w") as f:
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


def rows_label(n):
    if n >= 1000000 and n % 100000 == 0:
        return ("%.1fM" % (n / 1e6)).replace(".0M", "M")
    if n >= 1000 and n % 1000 == 0:
        return "%dk" % (n // 1000)
    return str(n)


def mem_label(kb):
    return "%d MB" % (kb // 1024) if kb % 1024 == 0 else "%d kB" % kb


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
        wl_insert(),
        wl_createindex(),
        # the prefetching executor nodes: A = feature off, B = on
        wl_hashjoin_large(),
        wl_hashjoin_small(),
        wl_hashjoin_spill(),
        wl_hashjoin_schemes(),
        wl_tpch("q1"),
        wl_tpch("q3"),
        wl_tpch("q6"),
    ]


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


def git_commit():
    """(short commit of ROOT or "unknown", whether src/ has uncommitted changes)"""
    try:
        rev = run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], check=False).stdout.strip()
        dirty = run(["git", "-C", ROOT, "status", "--porcelain", "--", "src"], check=False).stdout.strip()
        return rev or "unknown", bool(dirty)
    except OSError:
        return "unknown", False


def make_run_dir():
    """bench/results/runs/<UTC date-time>_<commit>[-dirty][_cachegrind]/ and
    its raw/; runs/latest points to it."""
    global RUN_DIR, RAW
    rev, dirty = git_commit()
    name = "%s_%s%s%s" % (datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H%M%SZ"), rev,
                          "-dirty" if dirty else "", "_cachegrind" if CACHEGRIND else "")
    RUN_DIR = os.path.join(RUNS, name)
    RAW = os.path.join(RUN_DIR, "raw")
    os.makedirs(RAW)
    link = os.path.join(RUNS, "latest")
    try:
        if os.path.islink(link):
            os.remove(link)
        if not os.path.exists(link):
            os.symlink(name, link)
    except OSError:
        pass
    log("results go to %s/" % os.path.relpath(RUN_DIR, ROOT))


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
    path = os.path.join(RUN_DIR, "results.md")
    with open(path, "w") as f:
        f.write("\n".join(md))
    pngs = plot.plot_run(RUN_DIR, RAW)
    if pngs:
        with open(path, "a") as f:
            f.write("\n".join(["## Charts", ""] + ["![%s](%s)\n" % (os.path.splitext(p)[0], p) for p in pngs]))
    log("charts: %s" % (", ".join(pngs) or "none (gnuplot missing or failed)"))


def info_md(info, extra=()):
    lines = ["| | |", "|---|---|"]
    for k, v in list(info.items()) + list(extra):
        lines.append("| %s | %s |" % (k, v))
    return "\n".join(lines)


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
               "Join; fpbtree's scans and builds and PrefetchHashJoin are serial.",
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
        if _drop_caches_ok is False:
            cold_note = "cold: OS cache NOT dropped (no permission to write /proc/sys/vm/drop_caches); " \
                        "each cold query ran after a server restart, so only shared_buffers was cold"
        elif _drop_caches_ok:
            cold_note = "cold: server restarted and OS page cache dropped before each cold query"
        for _, metrics, _ in done:
            for m in metrics:
                if m.key.startswith("cold_") and _drop_caches_ok is False:
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

    write_csv(os.path.join(RUN_DIR, "results.csv"), [(v, ms) for v, ms, _ in done])
    md = ["# fpbtree benchmark run %s" % os.path.basename(RUN_DIR), "",
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
    with open(os.path.join(RAW, "cachegrind.%s.%s.log" % (side["s"], tag)), "w") as f:
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
    with open(os.path.join(RAW, "cachegrind.%s.%s.%s.log" % (qkey, sid, tag)), "w") as f:
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
        with open(os.path.join(RAW, "plan_cachegrind_%s.txt" % qkey), "w") as f:
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
    write_csv(os.path.join(RUN_DIR, "results.csv"), [("serial", metrics)])
    md = ["# fpbtree benchmark: cache simulation (CACHEGRIND=1), run %s" % os.path.basename(RUN_DIR), "",
          info_md(info), ""]
    for note in notes:
        md += [note, ""]
    md += [md_table(rows, hdr), ""]
    write_md_and_charts(md)


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
        log("\nresults: %s/ (results.md, results.csv, charts; raw/ has the logs)" % os.path.relpath(RUN_DIR, ROOT))
        return 0
    failures = main_timed(info, selected)
    log("total %.0f s" % (time.time() - t0))
    log("\nresults: %s/ (results.md, results.csv, charts; raw/ has the logs)" % os.path.relpath(RUN_DIR, ROOT))
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
