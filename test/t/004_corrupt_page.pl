
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
#
# D. Damaged links and metapage fields.  Each case overwrites a few bytes of
#    a freshly built small index so that every page still looks sane on its
#    own but a link or a field lies: the root is the metapage or a leaf, a
#    leaf is its own right sibling (also a full one that an insert splits),
#    two leaves point at each other, a right-link skips leaves, high keys
#    send a descent round two leaves, a left-link leads right, a leaf's
#    pd_lower leaves its nodes in the hole, a downlink leads to the
#    metapage, a level-1 page is empty and its own sibling, the node widths
#    are zero, the version is wrong, a leaf node starts past its arrays'
#    end or past slot 0 on a page not flagged for it (an index older than
#    version 4), a posting page counts more TIDs than
#    it holds or has two out of order, a page of runs counts more runs than
#    it holds, has two keys out of order or a run that overlaps the next
#    one, a wide page of runs has a value outside its slotted area or two
#    keys out of order (or, of names, a name with a byte after its string:
#    only fpbtree_check sees it), a high key's value (wide and multi-column indexes)
#    is longer than the page.  Every statement through the index, and
#    fpbtree_check, must fail at once with ERRCODE_INDEX_CORRUPTED (XX002)
#    naming the block.  Without validation, most of these hang (some
#    uninterruptibly), wait for their own buffer lock, return too few rows
#    or write into the metapage.  statement_timeout and a wall-clock limit
#    on each psql call are only safety nets, so that a hang fails the test
#    instead of stalling it: a statement that times out fails its checks.

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
# D: one small index per case.  With fillfactor 10, the 10,000 entries get
# 223 leaves, 8 level-1 pages and a root, built in key order; d_split's
# leaves are full, so an insert splits one.
my @dcases = (
	[ d_root0 => 10 ],
	[ d_rootleaf => 10 ],
	[ d_rootleaf0 => 10 ],
	[ d_selfright => 10 ],
	[ d_cycle => 10 ],
	[ d_skip => 10 ],
	[ d_moveright => 10 ],
	[ d_leftlink => 10 ],
	[ d_pdlower => 10 ],
	[ d_nentries => 10 ],
	[ d_delcycle => 10 ],
	[ d_bwdcycle => 10 ],
	[ d_downlink0 => 10 ],
	[ d_l1empty => 10 ],
	[ d_widths0 => 10 ],
	[ d_version => 10 ],
	[ d_pfxflags => 10 ],
	[ d_deadmark => 10 ],
	[ d_nodestart => 10 ],
	[ d_startflag => 10 ],
	[ d_split => 100 ],
	[ d_postcount => 100, '5' ],
	[ d_postorder => 100, '5' ],
	[ d_runscount => 100, 'g % 500' ],
	[ d_runskeys => 100, 'g % 500' ],
	[ d_runsend => 100, 'g % 500' ],
	[ d_varsize => 10, undef, '(k::text) COLLATE "C"' ],
	[ d_wrunsoff => 100, 'g % 500', '(k::text) COLLATE "C"' ],
	[ d_wrunskeys => 100, 'g % 500', '(k::text) COLLATE "C"' ],
	[ d_namepad => 100, 'g % 500', '((k::text)::name)' ],
	[ d_namepadm => 100, 'g % 500', '((\'nm\' || k)::name), ((k % 3)::int4)' ],
	[ d_tuplesize => 10, undef, 'k, (id * interval \'1 s\')' ],
	[ d_packsize => 10, undef, 'k, id' ],
	[ d_packvar => 10, undef, 'k, (id::numeric)' ],
	[ d_uuidlen => 10, undef, '(md5(k::text)::uuid)' ],
	[ d_uuidrow => 10, undef, '(md5(k::text)::uuid), k' ],
	[ d_introw => 10, undef, 'k, id' ],
	[ d_tsrow => 10, undef, '(to_timestamp(k::float8 / 1000)), id' ],);
