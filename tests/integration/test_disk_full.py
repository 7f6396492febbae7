"""A full disk never makes an acknowledgement a lie (issue 11, item 2).

Each test mounts a small tmpfs (root only; skipped otherwise) as the server's `dir` and fills
it, by writing through the server or with a filler file, then compares terse with Debian's
redis-server 7.0 run the same way:

- appendfsync always: the first failed or short AOF write ends the server (Redis's log line)
  before it answers; every write it acknowledged is there after a restart with room.
- everysec / no: writes get Redis's `-MISCONF Errors writing to the AOF file: <strerror>` until
  a retry goes through (reads still answered); at most the write of the failed flush is
  acknowledged and missing after kill -9; once space returns writes are accepted again.
- a restart on the still-full disk starts (as Redis does) and changes no file; a restart with
  room has every acknowledged write.
- SAVE, FLUSHALL with save points, SHUTDOWN SAVE and SIGTERM on a full disk; CONFIG SET
  appendonly yes and BGREWRITEAOF on a full disk.

Server logs go to the test's tmp_path, outside the tmpfs, so they survive the full disk.
"""

import os
import signal
import subprocess
import time

import pytest
import redis

import terse_harness as h

WAIT_S = 20
VALUE = b"x" * 1000
MISCONF_AOF = "MISCONF Errors writing to the AOF file: No space left on device"


@pytest.fixture
def disk(tmp_path):
    """disk(size) mounts a tmpfs of that size (mount's syntax: 512k, 4m) and returns its
    path; remount(path, size) resizes it. Unmounted at teardown, after servers are gone."""
    mounts = []

    def _mount(size, name="disk"):
        if os.geteuid() != 0:
            pytest.skip("mounting a tmpfs needs root")
        d = str(tmp_path / ("%s%d" % (name, len(mounts))))
        os.makedirs(d)
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", d],
                           capture_output=True, text=True)
        if r.returncode != 0:
            pytest.skip("cannot mount a tmpfs: %s" % r.stderr.strip())
        mounts.append(d)
        return d

    yield _mount
    for d in mounts:
        # A child a killed redis-server left (its rewrite or save) may hold the mount a
        # moment longer; a lazy unmount detaches it in any case.
        for _ in range(50):
            if subprocess.run(["umount", d], capture_output=True).returncode == 0:
                break
            time.sleep(0.1)
        else:
            subprocess.run(["umount", "-l", d], capture_output=True)


def remount(d, size):
    subprocess.run(["mount", "-o", "remount,size=" + size, d], check=True)


@pytest.fixture
def spawn(tmp_path):
    """spawn(binary, dir, extra) starts a server whose files go to dir and whose log goes to
    tmp_path. Every server is killed at teardown (before the tmpfs is unmounted)."""
    started = []

    def _spawn(binary, d, extra=(), expect_exit=False):
        logs = str(tmp_path / "logs")
        s = h.Server(binary, logs, ["--dir", d] + list(extra), None,
                     "%s%d" % ("redis" if h.is_redis(binary) else "terse", len(started)))
        started.append(s)
        try:
            return s.start(attempts=1)
        except h.ServerError as e:
            if expect_exit:
                return str(e)
            pytest.fail(str(e), pytrace=False)

    yield _spawn
    for s in started:
        s.kill()
        log = s.log_tail(1 << 20)
        for mark in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:"):
            assert mark not in log, s.log_tail()


def binaries(terse_binary, oracle_binary):
    return (("terse", terse_binary), ("redis", oracle_binary))


def fill(d):
    """Fills the filesystem of d with a filler file (returned, to delete for room)."""
    path = os.path.join(d, "filler")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        while True:
            os.write(fd, b"\0" * 512)
    except OSError:
        pass
    os.close(fd)
    return path


def aof_args(policy):
    return ["--appendonly", "yes", "--appendfsync", policy]


def set_until_stopped(c, n):
    """SETs k0..k<n-1> one at a time: (acknowledged keys, error texts seen, connection lost)."""
    acked, errors = [], set()
    for i in range(n):
        try:
            c.set("k%d" % i, VALUE)
            acked.append(i)
        except redis.ConnectionError:
            return acked, errors, True
        except redis.ResponseError as e:
            errors.add(str(e))
    return acked, errors, False


