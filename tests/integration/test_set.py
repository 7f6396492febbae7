"""Sets, compared with Debian's redis-server 7.0: the same command sequences go to terse and to
the oracle, each on a fresh connection with an empty keyspace, and the raw reply bytes must be
identical.

Covered: SADD, SREM, SMEMBERS, SISMEMBER, SMISMEMBER, SCARD, SPOP (with and without a count),
SRANDMEMBER (positive, negative and zero counts, range errors), SMOVE, SINTER, SINTERCARD,
SINTERSTORE, SUNION, SUNIONSTORE, SDIFF, SDIFFSTORE, SSCAN; wrong arity, argument-check order
and WRONGTYPE both ways; TYPE and OBJECT ENCODING (intset/hashtable under
set-max-intset-entries, CONFIG SET-able, and the encodings Redis decides afresh: the STORE
forms, SPOP's rebuild, a load); keyspace commands on set keys; RESP3 (~ set replies);
DEBUG DIGEST-VALUE; SAVE and a restart; a warm SADD/SISMEMBER/SREM loop that allocates nothing.

Intentionally not compared byte for byte (the reason is repeated at each use):
- The order of a set Redis holds as a hashtable (its dict's order), and of a result Redis
  builds as one: compared as sorted lists, with the reply type (array or RESP3 set) and length.
  While Redis holds a set as an intset (ascending numeric order) the replies are compared byte
  for byte, including SINTER/SUNION/SDIFF results it builds as intsets.
- SPOP and SRANDMEMBER: random. Their reply shape, length, membership and (positive count)
  distinctness are compared, and the whole reply where the count covers the set; SCARD and the
  remaining members after an SPOP are checked against what it returned.
- SSCAN of a hashtable set: Redis pages through it with cursors; terse answers in one call.
  The union over a full iteration is compared.
"""

import random

import pytest

import alloc_harness as ah
import terse_harness as h
import types_harness as th
from terse_harness import Step, decode_one

# ---- data ------------------------------------------------------------------------------------

_rnd = random.Random(20241130)
# Redis 7.0's default set-max-intset-entries is 512; test_encoding_transitions reads it.
INTSET_MAX = 512
I300 = [str(x) for x in _rnd.sample(range(-100000, 100000), 300)]   # an intset: order compared
I1000 = [str(x) for x in _rnd.sample(range(-10 ** 12, 10 ** 12), 1000)]  # a hashtable of ints
W200 = ["member:%d" % i for i in range(200)]                        # a hashtable of strings
EDGE_INTS = ["0", "-1", "1", "9223372036854775807", "-9223372036854775808", "127", "128",
             "-128", "32767", "32768", "-32769", "2147483647", "2147483648", "-2147483649"]
NOT_INTS = ["+1", "01", "-0", " 1", "1 ", "1.0", "9223372036854775808", "-9223372036854775809",
            "", "0x10", "1e3", "abc"]
RAND10K = _rnd.randbytes(10 * 1024)

WHY_HT = "Redis holds this set as a hashtable: its order is its dict's"
WHY_RAND = "SPOP/SRANDMEMBER are random"
WHY_SCAN = "Redis pages a hashtable set with cursors; terse answers in one call"


def as_sorted(raw):
    """A set reply without its order: (reply type, sorted members); errors and others as is."""
    v = decode_one(raw)
    if isinstance(v, list):
        return (type(v).__name__, len(v), sorted(v))
    return v


def ht(*args):
    return Step(*args, norm=as_sorted, why=WHY_HT)


def picks(contents, count=None, *, pop=False):
    """A norm for SRANDMEMBER/SPOP on a set holding `contents`: shape, length, membership,
    distinctness under a positive count, and the whole set when the count covers it."""
    contents = {h._b(x) for x in contents}

    def aggregate(v, raw):
        if not isinstance(v, list):
            return ("not an aggregate", raw)
        return th.counted_picks(v, contents, count, type(v).__name__, raw, "member", "set")
    return th.pick_norm(contents, count, "member", "set", aggregate)


def shape(raw):
    """A random pick compared by its reply type and length only."""
    v = decode_one(raw)
    if isinstance(v, list):
        return (type(v).__name__, len(v))
    return v


def scan_sorted(raw):
    """SSCAN with a COUNT that covers the set: (cursor, sorted members)."""
    v = decode_one(raw)
    if isinstance(v, h.Err):
        return v
    return (v[0], sorted(v[1]))


def sr(contents, *args):
    count = int(args[1]) if len(args) > 1 else None
    return Step("SRANDMEMBER", *args, norm=picks(contents, count), why=WHY_RAND)


def sp(contents, *args):
    count = int(args[1]) if len(args) > 1 else None
    return Step("SPOP", *args, norm=picks(contents, count, pop=True), why=WHY_RAND)


# ---- differential sequences on the session servers -------------------------------------------