for my $c (@dcases)
{
	my ($t, $ff, $kexpr, $cols) = @$c;
	# d_post*: one key, so the leaves are posting pages (src/am/posting.c);
	# d_runs*: 20 rows a key, so the build makes pages of runs
	$kexpr //= '(g * 7919) % 100003';
	# d_varsize: a wide index (text); d_tuplesize: a multi-column one
	# of index tuples, d_packsize one of packed rows (src/am/packed.c),
	# d_packvar one of packed rows with a varlena value;
	# d_wruns*: a wide index of 20 rows a value, so of pages of runs;
	# d_namepad: the same of names (src/am/wide.c, fpb_name_is_padded),
	# d_namepadm of (name, int4) rows; d_uuidlen: a uuid index, whose
	# slots hold the bytes after the prefix; d_uuidrow: a (uuid, int8)
	# index, whose packed rows leave the uuid's prefix bytes out; d_introw:
	# an (int8, int4) one, whose packed rows leave the first value out;
	# d_tsrow a (timestamptz, int4) one, whose rows keep its low 16 bits
	$cols //= 'k';
	$node->safe_psql(
		'postgres', qq{
CREATE TABLE $t (id int4, k int8);
INSERT INTO $t SELECT g, $kexpr FROM generate_series(1, 10000) g;
CREATE INDEX ${t}_k ON $t USING fpbtree ($cols) WITH (fillfactor = $ff);
VACUUM $t;
});
}
my %dexpect;
for my $c (@dcases)
{
	my $t = $c->[0];
	$dexpect{$t} = $node->safe_psql('postgres',
		"SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; "
		  . "SELECT count(*), sum(k) FROM $t WHERE k >= 0");
	my ($ret, $out, $err) =
	  $node->psql('postgres', "SELECT fpbtree_check('${t}_k', true)");
	is($ret, 0, "${t}_k is sound before the damage") or diag($err);
}
# the scans below must run through the index, forward and backward
like(
	$node->safe_psql(
		'postgres', 'SET enable_seqscan = off; SET enable_bitmapscan = off; '
		  . 'EXPLAIN SELECT count(*), sum(k) FROM d_cycle WHERE k >= 0'),
	qr/Index Only Scan using d_cycle_k/,
	'a range count scans the index forward');
like(
	$node->safe_psql(
		'postgres', 'SET enable_seqscan = off; SET enable_bitmapscan = off; '
		  . 'EXPLAIN SELECT sum(k) FROM (SELECT k FROM d_cycle WHERE k >= 0 ORDER BY k DESC) s'),
	qr/Index Only Scan Backward using d_cycle_k/,
	'a descending ORDER BY scans the index backward');

my %path;
for my $t (qw(ta tb tc), map { $_->[0] } @dcases)
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

# D: parse and patch pages.  Special space (FpbPageOpaqueData in fpbtree.h):
# hikey 0, hitid 8, level 14, left 16, right 20, nentries 24, flags 28,
# root 30, hwm 32, firstleaf 34, lastleaf 36, ipheight 38, w 39, x 40,
# pageid 42.  Metapage contents (FpbMetaPageData) from byte 24: magic,
# version 28, root 32, rootlevel 36, w 40, x 41, mprefix 66, pfxflags 68.
# pd_lower is at byte 12.
my $INVALID = 0xFFFFFFFF;
my $NONE = 0xFFFF;
my %opqfield = (
	hikey => [ 0, 'Q<' ],
	hitid => [ 8, 'a6' ],
	level => [ 14, 'v' ],
	left => [ 16, 'V' ],
	right => [ 20, 'V' ],
	nentries => [ 24, 'V' ],
	root => [ 30, 'v' ],
	hwm => [ 32, 'v' ],
	firstleaf => [ 34, 'v' ],
	lastleaf => [ 36, 'v' ],
	ipheight => [ 38, 'C' ],
	fulllen => [ 41, 'C' ],);
my %metafield = (
	version => [ 28, 'V' ],
	root => [ 32, 'V' ],
	rootlevel => [ 36, 'V' ],
	w => [ 40, 'C' ],
	x => [ 41, 'C' ],
	pfxflags => [ 68, 'v' ],);

sub opaque
{
	my ($page) = @_;
	my $sp = unpack('v', substr($page, 16, 2));
	my %o;
	@o{qw(hikey hitid level left right nentries flags root hwm firstleaf lastleaf ipheight w x pad pageid)}
	  = unpack('Q< a6 v V V V v v v v v C C C C v', substr($page, $sp, 44));
	$o{special} = $sp;
	return \%o;
}

sub put
{
	my ($pageref, $off, $fmt, $val) = @_;
	my $bytes = pack($fmt, $val);
	substr($$pageref, $off, length($bytes)) = $bytes;
	return;
}

