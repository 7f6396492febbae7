"""A warm pipelined SET/GET loop performs no malloc or free in the server.

terse counts every allocator call (core_mem) and shows the totals in INFO's terse section as
allocator_allocs and allocator_frees, and apart those of its background work (compression,
the cron), so what is left is the request path's. After a warm-up that creates the keys and
grows every buffer (input, output, scratch, parser argv), the same pipelined batch of SETs
(overwriting with values of the same sizes, compressible and not) and GETs must leave both
counts unchanged: parsing is in place, replies go into the connection's buffer, values decode
straight into it and overwrites reuse the entry's block. The hash and sorted-set loops below
hold the container types to the same rule (sets: test_set.py).
"""

import random

import alloc_harness as ah
import terse_harness as h


def _batch(values):
    out = []
    for i, v in enumerate(values):
        out.append(h.encode("SET", "warm:%d" % i, v))
        out.append(h.encode("GET", "warm:%d" % i))
    return b"".join(out)


def test_warm_pipelined_set_get_allocates_nothing(terse):
    rnd = random.Random(7)
    text = (b"terse keeps values compressed and checksummed; " * 40)
    values = []
    for i in range(200):
        n = [16, 100, 127, 128, 700, 1500][i % 6]
        if i % 2:
            values.append(text[:n])                                  # compressible: LZ4
        else:
            values.append(bytes(rnd.getrandbits(8) for _ in range(n)))  # stays raw
    values.append(b"12345")                                          # integer-encoded
    batch = _batch(values)
    n_replies = 2 * len(values)
    replies_of_values = {}
    for i, v in enumerate(values):
        replies_of_values[2 * i] = b"+OK\r\n"
        replies_of_values[2 * i + 1] = b"$%d\r\n%s\r\n" % (len(v), v)
    with h.RawConn(terse.port) as c:
        ah.send_rounds(c, batch, n_replies, 5, replies_of_values)
        ah.assert_rounds_allocate_nothing(c, "warm SET/GET loop", batch, n_replies,
                                         {-1: b"$5\r\n12345\r\n"})


def test_warm_pipelined_hash_loop_allocates_nothing(terse):
    """The same for hashes: HSET overwriting fields with values of the same sizes (the hash is
    decoded into scratch, rebuilt in scratch2, encoded back and stored in the entry's block),
    HGET, HMGET, HGETALL and HINCRBY, over hashes small (stored raw) and large (LZ4)."""
    text = b"field values of a cached object, compressible; " * 8
    hashes = []
    for k, n_fields in enumerate([3, 12, 40]):
        fields = []
        for j in range(n_fields):
            fields.append((b"f%d" % j, text[: 10 + (j * 37) % 300]))
        hashes.append((b"h:%d" % k, fields))
    out = []
    for key, fields in hashes:
        flat = [x for pair in fields for x in pair]
        out.append(h.encode("HSET", key, *flat))
        out.append(h.encode("HGET", key, fields[-1][0]))
        out.append(h.encode("HMGET", key, fields[0][0], b"missing"))
        out.append(h.encode("HGETALL", key))
        out.append(h.encode("HSET", key, b"n", b"1000"))
        out.append(h.encode("HINCRBY", key, b"n", b"0"))
    batch = b"".join(out)
    n_replies = 6 * len(hashes)
    warm = {}
    for k, (key, fields) in enumerate(hashes):
        last = fields[-1][1]
        warm[6 * k + 1] = b"$%d\r\n%s\r\n" % (len(last), last)
        warm[6 * k + 5] = b":1000\r\n"
    with h.RawConn(terse.port) as c:
        ah.send_rounds(c, batch, n_replies, 5, warm)
        ah.assert_rounds_allocate_nothing(c, "warm hash loop", batch, n_replies,
                                         {-1: b":1000\r\n"})


def test_warm_zset_loop_allocates_nothing(terse):
    """ZADD (update and add), ZSCORE, ZRANGE, ZRANGEBYSCORE, ZRANK, ZREM over a small zset, a
    zset of words and a larger compressible one: decoded into scratch, laid out in scratch3,
    written in scratch2, stored in the entry's block."""
    zsets = [(b"zs", [b"%d" % i for i in range(50)]),
             (b"zw", [b"word:%d" % i for i in range(120)]),
             # under terse-chunk-bytes (4 KiB): one value (chunked ones: test_chunked_zset.py)
             (b"zl", [b"a longer member that compresses well, number %04d" % i
                      for i in range(60)])]
    out = []
    for key, members in zsets:
        pairs = [x for i, m in enumerate(members) for x in (b"%d" % (i % 7), m)]
        out.append(h.encode("ZADD", key, *pairs))
        out.append(h.encode("ZADD", key, b"3.5", b"extra", b"2", members[0]))
        out.append(h.encode("ZSCORE", key, members[-1]))
        out.append(h.encode("ZRANGE", key, b"0", b"10", b"WITHSCORES"))
        out.append(h.encode("ZRANGEBYSCORE", key, b"(1", b"3", b"LIMIT", b"0", b"5"))
        out.append(h.encode("ZRANK", key, members[1]))
        out.append(h.encode("ZREM", key, b"extra"))
    batch = b"".join(out)
    n_replies = 7 * len(zsets)
    warm = {}
    for k in range(len(zsets)):
        warm[7 * k] = b":0\r\n"
        warm[7 * k + 1] = b":1\r\n"
        warm[7 * k + 6] = b":1\r\n"
    with h.RawConn(terse.port) as c:
        ah.send_rounds(c, batch, n_replies, 5, {})
        ah.assert_rounds_allocate_nothing(c, "warm zset loop", batch, n_replies, warm)
