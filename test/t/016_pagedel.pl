
# Page deletion and reuse (src/am/pagedel.c, vacuum.c, meta.c).
#
# Part 1.  VACUUM's backtracking: a split during VACUUM moves entries into a
# reused block below the block VACUUM is visiting.  An index-only cursor
# holds its leaf pinned, so VACUUM waits there for its cleanup lock; rows
# dead before the cursor opened lie on leaves further right, and inserts
# split those leaves into reused blocks further left meanwhile.  Once the
# cursor is gone VACUUM must still remove the dead entries moved left: the
# index holds exactly the table's rows, the heap TIDs VACUUM freed and new
# rows reuse are not reached through stale entries, and fpbtree_check
# passes.
#
# Part 2.  Cursors (plain and index-only, forward and backward) stand beside
# a range of leaves whose rows were deleted before they opened; VACUUM
# deletes those leaves (the plain cursors hold no pin) and the cursors then
# step over or walk left across them: their rows equal those of the same
# cursors over a btree index.
#
# Part 3.  VACUUM stops with an error between the two steps of a deletion
# (the developer setting fpbtree.debug_pagedel_stop), leaving a half-dead
# leaf; scans and inserts pass it, the server is crashed (immediate stop)
# and restarted, fpbtree_check passes, and the next VACUUM finishes the
# deletion.  The same with a leaf that goes with its parent (its only
# child): both are left half-dead.
#
# Part 4.  A streaming standby replays deletions and reuse (VACUUM runs
# with wal_consistency_checking, so the pages its records change are
# compared with the primary's): fpbtree_check passes on it and its query
# results equal the primary's.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use FpbNode;

my $node = fpb_node(
	'pagedel', q{
autovacuum = off
max_parallel_workers_per_gather = 0
max_parallel_maintenance_workers = 0
wal_keep_size = '256MB'
}, allows_streaming => 1);

# The index scan and sequential scan of query $q (over table $t) agree.
sub same_as_seqscan
{
	my ($n, $q, $name) = @_;
	my $idx = $n->safe_psql('postgres',
		"SET enable_seqscan = off; SET enable_bitmapscan = off; $q");
	my $seq = $n->safe_psql('postgres',
		"SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; $q");
	is($idx, $seq, $name);
	return;
}

# "N newly deleted" of VACUUM VERBOSE for index $idx
sub vacuum_deleted
{
	my ($n, $table, $idx, $opts) = @_;
	my ($ret, $out, $err) =
	  $n->psql('postgres', "VACUUM (VERBOSE$opts) $table");
	die "VACUUM failed: $err" if $ret;
	$err =~ /index "$idx": pages: \d+ in total, (\d+) newly deleted/
	  or die "no page counts in: $err";
	return $1;
}

# ---- Part 1: backtracking --------------------------------------------------

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION fpbtree;
CREATE TABLE b (k int8) WITH (autovacuum_enabled = off);
INSERT INTO b SELECT g * 10 FROM generate_series(1, 100000) g;
CREATE INDEX b_k ON b USING fpbtree (k);
-- the lowest leaves are emptied and deleted, then found recyclable
DELETE FROM b WHERE k <= 300000;
VACUUM b;
});
$node->safe_psql('postgres', 'SELECT txid_current()');
$node->safe_psql('postgres', 'VACUUM b');
# rows dead before the cursor's snapshot, on leaves right of the cursor's
$node->safe_psql('postgres',
	'DELETE FROM b WHERE k BETWEEN 900000 AND 960000 AND k % 20 = 0');

my $s1 = $node->background_psql('postgres', on_error_stop => 0);
my $s2 = $node->background_psql('postgres', on_error_stop => 0);
$s1->query_safe(
	q{
BEGIN ISOLATION LEVEL REPEATABLE READ;
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
});
like(
	$s1->query_safe(
		'EXPLAIN (COSTS OFF) SELECT k FROM b WHERE k >= 500000 ORDER BY k'),
	qr/^Index Only Scan using b_k on b/,
	'the pinning cursor is an fpbtree index-only scan');
$s1->query_safe(
	'DECLARE pin CURSOR FOR SELECT k FROM b WHERE k >= 500000 ORDER BY k');
is($s1->query_safe('FETCH 1 FROM pin'), '500000', 'the cursor holds its leaf');

my $vpid = $s2->query_safe('SELECT pg_backend_pid()');
$s2->query_until(qr/vacuum_started/, "\\echo vacuum_started\nVACUUM b;\n");
$node->poll_query_until('postgres',
	"SELECT wait_event = 'BufferPin' FROM pg_stat_activity WHERE pid = $vpid")
  or die 'VACUUM does not wait for the cursor';

