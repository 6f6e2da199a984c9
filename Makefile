# fpbtree: fractal prefetching B+-tree access method and prefetching executor
# nodes for PostgreSQL 15 (pgxs build).

EXTENSION = fpbtree
MODULE_big = fpbtree
DATA = fpbtree--1.0.sql fpbtree--1.0--1.1.sql fpbtree--1.1--1.2.sql \
	fpbtree--1.2--1.3.sql fpbtree--1.3--1.4.sql fpbtree--1.4--1.5.sql \
	fpbtree--1.5--1.6.sql fpbtree--1.6--1.7.sql fpbtree--1.7--1.8.sql \
	fpbtree--1.8--1.9.sql
PGFILEDESC = "fpbtree - fractal prefetching B+-tree"

OBJS = \
	src/fpbtree.o \
	src/guc_alias.o \
	$(patsubst %.c,%.o,$(sort $(wildcard src/am/*.c))) \
	$(patsubst %.c,%.o,$(sort $(wildcard src/exec/*.c)))

# sql/40_differential.sql is generated (from a fixed seed) before pg_regress
# runs; it is not in the repository.
DIFFERENTIAL = sql/40_differential.sql
REGRESS = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql) $(DIFFERENTIAL)))
REGRESS_OPTS = --inputdir=. --outputdir=test/regress_out
REGRESS_PREP = $(DIFFERENTIAL)

# isolation tests: concurrent sessions (test/isolation/specs/*.spec, run
# by pg_isolation_regress after pg_regress)
ISOLATION = $(patsubst test/isolation/specs/%.spec,%,$(sort $(wildcard test/isolation/specs/*.spec)))
ISOLATION_OPTS = --inputdir=test/isolation --outputdir=test/regress_out/isolation \
	--load-extension=fpbtree

# installcheck also runs the TAP tests (as a user that may run initdb)
TAP_TESTS = 1
PROVE_TESTS = test/t/*.pl

# (before pgxs.mk, which tests it when it is read)
EXTRA_CLEAN = test/regress_out test/tmp_check $(DIFFERENTIAL)

PG_CONFIG ?= pg_config
PG_CPPFLAGS = -I$(srcdir)/src -I$(srcdir)/src/am
# CI (make test) adds -Werror through COPT
PG_CFLAGS = -Wall -Wmissing-prototypes

PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
ifeq ($(PGXS),)
# server headers not installed yet: only the set-up targets below work
all install installcheck:
	@echo "pg_config/pgxs not found: run 'make test' (it installs postgresql-server-dev-15)"; exit 1
else
include $(PGXS)
endif

# pgxs does not track header dependencies
$(filter src/am/%.o,$(OBJS)) src/fpbtree.o: $(wildcard src/am/*.h) src/compat.h
$(filter src/exec/%.o,$(OBJS)) src/fpbtree.o: $(wildcard src/exec/*.h) src/compat.h
$(filter src/exec/%.o,$(OBJS)) src/guc_alias.o: src/guc_alias.h

$(DIFFERENTIAL): test/gen_differential.py
	python3 test/gen_differential.py $@

.PHONY: test bench
# One command: installs what is missing, builds with warnings as errors,
# installs, runs installcheck (pg_regress, then the TAP tests) in throw-away
# clusters.
test:
	test/run_tests.sh

# The pgbench workloads side by side (see bench/README.md).
bench:
	bench/run_bench.sh

