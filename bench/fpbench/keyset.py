"""Keyset pagination: pages read by a row comparison, the way applications
page through a table and batch jobs walk one.  Two tables of 2M rows, each
with a two-column index, btree's (A) or fpbtree's (B):

  keyset_ts      (created_at timestamptz, id int8) rows 37 ms apart:
                 WHERE (created_at, id) > ($1, $2) ORDER BY created_at, id
                 LIMIT 50, the bound a random row's, prepared (a generic
                 plan after five executions);
  keyset_tenant  (tenant int8, id int8), 50 tenants of 40,000 rows: a batch
                 of 100 from a random (tenant, id).

One client each.  PostgreSQL 15 gives row comparisons to btree alone;
fpbtree's planner hook makes them its row bound (src/am/README.md, "Row
comparisons")."""

from fpbench.common import DURATION, Metric, SETUP, SIDES, Test, Workload, check_plan, note_plan, pgbench, psql

NROWS = 2000000
_made = set()


def ks_tbl(side, kind):
    return "keyset_%s_%s" % (kind, side["s"])


def ensure_keyset():
    if "keyset" in _made:
        return
    for side in SIDES:
        psql("""
DROP TABLE IF EXISTS {ts}, {tn};
CREATE TABLE {ts} (created_at timestamptz, id int8) WITH (autovacuum_enabled = off);
INSERT INTO {ts} SELECT timestamptz '2026-01-01 00:00+00' + g * interval '37 ms', g
FROM generate_series(1, {n}) g;
CREATE INDEX {ts}_i ON {ts} USING {am} (created_at, id);
CREATE TABLE {tn} (tenant int8, id int8) WITH (autovacuum_enabled = off);
INSERT INTO {tn} SELECT g % 50, g FROM generate_series(1, {n}) g;
CREATE INDEX {tn}_i ON {tn} USING {am} (tenant, id);
VACUUM ANALYZE {ts}, {tn};
""".format(ts=ks_tbl(side, "ts"), tn=ks_tbl(side, "tenant"), n=NROWS, am=side["am"]), options=SETUP)
    _made.add("keyset")


def wl_keyset():
    mts = Metric("keyset_ts", "keyset page of 50, (created_at, id), prepared", "TPS", "higher")
    mtn = Metric("keyset_tenant", "keyset batch of 100, (tenant, id), 40,000 rows a tenant", "TPS", "higher")

    def prepare():
        ensure_keyset()
        for side in SIDES:
            for m, kind, q in ((mts, "ts", "SELECT created_at, id FROM %s WHERE (created_at, id) > "
                                "('2026-01-05 00:00+00', 100) ORDER BY created_at, id LIMIT 50"),
                               (mtn, "tenant", "SELECT tenant, id FROM %s WHERE (tenant, id) > (7, 1000007) "
                                "ORDER BY tenant, id LIMIT 100")):
                t = ks_tbl(side, kind)
                # analyze: fails unless Heap Fetches: 0 (the tables all-visible)
                plan = check_plan(q % t, ["Index Only Scan using %s_i on %s" % (t, t)], None, analyze=True)
                note_plan(m, side["id"], plan)
                psql("SELECT count(*) FROM %s WHERE %s > 0;" % (t, "id"), options=["enable_seqscan=off"])

    def test(m, kind):
        def measure(side, rnd):
            r = pgbench("%s.sql" % ks_tbl(side, kind), clients=1, duration=DURATION,
                        seed=1000 * rnd + 13, tag="%s %s" % (m.key, side["id"]))
            return {m.key: r["tps"]}
        return Test(measure, [m])

    return Workload("keyset", "keyset pagination: row comparisons", prepare,
                    [test(mts, "ts"), test(mtn, "tenant")], [mts, mtn])
