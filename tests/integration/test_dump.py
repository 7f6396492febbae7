"""DUMP and RESTORE against redis-server 7.0, and the whole-dataset RDB writer.

- Redis -> terse: every type in every encoding redis-server writes (small listpack/intset and
  big hashtable/quicklist/skiplist variants, by its *-max-* settings), DUMP on redis-server,
  RESTORE on terse: the same DEBUG DIGEST-VALUE, TTL and OBJECT ENCODING.
- terse -> Redis: DUMP on terse, RESTORE on redis-server: the same digests.
- Encodings Redis 7.0 still loads but no longer writes (zipmap, ziplist, quicklist 1, plain
  list, zset with string scores, stream listpacks 1), built by rdb_payloads.py: RESTOREd into
  both servers, the same replies and digests.
- RESTORE's errors, reply for reply with redis-server; its TTL rules, IDLETIME/FREQ, REPLACE,
  the "restore" event, WATCH, blocked clients and maxmemory.
- Mutated payloads (CRC fixed up): terse answers OK or "Bad data format", never crashes, and a
  value it accepted reads back whole.
- terse-rdb (persist_rdb_save_fd): a terse dataset of every type, with TTLs, in several dbs,
  written as an RDB file that a real redis-server loads with the same keys, values and TTLs.
"""

import os
import random
import struct
import subprocess
import time

import pytest

import rdb_payloads as rp
import terse_harness as h
from terse_harness import Step

DEBUG_ARGS = ["--enable-debug-command", "yes"]


def digest(c, k):
    return c.execute_command("DEBUG", "DIGEST-VALUE", k)


def populate(c, big=False, neg0=True):
    """Keys of every type on client c; big: sizes past the listpack/intset limits. neg0: a
    score of -0 (redis-server's digest of it differs between its skiplist and listpack)."""
    n = 600 if big else 5
    c.set("str", "hello")
    c.set("int", 12345)
    c.set("int64", 2 ** 40)
    c.set("neg", -7)
    c.set("long", "x" * 3000)               # LZF-compressed by Redis's DUMP
    c.set("bin", bytes(range(256)))
    c.set("intlike", "0123")                # not canonical: stays a string
    c.rpush("list", *[("e%d" % i) * (1 + i % 7) for i in range(n)], 17, -3, "x" * 5000)
    c.hset("hash", mapping={("f%d" % i): ("v%d" % i) * (1 + i % 5) for i in range(n)})
    c.hset("hash", "n", 42)
    c.sadd("iset", *range(0, 3 * n, 3))
    c.sadd("iset", -5, 2 ** 40)
    c.sadd("sset", *["m%d" % i for i in range(n)])
    c.zadd("zset", {("m%d" % i): i / 7.0 for i in range(n)})
    c.zadd("zset", {"inf": float("inf"), "ninf": float("-inf")})
    if neg0:
        c.zadd("zset", {"neg0": -0.0})
    c.xadd("stream", {"a": 1, "b": "two"}, id="1-1")
    for i in range(2, 2 + n):
        c.xadd("stream", {"a": i, "b": "x" * (i % 9)}, id="%d-0" % i)
    c.xadd("stream", {"other": "fields"}, id="9999-5")
    c.xdel("stream", "3-0")
    c.xgroup_create("stream", "g1", id="0")
    c.xreadgroup("g1", "alice", {"stream": ">"}, count=3)
    c.xreadgroup("g1", "bob", {"stream": ">"}, count=2)
    c.xack("stream", "g1", "1-1")
    c.xgroup_create("stream", "g0", id="2-0")
    c.execute_command("XGROUP", "CREATECONSUMER", "stream", "g0", "carol")
    c.xadd("empty-stream", {"f": "v"}, id="5-5")
    c.xdel("empty-stream", "5-5")


def check_same(src, dst, keys):
    for k in keys:
        assert digest(src, k) == digest(dst, k), k
        assert src.type(k) == dst.type(k), k


