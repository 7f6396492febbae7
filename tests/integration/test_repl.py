"""Replication: a real redis-server 7.0 replica of terse must end up with terse's dataset.

Each test starts terse and a redis-server with `--replicaof` pointing at it, writes through
terse (every type, expiry, transactions, blocking and random commands, lazy and active
expiry), waits until the replica acknowledged everything terse fed (INFO replication offsets),
then compares every key of every db on both: type, value, and TTL within a second. The
replica is the oracle: it loads terse's RDB (the full sync) and replays terse's stream, so a
byte of either that Redis reads differently fails here.
"""

import os
import time

import pytest
import redis

import terse_harness as h

SYNC_TIMEOUT_S = 20


def info(client, section):
    return client.info(section)


def wait_online(master, replica, timeout=SYNC_TIMEOUT_S):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if info(replica, "replication").get("master_link_status") == "up":
            return
        time.sleep(0.05)
    pytest.fail("the replica never came up: %s" % info(replica, "replication"))


def wait_caught_up(master, replica, timeout=SYNC_TIMEOUT_S):
    """Until the replica has processed every byte terse produced so far."""
    deadline = time.monotonic() + timeout
    want = info(master, "replication")["master_repl_offset"]
    while time.monotonic() < deadline:
        got = info(replica, "replication").get("slave_repl_offset", -1)
        if got >= want:
            return
        time.sleep(0.05)
    pytest.fail("the replica stopped at offset %s of %s" % (got, want))


def value_of(c, key):
    kind = c.type(key).decode()
    if kind == "string":
        return kind, c.get(key)
    if kind == "list":
        return kind, c.lrange(key, 0, -1)
    if kind == "hash":
        return kind, sorted(c.hgetall(key).items())
    if kind == "set":
        return kind, sorted(c.smembers(key))
    if kind == "zset":
        return kind, c.zrange(key, 0, -1, withscores=True)
    if kind == "stream":
        groups = c.xinfo_groups(key)
        pel = [[(p["message_id"], p["consumer"], p["times_delivered"])
                for p in c.xpending_range(key, g["name"], "-", "+", 10000)] for g in groups]
        cons = [sorted(x["name"] for x in c.xinfo_consumers(key, g["name"])) for g in groups]
        return kind, (c.xrange(key), [(g["name"], g["last-delivered-id"], g["pending"],
                                       g["entries-read"]) for g in groups], pel, cons)
    return kind, None


def dataset(c, databases=16):
    out = {}
    for db in range(databases):
        c.execute_command("SELECT", db)
        for key in sorted(c.scan_iter(count=1000)):
            # The absolute expiry (PEXPIRETIME): a replica or an AOF replay must land on the
            # same millisecond (PXAT and PEXPIREAT are what the feed carries), however long
            # the comparison itself takes.
            out[(db, key)] = value_of(c, key) + (c.execute_command("PEXPIRETIME", key),)
    c.execute_command("SELECT", 0)
    return out


def without_entries_read(v):
    """A stream group's entries-read after XCLAIM ... LASTID, the form consumer-group reads
    are fed in: Redis 7.0's own replicas and AOF replays do not follow it either (checked
    against a redis-server master), so comparisons after a stream of group reads leave it out."""
    if v[0] == "stream":
        st = v[1]
        return v[0], (st[0], [g[:3] for g in st[1]], st[2], st[3]), v[2]
    return v


def assert_same_dataset(t, r, entries_read=True):
    a, b = dataset(t), dataset(r)
    assert sorted(set(a) - set(b)) == [] and sorted(set(b) - set(a)) == []
    for k in a:
        if entries_read:
            assert a[k] == b[k], k
        else:
            assert without_entries_read(a[k]) == without_entries_read(b[k]), k


@pytest.fixture
def linked(spawn):
    """terse with a data set written before the replica attached, and the replica."""
    def _linked(before=None, replica_extra=()):
        master = spawn("terse")
        mt = master.client()
        if before:
            before(mt)
        replica = spawn("redis", ["--replicaof", "127.0.0.1", str(master.port)] +
                        list(replica_extra))
        rt = replica.client()
        wait_online(mt, rt)
        return master, mt, replica, rt
    return _linked