# Change fields of one block: special-space fields by name, metapage fields
# with a "meta_" prefix, pd_lower, or raw => [offset, format, value].
sub patch
{
	my ($file, $blk, %set) = @_;
	my $page = read_block($file, $blk);
	my $sp = opaque($page)->{special};
	for my $f (sort keys %set)
	{
		if ($f eq 'pd_lower') { put(\$page, 12, 'v', $set{$f}); }
		elsif ($f eq 'raw') { put(\$page, @{ $set{$f} }); }
		elsif ($f =~ /^meta_(.*)/)
		{
			my ($off, $fmt) = @{ $metafield{$1} };
			put(\$page, $off, $fmt, $set{$f});
		}
		else
		{
			my ($off, $fmt) = @{ $opqfield{$f} };
			put(\$page, $sp + $off, $fmt, $set{$f});
		}
	}
	write_block($file, $blk, $page);
	return;
}

# The blocks of one level, left to right along the right-links.
sub level_chain
{
	my ($file, $level) = @_;
	my $nblocks = (-s $file) / $blcksz;
	my @chain;
	for my $b (1 .. $nblocks - 1)
	{
		my $o = opaque(read_block($file, $b));
		if ($o->{pageid} == 0xFB7E && !($o->{flags} & 2)
			&& $o->{level} == $level && $o->{left} == $INVALID)
		{
			push @chain, $b;
			last;
		}
	}
	die "no leftmost page at level $level" unless @chain;
	while ((my $r = opaque(read_block($file, $chain[-1]))->{right}) != $INVALID)
	{
		push @chain, $r;
		die "level $level does not end" if @chain > $nblocks;
	}
	return @chain;
}

# The offset of the first packed row in a wide leaf's slotted area: the
# slot at pd_upper, or the next when that one is the high key's (packed
# rows are unaligned, so the next begins where the first one's length ends).
sub first_packed_row
{
	my ($page) = @_;
	my $off = unpack('v', substr($page, 14, 2));
	$off += unpack('C', substr($page, $off, 1))
	  if $off == (opaque($page)->{hikey} & 0xFFFF);
	return $off;
}

# The second wide page of runs (flags wide, posting and runs) on the leaf
# level of index file $file of table $t.
sub wide_runs_leaf
{
	my ($file, $t) = @_;
	my @leaves = grep { (opaque(read_block($file, $_))->{flags} & 0x1C0) == 0x1C0 }
	  level_chain($file, 0);
	die "no wide page of runs in $t" unless @leaves > 1;
	return $leaves[1];
}

# The slot of the first entry of the in-page leaf node at line $line: the
# header's last byte (FpbNodeHeader.start).
sub node_start
{
	my ($page, $line) = @_;
	return unpack('C', substr($page, 64 + $line * 64 + 7, 1));
}

# Byte offset of the first downlink (child block) of an internal page: the
# child array of its first in-page leaf node, from its first entry's slot
# (see fpb_node_children).
sub first_downlink_offset
{
	my ($page) = @_;
	my $o = opaque($page);
	my $cap = int(($o->{x} * 64 - 8 - 2) / 18);
	my $off = 8 + 14 * $cap;
	$off = ($off + 3) & ~3;
	return 64 + $o->{firstleaf} * 64 + $off +
	  4 * node_start($page, $o->{firstleaf});
}

