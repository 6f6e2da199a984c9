
# Several pgbench clients insert, delete, scan and VACUUM at once on a table
# with fpbtree indexes.  Scanning clients compare, inside one REPEATABLE READ
# snapshot, what the index finds with what a sequential scan finds, and fail
# (division by zero) on any difference.  Afterwards fpbtree_check with
# heapallindexed passes and whole-table results through the indexes equal
# those of a sequential scan.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use FpbNode;

my $node = fpb_node(
	'main', q{
max_connections = 40
autovacuum_naptime = 1s
autovacuum_vacuum_threshold = 200
autovacuum_vacuum_scale_factor = 0.01
log_statement = none
});

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION fpbtree;
CREATE TABLE t (id bigserial, k int8, f float8, pad text);
INSERT INTO t (k, f, pad)
	SELECT (g * 7919) % 20011,
		   CASE WHEN g % 13 = 0 THEN NULL ELSE ((g * 104729) % 10007) / 3.0 END,
		   repeat('x', g % 50)
	FROM generate_series(1, 20000) g;
CREATE INDEX t_k ON t USING fpbtree (k);
CREATE INDEX t_f ON t USING fpbtree (f) WITH (nonleaf_lines = 2, leaf_lines = 2);
VACUUM ANALYZE t;
});

# the index scan plans really use the indexes
my $plan = $node->safe_psql('postgres',
	q{SET enable_seqscan = off; SET enable_bitmapscan = off;
	  EXPLAIN (COSTS OFF) SELECT count(*) FROM t WHERE k BETWEEN 1 AND 10});
like($plan, qr/Index Only Scan using t_k/, 'index-only scan plan on t_k');
$plan = $node->safe_psql('postgres',
	q{SET enable_seqscan = off; SET enable_indexscan = off;
	  EXPLAIN (COSTS OFF) SELECT count(*) FROM t WHERE f < 10});
like($plan, qr/Bitmap Index Scan on t_f/, 'bitmap scan plan on t_f');

$plan = $node->safe_psql('postgres',
	q{SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off;
	  EXPLAIN (COSTS OFF) SELECT id, k FROM t WHERE k <= 5 ORDER BY k DESC LIMIT 1000000});
like($plan, qr/Index Scan Backward using t_k/, 'backward index scan plan on t_k');

# check the index against a sequential scan within one snapshot: fails with
# a division by zero on a mismatch, which aborts the client
my $compare = sub {
	my ($idxcond, $mode) = @_;
	my $off = $mode eq 'bitmap'
	  ? 'SET LOCAL enable_indexscan = off; SET LOCAL enable_indexonlyscan = off;'
	  : 'SET LOCAL enable_bitmapscan = off;';
	return qq{
BEGIN ISOLATION LEVEL REPEATABLE READ;
SET LOCAL enable_seqscan = off;
$off
SELECT count(*) AS ic, coalesce(sum(id), 0) AS isum FROM t WHERE $idxcond \\gset
SET LOCAL enable_seqscan = on;
SET LOCAL enable_indexscan = off;
SET LOCAL enable_indexonlyscan = off;
SET LOCAL enable_bitmapscan = off;
SELECT 1 / (count(*) = :ic AND coalesce(sum(id), 0) = :isum)::int AS same FROM t WHERE $idxcond;
COMMIT;
};
};

my %scripts = (
	'fpb_insert@6' => q{
\set k random(-1000, 21000)
\set n random(1, 20)
INSERT INTO t (k, f, pad)
	SELECT :k + (g % 3), CASE WHEN g % 7 = 0 THEN NULL ELSE random() * 3000 END, 'y'
	FROM generate_series(1, :n) g;
},
	'fpb_insert_dup@2' => q{
INSERT INTO t (k, f, pad) SELECT 4242, 0.5, 'dup' FROM generate_series(1, 30);
},
	'fpb_delete@3' => q{
\set k random(0, 20011)
\set w random(0, 40)
DELETE FROM t WHERE k BETWEEN :k AND :k + :w;
DELETE FROM t WHERE id IN (SELECT id FROM t WHERE k = 4242 LIMIT 10);
},
	'fpb_scan_k@4' => $compare->('k BETWEEN :lo AND :lo + :w', 'index')
	  =~ s/^/\\set lo random(-100, 20100)\n\\set w random(0, 500)\n/r,
	'fpb_scan_kb@2' => $compare->('k BETWEEN :lo AND :lo + :w', 'bitmap')
	  =~ s/^/\\set lo random(-100, 20100)\n\\set w random(0, 500)\n/r,
	'fpb_scan_f@2' => $compare->('f >= :lo AND f < :lo + 100', 'index')
	  =~ s/^/\\set lo random(-10, 3400)\n/r,
	'fpb_scan_dup@1' => $compare->('k = 4242', 'index'),
	'fpb_order@2' => q{
\set lo random(0, 20000)
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT k FROM t WHERE k >= :lo ORDER BY k LIMIT 50;
SELECT k FROM t WHERE k <= :lo ORDER BY k DESC LIMIT 50;
},
	# ordered scans, forward and backward, across concurrent splits: no
	# entry may be skipped or returned twice
	'fpb_scan_fwd@2' => q{
\set lo random(-100, 20100)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SET LOCAL enable_sort = off;
SELECT count(*) AS ic, coalesce(sum(id), 0) AS isum
	FROM (SELECT id, k FROM t WHERE k >= :lo ORDER BY k LIMIT 1000000) s \gset
SET LOCAL enable_seqscan = on;
SET LOCAL enable_indexscan = off;
SET LOCAL enable_indexonlyscan = off;
SET LOCAL enable_sort = on;
SELECT 1 / (count(*) = :ic AND coalesce(sum(id), 0) = :isum)::int AS same FROM t WHERE k >= :lo;
COMMIT;
},
	'fpb_scan_bwd@2' => q{
\set hi random(-100, 20100)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SET LOCAL enable_sort = off;
SELECT count(*) AS ic, coalesce(sum(id), 0) AS isum
	FROM (SELECT id, k FROM t WHERE k <= :hi ORDER BY k DESC LIMIT 1000000) s \gset
SET LOCAL enable_seqscan = on;
SET LOCAL enable_indexscan = off;
SET LOCAL enable_indexonlyscan = off;
SET LOCAL enable_sort = on;
SELECT 1 / (count(*) = :ic AND coalesce(sum(id), 0) = :isum)::int AS same FROM t WHERE k <= :hi;
COMMIT;
},
	# the checker itself must cope with concurrent splits and VACUUM
	'fpb_check@1' => q{
SELECT fpbtree_check('t_k');
SELECT fpbtree_check('t_f');
},
	'fpb_vacuum@1' => q{
VACUUM t;
},);

