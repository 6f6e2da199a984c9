#!/usr/bin/env bash
# Backend CPU time (user + system, from log_statement_stats) and wall time of
# the large hash join under several configurations, alternating them for
# ROUNDS rounds, then the medians.  CPU time is less disturbed by other load
# on the machine than wall time.
#
#   PGHOST=... PGPORT=... PGDATABASE=... bench/hj_cpu.sh [rounds (5)]
#
# Needs the tables hj_a and hj_b that `make bench` creates
# (bench/fpbench/hashjoin.py's ensure_hj: HJ_ROWS rows of (k int8, v int8)
# each) and fpbtree preloaded.
# Run it as a user that can connect (e.g. su postgres -c ...).
set -euo pipefail

ROUNDS=${1:-5}
QUERY="SELECT count(*), sum(a.v + b.v) FROM hj_a a JOIN hj_b b ON a.k = b.k"
CONFIGS=("SET enable_prefetch_hashjoin = off;"
	""
	"SET fpbtree.hashjoin_radix_bits = 0;")
NAMES=("built-in" "PrefetchHashJoin (defaults)" "PrefetchHashJoin, radix off")

out=$(mktemp)
trap 'rm -f "$out"' EXIT

run() {
	psql -X -Atq 2>&1 <<SQL | sed -n 's/^!\t\([0-9.]*\) s user, \([0-9.]*\) s system, \([0-9.]*\) s elapsed$/\1 \2 \3/p'
SET work_mem = '1GB';
SET max_parallel_workers_per_gather = 0;
$1
SET client_min_messages = log;
SET log_statement_stats = on;
$QUERY;
SQL
}

for ((r = 1; r <= ROUNDS; r++)); do
	for i in "${!CONFIGS[@]}"; do
		read -r user sys wall < <(run "${CONFIGS[$i]}")
		cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
		printf 'round %d  %-30s CPU %6s s  wall %6s s\n' "$r" "${NAMES[$i]}" "$cpu" "$wall"
		echo "$i $cpu $wall" >>"$out"
	done
done

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo
for i in "${!CONFIGS[@]}"; do
	cpu=$(awk -v i="$i" '$1 == i { print $2 }' "$out" | median)
	wall=$(awk -v i="$i" '$1 == i { print $3 }' "$out" | median)
	printf 'median  %-30s CPU %6s s  wall %6s s\n' "${NAMES[$i]}" "$cpu" "$wall"
done
