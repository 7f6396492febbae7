"""Chunked hashes and sets: a hashtable-encoded hash or set whose form passes terse-chunk-bytes
is held as chunks cut by ranges of a seeded hash of its fields (coll/coll_hash.h). What a user
sees must not change: every reply as redis-server's (the order of a whole-hash or whole-set
reply is a hashtable's own on both, so those are compared as sets), HSCAN's guarantee, a
corrupt chunk answering -CORRUPT for its key alone, snapshots, DUMP/RESTORE, WATCH and
replicas carrying every edit.
"""

import random
import time

import pytest

import random_diff as rd
import terse_harness as h
from terse_harness import decode_one

KEYS = [b"h0", b"h1", b"h2"]
SKEYS = [b"s0", b"s1", b"s2"]
UNORDERED = {"HGETALL": 2, "HKEYS": 1, "HVALS": 1, "SMEMBERS": 1, "SINTER": 1, "SUNION": 1,
             "SDIFF": 1}


def random_field(rng):
    return b"f%d" % rng.randrange(400)


def random_value(rng, big):
    r = rng.random()
    if r < 0.3:
        return b"%d" % rng.randrange(-1000, 100000)
    if r < 0.35:
        return b""
    n = rng.randrange(1, 900 if big else 60)
    return rd.letters(rng, n)


def random_command(rng, big):
    k = rng.choice(KEYS)
    k2 = rng.choice(KEYS)
    f = lambda: random_field(rng)
    pick = rng.random()
    if pick < 0.30:
        pairs = []
        for _ in range(rng.randrange(1, 10)):
            pairs += [f(), random_value(rng, big)]
        return ("HSET" if rng.random() < 0.8 else "HMSET", k, *pairs)
    if pick < 0.34:
        return ("HSETNX", k, f(), random_value(rng, big))
    if pick < 0.46:
        return ("HDEL", k, *[f() for _ in range(rng.randrange(1, 12))])
    if pick < 0.56:
        return ("HGET", k, f())
    if pick < 0.61:
        return ("HMGET", k, *[f() for _ in range(rng.randrange(1, 6))])
    if pick < 0.65:
        return ("HEXISTS", k, f())
    if pick < 0.69:
        return ("HSTRLEN", k, f())
    if pick < 0.73:
        return ("HINCRBY", k, f(), rng.randrange(-50, 50))
    if pick < 0.75:
        return ("HINCRBYFLOAT", k, f(), "%.2f" % rng.uniform(-5, 5))
    if pick < 0.80:
        return ("HLEN", k)
    if pick < 0.83:
        return (rng.choice(["HKEYS", "HVALS", "HGETALL"]), k)
    if pick < 0.84:
        return ("OBJECT", "ENCODING", k)
    if pick < 0.845:
        return ("DEL", k)
    if pick < 0.85:
        return ("COPY", k, k2, "REPLACE")
    if pick < 0.86:
        return ("EXISTS", k)
    return ("HGET", k, f())


def normalize(cmd, reply):
    """A whole-hash reply as a sorted list of its elements (pairs for HGETALL)."""
    name = cmd[0] if isinstance(cmd[0], str) else cmd[0].decode()
    if name not in UNORDERED or not reply.startswith(b"*"):
        return reply
    items = decode_one(reply)
    step = UNORDERED[name]
    return sorted(tuple(items[i:i + step]) for i in range(0, len(items), step))


def random_member(rng):
    r = rng.random()
    if r < 0.3:
        return b"%d" % rng.randrange(-500, 500)
    return b"member:%d:" % rng.randrange(600) + b"m" * rng.randrange(0, 30)


def random_set_command(rng):
    k, k2 = rng.choice(SKEYS), rng.choice(SKEYS)
    m = lambda: random_member(rng)
    pick = rng.random()
    if pick < 0.35:
        return ("SADD", k, *[m() for _ in range(rng.randrange(1, 14))])
    if pick < 0.48:
        return ("SREM", k, *[m() for _ in range(rng.randrange(1, 10))])
    if pick < 0.58:
        return ("SISMEMBER", k, m())
    if pick < 0.63:
        return ("SMISMEMBER", k, *[m() for _ in range(rng.randrange(1, 6))])
    if pick < 0.68:
        return ("SCARD", k)
    if pick < 0.74:
        return ("SMOVE", k, k2, m())
    if pick < 0.77:
        return ("SMEMBERS", k)
    if pick < 0.80:
        return (rng.choice(["SINTER", "SUNION", "SDIFF"]), k, k2)
    if pick < 0.82:
        return (rng.choice(["SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"]), b"dst", k, k2)
    if pick < 0.84:
        return ("SINTERCARD", 2, k, k2)
    if pick < 0.86:
        return ("ZUNIONSTORE", b"z", 2, k, k2)
    if pick < 0.87:
        return ("OBJECT", "ENCODING", k)
    if pick < 0.875:
        return ("DEL", k)
    if pick < 0.88:
        return ("COPY", k, k2, "REPLACE")
    return ("SISMEMBER", k, m())


