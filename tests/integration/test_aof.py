"""The AOF (Redis 7.0's multi-part format): every type with expiries survives kill -9,
BGREWRITEAOF while clients write, CONFIG SET appendonly yes, a truncated tail (cut with
aof-load-truncated yes, refused with no), a malformed file refused with file, offset and
reason, PUBLISH kept out of the AOF, DEBUG LOADAOF; and the oracle both ways: a real
redis-server started on terse's appendonly directory has terse's dataset, and terse started
on redis-server's has Redis's.

Each test runs its servers in a directory of its own (`dir`); the AOF is <dir>/appendonlydir.
"""

import glob
import os
import threading
import time

import pytest

import terse_harness as h
from test_repl import dataset, fill_every_type

AOF_TIMEOUT_S = 20


@pytest.fixture
def spawn(tmp_path):
    """spawn(binary, extra=(), sub="d") starts a server whose dir is tmp_path/sub."""
    started = []

    def _spawn(binary, extra=(), sub="d", expect_fail=False):
        d = str(tmp_path / sub)
        os.makedirs(d, exist_ok=True)
        s = h.Server(binary, d, ["--dir", d, "--enable-debug-command", "yes"] + list(extra),
                     None, "s%d" % len(started))
        started.append(s)
        if expect_fail:
            try:
                s.start(attempts=1)
            except h.ServerError as e:
                return str(e)
            pytest.fail("the server started; log:\n%s" % s.log_tail())
        try:
            return s.start()
        except h.ServerError as e:
            pytest.fail(str(e), pytrace=False)

    yield _spawn
    for s in started:
        s.kill()


def aofdir(server):
    return os.path.join(server.workdir, "appendonlydir")


def manifest(server):
    with open(os.path.join(aofdir(server), "appendonly.aof.manifest")) as f:
        return f.read()


def wait_rewrite_done(c, timeout=AOF_TIMEOUT_S):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        i = c.info("persistence")
        if (i["aof_rewrite_in_progress"] == 0 and i["aof_rewrite_scheduled"] == 0 and
                i["aof_enabled"] == 1):
            return i
        time.sleep(0.02)
    pytest.fail("the AOF rewrite did not end: %s" % c.info("persistence"))


def more_writes(c):
    """Writes whose feed is rewritten: relative expiries, INCRBYFLOAT, pops, transactions."""
    c.set("k1", "v", ex=100)
    c.setex("k2", 50, "v")
    c.expire("s", 300)
    c.incrbyfloat("f", 1.5)
    c.lpop("l")
    c.spop("ss")
    p = c.pipeline(transaction=True)
    p.incr("n")
    p.hset("h", "new", "x")
    p.zincrby("z", 2, "m3")
    p.execute()
    c.xadd("x", {"f": "last"})
    c.xack("x", "g", c.xrange("x", count=1)[0][0])
    c.execute_command("SELECT", 7)
    c.set("db7", "seven", px=500000)
    c.execute_command("SELECT", 0)
    c.set("gone", "soon", px=1)
    c.delete("e")


def test_every_type_survives_kill9(terse_binary, spawn):
    t = spawn(terse_binary, ["--appendonly", "yes", "--appendfsync", "always"])
    c = t.client()
    fill_every_type(c)
    more_writes(c)
    time.sleep(0.01)
    want = dataset(c)
    assert len(want) > 10
    t.kill()
    t2 = spawn(terse_binary, ["--appendonly", "yes"])
    _same(dataset(t2.client()), want)
    assert "type b" in manifest(t2) and "type i" in manifest(t2)


def test_everysec_and_no_survive_a_clean_stop(terse_binary, spawn):
    for policy in ("everysec", "no"):
        t = spawn(terse_binary, ["--appendonly", "yes", "--appendfsync", policy], sub=policy)
        c = t.client()
        fill_every_type(c)
        want = dataset(c)
        assert t.stop() == 0
        t2 = spawn(terse_binary, ["--appendonly", "yes"], sub=policy)
        _same(dataset(t2.client()), want)
        t2.kill()


