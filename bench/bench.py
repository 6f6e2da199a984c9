#!/usr/bin/env python3
"""fpbtree benchmark: PostgreSQL's btree (side A, the baseline) against
fpbtree (side B) on identical tables in one scratch cluster.

Run through bench/run_bench.sh (`make bench`), which installs what is
missing, builds the extension, starts the cluster and sets the BENCH_*
variables read below.  Standard library only.

Every workload runs ROUNDS rounds; in each round every test runs on A and
then on B (A, B, A, B, ...).  The table reports the median of each side,
the ratio of the medians oriented so that > 1 always means fpbtree is
better (baseline/fpbtree for times and sizes, fpbtree/baseline for TPS),
and the spread: min-max of the per-round ratios.

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

# --------------------------------------------------------------- settings

ROOT = os.environ.get("BENCH_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH_DIR = os.path.join(ROOT, "bench")
RESULTS = os.path.join(BENCH_DIR, "results")
TMP = os.path.join(RESULTS, "tmp")          # raw logs, gitignored

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
CACHEGRIND = os.environ.get("CACHEGRIND", "0") not in ("", "0", "no", "off")
WORKLOADS_ENV = [w.strip() for w in os.environ.get("WORKLOADS", "").split(",") if w.strip()]

NPROBES = max(1, min(1000000, SCALE // 10))
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
    with open(os.path.join(TMP, "pgbench.log"), "a") as f:
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
# index-only scans need all-visible pages.
SETUP = ["synchronous_commit=on"]


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
    all over the place and end up scattered in the file."""
    if "grown" in _made:
        return
    for side in SIDES:
        out = psql("""
DROP TABLE IF EXISTS {t};
CREATE TABLE {t} (a int8) WITH (autovacuum_enabled = off);
CREATE INDEX {i} ON {t} USING {am} (a);
CHECKPOINT;
\\timing on
INSERT INTO {t} SELECT hashint8extended(i, 0) FROM generate_series(1, {n}) AS i
  ORDER BY hashint8extended(i, 7);
\\timing off
VACUUM (ANALYZE) {t};
""".format(t=tbl(side, "_grown"), i=idx(side, "_grown"), am=side["am"], n=GROWN_ROWS), options=SETUP)
        _grow_ms[side["id"]] = parse_times(out)[-1]
        log("  grew %s: %d random-order inserts, %.1f s" % (tbl(side, "_grown"), GROWN_ROWS,
                                                          _grow_ms[side["id"]] / 1000.0))
    psql("CHECKPOINT;")
    _made.add("grown")


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


def warm(side, suffix=""):
    """Reads the whole index and the visibility map into shared_buffers."""
    psql("SELECT count(*) FROM %s WHERE a >= %s;" % (tbl(side, suffix), lit(-INT8_MAX - 1)), options=FORCE_INDEX)


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
    def __init__(self, key, label, unit, better, short=None):
        self.key, self.label, self.unit, self.better = key, label, unit, better
        self.short = short or label       # for the plots' axes
        self.note = ""
        self.values = {"A": [], "B": []}
        self.status = ""           # "", "FAILED: ...", or a pending note


class Test:
    """One measurement, taken on A then on B in every round; measure(side,
    rnd) returns {metric key: value}."""

    def __init__(self, measure, metrics):
        self.measure, self.metrics = measure, metrics


class Workload:
    def __init__(self, key, title, prepare=None, tests=(), metrics=(), pending=None):
        self.key, self.title, self.prepare = key, title, prepare
        self.tests = list(tests)
        self.metrics = list(metrics)      # every metric the workload reports, in order
        self.pending = pending            # e.g. "issue 12": not implemented yet


def wl_point():
    ms = {c: Metric("point_c%d" % c, "point lookup, %d client%s" % (c, "s" if c > 1 else ""),
                    "TPS", "higher", "point %dc" % c) for c in (1, 2)}

    def prepare():
        ensure_base()
        for side in SIDES:
            check_plan("SELECT a FROM %s WHERE a = hashint8extended(12345 %% %d + 1, 0)" % (tbl(side), SCALE),
                       ["Index Only Scan using %s on %s" % (idx(side), tbl(side))], None)
            warm(side)

    def test(c):
        def measure(side, rnd):
            r = pgbench("point_select_%s.sql" % side["s"], clients=c, duration=DURATION,
                        defines={"scale": SCALE}, seed=1000 * rnd + c, tag="point c%d %s" % (c, side["id"]))
            return {ms[c].key: r["tps"]}
        return Test(measure, [ms[c]])

    return Workload("point", "point lookups", prepare, [test(1), test(2)], [ms[1], ms[2]])


