# terse: one GNU Makefile.
#
#   make            server (build/terse-server) and libterse.a
#   make run        install missing build packages, build, start the server in the foreground
#   make test       every test: unit, integration, fuzz corpus replay, then all again under
#                   AddressSanitizer + UndefinedBehaviorSanitizer
#   make lib        libterse from include/terse/ and src/codec/ alone
#   make fuzz       libFuzzer targets (clang)
#   make bench      redis-benchmark side by side with redis-server (not part of make test)
#
# Sources are discovered: every src/<layer>/*.c is part of the server, every
# tests/unit/<layer>/test_*.c is one cmocka executable, every fuzz/<target>.c one fuzz target.

CC ?= cc
BUILD ?= build
SANITIZE ?=
PYTHON ?= /usr/bin/python3

WARN := -Wall -Wextra -Wshadow -Wcast-qual -Wcast-align -Wstrict-prototypes -Wpointer-arith \
        -Wformat=2 -Wvla
OPT ?= -O2 -g
CPPFLAGS += -Iinclude -Isrc -D_GNU_SOURCE
CFLAGS += -std=c11 $(OPT) $(WARN) $(EXTRA_CFLAGS)
ifneq ($(WERROR),)
CFLAGS += -Werror
endif
ifneq ($(SANITIZE),)
CFLAGS += -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer -DTERSE_DEBUG
LDFLAGS += -fsanitize=$(SANITIZE)
endif
# liblz4's static archive exposes the static-only API (LZ4_compress_fast_extState_fastReset).
LIBS := -l:liblz4.a -lxxhash -lzstd -llzf -lisal -lpthread -lm
# Lua scripting (src/cmd/cmd_script*.c): Debian's Lua 5.1 and the libraries Redis loads into it
# (lua-cjson's cjson, lua-bitop's bit).
LUA_PC := lua5.1-cjson lua5.1-bitop lua5.1
CPPFLAGS += $(shell pkg-config --cflags $(LUA_PC) 2>/dev/null)
LIBS += $(shell pkg-config --libs $(LUA_PC) 2>/dev/null)

