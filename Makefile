# league: one plain Makefile.
#
#   make            build bin/league (release variant, objects in build/release)
#   make test       build and run every check suite
#   make asan       the same suites under ASan+UBSan (objects in build/asan)
#   make bench      run the benchmarks
#   make browser-test / browser-bench   the page in headless Chromium
#   make test-cluster   a league across network namespaces over TLS (root)
#   make test-deploy    deploy/'s files checked by real tools (root)
#   make test-play      a human game of `league play` in tmux
#   make test-disk      a league on a full disk: clean stop, resume (root)
#   make fuzz       the libFuzzer harnesses with clang (build/fuzz/fuzz_*;
#                   docs/fuzzing.md)
#   make examples   the example game plugins (build/<variant>/examples/*.so;
#                   examples/goofspiel/goofspiel.so for configs/goofspiel.yaml)
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

# cairo draws `league plot` (cli/plot.c), finding its font through
# fontconfig (called once, to free its caches before exit); only that file
# and the plot test compile against them, and only the binary and the test
# runner (which reads the plots back) link them: libleague.a and the fuzz
# harnesses, which link the library alone, do not.
PLOT_PKGS := cairo fontconfig
PKGS    := libevent libevent_openssl openssl lmdb yaml-0.1 openblas check libprotobuf-c $(PLOT_PKGS)
# The font cli/plot.c asks fontconfig for ("sans-serif") on Debian.
PLOT_FONT := /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf

# Install what is missing before anything asks pkg-config (not for clean).
ifeq ($(filter clean,$(MAKECMDGOALS)),)
ifneq ($(shell pkg-config --exists $(PKGS) 2>/dev/null && test -e $(PLOT_FONT) && command -v protoc-c >/dev/null && command -v protoc >/dev/null && command -v ctags-universal >/dev/null && /usr/bin/python3 -c 'import numpy, scipy, google.protobuf' 2>/dev/null && echo ok),ok)
DEPS_RC := $(shell sh util/deps.sh >&2; echo $$?)
ifneq ($(DEPS_RC),0)
$(error build dependencies missing (see the apt-get line above))
endif
endif
endif

PKG_CFLAGS := $(shell pkg-config --cflags $(filter-out $(PLOT_PKGS),$(PKGS)))
PKG_LIBS   := $(shell pkg-config --libs libevent libevent_openssl openssl lmdb yaml-0.1 openblas libprotobuf-c)
CHECK_LIBS := $(shell pkg-config --libs check)
PLOT_CFLAGS := $(shell pkg-config --cflags $(PLOT_PKGS))
PLOT_LIBS  := $(shell pkg-config --libs $(PLOT_PKGS))

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wpointer-arith -Wformat=2 -Wvla \
	-Wno-unused-parameter -Wundef -Wcast-qual
OPT_release := -O2 -g
OPT_asan    := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined
OPT_debug   := -O0 -g
# Coverage for libFuzzer in every object; UB aborts so the fuzzer sees it.
OPT_fuzz    := -O1 -g -fno-omit-frame-pointer \
	-fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=undefined
OPT := $(OPT_$(VARIANT))

CPPFLAGS += -I. -isystem $(BUILD)/gen -D_GNU_SOURCE $(PKG_CFLAGS)
CFLAGS   += -std=c11 -pthread $(OPT) $(WARN) -MMD -MP
LDFLAGS  += -pthread $(filter -fsanitize=%,$(OPT))
LDLIBS   += $(PKG_LIBS) -lm

