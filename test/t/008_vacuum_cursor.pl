
# An idle cursor over a plain fpbtree index scan must not hold up VACUUM:
# the scan drops its leaf pin under an MVCC snapshot, as nbtree does.
#
# Part 1.  Session 1 opens cursors (forward, backward, scrollable) over
# plain index scans of an fpbtree index, and the same cursors over a btree
# index on an identical column, FETCHes 5 rows from each and stays idle in
# its transaction.  Session 2 deletes rows the cursors can still see,
# inserts rows that split the leaves the fpbtree cursors stand on and their
# neighbours, and runs VACUUM, which removes rows deleted before the cursors
# opened.  VACUUM must finish within a generous statement_timeout.  Heap
# TIDs VACUUM freed are then reused by new rows.  The cursors' remaining
# rows (forward, then backward over the whole range) must equal the btree
# cursors' rows.
#
# Part 2.  An index-only cursor keeps its pin (the visibility map, not the
# heap, tells it whether a TID is visible): VACUUM waits for it, and its
# rows equal those of a btree index-only scan in the same snapshot.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use FpbNode;

my $node = fpb_node(
	'vacuum_cursor', q{
autovacuum = off
max_parallel_workers_per_gather = 0
# VACUUM's own backend does all the work (and waits, where it waits)
max_parallel_maintenance_workers = 0
});

# kf and kb hold the same keys (pairs of duplicates); heap order is not key
# order, so every leaf points into many heap pages
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION fpbtree;
CREATE TABLE t (id int4, kf int8, kb int8, pad text);
INSERT INTO t
	SELECT g, ((g * 7919) % 20011) / 2, ((g * 7919) % 20011) / 2, repeat('x', g % 30)
	FROM generate_series(1, 20000) g;
CREATE INDEX t_kf ON t USING fpbtree (kf);
-- no posting lists: a backward btree scan then returns equal keys in
-- exactly reverse heap order, as fpbtree does
CREATE INDEX t_kb ON t USING btree (kb) WITH (deduplicate_items = off);
VACUUM ANALYZE t;
-- heap TIDs of the rows deleted next, to see them reused later
CREATE TABLE gone AS SELECT ctid AS tid FROM t WHERE id <= 3000;
-- rows dead before the cursors' snapshot: VACUUM removes them, so it must
-- visit every leaf with a cleanup lock
DELETE FROM t WHERE id <= 3000;
});

# A repeatable-read transaction in session $s whose plans read the indexes
# (no sequential, bitmap or sort plans), so a cursor's snapshot stays fixed.
sub begin_index_only_plans
{
	my ($s) = @_;
	$s->query_safe(
		q{
BEGIN ISOLATION LEVEL REPEATABLE READ;
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
SET LOCAL enable_sort = off;
});
	return;
}

my $s1 = $node->background_psql('postgres', on_error_stop => 0);
my $s2 = $node->background_psql('postgres', on_error_stop => 0);

my $plain_f = 'SELECT id, kf FROM t WHERE kf >= 0 ORDER BY kf';
my $plain_b = 'SELECT id, kb FROM t WHERE kb >= 0 ORDER BY kb';
my $desc_f = 'SELECT id, kf FROM t WHERE kf <= 9000 ORDER BY kf DESC';
my $desc_b = 'SELECT id, kb FROM t WHERE kb <= 9000 ORDER BY kb DESC';

begin_index_only_plans($s1);
like(
	$s1->query_safe("EXPLAIN (COSTS OFF) DECLARE x SCROLL CURSOR FOR $plain_f"),
	qr/^Index Scan using t_kf on t/,
	'the forward cursor is a plain fpbtree index scan');
like(
	$s1->query_safe("EXPLAIN (COSTS OFF) DECLARE x CURSOR FOR $desc_f"),
	qr/^Index Scan Backward using t_kf on t/,
	'the backward cursor is a plain fpbtree index scan');
like(
	$s1->query_safe("EXPLAIN (COSTS OFF) DECLARE x SCROLL CURSOR FOR $plain_b"),
	qr/^Index Scan using t_kb on t/,
	'the reference cursor is a btree index scan');

$s1->query_safe(
	qq{
DECLARE cf SCROLL CURSOR FOR $plain_f;
DECLARE cb SCROLL CURSOR FOR $plain_b;
DECLARE df CURSOR FOR $desc_f;
DECLARE db CURSOR FOR $desc_b;
});
my %first;
for my $c (qw(cf cb df db))
{
	$first{$c} = $s1->query_safe("FETCH 5 FROM $c");
}
is($first{cf}, $first{cb}, 'first 5 rows, forward: fpbtree = btree');
is($first{df}, $first{db}, 'first 5 rows, backward: fpbtree = btree');

