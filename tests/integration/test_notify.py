"""Keyspace notifications (notify-keyspace-events) against redis-server: for each command
family, the exact messages a subscriber receives (channel, event, key, and their order) after
each command, in RESP2 and RESP3; the flag letters (K vs E, class filters, A, n, CONFIG GET's
canonical text, the error for a bad letter); expired keys (lazy and active), new keys, and
evicted keys."""

import os
import time

import pytest

import terse_harness as h

END = "__notify_test_end"


def run_events(server, flags, cmds, resp=2, pattern="__key*__:*"):
    """Sets notify-keyspace-events to flags on server, subscribes a connection (in RESP resp)
    to pattern and to END, runs cmds on another connection, then publishes on END; returns
    (the command replies, the messages the subscriber got before END). A command given as
    ("sleep", s) waits instead; one starting with "?" has a random reply (SPOP), not kept."""
    with server.raw() as w, server.raw() as s:
        assert h.decode_one(w.call("CONFIG", "SET", "notify-keyspace-events", flags)) == b"OK"
        if resp == 3:
            assert s.call("HELLO", "3").startswith(b"%")
        s.call("PSUBSCRIBE", pattern)
        s.call("SUBSCRIBE", END)
        replies = []
        for cmd in cmds:
            if cmd[0] == "sleep":
                time.sleep(cmd[1])
                continue
            if cmd[0] == "?":
                w.call(*cmd[1:])
                replies.append(b"<random>")
                continue
            replies.append(w.call(*cmd))
        w.call("PUBLISH", END, "x")
        msgs = []
        while True:
            raw = s.read_reply()
            if END.encode() in raw:
                break
            msgs.append(raw)
        return replies, msgs


def short(raw):
    """A message as 'channel message' text (the pattern and framing left out)."""
    if not raw:
        return b"<none>"
    v = h.decode_one(raw)
    return b" ".join(v[-2:]) if isinstance(v, list) else raw


def compare(t, r, flags, cmds, resp=2, pattern="__key*__:*"):
    """run_events on terse and redis-server; fails with both listings unless the replies and
    the messages are the same. Returns terse's messages."""
    tr, tm = run_events(t, flags, cmds, resp, pattern)
    rr, rm = run_events(r, flags, cmds, resp, pattern)
    if tr != rr or tm != rm:
        rows = [(" ".join(map(str, c)), a, b, a == b) for c, a, b in
                zip([c for c in cmds if c[0] != "sleep"], tr, rr)]
        rows += [("message %d" % i, short(a), short(b), a == b) for i, (a, b) in
                 enumerate(zip(tm + [b""] * (len(rm) - len(tm)),
                               rm + [b""] * (len(tm) - len(rm))))]
        pytest.fail("terse and redis-server differ:\n" +
                    h.format_table([row for row in rows if not row[3]]) +
                    "\nall messages:\n" + h.format_table(rows))
    return tm


