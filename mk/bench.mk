# Corpus benchmark (issue 4, item 5): terse vs redis-server on the shared cache-value corpus.
# Not part of `make test`. See bench/README.md.
#
#   make bench-memory            N=1000000 keys: bytes/key (RSS, used_memory), load and GET
#                                throughput (uniform, Zipf 0.99), terse/redis ratios
#   make bench-memory N=100000   a quick run
#   make bench-evict             both servers at maxmemory 256mb, allkeys-lru: Zipf hit rates
#   make bench-growth            p50/p99/p99.9 GET latency at rest and while terse grows to
#                                N=10000000 small keys (its own default; N=... overrides it)
#   make bench-ir                instructions per SET and per GET of the whole server under
#                                callgrind (exact: compare two builds, e.g. before and after a
#                                refactoring)
#   make bench-trickle           one 1,000,000-argument command in 1,400-byte writes 4 ms
#                                apart: server CPU and other clients' PING, terse vs redis
#                                (TRICKLE_ARGS="--args 200000 --rounds 1" for a quick run)
#
# CORPUS_ARGS passes options through to bench/corpus_driver.py (e.g. CORPUS_ARGS="--rounds 7"),
# GROWTH_ARGS to bench/growth_bench.py (e.g. GROWTH_ARGS="--redis --seconds 30").

N ?= 1000000
CORPUS_ARGS ?=
CORPUS_BENCH := $(BUILD)/bench/corpus_bench
GROWTH_ARGS ?=
# The memory issue's bar is at 10M keys: bench-growth keeps that default unless N is given.
GROWTH_N = $(if $(filter command line environment,$(origin N)),$(N),10000000)

TRICKLE_ARGS ?=

.PHONY: bench-memory bench-evict bench-growth bench-trickle bench-ir corpus-bench

# One binary from the .c files of bench/corpus_bench*.c (corpus_bench.h says which holds what).
CORPUS_BENCH_SRC := $(sort $(wildcard bench/corpus_bench*.c))
$(CORPUS_BENCH): $(CORPUS_BENCH_SRC) bench/corpus_bench.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -g -D_GNU_SOURCE $(WARN) -o $@ $(CORPUS_BENCH_SRC) -lhiredis -lpthread -lm

corpus-bench: $(CORPUS_BENCH)

bench-memory: $(SERVER) $(CORPUS_BENCH)
	$(PYTHON) bench/corpus_driver.py --terse $(SERVER) --loader $(CORPUS_BENCH) \
		--shared $(CURDIR)/../shared -n $(N) $(CORPUS_ARGS)

bench-evict: $(SERVER) $(CORPUS_BENCH)
	$(PYTHON) bench/corpus_driver.py --terse $(SERVER) --loader $(CORPUS_BENCH) \
		--shared $(CURDIR)/../shared -n $(N) --evict $(CORPUS_ARGS)

bench-growth: $(SERVER)
	$(PYTHON) bench/growth_bench.py --terse $(SERVER) -n $(GROWTH_N) $(GROWTH_ARGS)

bench-trickle: $(SERVER)
	$(PYTHON) bench/trickle_bench.py --terse $(SERVER) $(TRICKLE_ARGS)

bench-ir: $(SERVER)
	$(PYTHON) bench/callgrind_server.py --terse $(SERVER)

# redis-benchmark's default test list on terse and redis-server side by side (issue 13's bar):
#   make bench-types                          -n 200000 and 1000000, -P 1 and 16, 3 rounds
#   make bench-types TYPES_ARGS="--requests 100000 --pipelines 16 --rounds 1"   a quick run
TYPES_ARGS ?=
.PHONY: bench-types
bench-types: $(SERVER)
	$(PYTHON) bench/types_bench.py --terse $(SERVER) $(TYPES_ARGS)

# One growing container under maxmemory 64mb noeviction, terse and redis-server (issue 13):
#   make bench-storm                          RPUSH, HSET, SADD, ZADD storms into one key
#   make bench-storm STORM_ARGS="--types hset"
STORM_ARGS ?=
.PHONY: bench-storm
bench-storm: $(SERVER)
	TERSE_SHARED=$(CURDIR)/../shared $(PYTHON) bench/storm_bench.py --terse $(SERVER) $(STORM_ARGS)

# Containers of a million elements, terse and redis-server (issue 13): memory after background
# compression and per-command latency p50/p99, arms alternating request by request:
#   make bench-big                            list, hash, set, zset of 1,000,000 elements
#   make bench-big BIG_ARGS="-n 100000 --types zset"     a quick run
#   make bench-big BIG_ARGS="--incompressible"           random bytes instead of the corpus
#   make bench-big BIG_ARGS="--types pel -n 200000"     a stream whose group holds 100,000
#                                                        pending entries (--pel)
BIG_ARGS ?=
.PHONY: bench-big
bench-big: $(SERVER)
	TERSE_SHARED=$(CURDIR)/../shared $(PYTHON) bench/big_bench.py --terse $(SERVER) $(BIG_ARGS)
