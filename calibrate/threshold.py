#!/usr/bin/env python3
"""The cardinality threshold fpbtree.buffer_min_rows (Zhou & Ross §6, §7.3):
run a Q1-shaped query with and without a Buffer between scan and aggregation
while the scan's predicate lets K rows through, for growing K; the threshold
is the smallest K from which the buffered plan is faster.

The Buffer is forced (fpbtree.buffer_min_rows = 0 and an emulated L1i of
--l1i, small enough that the pass splits scan and aggregation), so the
comparison measures what buffering costs and gains on this machine's real
instruction cache.  Runs alternate A/B, several rounds, medians of the
server-side execution time (EXPLAIN ANALYZE's "Execution Time", TIMING OFF).

    calibrate/threshold.py --port 5481 --host /tmp/bf [--table-rows 400000]
"""
import argparse
import re
import statistics
import subprocess
import sys

Q = ("SELECT sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)), "
     "avg(l_quantity), count(*) FROM cal_lineitem WHERE l_orderkey <= {k}")


def psql(args, sql):
    cmd = ["psql", "-X", "-qAt", "-v", "ON_ERROR_STOP=1", "-h", args.host,
           "-p", str(args.port), "-d", args.dbname, "-c", sql]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def exec_ms(args, buffered, k):
    sets = ("SET max_parallel_workers_per_gather = 0; SET jit = off; "
            "SET fpbtree.buffer_min_rows = 0; SET fpbtree.l1i_cache_size = '%s'; "
            "SET enable_buffer_operator = %s; " % (args.l1i, "on" if buffered else "off"))
    out = psql(args, sets + "EXPLAIN (ANALYZE, TIMING OFF, FORMAT TEXT) " + Q.format(k=k))
    if buffered and "Buffer" not in out:
        sys.exit("the pass placed no Buffer at --l1i %s: lower it" % args.l1i)
    return float(re.search(r"Execution Time: ([0-9.]+) ms", out).group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--host", default="/tmp")
    ap.add_argument("--port", default=5432, type=int)
    ap.add_argument("--dbname", default="postgres")
    ap.add_argument("--table-rows", default=400000, type=int)
    ap.add_argument("--rounds", default=7, type=int)
    ap.add_argument("--l1i", default="16kB")
    args = ap.parse_args()

    psql(args, """DROP TABLE IF EXISTS cal_lineitem;
        CREATE TABLE cal_lineitem AS
        SELECT i AS l_orderkey, ((i * 37) % 50 + 1)::numeric(15,2) AS l_quantity,
               ((i * 7919) % 100000 / 100.0 + 900)::numeric(15,2) AS l_extendedprice,
               ((i % 11) / 100.0)::numeric(15,2) AS l_discount,
               ((i % 9) / 100.0)::numeric(15,2) AS l_tax
        FROM generate_series(1::bigint, {n}) i""".format(n=args.table_rows))
    psql(args, "VACUUM ANALYZE cal_lineitem")

    ks = [k for k in (30, 100, 300, 600, 1000, 3000, 10000, 30000, 100000,
                      300000, 1000000) if k <= args.table_rows]
    print("%9s %12s %12s %8s" % ("rows", "unbuffered", "buffered", "ratio"))
    threshold = None
    for k in ks:
        a, b = [], []
        exec_ms(args, False, k)         # warm the cache
        for _ in range(args.rounds):
            a.append(exec_ms(args, False, k))
            b.append(exec_ms(args, True, k))
        ma, mb = statistics.median(a), statistics.median(b)
        print("%9d %10.2fms %10.2fms %8.3f" % (k, ma, mb, mb / ma), flush=True)
        if mb < ma and threshold is None:
            threshold = k
        elif mb >= ma:
            threshold = None
    psql(args, "DROP TABLE cal_lineitem")
    if threshold is None:
        print("the buffered plan is not faster at any cardinality on this machine")
    else:
        print("suggested fpbtree.buffer_min_rows: %d" % threshold)


if __name__ == "__main__":
    main()
