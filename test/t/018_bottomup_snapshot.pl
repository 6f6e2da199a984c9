
# Bottom-up deletion on a low-cardinality index whose key the updates
# change (no executor hint: the leaf is dominated by runs of equal keys)
# removes only entries whose row versions the heap reports dead to every
# snapshot.  A second session holds a snapshot taken before rounds of
# updates: its index scans must still return its rows, and no entry can
# go, so the index grows.  Once it commits, the next rounds remove the
# dead versions instead of splitting.  Every scan equals btree's on a copy
# of the table that had the same updates.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use FpbNode;

my $node = fpb_node(
	'bottomup_snapshot', q{
autovacuum = off
max_parallel_workers_per_gather = 0
});

# each sets all four, as the session keeps what the other set
my $index_plans =
  'SET enable_seqscan = off; SET enable_indexscan = on; '
  . 'SET enable_bitmapscan = off; SET enable_indexonlyscan = off;';
my $seq_plans =
  'SET enable_seqscan = on; SET enable_indexscan = off; '
  . 'SET enable_bitmapscan = off; SET enable_indexonlyscan = off;';
my $q = 'SELECT b, count(*), sum(id) FROM %s WHERE b >= 0 GROUP BY b ORDER BY b';

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION fpbtree;
CREATE TABLE lf (id int4, b int4) WITH (fillfactor = 100);
CREATE TABLE lb (LIKE lf) WITH (fillfactor = 100);
INSERT INTO lf SELECT i, hashint4(i) & 31 FROM generate_series(1, 20000) i;
INSERT INTO lb SELECT * FROM lf;
CREATE INDEX lf_b ON lf USING fpbtree (b);
CREATE INDEX lb_b ON lb (b);
VACUUM ANALYZE lf;
VACUUM ANALYZE lb;
});

sub size
{
	return $node->safe_psql('postgres', "SELECT pg_relation_size('lf_b')");
}

# a round of updates of every row of both tables, a twentieth per
# statement (each its own transaction), through sequential scans only
sub round
{
	for my $c (0 .. 19)
	{
		$node->safe_psql('postgres',
			    "$seq_plans UPDATE lf SET b = (b + 7) & 31 WHERE id % 20 = $c;"
			  . "UPDATE lb SET b = (b + 7) & 31 WHERE id % 20 = $c;");
	}
	return;
}

# both tables through their indexes and a sequential scan, in session $s
sub check_same
{
	my ($s, $what) = @_;
	my $seq = $s->query_safe("$seq_plans " . sprintf($q, 'lf'));
	like(
		$s->query_safe("$index_plans EXPLAIN (COSTS OFF) " . sprintf($q, 'lf')),
		qr/Index Scan using lf_b/,
		"$what: the query scans the fpbtree index");
	is($s->query_safe("$index_plans " . sprintf($q, 'lf')),
		$seq, "$what: fpbtree index scan equals a sequential scan");
	is($s->query_safe("$index_plans " . sprintf($q, 'lb')),
		$seq, "$what: btree index scan equals it");
	return $seq;
}

my $s1 = $node->background_psql('postgres', on_error_stop => 0);
$s1->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
my $old = check_same($s1, 'snapshot taken');
my $size0 = size();

round();
round();
my $size1 = size();
is(check_same($s1, 'old snapshot after two rounds'),
	$old, 'the old snapshot still sees its rows');
cmp_ok($size1, '>', 1.5 * $size0,
	"no entry the old snapshot needs went: the index grew ($size0 -> $size1)");
is($node->safe_psql('postgres', "SELECT fpbtree_check('lf_b', true)"),
	'', 'fpbtree_check with the old snapshot held');

$s1->query_safe('COMMIT');
round();
my $size2 = size();
cmp_ok($size2, '<=', $size1 * 1.1,
	"with the snapshot gone the dead versions made room ($size1 -> $size2)");
isnt(check_same($s1, 'after the snapshot'), $old, 'a new snapshot sees the updates');
is($node->safe_psql('postgres', "SELECT fpbtree_check('lf_b', true)"),
	'', 'fpbtree_check after the removal');

$s1->quit;
done_testing();
