"""Chunked streams: a stream of more than one Redis node is held one chunk per node, its IDs,
counters and groups in a meta chunk (coll/coll_stream.h). What a user sees must not change:
every reply as redis-server's, byte for byte, through thousands of node openings, deletions
and trims; nodes where Redis's listpacks end (radix-tree-keys); a corrupt chunk answering
-CORRUPT for its key alone; snapshots and DUMP carrying the stream whole.
"""

import random
import time

import pytest

import random_diff as rd
import terse_harness as h
from terse_harness import decode_one
from test_chunked_zset import settled_usage

KEYS = [b"s0", b"s1"]


def random_fields(rng):
    n = rng.choice([1, 1, 2, 3])
    if rng.random() < 0.6:  # the same fields often: SAMEFIELDS entries in Redis's nodes
        names = [b"f%d" % i for i in range(n)]
    else:
        names = [b"g%d" % rng.randrange(5) for _ in range(n)]
    out = []
    for f in names:
        r = rng.random()
        v = (b"%d" % rng.randrange(-5000, 10 ** 6) if r < 0.3
             else rd.letters(rng, rng.randrange(0, 120))[:rng.randrange(0, 120)])
        out += [f, v]
    return out


class Ids:
    def __init__(self):
        self.ms = {k: 0 for k in KEYS}

    def next(self, rng, k):
        self.ms[k] += rng.choice([0, 1, 1, 3])
        return self.ms[k]

    def some(self, rng, k):
        return b"%d-%d" % (rng.randrange(0, self.ms[k] + 2), rng.randrange(0, 3))


def random_command(rng, ids):
    k = rng.choice(KEYS)
    pick = rng.random()
    if pick < 0.45:
        cmd = ["XADD", k]
        r = rng.random()
        if r < 0.08:
            cmd += ["MAXLEN", rng.choice(["~", "="]), rng.randrange(0, 300)]
        elif r < 0.1:
            cmd += ["MINID", rng.choice(["~", "="]), ids.some(rng, k)]
        return tuple(cmd + [b"%d-*" % ids.next(rng, k)] + random_fields(rng))
    if pick < 0.52:
        return ("XDEL", k, *[ids.some(rng, k) for _ in range(rng.randrange(1, 4))])
    if pick < 0.55:
        return ("XTRIM", k, "MAXLEN", rng.choice(["~", "="]), rng.randrange(50, 400))
    if pick < 0.65:
        a, b = sorted([ids.some(rng, k), ids.some(rng, k)], key=lambda x: tuple(map(int, x.split(b"-"))))
        cmd = [rng.choice(["XRANGE", "XREVRANGE"]), k]
        cmd += [a, b] if cmd[0] == "XRANGE" else [b, a]
        if rng.random() < 0.2:
            cmd[2:4] = [b"-", b"+"] if cmd[0] == "XRANGE" else [b"+", b"-"]
        if rng.random() < 0.7:
            cmd += ["COUNT", rng.randrange(0, 15)]
        return tuple(cmd)
    if pick < 0.68:
        return ("XREAD", "COUNT", rng.randrange(1, 12), "STREAMS", k, ids.some(rng, k))
    if pick < 0.70:
        return ("XLEN", k)
    if pick < 0.72:
        return ("XGROUP", "CREATE", k, b"g%d" % rng.randrange(3), rng.choice([b"0", b"$"]),
                "MKSTREAM")
    if pick < 0.82:
        return ("XREADGROUP", "GROUP", b"g%d" % rng.randrange(3), b"c%d" % rng.randrange(3),
                "COUNT", rng.randrange(1, 10), "STREAMS", k, rng.choice([b">", b">", b"0"]))
    if pick < 0.87:
        return ("XACK", k, b"g%d" % rng.randrange(3), *[ids.some(rng, k) for _ in range(3)])
    if pick < 0.90:
        return ("XPENDING", k, b"g%d" % rng.randrange(3))
    if pick < 0.93:
        return ("XCLAIM", k, b"g%d" % rng.randrange(3), b"c%d" % rng.randrange(3), 0,
                *[ids.some(rng, k) for _ in range(2)], "JUSTID")
    if pick < 0.96:
        return ("XAUTOCLAIM", k, b"g%d" % rng.randrange(3), b"c%d" % rng.randrange(3), 0,
                ids.some(rng, k), "COUNT", rng.randrange(1, 8))
    if pick < 0.97:
        return ("XGROUP", "SETID", k, b"g%d" % rng.randrange(3), ids.some(rng, k))
    if pick < 0.975:
        return ("DEL", k)
    if pick < 0.98:
        return ("XGROUP", "DELCONSUMER", k, b"g%d" % rng.randrange(3), b"c%d" % rng.randrange(3))
    if pick < 0.983:
        return ("XGROUP", "CREATECONSUMER", k, b"g%d" % rng.randrange(3),
                b"c%d" % rng.randrange(4))
    if pick < 0.985:
        return ("XGROUP", "DESTROY", k, b"g%d" % rng.randrange(3))
    if pick < 0.99:
        return ("XINFO", "GROUPS", k)
    return ("XRANGE", k, "-", "+", "COUNT", 5)


