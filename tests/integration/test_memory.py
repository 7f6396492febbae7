"""Memory: the MEMORY command, INFO memory, and the maxmemory budget, against redis-server 7.0.

Where the behaviour is Redis's (reply shapes, error texts, what each eviction policy may
delete, reads and deletes still working when writes are refused) the same steps run on both
servers. terse admits a write only if it fits *with* the write counted, where Redis admits
any write while used_memory <= maxmemory; so the tests compare outcomes (the error, what is
left), not the exact key on which the limit is reached.
"""

import os
import time

import pytest

import terse_harness as h
from terse_harness import Step

OOM = b"OOM command not allowed when used memory > 'maxmemory'."
MAXMEM = 2 * 1024 * 1024
WHY_SIZE = "sizes are each server's own"


def value(n):
    """n random bytes: no LZ4 level can shrink them (hex digits would give LZ4HC, which
    background compression uses, a few percent)."""
    return os.urandom(n)


def fill_until_oom(c, prefix, n_max=20000, size=1000, ex=None):
    """SETs prefix:i until the first OOM; returns (keys stored, the error or None)."""
    for i in range(n_max):
        try:
            if ex is None:
                c.set("%s:%d" % (prefix, i), value(size))
            else:
                c.set("%s:%d" % (prefix, i), value(size), ex=ex)
        except Exception as e:  # redis.ResponseError
            return i, e
    return n_max, None


def info(c, section):
    return c.info(section)


# ---- MEMORY -----------------------------------------------------------------------------

def is_int(raw):
    return raw[:1] == b":"


def test_memory_subcommands_match_redis(diff):
    diff.run([
        "MEMORY HELP", "MEMORY", "MEMORY nosuch", "memory Help x",
        "MEMORY USAGE", "MEMORY USAGE nokey", "MEMORY USAGE nokey SAMPLES x",
        "SET foo bar",
        Step("MEMORY", "USAGE", "foo", norm=is_int, why=WHY_SIZE),
        Step("MEMORY", "USAGE", "foo", "SAMPLES", "0", norm=is_int, why=WHY_SIZE),
        Step("MEMORY", "USAGE", "foo", "samples", "3", "SAMPLES", "2", norm=is_int, why=WHY_SIZE),
        "MEMORY USAGE foo SAMPLES -1", "MEMORY USAGE foo SAMPLES", "MEMORY USAGE foo foo 1",
        "MEMORY USAGE foo SAMPLES 99999999999999999999",
        "MEMORY PURGE", "MEMORY PURGE x", "MEMORY STATS x", "MEMORY DOCTOR x",
        "MEMORY MALLOC-STATS x",
        # Both instances are nearly empty: the same fixed answer.
        "MEMORY DOCTOR",
    ], "memory")


def test_memory_malloc_stats_is_a_bulk(t):
    assert t.execute_command("MEMORY", "MALLOC-STATS") == \
        b"Stats not supported for the current allocator"


def stats_keys(reply):
    """Field names of a MEMORY STATS reply, db.N entries folded into "db.N" with their keys."""
    v = h.decode_one(reply)
    pairs = list(v) if isinstance(v, h.RMap) else list(zip(v[0::2], v[1::2]))
    out = []
    for k, val in pairs:
        if k.startswith(b"db."):
            inner = list(val) if isinstance(val, h.RMap) else list(zip(val[0::2], val[1::2]))
            out.append((k, tuple(name for name, _ in inner)))
        else:
            out.append((k, type(val).__name__))
    return out


@pytest.mark.parametrize("proto", [2, 3])
def test_memory_stats_shape_matches_redis(terse, oracle, proto):
    shapes = []
    for server in (terse, oracle):
        with server.raw() as c:
            if proto == 3:
                assert c.call("HELLO", "3").startswith(b"%")
            assert c.call("SET", "a", "1") == b"+OK\r\n"
            assert c.call("SELECT", "5") == b"+OK\r\n"
            assert c.call("SET", "b", "x", "EX", "100") == b"+OK\r\n"
            raw = c.call("MEMORY", "STATS")
            assert raw[:1] == (b"%" if proto == 3 else b"*"), raw[:40]
            shapes.append(stats_keys(raw))
    assert shapes[0] == shapes[1]


def test_memory_usage_follows_the_stored_size(t):
    t.set("small", b"x")
    t.set("big", value(20000))
    t.set("squeezable", b"abcd" * 5000)
    # terse stores values raw and compresses them in the background: let it finish.
    deadline = time.time() + 5
    while int(t.info("terse").get("values_pending", 0)) > 0 and time.time() < deadline:
        time.sleep(0.01)
    small, big = t.memory_usage("small"), t.memory_usage("big")
    squeezed = t.memory_usage("squeezable")
    assert 0 < small < 100
    assert 20000 < big < 20000 + 200
    # Stored compressed: well under its 20000 original bytes.
    assert squeezed < 2000
    assert t.memory_usage("nokey") is None