def stream_facts(c, k):
    """What both servers must agree on for a stream, beyond the digest."""
    info = c.xinfo_stream(k)
    out = {f: info[f] for f in ("length", "last-generated-id", "max-deleted-entry-id",
                                "entries-added", "recorded-first-entry-id", "groups")}
    groups = []
    for g in c.xinfo_groups(k):
        cons = [(x["name"], x["pending"]) for x in c.xinfo_consumers(k, g["name"])]
        pend = c.xpending_range(k, g["name"], "-", "+", 1000)
        groups.append((g["name"], g["last-delivered-id"], g["entries-read"], g["lag"], cons,
                       [(p["message_id"], p["consumer"], p["times_delivered"]) for p in pend]))
    out["groups"] = groups
    return out


@pytest.mark.parametrize("big", [False, True], ids=["small", "big"])
def test_redis_to_terse(pair, big):
    ts, rs, _ = pair(DEBUG_ARGS)
    t, r = ts.client(), rs.client()
    populate(r, big)
    keys = sorted(r.keys())
    for k in keys:
        t.restore(k, 0, r.dump(k))
    check_same(r, t, keys)
    for k in keys:
        if r.type(k) in (b"hash", b"set", b"zset"):
            assert t.object("encoding", k) == r.object("encoding", k), k
    assert stream_facts(t, "stream") == stream_facts(r, "stream")
    assert stream_facts(t, "empty-stream") == stream_facts(r, "empty-stream")


def test_redis_to_terse_forced_encodings(pair):
    """redis-server holding small values as hashtable/skiplist (limits 0), and big lists in
    many quicklist nodes (list-max-listpack-size 4): other encodings of the same types."""
    ts, rs, _ = pair(DEBUG_ARGS)
    t, r = ts.client(), rs.client()
    for name, value in (("hash-max-listpack-entries", "0"), ("zset-max-listpack-entries", "0"),
                        ("set-max-intset-entries", "0"), ("list-max-listpack-size", "4"),
                        ("list-compress-depth", "1")):
        r.config_set(name, value)
    populate(r, False, neg0=False)
    r.rpush("list", *range(100))
    keys = sorted(r.keys())
    for k in keys:
        t.restore(k, 0, r.dump(k))
    check_same(r, t, keys)


def test_terse_to_redis(pair):
    ts, rs, _ = pair(DEBUG_ARGS)
    t, r = ts.client(), rs.client()
    if not h.is_redis(ts.binary):
        # redis-server checks every listpack entry and stream record of what it loads
        r.config_set("sanitize-dump-payload", "yes")
    for big in (False, True):
        t.flushall()
        r.flushall()
        populate(t, big)
        keys = sorted(t.keys())
        for k in keys:
            r.restore(k, 0, t.dump(k))
        check_same(t, r, keys)
        assert stream_facts(t, "stream") == stream_facts(r, "stream")
        # and back: what Redis dumps of terse's payloads restores to the same values
        for k in keys:
            t.restore(k, 0, r.dump(k), replace=True)
        check_same(t, r, keys)


LEGACY = {
    "list-plain": rp.obj_list_plain(["a", "1", "-2", "x" * 100]),
    "list-ziplist": rp.obj_list_ziplist(["a", 1, -2, 300, 70000, -(1 << 40), 12, 0, "b" * 300,
                                         "c" * 20000]),
    "list-quicklist": rp.obj_list_quicklist([["a", 1, 2], [], ["z" * 70, 1 << 33]]),
    "list-quicklist2-plain": rp.obj_list_quicklist2([(1, b"plain node"), (2, ["a", 5, "b"])]),
    "set-intset16": rp.obj_set_intset([5, -3, 1000], 2),
    "set-intset32": rp.obj_set_intset([100000, -7, 1], 4),
    "set-intset64": rp.obj_set_intset([1 << 40, -(1 << 50), 0], 8),
    "hash-zipmap": rp.obj_hash_zipmap([("a", "1"), ("bb", "x" * 300), ("c", "")]),
    "hash-ziplist": rp.obj_hash_ziplist([("a", 1), ("b", "two"), ("c", -(1 << 35))]),
    "hash-listpack": rp.obj_hash_listpack([("a", 1), ("b", "two"), ("c", 5000)]),
    "zset-plain": rp.obj_zset_plain([("a", 1.5), ("b", "-inf"), ("c", "inf"), ("d", 3)]),
    "zset-ziplist": rp.obj_zset_ziplist([("a", 1), ("b", "2.5"), ("c", -3)]),
    "zset-listpack": rp.obj_zset_listpack([("a", 1), ("b", "2.5"), ("c", "1e300")]),
    "stream-v1": rp.obj_stream_v1(
        [rp.stream_node((1, 1), [(1, 1, [("a", "1"), ("b", "2")], False),
                                 (1, 2, [("a", "3"), ("b", "4")], True),
                                 (2, 0, [("c", "5")], False)]),
         rp.stream_node((7, 0), [(7, 0, [("a", 9)], False)])],
        3, (7, 0),
        [("g1", (2, 0), [((1, 1), 1000, 2), ((2, 0), 2000, 1)],
          [("alice", 1500, [(1, 1)]), ("bob", 2500, [(2, 0)])]),
         ("g2", (0, 0), [], [])]),
}


