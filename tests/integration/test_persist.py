"""Snapshots: SAVE, BGSAVE, LASTSAVE, save points, SHUTDOWN [SAVE|NOSAVE], DEBUG RELOAD,
DEBUG DIGEST / DIGEST-VALUE (compared with redis-server 7.0), INFO persistence, the startup
load (round trips of every value kind and expiry across 16 dbs; corrupt and truncated files
refused with the file, the offset and the reason), and kill -9 at random moments of a BGSAVE.

Each test runs its own servers in a directory of its own (the snapshot is <dir>/dump.terse,
the server's working directory)."""

import os
import random
import re
import subprocess
import time

import pytest

import terse_harness as h

ASAN = "/asan/" in (os.environ.get("TERSE_BIN") or "")
# Kill-9 test: 20 rounds either way; under ASan the dataset is smaller so the suite stays
# within its time (the number of kills is not reduced).
KILL_ROUNDS = 20
KILL_KEYS = 4000 if ASAN else 12000
KILL_VALUE = 1024
KILL_BIG = 5000 if ASAN else 20000  # elements of each big container


@pytest.fixture
def pdir(tmp_path):
    return str(tmp_path)


def start(binary, pdir, extra=(), name="p"):
    s = h.Server(binary, pdir, ["--enable-debug-command", "yes"] + list(extra), None, name)
    try:
        return s.start()
    except h.ServerError as e:
        pytest.fail(str(e), pytrace=False)


@pytest.fixture
def servers(terse_binary, pdir):
    """servers(extra=()) starts a terse in pdir; all are killed after the test."""
    started = []

    def _start(extra=()):
        s = start(terse_binary, pdir, extra, "p%d" % len(started))
        started.append(s)
        return s

    yield _start
    for s in started:
        s.kill()


def digest(c):
    return c.execute_command("DEBUG", "DIGEST")


def info_persistence(c):
    return c.info("persistence")


