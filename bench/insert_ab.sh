#!/usr/bin/env bash
# Time, WAL volume and index size of N inserts into a table of 200,000 rows
# with one index: two builds of fpbtree (two library files, e.g. of two
# commits) and btree, alternating for ROUNDS rounds, then the medians.  Each
# fpbtree round installs its library file as fpbtree.so and restarts the
# server, so run it as root against a scratch cluster whose server runs as
# postgres:
#
#   PGDATA=... PGPORT=... PGHOST=... bench/insert_ab.sh A.so B.so [rounds (3)] [n (1000000)] [pattern (rand)]
#
# Patterns (the keys inserted, after 200,000 rows already indexed):
#   rand      random int8
#   asc       ascending int8, above the existing keys
#   desc      descending int8, below the existing keys
#   descmid   descending int8 in the middle of the existing keys
#   descidx   ascending int8 into an index on (k DESC)
#   desctext  descending 12-character text under "C", below the existing keys
#   randtext  md5 text under "C", random order
#   randuuid  random uuid
#   randmc    (int4 random of 1M, int8 random)
#   grp       (int4 random of 1,000, int8 ascending): ascending within groups
#   grpdesc   the same into an index on (a, k DESC): newest first per group
#
# Build a library file with `make` in a checkout of the commit wanted and
# copy its fpbtree.so away.  The current build is put back at the end.
set -euo pipefail

A=$1
B=$2
ROUNDS=${3:-3}
N=${4:-1000000}
PATTERN=${5:-rand}
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

# columns, index keys, the existing rows' values and the inserted rows' values
# (of g, the row number: 1..200000, then 200001..200000+N)
case $PATTERN in
	rand) COLS="k int8"; KEYS="k"; OLD="(random() * 9e18)::int8"; NEW="$OLD" ;;
	asc) COLS="k int8"; KEYS="k"; OLD="g"; NEW="g" ;;
	desc) COLS="k int8"; KEYS="k"; OLD="-g"; NEW="-g" ;;
	descmid) COLS="k int8"; KEYS="k"; OLD="g * 1000"; NEW="100000000 - g" ;;
	descidx) COLS="k int8"; KEYS="k DESC"; OLD="g"; NEW="g" ;;
	desctext) COLS="k text COLLATE \"C\""; KEYS="k"; OLD="lpad((10000000 - g)::text, 12, '0')"; NEW="$OLD" ;;
	randtext) COLS="k text COLLATE \"C\""; KEYS="k"; OLD="md5(g::text)"; NEW="$OLD" ;;
	randuuid) COLS="k uuid"; KEYS="k"; OLD="md5(g::text)::uuid"; NEW="$OLD" ;;
	randmc) COLS="a int4, k int8"; KEYS="a, k"; OLD="(random() * 1e6)::int4, (random() * 9e18)::int8"; NEW="$OLD" ;;
	grp) COLS="a int4, k int8"; KEYS="a, k"; OLD="(g::int8 * 7919 % 1000)::int4, g"; NEW="$OLD" ;;
	grpdesc) COLS="a int4, k int8"; KEYS="a, k DESC"; OLD="(g::int8 * 7919 % 1000)::int4, g"; NEW="$OLD" ;;
	*) echo "unknown pattern $PATTERN" >&2; exit 1 ;;
esac

# prints "ms walbytes indexbytes"
run() {
	psql_as_postgres -d insert_ab <<SQL | tail -1 | tr '|' ' '
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS fpbtree;
DROP TABLE IF EXISTS insert_ab;
CREATE TABLE insert_ab ($COLS) WITH (autovacuum_enabled = off);
CREATE INDEX insert_ab_idx ON insert_ab USING $1 ($KEYS);
INSERT INTO insert_ab SELECT $OLD FROM generate_series(1, 200000) g;
CHECKPOINT;
SELECT pg_current_wal_lsn() AS l0, clock_timestamp() AS t0 \gset
INSERT INTO insert_ab SELECT $NEW FROM generate_series(200001, 200000 + $N) g;
SELECT round(extract(epoch FROM clock_timestamp() - :'t0') * 1000), pg_current_wal_lsn() - :'l0',
	pg_relation_size('insert_ab_idx');
SQL
}

for ((r = 1; r <= ROUNDS; r++)); do
	for side in A B btree; do
		if [ "$side" = btree ]; then
			read -r ms wal size < <(run btree)
		else
			if [ "$side" = A ]; then put_lib "$A"; else put_lib "$B"; fi
			restart
			read -r ms wal size < <(run fpbtree)
		fi
		printf 'round %d  %-6s %8s ms  %12s bytes of WAL  %10s bytes of index\n' \
			"$r" "$side" "$ms" "$wal" "$size"
		echo "$side $ms $wal $size" >>"$out"
	done
done

echo "medians of $ROUNDS rounds, $N inserts, pattern $PATTERN:"
median() {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
for side in A B btree; do
	ms=$(awk -v s="$side" '$1 == s { print $2 }' "$out" | median)
	wal=$(awk -v s="$side" '$1 == s { print $3 }' "$out" | median)
	size=$(awk -v s="$side" '$1 == s { print $4 }' "$out" | median)
	awk -v s="$side" -v t="$ms" -v w="$wal" -v z="$size" \
		'BEGIN { printf "  %-6s %8d ms  %6.1f MB of WAL  %6.1f MB of index\n", s, t, w / 1000000, z / 1000000 }'
done