FAMILIES = {
    "strings": [
        ("SET", "s", "v"), ("SET", "s", "w", "NX"), ("SET", "s", "w", "XX", "EX", "100"),
        ("SETNX", "s2", "1"), ("SETNX", "s2", "2"), ("SETEX", "s3", "100", "v"),
        ("PSETEX", "s4", "100000", "v"), ("GETSET", "s", "x"), ("MSET", "m1", "1", "m2", "2"),
        ("MSETNX", "m1", "1", "m3", "3"), ("MSETNX", "m4", "1", "m5", "5"),
        ("APPEND", "s", "yz"), ("APPEND", "ap", "new"), ("SETRANGE", "s", "1", "QQ"),
        ("SETRANGE", "sr", "0", ""), ("SETRANGE", "sr", "2", "x"), ("INCR", "i"),
        ("INCRBY", "i", "5"), ("DECR", "i"), ("DECRBY", "i", "2"), ("INCRBYFLOAT", "f", "1.5"),
        ("INCR", "s"), ("SETBIT", "b", "7", "1"), ("GETDEL", "m2"), ("GETDEL", "m2"),
        ("GETEX", "m1", "EX", "100"), ("GETEX", "m1", "PERSIST"), ("GETEX", "m1", "PERSIST"),
        ("GETEX", "m1", "PXAT", "1"), ("GET", "m1"), ("SET", "k", "v", "GET"),
        ("SET", "k", "v", "KEEPTTL"),
    ],
    "generic": [
        ("SET", "a", "1"), ("SET", "b", "2"), ("DEL", "a", "nosuch", "b"), ("SET", "a", "1"),
        ("UNLINK", "a"), ("SET", "a", "1"), ("EXPIRE", "a", "100"), ("EXPIRE", "a", "50", "GT"),
        ("PEXPIRE", "a", "100000"), ("EXPIREAT", "a", "99999999999"), ("PERSIST", "a"),
        ("PERSIST", "a"), ("EXPIRE", "nosuch", "10"), ("SET", "g", "1"), ("EXPIRE", "g", "-1"),
        ("SET", "g", "1"), ("PEXPIREAT", "g", "1"), ("SET", "src", "v"),
        ("RENAME", "src", "dst"), ("SET", "x", "1"), ("RENAME", "dst", "x"),
        ("RENAMENX", "x", "x2"), ("SET", "y", "1"), ("RENAMENX", "x2", "y"),
        ("RENAME", "y", "y"), ("COPY", "y", "c1"), ("COPY", "y", "c1"),
        ("COPY", "y", "c1", "REPLACE"), ("COPY", "y", "c2", "DB", "3"), ("MOVE", "y", "4"),
        ("MOVE", "nosuch", "4"), ("SELECT", "4"), ("DEL", "y"), ("SELECT", "0"),
        ("FLUSHDB",), ("SET", "z", "1"), ("SWAPDB", "0", "1"), ("FLUSHALL",),
    ],
    "lists": [
        ("LPUSH", "l", "a", "b"), ("RPUSH", "l", "c"), ("LPUSHX", "nol", "a"),
        ("RPUSHX", "l", "d"), ("LINSERT", "l", "BEFORE", "c", "x"),
        ("LINSERT", "l", "AFTER", "zz", "x"), ("LSET", "l", "0", "B"), ("LREM", "l", "0", "zz"),
        ("LREM", "l", "1", "x"), ("LPOP", "l"), ("RPOP", "l", "2"), ("LPOP", "l", "0"),
        ("LTRIM", "l", "0", "-1"), ("RPUSH", "l", "1", "2", "3"), ("LTRIM", "l", "5", "10"),
        ("RPUSH", "l", "1", "2", "3"), ("LMOVE", "l", "l2", "LEFT", "RIGHT"),
        ("RPOPLPUSH", "l", "l2"), ("LMOVE", "l2", "l2", "RIGHT", "LEFT"),
        ("LMOVE", "l", "l2", "RIGHT", "LEFT"), ("LMPOP", "2", "nol", "l2", "RIGHT", "COUNT", "9"),
        ("RPUSH", "l", "a"), ("LREM", "l", "0", "a"), ("BLPOP", "nol", "l", "0.01"),
        ("RPUSH", "l", "a"), ("BRPOP", "l", "0"),
        ("RPUSH", "l", "a"), ("BLMOVE", "l", "l3", "LEFT", "LEFT", "0"),
    ],
    "hashes": [
        ("HSET", "h", "f", "1", "g", "2"), ("HSET", "h", "f", "1"), ("HSETNX", "h", "f", "2"),
        ("HSETNX", "h", "n", "2"), ("HMSET", "h", "a", "1"), ("HINCRBY", "h", "i", "3"),
        ("HINCRBYFLOAT", "h", "fl", "1.5"), ("HDEL", "h", "nosuch"), ("HDEL", "h", "f", "g"),
        ("HDEL", "h", "n", "a", "i", "fl"), ("HDEL", "h", "x"), ("HINCRBY", "h2", "i", "1"),
    ],
    "sets": [
        ("SADD", "s", "a", "b", "c"), ("SADD", "s", "a"), ("SREM", "s", "zz"),
        ("SREM", "s", "a"), ("SMOVE", "s", "s2", "b"), ("SMOVE", "s", "s2", "c"),
        ("SMOVE", "s2", "s2", "b"), ("SMOVE", "s2", "s3", "nosuch"), ("SADD", "s", "x", "y"),
        ("?", "SPOP", "s"), ("SPOP", "s", "0"), ("?", "SPOP", "s", "5"), ("SADD", "s", "x"),
        ("SPOP", "s"), ("SADD", "s", "1", "2", "3"), ("?", "SPOP", "s", "1"), ("SINTERSTORE", "d", "s", "s2"), ("SUNIONSTORE", "d", "s", "s2"),
        ("SDIFFSTORE", "d", "s", "s"), ("SADD", "d", "1"), ("SDIFFSTORE", "d", "s", "s"),
        ("SET", "str", "1"), ("SUNIONSTORE", "str", "s"), ("SINTERSTORE", "e", "nosuch", "s"),
        ("SINTERSTORE", "str", "nosuch", "s"),
    ],
    "zsets": [
        ("ZADD", "z", "1", "a", "2", "b", "3", "c"), ("ZADD", "z", "1", "a"),
        ("ZADD", "z", "5", "a"), ("ZADD", "z", "XX", "1", "new"), ("ZADD", "z", "NX", "9", "a"),
        ("ZADD", "z", "INCR", "1", "a"), ("ZINCRBY", "z", "2", "b"), ("ZADD", "z2", "XX", "1", "a"),
        ("ZREM", "z", "nosuch"), ("ZREM", "z", "a"), ("ZPOPMIN", "z"), ("ZPOPMAX", "z", "0"),
        ("ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"), ("ZPOPMAX", "z"),
        ("ZREMRANGEBYRANK", "z", "5", "9"), ("ZREMRANGEBYRANK", "z", "0", "0"),
        ("ZREMRANGEBYSCORE", "z", "2", "2"), ("ZREMRANGEBYLEX", "z", "-", "+"),
        ("ZADD", "z", "1", "a", "2", "b"), ("ZUNIONSTORE", "u", "1", "z"),
        ("ZINTERSTORE", "u", "2", "z", "nosuch"), ("ZDIFFSTORE", "u", "1", "z"),
        ("ZRANGESTORE", "r", "z", "0", "0"), ("ZRANGESTORE", "r", "z", "5", "9"),
        ("ZMPOP", "1", "z", "MIN", "COUNT", "5"), ("ZADD", "z", "1", "a"),
        ("BZPOPMIN", "z", "0"), ("ZADD", "z", "1", "a"), ("BZMPOP", "0", "1", "z", "MAX"),
    ],
    "streams": [
        ("XADD", "x", "1-1", "f", "v"), ("XADD", "x", "2-1", "f", "v"),
        ("XADD", "x", "MAXLEN", "1", "3-1", "f", "v"), ("XADD", "x", "1-1", "f", "v"),
        ("XADD", "nox", "NOMKSTREAM", "*", "f", "v"), ("XTRIM", "x", "MAXLEN", "5"),
        ("XADD", "x", "4-1", "f", "v"), ("XTRIM", "x", "MAXLEN", "1"), ("XDEL", "x", "9-9"),
        ("XDEL", "x", "4-1"), ("XSETID", "x", "10-1"), ("XGROUP", "CREATE", "x", "g", "$"),
        ("XGROUP", "CREATE", "x", "g", "$"), ("XGROUP", "CREATE", "y", "g", "$", "MKSTREAM"),
        ("XGROUP", "SETID", "x", "g", "0"), ("XGROUP", "CREATECONSUMER", "x", "g", "c1"),
        ("XGROUP", "CREATECONSUMER", "x", "g", "c1"), ("XADD", "x", "11-1", "f", "v"),
        ("XREADGROUP", "GROUP", "g", "c2", "STREAMS", "x", ">"),
        ("XREADGROUP", "GROUP", "g", "c2", "STREAMS", "x", ">"),
        ("XCLAIM", "x", "g", "c3", "0", "11-1", "JUSTID"),
        ("XAUTOCLAIM", "x", "g", "c4", "0", "0", "JUSTID"), ("XACK", "x", "g", "11-1"),
        ("XGROUP", "DELCONSUMER", "x", "g", "nosuch"), ("XGROUP", "DELCONSUMER", "x", "g", "c1"),
        ("XGROUP", "DESTROY", "x", "nosuch"), ("XGROUP", "DESTROY", "x", "g"),
    ],
    "sort": [
        ("RPUSH", "l", "3", "1", "2"), ("SORT", "l", "STORE", "d"), ("SORT", "l", "STORE", "d"),
        ("SORT", "nosuch", "STORE", "d"), ("SORT", "nosuch", "STORE", "d"),
    ],
}


