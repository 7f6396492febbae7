"""Background compression (terse-compression background, the default).

A value of CODEC_RAW_MAX (128) bytes or more is stored raw by the write (memcpy + checksum)
and marked pending; the server compresses it when idle, in cron, or, under maxmemory, before
it evicts anything. These tests check what a client can see of that:
- values read back identical while pending and after compression;
- INFO terse: values_pending / bytes_pending go to 0, stored bytes end under the original;
- DEBUG CORRUPT-VALUE is detected on a pending and on a compressed value;
- a snapshot saved with pending values loads them back pending, then compressed;
- under maxmemory, compression happens before eviction: fewer keys evicted than with
  terse-compression off;
- terse-compression off never compresses, not even an overwrite of a compressed value;
- values left pending at the memory limit are compressed all the same (by the cron);
- CONFIG GET/SET terse-compression and terse-compression-level.
"""

import os
import random
import time

import terse_harness as h

WORDS = b"order_id=%d status=shipped carrier=ups items=[widget,gadget,gizmo] note=fragile; "


def text(i, n):
    """n compressible bytes, distinct per i."""
    unit = WORDS % i
    return (unit * (n // len(unit) + 1))[:n]


def half(i, n):
    """n bytes, half random and half text: about 2x under LZ4, distinct per i."""
    return random.Random(i).randbytes(n // 2) + text(i, n - n // 2)


def info(c):
    raw = h.decode_one(c.call("INFO", "terse")).decode()
    return dict(line.split(":", 1) for line in raw.split("\r\n") if ":" in line)


def wait_compressed(c, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        fields = info(c)
        if int(fields["values_pending"]) == 0:
            return fields
        time.sleep(0.02)
    raise AssertionError("values still pending after %.0fs: %r" % (timeout, info(c)))


def load(c, prefix, n, size):
    batch = b"".join(h.encode("SET", "%s:%d" % (prefix, i), text(i, size)) for i in range(n))
    c.send(batch)
    replies = c.read_replies(n)
    assert all(r == b"+OK\r\n" for r in replies), replies[:3]


def test_pending_then_compressed_read_back(spawn):
    s = spawn("terse", ["--terse-compression-level", "4"])
    n, size = 2000, 1500
    with s.raw() as c:
        # DEBUG SLEEP-free way to see pending values: pause compression by loading in one
        # pipeline, then read immediately; whatever is pending or not, bytes are the same.
        load(c, "v", n, size)
        first = info(c)
        for i in range(0, n, 7):
            assert c.call("GET", "v:%d" % i) == b"$%d\r\n%s\r\n" % (size, text(i, size))
        fields = wait_compressed(c)
        assert int(fields["bytes_pending"]) == 0
        assert int(fields["values_lz4"]) >= n
        orig, stored = int(fields["value_bytes_original"]), int(fields["value_bytes_stored"])
        assert orig == n * size
        assert stored < orig / 3, fields
        assert int(fields["dataset_value_bytes"]) < orig / 3
        for i in range(n):
            assert c.call("GET", "v:%d" % i) == b"$%d\r\n%s\r\n" % (size, text(i, size))
        # Right after the load something was still pending or already done: both are fine,
        # but the counters must agree with each other.
        assert int(first["values_pending"]) >= 0
        assert (int(first["values_pending"]) == 0) == (int(first["bytes_pending"]) == 0)


def test_corruption_detected_pending_and_compressed(spawn):
    s = spawn("terse", ["--enable-debug-command", "yes", "--terse-compression", "off"])
    with s.raw() as c:
        # off: stored raw and never compressed; then switch to background with the value
        # pending? Values written under off are not pending, so write them under background.
        assert c.call("CONFIG", "SET", "terse-compression", "background") == b"+OK\r\n"
        # A value written and corrupted in the same pipeline is still pending when corrupted.
        c.send(h.encode("SET", "pend", text(1, 4000)) + h.encode("DEBUG", "CORRUPT-VALUE", "pend")
               + h.encode("OBJECT", "ENCODING", "pend"))
        replies = c.read_replies(3)
        assert replies[0] == b"+OK\r\n" and replies[1] == b"+OK\r\n", replies
        c.call("SET", "comp", text(2, 4000))
        wait_compressed(c)
        assert c.call("DEBUG", "CORRUPT-VALUE", "comp") == b"+OK\r\n"
        for key in ("pend", "comp"):
            got = c.call("GET", key)
            assert got.startswith(b"-") and b"corrupt" in got.lower(), (key, got[:200])
            assert b"order_id" not in got
        assert int(info(c)["corrupt_values"]) >= 2


def test_snapshot_reload_compresses_again(spawn, tmp_path):
    d = str(tmp_path)
    s = spawn("terse", ["--dir", d, "--terse-compression", "off"])
    n, size = 500, 2000
    with s.raw() as c:
        load(c, "s", n, size)  # stored raw, not pending (off)
        assert int(info(c)["values_pending"]) == 0
        assert c.call("SAVE") == b"+OK\r\n"
    s.stop()
    s2 = spawn("terse", ["--dir", d])
    with s2.raw() as c:
        fields = wait_compressed(c)
        assert int(fields["dataset_value_bytes"]) < n * size / 3, fields
        for i in range(0, n, 11):
            assert c.call("GET", "s:%d" % i) == b"$%d\r\n%s\r\n" % (size, text(i, size))
    assert os.path.exists(os.path.join(d, "dump.terse"))


def evictions(spawn, mode):
    s = spawn("terse", ["--maxmemory", "8mb", "--maxmemory-policy", "allkeys-lru",
                        "--terse-compression", mode])
    n, size = 8000, 2000  # 16 MB of values: twice the budget raw, a fraction compressed
    with s.raw() as c:
        for start in range(0, n, 500):
            batch = b"".join(h.encode("SET", "m:%d" % i, text(i, size))
                             for i in range(start, start + 500))
            c.send(batch)
            replies = c.read_replies(500)
            assert all(r == b"+OK\r\n" for r in replies), replies[:3]
        fields = h.decode_one(c.call("INFO", "stats")).decode()
        evicted = int(fields.split("evicted_keys:")[1].split("\r\n")[0])
        # Whatever stayed reads back intact.
        for i in range(n - 1, n - 200, -1):
            r = c.call("GET", "m:%d" % i)
            assert r == b"$-1\r\n" or r == b"$%d\r\n%s\r\n" % (size, text(i, size))
    s.stop()
    return evicted


def test_compress_before_evicting(spawn):
    off = evictions(spawn, "off")
    bg = evictions(spawn, "background")
    assert off > 2000, off
    assert bg < off / 4, (bg, off)
    print("evicted: off %d, background %d" % (off, bg))


def test_pending_at_the_limit_get_compressed(spawn):
    """Values left pending within a span of maxmemory, where idle-time steps wait (a step may
    open a span before it frees one) and no write comes to make admission compress them, are
    still compressed, by the cron, which evicts right after if it must: values_pending
    reaches 0 and the budget holds."""
    s = spawn("terse", ["--maxmemory-policy", "allkeys-lru"])
    n, size = 3000, 2000
    with s.raw() as c:
        # One pipeline: the values go in raw and pending, and the limit is set just above
        # what the server then uses, before an idle moment could compress them.
        c.send(b"".join(h.encode("SET", "p:%d" % i, half(i, size)) for i in range(n)) +
               h.encode("INFO", "memory"))
        replies = c.read_replies(n + 1)
        assert all(r == b"+OK\r\n" for r in replies[:n])
        mem = h.decode_one(replies[n]).decode()
        used = int(mem.split("used_memory:")[1].split("\r\n")[0])
        limit = used + 256 * 1024
        c.send(h.encode("CONFIG", "SET", "maxmemory", str(limit)) + h.encode("INFO", "terse"))
        r = c.read_replies(2)
        assert r[0] == b"+OK\r\n", r[0]
        pending = int(h.decode_one(r[1]).decode().split("values_pending:")[1].split("\r\n")[0])
        assert pending > n / 2, pending  # the case under test: most still pending
        fields = wait_compressed(c, timeout=10.0)
        assert int(fields["dataset_value_bytes"]) < n * size * 0.75, fields
        mem = h.decode_one(c.call("INFO", "memory")).decode()
        assert int(mem.split("used_memory:")[1].split("\r\n")[0]) <= limit
        for i in range(0, n, 97):
            assert c.call("GET", "p:%d" % i) == b"$%d\r\n%s\r\n" % (size, half(i, size))


def test_off_stores_overwrites_raw(spawn):
    """terse-compression off stores every value raw, also an overwrite of a value that is held
    compressed (written while compression was on)."""
    s = spawn("terse")
    size = 3000
    with s.raw() as c:
        c.call("SET", "w", text(1, size))
        fields = wait_compressed(c)
        assert int(fields["dataset_value_bytes"]) < size / 3, fields  # held compressed
        assert c.call("CONFIG", "SET", "terse-compression", "off") == b"+OK\r\n"
        assert c.call("SET", "w", text(2, size)) == b"+OK\r\n"
        fields = info(c)
        assert int(fields["dataset_value_bytes"]) >= size, fields  # held raw
        assert int(fields["values_pending"]) == 0, fields
        assert c.call("GET", "w") == b"$%d\r\n%s\r\n" % (size, text(2, size))


def test_config(spawn):
    s = spawn("terse")
    with s.raw() as c:
        assert h.decode_one(c.call("CONFIG", "GET", "terse-compression")) == [
            b"terse-compression", b"background"]
        assert h.decode_one(c.call("CONFIG", "GET", "terse-compression-level")) == [
            b"terse-compression-level", b"4"]
        assert c.call("CONFIG", "SET", "terse-compression-level", "9") == b"+OK\r\n"
        assert c.call("CONFIG", "SET", "terse-compression-level", "13").startswith(b"-ERR")
        assert c.call("CONFIG", "SET", "terse-compression", "inline") == b"+OK\r\n"
        assert c.call("CONFIG", "SET", "terse-compression", "sometimes").startswith(b"-ERR")
        c.call("SET", "i", text(3, 3000))
        fields = info(c)
        assert int(fields["values_pending"]) == 0 and int(fields["values_lz4"]) == 1