# %dblk: the block(s) each case's errors must name; %dnote: what was done.
my (%dblk, %dnote);
{
	my $f;
	my @leaves;

	# the metapage names itself as the root
	$f = $path{d_root0};
	patch($f, 0, meta_root => 0);
	$dblk{d_root0} = [0];
	$dnote{d_root0} = 'metapage root = 0';

	# the root is a leaf from the middle of the leaf level (metapage level
	# kept at 2, and also set to 0 to match)
	for my $t (qw(d_rootleaf d_rootleaf0))
	{
		$f = $path{$t};
		@leaves = level_chain($f, 0);
		my $m = $leaves[ int(@leaves / 2) ];
		patch($f, 0, meta_root => $m, ($t eq 'd_rootleaf0' ? (meta_rootlevel => 0) : ()));
		$dblk{$t} = [ 0, $m ];
		$dnote{$t} = "metapage root = leaf $m" . ($t eq 'd_rootleaf0' ? ', root level 0' : '');
	}

	# a leaf is its own right sibling
	$f = $path{d_selfright};
	@leaves = level_chain($f, 0);
	patch($f, $leaves[5], right => $leaves[5]);
	$dblk{d_selfright} = [ $leaves[5] ];
	$dnote{d_selfright} = "leaf $leaves[5] right-link = itself";

	# two leaves point at each other
	$f = $path{d_cycle};
	@leaves = level_chain($f, 0);
	patch($f, $leaves[6], right => $leaves[5]);
	$dblk{d_cycle} = [ $leaves[5], $leaves[6] ];
	$dnote{d_cycle} = "leaf $leaves[6] right-link = its left sibling $leaves[5]";

	# a right-link skips two leaves
	$f = $path{d_skip};
	@leaves = level_chain($f, 0);
	patch($f, $leaves[5], right => $leaves[8]);
	$dblk{d_skip} = [ $leaves[5], $leaves[8] ];
	$dnote{d_skip} = "leaf $leaves[5] right-link = leaf $leaves[8]";

	# the two leftmost leaves get high key (0, 0), below every entry, and
	# the second one's right-link leads back to the first: a descent to the
	# leftmost leaf moves right for ever
	$f = $path{d_moveright};
	@leaves = level_chain($f, 0);
	patch($f, $leaves[0], hikey => 0, hitid => "\0" x 6);
	patch($f, $leaves[1], hikey => 0, hitid => "\0" x 6, right => $leaves[0]);
	$dblk{d_moveright} = [ $leaves[0], $leaves[1] ];
	$dnote{d_moveright} =
	  "leaves $leaves[0], $leaves[1] high key (0, 0), leaf $leaves[1] right-link = leaf $leaves[0]";

	# a left-link leads to a leaf further right
	$f = $path{d_leftlink};
	@leaves = level_chain($f, 0);
	patch($f, $leaves[5], left => $leaves[10]);
	$dblk{d_leftlink} = [ $leaves[5] ];
	$dnote{d_leftlink} = "leaf $leaves[5] left-link = leaf $leaves[10]";

	# pd_lower no longer covers the leftmost leaf's nodes
	$f = $path{d_pdlower};
	@leaves = level_chain($f, 0);
	patch($f, $leaves[0], pd_lower => 64);
	$dblk{d_pdlower} = [ $leaves[0] ];
	$dnote{d_pdlower} = "leftmost leaf $leaves[0] pd_lower = 64";

	# a leaf claims millions of entries: scans size their arrays by the
	# count, and must refuse it before allocating
	$f = $path{d_nentries};
	@leaves = level_chain($f, 0);
	patch($f, $leaves[5], nentries => 15728640);
	$dblk{d_nentries} = [ $leaves[5] ];
	$dnote{d_nentries} = "leaf $leaves[5] nentries = 15728640";

	# a leaf in the middle is flagged deleted and its right-link leads back
	# to the leftmost leaf: a forward scan must report the cycle before it
	# returns any row twice, not after as many rounds as there are blocks
	$f = $path{d_delcycle};
	@leaves = level_chain($f, 0);
	{
		my $o = opaque(read_block($f, $leaves[20]));
		patch($f, $leaves[20],
			right => $leaves[0],
			raw => [ $o->{special} + 28, 'v', $o->{flags} | 0x0010 ]);
	}
	$dblk{d_delcycle} = [ @leaves[ 0 .. 20 ] ];
	$dnote{d_delcycle} = "leaf $leaves[20] deleted, right-link = leaf $leaves[0]";

	# links agree on a cycle: leaf 10 says leaf 5 is its right sibling
	# and leaf 5 that leaf 10 is its left one; a backward scan walking left
	# from leaf 5 must not go round 10, 9, ..., 5 for ever
	$f = $path{d_bwdcycle};
	@leaves = level_chain($f, 0);
	patch($f, $leaves[5], left => $leaves[10]);
	patch($f, $leaves[10], right => $leaves[5]);
	$dblk{d_bwdcycle} = [ $leaves[5], $leaves[10] ];
	$dnote{d_bwdcycle} =
	  "leaf $leaves[10] right-link = leaf $leaves[5], whose left-link = leaf $leaves[10]";

	# the first downlink of the leftmost level-1 page leads to the metapage
	$f = $path{d_downlink0};
	my @l1 = level_chain($f, 1);
	patch($f, $l1[0],
		raw => [ first_downlink_offset(read_block($f, $l1[0])), 'V', 0 ]);
	$dblk{d_downlink0} = [0];
	$dnote{d_downlink0} = "level-1 page $l1[0] first downlink = 0";

	# a level-1 page in the middle is empty and its own right sibling: the
	# leaf prefetcher of a long scan reads it through the level-1 chain
	$f = $path{d_l1empty};
	@l1 = level_chain($f, 1);
	patch(
		$f, $l1[1],
		right => $l1[1],
		ipheight => 0,
		nentries => 0,
		root => $NONE,
		firstleaf => $NONE,
		lastleaf => $NONE,
		hwm => 0,
		pd_lower => 64);
	$dblk{d_l1empty} = [ $l1[1] ];
	$dnote{d_l1empty} = "level-1 page $l1[1] emptied, right-link = itself";

	# a downlink carries the dead mark only scans set, on leaf entries
	$f = $path{d_deadmark};
	@l1 = level_chain($f, 1);
	{
		my $page = read_block($f, $l1[1]);
		my $o = opaque($page);
		my $cap = int(($o->{x} * 64 - 8 - 2) / 18);
		my $posid = 64 + $o->{firstleaf} * 64 + 8 + 8 * $cap +
		  6 * node_start($page, $o->{firstleaf}) + 4;
		patch($f, $l1[1],
			raw => [ $posid, 'v', unpack('v', substr($page, $posid, 2)) | 0x4000 ]);
	}
	$dblk{d_deadmark} = [ $l1[1] ];
	$dnote{d_deadmark} = "level-1 page $l1[1] first downlink marked dead";

	# a leaf node whose entries would run past its arrays' end, and one
	# that starts past slot 0 on a page not flagged for it (an index
	# older than version 4): each would be read from the wrong slots
	$f = $path{d_nodestart};
	@leaves = level_chain($f, 0);
	{
		my $page = read_block($f, $leaves[1]);
		my $o = opaque($page);
		patch($f, $leaves[1], raw => [ 64 + $o->{firstleaf} * 64 + 7, 'C', 250 ]);
	}
	$dblk{d_nodestart} = [ $leaves[1] ];
	$dnote{d_nodestart} = "leaf $leaves[1] first node starts at slot 250";

	$f = $path{d_startflag};
	@leaves = level_chain($f, 0);
	{
		my $page = read_block($f, $leaves[1]);
		my $o = opaque($page);
		my $start = node_start($page, $o->{firstleaf});
		ok($start > 0, 'd_startflag: a built leaf node starts past slot 0');
		patch($f, $leaves[1], raw => [ $o->{special} + 28, 'v', $o->{flags} & ~0x0400 ]);
	}
	$dblk{d_startflag} = [ $leaves[1] ];
	$dnote{d_startflag} = "leaf $leaves[1] without FPB_F_STARTS";

	$f = $path{d_widths0};
	patch($f, 0, meta_w => 0, meta_x => 0);
	$dblk{d_widths0} = [0];
	$dnote{d_widths0} = 'metapage node widths 0/0';

	$f = $path{d_version};
	patch($f, 0, meta_version => 99);
	$dblk{d_version} = [0];
	$dnote{d_version} = 'metapage version 99';

	# version 3 with a prefix flag no build knows: refused, not read as
	# another format's prefixes
	$f = $path{d_pfxflags};
	patch($f, 0, meta_version => 3, meta_pfxflags => 0x8000);
	$dblk{d_pfxflags} = [0];
	$dnote{d_pfxflags} = 'metapage version 3 with unknown prefix flags';

	# a full leftmost leaf is its own right sibling; inserting below its
	# first key splits it
	$f = $path{d_split};
	@leaves = level_chain($f, 0);
	patch($f, $leaves[0], right => $leaves[0]);
	$dblk{d_split} = [ $leaves[0] ];
	$dnote{d_split} = "full leftmost leaf $leaves[0] right-link = itself";

	# a posting page (flag 0x80) counts more TIDs than its lines hold
	$f = $path{d_postcount};
	@leaves = grep { opaque(read_block($f, $_))->{flags} & 0x80 } level_chain($f, 0);
	die 'no posting page in d_postcount' unless @leaves;
	patch($f, $leaves[1], nentries => 1300);
	$dblk{d_postcount} = [ $leaves[1] ];
	$dnote{d_postcount} = "posting page $leaves[1] entry count 1300";

	# two TIDs of a posting page out of order: only fpbtree_check sees it
	$f = $path{d_postorder};
	@leaves = grep { opaque(read_block($f, $_))->{flags} & 0x80 } level_chain($f, 0);
	die 'no posting page in d_postorder' unless @leaves;
	{
		my $page = read_block($f, $leaves[1]);
		my ($t0, $t1) = (substr($page, 72, 6), substr($page, 78, 6));
		patch($f, $leaves[1], raw => [ 72, 'a12', $t1 . $t0 ]);
	}
	$dblk{d_postorder} = [ $leaves[1] ];
	$dnote{d_postorder} = "posting page $leaves[1] first two TIDs swapped";

	# pages of runs (flags 0x80 | 0x100): the body at byte 64 is the run
	# count and the slot count (uint32 each), then the keys, the first and
	# the end slots (uint16 each), then the TID slots.  A run count far
	# beyond the lines in use; two keys out of order; a run whose end lies
	# past the next run's first slot.  Every reader checks these before it
	# follows them.
	for my $t (qw(d_runscount d_runskeys d_runsend))
	{
		$f = $path{$t};
		@leaves = grep { (opaque(read_block($f, $_))->{flags} & 0x180) == 0x180 }
		  level_chain($f, 0);
		die "no page of runs in $t" unless @leaves;
		my $page = read_block($f, $leaves[1]);
		my $nruns = unpack('V', substr($page, 64, 4));
		if ($t eq 'd_runscount')
		{
			patch($f, $leaves[1], raw => [ 64, 'V', 60000 ]);
			$dnote{$t} = "page of runs $leaves[1] run count 60000";
		}
		elsif ($t eq 'd_runskeys')
		{
			my ($k0, $k1) = (substr($page, 72, 8), substr($page, 80, 8));
			patch($f, $leaves[1], raw => [ 72, 'a16', $k1 . $k0 ]);
			$dnote{$t} = "page of runs $leaves[1] first two keys swapped";
		}
		else
		{
			my $ends = 72 + 10 * $nruns;
			my $start1 = unpack('v', substr($page, 72 + 8 * $nruns + 2, 2));
			patch($f, $leaves[1], raw => [ $ends, 'v', $start1 + 3 ]);
			$dnote{$t} = "page of runs $leaves[1] first run ends past the second's start";
		}
		$dblk{$t} = [ $leaves[1] ];
	}

	# wide pages of runs: each run's key is (prefix, the offset of its
	# value's slot).  A key whose offset points into the lines, below the
	# slotted area; two keys out of order.
	for my $t (qw(d_wrunsoff d_wrunskeys))
	{
		$f = $path{$t};
		my $leaf = wide_runs_leaf($f, $t);
		my $page = read_block($f, $leaf);
		if ($t eq 'd_wrunsoff')
		{
			patch($f, $leaf, raw => [ 72, 'v', 100 ]);
			$dnote{$t} = "wide page of runs $leaf first value at offset 100";
		}
		else
		{
			my ($k0, $k1) = (substr($page, 72, 8), substr($page, 80, 8));
			patch($f, $leaf, raw => [ 72, 'a16', $k1 . $k0 ]);
			$dnote{$t} = "wide page of runs $leaf first two keys swapped";
		}
		$dblk{$t} = [$leaf];
	}

	# a name of a page of runs with a byte after its string: it compares
	# as the string, but runs of names are told apart by their bytes; in
	# d_namepadm the name is the "nm..." string in the row
	for my $t (qw(d_namepad d_namepadm))
	{
		$f = $path{$t};
		my $leaf = wide_runs_leaf($f, $t);
		my $page = read_block($f, $leaf);
		my $off = unpack('v', substr($page, 72, 2));
		my $name = $t eq 'd_namepad' ? 0 : index(substr($page, $off, 80), 'nm');
		die "$t: no name at $off" if $off < 72 || $name < 0 || $off + 64 > 8192;
		put(\$page, $off + $name + 40, 'C', ord('x'));
		write_block($f, $leaf, $page);
		$dblk{$t} = [$leaf];
		$dnote{$t} = "wide page of runs $leaf first name with a byte after its string";
	}

	# a leaf's high key, a value in the slotted area, says it is longer
	# than the page: a scan copies the high key it leaves (wide index,
	# the varlena header), an index-only scan each entry's tuple
	# (multi-column index, the index tuple's size, or a packed row's
	# length byte)
	for my $t (qw(d_varsize d_tuplesize d_packsize))
	{
		$f = $path{$t};
		@leaves = level_chain($f, 0);
		my $page = read_block($f, $leaves[5]);
		my $off = opaque($page)->{hikey} & 0xFFFF;
		if ($t eq 'd_varsize') { put(\$page, $off, 'V', 100000 << 2); }
		elsif ($t eq 'd_packsize') { put(\$page, $off, 'C', 0xFF); }
		else { put(\$page, $off + 6, 'v', 0x1FF8); }
		write_block($f, $leaves[5], $page);
		$dblk{$t} = [ $leaves[5] ];
		$dnote{$t} = "leaf $leaves[5] high key's value longer than the page";
	}
	# a packed row's varlena value with a four-byte header, which a
	# packed row never holds: read as one, its length would run past the
	# row.  The row in the slot at pd_upper (or the next, when that is
	# the high key): length byte, NULL bitmap, then the value, as k, the
	# first value, is left to the prefix (bitmap 0x80).
	{
		my $t = 'd_packvar';
		$f = $path{$t};
		@leaves = level_chain($f, 0);
		my $page = read_block($f, $leaves[5]);
		my $off = first_packed_row($page);
		die "$t: no packed row leaving k out at $off"
		  if unpack('C', substr($page, $off, 1)) < 3
		  || unpack('C', substr($page, $off + 1, 1)) != 0x80;
		put(\$page, $off + 2, 'C', 0xF0);
		write_block($f, $leaves[5], $page);
		$dblk{$t} = [ $leaves[5] ];
		$dnote{$t} = "leaf $leaves[5] packed row's value with a 4-byte header";
	}
	# a uuid leaf that says its slots hold whole values (16, not 0xFE):
	# read so, a value would be its slot's 10 bytes and 6 bytes after
	{
		my $t = 'd_uuidlen';
		$f = $path{$t};
		@leaves = level_chain($f, 0);
		die "$t: leaf $leaves[5] has fulllen " . opaque(read_block($f, $leaves[5]))->{pad}
		  if opaque(read_block($f, $leaves[5]))->{pad} != 0xFE;
		patch($f, $leaves[5], fulllen => 16);
		$dblk{$t} = [ $leaves[5] ];
		$dnote{$t} = "leaf $leaves[5] records whole uuid values";
	}

	# a (uuid, int8) row that left the uuid's first 6 bytes out, its
	# bitmap's bit cleared: read so, its values would run 6 bytes past it
	{
		my $t = 'd_uuidrow';
		$f = $path{$t};
		@leaves = level_chain($f, 0);
		my $page = read_block($f, $leaves[5]);
		my $off = first_packed_row($page);
		die "$t: no row leaving bytes out at $off"
		  if unpack('C', substr($page, $off, 1)) != 20
		  || unpack('C', substr($page, $off + 1, 1)) != 0x80;
		put(\$page, $off + 1, 'C', 0);
		write_block($f, $leaves[5], $page);
		$dblk{$t} = [ $leaves[5] ];
		$dnote{$t} = "leaf $leaves[5] row keeps no skip bit";
	}
	# an (int8, int4) row that left its int8 out, its bitmap's bit
	# cleared: read so, its values would run 8 bytes past it
	{
		my $t = 'd_introw';
		$f = $path{$t};
		@leaves = level_chain($f, 0);
		my $page = read_block($f, $leaves[5]);
		my $off = first_packed_row($page);
		die "$t: no row leaving its first value out at $off"
		  if unpack('C', substr($page, $off, 1)) != 6
		  || unpack('C', substr($page, $off + 1, 1)) != 0x80;
		put(\$page, $off + 1, 'C', 0);
		write_block($f, $leaves[5], $page);
		$dblk{$t} = [ $leaves[5] ];
		$dnote{$t} = "leaf $leaves[5] int row keeps no skip bit";
	}
	# a (timestamptz, int4) row that kept the low 16 bits of its
	# timestamp, its bitmap's bit cleared: read so, its values would run
	# 6 bytes past it
	{
		my $t = 'd_tsrow';
		$f = $path{$t};
		@leaves = level_chain($f, 0);
		my $page = read_block($f, $leaves[5]);
		my $off = first_packed_row($page);
		die "$t: no row leaving bytes out at $off"
		  if unpack('C', substr($page, $off, 1)) != 8
		  || unpack('C', substr($page, $off + 1, 1)) != 0x80;
		put(\$page, $off + 1, 'C', 0);
		write_block($f, $leaves[5], $page);
		$dblk{$t} = [ $leaves[5] ];
		$dnote{$t} = "leaf $leaves[5] timestamp row keeps no skip bit";
	}
}
note("D: $_: $dnote{$_}") for sort keys %dnote;

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