def test_bgrewriteaof_during_writes(terse_binary, spawn):
    t = spawn(terse_binary, ["--appendonly", "yes", "--appendfsync", "everysec"])
    c = t.client()
    fill_every_type(c)
    stop = threading.Event()

    def writer():
        w = t.client()
        i = 0
        while not stop.is_set():
            p = w.pipeline(transaction=False)
            for _ in range(50):
                p.set("w%d" % i, "x" * (i % 300))
                p.rpush("wl", i)
                p.hincrby("wh", "f%d" % (i % 17), 1)
                i += 1
            p.execute()

    th = threading.Thread(target=writer)
    th.start()
    try:
        for _ in range(4):
            assert c.bgrewriteaof() in (True, b"Background append only file rewriting started")
            wait_rewrite_done(c)
            time.sleep(0.05)
    finally:
        stop.set()
        th.join()
    info = wait_rewrite_done(c)
    assert info["aof_rewrites"] >= 4 and info["aof_last_bgrewrite_status"] == "ok"
    want = dataset(c)
    t.kill()
    files = sorted(os.listdir(aofdir(t)))
    # the files the last base covers are gone: one base, its incr file(s), the manifest
    assert len([f for f in files if ".base." in f]) == 1, files
    assert not [f for f in files if f.startswith("temp-")], files
    t2 = spawn(terse_binary, ["--appendonly", "yes"])
    _same(dataset(t2.client()), want)


def test_config_set_appendonly_yes(terse_binary, spawn):
    t = spawn(terse_binary)
    c = t.client()
    fill_every_type(c)
    assert c.config_set("appendonly", "yes")
    wait_rewrite_done(c)
    more_writes(c)
    assert c.config_get("appendonly") == {"appendonly": "yes"}
    time.sleep(0.01)
    want = dataset(c)
    t.kill()
    t2 = spawn(terse_binary, ["--appendonly", "yes"])
    _same(dataset(t2.client()), want)


def _norm(ds):
    """A consumer group's entries-read is not in what Redis propagates for XREADGROUP (the
    XCLAIMs carry the last ID only), so a replayed AOF, Redis's too, has it null: left out."""
    out = {}
    for k, v in ds.items():
        if v[0] == "stream" and v[1] is not None:
            entries, groups, pel, cons = v[1]
            v = (v[0], (entries, [g[:3] for g in groups], pel, cons)) + v[2:]
        out[k] = v
    return out


def _same(a, b):
    a, b = _norm(a), _norm(b)
    assert sorted(a) == sorted(b)
    for k in a:
        assert a[k][:-1] == b[k][:-1], k
        assert (a[k][-1] < 0) == (b[k][-1] < 0) and abs(a[k][-1] - b[k][-1]) <= 1, k


def incr_file(server):
    files = sorted(glob.glob(os.path.join(aofdir(server), "*.incr.aof")))
    assert files
    return files[-1]


def test_truncated_tail(terse_binary, spawn):
    t = spawn(terse_binary, ["--appendonly", "yes"])
    c = t.client()
    c.set("a", "1")
    c.set("b", "2")
    c.set("last", "x" * 100)
    assert t.stop() == 0
    path = incr_file(t)
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.truncate(size - 30)  # inside the last SET
    err = spawn(terse_binary, ["--appendonly", "yes", "--aof-load-truncated", "no"],
                expect_fail=True)
    assert "Unexpected end of file" in err and os.path.basename(path) in err
    t2 = spawn(terse_binary, ["--appendonly", "yes"])
    c2 = t2.client()
    assert c2.get("a") == b"1" and c2.get("b") == b"2" and c2.get("last") is None
    assert "Truncating the AOF" in t2.log_tail()
    c2.set("after", "1")  # appended after the cut: the file replays cleanly again
    assert t2.stop() == 0
    t3 = spawn(terse_binary, ["--appendonly", "yes", "--aof-load-truncated", "no"])
    assert t3.client().get("after") == b"1"


