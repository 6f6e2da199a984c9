"""pgbench's own workloads with unique indexes: the TPC-B-like and the
select-only (-S) scripts on `pgbench -i -I dtgv` tables (no primary keys),
then unique indexes on pgbench_accounts(aid), pgbench_branches(bid) and
pgbench_tellers(tid): btree's (A) or fpbtree's (B), one database per side.
PGBENCH_SCALE sets pgbench's scale factor (default 20: 2M accounts)."""

import os
import time

from fpbench.common import (BenchError, DURATION, Metric, SIDES, Test, Workload, check_plan, log, note_plan,
    pgbench, psql)

PGBENCH_SCALE = int(os.environ.get("PGBENCH_SCALE") or 20)
_made = set()


def tpcb_db(side):
    return "bench_tpcb_%s" % side["s"]


def ensure_tpcb():
    """one database per side, loaded by pgbench itself, then the indexes"""
    if "tpcb" in _made:
        return
    from fpbench.common import PGBIN, conn_args, run, pg_env
    for side in SIDES:
        db = tpcb_db(side)
        psql("DROP DATABASE IF EXISTS %s;" % db, db="postgres")
        psql("CREATE DATABASE %s;" % db, db="postgres")
        if side["am"] != "btree":
            psql("CREATE EXTENSION IF NOT EXISTS fpbtree;", db=db)
        t0 = time.time()
        run([PGBIN + "/pgbench", "-i", "-I", "dtgv", "-s", str(PGBENCH_SCALE), "-q"] + conn_args() + [db],
            env=pg_env())
        psql("""
CREATE UNIQUE INDEX ON pgbench_branches USING {am} (bid);
CREATE UNIQUE INDEX ON pgbench_tellers USING {am} (tid);
CREATE UNIQUE INDEX pgbench_accounts_aid ON pgbench_accounts USING {am} (aid);
VACUUM ANALYZE;
CHECKPOINT;
""".format(am=side["am"]), db=db)
        log("  %s: pgbench -i -I dtgv -s %d and unique %s indexes: %.1f s"
            % (db, PGBENCH_SCALE, side["name"], time.time() - t0))
    _made.add("tpcb")


def wl_pgbench_std():
    mtpcb = Metric("pgbench_tpcb", "pgbench TPC-B-like, scale %d, unique indexes, 2 clients" % PGBENCH_SCALE,
                   "TPS", "higher")
    msel = Metric("pgbench_select", "pgbench select-only (-S), scale %d, unique indexes, 2 clients" % PGBENCH_SCALE,
                  "TPS", "higher")

    def prepare():
        ensure_tpcb()
        for side in SIDES:
            plan = check_plan("SELECT abalance FROM pgbench_accounts WHERE aid = 12345",
                              ["Index Scan using pgbench_accounts_aid on pgbench_accounts"], None, db=tpcb_db(side))
            note_plan([mtpcb, msel], side["id"], plan)
            psql("SELECT count(*) FROM pgbench_accounts WHERE aid > 0;", db=tpcb_db(side),
                 options=["enable_seqscan=off", "enable_bitmapscan=off"])

    def test(metric, script):
        def measure(side, rnd):
            r = pgbench(script, clients=2, duration=DURATION, seed=1000 * rnd + 7, db=tpcb_db(side),
                        tag="%s %s" % (metric.key, side["id"]))
            return {metric.key: r["tps"]}
        return Test(measure, [metric])

    return Workload("pgbench", "pgbench's TPC-B-like and select-only scripts on unique indexes", prepare,
                    [test(msel, "builtin:select-only"), test(mtpcb, "builtin:tpcb-like")], [msel, mtpcb])