def wait_exit(s):
    try:
        s.proc.wait(WAIT_S)
    except subprocess.TimeoutExpired:
        pytest.fail("%s did not exit; log:\n%s" % (s.name, s.log_tail()))
    return s.proc.returncode


def present(c, acked):
    """How many of the acknowledged keys hold their value."""
    vals = c.mget(["k%d" % i for i in acked]) if acked else []
    return sum(1 for v in vals if v == VALUE)


def aof_files(d):
    """name -> size of the AOF directory's files."""
    a = os.path.join(d, "appendonlydir")
    return {n: os.path.getsize(os.path.join(a, n)) for n in sorted(os.listdir(a))}


def call(c, *args):
    try:
        return c.execute_command(*args)
    except redis.ResponseError as e:
        return "error: " + str(e)


def wait_until(pred, what):
    deadline = time.monotonic() + WAIT_S
    while not pred():
        if time.monotonic() > deadline:
            pytest.fail("timed out waiting for " + what)
        time.sleep(0.05)


# ---- appendfsync always ------------------------------------------------------------------


def test_always_exits_at_the_first_failed_write_and_loses_nothing(
        disk, spawn, terse_binary, oracle_binary):
    """The issue's scenario: 10,000 SETs of 1,000 bytes on a 4 MiB tmpfs. Both servers stop
    answering at the first short write (exit 1, Redis's log line); after a restart with room
    every acknowledged key is there, and no unacknowledged one."""
    seen = {}
    for kind, binary in binaries(terse_binary, oracle_binary):
        d = disk("4m", kind)
        s = spawn(binary, d, aof_args("always"))
        acked, errors, lost = set_until_stopped(s.client(), 10000)
        assert lost and not errors, (kind, len(acked), errors)
        assert wait_exit(s) == 1
        assert "Can't recover from AOF write error when the AOF fsync policy is 'always'. " \
               "Exiting..." in s.log_tail()
        remount(d, "16m")
        c = spawn(binary, d, aof_args("always")).client()
        seen[kind] = (len(acked), present(c, acked), c.dbsize())
    for kind, (n_acked, n_present, n_keys) in seen.items():
        assert 0 < n_acked < 10000, seen
        assert n_present == n_acked == n_keys, seen   # none lost, none extra
    assert seen["terse"] == seen["redis"], seen


def test_restart_on_a_still_full_disk(disk, spawn, terse_binary, oracle_binary):
    """After the always-exit, a restart on the disk that is still full starts (as Redis's does)
    with every acknowledged key and changes no file; the next write that does not fit ends
    it again; a restart with room has everything."""
    seen = {}
    for kind, binary in binaries(terse_binary, oracle_binary):
        d = disk("1m", kind)
        s = spawn(binary, d, aof_args("always"))
        acked, _, lost = set_until_stopped(s.client(), 2000)
        assert lost
        wait_exit(s)
        fill(d)
        files = aof_files(d)
        s = spawn(binary, d, aof_args("always"))
        c = s.client()
        got = [present(c, acked), c.dbsize()]
        assert aof_files(d) == files, kind            # nothing truncated, nothing rewritten
        with pytest.raises(redis.ConnectionError):
            c.set("big", VALUE * 100)
        assert wait_exit(s) == 1
        assert aof_files(d) == files, kind
        remount(d, "16m")
        c = spawn(binary, d, aof_args("always")).client()
        got += [present(c, acked), c.dbsize(), c.exists("big")]
        seen[kind] = (len(acked), got)
    for kind, (n_acked, got) in seen.items():
        assert got == [n_acked, n_acked, n_acked, n_acked, 0], seen
    assert seen["terse"] == seen["redis"], seen


