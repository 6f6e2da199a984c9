#!/usr/bin/env bash
# Run one TAP test file for prove under a time limit (`make test` passes
# this script as prove's --exec; prove appends the file).  Every test takes
# well under a minute; one that runs past FPB_TAP_LIMIT seconds (600) is
# hung.  Then this prints what the test's servers are doing (processes,
# pg_stat_activity, ungranted locks, and each server process's stack when
# gdb is installed), stops them, and fails the test: a hang costs minutes
# and leaves its evidence in the log, instead of stalling the run.
#
# Needs the environment pgxs's prove_installcheck sets: TESTDIR (the
# test's tmp_check lives there), PG_REGRESS (PostgreSQL's test modules lie
# beside it) and a PATH with the server's programs.
set -u

limit=${FPB_TAP_LIMIT:-600}
perllib=$(cd "$(dirname "$PG_REGRESS")/../../test/perl" && pwd)

test=${*: -1}
name=$(basename "$test" .pl)
# the data directories of this test's servers (PostgreSQL::Test::Cluster)
pidfiles() {
	ls "$TESTDIR"/tmp_check/t_"${name}"_*_data/pgdata/postmaster.pid 2>/dev/null
}

# what every server of the test is doing
diagnose() {
	local pidfile pm port sock child args
	echo "=== $test ran for more than ${limit} s: its servers follow"
	for pidfile in $(pidfiles); do
		[ -f "$pidfile" ] || continue
		pm=$(sed -n 1p "$pidfile")
		port=$(sed -n 4p "$pidfile")
		sock=$(sed -n 5p "$pidfile")
		echo "--- server $(dirname "$pidfile"), postmaster $pm, port $port"
		ps -o pid,etime,stat,wchan:24,args --ppid "$pm"
		PGCONNECT_TIMEOUT=5 psql -X -h "$sock" -p "$port" -d postgres \
			-c "SET statement_timeout = '20s'" \
			-c "SELECT pid, leader_pid, backend_type, state, wait_event_type,
					   wait_event, now() - query_start AS running,
					   left(query, 400) AS query
				FROM pg_stat_activity WHERE pid <> pg_backend_pid()
				ORDER BY query_start" \
			-c "SELECT locktype, relation::regclass, mode, pid
				FROM pg_locks WHERE NOT granted"
		if command -v gdb >/dev/null; then
			# backends, workers, WAL senders and receivers: not the
			# processes that only wait for their next round
			for child in $(pgrep -P "$pm"); do
				args=$(ps -o args= -p "$child")
				case "$args" in
				*checkpointer* | *"background writer"* | *walwriter* | \
					*"autovacuum launcher"* | *"replication launcher"*)
					continue ;;
				esac
				echo "--- stack of $child: $args"
				timeout 60 gdb -p "$child" -batch -ex bt 2>/dev/null |
					grep '^#'
			done
		fi
	done
}

stop_servers() {
	local pidfile
	for pidfile in $(pidfiles); do
		[ -f "$pidfile" ] || continue
		pg_ctl -D "$(dirname "$pidfile")" -m immediate -w stop >/dev/null 2>&1
	done
}

perl -I "$perllib" -I . "$@" &
pid=$!
start=$SECONDS
while kill -0 "$pid" 2>/dev/null; do
	if ((SECONDS - start >= limit)); then
		# to stderr, which prove shows, and to a file make test prints last
		mkdir -p "$TESTDIR/tmp_check/log"
		diagnose 2>&1 | tee "$TESTDIR/tmp_check/log/${name}_overran.txt" >&2
		stop_servers
		kill -TERM "$pid" 2>/dev/null
		sleep 5
		kill -KILL "$pid" 2>/dev/null
		wait "$pid"
		echo "=== $test stopped after ${limit} s" >&2
		exit 3
	fi
	sleep 0.5
done
wait "$pid"