# splits of the leaves holding the dead rows, into reused low blocks
my $size_before = $node->safe_psql('postgres', "SELECT pg_relation_size('b_k')");
$node->safe_psql('postgres',
	'INSERT INTO b SELECT g * 10 + d FROM generate_series(90000, 96000) g, generate_series(1, 3) d'
);
is($node->safe_psql('postgres', "SELECT pg_relation_size('b_k')"),
	$size_before, 'the splits took reused pages');
is($node->safe_psql('postgres',
		"SELECT wait_event FROM pg_stat_activity WHERE pid = $vpid"),
	'BufferPin', 'VACUUM still waits');
$s1->query_safe('COMMIT');
is($s2->query_safe('SELECT 1'), '1', 'VACUUM finished');

is( $node->safe_psql(
		'postgres',
		q{SELECT s.entries = (SELECT count(*) FROM b) FROM fpbtree_stats('b_k') s}),
	't',
	'VACUUM removed the dead entries moved into reused blocks');
# heap TIDs freed by VACUUM are reused by rows with other keys
$node->safe_psql('postgres',
	'INSERT INTO b SELECT 5000000 + g FROM generate_series(1, 20000) g');
same_as_seqscan($node,
	'SELECT k FROM b WHERE k BETWEEN 899990 AND 960010 ORDER BY k',
	'no stale entry leads to a reused heap TID');
is($node->safe_psql('postgres', "SELECT fpbtree_check('b_k', true)"),
	'', 'fpbtree_check passes');

# ---- Part 2: cursors across deleted leaves ---------------------------------

$node->safe_psql(
	'postgres', q{
CREATE TABLE c (id int4, kf int8, kb int8) WITH (autovacuum_enabled = off);
INSERT INTO c SELECT g, g, g FROM generate_series(1, 60000) g;
CREATE INDEX c_kf ON c USING fpbtree (kf);
CREATE INDEX c_kb ON c USING btree (kb) WITH (deduplicate_items = off);
VACUUM ANALYZE c;
-- whole leaves of rows, dead before the cursors open
DELETE FROM c WHERE kf BETWEEN 10001 AND 20000 OR kf BETWEEN 40001 AND 50000;
});

$s1->query_safe(
	q{
BEGIN ISOLATION LEVEL REPEATABLE READ;
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SET LOCAL enable_sort = off;
});
my %q = (
	fwd => 'SELECT id, kf FROM c WHERE kf >= 9000 ORDER BY kf',
	bwd => 'SELECT id, kf FROM c WHERE kf <= 51000 ORDER BY kf DESC',
	iof => 'SELECT kf FROM c WHERE kf >= 39000 ORDER BY kf',
	iob => 'SELECT kf FROM c WHERE kf <= 21000 ORDER BY kf DESC');
my %plan = (
	fwd => qr/^Index Scan using c_kf/,
	bwd => qr/^Index Scan Backward using c_kf/,
	iof => qr/^Index Only Scan using c_kf/,
	iob => qr/^Index Only Scan Backward using c_kf/);
my (%got, %want);
for my $c (sort keys %q)
{
	like($s1->query_safe("EXPLAIN (COSTS OFF) $q{$c}"),
		$plan{$c}, "cursor $c: plan");
	(my $ref = $q{$c}) =~ s/kf/kb/g;
	$want{$c} = $s1->query_safe($ref);
	$s1->query_safe("DECLARE $c SCROLL CURSOR FOR $q{$c}");
	$got{$c} = $s1->query_safe("FETCH 990 FROM $c");
}

# The plain cursors are next to the dead ranges; the index-only ones hold
# their pins, so VACUUM waits at the first of them once it has deleted
# the leaves before it.
my $leaves_before = $node->safe_psql('postgres',
	"SELECT pages_per_level[1] FROM fpbtree_stats('c_kf')");
$s2->query_until(qr/vacuum_started/,
	"\\echo vacuum_started\nVACUUM c;\n");
$node->poll_query_until('postgres',
	"SELECT wait_event = 'BufferPin' FROM pg_stat_activity WHERE pid = $vpid")
  or die 'VACUUM does not wait for the index-only cursors';
for my $c (qw(fwd bwd iob iof))
{
	$got{$c} .= "\n" . $s1->query_safe("FETCH ALL FROM $c");
	is($got{$c}, $want{$c}, "cursor $c: rows equal btree's");
}
my $back = $s1->query_safe('FETCH BACKWARD ALL FROM fwd');
(my $rev = $q{fwd}) =~ s/kf/kb/g;
$rev =~ s/ORDER BY kb/ORDER BY kb DESC/;
is($back, $s1->query_safe($rev), 'cursor fwd turned back: rows equal btree\'s');
$s1->query_safe('COMMIT');
is($s2->query_safe('SELECT 1'), '1', 'VACUUM finished');
is($node->safe_psql('postgres', "SELECT fpbtree_check('c_kf', true)"),
	'', 'fpbtree_check passes');
