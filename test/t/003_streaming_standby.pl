
# Streaming replication: the fpbtree indexes are rebuilt on a hot standby
# from WAL alone.  Inserts (many page splits), deletes, VACUUM, REINDEX and a
# new index on the primary; once the standby has caught up, queries through
# the indexes on the standby give the primary's results and fpbtree_check
# passes there.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use FpbNode;

my $primary = fpb_node(
	'primary', q{
log_statement = none
}, allows_streaming => 1);

# an index that exists before the base backup
$primary->safe_psql(
	'postgres', q{
CREATE EXTENSION fpbtree;
CREATE TABLE t (id int8, k int8, f float8, d date);
INSERT INTO t SELECT g, (g * 7919) % 3001, g / 9.0, date '2000-01-01' + g % 1000
	FROM generate_series(1, 5000) g;
CREATE INDEX t_k ON t USING fpbtree (k);
});

my $standby = fpb_standby($primary, 'standby');

# work on the primary while the standby replays
$primary->safe_psql(
	'postgres', q{
CREATE INDEX t_f ON t USING fpbtree (f) WITH (nonleaf_lines = 3, leaf_lines = 5);
CREATE INDEX t_d ON t USING fpbtree (d);
INSERT INTO t SELECT 5000 + g, (g::int8 * 104729) % 3001, -g / 3.0, date '1990-01-01' + g % 5000
	FROM generate_series(1, 30000) g;
INSERT INTO t SELECT 40000 + g, NULL, NULL, NULL FROM generate_series(1, 500) g;
INSERT INTO t SELECT 50000 + g, 77, 0, 'infinity' FROM generate_series(1, 3000) g;
DELETE FROM t WHERE id % 4 = 1;
DELETE FROM t WHERE k BETWEEN 100 AND 400;
VACUUM t;
INSERT INTO t SELECT 60000 + g, g % 3001, g, date '2010-01-01' + g % 100
	FROM generate_series(1, 10000) g;
});
$primary->safe_psql('postgres', 'REINDEX INDEX t_d');

# a parallel REINDEX: the workers WAL-log the leaves they load
my ($pret, $pout, $perr) = $primary->psql(
	'postgres', q{
SET max_parallel_maintenance_workers = 2;
SET min_parallel_table_scan_size = 0;
SET maintenance_work_mem = '128MB';
SET client_min_messages = debug1;
REINDEX INDEX t_k;
});
is($pret, 0, 'parallel REINDEX on the primary');
like($perr, qr/fpbtree: parallel build, workers launched: [12]/,
	'the REINDEX ran with workers');
$primary->safe_psql('postgres', 'CREATE INDEX CONCURRENTLY t_id ON t USING fpbtree (id)');
$primary->safe_psql(
	'postgres', q{
CREATE UNLOGGED TABLE u (k int4);
CREATE INDEX u_k ON u USING fpbtree (k);
INSERT INTO u SELECT g FROM generate_series(1, 1000) g;
});

# wide keys: text values kept in the pages' slots, uuids, and text under
# C.UTF-8, whose index records its "C" prefixes in the metapage (version 3)
$primary->safe_psql(
	'postgres', q{
CREATE TABLE w (id int8, s text COLLATE "C", u uuid, c text COLLATE "C.utf8");
CREATE INDEX w_s ON w USING fpbtree (s);
CREATE INDEX w_u ON w USING fpbtree (u);
CREATE INDEX w_c ON w USING fpbtree (c);
INSERT INTO w SELECT g, repeat(md5(g::text), 1 + g % 3), md5((g % 7000)::text)::uuid,
	CASE WHEN g % 2 = 0 THEN 'Wört ' ELSE 'wört ' END || g
	FROM generate_series(1, 20000) g;
INSERT INTO w SELECT 30000 + g, NULL, NULL, NULL FROM generate_series(1, 300) g;
DELETE FROM w WHERE id % 5 = 2;
VACUUM w;
INSERT INTO w SELECT 40000 + g, md5(g::text), md5(g::text)::uuid, 'wört ' || g || 'x'
	FROM generate_series(1, 5000) g;
-- rows led by a uuid, which leave its prefix bytes out (uuid_prefix_rows)
CREATE TABLE wu (u uuid, id int8);
CREATE INDEX wu_ui ON wu USING fpbtree (u, id);
INSERT INTO wu SELECT CASE WHEN g % 101 = 0 THEN NULL
	ELSE md5((g % 3000)::text)::uuid END, g FROM generate_series(1, 20000) g;
DELETE FROM wu WHERE id % 5 = 2;
VACUUM wu;
INSERT INTO wu SELECT ('a1a2a3a4a5a6' || left(md5(g::text), 20))::uuid, g
	FROM generate_series(1, 5000) g;
});

