# CREATE INDEX CONCURRENTLY and REINDEX CONCURRENTLY with parallel workers
# while other sessions insert, update (HOT and not) and delete: every
# index built is complete and sound, and equals a sequential scan.  The
# same for a wide (text) index, whose participants sort into PostgreSQL's
# parallel tuplesort.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use FpbNode;

my $node = fpb_node(
	'main', q{
max_parallel_maintenance_workers = 2
maintenance_work_mem = '128MB'
min_parallel_table_scan_size = 0
autovacuum = off
log_statement = none
});

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION fpbtree;
CREATE TABLE t (id bigserial, k int8, v int, pad text) WITH (fillfactor = 70);
INSERT INTO t (k, v, pad)
	SELECT CASE WHEN g % 19 = 0 THEN NULL ELSE (g * 7919) % 50021 END, g, repeat('x', g % 40)
	FROM generate_series(1, 150000) g;
VACUUM ANALYZE t;
});

my $script = $node->basedir . '/dml.sql';
PostgreSQL::Test::Utils::append_to_file(
	$script, q{
\set k random(-100, 50100)
\set id random(1, 150000)
INSERT INTO t (k, v, pad) SELECT :k + g, g, 'y' FROM generate_series(1, 5) g;
UPDATE t SET v = v + 1 WHERE id = :id;
UPDATE t SET k = k + 1 WHERE id = :id + 7;
DELETE FROM t WHERE id = :id + 13;
});
my ($out, $err) = ('', '');
my $pgbench = IPC::Run::start(
	[
		'pgbench', '--no-vacuum', '--client=2', '--time=8', '-f', $script,
		'-h', $node->host, '-p', $node->port, 'postgres'
	],
	'>', \$out, '2>', \$err);

my $builds = 0;
for my $i (1 .. 3)
{
	my ($ret, $stdout, $stderr) = $node->psql('postgres',
		"SET client_min_messages = debug1;\nCREATE INDEX CONCURRENTLY t_c$i ON t USING fpbtree (k);"
	);
	is($ret, 0, "CREATE INDEX CONCURRENTLY t_c$i under concurrent writes");
	$builds++ if $stderr =~ /fpbtree: parallel build, workers launched: [1-9]/;
	($ret, $stdout, $stderr) = $node->psql('postgres',
		"SET client_min_messages = debug1;\nREINDEX INDEX CONCURRENTLY t_c$i;");
	is($ret, 0, "REINDEX INDEX CONCURRENTLY t_c$i under concurrent writes");
	$builds++ if $stderr =~ /fpbtree: parallel build, workers launched: [1-9]/;
	$node->safe_psql('postgres', "SELECT fpbtree_check('t_c$i')");
	($ret, $stdout, $stderr) = $node->psql('postgres',
		"SET client_min_messages = debug1;\nCREATE INDEX CONCURRENTLY t_w$i ON t USING fpbtree ((md5(k::text) || pad));"
	);
	is($ret, 0, "CREATE INDEX CONCURRENTLY t_w$i (text) under concurrent writes");
	$builds++ if $stderr =~ /fpbtree: parallel build, workers launched: [1-9]/;
	$node->safe_psql('postgres', "SELECT fpbtree_check('t_w$i')");
}
is($builds, 9, 'every concurrent build launched workers');
$pgbench->finish;
like($out, qr{number of failed transactions: 0 }, 'pgbench ran without failures');
like($out, qr{processed: [1-9]\d*}, 'pgbench committed transactions');

my $seqscan =
  'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;';
my $idxscan = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
my $q = q{SELECT count(*), sum(id), md5(string_agg(id::text || ':' || k::text, ',' ORDER BY id))
	FROM t WHERE k >= -1000000;
	SELECT count(*), sum(id) FROM t WHERE k IS NULL;};
my $want = $node->safe_psql('postgres', "$seqscan $q");
for my $i (1 .. 3)
{
	my ($ret, $stdout, $stderr) =
	  $node->psql('postgres', "SELECT fpbtree_check('t_c$i', true)");
	is($ret . $stderr, '0', "fpbtree_check(t_c$i, heapallindexed) passes");
	# the other indexes out of the way of the planner, in a transaction
	my $others = join('', map { "DROP INDEX t_c$_;" } grep { $_ != $i } 1 .. 3);
	my $got = $node->safe_psql('postgres',
		"BEGIN; $others $idxscan $q; ROLLBACK;");
	is($got, $want, "t_c$i returns what a sequential scan returns");
}
my $wq = q{SELECT count(*), md5(string_agg(id::text, ',' ORDER BY md5(k::text) || pad COLLATE "C", id))
	FROM t WHERE md5(k::text) || pad > '8'};
