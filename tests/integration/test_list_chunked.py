"""Chunked lists: a list longer than one chunk (list-max-listpack-size) is held as chunks under
a tree with open ends (coll/coll_list.h). What a user sees must not change: every reply as
redis-server's, byte for byte, through thousands of splits and merges; a corrupt chunk answers
-CORRUPT for its key alone; snapshots, DUMP/RESTORE and replicas carry the whole list; a queue
costs allocations per chunk, never per command.
"""

import random
import time

import pytest

import random_diff as rd
import alloc_harness as ah
import terse_harness as h
from terse_harness import decode_one

KEYS = [b"l0", b"l1", b"l2"]


def random_element(rng, big):
    """Elements with repeats (for LREM, LPOS, LINSERT pivots), integers, empties, and sizes
    that cross a chunk with few elements when big."""
    r = rng.random()
    if r < 0.3:
        return b"v%d" % rng.randrange(12)
    if r < 0.4:
        return b"%d" % rng.randrange(-1000, 100000)
    if r < 0.45:
        return b""
    n = rng.randrange(1, 1500 if big else 200)
    return rd.letters(rng, n)


def random_command(rng, big):
    k = rng.choice(KEYS)
    k2 = rng.choice(KEYS)
    el = lambda: random_element(rng, big)
    idx = lambda: rng.randrange(-60, 60)
    pick = rng.random()
    if pick < 0.22:
        return ("RPUSH" if rng.random() < 0.5 else "LPUSH", k,
                *[el() for _ in range(rng.randrange(1, 12))])
    if pick < 0.25:
        return ("RPUSHX" if rng.random() < 0.5 else "LPUSHX", k, el())
    if pick < 0.35:
        op = rng.choice(["LPOP", "RPOP"])
        return (op, k) if rng.random() < 0.5 else (op, k, rng.randrange(0, 9))
    if pick < 0.42:
        return ("LRANGE", k, idx(), idx())
    if pick < 0.47:
        return ("LINDEX", k, idx())
    if pick < 0.52:
        return ("LSET", k, idx(), el())
    if pick < 0.57:
        return ("LINSERT", k, rng.choice(["BEFORE", "AFTER"]), b"v%d" % rng.randrange(12), el())
    if pick < 0.61:
        return ("LREM", k, rng.randrange(-3, 4), b"v%d" % rng.randrange(12))
    if pick < 0.64:
        return ("LTRIM", k, rng.randrange(-5, 40), rng.randrange(-40, 200))
    if pick < 0.69:
        opts = []
        if rng.random() < 0.5:
            opts += ["RANK", rng.choice([1, 2, -1, -3])]
        if rng.random() < 0.5:
            opts += ["COUNT", rng.randrange(0, 5)]
        if rng.random() < 0.3:
            opts += ["MAXLEN", rng.randrange(0, 50)]
        return ("LPOS", k, b"v%d" % rng.randrange(12), *opts)
    if pick < 0.75:
        return ("LMOVE", k, k2, rng.choice(["LEFT", "RIGHT"]), rng.choice(["LEFT", "RIGHT"]))
    if pick < 0.77:
        return ("RPOPLPUSH", k, k2)
    if pick < 0.80:
        return ("LMPOP", 2, k, k2, rng.choice(["LEFT", "RIGHT"]), "COUNT", rng.randrange(1, 6))
    if pick < 0.84:
        return ("LLEN", k)
    if pick < 0.845:
        return ("DEL", k)
    if pick < 0.85:
        return ("COPY", k, k2, "REPLACE")
    if pick < 0.86:
        return rng.choice([("SORT", k, "ALPHA"), ("SORT", k, "BY", "nosort", "DESC", "LIMIT", 1, 5),
                           ("SORT", k, "ALPHA", "STORE", k2)])
    return ("LRANGE", k, 0, -1)


