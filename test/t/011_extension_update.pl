
# An installation of version 1.0 updates to 1.1 with ALTER EXTENSION:
# its existing date/time indexes then serve cross-type bounds (a
# timestamptz column against a date), with the same rows as a sequential
# scan.  It updates on to 1.2 (the prefix functions of wide keys,
# fpbtree_dead_entries(), fpbtree_stats' page deletion columns; before the
# update the 1.1 fpbtree_stats still works with the new library), then to
# 1.3 (the operator classes of wide keys: uuid, text, bpchar), then to
# 1.4 (numeric, bytea, interval, inet, the pattern classes and more), then
# to 1.5 (enums and composite types), then to 1.6 (name/text operators),
# then to 1.7 (fpbtree_format()), then to 1.8 (fpbtree_scan_stats()), then
# to 1.9 (the row bound operators of every family: a row comparison becomes
# the index condition of the indexes made before), and a fresh
# installation and an updated one have the same members in every operator
# family and the same functions.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('extension_update');
$node->init;
$node->start;

my $members = q{
SELECT string_agg(format('%s %s %s %s', f.opfname, o.amopstrategy,
                         o.amoplefttype::regtype, o.amoprighttype::regtype), ', '
                  ORDER BY 1)
FROM pg_amop o JOIN pg_opfamily f ON f.oid = o.amopfamily
JOIN pg_am a ON a.oid = f.opfmethod WHERE a.amname = 'fpbtree'
UNION ALL
SELECT string_agg(format('%s %s %s %s', f.opfname, p.amprocnum,
                         p.amproclefttype::regtype, p.amprocrighttype::regtype), ', '
                  ORDER BY 1)
FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily
JOIN pg_am a ON a.oid = f.opfmethod WHERE a.amname = 'fpbtree'};

my $functions = q{
SELECT string_agg(format('%s %s%s %s', p.oid::regprocedure, p.provolatile,
                         p.proparallel, p.prorettype::regtype), ', ' ORDER BY 1)
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND d.refclassid = 'pg_extension'::regclass
WHERE e.extname = 'fpbtree'};

$node->safe_psql('postgres', 'CREATE DATABASE fresh');
$node->safe_psql('fresh', 'CREATE EXTENSION fpbtree');
is($node->safe_psql('fresh', "SELECT extversion FROM pg_extension WHERE extname = 'fpbtree'"),
	'1.9', 'a fresh installation is version 1.9');

$node->safe_psql(
	'postgres', q{
CREATE EXTENSION fpbtree VERSION '1.0';
CREATE TABLE t (tz timestamptz);
INSERT INTO t SELECT timestamptz '2026-01-01 00:00+00' + g * interval '37 minutes'
FROM generate_series(1, 20000) g;
CREATE INDEX t_tz ON t USING fpbtree (tz);
VACUUM ANALYZE t;
});
my $q = "SELECT count(*) FROM t WHERE tz >= date '2026-01-10' AND tz < date '2026-01-20'";
unlike($node->safe_psql('postgres', "SET enable_seqscan = off; EXPLAIN (COSTS OFF) $q"),
	qr/Index Cond/, 'version 1.0 cannot bound an index scan by a date');

