
# A hot standby's index-only scan holds its leaf pinned with copies of the
# entries; the replay of VACUUM's removal of entries from that leaf must
# wait for the pin (or cancel the scan), as nbtree's does.  Otherwise the
# heap's all-visible bits that VACUUM sets afterwards reach the standby
# while the scan still holds the removed entries, and it returns rows that
# were deleted before its snapshot without visiting the heap.
#
# For each index shape: the primary deletes a range of an all-visible
# table; a standby cursor (repeatable read, index-only scan) reads its first
# row; the primary vacuums; the standby must replay it (cancelling the
# cursor after max_standby_streaming_delay) and the cursor must then fail
# or return exactly the live rows, never a deleted one.  btree runs the
# same steps for comparison.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use FpbNode;

my $primary = fpb_node(
	'pin_primary', q{
autovacuum = off
max_parallel_workers_per_gather = 0
}, allows_streaming => 1);
$primary->safe_psql('postgres', 'CREATE EXTENSION fpbtree');

my $standby = fpb_standby(
	$primary, 'pin_standby', q{
hot_standby_feedback = off
max_standby_streaming_delay = 2s
max_parallel_workers_per_gather = 0
});

# name => [access method, key column type, key expression of g]; keys
# ascend with g, so "g BETWEEN 100 AND 150" is a key range
my @cases = (
	[ 'int8_fp', 'fpbtree', 'int8', 'g' ],
	[ 'text_fp', 'fpbtree', 'text COLLATE "C"', q{lpad(g::text, 4, '0')} ],
	[ 'runs_fp', 'fpbtree', 'int8', 'g / 20' ],
	[ 'int8_bt', 'btree', 'int8', 'g' ],);

foreach my $c (@cases)
{
	my ($t, $am, $type, $expr) = @$c;

	# about 35 rows a heap page; one leaf
	$primary->safe_psql(
		'postgres', qq{
CREATE TABLE $t (g int4, k $type, pad char(200) DEFAULT 'x');
INSERT INTO $t (g, k) SELECT g, $expr FROM generate_series(1, 300) g;
CREATE INDEX ${t}_k ON $t USING $am (k);
VACUUM $t;
});
	# the cursor below holds the one leaf (block 1 after the metapage)
	is($primary->safe_psql('postgres', "SELECT pg_relation_size('${t}_k') / 8192"),
		'2', "$t: the index is one leaf");
	my $live = $primary->safe_psql('postgres',
		"SELECT string_agg(k::text, ',' ORDER BY k) FROM $t WHERE g NOT BETWEEN 100 AND 150"
	);
	$primary->safe_psql('postgres',
		"DELETE FROM $t WHERE g BETWEEN 100 AND 150");
	$primary->wait_for_catchup($standby);

	my $logstart = -s $standby->logfile;
	my $s = $standby->background_psql('postgres', on_error_stop => 0);
	$s->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	$s->query_safe(
		'SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off');
	my $q = "SELECT k FROM $t ORDER BY k";
	like($s->query_safe("EXPLAIN (COSTS OFF) $q"),
		qr/Index Only Scan using ${t}_k/, "$t: the standby plans an index-only scan");
	$s->query_safe("DECLARE c CURSOR FOR $q");
	$s->query_safe('FETCH 1 FROM c');

	# removes the entries, then sets the heap pages all-visible again
	$primary->safe_psql('postgres', "VACUUM $t");
	$primary->wait_for_catchup($standby);

	# the replay waited for the cursor's pin, then cancelled it: the session
	# was idle in its transaction, so it is terminated
	my ($out, $failed) = eval { $s->query('FETCH ALL FROM c') };
	if (!defined $out || $failed)
	{
		pass("$t: the standby cursor got no rows after the replay of VACUUM");
	}
	else
	{
		# (the first row was fetched before)
		my @rows = split /\n/, $out;
		is(join(',', @rows), $live =~ s/^[^,]*,//r,
			"$t: the standby cursor returns the live rows only");
	}
	eval { $s->quit };
	# (btree's cursor is not always cancelled, but always right)
	ok( $standby->log_contains(
			qr/conflict with recovery.*\n.*DETAIL:  User was holding shared buffer pin for too long/,
			$logstart),
		"$t: the replay of VACUUM waited for the cursor's pin and cancelled it")
	  if $am eq 'fpbtree';

	is( $standby->safe_psql('postgres',
			"SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM $t"
		),
		'249',
		"$t: a new standby query counts the live rows");
}

is($standby->safe_psql('postgres', fpb_check_all_sql()),
	join("\n",
		sort map { "$_->[0]_k|" } grep { $_->[1] eq 'fpbtree' } @cases),
	'fpbtree_check passes on the standby');

done_testing();
