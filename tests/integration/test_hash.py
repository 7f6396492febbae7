"""Hashes, compared with Debian's redis-server 7.0: the same command sequences go to terse and
to the oracle, each on a fresh connection with an empty keyspace, and the raw reply bytes must
be identical. HRANDFIELD's randomness and the SCAN family over large hashes are in
test_hash_random.py; DEBUG DIGEST-VALUE, MEMORY USAGE and SAVE with a restart in
test_hash_state.py; the data and norms all three use in hash_harness.py.

Covered: HSET, HSETNX, HMSET, HGET, HMGET, HGETALL, HKEYS, HVALS, HLEN, HEXISTS, HDEL, HSTRLEN,
HINCRBY, HINCRBYFLOAT, HRANDFIELD, HSCAN; wrong arity and WRONGTYPE both ways; TYPE and OBJECT
ENCODING (listpack/hashtable under hash-max-listpack-entries/-value and their old ziplist
names, CONFIG SET-able); keyspace commands on hash keys; DEBUG DIGEST-VALUE; MEMORY USAGE;
RESP3; SAVE and a restart.

Intentionally not compared byte for byte (the reason is repeated at each use):
- HGETALL/HKEYS/HVALS of a hash that Redis holds as a hashtable: a hashtable's order is its
  bucket order. While Redis holds the hash as a listpack (insertion order), the order is
  compared byte for byte; once it is a hashtable, HGETALL is compared as a dict (with its
  length, so a repeated field still shows) and HKEYS/HVALS as sorted lists.
- HRANDFIELD: random. Its reply shape (bulk, flat array, RESP3 array of pairs), its length,
  the membership of every field, the value next to each field, and the distinctness that a
  positive count promises are compared; so is the whole set when the count covers the hash.
  Where the hash has one field the reply is determined and is compared byte for byte.
- HSCAN of a large hash: cursors are implementation-defined; the union over a full iteration
  must equal HGETALL on each server. A small hash (a listpack in Redis) is answered in one call
  with cursor 0 by both, so it is compared byte for byte.
- MEMORY USAGE, OBJECT IDLETIME: per-process figures; checked to be integers.
- DEBUG DIGEST-VALUE: terse's digest is its own, so it is compared within each server.
"""

import pytest

import terse_harness as h
import types_harness as th
from hash_harness import (
    D300, D1000, F300, F1000, LP_ENTRIES, LP_VALUE, RAND1M, RAND10K, RAND100K, SMALL5, TEXT100K,
    WHY_CLOCK, WHY_HT, WHY_MEM, as_pairs, as_sorted, field_pairs, flat, hr, hset_each)
from terse_harness import Sleep, Step, is_int

# ---- differential sequences on the session servers -------------------------------------------

