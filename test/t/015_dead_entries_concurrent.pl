
# A scan marks the entries it was told are dead only if the leaf it read
# them from cannot have lost them since: with the pin kept (index-only
# scans) it looks each one up by its key and TID, without the pin (plain
# MVCC scans) only if the page's LSN is unchanged.
#
# Part 1.  A plain index-scan cursor passes the entries of rows deleted
# before it opened (dead to everyone) and stops on the same leaf, so their
# marks are pending.  Meanwhile VACUUM removes those entries (the cursor
# holds no pin), and new rows with the same keys take the freed heap TIDs:
# entries equal in key and TID to the dead ones, but live.  When the cursor
# moves on, it must mark nothing (the leaf's LSN changed); later scans
# must return the new rows.
#
# Part 2.  Concurrent inserts into the leaf an index-only cursor stands on
# (pin kept) split it after the cursor passed dead entries.  The cursor
# marks what it finds; every later scan equals a sequential scan.
#
# Part 3.  A plain cursor's leaf gets an insert between read and marking:
# nothing is marked.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use FpbNode;

my $node = fpb_node(
	'dead_concurrent', q{
autovacuum = off
max_parallel_workers_per_gather = 0
max_parallel_maintenance_workers = 0
});

my $s1 = $node->background_psql('postgres', on_error_stop => 0);
my $index_plans =
  'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off;';
my $seq_plans =
  'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;';
my $dead = "SELECT fpbtree_dead_entries('t_v')";

# every query through the index, forward and backward, against a
# sequential scan of the same table
sub same_as_seqscan
{
	my ($what) = @_;
	for my $q (
		'SELECT id, v FROM t WHERE v BETWEEN 0 AND 100000 ORDER BY v, id',
		'SELECT id, v FROM t WHERE v BETWEEN 0 AND 100000 ORDER BY v DESC, id DESC',
		'SELECT v FROM t WHERE v >= 0 ORDER BY v')
	{
		is( $node->safe_psql('postgres', "$index_plans $q"),
			$node->safe_psql('postgres', "$seq_plans $q"),
			"$what: $q");
	}
	is($node->safe_psql('postgres', "SELECT fpbtree_check('t_v', true)"),
		'', "$what: fpbtree_check");
	return;
}

# Part 1
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION fpbtree;
CREATE TABLE t (id int4, v int8) WITH (fillfactor = 100);
INSERT INTO t SELECT g, g FROM generate_series(1, 20000) g;
CREATE INDEX t_v ON t USING fpbtree (v);
VACUUM ANALYZE t;
CREATE TABLE gone AS SELECT ctid AS tid, v FROM t WHERE v BETWEEN 1000 AND 1099;
DELETE FROM t WHERE v BETWEEN 1000 AND 1099;
});

$s1->query_safe("BEGIN ISOLATION LEVEL REPEATABLE READ; $index_plans");
my $cursor = 'SELECT id, v FROM t WHERE v >= 990 ORDER BY v';
like(
	$s1->query_safe("EXPLAIN (COSTS OFF) DECLARE c CURSOR FOR $cursor"),
	qr/^Index Scan using t_v on t/,
	'the cursor is a plain fpbtree index scan');
$s1->query_safe("DECLARE c CURSOR FOR $cursor");
is( $s1->query_safe('FETCH 15 FROM c'),
	join("\n", map { "$_|$_" } (990 .. 999, 1100 .. 1104)),
	'the cursor passed the deleted rows');

my ($ret, $stdout, $stderr) = $node->psql('postgres',
	"SET statement_timeout = '30s'; VACUUM (INDEX_CLEANUP ON) t");
is($ret, 0, 'VACUUM does not wait for the cursor');
$node->safe_psql('postgres',
	'INSERT INTO t SELECT 100000 + v, v FROM gone ORDER BY tid');
is( $node->safe_psql(
		'postgres',
		'SELECT count(*) FROM t JOIN gone ON t.ctid = gone.tid AND t.v = gone.v'),
	'100',
	'the new rows have the deleted rows\' keys and heap TIDs');