def wl_probe():
    m = Metric("probe", "index nested-loop join, %d probes" % NPROBES, "ms", "lower", "NL join")

    def prepare():
        ensure_probes()
        for side in SIDES:
            check_plan("SELECT count(*) FROM probes p JOIN %s t ON t.a = p.k" % tbl(side),
                       ["Nested Loop", "Seq Scan on probes p",
                        "Index Only Scan using %s on %s t" % (idx(side), tbl(side))],
                       FORCE_NESTLOOP, analyze=True)
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
    ms = {n: Metric("range_%d" % n, "range count %s entries, warm" % size_label(n), "ms/query", "lower",
                 "range %s warm" % size_label(n))
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


def wl_cold():
    sizes = range_sizes(GROWN_ROWS)
    ms = {n: Metric("cold_%d" % n, "range count %s entries, cold" % size_label(n), "ms/query", "lower",
                 "range %s cold" % size_label(n))
          for n in sizes}
    msize = Metric("size_grown", "index size after %d random-order inserts" % GROWN_ROWS, "MB", "lower",
                   "size grown")

    mgrow = Metric("grow_time", "INSERT ... SELECT of %d keys in random order (one run)" % GROWN_ROWS,
                   "ms", "lower", "grow (1 run)")

    def prepare():
        ensure_grown()
        for side in SIDES:
            mb = int(psql_val("SELECT pg_relation_size('%s');" % idx(side, "_grown"))) / 1048576.0
            msize.values[side["id"]].append(mb)
            if side["id"] in _grow_ms:
                mgrow.values[side["id"]].append(_grow_ms[side["id"]])

    def test(n):
        def measure(side, rnd):
            times = []
            t = tbl(side, "_grown")
            for qi, (lo, hi) in enumerate(random_ranges(5000 * rnd + n, n, GROWN_ROWS, COLD_QUERIES)):
                q = "SELECT count(*) FROM %s WHERE a >= %s AND a < %s" % (t, lit(lo), lit(hi))
                server_restart()
                drop_os_cache()
                # EXPLAIN first: loads the catalogs and checks the plan, untimed
                out = psql("EXPLAIN (COSTS OFF) %s;\n\\timing on\n%s;\n" % (q, q), options=FORCE_INDEX)
                if "Index Only Scan using %s" % idx(side, "_grown") not in out:
                    raise BenchError("cold range count: unexpected plan:\n" + out)
                tm = parse_times(out)
                cnt = int([ln for ln in out.splitlines() if re.fullmatch(r"-?\d+", ln.strip())][-1])
                if not count_ok(cnt, n):
                    raise BenchError("cold range [%d, %d) on %s: count %d far from the expected %d"
                                     % (lo, hi, t, cnt, n))
                key = (rnd, n, qi)
                if key in _cold_counts and _cold_counts[key] != cnt:
                    raise BenchError("cold range [%d, %d): btree counts %d, fpbtree %d"
                                     % (lo, hi, _cold_counts[key], cnt))
                _cold_counts[key] = cnt
                times.append(tm[-1])
            return {ms[n].key: statistics.mean(times)}
        return Test(measure, [ms[n]])

    return Workload("cold", "index-only range counts, cold, on randomly grown tables", prepare,
                    [test(n) for n in sizes], [ms[n] for n in sizes] + [msize, mgrow])


def wl_insert():
    ms = {c: Metric("insert_c%d" % c, "insert random keys, %d client%s" % (c, "s" if c > 1 else ""),
                    "TPS", "higher", "insert %dc" % c) for c in (1, 2)}

    def prepare():
        ensure_ins()

    def test(c):
        def measure(side, rnd):
            psql("CHECKPOINT;")
            r = pgbench("insert_%s.sql" % side["s"], clients=c, duration=DURATION,
                        seed=2000 * rnd + c, tag="insert c%d %s" % (c, side["id"]))
            return {ms[c].key: r["tps"]}
        return Test(measure, [ms[c]])

    return Workload("insert", "inserts", prepare, [test(1), test(2)], [ms[1], ms[2]])


def wl_createindex():
    mt = Metric("ci_time", "CREATE INDEX, %d rows" % SCALE, "ms", "lower", "CREATE INDEX")
    ms = Metric("ci_size", "index size after CREATE INDEX", "MB", "lower", "size built")

    def prepare():
        ensure_base()

    def measure(side, rnd):
        # always on keys_bt: the same table for both access methods
        psql("DROP INDEX IF EXISTS ci_tmp; CHECKPOINT;")
        out = psql("\\timing on\nCREATE INDEX ci_tmp ON keys_bt USING %s (a);\n" % side["am"])
        size = int(psql_val("SELECT pg_relation_size('ci_tmp');"))
        psql("DROP INDEX ci_tmp;")
        return {mt.key: parse_times(out)[-1], ms.key: size / 1048576.0}

    return Workload("createindex", "CREATE INDEX", prepare, [Test(measure, [mt, ms])], [mt, ms])


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
        # slots for the prefetching executor nodes: A = off, B = on
        wl_pending("hashjoin_large", "hash join 10M x 10M int8 (enable_prefetch_hashjoin off/on)",
                   "ms", "lower", "issue N"),
        wl_pending("hashjoin_small", "hash join, 100k-row build side (enable_prefetch_hashjoin off/on)",
                   "ms", "lower", "issue N"),
        wl_pending("tpch_q1", "TPC-H Q1-shaped query (buffer operator off/on)", "ms", "lower", "issue N"),
        wl_pending("tpch_q3", "TPC-H Q3-shaped query (buffer operator off/on)", "ms", "lower", "issue N"),
        wl_pending("tpch_q6", "TPC-H Q6-shaped query (buffer operator off/on)", "ms", "lower", "issue N"),
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


def table_rows(metrics):
    rows = []
    for m in metrics:
        a, b, r, sp = summarize(m)
        label = "%s [%s]" % (m.label, m.unit)
        if m.note:
            label += " " + m.note
        if m.status:
            rows.append([label, "—", "—", "—", m.status])
            continue
        rows.append([label, fmt_val(a, m.unit), fmt_val(b, m.unit),
                     "%.2f" % r if r is not None else "—",
                     "%.2f–%.2f" % sp if sp else "—"])
    return rows


HEADER = ["workload", "btree (A)", "fpbtree (B)", "ratio (>1 = fpbtree better)", "spread (per-round ratios)"]


def text_table(rows, header=HEADER):
    w = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    line = "  ".join("-" * x for x in w)
    out = ["  ".join(str(h).ljust(w[i]) for i, h in enumerate(header)), line]
    for r in rows:
        out.append("  ".join(str(c).rjust(w[i]) if i else str(c).ljust(w[i]) for i, c in enumerate(r)))
    return "\n".join(out)


def md_table(rows, header=HEADER):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
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
    try:
        rev = run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], check=False).stdout.strip()
        dirty = run(["git", "-C", ROOT, "status", "--porcelain", "--", "src"], check=False).stdout.strip()
        info["fpbtree commit"] = (rev or "unknown") + (" + uncommitted changes in src/" if dirty else "")
    except OSError:
        info["fpbtree commit"] = "unknown"
    info["SCALE"] = str(SCALE)
    info["ROUNDS"] = str(ROUNDS)
    info["DURATION"] = "%d s per TPS run, %d s per warm range size" % (DURATION, RANGE_DURATION)
    return info


