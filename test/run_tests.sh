#!/usr/bin/env bash
# Run every fpbtree test on this machine, from nothing:
#   1. install what is missing (PostgreSQL 15 server + headers, perl IPC::Run,
#      a C tool chain) with apt-get;
#   2. build (warnings are errors here) and install the extension;
#   3. pg_regress: `make installcheck TAP_TESTS=` (sql/*.sql against
#      expected/*.out; the Makefile generates sql/40_differential.sql first),
#      then pg_isolation_regress (test/isolation/specs/*.spec)
#      in a throw-away cluster made by pg_virtualenv, with fpbtree in
#      shared_preload_libraries;
#   4. the TAP tests in test/t/: `make installcheck REGRESS=` (pgxs runs
#      prove, each test makes its own clusters), as the postgres user when we
#      are root, in a copy of the tree that user may write to; each file
#      under a time limit (test/tap_limit.sh), as pg_regress is.
# Prints "tests: N passed, M failed" (one per pg_regress file and per TAP
# file) and exits non-zero when anything fails.  Called by `make test`.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)

# PGVER, PGBIN, PG_CONFIG, locale, say, SUDO; the tests always use the
# system's PostgreSQL, whatever PGBIN the caller has
PGBIN=
. scripts/common.sh

# ---------------------------------------------------------------- 1. install
scripts/install_packages.sh postgresql-$PGVER postgresql-server-dev-$PGVER \
	postgresql-common postgresql-client-$PGVER libipc-run-perl perl make gcc \
	build-essential python3
for f in "$PG_CONFIG" "$PGBIN/initdb" "$PGBIN/pgbench" /usr/bin/pg_virtualenv /usr/bin/prove /usr/bin/python3; do
	[ -x "$f" ] || { echo "missing $f after installation" >&2; exit 1; }
done
# pgxs.mk lives in .../lib/pgxs/src/makefiles
PGXS_DIR=$(cd "$(dirname "$("$PG_CONFIG" --pgxs)")/../.." && pwd)
PERL_LIB=$PGXS_DIR/src/test/perl
PG_REGRESS=$PGXS_DIR/src/test/regress/pg_regress
[ -f "$PERL_LIB/PostgreSQL/Test/Cluster.pm" ] || { echo "no $PERL_LIB/PostgreSQL/Test/Cluster.pm" >&2; exit 1; }
[ -x "$PG_REGRESS" ] || { echo "no $PG_REGRESS" >&2; exit 1; }
command -v python3 >/dev/null || { echo "no python3 (it generates sql/40_differential.sql)" >&2; exit 1; }

# ------------------------------------------------------- 2. build, install
say "building fpbtree"
# from clean, so that -Werror sees every file
make -s clean PG_CONFIG="$PG_CONFIG"
make -s -j2 PG_CONFIG="$PG_CONFIG" COPT=-Werror
$SUDO make -s install PG_CONFIG="$PG_CONFIG"

passed=0
failed=0
failed_names=()

# a TCP port nobody listens on, starting at $1
free_port() {
	local p=$1
	while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do
		p=$((p + 1))
	done
	echo "$p"
}

# ------------------------------------------------------------ 3. pg_regress
say "pg_regress"
rm -rf test/regress_out
mkdir -p test/regress_out
chmod 0777 test/regress_out
regress_log=test/regress_out/installcheck.log
port=$(free_port 55432)
set +e
# (a time limit: a hang fails the run in minutes, not at CI's deadline)
PGPORT=$port timeout -k 60 "${FPB_REGRESS_LIMIT:-2700}" pg_virtualenv -t -v "$PGVER" \
	-o shared_preload_libraries=fpbtree \
	-o max_parallel_workers_per_gather=0 \
	-o autovacuum=off \
	-o lc_messages=C \
	make installcheck TAP_TESTS= PG_CONFIG="$PG_CONFIG" 2>&1 | tee "$regress_log"
