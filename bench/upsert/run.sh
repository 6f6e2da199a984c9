#!/bin/bash
# Alternate the btree and the fpbtree database (bench/upsert/setup.sql):
# ROUNDS rounds of SECONDS-second pgbench runs with CLIENTS clients per
# script; prints the TPS of each run, then the medians and their ratio.
set -euo pipefail
dir=$(cd "$(dirname "$0")" && pwd)
ROUNDS=${ROUNDS:-5} SECONDS_PER_RUN=${SECONDS_PER_RUN:-10} CLIENTS=${CLIENTS:-2}
out=""
for s in upsert nothing; do
	for r in $(seq "$ROUNDS"); do
		for db in ups_bt ups_fp; do
			tps=$(pgbench -n -c "$CLIENTS" -j "$CLIENTS" -T "$SECONDS_PER_RUN" \
				-f "$dir/$s.pgb" "$db" | sed -n 's/^tps = \([0-9.]*\).*/\1/p' | head -1)
			echo "$s $r $db $tps"
			out+="$s $r $db $tps"$'\n'
		done
	done
done
python3 -c '
import statistics, sys
runs = {}
for line in filter(str.strip, sys.stdin):
    s, r, db, tps = line.split()
    runs.setdefault((s, db), []).append(float(tps))
for s in ("upsert", "nothing"):
    bt, fp = runs[(s, "ups_bt")], runs[(s, "ups_fp")]
    per = [f / b for b, f in zip(bt, fp)]
    print(f"{s}: btree {statistics.median(bt):,.0f} TPS, fpbtree {statistics.median(fp):,.0f} TPS, "
          f"ratio {statistics.median(fp) / statistics.median(bt):.2f} (per round {min(per):.2f}-{max(per):.2f})")
' <<<"$out"