@pytest.mark.slow
@pytest.mark.parametrize("entries,chunk,big,seed", [
    ("4", "256", False, 1),     # hashtable at once, tiny chunks: splits and merges all the time
    ("4", "256", True, 2),      # values bigger than a chunk live alone
    ("128", "1024", False, 3),  # listpack first, then chunked, and back to one value
])
def test_random_hash_commands_match_redis(spawn, entries, chunk, big, seed):
    """Thousands of random hash commands on three keys, on terse (chunked past terse-chunk-bytes)
    and redis-server with the same hash-max-listpack-entries: every reply is the same, the
    whole-hash ones as sets."""
    t = spawn("terse", ["--hash-max-listpack-entries", entries, "--terse-chunk-bytes", chunk])
    r = spawn("redis", ["--hash-max-listpack-entries", entries])
    rng = random.Random(seed)
    cmds = [random_command(rng, big) for _ in range(6000)]
    finish = [("HGETALL", k) for k in KEYS]
    got_t = rd.run_pipelined(t, cmds, finish, normalize)
    got_r = rd.run_pipelined(r, cmds, finish, normalize)
    rd.assert_same_replies(cmds, got_t, got_r, "hash-max-listpack-entries %s" % entries)
    with t.raw() as c:
        sizes = [decode_one(c.call("MEMORY", "USAGE", k)) or 0 for k in KEYS]
    assert max(sizes) > 4 * int(chunk), sizes  # the run crossed chunks, it did not stay small


@pytest.mark.slow
@pytest.mark.parametrize("entries,chunk,seed", [("4", "256", 5), ("512", "1024", 6)])
def test_random_set_commands_match_redis(spawn, entries, chunk, seed):
    """Thousands of random set commands (SADD, SREM, SMOVE, the algebra and its STORE forms,
    ZUNIONSTORE over sets) on three keys, on terse chunked past terse-chunk-bytes and on
    redis-server with the same set-max-intset-entries: every reply the same, whole sets as
    sets."""
    t = spawn("terse", ["--set-max-intset-entries", entries, "--terse-chunk-bytes", chunk])
    r = spawn("redis", ["--set-max-intset-entries", entries])
    rng = random.Random(seed)
    cmds = [random_set_command(rng) for _ in range(6000)]
    finish = [("SMEMBERS", k) for k in SKEYS + [b"dst"]]
    got_t = rd.run_pipelined(t, cmds, finish, normalize)
    got_r = rd.run_pipelined(r, cmds, finish, normalize)
    rd.assert_same_replies(cmds, got_t, got_r, "set-max-intset-entries %s" % entries)
    with t.raw() as c:
        sizes = [decode_one(c.call("MEMORY", "USAGE", k)) or 0 for k in SKEYS]
    assert max(sizes) > 2 * int(chunk), sizes


def test_spop_and_srandmember_on_a_chunked_set(spawn):
    """SPOP takes members of the set, each once, until it is empty (then the key is gone);
    SRANDMEMBER with a positive count answers distinct members; a replica of terse (a
    redis-server) ends with the same set, SPOP being fed as the SREMs it made."""
    t = spawn("terse", ["--terse-chunk-bytes", "256"])
    r = spawn("redis", ["--replicaof", "127.0.0.1", str(t.port)])
    members = {b"member-%d" % i for i in range(5000)}
    with t.raw() as c, r.raw() as rc:
        for i, chunk in enumerate(range(0, 5000, 1000)):
            c.call("SADD", "s", *sorted(members)[chunk:chunk + 1000])
        assert decode_one(c.call("OBJECT", "ENCODING", "s")) == b"hashtable"
        picks = decode_one(c.call("SRANDMEMBER", "s", 300))
        assert len(set(picks)) == 300 and set(picks) <= members
        popped = [decode_one(c.call("SPOP", "s"))]
        for n in (1, 7, 100, 1500):
            popped += decode_one(c.call("SPOP", "s", n))
        left = set(decode_one(c.call("SMEMBERS", "s")))
        assert len(popped) == len(set(popped)) == 1609
        assert set(popped) | left == members and not set(popped) & left
        h.wait_until(lambda: h.link_up(rc) and
                             set(decode_one(rc.call("SMEMBERS", "s"))) == left,
                     "the replica did not get the same set", 20)
        rest = decode_one(c.call("SPOP", "s", 10000))
        assert set(rest) == left and c.call("EXISTS", "s") == b":0\r\n"


