# league: one plain Makefile.
#
#   make            build bin/league (release variant, objects in build/release)
#   make test       build and run every check suite
#   make asan       the same suites under ASan+UBSan (objects in build/asan)
#   make bench      run the benchmarks
#   make docs       regenerate docs/config.md from the config table
#   make clean
#
# Modules are folders; every .c in a module folder is part of libleague.a.
# cli/ and bench/ go into the binary only. A new check suite is found by the
# runner automatically: tests/check_<module>.c exporting
# `Suite *suite_<module>(void)` is all it takes.

VARIANT ?= release
BUILD   := build/$(VARIANT)
CC      ?= cc

PKGS    := libevent lmdb yaml-0.1 openblas check libprotobuf-c

# Install what is missing before anything asks pkg-config (not for clean).
ifeq ($(filter clean,$(MAKECMDGOALS)),)
ifneq ($(shell pkg-config --exists $(PKGS) 2>/dev/null && command -v protoc-c >/dev/null && echo ok),ok)
DEPS_RC := $(shell sh util/deps.sh >&2; echo $$?)
ifneq ($(DEPS_RC),0)
$(error build dependencies missing (see the apt-get line above))
endif
endif
endif

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   := $(shell pkg-config --libs libevent lmdb yaml-0.1 openblas libprotobuf-c)
CHECK_LIBS := $(shell pkg-config --libs check)

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wpointer-arith -Wformat=2 -Wvla \
	-Wno-unused-parameter -Wundef -Wcast-qual
OPT_release := -O2 -g
OPT_asan    := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined
OPT_debug   := -O0 -g
OPT := $(OPT_$(VARIANT))

CPPFLAGS += -I. -isystem $(BUILD)/gen -D_GNU_SOURCE $(PKG_CFLAGS)
CFLAGS   += -std=c11 -pthread $(OPT) $(WARN) -MMD -MP
LDFLAGS  += -pthread $(filter -fsanitize=%,$(OPT))
LDLIBS   += $(PKG_LIBS) -lm