def loadavg():
    try:
        return open("/proc/loadavg").read().split()[0]
    except OSError:
        return "?"


SETTING_NAMES = ["shared_buffers", "effective_cache_size", "maintenance_work_mem", "work_mem",
                 "max_wal_size", "checkpoint_timeout", "synchronous_commit", "autovacuum", "jit",
                 "max_parallel_workers_per_gather", "max_parallel_maintenance_workers",
                 "shared_preload_libraries"]


def settings():
    out = psql("SELECT name || ' = ' || current_setting(name) FROM unnest(ARRAY[%s]) AS name;"
               % ",".join("'%s'" % n for n in SETTING_NAMES), db="postgres")
    return [l for l in out.splitlines() if l.strip()]


def gnuplot(script, name):
    if not shutil.which("gnuplot"):
        log("gnuplot not found: no %s" % name)
        return
    path = os.path.join(TMP, name + ".gp")
    with open(path, "w") as f:
        f.write(script)
    p = run(["gnuplot", path], check=False)
    if p.returncode != 0:
        log("gnuplot failed for %s: %s" % (name, p.stderr[-2000:]))


def gp_quote(s):
    return '"' + s.replace('"', "'") + '"'


def plot_ratios(metrics, png, title):
    rows = []
    for m in metrics:
        if m.status:
            continue
        a, b, r, sp = summarize(m)
        if r is None:
            continue
        lo, hi = sp if sp else (r, r)
        rows.append((m.short, r, lo, hi))
    if not rows:
        return
    dat = os.path.join(TMP, os.path.basename(png) + ".dat")
    with open(dat, "w") as f:
        for i, (lab, r, lo, hi) in enumerate(rows):
            f.write("%d\t%s\t%g\t%g\t%g\n" % (i, gp_quote(lab), r, lo, hi))
    ymax = max(max(h for _, _, _, h in rows), 1.0) * 1.15
    ymin = min(min(l for _, _, l, _ in rows), 1.0) / 1.3
    # a log axis when one ratio would dwarf the others
    yaxis = "set logscale y 2\nset yrange [%g:%g]" % (ymin, ymax) if ymax > 6 else "set yrange [0:%g]" % ymax
    n = len(rows)
    gnuplot("""
set terminal pngcairo size {w},620 font "sans,9" noenhanced
set output {png}
set title {title}
set ylabel "ratio (> 1: fpbtree better)"
{yaxis}
set xrange [-0.6:{n}-0.4]
set style fill solid 0.7 border -1
set boxwidth 0.6
set grid ytics
set xtics rotate by -35 nomirror
set bmargin 7
set rmargin 6
unset key
plot {dat} using 1:3:xtic(2) with boxes lc rgb "#4878a8", \\
     '' using 1:3:4:5 with yerrorbars lc rgb "black" pt 0, \\
     1 with lines dt 2 lc rgb "#c03030" lw 2
""".format(png=gp_quote(png), title=gp_quote(title), yaxis=yaxis, n=n, dat=gp_quote(dat),
           w=max(700, 90 * n + 200)), os.path.basename(png))