regress_rc=${PIPESTATUS[0]}
set -e
# one line per test: "test NAME ... ok" or "... FAILED"
r_ok=$(grep -Ec '\.\.\. +ok( |$)' "$regress_log" || true)
r_bad=$(grep -Ec '\.\.\. +FAILED' "$regress_log" || true)
passed=$((passed + r_ok))
failed=$((failed + r_bad))
if [ "$regress_rc" != 0 ]; then
	if [ "$r_bad" = 0 ]; then
		failed=$((failed + 1))   # the run itself broke
	fi
	failed_names+=("pg_regress")
	for d in test/regress_out/regression.diffs \
		test/regress_out/isolation/regression.diffs; do
		if [ -f "$d" ]; then
			say "$d"
			head -n 3000 "$d"
		fi
	done
fi

# ----------------------------------------------------------------- 4. TAP
say "TAP tests"
# pgxs's prove_installcheck writes tmp_check/ next to the Makefile, and the
# tests must run as a user initdb accepts: run them in a copy of the tree
TAPDIR=$(mktemp -d /tmp/fpbtree_tap.XXXXXX)
cp -r Makefile fpbtree.control fpbtree--*.sql src sql expected test "$TAPDIR"/
rm -rf "$TAPDIR/test/regress_out" "$TAPDIR/test/tmp_check"
chmod 0755 "$TAPDIR"
run_as=()
if [ "$(id -u)" = 0 ]; then
	chown -R postgres:postgres "$TAPDIR"
	run_as=(su postgres -s /bin/bash -c)
else
	run_as=(bash -c)
fi
rm -rf test/tmp_check
tap_log=$TAPDIR/prove.log
set +e
"${run_as[@]}" "cd '$TAPDIR' &&
	export PATH='$PGBIN':/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 LC_ALL=C.UTF-8 &&
	make installcheck REGRESS= REGRESS_PREP= ISOLATION= PG_CONFIG='$PG_CONFIG' \
		PROVE_FLAGS='--exec $TAPDIR/test/tap_limit.sh'" 2>&1 | tee "$tap_log"
tap_rc=${PIPESTATUS[0]}
set -e
# prove prints "test/t/NAME.pl .. ok" per passing file, and in its summary
# "test/t/NAME.pl (Wstat: ...)" per failing one
t_ok=$(grep -Ec '^test/t/[^ ]+\.pl \.+ ok' "$tap_log" || true)
t_bad_names=$(grep -Eo '^test/t/[^ ]+\.pl +\(Wstat' "$tap_log" | sed 's|^test/t/||; s| .*||' | sort -u || true)
t_bad=$(printf '%s' "$t_bad_names" | grep -c . || true)
passed=$((passed + t_ok))
failed=$((failed + t_bad))
if [ "$tap_rc" != 0 ] && [ "$t_bad" = 0 ]; then
	failed=$((failed + 1))   # the run itself broke
	failed_names+=("TAP")
fi
for name in $t_bad_names; do
	failed_names+=("$name")
	log=$TAPDIR/tmp_check/log/regress_log_${name%.pl}
	if [ -f "$log" ]; then
		say "last lines of $log"
		tail -n 150 "$log"
	fi
	for nl in "$TAPDIR"/tmp_check/log/"${name%.pl}"_*.log; do
		[ -f "$nl" ] || continue
		say "last lines of $nl"
		tail -n 60 "$nl"
	done
done
# a test that overran its time limit: what its servers were doing (last,
# where a truncated log still shows it)
for f in "$TAPDIR"/tmp_check/log/*_overran.txt; do
	[ -f "$f" ] || continue
	say "$f"
	cat "$f"
done
# keep the logs for inspection, drop the data directories
mkdir -p test/tmp_check
cp -r "$TAPDIR/tmp_check/log" test/tmp_check/ 2>/dev/null || true
cp "$tap_log" test/tmp_check/ 2>/dev/null || true
rm -rf "$TAPDIR"

say "summary"
if [ ${#failed_names[@]} -gt 0 ]; then
	echo "failed: ${failed_names[*]}"
fi
echo "tests: $passed passed, $failed failed"
if [ "$failed" != 0 ] || [ ${#failed_names[@]} -gt 0 ]; then
	exit 1
fi
