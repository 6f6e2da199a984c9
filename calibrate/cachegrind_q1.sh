#!/usr/bin/env bash
# I1 misses of TPC-H Q1 (the Zhou & Ross shape) with and without the Buffer
# operator, under cachegrind with a simulated L1 instruction cache (16 kB,
# 4-way, 64-byte lines by default, as on the paper's machine).  The query
# runs in a single-user backend; a "SELECT 1" session is measured as well
# and subtracted, so the figures are the query's own.
#
#   calibrate/cachegrind_q1.sh [rows (1000000)] [I1 spec (16384,4,64)]
#
# BUFFER_SIZE=n sets fpbtree.buffer_size for the buffered run (default: the
# setting's default).
# Needs valgrind and the extension installed; runs as root (switches to the
# postgres user) or as postgres.  Work files go to ${WORKDIR:-/tmp/fpbcg}.
set -euo pipefail

ROWS=${1:-1000000}
I1=${2:-16384,4,64}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
WORKDIR=${WORKDIR:-/tmp/fpbcg}
DATA=$WORKDIR/data

asp() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

mkdir -p "$WORKDIR"
[ "$(id -u)" = 0 ] && chown postgres "$WORKDIR"

single() {
	asp "$@" "$PGBIN/postgres" --single -D "$DATA" -j \
		-c shared_preload_libraries=fpbtree -c max_parallel_workers_per_gather=0 \
		-c jit=off -c shared_buffers=512MB -c work_mem=64MB postgres
}

if [ ! -f "$DATA/PG_VERSION" ] || [ "$(cat "$WORKDIR/rows" 2>/dev/null)" != "$ROWS" ]; then
	rm -rf "$DATA"
	asp "$PGBIN/initdb" -D "$DATA" -A trust --no-sync >/dev/null
	single <<SQL >/dev/null
CREATE TABLE lineitem AS
SELECT i AS l_orderkey, i % 7 + 1 AS l_linenumber,
	   ((i * 37) % 50 + 1)::numeric(15,2) AS l_quantity,
	   ((i * 7919) % 100000 / 100.0 + 900)::numeric(15,2) AS l_extendedprice,
	   ((i % 11) / 100.0)::numeric(15,2) AS l_discount,
	   ((i % 9) / 100.0)::numeric(15,2) AS l_tax,
	   (ARRAY['A','N','R'])[i % 3 + 1]::char(1) AS l_returnflag,
	   (ARRAY['F','O'])[i % 2 + 1]::char(1) AS l_linestatus,
	   date '1992-01-01' + ((i * 13) % 2500)::int AS l_shipdate
FROM generate_series(1::bigint, $ROWS) i;

VACUUM ANALYZE lineitem;

SQL
	[ "$(echo 'SELECT count(*) FROM lineitem;' | single | grep -c "count = \"$ROWS\"")" = 1 ] ||
		{ echo "loading lineitem failed" >&2; exit 1; }
	echo "$ROWS" > "$WORKDIR/rows"
fi

Q1="SELECT sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge, avg(l_quantity) AS avg_qty, count(*) AS count_order FROM lineitem WHERE l_shipdate <= date '1998-11-01'"

# I1 misses and instructions of one single-user session
measure() {
	local name=$1 sql=$2 out=$WORKDIR/cg.$1
	printf '%s\n\n' "$sql" | asp valgrind --tool=cachegrind --cache-sim=yes \
		--I1="$I1" --cachegrind-out-file="$out" \
		"$PGBIN/postgres" --single -D "$DATA" -j \
		-c shared_preload_libraries=fpbtree -c max_parallel_workers_per_gather=0 \
		-c jit=off -c shared_buffers=512MB -c work_mem=64MB postgres \
		>"$WORKDIR/$name.log" 2>&1
	# summary line: "summary: Ir I1mr ILmr Dr ..."
	awk '/^summary:/ { print $2, $3 }' "$out"
}

read -r base_ir base_i1 < <(measure base "SELECT 1;")
read -r off_ir off_i1 < <(measure unbuffered "SET enable_buffer_operator = off;

$Q1;")
read -r on_ir on_i1 < <(measure buffered "SET fpbtree.l1i_cache_size = '16kB';

SET fpbtree.buffer_size = ${BUFFER_SIZE:-DEFAULT};

$Q1;")

grep -q "Custom Scan\|sum_charge" "$WORKDIR/buffered.log" || true
off_i1=$((off_i1 - base_i1)); on_i1=$((on_i1 - base_i1))
off_ir=$((off_ir - base_ir)); on_ir=$((on_ir - base_ir))
echo "rows=$ROWS I1=$I1 buffer_size=${BUFFER_SIZE:-default}"
printf '%-12s %14s %12s %10s\n' plan instructions I1_misses per_row
printf '%-12s %14d %12d %10.3f\n' unbuffered "$off_ir" "$off_i1" "$(echo "$off_i1 / $ROWS" | bc -l)"
printf '%-12s %14d %12d %10.3f\n' buffered "$on_ir" "$on_i1" "$(echo "$on_i1 / $ROWS" | bc -l)"
echo "I1 misses: $(echo "scale=1; 100 * ($off_i1 - $on_i1) / $off_i1" | bc)% fewer with the Buffer; instructions $(echo "scale=2; 100 * ($on_ir - $off_ir) / $off_ir" | bc)% more"