def plot_medians(metrics, png, title):
    groups = [("TPS", "throughput [TPS]", False), ("ms", "time [ms]", True),
              ("ms/query", "time per query [ms]", True), ("MB", "size [MB]", False)]
    panels = []
    for unit, ylabel, logy in groups:
        ms = [m for m in metrics if m.unit == unit and not m.status and m.values["A"] and m.values["B"]]
        if ms:
            panels.append((unit, ylabel, logy, ms))
    if not panels:
        return
    parts = []
    for k, (unit, ylabel, logy, ms) in enumerate(panels):
        dat = os.path.join(TMP, "%s.%d.dat" % (os.path.basename(png), k))
        with open(dat, "w") as f:
            for m in ms:
                f.write("%s\t%g\t%g\n" % (gp_quote(m.short), median(m.values["A"]), median(m.values["B"])))
        parts.append("""
set ylabel {yl}
{log}
set yrange [{ymin}:*]
plot {dat} using 2:xtic(1) title "btree (A)" lc rgb "#909090", '' using 3 title "fpbtree (B)" lc rgb "#4878a8"
""".format(yl=gp_quote(ylabel), log="set logscale y" if logy else "unset logscale y",
           ymin="*" if logy else "0", dat=gp_quote(dat)))
    gnuplot("""
set terminal pngcairo size 900,{h} font "sans,9" noenhanced
set output {png}
set multiplot layout {n},1 title {title}
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid ytics
set key top right
set xtics nomirror
""".format(png=gp_quote(png), title=gp_quote(title), n=len(panels), h=300 * len(panels) + 40)
            + "".join(parts) + "unset multiplot\n", os.path.basename(png))


