
# pg_upgrade of a cluster with fpbtree indexes (to a new cluster of the same
# major version: the binary-upgrade dump of the extension and its operator
# families, the index files carried over as they are).  After the upgrade
# every index passes fpbtree_check with heapallindexed, queries through them
# return what they returned before, and the indexes take new rows.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use FpbNode;

my $old = fpb_node(
	'upgrade_old', q{
autovacuum = off
max_parallel_workers_per_gather = 0
});
$old->safe_psql(
	'postgres', q{
CREATE EXTENSION fpbtree;
CREATE TABLE t (id int8, k int4, s text COLLATE "C", n name,
				l text COLLATE "C.utf8");
INSERT INTO t SELECT g, g % 700, 'key' || g, 'rel_' || (g % 90),
	CASE WHEN g % 2 = 0 THEN 'Wört ' ELSE 'wort ' END || g
FROM generate_series(1, 30000) g;
CREATE UNIQUE INDEX t_id ON t USING fpbtree (id);
CREATE INDEX t_ks ON t USING fpbtree (k, s) INCLUDE (id);
CREATE INDEX t_s ON t USING fpbtree (s text_pattern_ops);
CREATE INDEX t_n ON t USING fpbtree (n);
CREATE INDEX t_l ON t USING fpbtree (l);
DELETE FROM t WHERE id % 10 = 0;
VACUUM ANALYZE t;
});

my $checks = fpb_check_all_sql();
my $queries = q{
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(id) FROM t WHERE id BETWEEN 1000 AND 5000;
SELECT k, s, id FROM t WHERE k = 7 AND s > 'key20000' ORDER BY k, s LIMIT 5;
SELECT count(*) FROM t WHERE s LIKE 'key29%';
SELECT count(*) FROM t WHERE n = 'rel_5'::text;
SELECT l FROM t WHERE l > 'Wört 2999' ORDER BY l LIMIT 3;
SELECT count(*) FROM t WHERE l BETWEEN 'wort 1' AND 'wort 2';
};
my $before = $old->safe_psql('postgres', $queries);
my $before_checks = $old->safe_psql('postgres', $checks);
$old->stop;

my $new = PostgreSQL::Test::Cluster->new('upgrade_new');
$new->init;
$new->append_conf('postgresql.conf',
	"shared_preload_libraries = 'fpbtree'\nlc_messages = 'C'\nautovacuum = off\n");

my $bindir = $new->config_data('--bindir');
# pg_upgrade writes its logs into the current directory
chdir $new->basedir;
command_ok(
	[
		'pg_upgrade', '--no-sync',
		'-d', $old->data_dir, '-D', $new->data_dir,
		'-b', $bindir, '-B', $bindir,
		'-s', $new->host, '-p', $old->port, '-P', $new->port
	],
	'pg_upgrade of a cluster with fpbtree indexes');
$new->start;

is($new->safe_psql('postgres', $checks), $before_checks,
	'every index passes fpbtree_check after the upgrade');
is($new->safe_psql('postgres', $queries), $before,
	'queries through the indexes return what they returned before');
$new->safe_psql('postgres',
	q{INSERT INTO t SELECT g, g % 700, 'key' || g, 'rel_' || (g % 90), 'wort ' || g
	  FROM generate_series(30001, 35000) g});
is($new->safe_psql('postgres', $checks), $before_checks,
	'and after new rows');
my ($ret, $out, $err) = $new->psql('postgres', 'INSERT INTO t (id) VALUES (5)');
like($err, qr/duplicate key value violates unique constraint "t_id"/,
	'the unique index still refuses duplicates');

done_testing();
