#!/usr/bin/env bash
# Time and WAL volume of N random-order inserts into a table with one int8
# index: two builds of fpbtree (two library files, e.g. of two commits) and
# btree, alternating for ROUNDS rounds, then the medians.  Each fpbtree round
# installs its library file as fpbtree.so and restarts the server, so run it
# as root against a scratch cluster whose server runs as postgres:
#
#   PGDATA=... PGPORT=... PGHOST=... bench/insert_ab.sh A.so B.so [rounds (3)] [n (1000000)]
#
# Build a library file with `make` in a checkout of the commit wanted and
# copy its fpbtree.so away.  The current build is put back at the end.
set -euo pipefail

A=$1
B=$2
ROUNDS=${3:-3}
N=${4:-1000000}
PGBIN=$(pg_config --bindir)
LIB=$(pg_config --pkglibdir)/fpbtree.so
SAVED=$(mktemp)
out=$(mktemp)
cp "$LIB" "$SAVED"

# a new file, not an overwrite: running servers have the old one mapped
put_lib() {
	cp "$1" "$LIB.new"
	chmod 755 "$LIB.new"
	mv -f "$LIB.new" "$LIB"
}

restart() {
	su postgres -c "$PGBIN/pg_ctl -D '$PGDATA' restart -w -m fast -o '-p $PGPORT -k $PGHOST'" >/dev/null
}

# back to the library found at the start, and a server that runs it
trap 'put_lib "$SAVED"; restart; rm -f "$SAVED" "$out"' EXIT

psql_as_postgres() {
	su postgres -c "psql -X -Atq -v ON_ERROR_STOP=1 -h '$PGHOST' -p '$PGPORT' $*"
}

# a database of its own
if [ -z "$(psql_as_postgres -d postgres -c "\"SELECT 1 FROM pg_database WHERE datname = 'insert_ab'\"")" ]; then
	psql_as_postgres -d postgres -c "'CREATE DATABASE insert_ab'"
fi

# prints "ms walbytes"
run() {
	psql_as_postgres -d insert_ab <<SQL | tail -1 | tr '|' ' '
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS fpbtree;
DROP TABLE IF EXISTS insert_ab;
CREATE TABLE insert_ab (a int8) WITH (autovacuum_enabled = off);
CREATE INDEX ON insert_ab USING $1 (a);
INSERT INTO insert_ab SELECT (random() * 9e18)::int8 FROM generate_series(1, 200000);
CHECKPOINT;
SELECT pg_current_wal_lsn() AS l0, clock_timestamp() AS t0 \gset
INSERT INTO insert_ab SELECT (random() * 9e18)::int8 FROM generate_series(1, $N);
SELECT round(extract(epoch FROM clock_timestamp() - :'t0') * 1000), pg_current_wal_lsn() - :'l0';
SQL
}

for ((r = 1; r <= ROUNDS; r++)); do
	for side in A B btree; do
		if [ "$side" = btree ]; then
			read -r ms wal < <(run btree)
		else
			if [ "$side" = A ]; then put_lib "$A"; else put_lib "$B"; fi
			restart
			read -r ms wal < <(run fpbtree)
		fi
		printf 'round %d  %-6s %8s ms  %12s bytes of WAL\n' "$r" "$side" "$ms" "$wal"
		echo "$side $ms $wal" >>"$out"
	done
done

echo "medians of $ROUNDS rounds, $N inserts:"
median() {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
for side in A B btree; do
	ms=$(awk -v s="$side" '$1 == s { print $2 }' "$out" | median)
	wal=$(awk -v s="$side" '$1 == s { print $3 }' "$out" | median)
	awk -v s="$side" -v t="$ms" -v w="$wal" \
		'BEGIN { printf "  %-6s %8d ms  %6.1f MB of WAL\n", s, t, w / 1000000 }'
done
