
# fpbtree writes the deltas of its generic WAL records itself (src/am/wal.c).
# With wal_consistency_checking = 'generic' every such record also carries a
# full image of each page it changes, and the standby compares the page it
# rebuilt from the delta with that image during replay: a delta that misses
# a change stops the standby with "inconsistent page found".  The workload
# covers in-page inserts and splits, reorganisations, page and root splits,
# duplicates (posting pages, of one key and of several), NULLs, deletions by VACUUM, a second
# split-heavy index with narrow nodes, a text index (wide keys: values in
# slots below pd_upper, which every split, reorganisation and insert rewrites
# or extends), and runs of inserts in the middle of the index.  Index scans
# over deleted rows set no dead marks here.

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
wal_consistency_checking = 'generic'
log_statement = none
}, allows_streaming => 1);
$primary->safe_psql('postgres',
	q{SELECT pg_create_physical_replication_slot('standby')});
$primary->safe_psql(
	'postgres', q{
CREATE EXTENSION fpbtree;
CREATE TABLE w (id int4, k int8, f float8, s text COLLATE "C");
CREATE INDEX w_k ON w USING fpbtree (k);
CREATE INDEX w_f ON w USING fpbtree (f) WITH (nonleaf_lines = 2, leaf_lines = 3);
CREATE INDEX w_s ON w USING fpbtree (s);
CREATE INDEX w_ksf ON w USING fpbtree (k, s) INCLUDE (f);
CREATE INDEX w_sk ON w USING fpbtree (s, k);
CREATE TABLE wu (id int4, u uuid, ts timestamptz);
CREATE INDEX wu_ut ON wu USING fpbtree (u, ts);
CREATE TABLE wi (id int4, k int8, d date);
CREATE INDEX wi_kd ON wi USING fpbtree (k, d);
CREATE TABLE wt (id int4, ts timestamptz, n int8);
CREATE INDEX wt_tn ON wt USING fpbtree (ts, n);
});

my $standby =
  fpb_standby($primary, 'standby', "primary_slot_name = 'standby'");

# random order: splits at every level, in-page and of whole pages
$primary->safe_psql(
	'postgres', q{
INSERT INTO w SELECT g, hashint4(g), hashint4(g * 31) / 1000.0,
	repeat(md5(g::text), 1 + g % 4)
	FROM generate_series(1, 6000) g ORDER BY hashint4(g + 7);
INSERT INTO w SELECT 10000 + g, 42, NULL FROM generate_series(1, 1500) g;
INSERT INTO w SELECT 20000 + g, NULL, g FROM generate_series(1, 300) g;
DELETE FROM w WHERE id % 3 = 0 OR k = 42 AND id % 2 = 0;
});

# Index scans over the deleted rows would mark their entries dead, a hint
# the next records' page images carry but the replayed pages lack; generic
# WAL cannot mask it, so no marks are set under this setting.
$primary->safe_psql(
	'postgres', q{
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(id) FROM w WHERE k >= -2147483648;
SELECT count(*), sum(id) FROM w WHERE f >= -1000000000;
SELECT count(*), sum(id) FROM w WHERE s >= '';
SELECT count(*), sum(id) FROM w WHERE k >= -2147483648 AND s >= '';
});
is($primary->safe_psql('postgres',
		"SELECT fpbtree_dead_entries('w_k') + fpbtree_dead_entries('w_f') + fpbtree_dead_entries('w_s') + fpbtree_dead_entries('w_ksf')"),
	'0', 'no entries marked dead under wal_consistency_checking');
# nor by a session that turns the setting off: the sessions that write the
# next records have the server's value, and their page images would carry
# its marks (recovery stopped at "inconsistent page found")
$primary->safe_psql(
	'postgres', q{
SET wal_consistency_checking = '';
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(id) FROM w WHERE k >= -2147483648;
SELECT count(*), sum(id) FROM w WHERE k >= -2147483648 AND s >= '';
});
is($primary->safe_psql('postgres',
		"SELECT fpbtree_dead_entries('w_k') + fpbtree_dead_entries('w_ksf')"),
	'0', 'nor under the server\'s value in a session that set it off');
