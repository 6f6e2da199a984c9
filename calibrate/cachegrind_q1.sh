#!/usr/bin/env bash
# I1 misses of a TPC-H Q1-shaped query with and without the Buffer
# operator, under cachegrind with a simulated L1 instruction cache (16 kB,
# 4-way, 64-byte lines by default, as on the paper's machine).
#
#   calibrate/cachegrind_q1.sh [rows (1000000)] [I1 spec (16384,4,64)]
#
# The query is PREPAREd and each plan runs in two single-user sessions, one
# with one EXECUTE and one with two; the difference is one warm execution
# (start-up, planning and the first execution's catalog loads cancel out).
# cg_diff of the two runs is kept as $WORKDIR/diff.<plan> for cg_annotate
# (per-function misses of one execution).
#
# QUERY=short (default): sum of the charge, avg of the quantity and count(*)
#   under the shipdate qual (the shape of the first I1 measurements);
# QUERY=full: TPC-H Q1 itself (8 aggregates grouped by returnflag and
#   linestatus), as the benchmark's cachegrind Q1 part
#   (bench/fpbench/cachegrind.py) runs it.
# BUFFER_SIZE=n sets fpbtree.buffer_size for the buffered run (default: the
# setting's default); EXTRA="SET ...;" is run before both plans.
# POSTGRES=path runs another server binary for the measured sessions (an
# unstripped one from calibrate/build_postgres_symbols.sh names PostgreSQL's
# static functions in the cg_annotate output), LIBRARY=path the extension.
# Needs valgrind and the extension installed; runs as root (switches to the
# postgres user) or as postgres.  Work files go to ${WORKDIR:-/tmp/fpbcg}.
set -euo pipefail

ROWS=${1:-1000000}
I1=${2:-16384,4,64}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
WORKDIR=${WORKDIR:-/tmp/fpbcg}
QUERY=${QUERY:-short}
DATA=$WORKDIR/data
POSTGRES=${POSTGRES:-$PGBIN/postgres}
LIBRARY=${LIBRARY:-fpbtree}

asp() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

mkdir -p "$WORKDIR"
[ "$(id -u)" = 0 ] && chown postgres "$WORKDIR"

SINGLE_OPTS=(-c shared_preload_libraries=$LIBRARY -c max_parallel_workers_per_gather=0
	-c jit=off -c shared_buffers=512MB -c work_mem=64MB)

single() {
	asp "$PGBIN/postgres" --single -D "$DATA" -j "${SINGLE_OPTS[@]}" postgres
}

if [ ! -f "$DATA/PG_VERSION" ] || [ "$(cat "$WORKDIR/rows" 2>/dev/null)" != "$ROWS tpchgen" ]; then
	rm -rf "$DATA"
	asp "$PGBIN/initdb" -D "$DATA" -A trust --no-sync >/dev/null
	python3 "$(dirname "$0")/../bench/fpbench/tpchgen.py" "$ROWS" --lineitem-only --single-user | single >/dev/null
	[ "$(echo 'SELECT count(*) FROM lineitem;' | single | grep -c "count = \"$ROWS\"")" = 1 ] ||
		{ echo "loading lineitem failed" >&2; exit 1; }
	echo "$ROWS tpchgen" > "$WORKDIR/rows"
fi

case $QUERY in
	short)
		Q1="SELECT sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge, avg(l_quantity) AS avg_qty, count(*) AS count_order FROM lineitem WHERE l_shipdate <= date '1998-11-01'"
		;;
	full)
		Q1="SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price, sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price, sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge, avg(l_quantity) AS avg_qty, avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc, count(*) AS count_order FROM lineitem WHERE l_shipdate <= date '1998-12-01' - interval '90 day' GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus"
		;;
	*)
		echo "QUERY must be short or full" >&2
		exit 1
		;;
esac

# one single-user session under cachegrind: the SETs, PREPARE, n EXECUTEs
run_cg() {
	local name=$1 sets=$2 n=$3 out=$WORKDIR/cg.$1.$3 i
	{
		printf '%s\n\n' "${EXTRA:-}" "$sets" "PREPARE q1 AS $Q1;"
		for ((i = 0; i < n; i++)); do printf 'EXECUTE q1;\n\n'; done
	} | asp valgrind --tool=cachegrind --cache-sim=yes \
		--I1="$I1" --cachegrind-out-file="$out" \
		"$POSTGRES" --single -D "$DATA" -j "${SINGLE_OPTS[@]}" postgres \
		>"$WORKDIR/$name.$n.log" 2>&1
	if grep -q "ERROR" "$WORKDIR/$name.$n.log"; then
		echo "$name: the query failed, see $WORKDIR/$name.$n.log" >&2
		exit 1
	fi
}

# "Ir I1mr" of one warm execution: the run with two EXECUTEs minus one
measure() {
	local name=$1 sets=$2
	run_cg "$name" "$sets" 1
	run_cg "$name" "$sets" 2
	cg_diff "$WORKDIR/cg.$name.1" "$WORKDIR/cg.$name.2" >"$WORKDIR/diff.$name" 2>/dev/null
	paste <(awk '/^summary:/ { print $2, $3 }' "$WORKDIR/cg.$name.2") \
		<(awk '/^summary:/ { print $2, $3 }' "$WORKDIR/cg.$name.1") |
		awk '{ printf "%.0f %.0f\n", $1 - $3, $2 - $4 }'
}

read -r off_ir off_i1 < <(measure unbuffered "SET enable_buffer_operator = off;")
read -r on_ir on_i1 < <(measure buffered "SET fpbtree.l1i_cache_size = '$(( ${I1%%,*} ))B';

SET fpbtree.buffer_size = ${BUFFER_SIZE:-DEFAULT};")

# same rows both ways, and the buffered plan has a Buffer
res_off=$(grep -o 'count_order = "[0-9]*"' "$WORKDIR/unbuffered.1.log" | tr '\n' ' ')
res_on=$(grep -o 'count_order = "[0-9]*"' "$WORKDIR/buffered.1.log" | tr '\n' ' ')
[ -n "$res_off" ] && [ "$res_off" = "$res_on" ] ||
	{ echo "results differ: $res_off / $res_on" >&2; exit 1; }

echo "query=$QUERY rows=$ROWS I1=$I1 buffer_size=${BUFFER_SIZE:-default}"
printf '%-12s %14s %12s %10s %10s\n' plan instructions I1_misses per_row Ir_per_row
printf '%-12s %14d %12d %10.3f %10.1f\n' unbuffered "$off_ir" "$off_i1" \
	"$(echo "$off_i1 / $ROWS" | bc -l)" "$(echo "$off_ir / $ROWS" | bc -l)"
printf '%-12s %14d %12d %10.3f %10.1f\n' buffered "$on_ir" "$on_i1" \
	"$(echo "$on_i1 / $ROWS" | bc -l)" "$(echo "$on_ir / $ROWS" | bc -l)"
echo "I1 misses: $(echo "scale=1; 100 * ($off_i1 - $on_i1) / $off_i1" | bc)% fewer with the Buffer; instructions $(echo "scale=2; 100 * ($on_ir - $off_ir) / $off_ir" | bc)% more"