def test_unfinished_transaction_reverted(terse_binary, spawn):
    t = spawn(terse_binary, ["--appendonly", "yes"])
    c = t.client()
    c.set("a", "1")
    assert t.stop() == 0
    with open(incr_file(t), "ab") as f:
        f.write(b"*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r\n")
    t2 = spawn(terse_binary, ["--appendonly", "yes"])
    c2 = t2.client()
    assert c2.get("a") == b"1" and c2.get("b") is None
    assert "Revert incomplete MULTI/EXEC" in t2.log_tail()


def test_bad_format_and_bad_manifest_refused(terse_binary, spawn):
    t = spawn(terse_binary, ["--appendonly", "yes"])
    t.client().set("a", "1")
    assert t.stop() == 0
    path = incr_file(t)
    with open(path, "ab") as f:
        f.write(b"+garbage\r\n*1\r\n$4\r\nPING\r\n")
    err = spawn(terse_binary, ["--appendonly", "yes"], expect_fail=True)
    assert "Bad file format" in err and os.path.basename(path) in err and "offset" in err
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) - len(b"+garbage\r\n*1\r\n$4\r\nPING\r\n"))
    mpath = os.path.join(aofdir(t), "appendonly.aof.manifest")
    good = open(mpath).read()
    with open(mpath, "w") as f:
        f.write(good + "file x seq 1 type b\n")
    err = spawn(terse_binary, ["--appendonly", "yes"], expect_fail=True)
    assert "Found duplicate base file information" in err
    with open(mpath, "w") as f:
        f.write(good)
    t2 = spawn(terse_binary, ["--appendonly", "yes"])
    assert t2.client().get("a") == b"1"


def test_publish_not_written(terse_binary, spawn):
    t = spawn(terse_binary, ["--appendonly", "yes"])
    c = t.client()
    c.publish("ch", "hello")
    c.set("k", "v")
    assert t.stop() == 0
    data = open(incr_file(t), "rb").read()
    assert b"PUBLISH" not in data.upper() and b"hello" not in data and b"k" in data


def test_debug_loadaof_keeps_ttl(terse_binary, spawn):
    t = spawn(terse_binary)
    c = t.client()
    assert c.config_set("appendonly", "yes")
    c.set("foo", "bar", ex=100)
    c.set("foo", "bar2", keepttl=True)
    c.set("p", "v", ex=100)
    c.getex("p", persist=True)
    assert c.execute_command("DEBUG", "LOADAOF") == b"OK"
    assert 90 < c.ttl("foo") <= 100 and c.get("foo") == b"bar2"
    assert c.ttl("p") == -1


# ---- the oracle ---------------------------------------------------------------------------

def test_redis_server_loads_terse_aof(terse_binary, oracle_binary, spawn):
    t = spawn(terse_binary, ["--appendonly", "yes"])
    c = t.client()
    fill_every_type(c)
    assert c.bgrewriteaof()
    wait_rewrite_done(c)
    more_writes(c)  # in the incr file after the base
    time.sleep(0.01)
    want = dataset(c)
    assert t.stop() == 0
    r = spawn(oracle_binary, ["--appendonly", "yes"])
    got = dataset(r.client())
    _same(got, want)


def test_terse_loads_redis_aof(terse_binary, oracle_binary, spawn):
    r = spawn(oracle_binary, ["--appendonly", "yes"])
    c = r.client()
    fill_every_type(c)
    c.bgrewriteaof()
    deadline = time.monotonic() + AOF_TIMEOUT_S
    while c.info("persistence")["aof_rewrite_in_progress"] and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.2)
    more_writes(c)
    time.sleep(0.01)
    want = dataset(c)
    r.stop()
    t = spawn(terse_binary, ["--appendonly", "yes"])
    _same(dataset(t.client()), want)


def test_load_ignores_maxmemory(terse_binary, spawn):
    """As Redis: the AOF loads whole even past maxmemory (no write of the replay is refused)."""
    t = spawn(terse_binary, ["--appendonly", "yes"])
    c = t.client()
    p = c.pipeline(transaction=False)
    for i in range(3000):
        p.set("k%d" % i, os.urandom(1000))
    p.execute()
    assert t.stop() == 0
    t2 = spawn(terse_binary, ["--appendonly", "yes", "--maxmemory", "1mb"])
    assert t2.client().dbsize() == 3000