@pytest.mark.parametrize("name", sorted(LEGACY))
def test_legacy_encodings(pair, name):
    ts, rs, _ = pair(DEBUG_ARGS)
    t, r = ts.client(), rs.client()
    p = rp.payload(LEGACY[name], version=9)
    assert r.restore("k", 0, p) == t.restore("k", 0, p)
    check_same(r, t, ["k"])
    if name.startswith("stream"):
        assert stream_facts(t, "k") == stream_facts(r, "k")


def _payloads(r):
    r.set("s", "value")
    r.rpush("l", "a", "b")
    good = r.dump("s")
    body = good[:-10]
    return {
        "good": good,
        "list": r.dump("l"),
        "short": good[:5],
        "badcrc": good[:-1] + bytes([good[-1] ^ 1]),
        "version11": rp.payload(body, version=11),
        "version9": rp.payload(body, version=9),
        "garbage": rp.payload(b"\x63abc"),
        "module": rp.payload(b"\x07" + rp.rdb_len(5)),
        "empty-list": rp.payload(rp.obj_list_plain([])),
        "dup-set": rp.payload(b"\x02" + rp.rdb_len(2) + rp.rdb_str("a") + rp.rdb_str("a")),
        "truncated": rp.payload(body[:-2]),
        "huge-len": rp.payload(b"\x00\x81" + b"\xff" * 8),
        "nan-zset": rp.payload(b"\x05" + rp.rdb_len(1) + rp.rdb_str("m") + b"\x00" * 6 + b"\xf8\x7f"),
    }


def test_restore_errors_like_redis(diff, redis_server):
    with redis_server.client() as c:
        p = _payloads(c)
    steps = [
        Step("RESTORE", "k", "0", p["good"]),
        Step("RESTORE", "k", "0", p["good"]),                       # BUSYKEY
        Step("RESTORE", "k", "0", p["good"], "REPLACE"),
        Step("RESTORE", "k", "-1", p["good"], "REPLACE"),
        Step("RESTORE", "k", "abc", p["good"], "REPLACE"),
        Step("RESTORE", "k2", "0", p["good"], "BOGUS"),
        Step("RESTORE", "k2", "0", p["good"], "IDLETIME"),
        Step("RESTORE", "k2", "0", p["good"], "IDLETIME", "-1"),
        Step("RESTORE", "k2", "0", p["good"], "IDLETIME", "x"),
        Step("RESTORE", "k2", "0", p["good"], "FREQ", "256"),
        Step("RESTORE", "k2", "0", p["good"], "FREQ", "-1"),
        Step("RESTORE", "k2", "0", p["good"], "IDLETIME", "5", "FREQ", "5"),
        Step("RESTORE", "k2", "0", p["good"], "FREQ", "5", "IDLETIME", "5"),
        Step("RESTORE", "k2"),
        Step("RESTORE", "k2", "0"),
        Step("EXISTS", "k2"),
    ]
    for name in ("short", "badcrc", "version11", "version9", "garbage", "module", "empty-list",
                 "dup-set", "truncated", "huge-len", "nan-zset", "list"):
        steps.append(Step("RESTORE", "e-" + name, "0", p[name]))
        steps.append(Step("EXISTS", "e-" + name))
    steps += [
        Step("RESTORE", "past", "1", p["good"], "ABSTTL"),          # already expired: OK, none
        Step("EXISTS", "past"),
        Step("SET", "past", "old"),
        Step("RESTORE", "past", "1", p["good"], "ABSTTL", "REPLACE"),  # deletes the old one
        Step("EXISTS", "past"),
        Step("RESTORE", "ttl", "100000", p["good"]),
        Step("PTTL", "ttl", norm=lambda raw: b"ttl" if raw.startswith(b":") and
             99000 < int(raw[1:-2]) <= 100000 else raw, why="the TTL counts down"),
        Step("RESTORE", "abs", "99999999999999", p["good"], "ABSTTL"),
        Step("PEXPIRETIME", "abs"),
        Step("GET", "abs"),
        Step("DUMP", "nosuchkey"),
        Step("DUMP"),
        Step("SET", "n", "12"),
        Step("DUMP", "n"),
        Step("OBJECT", "ENCODING", "k"),
    ]
    diff.run(steps, "RESTORE errors")