@pytest.mark.slow
@pytest.mark.parametrize("entries,nbytes,seed,chunk", [
    ("4", "4096", 1, "4096"),  # a node every four entries: thousands of nodes open and go
    ("100", "300", 2, "4096"),  # nodes closed by their listpack's bytes
    ("0", "4096", 3, "4096"),   # Redis's defaults but no entry limit
    ("4", "4096", 4, "64"),     # PEL chunks of one or two entries: split and merged all along
    ("100", "300", 5, "256"),   # PEL chunks of a few entries
])
def test_random_stream_commands_match_redis(spawn, entries, nbytes, seed, chunk):
    """Thousands of random stream commands on two keys, with the same stream-node-max-entries
    and -bytes on both servers: every reply and the final streams are the same bytes, and the
    nodes terse ends with are Redis's (XINFO's radix-tree-keys). terse-chunk-bytes sizes the
    groups' PEL chunks (coll_pel.h: half of it)."""
    opts = ["--stream-node-max-entries", entries, "--stream-node-max-bytes", nbytes]
    t = spawn("terse", opts + ["--terse-chunk-bytes", chunk])
    r = spawn("redis", opts)
    rng = random.Random(seed)
    ids = Ids()
    cmds = [random_command(rng, ids) for _ in range(6000)]
    finish = [("XRANGE", k, "-", "+") for k in KEYS]
    got_t, got_r = rd.run_pipelined(t, cmds, finish), rd.run_pipelined(r, cmds, finish)
    rd.assert_same_replies(cmds, got_t, got_r, "stream-node-max-entries %s" % entries)
    for k in KEYS:
        infos = []
        for s in (t, r):
            with s.raw() as c:
                if decode_one(c.call("EXISTS", k)) == 0:
                    continue
                flat = decode_one(c.call("XINFO", "STREAM", k))
                infos.append(dict(zip(flat[0::2], flat[1::2]))[b"radix-tree-keys"])
        assert len(set(infos)) <= 1, (k, infos)


def fill(c, key, n, step=1000, value=b"v" * 40):
    for i in range(0, n, step):
        c.send(b"".join(h.encode("XADD", key, b"%d-1" % (j + 1), "field", value, "n", j)
                        for j in range(i, min(n, i + step))))
        c.read_replies(min(n, i + step) - i)


def test_big_stream_survives_reload_and_dump(spawn, tmp_path):
    """A stream of 100,000 entries with a group: DEBUG RELOAD loads its chunks as held (no
    bigger than before), XRANGE and XPENDING answer as before and as redis-server's, and its
    DUMP restores on redis-server to the same entries."""
    t = spawn("terse", ["--dir", str(tmp_path), "--enable-debug-command", "yes"])
    r = spawn("redis", [])
    for s in (t, r):
        with s.raw() as c:
            fill(c, "big", 100000)
            c.call("XGROUP", "CREATE", "big", "g", "0")
            c.call("XREADGROUP", "GROUP", "g", "alice", "COUNT", 25, "STREAMS", "big", ">")
    reads = [("XRANGE", "big", "50000", "+", "COUNT", 10), ("XREVRANGE", "big", "+", "-", "COUNT", 3),
             ("XPENDING", "big", "g"), ("XLEN", "big"), ("XRANGE", "big", "99990", "99995")]
    with t.raw() as c, r.raw() as o:
        settled = settled_usage(c, "big")
        assert c.call("DEBUG", "RELOAD") == b"+OK\r\n"
        assert decode_one(c.call("MEMORY", "USAGE", "big")) <= settled * 1.02
        for cmd in reads:
            assert c.call(*cmd) == o.call(*cmd), (cmd, c.call(*cmd)[:120], o.call(*cmd)[:120])
        info_t = decode_one(c.call("XINFO", "STREAM", "big"))
        info_r = decode_one(o.call("XINFO", "STREAM", "big"))
        assert info_t[:4] == info_r[:4]  # length and radix-tree-keys
        payload = decode_one(c.call("DUMP", "big"))
        assert o.call("RESTORE", "copy", 0, payload) == b"+OK\r\n"
        assert o.call("XRANGE", "copy", "-", "+") == c.call("XRANGE", "big", "-", "+")
        assert o.call("XPENDING", "copy", "g") == c.call("XPENDING", "big", "g")