# ---- INFO memory --------------------------------------------------------------------------

INFO_MEMORY_FIELDS = [
    "used_memory", "used_memory_human", "used_memory_rss", "used_memory_rss_human",
    "used_memory_peak", "used_memory_peak_human", "used_memory_peak_perc",
    "used_memory_overhead", "used_memory_startup", "used_memory_dataset",
    "used_memory_dataset_perc", "total_system_memory", "total_system_memory_human",
    "maxmemory", "maxmemory_human", "maxmemory_policy", "mem_fragmentation_ratio",
    "mem_fragmentation_bytes", "mem_allocator",
]


def test_info_memory_fields_as_redis(t, r):
    for c in (t, r):
        c.config_set("maxmemory", "100mb")
        c.config_set("maxmemory-policy", "allkeys-lfu")
    try:
        tm, rm = t.info("memory"), r.info("memory")
        for f in INFO_MEMORY_FIELDS:
            assert f in tm, f
            assert f in rm, f
        # Same field order as Redis for every field both list.
        tk = [k for k in tm if k in rm]
        rk = [k for k in rm if k in tm]
        assert tk == rk
        for f in ("maxmemory", "maxmemory_human", "maxmemory_policy", "total_system_memory"):
            assert tm[f] == rm[f], f
        assert tm["used_memory_overhead"] + tm["used_memory_dataset"] == tm["used_memory"]
        assert "evicted_keys" in t.info("stats")
    finally:
        for c in (t, r):
            c.config_set("maxmemory", "0")
            c.config_set("maxmemory-policy", "noeviction")


@pytest.mark.slow
def test_used_memory_tracks_rss(spawn):
    """While loading, the growth of used_memory accounts for the growth of the process's
    resident memory within 10%. Growth, not totals: the shared libraries' pages at startup
    (libcurl and its dependencies for the S3 backups: about 6 MiB) are in RSS, not in
    used_memory."""
    s = spawn("terse")
    with open(s.binary, "rb") as f:
        if b"__asan_init" in f.read():
            pytest.skip("AddressSanitizer's shadow memory and redzones are in RSS, not in "
                        "used_memory")
    c = s.client()
    m0 = c.info("memory")
    chunk = 2000
    for base in range(0, 40000, chunk):
        p = c.pipeline(transaction=False)
        for i in range(base, base + chunk):
            p.set("k:%d" % i, value(1000))
        p.execute()
    m = c.info("memory")
    used = m["used_memory"] - m0["used_memory"]
    rss = m["used_memory_rss"] - m0["used_memory_rss"]
    assert used > 40 * 1000 * 1000 * 0.95
    assert abs(rss - used) <= 0.10 * rss, (used, rss)
    assert m["used_memory_dataset"] > 0.9 * 40 * 1000 * 1000
    c.close()


# ---- the budget -----------------------------------------------------------------------------

def both(spawn, *extra):
    return [spawn(kind, ["--maxmemory", "2mb"] + list(extra)) for kind in ("terse", "redis")]


def test_noeviction_refuses_writes_like_redis(spawn):
    for s in both(spawn):
        c = s.client()
        n, err = fill_until_oom(c, "k")
        assert err is not None, s.name
        assert str(err).encode() == OOM, (s.name, err)
        if s.name.startswith("terse"):
            # The refused write was counted before it ran: the budget held.
            assert c.info("memory")["used_memory"] <= MAXMEM
        assert n > 100
        # The refused write left no trace; reads and deletes still work.
        assert c.exists("k:%d" % n) == 0
        assert c.get("k:%d" % n) is None
        assert len(c.get("k:0")) == 1000
        assert c.dbsize() == n
        assert c.delete("k:1") == 1
        assert c.execute_command("PING") is True
        # Every denyoom command is refused while full, not only SET.
        c.config_set("maxmemory", "1")
        with pytest.raises(Exception, match="OOM command not allowed"):
            c.incr("counter")
        with pytest.raises(Exception, match="OOM command not allowed"):
            c.mset({"a": "1", "b": "2"})
        assert c.exists("counter", "a", "b") == 0
        assert c.delete("k:2") == 1
        c.config_set("maxmemory", "2mb")
        assert c.info("stats")["evicted_keys"] == 0
        c.close()


