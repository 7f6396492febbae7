"""Hashes: figures and state per server. DEBUG DIGEST-VALUE is terse's own, so it is compared
within each server (a COPY digests alike, a change moves it, field order does not); MEMORY
USAGE is checked to be plausible integers; hashes of every encoding survive SAVE, a restart and
DEBUG RELOAD with the same contents, order, TTLs and OBJECT ENCODING as Redis's.
"""

import types_harness as th
from hash_harness import F300, F1000, RAND10K, RAND100K, TEXT100K

# ---- DEBUG DIGEST-VALUE, MEMORY USAGE --------------------------------------------------------

def test_digest_value_within_each_server(pair):
    for server, c, dv in th.digest_clients(pair):
        c.hset("h", mapping={"a": "1", "b": "2", "c": TEXT100K, "d": RAND10K})
        assert c.copy("h", "hc") is True
        d_h, d_hc = dv("h", "hc")
        assert len(d_h) == 40 and d_h != b"0" * 40, (server.name, d_h)
        assert d_h == d_hc, "%s: a hash and its COPY digest differently" % server.name
        c.hset("hc", "a", "9")
        assert dv("hc")[0] != d_h, "%s: changing a field left the digest" % server.name
        c.hset("hc", "a", "1")
        assert dv("hc")[0] == d_h, "%s: restoring the field did not restore it" % server.name
        c.hset("hc", "e", "")
        assert dv("hc")[0] != d_h, "%s: an added empty field left the digest" % server.name
        # The same fields and values set in another order digest the same.
        c.hset("o", mapping={"d": RAND10K, "c": TEXT100K, "b": "2", "a": "1"})
        assert dv("o")[0] == d_h, "%s: field order changed the digest" % server.name
        c.set("s", "1")
        assert dv("s")[0] != dv("h")[0]
        assert dv("nokey") == [b"0" * 40], server.name
        before = c.execute_command("DEBUG", "DIGEST")
        c.hincrby("h", "a", 1)
        assert c.execute_command("DEBUG", "DIGEST") != before, server.name


def test_memory_usage_of_hashes(terse, oracle):
    for server in (oracle, terse):
        c = server.client()
        c.hset("small", "f", "v")
        c.hset("big", mapping={"a": RAND100K, "b": "x"})
        c.hset("many", mapping=dict(F1000))
        small = c.memory_usage("small")
        big = c.memory_usage("big")
        many = c.memory_usage("many")
        assert all(isinstance(x, int) for x in (small, big, many)), (server.name, small, big)
        # 100 KB of random bytes cannot be held in less; 1000 fields take more than one.
        assert big >= len(RAND100K), "%s: MEMORY USAGE %d for 100 KB of random bytes" % (
            server.name, big)
        assert many > small > 0, "%s: %d for 1000 fields, %d for one" % (
            server.name, many, small)
        assert c.memory_usage("nokey") is None
        c.close()


# ---- SAVE and restart ------------------------------------------------------------------------

def fill_hashes(c):
    c.hset("small", mapping={"z": "1", "a": "2", "m": "3", "": "", "n": "-12"})
    c.hset(b"bin\x00key", mapping={b"f\x00": b"\r\n\x00", b"\xff": b""})
    c.hset("compressible", mapping={"v": TEXT100K, "w": TEXT100K[:9000]})
    c.hset("random", "v", RAND100K)
    c.hset("many", mapping=dict(F1000))
    c.hset("listpack300", mapping=dict(F300))
    c.hset("ttl", mapping={"f": "v"})
    c.expire("ttl", 3600)
    c.hset("shrunk", mapping={"keep": "1", "long": "y" * 200})
    c.hdel("shrunk", "long")
    c.hincrbyfloat("float", "f", "0.1")
    c.hincrbyfloat("float", "f", "0.2")


def fill_db5(s):
    c5 = s.client(db=5)
    c5.hset("db5", "f", "v")
    c5.close()


HASH_KEYS = [b"small", b"bin\x00key", b"compressible", b"random", b"many", b"listpack300",
             b"ttl", b"shrunk", b"float"]


def snapshot_view(s):
    """What a client sees of the hashes: contents, order where Redis keeps one, TTLs, types."""
    c = s.client()
    view = {}
    for k in HASH_KEYS:
        view[k] = (c.type(k), c.hgetall(k), c.hlen(k))
    view["order"] = {k: c.execute_command("HGETALL", k) for k in
                     (b"small", b"bin\x00key", b"listpack300", b"float")}
    view["ttl"] = 0 < c.ttl("ttl") <= 3600
    view["dbsize"] = c.dbsize()
    c.close()
    c5 = s.client(db=5)
    view["db5"] = (c5.type("db5"), c5.hgetall("db5"), c5.dbsize())
    c5.close()
    return view


def encodings(c):
    return {k: c.object("encoding", k) for k in HASH_KEYS}


def test_hashes_survive_save_and_restart(terse_binary, oracle_binary, tmp_path):
    views, encs = {}, {}
    for kind, binary in (("redis", oracle_binary), ("terse", terse_binary)):
        pdir = str(tmp_path / kind)
        with th.debug_server(binary, pdir, kind + "-a") as (s, c):
            fill_hashes(c)
            fill_db5(s)
            before = snapshot_view(s)
            digest_before = c.execute_command("DEBUG", "DIGEST")
            enc_before = encodings(c)
            assert c.save() is True
        with th.debug_server(binary, pdir, kind + "-b") as (s, c):
            after = snapshot_view(s)
            assert after == before, "%s: hashes differ after SAVE and a restart: %r" % (
                kind, [k for k in before if before[k] != after.get(k)])
            assert c.execute_command("DEBUG", "DIGEST") == digest_before, kind
            enc_restart = encodings(c)
            assert c.execute_command("DEBUG", "RELOAD") == b"OK"
            assert snapshot_view(s) == before, "%s: hashes differ after DEBUG RELOAD" % kind
            encs[kind] = {"before SAVE": enc_before, "after the restart": enc_restart,
                          "after DEBUG RELOAD": encodings(c)}
            views[kind] = after
    assert views["terse"] == views["redis"], [k for k in views["redis"]
                                              if views["redis"][k] != views["terse"].get(k)]
    for when in encs["redis"]:
        diffs = {k: (encs["terse"][when][k], v) for k, v in encs["redis"][when].items()
                 if encs["terse"][when][k] != v}
        assert not diffs, "OBJECT ENCODING %s, key: (terse, redis): %r" % (when, diffs)