def fill_every_type(c):
    c.set("s", "v" * 300)                       # compressed in terse
    c.set("n", 12345)
    c.set("e", "soon", ex=1000)
    c.rpush("l", *[str(i) for i in range(200)])
    c.hset("h", mapping={"f%d" % i: "v%d" % i for i in range(100)})
    c.sadd("si", *range(50))
    c.sadd("ss", *["m%d" % i for i in range(300)])
    c.zadd("z", {"m%d" % i: i * 1.5 for i in range(150)})
    for i in range(30):
        c.xadd("x", {"f": i})
    c.xgroup_create("x", "g", id="0")
    c.xreadgroup("g", "alice", {"x": ">"}, count=5)
    c.execute_command("SELECT", 5)
    c.set("db5", "five")
    c.execute_command("SELECT", 0)


def test_full_sync_then_stream(linked):
    master, t, replica, r = linked(before=fill_every_type)
    wait_caught_up(t, r)
    assert_same_dataset(t, r)

    # The stream: every rewrite terse feeds must replay to the same dataset on Redis.
    t.set("k1", "v", ex=100)
    t.setex("k2", 50, "v")
    t.expire("s", 300)
    t.incrbyfloat("f", 1.1)
    t.hincrbyfloat("h", "num", 2.5)
    t.getdel("n")
    t.getex("e", persist=True)
    t.spop("ss", 7)
    t.spop("si")
    t.lpop("l", 3)
    t.blpop(["l"], 1)
    t.brpoplpush("l", "l2", 1)
    t.lmpop(1, "l", direction="RIGHT", count=4)
    t.zpopmin("z", 2)
    t.bzpopmax(["z"], 1)
    t.zmpop(1, ["z"], min=True, count=3)
    t.xreadgroup("g", "bob", {"x": ">"}, count=3)
    t.xreadgroup("g", "carol", {"x": ">"}, count=2, noack=True)
    t.xclaim("x", "g", "dave", 0, [t.xpending_range("x", "g", "-", "+", 1)[0]["message_id"]])
    t.xautoclaim("x", "g", "erin", 0, count=2)
    t.xack("x", "g", t.xpending_range("x", "g", "-", "+", 1)[0]["message_id"])
    t.xadd("x", {"new": 1}, maxlen=10, approximate=True)
    t.xadd("x", {"new": 2})
    t.xtrim("x", maxlen=5, approximate=False)
    with t.pipeline(transaction=True) as p:
        p.set("tx1", 1).incr("tx1").rpush("txl", "a", "b").execute()
    t.execute_command("SWAPDB", 5, 6)
    t.set("short", "v", px=50)
    t.copy("h", "h2")
    t.rename("h2", "h3")
    time.sleep(0.3)            # "short" expires: lazy or active, it is fed as a DEL
    t.get("short")
    t.flushdb()                # db 0 only; db 6 (was 5) keeps its key
    t.set("after", "flush")
    wait_caught_up(t, r)
    assert_same_dataset(t, r)


def test_blocked_client_served_is_fed(linked):
    master, t, replica, r = linked()
    waiter = master.client()
    import threading
    got = []
    th = threading.Thread(target=lambda: got.append(waiter.blmove("src", "dst", 5,
                                                                  "LEFT", "RIGHT")))
    th.start()
    deadline = time.monotonic() + 5
    while t.info("clients")["blocked_clients"] == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    t.rpush("src", "a", "b")
    th.join()
    assert got == [b"a"]
    wait_caught_up(t, r)
    assert_same_dataset(t, r)