# D: every statement fails at once with XX002 naming the block.  A
# statement that hangs is cut off, first by statement_timeout and, if the
# backend ignores it, by the wall clock (then the server is stopped with
# "immediate" at the end, since such a backend cannot be terminated).
my $stuck = 0;

sub fails_corrupt
{
	my ($t, $label, $sql) = @_;
	my ($timed_out, $out, $err);
	my $ret = $node->psql(
		'postgres',
		"\\set VERBOSITY verbose\nSET statement_timeout = '20s';\n$idx\n$sql",
		stdout => \$out,
		stderr => \$err,
		timeout => 60,
		timed_out => \$timed_out);
	my $what = "$t ($dnote{$t}): $label";
	if ($timed_out)
	{
		$stuck = 1;
		fail("$what: fails with XX002");
		diag("$what: no answer within 60 s (the backend ignores statement_timeout)");
		return;
	}
	$err //= '';
	ok($ret != 0 && $err =~ /ERROR:\s+XX002:/, "$what: fails with XX002")
	  or diag("$what: ret $ret, out '$out' (sound: '$dexpect{$t}'), err '$err'");
	ok((grep { names_block($err, $_) } @{ $dblk{$t} }),
		"$what: the message names block " . join(' or ', @{ $dblk{$t} }))
	  or diag($err);
	return;
}

