"""Wide-key workloads, btree (A) against fpbtree (B): index nested-loop
probes, range counts and CREATE INDEX on 32-character text keys (under
"C", an ICU collation and glibc's C.UTF-8), on URL-like text keys whose
first 37 bytes are all alike, and on uuid keys."""

import time

from fpbench import common as C
from fpbench.common import (BenchError, FORCE_INDEX, FORCE_NESTLOOP, Metric, SCALE, SETUP, SIDES,
                            Test, Workload, check_plan, log, note_plan, parse_times, pgbench, psql,
                            psql_out_err, psql_val)

# at most 5M rows and 500k probes (the figure)
WK_ROWS = min(SCALE, 5000000)
WK_PROBES = max(1, min(500000, WK_ROWS // 10))
# (column, SQL type, value from the row number i)
WK_COLS = [
    ("c", "text COLLATE \"C\"", "md5(i::text)"),
    ("i", "text COLLATE \"en-x-icu\"", "md5(i::text)"),
    ("l", "text COLLATE \"C.utf8\"", "md5(i::text)"),
    ("u", "uuid", "md5((i * 3)::text)::uuid"),
    ("p", "text COLLATE \"C\"", "'https://www.example.com/catalog/item/' || md5(i::text)"),
]
# how the tables name a column whose type alone would not tell it apart
WK_LABELS = {"p": "URL-like text COLLATE \"C\""}
# range counts over about half of the keys: (column, condition)
WK_RANGES = [("c", "c < '8'"), ("p", "p < 'https://www.example.com/catalog/item/8'")]


def wk_tbl(side):
    return "wk_%s" % side["s"]


def ensure_wk():
    """wk_bt / wk_fp: the same rows in the same order, one index per column
    of each table's access method; wkp_<col>: random existing keys."""
    if "wk" in C._made:
        return
    cols = ", ".join("%s %s" % (c, t) for c, t, _ in WK_COLS)
    vals = ", ".join(v for _, _, v in WK_COLS)
    for side in SIDES:
        t0 = time.time()
        idxs = "".join("CREATE INDEX %s_%s ON %s USING %s (%s);\n" % (wk_tbl(side), c, wk_tbl(side),
                                                                   side["am"], c)
                       for c, _, _ in WK_COLS)
        psql("""
DROP TABLE IF EXISTS {t};
CREATE TABLE {t} ({cols}) WITH (autovacuum_enabled = off);
INSERT INTO {t} SELECT {vals} FROM generate_series(1, {n}) AS i;
{idxs}VACUUM (ANALYZE) {t};
""".format(t=wk_tbl(side), cols=cols, vals=vals, n=WK_ROWS, idxs=idxs), options=SETUP)
        log("  loaded %s: %d rows, %s indexes, %.1f s" % (wk_tbl(side), WK_ROWS, side["am"],
                                                         time.time() - t0))
    for c, t, v in WK_COLS:
        psql("""
DROP TABLE IF EXISTS wkp_{c};
CREATE TABLE wkp_{c} (k {t}) WITH (autovacuum_enabled = off);
INSERT INTO wkp_{c} SELECT {v} FROM (SELECT 1 + (hashint8extended(g, 42) & 9223372036854775807) % {n} AS i
    FROM generate_series(1, {p}) AS g) s;
VACUUM (ANALYZE) wkp_{c};
""".format(c=c, t=t, v=v, n=WK_ROWS, p=WK_PROBES), options=SETUP)
    psql("CHECKPOINT;")
    C._made.add("wk")


def probe_sql(side, c):
    return "SELECT count(*) FROM wkp_%s p JOIN %s t ON t.%s = p.k" % (c, wk_tbl(side), c)


def wl_widekey():
    mp = {c: Metric("wk_probe_%s" % c, "index nested-loop join, %d probes, %s"
                    % (WK_PROBES, WK_LABELS.get(c, t)), "ms", "lower") for c, t, _ in WK_COLS}
    mr = {c: Metric("wk_range_%s" % c, "index-only count over half of %d keys, %s"
                    % (WK_ROWS, WK_LABELS.get(c, t)), "ms", "lower")
          for c, t, _ in WK_COLS if c in dict(WK_RANGES)}
    mci = {c: Metric("wk_ci_%s" % c, "CREATE INDEX, %d rows, %s" % (WK_ROWS, WK_LABELS.get(c, t)),
                     "ms", "lower") for c, t, _ in WK_COLS}
    msz = {c: Metric("wk_size_%s" % c, "index size, %s" % WK_LABELS.get(c, t), "MB", "lower")
           for c, t, _ in WK_COLS}

    def half(side, c):
        return "SELECT count(*) FROM %s WHERE %s" % (wk_tbl(side), dict(WK_RANGES)[c])

    def prepare():
        ensure_wk()
        for side in SIDES:
            for c, _, _ in WK_COLS:
                plan = check_plan(probe_sql(side, c), ["Nested Loop", "Index Only Scan using %s_%s"
                                                       % (wk_tbl(side), c)], FORCE_NESTLOOP, analyze=True)
                note_plan(mp[c], side["id"], plan)
                n = int(psql_val(probe_sql(side, c) + ";", options=FORCE_NESTLOOP))
                if n != WK_PROBES:
                    raise BenchError("probe join on %s.%s found %d of %d keys"
                                     % (wk_tbl(side), c, n, WK_PROBES))
            for c, _ in WK_RANGES:
                plan = check_plan(half(side, c), ["Index Only Scan using %s_%s" % (wk_tbl(side), c)],
                                  FORCE_INDEX, analyze=True)
                note_plan(mr[c], side["id"], plan)
        for c, _ in WK_RANGES:
            counts = {psql_val(half(s, c) + ";", options=FORCE_INDEX) for s in SIDES}
            if len(counts) != 1:
                raise BenchError("range counts on %s differ: %s" % (c, counts))

    def measure_probe(side, rnd):
        out = {}
        for c, _, _ in WK_COLS:
            r = pgbench("wk_probe.sql", transactions=3, mode="simple", seed=rnd,
                        defines={"tbl": wk_tbl(side), "col": c}, tag="wk probe %s %s" % (c, side["id"]))
            out[mp[c].key] = r["lat_ms"]
        return out

    def measure_range(side, rnd):
        res = {}
        for c, _ in WK_RANGES:
            out, _ = psql_out_err("\\timing on\n" + (half(side, c) + ";\n") * 3,
                                  options=FORCE_INDEX)
            res[mr[c].key] = sorted(parse_times(out)[-3:])[1]
        return res

    def measure_ci(side, rnd):
        res = {}
        for c, _, _ in WK_COLS:
            psql("DROP INDEX IF EXISTS wk_ci_tmp; CHECKPOINT;")
            # at the view's settings: btree may build in parallel
            out, _ = psql_out_err("\\timing on\n"
                                  "CREATE INDEX wk_ci_tmp ON wk_bt USING %s (%s);\n" % (side["am"], c))
            res[mci[c].key] = parse_times(out)[-1]
            res[msz[c].key] = int(psql_val("SELECT pg_relation_size('wk_ci_tmp');")) / 1048576.0
            psql("DROP INDEX wk_ci_tmp;")
        return res

    metrics = list(mp.values()) + list(mr.values()) + list(mci.values()) + list(msz.values())
    return Workload("widekey", "text and uuid keys", prepare,
                    [Test(measure_probe, list(mp.values())), Test(measure_range, list(mr.values())),
                     Test(measure_ci, list(mci.values()) + list(msz.values()))], metrics)
