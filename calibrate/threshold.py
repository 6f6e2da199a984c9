#!/usr/bin/env python3
"""The cardinality threshold fpbtree.buffer_min_rows (Zhou & Ross §6, §7.3),
measured deterministically under cachegrind.

A Q1-shaped query (sum of the charge expression, avg of the quantity,
count(*)) runs over a table of --table-rows rows whose scan predicate lets
K rows through, spread evenly over the table (l_sel is a permutation of
0..N-1 and the qual is l_sel < K), for growing K.  Each K runs twice: with
the plan refinement off, and with it forced to put a Buffer between the scan
and the aggregation (fpbtree.buffer_min_rows = 0, an emulated L1i of the
simulated cache's size).  Every run is a single-user backend under
cachegrind with a simulated L1i (--i1, 16 kB 4-way by default, the paper's
machine), D1 and LL, and the branch predictor simulation; the query is
PREPAREd and a session with two EXECUTEs minus one with one EXECUTE is one
warm execution (start-up, planning and catalog loads cancel out).

Wall time is not used: on a shared 2-core VM it varied by more than the
effect.  Instead each execution gets an estimated cycle count

    cycles = Ir + P1 * (I1mr + D1mr + D1mw) + PLL * (ILmr + DLmr + DLmw)
             + PBR * (Bcm + Bim)

with the penalties P1 (an L1 miss served by the last level, default 10
cycles), PLL (a last-level miss, default 100) and PBR (a mispredicted
branch, default 15), one cycle per instruction otherwise.  The threshold is
the smallest K from which the buffered plan's estimate stays below the
unbuffered one's for every larger K measured; it is reported for several
L1-miss penalties, with the penalty at which the Buffer breaks even on the
largest K.  --out writes the table and, beside it as .csv, the raw event
counts of every run, so other penalties can be applied later.

    calibrate/threshold.py [--table-rows 100000] [--out calibrate/threshold.txt]

Needs valgrind and the extension installed (PGBIN names the server's bin
directory, /usr/lib/postgresql/15/bin by default); runs as root (switches to
the postgres user) or as postgres.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

# the TPC-H-shaped generator the benchmark uses (bench/fpbench/tpchgen.py)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench"))
from fpbench.tpchgen import single_user, tpch_sql  # noqa: E402

QUERY = ("SELECT sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge, "
         "avg(l_quantity) AS avg_qty, count(*) AS count_order FROM cal_lineitem WHERE l_sel < {k}")

EVENTS = ("Ir", "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw", "D1mw", "DLmw",
          "Bc", "Bcm", "Bi", "Bim")


def as_postgres(cmd):
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--"] + cmd
    return cmd


def single_cmd(args):
    return [os.path.join(args.pgbin, "postgres"), "--single", "-D", args.data, "-j",
            "-c", "shared_preload_libraries=fpbtree",
            "-c", "max_parallel_workers_per_gather=0", "-c", "jit=off",
            "-c", "shared_buffers=128MB", "-c", "work_mem=64MB", "postgres"]


def single(args, text, valgrind=None):
    cmd = single_cmd(args)
    if valgrind:
        cmd = valgrind + cmd
    p = subprocess.run(as_postgres(cmd), input=text, capture_output=True, text=True)
    if p.returncode != 0 or "ERROR" in p.stdout:
        sys.stderr.write(p.stdout[-3000:] + p.stderr[-3000:])
        raise SystemExit("single-user backend failed")
    return p


def sets(args, buffered):
    if not buffered:
        return "SET enable_buffer_operator = off;\n\n"
    return ("SET enable_buffer_operator = on;\n\nSET fpbtree.buffer_min_rows = 0;\n\n"
            "SET fpbtree.l1i_cache_size = '%dB';\n\n" % int(args.i1.split(",")[0]))


def cachegrind(args, buffered, k, n):
    """summary counts of a session with n EXECUTEs, and its output"""
    out = os.path.join(args.workdir, "cg.%s.%d.%d" % ("on" if buffered else "off", k, n))
    text = sets(args, buffered) + "PREPARE q AS " + QUERY.format(k=k) + ";\n\n" + \
        "EXECUTE q;\n\n" * n
    vg = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes",
          "--I1=" + args.i1, "--D1=" + args.d1, "--LL=" + args.ll,
          "--cachegrind-out-file=" + out]
    p = single(args, text, vg)
    with open(out) as f:
        hdr = summ = None
        for line in f:
            if line.startswith("events:"):
                hdr = line.split()[1:]
            elif line.startswith("summary:"):
                summ = [int(x) for x in line.split()[1:]]
    vals = dict(zip(hdr, summ))
    return vals, re.findall(r'count_order = "(\d+)"', p.stdout)


def one_execution(args, buffered, k):
    one, r1 = cachegrind(args, buffered, k, 1)
    two, r2 = cachegrind(args, buffered, k, 2)
    if not r1 or r2 != r1 + r1:
        raise SystemExit("unexpected results for K=%d: %s / %s" % (k, r1, r2))
    return {e: two[e] - one[e] for e in EVENTS}, r1[0]


def cycles(args, v, p1=None):
    p1 = args.p1 if p1 is None else p1
    return (v["Ir"] + p1 * (v["I1mr"] + v["D1mr"] + v["D1mw"])
            + args.pll * (v["ILmr"] + v["DLmr"] + v["DLmw"])
            + args.pbr * (v["Bcm"] + v["Bim"]))


def report(args, rows):
    """the analysis lines for rows of (K, unbuffered events, buffered events)"""
    out = [""]
    # per-row difference at the largest K, and what an L1 miss must cost
    # for the Buffer to pay for itself there
    k, off, on = rows[-1]
    d_rest = cycles(args, on, 0) - cycles(args, off, 0)
    d_l1 = (on["I1mr"] + on["D1mr"] + on["D1mw"]) - (off["I1mr"] + off["D1mr"] + off["D1mw"])
    out.append("at K = %d, buffered minus unbuffered per row: %+.1f instructions, %+.2f I1 misses, "
               "%+.2f D1 misses, %+.3f LL misses, %+.2f mispredicted branches"
               % (k, (on["Ir"] - off["Ir"]) / k, (on["I1mr"] - off["I1mr"]) / k,
                  (on["D1mr"] + on["D1mw"] - off["D1mr"] - off["D1mw"]) / k,
                  (on["ILmr"] + on["DLmr"] + on["DLmw"] - off["ILmr"] - off["DLmr"] - off["DLmw"]) / k,
                  (on["Bcm"] + on["Bim"] - off["Bcm"] - off["Bim"]) / k))
    if d_l1 < 0:
        out.append("break-even L1-miss penalty at K = %d: %.1f cycles" % (k, d_rest / -d_l1))
    # the threshold: the smallest K at which buffering becomes cheaper (the
    # low-end crossover), and up to which K it stays so
    for p1 in [float(x) for x in args.p1_list.split(",")]:
        cheaper = [k for k, off, on in rows if cycles(args, on, p1) < cycles(args, off, p1)]
        if not cheaper:
            out.append("L1-miss penalty %3.0f cycles: buffered never cheaper" % p1)
            continue
        first = cheaper[0]
        last = first
        for k, off, on in rows:
            if k < first:
                continue
            if cycles(args, on, p1) >= cycles(args, off, p1):
                break
            last = k
        tail = "and at every larger K" if last == rows[-1][0] else "up to K = %d" % last
        out.append("L1-miss penalty %3.0f cycles: buffered cheaper from K = %d %s" % (p1, first, tail))
    return out


def from_csv(args):
    """re-analyse a saved .csv (other penalties)"""
    data = {}
    with open(args.from_csv) as f:
        hdr = f.readline().strip().split(",")
        for line in f:
            v = line.strip().split(",")
            data.setdefault(int(v[0]), {})[v[1]] = {e: int(x) for e, x in zip(hdr[2:], v[2:])}
    rows = [(k, data[k]["off"], data[k]["on"]) for k in sorted(data)]
    print("\n".join(report(args, rows)))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pgbin", default=os.environ.get("PGBIN", "/usr/lib/postgresql/15/bin"))
    ap.add_argument("--workdir", default="/tmp/fpbthreshold")
    ap.add_argument("--table-rows", type=int, default=100000)
    ap.add_argument("--ks", default="0,10,30,100,300,600,1000,3000,10000,30000,100000",
                    help="comma list of scan output cardinalities")
    ap.add_argument("--i1", default="16384,4,64")
    ap.add_argument("--d1", default="32768,8,64")
    ap.add_argument("--ll", default="8388608,16,64")
    ap.add_argument("--p1", type=float, default=10)
    ap.add_argument("--p1-list", default="10,20,30,40,60",
                    help="other L1-miss penalties to report the crossover for")
    ap.add_argument("--pll", type=float, default=100)
    ap.add_argument("--pbr", type=float, default=15)
    ap.add_argument("--out", default=None, help="also write the table here")
    ap.add_argument("--from-csv", default=None,
                    help="only analyse the raw counts of an earlier --out (its .csv)")
    args = ap.parse_args()
    if args.from_csv:
        from_csv(args)
        return

    args.data = os.path.join(args.workdir, "data")
    os.makedirs(args.workdir, exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(args.workdir, "postgres")
    stamp = os.path.join(args.workdir, "rows")
    if not os.path.exists(os.path.join(args.data, "PG_VERSION")) or \
            not os.path.exists(stamp) or open(stamp).read().strip() != str(args.table_rows):
        shutil.rmtree(args.data, ignore_errors=True)
        subprocess.run(as_postgres([os.path.join(args.pgbin, "initdb"), "-D", args.data,
                                    "-A", "trust", "--no-sync"]),
                       check=True, stdout=subprocess.DEVNULL)
        single(args, single_user(tpch_sql(args.table_rows, prefix="cal_", lineitem_only=True, sel=True)))
        with open(stamp, "w") as f:
            f.write(str(args.table_rows))

    # the buffered side must really have a Buffer above the scan
    plan = single(args, sets(args, True) + "EXPLAIN (COSTS OFF) " +
                  QUERY.format(k=args.table_rows) + ";\n\n").stdout
    if "Buffer" not in plan:
        raise SystemExit("the pass placed no Buffer:\n" + plan)

    lines = ["Q1-shaped query over %d rows, scan output K rows spread evenly; "
             "cachegrind --I1=%s --D1=%s --LL=%s --branch-sim=yes; one warm execution "
             "(two EXECUTEs minus one)" % (args.table_rows, args.i1, args.d1, args.ll),
             "est. cycles = Ir + %g * (I1mr + D1mr + D1mw) + %g * (ILmr + DLmr + DLmw) + %g * (Bcm + Bim)"
             % (args.p1, args.pll, args.pbr),
             "",
             "%7s %12s %12s %9s %9s %9s %9s %13s %13s %8s" %
             ("K", "Ir off", "Ir on", "I1mr off", "I1mr on", "Bm off", "Bm on",
              "cycles off", "cycles on", "on/off")]
    print("\n".join(lines), flush=True)
    rows = []
    raw = ["K,plan," + ",".join(EVENTS)]
    for k in [int(x) for x in args.ks.split(",")]:
        off, c_off = one_execution(args, False, k)
        on, c_on = one_execution(args, True, k)
        if c_off != c_on or int(c_off) != k:
            raise SystemExit("K=%d: counts %s / %s" % (k, c_off, c_on))
        raw.append("%d,off,%s" % (k, ",".join(str(off[e]) for e in EVENTS)))
        raw.append("%d,on,%s" % (k, ",".join(str(on[e]) for e in EVENTS)))
        y_off, y_on = cycles(args, off), cycles(args, on)
        rows.append((k, off, on))
        line = "%7d %12d %12d %9d %9d %9d %9d %13d %13d %8.3f" % (
            k, off["Ir"], on["Ir"], off["I1mr"], on["I1mr"],
            off["Bcm"] + off["Bim"], on["Bcm"] + on["Bim"], y_off, y_on,
            y_on / y_off if y_off else 0)
        print(line, flush=True)
        lines.append(line)

    lines += report(args, rows)
    print("\n".join(lines[-(3 + len(args.p1_list.split(","))):]))
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(os.path.splitext(args.out)[0] + ".csv", "w") as f:
            f.write("\n".join(raw) + "\n")


if __name__ == "__main__":
    main()
