"""Space that comes back: index sizes under workloads that delete.

queue: a table used as a queue (rows inserted at the high end of the key
range, the oldest deleted, VACUUM after every cycle), btree's index (A)
against fpbtree's (B).  QUEUE_BATCH rows per cycle (default 100k),
QUEUE_CYCLES cycles (default 25), after a first batch that fills the window.
Reported: the index size after the first and the last cycle, their ratio
(flat = 1.0), and the buffers `SELECT min(id)` reads at the end.

churn: pgbench's TPC-B-like script for CHURN_DURATION seconds (default 60; the figure the design targets
is taken with 300)
with 2 clients, without VACUUM (autovacuum is off in the benchmark
cluster), on `pgbench -i -I dtgv -s CHURN_SCALE` tables (default 10) with a
unique index on pgbench_accounts(aid) and a second index on abalance, which
the script updates: every update is then non-HOT and adds an entry to both
indexes.  Reported: each index's growth in MB, and the TPS.

Both measure once per view, when the workload is prepared (sizes do not
need alternating rounds); the rounds add nothing."""

import os
import re
import time

from fpbench.common import BenchError, Metric, SIDES, Workload, log, pgbench, psql, psql_val

QUEUE_BATCH = int(os.environ.get("QUEUE_BATCH") or 100000)
QUEUE_CYCLES = int(os.environ.get("QUEUE_CYCLES") or 25)
CHURN_DURATION = int(os.environ.get("CHURN_DURATION") or 60)
CHURN_SCALE = int(os.environ.get("CHURN_SCALE") or 10)


def mb(rel, db=None):
    kw = {"db": db} if db else {}
    return int(psql_val("SELECT pg_relation_size('%s');" % rel, **kw)) / 1048576.0


def wl_queue():
    mfirst = Metric("queue_first", "queue: index size after cycle 1 (%d rows per cycle)" % QUEUE_BATCH, "MB",
                    "lower")
    mlast = Metric("queue_last", "queue: index size after cycle %d" % QUEUE_CYCLES, "MB", "lower")
    mgrowth = Metric("queue_growth", "queue: size after cycle %d / after cycle 1" % QUEUE_CYCLES, "x", "lower")
    mmin = Metric("queue_min_buffers", "queue: buffers read by SELECT min(id) at the end", "buffers", "lower")

    def prepare():
        for side in SIDES:
            t = "queue_%s" % side["s"]
            psql("""
DROP TABLE IF EXISTS {t};
CREATE TABLE {t} (id int8, pad text) WITH (autovacuum_enabled = off);
CREATE INDEX {t}_id ON {t} USING {am} (id);
INSERT INTO {t} SELECT g, 'queued job' FROM generate_series(1, {n}) g;
VACUUM {t};
""".format(t=t, am=side["am"], n=QUEUE_BATCH))
            sizes = []
            t0 = time.time()
            for c in range(1, QUEUE_CYCLES + 1):
                psql("""
INSERT INTO {t} SELECT g, 'queued job' FROM generate_series({lo}, {hi}) g;
DELETE FROM {t} WHERE id < {cut};
VACUUM {t};
""".format(t=t, lo=c * QUEUE_BATCH + 1, hi=(c + 1) * QUEUE_BATCH, cut=c * QUEUE_BATCH + 1))
                sizes.append(mb(t + "_id"))
            out = psql("SET enable_seqscan = off; SET enable_bitmapscan = off;\n"
                       "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) SELECT min(id) FROM %s;" % t)
            m = re.search(r"Buffers: shared (?:hit=(\d+))?\s*(?:read=(\d+))?", out)
            if not m:
                raise BenchError("queue: no buffer counts in\n" + out)
            bufs = int(m.group(1) or 0) + int(m.group(2) or 0)
            n = int(psql_val("SELECT count(*) FROM %s;" % t))
            if n != QUEUE_BATCH:
                raise BenchError("queue: %d rows left in %s, expected %d" % (n, t, QUEUE_BATCH))
            mfirst.values[side["id"]].append(sizes[0])
            mlast.values[side["id"]].append(sizes[-1])
            mgrowth.values[side["id"]].append(sizes[-1] / sizes[0])
            mmin.values[side["id"]].append(bufs)
            log("  queue %s: sizes per cycle %s MB, min(id) %d buffers, %.0f s" %
                (side["name"], " ".join("%.1f" % x for x in sizes), bufs, time.time() - t0))
            psql("DROP TABLE %s;" % t)

    return Workload("queue", "queue: insert at the high end, delete the oldest, VACUUM", prepare, [],
                    [mfirst, mlast, mgrowth, mmin])


def churn_db(side):
    return "bench_churn_%s" % side["s"]


def wl_churn():
    maid = Metric("churn_aid", "TPC-B-like %d s, no VACUUM: growth of the unique aid index" % CHURN_DURATION,
                  "MB", "lower")
    mbal = Metric("churn_abalance", "the same: growth of the abalance index (non-HOT updates)", "MB", "lower")
    mtps = Metric("churn_tps", "the same: TPS, 2 clients", "TPS", "higher")

    def prepare():
        from fpbench.common import PGBIN, conn_args, pg_env, run
        for side in SIDES:
            db = churn_db(side)
            psql("DROP DATABASE IF EXISTS %s;" % db, db="postgres")
            psql("CREATE DATABASE %s;" % db, db="postgres")
            if side["am"] != "btree":
                psql("CREATE EXTENSION IF NOT EXISTS fpbtree;", db=db)
            run([PGBIN + "/pgbench", "-i", "-I", "dtgv", "-s", str(CHURN_SCALE), "-q"] + conn_args() + [db],
                env=pg_env())
            psql("""
CREATE UNIQUE INDEX ON pgbench_branches USING {am} (bid);
CREATE UNIQUE INDEX ON pgbench_tellers USING {am} (tid);
CREATE UNIQUE INDEX churn_aid ON pgbench_accounts USING {am} (aid);
CREATE INDEX churn_abalance ON pgbench_accounts USING {am} (abalance);
VACUUM ANALYZE;
CHECKPOINT;
""".format(am=side["am"]), db=db)
            a0, b0 = mb("churn_aid", db), mb("churn_abalance", db)
            r = pgbench("builtin:tpcb-like", clients=2, duration=CHURN_DURATION, seed=11, db=db,
                        tag="churn %s" % side["id"])
            a1, b1 = mb("churn_aid", db), mb("churn_abalance", db)
            maid.values[side["id"]].append(a1 - a0)
            mbal.values[side["id"]].append(b1 - b0)
            mtps.values[side["id"]].append(r["tps"])
            log("  churn %s: aid %.1f -> %.1f MB, abalance %.1f -> %.1f MB, %.0f TPS" %
                (side["name"], a0, a1, b0, b1, r["tps"]))
            psql("DROP DATABASE %s;" % db, db="postgres")

    return Workload("churn", "TPC-B-like without VACUUM, non-HOT updates: index growth", prepare, [],
                    [maid, mbal, mtps])
