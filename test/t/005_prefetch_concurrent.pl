
# Range-scan prefetching under concurrent page splits and VACUUM: leaf
# prefetches follow downlinks that splits and VACUUM make stale, heap
# prefetches follow TIDs VACUUM removes.  Within one REPEATABLE READ
# snapshot, long index range scans (forward, backward, index-only and plain)
# with prefetching on must return exactly what they return with it off and
# what a sequential scan returns; any difference fails the client with a
# division by zero.  Afterwards the counters show prefetching happened and
# fpbtree_check passes.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use FpbNode;

my $node = fpb_node(
	'prefetch', q{
effective_io_concurrency = 16
shared_buffers = 16MB
autovacuum = off
});

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION fpbtree;
CREATE TABLE t (id bigserial, k int8, pad text);
INSERT INTO t (k, pad)
	SELECT (g * 7919) % 200003, repeat('p', g % 20)
	FROM generate_series(1, 100000) g;
CREATE INDEX t_k ON t USING fpbtree (k);
VACUUM ANALYZE t;
});

# one scan shape, compared three ways inside one snapshot
my $compare = sub {
	my ($select, $cond, $idexpr) = @_;
	return qq{
BEGIN ISOLATION LEVEL REPEATABLE READ;
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SET LOCAL enable_sort = off;
SET LOCAL fpbtree.range_prefetch = on;
SET LOCAL fpbtree.heap_prefetch = on;
SELECT count(*) AS c1, coalesce(sum(id), 0) AS s1, coalesce(sum(k), 0) AS k1 FROM ($select) s \\gset
SET LOCAL fpbtree.range_prefetch = off;
SET LOCAL fpbtree.heap_prefetch = off;
SELECT count(*) AS c2, coalesce(sum(id), 0) AS s2, coalesce(sum(k), 0) AS k2 FROM ($select) s \\gset
SET LOCAL enable_seqscan = on;
SET LOCAL enable_indexscan = off;
SET LOCAL enable_indexonlyscan = off;
SET LOCAL enable_sort = on;
SELECT 1 / (count(*) = :c1 AND count(*) = :c2 AND coalesce(sum($idexpr), 0) = :s1
			AND coalesce(sum($idexpr), 0) = :s2 AND coalesce(sum(k), 0) = :k1
			AND coalesce(sum(k), 0) = :k2)::int AS same
	FROM t WHERE $cond;
COMMIT;
};
};

my $range = "\\set lo random(-100, 200000)\n\\set w random(2000, 60000)\n";
my %scripts = (
	'pf_insert@6' => q{
\set k random(0, 200003)
INSERT INTO t (k, pad) SELECT :k + g, 'i' FROM generate_series(1, 25) g;
},
	'pf_delete@2' => q{
\set k random(0, 200003)
DELETE FROM t WHERE k BETWEEN :k AND :k + 300;
},
	'pf_vacuum@1' => q{
VACUUM t;
},
	'pf_fwd_plain@2' => $range . $compare->(
		'SELECT id, k FROM t WHERE k BETWEEN :lo AND :lo + :w ORDER BY k LIMIT 10000000',
		'k BETWEEN :lo AND :lo + :w', 'id'),
	'pf_bwd_plain@2' => $range . $compare->(
		'SELECT id, k FROM t WHERE k BETWEEN :lo AND :lo + :w ORDER BY k DESC LIMIT 10000000',
		'k BETWEEN :lo AND :lo + :w', 'id'),
	'pf_fwd_only@2' => $range . $compare->(
		'SELECT 0 AS id, k FROM t WHERE k >= :lo ORDER BY k LIMIT 10000000',
		'k >= :lo', '0'),
	'pf_bwd_only@2' => $range . $compare->(
		'SELECT 0 AS id, k FROM t WHERE k <= :lo ORDER BY k DESC LIMIT 10000000',
		'k <= :lo', '0'),);

$node->pgbench(
	'--no-vacuum --client=6 --jobs=2 --time=25',
	0,
	[ qr{processed: [1-9]\d*}, qr{number of failed transactions: 0 } ],
	[qr{^$}],
	'prefetching scans equal unprefetched scans and a seq scan during splits and VACUUM',
	\%scripts);

# the prefetchers were busy: a long scan of a now well-split index
my $counts = $node->safe_psql(
	'postgres', q{
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT fpbtree_prefetch_stats_reset();
SELECT count(*) FROM t WHERE k >= 0;
SELECT count(pad) FROM (SELECT pad FROM t WHERE k BETWEEN 1000 AND 60000 ORDER BY k) s;
SELECT leaf_prefetches > 50, heap_prefetches > 50 FROM fpbtree_prefetch_stats();
});
like($counts, qr/t\|t$/, 'leaf and heap prefetch counters moved');

is($node->safe_psql('postgres', q{SELECT fpbtree_check('t_k', true)}),
	'', 'fpbtree_check passes after the run');

$node->stop;
done_testing();
