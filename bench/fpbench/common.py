"""The benchmark's library: settings read from the environment (BENCH_* from
bench/run_bench.sh, SCALE, ROUNDS, ...), the sides and views, running psql
and pgbench and timing them, server control (restart, views via ALTER
SYSTEM, dropping the OS cache), the key tables' names, plan checks and plan
shapes, the Metric / Test / Workload classes, the executor workloads'
timed-query helpers, and the run directory (RUN_DIR, RAW).

RUN_DIR, RAW, VIEW and the set-up memo _made change while a run goes on:
other modules read them as C.RUN_DIR etc. (`from fpbench import common as C`).
"""

import datetime
import os
import re
import shlex
import subprocess
import time


# --------------------------------------------------------------- settings

# ROOT is the repository: this file is ROOT/bench/fpbench/common.py
ROOT = os.environ.get("BENCH_ROOT") or \
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
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
            mode="prepared", seed=1, options=None, tag="", db=DB, failures_ok=False):
    """script: a file in bench/, or "builtin:NAME" for one of pgbench's own;
    failures_ok: failed transactions (serialization failures) are counted,
    not an error"""
    which = ["-b", script[8:]] if script.startswith("builtin:") else ["-f", os.path.join(BENCH_DIR, script)]
    cmd = [PGBIN + "/pgbench", "-n", "-M", mode, "-c", str(clients), "-j", str(clients),
           "--random-seed=%d" % seed] + which + conn_args()
    if duration is not None:
        cmd += ["-T", str(duration)]
    else:
        cmd += ["-t", str(transactions)]
    for k, v in (defines or {}).items():
        cmd += ["-D", "%s=%s" % (k, v)]
    cmd.append(db)
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
    if failed and int(failed.group(1)) != 0 and not failures_ok:
        raise BenchError("pgbench: %s failed transactions (%s)" % (failed.group(1), script))
    done = re.search(r"^number of transactions actually processed: (\d+)", p.stdout, re.M)
    return {"tps": float(tps.group(1)), "lat_ms": float(lat.group(1)),
            "committed": int(done.group(1)) if done else 0,
            "failed": int(failed.group(1)) if failed else 0}


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


# ------------------------------------------- key tables, set-up sessions

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


def check_plan(sql, needles, options, analyze=False, db=DB):
    """EXPLAIN sql and fail loudly unless every needle is in the plan."""
    what = "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) " if analyze else "EXPLAIN (COSTS OFF) "
    plan = psql(what + sql + ";", options=options, db=db)
    missing = [n for n in needles if n not in plan]
    if analyze and "Heap Fetches:" in plan and not re.search(r"Heap Fetches: 0\b", plan):
        missing.append("Heap Fetches: 0")
    if missing:
        raise BenchError("unexpected plan for: %s\nwanted: %s\ngot:\n%s" % (sql, missing, plan))
    return plan


def plan_shape(plan):
    """A short description of an EXPLAIN text: its join nodes (or, without
    joins, its scans), Buffer nodes and the workers planned, e.g. "Parallel
    Hash Join (2 workers)", "PrefetchHashJoin", "Parallel PrefetchHashJoin
    (2 workers)", "Index Only Scan".  Lines
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
        mc = re.match(r"(Parallel )?Custom Scan \((\w+)\)", t)
        names.append((mc.group(1) or "") + mc.group(2) if mc else re.split(r" on | using | \(", t)[0].strip())
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


# --------------------------------------------- metrics, tests, workloads

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


# ------------------------------------------------------------------ labels

def rows_label(n):
    if n >= 1000000 and n % 100000 == 0:
        return ("%.1fM" % (n / 1e6)).replace(".0M", "M")
    if n >= 1000 and n % 1000 == 0:
        return "%dk" % (n // 1000)
    return str(n)


def mem_label(kb):
    return "%d MB" % (kb // 1024) if kb % 1024 == 0 else "%d kB" % kb


# ------------------------------------------------------- the run directory

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