my %dstmts = (
	ins => 'INSERT INTO %s SELECT 0, -g FROM generate_series(1, 1000) g',
	fwd => 'SELECT count(*), sum(k) FROM %s WHERE k >= 0',
	bwd => 'SELECT count(*), sum(k) FROM (SELECT k FROM %s WHERE k >= 0 ORDER BY k DESC) s',
	stats => "SELECT height FROM fpbtree_stats('%s_k')",
	check => "SELECT fpbtree_check('%s_k')",
	fetch2x =>
	  "BEGIN; DECLARE c CURSOR FOR SELECT k FROM %s WHERE k >= 0; FETCH 20000 FROM c; COMMIT;",
	fwdt => "SELECT count(*) FROM %s WHERE k::text COLLATE \"C\" >= ''",);
my @dplan = (
	[ d_root0 => qw(ins fwd check) ],
	[ d_rootleaf => qw(fwd ins check) ],
	[ d_rootleaf0 => qw(fwd check) ],
	[ d_selfright => qw(bwd fwd check) ],
	[ d_cycle => qw(fwd bwd check) ],
	[ d_skip => qw(fwd check) ],
	[ d_moveright => qw(ins fwd check) ],
	[ d_leftlink => qw(bwd check) ],
	[ d_pdlower => qw(ins check) ],
	[ d_nentries => qw(fwd bwd check) ],
	[ d_delcycle => qw(fetch2x fwd check) ],
	[ d_bwdcycle => qw(bwd fwd check) ],
	[ d_downlink0 => qw(ins fwd check) ],
	[ d_l1empty => qw(fwd check) ],
	[ d_widths0 => qw(stats fwd check) ],
	[ d_version => qw(fwd check) ],
	[ d_pfxflags => qw(fwd check) ],
	[ d_deadmark => qw(check) ],
	[ d_nodestart => qw(fwd bwd check) ],
	[ d_startflag => qw(fwd check) ],
	[ d_split => qw(ins check) ],
	[ d_postcount => qw(fwd bwd check) ],
	[ d_postorder => qw(check) ],
	[ d_runscount => qw(fwd bwd check) ],
	[ d_runskeys => qw(fwd bwd check) ],
	[ d_runsend => qw(fwd bwd check) ],
	[ d_varsize => qw(fwdt check) ],
	[ d_wrunsoff => qw(fwdt check) ],
	[ d_wrunskeys => qw(fwdt check) ],
	[ d_namepad => qw(check) ],
	[ d_namepadm => qw(check) ],
	[ d_tuplesize => qw(fwd check) ],
	[ d_packsize => qw(fwd check) ],
	[ d_packvar => qw(fwd check) ],
	[ d_uuidlen => qw(check) ],
	[ d_uuidrow => qw(check) ],
	[ d_introw => qw(check) ],
	[ d_tsrow => qw(check) ],);
for my $p (@dplan)
{
	my ($t, @stmts) = @$p;
	fails_corrupt($t, $_, sprintf($dstmts{$_}, $t)) for @stmts;
	is($node->safe_psql('postgres', 'SELECT 1', timeout => 60),
		'1', "$t: the server still answers");
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

$node->stop($stuck ? 'immediate' : 'fast');
done_testing();