# ---- everysec and no ---------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["everysec", "no"])
def test_misconf_while_the_aof_cannot_write(disk, spawn, terse_binary, oracle_binary, policy):
    """The 10,000 SETs again: after the first failed write every write gets Redis's -MISCONF
    (compared with redis-server), so after kill -9 and a restart with room at most the write
    of the failed flush is missing."""
    seen = {}
    for kind, binary in binaries(terse_binary, oracle_binary):
        d = disk("4m", kind)
        s = spawn(binary, d, aof_args(policy))
        c = s.client()
        acked, errors, lost = set_until_stopped(c, 10000)
        assert not lost
        info = c.info("persistence")
        s.kill()
        remount(d, "16m")
        c = spawn(binary, d, aof_args(policy)).client()
        seen[kind] = (len(acked), present(c, acked), sorted(errors),
                      info["aof_last_write_status"])
    for kind, (n_acked, n_present, errors, status) in seen.items():
        assert 0 < n_acked < 10000, seen
        assert n_acked - 1 <= n_present <= n_acked, seen
        assert errors == [MISCONF_AOF] and status == "err", seen
    assert seen["terse"][2:] == seen["redis"][2:], seen


@pytest.mark.parametrize("policy", ["everysec", "no"])
def test_misconf_replies_then_recovery_when_space_returns(
        disk, spawn, terse_binary, oracle_binary, policy):
    """What a client sees while the AOF cannot write (writes, PING, scripts, MULTI/EXEC
    refused with Redis's text, reads served) is redis-server's; once the filler is deleted
    the buffered write goes out, the status is ok again, writes are accepted, and a restart
    after kill -9 has every acknowledged write."""
    seen = {}
    for kind, binary in binaries(terse_binary, oracle_binary):
        d = disk("256k", kind)
        s = spawn(binary, d, aof_args(policy))
        c = s.client()
        c.set("a", "1")
        filler = fill(d)
        got = [call(c, "SET", "b", VALUE * 10)]     # acknowledged; its write fails
        got += [call(c, "SET", "c", "3"), call(c, "PING"), call(c, "GET", "a"),
                call(c, "INCR", "a"),
                call(c, "EVAL", "return redis.call('set', KEYS[1], 'v')", 1, "d"),
                call(c, "EVAL", "#!lua\nreturn redis.call('set', KEYS[1], 'v')", 1, "d"),
                call(c, "EVAL", "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])",
                     1, "a"),
                c.info("persistence")["aof_last_write_status"]]
        p = c.pipeline(transaction=True)
        p.set("e", "1")
        try:
            got.append(p.execute())
        except redis.ResponseError as e:
            got.append("error: " + str(e))
        seen[kind] = got
        if kind == "redis":
            continue
        os.unlink(filler)
        wait_until(lambda: c.info("persistence")["aof_last_write_status"] == "ok",
                   "the AOF to write again")
        assert c.set("f", "6") and c.ping()
        s.kill()
        c = spawn(binary, d, aof_args(policy)).client()
        assert c.mget("a", "b", "c", "f") == [b"1", VALUE * 10, None, b"6"]
    assert seen["terse"] == seen["redis"], seen
    assert seen["terse"][1] == "error: " + MISCONF_AOF


