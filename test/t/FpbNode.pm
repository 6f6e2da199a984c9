# The cluster a TAP test starts from: fpbtree preloaded, server messages in
# English (tests match them), the test's own settings appended.
package FpbNode;

use strict;
use warnings;

use Exporter 'import';
use PostgreSQL::Test::Cluster;

our @EXPORT = qw(fpb_node fpb_standby fpb_check_all_sql);

# A started cluster called $name with $conf (postgresql.conf lines) added;
# %init goes to init(), e.g. allows_streaming => 1.
sub fpb_node
{
	my ($name, $conf, %init) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);

	$node->init(%init);
	$node->append_conf('postgresql.conf',
		"shared_preload_libraries = 'fpbtree'\nlc_messages = 'C'\n"
		  . ($conf // ''));
	$node->start;
	return $node;
}

# A started streaming standby called $name of $primary (which must allow
# streaming), from a fresh base backup, with $conf added to what it copies.
sub fpb_standby
{
	my ($primary, $name, $conf) = @_;
	my $standby = PostgreSQL::Test::Cluster->new($name);

	$primary->backup("${name}_base");
	$standby->init_from_backup($primary, "${name}_base", has_streaming => 1);
	$standby->append_conf('postgresql.conf', $conf) if defined $conf;
	$standby->start;
	return $standby;
}

# A query that runs fpbtree_check (with heapallindexed) on every fpbtree
# index of the database: one row per index, its name; an error if one
# fails.
sub fpb_check_all_sql
{
	return q{
SELECT c.relname, fpbtree_check(c.oid, true)
FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE a.amname = 'fpbtree' AND c.relkind = 'i' ORDER BY 1};
}

1;