$primary->wait_for_catchup($standby, 'replay');

my $idx = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
my $bmp = 'SET enable_seqscan = off; SET enable_indexscan = off; SET enable_indexonlyscan = off;';
my $seq = 'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;';

my %uses = (
	't_k' => q{SELECT count(*) FROM t WHERE k = 77},
	't_f' => q{SELECT id FROM t WHERE f < -9000},
	't_d' => q{SELECT id FROM t WHERE d = 'infinity'},
	't_id' => q{SELECT k FROM t WHERE id BETWEEN 100 AND 200},
	'w_s' => q{SELECT id FROM w WHERE s > 'fe'},
	'w_u' => q{SELECT id FROM w WHERE u = 'c4ca4238-a0b9-2382-0dcc-509a6f75849b'},
	'w_c' => q{SELECT id FROM w WHERE c > 'wört 9'},
	'wu_ui' => q{SELECT id FROM wu WHERE u = 'c4ca4238-a0b9-2382-0dcc-509a6f75849b' AND id > 100},);
for my $i (sort keys %uses)
{
	like($standby->safe_psql('postgres', "$idx EXPLAIN (COSTS OFF) $uses{$i}"),
		qr/ on $i\b| using $i\b/, "the standby plans with $i");
}

my @queries = (
	q{SELECT count(*), sum(id) FROM t WHERE k = 77},
	q{SELECT count(*), sum(id) FROM t WHERE k BETWEEN 50 AND 120},
	q{SELECT count(*), sum(id) FROM t WHERE k IS NULL},
	q{SELECT count(*), md5(string_agg(k::text, ',')) FROM (SELECT k FROM t WHERE k > 2000 ORDER BY k DESC) s},
	q{SELECT count(*), md5(string_agg(k::text, ',')) FROM (SELECT k FROM t ORDER BY k) s},
	q{SELECT count(*), sum(id) FROM t WHERE f < -5000 OR f > 9000},
	q{SELECT count(*), md5(string_agg(f::text, ',')) FROM (SELECT f FROM t WHERE f >= 0 ORDER BY f) s},
	q{SELECT count(*), sum(id) FROM t WHERE d = 'infinity'},
	q{SELECT count(*), sum(id) FROM t WHERE d < '1991-01-01'},
	q{SELECT count(*), sum(k) FROM t WHERE id BETWEEN 100 AND 20000},
	q{SELECT count(*), md5(string_agg(s, ',')) FROM (SELECT s FROM w WHERE s >= 'e' ORDER BY s) x},
	q{SELECT count(*), md5(string_agg(s, ',')) FROM (SELECT s FROM w WHERE s < '3' ORDER BY s DESC) x},
	q{SELECT count(*), sum(id) FROM w WHERE s = md5('77') OR s IS NULL},
	q{SELECT count(*), sum(id) FROM w WHERE u = 'c4ca4238-a0b9-2382-0dcc-509a6f75849b'},
	q{SELECT count(*), md5(string_agg(u::text, ',')) FROM (SELECT u FROM w WHERE u > 'f0000000-0000-0000-0000-000000000000' ORDER BY u) x},
	q{SELECT count(*), md5(string_agg(c, ',')) FROM (SELECT c FROM w WHERE c >= 'wört 1' ORDER BY c) x},
	q{SELECT count(*), sum(id) FROM w WHERE c = 'Wört 778' OR c = 'wört 4x' OR c IS NULL},
	q{SELECT count(*), sum(id) FROM wu WHERE u = 'c4ca4238-a0b9-2382-0dcc-509a6f75849b' AND id > 100},
	q{SELECT count(*), md5(string_agg(u::text || id, ',')) FROM (SELECT u, id FROM wu WHERE u > 'a1a2a3a4-a5a6-8000-0000-000000000000' ORDER BY u, id) x},
	q{SELECT count(*), md5(string_agg(u::text || id, ',')) FROM (SELECT u, id FROM wu WHERE u < 'f0000000-0000-0000-0000-000000000000' ORDER BY u DESC, id DESC) x},);