def test_config_set_appendonly_and_bgrewriteaof_on_a_full_disk(
        disk, spawn, terse_binary, oracle_binary):
    """CONFIG SET appendonly yes on a full disk is accepted, its first rewrite fails and
    writes get -MISCONF, as in redis-server. Then (terse only: Redis keeps refusing writes for
    good there) room comes back: BGREWRITEAOF writes the AOF, writes are accepted, and
    everything acknowledged survives kill -9. A disk full again refuses writes, and a rewrite
    asked for meanwhile is refused without touching the AOF's files (so is one that cannot
    write its manifest)."""
    seen = {}
    for kind, binary in binaries(terse_binary, oracle_binary):
        d = disk("256k", kind)
        s = spawn(binary, d, ["--appendfsync", "everysec"])
        c = s.client()
        c.set("a", "1")
        filler = fill(d)
        got = [call(c, "CONFIG", "SET", "appendonly", "yes"),
               call(c, "SET", "b", VALUE * 10)]      # while the rewrite runs: fails to write
        wait_until(lambda: c.info("persistence")["aof_last_bgrewrite_status"] == "err",
                   "the first rewrite to fail")
        got += [call(c, "SET", "c", "3"), call(c, "GET", "a")]
        seen[kind] = got
        if kind == "redis":
            continue
        os.unlink(filler)
        assert call(c, "BGREWRITEAOF") is True       # "Background ... rewriting started"
        wait_until(lambda: c.info("persistence")["aof_rewrite_in_progress"] == 0 and
                   c.info("persistence")["aof_last_bgrewrite_status"] == "ok",
                   "the rewrite to end")
        assert c.set("c", "3") and c.info("persistence")["aof_last_write_status"] == "ok"
        filler = fill(d)
        c.set("g", VALUE * 10)                       # acknowledged; its write fails
        assert call(c, "SET", "h", "1") == "error: " + MISCONF_AOF
        files = aof_files(d)
        assert call(c, "BGREWRITEAOF").startswith("error: Can't execute an AOF background")
        assert aof_files(d) == files
        os.unlink(filler)
        wait_until(lambda: c.info("persistence")["aof_last_write_status"] == "ok",
                   "the AOF to write again")
        filler = fill(d)                             # nothing unwritten, but no room for a
        files = aof_files(d)                         # new manifest: the rewrite cannot start
        assert call(c, "BGREWRITEAOF").startswith("error: Can't execute an AOF background")
        assert aof_files(d) == files                 # its new incr file removed again
        os.unlink(filler)
        s.kill()
        c = spawn(binary, d, aof_args("everysec")).client()
        assert c.mget("a", "b", "c", "g", "h") == [b"1", VALUE * 10, b"3", VALUE * 10, None]
    assert seen["terse"] == seen["redis"], seen
    assert seen["terse"][2] == "error: " + MISCONF_AOF


# ---- snapshots ---------------------------------------------------------------------------


def test_save_flushall_shutdown_on_a_full_disk(disk, spawn, terse_binary, oracle_binary):
    """Snapshots with save points: FLUSHALL saves the empty dataset at once (a kill -9 after
    it does not bring keys back); on a full disk SAVE answers an error, FLUSHALL answers OK
    and leaves its change counted, SHUTDOWN SAVE and SIGTERM refuse to exit, and the snapshot
    on disk is untouched; with room again SHUTDOWN SAVE saves and exits. Compared with
    redis-server reply for reply."""
    seen = {}
    for kind, binary in binaries(terse_binary, oracle_binary):
        d = disk("256k", kind)
        extra = ["--save", "3600 1000000", "--dbfilename", "dump.snap"]
        s = spawn(binary, d, extra)
        c = s.client()
        c.mset({"a": "1", "b": "2"})
        c.save()
        got = [call(c, "FLUSHALL")]
        c.set("c", "3")                              # after its save: not on disk
        s.kill()
        s = spawn(binary, d, extra)
        c = s.client()
        got.append(c.dbsize())
        c.mset({"a": "1", "b": "2"})
        got.append(call(c, "SAVE"))
        snap = open(os.path.join(d, "dump.snap"), "rb").read()
        filler = fill(d)
        c.set("c", "3")
        got += [call(c, "SAVE"), call(c, "SET", "d", "4"), call(c, "FLUSHALL"),
                c.info("persistence")["rdb_changes_since_last_save"] > 0,
                call(c, "SET", "a", "1"), call(c, "SHUTDOWN", "SAVE")]
        s.proc.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        got += [s.alive(), c.dbsize()]
        assert open(os.path.join(d, "dump.snap"), "rb").read() == snap
        os.unlink(filler)
        with pytest.raises(redis.ConnectionError):
            c.execute_command("SHUTDOWN", "SAVE")
        got.append(wait_exit(s))
        c = spawn(binary, d, extra).client()
        got.append(sorted(c.keys()))
        seen[kind] = got
    assert seen["terse"] == seen["redis"], seen
    assert seen["terse"][:3] == [True, 0, True]
    assert seen["terse"][3] == "error: " and seen["terse"][-1] == [b"a"]