cmp_ok(
	$node->safe_psql('postgres',
		"SELECT pages_per_level[1] FROM fpbtree_stats('c_kf')"),
	'<=', $leaves_before - 30,
	"the VACUUM under the cursors deleted the emptied leaves (of $leaves_before)");
cmp_ok(vacuum_deleted($node, 'c', 'c_kf', ''),
	'==', 0, 'the next VACUUM finds none left to delete');
same_as_seqscan($node, 'SELECT kf FROM c WHERE kf BETWEEN 9000 AND 52000 ORDER BY kf',
	'range over the deleted leaves');

$s1->quit;
$s2->quit;

# ---- Part 3: a crash between the two steps ---------------------------------

$node->safe_psql(
	'postgres', q{
CREATE TABLE h (k int8) WITH (autovacuum_enabled = off);
INSERT INTO h SELECT g FROM generate_series(1, 30000) g;
CREATE INDEX h_k ON h USING fpbtree (k);
DELETE FROM h WHERE k BETWEEN 5001 AND 15000;
});
my ($ret, $out, $err) = $node->psql('postgres',
	'SET fpbtree.debug_pagedel_stop = on; VACUUM h');
like($err, qr/stopped after marking block \d+ of index "h_k" half-dead/,
	'VACUUM stops between the steps');
is($node->safe_psql('postgres', "SELECT fpbtree_check('h_k', true)"),
	'', 'fpbtree_check passes with a half-dead leaf');
same_as_seqscan($node, 'SELECT k FROM h WHERE k BETWEEN 4000 AND 16000 ORDER BY k',
	'forward scan over the half-dead leaf');
same_as_seqscan($node,
	'SELECT k FROM h WHERE k BETWEEN 4000 AND 16000 ORDER BY k DESC',
	'backward scan over the half-dead leaf');
# the half-dead leaf's right sibling takes its range and splits there,
# below the half-dead leaf's own (stale) high key: scans that step right
# from the half-dead leaf must not take that for a damaged link
$node->safe_psql('postgres',
	'INSERT INTO h SELECT 5001 + g % 700 FROM generate_series(1, 6000) g');
same_as_seqscan($node, 'SELECT k FROM h WHERE k BETWEEN 4000 AND 16000 ORDER BY k',
	'forward scan over the half-dead leaf after its right sibling split');
same_as_seqscan($node,
	'SELECT k FROM h WHERE k BETWEEN 4000 AND 16000 ORDER BY k DESC',
	'backward scan over it after the split');
is($node->safe_psql('postgres', "SELECT fpbtree_check('h_k', true)"),
	'', 'fpbtree_check passes after the split');
# keys in the half-dead leaf's range go to its right sibling
$node->safe_psql('postgres',
	'INSERT INTO h SELECT g * 2 FROM generate_series(2500, 7500) g');
$node->stop('immediate');
$node->start;
is($node->safe_psql('postgres', "SELECT fpbtree_check('h_k', true)"),
	'', 'fpbtree_check passes after the crash');
same_as_seqscan($node, 'SELECT k FROM h WHERE k BETWEEN 4000 AND 16000 ORDER BY k',
	'scan after the crash');
$node->safe_psql('postgres', 'DELETE FROM h WHERE k BETWEEN 4001 AND 16000');
cmp_ok(vacuum_deleted($node, 'h', 'h_k', ''),
	'>', 0, 'the next VACUUM deletes leaves, the half-dead one among them');
is($node->safe_psql('postgres', "SELECT fpbtree_check('h_k', true)"),
	'', 'fpbtree_check passes after VACUUM');
same_as_seqscan($node, 'SELECT k FROM h WHERE k BETWEEN 1 AND 30000 ORDER BY k DESC',
	'backward scan after VACUUM');

# ---- Part 3b: the same when the leaf's parent goes with it ------------------

# Two level-1 pages.  The first one's leaves are emptied (and deleted) one
# leaf's worth of keys at a time, VACUUM stopping after the first step,
# until the step that stopped made two pages half-dead: the last child
# and the level-1 page whose only child it was.
$node->safe_psql(
	'postgres', q{
CREATE TABLE p (k int8) WITH (autovacuum_enabled = off);
INSERT INTO p SELECT g FROM generate_series(1, 250000) g;
CREATE INDEX p_k ON p USING fpbtree (k);
DELETE FROM p WHERE k < 165000;
VACUUM p;
});
is($node->safe_psql('postgres', "SELECT pages_per_level[2] FROM fpbtree_stats('p_k')"),
	'2', 'two level-1 pages');
