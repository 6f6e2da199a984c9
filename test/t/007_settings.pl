
# Settings kept where a DBA keeps them.  Every fpbtree setting is written
# with ALTER SYSTEM with a value other than its default; the server must
# restart and report each value as coming from the configuration file (none
# may be dropped as an unknown placeholder).  The short session switches
# (enable_prefetch_hashjoin, enable_buffer_operator) must never be stored
# under their own name: PostgreSQL reads postgresql.auto.conf before it
# loads any library and refuses to start on an unknown undotted name.  Then
# the same configuration without the library preloaded: the server starts,
# and a session that loads the library sees the configured values.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use FpbNode;

my $node = fpb_node(
	'main', q{
autovacuum = off
});

# every dotted setting, with a value that is not its default
my $rows = $node->safe_psql(
	'postgres', q{
SELECT name, vartype, boot_val, coalesce(min_val, ''), coalesce(max_val, ''),
	   coalesce(array_to_string(enumvals, ','), '')
FROM pg_settings WHERE name LIKE 'fpbtree.%' ORDER BY name});
my %want;
foreach my $line (split /\n/, $rows)
{
	my ($name, $type, $boot, $min, $max, $enums) = split /\|/, $line;
	my $v;
	if ($type eq 'bool')
	{
		$v = $boot eq 'on' ? 'off' : 'on';
	}
	elsif ($type eq 'integer')
	{
		$v = $boot + 1 <= $max ? $boot + 1 : $boot - 1;
	}
	elsif ($type eq 'real')
	{
		$v = $boot * 2 <= $max ? $boot * 2 : $boot / 2;
	}
	elsif ($type eq 'enum')
	{
		($v) = grep { $_ ne $boot } split /,/, $enums;
	}
	else
	{
		$v = $boot . 'x';
	}
	$want{$name} = $v;
}
# the access method's, the hash join's and the Buffer's settings
cmp_ok(scalar(keys %want), '>=', 18, 'every dotted setting is listed');
ok(exists $want{'fpbtree.enable_prefetch_hashjoin'}
	  && exists $want{'fpbtree.enable_buffer_operator'},
	'the executor switches have dotted names');

foreach my $name (sort keys %want)
{
	$node->safe_psql('postgres', "ALTER SYSTEM SET $name = '$want{$name}'");
}

# the short switches: stored under the dotted name, with a notice
my ($ret, $out, $err) = $node->psql('postgres',
	'ALTER SYSTEM SET enable_buffer_operator = off');
is($ret, 0, 'ALTER SYSTEM with a short name is accepted');
like(
	$err,
	qr/setting "enable_buffer_operator" is stored as "fpbtree.enable_buffer_operator"/,
	'... and says it is stored under the dotted name');
# a value the statement refuses is stored nowhere: no such notice
($ret, $out, $err) = $node->psql('postgres',
	"ALTER SYSTEM SET enable_prefetch_hashjoin = 'maybe'");
isnt($ret, 0, 'ALTER SYSTEM with a short name and a bad value fails');
like($err, qr/invalid value|requires a Boolean value/,
	'... with the value error');
unlike($err, qr/is stored as/, '... and no notice that it was stored');
$node->safe_psql('postgres',
	'ALTER DATABASE postgres SET enable_prefetch_hashjoin = off');
$node->safe_psql('postgres',
	'ALTER ROLE CURRENT_USER SET Enable_Buffer_Operator = off');
is( $node->safe_psql(
		'postgres', q{
SELECT string_agg(c, ' ' ORDER BY c)
FROM pg_db_role_setting, unnest(setconfig) c}),
	'fpbtree.enable_buffer_operator=off fpbtree.enable_prefetch_hashjoin=off',
	'ALTER DATABASE / ROLE store the dotted names');