SRC_ALL := $(sort $(wildcard src/*/*.c src/*/*/*.c))
SRC_MAIN := $(wildcard src/server/srv_main.c)
SRC_NOMAIN := $(filter-out $(SRC_MAIN),$(SRC_ALL))
SRC_LIB := $(sort $(wildcard src/codec/*.c))
OBJ_NOMAIN := $(SRC_NOMAIN:%.c=$(BUILD)/%.o)
OBJ_MAIN := $(SRC_MAIN:%.c=$(BUILD)/%.o)
OBJ_LIB := $(SRC_LIB:%.c=$(BUILD)/%.o)

UNIT_SRC := $(sort $(wildcard tests/unit/*/test_*.c))
UNIT_BIN := $(UNIT_SRC:%.c=$(BUILD)/%)
UNIT_HELPERS := $(sort $(wildcard tests/unit/*.c))
# A folder's fixtures (tests/unit/<layer>/*_fixture.c and .h) are linked into each test of that
# folder, and are not tests themselves. $(1): the test's stem, e.g. cmd/test_cmd_keys.
UNIT_FIXTURES = $(sort $(wildcard $(dir tests/unit/$(1))*_fixture.[ch]))
FUZZ_SRC := $(sort $(filter-out fuzz/fuzz_replay.c,$(wildcard fuzz/*.c)))
FUZZ_NAMES := $(FUZZ_SRC:fuzz/%.c=%)
FUZZ_REPLAY := $(FUZZ_NAMES:%=$(BUILD)/fuzz/%-replay)
# A fuzz target is one .c compiled at link time: it is rebuilt when any header it may include
# changes (fuzz/*.h helpers, the layers' headers), not only when its .c or the library does.
FUZZ_HDRS := $(wildcard fuzz/*.h src/*/*.h src/*/*/*.h include/*/*.h)

SERVER := $(BUILD)/terse-server
LIBA := $(BUILD)/libterse.a
SRVLIB := $(BUILD)/libterse-server.a

.PHONY: all run test test-core test-build unit integration fuzz-replay lib fuzz bench clean deps \
        deps-test check-layers

all: $(SERVER) $(LIBA)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(SRVLIB): $(OBJ_NOMAIN)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(SERVER): $(OBJ_MAIN) $(SRVLIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(OBJ_MAIN) $(SRVLIB) $(LIBS)

$(LIBA): $(OBJ_LIB)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

lib: $(LIBA)

# ---- tests ---------------------------------------------------------------------------------

.SECONDEXPANSION:
$(BUILD)/tests/unit/%: tests/unit/%.c $(SRVLIB) $(UNIT_HELPERS) $$(call UNIT_FIXTURES,$$*)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/unit $(CFLAGS) $(LDFLAGS) -o $@ $< $(UNIT_HELPERS) \
		$(filter %.c,$(call UNIT_FIXTURES,$*)) $(SRVLIB) $(LIBS) -lcmocka

$(BUILD)/fuzz/%-replay: fuzz/%.c fuzz/fuzz_replay.c $(SRVLIB) $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< fuzz/fuzz_replay.c $(SRVLIB) $(LIBS)

unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do \
		echo "== $$t"; CMOCKA_MESSAGE_OUTPUT=TAP TERSE_SHARED=$(CURDIR)/../shared $$t; \
	done

fuzz-replay: $(FUZZ_REPLAY)
	@set -e; for n in $(FUZZ_NAMES); do \
		echo "== replay $$n"; $(BUILD)/fuzz/$$n-replay fuzz/corpus/$$n; \
	done

integration: $(SERVER)
	TERSE_BIN=$(CURDIR)/$(SERVER) TERSE_SHARED=$(CURDIR)/../shared \
		$(PYTHON) -m pytest -q -p no:cacheprovider tests/integration $(PYTEST_ARGS)

check-layers:
	@$(PYTHON) tools/check_layers.py --build $(BUILD)

test-core: check-layers unit fuzz-replay integration

# Everything the suites run, built in parallel before any suite starts.
test-build: all $(UNIT_BIN) $(FUZZ_REPLAY)

ASAN_VARS := BUILD=build/asan CC=clang SANITIZE=address,undefined

# The one test command: plain build, then the sanitizer build of the same suite. Builds use
# both cores; the suites run one after another (-j1), since several of them measure time
# (expiry, BGSAVE kills, eviction budgets) and would starve each other on a 2-core machine.
test: deps-test
	$(MAKE) test-build
	$(MAKE) -j1 test-core
	$(MAKE) test-build $(ASAN_VARS)
	$(MAKE) -j1 test-core $(ASAN_VARS) PYTEST_ARGS="$(PYTEST_ARGS_ASAN)"
	@echo "make test: every suite passed, plain and under ASan+UBSan"

# ---- packages ------------------------------------------------------------------------------

BUILD_PKGS := make gcc libc6-dev liblz4-dev libxxhash-dev libzstd-dev pkg-config libssl-dev \
              libcurl4-openssl-dev zlib1g-dev libisal-dev liblzf-dev liblua5.1-0-dev \
              lua-cjson-dev lua-bitop-dev
TEST_PKGS := $(BUILD_PKGS) g++ clang libclang-rt-14-dev libcmocka-dev redis-server redis-tools nutcracker \
             python3 python3-pytest python3-redis python3-boto3 valgrind tcl patch \
             debian-archive-keyring
missing = $(strip $(foreach p,$(1),$(if $(shell dpkg-query -W -f='$${Status}' $(p) 2>/dev/null \
          | grep -q 'ok installed' && echo y),,$(p))))

deps:
	@m="$(call missing,$(BUILD_PKGS))"; if [ -n "$$m" ]; then \
		echo "installing: $$m"; apt-get update && apt-get install -y $$m; fi

deps-test:
	@m="$(call missing,$(TEST_PKGS))"; if [ -n "$$m" ]; then \
		echo "installing: $$m"; apt-get update && apt-get install -y $$m; fi

run: deps
	$(MAKE) $(SERVER)
	./$(SERVER)

# ---- fuzzing and benchmarks ----------------------------------------------------------------

FUZZ_SECONDS ?= 60
$(BUILD)/fuzz/%-libfuzzer: fuzz/%.c $(SRVLIB) $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	clang $(CPPFLAGS) $(CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $< $(SRVLIB) $(LIBS)

fuzz:
	$(MAKE) BUILD=build/fuzz CC=clang SANITIZE=address,undefined \
		EXTRA_CFLAGS=-fsanitize=fuzzer-no-link $(FUZZ_NAMES:%=build/fuzz/fuzz/%-libfuzzer)

bench: $(SERVER)
	$(PYTHON) bench/bench_server.py --terse $(SERVER) $(BENCH_ARGS)

clean:
	rm -rf build

# Rules of one area each (libterse packaging, instruction budgets, ...), kept beside this file.
include $(sort $(wildcard mk/*.mk))

-include $(shell find $(BUILD) -name '*.d' -type f 2>/dev/null)