my $rest = $s1->query_safe('FETCH ALL FROM c');
like($rest, qr/^1105\|1105\n/, 'the cursor goes on after the rows it passed');
$s1->query_safe('COMMIT');
is($node->safe_psql('postgres', $dead), '0',
	'the cursor marked nothing on the changed leaf');
is( $node->safe_psql(
		'postgres',
		"$index_plans SELECT count(*) FROM t WHERE v BETWEEN 1000 AND 1099"),
	'100',
	'an index scan returns the new rows');
same_as_seqscan('part 1');

# Part 2: index-only cursor, leaf split under it
$node->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP ON) t');
$node->safe_psql('postgres', 'DELETE FROM t WHERE v BETWEEN 3000 AND 3099');
$s1->query_safe("BEGIN ISOLATION LEVEL REPEATABLE READ; $index_plans");
$cursor = 'SELECT v FROM t WHERE v >= 2990 ORDER BY v';
like(
	$s1->query_safe("EXPLAIN (COSTS OFF) DECLARE c CURSOR FOR $cursor"),
	qr/^Index Only Scan using t_v on t/,
	'the cursor is an fpbtree index-only scan');
$s1->query_safe("DECLARE c CURSOR FOR $cursor");
is( $s1->query_safe('FETCH 15 FROM c'),
	join("\n", (2990 .. 2999, 3100 .. 3104)),
	'the cursor passed the deleted rows');
my $pages = $node->safe_psql('postgres', "SELECT pg_relation_size('t_v') / 8192");
$node->safe_psql('postgres',
	'INSERT INTO t SELECT 200000 + g, 2990 + g % 300 FROM generate_series(1, 3000) g');
cmp_ok($node->safe_psql('postgres', "SELECT pg_relation_size('t_v') / 8192"),
	'>', $pages, 'the inserts split leaves');
like($s1->query_safe('FETCH ALL FROM c'), qr/^3105\n/,
	'the cursor goes on after the rows it passed');
$s1->query_safe('COMMIT');
my $marked = $node->safe_psql('postgres', $dead);
cmp_ok($marked, '<=', 100, "at most the deleted rows' entries are marked ($marked)");
same_as_seqscan('part 2');

# Part 3: plain cursor, an insert into its leaf before it leaves
$node->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP ON) t');
is($node->safe_psql('postgres', $dead), '0', 'VACUUM removed the marked entries');
$node->safe_psql('postgres', 'DELETE FROM t WHERE v BETWEEN 6000 AND 6049');
$s1->query_safe("BEGIN ISOLATION LEVEL REPEATABLE READ; $index_plans");
$s1->query_safe('DECLARE c CURSOR FOR SELECT id, v FROM t WHERE v >= 5990 ORDER BY v');
is( $s1->query_safe('FETCH 15 FROM c'),
	join("\n", map { "$_|$_" } (5990 .. 5999, 6050 .. 6054)),
	'the cursor passed the deleted rows');
$node->safe_psql('postgres', 'INSERT INTO t VALUES (300000, 6060)');
like($s1->query_safe('FETCH ALL FROM c'), qr/^6055\|6055\n/,
	'the cursor goes on after the rows it passed');
$s1->query_safe('COMMIT');
is($node->safe_psql('postgres', $dead), '0',
	'the cursor marked nothing on the changed leaf');
same_as_seqscan('part 3');

# and unchanged, the same cursor marks the dead entries
$s1->query_safe("BEGIN ISOLATION LEVEL REPEATABLE READ; $index_plans");
$s1->query_safe('DECLARE c CURSOR FOR SELECT id, v FROM t WHERE v >= 5990 ORDER BY v');
$s1->query_safe('FETCH ALL FROM c');
$s1->query_safe('COMMIT');
is($node->safe_psql('postgres', $dead), '50',
	'on an unchanged leaf the cursor marks the 50 dead entries');
same_as_seqscan('part 3, marked');

$s1->quit;
done_testing();