my $auto = slurp_file($node->data_dir . '/postgresql.auto.conf');
unlike($auto, qr/^\s*enable_/m, 'postgresql.auto.conf has no undotted name');
$node->safe_psql('postgres', 'ALTER DATABASE postgres RESET ALL');
$node->safe_psql('postgres', 'ALTER ROLE CURRENT_USER RESET ALL');

# SET clauses of functions and procedures are stored too (pg_proc)
$node->safe_psql(
	'postgres', q{
CREATE FUNCTION sf() RETURNS int LANGUAGE sql
	SET enable_prefetch_hashjoin = off SET work_mem = '8MB' AS 'SELECT 1';
CREATE PROCEDURE sp() LANGUAGE sql AS 'SELECT 1';
ALTER PROCEDURE sp() SET ENABLE_BUFFER_OPERATOR = off;
});
is( $node->safe_psql(
		'postgres', q{
SELECT string_agg(c, ' ' ORDER BY c)
FROM pg_proc, unnest(proconfig) c WHERE proname IN ('sf', 'sp')}),
	'fpbtree.enable_buffer_operator=off fpbtree.enable_prefetch_hashjoin=off work_mem=8MB',
	'function and procedure SET clauses store the dotted names');
# FROM CURRENT stores the short switch's value, also from a cached plpgsql
# statement (a read-only tree)
$node->safe_psql(
	'postgres', q{
SET enable_buffer_operator = off;
DO $$BEGIN ALTER ROLE CURRENT_USER SET enable_buffer_operator FROM CURRENT; END$$;
DO $$BEGIN ALTER ROLE CURRENT_USER SET enable_buffer_operator FROM CURRENT; END$$;
});
is( $node->safe_psql(
		'postgres', q{
SELECT string_agg(c, ' ' ORDER BY c)
FROM pg_db_role_setting, unnest(setconfig) c WHERE setdatabase = 0}),
	'fpbtree.enable_buffer_operator=off',
	'SET ... FROM CURRENT stores the short switch\'s value');
$node->safe_psql('postgres',
	'ALTER ROLE CURRENT_USER RESET ALL; DROP FUNCTION sf(); DROP PROCEDURE sp()');

# the session switches still work with SET, and alone turn the feature off
is( $node->safe_psql(
		'postgres', q{
SET enable_prefetch_hashjoin = off; SET enable_buffer_operator = off;
SELECT current_setting('enable_prefetch_hashjoin') || current_setting('enable_buffer_operator')}),
	'offoff',
	'SET of the short names works');

# plans that use the executor nodes when both switches are on
$node->safe_psql(
	'postgres', q{
CREATE TABLE sa AS SELECT g AS k FROM generate_series(1, 20000) g;
CREATE TABLE sb AS SELECT g AS k FROM generate_series(1, 20000) g;
ANALYZE sa, sb;
});
my $plan_setup = q{
SET fpbtree.hashjoin_cache_size = 0; SET enable_mergejoin = off;
SET enable_nestloop = off; SET max_parallel_workers_per_gather = 0;
SET fpbtree.l1i_cache_size = 1024; SET fpbtree.buffer_min_rows = 0;
};
my $plan_query = q{
EXPLAIN (COSTS OFF) SELECT count(*) FROM sa JOIN sb USING (k);
EXPLAIN (COSTS OFF) SELECT k % 10, sum(k) FROM sa WHERE k % 7 <> 0 GROUP BY 1;
};
my %nodes_seen;
foreach my $off ('', 'enable_prefetch_hashjoin', 'fpbtree.enable_prefetch_hashjoin',
	'enable_buffer_operator', 'fpbtree.enable_buffer_operator')
{
	my $set = $off eq '' ? '' : "SET $off = off;";
	my $plan = $node->safe_psql('postgres', "$plan_setup $set $plan_query");
	$nodes_seen{$off} = ($plan =~ /PrefetchHashJoin/ ? 'H' : '-')
	  . ($plan =~ /Custom Scan \(Buffer\)/ ? 'B' : '-');
}
is_deeply(
	\%nodes_seen,
	{
		'' => 'HB',
		'enable_prefetch_hashjoin' => '-B',
		'fpbtree.enable_prefetch_hashjoin' => '-B',
		'enable_buffer_operator' => 'H-',
		'fpbtree.enable_buffer_operator' => 'H-'
	},
	'either name of a switch turns its node off');

