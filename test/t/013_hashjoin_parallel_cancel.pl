
# PrefetchHashJoin below a Gather, cancelled by statement_timeout while its
# participants build their tables and while they probe, both with batch
# files open (a 64 kB hash_mem).  A plpgsql function that sleeps on the
# rows after the first ones (declared parallel-safe so that the workers run
# it) holds each phase long enough.  Afterwards no parallel worker is left,
# no temporary file remains, the session runs the next query, and the same
# join finishes with the same answer as the built-in Parallel Hash Join.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes;

use FindBin;
use lib $FindBin::RealBin;
use FpbNode;

my $node = fpb_node(
	'hjpar', q{
autovacuum = off
max_parallel_workers_per_gather = 2
max_parallel_workers = 4
dynamic_shared_memory_type = mmap
});

# with mmap, this cluster's DSM segments are files in pg_dynshmem
sub dsm_segments
{
	my $dir = $node->data_dir . '/pg_dynshmem';
	opendir(my $dh, $dir) or return 0;
	my @f = grep { /^mmap\./ } readdir($dh);
	closedir($dh);
	return scalar(@f);
}
my $dsm_idle = dsm_segments();
ok($dsm_idle > 0, 'the DSM control segment is seen');

# A backend that ran a parallel query keeps a session segment (the shared
# record typmod registry) until it exits, which happens after psql has
# returned: wait up to 30 s for the count to come back.
sub dsm_back_to_idle
{
	foreach (1 .. 300)
	{
		return 1 if dsm_segments() == $dsm_idle;
		Time::HiRes::usleep(100_000);
	}
	return 0;
}

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION fpbtree;
CREATE TABLE o AS SELECT g AS id, g % 20000 AS k FROM generate_series(1, 200000) g;
CREATE TABLE i AS SELECT g AS id, g AS k FROM generate_series(1, 20000) g;
ANALYZE o, i;
-- sleeps 1 ms for rows past n; cheap to the planner, which would otherwise
-- rather divide its calls on i among the participants of a second Gather;
-- STABLE: statements calling volatile functions get no PrefetchHashJoin
CREATE FUNCTION slow(v int, n int) RETURNS int LANGUAGE plpgsql STABLE PARALLEL SAFE COST 1
AS $$ BEGIN IF v > n THEN PERFORM pg_sleep(0.001); END IF; RETURN v; END $$;
});

# forced onto our private-table parallel path: the built-in join divides its
# build among the participants, which wins at zero parallel costs
my $set = q{
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET enable_parallel_hash = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SET fpbtree.hashjoin_cache_size = 0;
SET fpbtree.hashjoin_parallel_shared = off;
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
};

# %s: the row past which the function sleeps; it is a filter of one
# side's scan, so it runs in the phase that reads that side
my %phase = (
	# each participant loads the whole inner side
	build => 'SELECT count(*), sum(o.id) FROM o JOIN i ON o.k = i.k WHERE slow(i.id, %s) > 0',
	# each participant's share of the outer side
	probe => 'SELECT count(*), sum(o.id) FROM o JOIN i ON o.k = i.k WHERE slow(o.id, %s) > 0',
);
my %slow_past = (build => 5000, probe => 20000);

# $q under $settings, cancelled by statement_timeout: the session goes on
# and no parallel worker is left
my $cancel = sub {
	my ($label, $settings, $q) = @_;
	my ($ret, $stdout, $stderr) = $node->psql('postgres',
		$settings . "SET statement_timeout = '1500ms';\n$q;\nSELECT 'next query ran';",
		on_error_stop => 0);
	like($stderr, qr/canceling statement due to statement timeout/,
		"$label: cancelled by statement_timeout");
	like($stdout, qr/next query ran/, "$label: the session runs the next query");
	ok( $node->poll_query_until(
			'postgres',
			"SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'parallel worker'"),
		"$label: no parallel worker left");
};

