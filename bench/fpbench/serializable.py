"""Serializable transactions: each looks up one random key of a 1M-row table
and inserts another, 4 clients.  With page-level predicate locks (btree,
fpbtree since 82e4c51) two transactions conflict only when their reads and
writes meet on a leaf page; an index without them is locked whole by every
serializable scan, and most transactions fail.  Reports the committed
transactions' TPS and the share that failed (serialization failures, which
pgbench counts and does not retry)."""

from fpbench.common import DURATION, Metric, SIDES, Test, Workload, check_plan, note_plan, pgbench, psql

NROWS = 1000000
CLIENTS = 4


def ssi_tbl(side):
    return "ssi_%s" % side["s"]


def wl_serializable():
    mtps = Metric("ssi_tps", "serializable lookup + insert, %d clients: committed" % CLIENTS, "TPS", "higher")
    mfail = Metric("ssi_failed", "the same: transactions failed (serialization)", "%", "lower")

    def prepare():
        for side in SIDES:
            t = ssi_tbl(side)
            psql("""
DROP TABLE IF EXISTS {t};
CREATE TABLE {t} (k int8, v int8) WITH (autovacuum_enabled = off);
INSERT INTO {t} SELECT hashint8(g), g FROM generate_series(1, {n}) g;
CREATE INDEX {t}_k ON {t} USING {am} (k);
VACUUM ANALYZE {t};
""".format(t=t, n=NROWS, am=side["am"]))
            plan = check_plan("SELECT v FROM %s WHERE k = hashint8(12345)" % t,
                              ["Index Scan using %s_k on %s" % (t, t)], None)
            note_plan([mtps, mfail], side["id"], plan)

    def measure(side, rnd):
        r = pgbench("serializable_%s.sql" % side["s"], clients=CLIENTS, duration=DURATION,
                    seed=1000 * rnd + 11, failures_ok=True, tag="serializable %s" % side["id"])
        total = r["committed"] + r["failed"]
        return {mtps.key: r["tps"], mfail.key: 100.0 * r["failed"] / total if total else 0.0}

    return Workload("serializable", "serializable transactions: lookup and insert, page-level predicate locks",
                    prepare, [Test(measure, [mtps, mfail])], [mtps, mfail])