@pytest.mark.parametrize("resp", [2, 3])
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_family_events_as_redis(pair, family, resp):
    t, r, _ = pair()
    msgs = compare(t, r, "KEA", FAMILIES[family], resp)
    assert msgs, "the family must notify something"


@pytest.mark.parametrize("flags", ["KA", "EA", "Kg", "E$", "Kl", "Esh", "Kz", "AKEn", "KEn",
                                   "g$lshzxetdn", "K", "E", "A", ""])
def test_flags_filter_as_redis(pair, flags):
    t, r, _ = pair()
    cmds = [("SET", "a", "1"), ("EXPIRE", "a", "100"), ("RPUSH", "l", "x"), ("LPOP", "l"),
            ("HSET", "h", "f", "v"), ("SADD", "s", "m"), ("ZADD", "z", "1", "m"),
            ("DEL", "a", "h", "s", "z")]
    compare(t, r, flags, cmds)


def test_keymiss_events_as_redis(pair):
    t, r, _ = pair()
    cmds = [("SET", "a", "1"), ("GET", "a"), ("GET", "nosuch"), ("MGET", "a", "x", "y"),
            ("STRLEN", "x"), ("HGET", "h", "f"), ("HGETALL", "h"), ("LRANGE", "l", "0", "-1"),
            ("LINDEX", "l", "0"), ("SMEMBERS", "s"), ("SISMEMBER", "s", "m"),
            ("ZSCORE", "z", "m"), ("ZRANGE", "z", "0", "-1"), ("EXISTS", "x"), ("TYPE", "x"),
            ("TTL", "x"), ("XRANGE", "st", "-", "+"), ("GETRANGE", "x", "0", "1"),
            ("SET", "x", "1", "GET"), ("INCR", "x"), ("DEL", "q"), ("SUNION", "s", "t"),
            ("ZCARD", "z"), ("HLEN", "h"), ("LLEN", "l"), ("SCARD", "s"), ("OBJECT", "FREQ", "q"),
            ("COPY", "q", "w")]
    compare(t, r, "Km", cmds)
    compare(t, r, "AKEm", cmds)


