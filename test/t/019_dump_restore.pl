
# pg_dump and pg_restore of a database with fpbtree indexes of every kind:
# one and several columns, INCLUDE, DESC / NULLS FIRST, unique with NULLS
# NOT DISTINCT, partial, on an expression, under ICU and "C", the pattern
# and name classes, a fillfactor, an exclusion constraint, a partitioned
# table's index, a clustered table.  The restored database has the same
# index definitions, every index passes fpbtree_check with heapallindexed,
# queries through the indexes return what they returned before the dump,
# and the unique index still refuses duplicates and serves ON CONFLICT.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use FindBin;
use lib $FindBin::RealBin;
use FpbNode;

my $node = fpb_node(
	'dump_restore', q{
autovacuum = off
max_parallel_workers_per_gather = 0
});

$node->safe_psql('postgres',
	q{CREATE DATABASE src ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0});
$node->safe_psql(
	'src', q{
CREATE EXTENSION fpbtree;
CREATE TABLE t (id int8, k int4, s text COLLATE "en-x-icu", c text COLLATE "C",
				n name, u uuid, v numeric, ts timestamptz, pad text);
INSERT INTO t
SELECT g, CASE WHEN g % 17 = 0 THEN NULL ELSE g % 500 END,
	   'wörd' || (g % 300), 'key' || g, 'rel_' || (g % 200),
	   md5(g::text)::uuid, g / 7.0,
	   timestamptz '2026-01-01 00:00+00' + g * interval '1 min', repeat('x', 20)
FROM generate_series(1, 20000) g;
CREATE INDEX t_k ON t USING fpbtree (k);
CREATE UNIQUE INDEX t_id ON t USING fpbtree (id) INCLUDE (k);
CREATE INDEX t_ks ON t USING fpbtree (k DESC NULLS FIRST, s);
CREATE INDEX t_s ON t USING fpbtree (s);
CREATE INDEX t_c ON t USING fpbtree (c text_pattern_ops) WITH (fillfactor = 70);
CREATE INDEX t_n ON t USING fpbtree (n);
CREATE UNIQUE INDEX t_u ON t USING fpbtree (u) NULLS NOT DISTINCT;
CREATE INDEX t_v ON t USING fpbtree (v) WHERE v > 100;
CREATE INDEX t_lower ON t USING fpbtree (lower(c));
CREATE INDEX t_ts ON t USING fpbtree (ts);
COMMENT ON INDEX t_k IS 'the k index';
CLUSTER t USING t_k;
CREATE TABLE ex (r int4, w int4, EXCLUDE USING fpbtree (r WITH =, w WITH =));
INSERT INTO ex SELECT g % 100, g / 100 FROM generate_series(1, 5000) g;
CREATE TABLE p (d date, x int8) PARTITION BY RANGE (d);
CREATE TABLE p1 PARTITION OF p FOR VALUES FROM ('2026-01-01') TO ('2026-07-01');
CREATE TABLE p2 PARTITION OF p FOR VALUES FROM ('2026-07-01') TO ('2027-01-01');
CREATE INDEX p_d ON p USING fpbtree (d, x);
INSERT INTO p SELECT date '2026-01-01' + g % 365, g FROM generate_series(1, 10000) g;
VACUUM ANALYZE;
});

my $defs = q{
SELECT string_agg(format('%s %s %s', c.relname, pg_get_indexdef(i.indexrelid),
						 coalesce(obj_description(i.indexrelid, 'pg_class'), '')),
				  E'\n' ORDER BY c.relname)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'fpbtree'};
my $checks = fpb_check_all_sql();
my $queries = q{
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(id) FROM t WHERE k BETWEEN 10 AND 40;
SELECT id, k FROM t WHERE id > 19990 ORDER BY id;
SELECT count(*) FROM t WHERE k IS NULL;
SELECT s FROM t WHERE s >= 'wörd25' ORDER BY s LIMIT 3;
SELECT count(*) FROM t WHERE c LIKE 'key19%';
SELECT count(*) FROM t WHERE n = 'rel_7'::text;
SELECT count(*) FROM t WHERE u < 'a0000000-0000-0000-0000-000000000000';
SELECT count(*) FROM t WHERE v > 2000;
SELECT count(*) FROM t WHERE lower(c) = 'key77';
SELECT count(*) FROM t WHERE ts >= date '2026-01-05';
SELECT count(*) FROM p WHERE d = '2026-08-01';
SELECT clusters FROM (SELECT indisclustered AS clusters FROM pg_index WHERE indexrelid = 't_k'::regclass) s;
};

my $before_defs = $node->safe_psql('src', $defs);
my $before_rows = $node->safe_psql('src', $queries);
like($before_defs, qr/USING fpbtree/, 'the source database has fpbtree indexes');

my $dump = $node->basedir . '/src.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-d', $node->connstr('src'), '-f', $dump ],
	'pg_dump of the database');
$node->safe_psql('postgres',
	q{CREATE DATABASE dst ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0});
$node->command_ok(
	[ 'pg_restore', '--exit-on-error', '-d', $node->connstr('dst'), $dump ],
	'pg_restore into an empty database');

is($node->safe_psql('dst', "SELECT extversion FROM pg_extension WHERE extname = 'fpbtree'"),
	$node->safe_psql('src', "SELECT extversion FROM pg_extension WHERE extname = 'fpbtree'"),
	'the extension at the same version');
is($node->safe_psql('dst', $defs), $before_defs,
	'the same index definitions and comments');
is($node->safe_psql('dst', $checks),
	$node->safe_psql('src', $checks), 'every restored index passes fpbtree_check');
is($node->safe_psql('dst', $queries), $before_rows,
	'queries through the indexes return the rows they returned before');

my ($ret, $out, $err) = $node->psql('dst', 'INSERT INTO t (id) VALUES (5)');
like($err, qr/duplicate key value violates unique constraint "t_id"/,
	'the restored unique index refuses a duplicate');
is($node->safe_psql('dst',
		'INSERT INTO t (id, k) VALUES (5, -1) ON CONFLICT (id) DO UPDATE SET k = -1 RETURNING id, k'),
	'5|-1', 'and serves ON CONFLICT');
($ret, $out, $err) = $node->psql('dst', 'INSERT INTO ex VALUES (1, 0)');
like($err, qr/conflicting key value violates exclusion constraint/,
	'the restored exclusion constraint holds');

done_testing();
