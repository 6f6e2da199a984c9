"""Hash-join workloads, PrefetchHashJoin off (A) against on (B): the hj_*
tables and the large, small, spill and schemes workloads."""

import os
import re
import time

from fpbench import common as C
from fpbench.common import (BenchError, HJ_ROWS, Metric, SETUP, SIDES, Test, Workload, check_same, explain,
    log, mem_label, note_plans, prewarm, psql, rows_label, serial_view, timed_sql)


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
    if "hj" in C._made:
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
    C._made.add("hj")


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
    """The plans of a join workload: B as the planner chooses it.  In the
    serial view, if that is not PrefetchHashJoin, B is forced with
    fpbtree.hashjoin_cache_size = 0 (appended to extra_b) and must then have
    the node.  At parallel settings (the headline) nothing is forced: the
    row times whatever the planner chose for B (a Parallel Hash Join, say)
    and says so.  Returns (A's plan, B's plan, a note for the row or "")."""
    chosen, pa, pb = hj_check_plans(sql, extra + extra_b, require_b=False)
    if chosen:
        return pa, pb, ""
    if not serial_view():
        log("  %s: PrefetchHashJoin not chosen by the planner at parallel settings" % what)
        return pa, pb, "B: PrefetchHashJoin not chosen by the planner"
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
        # assumes and it keeps the built-in join: B is forced in the serial
        # view, the row says so
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


def wl_hashjoin_shared():
    """The large join at the view's parallel settings and PostgreSQL's
    default work_mem (4 MB), where both joins spill: the built-in Parallel
    Hash Join into its batches, PrefetchHashJoin's shared table into shared
    batches.  Nothing is forced: the row says when the planner does not
    choose PrefetchHashJoin for B.  Views with workers only."""
    m = Metric("hj_large_shared", "hash join %s x %s int8, work_mem = 4MB (the default: both spill)"
               % (rows_label(HJ_ROWS), rows_label(HJ_ROWS)), "ms", "lower")
    extra = ["work_mem = '4MB'"]
    got = {}

    def prepare():
        if serial_view():
            wl.skip = "the shared parallel table needs workers"
            return
        prepare_hj()
        pa = explain(HJ_LARGE, hj_sets(SIDES[0], extra))
        pb = explain(HJ_LARGE, hj_sets(SIDES[1], extra))
        if HJ_NODE in pa:
            raise BenchError("hashjoin_shared: A must not run PrefetchHashJoin:\n%s" % pa)
        if HJ_NODE not in pb:
            m.note = "(B: PrefetchHashJoin not chosen by the planner)"
        note_plans(m, pa, pb)

    def measure(side, rnd):
        ms, res = timed_sql(HJ_LARGE, hj_sets(side, extra))
        hj_count_ok(res, HJ_ROWS // 2)
        check_same(got, rnd, side, res, "hash join, work_mem 4MB")
        return {m.key: ms}

    wl = Workload("hashjoin_shared", "hash join, large, work_mem = 4MB (both spill)",
                  prepare, [Test(measure, [m])], [m], comparison="executor")
    return wl


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
        # assumes, so it may keep the built-in join: B is forced then (in
        # the serial view)
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
        with open(os.path.join(C.RAW, "plan_hashjoin_spill_%s.txt" % C.VIEW), "w") as f:
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


HJ_SCALING_WORKERS = (0, 1, 2)


def wl_hashjoin_scaling():
    """The large join at 0, 1 and 2 workers per Gather (default view only):
    A is the built-in join as the planner picks it at that count (Parallel
    Hash allowed), B PrefetchHashJoin forced at the same count (with
    workers its shared-table partial path, fpbtree.hashjoin_parallel_shared
    on; Parallel Hash off, fpbtree.hashjoin_cache_size = 0).  Parallel
    costs and the table-size threshold are zeroed so that both plans use
    the count they are given."""
    ms = {n: Metric("hj_scaling_w%d" % n, "hash join %s x %s, %d worker%s (A built-in, B PrefetchHashJoin forced)"
                    % (rows_label(HJ_ROWS), rows_label(HJ_ROWS), n, "" if n == 1 else "s"), "ms", "lower")
          for n in HJ_SCALING_WORKERS}
    got = {}

    def sets(side, n):
        s = ["max_parallel_workers_per_gather = %d" % n, "parallel_setup_cost = 0", "parallel_tuple_cost = 0",
             "min_parallel_table_scan_size = 0"]
        if side["id"] == "B":
            s += ["enable_parallel_hash = off", "fpbtree.hashjoin_parallel_shared = on"] + HJ_FORCE
        return hj_sets(side, s)

    def prepare():
        if serial_view():
            wl.skip = "scaling over worker counts: default view only"
            return
        prepare_hj()
        for n in HJ_SCALING_WORKERS:
            pa = explain(HJ_LARGE, sets(SIDES[0], n))
            pb = explain(HJ_LARGE, sets(SIDES[1], n))
            if HJ_NODE in pa or HJ_NODE not in pb:
                raise BenchError("hashjoin_scaling, %d workers: A must be built-in, B PrefetchHashJoin:\n"
                                 "A:\n%s\nB:\n%s" % (n, pa, pb))
            if n > 0 and not all("Workers Planned: %d" % n in p for p in (pa, pb)):
                ms[n].note = "(a plan does not use %d workers)" % n
            elif n > 0 and "Shared Hash Table: true" not in pb:
                ms[n].note = "(B does not use the shared table)"
            note_plans(ms[n], pa, pb)

    def measure(side, rnd):
        out = {}
        for n in HJ_SCALING_WORKERS:
            ms_, res = timed_sql(HJ_LARGE, sets(side, n))
            hj_count_ok(res, HJ_ROWS // 2)
            check_same(got, (rnd, n), side, res, "hash join scaling")
            out[ms[n].key] = ms_
        return out

    wl = Workload("hashjoin_scaling", "hash join, 0/1/2 workers (built-in / PrefetchHashJoin at the same count)",
                  prepare, [Test(measure, list(ms.values()))], list(ms.values()), comparison="executor")
    return wl