for my $q (@queries)
{
	my $want = $primary->safe_psql('postgres', "$seq $q");
	is($primary->safe_psql('postgres', "$idx $q"), $want, "primary: index equals seq scan: $q");
	is($standby->safe_psql('postgres', "$idx $q"), $want, "standby: index scan equals primary: $q");
	is($standby->safe_psql('postgres', "$bmp $q"), $want, "standby: bitmap scan equals primary: $q");
}

for my $i (qw(t_k t_f t_d t_id w_s w_u w_c wu_ui))
{
	my ($ret, $stdout, $stderr) =
	  $standby->psql('postgres', "SELECT fpbtree_check('$i')");
	is($ret, 0, "fpbtree_check('$i') passes on the standby") or diag($stderr);
	($ret, $stdout, $stderr) =
	  $primary->psql('postgres', "SELECT fpbtree_check('$i', true)");
	is($ret, 0, "fpbtree_check('$i', true) passes on the primary") or diag($stderr);
}
my ($ret, $stdout, $stderr) =
  $standby->psql('postgres', "SELECT fpbtree_check('t_k', true)");
is($ret, 0, "fpbtree_check('t_k', true) passes on the standby") or diag($stderr);

is( $standby->safe_psql('postgres',
		q{SELECT height, entries, total_pages FROM fpbtree_stats('t_k')}),
	$primary->safe_psql('postgres',
		q{SELECT height, entries, total_pages FROM fpbtree_stats('t_k')}),
	'fpbtree_stats agree on the standby');

# an unlogged index has only its init fork on a standby: the check skips
# it, as amcheck does; the other functions refuse it, as the core refuses
# queries of its table
foreach my $f ('fpbtree_check(\'u_k\', true)', 'fpbtree_check(\'u_k\')')
{
	($ret, $stdout, $stderr) = $standby->psql('postgres', "SELECT $f");
	is($ret, 0, "$f skips the unlogged index on the standby") or diag($stderr);
}
foreach my $f ('fpbtree_stats', 'fpbtree_format', 'fpbtree_dead_entries')
{
	($ret, $stdout, $stderr) =
	  $standby->psql('postgres', "SELECT * FROM $f('u_k')");
	like(
		$stderr,
		qr/cannot access temporary or unlogged relations during recovery/,
		"$f refuses the unlogged index on the standby");
}

# more work after the first catch-up, then promote and keep writing
$primary->safe_psql(
	'postgres', q{
DELETE FROM t WHERE k = 77 AND id % 2 = 0;
INSERT INTO t SELECT 80000 + g, 78, g, 'today' FROM generate_series(1, 2000) g;
VACUUM t;
});
$primary->wait_for_catchup($standby, 'replay');
my $q = q{SELECT count(*), sum(id) FROM t WHERE k BETWEEN 77 AND 78};
is($standby->safe_psql('postgres', "$idx $q"),
	$primary->safe_psql('postgres', "$seq $q"), 'standby follows the later changes');

$primary->stop;
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'standby did not promote';
$standby->safe_psql('postgres',
	q{INSERT INTO t SELECT 90000 + g, g % 10, g, 'epoch' FROM generate_series(1, 5000) g});
($ret, $stdout, $stderr) =
  $standby->psql('postgres', "SELECT fpbtree_check('t_k', true), fpbtree_check('t_f', true)");
is($ret, 0, 'fpbtree_check passes on the promoted standby after inserts') or diag($stderr);
$q = q{SELECT count(*), sum(id) FROM t WHERE k < 10};
is($standby->safe_psql('postgres', "$idx $q"),
	$standby->safe_psql('postgres', "$seq $q"), 'promoted standby: index equals seq scan');
# the unlogged table's index came back empty from its init fork
is($standby->safe_psql('postgres', "$idx SELECT count(*) FROM u WHERE k > 0"),
	'0', 'unlogged index is empty after promotion');
$standby->safe_psql('postgres', 'INSERT INTO u VALUES (1), (2)');
is($standby->safe_psql('postgres', "$idx SELECT count(*) FROM u WHERE k > 0"),
	'2', 'unlogged index works after promotion');

for my $n ($primary, $standby)
{
	ok(!$n->log_contains(qr/TRAP:|terminated by signal (?:4|6|7|8|11)\b|PANIC/),
		$n->name . ': no crash or assertion failure in the server log');
}

$standby->stop;
done_testing();