def test_new_key_events_as_redis(pair):
    t, r, _ = pair()
    cmds = [("SET", "n", "1"), ("SET", "n", "2"), ("RPUSH", "l", "a"), ("RPUSH", "l", "b"),
            ("SET", "m", "1"), ("RENAME", "n", "m"), ("COPY", "m", "c"), ("MOVE", "c", "2"),
            ("SADD", "s", "a"), ("SMOVE", "s", "t", "a"), ("LMOVE", "l", "l2", "LEFT", "LEFT"),
            ("ZADD", "z", "1", "a"), ("ZUNIONSTORE", "z2", "1", "z"),
            ("ZUNIONSTORE", "z2", "1", "z"), ("HINCRBY", "h", "f", "1"), ("INCR", "i")]
    compare(t, r, "KEn", cmds)
    compare(t, r, "AKEn", [("FLUSHALL",)] + cmds)


def test_pattern_on_one_key_as_redis(pair):
    t, r, _ = pair()
    compare(t, r, "KA", [("SET", "k", "1"), ("SET", "other", "1"), ("APPEND", "k", "2"),
                         ("DEL", "k")], pattern="__keyspace@0__:k")


def served_events(server, block_cmd, cmds):
    """A client blocks in block_cmd, cmds run on another (the first one serves it); returns
    (the blocked client's reply, the messages a KEA subscriber got)."""
    with server.raw() as w, server.raw() as b, server.raw() as s:
        w.call("CONFIG", "SET", "notify-keyspace-events", "KEAn")
        s.call("PSUBSCRIBE", "__key*__:*")
        s.call("SUBSCRIBE", END)
        b.send(h.encode(*block_cmd))
        h.wait_blocked(server, 1)
        for cmd in cmds:
            w.call(*cmd)
        got = b.read_reply()
        w.call("PUBLISH", END, "x")
        msgs = []
        while True:
            raw = s.read_reply()
            if END.encode() in raw:
                return got, [short(m) for m in msgs]
            msgs.append(raw)