def test_restore_idle_freq_and_events(pair):
    ts, rs, _ = pair(DEBUG_ARGS)
    seen = {}
    for s in (ts, rs):
        c = s.client()
        c.set("a", "v")
        p = c.dump("a")
        c.restore("i", 0, p, idletime=1000)
        assert 1000 <= c.object("idletime", "i") <= 1002
        c.config_set("maxmemory-policy", "allkeys-lfu")
        c.restore("f", 0, p, frequency=77)
        assert c.object("freq", "f") == 77
        c.config_set("notify-keyspace-events", "KEAn")
        ps = c.pubsub()
        ps.psubscribe("__keyspace@0__:ev*")
        assert ps.get_message(timeout=1)["type"] == "psubscribe"
        c.restore("ev", 0, p)
        c.restore("ev", 0, p, replace=True)
        c.restore("ev", 1, p, replace=True, absttl=True)   # in the past: deleted, "del"
        c.restore("ev2", 50, p)
        time.sleep(0.2)
        c.get("ev2")                                        # expired: "expired"
        c.set("last", 1)
        events = []
        deadline = time.time() + 2
        while time.time() < deadline:
            m = ps.get_message(timeout=0.2)
            if m is None and events[-1:] == [(b"__keyspace@0__:ev2", b"expired")]:
                break
            if m and m["type"] == "pmessage":
                events.append((m["channel"], m["data"]))
        seen[s.name] = events
        ps.close()
        c.close()
    assert seen[ts.name] == seen[rs.name]
    assert (b"__keyspace@0__:ev", b"restore") in seen[ts.name]


def test_restore_wakes_watch_and_blocked(terse):
    c, w, b = terse.client(), terse.client(), terse.client()
    c.rpush("src", "x")
    p = c.dump("src")
    pipe = w.pipeline()
    pipe.watch("dst")
    pipe.multi()
    pipe.set("other", 1)
    c.restore("dst", 0, p)
    with pytest.raises(Exception):
        pipe.execute()
    raw = terse.raw()
    raw.send(h.encode("BLPOP", "q", "5"))
    time.sleep(0.2)
    c.restore("q", 0, p)
    assert h.decode_one(raw.read_reply()) == [b"q", b"x"]
    raw.close()
    for x in (c, w, b):
        x.close()


def test_restore_respects_maxmemory(pair):
    ts, rs, _ = pair(DEBUG_ARGS)
    t, r = ts.client(), rs.client()
    r.set("big", random.Random(3).randbytes(4_000_000))  # incompressible
    p = r.dump("big")
    used = int(t.info("memory")["used_memory"])
    t.config_set("maxmemory", used + 100_000)
    with pytest.raises(Exception) as e:
        t.restore("big", 0, p)
    assert str(e.value).startswith("OOM"), e.value
    assert t.exists("big") == 0


def test_mutated_payloads_are_refused_or_whole(terse, redis_server, terse_binary):
    if h.is_redis(terse_binary):
        pytest.skip("redis-server without sanitize-dump-payload may crash on these, by design")
    rng = random.Random(7)
    with redis_server.client() as c:
        c.flushall()
        populate(c, False)
        bodies = [c.dump(k)[:-10] for k in sorted(c.keys())]
        c.flushall()
    t = terse.client()
    for i in range(1500):
        body = bytearray(rng.choice(bodies))
        for _ in range(rng.randint(1, 4)):
            if not body:
                break
            pos = rng.randrange(len(body))
            if rng.random() < 0.2:
                del body[pos:pos + rng.randint(1, 8)]
            else:
                body[pos] = rng.randrange(256)
        try:
            assert t.restore("m%d" % i, 0, rp.payload(bytes(body))) == b"OK"
        except Exception as e:
            assert str(e) == "Bad data format", str(e)
            continue
        # accepted: the value reads back whole (no CORRUPT error) and dumps again
        k = "m%d" % i
        assert t.dump(k) is not None
        typ = t.type(k)
        if typ == b"string":
            t.get(k)
        elif typ == b"list":
            t.lrange(k, 0, -1)
        elif typ == b"hash":
            t.hgetall(k)
        elif typ == b"set":
            t.smembers(k)
        elif typ == b"zset":
            t.zrange(k, 0, -1, withscores=True)
        elif typ == b"stream":
            t.xrange(k)
            t.xinfo_stream(k)
    t.close()