def test_big_stream_full_resync_to_redis(spawn):
    """A redis-server replica of terse gets a chunked stream of 50,000 entries with a group
    through the full resync's RDB (written a node at a time): the same entries, the same
    XINFO STREAM FULL (IDs, counters, the group's PEL and consumers) as terse answers; and a
    DUMP of it peaks at about twice its payload (no copy of the whole form)."""
    t = spawn("terse", [])
    with t.raw() as c:
        fill(c, "big", 50000)
        c.call("XGROUP", "CREATE", "big", "g", "0")
        c.call("XREADGROUP", "GROUP", "g", "alice", "COUNT", 40, "STREAMS", "big", ">")
        c.call("XREADGROUP", "GROUP", "g", "bob", "COUNT", 7, "STREAMS", "big", ">")
        c.call("XDEL", "big", "20000-1")
    r = spawn("redis", ["--replicaof", "127.0.0.1", str(t.port)])
    with t.raw() as c, r.raw() as o:
        h.wait_until(lambda: h.link_up(o), "the replica did not sync", 30)
        assert o.call("XRANGE", "big", "-", "+") == c.call("XRANGE", "big", "-", "+")
        # absolute times only (delivery and seen times travel in the RDB as they are); not
        # radix-tree-nodes, which counts the nodes of Redis's radix tree (terse has none)
        full = [decode_one(s.call("XINFO", "STREAM", "big", "FULL", "COUNT", 0)) for s in (c, o)]
        for f in full:
            del f[f.index(b"radix-tree-nodes"):f.index(b"radix-tree-nodes") + 2]
        assert full[0] == full[1]
        for cmd in (("XINFO", "GROUPS", "big"), ("XPENDING", "big", "g")):
            assert c.call(*cmd) == o.call(*cmd), cmd
        # DUMP too goes a node at a time, into the reply: about twice the payload at its peak
        c.call("CONFIG", "RESETSTAT")
        before = int(h.info_field(c, "used_memory", "memory"))
        payload = decode_one(c.call("DUMP", "big"))
        grew = int(h.info_field(c, "used_memory_peak", "memory")) - before
        assert grew < 3 * len(payload), (len(payload), grew)