@pytest.mark.parametrize("block_cmd,cmds", [
    (("BLPOP", "l", "0"), [("RPUSH", "l", "a")]),
    (("BRPOP", "l", "0"), [("RPUSH", "l", "a", "b")]),
    (("BLMOVE", "l", "d", "RIGHT", "LEFT", "0"), [("RPUSH", "l", "a")]),
    (("BZPOPMIN", "z", "0"), [("ZADD", "z", "1", "a")]),
    (("BLMPOP", "0", "1", "l", "LEFT", "COUNT", "5"), [("MULTI",), ("RPUSH", "l", "a"),
                                                       ("RPUSH", "l", "b"), ("EXEC",)]),
])
def test_served_blocked_client_events_as_redis(pair, block_cmd, cmds):
    t, r, _ = pair()
    tres, rres = served_events(t, block_cmd, cmds), served_events(r, block_cmd, cmds)
    assert tres == rres
    assert any(m.startswith(b"__keyevent@0__:") and b"pop" in m for m in tres[1]), tres


def test_expired_lazy_as_redis(pair):
    t, r, _ = pair(extra=("--enable-debug-command", "yes"))
    for s in (t, r):
        with s.raw() as c:
            assert h.decode_one(c.call("DEBUG", "SET-ACTIVE-EXPIRE", "0")) == b"OK"
    cmds = [("SET", "a", "1", "PX", "20"), ("SET", "b", "1", "PX", "20"),
            ("RPUSH", "l", "x"), ("PEXPIRE", "l", "20"), ("sleep", 0.1),
            ("GET", "a"), ("EXISTS", "b"), ("RPUSH", "l", "y"), ("SET", "b", "2")]
    for resp in (2, 3):
        compare(t, r, "AKEn", cmds, resp)


def test_expired_active_as_redis(pair):
    t, r, _ = pair()
    cmds = [("SET", "a", "1", "PX", "30"), ("HSET", "h", "f", "v"), ("PEXPIRE", "h", "30"),
            ("sleep", 0.6), ("DBSIZE",)]
    # Which key an expiry cycle meets first is the hash table's order: compared as a set.
    for flags in ("Ex", "Kx"):
        _, tm = run_events(t, flags, cmds)
        _, rm = run_events(r, flags, cmds)
        assert len(tm) == 2 and sorted(tm) == sorted(rm), (tm, rm)