@pytest.mark.slow
@pytest.mark.parametrize("shape,big,seed", [
    ("4", False, 1),      # chunks of 4 elements: a split or a merge every few commands
    ("4", True, 2),
    ("-1", True, 3),      # 4 KiB chunks crossed by big elements
    ("-2", False, 4),     # the default: lists cross 8 KiB and come back
])
def test_random_list_commands_match_redis(spawn, shape, big, seed):
    """Thousands of random list commands on three keys, on terse and redis-server run with the
    same list-max-listpack-size: every reply and the final lists are the same bytes."""
    t = spawn("terse", ["--list-max-listpack-size", shape])
    r = spawn("redis", ["--list-max-listpack-size", shape])
    rng = random.Random(seed)
    cmds = [random_command(rng, big) for _ in range(6000)]
    finish = [("LRANGE", k, 0, -1) for k in KEYS]
    got_t, got_r = rd.run_pipelined(t, cmds, finish), rd.run_pipelined(r, cmds, finish)
    rd.assert_same_replies(cmds, got_t, got_r, "list-max-listpack-size %s" % shape)
    # The lists did get long: the run crossed chunk boundaries, it did not stay small.
    with t.raw() as c:
        lens = [decode_one(c.call("LLEN", k)) for k in KEYS]
    assert max(lens) > 20, lens


def test_queue_allocates_per_chunk_not_per_command(terse):
    """A job queue of 2,000 jobs turning over (LPUSH a job, RPOP the oldest, LLEN): the
    allocator is called about once per chunk's worth of jobs moved (a chunk sealed at the head,
    one refilled at the tail, one compressed in the background), never once per command."""
    jobs = [b"job:%06d:" % i + b"payload " * 12 for i in range(2000)]
    rounds = 3000
    with h.RawConn(terse.port) as c:
        for i in range(0, len(jobs), 500):
            c.call("RPUSH", "queue", *jobs[i:i + 500])
        batch = lambda i: (h.encode("LPUSH", "queue", jobs[i % 2000]) + h.encode("RPOP", "queue")
                           + h.encode("LLEN", "queue"))
        for i in range(200):
            c.send(batch(i))
            c.read_replies(3)
        before = ah.info_alloc_counts(c)
        for i in range(200, 200 + rounds, 50):
            c.send(b"".join(batch(j) for j in range(i, i + 50)))
            replies = c.read_replies(150)
            assert replies[-1] == b":2000\r\n"
        after = ah.info_alloc_counts(c)
    moved = rounds * (len(jobs[0]) + 12)
    chunks = moved / 8192
    allocs = after[0] - before[0]
    assert allocs <= 4 * chunks + 16, (
        "%d allocations for %d commands moving %d chunks' worth" % (allocs, 3 * rounds, chunks))


def test_corrupt_chunk_is_its_keys_error_alone(spawn):
    """DEBUG CORRUPT-VALUE on a chunked list: every read of it answers -CORRUPT, no byte of it
    is returned; a list beside it answers as before."""
    t = spawn("terse", ["--enable-debug-command", "yes", "--list-max-listpack-size", "8"])
    els = [b"element-%d" % i for i in range(500)]
    with t.raw() as c:
        c.call("RPUSH", "bad", *els)
        c.call("RPUSH", "good", *els)
        assert c.call("DEBUG", "CORRUPT-VALUE", "bad") == b"+OK\r\n"
        for cmd in (("LRANGE", "bad", 0, -1), ("LRANGE", "bad", 200, 210), ("LINDEX", "bad", 250),
                    ("LPOS", "bad", "element-499")):
            reply = c.call(*cmd)
            assert reply.startswith(b"-CORRUPT"), (cmd, h.show(reply))
        assert decode_one(c.call("LRANGE", "good", 0, -1)) == els
        assert c.call("DEL", "bad") == b":1\r\n"


