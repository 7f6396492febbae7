"""terse-only value tests (not differential): values of every size and shape, including real
compressible cache values from the shared corpus, must read back exactly as written through
every string command, and a value corrupted in memory must be reported, never returned.

Expected INFO fields (proposal for the server authors; the tests below check them):

    # Terse
    corrupt_values:<n>         values whose checksum did not match on read (any field whose
                               name contains "corrupt" is accepted)
    ...original...:<bytes>     original (decoded) bytes of stored values
    ...stored...:<bytes>       bytes as stored after the codec
"""

import os
import random
import sys

import pytest

import terse_harness as h
from terse_harness import encode, decode_one

# ---- a Python model of Redis's string commands --------------------------------------------------


def model_getrange(s, start, end):
    n = len(s)
    if start < 0 and end < 0 and start > end:
        return b""
    if start < 0:
        start += n
    if end < 0:
        end += n
    start = max(start, 0)
    end = max(end, 0)
    if end >= n:
        end = n - 1
    if n == 0 or start > end:
        return b""
    return s[start:end + 1]


def model_setrange(s, offset, value):
    if not value:
        return s
    if len(s) < offset:
        s = s + b"\x00" * (offset - len(s))
    return s[:offset] + value + s[offset + len(value):]


def make_value(kind, size, seed):
    rnd = random.Random(seed * 1000003 + size)
    if kind == "random":
        return rnd.randbytes(size)
    if kind == "repeat":
        return (b"abc" * (size // 3 + 1))[:size]
    # text: words from a small vocabulary, compressible like real payloads
    words = [b"user", b"id", b"name", b"\"value\":", b"true", b"null", b"{", b"}", b"2024-01-01",
             b"session", b"token", b"\xc3\xa9t\xc3\xa9", b"\n", b"\x00"]
    out = bytearray()
    while len(out) < size:
        out += rnd.choice(words) + b" "
    return bytes(out[:size])


SIZES = [0, 1, 2, 127, 128, 129, 255, 1000, 4095, 4096, 4097, 65535, 65536, 65537, 1 << 20]


def ranges_for(n):
    return [(0, -1), (0, 0), (-1, -1), (0, n // 2), (n // 3, 2 * n // 3), (-n // 2 - 1, -2),
            (n - 1, n + 10), (n + 5, n + 10), (10, 5), (-(n + 100), n + 100),
            (-(1 << 62), 1 << 62), (127, 128), (128, 4096), (n // 2, n // 2 + 31), (-5, -10)]


@pytest.fixture(scope="module")
def tdbg(terse_binary, workdir):
    """A terse server with the DEBUG command enabled (module scope)."""
    try:
        s = h.Server(terse_binary, os.path.join(workdir, "terse-debug"),
                     ["--enable-debug-command", "yes"], name="terse-debug").start()
    except h.ServerError as e:
        pytest.fail(str(e), pytrace=False)
    yield s
    s.stop()


@pytest.fixture
def c(tdbg):
    with tdbg.raw(timeout=20) as conn:
        assert conn.call("FLUSHALL") == b"+OK\r\n"
        yield conn


def get(conn, key):
    v = decode_one(conn.call("GET", key))
    assert not isinstance(v, h.Err), "GET %r failed: %r" % (key, v)
    return v


def check_equal(what, got, want):
    if got != want:
        first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                     min(len(got), len(want)))
        pytest.fail("%s: %d bytes read back, %d expected, first difference at offset %d "
                    "(got %r, want %r)" % (what, len(got), len(want), first,
                                           got[first:first + 16], want[first:first + 16]),
                    pytrace=False)


@pytest.mark.parametrize("kind", ["random", "repeat", "text"])
@pytest.mark.parametrize("size", SIZES)
def test_value_roundtrip(c, size, kind):
    value = make_value(kind, size, 1)
    key = "v:%s:%d" % (kind, size)
    assert c.call("SET", key, value) == b"+OK\r\n"
    check_equal("GET after SET", get(c, key), value)
    assert c.call("STRLEN", key) == b":%d\r\n" % size
    for start, end in ranges_for(size):
        got = decode_one(c.call("GETRANGE", key, start, end))
        check_equal("GETRANGE %d %d of %d bytes" % (start, end, size), got,
                    model_getrange(value, start, end))
    model = value
    suffix = make_value(kind, 300, 2)
    assert c.call("APPEND", key, suffix) == b":%d\r\n" % (len(model) + len(suffix))
    model += suffix
    check_equal("GET after APPEND", get(c, key), model)
    for offset, piece in ((0, b"HEAD"), (len(model) // 2, b"middle" * 50),
                          (len(model) + 10, b"past-the-end"), (3, b"")):
        reply = c.call("SETRANGE", key, offset, piece)
        model = model_setrange(model, offset, piece)
        assert reply == b":%d\r\n" % len(model), "SETRANGE %d: %r" % (offset, reply)
        check_equal("GET after SETRANGE %d (+%d bytes)" % (offset, len(piece)), get(c, key),
                    model)
    for start, end in ranges_for(len(model))[:6]:
        check_equal("GETRANGE after edits", decode_one(c.call("GETRANGE", key, start, end)),
                    model_getrange(model, start, end))
    assert c.call("STRLEN", key) == b":%d\r\n" % len(model)


def test_getrange_every_window_of_compressible_value(c):
    """Every 1 KiB window of a 64 KiB compressible value, at offsets that cross block edges."""
    value = make_value("text", 65536, 3)
    c.call("SET", "w", value)
    reqs = []
    spans = []
    for start in range(0, 65536, 997):
        spans.append((start, start + 1023))
        reqs.append(encode("GETRANGE", "w", start, start + 1023))
    c.send(b"".join(reqs))
    for (start, end), raw in zip(spans, c.read_replies(len(reqs))):
        check_equal("GETRANGE %d %d" % (start, end), decode_one(raw),
                    model_getrange(value, start, end))


def test_integers_held_as_integers_read_back_as_text(c):
    for v in (b"0", b"-1", b"123", b"9223372036854775807", b"-9223372036854775808", b"007",
              b"1e3", b" 5", b"12345678901234567890"):
        c.call("SET", "n", v)
        check_equal("GET of %r" % v, get(c, "n"), v)
        assert c.call("STRLEN", "n") == b":%d\r\n" % len(v)
        check_equal("GETRANGE of %r" % v, decode_one(c.call("GETRANGE", "n", 1, -2)),
                    model_getrange(v, 1, -2))
    c.call("SET", "n", "100")
    assert c.call("INCRBY", "n", "23") == b":123\r\n"
    assert c.call("APPEND", "n", "4") == b":4\r\n"
    assert get(c, "n") == b"1234"
    assert c.call("SETRANGE", "n", "0", "9") == b":4\r\n"
    assert c.call("INCR", "n") == b":9235\r\n"
    assert c.call("GETRANGE", "n", "-2", "-1") == b"$2\r\n35\r\n"


# ---- real cache values ------------------------------------------------------------------------

_CORPUS = {}


def corpus_values(n=400, seed=7):
    shared = os.environ.get("TERSE_SHARED") or os.path.join(
        os.path.dirname(__file__), "..", "..", "..", "shared")
    cdir = os.path.join(shared, "corpus")
    if not os.path.isfile(os.path.join(cdir, "make_corpus.py")):
        pytest.fail("corpus not found: set TERSE_SHARED to the shared folder "
                    "(looked in %s)" % cdir, pytrace=False)
    if (n, seed) not in _CORPUS:
        sys.path.insert(0, cdir)
        try:
            import make_corpus as mc
        finally:
            sys.path.remove(cdir)
        pools = _CORPUS.get("pools") or mc.build_pools()
        _CORPUS["pools"] = pools
        _CORPUS[(n, seed)] = [(k.encode() if isinstance(k, str) else k, v)
                              for k, v, _cat, _id in mc.generate(pools, n, seed)]
    return _CORPUS[(n, seed)]


def test_corpus_values_roundtrip(c):
    pairs = corpus_values()
    assert len(pairs) == 400
    c.send(b"".join(encode("SET", k, v) for k, v in pairs))
    assert set(c.read_replies(len(pairs))) == {b"+OK\r\n"}
    c.send(b"".join(encode("GET", k) for k, _ in pairs))
    for (k, v), raw in zip(pairs, c.read_replies(len(pairs))):
        check_equal("GET %r" % k, decode_one(raw), v)
    rnd = random.Random(5)
    for k, v in pairs[::7]:
        a = rnd.randrange(-len(v) - 5, len(v) + 5)
        b = rnd.randrange(-len(v) - 5, len(v) + 5)
        check_equal("GETRANGE %r %d %d" % (k, a, b), decode_one(c.call("GETRANGE", k, a, b)),
                    model_getrange(v, a, b))
        assert c.call("STRLEN", k) == b":%d\r\n" % len(v)
    for (k, v), (_, w) in zip(pairs[::11], pairs[1::11]):
        c.call("APPEND", k, w)
        off = len(v) // 3
        c.call("SETRANGE", k, off, w[:50])
        check_equal("GET %r after APPEND+SETRANGE" % k, get(c, k),
                    model_setrange(v + w, off, w[:50]))


def info_section(conn, section):
    v = decode_one(conn.call("INFO", section))
    assert isinstance(v, bytes) and not isinstance(v, h.Err), "INFO %s: %r" % (section, v)
    fields = {}
    for line in v.decode("utf-8", "replace").splitlines():
        if line and not line.startswith("#") and ":" in line:
            k, val = line.split(":", 1)
            fields[k] = val
    return v, fields


def test_info_terse_section_reports_compression(c):
    pairs = corpus_values()
    c.send(b"".join(encode("SET", k, v) for k, v in pairs))
    c.read_replies(len(pairs))
    raw, fields = info_section(c, "terse")
    assert raw.lower().startswith(b"# terse"), (
        "INFO terse must answer a '# Terse' section (stored vs original bytes, counts per "
        "codec, corrupt_values); got %r" % raw[:200])
    orig = [k for k in fields if "original" in k]
    stored = [k for k in fields if "stored" in k]
    assert orig and stored, ("the Terse section needs fields for original and stored value "
                             "bytes; has %s" % sorted(fields))
    total = sum(len(v) for _, v in pairs)
    o = int(fields[orig[0]])
    s = int(fields[stored[0]])
    assert o >= total, "%s=%d but %d value bytes were stored" % (orig[0], o, total)
    assert s < o, "corpus values should compress: %s=%d, %s=%d" % (stored[0], s, orig[0], o)
    assert any("corrupt" in k for k in fields), (
        "the Terse section needs a corruption counter, proposed corrupt_values:<n>; has %s"
        % sorted(fields))


# ---- corruption ---------------------------------------------------------------------------------

def corrupt_count(conn):
    raw, fields = info_section(conn, "terse")
    keys = [k for k in fields if "corrupt" in k]
    assert keys, ("INFO must count corrupted values in the Terse section (proposed field "
                  "corrupt_values:<n> under '# Terse'); INFO terse answered %r" % raw[:300])
    return int(fields[keys[0]])


CORRUPT_CASES = {
    "small_raw": b"small value <128 bytes: SECRET-PAYLOAD-123",
    "compressible": b"SECRET-PAYLOAD-123 " + make_value("text", 20000, 9),
    "incompressible": b"SECRET-PAYLOAD-123" + make_value("random", 5000, 9),
}


@pytest.mark.parametrize("name", sorted(CORRUPT_CASES))
def test_corrupted_value_is_reported_never_returned(c, name):
    value = CORRUPT_CASES[name]
    key = "victim:%s" % name
    c.call("SET", key, value)
    c.call("SET", "bystander", b"fine " * 100)
    c.call("SET", "small-bystander", "ok")
    before = corrupt_count(c)
    reply = c.call("DEBUG", "CORRUPT-VALUE", key)
    assert reply == b"+OK\r\n", "DEBUG CORRUPT-VALUE %s answered %r" % (key, reply)

    got = c.call("GET", key)
    assert got.startswith(b"-"), "GET of a corrupted value must be an error, got %s" % (
        h.show(got))
    assert key.encode() in got and b"corrupt" in got.lower(), (
        "the error must name the key and say it is corrupted: %r" % got)
    assert b"SECRET-PAYLOAD" not in got and len(got) < 1000, "the error leaks value bytes"

    for cmd in (("GETRANGE", key, "0", "-1"), ("GETRANGE", key, "0", "10"), ("GETDEL", key)):
        r = c.call(*cmd)
        assert r.startswith(b"-") and b"SECRET-PAYLOAD" not in r, (
            "%s on a corrupted value must be an error, got %s" % (" ".join(cmd), h.show(r)))

    after = corrupt_count(c)
    assert after > before, "corruption counter did not move (%d -> %d)" % (before, after)

    assert get(c, "bystander") == b"fine " * 100
    assert get(c, "small-bystander") == b"ok"
    # a corrupted key can be replaced or deleted
    assert c.call("SET", key, "fresh") == b"+OK\r\n"
    assert get(c, key) == b"fresh"
    assert c.call("DEL", key) == b":1\r\n"


def test_debug_corrupt_value_on_missing_key_is_an_error(c):
    r = c.call("DEBUG", "CORRUPT-VALUE", "nope")
    assert r.startswith(b"-"), r
    assert c.call("PING") == b"+PONG\r\n"