def test_info_and_role(linked):
    master, t, replica, r = linked()
    t.set("a", 1)
    wait_caught_up(t, r)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        rep = info(t, "replication")
        if rep.get("slave0", {}).get("offset", 0) >= rep["master_repl_offset"]:
            break
        time.sleep(0.1)
    assert rep["role"] == "master"
    assert rep["connected_slaves"] == 1
    assert rep["slave0"]["state"] == "online"
    assert rep["slave0"]["port"] == replica.port
    assert rep["slave0"]["offset"] == rep["master_repl_offset"]
    assert rep["repl_backlog_active"] == 1
    assert rep["master_replid"] == info(r, "replication")["master_replid"]
    role = t.execute_command("ROLE")
    assert role[0] == b"master" and role[1] == rep["master_repl_offset"]
    assert role[2] == [[b"127.0.0.1", str(replica.port).encode(),
                        str(rep["slave0"]["offset"]).encode()]]


def test_reconnect_continues_from_backlog(linked):
    master, t, replica, r = linked()
    t.set("a", 1)
    wait_caught_up(t, r)
    t.client_kill_filter(_type="slave")
    for i in range(100):
        t.set("k%d" % i, i)     # while the link is down: in the backlog only
    wait_online(t, r)
    wait_caught_up(t, r)
    assert_same_dataset(t, r)
    with open(replica.log_path, "rb") as f:
        log = f.read().decode("utf-8", "replace")
    assert "Successful partial resynchronization with master" in log
    assert log.count("MASTER <-> REPLICA sync: Finished with success") == 1
    stats = t.info("stats")
    assert (stats["sync_full"], stats["sync_partial_ok"], stats["sync_partial_err"]) == (1, 1, 0)


def test_big_dataset_and_writes_during_sync(linked):
    def big(c):
        p = c.pipeline(transaction=False)
        for i in range(50000):
            p.set("key:%d" % i, "value-%d-" % i + "x" * (i % 300))
        p.execute()
    master, t, replica, r = linked(before=big)
    for i in range(1000):
        t.set("late:%d" % i, i)
    wait_caught_up(t, r)
    assert r.dbsize() == t.dbsize() == 51000
    assert r.get("key:49999") == t.get("key:49999")


def test_raw_sync_stream(spawn):
    """The protocol as Redis's own tests read it (attach_to_replication_stream): SYNC, newlines
    while the RDB is written, "$<size>" and the RDB, then the stream as RESP arrays."""
    master = spawn("terse")
    t = master.client()
    t.set("before", 1)
    t.config_set("repl-ping-replica-period", 3600)
    with h.RawConn(master.port) as c:
        c.send(b"SYNC\r\n")
        deadline = time.monotonic() + 10
        while b"\r\n" not in c.buf.lstrip(b"\n"):
            c._fill(deadline)
        c.buf = c.buf.lstrip(b"\n")
        assert c.buf.startswith(b"$")
        size = int(c.buf[1:c.buf.index(b"\r\n")])
        c.buf = c.buf[c.buf.index(b"\r\n") + 2:]
        while len(c.buf) < size:
            c._fill(deadline)
        rdb, c.buf = c.buf[:size], c.buf[size:]
        assert rdb.startswith(b"REDIS0010")
        assert t.info("replication")["connected_slaves"] == 1
        t.set("k", "v", ex=100)
        t.execute_command("MULTI")
        t.execute_command("SET", "a", "1")
        t.execute_command("SET", "b", "2")
        t.execute_command("EXEC")
        want = [[b"SELECT", b"0"], [b"SET", b"k", b"v", b"PXAT"], [b"MULTI"],
                [b"SET", b"a", b"1"], [b"SET", b"b", b"2"], [b"EXEC"]]
        for w in want:
            got = h.decode_one(c.read_reply())
            assert got[:len(w)] == w
    deadline = time.monotonic() + 5
    while t.info("replication")["connected_slaves"] != 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert t.info("replication")["connected_slaves"] == 0


def test_wait_counts_acknowledging_replicas(linked):
    master, t, replica, r = linked()
    t.set("a", 1)
    start = time.monotonic()
    assert t.execute_command("WAIT", 1, 5000) == 1       # GETACK: answered well before 5 s
    assert time.monotonic() - start < 2
    start = time.monotonic()
    assert t.execute_command("WAIT", 2, 300) == 1        # only one replica: the timeout
    assert time.monotonic() - start >= 0.29
    with t.pipeline(transaction=True) as p:
        p.set("b", 2).execute_command("WAIT", 5, 0)      # inside EXEC: at once
        assert p.execute() == [True, 1]
    assert t.info("clients")["blocked_clients"] == 0


