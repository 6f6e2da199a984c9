
# VACUUM's bookkeeping of deleted and free pages, where a VACUUM that
# removes nothing relies on it to skip the walk of the index (src/am/
# README.md, "VACUUM without a bulk delete"):
#
# - a VACUUM that fails after an fpbtree index's bulk delete (here another
#   index's damaged metapage stops it; autovacuum is cancelled so on a lock
#   conflict) never reaches amvacuumcleanup: the pages the walk listed as
#   free must be findable all the same, since the count it wrote tells the
#   next VACUUMs that nothing waits;
# - an all-zero page (a relation extended by a backend that then failed)
#   is listed as free and counted as deleted, as nbtree counts it: counted
#   as free only, the difference wrapped and made every later VACUUM walk.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use FpbNode;

my $node = fpb_node('vacfsm', "autovacuum = off\n");
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION fpbtree;
CREATE TABLE t (k int8) WITH (autovacuum_enabled = off);
INSERT INTO t SELECT g FROM generate_series(1, 100000) g;
CREATE INDEX t_a ON t USING fpbtree (k);
CREATE INDEX t_b ON t USING fpbtree (k);
DELETE FROM t WHERE k <= 60000;
VACUUM t;
});
# a transaction after the deletions: the deleted pages become recyclable
$node->safe_psql('postgres', 'SELECT txid_current()');
is( $node->safe_psql(
		'postgres',
		'SELECT deleted_pages > 100, free_pages = 0 FROM fpbtree_stats(\'t_a\')'),
	't|t',
	'the first VACUUM deleted leaves, none free yet');

# one dead row: the next VACUUM has something to remove
$node->safe_psql('postgres', 'DELETE FROM t WHERE k = 99999');

my $datadir = $node->data_dir;
my $path_of = sub {
	my ($rel) = @_;
	return "$datadir/"
	  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('$rel')");
};
my $file_a = $path_of->('t_a');
my $file_b = $path_of->('t_b');

# t_b's block 1 gets a wrong special space size (pd_special), which its
# walk refuses
$node->stop;
open(my $fh, '+<', $file_b) or die "open $file_b: $!";
binmode $fh;
seek($fh, 8192 + 16, 0);
print $fh pack('v', 8192 - 8);
close $fh;
$node->start;

# INDEX_CLEANUP ON: the indexes are vacuumed even for one dead row; t_a's
# walk (the older index) lists the deleted pages, then t_b's fails
my ($ret, $out, $err) =
  $node->psql('postgres', 'VACUUM (INDEX_CLEANUP ON) t');
like($err, qr/t_b/, 'the VACUUM fails at the damaged index')
  or diag("ret $ret, err $err");
$node->safe_psql('postgres', 'DROP INDEX t_b');

# the row's dead line pointer is left; this VACUUM bypasses the indexes
# (one page of dead items) and calls only the cleanup, which finds nothing
# waiting in t_a's count
$node->safe_psql('postgres', 'VACUUM t');
my $size = $node->safe_psql('postgres', "SELECT pg_relation_size('t_a')");
$node->safe_psql('postgres',
	'INSERT INTO t SELECT g FROM generate_series(1, 40000) g');
is($node->safe_psql('postgres', "SELECT pg_relation_size('t_a')"),
	$size, 'the rows that come back reuse the pages listed before the failure');
is($node->safe_psql('postgres', "SELECT fpbtree_check('t_a', true) IS NOT NULL"),
	't', 't_a is sound');

# An all-zero page at the end of t_a.
$node->stop;
open($fh, '>>', $file_a) or die "open $file_a: $!";
binmode $fh;
print $fh "\0" x 8192;
close $fh;
$node->start;
$node->safe_psql('postgres', 'DELETE FROM t WHERE k = 99998');
$node->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP ON) t');

# the blocks of t_a that a VACUUM with nothing to remove reads
my $blocks = sub {
	$node->safe_psql('postgres', 'SELECT pg_stat_force_next_flush()');
	return $node->safe_psql('postgres',
		"SELECT idx_blks_hit + idx_blks_read FROM pg_statio_user_indexes WHERE indexrelname = 't_a'"
	);
};
my $before = $blocks->();
$node->safe_psql('postgres', 'VACUUM t');
my $after = $blocks->();
cmp_ok($after - $before, '<=', 2,
	'after the walk that found the zero page, a VACUUM with nothing to do reads only the metapage'
);
is($node->safe_psql('postgres', "SELECT fpbtree_check('t_a', true) IS NOT NULL"),
	't', 't_a is sound with the zero page listed');

$node->stop;
done_testing();
