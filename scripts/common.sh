# Shared preamble of bench/run_bench.sh and test/run_tests.sh, sourced from
# the repository root: the PostgreSQL installation to use, a deterministic
# locale and environment, say() and SUDO.
#
# PGBIN: the caller's value when set and not empty, else the Debian
# PostgreSQL $PGVER installation.

PGVER=15
PGBIN=${PGBIN:-/usr/lib/postgresql/$PGVER/bin}
PG_CONFIG=$PGBIN/pg_config
export DEBIAN_FRONTEND=noninteractive
# deterministic server messages and cluster locale
export LANG=C.UTF-8 LC_ALL=C.UTF-8
# no libpq defaults from the caller's environment
unset LANGUAGE PGHOST PGPORT PGDATABASE PGUSER PGSERVICE 2>/dev/null || true

say() { printf '\n=== %s\n' "$*"; }

SUDO=
if [ "$(id -u)" != 0 ]; then
	SUDO=sudo
fi