CASES = {
    "basic": [
        "HSET h f1 v1", "HSET h f2 v2 f3 v3", "HSET h f1 new f4 v4", "HGET h f1", "HGET h nope",
        "HGET nokey f", "HLEN h", "HLEN nokey", "HEXISTS h f2", "HEXISTS h nope",
        "HEXISTS nokey f", "HGETALL h", "HKEYS h", "HVALS h", "HGETALL nokey", "HKEYS nokey",
        "HVALS nokey", "HSTRLEN h f1", "HSTRLEN h nope", "HSTRLEN nokey f",
        "HMSET h f5 v5 f1 again", "HGETALL h", "HSET h a 1 a 2", "HGET h a", "HLEN h",
        "HSET h a 3 a 3", "HDEL h f2 nope f2", "HDEL h f3 f4", "HDEL nokey f", "HGETALL h",
        "HSET h f2 back", "HGETALL h", "HSET h f1 replaced", "HGETALL h", "TYPE h",
        "OBJECT ENCODING h", "hset lower x y", "HgEt lower x", "hgetall lower", "EXISTS h lower",
        "DBSIZE", "HMGET h f1 nope f5 f1", "HMGET nokey a b", "HMGET h nope", "HMSET h2 a 1",
        "HGETALL h2", "HSET new a 1 b 2 a 3", "HGETALL new", "HSET case F 1 f 2", "HGET case F",
        "HGETALL case", "HMSET new c 1 c 2 a 4", "HGETALL new",
        "INFO keyspace",
    ],
    "number_like_values": [
        ("HSET", "n", "a", "123", "b", "-5", "c", "007", "d", "9223372036854775807",
         "e", "9223372036854775808", "f", "-9223372036854775808", "g", "+5", "h", " 1",
         "i", "1.5", "j", "0", "k", "-0", "l", "1e3", "m", "-9223372036854775809", "n", "00"),
        "HGETALL n", "HVALS n", "HSTRLEN n a", "HSTRLEN n b", "HSTRLEN n c", "HSTRLEN n d",
        "HSTRLEN n e", "HSTRLEN n f", "HSTRLEN n k", "HMGET n a c k", "OBJECT ENCODING n",
        ("HSET", "n", "123", "int field", "-1", "neg field"), "HGET n 123", "HGET n -1",
        "HKEYS n", "HEXISTS n 123", "HDEL n 123", "HINCRBY n a 1", "HGET n a",
    ],
    "hincrby": [
        "HINCRBY h n 5", "HINCRBY h n -3", "HINCRBY h n 0", "HGET h n", "HINCRBY nokey2 f 1",
        "HGETALL nokey2", "HSET h max 9223372036854775806", "HINCRBY h max 1", "HINCRBY h max 1",
        "HGET h max", "HSET h min -9223372036854775807", "HINCRBY h min -1", "HINCRBY h min -1",
        "HINCRBY h min 9223372036854775807", "HGET h min", "HINCRBY h n 9223372036854775807",
        "HINCRBY h n 9223372036854775808", "HINCRBY h n -9223372036854775809",
        "HINCRBY h n abc", "HINCRBY h n 1.5", "HINCRBY h n ''", "HINCRBY h n ' 1'",
        ("HINCRBY", "h", "n", " 1"), ("HINCRBY", "h", "n", "1 "), "HINCRBY h n +1",
        "HINCRBY h n 01", "HINCRBY h n 1e3", "HINCRBY h n -0", "HGET h n",
        "HINCRBY h new -9223372036854775808", "HINCRBY h new -1", "HGET h new",
        "HSET h s abc", "HINCRBY h s 1", "HSET h s 1.5", "HINCRBY h s 1", ("HSET", "h", "s", ""),
        "HINCRBY h s 1", "HSET h s 007", "HINCRBY h s 1", ("HSET", "h", "s", " 1"),
        "HINCRBY h s 1", "HSET h s 9223372036854775808", "HINCRBY h s 1", "HSET h s -0",
        "HINCRBY h s 1", "HSET h s +1", "HINCRBY h s 1", ("HSET", "h", "s", "1\x00"),
        "HINCRBY h s 1", "HINCRBY h s abc", "HGET h s", "HGETALL h", "SET str x",
        "HINCRBY str f 1", "HINCRBY str f abc", "GET str", "hincrby h n 1",
    ],
    "hincrbyfloat": [
        "HINCRBYFLOAT h f 1.5", "HINCRBYFLOAT h f 0.1", "HINCRBYFLOAT h f -1.6", "HGET h f",
        "HINCRBYFLOAT h f 10.5e3", "HINCRBYFLOAT h f 5.0e3", "HINCRBYFLOAT h f 1",
        "HINCRBYFLOAT h f -0.1", "HINCRBYFLOAT h f 1e400", "HINCRBYFLOAT h f -1e400",
        "HINCRBYFLOAT h f inf", "HINCRBYFLOAT h f -inf", "HINCRBYFLOAT h f +inf",
        "HINCRBYFLOAT h f Infinity", "HINCRBYFLOAT h f nan", "HINCRBYFLOAT h f NaN",
        "HINCRBYFLOAT h f abc", "HINCRBYFLOAT h f ''", ("HINCRBYFLOAT", "h", "f", " 1"),
        ("HINCRBYFLOAT", "h", "f", "1 "), "HINCRBYFLOAT h f 0x10", "HINCRBYFLOAT h f 1e-5",
        "HINCRBYFLOAT h f .5", "HINCRBYFLOAT h f 5.", "HINCRBYFLOAT h f 1,5",
        "HINCRBYFLOAT h f 1.5.5", "HGET h f",
        "HSET h g 1.7976931348623157e308", "HINCRBYFLOAT h g 1.7976931348623157e308", "HGET h g",
        "HSET h g 5.0e3", "HINCRBYFLOAT h g 2.0e2", "HSET h g 10.50", "HINCRBYFLOAT h g 0.1",
        "HSET h g 3", "HINCRBYFLOAT h g 1.1", "HINCRBYFLOAT h z 1e20", "HINCRBYFLOAT h z2 0.1",
        "HINCRBYFLOAT h z2 0.2", "HINCRBYFLOAT h z2 1", "HINCRBYFLOAT h z3 -0",
        "HINCRBYFLOAT h z4 1e-20", "HINCRBYFLOAT h z5 123456789012345678",
        "HINCRBYFLOAT h z7 -1.5e-7", "HINCRBYFLOAT h z8 3.0", "HINCRBY h z8 1",
        "HINCRBYFLOAT h z9 -2.5", "HINCRBYFLOAT h z9 2.5", "HGET h z9",
    ] + ["HINCRBYFLOAT tenth f 0.1"] * 12 + [
        # long double: Redis parses and adds in it, and prints it with up to 17 decimals
        "HINCRBYFLOAT ld a 1e30", "HINCRBYFLOAT ld a -1", "HINCRBYFLOAT ld b 1e-5000",
        "HINCRBYFLOAT ld b 1e5000", "HINCRBYFLOAT ld b 1e-4940", "HINCRBYFLOAT ld b 0x1p3",
        "HINCRBYFLOAT ld b infinity", "HINCRBYFLOAT ld c 3.0000000000000003",
        "HINCRBYFLOAT ld c 0.00000000000000001", "HINCRBYFLOAT ld d 9007199254740993",
        "HINCRBYFLOAT ld d 1", "HINCRBYFLOAT ld e -1e-7", "HINCRBYFLOAT ld e 1e-7",
        "HSET ld f 1e30", "HINCRBYFLOAT ld f 0", "HSET ld g 0x10", "HINCRBYFLOAT ld g 0",
        ("HSET", "ld", "h", "1" * 5000), "HINCRBYFLOAT ld h 1", ("HSET", "ld", "i", "1" * 6000),
        "HINCRBYFLOAT ld i 1", Step("HGETALL", "ld", norm=as_pairs, why=WHY_HT),
        "HSET h s abc", "HINCRBYFLOAT h s 1", "HSET h s inf", "HINCRBYFLOAT h s 1",
        "HSET h s nan", "HINCRBYFLOAT h s 1", "HSET h s 1e400", "HINCRBYFLOAT h s 1",
        ("HSET", "h", "s", "1.5 "), "HINCRBYFLOAT h s 1", ("HSET", "h", "s", " 1.5"),
        "HINCRBYFLOAT h s 1", "HSET h s 0x10", "HINCRBYFLOAT h s 1", ("HSET", "h", "s", ""),
        "HINCRBYFLOAT h s 1", ("HSET", "h", "s", "1\x00"), "HINCRBYFLOAT h s 1",
        "HINCRBYFLOAT h s abc", "HSET h i 5", "HINCRBYFLOAT h i 0.5", "HINCRBY h i 1",
        # 1e400 fits Redis's long double: f held a 401-digit value for a moment, so h is a
        # hashtable now.
        Step("HGETALL", "h", norm=as_pairs, why=WHY_HT), "OBJECT ENCODING h",
        "HINCRBYFLOAT big f 1e300", "HGET big f", "HSTRLEN big f", "HGETALL big",
        "HINCRBYFLOAT big f -1e300", "HGET big f", "OBJECT ENCODING big",
        "HINCRBYFLOAT nokey f 2.5", "HGETALL nokey", "SET str x", "HINCRBYFLOAT str f 1",
        "HINCRBYFLOAT str f abc", "hincrbyfloat h f 1",
    ],
    "hsetnx": [
        "HSETNX h f v", "HSETNX h f other", "HGET h f", "HSETNX h g ''", "HGETALL h",
        "HSETNX h f ''", "HGET h f", "HSETNX nokey x y", "HGETALL nokey", "SET s x",
        "HSETNX s f v", "GET s", "TYPE s", ("HSETNX", "h", "f", "x" * 100), "HGET h f",
        "OBJECT ENCODING h", ("HSETNX", "h", "long", "x" * 100), "HSTRLEN h long",
        "OBJECT ENCODING h", Step("HGETALL", "h", norm=as_pairs, why=WHY_HT), "hsetnx h f v",
    ],
    "hdel_last_field": [
        "HSET h f v", "EXPIRE h 100", "TTL h", "HSET h g w", "TTL h", "HDEL h f", "TTL h",
        "HDEL h g", "EXISTS h", "TTL h", "TYPE h", "HLEN h", "HGETALL h", "HSET h f v", "TTL h",
        "HDEL h f f", "EXISTS h", "DBSIZE", "HSET h a 1 b 2", "EXPIRE h 100", "HDEL h a b nope",
        "EXISTS h", "TTL h", "HSET h a 1", "TTL h", "HDEL h a nope", "EXISTS h",
        "HSET x f v", "PEXPIRE x 100", Sleep(0.25), "HGET x f", "HLEN x", "EXISTS x",
        "HGETALL x", "HEXISTS x f", "HSETNX x f new", "HGET x f", "TTL x", "DBSIZE",
        "HSET y f v g w", "PEXPIRE y 100", Sleep(0.25), "HSET y g new", "HGETALL y", "TTL y",
    ],
    "empty_fields_and_values": [
        ("HSET", "e", "", ""), ("HGET", "e", ""), ("HSTRLEN", "e", ""), ("HEXISTS", "e", ""),
        "HLEN e", "HGETALL e", ("HSET", "e", "", "v"), ("HSET", "e", "f", ""), "HGETALL e",
        ("HSET", "e", "n", ""), "HINCRBY e n 1", "HINCRBYFLOAT e n 1", ("HINCRBY", "e", "", "1"),
        ("HSETNX", "e", "", ""), ("HMGET", "e", "", "f", "nope"), "HKEYS e", "HVALS e",
        ("HDEL", "e", ""), "HGETALL e", ("HDEL", "e", "f", "n"), "EXISTS e",
        ("HSET", "", "f", "v"), ("HGETALL", ""), ("TYPE", ""), ("HINCRBY", "", "", "7"),
        ("HGETALL", ""),
    ],
    "binary_safe": [
        ("HSET", "b", b"f\x00ield", b"v\x00al", b"\r\n", b"\r\n$3\r\nfoo\r\n", b"*1\r\n",
         b"\xff\xfe", b"\x00", b"\x00\x00", b"\x00\x00", b"-ERR x\r\n"),
        ("HGET", "b", b"f\x00ield"), ("HGET", "b", b"f"), ("HGET", "b", b"f\x00"), "HGETALL b",
        "HKEYS b", "HVALS b", ("HSTRLEN", "b", b"\x00"), ("HSTRLEN", "b", b"\x00\x00"),
        ("HEXISTS", "b", b"\r\n"), ("HEXISTS", "b", b"\r"), ("HMGET", "b", b"\x00", b"\xff\xfe",
                                                             b"\x00\x00\x00"),
        ("HDEL", "b", b"\x00"), "HGETALL b", "HSCAN b 0", ("HSCAN", "b", "0", "MATCH", b"\x00*"),
        ("HSET", b"k\x00ey", "f", "v"), ("HGETALL", b"k\x00ey"), ("TYPE", b"k\x00ey"),
        ("HSET", b"k\r\n", b"\r\n", b"\r\n"), ("HGETALL", b"k\r\n"),
        ("HSET", "u", "ключ", "значение", "🔑", "✓"), "HGETALL u", ("HSTRLEN", "u", "🔑"),
    ],
    "big_values": [
        ("HSET", "b10", "v", RAND10K), ("HGET", "b10", "v"), ("HSTRLEN", "b10", "v"),
        "HGETALL b10", "HVALS b10", "HSCAN b10 0", "HRANDFIELD b10 1 WITHVALUES",
        ("HSET", "c100", "v", TEXT100K), ("HGET", "c100", "v"), ("HSTRLEN", "c100", "v"),
        "HGETALL c100", "HSCAN c100 0", "HRANDFIELD c100 -2 WITHVALUES",
        ("HSET", "r100", "v", RAND100K), ("HGET", "r100", "v"), ("HSTRLEN", "r100", "v"),
        "HGETALL r100", "OBJECT ENCODING r100", "OBJECT ENCODING c100", "OBJECT ENCODING b10",
        ("HSET", "multi", "a", TEXT100K, "b", RAND100K, "c", RAND10K, "d", "small"),
        Step("HGETALL", "multi", norm=as_pairs, why=WHY_HT), "HMGET multi d c a b nope",
        "HSTRLEN multi a", "HSTRLEN multi b", "HSTRLEN multi c", "HLEN multi",
        "HSETNX multi a x", "HGET multi a", "HINCRBY multi a 1", "HINCRBYFLOAT multi b 1",
        "HSET multi a 'short now'", "HGET multi a", ("HSET", "multi", "d", TEXT100K[:50000]),
        "HGET multi d", ("HSET", "multi", "e", TEXT100K[1:]), "HGET multi e",
        "HDEL multi b", Step("HGETALL", "multi", norm=as_pairs, why=WHY_HT),
        Step("HVALS", "multi", norm=as_sorted, why=WHY_HT), "COPY c100 c100b",
        ("HGET", "c100b", "v"), "RENAME r100 r100x", ("HGET", "r100x", "v"),
        ("HSET", "bigfield", TEXT100K[:20000], "v"), ("HGET", "bigfield", TEXT100K[:20000]),
        "HKEYS bigfield", ("HSTRLEN", "bigfield", TEXT100K[:20000]),
        ("HEXISTS", "bigfield", TEXT100K[:19999]), ("HSET", "c100", "v", TEXT100K[::-1]),
        ("HGET", "c100", "v"), Step(raw=h.encode("HGETALL", "r100x") * 12, n=12),
        Step(raw=h.encode("HGET", "c100b", "v") * 12, n=12),
        ("HSET", "c100", "v", "tiny"), "HGETALL c100",
    ],
    "ten_megabytes": [
        ("HSET", "h", *flat((b"f%d" % i, RAND1M[i:] + RAND1M[:i]) for i in range(10))),
        "HLEN h", "HSTRLEN h f9", "HGET h f5", "HMGET h f0 f1 nope",
        Step("HGETALL", "h", norm=as_pairs, why=WHY_HT), ("HSET", "h", "f3", TEXT100K),
        "HGET h f3", "HDEL h f0 f1 f2 f4 f6 f7 f8", "HSET h small v", "HSTRLEN h f9",
        Step("HGETALL", "h", norm=as_pairs, why=WHY_HT), "OBJECT ENCODING h",
    ],
    "listpack_300_one_hset": [
        ("HSET", "h", *flat(F300)), "HLEN h", "HGETALL h", "HKEYS h", "HVALS h",
        "OBJECT ENCODING h", "HMGET h field:0 field:299 field:300 field:150",
        ("HDEL", "h", *[f for f, _ in F300[:100:3]]), "HGETALL h", "HSET h field:0 readded",
        "HSET h field:299 replaced", "HGETALL h", "HSCAN h 0", "HSCAN h 0 MATCH field:2?",
    ],
    "listpack_300_one_hset_each": [
        hset_each("h", F300), "HLEN h", "HGETALL h", "HKEYS h", "HVALS h", "OBJECT ENCODING h",
        hset_each("h", list(reversed(F300))[:50]), "HGETALL h",
    ],
    "hashtable_1000_one_hset": [
        ("HSET", "h", *flat(F1000)), "HLEN h", Step("HGETALL", "h", norm=as_pairs, why=WHY_HT),
        Step("HKEYS", "h", norm=as_sorted, why=WHY_HT),
        Step("HVALS", "h", norm=as_sorted, why=WHY_HT), "OBJECT ENCODING h",
        "HMGET h field:0 field:999 field:1000 field:500", "HGET h field:123",
        "HEXISTS h field:999", "HSTRLEN h field:999", "HINCRBY h counter 5",
        ("HDEL", "h", *[f for f, _ in F1000[:600]]), "HLEN h",
        Step("HGETALL", "h", norm=as_pairs, why=WHY_HT), "OBJECT ENCODING h",
        ("HSET", "h", *flat(F1000)), "HLEN h",
        ("HMGET", "h", *[f for f, _ in F1000], "missing", "field:1"),
        ("HSET", "h5000", *flat(field_pairs(5000, b"f"))), "HLEN h5000",
        Step("HGETALL", "h5000", norm=as_pairs, why=WHY_HT),
        hr({**D1000, b"counter": b"5"}, "h", "-20000"),
    ],
    "hashtable_1000_one_hset_each": [
        hset_each("h", F1000), "HLEN h", Step("HGETALL", "h", norm=as_pairs, why=WHY_HT),
        Step("HKEYS", "h", norm=as_sorted, why=WHY_HT), "OBJECT ENCODING h",
        hset_each("h", F1000[::2]), "HLEN h", "HMGET h field:1 field:998",
    ],
    "hrandfield": [
        "HSET h a 1 b 2 c 3 d 4 e 5",
        hr(SMALL5, "h"), hr(SMALL5, "h", "2"), hr(SMALL5, "h", "5"), hr(SMALL5, "h", "10"),
        hr(SMALL5, "h", "-3"), hr(SMALL5, "h", "-10"), hr(SMALL5, "h", "1"),
        hr(SMALL5, "h", "-1"), hr(SMALL5, "h", "2", "WITHVALUES"),
        hr(SMALL5, "h", "-10", "WITHVALUES"), hr(SMALL5, "h", "10", "WITHVALUES"),
        hr(SMALL5, "h", "1", "WITHVALUES"), hr(SMALL5, "h", "4", "withvalues"),
        "HRANDFIELD h 0", "HRANDFIELD h 0 WITHVALUES", "HRANDFIELD h -0", "HRANDFIELD nokey",
        "HRANDFIELD nokey 3", "HRANDFIELD nokey 3 WITHVALUES", "HRANDFIELD nokey -3",
        "HRANDFIELD h abc", "HRANDFIELD h 1.5", "HRANDFIELD h ''", "HRANDFIELD h 2 WITHSCORES",
        "HRANDFIELD h 2 WITHVALUES x", "HRANDFIELD h abc WITHVALUES", "HRANDFIELD nokey abc",
        "HRANDFIELD h -9223372036854775808", "HRANDFIELD h 9223372036854775808",
        "HRANDFIELD h -4611686018427387904 WITHVALUES",
        "HRANDFIELD h 4611686018427387904 WITHVALUES",
        "HSET one f v", "HRANDFIELD one", "HRANDFIELD one 3", "HRANDFIELD one -3",
        "HRANDFIELD one -3 WITHVALUES", "HRANDFIELD one 1 WITHVALUES", "HRANDFIELD one 1",
        ("HSET", "lp", *flat(F300)),
        hr(D300, "lp"), hr(D300, "lp", "10"), hr(D300, "lp", "-10"),
        hr(D300, "lp", "150", "WITHVALUES"), hr(D300, "lp", "-20", "WITHVALUES"),
        hr(D300, "lp", "400", "WITHVALUES"),
        ("HSET", "ht", *flat(F1000)),
        hr(D1000, "ht"), hr(D1000, "ht", "10"), hr(D1000, "ht", "-10"),
        hr(D1000, "ht", "400", "WITHVALUES"), hr(D1000, "ht", "-50", "WITHVALUES"),
        hr(D1000, "ht", "2000"),
    ],
    "hscan_small": [
        "HSET h f1 v1 f2 v2 g1 x", "HSCAN h 0", "HSCAN h 0 MATCH f*", "HSCAN h 0 MATCH nomatch",
        "HSCAN h 0 COUNT 1", "HSCAN h 0 COUNT 100 MATCH g?", "HSCAN h 0 match F*",
        "HSCAN h 0 MATCH f* COUNT 2", "HSCAN h 7", "HSCAN nokey 0", "HSCAN nokey 0 MATCH x",
        "HSCAN h abc", "HSCAN nokey abc", "HSCAN h -1", "HSCAN h 1.5", "HSCAN h 0 COUNT 0",
        "HSCAN h 0 COUNT -1", "HSCAN h 0 COUNT abc", "HSCAN h 0 MATCH", "HSCAN h 0 COUNT",
        "HSCAN h 0 FOO bar", "HSCAN h 0 TYPE hash", "HSCAN h 0 NOVALUES",
        "HSCAN h 18446744073709551615", "HSCAN h 18446744073709551616", "SET s v", "HSCAN s 0",
        "HSCAN s abc", "hscan h 0",
    ],
    "wrongtype": [
        "HSET h f v", "GET h", "APPEND h x", "INCR h", "DECRBY h 2", "INCRBYFLOAT h 1",
        "STRLEN h", "GETRANGE h 0 1", "SETRANGE h 0 x", "GETSET h x", "GETDEL h", "GETEX h",
        "MGET h", "LCS h h", "GETBIT h 0", "SETBIT h 0 1", "SUBSTR h 0 1", "SETNX h x",
        "MSETNX h x", "SET h v GET", "HGETALL h", "TYPE h",
        "SET s v", "HGET s f", "HSET s f v", "HSETNX s f v", "HMSET s f v", "HMGET s f",
        "HGETALL s", "HKEYS s", "HVALS s", "HLEN s", "HEXISTS s f", "HDEL s f", "HSTRLEN s f",
        "HINCRBY s f 1", "HINCRBYFLOAT s f 1", "HRANDFIELD s", "HRANDFIELD s 2",
        "HRANDFIELD s 2 WITHVALUES", "HSCAN s 0", "GET s", "TYPE s",
        "SET h overwritten", "TYPE h", "GET h", "HSET h f v", "SET n 1", "HINCRBY n f 1",
        "INCR n", "HSET h2 f v", "SETEX h2 100 v", "TYPE h2", "HSET h3 f v", "MSET h3 x",
        "TYPE h3", "GET h3",
    ],
    "keyspace": [
        "HSET h a 1 b 2", "RANDOMKEY", "EXISTS h", "DBSIZE", "TYPE h", "EXPIRE h 100", "TTL h",
        "HSET h c 3", "TTL h", "HDEL h c", "TTL h", "HINCRBY h a 1", "TTL h",
        "HINCRBYFLOAT h a 1", "TTL h", "PERSIST h", "TTL h", "PERSIST h", "EXPIRE h 100 NX",
        "EXPIRE h 50 LT", "TTL h", "RENAME h h2", "EXISTS h", "HGETALL h2", "TTL h2",
        "SET s v", "RENAME h2 s", "TYPE s", "HGETALL s", "TTL s", "HSET h x y",
        "RENAMENX s h", "RENAMENX s h3", "HGETALL h3", "COPY h3 c", "HGETALL c", "TTL c",
        "HSET c a changed", "HGET h3 a", "HGET c a", "COPY h3 c", "COPY h3 c REPLACE",
        "HGET c a", "SET str v", "COPY h3 str", "COPY h3 str REPLACE", "TYPE str",
        "HGETALL str", "COPY h3 d DB 1", "SELECT 1", "HGETALL d", "TYPE d", "TTL d",
        "SELECT 0", "MOVE h3 2", "EXISTS h3", "SELECT 2", "HGETALL h3", "TTL h3", "SELECT 0",
        "HSET h3 new 1", "MOVE h3 2", "SELECT 2", "HGETALL h3", "SELECT 0", "HGETALL h3",
        "OBJECT ENCODING h3", "OBJECT REFCOUNT h3", "OBJECT FREQ h3",
        Step("OBJECT", "IDLETIME", "h3", norm=is_int, why=WHY_CLOCK),
        Step("MEMORY", "USAGE", "h3", norm=is_int, why=WHY_MEM),
        Step("MEMORY", "USAGE", "h3", "SAMPLES", "0", norm=is_int, why=WHY_MEM),
        "MEMORY USAGE nokey",
        Step("KEYS", "*", norm=as_sorted, why="KEYS order is bucket order"),
        "TOUCH h3 h nokey", "DEL h c str nokey", "DBSIZE",
        "UNLINK h3", "EXISTS h3", "DBSIZE", "RANDOMKEY", "SET k v", "DEL k", "HSET h f v",
        "EXPIREAT h 1", "EXISTS h", "HSET h f v", "PEXPIRE h 0", "HGET h f",
        "HSET h f v", "EXPIRE h 100", "SET h v KEEPTTL", "TTL h", "TYPE h", "HSET h f v",
        "RENAME h h", "COPY h h", "TYPE h",
    ],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_sequence(diff, name):
    diff.run(CASES[name], title=name)


@pytest.mark.parametrize("mode", ["off", "inline"])
def test_big_values_each_compression_mode(pair, mode):
    """The large-value sequences again with terse storing values uncompressed / compressing
    them on the request path (the session's terse uses the default, background). A
    redis-server standing in for terse gets no such option."""
    _, _, d = pair(terse_only=["--terse-compression", mode])
    for name in ("big_values", "ten_megabytes", "binary_safe"):
        d.run(CASES[name], title="%s, terse-compression %s" % (name, mode))


# ---- wrong arity -----------------------------------------------------------------------------

# (command, arity) as in Redis 7.0's command table: positive exact, negative a minimum, both
# counting the command name.
HASH_ARITY = [
    ("hset", -4), ("hsetnx", 4), ("hmset", -4), ("hget", 3), ("hmget", -3), ("hgetall", 2),
    ("hkeys", 2), ("hvals", 2), ("hlen", 2), ("hexists", 3), ("hdel", -3), ("hstrlen", 3),
    ("hincrby", 4), ("hincrbyfloat", 4), ("hrandfield", -2), ("hscan", -3),
]


def test_wrong_arity(diff):
    steps = th.arity_steps(HASH_ARITY, "h", "a")
    assert len(steps) >= 30
    # on a missing key, an existing hash and a string: arity is checked before anything else
    diff.run(steps + ["HSET h a 1"] + steps + ["DEL h", "SET h s"] + steps + [
        "HSET h f v g", "HMSET h f v g", "HSET h f v g w x", "HMSET h f v g w x",
        "HSET x f v g", "EXISTS x", "hset h f", "HsEt h f v g", "GET h"], title="wrong arity")


def test_command_table_entries(diff):
    names = [n for n, _ in HASH_ARITY]
    diff.run([("COMMAND", "INFO", *names)] + [("COMMAND", "INFO", n) for n in names] + [
        "COMMAND GETKEYS hset h f v", "COMMAND GETKEYS hmget h a b", "COMMAND GETKEYS hscan h 0",
        "COMMAND GETKEYS hrandfield h", "COMMAND GETKEYS hset h f",
        "COMMAND DOCS hset", "COMMAND DOCS hrandfield", "COMMAND DOCS hscan",
    ], title="COMMAND on hash commands")


# ---- RESP3 -----------------------------------------------------------------------------------

def test_resp3(diff):
    diff.run([
        Step("HELLO", "3", norm=h.hello3_norm, why="id, version and server are per process"),
        "HSET h f1 v1 f2 v2 f3 3", "HGETALL h", "HGETALL nokey", "HKEYS h", "HVALS h",
        "HMGET h f1 nope", "HGET h nope", "HGET h f3", "HINCRBYFLOAT h f3 1.5", "HINCRBY h n 1",
        "HEXISTS h f1", "HSTRLEN h f1", "HLEN h", "HRANDFIELD nokey", "HRANDFIELD nokey 2",
        "HRANDFIELD nokey 2 WITHVALUES",
        hr({"f1": "v1", "f2": "v2", "f3": "4.5", "n": "1"}, "h"),
        hr({"f1": "v1", "f2": "v2", "f3": "4.5", "n": "1"}, "h", "2", "WITHVALUES"),
        hr({"f1": "v1", "f2": "v2", "f3": "4.5", "n": "1"}, "h", "-5", "WITHVALUES"),
        hr({"f1": "v1", "f2": "v2", "f3": "4.5", "n": "1"}, "h", "9", "WITHVALUES"),
        "HRANDFIELD h 0 WITHVALUES", "HSCAN h 0", "HSCAN nokey 0", "HSET one f v",
        "HRANDFIELD one", "HRANDFIELD one 1 WITHVALUES", "HRANDFIELD one 5 WITHVALUES",
        "HRANDFIELD one -2 WITHVALUES", "HRANDFIELD one -2", "HRANDFIELD one 3",
        ("HSET", "lp", *flat(F300)), "HGETALL lp",
        ("HSET", "big", *flat(F1000)), Step("HGETALL", "big", norm=as_pairs, why=WHY_HT),
        "SET s v", "HGETALL s", "HGET s f", "HSET", "HINCRBYFLOAT h f3 abc",
    ], title="RESP3")


# ---- encodings under CONFIG SET --------------------------------------------------------------

def test_encoding_transitions(pair):
    _, _, d = pair()

    def x(n):
        return "x" * n

    d.run([
        "CONFIG GET hash-max-listpack-entries", "CONFIG GET hash-max-listpack-value",
        "CONFIG GET hash-max-ziplist-entries", "CONFIG GET hash-max-ziplist-value",
        "HSET h f v", "OBJECT ENCODING h",
        ("HSET", "h", *flat(field_pairs(LP_ENTRIES - 1))), "HLEN h", "OBJECT ENCODING h",
        "HSET h one more", "HLEN h", "OBJECT ENCODING h", "HDEL h one", "OBJECT ENCODING h",
        ("HDEL", "h", *[f for f, _ in field_pairs(LP_ENTRIES - 1)]), "HGETALL h",
        "OBJECT ENCODING h",
        ("HSET", "v", "f", x(LP_VALUE)), "OBJECT ENCODING v", ("HSET", "v", "g", x(LP_VALUE + 1)),
        "OBJECT ENCODING v", "HDEL v g", "OBJECT ENCODING v",
        ("HSET", "fl", x(LP_VALUE), "v"), "OBJECT ENCODING fl",
        ("HSET", "fl2", x(LP_VALUE + 1), "v"), "OBJECT ENCODING fl2",
        ("HMSET", "m", "a", x(LP_VALUE + 1)), "OBJECT ENCODING m",
        "HSETNX nx f short", ("HSETNX", "nx", "f", x(100)), "OBJECT ENCODING nx",
        ("HSETNX", "nx2", "f", x(100)), "OBJECT ENCODING nx2",
        "HINCRBYFLOAT fl3 f 1e300", "OBJECT ENCODING fl3", "HINCRBY i f 1", "OBJECT ENCODING i",
        "CONFIG SET hash-max-listpack-entries 4", "CONFIG GET hash-max-listpack-entries",
        "CONFIG GET hash-max-ziplist-entries", "HSET c a 1 b 2 c 3 d 4", "OBJECT ENCODING c",
        "HSET c e 5", "OBJECT ENCODING c", "HSET c2 a 1 b 2 c 3 d 4 e 5", "OBJECT ENCODING c2",
        "HSET c3 a 1 b 2 c 3", "HSETNX c3 d 4", "OBJECT ENCODING c3", "HSETNX c3 e 5",
        "OBJECT ENCODING c3", "HSET c4 a 1 b 2 c 3 d 4", "HINCRBY c4 e 1", "OBJECT ENCODING c4",
        "HSET c5 a 1 b 2 c 3 d 4", "HINCRBYFLOAT c5 e 1", "OBJECT ENCODING c5",
        "CONFIG SET hash-max-ziplist-value 8", "CONFIG GET hash-max-listpack-value",
        "CONFIG GET hash-max-ziplist-value", "HSET d a 12345678", "OBJECT ENCODING d",
        "HSET d b 123456789", "OBJECT ENCODING d", "HINCRBYFLOAT e f 0.1",
        "HINCRBYFLOAT e f 0.2", "OBJECT ENCODING e", "HINCRBYFLOAT e2 f 123456789",
        "OBJECT ENCODING e2",
        "CONFIG SET hash-max-ziplist-entries 2000", "CONFIG GET hash-max-listpack-entries",
        "CONFIG SET hash-max-listpack-value 64",
        ("HSET", "lp", *flat(F1000)), "OBJECT ENCODING lp", "HGETALL lp", "HKEYS lp", "HVALS lp",
        "HSCAN lp 0", ("HDEL", "lp", *[f for f, _ in F1000[:400:7]]), "HSET lp field:0 readded",
        "HGETALL lp", hset_each("lp2", F1000), "OBJECT ENCODING lp2", "HGETALL lp2",
        hset_each("lp2", F1000[::-3]), "HGETALL lp2", "OBJECT ENCODING h", "OBJECT ENCODING c",
        "OBJECT ENCODING d", "COPY c cc", "OBJECT ENCODING cc",
        Step("HGETALL", "cc", norm=as_pairs, why=WHY_HT), "RENAME v v2", "OBJECT ENCODING v2",
        "CONFIG SET hash-max-listpack-entries 0", "CONFIG GET hash-max-listpack-entries",
        "HSET z f v", "OBJECT ENCODING z", "HGETALL z",
        "CONFIG SET hash-max-listpack-entries 10", "CONFIG SET hash-max-listpack-value 0",
        ("HSET", "z0", "", ""), "OBJECT ENCODING z0", ("HSET", "z1", "", "v"),
        "OBJECT ENCODING z1",
        "CONFIG SET hash-max-listpack-entries -1", "CONFIG SET hash-max-listpack-entries abc",
        "CONFIG SET hash-max-ziplist-value -1", "CONFIG SET hash-max-listpack-value 1k",
        "CONFIG GET hash-max-listpack-value", "CONFIG SET hash-max-listpack-value 1kb",
        "CONFIG GET hash-max-ziplist-value", ("HSET", "k1", "f", x(1000)), "OBJECT ENCODING k1",
        "CONFIG SET hash-max-listpack-entries 5 hash-max-ziplist-entries 6",
        "CONFIG GET hash-max-listpack-entries",
        Step("CONFIG", "GET", "hash-max-*", norm=as_pairs,
             why="a CONFIG GET pattern answers in the config table's order"),
    ], title="encodings")


def test_encoding_changes_only_on_a_write(pair):
    """Redis fixes a hash's encoding when a write converts it: lowering the limits converts
    nothing until a write to that hash, and a hashtable stays one through reads, keyspace
    commands and raised limits."""
    _, _, d = pair()
    d.run([
        "HSET low a 1 b 2 c 3 d 4 e 5 f 6", "OBJECT ENCODING low",
        ("HSET", "lowv", "a", "x" * 10, "b", "1"), "OBJECT ENCODING lowv",
        "HSET keep a 1 b 2 c 3", "HSET del a 1 b 2 c 3",
        "CONFIG SET hash-max-listpack-entries 2", "CONFIG SET hash-max-listpack-value 4",
        "OBJECT ENCODING low", "OBJECT ENCODING lowv", "HGET low a", "HGETALL low",
        hr(dict(zip("abcdef", "123456")), "low", "-3"), "HSCAN low 0", "OBJECT ENCODING low",
        "HSETNX low a x", "OBJECT ENCODING low", "HDEL del a", "OBJECT ENCODING del", "HDEL lowv b",
        "OBJECT ENCODING lowv", "HSET keep a 2", "OBJECT ENCODING keep", "HSET low g 7",
        "OBJECT ENCODING low", "HINCRBY lowv n 1", "OBJECT ENCODING lowv",
        "CONFIG SET hash-max-listpack-entries 512", "CONFIG SET hash-max-listpack-value 64",
        "OBJECT ENCODING low", "OBJECT ENCODING lowv", "OBJECT ENCODING keep",
        "OBJECT ENCODING del",
        ("HSET", "m", "a", "1", "long", "x" * 100), "HDEL m long", "OBJECT ENCODING m",
        "EXPIRE m 100", "OBJECT ENCODING m", "PERSIST m", "OBJECT ENCODING m", "HGET m a",
        "OBJECT ENCODING m", "MOVE m 1", "SELECT 1", "OBJECT ENCODING m", "COPY m m2",
        "OBJECT ENCODING m2", "SELECT 0", "SWAPDB 0 1", "OBJECT ENCODING m2", "RENAME m2 m3",
        "OBJECT ENCODING m3", "HINCRBY m3 a 1", "OBJECT ENCODING m3", "HDEL m3 a",
        "EXISTS m3", "HSET m3 a 1", "OBJECT ENCODING m3",
    ], title="encodings change on writes only")