foreach my $p (sort keys %phase)
{
	my $q = sprintf($phase{$p}, $slow_past{$p});
	my $plan = $node->safe_psql('postgres', $set . "EXPLAIN (COSTS OFF) $q");
	like(
		$plan,
		qr/Gather.*Parallel Custom Scan \(PrefetchHashJoin\).*Parallel Seq Scan on o\b.*\bSeq Scan on i\b/s,
		"$p: PrefetchHashJoin below a Gather, probing o, building on i");

	$cancel->($p, $set, $q);
	is($node->safe_psql('postgres', 'SELECT count(*) FROM pg_ls_tmpdir()'),
		'0', "$p: no temporary file left");
}

# the same joins without sleeping, run to the end, spill and agree with the
# built-in join
foreach my $p (sort keys %phase)
{
	my $q = sprintf($phase{$p}, 1000000);
	my $explain = $node->safe_psql('postgres',
		$set . "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $q");
	like($explain, qr/Spilled: true/, "$p: the join spills");
	my $ours = $node->safe_psql('postgres', $set . $q);
	my $builtin = $node->safe_psql('postgres',
		$set . "SET enable_prefetch_hashjoin = off;\nSET enable_parallel_hash = on;\n$q");
	is($ours, $builtin, "$p: same answer as the built-in join");
	is($node->safe_psql('postgres', 'SELECT count(*) FROM pg_ls_tmpdir()'),
		'0', "$p: no temporary file left after completion");
}

# The shared table (fpbtree.hashjoin_parallel_shared): cancelled while the
# participants load the inner side (the rows past 17000 sleep, so the
# participants that read them are late and the others wait for them at the
# barrier) and while they probe.  Afterwards no worker, no DSM segment
# beyond the idle server's and no temporary file is left.
my $set_shared = $set . q{
SET work_mem = '4MB';
SET fpbtree.hashjoin_parallel_shared = on;
};
my %slow_shared = (build => 17000, probe => 20000);
foreach my $p (sort keys %phase)
{
	my $q = sprintf($phase{$p}, $slow_shared{$p});
	my $plan = $node->safe_psql('postgres', $set_shared . "EXPLAIN (COSTS OFF) $q");
	like(
		$plan,
		qr/Gather.*Parallel Custom Scan \(PrefetchHashJoin\).*Shared Hash Table: true.*Parallel Seq Scan on o\b.*Parallel Seq Scan on i\b/s,
		"shared $p: one shared table, both sides parallel scans");

	$cancel->("shared $p", $set_shared, $q);
	ok(dsm_back_to_idle(), "shared $p: no DSM segment left");
	is($node->safe_psql('postgres', 'SELECT count(*) FROM pg_ls_tmpdir()'),
		'0', "shared $p: no temporary file left");

	$q = sprintf($phase{$p}, 1000000);
	my $ours = $node->safe_psql('postgres', $set_shared . $q);
	my $builtin = $node->safe_psql('postgres',
		$set . "SET enable_prefetch_hashjoin = off;\nSET enable_parallel_hash = on;\n$q");
	is($ours, $builtin, "shared $p: same answer as the built-in join");
	ok(dsm_back_to_idle(), "shared $p: no DSM segment left after completion");
}

# Participants waiting at the shared table's barrier for a late one show
# Parallel Hash's wait event, which monitoring knows (they showed
# "Extension"): one inner row stalls the participant that reads it for 3 s.
$node->safe_psql(
	'postgres', q{
CREATE FUNCTION stall(v int, at int) RETURNS int LANGUAGE plpgsql STABLE PARALLEL SAFE COST 1
AS $$ BEGIN IF v = at THEN PERFORM pg_sleep(3); END IF; RETURN v; END $$;
});
{
	my $bg = $node->background_psql('postgres', on_error_stop => 0);
	$bg->query_until(qr/started/,
		$set_shared
		  . "\\echo started\nSELECT count(*) FROM o JOIN i ON o.k = i.k WHERE stall(i.id, 19999) > 0;\n"
	);
	ok( $node->poll_query_until(
			'postgres',
			"SELECT count(*) > 0 FROM pg_stat_activity WHERE wait_event = 'HashBuildHashInner'"
		),
		'shared build: the participants waiting for a late one show HashBuildHashInner');
	like($bg->query_safe('SELECT 1'), qr/^1$/m, 'shared build: the join ends');
	$bg->quit;
}

