"""Chunked sorted sets: a skiplist-encoded zset whose form passes terse-chunk-bytes is held as
ordered chunks under a counted tree, with a member map (coll/coll_zset.h). What a user sees
must not change: every reply as redis-server's, byte for byte (a zset's order is Redis's on
both), through thousands of splits and merges; ZSCAN's guarantee; a corrupt chunk answering
-CORRUPT for its key alone; snapshots, DUMP/RESTORE, WATCH and replicas carrying every edit.
"""

import os
import random
import time

import pytest

import random_diff as rd
import alloc_harness as ah
import terse_harness as h
from terse_harness import decode_one

KEYS = [b"z0", b"z1", b"z2"]
LEX = b"lex"  # every score 0: the BYLEX commands' premise


def random_score(rng):
    r = rng.random()
    if r < 0.5:
        return b"%d" % rng.randrange(-50, 50)  # many ties
    if r < 0.8:
        return b"%.3f" % rng.uniform(-1000, 1000)
    if r < 0.85:
        return rng.choice([b"-0", b"0", b"+inf", b"-inf"])
    return b"%d" % rng.randrange(-10 ** 9, 10 ** 9)


def random_member(rng):
    r = rng.random()
    if r < 0.1:
        return b"" if rng.random() < 0.1 else b"%d" % rng.randrange(100)
    n = rng.randrange(0, 40)
    return b"m%d:" % rng.randrange(500) + b"x" * n


def score_bound(rng):
    s = random_score(rng)
    return b"(" + s if rng.random() < 0.3 else s


def lex_bound(rng):
    r = rng.random()
    if r < 0.1:
        return b"-"
    if r < 0.2:
        return b"+"
    return (b"(" if rng.random() < 0.5 else b"[") + b"m%d" % rng.randrange(500)


def random_command(rng):
    k = rng.choice(KEYS)
    k2 = rng.choice(KEYS)
    pick = rng.random()
    if pick < 0.25:
        opts = []
        if rng.random() < 0.2:
            opts.append(rng.choice(["NX", "XX", "GT", "LT", "CH", "GT CH", "XX CH", "LT CH"]))
        pairs = []
        for _ in range(rng.randrange(1, 12)):
            pairs += [random_score(rng), random_member(rng)]
        return ("ZADD", k, *" ".join(opts).split(), *pairs)
    if pick < 0.28:
        return ("ZADD", k, "INCR", random_score(rng), random_member(rng))
    if pick < 0.31:
        return ("ZINCRBY", k, rng.randrange(-20, 20), random_member(rng))
    if pick < 0.38:
        return ("ZREM", k, *[random_member(rng) for _ in range(rng.randrange(1, 6))])
    if pick < 0.44:
        return ("ZSCORE", k, random_member(rng))
    if pick < 0.46:
        return ("ZMSCORE", k, *[random_member(rng) for _ in range(rng.randrange(1, 5))])
    if pick < 0.51:
        return (rng.choice(["ZRANK", "ZREVRANK"]), k, random_member(rng))
    if pick < 0.53:
        return ("ZCARD", k)
    if pick < 0.58:
        cmd = ["ZRANGE", k, rng.randrange(-60, 60), rng.randrange(-60, 60)]
        if rng.random() < 0.3:
            cmd.append("REV")
        if rng.random() < 0.5:
            cmd.append("WITHSCORES")
        return tuple(cmd)
    if pick < 0.64:
        cmd = ["ZRANGE", k, score_bound(rng), score_bound(rng), "BYSCORE"]
        if rng.random() < 0.3:
            cmd.append("REV")
        if rng.random() < 0.4:
            cmd += ["LIMIT", rng.randrange(-1, 20), rng.randrange(-1, 30)]
        if rng.random() < 0.5:
            cmd.append("WITHSCORES")
        return tuple(cmd)
    if pick < 0.66:
        return (rng.choice(["ZRANGEBYSCORE", "ZREVRANGEBYSCORE"]), k, score_bound(rng),
                score_bound(rng), "WITHSCORES")
    if pick < 0.69:
        return ("ZCOUNT", k, score_bound(rng), score_bound(rng))
    if pick < 0.72:
        return ("ZADD", LEX, *[x for _ in range(rng.randrange(1, 8))
                               for x in (b"0", b"m%d" % rng.randrange(500))])
    if pick < 0.75:
        cmd = [rng.choice(["ZRANGEBYLEX", "ZREVRANGEBYLEX"]), LEX, lex_bound(rng), lex_bound(rng)]
        if rng.random() < 0.4:
            cmd += ["LIMIT", rng.randrange(0, 10), rng.randrange(-1, 20)]
        return tuple(cmd)
    if pick < 0.77:
        return ("ZLEXCOUNT", LEX, lex_bound(rng), lex_bound(rng))
    if pick < 0.78:
        return ("ZREMRANGEBYLEX", LEX, lex_bound(rng), lex_bound(rng))
    if pick < 0.80:
        return ("ZREMRANGEBYRANK", k, rng.randrange(-30, 30), rng.randrange(-30, 30))
    if pick < 0.82:
        return ("ZREMRANGEBYSCORE", k, score_bound(rng), score_bound(rng))
    if pick < 0.86:
        op = rng.choice(["ZPOPMIN", "ZPOPMAX"])
        return (op, k) if rng.random() < 0.3 else (op, k, rng.randrange(0, 8))
    if pick < 0.87:
        return ("ZMPOP", 2, k, k2, rng.choice(["MIN", "MAX"]), "COUNT", rng.randrange(1, 6))
    if pick < 0.88:
        return ("ZRANGESTORE", b"dst", k, rng.randrange(0, 20), rng.randrange(20, 80))
    if pick < 0.89:
        return ("ZUNIONSTORE", b"u", 2, k, k2, "AGGREGATE", rng.choice(["SUM", "MIN", "MAX"]))
    if pick < 0.90:
        return ("OBJECT", "ENCODING", k)
    if pick < 0.905:
        return ("DEL", k)
    if pick < 0.91:
        return ("COPY", k, k2, "REPLACE")
    return ("ZRANGE", k, 0, -1, "WITHSCORES")