def test_big_stream_from_redis_loads_node_by_node(spawn):
    """A redis-server stream past the 1 MiB batch (30,000 entries in nodes of 100, some deleted
    inside their nodes, two groups with pending entries and an idle consumer) RESTOREd into
    terse and carried by a full resync to a terse replica: both build it node by node
    (persist_rdb_rstream.c) and answer XINFO STREAM FULL (node boundaries, counters, groups,
    consumers, PELs), XRANGE, XPENDING, DEBUG DIGEST-VALUE and OBJECT ENCODING as
    redis-server does; the RESTORE's peak stays near what the stream holds."""
    r = spawn("redis", ["--enable-debug-command", "yes"])
    t = spawn("terse", ["--enable-debug-command", "yes"])
    with r.raw() as o:
        fill(o, "big", 30000)
        o.call("XDEL", "big", *[b"%d-1" % (j + 1) for j in range(5, 30000, 97)])
        o.call("XGROUP", "CREATE", "big", "g", "0")
        o.call("XGROUP", "CREATE", "big", "h", "20000")
        o.call("XREADGROUP", "GROUP", "g", "alice", "COUNT", 700, "STREAMS", "big", ">")
        o.call("XREADGROUP", "GROUP", "g", "bob", "COUNT", 300, "STREAMS", "big", ">")
        o.call("XREADGROUP", "GROUP", "h", "carol", "COUNT", 50, "STREAMS", "big", ">")
        o.call("XGROUP", "CREATECONSUMER", "big", "g", "idle")
        o.call("XACK", "big", "g", *[b"%d-1" % j for j in range(1, 1000, 3)])
        payload = decode_one(o.call("DUMP", "big"))
    # LZF takes the payload to 0.3 MB; its form is about 2 MB, past the batch
    reads = [("XRANGE", "big", "-", "+"), ("XPENDING", "big", "g"),
             ("XPENDING", "big", "g", "-", "+", 2000), ("XINFO", "GROUPS", "big"),
             ("XINFO", "CONSUMERS", "big", "g"), ("XLEN", "big"), ("OBJECT", "ENCODING", "big"),
             ("XINFO", "STREAM", "big", "FULL", "COUNT", 0)]
    with t.raw() as c, r.raw() as o:
        c.call("CONFIG", "RESETSTAT")
        before = int(h.info_field(c, "used_memory", "memory"))
        assert c.call("RESTORE", "big", 0, payload) == b"+OK\r\n"
        grew = int(h.info_field(c, "used_memory_peak", "memory")) - before
        usage = decode_one(c.call("MEMORY", "USAGE", "big"))
        # the stream, the payload (argv) and a batch: not its form, records and model
        print("RESTORE peak over the start", grew, "usage", usage, "payload", len(payload))
        assert grew < usage + 2 * len(payload) + (4 << 20), (grew, usage, len(payload))
        for cmd in reads:
            assert norm(cmd, decode_one(c.call(*cmd))) == norm(cmd, decode_one(o.call(*cmd))), cmd
        assert c.call("DEBUG", "DIGEST-VALUE", "big") == o.call("DEBUG", "DIGEST-VALUE", "big")
    rep = spawn("terse", ["--enable-debug-command", "yes"])
    with rep.raw() as c, r.raw() as o:
        assert c.call("REPLICAOF", "127.0.0.1", r.port) == b"+OK\r\n"
        h.wait_until(lambda: h.link_up(c), "the replica did not sync", 30)
        for cmd in reads:
            assert norm(cmd, decode_one(c.call(*cmd))) == norm(cmd, decode_one(o.call(*cmd))), cmd
        assert c.call("DEBUG", "DIGEST-VALUE", "big") == o.call("DEBUG", "DIGEST-VALUE", "big")


def test_corrupt_stream_chunk_is_its_keys_error_alone(spawn):
    """DEBUG CORRUPT-VALUE on a chunked stream: reads and writes of it answer -CORRUPT, never
    another entry's bytes; a stream beside it answers as before; DEL frees it."""
    t = spawn("terse", ["--enable-debug-command", "yes"])
    with t.raw() as c:
        fill(c, "bad", 3000)
        fill(c, "good", 3000)
        want = c.call("XRANGE", "good", "-", "+")
        assert c.call("DEBUG", "CORRUPT-VALUE", "bad") == b"+OK\r\n"
        for cmd in (("XRANGE", "bad", "-", "+"), ("XRANGE", "bad", "1500", "1510"),
                    ("XREVRANGE", "bad", "+", "-", "COUNT", 2), ("XLEN", "bad"),
                    ("XREAD", "STREAMS", "bad", "0"), ("XADD", "bad", "*", "a", "b")):
            reply = c.call(*cmd)
            assert reply.startswith(b"-CORRUPT"), (cmd, h.show(reply))
        assert c.call("XRANGE", "good", "-", "+") == want
        assert c.call("DEL", "bad") == b":1\r\n"