my $lo = 165000;
my $subtree = 0;
for my $i (1 .. 300)
{
	$lo += 400;
	$node->safe_psql('postgres', "DELETE FROM p WHERE k < $lo");
	# (INDEX_CLEANUP ON: so few dead rows would not make VACUUM visit the index)
	$node->psql('postgres',
		'SET fpbtree.debug_pagedel_stop = on; VACUUM (INDEX_CLEANUP ON) p');
	my $hd = $node->safe_psql('postgres',
		"SELECT half_dead_pages FROM fpbtree_stats('p_k')");
	if ($hd == 2)
	{
		$subtree = 1;
		last;
	}
	$node->safe_psql('postgres', 'VACUUM (INDEX_CLEANUP ON) p') if $hd == 1;
}
ok($subtree, "VACUUM stopped with a leaf and its parent half-dead (keys below $lo gone)");
is($node->safe_psql('postgres', "SELECT fpbtree_check('p_k', true)"),
	'', 'fpbtree_check passes with a half-dead leaf and parent');
same_as_seqscan($node, "SELECT k FROM p WHERE k BETWEEN $lo - 2000 AND $lo + 2000 ORDER BY k",
	'forward scan over the half-dead pages');
same_as_seqscan($node,
	"SELECT k FROM p WHERE k < $lo + 2000 ORDER BY k DESC",
	'backward scan over the half-dead pages');
$node->safe_psql('postgres',
	"INSERT INTO p SELECT g FROM generate_series($lo - 1000, $lo - 1) g");
$node->stop('immediate');
$node->start;
is($node->safe_psql('postgres', "SELECT fpbtree_check('p_k', true)"),
	'', 'fpbtree_check passes after the crash');
$node->safe_psql('postgres', "DELETE FROM p WHERE k < $lo");
cmp_ok(vacuum_deleted($node, 'p', 'p_k', ', INDEX_CLEANUP ON'),
	'>=', 2, 'the next VACUUM finishes the deletion');
is( $node->safe_psql(
		'postgres',
		"SELECT pages_per_level[2], half_dead_pages FROM fpbtree_stats('p_k')"),
	'1|0',
	'one level-1 page is left, nothing half-dead');
is($node->safe_psql('postgres', "SELECT fpbtree_check('p_k', true)"),
	'', 'fpbtree_check passes after VACUUM');
same_as_seqscan($node, "SELECT k FROM p WHERE k < $lo + 5000 ORDER BY k DESC",
	'backward scan after VACUUM');

# ---- Part 4: a standby replays deletion and reuse --------------------------

my $standby = fpb_standby($node, 'standby');

# the records of VACUUM (deletion steps, cycle ids) carry full images the
# standby compares its replayed pages with
my $wcc = "SET wal_consistency_checking = 'generic';";
$node->safe_psql(
	'postgres', q{
CREATE TABLE s (k int8, id int4) WITH (autovacuum_enabled = off);
CREATE INDEX s_k ON s USING fpbtree (k);
INSERT INTO s SELECT g, g FROM generate_series(1, 40000) g;
});
for my $c (1 .. 6)
{
	my $lo = ($c + 1) * 20000 + 1;
	my $hi = ($c + 2) * 20000;
	$node->safe_psql('postgres',
		"INSERT INTO s SELECT g, g FROM generate_series($lo, $hi) g");
	$node->safe_psql('postgres', 'DELETE FROM s WHERE k <= ' . $c * 20000);
	$node->safe_psql('postgres', "$wcc VACUUM s");
}
$node->wait_for_catchup($standby);
is($standby->safe_psql('postgres', "SELECT fpbtree_check('s_k', false)"),
	'', 'fpbtree_check passes on the standby');
for my $q ('SELECT k FROM s WHERE k > 0 ORDER BY k',
	'SELECT k FROM s WHERE k BETWEEN 130000 AND 150000 ORDER BY k DESC',
	'SELECT count(*) FROM s WHERE k < 1000000')
{
	my $sq = "SET enable_seqscan = off; SET enable_bitmapscan = off; $q";
	is($standby->safe_psql('postgres', $sq),
		$node->safe_psql('postgres', $sq), "standby = primary: $q");
}
cmp_ok($node->safe_psql('postgres', "SELECT pg_relation_size('s_k') / 8192"),
	'<', 300, 'the queue reused its pages');

$standby->stop;
$node->stop;
done_testing();