def test_big_list_survives_restart_and_reload(spawn, tmp_path):
    """A list of 100,000 elements (hundreds of chunks, compressed in the background) saved,
    read back by DEBUG RELOAD and by a restart on the snapshot: the same elements, in order,
    and still chunked (MEMORY USAGE well under its raw size)."""
    d = str(tmp_path)
    els = [b"%d:" % i + b"log line payload " * (i % 7) for i in range(100000)]
    raw = sum(len(e) for e in els)
    t = spawn("terse", ["--dir", d, "--enable-debug-command", "yes"])
    with t.raw() as c:
        for i in range(0, len(els), 5000):
            c.call("RPUSH", "log", *els[i:i + 5000])
        time.sleep(1.0)
        assert c.call("DEBUG", "RELOAD") == b"+OK\r\n"
        assert decode_one(c.call("LRANGE", "log", 0, -1)) == els
        assert c.call("SAVE") == b"+OK\r\n"
    t.stop()
    t2 = spawn("terse", ["--dir", d])
    with t2.raw() as c:
        assert decode_one(c.call("LLEN", "log")) == len(els)
        assert decode_one(c.call("LRANGE", "log", 49990, 50009)) == els[49990:50010]
        assert decode_one(c.call("LRANGE", "log", 0, -1)) == els
        assert decode_one(c.call("OBJECT", "ENCODING", "log")) == b"quicklist"
        deadline = time.monotonic() + 20
        while decode_one(c.call("MEMORY", "USAGE", "log")) > raw / 2:
            assert time.monotonic() < deadline, "the loaded chunks were never compressed"
            time.sleep(0.2)


def test_big_list_dump_restores_on_redis(terse, oracle):
    """DUMP of a chunked list is an RDB payload redis-server RESTOREs to the same list, and
    RESTORE of redis-server's DUMP gives terse the same list back."""
    els = [b"item-%d-" % i + b"x" * (i % 300) for i in range(20000)]
    with terse.raw() as tc, oracle.raw() as rc:
        for i in range(0, len(els), 4000):
            tc.call("RPUSH", "big", *els[i:i + 4000])
            rc.call("RPUSH", "big", *els[i:i + 4000])
        ours = decode_one(tc.call("DUMP", "big"))
        theirs = decode_one(rc.call("DUMP", "big"))
        assert rc.call("RESTORE", "from-terse", 0, ours) == b"+OK\r\n"
        assert tc.call("RESTORE", "from-redis", 0, theirs) == b"+OK\r\n"
        assert decode_one(rc.call("LRANGE", "from-terse", 0, -1)) == els
        assert decode_one(tc.call("LRANGE", "from-redis", 0, -1)) == els
        assert decode_one(tc.call("LINDEX", "from-redis", 12345)) == els[12345]


def test_unlink_of_a_big_list_frees_in_the_background(spawn):
    """UNLINK of a list of a million elements detaches it and frees it in bounded steps off the
    command (Redis's lazyfree): INFO counts it in lazyfree_pending_objects until it is gone,
    then in lazyfreed_objects, and used_memory comes back to where it was."""
    t = spawn("terse")
    mem = lambda c, f: int(h.info_field(c, f, "memory"))
    with t.raw() as c:
        # The request buffers grown by a 20,000-argument RPUSH are not the list's.
        c.call("RPUSH", "warm", *[b"e%d" % j for j in range(20000)])
        c.call("DEL", "warm")
        base = mem(c, "used_memory")
        for i in range(0, 1000000, 20000):
            c.call("RPUSH", "huge", *[b"e%d" % j for j in range(i, i + 20000)])
        assert mem(c, "used_memory") > base + 4_000_000
        assert c.call("UNLINK", "huge") == b":1\r\n"
        assert c.call("EXISTS", "huge") == b":0\r\n"
        deadline = time.monotonic() + 20
        while mem(c, "lazyfree_pending_objects") != 0:
            assert time.monotonic() < deadline, "the unlinked list was never freed"
            time.sleep(0.05)
        assert mem(c, "lazyfreed_objects") == 1
        assert mem(c, "used_memory") < base + 512 * 1024
        # A small list is freed at once: not counted as lazily freed.
        c.call("RPUSH", "small", *[b"e%d" % j for j in range(2000)])
        assert c.call("UNLINK", "small") == b":1\r\n"
        assert mem(c, "lazyfree_pending_objects") == 0 and mem(c, "lazyfreed_objects") == 1