def test_rdb_file_loads_in_redis(spawn, terse_binary, oracle_binary, tmp_path):
    tool = os.path.join(os.path.dirname(terse_binary), "terse-rdb")
    if h.is_redis(terse_binary) or not os.path.exists(tool):
        pytest.skip("needs terse-server and build/terse-rdb beside it")
    ts = spawn("terse", DEBUG_ARGS + ["--dbfilename", "t.snap"])
    t = ts.client()
    populate(t, True)
    t.expire("list", 1000)
    t.pexpire("zset", 5_000_000)
    t.set("gone", "v", px=1)
    t3 = ts.client(db=3)
    populate(t3, False)
    t3.set("ttl3", "v", ex=3000)
    time.sleep(0.01)
    t.save()
    out = tmp_path / "out.rdb"
    run = subprocess.run([tool, os.path.join(ts.workdir, "t.snap"), str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert out.read_bytes()[:9] == b"REDIS0010"
    rs = h.Server(oracle_binary, str(tmp_path), DEBUG_ARGS + ["--dir", str(tmp_path),
                                                              "--dbfilename", "out.rdb",
                                                              "--sanitize-dump-payload", "yes"],
                  name="redis-load").start()
    try:
        for db in (0, 3):
            r, tt = rs.client(db=db), ts.client(db=db)
            keys = sorted(tt.keys())
            assert sorted(r.keys()) == keys and keys
            check_same(tt, r, keys)
            for k in keys:
                a, b = tt.pttl(k), r.pttl(k)
                assert (a < 0 and a == b) or abs(a - b) < 5000, (k, a, b)
            r.close()
            tt.close()
        assert rs.client().exists("gone") == 0
        assert stream_facts(t, "stream") == stream_facts(rs.client(), "stream")
    finally:
        rs.stop()


@pytest.mark.parametrize("kind", ["hash", "set", "zset", "list"])
def test_restore_of_a_big_container_is_chunked(spawn, kind):
    """RESTORE of redis-server's DUMP of a 20,000-element container leaves terse holding it in
    chunks (DEBUG OBJECT's terse_chunks), as a load does, not as one value that every read
    would decode whole until the next write; the digest, the TTL and OBJECT ENCODING are
    redis-server's."""
    r, t = spawn("redis", DEBUG_ARGS), spawn("terse", DEBUG_ARGS)
    rc, tc = r.client(), t.client()
    with rc.pipeline(transaction=False) as p:
        fill = {"hash": lambda i: p.hset("k", "field:%d" % i, "value %d" % i),
                "set": lambda i: p.sadd("k", "member:%d" % i),
                "zset": lambda i: p.zadd("k", {"member:%d" % i: i % 97}),
                "list": lambda i: p.rpush("k", "element %d" % i)}[kind]
        for i in range(20000):
            fill(i)
        p.execute()
    payload = rc.dump("k")
    t0 = time.monotonic()
    assert tc.restore("k", 60000, payload) == b"OK"
    info = dict(f.split(b":", 1) for f in tc.execute_command("DEBUG", "OBJECT", "k").split()
                if b":" in f)
    assert int(info.get(b"terse_chunks", 0)) > 1, info
    rc.pexpire("k", 60000)  # a digest counts whether the key has a TTL
    assert digest(tc, "k") == digest(rc, "k")
    assert tc.object("encoding", "k") == rc.object("encoding", "k")
    # the TTL runs from the RESTORE (slow under the sanitizers): what is left is 60 s less
    # the time since it was sent, give or take a second
    left, since = tc.pttl("k"), (time.monotonic() - t0) * 1000
    assert 60000 - since - 1000 < left <= 60000, (left, since)
