#!/usr/bin/env bash
# fpbtree benchmarks: PostgreSQL's btree (A, the baseline) against fpbtree (B),
# side by side in one scratch cluster.  Called by `make bench`.
#
#   1. installs what is missing (PostgreSQL 15 server, headers and client,
#      gnuplot-nox, valgrind, python3) with apt-get;
#   2. builds and installs the extension (BENCH_SKIP_BUILD=1 skips this);
#   3. creates a throw-away cluster as the postgres user in a temp directory,
#      on its own port and socket directory, with fpbtree preloaded and the
#      settings below (the same for both sides), and removes it on exit;
#   4. runs bench/bench.py, which loads the tables, runs the workloads and
#      writes a new directory bench/results/runs/<UTC date-time>_<commit>/
#      (not committed; the path is printed at the end).
#
# Environment: SCALE (rows), ROUNDS, WORKLOADS, VIEWS, CACHEGRIND=1, DURATION
# (seconds per pgbench run), HJ_ROWS, TPCH_ROWS -- see bench/README.md.  BENCH_KEEP=1 leaves the
# cluster running and its directory in place (for poking at it afterwards).
# PGBIN (default /usr/lib/postgresql/15/bin) selects another PostgreSQL 15
# installation, e.g. a private copy: the extension is built and installed
# with that installation's pg_config, and the cluster runs its binaries.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)

# PGVER, PGBIN (the caller's, else the system's), PG_CONFIG, locale, say, SUDO
. scripts/common.sh
unset PGOPTIONS PGPASSWORD 2>/dev/null || true

# ---------------------------------------------------------------- 1. install
scripts/install_packages.sh postgresql-$PGVER postgresql-server-dev-$PGVER \
	postgresql-client-$PGVER postgresql-contrib postgresql-common gnuplot-nox \
	valgrind python3 make gcc
for f in "$PG_CONFIG" "$PGBIN/initdb" "$PGBIN/pg_ctl" "$PGBIN/postgres" "$PGBIN/pgbench" "$PGBIN/psql"; do
	[ -x "$f" ] || { echo "missing $f after installation" >&2; exit 1; }
done
PYTHON=python3
[ -x /usr/bin/python3 ] && PYTHON=/usr/bin/python3

# ------------------------------------------------------- 2. build, install
if [ "${BENCH_SKIP_BUILD:-0}" != 1 ]; then
	say "building fpbtree"
	make -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG"
	$SUDO make -s install PG_CONFIG="$PG_CONFIG"
fi

# ------------------------------------------------------ 3. scratch cluster
# initdb refuses to run as root: the cluster belongs to the postgres user
# (the Debian packages create it) when we are root, else to us.
RUNAS=()
if [ "$(id -u)" = 0 ]; then
	id postgres >/dev/null 2>&1 || { echo "no postgres user" >&2; exit 1; }
	RUNAS=(runuser -u postgres --)
fi

free_port() {
	local p=$1
	while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || [ -e "/tmp/.s.PGSQL.$p" ]; do
		p=$((p + 1))
	done
	echo "$p"
}

WORKDIR=$(mktemp -d /tmp/fpbtree_bench.XXXXXX)
chmod 0755 "$WORKDIR"
[ "$(id -u)" = 0 ] && chown postgres:postgres "$WORKDIR"
DATADIR=$WORKDIR/data
LOGFILE=$WORKDIR/server.log
PORT=$(free_port 55600)

cleanup() {
	local rc=$?
	if [ "${BENCH_KEEP:-0}" = 1 ]; then
		echo "BENCH_KEEP=1: cluster left in $DATADIR (port $PORT, socket dir $WORKDIR)"
		exit $rc
	fi
	if [ -f "$DATADIR/postmaster.pid" ]; then
		"${RUNAS[@]}" "$PGBIN/pg_ctl" -D "$DATADIR" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	rm -rf "$WORKDIR"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "scratch cluster in $WORKDIR, port $PORT"
"${RUNAS[@]}" "$PGBIN/initdb" -D "$DATADIR" -U postgres -A trust -E UTF8 --locale=C >/dev/null

# Settings, the same for both sides.  Memory-dependent ones follow the machine.
# The parallel settings stay at PostgreSQL's defaults here: bench.py switches
# them per view (VIEWS: default, serial) with ALTER SYSTEM.
ram_mb=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
sb_mb=$((ram_mb / 4))
[ "$sb_mb" -gt 4096 ] && sb_mb=4096
[ "$sb_mb" -lt 128 ] && sb_mb=128
mwm_mb=1024
[ "$mwm_mb" -gt $((ram_mb / 8)) ] && mwm_mb=$((ram_mb / 8))
ecs_mb=$((ram_mb / 2))
cat >>"$DATADIR/postgresql.conf" <<EOF

# ---- fpbtree benchmark settings (bench/run_bench.sh) ----
listen_addresses = ''
port = $PORT
unix_socket_directories = '$WORKDIR'
shared_preload_libraries = 'fpbtree'
shared_buffers = ${sb_mb}MB
effective_cache_size = ${ecs_mb}MB
maintenance_work_mem = ${mwm_mb}MB
work_mem = 64MB
effective_io_concurrency = 32
max_wal_size = 20GB
min_wal_size = 1GB
checkpoint_timeout = 1h
synchronous_commit = off
autovacuum = off
jit = off
logging_collector = off
lc_messages = 'C'
EOF
"${RUNAS[@]}" "$PGBIN/pg_ctl" -D "$DATADIR" -l "$LOGFILE" -w start >/dev/null

# ------------------------------------------------------------ 4. workloads
export BENCH_PGBIN=$PGBIN BENCH_DATADIR=$DATADIR BENCH_LOGFILE=$LOGFILE \
	BENCH_SOCKDIR=$WORKDIR BENCH_PORT=$PORT BENCH_RUNAS="${RUNAS[*]}" \
	BENCH_ROOT=$ROOT
"$PYTHON" -B "$ROOT/bench/bench.py"