def test_wait_errors_as_redis(spawn):
    master, oracle = spawn("terse"), spawn("redis")
    t, o = master.client(), oracle.client()
    for args in (("WAIT", "x", 0), ("WAIT", 0, "x"), ("WAIT", 0, -1), ("WAIT", 0, 0),
                 ("WAIT", 0, 10), ("WAIT", 1)):
        got = []
        for c in (t, o):
            try:
                got.append(("ok", c.execute_command(*args)))
            except Exception as e:  # noqa: BLE001 - the error text is what is compared
                got.append(("err", str(e)))
        assert got[0] == got[1], args
    start = time.monotonic()
    assert t.execute_command("WAIT", 1, 100) == 0        # no replica: waits out its timeout
    assert time.monotonic() - start >= 0.09


def random_workload(t, rnd, n):
    """n random writes over typed key pools (s: strings, l: lists, S: sets, h: hashes,
    z: sorted sets, x: streams), with expiries short enough to lapse while it runs."""
    def K(p="s"):
        return "%s%d" % (p, rnd.randrange(8))
    ops = [
        lambda: t.set(K(), rnd.randint(0, 100), ex=rnd.choice([None, 1, 100]),
                      nx=rnd.random() < .2),
        lambda: t.set(K(), "v", px=rnd.choice([1, 5, 50])),
        lambda: t.incrbyfloat(K("f"), 1.25), lambda: t.incr(K("n")),
        lambda: t.append(K(), "ab"), lambda: t.getdel(K()), lambda: t.getex(K(), ex=10),
        lambda: t.getex(K(), persist=True), lambda: t.expire(K(), rnd.choice([-1, 1, 50])),
        lambda: t.pexpire(K(), 3), lambda: t.delete(K(), K()), lambda: t.rename(K(), K()),
        lambda: t.copy(K(), K(), replace=True),
        lambda: t.rpush(K("l"), *range(rnd.randint(1, 5))), lambda: t.lpop(K("l"), 2),
        lambda: t.lmpop(2, K("l"), K("l"), direction="LEFT", count=2),
        lambda: t.blpop([K("l"), K("l")], 0.01), lambda: t.lmove(K("l"), K("l")),
        lambda: t.sadd(K("S"), *[rnd.randint(0, 30) for _ in range(4)]),
        lambda: t.spop(K("S"), rnd.choice([None, 2, 10])), lambda: t.smove(K("S"), K("S"), 3),
        lambda: t.sinterstore(K("S"), [K("S"), K("S")]),
        lambda: t.hset(K("h"), "f%d" % rnd.randint(0, 5), 1),
        lambda: t.hincrbyfloat(K("h"), "x", 0.5),
        lambda: t.zadd(K("z"), {"m%d" % rnd.randint(0, 9): rnd.random()}),
        lambda: t.zincrby(K("z"), 1.5, "m1"), lambda: t.zpopmin(K("z"), 2),
        lambda: t.bzpopmax([K("z")], 0.01), lambda: t.zmpop(1, [K("z")], max=True, count=2),
        lambda: t.xadd(K("x"), {"a": 1}, maxlen=5, approximate=rnd.random() < .5),
        lambda: t.xgroup_create(K("x"), "g", id="0", mkstream=True),
        lambda: t.xreadgroup("g", rnd.choice(["c1", "c2"]), {K("x"): ">"}, count=2,
                             noack=rnd.random() < .3),
        lambda: t.xautoclaim(K("x"), "g", "c3", 0, count=3), lambda: t.xtrim(K("x"), maxlen=3),
        lambda: t.sort(K("l"), store=K("l")), lambda: t.get(K()), lambda: t.scan(0, count=100),
    ]
    for _ in range(n):
        try:
            rnd.choice(ops)()
        except redis.ResponseError:
            pass                         # a wrong type or a missing group: fine, nothing fed


