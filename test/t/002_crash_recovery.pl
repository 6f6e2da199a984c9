
# Crash recovery: background pgbench clients insert rows with random keys
# (so that leaf and internal pages split all the time); each transaction
# also records its rows in a side table.  The server is stopped with
# 'immediate' (no shutdown checkpoint) in the middle of it, restarted, and
# then fpbtree_check passes and every committed row is found through the
# index (an int8, a float8 and a text index).  A low-cardinality index's posting pages go through the second
# crash, and an unlogged table's text index (wide keys) starts again from
# its init fork after it, and takes rows again.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use FpbNode;
use IPC::Run;
use Time::HiRes qw(usleep);

my $node = fpb_node(
	'main', q{
log_statement = none
autovacuum = off
});

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION fpbtree;
CREATE TABLE t (id int8, k int8, f float8, s text COLLATE "C");
CREATE TABLE done (id int8, k int8);
CREATE SEQUENCE ids;
INSERT INTO t SELECT g, (g * 7919) % 1000, g / 7.0, md5(((g * 7919) % 1000)::text) FROM generate_series(1, 1000) g;
INSERT INTO done SELECT id, k FROM t;
SELECT setval('ids', 1000);
CREATE INDEX t_k ON t USING fpbtree (k);
CREATE INDEX t_f ON t USING fpbtree (f) WITH (leaf_lines = 1, nonleaf_lines = 1);
CREATE INDEX t_s ON t USING fpbtree (s);
CHECKPOINT;
});

# one transaction: 40 new rows in t and the same ids in done
my $script = $node->basedir . '/crash_insert.sql';
PostgreSQL::Test::Utils::append_to_file(
	$script, q{
\set base random(-1000000, 1000000)
BEGIN;
WITH n AS (SELECT nextval('ids') AS id, :base + (random() * 200000)::int8 AS k
		   FROM generate_series(1, 40))
, i AS (INSERT INTO t SELECT id, k, k / 3.0, md5(k::text) FROM n RETURNING id, k)
INSERT INTO done SELECT id, k FROM i;
COMMIT;
});

my ($out, $err) = ('', '');
my $bench = IPC::Run::start(
	[
		'pgbench', '--no-vacuum', '--client=4', '--jobs=2', '--time=60',
		'--file=' . $script, '--host=' . $node->host,
		'--port=' . $node->port, 'postgres'
	],
	'>', \$out, '2>', \$err, IPC::Run::timeout(180));

# wait for enough committed work, with a checkpoint in the middle so that
# recovery starts from a checkpoint taken while splits were going on
my $committed = sub {
	return $node->safe_psql('postgres', 'SELECT count(*) FROM done') + 0;
};
my $deadline = time() + 40;
while ($committed->() < 8000 && time() < $deadline) { usleep(100_000); }
$node->safe_psql('postgres', 'CHECKPOINT');
while ($committed->() < 16000 && time() < $deadline) { usleep(100_000); }
my $before = $committed->();
cmp_ok($before, '>=', 8000, "enough rows committed before the crash ($before)");

$node->stop('immediate');
$bench->finish;    # pgbench's clients fail once the server is gone
note("pgbench stderr (expected connection errors): " . substr($err, 0, 500));

$node->start;

my $after = $committed->();
cmp_ok($after, '>=', $before, 'no committed transaction was lost');

my ($ret, $stdout, $stderr) = $node->psql('postgres',
	q{SELECT fpbtree_check('t_k', true), fpbtree_check('t_f', true), fpbtree_check('t_s', true)});
is($ret, 0, 'fpbtree_check passes after crash recovery');
is($stderr, '', 'fpbtree_check reports nothing') or diag($stderr);

# every committed row found through the index: a nested loop over done with
# an index scan of t_k for each row
my $idx = 'SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_hashjoin = off; '
  . 'SET enable_mergejoin = off; SET enable_material = off; SET enable_memoize = off;';
like(
	$node->safe_psql(
		'postgres',
		"$idx EXPLAIN (COSTS OFF) SELECT count(*) FROM done d WHERE NOT EXISTS "
		  . "(SELECT 1 FROM t WHERE t.k = d.k AND t.id = d.id)"),
	qr/Index Scan using t_k/,
	'the lookup uses t_k');
is( $node->safe_psql(
		'postgres',
		"$idx SELECT count(*) FROM done d WHERE NOT EXISTS "
		  . "(SELECT 1 FROM t WHERE t.k = d.k AND t.id = d.id)"),
	'0',
	'every committed row is found through t_k');
is( $node->safe_psql(
		'postgres',
		"$idx SELECT count(*) FROM done d WHERE NOT EXISTS "
		  . "(SELECT 1 FROM t WHERE t.f = (d.k / 3.0)::float8 AND t.id = d.id) AND d.id > 1000"),
	'0',
	'every committed row is found through t_f');
is( $node->safe_psql(
		'postgres',
		"$idx SELECT count(*) FROM done d WHERE NOT EXISTS "
		  . "(SELECT 1 FROM t WHERE t.s = md5(d.k::text) AND t.id = d.id)"),
	'0',
	'every committed row is found through the text index t_s');