@pytest.mark.slow
@pytest.mark.parametrize("entries,chunk,seed", [
    ("4", "128", 1),     # tiny chunks: splits and merges every few commands
    ("4", "256", 2),
    ("128", "1024", 3),  # listpack first, then chunked, and back to one value
])
def test_random_zset_commands_match_redis(spawn, entries, chunk, seed):
    """Thousands of random sorted-set commands on a few keys, on terse chunked past
    terse-chunk-bytes and on redis-server with the same zset-max-listpack-entries: every reply
    and the final zsets are the same bytes."""
    t = spawn("terse", ["--zset-max-listpack-entries", entries, "--terse-chunk-bytes", chunk])
    r = spawn("redis", ["--zset-max-listpack-entries", entries])
    rng = random.Random(seed)
    cmds = [random_command(rng) for _ in range(8000)]
    finish = [("ZRANGE", k, 0, -1, "WITHSCORES") for k in KEYS + [LEX, b"dst", b"u"]]
    got_t, got_r = rd.run_pipelined(t, cmds, finish), rd.run_pipelined(r, cmds, finish)
    rd.assert_same_replies(cmds, got_t, got_r, "zset-max-listpack-entries %s" % entries)
    with t.raw() as c:
        sizes = [decode_one(c.call("MEMORY", "USAGE", k)) or 0 for k in KEYS + [LEX]]
    assert max(sizes) > 4 * int(chunk), sizes


def leaderboard(n):
    return {b"player:%07d" % i: float((i * 7919) % 100003) + (i % 7) / 8 for i in range(n)}


def zadd_all(c, key, d, step=5000):
    items = list(d.items())
    for i in range(0, len(items), step):
        c.call("ZADD", key, *[x for m, s in items[i:i + step] for x in (repr(s), m)])


def zrange_all(c, key):
    flat = decode_one(c.call("ZRANGE", key, 0, -1, "WITHSCORES"))
    return [(flat[i], float(flat[i + 1])) for i in range(0, len(flat), 2)]