def write_csv(path, metrics):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["metric", "label", "unit", "better", "median_btree", "median_fpbtree",
                    "ratio_fpbtree_better_if_gt_1", "spread_min", "spread_max", "status",
                    "rounds_btree", "rounds_fpbtree"])
        for m in metrics:
            a, b, r, sp = summarize(m)
            w.writerow([m.key, m.label, m.unit, m.better,
                        "" if a is None else "%.6g" % a, "" if b is None else "%.6g" % b,
                        "" if r is None else "%.4f" % r,
                        "%.4f" % sp[0] if sp else "", "%.4f" % sp[1] if sp else "", m.status,
                        " ".join("%.6g" % x for x in m.values["A"]),
                        " ".join("%.6g" % x for x in m.values["B"])])


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
        log("  (%s: %.0f s)" % (wl.key, time.time() - t0))
    return failures


def main_timed(info, workloads):
    load0 = loadavg()
    t0 = time.time()
    failures = run_workloads(workloads)
    elapsed = time.time() - t0
    metrics = [m for wl in workloads for m in wl.metrics]
    cold_note = None
    if any(wl.key == "cold" and not wl.pending for wl in workloads):
        if _drop_caches_ok is False:
            cold_note = "cold: OS cache NOT dropped (no permission to write /proc/sys/vm/drop_caches); " \
                        "each cold query ran after a server restart, so only shared_buffers was cold"
        elif _drop_caches_ok:
            cold_note = "cold: server restarted and OS page cache dropped before each cold query"
        for m in metrics:
            if m.key.startswith("cold_") and _drop_caches_ok is False:
                m.note = "(OS cache NOT dropped)"
    rows = table_rows(metrics)
    extra = [("load average (1 min) at start / end", "%s / %s" % (load0, loadavg())),
             ("workloads run for", "%.0f s" % elapsed)]
    log("\n" + text_table(rows))
    if cold_note:
        log(cold_note)
    log("(ratio = baseline/fpbtree for times and sizes, fpbtree/baseline for TPS: > 1 means fpbtree better; "
        "medians of %d rounds; spread = min–max of the per-round ratios)" % ROUNDS)
    for k, v in list(info.items()) + extra:
        log("%s: %s" % (k, v))

    write_csv(os.path.join(RESULTS, "latest.csv"), metrics)
    plot_ratios(metrics, os.path.join(RESULTS, "ratios.png"),
                "fpbtree vs btree, SCALE=%d, median of %d rounds (bars: per-round spread)" % (SCALE, ROUNDS))
    plot_medians(metrics, os.path.join(RESULTS, "medians.png"),
                 "medians per side, SCALE=%d, %d rounds" % (SCALE, ROUNDS))
    md = ["# fpbtree benchmark: latest run", "",
          "Produced by `make bench` (bench/run_bench.sh, bench/bench.py); see bench/README.md.", "",
          info_md(info, extra), "", "## Results", "",
          "Ratio > 1 means fpbtree is better: baseline/fpbtree for times and sizes, fpbtree/baseline "
          "for TPS. Medians of %d rounds, A and B alternating; spread = min–max of the per-round "
          "ratios." % ROUNDS, "", md_table(rows), ""]
    if cold_note:
        md += [cold_note, ""]
    if failures:
        md += ["## Failures", ""] + ["- **%s**: `%s`" % (t, e.strip().splitlines()[0] if e.strip() else "")
                                     for t, e in failures] + [""]
    md += ["## Settings (both sides)", "", "```"] + settings() + ["```", "",
           "![ratios](ratios.png)", "", "![medians](medians.png)", ""]
    with open(os.path.join(RESULTS, "latest.md"), "w") as f:
        f.write("\n".join(md))
    log("\nwrote bench/results/latest.md, latest.csv, ratios.png, medians.png")
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
    with open(os.path.join(TMP, "cachegrind.%s.%s.log" % (side["s"], tag)), "w") as f:
        f.write(p.stdout[-100000:] + "\n---\n" + p.stderr)
    if p.returncode != 0 or "ERROR:" in p.stdout or "ERROR:" in p.stderr:
        raise BenchError("single-user backend under cachegrind failed (%s %s):\n%s\n%s"
                         % (side["name"], tag, p.stdout[-2000:], p.stderr[-3000:]))
    got = {"points": len(re.findall(r'\ba = "-?\d+"', p.stdout)),
           "join": [int(x) for x in re.findall(r'\bnj = "(\d+)"', p.stdout)],
           "ranges": [int(x) for x in re.findall(r'\brc = "(\d+)"', p.stdout)]}
    log("  cachegrind %-7s %-6s %3.0f s" % (side["name"], tag, time.time() - t0))
    return cg_parse(p.stderr), got