$primary->safe_psql(
	'postgres', q{
INSERT INTO w SELECT 40000 + g, hashint4(g * 13), g / 7.0 FROM generate_series(1, 1000) g;
VACUUM w;
INSERT INTO w SELECT 30000 + g, hashint4(g * 17), -g, md5((g * 3)::text)
	FROM generate_series(1, 3000) g ORDER BY hashint4(g);
-- posting pages (src/am/posting.c): the run of 42 gets rows in the heap
-- space VACUUM freed (TIDs inside the run: shifts in the array, new lines),
-- and its neighbours 41 and 43 split it at the key
INSERT INTO w SELECT 50000 + g, 41 + g % 3, NULL FROM generate_series(1, 1500) g;
-- pages of several runs: short runs of 200 keys fill leaves in random
-- order (in-place inserts into a run: TIDs and run ends shift, new lines),
-- then keys between them (the page laid out again with a new run) and
-- splits of such pages
INSERT INTO w SELECT 60000 + g, 1000000 + 2 * (g % 200), NULL
	FROM generate_series(1, 6000) g ORDER BY hashint4(g);
INSERT INTO w SELECT 70000 + g, 1000001 + 2 * (g % 200), NULL
	FROM generate_series(1, 3000) g ORDER BY hashint4(g * 3);
DELETE FROM w WHERE id > 60000 AND id % 5 = 0;
VACUUM w;
INSERT INTO w SELECT 80000 + g, 1000000 + g % 300, NULL FROM generate_series(1, 2000) g;
-- wide pages of runs (text): each value once, in the slotted area, before
-- its run; in-place inserts, new values between the runs (laid out again
-- with a new slot), splits, dead rows removed by VACUUM
INSERT INTO w SELECT 90000 + g, NULL, NULL, 'run-' || (g % 150)
	FROM generate_series(1, 8000) g ORDER BY hashint4(g);
INSERT INTO w SELECT 100000 + g, NULL, NULL, 'run-' || (g % 150) || '-b'
	FROM generate_series(1, 3000) g ORDER BY hashint4(g * 5);
DELETE FROM w WHERE id > 90000 AND id % 4 = 0;
VACUUM w;
INSERT INTO w SELECT 110000 + g, NULL, NULL, 'run-' || (g % 200)
	FROM generate_series(1, 2000) g;
-- runs in the middle (insert.c and page.c: pages and in-page nodes split
-- next to the run, an entry put at the front of the next node): keys
-- descending between existing ones, and descending and ascending within
-- the groups of (s, k)
INSERT INTO w SELECT 120000 + g, 500000000 - g FROM generate_series(1, 4000) g;
INSERT INTO w SELECT 130000 + g, -g, NULL, 'grp-' || (g % 20)
	FROM generate_series(1, 4000) g;
INSERT INTO w SELECT 140000 + g, g, NULL, 'grp-' || (g % 20)
	FROM generate_series(1, 4000) g;
-- rows led by a uuid leave its prefix bytes out (uuid_prefix_rows): random
-- inserts, equal rows (runs), a shared prefix, NULLs, deletes, VACUUM
INSERT INTO wu SELECT g, CASE WHEN g % 97 = 0 THEN NULL
	WHEN g % 3 = 0 THEN ('a1a2a3a4a5a6' || left(md5(g::text), 20))::uuid
	ELSE md5((g % 2000)::text)::uuid END,
	'2026-01-01'::timestamptz + (g % 7) * interval '1 day'
	FROM generate_series(1, 12000) g ORDER BY hashint4(g);
DELETE FROM wu WHERE id % 4 = 1;
VACUUM wu;
INSERT INTO wu SELECT 20000 + g, md5((g % 2500)::text)::uuid, now()
	FROM generate_series(1, 4000) g ORDER BY hashint4(g * 7);
-- rows led by an integer leave it to the prefix where its code fits
-- (int_prefix_rows): keys on either side of -2^41 and 2^41, where it stops
-- fitting, and near -2^42, 0 and 2^42; runs of equal rows, NULLs
INSERT INTO wi SELECT g, CASE WHEN g % 53 = 0 THEN NULL
	ELSE (g % 5 - 2) * 2199023255552 + g % 13 - 6 END,
	date '2026-01-01' + g % 11
	FROM generate_series(1, 15000) g ORDER BY hashint4(g);
DELETE FROM wi WHERE id % 4 = 1;
VACUUM wi;
INSERT INTO wi SELECT 20000 + g, (g % 5 - 2) * 2199023255552 + g % 9 - 4,
	date '2026-02-01' - g % 17
	FROM generate_series(1, 4000) g ORDER BY hashint4(g * 3);
-- rows led by a timestamp keep its low 16 bits (timestamp_prefix_rows):
-- bursts 1 ms apart share the rest, in time order and at random
INSERT INTO wt SELECT g, CASE WHEN g % 61 = 0 THEN NULL
	ELSE timestamptz '2026-01-01' + (g / 100) * interval '10 s' +
		(g % 100) * interval '1 ms' END, g % 7
	FROM generate_series(1, 15000) g ORDER BY hashint4(g);
DELETE FROM wt WHERE id % 3 = 1;
VACUUM wt;
INSERT INTO wt SELECT 20000 + g, timestamptz '2026-01-01' + g * interval '700 us', g
	FROM generate_series(1, 5000) g;
});

