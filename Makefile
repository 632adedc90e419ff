# MixDNN — PGXS build of the extension, plus the simulator, the benchmark,
# the reference launcher and the core's unit tests.

EXTENSION   = mixdnn
# The version being developed; released versions' scripts are frozen in
# sql/versions/ and reached through the upgrade scripts (docs/operations.md).
EXTVERSION  = 0.2.0

MODULE_big  = mixdnn
CORE_SRCS   = $(sort $(wildcard src/core/*.c))
PG_SRCS     = $(sort $(wildcard src/pg/*.c))
CORE_OBJS   = $(CORE_SRCS:.c=.o)
OBJS        = $(PG_SRCS:.c=.o) $(CORE_OBJS)
PG_CPPFLAGS = -Isrc/core -Isrc/pg
SHLIB_LINK  = -lglpk -lm

# The install script is assembled from sql/install/ in file-name order,
# each upgrade script A--B from sql/update/A--B/ likewise.
INSTALL_SQL = $(sort $(wildcard sql/install/*.sql))
UPDATES     = $(notdir $(wildcard sql/update/*--*))
DATA_built  = $(EXTENSION)--$(EXTVERSION).sql $(patsubst %,$(EXTENSION)--%.sql,$(UPDATES))
DATA        = $(wildcard sql/versions/$(EXTENSION)--*.sql)

REGRESS      = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/[0-9]*.sql)))
REGRESS_OPTS = --inputdir=. --outputdir=build/regress

BINS          = bin/mixdnn-sim bin/mixdnn-bench bin/mixdnn-launcher bin/mixdnn
# Installed beside PostgreSQL's programs: the launcher and the users' client.
# The simulator and the benchmark are developer tools, run from bin/ of the
# checkout (docs/operations.md, "What is installed where").
SCRIPTS_built = bin/mixdnn-launcher bin/mixdnn
UNIT_TESTS    = $(patsubst test/unit/%.c,build/unit/%,$(sort $(wildcard test/unit/test_*.c)))
EXTRA_CLEAN   = $(BINS) build src/sim/*.o src/bench/*.o src/launcher/*.o src/cli/*.o src/*/*.d

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

override CFLAGS += -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers

# Header dependencies: PGXS tracks them only in builds configured with
# --enable-depend, and a stale object after a struct change is a silent bug.
override CFLAGS += -MMD -MP
-include $(wildcard src/*/*.d)

# Test builds of the launcher, never installed: one whose parts hang in
# their set-up as root, before exec (test/e2e/t/15_hung_setup.sh), and one
# whose lookup of one owner's account takes 15 s, as a slow directory
# service's may (test/e2e/t/27_slow_lookup.sh).
TEST_LAUNCHERS = build/test/mixdnn-launcher-slow-setup build/test/mixdnn-launcher-slow-lookup

all: $(BINS) $(TEST_LAUNCHERS)

build/test/mixdnn-launcher-slow-setup: LX_TEST_FLAG = -DLX_TEST_SLOW_SETUP
build/test/mixdnn-launcher-slow-lookup: LX_TEST_FLAG = -DLX_TEST_SLOW_LOOKUP
$(TEST_LAUNCHERS): $(wildcard src/launcher/*.c src/launcher/*.h)
	@mkdir -p build/test
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) $(LX_TEST_FLAG) -I$(shell $(PG_CONFIG) --includedir) -o $@ \
		$(wildcard src/launcher/*.c) -L$(shell $(PG_CONFIG) --libdir) -lpq

# Each also depends on its folder, whose time changes when a piece is
# removed or renamed: the script is then assembled again without it.
$(EXTENSION)--$(EXTVERSION).sql: $(INSTALL_SQL) sql/install
	cat $(INSTALL_SQL) > $@

.SECONDEXPANSION:
$(EXTENSION)--%.sql: $$(sort $$(wildcard sql/update/$$*/*.sql)) sql/update/$$*
	cat $(sort $(wildcard sql/update/$*/*.sql)) > $@

# pg_regress writes its results here; a clean checkout has no such folder.
installcheck: | build/regress
build/regress:
	mkdir -p $@

# Stand-alone programs share the core objects the extension is built from.
TOOL_CFLAGS = $(CFLAGS) -Isrc/core -Isrc/sim
bin/mixdnn-sim: $(patsubst %.c,%.o,$(wildcard src/sim/*.c)) $(CORE_OBJS)
	@mkdir -p bin
	$(CC) $(TOOL_CFLAGS) -o $@ $^ -lglpk -lm

bin/mixdnn-bench: $(patsubst %.c,%.o,$(wildcard src/bench/*.c)) $(filter-out src/sim/main.o,$(patsubst %.c,%.o,$(wildcard src/sim/*.c))) $(CORE_OBJS)
	@mkdir -p bin
	$(CC) $(TOOL_CFLAGS) -o $@ $^ -lglpk -lm

bin/mixdnn-launcher: $(patsubst %.c,%.o,$(wildcard src/launcher/*.c))
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $^ -L$(shell $(PG_CONFIG) --libdir) -lpq

bin/mixdnn: $(patsubst %.c,%.o,$(wildcard src/cli/*.c))
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $^ -L$(shell $(PG_CONFIG) --libdir) -lpq

src/sim/%.o: src/sim/%.c
	$(CC) $(TOOL_CFLAGS) -c -o $@ $<
src/bench/%.o: src/bench/%.c
	$(CC) $(TOOL_CFLAGS) -c -o $@ $<
src/launcher/%.o: src/launcher/%.c
	$(CC) $(CFLAGS) -I$(shell $(PG_CONFIG) --includedir) -c -o $@ $<
src/cli/%.o: src/cli/%.c
	$(CC) $(CFLAGS) -I$(shell $(PG_CONFIG) --includedir) -c -o $@ $<

# The simulator's CSV reader is not in the core: its test links it alone.
build/unit/test_csv: test/unit/test_csv.c test/unit/unit.h src/sim/csv.o
	@mkdir -p build/unit
	$(CC) $(CFLAGS) -Isrc/sim -Itest/unit -o $@ $< src/sim/csv.o -lm

# The launcher's relay of job output into its log: plain C, no libpq.
build/unit/test_relay: test/unit/test_relay.c test/unit/unit.h src/launcher/relay.o src/launcher/log.o
	@mkdir -p build/unit
	$(CC) $(CFLAGS) -Isrc/launcher -Itest/unit -o $@ $< src/launcher/relay.o src/launcher/log.o

# The launcher's GPU index lists: plain C.
build/unit/test_gpulist: test/unit/test_gpulist.c test/unit/unit.h src/launcher/gpulist.o
	@mkdir -p build/unit
	$(CC) $(CFLAGS) -Isrc/launcher -Itest/unit -o $@ $< src/launcher/gpulist.o

# The launcher's launch tokens, as claims and socket names carry them.
build/unit/test_token: test/unit/test_token.c test/unit/unit.h src/launcher/job.o src/launcher/log.o
	@mkdir -p build/unit
	$(CC) $(CFLAGS) -Isrc/launcher -Itest/unit -o $@ $< src/launcher/job.o src/launcher/log.o

# The launcher's adoption of keepers and its choice of a launch's: plain C,
# the launcher's objects but main.o and db.o (no libpq).
LX_ADOPT_OBJS = $(patsubst %,src/launcher/%.o,proc keeper tree pidsig account command relay safepath gpulist job log signals)
build/unit/test_adopt: test/unit/test_adopt.c test/unit/unit.h $(LX_ADOPT_OBJS)
	@mkdir -p build/unit
	$(CC) $(CFLAGS) -Isrc/launcher -Itest/unit -o $@ $< $(LX_ADOPT_OBJS)

# The launcher's signals to pids it found, and to a part's process tree: plain C.
LX_PIDSIG_OBJS = $(patsubst %,src/launcher/%.o,pidsig tree log)
build/unit/test_pidsig: test/unit/test_pidsig.c test/unit/unit.h $(LX_PIDSIG_OBJS)
	@mkdir -p build/unit
	$(CC) $(CFLAGS) -Isrc/launcher -Itest/unit -o $@ $< $(LX_PIDSIG_OBJS) -pthread

build/unit/%: test/unit/%.c test/unit/unit.h $(CORE_OBJS)
	@mkdir -p build/unit
	$(CC) $(CFLAGS) -Isrc/core -Itest/unit -o $@ $< $(CORE_OBJS) -lglpk -lm

.PHONY: unitcheck
unitcheck: $(UNIT_TESTS)
	@bash test/unit/run.sh $(UNIT_TESTS)
	@bash tools/mutate.sh -n

.PHONY: simcheck eval eval-opt eval-fresh
simcheck: bin/mixdnn-sim
	bash test/sim/run.sh bin/mixdnn-sim

# Regenerates docs/evaluation.md (96 minutes on 2 cores shared with other work, most of it the 27 Gavel runs of mixdnn under log-normal estimates, 2-33 minutes each; EVAL_KEEP=1 resumes a stopped run; QUICK=1: a few minutes)
# and then docs/optimizer-evaluation.md, the component ablations (not with QUICK=1).
eval: bin/mixdnn-sim
	bash tools/evaluate.sh
	[ "$${QUICK:-0}" = 1 ] || sh tools/opt_report.sh

# Regenerates docs/optimizer-evaluation.md, the optimizer's ablations (about 10 minutes on 2 cores).
eval-opt: bin/mixdnn-sim
	sh tools/opt_report.sh

# The out-of-sample workloads (tools/fresh_workloads.py): each comparator,
# mixdnn and mixdnn --no-milp on 24 workloads x 3 seeds, about 15 minutes
# on two cores; prints the tables of docs/model.md, table R2.
eval-fresh: bin/mixdnn-sim
	sh tools/fresh_bench.sh