def test_big_set_survives_restart(spawn, tmp_path):
    """A set of 100,000 members saved and read back by a restart: the same members, still
    hashtable-encoded and writable (SADD, SREM, SISMEMBER) after the load."""
    d = str(tmp_path)
    members = [b"user:%08d" % i for i in range(100000)]
    t = spawn("terse", ["--dir", d])
    with t.raw() as c:
        for i in range(0, len(members), 10000):
            c.call("SADD", "s", *members[i:i + 10000])
        assert c.call("SAVE") == b"+OK\r\n"
    t.stop()
    t2 = spawn("terse", ["--dir", d])
    with t2.raw() as c:
        assert decode_one(c.call("SCARD", "s")) == len(members)
        assert sorted(decode_one(c.call("SMEMBERS", "s"))) == members
        assert c.call("SISMEMBER", "s", members[4242]) == b":1\r\n"
        assert c.call("SADD", "s", "new", members[7]) == b":1\r\n"
        assert c.call("SREM", "s", members[8], "absent") == b":1\r\n"
        assert decode_one(c.call("SCARD", "s")) == len(members)
        assert decode_one(c.call("OBJECT", "ENCODING", "s")) == b"hashtable"


def big_hash(n, width=40):
    return {b"field:%07d" % i: b"v%d:" % i + b"x" * (i % width) for i in range(n)}


def hset_all(c, key, d, step=5000):
    items = list(d.items())
    for i in range(0, len(items), step):
        c.call("HSET", key, *[x for kv in items[i:i + step] for x in kv])


def hgetall(c, key):
    flat = decode_one(c.call("HGETALL", key))
    return dict(zip(flat[0::2], flat[1::2]))


def test_hscan_returns_every_field_present_throughout(spawn):
    """HSCAN over a chunked hash while other fields come and go: every field present from the
    first call to the last is returned, the cursor ends at 0, MATCH filters, and COUNT
    bounds the work of a call (a few chunks), not the hash."""
    t = spawn("terse", ["--terse-chunk-bytes", "512"])
    d = big_hash(20000)
    with t.raw() as c:
        hset_all(c, "h", d)
        seen, cursor, calls, rng = {}, b"0", 0, random.Random(7)
        while True:
            cursor, flat = decode_one(c.call("HSCAN", "h", cursor, "COUNT", 50))
            calls += 1
            assert len(flat) < 2 * 400, len(flat)
            seen.update(zip(flat[0::2], flat[1::2]))
            c.call("HSET", "h", b"new:%d" % rng.randrange(10 ** 6), "x")
            c.call("HDEL", "h", b"new:%d" % rng.randrange(10 ** 6))
            if cursor == b"0":
                break
        assert calls > 20
        for f, v in d.items():
            assert seen.get(f) == v, f
        cursor, got = b"0", set()
        while True:
            cursor, flat = decode_one(c.call("HSCAN", "h", cursor, "MATCH", "field:00001*"))
            got.update(flat[0::2])
            if cursor == b"0":
                break
        assert got == {f for f in d if f.startswith(b"field:00001")}


def test_hrandfield_on_a_chunked_hash(spawn):
    """HRANDFIELD with and without counts picks fields of the hash: distinct for a positive
    count (all of them past the size), repeats allowed for a negative one, values with
    WITHVALUES belonging to their fields, and every field reachable."""
    t = spawn("terse", ["--terse-chunk-bytes", "256"])
    d = big_hash(3000)
    with t.raw() as c:
        hset_all(c, "h", d)
        singles = {decode_one(c.call("HRANDFIELD", "h")) for _ in range(300)}
        assert singles <= set(d) and len(singles) > 200
        picks = decode_one(c.call("HRANDFIELD", "h", 100))
        assert len(picks) == 100 == len(set(picks)) and set(picks) <= set(d)
        assert sorted(decode_one(c.call("HRANDFIELD", "h", 5000))) == sorted(d)
        many = decode_one(c.call("HRANDFIELD", "h", -20000))
        assert len(many) == 20000 and set(many) <= set(d) and len(set(many)) > 2500
        flat = decode_one(c.call("HRANDFIELD", "h", 1200, "WITHVALUES"))
        assert len(flat) == 2400 and all(d[f] == v for f, v in zip(flat[0::2], flat[1::2]))