MODULES := util storage envs learner payoff players net collector conf server eval league workers
LIB_SRC := $(foreach m,$(MODULES),$(wildcard $(m)/*.c))
BIN_SRC := $(wildcard cli/*.c bench/*.c)
TEST_SRC := $(wildcard tests/*.c)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
# Harness binaries (see "Fuzz harnesses" below): libFuzzer's main in the
# clang variant `make fuzz` builds, tests/fuzz/replay.c in the others.
ifeq ($(VARIANT),fuzz)
FUZZ_DIR  := $(BUILD)
FUZZ_MAIN := -fsanitize=fuzzer
else
FUZZ_DIR  := $(BUILD)/fuzz
FUZZ_MAIN := tests/fuzz/replay.c
endif
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(FUZZ_DIR)/%)

# The wire schemas (net/league.proto between league's processes,
# net/game.proto to remote game servers) are compiled by protoc-c into
# build/<variant>/gen, and game.proto by protoc into the Python package.
PROTOS   := league game
GEN_C    := $(PROTOS:%=$(BUILD)/gen/%.pb-c.c)
GEN_H    := $(PROTOS:%=$(BUILD)/gen/%.pb-c.h)
GEN_OBJ  := $(PROTOS:%=$(BUILD)/gen/%.pb-c.o)
PY_GEN   := python/league_game/game_pb2.py

# The live page's files (web/), embedded into the library as C arrays.
WEB_SRC  := $(sort $(wildcard web/*))
WEB_OBJ  := $(BUILD)/gen/web_assets.o

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o) $(GEN_OBJ) $(WEB_OBJ)
BIN_OBJ  := $(BIN_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
LIB      := $(BUILD)/libleague.a
EXE      := $(BUILD)/bin/league
TESTBIN  := $(BUILD)/check_all

.PHONY: same-bits all test asan test-cluster test-deploy test-play test-disk browser-test browser-bench bench bench-full bench-deps docs fuzz clean examples
all: bin/league $(PY_GEN)

# Copied beside and renamed over, so a league still running the old
# binary does not stop the build ("Text file busy").
bin/league: $(EXE)
	@mkdir -p bin
	cp $< $@.tmp && mv -f $@.tmp $@

$(EXE): $(BIN_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(BIN_OBJ) $(LIB) $(LDLIBS) $(PLOT_LIBS)

$(BUILD)/cli/plot.o $(BUILD)/tests/check_plot.o: CPPFLAGS += $(PLOT_CFLAGS)

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# clang, unlike gcc, warns about a cast inside a system header's macro when
# the macro expands in our file (it judges the expansion's place, not the
# spelling's). Every protoc-c *__INIT macro casts protobuf_c_empty_string's
# const away, so -Wcast-qual -Werror failed each file that initialises a
# message. Rather than drop -Wcast-qual for those files, the clang build
# wraps exactly that cast in a _Pragma that silences exactly that warning;
# a cast of our own in the same line still warns. gcc gets protoc-c's
# output untouched (it rejects a _Pragma inside an expression).
CC_IS_CLANG := $(shell $(CC) --version 2>/dev/null | grep -q clang && echo 1)
PB_CAST := (char \*)protobuf_c_empty_string
PB_QUIET := _Pragma("clang diagnostic push") \
	_Pragma("clang diagnostic ignored \\"-Wcast-qual\\"") \
	& _Pragma("clang diagnostic pop")

$(BUILD)/gen/%.pb-c.c $(BUILD)/gen/%.pb-c.h &: net/%.proto
	@mkdir -p $(dir $@)
	protoc-c --c_out=$(BUILD)/gen --proto_path=net $<
	$(if $(CC_IS_CLANG),sed -i 's/$(PB_CAST)/$(PB_QUIET)/g' $(BUILD)/gen/$*.pb-c.h)

# Generated code is not held to our warning set.
$(BUILD)/gen/%.pb-c.o: $(BUILD)/gen/%.pb-c.c
	$(CC) $(CPPFLAGS) -std=c11 $(OPT) -MMD -MP -c -o $@ $<

$(BUILD)/gen/web_assets.c: util/embed.sh $(WEB_SRC)
	@mkdir -p $(dir $@)
	sh util/embed.sh $(WEB_SRC) > $@.tmp && mv $@.tmp $@

$(WEB_OBJ): $(BUILD)/gen/web_assets.c server/web.h
	$(CC) $(CPPFLAGS) -std=c11 $(OPT) -c -o $@ $<

$(PY_GEN): net/game.proto
	protoc --python_out=python/league_game --proto_path=net $<

# Any object may include the generated header: build it first, and
# rebuild every object when it changes (it is included through -isystem,
# so -MMD leaves it out of the .d files: an object compiled against the
# old layout of a message would otherwise survive a schema change).
$(filter-out $(GEN_OBJ) $(WEB_OBJ),$(LIB_OBJ)) $(BIN_OBJ) $(TEST_OBJ): $(GEN_H)

# The suite list is generated from the test sources, so adding a suite
# touches no shared file.
$(BUILD)/tests/suites.h: $(wildcard tests/check_*.c)
	@mkdir -p $(dir $@)
	sed -n 's/^Suite \*suite_\([a-z0-9_]*\)(void).*/SUITE(\1)/p' $^ > $@.tmp
	mv $@.tmp $@

# The learner's elementwise loops need the vectoriser (-O2 leaves them
# scalar; sqrtf with errno semantics keeps Adam scalar too).
$(BUILD)/learner/%.o: CFLAGS += -O3 -fno-math-errno
# vmath.c's loops alone may call glibc's vector math (libmvec), which
# glibc declares only under -ffast-math (learner/vmath.c says why).
$(BUILD)/learner/vmath.o: CFLAGS += -ffast-math

# Suites export suite_<name> with no header: the runner declares them.
$(TEST_OBJ): CFLAGS += -Wno-missing-prototypes
$(BUILD)/tests/run.o: $(BUILD)/tests/suites.h
$(BUILD)/tests/run.o: CPPFLAGS += -I$(BUILD)/tests

# The flag parser (cli/args.c) is the one piece of the binary the runner
# (tests/check_args.c) and a harness (fuzz_args) link: it needs util/ only.
CLI_ARGS_OBJ := $(BUILD)/cli/args.o

$(TESTBIN): $(TEST_OBJ) $(LIB) $(CLI_ARGS_OBJ)
	$(CC) $(LDFLAGS) -o $@ $(TEST_OBJ) $(CLI_ARGS_OBJ) $(LIB) $(LDLIBS) \
		$(CHECK_LIBS) $(PLOT_LIBS)

# Game plugins (envs/league_game.h): shared objects built with this
# variant's flags (so the ASan suites load instrumented plugins), hidden
# symbols but league_game(). The tic-tac-toe plugin is envs/'s own game
# code, for `league bench env --plugin`.
PLUGIN_FLAGS := $(filter-out -MMD -MP,$(CFLAGS)) -fPIC -shared \
	-fvisibility=hidden -Ienvs
PLUGIN_TTT_SRC := examples/tictactoe/tictactoe.c envs/abi.c envs/board.c \
	envs/gamekit.c envs/matrix.c envs/poker.c envs/timing.c util/err.c \
	util/rng.c util/misc.c
EXAMPLE_SO := $(BUILD)/examples/goofspiel.so $(BUILD)/examples/tictactoe.so \
	$(BUILD)/examples/bad_abi.so $(BUILD)/examples/bad_sizes.so \
	$(BUILD)/examples/no_entry.so $(BUILD)/examples/bad_returns.so \
	$(BUILD)/examples/bad_mask.so $(BUILD)/examples/crashy.so \
	$(BUILD)/examples/segv_step.so $(BUILD)/examples/goofspiel_v1.so \
	$(BUILD)/examples/bad_team.so

$(BUILD)/examples/goofspiel.so: examples/goofspiel/goofspiel.c \
		envs/league_game.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PLUGIN_FLAGS) -o $@ $<

$(BUILD)/examples/tictactoe.so: $(PLUGIN_TTT_SRC) $(wildcard envs/*.h util/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PLUGIN_FLAGS) -o $@ $(PLUGIN_TTT_SRC) -lm

# A game ABI version 1 plugin, built against the version 1 header as it
# was (tests/plugins/v1/): the league must keep loading it unchanged.
$(BUILD)/examples/goofspiel_v1.so: tests/plugins/v1/goofspiel_v1.c \
		tests/plugins/v1/league_game.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PLUGIN_FLAGS:-Ienvs=-Itests/plugins/v1) -o $@ $<

# Plugins the tests expect to be refused (tests/plugins/bad.c).
$(BUILD)/examples/bad_abi.so $(BUILD)/examples/bad_sizes.so \
$(BUILD)/examples/no_entry.so $(BUILD)/examples/bad_returns.so \
$(BUILD)/examples/bad_mask.so $(BUILD)/examples/crashy.so \
$(BUILD)/examples/segv_step.so $(BUILD)/examples/bad_team.so: \
		$(BUILD)/examples/%.so: tests/plugins/bad.c \
		envs/league_game.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PLUGIN_FLAGS) \
	  -D$(shell echo $* | tr a-z A-Z) -o $@ $<

# The copy configs/goofspiel.yaml names: plain flags, whatever the
# variant, so every build of bin/league can load it.
examples/goofspiel/goofspiel.so: examples/goofspiel/goofspiel.c \
		envs/league_game.h
	$(CC) -std=c11 -O2 -g $(WARN) -fPIC -shared -fvisibility=hidden \
	  -Ienvs -o $@ $<

examples: $(EXAMPLE_SO) examples/goofspiel/goofspiel.so

# Suites that drive the binary find it through LEAGUE_BIN, the plugins
# through LEAGUE_EXAMPLES.
test: $(TESTBIN) $(EXE) $(FUZZ_BIN) $(BUILD)/fuzz/seeds $(EXAMPLE_SO) $(PY_GEN) \
		examples/goofspiel/goofspiel.so \
		$(if $(filter release,$(VARIANT)),bin/league)
	@for f in $(FUZZ_BIN); do $$f tests/fuzz/corpus/$$(basename $$f)/* \
	  || exit 1; done
	@python3 tests/layers.py $(BUILD)
	@! python3 tests/layers.py $(BUILD) --allow /dev/null >/dev/null || \
	  { echo "layers: the check found no arrow without its allow-list"; \
	    exit 1; }
	@sed 's/^| `state.c` | 0 |/| `state.c` | 9 |/' docs/architecture.md \
	  > $(BUILD)/layers_map.md
	@! python3 tests/layers.py $(BUILD) --map $(BUILD)/layers_map.md \
	  >/dev/null || { echo "layers: the check found no upward call with" \
	  "collector/state.c put on top of the collector"; exit 1; }
	@python3 tests/sizes.py
	@! python3 tests/sizes.py --funcs 10 >/dev/null || \
	  { echo "sizes: the check found no function over 10 lines"; exit 1; }
	LEAGUE_BIN=$(abspath $(EXE)) LEAGUE_SRC=$(CURDIR) \
	  LEAGUE_EXAMPLES=$(abspath $(BUILD)/examples) $(TESTBIN)

asan:
	$(MAKE) VARIANT=asan test

# The live page in headless Chromium (tests/browser/page_test.sh): the DOM
# a running league and `league inspect` render, a clean console, and a
# screenshot of each into build/screenshots (docs/screenshots holds the
# committed ones). Installs chromium when it is missing (util/deps.sh browser).
# A league on three network namespaces over mutual TLS: partition, kill -9
# and resume, refused certificates (tests/cluster/cluster_test.sh; root).
test-cluster: bin/league
	@command -v ip >/dev/null && command -v curl >/dev/null || \
	  sh util/deps.sh cluster
	tests/cluster/cluster_test.sh bin/league build/cluster

# A human game of `league play` driven through tmux: the board, the legal
# moves, refusals with their reason, the result (tests/play/human_test.sh;
# the transcript goes to build/play/human-game.txt).
# The same deterministic leagues built at git revision REV and by this
# tree end with the same bits (two-player games unchanged by a change).
same-bits: bin/league
	@test -n "$(REV)" || { echo "usage: make same-bits REV=<git revision>"; exit 2; }
	tests/same_bits/same_bits.sh $(REV)

test-play: bin/league
	@command -v tmux >/dev/null || sh util/deps.sh play
	tests/play/human_test.sh bin/league build/play

# A league whose file system fills up: a clean stop naming it, the store
# read back and replayed, --resume once there is room
# (tests/disk/enospc_test.sh; root: a small tmpfs).
test-disk: bin/league
	tests/disk/enospc_test.sh bin/league build/disk

# Every file under deploy/ checked by a real tool: systemd-analyze, a
# single-node Slurm, the Kubernetes API's types, the image's libraries
# (tests/deploy/deploy_test.sh; root).
test-deploy: bin/league
	@command -v systemd-analyze >/dev/null && command -v kubectl >/dev/null && \
	  command -v slurmctld >/dev/null && command -v munged >/dev/null && \
	  /usr/bin/python3 -c 'import kubernetes, yaml' 2>/dev/null || \
	  sh util/deps.sh deploy
	tests/deploy/deploy_test.sh bin/league build/deploy

browser-test: bin/league
	@command -v chromium >/dev/null && command -v curl >/dev/null || \
	  sh util/deps.sh browser
	tests/browser/page_test.sh bin/league build/screenshots

# The heatmap of a 1,000-player league drawn in headless Chromium (goal:
# <= 1 s), after `league bench payoff` on the same league (goal: <= 50 ms);
# docs/benchmarks.md. A screenshot into build/screenshots.
browser-bench: bin/league
	@command -v chromium >/dev/null && command -v curl >/dev/null || \
	  sh util/deps.sh browser
	@mkdir -p build/screenshots
	tests/browser/heatmap_bench.sh bin/league 1000 build/screenshots/heatmap-1000.png

# `make bench`: every benchmark on its quick workload, about 6 minutes
# (docs/benchmarks.md has each command's figures). `make bench-full`: the
# long rows too (every collector workload and mode, Big at time scale 0.1,
# about 40 minutes). The Python peer of --real-inference needs
# python3-numpy (installed here when root).
bench: bin/league bench-deps $(PY_GEN) $(BUILD)/examples/tictactoe.so
	bin/league bench env
	bin/league bench env --plugin $(BUILD)/examples/tictactoe.so
	bin/league bench env --remote
	bin/league bench matchmaking
	bin/league bench learner
	bin/league bench learner --threads 2
	bin/league bench collector --env small --mode async
	bin/league bench collector --env small --mode async --real-inference
	bin/league bench daemon
	bin/league bench pipeline
	bin/league bench payoff

bench-full: bench
	bin/league bench collector --env small
	bin/league bench collector --env middle
	bin/league bench collector --env big --time-scale 0.1
	bin/league bench collector --env small --devices 0
	bin/league bench collector --env small --mode async --real-inference --time-scale 0.005

bench-deps:
	@/usr/bin/python3 -c 'import numpy' 2>/dev/null || \
	  { [ "$$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-numpy >&2; } || \
	  { echo "league: the collector benchmark's Python peer needs: apt-get install -y python3-numpy" >&2; exit 1; }

# Our PPO update against PyTorch's (needs python3-torch; never in make test).
bench-torch: bin/league
	bench/learner_vs_torch

# Fuzz harnesses: tests/fuzz/fuzz_NAME.c defines LLVMFuzzerTestOneInput
# and has its seed corpus in tests/fuzz/corpus/fuzz_NAME/. Every variant
# links each with tests/fuzz/replay.c, a main that runs it over files, and
# `make test` replays the corpora, so the harnesses never rot. `make fuzz`
# is the clang variant (objects instrumented by OPT_fuzz) whose harnesses
# link libFuzzer's main instead: build/fuzz/fuzz_NAME, e.g.
#   build/fuzz/fuzz_config -max_total_time=60 DIR tests/fuzz/corpus/fuzz_config
# (libFuzzer writes what it finds into the first directory it is given).
$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c \
		$(wildcard tests/fuzz/*.h) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-prototypes -o $@ $< \
		$(FUZZ_MAIN) $(FUZZ_EXTRA) $(LIB) $(LDFLAGS) $(LDLIBS)

$(FUZZ_DIR)/fuzz_args: $(CLI_ARGS_OBJ)
$(FUZZ_DIR)/fuzz_args: FUZZ_EXTRA := $(CLI_ARGS_OBJ)

fuzz:
	$(MAKE) VARIANT=fuzz CC=clang fuzz-bin

fuzz-bin: $(FUZZ_BIN)

# Run every harness for FUZZ_SECONDS (two at a time under -j2): new inputs
# go to build/fuzz/corpus/NAME (the seeds in tests/fuzz/corpus stay as
# they are), a crash to build/fuzz/crash/NAME/, the log to
# build/fuzz/NAME.log; each prints its exec count, rate and corpus size.
# `make fuzz-merge` then adds to tests/fuzz/corpus only the new inputs
# that reach new coverage (libFuzzer's -merge=1), to commit.
FUZZ_SECONDS ?= 60
FUZZ_NAMES := $(FUZZ_SRC:tests/fuzz/%.c=%)

fuzz-run: fuzz
	@$(MAKE) --no-print-directory $(FUZZ_NAMES:%=fuzz-run-%)

$(FUZZ_NAMES:%=fuzz-run-%): fuzz-run-%:
	@mkdir -p build/fuzz/corpus/$* build/fuzz/crash/$*
	@echo "fuzz: $* for $(FUZZ_SECONDS) s (log build/fuzz/$*.log)"
	@build/fuzz/$* -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
	  -print_final_stats=1 -artifact_prefix=build/fuzz/crash/$*/ \
	  build/fuzz/corpus/$* tests/fuzz/corpus/$* >build/fuzz/$*.log 2>&1 \
	  || { tail -n 40 build/fuzz/$*.log; echo "fuzz: $* FAILED"; exit 1; }
	@awk -v n=$* '/corp: /{c=$$0; sub(/.*corp: /,"",c); sub(/ .*/,"",c)} \
	  /number_of_executed_units/{e=$$2} /average_exec_per_sec/{r=$$2} \
	  END{printf "fuzz: %s: %s execs, %s/s, corpus %s (files/bytes)\n", \
	  n, e, r, c}' build/fuzz/$*.log

fuzz-merge: fuzz
	@for n in $(FUZZ_NAMES); do mkdir -p build/fuzz/corpus/$$n; \
	  build/fuzz/$$n -merge=1 tests/fuzz/corpus/$$n build/fuzz/corpus/$$n \
	    >build/fuzz/$$n.merge.log 2>&1 || { tail -n 20 \
	    build/fuzz/$$n.merge.log; exit 1; }; \
	  echo "fuzz-merge: $$n: $$(ls tests/fuzz/corpus/$$n | wc -l) files"; \
	done

# The seeds of the binary-record harnesses come from the library's own
# encoders (tests/fuzz/seeds.c); `make test` builds the generator so it
# keeps up with them, `make fuzz-seeds` rewrites the seed files.
$(BUILD)/fuzz/seeds: tests/fuzz/seeds.c $(wildcard tests/fuzz/*.h) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS)

fuzz-seeds: $(BUILD)/fuzz/seeds
	$< tests/fuzz/corpus

.PHONY: fuzz-bin fuzz-seeds fuzz-run fuzz-merge $(FUZZ_NAMES:%=fuzz-run-%)

docs: bin/league
	bin/league config doc > docs/config.md

# Training curves for docs/results.md: runs/results-GAME/*.{csv,png}.
# NashConv over time (exact evaluator) for the poker and matrix games;
# games against the baselines for tic-tac-toe and Connect Four. Each runs
# the game's config for its whole budget (rps 1 min, kuhn 5, tictactoe 10,
# leduc, leduc-selfplay, leduc-mmd and connect4 30); `make results-quick` is the
# Kuhn curve.
NASHCONV_GAMES := rps kuhn leduc leduc-selfplay leduc-mmd
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

# Connect Four held out, AlphaZero-style (issue 17): configs/connect4-az.yaml
# for its 30 minutes, then the newest nine stored versions against
# alpha-beta depth 2 as the raw policy and as the search agent (256
# simulations, the first 4 moves sampled, 200 games a seat), plain and
# with four versions' weights averaged; then the curve over the run
# (every stored version: the snapshots and the newest, 50 games a seat)
# and the last version against depths 1, 3 and 4. docs/results.md.
AZ_DIR  := runs/results-connect4-az
AZ_EVAL := bin/league eval search configs/connect4-az.yaml --dir $(AZ_DIR) \
	--sims 256 --sample-moves 4 --seed 99
results-connect4-az: bin/league
	bin/league run configs/connect4-az.yaml --dir $(AZ_DIR) --overwrite --quiet
	bin/league eval baselines $(AZ_DIR) --format csv > $(AZ_DIR)/all.csv
	$(AZ_EVAL) --against alphabeta:2 --games 200 --last 9 > $(AZ_DIR)/search.txt
	$(AZ_EVAL) --against alphabeta:2 --games 200 --last 9 --average 4 \
		> $(AZ_DIR)/search-avg4.txt
	$(AZ_EVAL) --against alphabeta:2 --games 50 > $(AZ_DIR)/curve.txt
	for d in 1 3 4; do $(AZ_EVAL) --against alphabeta:$$d --games 50 \
		--last 1 > $(AZ_DIR)/depth$$d.txt || exit 1; done
	cat $(AZ_DIR)/search.txt $(AZ_DIR)/search-avg4.txt

# The recurrent core on Leduc (issue 17): the MLP with the history in its
# observation (configs/leduc.yaml), the recurrent net without it
# (leduc-recurrent) and the MLP without it (leduc-short), 30 minutes each,
# run at once so the three share the machine alike; then the NashConv
# of the main player and of its average policy, the three runs' curves
# in one CSV and one plot each.
MEMORY_RUNS := leduc leduc-recurrent leduc-short
results-leduc-memory: bin/league
	for c in $(MEMORY_RUNS); do \
		bin/league run configs/$$c.yaml --dir runs/results-$$c \
			--overwrite --quiet & \
	done; wait
	for c in $(MEMORY_RUNS); do \
		bin/league eval runs/results-$$c --format csv \
			> runs/results-$$c/$$c.csv || exit 1; \
	done
	for y in main avg; do \
		python3 util/join_curves.py --x seconds --y nashconv_$$y \
			mlp_history=runs/results-leduc/leduc.csv \
			gru_short=runs/results-leduc-recurrent/leduc-recurrent.csv \
			mlp_short=runs/results-leduc-short/leduc-short.csv \
			> runs/results-leduc-memory-$$y.csv || exit 1; \
		bin/league plot runs/results-leduc-memory-$$y.csv --x seconds \
			--y mlp_history,gru_short,mlp_short --logy \
			--title "leduc: nashconv_$$y, memory against history" \
			-o runs/results-leduc-memory-$$y.png || exit 1; \
	done
	python3 util/join_curves.py --x env_steps --y nashconv_avg \
		mlp_history=runs/results-leduc/leduc.csv \
		gru_short=runs/results-leduc-recurrent/leduc-recurrent.csv \
		mlp_short=runs/results-leduc-short/leduc-short.csv \
		> runs/results-leduc-memory-steps.csv
	bin/league plot runs/results-leduc-memory-steps.csv --x env_steps \
		--y mlp_history,gru_short,mlp_short --logy \
		--title "leduc: nashconv_avg by env steps" \
		-o runs/results-leduc-memory-steps.png

# The figures of docs/results.md redrawn from the CSVs committed beside
# them (docs/results/*.csv), with the arguments each was first drawn with:
# the results-* commands above, and the titles of the earlier and held-out
# runs. No league runs; only the drawing changes when league plot does.
RESULTS   := docs/results
PLOT_CSV  = bin/league plot $(RESULTS)/$$f.csv --x seconds
NASHCONV_Y := nashconv_main,nashconv_league,nashconv_oracle_mix,nashconv_avg

results-figures: bin/league
	for f in kuhn leduc rps leduc-selfplay leduc-mmd; do $(PLOT_CSV) --y $(NASHCONV_Y) --logy \
	  --title "$$f: NashConv over time" -o $(RESULTS)/$$f.png || exit 1; done
	f=leduc-mmd-seed2; $(PLOT_CSV) --y $(NASHCONV_Y) --logy \
	  --title "leduc-mmd, seed 2: NashConv over time" -o $(RESULTS)/$$f.png
	for g in kuhn leduc; do f=$$g-nomagnet; $(PLOT_CSV) \
	  --y nashconv_main,nashconv_league --logy \
	  --title "$$g: NashConv over time" -o $(RESULTS)/$$f.png || exit 1; done
	for f in tictactoe tictactoe-run1 tictactoe-run2 tictactoe-run3 \
	  tictactoe-run5; do $(PLOT_CSV) --y loss_rate_seat0,loss_rate_seat1 \
	  --title "tictactoe against minimax" -o $(RESULTS)/$$f.png || exit 1; done
	f=tictactoe-random; $(PLOT_CSV) --y loss_rate_seat0,loss_rate_seat1 \
	  --title "tictactoe vs minimax, trained vs random" -o $(RESULTS)/$$f.png
	for f in connect4 connect4-run1 connect4-run2; do $(PLOT_CSV) \
	  --y win_rate_seat0,win_rate_seat1 \
	  --title "connect4 against alphabeta:2" -o $(RESULTS)/$$f.png || exit 1; done
	f=connect4-heldout; $(PLOT_CSV) --y win_rate_seat0,win_rate_seat1 \
	  --title "alphabeta:2, trained on depths 1+3" -o $(RESULTS)/$$f.png
	for y in main avg; do f=leduc-memory-$$y; $(PLOT_CSV) \
	  --y mlp_history,gru_short,mlp_short --logy \
	  --title "leduc: nashconv_$$y, memory against history" \
	  -o $(RESULTS)/$$f.png || exit 1; done
	f=leduc-memory-steps; bin/league plot $(RESULTS)/$$f.csv --x env_steps \
	  --y mlp_history,gru_short,mlp_short --logy \
	  --title "leduc: nashconv_avg by env steps" -o $(RESULTS)/$$f.png
	f=kuhn3; $(PLOT_CSV) --y nashconv_main,nashconv_league,nashconv_avg \
	  --logy --title "3-player Kuhn: NashConv over time" -o $(RESULTS)/$$f.png

# Approximate exploitability by a trained best response (issue 21;
# docs/results.md "Best response"): a short league of each game (its
# config with BR_LEAGUE_S seconds of budget), then `league eval br`
# against its main player (player 0, the newest version) for BR_S
# seconds, and on the poker games against the league's meta-Nash mixture
# and its first snapshot (the untrained net) too, with the exact NashConv
# as a column there. runs/results-br/GAME-WHO.{csv,png}; about 30
# minutes in all, one run at a time. Not part of `make test`.
BR_GAMES := kuhn leduc tictactoe connect4
results-br-kuhn: BR_LEAGUE_S := 60
results-br-kuhn: BR_S := 60
results-br-leduc: BR_LEAGUE_S := 180
results-br-leduc: BR_S := 120
results-br-tictactoe: BR_LEAGUE_S := 180
results-br-tictactoe: BR_S := 180
results-br-connect4: BR_LEAGUE_S := 300
results-br-connect4: BR_S := 300
results-br-kuhn results-br-leduc: BR_WHO := 0 nash 1
results-br-kuhn results-br-leduc: BR_Y := nashconv,ci_low,ci_high,exact_nashconv
results-br-tictactoe results-br-connect4: BR_WHO := 0
# Poker episodes cost microseconds: many, for a tight interval.
results-br-kuhn results-br-leduc: BR_EVAL := --episodes 20000 --final-episodes 400000
results-br-tictactoe: BR_EVAL := --episodes 10000 --final-episodes 100000
results-br-connect4: BR_EVAL := --episodes 2000 --final-episodes 20000
results-br-tictactoe results-br-connect4: BR_Y := nashconv,ci_low,ci_high
results-br: $(addprefix results-br-,$(BR_GAMES))
$(addprefix results-br-,$(BR_GAMES)): results-br-%: bin/league
	@mkdir -p runs/results-br
	sed 's/^  seconds: .*/  seconds: $(BR_LEAGUE_S)/' configs/$*.yaml > runs/results-br/$*.yaml
	bin/league run runs/results-br/$*.yaml --dir runs/results-br/$* --overwrite --quiet
	for p in $(BR_WHO); do \
		bin/league eval br runs/results-br/$* --player $$p \
			--budget $(BR_S) $(BR_EVAL) --format csv \
			> runs/results-br/$*-$$p.csv || exit 1; \
		bin/league plot runs/results-br/$*-$$p.csv --x seconds \
			--y $(BR_Y) --title "$*: best response to $$p" \
			-o runs/results-br/$*-$$p.png || exit 1; \
	done

# Issue 39's evidence (docs/results.md, "Leagues of N seats, teams and
# roles"). results-kuhn3: the 3-player Kuhn league (10 min), its exact
# NashConv over time (no oracle mixture for 3 seats).
results-kuhn3: bin/league
	bin/league run configs/kuhn3.yaml --dir runs/results-kuhn3 --overwrite --quiet
	bin/league eval runs/results-kuhn3 --format csv > runs/results-kuhn3/kuhn3.csv
	bin/league plot runs/results-kuhn3/kuhn3.csv --x seconds --y nashconv_main,nashconv_league,nashconv_avg --logy --title "3-player Kuhn: NashConv over time" -o runs/results-kuhn3/kuhn3.png

# results-measure-GAME (kuhn, leduc, leduc-lx): configs/GAME.yaml (payoff.measure
# auto: win) against configs/GAME-return.yaml (return), the same learner
# and seed, both on a budget of MEASURE_S seconds (default: Kuhn's whole
# 290, Leduc cut from 1800 to 300), then the league mixture's NashConv
# over the last MEASURE_LAST_S seconds of each.
MEASURE_GAMES := kuhn leduc leduc-lx
results-measure-kuhn: MEASURE_S := 290
results-measure-kuhn: MEASURE_LAST_S := 60
results-measure-leduc: MEASURE_S := 300
results-measure-leduc: MEASURE_LAST_S := 120
results-measure-leduc-lx: MEASURE_S := 300
results-measure-leduc-lx: MEASURE_LAST_S := 120
$(addprefix results-measure-,$(MEASURE_GAMES)): results-measure-%: bin/league
	@mkdir -p runs/results-measure-$*
	@set -e; for m in win return; do \
		c=configs/$*.yaml; [ $$m = win ] || c=configs/$*-return.yaml; \
		sed 's/^  seconds: .*/  seconds: $(MEASURE_S)/' $$c \
			> runs/results-measure-$*/$*-$$m.yaml; \
		echo "bin/league run $$c (budget $(MEASURE_S) s)"; \
		bin/league run runs/results-measure-$*/$*-$$m.yaml \
			--dir runs/results-measure-$*/$$m --overwrite --quiet \
			> /dev/null; \
		bin/league eval runs/results-measure-$*/$$m --format csv \
			> runs/results-measure-$*/$*-$$m.csv; \
	done
	@for m in win return; do \
		python3 util/tail_mean.py runs/results-measure-$*/$*-$$m.csv \
			--last $(MEASURE_LAST_S) nashconv_league nashconv_main \
			nashconv_oracle_mix nashconv_avg || exit 1; \
	done

# results-tiny-hanabi: the self-play league of the common-payoff game,
# its player exported and played greedily in both seats (the pair's mean
# return against the optimum 10).
results-tiny-hanabi: bin/league
	bin/league run configs/tiny-hanabi.yaml --dir runs/results-tiny-hanabi --overwrite --quiet
	bin/league eval runs/results-tiny-hanabi --format csv > runs/results-tiny-hanabi/tiny-hanabi.csv
	bin/league export runs/results-tiny-hanabi --player 0 -o runs/results-tiny-hanabi/pair.agent
	bin/league play runs/results-tiny-hanabi/pair.agent runs/results-tiny-hanabi/pair.agent --games 10000

# results-tiny-whist: team self-play with a quarter of the training
# against the random team; its wins against that team over time.
results-tiny-whist: bin/league
	bin/league run configs/tiny-whist.yaml --dir runs/results-tiny-whist --overwrite --quiet
	bin/league eval baselines runs/results-tiny-whist --format csv > runs/results-tiny-whist/tiny-whist.csv
	bin/league plot runs/results-tiny-whist/tiny-whist.csv --x seconds --y win_rate,loss_rate --title "tiny whist: the main team against the random team" -o runs/results-tiny-whist/tiny-whist.png
	bin/league export runs/results-tiny-whist --player 0 -o runs/results-tiny-whist/main.agent
	bin/league play runs/results-tiny-whist/main.agent random runs/results-tiny-whist/main.agent random --games 10000

# results-sheriff: the asymmetric league, a population per role; its
# players and payoff table by role.
results-sheriff: bin/league
	bin/league run configs/sheriff.yaml --dir runs/results-sheriff --overwrite --quiet
	bin/league eval runs/results-sheriff --format csv > runs/results-sheriff/sheriff.csv
	bin/league players runs/results-sheriff
	bin/league payoff runs/results-sheriff

.PHONY: results-quick results-figures results-leduc-memory results-connect4-az results-br \
	$(addprefix results-,$(NASHCONV_GAMES) $(BASELINE_GAMES)) \
	results-kuhn3 results-tiny-hanabi results-tiny-whist results-sheriff \
	$(addprefix results-measure-,$(MEASURE_GAMES)) \
	$(addprefix results-br-,$(BR_GAMES))

clean:
	rm -rf build bin examples/*/*.so $(PY_GEN)

-include $(LIB_OBJ:.o=.d) $(BIN_OBJ:.o=.d) $(TEST_OBJ:.o=.d)
