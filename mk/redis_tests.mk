# Redis's own test files for strings, INCR, keyspace, expire, hashes, lists and sets, run against
# terse and against Debian's redis-server as external servers, outcomes compared test by test
# (issue 2).
# The tests are fetched at test time from Debian's redis source package (nothing of Redis is in
# this repository); tools/redis_tests.sh explains, tools/redis_tests_known.txt lists the tests
# outside terse's scope with their reasons.
#
#   make redis-tests                                  all seven files (~2 min)
#   make redis-tests REDIS_TESTS_ARGS=unit/expire     one file
#
# Part of test-core, so `make test` runs it in both passes (plain and sanitizer build); the
# sanitizer pass (BUILD=build/asan) takes redis-server's outcomes from the plain pass's
# build/redis-tests rather than running the same redis-server on the same files again.

REDIS_TESTS_PKGS := tcl patch redis-server redis-tools debian-archive-keyring
REDIS_TESTS_ARGS ?=

.PHONY: redis-tests

redis-tests: $(SERVER)
	@m="$(call missing,$(REDIS_TESTS_PKGS))"; if [ -n "$$m" ]; then \
		echo "installing: $$m"; apt-get update && apt-get install -y $$m; fi
	PYTHON=$(PYTHON) tools/redis_tests.sh --terse $(SERVER) --out $(BUILD)/redis-tests \
		$(if $(filter-out build,$(BUILD)),--redis-from build/redis-tests) $(REDIS_TESTS_ARGS)

test-core: redis-tests
