
# Pages a VACUUM deletes are listed in the free space map by that same
# VACUUM when, by the end of its walk, no transaction can reach them any
# more (src/am/README.md, "Page deletion"), as nbtree does since
# PostgreSQL 14.  That holds in a database where other sessions keep
# committing transactions meanwhile; before, fpbtree listed them only in a
# later VACUUM's walk, so an index of a queue-like table grew by one
# VACUUM's worth of deleted pages more than btree's.
#
# A second session commits a transaction with an id every millisecond
# while the VACUUM runs (slowed by a cost delay so that its walks last many
# of them).  A btree index on the same table is the control: its
# reusable count shows the horizon moved during the walks.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use FpbNode;

my $node = fpb_node('vacpend', "autovacuum = off\n");
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION fpbtree;
CREATE EXTENSION pg_freespacemap;
CREATE TABLE t (k int8) WITH (autovacuum_enabled = off);
INSERT INTO t SELECT g FROM generate_series(1, 100000) g;
CREATE INDEX t_fp ON t USING fpbtree (k);
CREATE INDEX t_bt ON t USING btree (k);
CREATE TABLE stop (x int);
DELETE FROM t WHERE k <= 80000;
});

my $consumer = $node->background_psql('postgres', on_error_stop => 1);
$consumer->query_until(
	qr/consuming/, q{
\echo consuming
DO $$
DECLARE
	t0 timestamptz := clock_timestamp();
BEGIN
	LOOP
		PERFORM txid_current();
		COMMIT;
		EXIT WHEN EXISTS (SELECT 1 FROM stop)
			OR clock_timestamp() > t0 + interval '180 s';
		PERFORM pg_sleep(0.001);
	END LOOP;
END $$;
});

# the consumer is under way
my $xmax = $node->safe_psql('postgres',
	'SELECT pg_snapshot_xmax(pg_current_snapshot())');
$node->poll_query_until('postgres',
	"SELECT pg_snapshot_xmax(pg_current_snapshot())::text::int8 > $xmax + 20")
  or die 'the transaction id consumer does not run';

my ($ret, $out, $err) = $node->psql(
	'postgres', q{
SET vacuum_cost_delay = '1ms';
SET vacuum_cost_limit = 1;
VACUUM (VERBOSE) t;
});
is($ret, 0, 'VACUUM ran') or diag($err);

$node->safe_psql('postgres', 'INSERT INTO stop VALUES (1)');
$consumer->quit;

# "index "t_fp": pages: N in total, N newly deleted, N currently deleted,
# N reusable"
my %pages;
while ($err =~
	/index "(\w+)": pages: (\d+) in total, (\d+) newly deleted, (\d+) currently deleted, (\d+) reusable/g
  )
{
	$pages{$1} = { newly => $3, deleted => $4, reusable => $5 };
}
ok(defined $pages{t_fp} && defined $pages{t_bt}, 'both indexes reported')
  or diag($err);
note(join('; ',
		map { "$_: $pages{$_}{newly} newly deleted, $pages{$_}{reusable} reusable" }
		  sort keys %pages));

cmp_ok($pages{t_bt}{reusable}, '>', 0,
	'control: btree lists pages it deleted');
cmp_ok($pages{t_fp}{newly}, '>', 50, 'fpbtree deleted leaves');
cmp_ok($pages{t_fp}{reusable}, '>', 0,
	'fpbtree lists pages it deleted in the same VACUUM');
cmp_ok($pages{t_fp}{reusable}, '<=', $pages{t_fp}{deleted},
	'no more reusable pages than deleted ones');

# the pages are in the free space map, findable by the next split
is( $node->safe_psql(
		'postgres',
		"SELECT count(*) FROM pg_freespace('t_fp') WHERE avail > 0"),
	$pages{t_fp}{reusable},
	'the reusable pages are in the free space map');

# and used again: the deleted keys come back, and the index grows by far
# fewer blocks than they take (without the listing, as many: 168 of 166
# deleted in one run)
my $blocks = $node->safe_psql('postgres',
	"SELECT pg_relation_size('t_fp') / 8192");
$node->safe_psql('postgres',
	'INSERT INTO t SELECT g FROM generate_series(1, 80000) g');
my $grown = $node->safe_psql('postgres',
	"SELECT pg_relation_size('t_fp') / 8192 - $blocks");
note("the index grew by $grown blocks");
cmp_ok($grown, '<', $pages{t_fp}{newly} / 2,
	'inserts reuse the listed pages')
  or diag("grew by $grown blocks; "
	  . "$pages{t_fp}{newly} deleted, $pages{t_fp}{reusable} listed");

$node->safe_psql('postgres', fpb_check_all_sql());
pass('fpbtree_check passes');

# the count of deleted pages not yet free excludes the ones listed: a
# VACUUM that removes nothing walks the index only above 5% of its blocks
my $left = $pages{t_fp}{deleted} - $pages{t_fp}{reusable};
my ($r2, $o2, $e2) = $node->psql('postgres', 'VACUUM (VERBOSE) t');
my $walked = $e2 =~ /index "t_fp": pages:/ ? 1 : 0;
my $total = $node->safe_psql('postgres',
	"SELECT pg_relation_size('t_fp') / 8192");
is($walked, $left > $total / 20 ? 1 : 0,
	"a VACUUM with nothing to remove walks only if $left of $total blocks wait")
  or diag($e2);

$node->stop;
done_testing();
