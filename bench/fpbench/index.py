"""Index workloads, btree (A) against fpbtree (B): the key tables and their
set-up (keys_*, probes, grown, warm and insert tables), range helpers, and
the point, probe, range, cold, insert and createindex workloads."""

import math
import random
import re
import statistics
import time

from fpbench import common as C
from fpbench.common import (BenchError, COLD_HEAP_QUERIES, COLD_QUERIES, DURATION, FORCE_INDEX,
    FORCE_NESTLOOP, GROWN_ROWS, INT8_MAX, Metric, NPROBES, RANGE_DURATION, RANGE_SIZES, SCALE, SETUP, SIDES,
    TWO64, Test, Workload, check_plan, drop_os_cache, idx, log, note_plan, note_shape, parse_times, pgbench,
    psql, psql_out_err, psql_val, server_restart, tbl)


def ensure_base():
    """keys_bt / keys_fp: a = hashint8extended(i, 0), i = 1..SCALE, loaded in
    the same order, one index each, vacuumed so index-only scans need no
    heap visits."""
    if "base" in C._made:
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
    C._made.add("base")


def ensure_probes():
    if "probes" in C._made:
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
    C._made.add("probes")


_grow_ms = {}


def ensure_grown():
    """keys_bt_grown / keys_fp_grown: GROWN_ROWS keys inserted one by one in
    random order into a table whose index already exists, so leaves split
    all over the place and end up scattered in the file.  Each row carries a
    50-byte payload (pad) for the cold heap-fetch test: the heap is in
    insertion (random) order, uncorrelated with the key order."""
    if "grown" in C._made:
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
    C._made.add("grown")


def ensure_grown_narrow():
    """keys_bt_narrow / keys_fp_narrow: the keys of keys_*_grown alone (no
    payload), inserted in the same random order (that table's heap order)
    into a table whose index already exists.  The grown table's heap spans
    two visibility-map pages, and with its rows in random order an
    index-only scan's visibility check switches VM page on about every
    other row (a buffer release and lookup each: ~0.5M per 10^6 entries, on
    both sides); this heap fits one VM page, so the cold index-only count
    measures the index rather than that executor cost."""
    if "narrow" in C._made:
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
    C._made.add("narrow")


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
    if "warm" in C._made:
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
    C._made.add("warm")


# the warm tables' query range: about half of their rows
WARM_LO, WARM_HI = -(1 << 62), 1 << 62


def ensure_ins():
    """keys_bt_ins / keys_fp_ins: copies of keys_bt for the insert workload,
    so that the read workloads' tables stay unchanged."""
    if "ins" in C._made:
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
    C._made.add("ins")


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


def client_metrics(key, label):
    """pgbench TPS metrics for 1 and 2 clients"""
    return {c: Metric("%s_c%d" % (key, c), "%s, %d client%s" % (label, c, "s" if c > 1 else ""),
                      "TPS", "higher") for c in (1, 2)}


def wl_point():
    ms = client_metrics("point", "point lookup")

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


HALF_WARM_QUERIES = 5