def sorted_pairs(d):
    return sorted(((m, s) for m, s in d.items()), key=lambda p: (p[1], p[0]))


def test_warm_chunked_zset_loop_allocates_nothing(spawn):
    """ZADD moving members and adding one, ZINCRBY, ZSCORE, ZRANK, ZRANGE by score, ZPOPMIN
    and ZREM on a leaderboard of 5,000 members in chunks: a write stages new chunks, whose
    blocks come from the ones the last write freed, so warm rounds call the allocator not at
    all (background compression, which allocates a compressed chunk per chunk it packs, is off
    here: it runs per chunk, not per command)."""
    t = spawn("terse", ["--terse-compression", "off"])
    d = leaderboard(5000)
    names = sorted(d)
    out = [h.encode("ZADD", "lb", 1.5, names[10], 2.5, names[20], 3.5, "extra"),
           h.encode("ZINCRBY", "lb", 1, names[30]), h.encode("ZSCORE", "lb", names[40]),
           h.encode("ZRANK", "lb", names[50]),
           h.encode("ZRANGE", "lb", 100, 200, "BYSCORE", "LIMIT", 0, 5),
           h.encode("ZREM", "lb", "extra"), h.encode("ZINCRBY", "lb", -1, names[30]),
           h.encode("ZPOPMIN", "lb"), h.encode("ZADD", "lb", 0, "back")]
    with h.RawConn(t.port) as fill:  # its big requests grow a buffer the cron shrinks later
        zadd_all(fill, "lb", d)
        fill.call("ZADD", "lb", 0, "back")
    with h.RawConn(t.port) as c:
        ah.send_rounds(c, b"".join(out), len(out), 30, {})  # the spare blocks fill up
        ah.assert_rounds_allocate_nothing(c, "warm chunked zset loop", b"".join(out), len(out),
                                         {5: b":1\r\n"})


def test_zscan_returns_every_member_present_throughout(spawn):
    """ZSCAN over a chunked zset while other members come and go and scores move: every member
    present from the first call to the last is returned with a score it had, the cursor ends
    at 0, and a call returns a few chunks' worth, not the zset."""
    t = spawn("terse", ["--terse-chunk-bytes", "512"])
    d = leaderboard(20000)
    with t.raw() as c:
        zadd_all(c, "z", d)
        seen, cursor, calls, rng = {}, b"0", 0, random.Random(5)
        while True:
            cursor, flat = decode_one(c.call("ZSCAN", "z", cursor, "COUNT", 50))
            calls += 1
            assert len(flat) < 2 * 400, len(flat)
            seen.update(zip(flat[0::2], flat[1::2]))
            c.call("ZADD", "z", rng.randrange(1000), b"new:%d" % rng.randrange(10 ** 6))
            c.call("ZREM", "z", b"new:%d" % rng.randrange(10 ** 6))
            if cursor == b"0":
                break
        assert calls > 20
        for m, s in d.items():
            assert float(seen[m]) == s, m


def test_zrandmember_on_a_chunked_zset(spawn):
    """ZRANDMEMBER picks members of the zset: distinct for a positive count, with their own
    scores under WITHSCORES, repeats allowed for a negative count, every member reachable."""
    t = spawn("terse", ["--terse-chunk-bytes", "256"])
    d = leaderboard(3000)
    with t.raw() as c:
        zadd_all(c, "z", d)
        singles = {decode_one(c.call("ZRANDMEMBER", "z")) for _ in range(300)}
        assert singles <= set(d) and len(singles) > 200
        picks = decode_one(c.call("ZRANDMEMBER", "z", 100))
        assert len(set(picks)) == 100 and set(picks) <= set(d)
        flat = decode_one(c.call("ZRANDMEMBER", "z", -5000, "WITHSCORES"))
        assert len(flat) == 10000
        assert all(d[m] == float(s) for m, s in zip(flat[0::2], flat[1::2]))
        assert len(set(flat[0::2])) > 2300  # 2,433 expected of 5,000 draws from 3,000


