# mk/rdb.mk: build/terse-rdb, a terse snapshot converted into a Redis RDB file (included by
# the top-level Makefile; built with the server, used by tests/integration/test_dump.py).

RDB_TOOL := $(BUILD)/terse-rdb

all: $(RDB_TOOL)
test-build: $(RDB_TOOL)

$(RDB_TOOL): tools/terse_rdb.c $(SRVLIB)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(SRVLIB) $(LIBS)