my $logstart = -s $node->logfile;
$node->stop;
ok($node->start(fail_ok => 1), 'the server restarts');

sub check_values
{
	my ($label, $prefix) = @_;
	$prefix //= '';
	foreach my $name (sort keys %want)
	{
		my $got = $node->safe_psql('postgres',
			"$prefix SELECT setting || '|' || source FROM pg_settings WHERE name = '$name'"
		);
		my ($setting, $source) = split /\|/, $got;
		my $same =
		  ($setting =~ /^-?[0-9.e+]+$/ && $want{$name} =~ /^-?[0-9.e+]+$/)
		  ? $setting == $want{$name}
		  : $setting eq $want{$name};
		ok($same && $source eq 'configuration file',
			"$label: $name = $want{$name} (got $setting from $source)");
		# SHOW works too
		$node->safe_psql('postgres', "$prefix SHOW $name");
	}
}
check_values('preloaded');
my $log = substr(slurp_file($node->logfile), $logstart);
unlike($log, qr/invalid configuration parameter name|removing it/,
	'no setting dropped at start');

# a short name in a configuration file read at a reload is refused, as the
# next start would refuse it, instead of applied until then
my $reload_start = -s $node->logfile;
$node->append_conf('postgresql.conf', 'enable_prefetch_hashjoin = off');
$node->reload;
$node->poll_query_until('postgres',
	q{SELECT count(*) > 0 FROM pg_file_settings
	  WHERE name = 'enable_prefetch_hashjoin' AND error IS NOT NULL})
  or die 'the reload did not read the short name';
is($node->safe_psql('postgres', 'SHOW enable_prefetch_hashjoin'),
	'on', 'a short name in the file is not applied at a reload');
ok( $node->wait_for_log(
		qr/session switches of fpbtree cannot be set in a configuration file/,
		$reload_start),
	'... and the log says why');
my $conf = slurp_file($node->data_dir . '/postgresql.conf');
$conf =~ s/^enable_prefetch_hashjoin = off\n//m;
open(my $fh, '>', $node->data_dir . '/postgresql.conf') or die $!;
print $fh $conf;
close($fh);
$node->reload;

# the same configuration, the library not preloaded
$node->append_conf('postgresql.conf', "shared_preload_libraries = ''");
$node->stop;
ok($node->start(fail_ok => 1), 'the server restarts without the library');
check_values('loaded in the session', "LOAD 'fpbtree';");

# without the library a short name is unknown: nothing is written
($ret, $out, $err) = $node->psql('postgres',
	'ALTER SYSTEM SET enable_prefetch_hashjoin = off');
isnt($ret, 0, 'ALTER SYSTEM of a short name without the library fails');
like($err, qr/unrecognized configuration parameter/, '... as unknown');
# ALTER SYSTEM of a dotted name that the configuration does not mention
# yet needs the library loaded (PostgreSQL 15 knows no placeholder for it)
$node->safe_psql('postgres', "LOAD 'fpbtree'; ALTER SYSTEM RESET ALL");
$node->restart;
($ret, $out, $err) =
  $node->psql('postgres', 'ALTER SYSTEM SET fpbtree.t1_ns = 123');
isnt($ret, 0, 'ALTER SYSTEM SET fpbtree.t1_ns without the library fails');
$node->safe_psql('postgres',
	"LOAD 'fpbtree'; ALTER SYSTEM SET fpbtree.t1_ns = 123");
$node->restart;
is($node->safe_psql('postgres', "LOAD 'fpbtree'; SHOW fpbtree.t1_ns"),
	'123', 'ALTER SYSTEM SET fpbtree.t1_ns works after LOAD');

$node->stop;
done_testing();