def test_watch_and_a_replica_see_in_place_edits(spawn):
    """A chunked list changes in place, without a value stored: WATCH still fails the
    transaction, and a redis-server replica of terse receives every edit (full sync of the big
    list, then the commands that changed it)."""
    t = spawn("terse")
    els = [b"job-%d-" % i + b"p" * (i % 90) for i in range(3000)]
    with t.raw() as c, t.raw() as other:
        c.call("RPUSH", "big", *els)
        for cmd in (("LPUSH", "big", "x"), ("RPOP", "big"), ("LSET", "big", 1500, "y"),
                    ("LINSERT", "big", "BEFORE", els[2000], "z"), ("LREM", "big", 1, "y"),
                    ("LTRIM", "big", 1, -2), ("LMOVE", "big", "big", "LEFT", "RIGHT")):
            assert c.call("WATCH", "big") == b"+OK\r\n"
            other.call(*cmd)
            c.call("MULTI")
            c.call("LLEN", "big")
            assert c.call("EXEC") == b"*-1\r\n", cmd
    r = spawn("redis", ["--replicaof", "127.0.0.1", str(t.port)])
    with t.raw() as c, r.raw() as rc:
        h.wait_until(lambda: h.link_up(rc), "the replica never came up", 20)
        c.call("RPUSH", "big", *els[:500])
        c.call("LPOP", "big", 7)
        c.call("LSET", "big", -3, "tail-edit")
        c.call("LMOVE", "big", "other", "RIGHT", "LEFT")
        want = {k: decode_one(c.call("LRANGE", k, 0, -1)) for k in ("big", "other")}
        while {k: decode_one(rc.call("LRANGE", k, 0, -1)) for k in ("big", "other")} != want:
            assert time.monotonic() < deadline, "the replica did not catch up"
            time.sleep(0.05)


def test_snapshot_keeps_chunks_as_held(spawn, tmp_path):
    """A snapshot writes a chunked list's chunks as they are held (LZ4 stays LZ4) and the load
    takes them back without recompressing: with background compression off after the restart,
    the list is as small as before the save. A list with an expiry keeps it."""
    d = str(tmp_path)
    els = [b"%06d " % i + b"GET /api/v1/items?page=%d HTTP/1.1 200 " % (i % 50) for i in
           range(60000)]
    t = spawn("terse", ["--dir", d])
    with t.raw() as c:
        for i in range(0, len(els), 6000):
            c.call("RPUSH", "log", *els[i:i + 6000])
        c.call("RPUSH", "ttl", *els[:3000])
        c.call("PEXPIRE", "ttl", 600000)
        raw = sum(len(e) for e in els)
        deadline = time.monotonic() + 20
        while decode_one(c.call("MEMORY", "USAGE", "log")) > raw / 2:
            assert time.monotonic() < deadline, "the chunks were never compressed"
            time.sleep(0.1)
        held = decode_one(c.call("MEMORY", "USAGE", "log"))
        assert c.call("SAVE") == b"+OK\r\n"
    t.stop()
    t2 = spawn("terse", ["--dir", d, "--terse-compression", "off"])
    with t2.raw() as c:
        loaded = decode_one(c.call("MEMORY", "USAGE", "log"))
        assert loaded < held * 1.1, (loaded, held)
        assert decode_one(c.call("LRANGE", "log", 0, -1)) == els
        assert decode_one(c.call("LRANGE", "ttl", 0, -1)) == els[:3000]
        assert 590000 < decode_one(c.call("PTTL", "ttl")) <= 600000