def test_corrupt_chunk_is_its_keys_error_alone(spawn):
    """DEBUG CORRUPT-VALUE on a chunked zset: reads of it answer -CORRUPT and never another
    member's bytes; a zset beside it answers as before; DEL frees it."""
    t = spawn("terse", ["--enable-debug-command", "yes", "--terse-chunk-bytes", "256"])
    d = leaderboard(2000)
    with t.raw() as c:
        zadd_all(c, "bad", d)
        zadd_all(c, "good", d)
        assert c.call("DEBUG", "CORRUPT-VALUE", "bad") == b"+OK\r\n"
        for cmd in (("ZRANGE", "bad", 0, -1), ("ZRANGE", "bad", 500, 510),
                    ("ZRANGEBYSCORE", "bad", "-inf", "+inf"), ("DUMP", "bad"),
                    ("ZPOPMIN", "bad")):
            reply = c.call(*cmd)
            assert reply.startswith(b"-CORRUPT"), (cmd, h.show(reply))
        assert zrange_all(c, "good") == sorted_pairs(d)
        assert c.call("DEL", "bad") == b":1\r\n"


def settled_usage(c, key, timeout=20.0):
    """MEMORY USAGE of key once background compression has left it alone for a second."""
    last, since, end = None, time.time(), time.time() + timeout
    while time.time() < end:
        now = decode_one(c.call("MEMORY", "USAGE", key))
        if now != last:
            last, since = now, time.time()
        elif time.time() - since >= 1.0:
            return now
        time.sleep(0.1)
    raise AssertionError(f"MEMORY USAGE of {key} still changing after {timeout} s")


def test_big_zset_survives_reload_and_restart(spawn, tmp_path):
    """A leaderboard of 100,000 members saved, read back by DEBUG RELOAD and by a restart: the
    same members and scores in order, skiplist-encoded, its compressed chunks loaded as held
    (no bigger than before the reload), and O(log n) commands answer right after the load
    (ZRANK, ZSCORE, ZADD moving a member, ZRANGE by score)."""
    d = str(tmp_path)
    want = leaderboard(100000)
    t = spawn("terse", ["--dir", d, "--enable-debug-command", "yes"])
    with t.raw() as c:
        zadd_all(c, "lb", want)
        settled = settled_usage(c, "lb")
        assert c.call("DEBUG", "RELOAD") == b"+OK\r\n"
        # Its chunks are loaded as they were saved, compressed: not rebuilt RAW from its form.
        assert decode_one(c.call("MEMORY", "USAGE", "lb")) <= settled * 1.02
        assert zrange_all(c, "lb") == sorted_pairs(want)
        assert c.call("SAVE") == b"+OK\r\n"
    t.stop()
    t2 = spawn("terse", ["--dir", d])
    order = sorted_pairs(want)
    with t2.raw() as c:
        assert decode_one(c.call("ZCARD", "lb")) == len(want)
        assert decode_one(c.call("OBJECT", "ENCODING", "lb")) == b"skiplist"
        for i in (0, 1, 4999, 50000, 99999):
            m, s = order[i]
            assert decode_one(c.call("ZRANK", "lb", m)) == i
            assert float(decode_one(c.call("ZSCORE", "lb", m))) == s
        assert c.call("ZADD", "lb", "-1", order[777][0]) == b":0\r\n"
        assert decode_one(c.call("ZRANGE", "lb", 0, 0)) == [order[777][0]]
        want[order[777][0]] = -1.0
        assert zrange_all(c, "lb") == sorted_pairs(want)