@pytest.mark.parametrize("seed", [1, 2])
def test_random_writes_replay_the_same(linked, seed):
    import random
    master, t, replica, r = linked()
    random_workload(t, random.Random(seed), 3000)
    time.sleep(0.1)                      # the short expiries lapse (lazily or actively)
    wait_caught_up(t, r)
    assert_same_dataset(t, r, entries_read=False)


def test_min_replicas_to_write(linked):
    master, t, replica, r = linked()
    t.set("a", 1)
    wait_caught_up(t, r)
    t.config_set("min-replicas-to-write", 1)
    deadline = time.monotonic() + 5
    while t.info("replication").get("min_slaves_good_slaves") != 1:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert t.set("b", 2)                                  # one good replica: writes go
    t.config_set("min-replicas-to-write", 2)
    with pytest.raises(redis.ResponseError, match="^NOREPLICAS Not enough good replicas to write"):
        t.set("c", 3)
    assert t.get("b") == b"2" and t.get("c") is None     # reads still go
    with h.RawConn(master.port) as c:     # refused when queued: the EXEC aborts
        assert c.call("MULTI") == b"+OK\r\n"
        assert c.call("INCR", "b").startswith(b"-NOREPLICAS")
        assert c.call("EXEC").startswith(b"-EXECABORT")
    t.config_set("min-replicas-to-write", 0)
    with h.RawConn(master.port) as c:     # queued, then refused at EXEC (Redis's test)
        assert c.call("MULTI") == b"+OK\r\n"
        assert c.call("INCR", "b") == b"+QUEUED\r\n"
        t.config_set("min-replicas-to-write", 2)
        assert c.call("EXEC").startswith(b"-EXECABORT Transaction discarded because of: "
                                          b"NOREPLICAS")
    assert t.get("b") == b"2"
    script = "#!lua\nreturn redis.call('get', KEYS[1])"
    with pytest.raises(redis.ResponseError, match="^NOREPLICAS"):
        t.eval(script, 1, "b")                           # may write: refused before it runs
    assert t.eval("#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])", 1, "b") == b"2"
    with pytest.raises(redis.ResponseError, match="NOREPLICAS"):
        t.eval("return redis.call('set', KEYS[1], 9)", 1, "b")  # its write is refused
    assert t.get("b") == b"2"
    t.config_set("min-slaves-to-write", 0)               # Redis's old name, same option
    assert t.set("c", 3)


def test_misconf_after_a_failed_background_save(spawn, tmp_path):
    """stop-writes-on-bgsave-error: writes (and PING) refused with Redis's text once a BGSAVE
    failed, until one succeeds; compared with redis-server in the same state."""
    replies = []
    for kind in ("terse", "redis"):
        d = tmp_path / kind
        d.mkdir()
        s = spawn(kind, ["--dir", str(d), "--save", "3600 1"])
        c = s.client()
        c.set("k", 1)
        os.rmdir(d)            # no file can be created there now (Redis's cwd included)
        c.bgsave()
        deadline = time.monotonic() + 10
        while c.info("persistence")["rdb_last_bgsave_status"] == "ok":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        got = []
        for cmd in (("SET", "k", 2), ("PING",), ("GET", "k")):
            try:
                got.append(c.execute_command(*cmd))
            except redis.ResponseError as e:
                got.append(str(e))
        replies.append(got)
        if kind == "terse":    # terse saves by path: a new directory there lifts it
            d.mkdir()
            c.bgsave()
            while c.info("persistence")["rdb_last_bgsave_status"] != "ok":
                assert time.monotonic() < deadline + 10
                time.sleep(0.05)
            assert c.set("k", 3)
        c.config_set("save", "")   # so that stopping it does not try to save there again
    assert replies[0] == replies[1]
    assert replies[0][0].startswith("MISCONF Redis is configured to save RDB snapshots")
    assert replies[0][2] == b"1"