# Session 1 is now idle in its transaction, its cursors on the first and on
# a middle leaf.  Rows it still sees go; leaves under and beside the
# cursors split.
$node->safe_psql(
	'postgres', q{
DELETE FROM t WHERE id % 7 = 0;
INSERT INTO t SELECT 100000 + g, g % 60, g % 60, 'split' FROM generate_series(1, 3000) g;
INSERT INTO t SELECT 200000 + g, 8500 + g % 600, 8500 + g % 600, 'split'
	FROM generate_series(1, 3000) g;
});

# generous: it takes well under a second unless it waits for a pin
my ($ret, $stdout, $stderr) = $node->psql('postgres',
	"SET statement_timeout = '30s'; VACUUM (INDEX_CLEANUP ON) t");
is($ret, 0, 'VACUUM does not wait for the idle cursors');
is($stderr, '', 'VACUUM said nothing');

# the freed heap TIDs get reused by rows the cursors must not return
$node->safe_psql('postgres',
	q{INSERT INTO t SELECT 300000 + g, g % 9000, g % 9000, 'reuse' FROM generate_series(1, 3000) g});
my $reused = $node->safe_psql('postgres',
	q{SELECT count(*) FROM t JOIN gone ON t.ctid = gone.tid WHERE t.id > 300000});
cmp_ok($reused, '>', 0, "VACUUM freed heap TIDs that new rows reuse ($reused)");

my %rest;
for my $c (qw(cf cb df db))
{
	$rest{$c} = $s1->query_safe("FETCH ALL FROM $c");
}
is($rest{cf}, $rest{cb}, 'remaining rows, forward: fpbtree = btree');
is($rest{df}, $rest{db}, 'remaining rows, backward: fpbtree = btree');
my @ids = map { (split /\|/)[0] } split /\n/, $rest{cf};
cmp_ok(scalar(@ids), '>', 10000,
	'the forward cursor returned many rows (' . scalar(@ids) . ')');
cmp_ok(scalar(grep { $_ % 7 == 0 } @ids),
	'>', 1000, 'among them rows deleted after it opened');
is(scalar(grep { $_ <= 3000 || $_ > 100000 } @ids),
	0, 'but none deleted before it opened, nor inserted after');

my $back_f = $s1->query_safe('FETCH BACKWARD ALL FROM cf');
my $back_b = $s1->query_safe('FETCH BACKWARD ALL FROM cb');
is($back_f, $back_b, 'the whole range backward: fpbtree = btree');
$s1->query_safe('COMMIT');

# Part 2: index-only scans keep their pin.  Clean up first so that the
# visibility map is set, then delete rows that VACUUM will remove under
# the open cursor.
$node->safe_psql('postgres', 'VACUUM t');
$node->safe_psql('postgres', 'DELETE FROM t WHERE id BETWEEN 3001 AND 6000');

my $ios_f = 'SELECT kf FROM t WHERE kf >= 0 ORDER BY kf';
my $ios_b = 'SELECT kb FROM t WHERE kb >= 0 ORDER BY kb';
begin_index_only_plans($s1);
like(
	$s1->query_safe("EXPLAIN (COSTS OFF) DECLARE x CURSOR FOR $ios_f"),
	qr/^Index Only Scan using t_kf on t/,
	'the cursor is an fpbtree index-only scan');
like(
	$s1->query_safe("EXPLAIN (COSTS OFF) DECLARE x CURSOR FOR $ios_b"),
	qr/^Index Only Scan using t_kb on t/,
	'the reference is a btree index-only scan');
# the reference is read whole first: only the fpbtree cursor holds a pin
my $ios_want = $s1->query_safe($ios_b);
$s1->query_safe("DECLARE io CURSOR FOR $ios_f");
my $ios_got = $s1->query_safe('FETCH 5 FROM io');

my $vpid = $s2->query_safe('SELECT pg_backend_pid()');
$s2->query_until(qr/vacuum_started/,
	"\\echo vacuum_started\nVACUUM (INDEX_CLEANUP ON) t;\n");
# wait until VACUUM either waits for a buffer pin or has finished
$node->poll_query_until(
	'postgres', qq{
SELECT wait_event = 'BufferPin' OR (state = 'idle' AND query ~ '^VACUUM')
FROM pg_stat_activity WHERE pid = $vpid})
  or die 'VACUUM neither waits nor finishes';
is( $node->safe_psql(
		'postgres',
		"SELECT wait_event FROM pg_stat_activity WHERE pid = $vpid"),
	'BufferPin',
	'VACUUM waits for the pin of the index-only cursor');

$ios_got .= "\n" . $s1->query_safe('FETCH ALL FROM io');
is($ios_got, $ios_want, 'index-only cursor: fpbtree = btree');
$s1->query_safe('COMMIT');
is($s2->query_safe('SELECT 1'), '1', 'VACUUM finishes once the cursor is gone');

$s1->quit;
$s2->quit;

is($node->safe_psql('postgres', q{SELECT fpbtree_check('t_kf', true)}),
	'', 'fpbtree_check passes');

$node->stop;
done_testing();