def main_cachegrind(info):
    if not shutil.which("valgrind"):
        raise BenchError("valgrind not installed")
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
    for q, qlabel, qshort in (("points", "point lookup (one EXECUTE each)", "point"),
                              ("join", "lookup in a nested-loop join", "NL"),
                              ("ranges", "range count %s entries" % size_label(n), "range")):
        for e, elabel in CG_EVENTS:
            m = Metric("cg_%s_%s" % (q, e), "%s: %s" % (qlabel, elabel), "per lookup" if q != "ranges"
                       else "per query", "lower", "%s %s" % (qshort, e))
            m.values["A"].append(res["A"][q][e])
            m.values["B"].append(res["B"][q][e])
            metrics.append(m)
    rows = table_rows(metrics)
    hdr = ["cachegrind (simulated caches)", "btree (A)", "fpbtree (B)", "ratio (>1 = fpbtree fewer)"]
    rows = [r[:4] for r in rows]
    log("\n" + text_table(rows, hdr))
    note = ("Single-user backend (`postgres --single`) under `valgrind --tool=cachegrind --cache-sim=yes "
            "%s`; batches: %d point lookups (EXECUTE of a prepared SELECT each), one forced nested-loop "
            "join doing %d index lookups, %d range counts of about %d entries (EXECUTE). A first run does "
            "every batch once (start-up, warm-up); one more run per batch repeats it, warm; the figures "
            "are the difference divided by the number of lookups or queries, so start-up cancels out. "
            "Counts are deterministic up to small noise (a few misses); ratios are left out when a "
            "figure is below 1. Host caches: %s."
            % (" ".join(CG_CACHE_OPTS), CG_POINTS, CG_PROBES, CG_RANGES, n, info.get("caches")))
    log(note)
    write_csv(os.path.join(RESULTS, "latest_cachegrind.csv"), metrics)
    plot_ratios(metrics, os.path.join(RESULTS, "cachegrind.png"),
                "cachegrind: fpbtree vs btree, SCALE=%d (> 1: fpbtree fewer)" % SCALE)
    md = ["# fpbtree benchmark: cache simulation (CACHEGRIND=1)", "", info_md(info), "", note, "",
          md_table(rows, hdr), "", "![cachegrind ratios](cachegrind.png)", ""]
    with open(os.path.join(RESULTS, "latest_cachegrind.md"), "w") as f:
        f.write("\n".join(md))
    log("\nwrote bench/results/latest_cachegrind.md, latest_cachegrind.csv, cachegrind.png")


def main():
    if not DATADIR or not SOCKDIR:
        sys.exit("bench.py is run by bench/run_bench.sh (make bench), which sets BENCH_DATADIR etc.")
    os.makedirs(TMP, exist_ok=True)
    for f in os.listdir(TMP):
        os.remove(os.path.join(TMP, f))
    psql("CREATE DATABASE %s;" % DB, db="postgres")
    psql("CREATE EXTENSION fpbtree;")
    info = machine_info()
    log("SCALE=%d ROUNDS=%d DURATION=%d%s, load average %s"
        % (SCALE, ROUNDS, DURATION, " CACHEGRIND=1" if CACHEGRIND else "", loadavg()))
    t0 = time.time()
    if CACHEGRIND:
        main_cachegrind(info)
        log("total %.0f s" % (time.time() - t0))
        return 0
    workloads = make_workloads()
    if WORKLOADS_ENV:
        known = [w.key for w in workloads]
        bad = [w for w in WORKLOADS_ENV if w not in known]
        if bad:
            sys.exit("unknown workload(s) %s; known: %s" % (", ".join(bad), ", ".join(known)))
        workloads = [w for w in workloads if w.key in WORKLOADS_ENV]
    failures = main_timed(info, workloads)
    log("total %.0f s" % (time.time() - t0))
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