def test_corrupt_chunk_is_its_keys_error_alone(spawn):
    """DEBUG CORRUPT-VALUE on a chunked hash: reads of it answer -CORRUPT and no byte of the bad
    chunk is returned; a hash beside it answers as before; DEL frees it."""
    t = spawn("terse", ["--enable-debug-command", "yes", "--terse-chunk-bytes", "256"])
    d = big_hash(2000)
    with t.raw() as c:
        hset_all(c, "bad", d)
        hset_all(c, "good", d)
        assert c.call("DEBUG", "CORRUPT-VALUE", "bad") == b"+OK\r\n"
        replies = [c.call(*cmd) for cmd in (("HGETALL", "bad"), ("HKEYS", "bad"),
                                              ("HVALS", "bad"), ("DUMP", "bad"))]
        assert all(r.startswith(b"-CORRUPT") for r in replies), [h.show(r) for r in replies]
        gets = [c.call("HGET", "bad", f) for f in list(d)[:400]]
        assert any(g.startswith(b"-CORRUPT") for g in gets)
        assert all(g.startswith(b"-CORRUPT") or decode_one(g) == d[f]
                   for f, g in zip(list(d)[:400], gets))
        assert hgetall(c, "good") == d
        assert c.call("DEL", "bad") == b":1\r\n"


def test_big_hash_survives_reload_and_restart(spawn, tmp_path):
    """A hash of 100,000 fields saved, read back by DEBUG RELOAD and by a restart on the
    snapshot: the same fields and values, still chunked (MEMORY USAGE under its raw size),
    writable after the load (the loaded chunks keep the seed that placed their fields)."""
    d = str(tmp_path)
    want = big_hash(100000)
    raw = sum(len(f) + len(v) for f, v in want.items())
    t = spawn("terse", ["--dir", d, "--enable-debug-command", "yes"])
    with t.raw() as c:
        hset_all(c, "h", want)
        assert c.call("DEBUG", "RELOAD") == b"+OK\r\n"
        assert hgetall(c, "h") == want
        assert c.call("SAVE") == b"+OK\r\n"
    t.stop()
    t2 = spawn("terse", ["--dir", d])
    with t2.raw() as c:
        assert decode_one(c.call("HLEN", "h")) == len(want)
        assert decode_one(c.call("OBJECT", "ENCODING", "h")) == b"hashtable"
        for f in random.Random(3).sample(sorted(want), 200):
            assert decode_one(c.call("HGET", "h", f)) == want[f]
        assert c.call("HSET", "h", "field:0000007", "changed", "brand-new", "1") == b":1\r\n"
        assert c.call("HDEL", "h", "field:0000008") == b":1\r\n"
        want[b"field:0000007"] = b"changed"
        want[b"brand-new"] = b"1"
        del want[b"field:0000008"]
        assert hgetall(c, "h") == want
        assert decode_one(c.call("MEMORY", "USAGE", "h")) < raw


def test_big_hash_from_a_redis_master(spawn):
    """terse as the replica of a redis-server master holding a 50,000-field hash: the full
    sync's RDB loads it (every field there, held in less than its raw size; the load chunks it,
    cmd_value_after_load), and the master's later edits to it reach the replica."""
    want = big_hash(50000)
    raw = sum(len(f) + len(v) for f, v in want.items())
    r = spawn("redis")
    with r.raw() as c:
        hset_all(c, "h", want)
    t = spawn("terse", ["--replicaof", "127.0.0.1", str(r.port)])
    with t.raw() as tc, r.raw() as rc:
        deadline = time.monotonic() + 30
        while decode_one(tc.call("HLEN", "h")) != len(want):
            assert time.monotonic() < deadline, "the replica never loaded the hash"
            time.sleep(0.05)
        assert hgetall(tc, "h") == want
        assert decode_one(tc.call("MEMORY", "USAGE", "h")) < raw
        rc.call("HSET", "h", "x", "y")
        rc.call("HDEL", "h", "field:0000009")
        want[b"x"] = b"y"
        del want[b"field:0000009"]
        while hgetall(tc, "h") != want:
            assert time.monotonic() < deadline, "the replica did not catch up"
            time.sleep(0.05)