def test_expired_own_client_resp3(pair):
    """A RESP3 client that subscribed gets the expired event of the key its own GET expired,
    before the GET's reply, as Redis writes it."""
    t, r, _ = pair(extra=("--enable-debug-command", "yes"))
    out = []
    for s in (t, r):
        with s.raw() as c:
            c.call("DEBUG", "SET-ACTIVE-EXPIRE", "0")
            c.call("CONFIG", "SET", "notify-keyspace-events", "Ex")
            c.call("HELLO", "3")
            c.call("SUBSCRIBE", "__keyevent@0__:expired")
            c.call("SET", "k", "v", "PX", "10")
            time.sleep(0.05)
            c.send(h.encode("GET", "k"))
            out.append(c.read_replies(2))
    assert out[0] == out[1], out
    assert b"expired" in out[0][0] and out[0][1] == b"_\r\n"


def test_evicted_events(pair):
    """Eviction publishes one evicted event per key it removes (which keys is random and
    memory sizes differ, so terse is checked on its own, in Redis's message shape)."""
    t, r, _ = pair()
    for s in (t, r):
        with s.raw() as w, s.raw() as sub:
            w.call("CONFIG", "SET", "notify-keyspace-events", "Ee")
            sub.call("SUBSCRIBE", "__keyevent@0__:evicted")
            for i in range(300):
                w.call("SET", "key:%d" % i, os.urandom(500).hex())
            info = h.decode_one(w.call("INFO", "memory")).decode()
            used = int(info.split("used_memory:")[1].split("\r\n")[0])
            w.call("CONFIG", "SET", "maxmemory-policy", "allkeys-random")
            w.call("CONFIG", "SET", "maxmemory", str(used - 100000))
            w.call("SET", "trigger", "1")
            w.call("CONFIG", "SET", "maxmemory", "0")
            stats = h.decode_one(w.call("INFO", "stats")).decode()
            n = int(stats.split("evicted_keys:")[1].split("\r\n")[0])
            assert n > 0, (s.name, used)
            w.call("PUBLISH", "__keyevent@0__:evicted", END)
            keys = []
            while True:
                msg = h.decode_one(sub.read_reply())
                assert msg[0] == b"message" and msg[1] == b"__keyevent@0__:evicted", msg
                if msg[2] == END.encode():
                    break
                keys.append(msg[2])
            assert len(keys) == n, (s.name, len(keys), n)
            for k in keys:
                assert h.decode_one(w.call("EXISTS", k)) == 0, (s.name, k)


def test_config_as_redis(pair):
    t, r, d = pair()
    steps = []
    for v in ["KEA", "AKE", "gxK$nmEd", "g$lshzxetd", "g$lshzxet", "AnKm", "", "Q", "KEa",
              "tzhsl$g"]:
        steps += [("CONFIG", "SET", "notify-keyspace-events", v),
                  ("CONFIG", "GET", "notify-keyspace-events")]
    d.run(steps)


def test_client_reply_off_still_gets_messages_as_redis(pair):
    """CLIENT REPLY OFF|SKIP silence replies, not the subscription confirmations and messages
    (Redis's pubsub tests subscribe that way)."""
    t, r, _ = pair()
    script = [
        ("a", "CONFIG", "SET", "notify-keyspace-events", "KA"), ("s>", "CLIENT", "REPLY", "OFF"),
        ("s", "PSUBSCRIBE", "*"), ("a", "SET", "foo", "bar"), ("s<",),
        ("s>", "PING"), ("s", "PUNSUBSCRIBE"), ("s>", "GET", "foo"), ("s", "CLIENT", "REPLY", "ON"),
        ("a", "PUBLISH", "ch", "x"), ("s>", "CLIENT", "REPLY", "SKIP"), ("s>", "PING"),
        ("s", "PING", "back"), ("s", "CLIENT", "REPLY", "FOO"),
        ("b>", "CLIENT", "REPLY", "SKIP"), ("b>", "GET", "foo"), ("b", "GET", "foo"),
    ]
    h.compare_clients(t, r, script)


def test_notifications_off_publish_nothing(terse):
    """The default: nothing is published, with or without subscribers."""
    _, msgs = run_events(terse, "", [("SET", "a", "1"), ("DEL", "a"), ("RPUSH", "l", "x")])
    assert msgs == []