$primary->wait_for_catchup($standby, 'replay');
ok($standby->poll_query_until('postgres', 'SELECT true'),
	'the standby replayed every record and is running');

my $log = slurp_file($standby->logfile);
unlike($log, qr/inconsistent page found/,
	'no replayed page differs from its full image');

my $idx = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';
for my $q (
	q{SELECT count(*), sum(id) FROM w WHERE k >= 0},
	q{SELECT count(*), sum(id) FROM w WHERE k = 42},
	q{SELECT count(*), sum(id) FROM w WHERE k BETWEEN 1000000 AND 1000400},
	q{SELECT count(*), sum(id) FROM w WHERE f < 0},
	q{SELECT count(*) FROM w WHERE f IS NULL},
	q{SELECT count(*), sum(id) FROM w WHERE s < '8'},
	q{SELECT count(*), sum(id) FROM w WHERE s >= 'run-1' AND s < 'run-3'},
	q{SELECT count(*), sum(id) FROM w WHERE s = 'run-17' AND k IS NULL},
	q{SELECT count(*) FROM w WHERE s IS NULL},
	q{SELECT count(*), sum(id) FROM w WHERE k = 42 AND s IS NULL},
	q{SELECT count(*), sum(id) FROM w WHERE k > 0 AND s > '8'},
	q{SELECT count(*), sum(id) FROM w WHERE k BETWEEN 499990000 AND 500000000},
	q{SELECT count(*), sum(id) FROM w WHERE s = 'grp-7' AND k < 100},
	q{SELECT count(*), md5(string_agg(u::text, ',')) FROM (SELECT u FROM wu WHERE u >= 'a1a2a3a4-a5a6-0000-0000-000000000000' ORDER BY u, ts) x},
	q{SELECT count(*), sum(id) FROM wu WHERE u = md5('17')::uuid},
	q{SELECT count(*), md5(string_agg(k || ' ' || d, ',')) FROM (SELECT k, d FROM wi WHERE k >= -4398046511104 ORDER BY k, d) x},
	q{SELECT count(*), sum(id) FROM wi WHERE k = 2199023255551},
	q{SELECT count(*), sum(id) FROM wi WHERE k = -2199023255553 AND d > '2026-01-05'},
	q{SELECT count(*), md5(string_agg(ts || ' ' || n, ',')) FROM (SELECT ts, n FROM wt WHERE ts > '2025-01-01' ORDER BY ts, n) x},
	q{SELECT count(*), sum(id) FROM wt WHERE ts BETWEEN '2026-01-01 00:00:10.030' AND '2026-01-01 00:00:10.060'})
{
	is($standby->safe_psql('postgres', "$idx $q"),
		$primary->safe_psql('postgres', $q),
		"standby index scan equals the primary: $q");
}
for my $i (qw(w_k w_f w_s w_ksf w_sk wu_ut wi_kd wt_tn))
{
	my ($ret, $stdout, $stderr) =
	  $standby->psql('postgres', "SELECT fpbtree_check('$i', true)");
	is($ret, 0, "fpbtree_check('$i', true) passes on the standby")
	  or diag($stderr);
}

$standby->stop;
$primary->stop;
done_testing();
