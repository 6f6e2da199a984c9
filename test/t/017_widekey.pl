
# Wide keys (src/am/README.md, "Wide keys").
#
# The bulk load of a wide index keeps only the values of the leaf page it
# is filling (build_wide.c), and of the upper levels only the separators
# of the pages being filled (build.c), so CREATE INDEX needs memory bounded
# by a few pages whatever the table's size.  The server runs with its data
# segment limited (ulimit -d, which counts a backend's private memory and
# not the shared buffers) to well below the indexed values' total and below
# a copy of every separator: compressed in the heap (a wide row and
# toast_tuple_target), the values are small on disk and in the sort, and
# the load decompresses each one.  The index is built; without the limit
# it then passes fpbtree_check and returns what a sequential scan returns.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use FpbNode;

my $node = fpb_node(
	'widekey', q{
autovacuum = off
max_parallel_workers_per_gather = 0
max_parallel_maintenance_workers = 0
shared_buffers = '16MB'
maintenance_work_mem = '1MB'
});

# 120,000 values of 1,600 bytes: 190 MB decompressed, 60 MB of separators
# (four values to a leaf), 17 MB stored
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION fpbtree;
CREATE TABLE wk_mem (id int, s text COLLATE "C", pad text)
WITH (autovacuum_enabled = off, toast_tuple_target = 128);
ALTER TABLE wk_mem ALTER s SET STORAGE MAIN, ALTER pad SET STORAGE MAIN;
INSERT INTO wk_mem SELECT g, repeat(md5(g::text), 50), repeat('p', 3000)
FROM generate_series(1, 120000) g;
});
my $stored = $node->safe_psql('postgres',
	"SELECT pg_column_size(s) < 200 FROM wk_mem WHERE id = 1");
is($stored, 't', 'values are stored compressed');

# restart with a 40 MB data segment limit
my $limit_kb = 40 * 1024;
$node->stop;
my $pgdata = $node->data_dir;
my $log = $node->logfile;
system_or_bail('bash', '-c',
	"ulimit -d $limit_kb && exec pg_ctl -w -D '$pgdata' -l '$log' start");
$node->_update_pid(1);

my ($ret, $stdout, $stderr) = $node->psql('postgres',
	'CREATE INDEX wk_mem_s ON wk_mem USING fpbtree (s)');
is($ret, 0, 'CREATE INDEX of 190 MB of values within a 40 MB limit');
is($stderr, '', 'no error from CREATE INDEX');

# the check keeps a copy of a level's downlinks: no limit
$node->restart;

is($node->safe_psql('postgres', "SELECT fpbtree_check('wk_mem_s', true)"),
	'', 'fpbtree_check passes');
my $q = "SELECT md5(string_agg(id::text, ',' ORDER BY s, id)) FROM wk_mem WHERE s > 'f'";
my $idx = $node->safe_psql('postgres',
	"SET enable_seqscan = off; SET enable_bitmapscan = off; $q");
my $seq = $node->safe_psql('postgres',
	"SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; $q");
is($idx, $seq, 'index scan returns the rows of a sequential scan');

$node->stop;
done_testing();
