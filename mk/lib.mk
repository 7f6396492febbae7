# mk/lib.mk: libterse packaging and checks (included by the top-level Makefile).
#
#   make lib            libterse.a, libterse.so, libterse.pc, header checks, link smoke test
#   make lib-check      the checks alone (also a prerequisite of test-core)
#   make perf-ir        instruction budgets (valgrind); make perf-ir-update [ALLOW_RAISE=1]
#   make bench-codec    libterse vs liblz4/libzstd throughput (not part of make test)
#   build/terse-envelope  the envelope CLI
#
# libterse is built from include/terse/ and src/codec/ alone: its objects see only include/
# and a directory holding nothing but a link to src/codec, so an include of another layer
# fails to compile here.

CXX ?= g++
PREFIX ?= /usr/local
LIB_VERSION := 0.1.0
LIB_SOMAJOR := 0

LIB_HDRS := $(sort $(wildcard include/terse/*.h))
LIB_SRCDIR := $(BUILD)/lib-src
LIB_CPPFLAGS := -Iinclude -I$(LIB_SRCDIR) -D_GNU_SOURCE
LIB_PIC_OBJ := $(SRC_LIB:%.c=$(BUILD)/pic/%.o)
LIBSO := $(BUILD)/libterse.so
LIBPC := $(BUILD)/libterse.pc
# liblz4 is linked statically (its static-only API); its symbols stay hidden inside the .so.
LIB_DEPLIBS := -l:liblz4.a -lxxhash -lzstd -lcrypto
LIB_PRIVATE := -l:liblz4.a -lxxhash -lzstd -lcrypto -lpthread
# A sanitizer build leaves the sanitizer runtime to the executable: no --no-undefined then.
LIB_NOUNDEF := $(if $(SANITIZE),,-Wl,--no-undefined)

# libterse links libcrypto; perf-ir (in make test) runs valgrind. The Makefile's package lists
# are expanded when its deps targets run, so appending here is enough.
BUILD_PKGS += libssl-dev
TEST_PKGS += libssl-dev valgrind

.PHONY: lib-check lib-headers lib-smoke perf-ir perf-ir-update bench-codec envelope-cli-test \
        fuzz-codec

$(LIB_SRCDIR)/codec:
	@mkdir -p $(LIB_SRCDIR)
	ln -sfn $(CURDIR)/src/codec $@

$(BUILD)/pic/%.o: %.c | $(LIB_SRCDIR)/codec
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CPPFLAGS) $(CFLAGS) -fPIC -MMD -MP -c $< -o $@

# Only terse_* is exported; liblz4's objects (linked in) and codec_* stay local.
$(BUILD)/libterse.map:
	@mkdir -p $(dir $@)
	printf '{\n  global: terse_*;\n  local: *;\n};\n' > $@

$(LIBSO): $(LIB_PIC_OBJ) $(BUILD)/libterse.map
	$(CC) -shared -Wl,-soname,libterse.so.$(LIB_SOMAJOR) -Wl,--version-script=$(BUILD)/libterse.map \
		-Wl,--exclude-libs,ALL $(LIB_NOUNDEF) -Wl,-z,text $(LDFLAGS) \
		-o $@ $(LIB_PIC_OBJ) $(LIB_DEPLIBS)
	ln -sf libterse.so $(BUILD)/libterse.so.$(LIB_SOMAJOR)

$(LIBPC): mk/lib.mk
	@mkdir -p $(dir $@)
	printf '%s\n' 'prefix=$(PREFIX)' 'includedir=$${prefix}/include' 'libdir=$${prefix}/lib' '' \
		'Name: libterse' \
		'Description: cachekit envelope, value codec and tenant encryption (terse)' \
		'Version: $(LIB_VERSION)' 'Cflags: -I$${includedir}' 'Libs: -L$${libdir} -lterse' \
		'Libs.private: $(LIB_PRIVATE)' > $@

# Every public header compiles alone, as C11 and as C++ (extern "C", no C-only syntax).
lib-headers: $(LIB_HDRS)
	@set -e; for h in $(LIB_HDRS); do \
		$(CC) -std=c11 $(WARN) -Werror -Iinclude -fsyntax-only -x c $$h; \
		$(CXX) -std=c++11 -Wall -Wextra -Werror -Iinclude -fsyntax-only -x c++ $$h; \
	done; echo "lib-headers: $(words $(LIB_HDRS)) headers compile alone as C and C++"

# The CLI, linked against libterse.a (build/terse-envelope) and against libterse.so (the
# smoke test: it must run on exported symbols alone).
$(BUILD)/terse-envelope: tools/terse_envelope.c $(LIBA)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBA) $(LIB_DEPLIBS) -lpthread -lm

$(BUILD)/terse-envelope-so: tools/terse_envelope.c $(LIBSO)
	$(CC) -Iinclude $(CFLAGS) $(LDFLAGS) -o $@ $< -L$(BUILD) -l:libterse.so \
		-Wl,-rpath,$(CURDIR)/$(BUILD)

lib-smoke: $(BUILD)/terse-envelope-so $(LIBA) $(LIBPC)
	@printf 'libterse smoke' | $(BUILD)/terse-envelope-so store | \
		$(BUILD)/terse-envelope-so retrieve | grep -qx 'libterse smoke'
	@if nm -D --defined-only $(LIBSO) | awk '{print $$3}' | grep -v '^terse_' | grep -q .; then \
		echo "libterse.so exports non-terse symbols"; exit 1; fi
	@PKG_CONFIG_PATH=$(BUILD) pkg-config --validate libterse
	@echo "lib-smoke: libterse.so round trip ok, only terse_* exported, libterse.pc valid"

# The CLI's behaviour: round trips, inspect, every error path exits non-zero with a reason.
envelope-cli-test: $(BUILD)/terse-envelope
	TERSE_ENVELOPE=$(CURDIR)/$(BUILD)/terse-envelope TERSE_SHARED=$(CURDIR)/../shared \
		sh tests/unit/codec/test_terse_envelope.sh

# The codec's tests and fuzz binaries link libterse.a alone (more specific rules than the
# Makefile's, so make prefers them): the codec needs no other layer, and these builds prove it.
CODEC_FIXTURES := $(sort $(wildcard tests/unit/codec/*_fixture.[ch]))
$(BUILD)/tests/unit/codec/%: tests/unit/codec/%.c $(LIBA) $(CODEC_FIXTURES)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/unit $(CFLAGS) $(LDFLAGS) -o $@ $< \
		$(filter %.c,$(CODEC_FIXTURES)) $(LIBA) $(LIB_DEPLIBS) -lpthread -lm -lcmocka

LIB_FUZZ := $(filter codec_% envelope_%,$(FUZZ_NAMES))
$(LIB_FUZZ:%=$(BUILD)/fuzz/%-replay): $(BUILD)/fuzz/%-replay: fuzz/%.c fuzz/fuzz_replay.c $(LIBA) \
	$(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< fuzz/fuzz_replay.c $(LIBA) $(LIB_DEPLIBS) \
		-lpthread -lm

$(LIB_FUZZ:%=$(BUILD)/fuzz/%-libfuzzer): $(BUILD)/fuzz/%-libfuzzer: fuzz/%.c $(LIBA)
	@mkdir -p $(dir $@)
	clang $(CPPFLAGS) $(CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $< $(LIBA) \
		$(LIB_DEPLIBS) -lpthread -lm

# libFuzzer runs of the codec targets, one after another (FUZZ_SECONDS each, one job).
fuzz-codec:
	$(MAKE) BUILD=build/fuzz CC=clang SANITIZE=address,undefined \
		EXTRA_CFLAGS=-fsanitize=fuzzer-no-link $(LIB_FUZZ:%=build/fuzz/fuzz/%-libfuzzer)
	@set -e; for t in $(LIB_FUZZ); do mkdir -p build/fuzz/runs/$$t; \
		echo "== $$t $(FUZZ_SECONDS) s"; build/fuzz/fuzz/$$t-libfuzzer -jobs=1 \
		-max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 -artifact_prefix=build/fuzz/runs/$$t/ \
		build/fuzz/runs/$$t fuzz/corpus/$$t; done

lib: $(LIBSO) $(LIBPC) lib-check

lib-check: lib-headers lib-smoke envelope-cli-test

test-core: lib-check
# Budgets are instruction counts of the default build (cc -O2, no sanitizer): the sanitizer pass
# of make test, or another compiler, would measure something else.
ifeq ($(SANITIZE)$(filter-out cc gcc,$(CC)),)
test-core: perf-ir
endif

# ---- instruction budgets ------------------------------------------------------------------
# Every case is its own process under cachegrind (cache simulation off) at 0 and N iterations;
# bench/perf_ir.py prints (Ir[N] - Ir[0]) / N and checks bench/perf_ir_baselines.json.

PERF_IR_DIR := $(BUILD)/perf_ir
PERF_IR_BIN := $(PERF_IR_DIR)/perf_ir
PERF_IR_INPUTS := $(PERF_IR_DIR)/inputs/.done

$(PERF_IR_BIN): bench/perf_ir.c bench/bench_input.h $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBA) $(LIBS)

# Real corpus records, chosen once and cached (bench/perf_ir_inputs.py says which).
$(PERF_IR_INPUTS): bench/perf_ir_inputs.py | $(PERF_IR_BIN)
	TERSE_SHARED=$(CURDIR)/../shared $(PYTHON) bench/perf_ir_inputs.py $(PERF_IR_DIR)/inputs
	$(PERF_IR_BIN) train $(PERF_IR_DIR)/inputs $(PERF_IR_DIR)/inputs/dict.bin
	touch $@

PERF_IR_ARGS = --bin $(PERF_IR_BIN) --inputs $(PERF_IR_DIR)/inputs \
	--baselines bench/perf_ir_baselines.json

perf-ir: $(PERF_IR_BIN) $(PERF_IR_INPUTS)
	$(PYTHON) bench/perf_ir.py $(PERF_IR_ARGS) check

perf-ir-update: $(PERF_IR_BIN) $(PERF_IR_INPUTS)
	$(PYTHON) bench/perf_ir.py $(PERF_IR_ARGS) update $(if $(ALLOW_RAISE),--allow-raise)

# ---- throughput ---------------------------------------------------------------------------

CODEC_BENCH := $(BUILD)/bench/codec_bench
BENCH_ROUNDS ?= 30

$(CODEC_BENCH): bench/codec_bench.c bench/bench_input.h $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBA) $(LIB_DEPLIBS) -lpthread -lm

bench-codec: $(CODEC_BENCH) $(PERF_IR_INPUTS)
	$(CODEC_BENCH) $(PERF_IR_DIR)/inputs $(BENCH_ROUNDS)

# tests/integration/test_envelope_corpus.py loads libterse.so through ctypes.
integration: $(LIBSO)