CASES = {
    "basic": [
        "SADD s a b c", "SADD s a d", "SADD s a a a", "SCARD s", "SCARD nokey", "SISMEMBER s a",
        "SISMEMBER s z", "SISMEMBER nokey a", "SMISMEMBER s a z d a", "SMISMEMBER nokey a b",
        ht("SMEMBERS", "s"), "SMEMBERS nokey", "SREM s a z a", "SREM s z", "SREM nokey a",
        ht("SMEMBERS", "s"), "SCARD s", "TYPE s", "OBJECT ENCODING s", "sadd lower x",
        "SiSmEmBeR lower x", "EXISTS s lower", "DBSIZE", "SREM s b c d", "EXISTS s", "TYPE s",
        "SMEMBERS s", "SADD case A a", "SISMEMBER case A", "SISMEMBER case B", "SCARD case",
        "INFO keyspace",
    ],
    "intset_order": [
        "SADD i 5 3 10 -1 3 0", "SMEMBERS i", "OBJECT ENCODING i", "SADD i 7 -100 1000000",
        "SMEMBERS i", "SREM i 5", "SMEMBERS i", ("SADD", "i", *EDGE_INTS), "SMEMBERS i",
        "SSCAN i 0", "SSCAN i 0 MATCH 1*", "SSCAN i 0 COUNT 1", "SRANDMEMBER i 100",
        sr(["5", "3", "10", "-1", "0", "7", "-100", "1000000"] + EDGE_INTS, "i", "18"), "SCARD i", ("SADD", "big", *I300), "SMEMBERS big", "SCARD big",
        "OBJECT ENCODING big", "SSCAN big 0", "SRANDMEMBER big 300", "SRANDMEMBER big 1000",
        ("SREM", "big", *I300[::3]), "SMEMBERS big", ("SADD", "big", *I300[::6]),
        "SMEMBERS big", "SISMEMBER big %s" % I300[1], "SISMEMBER big 100001",
        ("SMISMEMBER", "big", *I300[:20], "x", "0"),
    ],
    "number_like_members": [
        ("SADD", "n", *NOT_INTS), ht("SMEMBERS", "n"), "OBJECT ENCODING n", "SCARD n",
        ("SISMEMBER", "n", "+1"), ("SISMEMBER", "n", "1"), ("SISMEMBER", "n", ""),
        ("SMISMEMBER", "n", *NOT_INTS, "1", "0"), ("SREM", "n", *NOT_INTS[:6]),
        ht("SMEMBERS", "n"), "OBJECT ENCODING n",
        ("SADD", "m", "1"), ("SADD", "m", "01"), "OBJECT ENCODING m", ht("SMEMBERS", "m"),
        ("SADD", "m2", "1"), ("SADD", "m2", "-0"), "OBJECT ENCODING m2",
        ("SADD", "m3", "9223372036854775807"), "OBJECT ENCODING m3",
        ("SADD", "m3", "9223372036854775808"), "OBJECT ENCODING m3",
        ("SADD", "m4", "-9223372036854775808"), "OBJECT ENCODING m4", "SMEMBERS m4",
        ("SADD", "m5", "1", "x"), "SREM m5 x", "OBJECT ENCODING m5", "SMEMBERS m5",
        ("SADD", "m6", "x", "1"), "OBJECT ENCODING m6",
        ("SADD", "m7", " 1"), "OBJECT ENCODING m7", ("SADD", "m8", ""), "OBJECT ENCODING m8",
    ],
    "hashtable_ints": [
        ("SADD", "h", *I1000), "SCARD h", "OBJECT ENCODING h", ht("SMEMBERS", "h"),
        ("SMISMEMBER", "h", *I1000[::50], "1", "nope"), ("SREM", "h", *I1000[:700]), "SCARD h",
        "OBJECT ENCODING h", ht("SMEMBERS", "h"), ("SADD", "h", "1", "2", "3"), "SCARD h",
        ht("SMEMBERS", "h"), ("SADD", "h2", *I1000[:600]), ("SREM", "h2", *I1000[:599]),
        "SMEMBERS h2", "OBJECT ENCODING h2",
    ],
    "hashtable_words": [
        ("SADD", "w", *W200), "SCARD w", ht("SMEMBERS", "w"), "OBJECT ENCODING w",
        "SISMEMBER w member:199", "SISMEMBER w member:200", ("SREM", "w", *W200[:150]),
        ht("SMEMBERS", "w"), Step("SSCAN", "w", "0", "MATCH", "member:19?", "COUNT", "1000", norm=scan_sorted,
             why=WHY_HT),
        Step("SSCAN", "w", "0", "COUNT", "1000", norm=scan_sorted, why=WHY_SCAN),
    ],
    "spop_srandmember": [
        "SADD one x", "SPOP one", "EXISTS one", "SADD one x", "SRANDMEMBER one",
        "SRANDMEMBER one 5", "SRANDMEMBER one -3", "SPOP one 5", "EXISTS one",
        "SADD s 1 2 3 4 5", sr("12345", "s"), sr("12345", "s", "3"), sr("12345", "s", "-10"),
        sr("12345", "s", "1"), sr("12345", "s", "-1"), "SRANDMEMBER s 5", "SRANDMEMBER s 100",
        "SRANDMEMBER s 0", "SRANDMEMBER s -0", "SRANDMEMBER nokey", "SRANDMEMBER nokey 3",
        "SRANDMEMBER nokey -3", "SRANDMEMBER nokey 0", "SRANDMEMBER s abc",
        "SRANDMEMBER nokey abc", "SRANDMEMBER s 1.5", "SRANDMEMBER s ''",
        "SRANDMEMBER s -9223372036854775808", "SRANDMEMBER nokey -9223372036854775808",
        "SRANDMEMBER s 9223372036854775808", "SRANDMEMBER s 1 2", "SRANDMEMBER nokey 1 2",
        "SRANDMEMBER s 9223372036854775807",
        sp("12345", "s"), "SCARD s", sp("12345", "s", "2"), "SCARD s", "SPOP s 0", "SPOP s -1",
        "SPOP s abc", "SPOP nokey -1", "SPOP nokey 0", "SPOP nokey 3", "SPOP nokey",
        "SPOP s 1 2", "SPOP nokey 1 2", "SPOP s 9223372036854775808", "SPOP s 1.5",
        "SADD t 3 1 2", "SPOP t 3", "EXISTS t", "SADD t 3 1 2", "SPOP t 100", "EXISTS t",
        ("SADD", "b", *I300), "SPOP b 300", "EXISTS b", ("SADD", "w", *W200),
        sp(W200, "w", "10"), "SCARD w", sp(W200, "w", "150"), "SCARD w", sr(W200, "w", "-500"),
        Step("SPOP", "w", "1000", norm=shape, why=WHY_RAND), "EXISTS w",
    ],
    "smove": [
        "SADD a 1 2 3", "SADD b 4 x", "SMOVE a b 1", "SMEMBERS a", ht("SMEMBERS", "b"),
        "SMOVE a b 99", "SMOVE a b 2", "SMOVE a b 3", "EXISTS a", "SCARD b", "SMOVE a b 1",
        "SMOVE b c x", "OBJECT ENCODING c", "SMOVE b d 4", "OBJECT ENCODING d", "SMEMBERS d",
        "SMOVE d d 4", "SMOVE d d 5", "SMEMBERS d", "SMOVE b d 1", "SMEMBERS d",
        "SMOVE b d 2", "SMOVE b d 3", "SMEMBERS d", "EXISTS b", "SET str v",
        "SMOVE nokey str 1", "SMOVE str d 1", "SMOVE d str 1", "SMOVE str nokey 1",
        "SMOVE str str 1", "SMOVE d nokey 99", "EXISTS nokey", "SADD e 1", "EXPIRE e 100",
        "SADD f 5", "EXPIRE f 200", "SMOVE e f 1", "EXISTS e", "TTL f", "SMEMBERS f",
        "SADD g 7", "SMOVE f g 5", "TTL g", "TTL f", "SADD dup 1", "SMOVE dup dup2 1",
        "SMOVE dup2 dup2 1", "SADD dup 1", "SMOVE dup dup2 1", "SMEMBERS dup2", "EXISTS dup",
    ],
    "algebra": [
        "SADD a 1 2 3 4 5", "SADD b 4 5 6 7", "SADD c 5 7 9", "SADD w x y 5",
        "SINTER a b", "SINTER a b c", "SINTER a", "SINTER a a", "SINTER a nokey",
        "SINTER nokey a", "SINTER b a", "SINTER c b a", ht("SINTER", "w", "a"),
        "SINTER a w", "SUNION a b", "SUNION a b c", "SUNION nokey", "SUNION nokey a",
        "SUNION a a", ht("SUNION", "a", "w"), "SDIFF a b", "SDIFF a b c", "SDIFF b a",
        "SDIFF a a", "SDIFF a nokey", "SDIFF nokey a", "SDIFF a nokey b", ht("SDIFF", "w", "a"),
        "SDIFF a w", "SDIFF a b a",
        "SINTERCARD 1 a", "SINTERCARD 2 a b", "SINTERCARD 3 a b c", "SINTERCARD 2 a nokey",
        "SINTERCARD 2 a b LIMIT 1", "SINTERCARD 2 a b LIMIT 0", "SINTERCARD 2 a b LIMIT 100",
        "SINTERCARD 2 a b limit 1 LIMIT 2", "SINTERCARD 0 a", "SINTERCARD -1 a",
        "SINTERCARD abc a", "SINTERCARD 3 a b", "SINTERCARD 2 a b LIMIT", "SINTERCARD 2 a b x",
        "SINTERCARD 2 a b LIMIT -1", "SINTERCARD 2 a b LIMIT abc", "SINTERCARD 1 a b",
        "SINTERCARD 9223372036854775808 a", "SINTERCARD 1 nokey",
        "SINTERSTORE d a b", "SMEMBERS d", "OBJECT ENCODING d", "SINTERSTORE d a nokey",
        "EXISTS d", "SUNIONSTORE d a b c", "SMEMBERS d", "SUNIONSTORE d nokey", "EXISTS d",
        "SDIFFSTORE d a b", "SMEMBERS d", "SDIFFSTORE d b b", "EXISTS d",
        "SUNIONSTORE a a b", "SMEMBERS a", "SINTERSTORE a a c", "SMEMBERS a",
        "SDIFFSTORE c c a", "SMEMBERS c", "SUNIONSTORE u w a", ht("SMEMBERS", "u"),
        "OBJECT ENCODING u", "SDIFFSTORE u w", ht("SMEMBERS", "u"), "SDIFFSTORE u w x y",
        "SDIFFSTORE u2 w u", "EXISTS u2",
        "SET str v", "SINTER a str", "SINTER nokey str", "SINTER str nokey", "SUNION a str",
        "SDIFF a str", "SDIFF nokey str", "SINTERCARD 2 a str", "SINTERSTORE d a str",
        "SUNIONSTORE d str", "SDIFFSTORE d str", "SUNIONSTORE str a", "TYPE str",
        "SMEMBERS str", "SET str v", "SINTERSTORE str nokey", "EXISTS str",
        "SADD t 1", "EXPIRE t 100", "SUNIONSTORE t a", "TTL t", "SADD t2 1", "EXPIRE t2 100",
        "SINTERSTORE t2 t2", "TTL t2",
    ],
    "algebra_big": [
        ("SADD", "i", *I300), ("SADD", "j", *I300[100:], *I1000[:100]), ("SADD", "k", *I1000),
        "SINTER i j", "SINTERCARD 2 i j", ht("SUNION", "i", "j"), ht("SUNION", "i", "j", "k"),
        "SUNIONSTORE u i j", "OBJECT ENCODING u", ht("SMEMBERS", "u"), "SUNIONSTORE u2 i j k",
        "OBJECT ENCODING u2", "SCARD u2", "SDIFF i j", "SDIFF j i", "SDIFFSTORE d k j",
        "OBJECT ENCODING d", "SCARD d", ht("SMEMBERS", "d"), "SINTER k j", "SINTER j k",
        "SINTERSTORE x k j", "OBJECT ENCODING x", "SMEMBERS x", ("SADD", "w", *W200),
        "SINTER w i", "SUNIONSTORE uw w i", "SCARD uw", "OBJECT ENCODING uw",
        "SDIFFSTORE dw uw w", "OBJECT ENCODING dw", "SMEMBERS dw", "SINTERCARD 3 i j k",
        "SINTERCARD 3 i j k LIMIT 5",
    ],
    "sscan": [
        "SADD s 1 2 3 10 20", "SSCAN s 0", "SSCAN s 0 MATCH 1*", "SSCAN s 0 MATCH nomatch",
        "SSCAN s 0 COUNT 1", "SSCAN s 0 COUNT 100 MATCH ?", "SSCAN s 0 match 2*",
        "SSCAN s 0 MATCH 1* COUNT 2", "SSCAN s 7", "SSCAN nokey 0", "SSCAN nokey 0 MATCH x",
        "SSCAN s abc", "SSCAN nokey abc", "SSCAN s -1", "SSCAN s 1.5", "SSCAN s 0 COUNT 0",
        "SSCAN s 0 COUNT -1", "SSCAN s 0 COUNT abc", "SSCAN s 0 MATCH", "SSCAN s 0 COUNT",
        "SSCAN s 0 FOO bar", "SSCAN s 0 TYPE set", "SSCAN s 18446744073709551615",
        "SSCAN s 18446744073709551616", "SADD w a b c", Step("SSCAN", "w", "0", norm=scan_sorted, why=WHY_HT),
        "SSCAN w 0 MATCH b", "SET str v", "SSCAN str 0", "SSCAN str abc", "sscan s 0",
    ],
    "binary_safe": [
        ("SADD", "b", b"f\x00ield", b"\r\n", b"\r\n$3\r\nfoo\r\n", b"*1\r\n", b"\xff\xfe",
         b"\x00", b"\x00\x00", b"-ERR x\r\n"),
        ht("SMEMBERS", "b"), ("SISMEMBER", "b", b"f\x00ield"), ("SISMEMBER", "b", b"f"),
        ("SISMEMBER", "b", b"f\x00"), ("SMISMEMBER", "b", b"\x00", b"\x00\x00\x00"),
        ("SREM", "b", b"\x00"), "SCARD b", ("SSCAN", "b", "0", "MATCH", b"\x00*"),
        ("SADD", b"k\x00ey", "m"), ("SMEMBERS", b"k\x00ey"), ("TYPE", b"k\x00ey"),
        ("SADD", "u", "ключ", "🔑"), ht("SMEMBERS", "u"), ("SADD", "big", RAND10K, "1"),
        ht("SMEMBERS", "big"), ("SISMEMBER", "big", RAND10K), "SCARD big",
        ("SADD", "", "x"), ("SMEMBERS", ""), ("TYPE", ""),
    ],
    "wrongtype": [
        "SADD s a", "GET s", "APPEND s x", "INCR s", "STRLEN s", "HSET s f v", "HGET s f",
        "LPUSH s x", "SET s v GET", "TYPE s",
        "SET str v", "SADD str a", "SREM str a", "SMEMBERS str", "SISMEMBER str a",
        "SMISMEMBER str a", "SCARD str", "SPOP str", "SPOP str 2", "SRANDMEMBER str",
        "SRANDMEMBER str 2", "SRANDMEMBER str -2", "SSCAN str 0", "SINTER str",
        "SUNION str", "SDIFF str", "SINTERCARD 1 str", "GET str", "TYPE str",
        "HSET h f v", "SADD h a", "SMEMBERS h", "SINTER s h", "SUNIONSTORE x s h", "EXISTS x",
        "SET s overwritten", "TYPE s", "SADD s2 a", "SETEX s2 100 v", "TYPE s2",
        "SPOP str abc", "SRANDMEMBER str abc", "SSCAN str abc",
    ],
    "keyspace": [
        "SADD s 1 2", "RANDOMKEY", "EXISTS s", "DBSIZE", "TYPE s", "EXPIRE s 100", "TTL s",
        "SADD s 3", "TTL s", "SREM s 3", "TTL s", sp(["1", "2"], "s"), "TTL s", "SADD s 1 2 x", "TTL s",
        "PERSIST s", "TTL s", "RENAME s s2", "EXISTS s", "SCARD s2", "COPY s2 c",
        "SCARD c", "OBJECT ENCODING c", "SADD c y", "SCARD s2", "COPY s2 c", "COPY s2 c REPLACE",
        "SCARD c", "COPY s2 d DB 1", "SELECT 1", "SCARD d", "TYPE d", "SELECT 0", "MOVE s2 2",
        "SELECT 2", "SCARD s2", "SELECT 0", "OBJECT ENCODING c", "OBJECT REFCOUNT c",
        "SADD i 1 2", "OBJECT ENCODING i", "RENAME i i2", "OBJECT ENCODING i2", "COPY i2 i3",
        "OBJECT ENCODING i3", "SMEMBERS i3",
        Step("KEYS", "*", norm=as_sorted, why="KEYS order is bucket order"), "DEL c i2 nokey",
        "DBSIZE", "SADD e 1", "PEXPIRE e 1", h.Sleep(0.05), "SISMEMBER e 1", "SCARD e",
        "EXISTS e", "SADD e 2", "SMEMBERS e", "TTL e",
    ],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_sequence(diff, name):
    diff.run(CASES[name], title=name)


# ---- wrong arity, the command table ----------------------------------------------------------

SET_ARITY = [
    ("sadd", -3), ("srem", -3), ("smembers", 2), ("sismember", 3), ("smismember", -3),
    ("scard", 2), ("spop", -2), ("srandmember", -2), ("smove", 4), ("sinter", -2),
    ("sintercard", -3), ("sinterstore", -3), ("sunion", -2), ("sunionstore", -3),
    ("sdiff", -2), ("sdiffstore", -3), ("sscan", -3),
]


def test_wrong_arity(diff):
    steps = th.arity_steps(SET_ARITY, "s", "1")
    diff.run(steps + ["SADD s 1"] + steps + ["DEL s", "SET s v"] + steps,
             title="wrong arity")


def _info_head(raw):
    """COMMAND INFO without the key specs and subcommands (fields 9, 10: cmd_meta.c)."""
    v = decode_one(raw)
    return [x[:7] if isinstance(x, list) else x for x in v]


def _docs_head(raw):
    v = decode_one(raw)
    out = []
    for i in range(0, len(v), 2):
        d = dict(zip(v[i + 1][::2], v[i + 1][1::2]))
        out.append((v[i], d.get(b"summary"), d.get(b"since"), d.get(b"group")))
    return out


def test_command_table_rows(diff):
    """The rows of cmd_set.c: name, arity, flags, key positions, ACL categories (COMMAND INFO
    fields 1-7) and summary, since, group (COMMAND DOCS)."""
    names = [n for n, _ in SET_ARITY]
    why = "the rest (tips, key specs, arguments) comes from cmd_meta.c"
    diff.run([Step("COMMAND", "INFO", *names, norm=_info_head, why=why)] +
             [Step("COMMAND", "DOCS", n, norm=_docs_head, why=why) for n in names] +
             ["COMMAND GETKEYS sadd s a", "COMMAND GETKEYS smove a b m",
              "COMMAND GETKEYS sinterstore d a b", "COMMAND GETKEYS sscan s 0"],
             title="COMMAND on set commands")


def test_command_table_full(diff):
    names = [n for n, _ in SET_ARITY]
    diff.run([("COMMAND", "INFO", n) for n in names] + [("COMMAND", "DOCS", n) for n in names] +
             ["COMMAND GETKEYS sintercard 2 a b LIMIT 1"], title="COMMAND, full")


# ---- randomness, SSCAN of a hashtable --------------------------------------------------------

def test_spop_and_srandmember_are_random_and_consistent(terse, oracle):
    for server in (oracle, terse):
        with server.raw() as c:
            c.call("SADD", "s", *"abcde")
            c.send(h.encode("SRANDMEMBER", "s") * 50)
            got = [decode_one(x) for x in c.read_replies(50)]
            assert len(set(got)) > 1, "%s: SRANDMEMBER gave %r fifty times" % (server.name,
                                                                                got[0])
            assert set(decode_one(c.call("SRANDMEMBER", "s", "-200"))) == set(b"abcde"[i:i + 1]
                                                                               for i in range(5))
            for key, members in (("i", I300), ("w", W200), ("h", I1000)):
                c.call("SADD", key, *members)
                left = {h._b(m) for m in members}
                for frac in (0, 0.02, 0.5, 0.85):
                    count = max(1, int(len(left) * frac))
                    popped = decode_one(c.call("SPOP", key, str(count)))
                    assert len(popped) == count and len(set(popped)) == count, server.name
                    assert set(popped) <= left, server.name
                    left -= set(popped)
                    rest = decode_one(c.call("SMEMBERS", key))
                    assert set(rest) == left and len(rest) == len(left), server.name
                    ints = all(x.lstrip(b"-").isdigit() for x in rest)
                    enc = decode_one(c.call("OBJECT", "ENCODING", key))
                    if enc == b"intset":
                        assert ints and rest == sorted(rest, key=int), (
                            "%s: an intset answered out of order" % server.name)


def sscan_all(conn, key, *opts):
    cursor, members = b"0", []
    for _ in range(10000):
        cursor, got = decode_one(conn.call("SSCAN", key, cursor, *opts))
        members.extend(got)
        if cursor == b"0":
            break
    return members


@pytest.mark.parametrize("opts,keep", [
    ((), lambda m: True),
    (("COUNT", "10"), lambda m: True),
    (("MATCH", "member:1*"), lambda m: m.startswith(b"member:1")),
    (("MATCH", "*7", "COUNT", "3"), lambda m: m.endswith(b"7")),
], ids=["plain", "count10", "match", "match_count"])
def test_sscan_hashtable_union(terse, oracle, opts, keep):
    for server in (oracle, terse):
        with server.raw() as c:
            c.call("SADD", "big", *W200, *I1000)
            want = {h._b(m) for m in W200 + I1000 if keep(h._b(m))}
            got = sscan_all(c, "big", *opts)
            assert set(got) == want, "%s: SSCAN %s missed or added members" % (
                server.name, " ".join(opts))


# ---- RESP3 -----------------------------------------------------------------------------------

def test_resp3(diff):
    diff.run([
        Step("HELLO", "3", norm=h.hello3_norm, why="id, version and server are per process"),
        "SADD s 3 1 2", "SMEMBERS s", "SMEMBERS nokey", "SINTER s", "SINTER s nokey",
        "SUNION s", "SUNION nokey", "SDIFF s", "SDIFF nokey", "SINTERCARD 1 s",
        "SISMEMBER s 1", "SMISMEMBER s 1 9", "SCARD s", "SSCAN s 0", "SSCAN nokey 0",
        "SRANDMEMBER s 3", "SRANDMEMBER s 10", "SRANDMEMBER nokey 3", "SRANDMEMBER nokey",
        "SRANDMEMBER s 0", sr("123", "s", "-5"), sr("123", "s"), "SPOP nokey", "SPOP nokey 2",
        "SPOP s 0", "SADD t 3 1 2", "SPOP t 3", "SADD t 1 2 3 4 5 6 7",
        sp("1234567", "t", "2"), sp("1234567", "t"),
        "SADD w a b c", ht("SMEMBERS", "w"), ht("SUNION", "w", "s"), ht("SINTER", "w", "w"),
        "SUNIONSTORE d s w", "SET str v", "SMEMBERS str", "SADD", "SPOP s abc",
    ], title="RESP3")


# ---- encodings under CONFIG SET --------------------------------------------------------------

def test_encoding_transitions(pair):
    _, _, d = pair()
    ints = [str(i) for i in range(INTSET_MAX)]
    d.run([
        "CONFIG GET set-max-intset-entries",
        ("SADD", "s", *ints), "SCARD s", "OBJECT ENCODING s", "SADD s 0", "OBJECT ENCODING s",
        "SADD s -1", "OBJECT ENCODING s", "SREM s -1", "OBJECT ENCODING s",
        ("SREM", "s", *ints[5:]), "OBJECT ENCODING s", ht("SMEMBERS", "s"),
        ("SADD", "t", *ints, "x"), "OBJECT ENCODING t",
        "CONFIG SET set-max-intset-entries 4", "CONFIG GET set-max-intset-entries",
        "SADD a 4 3 2 1", "OBJECT ENCODING a", "SADD a 1", "OBJECT ENCODING a", "SADD a 5",
        "OBJECT ENCODING a", ht("SMEMBERS", "a"), "SADD b 1 2 3 4 5", "OBJECT ENCODING b",
        "SADD c 1 2 3", "SMOVE a c 5", "OBJECT ENCODING c", "SMOVE a c 4", "OBJECT ENCODING c",
        "SADD e 1 2 3 4", "SINTERSTORE f e e", "OBJECT ENCODING f", "SUNIONSTORE g e b",
        "OBJECT ENCODING g", "SDIFFSTORE h b e", "OBJECT ENCODING h", "SMEMBERS h",
        "SUNIONSTORE g2 e", "OBJECT ENCODING g2", "SMEMBERS g2",
        "SADD k 9 8 7 6 5 4 3 2 1 0", "OBJECT ENCODING k",
        Step("SPOP", "k", "1", norm=shape, why=WHY_RAND), "OBJECT ENCODING k",
        "DEL k", "SADD k 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20",
        # 20 members, pop 18: remaining 2 * 5 <= 18, Redis rebuilds the rest as a new set
        Step("SPOP", "k", "18", norm=picks([str(i) for i in range(1, 21)], 18), why=WHY_RAND),
        "OBJECT ENCODING k", "SCARD k",
        "SADD k2 a b c d e f g h i j 1 2", Step("SPOP", "k2", "10", norm=picks(
            list("abcdefghij12"), 10), why=WHY_RAND), "SCARD k2",
        "CONFIG SET set-max-intset-entries 0", "SADD z 1", "OBJECT ENCODING z",
        "SMOVE e new 1", "OBJECT ENCODING new", "SUNIONSTORE z2 e", "OBJECT ENCODING z2",
        "CONFIG SET set-max-intset-entries 1000", ("SADD", "big", *I1000[:900]),
        "OBJECT ENCODING big", "SMEMBERS big", "SSCAN big 0", "SRANDMEMBER big 2000",
        ("SREM", "big", *I1000[:450]), "SMEMBERS big",
        "CONFIG SET set-max-intset-entries -1", "CONFIG SET set-max-intset-entries abc",
        "CONFIG GET set-max-intset-entries",
    ], title="encodings")


def test_encoding_changes_only_on_a_write(pair):
    _, _, d = pair()
    d.run([
        "SADD low 1 2 3 4 5 6", "SADD keep 1 2 3", "CONFIG SET set-max-intset-entries 2",
        "OBJECT ENCODING low", "SMEMBERS low", "SREM low 6", "OBJECT ENCODING low",
        "SADD low 1", "OBJECT ENCODING low", "SADD low 7", "OBJECT ENCODING low",
        ht("SMEMBERS", "low"), "SREM keep 3", "OBJECT ENCODING keep",
        "CONFIG SET set-max-intset-entries 512", "OBJECT ENCODING low", "SREM low 7",
        "OBJECT ENCODING low", "SADD m 1 x", "SREM m x", "OBJECT ENCODING m", "EXPIRE m 100",
        "PERSIST m", "RENAME m m2", "OBJECT ENCODING m2", "COPY m2 m3", "OBJECT ENCODING m3",
        "MOVE m3 1", "SELECT 1", "OBJECT ENCODING m3", "SELECT 0", "SADD m2 5",
        "OBJECT ENCODING m2", ht("SMEMBERS", "m2"),
    ], title="encodings change on writes only")


def random_steps(seed, n):
    """n random deterministic set commands over four keys and a pool of integer and word
    members, every reply compared (SMEMBERS and the algebra replies as sorted lists: which of
    them Redis answers from an intset is what OBJECT ENCODING, compared exactly, tells)."""
    rnd = random.Random(seed)
    keys = ["a", "b", "c", "d"]
    pool = [str(i) for i in range(-4, 9)] + ["x", "y", "", "07", "1.0"]
    steps = []
    for _ in range(n):
        k = rnd.choice(keys)
        ms = [rnd.choice(pool) for _ in range(rnd.randint(1, 6))]
        srcs = rnd.sample(keys, rnd.randint(1, 3))
        op = rnd.randrange(12)
        if op < 3:
            steps.append(("SADD", k, *ms))
        elif op < 5:
            steps.append(("SREM", k, *ms))
        elif op == 5:
            steps.append(("SMOVE", k, rnd.choice(keys), ms[0]))
        elif op == 6:
            steps.append((rnd.choice(["SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"]), k, *srcs))
        elif op == 7:
            steps.append(ht(rnd.choice(["SINTER", "SUNION", "SDIFF"]), *srcs))
        elif op == 8:
            steps.append(("SINTERCARD", str(len(srcs)), *srcs))
        elif op == 9:
            steps.append(("SMISMEMBER", k, *ms))
        else:
            steps += [("OBJECT", "ENCODING", k), ht("SMEMBERS", k), ("SCARD", k)]
    return steps


@pytest.mark.parametrize("limit", ["3", "512"])
def test_random_sequences(pair, limit):
    _, _, d = pair()
    d.run([("CONFIG", "SET", "set-max-intset-entries", limit)] + random_steps(int(limit), 600),
          title="random sequence, set-max-intset-entries %s" % limit)


# ---- DEBUG DIGEST-VALUE ----------------------------------------------------------------------

def test_digest_value(pair):
    t, r, d = pair(th.DEBUG_ARGS)
    d.run([
        "SADD s 1 2 3 x", "DEBUG DIGEST-VALUE s", "COPY s c", "DEBUG DIGEST-VALUE s c",
        "SADD i 3 2 1", "SADD i2 1 2 3", "DEBUG DIGEST-VALUE i i2 nokey", ("SADD", "h", *I1000),
        "DEBUG DIGEST-VALUE h", "DEBUG DIGEST", "SREM c x", "DEBUG DIGEST-VALUE c i",
    ], title="digests: terse's set digest is Redis's")
    for server in (r, t):
        c = server.client()
        c.sadd("w", *W200)
        assert c.copy("w", "wc") is True
        d_w, d_wc = c.execute_command("DEBUG", "DIGEST-VALUE", "w", "wc")
        assert d_w == d_wc and d_w != b"0" * 40, server.name
        c.sadd("o", *reversed(W200))
        assert c.execute_command("DEBUG", "DIGEST-VALUE", "o")[0] == d_w, server.name
        c.srem("wc", "member:0")
        assert c.execute_command("DEBUG", "DIGEST-VALUE", "wc")[0] != d_w, server.name
        c.close()


# ---- corruption ------------------------------------------------------------------------------

CORRUPT_CMDS = [
    ("SMEMBERS", "c"), ("SISMEMBER", "c", "1"), ("SMISMEMBER", "c", "1", "2"), ("SCARD", "c"),
    ("SRANDMEMBER", "c"), ("SRANDMEMBER", "c", "5"), ("SRANDMEMBER", "c", "-5"),
    ("SSCAN", "c", "0"), ("SADD", "c", "new"), ("SREM", "c", "1"), ("SPOP", "c"),
    ("SPOP", "c", "3"), ("SMOVE", "c", "ok", "1"), ("SMOVE", "ok", "c", "1"),
    ("SINTER", "ok", "c"), ("SINTERCARD", "2", "ok", "c"), ("SINTERSTORE", "d", "ok", "c"),
    ("SUNION", "ok", "c"), ("SUNIONSTORE", "d", "ok", "c"), ("SDIFF", "ok", "c"),
    ("SDIFFSTORE", "d", "c", "ok"),
]


@pytest.mark.parametrize("members", [["1", "2", "3"], W200], ids=["intset", "words"])
def test_corrupted_set_is_reported_never_served(spawn, terse_binary, members):
    """DEBUG CORRUPT-VALUE flips a byte of the stored set: every set command on it answers the
    CORRUPT error and changes nothing (the other key of SMOVE keeps its member)."""
    t = th.corruptible_terse(spawn, terse_binary)

    def setup(c):
        assert c.call("DEL", "c", "ok", "d")
        c.call("SADD", "c", *members)
        c.call("SADD", "ok", "1", "9")

    def check(c, cmd):
        assert decode_one(c.call("SMEMBERS", "ok")) in ([b"1", b"9"],), cmd
        assert c.call("EXISTS", "d") == b":0\r\n", cmd

    with t.raw() as c:
        th.assert_corrupt_reported(c, CORRUPT_CMDS, setup, check)


# ---- SAVE and restart ------------------------------------------------------------------------

SET_KEYS = [b"small", b"words", b"ints300", b"ints1000", b"shrunk", b"mixed_shrunk",
            b"bin\x00key", b"ttl", b"big", b"stored"]


def fill_sets(c):
    c.sadd("small", "3", "1", "2")
    c.sadd("words", *W200)
    c.sadd("ints300", *I300)
    c.sadd("ints1000", *I1000)
    c.sadd("shrunk", *I1000[:600])          # a hashtable of ints, then under the limit
    c.srem("shrunk", *I1000[:500])
    c.sadd("mixed_shrunk", "x", *I300[:50])  # a hashtable until its one word goes
    c.srem("mixed_shrunk", "x")
    c.sadd(b"bin\x00key", b"\x00", b"\r\n", b"\xff")
    c.sadd("ttl", "1")
    c.expire("ttl", 3600)
    c.sadd("big", RAND10K, "1")
    c.sunionstore("stored", "small", "shrunk")


def sets_view(s):
    c = s.client()
    view = {}
    for k in SET_KEYS:
        members = c.execute_command("SMEMBERS", k)
        enc = c.object("encoding", k)
        view[k] = (c.type(k), enc, c.scard(k),
                   members if enc == b"intset" else sorted(members))
    view["ttl"] = 0 < c.ttl("ttl") <= 3600
    view["dbsize"] = c.dbsize()
    c.close()
    return view


def test_sets_survive_save_and_restart(terse_binary, oracle_binary, tmp_path):
    views = th.save_restart_views(terse_binary, oracle_binary, tmp_path,
                                  lambda s: fill_sets(s.client()), sets_view)
    for i, when in enumerate(("before SAVE", "after the restart")):
        want, got = views["redis"][i], views["terse"][i]
        assert got == want, "%s: %r" % (when, {k: (got[k], want[k]) for k in want
                                               if got.get(k) != want[k]})


# ---- no allocation in a warm loop ------------------------------------------------------------

def test_warm_set_loop_allocates_nothing(terse):
    """SADD of members already there and new ones, SISMEMBER, SMISMEMBER, SCARD, SREM and
    SMEMBERS over an intset-sized set of integers (kept sorted), a set of words and a larger
    compressible one: decoded into scratch, rebuilt in scratch2, stored in the entry's block."""
    sets = [(b"si", [b"%d" % (i * 7919 % 1000) for i in range(100)]),
            (b"sw", [b"word:%d" % i for i in range(60)]),
            # under terse-chunk-bytes (4 KiB): one value, not chunks (test_chunked_hash_set.py)
            (b"sl", [b"a longer member that compresses well, number %04d" % i
                     for i in range(70)])]
    out = []
    for key, members in sets:
        out.append(h.encode("SADD", key, *members))
        out.append(h.encode("SADD", key, b"1001", b"extra"))
        out.append(h.encode("SISMEMBER", key, members[-1]))
        out.append(h.encode("SMISMEMBER", key, members[0], b"missing"))
        out.append(h.encode("SREM", key, b"1001", b"extra"))
        out.append(h.encode("SCARD", key))
        out.append(h.encode("SMEMBERS", key))
    batch = b"".join(out)
    n_replies = 7 * len(sets)
    warm = {}
    for k, (key, members) in enumerate(sets):
        warm[7 * k + 2] = b":1\r\n"
        warm[7 * k + 4] = b":2\r\n"
        warm[7 * k + 5] = b":%d\r\n" % len(set(members))
    with h.RawConn(terse.port) as c:
        ah.send_rounds(c, batch, n_replies, 5, warm)
        ah.assert_rounds_allocate_nothing(c, "warm set loop", batch, n_replies,
                                         {-2: b":70\r\n"})