$want = $node->safe_psql('postgres', "$seqscan $wq");
for my $i (1 .. 3)
{
	my ($ret, $stdout, $stderr) =
	  $node->psql('postgres', "SELECT fpbtree_check('t_w$i', true)");
	is($ret . $stderr, '0', "fpbtree_check(t_w$i, heapallindexed) passes");
	my $others = join('', map { "DROP INDEX t_w$_;" } grep { $_ != $i } 1 .. 3);
	my $got = $node->safe_psql('postgres',
		"BEGIN; $others $idxscan $wq; ROLLBACK;");
	is($got, $want, "t_w$i returns what a sequential scan returns");
}

# a build cancelled at any point (statement_timeout) leaves no run file
my $cancelled = 0;
my $wide = 0;
for my $ms (5, 20, 50, 100, 200, 400)
{
	# a narrow and a wide index in turn
	my $col = ($wide = !$wide) ? '(md5(k::text) || pad)' : 'k';
	my ($ret, $stdout, $stderr) = $node->psql('postgres',
		"SET statement_timeout = '${ms}ms';\nCREATE INDEX t_cancel ON t USING fpbtree ($col);");
	$cancelled++ if $stderr =~ /canceling statement due to statement timeout/;
	$node->safe_psql('postgres', 'DROP INDEX IF EXISTS t_cancel');
	is( $node->safe_psql('postgres',
			q{SELECT count(*) FROM pg_ls_dir('base/pgsql_tmp', true, false)}),
		'0',
		"no temporary file left after a build with statement_timeout = ${ms}ms");
}
ok($cancelled > 0, "some builds were cancelled ($cancelled)");

# This cluster runs with wal_level = minimal.  An index created in the
# transaction that builds it is not WAL-logged but synced at commit: the
# workers, which cannot tell it is new, must not log the leaves they load.
# CREATE INDEX CONCURRENTLY builds in a later transaction, so everything is
# logged.  A crash right after the builds commit leaves every index sound.
my ($ret, $stdout, $stderr) = $node->psql(
	'postgres', q{
SET max_parallel_maintenance_workers = 3;
SET client_min_messages = debug1;
BEGIN;
CREATE TABLE m (k int8) WITH (parallel_workers = 3);
INSERT INTO m SELECT (g * 7919) % 100003 FROM generate_series(1, 200000) g;
SELECT pg_current_wal_insert_lsn() AS lsn \gset
CREATE INDEX m_k ON m USING fpbtree (k);
SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), :'lsn') < pg_relation_size('m_k') / 4 AS little_wal;
COMMIT;
CREATE INDEX m_k2 ON m USING fpbtree (k) WITH (fillfactor = 50);
CREATE INDEX CONCURRENTLY m_k3 ON m USING fpbtree (k);
});
is($ret, 0, 'parallel builds under wal_level = minimal');
is($stdout, 't', 'the workers did not WAL-log the leaves of a new index');
my $launched = () = $stderr =~ /fpbtree: parallel build, workers launched: [1-9]/g;
is($launched, 3, 'every build under wal_level = minimal launched workers');

$node->stop('immediate');
$node->start;
my $mseq = $node->safe_psql('postgres',
	"$seqscan SELECT count(*), sum(k) FROM m WHERE k >= 100");
for my $idx ('m_k', 'm_k2', 'm_k3')
{
	($ret, $stdout, $stderr) =
	  $node->psql('postgres', "SELECT fpbtree_check('$idx', true)");
	is($ret . $stderr, '0', "$idx sound after a crash");
	my $others = join('', map { "DROP INDEX $_;" } grep { $_ ne $idx } ('m_k', 'm_k2', 'm_k3'));
	is( $node->safe_psql(
			'postgres',
			"BEGIN; $others $idxscan SELECT count(*), sum(k) FROM m WHERE k >= 100; ROLLBACK;"),
		$mseq,
		"$idx returns what a sequential scan returns after a crash");
}

$node->stop;
done_testing();
