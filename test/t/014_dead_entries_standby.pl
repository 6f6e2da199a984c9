
# Entries marked dead on the primary are not trusted on a hot standby, and
# their removal before a split cancels standby queries that could still
# need them.
#
# A repeatable-read transaction on the standby (hot_standby_feedback off)
# takes its snapshot before the primary updates half the rows (non-HOT: the
# key changes).  The primary then marks the old versions' entries dead with
# an index scan, right after a checkpoint, so with wal_log_hints the marks
# reach the standby in full-page images, with no recovery conflict.  The
# standby transaction must still see the old versions, i.e. ignore the
# marks; a new standby query must give the primary's rows.  Then inserts on
# the primary remove the marked entries: the old standby snapshot either
# gets its rows or is cancelled by the recovery conflict logged with the
# removal, never wrong rows.  Heap pages keep more free space than pruning
# waits for, so no heap pruning conflict interferes.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use FpbNode;

my $primary = fpb_node(
	'dead_primary', q{
autovacuum = off
wal_log_hints = on
max_parallel_workers_per_gather = 0
}, allows_streaming => 1);

# three quarters of every heap page freed by VACUUM: updates and inserts
# find room there, and scans leave the pages unpruned
$primary->safe_psql(
	'postgres', q{
CREATE EXTENSION fpbtree;
CREATE TABLE t (id int4, v int8) WITH (fillfactor = 100);
INSERT INTO t SELECT g, g * 4 FROM generate_series(1, 80000) g;
DELETE FROM t WHERE id % 4 <> 0;
CREATE INDEX t_v ON t USING fpbtree (v);
VACUUM ANALYZE t;
});

my $standby = fpb_standby(
	$primary, 'dead_standby', q{
hot_standby_feedback = off
max_standby_streaming_delay = 0
max_parallel_workers_per_gather = 0
});
$primary->wait_for_catchup($standby);

my $plans =
  'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;';
my $q = 'SELECT count(*), sum(id), sum(v) FROM t WHERE v BETWEEN 0 AND 1000000';
my $dead = "SELECT fpbtree_dead_entries('t_v')";
my $old = $primary->safe_psql('postgres', "$plans $q");

# the standby transaction whose snapshot predates the updates
my $s = $standby->background_psql('postgres', on_error_stop => 0);
$s->query_safe("BEGIN ISOLATION LEVEL REPEATABLE READ");
$s->query_safe($plans);
is($s->query_safe($q), $old, 'standby snapshot taken: the primary\'s rows');

# primary: new versions with new keys, then marks set after a checkpoint
$primary->safe_psql('postgres', 'UPDATE t SET v = v + 1 WHERE id % 8 = 0');
$primary->safe_psql('postgres', 'CHECKPOINT');
my $new = $primary->safe_psql('postgres', "$plans $q");
isnt($new, $old, 'the updates changed the answer');
my $marked = $primary->safe_psql('postgres', $dead);
cmp_ok($marked, '>', 0, "the primary's index scan marked $marked entries");
$primary->wait_for_catchup($standby);
cmp_ok($standby->safe_psql('postgres', $dead),
	'>', 0, 'the marks reached the standby in full-page images');

is($s->query_safe($q), $old,
	'the old standby snapshot still sees the old versions: marks are not trusted');
is($standby->safe_psql('postgres', "$plans $q"),
	$new, 'a new standby query gives the primary\'s rows');

# inserts between the old entries fill the nodes: the marked entries are
# removed before any split
my $size = $primary->safe_psql('postgres', "SELECT pg_relation_size('t_v')");
$primary->safe_psql('postgres',
	'INSERT INTO t SELECT 100000 + g, g * 4 + 2 FROM generate_series(1, 20000) g');
my $left = $primary->safe_psql('postgres', $dead);
cmp_ok($left, '<', $marked, "inserts removed marked entries ($marked -> $left)");
$primary->wait_for_catchup($standby);

# the old snapshot: its rows, or cancelled (the session may be terminated)
my ($out, $failed) = eval { $s->query($q) };
if (!defined $out || $failed)
{
	like(
		$@ . ($s->{stderr} // ''),
		qr/conflict with recovery|connection/,
		'the old standby snapshot was cancelled by a recovery conflict');
	ok( $standby->log_contains(
			qr/(canceling statement|terminating connection) due to conflict with recovery/),
		'the standby log names the conflict');
}
else
{
	is($out, $old, 'the old standby snapshot still gets its rows');
}
eval { $s->quit };

# (only now: reading the heap on the primary may prune it, another conflict)
$new = $primary->safe_psql('postgres', "$plans $q");

is($standby->safe_psql('postgres', "$plans $q"),
	$new, 'after the removal a new standby query gives the primary\'s rows');
is($standby->safe_psql('postgres', "SELECT fpbtree_check('t_v', true)"),
	'', 'fpbtree_check passes on the standby');
is($primary->safe_psql('postgres', "SELECT fpbtree_check('t_v', true)"),
	'', 'fpbtree_check passes on the primary');

done_testing();