def test_allkeys_lru_evicts_old_keys(spawn):
    for s in both(spawn, "--maxmemory-policy", "allkeys-lru"):
        c = s.client()
        n, err = fill_until_oom(c, "k", n_max=6000)
        assert err is None, (s.name, err)
        assert 100 < c.dbsize() < 6000
        assert c.exists("k:5999") == 1
        # Read right after the writes: the budget is about what writes may add. The reads
        # below may grow buffers (INFO's text among them) and, like Redis, are never refused.
        used_after_writes = c.info("memory")["used_memory"]
        # The LRU clock counts seconds, so the order among keys written in the same second is
        # the sampling's; most of the first keys are gone all the same.
        assert sum(c.exists("k:%d" % i) for i in range(1000)) < 500
        # Every key that is gone was evicted. Buffers count against the budget in both
        # servers, so a command may evict a few more keys before it runs (INFO's included):
        # the count read second is at least the number of keys gone when the first was read.
        left = c.dbsize()
        evicted = c.info("stats")["evicted_keys"]
        assert 0 <= evicted - (6000 - left) <= 64, (s.name, evicted, left)
        if s.name.startswith("terse"):
            # terse counts the write before admitting it: the budget holds.
            assert used_after_writes <= MAXMEM
        c.close()


@pytest.mark.parametrize("policy", ["volatile-lru", "volatile-lfu", "volatile-random",
                                    "volatile-ttl"])
def test_volatile_policies_spare_persistent_keys(spawn, policy):
    for s in both(spawn, "--maxmemory-policy", policy):
        c = s.client()
        p = c.pipeline(transaction=False)
        for i in range(300):
            p.set("p:%d" % i, value(1000))
        p.execute()
        n, err = fill_until_oom(c, "v", n_max=4000, ex=1000)
        assert err is None, (s.name, err)
        assert c.info("stats")["evicted_keys"] > 0
        assert all(c.exists("p:%d" % i) for i in range(300)), s.name
        # Once no key with an expiry is left, nothing may go: writes are refused.
        c.delete(*[k for k in c.keys("v:*")])
        n, err = fill_until_oom(c, "q", n_max=4000)
        assert err is not None and str(err).encode() == OOM, (s.name, err)
        assert all(c.exists("p:%d" % i) for i in range(300)), s.name
        c.close()


def test_config_set_maxmemory_evicts_down_in_steps(spawn):
    s = spawn("terse", ["--maxmemory-policy", "allkeys-lru"])
    c = s.client()
    for base in range(0, 20000, 2000):
        p = c.pipeline(transaction=False)
        for i in range(base, base + 2000):
            p.set("k:%d" % i, value(1000))
        p.execute()
    assert c.info("memory")["used_memory"] > 20 * 1000 * 1000
    c.config_set("maxmemory", "4mb")
    assert c.config_get("maxmemory") == {"maxmemory": "4194304"}
    first = c.info("memory")["used_memory"]
    # Bounded steps: not all of the 16 MB went in the command that lowered the limit.
    assert first > 8 * 1024 * 1024
    deadline = time.monotonic() + 10
    samples = []
    while time.monotonic() < deadline:
        used = c.info("memory")["used_memory"]
        samples.append(used)
        if used <= 4 * 1024 * 1024:
            break
        assert c.ping()  # the server keeps answering meanwhile
        time.sleep(0.05)
    assert samples[-1] <= 4 * 1024 * 1024, samples
    assert len(samples) > 2, samples
    assert c.info("stats")["evicted_keys"] > 10000
    # Reads and writes work under the new limit.
    c.set("after", b"x" * 1000)
    assert c.get("after") == b"x" * 1000
    c.close()


def test_client_buffers_count_against_the_budget(spawn):
    """A big pipelined request sits in a query buffer: under noeviction, with the data close to
    the limit, it pushes used_memory over and writes are refused, as in Redis."""
    s = spawn("terse", ["--maxmemory", "4mb"])
    c = s.client()
    n, err = fill_until_oom(c, "k")
    assert err is not None
    c.delete("k:0", "k:1", "k:2")
    before = c.info("memory")["used_memory"]
    raw = s.raw()
    # 3 MB of a bulk that is not complete yet: it is buffered, and counted.
    raw.send(b"*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$4000000\r\n" + b"x" * 3000000)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if c.info("memory")["used_memory"] > before + 2500000:
            break
        time.sleep(0.02)
    assert c.info("memory")["used_memory"] > before + 2500000
    with pytest.raises(Exception, match="OOM command not allowed"):
        c.set("small", "v")
    raw.close()
    c.close()