def old_snapshot_members():
    """The sorted set data/zset_map_v0.terse holds (written by terse before its member map kept
    fingerprints): a run of 40 members at 0, runs of three, distinct scores."""
    out = {}
    for i in range(600):
        score = 0 if i < 40 else (i // 3 if i < 300 else i * 1.5)
        out[b"member:%05d:%s" % (i, b"x" * (i % 13))] = float(score)
    return out


def test_snapshot_with_the_old_member_map_loads(spawn, tmp_path):
    """A snapshot whose sorted set carries the member map terse wrote before (members with
    their scores) loads: its map is rebuilt from the order, every read answers as before, and
    the set is saved and loaded again in today's form."""
    import shutil
    d = str(tmp_path)
    shutil.copy(os.path.join(os.path.dirname(__file__), "data", "zset_map_v0.terse"),
                os.path.join(d, "dump.terse"))
    want = old_snapshot_members()
    t = spawn("terse", ["--dir", d, "--enable-debug-command", "yes"])
    with t.raw() as c:
        assert decode_one(c.call("OBJECT", "ENCODING", "z")) == b"skiplist"
        for _ in range(2):
            assert zrange_all(c, "z") == sorted_pairs(want)
            order = sorted_pairs(want)
            for i in (0, 39, 40, 41, 299, 300, 599):
                m, s = order[i]
                assert decode_one(c.call("ZRANK", "z", m)) == i
                assert float(decode_one(c.call("ZSCORE", "z", m))) == s
            cursor, seen = b"0", []
            while True:
                cursor, page = decode_one(c.call("ZSCAN", "z", cursor, "COUNT", "7"))
                seen += page[0::2]
                if cursor == b"0":
                    break
            assert sorted(seen) == sorted(want)
            assert c.call("DEBUG", "RELOAD") == b"+OK\r\n"
        assert c.call("ZADD", "z", "0", order[500][0]) == b":0\r\n"
        want[order[500][0]] = 0.0
        assert zrange_all(c, "z") == sorted_pairs(want)


def test_big_zset_dump_restores_on_redis(spawn):
    """DUMP of a chunked zset is an RDB payload redis-server RESTOREs to the same zset, and
    RESTORE of redis-server's DUMP gives terse the same zset, which then ranks in O(log n)."""
    # Servers of its own: the big forms grow the scratch buffers a shared server keeps.
    terse, oracle = spawn("terse"), spawn("redis")
    want = leaderboard(20000)
    with terse.raw() as tc, oracle.raw() as rc:
        zadd_all(tc, "big", want)
        zadd_all(rc, "big", want)
        ours = decode_one(tc.call("DUMP", "big"))
        theirs = decode_one(rc.call("DUMP", "big"))
        assert rc.call("RESTORE", "from-terse", 0, ours) == b"+OK\r\n"
        assert tc.call("RESTORE", "from-redis", 0, theirs) == b"+OK\r\n"
        assert zrange_all(rc, "from-terse") == sorted_pairs(want)
        assert zrange_all(tc, "from-redis") == sorted_pairs(want)
        assert tc.call("ZRANK", "from-redis", "player:0012345") == \
            rc.call("ZRANK", "big", "player:0012345")


def test_watch_and_a_replica_see_in_place_edits(spawn):
    """A chunked zset changes in place: WATCH fails the transaction for each kind of write, and
    a redis-server replica of terse receives the full zset and then every edit."""
    t = spawn("terse")
    want = leaderboard(5000)
    with t.raw() as c, t.raw() as other:
        zadd_all(c, "lb", want)
        for cmd in (("ZADD", "lb", 5, "player:0000001"), ("ZREM", "lb", "player:0000002"),
                    ("ZINCRBY", "lb", 3, "player:0000003"), ("ZPOPMIN", "lb"),
                    ("ZREMRANGEBYRANK", "lb", 10, 20), ("ZREMRANGEBYSCORE", "lb", 5, 9)):
            assert c.call("WATCH", "lb") == b"+OK\r\n"
            other.call(*cmd)
            c.call("MULTI")
            c.call("ZCARD", "lb")
            assert c.call("EXEC") == b"*-1\r\n", cmd
    r = spawn("redis", ["--replicaof", "127.0.0.1", str(t.port)])
    with t.raw() as c, r.raw() as rc:
        h.wait_until(lambda: h.link_up(rc), "the replica never came up", 20)
        c.call("ZADD", "lb", 1, "after-sync", 2, "player:0000004")
        c.call("ZPOPMAX", "lb", 3)
        c.call("ZMPOP", 1, "lb", "MIN", "COUNT", 2)
        c.call("ZREMRANGEBYSCORE", "lb", 100, 200)
        want = zrange_all(c, "lb")
        while zrange_all(rc, "lb") != want:
            assert time.monotonic() < deadline, "the replica did not catch up"
            time.sleep(0.05)