def test_big_hash_dump_restores_on_redis(spawn):
    """DUMP of a chunked hash is an RDB payload redis-server RESTOREs to the same hash, and
    RESTORE of redis-server's DUMP gives terse the same hash back, chunked."""
    # Servers of its own: the big forms grow the scratch buffers a shared server keeps.
    terse, oracle = spawn("terse"), spawn("redis")
    want = big_hash(20000)
    with terse.raw() as tc, oracle.raw() as rc:
        hset_all(tc, "big", want)
        hset_all(rc, "big", want)
        ours = decode_one(tc.call("DUMP", "big"))
        theirs = decode_one(rc.call("DUMP", "big"))
        assert rc.call("RESTORE", "from-terse", 0, ours) == b"+OK\r\n"
        assert tc.call("RESTORE", "from-redis", 0, theirs) == b"+OK\r\n"
        assert hgetall(rc, "from-terse") == want
        assert hgetall(tc, "from-redis") == want
        assert decode_one(tc.call("HGET", "from-redis", "field:0012345")) == want[b"field:0012345"]


def test_dump_of_a_chunked_hash_copies_it_once(spawn):
    """DUMP reads a chunked hash a chunk at a time into its reply: at its peak it holds the
    payload about twice (the reply buffer as it grows), not the whole form and the payload
    beside the reply (about 6x before); the payload still RESTOREs to the same hash."""
    t = spawn("terse")
    want = big_hash(200000)
    with t.raw() as c:
        hset_all(c, "big", want)
        c.call("CONFIG", "RESETSTAT")
        before = int(h.info_field(c, "used_memory", "memory"))
        payload = decode_one(c.call("DUMP", "big"))
        grew = int(h.info_field(c, "used_memory_peak", "memory")) - before
        assert len(payload) > 8 << 20 and grew < 3 * len(payload), (len(payload), grew)
        assert c.call("RESTORE", "again", 0, payload) == b"+OK\r\n"
        assert hgetall(c, "again") == want


def test_sort_by_a_field_of_chunked_hashes(spawn):
    """SORT ... BY weight_*->field and GET #->field read fields of chunked hashes as
    redis-server does."""
    # Servers of its own: the big forms grow the scratch buffers a shared server keeps.
    terse, oracle = spawn("terse"), spawn("redis")
    with terse.raw() as tc, oracle.raw() as rc:
        for c in (tc, rc):
            c.call("RPUSH", "ids", *range(50))
            fill = [x for i in range(2000) for x in (b"pad%d" % i, b"p" * 20)]
            for i in range(50):
                c.call("HSET", "obj:%d" % i, "w", (i * 37) % 50, "name", "n%d" % i, *fill)
        for cmd in (("SORT", "ids", "BY", "obj:*->w"),
                    ("SORT", "ids", "BY", "obj:*->w", "GET", "obj:*->name", "DESC"),
                    ("SORT", "ids", "BY", "obj:*->missing", "GET", "#", "GET", "obj:*->pad7")):
            assert tc.call(*cmd) == rc.call(*cmd), cmd


def test_watch_and_a_replica_see_in_place_edits(spawn):
    """A chunked hash changes in place: WATCH fails the transaction for each kind of write, and
    a redis-server replica of terse receives the full hash and then every edit."""
    t = spawn("terse")
    want = big_hash(5000)
    with t.raw() as c, t.raw() as other:
        hset_all(c, "big", want)
        for cmd in (("HSET", "big", "field:0000001", "x"), ("HDEL", "big", "field:0000002"),
                    ("HINCRBY", "big", "n", 3), ("HINCRBYFLOAT", "big", "n", 1.5),
                    ("HSETNX", "big", "fresh", 1)):
            assert c.call("WATCH", "big") == b"+OK\r\n"
            other.call(*cmd)
            c.call("MULTI")
            c.call("HLEN", "big")
            assert c.call("EXEC") == b"*-1\r\n", cmd
    r = spawn("redis", ["--replicaof", "127.0.0.1", str(t.port)])
    with t.raw() as c, r.raw() as rc:
        h.wait_until(lambda: h.link_up(rc), "the replica never came up", 20)
        c.call("HSET", "big", "after-sync", "1", "field:0000003", "edited")
        c.call("HDEL", "big", "field:0000004", "field:0000005")
        c.call("HINCRBY", "big", "n", 10)
        want = hgetall(c, "big")
        while hgetall(rc, "big") != want:
            assert time.monotonic() < deadline, "the replica did not catch up"
            time.sleep(0.05)
