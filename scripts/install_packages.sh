#!/usr/bin/env bash
# Install the Debian packages named on the command line that are missing, as
# root (or through sudo).  Shared by test/run_tests.sh and bench/run_bench.sh.
#
# No "main" cluster is wanted by anyone: the tests and the benchmark make
# their own throw-away clusters, so postgresql-common is told not to create
# one when the server package is first installed.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
SUDO=
if [ "$(id -u)" != 0 ]; then
	SUDO=sudo
fi

missing=()
for p in "$@"; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed'; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

printf '\n=== installing: %s\n' "${missing[*]}"
if [ ! -e /etc/postgresql-common/createcluster.conf ]; then
	$SUDO mkdir -p /etc/postgresql-common/createcluster.d
	echo 'create_main_cluster = false' |
		$SUDO tee /etc/postgresql-common/createcluster.d/fpbtree.conf >/dev/null
fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
	-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
	"${missing[@]}" >/dev/null
