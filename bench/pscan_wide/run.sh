#!/bin/bash
# Index-only counts over half of the keys of setup.sql's tables at
# PostgreSQL's default parallel settings: 5 rounds, btree then fpbtree, 3
# queries each (psql \timing lines "round table Time: ms"); then the runs
# each participant of an fpbtree scan read (DEBUG1) and its plan.
q="SET enable_seqscan = off; SET enable_bitmapscan = off;"
count="SELECT count(*) FROM %s WHERE p < 'https://www.example.com/catalog/item/8'"
for r in 1 2 3 4 5; do
	for t in wp_bt wp_fp; do
		c=$(printf "$count" "$t")
		psql -X -At -c "$q" -c "\timing on" -c "$c" -c "$c" -c "$c" |
			grep Time | sed "s/^/$r $t /"
	done
done
psql -X -At -c "$q" -c "SET client_min_messages = debug1" \
	-c "EXPLAIN (ANALYZE, COSTS OFF) $(printf "$count" wp_fp)" 2>&1 |
	grep -E "fpbtree|Workers|Parallel"
