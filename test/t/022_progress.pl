
# pg_stat_progress_create_index while fpbtree indexes are built, as an
# operator watches it for btree: the build's phases in order, each with
# its target (blocks while the table is scanned, entries while the sorted
# entries are loaded), and the blocks of the index walk that CREATE INDEX
# CONCURRENTLY and REINDEX CONCURRENTLY validate with.
#
# A second session samples the view every millisecond into a table while
# the build runs; the build is large enough for each phase to last many
# samples.  Wide keys (text) once showed the load as "sorting live tuples"
# and never reached "loading tuples in tree"; the validation walk showed 0
# of 0 blocks.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use FpbNode;

my $node = fpb_node(
	'progress', q{
autovacuum = off
maintenance_work_mem = '64MB'
});
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION fpbtree;
CREATE TABLE pt (id int8, s text COLLATE "C");
INSERT INTO pt SELECT g, md5(g::text) FROM generate_series(1, 400000) g;
CREATE TABLE samples (run text, phase text, blocks_total int8,
	blocks_done int8, tuples_total int8, tuples_done int8);
});

my $sampler = $node->background_psql('postgres', on_error_stop => 1);

# Start sampling the progress of builds on pt as run $run: the sampler
# waits for the build to appear and stops when it has gone.
sub start_sampling
{
	my ($run) = @_;
	$sampler->query_until(
		qr/sampling $run/, qq{
\\echo sampling $run
DO \$\$
DECLARE
	t0 timestamptz := clock_timestamp();
	seen bool := false;
	n int;
BEGIN
	LOOP
		-- the view is read from a snapshot kept until cleared
		PERFORM pg_stat_clear_snapshot();
		INSERT INTO samples
		SELECT '$run', phase, blocks_total, blocks_done, tuples_total,
			tuples_done
		FROM pg_stat_progress_create_index
		WHERE relid = 'pt'::regclass;
		GET DIAGNOSTICS n = ROW_COUNT;
		-- no snapshot held: the concurrent builds wait for older ones
		COMMIT;
		IF n > 0 THEN
			seen := true;
		ELSIF seen THEN
			EXIT;
		END IF;
		EXIT WHEN clock_timestamp() > t0 + interval '180 s';
		PERFORM pg_sleep(0.001);
	END LOOP;
END \$\$;
});
	return;
}

# the sampler's DO block has ended
sub end_sampling
{
	$sampler->query_safe('SELECT 1');
	return;
}

sub count_samples
{
	my ($run, $cond) = @_;
	return $node->safe_psql('postgres',
		"SELECT count(*) FROM samples WHERE run = '$run' AND $cond");
}

# One build per key kind and worker count; the phases it must show.
for my $case (
	[ 'text serial',  's', 0 ],
	[ 'text parallel', 's', 2 ],
	[ 'int8 serial',  'id', 0 ],
	[ 'int8 parallel', 'id', 2 ])
{
	my ($run, $col, $workers) = @$case;
	start_sampling($run);
	$node->safe_psql('postgres',
		"SET max_parallel_maintenance_workers = $workers; "
		  . "CREATE INDEX pt_k ON pt USING fpbtree ($col)");
	end_sampling();
	$node->safe_psql('postgres', 'DROP INDEX pt_k');

	cmp_ok(
		count_samples(
			$run, "phase = 'building index: scanning table' AND blocks_total > 0"),
		'>', 0, "$run: the table scan shows its blocks");
	is( count_samples(
			$run,
			"phase = 'building index: sorting live tuples' AND tuples_done > 0"),
		0,
		"$run: the sort phase does not count loaded entries");
	cmp_ok(
		count_samples(
			$run,
			"phase = 'building index: loading tuples in tree' AND tuples_total = 400000"
		),
		'>', 0,
		"$run: the load phase shows, with every entry as its target");
	is( count_samples(
			$run,
			"phase = 'building index: loading tuples in tree' AND (tuples_done > tuples_total OR blocks_total <> 0)"
		),
		0,
		"$run: the load counts entries up to its target, no blocks");
}

# The validation walk of the index, up to five tries: the walk of about
# 3,000 blocks is short, and a try may miss it altogether.
$node->safe_psql('postgres', 'CREATE INDEX pt_k ON pt USING fpbtree (s)');
my ($seen, $shown) = (0, 0);
for my $try (1 .. 5)
{
	my $run = "reindex $try";
	start_sampling($run);
	$node->safe_psql('postgres', 'REINDEX INDEX CONCURRENTLY pt_k');
	end_sampling();
	$seen += count_samples($run, "phase = 'index validation: scanning index'");
	$shown += count_samples($run,
		"phase = 'index validation: scanning index' AND blocks_total > 0 AND blocks_done <= blocks_total"
	);
	last if $shown > 0;
}
cmp_ok($seen, '>', 0, 'the validation walk was sampled');
cmp_ok($shown, '>', 0, 'the validation walk shows its blocks');

$sampler->quit;
$node->stop;
done_testing();