$node->pgbench(
	'--no-vacuum --client=6 --jobs=2 --time=20',
	0,
	[
		qr{processed: [1-9]\d*},
		qr{number of failed transactions: 0 },
		map {
			my $n = s/\@\d+$//r;
			qr{/$n\n - weight: \d+ .*\n - [1-9]\d* transactions}
		} keys %scripts
	],
	[],
	'concurrent inserts, deletes, scans and VACUUM',
	\%scripts);

# the indexes are sound and complete
$node->safe_psql('postgres', 'VACUUM t');
note('after the first VACUUM: '
	  . $node->safe_psql('postgres',
		q{SELECT entries || ' entries in t_k, ' || (SELECT count(*) FROM t) || ' rows, n_dead_tup '
		  || (SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 't') FROM fpbtree_stats('t_k')}));
my ($ret, $stdout, $stderr) = $node->psql('postgres',
	q{SELECT fpbtree_check('t_k', true), fpbtree_check('t_f', true)});
is($ret, 0, 'fpbtree_check(heapallindexed) passes after the concurrent run');
is($stderr, '', 'fpbtree_check said nothing');

# whole-table results through the indexes equal a sequential scan
my $seqscan = 'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;';
my $idxscan = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
my $bmpscan = 'SET enable_seqscan = off; SET enable_indexscan = off; SET enable_indexonlyscan = off;';
my @queries = (
	# index-only scans (the visibility map is set by the VACUUM above): a
	# dangling index entry would be counted here
	q{SELECT count(*) FROM t WHERE k >= -1000000},
	q{SELECT count(*) FROM t WHERE f >= -1000000},
	q{SELECT count(*), sum(id), md5(string_agg(id::text, ',' ORDER BY id)) FROM t WHERE k >= -1000000},
	q{SELECT count(*), md5(string_agg(k::text, ',')) FROM (SELECT k FROM t WHERE k IS NOT NULL ORDER BY k) s},
	q{SELECT count(*), md5(string_agg(k::text, ',')) FROM (SELECT k FROM t WHERE k > 100 ORDER BY k DESC) s},
	q{SELECT count(*), sum(id) FROM t WHERE k IS NULL},
	q{SELECT count(*), sum(id), md5(string_agg(id::text, ',' ORDER BY id)) FROM t WHERE f < 1500},
	q{SELECT count(*), sum(id) FROM t WHERE f IS NULL},
	q{SELECT count(*), sum(id) FROM t WHERE k = 4242},);
for my $q (@queries)
{
	my $want = $node->safe_psql('postgres', "$seqscan $q");
	my $got = $node->safe_psql('postgres', "$idxscan $q");
	is($got, $want, "index scan equals seq scan: $q");
	$got = $node->safe_psql('postgres', "$bmpscan $q");
	is($got, $want, "bitmap scan equals seq scan: $q");
}

# stats agree with the table once VACUUM has removed every dead tuple (with
# autovacuum off, so that no concurrent worker pins pages that VACUUM then
# cannot prune; INDEX_CLEANUP ON because PG 15 otherwise skips index
# vacuuming when few heap pages have dead items, leaving their entries)
$node->safe_psql('postgres', 'ALTER TABLE t SET (autovacuum_enabled = off)');
$node->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP ON) t');
my $vac = $node->safe_psql('postgres',
	q{SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 't'});
is( $node->safe_psql(
		'postgres',
		q{SELECT entries || ' entries, ' || (SELECT count(*) FROM t) || ' rows' FROM fpbtree_stats('t_k')}),
	$node->safe_psql('postgres',
		q{SELECT c || ' entries, ' || c || ' rows' FROM (SELECT count(*) AS c FROM t) s}),
	"fpbtree_stats counts every row after VACUUM (n_dead_tup $vac)");

ok(!$node->log_contains(qr/TRAP:|terminated by signal (?:4|6|7|8|11)\b|PANIC/),
	'no crash or assertion failure in the server log');

$node->stop;
done_testing();
