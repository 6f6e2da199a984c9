
# A corrupt index page must give an ERROR naming the block, never a crash.
# With the server stopped, one page of an fpbtree index is overwritten on
# disk:
#   A. the root page's contents (page header kept) with garbage: a query
#      through the index and fpbtree_check fail with an ERROR naming the
#      block;
#   B. a whole page, header too: the buffer manager rejects it, again an
#      ERROR naming the block;
#   C. only the node area of the root (page header and special space kept):
#      fpbtree_check names the block; a query may fail or not, but must not
#      take the server down.
# After each, the server still answers: SELECT 1 works.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('main');
$node->init;
$node->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'fpbtree'
autovacuum = off
});
$node->start;

my $blcksz = $node->safe_psql('postgres', 'SHOW block_size') + 0;

$node->safe_psql('postgres', 'CREATE EXTENSION fpbtree');
for my $t (qw(ta tb tc))
{
	$node->safe_psql(
		'postgres', qq{
CREATE TABLE $t (id int4, k int8);
INSERT INTO $t SELECT g, (g * 7919) % 100003 FROM generate_series(1, 40000) g;
CREATE INDEX ${t}_k ON $t USING fpbtree (k);
});
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT fpbtree_check('${t}_k', true)");
	is($ret, 0, "${t}_k is sound before the damage");
}
my %path;
for my $t (qw(ta tb tc))
{
	$path{$t} = $node->data_dir . '/'
	  . $node->safe_psql('postgres', "SELECT pg_relation_filepath('${t}_k')");
}
my %height;
for my $t (qw(ta tb tc))
{
	$height{$t} = $node->safe_psql('postgres', "SELECT height FROM fpbtree_stats('${t}_k')");
}
$node->stop;

sub read_block
{
	my ($file, $blk) = @_;
	open(my $fh, '<', $file) or die "open $file: $!";
	binmode $fh;
	sysseek($fh, $blk * $blcksz, 0) or die "seek: $!";
	my $buf;
	sysread($fh, $buf, $blcksz) == $blcksz or die "short read of block $blk";
	close $fh;
	return $buf;
}

sub write_block
{
	my ($file, $blk, $buf) = @_;
	length($buf) == $blcksz or die 'wrong page size';
	open(my $fh, '+<', $file) or die "open $file: $!";
	binmode $fh;
	sysseek($fh, $blk * $blcksz, 0) or die "seek: $!";
	syswrite($fh, $buf) == $blcksz or die "short write of block $blk";
	close $fh;
	return;
}

# deterministic garbage
my $seed = 12345;
sub garbage
{
	my ($len) = @_;
	my $s = '';
	for (1 .. $len)
	{
		$seed = ($seed * 1103515245 + 12345) % 2147483648;
		$s .= chr(($seed >> 16) & 0xFF);
	}
	return $s;
}

# The root block, from the metapage (block 0): after the 24-byte page
# header come magic, version, root (see FpbMetaPageData in fpbtree.h).
# Falls back to block 1 if the metapage does not look as expected.
sub root_block
{
	my ($file) = @_;
	my $meta = read_block($file, 0);
	my ($magic, $version, $root) = unpack('V V V', substr($meta, 24, 12));
	my $nblocks = (-s $file) / $blcksz;
	if ($magic == 0xF9B7EE01 && $root > 0 && $root < $nblocks)
	{
		return $root;
	}
	diag(sprintf('metapage not as expected (magic %x, root %d): using block 1', $magic, $root));
	return 1;
}

my %blk;
$blk{$_} = root_block($path{$_}) for qw(ta tb tc);
note("blocks to damage: ta $blk{ta}, tb $blk{tb}, tc $blk{tc}; heights $height{ta}");

# A: header kept, the rest garbage
{
	my $page = read_block($path{ta}, $blk{ta});
	write_block($path{ta}, $blk{ta}, substr($page, 0, 24) . garbage($blcksz - 24));
}
# B: all garbage
write_block($path{tb}, $blk{tb}, garbage($blcksz));
# C: header and special space kept, the node lines garbage
{
	my $page = read_block($path{tc}, $blk{tc});
	my $special = unpack('v', substr($page, 16, 2));
	$special = $blcksz - 64 if $special < 64 || $special > $blcksz;
	write_block($path{tc}, $blk{tc},
		substr($page, 0, 64) . garbage($special - 64) . substr($page, $special));
}

$node->start;

my $idx = 'SET enable_seqscan = off; SET enable_bitmapscan = off;';

sub names_block
{
	my ($msg, $blk) = @_;
	return $msg =~ /(?:block|blkno|page)\D{0,40}\b$blk\b/i;
}

for my $t (qw(ta tb))
{
	my $b = $blk{$t};
	my ($ret, $out, $err) = $node->psql('postgres',
		"$idx SELECT count(*) FROM $t WHERE k >= 0");
	isnt($ret, 0, "$t: a query through the damaged index fails");
	like($err, qr/ERROR/, "$t: with an ERROR");
	ok(names_block($err, $b), "$t: the ERROR names block $b") or diag($err);

	($ret, $out, $err) = $node->psql('postgres', "SELECT fpbtree_check('${t}_k')");
	isnt($ret, 0, "$t: fpbtree_check fails");
	like($err, qr/ERROR/, "$t: with an ERROR");
	ok(names_block($err, $b), "$t: fpbtree_check names block $b") or diag($err);

	is($node->safe_psql('postgres', 'SELECT 1'), '1', "$t: the server still answers");
}

{
	my $b = $blk{tc};
	my ($ret, $out, $err) = $node->psql('postgres',
		"$idx SELECT count(*) FROM tc WHERE k >= 0");
	note("tc: query gave ret $ret, out '$out', err '$err'");
	is($node->safe_psql('postgres', 'SELECT 1'), '1',
		'tc: the server still answers after a query through the damaged index');

	($ret, $out, $err) = $node->psql('postgres', "SELECT fpbtree_check('tc_k')");
	isnt($ret, 0, 'tc: fpbtree_check fails');
	like($err, qr/ERROR/, 'tc: with an ERROR');
	ok(names_block($err, $b), "tc: fpbtree_check names block $b") or diag($err);
	is($node->safe_psql('postgres', 'SELECT 1'), '1', 'tc: the server still answers');
}

# the other indexes and the tables themselves are unharmed
is($node->safe_psql('postgres',
	'SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; '
	  . 'SELECT count(*) FROM ta'),
	'40000', 'the heap is intact');

# REINDEX repairs the damage
$node->safe_psql('postgres', 'REINDEX INDEX ta_k');
my ($ret, $out, $err) = $node->psql('postgres', "SELECT fpbtree_check('ta_k', true)");
is($ret, 0, 'REINDEX repairs the index') or diag($err);
is($node->safe_psql('postgres', "$idx SELECT count(*) FROM ta WHERE k >= 0"),
	'40000', 'queries work again after REINDEX');

ok(!$node->log_contains(qr/TRAP:|terminated by signal|PANIC/),
	'no crash or assertion failure in the server log');

$node->stop;
done_testing();