def wait_bgsave_done(c, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if info_persistence(c)["rdb_bgsave_in_progress"] == 0:
            return
        time.sleep(0.01)
    pytest.fail("BGSAVE still running after %.0fs" % timeout)


def fill_all_kinds(c):
    """Every value kind in all 16 dbs: int, raw, LZ4, empty, binary, 1 MiB+, TTLs."""
    rnd = random.Random(5)
    big = bytes(rnd.getrandbits(8) for _ in range(1 << 16)) * 20  # 1.25 MiB
    text = b"".join(b"line %d of a compressible log chunk\n" % i for i in range(200))
    for db in range(16):
        p = c.pipeline(transaction=False)
        p.execute_command("SELECT", db)
        p.set(b"int", -9223372036854775808 + db)
        p.set(b"small", b"v%d" % db)
        p.set(b"lz4", text[:4000 + db])
        p.set(b"empty", b"")
        p.set(b"bin", bytes(range(256)) + b"\x00\r\n")
        p.set(b"ttl", b"expires later", px=3600 * 1000)
        p.set(b"dup:a", text[:500])
        p.set(b"dup:b", text[:500])
        p.append(b"appended", b"abc")
        p.append(b"appended", b"def")
        if db in (0, 7, 15):
            p.set(b"big", big[db:])
        p.execute()
    c.execute_command("SELECT", 0)  # the pipelines moved the pooled connection


def test_round_trip_every_kind_all_dbs(servers):
    s = servers()
    c = s.client()
    fill_all_kinds(c)
    c.set(b"short", b"gone before the restart", px=200)
    before = digest(c)
    sizes = {db: s.client(db=db).dbsize() for db in range(16)}
    assert c.save() is True
    time.sleep(0.3)  # "short" expires on disk
    s.kill()
    s2 = servers()
    c2 = s2.client()
    ip = info_persistence(c2)
    assert ip["rdb_last_load_keys_expired"] == 1
    assert ip["rdb_last_load_keys_loaded"] == sum(sizes.values()) - 1
    c2.execute_command("SELECT", 0)
    assert c2.get(b"short") is None
    # Everything but "short" came back, key by key:
    for db in range(16):
        d = s2.client(db=db)
        assert d.dbsize() == sizes[db] - (1 if db == 0 else 0)
        assert d.get(b"int") == b"%d" % (-9223372036854775808 + db)
        assert d.get(b"empty") == b""
        assert d.get(b"bin") == bytes(range(256)) + b"\x00\r\n"
        assert 0 < d.pttl(b"ttl") <= 3600 * 1000
        assert d.pttl(b"lz4") == -1
        assert d.object("encoding", b"appended") == b"raw"
        assert d.object("encoding", b"int") == b"int"
        assert d.get(b"dup:a") == d.get(b"dup:b")
    s3 = servers()  # the same file again, into a third server: identical digest
    assert digest(s3.client()) == digest(c2)
    assert before != digest(c2)  # "short" made a difference


def test_digest_matches_redis(servers, spawn):
    r = spawn("redis", ["--enable-debug-command", "yes"])
    t = servers()
    rc, tc = r.client(), t.client()
    assert digest(tc) == digest(rc) == b"0" * 40
    for c in (rc, tc):
        fill_all_kinds(c)
        c.execute_command("SELECT", 0)
    assert digest(tc) == digest(rc)
    keys = [b"int", b"lz4", b"ttl", b"empty", b"nosuchkey", b"big"]
    assert tc.execute_command("DEBUG", "DIGEST-VALUE", *keys) == \
        rc.execute_command("DEBUG", "DIGEST-VALUE", *keys)
    assert tc.execute_command("DEBUG", "DIGEST-VALUE") == []
    tc.delete(b"small")
    assert digest(tc) != digest(rc)


def test_save_bgsave_lastsave_info(servers, spawn):
    s = servers()
    c = s.client()
    r = spawn("redis")
    with s.raw() as t, r.raw() as o:
        for cmd in (("BGSAVE", "x"), ("BGSAVE", "SCHEDULE", "x"), ("SAVE", "x"),
                    ("LASTSAVE", "x")):
            assert t.call(*cmd) == o.call(*cmd), cmd
    ip = info_persistence(c)
    assert ip["rdb_changes_since_last_save"] == 0
    assert ip["rdb_last_bgsave_time_sec"] == -1 and ip["rdb_saves"] == 0
    c.mset({b"a": 1, b"b": 2, b"c": 3})
    c.set(b"d", b"x")
    assert info_persistence(c)["rdb_changes_since_last_save"] == 4
    first = c.lastsave()
    time.sleep(1.05)
    assert c.save() is True
    assert c.lastsave() > first
    ip = info_persistence(c)
    assert ip["rdb_changes_since_last_save"] == 0 and ip["rdb_saves"] == 1
    # A dataset large enough that the child is still running when the next commands arrive.
    p = c.pipeline(transaction=False)
    for i in range(30000):
        p.set(b"k:%d" % i, os.urandom(200))
    p.execute()
    with s.raw() as t:
        assert t.call("BGSAVE") == b"+Background saving started\r\n"
        assert t.call("BGSAVE") == b"-ERR Background save already in progress\r\n"
        assert t.call("BGSAVE", "SCHEDULE") == b"-ERR Background save already in progress\r\n"
        assert t.call("SAVE") == b"-ERR Background save already in progress\r\n"
        assert info_persistence(c)["rdb_bgsave_in_progress"] == 1
        assert t.call("PING") == b"+PONG\r\n"  # the parent keeps serving
        c.set(b"during", b"1")
    wait_bgsave_done(c)
    ip = info_persistence(c)
    assert ip["rdb_last_bgsave_status"] == "ok" and ip["rdb_saves"] == 2
    assert ip["rdb_last_bgsave_time_sec"] >= 0 and ip["rdb_current_bgsave_time_sec"] == -1
    assert ip["rdb_changes_since_last_save"] == 1  # the write made during the BGSAVE
    assert os.path.exists(os.path.join(s.workdir, "dump.terse"))
    assert not [f for f in os.listdir(s.workdir) if f.startswith("temp-")]


def test_debug_reload(servers):
    s = servers()
    c = s.client()
    fill_all_kinds(c)
    c.execute_command("SELECT", 0)
    before = digest(c)
    assert c.execute_command("DEBUG", "RELOAD") == b"OK"
    assert digest(c) == before
    c.set(b"new", b"1")
    assert c.execute_command("DEBUG", "RELOAD", "NOSAVE") == b"OK"  # back to the file
    assert digest(c) == before and c.get(b"new") is None
    with pytest.raises(Exception, match="only supports the MERGE, NOFLUSH and NOSAVE"):
        c.execute_command("DEBUG", "RELOAD", "BOGUS")


def test_save_points_and_retry(servers):
    s = servers(["--save", "1 2"])
    c = s.client()
    c.set(b"one", b"1")
    time.sleep(1.5)
    assert info_persistence(c)["rdb_saves"] == 0  # 1 change < 2
    c.set(b"two", b"2")
    deadline = time.monotonic() + 5
    while info_persistence(c)["rdb_saves"] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    wait_bgsave_done(c)
    ip = info_persistence(c)
    assert ip["rdb_saves"] == 1 and ip["rdb_changes_since_last_save"] == 0
    assert "2 changes in 1 seconds. Saving..." in s.log_tail()


def test_shutdown_save_semantics(servers, pdir):
    path = os.path.join(pdir, "dump.terse")
    s = servers()
    c = s.client()
    c.set(b"k", b"v")
    with s.raw() as t:
        t.send(h.encode("SHUTDOWN"))  # no save points: no save
        assert t.is_closed()
    s.proc.wait(10)
    assert not os.path.exists(path)
    s = servers()
    s.client().set(b"k", b"v")
    with s.raw() as t:
        t.send(h.encode("SHUTDOWN", "SAVE"))
        assert t.is_closed()
    s.proc.wait(10)
    assert os.path.exists(path)
    os.unlink(path)
    s = servers(["--save", "3600 1"])
    s.client().set(b"k", b"v")
    with s.raw() as t:
        t.send(h.encode("SHUTDOWN", "NOSAVE"))
        assert t.is_closed()
    s.proc.wait(10)
    assert not os.path.exists(path)
    s = servers(["--save", "3600 1"])
    s.client().set(b"k", b"sigterm")
    assert s.stop() == 0  # SIGTERM with save points saves, as Redis
    s = servers()
    assert s.client().get(b"k") == b"sigterm"


def run_refused(binary, pdir):
    """Starts terse on a bad snapshot; it must exit nonzero without listening."""
    port = h.free_port()
    p = subprocess.run([binary, "--port", str(port), "--bind", "127.0.0.1"], cwd=pdir,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def test_corrupt_and_truncated_snapshots_refused(terse_binary, servers, pdir):
    s = servers()
    c = s.client()
    fill_all_kinds(c)
    c.execute_command("SELECT", 0)
    good_digest = digest(c)
    assert c.save() is True
    s.kill()
    path = os.path.join(pdir, "dump.terse")
    good = open(path, "rb").read()
    rnd = random.Random(11)
    offsets = [0, 8, 30, 40, len(good) // 2, len(good) - 30, len(good) - 1] + \
        [rnd.randrange(len(good)) for _ in range(8)]
    for off in offsets:
        bad = bytearray(good)
        bad[off] ^= 1 << rnd.randrange(8)
        open(path, "wb").write(bad)
        rc, out = run_refused(terse_binary, pdir)
        assert rc != 0, "flip at %d loaded" % off
        m = re.search(r"Bad snapshot (\S+) at offset (\d+): (.+?)\. Refusing", out)
        assert m, out
        assert m.group(1).endswith("dump.terse") and int(m.group(2)) <= off + 24
        assert "move the file aside" in out
    for cut in (0, 10, 32, 100, len(good) // 3, len(good) - 8, len(good) - 1):
        open(path, "wb").write(good[:cut])
        rc, out = run_refused(terse_binary, pdir)
        assert rc != 0, "truncation to %d loaded" % cut
        assert re.search(r"Bad snapshot \S+ at offset \d+: ", out), out
    # The documented way out: move the file aside, start empty.
    os.rename(path, path + ".bad")
    assert servers().client().dbsize() == 0
    os.rename(path + ".bad", path)
    open(path, "wb").write(good)
    assert digest(servers().client()) == good_digest


def fill_big_containers(c, rnd, n):
    """A list, a hash, a set and a sorted set of n elements each: chunked containers (their
    chunks, CHUNKED records, a zset's with its member map) in every snapshot the kills cut into."""
    for i in range(0, n, 2000):
        r = range(i, min(n, i + 2000))
        c.rpush("big:list", *[b"job:%d:" % j + rnd.randbytes(40) for j in r])
        c.hset("big:hash", mapping={b"f%d" % j: rnd.randbytes(30) for j in r})
        c.sadd("big:set", *[b"m%d" % j for j in r])
        c.zadd("big:zset", {b"p%d" % j: rnd.randrange(10 ** 6) for j in r})


def touch_big_containers(p, rnd, n):
    p.lpush("big:list", b"new:%d" % rnd.randrange(n))
    p.rpop("big:list")
    p.hset("big:hash", b"f%d" % rnd.randrange(n), rnd.randbytes(30))
    p.sadd("big:set", b"m%d" % rnd.randrange(2 * n))
    p.zadd("big:zset", {b"p%d" % rnd.randrange(n): rnd.randrange(10 ** 6)})


def test_kill9_during_bgsave(servers, pdir):
    """kill -9 of the server (its saving child dies with it) at random moments of a BGSAVE:
    every restart loads a complete snapshot, old or new, and its digest is one of the two.
    Big containers ride along, chunked, and change between the snapshots too."""
    rnd = random.Random(int(os.environ.get("TERSE_KILL_SEED", "20240601")))
    s = servers()
    c = s.client()
    p = c.pipeline(transaction=False)
    for i in range(KILL_KEYS):
        p.set(b"key:%d" % i, rnd.randbytes(KILL_VALUE // 2) * 2)
        if i % 5000 == 4999:
            p.execute()
    p.execute()
    fill_big_containers(c, rnd, KILL_BIG)
    assert c.save() is True
    on_disk = digest(c)
    # How long one BGSAVE takes here: the kills spread over that window.
    t0 = time.monotonic()
    c.bgsave()
    wait_bgsave_done(c)
    window = max(time.monotonic() - t0, 0.02) * 1.2
    on_disk = digest(c)
    outcomes = {"old": 0, "new": 0}
    for rnd_i in range(KILL_ROUNDS):
        p = c.pipeline(transaction=False)
        for _ in range(200):
            p.set(b"key:%d" % rnd.randrange(KILL_KEYS), rnd.randbytes(KILL_VALUE))
        for _ in range(20):
            touch_big_containers(p, rnd, KILL_BIG)
        p.set(b"round", rnd_i)
        p.execute()
        new = digest(c)
        c.bgsave()
        time.sleep(rnd.uniform(0, window))
        s.kill()
        s = servers()
        c = s.client()
        got = digest(c)
        assert got in (on_disk, new), "round %d: restart digest matches neither snapshot" % rnd_i
        outcomes["new" if got == new else "old"] += 1
        on_disk = got
    print("kill -9 outcomes over %d rounds (window %.3fs): %s" % (KILL_ROUNDS, window, outcomes))
