"""Hashes: what is random or implementation-defined, checked on each server (Debian's
redis-server 7.0 and terse) rather than byte for byte: HRANDFIELD's picks are not all one
field, and an HSCAN of a large hash or a SCAN TYPE hash covers exactly what HGETALL / the
keyspace holds, whatever the cursors.
"""

import pytest

import terse_harness as h
from hash_harness import D1000, F1000, SMALL5, as_pairs, flat
from terse_harness import decode_one

# ---- randomness, SCAN, HSCAN on large hashes -------------------------------------------------

def test_hrandfield_is_random(terse, oracle):
    """Fifty single picks from five fields are not all the same field (chance 5 * 0.2^50)."""
    for server in (oracle, terse):
        with server.raw() as c:
            c.call("HSET", "h", *flat(SMALL5.items()))
            c.send(h.encode("HRANDFIELD", "h") * 50)
            picks = [decode_one(x) for x in c.read_replies(50)]
            assert set(picks) <= {k.encode() for k in SMALL5}, (server.name, picks[:10])
            assert len(set(picks)) > 1, "%s: HRANDFIELD gave %r fifty times" % (
                server.name, picks[0])
            neg = decode_one(c.call("HRANDFIELD", "h", "-200"))
            assert set(neg) == {k.encode() for k in SMALL5}, (
                "%s: 200 picks with repetition missed a field of five: %r"
                % (server.name, sorted(set(neg))))


def hscan_all(conn, key, *opts, limit=10000):
    cursor = b"0"
    pairs = []
    calls = 0
    while True:
        v = decode_one(conn.call("HSCAN", key, cursor, *opts))
        assert isinstance(v, list) and len(v) == 2 and isinstance(v[1], list), (
            "HSCAN reply is not [cursor, [field, value...]]: %r" % (v,))
        cursor, items = v
        assert len(items) % 2 == 0, "HSCAN returned an odd number of elements"
        pairs.extend(zip(items[::2], items[1::2]))
        calls += 1
        if cursor == b"0" or calls > limit:
            return pairs, calls


@pytest.mark.parametrize("opts,keep", [
    ((), lambda f: True),
    (("COUNT", "10"), lambda f: True),
    (("COUNT", "1000"), lambda f: True),
    (("MATCH", "field:1*"), lambda f: f.startswith(b"field:1")),
    (("MATCH", "field:?", "COUNT", "3"), lambda f: len(f) == 7),
], ids=["plain", "count10", "count1000", "match", "match_count"])
def test_hscan_large_hash_union_is_hgetall(terse, oracle, opts, keep):
    for server in (oracle, terse):
        with server.raw() as c:
            assert c.call("HSET", "big", *flat(F1000)) == b":1000\r\n"
            everything = as_pairs(c.call("HGETALL", "big"))
            assert everything == ("array", 2000, D1000), "%s: HGETALL of 1000 fields" % (
                server.name)
            everything = everything[2]
            want = {f: v for f, v in everything.items() if keep(f)}
            pairs, _ = hscan_all(c, "big", *opts)
            for f, v in pairs:
                assert everything.get(f) == v, "%s: HSCAN %s gave %r=%r, HGETALL has %r" % (
                    server.name, " ".join(opts), f, v, everything.get(f))
            got = {f for f, _ in pairs}
            assert got == set(want), (
                "%s: HSCAN %s missed %d fields (e.g. %r) and gave %d unwanted (e.g. %r)"
                % (server.name, " ".join(opts), len(set(want) - got), sorted(set(want) - got)[:5],
                   len(got - set(want)), sorted(got - set(want))[:5]))


def scan_keys(conn, *opts):
    cursor, keys = b"0", []
    for _ in range(10000):
        cursor, got = decode_one(conn.call("SCAN", cursor, *opts))
        keys.extend(got)
        if cursor == b"0":
            break
    return set(keys)


def test_scan_type_hash(terse, oracle):
    hashes = {b"hash:%d" % i for i in range(60)}
    strings = {b"str:%d" % i for i in range(60)}
    for server in (oracle, terse):
        with server.raw() as c:
            for k in hashes:
                c.call("HSET", k, "f", "v")
            for k in strings:
                c.call("SET", k, "v")
            assert scan_keys(c, "TYPE", "hash") == hashes, server.name
            assert scan_keys(c, "TYPE", "HASH", "COUNT", "7") == hashes, server.name
            assert scan_keys(c, "TYPE", "string") == strings, server.name
            assert scan_keys(c, "MATCH", "hash:1*", "TYPE", "hash") == {
                k for k in hashes if k.startswith(b"hash:1")}, server.name
            assert scan_keys(c) == hashes | strings, server.name
            assert decode_one(c.call("DBSIZE")) == 120, server.name
