"""DEBUG DIGEST and DEBUG DIGEST-VALUE equal redis-server 7.0's for the same data.

Both servers are spawned with enable-debug-command, given the same keys (strings raw, int and
compressed, empty, with and without expiry, in several dbs, and hashes in different field
orders), and must answer byte-identical digests: terse computes Redis's algorithm (SHA-1 by
libcrypto) over the original bytes, whatever it stores.
"""

import random

DESIGN = open(__file__, "rb").read()  # some kilobytes of compressible text


def _fill(c):
    rnd = random.Random(5)
    c.set("s", "hello")
    c.set("n", "12345")
    c.set("neg", "-9223372036854775808")
    c.set("empty", "")
    c.set("big", DESIGN * 4)
    c.set("rand", bytes(rnd.getrandbits(8) for _ in range(3000)))
    c.set("ttl", "x", ex=1000)
    c.hset("h1", mapping={"a": "1", "b": "2", "c": DESIGN})
    c.hset("h2", mapping={"c": DESIGN, "b": "2", "a": "1"})  # same hash, other order
    c.hset("hbin", mapping={b"\x00f": b"\r\n", b"": b""})
    c.expire("h1", 5000)
    c.execute_command("SELECT", "7")
    c.set("s", "in db 7")
    c.hset("h1", "f", "v")
    c.execute_command("SELECT", "0")


def test_digests_equal_redis(spawn):
    t = spawn("terse", ["--enable-debug-command", "yes"]).client()
    r = spawn("redis", ["--enable-debug-command", "yes"]).client()
    assert t.execute_command("DEBUG", "DIGEST") == r.execute_command("DEBUG", "DIGEST") == \
        b"0" * 40
    for c in (t, r):
        _fill(c)
    keys = ["s", "n", "neg", "empty", "big", "rand", "ttl", "h1", "h2", "hbin", "missing"]
    got_t = t.execute_command("DEBUG", "DIGEST-VALUE", *keys)
    got_r = r.execute_command("DEBUG", "DIGEST-VALUE", *keys)
    assert got_t == got_r
    assert got_t[keys.index("h1")] != got_t[keys.index("h2")]  # h1 has an expiry
    assert t.execute_command("DEBUG", "DIGEST") == r.execute_command("DEBUG", "DIGEST")
    t.hset("h2", "a", "changed")
    assert t.execute_command("DEBUG", "DIGEST") != r.execute_command("DEBUG", "DIGEST")