# The shared table in batches (64 kB: both sides go to shared batch
# files): cancelled while the participants load and partition the inner
# side (late participants keep the others waiting at the barrier), while
# they partition the outer side, and while they join their claimed batches
# (a filter on both sides sleeps on every joined row), also a full join's
# (on every row, its unmatched inner ones included); and a participant's
# error (a division by zero on one inner row) ends the query as well.
# Afterwards no worker, no DSM segment and no temporary file is left, and
# the joins run to the end give the built-in join's answer.
my $set_batches = $set . q{
SET fpbtree.hashjoin_parallel_shared = on;
};
my %phase_batches = (
	load => 'SELECT count(*), sum(o.id) FROM o JOIN i ON o.k = i.k WHERE slow(i.id, %s) > 0',
	partition => 'SELECT count(*), sum(o.id) FROM o JOIN i ON o.k = i.k WHERE slow(o.id, %s) > 0',
	batches => 'SELECT count(*), sum(o.id) FROM o JOIN i ON o.k = i.k WHERE slow(o.id + i.id, %s) > 0',
	# a full join (always in batches) while it emits unmatched inner rows
	full => 'SELECT count(*), sum(o.id) FROM o FULL JOIN i ON o.k = i.k + 10000 WHERE slow(coalesce(i.id, 0), %s) >= 0',
);
my %slow_batches = (load => 17000, partition => 20000, batches => 0, full => 0);
foreach my $p (sort keys %phase_batches)
{
	my $q = sprintf($phase_batches{$p}, $slow_batches{$p});
	my $plan = $node->safe_psql('postgres', $set_batches . "EXPLAIN (COSTS OFF) $q");
	like(
		$plan,
		qr/Gather.*Parallel Custom Scan \(PrefetchHashJoin\).*Shared Hash Table: true.*Parallel Seq Scan on [oi]\b.*Parallel Seq Scan on [oi]\b/s,
		"batches $p: one shared table, both sides parallel scans");

	$cancel->("batches $p", $set_batches, $q);
	ok(dsm_back_to_idle(), "batches $p: no DSM segment left");
	is($node->safe_psql('postgres', 'SELECT count(*) FROM pg_ls_tmpdir()'),
		'0', "batches $p: no temporary file left");

	$q = sprintf($phase_batches{$p}, 1000000);
	my $explain = $node->safe_psql('postgres',
		$set_batches . "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $q");
	like($explain, qr/^\s*Batches: ([2-9]|\d\d+)$/m, "batches $p: in shared batches");
	my $ours = $node->safe_psql('postgres', $set_batches . $q);
	my $builtin = $node->safe_psql('postgres',
		$set . "SET enable_prefetch_hashjoin = off;\nSET enable_parallel_hash = on;\n$q");
	is($ours, $builtin, "batches $p: same answer as the built-in join");
	ok(dsm_back_to_idle(), "batches $p: no DSM segment left after completion");
	is($node->safe_psql('postgres', 'SELECT count(*) FROM pg_ls_tmpdir()'),
		'0', "batches $p: no temporary file left after completion");
}
{
	my $q = 'SELECT count(*) FROM o JOIN i ON o.k = i.k WHERE 100 / (i.id - 19000) <> 0';
	my $plan = $node->safe_psql('postgres', $set_batches . "EXPLAIN (COSTS OFF) $q");
	like($plan, qr/Shared Hash Table: true/s, 'batches error: shared table');
	my ($ret, $stdout, $stderr) = $node->psql('postgres',
		$set_batches . "$q;\nSELECT 'next query ran';",
		on_error_stop => 0);
	like($stderr, qr/division by zero/, 'batches error: the error reaches the client');
	like($stdout, qr/next query ran/, 'batches error: the session runs the next query');
	ok( $node->poll_query_until(
			'postgres',
			"SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'parallel worker'"),
		'batches error: no parallel worker left');
	ok(dsm_back_to_idle(), 'batches error: no DSM segment left');
	is($node->safe_psql('postgres', 'SELECT count(*) FROM pg_ls_tmpdir()'),
		'0', 'batches error: no temporary file left');
}

$node->stop;
done_testing();
