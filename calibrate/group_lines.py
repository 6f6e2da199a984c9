#!/usr/bin/env python3
"""The code lines an execution group touches per row, and how they fall
into the sets of a set-associative L1 instruction cache.

Input: a callgrind profile made with --dump-instr=yes and --toggle-collect
around the group (e.g. --toggle-collect=ExecAgg --toggle-collect=buffer_refill
collects the aggregation's side of a Buffer: on in ExecAgg, off while the
Buffer refills from its child).  A 64-byte line counts as touched per row if
one of its instructions ran at least --per-row times per row.

Prints the group's hot lines (bytes), the lines per set of a --sets x --ways
cache, and the misses per row an LRU cache would take on them if the group
cycles through its lines once per row: every line of a set with more lines
than ways misses every time (LRU on a cyclic sequence), the others stay.
That is the group's own conflict floor; with a fully associative cache of
the same size the group would fit when its lines number at most sets x ways.

    calibrate/group_lines.py callgrind.out ROWS [--sets 64 --ways 4]
"""
import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from footprints import parse_instructions  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("profile")
    ap.add_argument("rows", type=int)
    ap.add_argument("--per-row", type=float, default=0.5)
    ap.add_argument("--sets", type=int, default=64)
    ap.add_argument("--ways", type=int, default=4)
    ap.add_argument("--line", type=int, default=64)
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()

    count, owner, _ = parse_instructions(args.profile)
    lines = collections.defaultdict(int)
    lfn = {}
    for addr, n in count.items():
        ln = addr // args.line
        lines[ln] = max(lines[ln], n)
        lfn.setdefault(ln, owner.get(addr))
    hot = sorted(ln for ln, n in lines.items() if n >= args.per_row * args.rows)
    per_set = collections.defaultdict(list)
    for ln in hot:
        per_set[ln % args.sets].append(ln)
    over = {s: l for s, l in per_set.items() if len(l) > args.ways}
    floor = sum(len(l) for l in over.values())
    print("hot lines (run >= %.2f times per row): %d = %d bytes" %
          (args.per_row, len(hot), len(hot) * args.line))
    print("cache: %d sets x %d ways = %d bytes" %
          (args.sets, args.ways, args.sets * args.ways * args.line))
    hist = collections.Counter(len(per_set.get(s, [])) for s in range(args.sets))
    print("lines per set: " + ", ".join("%d: %d sets" % (k, hist[k]) for k in sorted(hist)))
    print("sets with more lines than ways: %d, holding %d lines -> about %d misses per row"
          % (len(over), floor, floor))
    byfn = collections.Counter(lfn[ln] for ln in hot)
    print("hot lines by function:")
    for f, n in byfn.most_common(args.top):
        print("  %5d bytes  %s" % (n * args.line, f))


if __name__ == "__main__":
    main()
