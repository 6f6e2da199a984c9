#!/usr/bin/env bash
# Build an unstripped postgres binary (the backend only) for
# calibrate/footprints.py: Debian strips its server, and callgrind needs the
# static executor functions (ExecAgg, ExecScan, ...) by name.  Same major
# version and optimisation as the packaged server.
#
#   calibrate/build_postgres_symbols.sh SRCDIR [BUILDDIR (/tmp/pgsym)]
#
# SRCDIR is a PostgreSQL 15 source tree (apt-get source postgresql-15).
# The binary ends up in BUILDDIR/src/backend/postgres; it runs on data
# directories made by the packaged initdb (same catalog version) and reads the
# packaged share directory.
set -euo pipefail
SRC=$(cd "$1" && pwd)
BUILD=${2:-/tmp/pgsym}
mkdir -p "$BUILD"
cd "$BUILD"
"$SRC/configure" --prefix="$BUILD/install" --datadir=/usr/share/postgresql/15 \
	--with-system-tzdata=/usr/share/zoneinfo --without-readline --without-icu \
	--without-zlib CFLAGS="-g -O2 -fstack-protector-strong -fno-omit-frame-pointer" \
	>configure.log
make -C src/backend generated-headers >/dev/null
make -C src/common >/dev/null
make -C src/port >/dev/null
make -j"$(nproc)" -C src/backend postgres >build.log
echo "$BUILD/src/backend/postgres"