def wl_half():
    """Index-only count over half of the scattered (_grown) table, warm and
    cold, at the view's parallel settings: where the view allows workers the
    planner gives both access methods parallel index-only scans at the
    published scale, so the default view compares btree's parallel scan with
    fpbtree's; a row says when a side's plan is not parallel.  The same
    counts again on the _narrow tables (the same keys inserted in the same
    order, a heap in one visibility-map page; see wl_cold)."""
    n = max(1, GROWN_ROWS // 2)
    variants = []
    for suffix, what, tag in (("_grown", "", ""), ("_narrow", ", int8-only table", "_narrow")):
        mw = Metric("half_warm" + tag, "index-only count over %d of %d scattered entries%s, warm"
                    % (n, GROWN_ROWS, what), "ms/query", "lower")
        mc = Metric("half_cold" + tag, "index-only count over %d of %d scattered entries%s, cold"
                    % (n, GROWN_ROWS, what), "ms/query", "lower")
        variants.append((suffix, mw, mc))

    def needle(side, suffix):
        # a plain or a parallel scan; the plan columns say which
        return "Index Only Scan using %s" % idx(side, suffix)

    def query(side, suffix, lo, hi):
        return "SELECT count(*) FROM %s WHERE a >= %s AND a < %s" % (tbl(side, suffix), lit(lo), lit(hi))

    def prepare():
        ensure_grown()
        ensure_grown_narrow()
        ensure_warm_tables()
        lo, hi = random_ranges(8000, n, GROWN_ROWS, 1)[0]
        for suffix, mw, mc in variants:
            counts, serial = [], []
            for side in SIDES:
                plan = check_plan(query(side, suffix, lo, hi), [needle(side, suffix)], FORCE_INDEX,
                                  analyze=True)
                note_plan([mw, mc], side["id"], plan)
                if not C.serial_view() and "Parallel Index Only Scan" not in plan:
                    serial.append(side["id"])
                counts.append(int(psql_val(query(side, suffix, lo, hi) + ";", options=FORCE_INDEX)))
            # in a view with workers the planner may still keep a small range serial
            for m in (mw, mc):
                m.note = "(%s: not a parallel scan)" % "+".join(serial) if serial else ""
            if counts[0] != counts[1] or not count_ok(counts[0], n):
                raise BenchError("half range [%d, %d) of %s: btree counts %d, fpbtree %d, expected about %d"
                                 % (lo, hi, suffix, counts[0], counts[1], n))

    def measure_warm(side, rnd):
        out = {}
        for suffix, mw, _ in variants:
            rs = random_ranges(8100 + rnd, n, GROWN_ROWS, HALF_WARM_QUERIES)
            warm(side, suffix)
            sql = "\\timing on\n" + "".join(query(side, suffix, lo, hi) + ";\n" for lo, hi in rs)
            res = psql(sql, options=FORCE_INDEX)
            for c in re.findall(r"^(\d+)$", res, re.M):
                if not count_ok(int(c), n):
                    raise BenchError("warm half count %s on %s, expected about %d" % (c, tbl(side, suffix), n))
            out[mw.key] = statistics.median(parse_times(res))
        return out

    def measure_cold(side, rnd):
        out = {}
        for suffix, _, mc in variants:
            times = []
            for qi, (lo, hi) in enumerate(random_ranges(8200 + rnd, n, GROWN_ROWS, COLD_QUERIES)):
                wq = "SELECT count(*) FROM %s WHERE a >= %s AND a < %s" % (warm_tbl(side), lit(WARM_LO),
                                                                         lit(WARM_HI))
                tm, last, _ = cold_query(side, query(side, suffix, lo, hi), wq, needle(side, suffix))
                if not count_ok(int(last), n):
                    raise BenchError("cold half count %s on %s, expected about %d"
                                     % (last, tbl(side, suffix), n))
                key = (rnd, "half" + suffix, qi)
                if key in _cold_counts and _cold_counts[key] != int(last):
                    raise BenchError("cold half range [%d, %d) of %s: btree counts %d, fpbtree %s"
                                     % (lo, hi, suffix, _cold_counts[key], last))
                _cold_counts[key] = int(last)
                times.append(tm)
            out[mc.key] = statistics.mean(times)
        return out

    metrics = [m for _, mw, mc in variants for m in (mw, mc)]
    return Workload("half", "index-only count over half the scattered table, warm and cold", prepare,
                    [Test(measure_warm, [v[1] for v in variants]), Test(measure_cold, [v[2] for v in variants])],
                    metrics)


def wl_insert():
    ms = client_metrics("insert", "insert random keys")

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
    """CREATE INDEX on keys_bt, btree (A) against fpbtree (B) at the view's
    settings; where the view lets builds run in parallel, also fpbtree's
    serial build (A, max_parallel_maintenance_workers = 0) against its
    parallel one (B)."""
    mt = Metric("ci_time", "CREATE INDEX, %d rows" % SCALE, "ms", "lower")
    ms = Metric("ci_size", "index size after CREATE INDEX", "MB", "lower")
    mserial = Metric("ci_time_fp_serial", "CREATE INDEX, %d rows, not btree: fpbtree serial (A) vs parallel (B)" % SCALE,
                     "ms", "lower")
    parallel_view = C.VIEW_DEFS[C.VIEW][1]["max_parallel_maintenance_workers"] != "0" if C.VIEW else False

    def prepare():
        ensure_base()

    def build(am, sets=()):
        """Times CREATE INDEX ci_tmp on keys_bt; returns (ms, MB, shape)."""
        # always on keys_bt: the same table for both access methods
        psql("DROP INDEX IF EXISTS ci_tmp; CHECKPOINT;")
        # index_build() says at DEBUG1 whether it builds serially or asks for
        # parallel workers (it plans workers for btree only); fpbtree plans
        # its own and says how many it launched
        pre = "".join("SET %s;\n" % x for x in sets)
        out, err = psql_out_err(pre + "SET client_min_messages = debug1;\n\\timing on\n"
                                "CREATE INDEX ci_tmp ON keys_bt USING %s (a);\n" % am)
        mb = re.search(r'building index "ci_tmp" on table "keys_bt" (serially|with request for (\d+) parallel '
                       r'workers)', err)
        if not mb:
            raise BenchError("CREATE INDEX: no build message at DEBUG1:\n" + err[-2000:])
        mf = re.search(r"fpbtree: parallel build, workers launched: (\d+)", err)
        if mf:
            shape = "parallel build (%s workers launched)" % mf.group(1)
        elif mb.group(1) == "serially":
            shape = "serial build"
        else:
            shape = "parallel build (%s workers requested)" % mb.group(2)
        size = int(psql_val("SELECT pg_relation_size('ci_tmp');"))
        psql("DROP INDEX ci_tmp;")
        return parse_times(out)[-1], size / 1048576.0, shape

    def measure(side, rnd):
        tm, size, shape = build(side["am"])
        note_shape([mt, ms], side["id"], shape)
        return {mt.key: tm, ms.key: size}

    def measure_serial(side, rnd):
        sets = ["max_parallel_maintenance_workers = 0"] if side["id"] == "A" else []
        tm, _, shape = build("fpbtree", sets)
        note_shape(mserial, side["id"], shape)
        return {mserial.key: tm}

    tests = [Test(measure, [mt, ms])]
    metrics = [mt, ms]
    if parallel_view:
        tests.append(Test(measure_serial, [mserial]))
        metrics.append(mserial)
    return Workload("createindex", "CREATE INDEX", prepare, tests, metrics)