MODULES := util storage envs learner payoff players league net collector
LIB_SRC := $(foreach m,$(MODULES),$(wildcard $(m)/*.c))
BIN_SRC := $(wildcard cli/*.c bench/*.c)
TEST_SRC := $(wildcard tests/*.c)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_REPLAY := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)

# The wire schema is compiled by protoc-c into build/<variant>/gen.
GEN_C    := $(BUILD)/gen/league.pb-c.c
GEN_H    := $(BUILD)/gen/league.pb-c.h
GEN_OBJ  := $(BUILD)/gen/league.pb-c.o

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o) $(GEN_OBJ)
BIN_OBJ  := $(BIN_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
LIB      := $(BUILD)/libleague.a
EXE      := $(BUILD)/bin/league
TESTBIN  := $(BUILD)/check_all

.PHONY: all test asan bench docs fuzz clean
all: bin/league

bin/league: $(EXE)
	@mkdir -p bin
	cp $< $@

$(EXE): $(BIN_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(BIN_OBJ) $(LIB) $(LDLIBS)

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(GEN_C) $(GEN_H) &: net/league.proto
	@mkdir -p $(dir $@)
	protoc-c --c_out=$(BUILD)/gen --proto_path=net net/league.proto

# Generated code is not held to our warning set.
$(GEN_OBJ): $(GEN_C)
	$(CC) $(CPPFLAGS) -std=c11 $(OPT) -MMD -MP -c -o $@ $<

# Any object may include the generated header: build it first, and
# rebuild every object when it changes (it is included through -isystem,
# so -MMD leaves it out of the .d files: an object compiled against the
# old layout of a message would otherwise survive a schema change).
$(filter-out $(GEN_OBJ),$(LIB_OBJ)) $(BIN_OBJ) $(TEST_OBJ): $(GEN_H)

# The suite list is generated from the test sources, so adding a suite
# touches no shared file.
$(BUILD)/tests/suites.h: $(wildcard tests/check_*.c)
	@mkdir -p $(dir $@)
	sed -n 's/^Suite \*suite_\([a-z0-9_]*\)(void).*/SUITE(\1)/p' $^ > $@.tmp
	mv $@.tmp $@

# The learner's elementwise loops need the vectoriser (-O2 leaves them
# scalar; sqrtf with errno semantics keeps Adam scalar too).
$(BUILD)/learner/%.o: CFLAGS += -O3 -fno-math-errno

# Suites export suite_<name> with no header: the runner declares them.
$(TEST_OBJ): CFLAGS += -Wno-missing-prototypes
$(BUILD)/tests/run.o: $(BUILD)/tests/suites.h
$(BUILD)/tests/run.o: CPPFLAGS += -I$(BUILD)/tests

$(TESTBIN): $(TEST_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(TEST_OBJ) $(LIB) $(LDLIBS) $(CHECK_LIBS)

# Suites that drive the binary find it through LEAGUE_BIN.
test: $(TESTBIN) $(EXE) $(FUZZ_REPLAY) $(if $(filter release,$(VARIANT)),bin/league)
	@for f in $(FUZZ_REPLAY); do $$f tests/fuzz/corpus/$$(basename $$f)/* \
	  || exit 1; done
	LEAGUE_BIN=$(abspath $(EXE)) LEAGUE_SRC=$(CURDIR) $(TESTBIN)

asan:
	$(MAKE) VARIANT=asan test

bench: bin/league
	bin/league bench all

# Our PPO update against PyTorch's (needs python3-torch; never in make test).
bench-torch: bin/league
	bench/learner_vs_torch

# Fuzz harnesses (libFuzzer, clang). `make fuzz` builds them all under
# build/fuzz; run one with e.g. build/fuzz/fuzz_config -max_total_time=60.
# `make test` also builds them with a tiny driver so they never rot.
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)
fuzz:
	$(MAKE) VARIANT=fuzz CC=clang \
		OPT_fuzz="-O1 -g -fsanitize=fuzzer-no-link,address,undefined" \
		build/fuzz/libleague.a
	@for f in $(FUZZ_SRC); do n=$$(basename $$f .c); \
	  echo "clang $$f -> build/fuzz/$$n"; \
	  clang $(CPPFLAGS:$(BUILD)/gen=build/fuzz/gen) -Ibuild/fuzz/gen -g -O1 \
	    -fsanitize=fuzzer,address,undefined -o build/fuzz/$$n $$f \
	    build/fuzz/libleague.a $(LDLIBS) || exit 1; done

# The replay driver runs each harness over its seed corpus in make test.
$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/replay.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-prototypes -o $@ $< \
		tests/fuzz/replay.c $(LIB) $(LDFLAGS) $(LDLIBS)


docs: bin/league
	bin/league config doc > docs/config.md

# Training curves for docs/results.md: runs/results-GAME/*.{csv,png}.
# NashConv over time (exact evaluator) for the poker and matrix games;
# games against the baselines for tic-tac-toe and Connect Four. Each runs
# the game's config for its whole budget (rps 1 min, kuhn 5, tictactoe 10,
# leduc and connect4 30); `make results-quick` is the Kuhn curve.
NASHCONV_GAMES := rps kuhn leduc
BASELINE_GAMES := tictactoe connect4

results-quick: results-kuhn

$(addprefix results-,$(NASHCONV_GAMES)): results-%: bin/league
	bin/league run configs/$*.yaml --dir runs/results-$* --overwrite --quiet
	bin/league eval runs/results-$* --format csv > runs/results-$*/$*.csv
	bin/league plot runs/results-$*/$*.csv --x seconds --y nashconv_main,nashconv_league,nashconv_oracle_mix,nashconv_avg --logy --title "$*: NashConv over time" -o runs/results-$*/$*.png

results-tictactoe: STRONG := minimax
results-tictactoe: CURVES := loss_rate_seat0,loss_rate_seat1
results-connect4: STRONG := alphabeta:2
results-connect4: CURVES := win_rate_seat0,win_rate_seat1
$(addprefix results-,$(BASELINE_GAMES)): results-%: bin/league
	bin/league run configs/$*.yaml --dir runs/results-$* --overwrite --quiet
	bin/league eval baselines runs/results-$* --format csv > runs/results-$*/$*-all.csv
	bin/league eval baselines runs/results-$* --baseline $(STRONG) --format csv > runs/results-$*/$*.csv
	bin/league plot runs/results-$*/$*.csv --x seconds --y $(CURVES) --title "$* against $(STRONG)" -o runs/results-$*/$*.png

.PHONY: results-quick $(addprefix results-,$(NASHCONV_GAMES) $(BASELINE_GAMES))

clean:
	rm -rf build bin

-include $(LIB_OBJ:.o=.d) $(BIN_OBJ:.o=.d) $(TEST_OBJ:.o=.d)