def test_big_pel_matches_redis(spawn, tmp_path):
    """A chunked stream whose group holds 20,000 pending entries of five consumers (PEL chunks
    of a few entries with terse-chunk-bytes 256): XACK of scattered IDs, XCLAIM, XAUTOCLAIM,
    XPENDING (summary, ranges, by consumer, IDLE), XREADGROUP of a consumer's history, XINFO
    (GROUPS, CONSUMERS, STREAM FULL), DELCONSUMER and DESTROY answer as redis-server's, and so
    after DEBUG RELOAD (the PELs written inline in the snapshot and loaded back) and through
    a DUMP restored on redis-server."""
    t = spawn("terse", ["--dir", str(tmp_path), "--enable-debug-command", "yes",
                        "--terse-chunk-bytes", "256"])
    r = spawn("redis", [])
    rng = random.Random(7)
    n = 20000
    cmds = [("XGROUP", "CREATE", "big", "g", "0"), ("XGROUP", "CREATE", "big", "h", "0")]
    for i in range(0, n, 500):
        cmds.append(("XREADGROUP", "GROUP", "g", b"c%d" % rng.randrange(5), "COUNT", 500,
                     "STREAMS", "big", ">"))
    cmds.append(("XREADGROUP", "GROUP", "h", "solo", "COUNT", 300, "STREAMS", "big", ">"))
    for _ in range(300):
        cmds.append(("XACK", "big", "g", *[b"%d-1" % rng.randrange(1, n + 1) for _ in range(5)]))
    for _ in range(40):
        a = rng.randrange(1, n)
        cmds.append(("XCLAIM", "big", "g", b"c%d" % rng.randrange(6), 0,
                     *[b"%d-1" % (a + k) for k in range(4)], "RETRYCOUNT", 3, "JUSTID"))
        cmds.append(("XAUTOCLAIM", "big", "g", b"c%d" % rng.randrange(6), 0, b"%d" % a,
                     "COUNT", 7, "JUSTID"))
    cmds += [("XDEL", "big", "100-1", "101-1", "102-1"),
             ("XAUTOCLAIM", "big", "g", "c1", 0, "0", "COUNT", 200, "JUSTID"),
             ("XCLAIM", "big", "g", "c2", 0, "5-1", "6-1", "FORCE", "JUSTID")]
    reads = [("XPENDING", "big", "g"), ("XPENDING", "big", "h"),
             ("XPENDING", "big", "g", "-", "+", 50), ("XPENDING", "big", "g", "9000", "+", 30),
             ("XPENDING", "big", "g", "-", "+", 40, "c3"),
             ("XPENDING", "big", "g", "IDLE", 0, "-", "+", 10, "c0"),
             ("XINFO", "GROUPS", "big"), ("XINFO", "CONSUMERS", "big", "g"),
             ("XREADGROUP", "GROUP", "g", "c4", "COUNT", 20, "STREAMS", "big", "12000"),
             ("XINFO", "STREAM", "big", "FULL", "COUNT", 0)]
    with t.raw() as c, r.raw() as o:
        for s in (c, o):
            fill(s, "big", n)
        for cmd in cmds:
            assert c.call(*cmd) == o.call(*cmd), cmd

        def same(label):
            for cmd in reads:
                got = [norm(cmd, decode_one(x.call(*cmd))) for x in (c, o)]
                assert got[0] == got[1], (label, cmd)

        same("live")
        assert c.call("DEBUG", "RELOAD") == b"+OK\r\n"
        same("after DEBUG RELOAD")
        payload = decode_one(c.call("DUMP", "big"))
        assert o.call("RESTORE", "copy", 0, payload) == b"+OK\r\n"
        for cmd in (("XPENDING", "copy", "g", "-", "+", 20000), ("XPENDING", "copy", "g")):
            assert (norm(cmd, decode_one(o.call(*cmd))) ==
                    norm(cmd, decode_one(o.call(cmd[0], "big", *cmd[2:])))), cmd
        for cmd in (("XGROUP", "DELCONSUMER", "big", "g", "c3"), ("XPENDING", "big", "g"),
                    ("XGROUP", "DESTROY", "big", "h"), ("XINFO", "GROUPS", "big"),
                    ("XACK", "big", "g", *[b"%d-1" % i for i in range(1, n + 1, 3)]),
                    ("XPENDING", "big", "g")):
            got = [norm(cmd, decode_one(x.call(*cmd))) for x in (c, o)]
            assert got[0] == got[1], cmd


def norm(cmd, v):
    """A reply without what each server's clock wrote (XPENDING's idle times, XINFO's idle and
    seen times and delivery times: unix ms, as big as now) nor XINFO STREAM's
    radix-tree-nodes."""
    if cmd[0] == "XPENDING" and len(cmd) > 3 and isinstance(v, list):
        return [e[:2] + [0] + e[3:] for e in v]
    if cmd[0] == "XINFO":
        if b"radix-tree-nodes" in v:  # the nodes of Redis's radix tree (terse has none)
            i = v.index(b"radix-tree-nodes")
            v = v[:i] + v[i + 2:]
        return strip_times(v)
    return v


def strip_times(v):
    """A reply with the values after idle/seen-time/inactive/delivery-time names dropped."""
    if isinstance(v, list):
        out, skip = [], False
        for x in v:
            if skip:
                skip = False
                continue
            if x in (b"idle", b"seen-time", b"active-time", b"inactive"):
                skip = True
                out.append(x)
                continue
            out.append(strip_times(x))
        return out
    if isinstance(v, int) and v > 10 ** 12:
        return 0  # a delivery time
    return v