$node->safe_psql('postgres', "ALTER EXTENSION fpbtree UPDATE TO '1.1'");
like($node->safe_psql('postgres', "SET enable_seqscan = off; EXPLAIN (COSTS OFF) $q"),
	qr/Index Only Scan using t_tz on t\n\s+Index Cond: \(\(tz >= '2026-01-10'::date\)/,
	'after the update a date bounds the index scan');
is($node->safe_psql('postgres', "SET enable_seqscan = off; $q"),
	$node->safe_psql('postgres', "SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; $q"),
	'and returns the rows a sequential scan returns');
unlike($node->safe_psql('postgres', "SELECT proname FROM pg_proc WHERE proname LIKE 'fpbtree_prefix%'"),
	qr/prefix/, 'version 1.1 has no prefix functions');
is($node->safe_psql('postgres', "SELECT entries FROM fpbtree_stats('t_tz')"),
	'20000', 'fpbtree_stats of version 1.1 works with the new library');
$node->safe_psql('postgres', "ALTER EXTENSION fpbtree UPDATE TO '1.2'");
is($node->safe_psql('postgres', "SELECT fpbtree_prefix_uuid('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11')::bit(64) = x'a0eebc999c0b4ef8'"),
	't', 'after the update to 1.2 the prefix functions answer');
is($node->safe_psql('postgres', "SET enable_seqscan = off; $q"),
	$node->safe_psql('postgres', "SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; $q"),
	'and the index still returns the rows a sequential scan returns');
$node->safe_psql('postgres', "CREATE TABLE wu (u uuid); INSERT INTO wu SELECT md5(g::text)::uuid FROM generate_series(1, 5000) g");
my ($ret, $out, $err) = $node->psql('postgres', 'CREATE INDEX ON wu USING fpbtree (u)');
like($err, qr/no default operator class/, 'version 1.2 has no uuid operator class');
$node->safe_psql('postgres', "ALTER EXTENSION fpbtree UPDATE TO '1.3'");
$node->safe_psql('postgres', 'CREATE INDEX wu_u ON wu USING fpbtree (u)');
my $uq = "SELECT count(*) FROM wu WHERE u < '80000000-0000-0000-0000-000000000000'";
is($node->safe_psql('postgres', "SET enable_seqscan = off; SET enable_bitmapscan = off; $uq"),
	$node->safe_psql('postgres', "SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; $uq"),
	'after the update to 1.3 a uuid index returns the rows a sequential scan returns');
$node->safe_psql('postgres', "CREATE TABLE wn (n numeric); INSERT INTO wn SELECT g / 7.0 FROM generate_series(-3000, 3000) g");
($ret, $out, $err) = $node->psql('postgres', 'CREATE INDEX ON wn USING fpbtree (n)');
like($err, qr/no default operator class/, 'version 1.3 has no numeric operator class');
$node->safe_psql('postgres', "ALTER EXTENSION fpbtree UPDATE TO '1.4'");
$node->safe_psql('postgres', 'CREATE INDEX wn_n ON wn USING fpbtree (n)');
my $nq = "SELECT count(*), sum(n) FROM wn WHERE n > -12.5 AND n <= 100";
is($node->safe_psql('postgres', "SET enable_seqscan = off; SET enable_bitmapscan = off; $nq"),
	$node->safe_psql('postgres', "SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; $nq"),
	'after the update to 1.4 a numeric index returns the rows a sequential scan returns');
$node->safe_psql('postgres', "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy'); CREATE TABLE we (m mood); INSERT INTO we SELECT (enum_range(NULL::mood))[1 + g % 3] FROM generate_series(1, 3000) g");
($ret, $out, $err) = $node->psql('postgres', 'CREATE INDEX ON we USING fpbtree (m)');
like($err, qr/no default operator class/, 'version 1.4 has no enum operator class');
$node->safe_psql('postgres', "ALTER EXTENSION fpbtree UPDATE TO '1.5'");
$node->safe_psql('postgres', 'CREATE INDEX we_m ON we USING fpbtree (m)');
my $eq = "SELECT count(*) FROM we WHERE m >= 'ok'";
is($node->safe_psql('postgres', "SET enable_seqscan = off; SET enable_bitmapscan = off; $eq"),
	$node->safe_psql('postgres', "SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; $eq"),
	'after the update to 1.5 an enum index returns the rows a sequential scan returns');
$node->safe_psql('postgres', "CREATE TABLE wm (m name); INSERT INTO wm SELECT 'rel_' || g FROM generate_series(1, 3000) g; CREATE INDEX wm_m ON wm USING fpbtree (m)");
my $mq = "SELECT count(*) FROM wm WHERE m >= 'rel_2'::text";
unlike($node->safe_psql('postgres', "SET enable_seqscan = off; EXPLAIN (COSTS OFF) $mq"),
	qr/Index Cond/, 'version 1.5 cannot bound a name index by a text');
$node->safe_psql('postgres', "ALTER EXTENSION fpbtree UPDATE TO '1.6'");
like($node->safe_psql('postgres', "SET enable_seqscan = off; EXPLAIN (COSTS OFF) $mq"),
	qr/Index Cond: \(m >= 'rel_2'::text\)/, 'after the update to 1.6 a text bounds the name index');
is($node->safe_psql('postgres', "SET enable_seqscan = off; SET enable_bitmapscan = off; $mq"),
	$node->safe_psql('postgres', "SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; $mq"),
	'and returns the rows a sequential scan returns');
unlike($node->safe_psql('postgres', "SELECT proname FROM pg_proc WHERE proname = 'fpbtree_format'"),
	qr/format/, 'version 1.6 has no fpbtree_format()');
$node->safe_psql('postgres', "ALTER EXTENSION fpbtree UPDATE TO '1.7'");
is($node->safe_psql('postgres', "SELECT version, format, reindex_adds FROM fpbtree_format('t_tz')"),
	'4|{node_starts}|{}', 'after the update to 1.7 fpbtree_format() reads an index made under 1.0');
$node->safe_psql('postgres', "ALTER EXTENSION fpbtree UPDATE TO '1.8'");
is($node->safe_psql('postgres', "SELECT grouping_scans FROM fpbtree_scan_stats_reset(), fpbtree_scan_stats()"),
	'0', 'after the update to 1.8 fpbtree_scan_stats() counts');
$node->safe_psql('postgres', "CREATE TABLE wr (a int4, b int8); INSERT INTO wr SELECT g % 10, g FROM generate_series(1, 5000) g; CREATE INDEX wr_ab ON wr USING fpbtree (a, b); VACUUM ANALYZE wr");
my $rq = "SELECT a, b FROM wr WHERE (a, b) > (4, 2000) ORDER BY a, b LIMIT 3";
like($node->safe_psql('postgres', "SET enable_seqscan = off; EXPLAIN (COSTS OFF) $rq"),
	qr/Index Cond: \(a >= 4\)\n\s+Filter: \(ROW\(a, b\) > ROW\(4, 2000\)\)/,
	'version 1.8 bounds a row comparison by its first column, the rest a filter');
$node->safe_psql('postgres', "ALTER EXTENSION fpbtree UPDATE TO '1.9'");
like($node->safe_psql('postgres', "SET enable_seqscan = off; EXPLAIN (COSTS OFF) $rq"),
	qr/Index Cond: \(a >\| ROW\(4, 2000\)\)$/m,
	'after the update to 1.9 the index made before takes the row bound');
is($node->safe_psql('postgres', "SET enable_seqscan = off; $rq"), "4|2004\n4|2014\n4|2024",
	'and returns the rows after the bound');
is($node->safe_psql('postgres', $functions), $node->safe_psql('fresh', $functions),
	'the updated installation has the fresh one\'s functions');
is($node->safe_psql('postgres', $members), $node->safe_psql('fresh', $members),
	'the updated installation has the fresh one\'s operators and functions');
is($node->safe_psql('postgres', "SELECT bool_and(amvalidate(c.oid)) FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod WHERE a.amname = 'fpbtree'"),
	't', 'every operator class validates');

# This cluster does not preload the library.  An upsert naming its conflict
# target loads it while it is planned (the arbiter's index is opened), and
# works as a session's first statement; one without a target opens no
# index until its first row, after the executor started, and fails there
# with the core's error; in the same session it then works.
$node->safe_psql('postgres', 'CREATE TABLE wo (k int4, n int4); CREATE UNIQUE INDEX wo_k ON wo USING fpbtree (k)');
is($node->safe_psql('postgres', 'INSERT INTO wo VALUES (1, 1) ON CONFLICT (k) DO UPDATE SET n = wo.n + 1 RETURNING n'),
	'1', 'without preloading, an upsert with a conflict target works as the first statement');
($ret, $out, $err) = $node->psql('postgres', 'INSERT INTO wo VALUES (1, 1) ON CONFLICT DO NOTHING');
like($err, qr/unexpected non-btree speculative unique index/,
	'one without a target fails as the first statement (documented)');
is($node->safe_psql('postgres', "SELECT count(*) FROM wo WHERE k = 2;\nINSERT INTO wo VALUES (1, 1), (2, 1) ON CONFLICT DO NOTHING;\nSELECT count(*) FROM wo"),
	"0\n2", 'and works once the session has used an fpbtree index');

is($node->safe_psql('postgres', "SELECT fpbtree_dead_entries('t_tz')"), '0',
	'fpbtree_dead_entries() answers for an index built under 1.0');

my $stats = "SELECT entries, deleted_pages, recyclable_pages, free_pages, half_dead_pages FROM fpbtree_stats('t_tz')";
$node->safe_psql('postgres', 'DELETE FROM t WHERE tz < (SELECT min(tz) + interval \'100 days\' FROM t)');
$node->safe_psql('postgres', 'VACUUM t');
$node->safe_psql('postgres', 'SELECT txid_current()');
$node->safe_psql('postgres', 'VACUUM t');
like($node->safe_psql('postgres', $stats),
	qr/^16108\|([1-9]\d*)\|\1\|\1\|0$/,
	'after the update to 1.2 fpbtree_stats counts deleted, recyclable and free pages');
is($node->safe_psql('postgres', "SELECT proname FROM pg_proc WHERE proname = 'fpbtree_stats'"),
	$node->safe_psql('fresh', "SELECT proname FROM pg_proc WHERE proname = 'fpbtree_stats'"),
	'one fpbtree_stats, as in a fresh installation');
is($node->safe_psql('postgres', "SELECT pg_get_function_result('fpbtree_stats'::regproc)"),
	$node->safe_psql('fresh', "SELECT pg_get_function_result('fpbtree_stats'::regproc)"),
	'with the fresh installation\'s columns');

done_testing();