# and nothing more: the table and the side table agree
is($node->safe_psql('postgres', 'SELECT count(*) FROM t'),
	$after, 'the table holds exactly the committed rows');

# whole-index scans equal a sequential scan
my $seq = 'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off;';
for my $q (
	q{SELECT count(*), md5(string_agg(k::text, ',')) FROM (SELECT k FROM t ORDER BY k) s},
	q{SELECT count(*), md5(string_agg(k::text, ',')) FROM (SELECT k FROM t ORDER BY k DESC) s},
	q{SELECT count(*), sum(id) FROM t WHERE f > 0},
	q{SELECT count(*), md5(string_agg(s, ',')) FROM (SELECT s FROM t WHERE s > '8' ORDER BY s) x})
{
	is($node->safe_psql('postgres', "$idx $q"),
		$node->safe_psql('postgres', "$seq $q"),
		"index equals seq scan after recovery: $q");
}

# the index keeps working: more inserts, deletes and VACUUM after recovery
$node->safe_psql(
	'postgres', q{
INSERT INTO t SELECT nextval('ids'), g % 777, g FROM generate_series(1, 5000) g;
DELETE FROM t WHERE id % 3 = 0;
VACUUM t;
});
($ret, $stdout, $stderr) = $node->psql('postgres',
	q{SELECT fpbtree_check('t_k', true), fpbtree_check('t_f', true), fpbtree_check('t_s', true)});
is($ret, 0, 'fpbtree_check passes after more work') or diag($stderr);
is( $node->safe_psql('postgres', "$idx SELECT count(*) FROM t WHERE k = 5"),
	$node->safe_psql('postgres', "$seq SELECT count(*) FROM t WHERE k = 5"),
	'lookups agree after more work');

# posting pages (src/am/posting.c) replayed too: a low-cardinality index
# built, grown by inserts (appends in place, splits at key boundaries),
# thinned by VACUUM and grown again, all before the second crash
$node->safe_psql(
	'postgres', q{
CREATE TABLE lc (id int8, k int8);
INSERT INTO lc SELECT g, g % 3 FROM generate_series(1, 6000) g;
CREATE INDEX lc_k ON lc USING fpbtree (k);
INSERT INTO lc SELECT 6000 + g, g % 4 FROM generate_series(1, 6000) g;
DELETE FROM lc WHERE id % 5 = 0;
VACUUM lc;
INSERT INTO lc SELECT 12000 + g, g % 2 FROM generate_series(1, 3000) g;
});

# a second crash, right after the VACUUM and a burst of splits, with no
# checkpoint in between
$node->safe_psql('postgres',
	q{INSERT INTO t SELECT nextval('ids'), -10000000 - g, -g FROM generate_series(1, 20000) g;
CREATE UNLOGGED TABLE ul (s text COLLATE "C");
CREATE INDEX ul_s ON ul USING fpbtree (s);
INSERT INTO ul SELECT md5(g::text) FROM generate_series(1, 5000) g});
$node->stop('immediate');
$node->start;
($ret, $stdout, $stderr) = $node->psql('postgres', q{SELECT fpbtree_check('lc_k', true)});
is($ret, 0, 'fpbtree_check passes on the posting pages after the crash') or diag($stderr);
my $lcq = q{SELECT k, count(*), sum(id) FROM lc WHERE k >= 0 GROUP BY k ORDER BY k};
is($node->safe_psql('postgres', "$idx $lcq"),
	$node->safe_psql('postgres', "$seq $lcq"), 'posting pages: index equals seq scan');
# 12,600 entries of 4 keys on fewer leaves than regular pages would take
is( $node->safe_psql('postgres',
		q{SELECT pages_per_level[1] < entries / 540 FROM fpbtree_stats('lc_k')}),
	't', 'lc_k keeps its runs on posting pages');
($ret, $stdout, $stderr) = $node->psql('postgres',
	q{SELECT fpbtree_check('t_k', true), fpbtree_check('t_f', true), fpbtree_check('t_s', true)});
is($ret, 0, 'fpbtree_check passes after the second crash') or diag($stderr);
is( $node->safe_psql('postgres', "$idx SELECT count(*) FROM t WHERE k < -10000000"),
	'20000', 'all rows of the last transaction found through the index');

# the unlogged table is empty again; its index, reset from the init fork,
# is still a wide index
$node->safe_psql('postgres',
	q{INSERT INTO ul SELECT md5(g::text) FROM generate_series(1, 3000) g});
($ret, $stdout, $stderr) = $node->psql('postgres', q{SELECT fpbtree_check('ul_s', true)});
is($ret, 0, 'fpbtree_check passes on the unlogged text index after the crash')
  or diag($stderr);
is( $node->safe_psql('postgres', "$idx SELECT count(*) FROM ul WHERE s < '8'"),
	$node->safe_psql('postgres', "$seq SELECT count(*) FROM ul WHERE s < '8'"),
	'the unlogged text index returns the rows a sequential scan returns');

ok(!$node->log_contains(qr/TRAP:|terminated by signal (?:4|6|7|8|11)\b|PANIC/),
	'no crash or assertion failure in the server log');

$node->stop;
done_testing();
