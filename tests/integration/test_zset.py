"""Sorted sets, compared with Debian's redis-server 7.0: the same command sequences go to terse
and to the oracle, each on a fresh connection with an empty keyspace, and the raw reply bytes
must be identical.

Covered: ZADD (NX, XX, GT, LT, CH, INCR), ZINCRBY, ZCARD, ZSCORE, ZMSCORE, ZRANK, ZREVRANK,
ZREM, ZRANGE (BYSCORE, BYLEX, REV, LIMIT, WITHSCORES), ZRANGEBYSCORE, ZREVRANGEBYSCORE,
ZRANGEBYLEX, ZREVRANGEBYLEX, ZREVRANGE, ZRANGESTORE, ZCOUNT, ZLEXCOUNT, ZPOPMIN, ZPOPMAX,
ZMPOP, ZREMRANGEBYRANK/SCORE/LEX, ZRANDMEMBER, ZSCAN, ZUNION, ZINTER, ZDIFF and their STORE
forms (sets as inputs), ZINTERCARD; bad floats, inf, NaN results, LIMIT edge cases, lex
ranges, empty results, wrong arity, WRONGTYPE; RESP3 (doubles, pairs); OBJECT ENCODING
(listpack/skiplist under zset-max-listpack-*, the ziplist aliases, results Redis builds
afresh, a load); DEBUG DIGEST-VALUE and DEBUG DIGEST; SAVE and a restart; DEBUG CORRUPT-VALUE;
the warm ZADD/ZSCORE/ZRANGE loop that allocates nothing is in test_zero_alloc.py.

Intentionally not compared byte for byte (the reason is repeated at each use):
- ZRANDMEMBER: random. Shape, length, membership (and scores) are compared, and the whole
  reply where the count covers the zset.
- ZSCAN of a zset Redis holds as a skiplist: Redis pages through its dict with cursors; terse
  answers in one call. Compared as sorted pairs with a COUNT that covers it.
"""

import random

import pytest

import terse_harness as h
import types_harness as th
from terse_harness import Step, decode_one

_rnd = random.Random(20261130)
W200 = ["member:%d" % i for i in range(200)]
S200 = [str(_rnd.randint(-50, 50) / 4) for _ in W200]  # ties, negatives, halves
PAIRS200 = [x for pair in zip(S200, W200) for x in pair]
LONG = "L" * 70  # past zset-max-listpack-value (64)
RAND10K = _rnd.randbytes(10 * 1024)

WHY_RAND = "ZRANDMEMBER is random"
WHY_SCAN = "Redis pages a skiplist zset with cursors; terse answers in one call"


def rand_norm(members, count=None, withscores=False):
    """A norm for ZRANDMEMBER on a zset holding `members` (a dict member -> score text as
    Redis replies it)."""
    contents = {h._b(k): h._b(v) for k, v in members.items()}

    def aggregate(v, raw):
        if not isinstance(v, list):
            return ("not an array", raw)
        if withscores:
            if v and isinstance(v[0], list):
                pairs = [tuple(p) for p in v]
            else:
                pairs = list(zip(v[::2], v[1::2]))
            for m, s in pairs:
                if m in contents and str(float(s)) != str(float(contents[m])):
                    return ("a wrong score", raw)
            v = [m for m, _ in pairs]
        return th.counted_picks(v, set(contents), count, "array", raw, "member", "zset")
    return th.pick_norm(set(contents), count, "member", "zset", aggregate)


def zr(members, *args):
    count = int(args[1]) if len(args) > 1 else None
    ws = len(args) > 2
    return Step("ZRANDMEMBER", *args, norm=rand_norm(members, count, ws), why=WHY_RAND)


def config_pairs(raw):
    v = decode_one(raw)
    return sorted(zip(v[::2], v[1::2]))


def scan_sorted(raw):
    v = decode_one(raw)
    if isinstance(v, h.Err):
        return v
    return (v[0], sorted(zip(v[1][::2], v[1][1::2])))


CASES = {
    "zadd_options": [
        "ZADD z 1 a 2 b 3 c", "ZADD z 1 a", "ZADD z 5 a", "ZRANGE z 0 -1 WITHSCORES",
        "ZADD z NX 10 a 4 d", "ZADD z XX 10 a 4 e", "ZADD z XX CH 11 a 2 b", "ZADD z CH 2 b",
        "ZADD z GT 1 a", "ZADD z GT 20 a", "ZADD z LT 30 a", "ZADD z LT 3 a", "ZADD z GT CH 1 b 9 c",
        "ZADD z XX GT 100 a 100 newmember", "ZRANGE z 0 -1 WITHSCORES",
        "ZADD z NX XX 1 a", "ZADD z GT LT 1 a", "ZADD z NX GT 1 a", "ZADD z NX LT 1 a",
        "ZADD z INCR 1 a 2 b", "ZADD z INCR 5 a", "ZADD z INCR NX 5 a", "ZADD z INCR XX 5 nope",
        "ZADD z INCR GT -1 a", "ZADD z INCR LT -1 a", "ZADD z INCR NX 5 fresh",
        "ZADD z 1", "ZADD z 1 a 2", "ZADD z", "ZADD z nx", "ZADD z CH", "ZADD z abc a",
        "ZADD z 1 a abc b", "ZADD z nan a", "ZADD z 1e400 a", "ZADD z -1e400 a", "ZADD z 1e-400 a",
        "ZADD z ' 1' a", "ZADD z '1 ' a", "ZADD z 0x10 a", "ZADD z '' a", "ZADD z inf a",
        "ZADD z -inf b", "ZADD z +inf c", "ZADD z Infinity d", "ZADD z 4.9e-324 e",
        "ZADD z -0 f", "ZADD z 0 g", "ZADD z 1.5e300 h", "ZADD z 0.1 i",
        "ZRANGE z 0 -1 WITHSCORES", "ZSCORE z f", "ZSCORE z e", "ZSCORE z i",
        "ZADD nk XX 1 a", "EXISTS nk", "ZADD nk XX INCR 1 a", "ZADD nk INCR 1 a", "TYPE nk",
        "ZADD dup 1 a 2 a 3 a", "ZRANGE dup 0 -1 WITHSCORES", "zadd lower 1 x", "ZaDd lower Nx 2 x",
    ],
    "zincrby_nan_inf": [
        "ZINCRBY z 1 a", "ZINCRBY z 2.5 a", "ZINCRBY z -10 a", "ZINCRBY z inf a",
        "ZINCRBY z -inf a", "ZSCORE z a", "ZINCRBY z inf a", "ZINCRBY z abc a", "ZINCRBY z nan a",
        "ZINCRBY z '' a", "ZADD z inf b", "ZADD z INCR -inf b", "ZSCORE z b",
        "ZINCRBY nk 5 x", "ZSCORE nk x", "ZINCRBY z 1 a b", "ZINCRBY z nx a",
        "ZINCRBY z 1e308 c", "ZINCRBY z 1e308 c", "ZSCORE z c", "ZINCRBY z 0.1 d", "ZINCRBY z 0.2 d",
    ],
    "reads": [
        "ZADD z 1 a 2 b 3 c 3 d -1 e", "ZCARD z", "ZCARD nk", "ZSCORE z a", "ZSCORE z nope",
        "ZSCORE nk a", "ZMSCORE z a nope b", "ZMSCORE nk a b", "ZRANK z a", "ZRANK z d",
        "ZRANK z nope", "ZRANK nk a", "ZREVRANK z a", "ZREVRANK z e", "ZREVRANK z nope",
        "ZREM z a nope a", "ZREM z nope", "ZREM nk a", "ZCARD z", "ZREM z b c d e", "EXISTS z",
        "ZMSCORE z", "ZSCORE z", "ZRANK z", "ZRANK z a b",
    ],
    "zrange_rank": [
        "ZADD z 1 a 2 b 3 c 4 d 5 e", "ZRANGE z 0 -1", "ZRANGE z 0 -1 WITHSCORES",
        "ZRANGE z 1 3", "ZRANGE z -2 -1", "ZRANGE z -100 100", "ZRANGE z 3 1", "ZRANGE z 5 10",
        "ZRANGE z -1 -2", "ZRANGE z 0 0 REV", "ZRANGE z 0 1 REV WITHSCORES", "ZREVRANGE z 0 -1",
        "ZREVRANGE z 1 2 WITHSCORES", "ZREVRANGE z 0 -1 REV", "ZRANGE nk 0 -1",
        "ZRANGE z a 1", "ZRANGE z 0 1.5", "ZRANGE z 0 -1 LIMIT 0 1", "ZREVRANGE z 0 -1 LIMIT 0 1",
        "ZRANGE z 0 -1 foo", "ZRANGE z 0 -1 withscores withscores", "ZRANGE z 0 -1 REV REV",
        "ZRANGE z 0 -1 BYSCORE BYLEX", "ZRANGE z 0 9223372036854775807",
        "ZRANGE z -9223372036854775808 -1", "ZRANGE z 0 9223372036854775808",
    ],
    "zrange_score": [
        "ZADD z -inf ninf 1 a 2 b 2 b2 3 c 4 d 5 e inf pinf", "ZRANGEBYSCORE z -inf +inf",
        "ZRANGEBYSCORE z -inf +inf WITHSCORES", "ZRANGEBYSCORE z (1 3", "ZRANGEBYSCORE z 1 (3",
        "ZRANGEBYSCORE z (1 (3", "ZRANGEBYSCORE z 2 2", "ZRANGEBYSCORE z (2 2",
        "ZRANGEBYSCORE z 3 1", "ZRANGEBYSCORE z inf inf", "ZRANGEBYSCORE z (inf inf",
        "ZRANGEBYSCORE z -inf -inf", "ZRANGEBYSCORE z 10 20", "ZRANGEBYSCORE z '' 3",
        "ZRANGEBYSCORE z ' 1' 3", "ZRANGEBYSCORE z ( 2", "ZRANGEBYSCORE z 1e400 inf",
        "ZRANGEBYSCORE z abc 3", "ZRANGEBYSCORE z 1 nan", "ZRANGEBYSCORE z (nan 1",
        "ZRANGEBYSCORE z 1 3x", "ZRANGEBYSCORE z [1 3",
        "ZRANGEBYSCORE z -inf inf LIMIT 0 2", "ZRANGEBYSCORE z -inf inf LIMIT 2 3 WITHSCORES",
        "ZRANGEBYSCORE z -inf inf LIMIT 7 5", "ZRANGEBYSCORE z -inf inf LIMIT 8 5",
        "ZRANGEBYSCORE z -inf inf LIMIT 100 5", "ZRANGEBYSCORE z -inf inf LIMIT -1 5",
        "ZRANGEBYSCORE z -inf inf LIMIT 0 -1", "ZRANGEBYSCORE z -inf inf LIMIT 0 -5",
        "ZRANGEBYSCORE z -inf inf LIMIT 0 0", "ZRANGEBYSCORE z -inf inf LIMIT 1",
        "ZRANGEBYSCORE z -inf inf LIMIT a 1", "ZRANGEBYSCORE z 1 3 REV",
        "ZRANGEBYSCORE z 1 3 BYSCORE", "ZREVRANGEBYSCORE z +inf -inf",
        "ZREVRANGEBYSCORE z 3 1 WITHSCORES", "ZREVRANGEBYSCORE z (3 (1",
        "ZREVRANGEBYSCORE z 1 3", "ZREVRANGEBYSCORE z inf -inf LIMIT 1 2",
        "ZREVRANGEBYSCORE z inf -inf LIMIT 8 2", "ZREVRANGEBYSCORE z inf -inf LIMIT -3 2",
        "ZRANGE z 1 3 BYSCORE", "ZRANGE z 3 1 BYSCORE REV WITHSCORES",
        "ZRANGE z (1 +inf BYSCORE LIMIT 1 2", "ZRANGE z +inf (1 BYSCORE REV LIMIT 1 2",
        "ZRANGEBYSCORE nk 1 2", "ZCOUNT z -inf +inf", "ZCOUNT z (1 3", "ZCOUNT z 3 1",
        "ZCOUNT z 2 2", "ZCOUNT nk 1 2", "ZCOUNT z a 1", "ZCOUNT z 1 (a",
    ],
    "zrange_lex": [
        "ZADD l 0 a 0 b 0 c 0 d 0 e 0 ee 0 f", "ZRANGEBYLEX l - +", "ZRANGEBYLEX l [b [d",
        "ZRANGEBYLEX l (b (d", "ZRANGEBYLEX l [e (f", "ZRANGEBYLEX l (e +", "ZRANGEBYLEX l - (c",
        "ZRANGEBYLEX l + -", "ZRANGEBYLEX l - -", "ZRANGEBYLEX l + +", "ZRANGEBYLEX l [c [c",
        "ZRANGEBYLEX l (c [c", "ZRANGEBYLEX l [z +", "ZRANGEBYLEX l [ +", "ZRANGEBYLEX l ( +",
        "ZRANGEBYLEX l b d", "ZRANGEBYLEX l '' +", "ZRANGEBYLEX l -x +", "ZRANGEBYLEX l - +x",
        "ZRANGEBYLEX l - + LIMIT 1 2", "ZRANGEBYLEX l - + LIMIT 6 5", "ZRANGEBYLEX l - + LIMIT 7 5",
        "ZRANGEBYLEX l - + LIMIT -1 2", "ZRANGEBYLEX l - + LIMIT 2 -1", "ZRANGEBYLEX l - + WITHSCORES",
        "ZREVRANGEBYLEX l + -", "ZREVRANGEBYLEX l [d [b", "ZREVRANGEBYLEX l (d - LIMIT 1 2",
        "ZREVRANGEBYLEX l - +", "ZRANGE l [b [d BYLEX", "ZRANGE l [d [b BYLEX REV",
        "ZRANGE l - + BYLEX LIMIT 2 2", "ZRANGE l - + BYLEX WITHSCORES",
        "ZRANGE l - + BYLEX LIMIT 0 1 WITHSCORES", "ZLEXCOUNT l - +", "ZLEXCOUNT l [b (e",
        "ZLEXCOUNT l + -", "ZLEXCOUNT nk - +", "ZLEXCOUNT l a b", "ZRANGEBYLEX nk - +",
        "ZADD mixed 1 z 2 a 0 m", "ZRANGEBYLEX mixed - +", "ZRANGEBYLEX mixed [a [m",
        "ZLEXCOUNT mixed [b [z",
    ],
    "zrangestore": [
        "ZADD src 1 a 2 b 3 c 4 d", "ZRANGESTORE dst src 0 -1", "ZRANGE dst 0 -1 WITHSCORES",
        "ZRANGESTORE dst src 1 2 REV", "ZRANGE dst 0 -1 WITHSCORES", "ZRANGESTORE dst src (1 +inf BYSCORE LIMIT 1 1",
        "ZRANGE dst 0 -1 WITHSCORES", "ZRANGESTORE dst src [b [c BYLEX", "ZRANGESTORE dst src 5 10",
        "EXISTS dst", "ZRANGESTORE dst src 0 -1", "ZRANGESTORE dst nk 0 -1", "EXISTS dst",
        "ZRANGESTORE dst src 0 -1 WITHSCORES", "ZRANGESTORE dst src 0 -1 LIMIT 0 1",
        "SET str v", "ZRANGESTORE str src 0 0", "TYPE str", "ZRANGE str 0 -1",
        "ZRANGESTORE dst str 0 -1", "ZRANGESTORE src src 1 2", "ZRANGE src 0 -1 WITHSCORES",
        "ZADD t 1 x", "EXPIRE t 100", "ZRANGESTORE t src 0 -1", "TTL t", "OBJECT ENCODING t",
    ],
    "pops": [
        "ZADD z 1 a 2 b 3 c 4 d 5 e", "ZPOPMIN z", "ZPOPMAX z", "ZPOPMIN z 2", "ZPOPMAX z 0",
        "ZPOPMIN z 0", "ZPOPMIN z 10", "EXISTS z", "ZPOPMIN z", "ZPOPMIN nk 3", "ZPOPMIN z -1",
        "ZPOPMIN z abc", "ZPOPMIN z 1 2", "ZADD z 1 a 2 b", "ZPOPMAX z 1", "ZPOPMAX z 5",
        "ZADD a 1 x 2 y", "ZADD b 3 p 4 q", "ZMPOP 2 nk a MIN", "ZMPOP 2 a b MAX COUNT 5",
        "ZMPOP 2 a b MIN COUNT 1", "ZMPOP 1 nk MIN", "ZMPOP 1 b max count 1", "EXISTS a b",
        "ZMPOP 0 a MIN", "ZMPOP -1 a MIN", "ZMPOP abc a MIN", "ZMPOP 1 a", "ZMPOP 1 a FOO",
        "ZMPOP 2 a MIN", "ZMPOP 1 a MIN COUNT", "ZMPOP 1 a MIN COUNT 0", "ZMPOP 1 a MIN COUNT -1",
        "ZMPOP 1 a MIN COUNT abc", "ZMPOP 1 a MIN COUNT 1 COUNT 1", "ZMPOP 1 a MIN BAR 1",
        "ZMPOP 9223372036854775807 a MIN", "ZADD c 1 x", "SET str v", "ZMPOP 2 nk str MIN",
        "ZMPOP 2 c str MIN", "ZPOPMIN str", "ZPOPMIN str 0",
    ],
    "remrange": [
        "ZADD z 1 a 2 b 3 c 4 d 5 e", "ZREMRANGEBYRANK z 0 0", "ZREMRANGEBYRANK z -1 -1",
        "ZRANGE z 0 -1", "ZREMRANGEBYRANK z 5 10", "ZREMRANGEBYRANK z 2 1", "ZREMRANGEBYRANK z a 1",
        "ZREMRANGEBYSCORE z (2 3", "ZRANGE z 0 -1", "ZREMRANGEBYSCORE z 10 20",
        "ZREMRANGEBYSCORE z a 1", "ZREMRANGEBYSCORE z -inf +inf", "EXISTS z",
        "ZADD l 0 a 0 b 0 c 0 d", "ZREMRANGEBYLEX l [b (d", "ZRANGE l 0 -1",
        "ZREMRANGEBYLEX l a b", "ZREMRANGEBYLEX l - +", "EXISTS l", "ZREMRANGEBYRANK nk 0 -1",
        "ZREMRANGEBYSCORE nk 0 1", "ZREMRANGEBYLEX nk - +", "SET str v", "ZREMRANGEBYRANK str 0 1",
        "ZREMRANGEBYSCORE str 0 1", "ZREMRANGEBYLEX str - +", "ZREMRANGEBYSCORE str a b",
    ],
    "algebra": [
        "ZADD a 1 x 2 y 3 z", "ZADD b 10 y 20 z 30 w", "SADD s y z q",
        "ZUNION 2 a b", "ZUNION 2 a b WITHSCORES", "ZINTER 2 a b WITHSCORES", "ZDIFF 2 a b WITHSCORES",
        "ZDIFF 2 b a", "ZUNION 3 a b s WITHSCORES", "ZINTER 3 a b s WITHSCORES",
        "ZUNION 2 a b WEIGHTS 2 0.5 WITHSCORES", "ZUNION 2 a b AGGREGATE MIN WITHSCORES",
        "ZUNION 2 a b AGGREGATE MAX WITHSCORES", "ZINTER 2 a b AGGREGATE max WITHSCORES",
        "ZUNION 2 a b WEIGHTS 1 inf WITHSCORES", "ZUNION 2 a b WEIGHTS 0 inf WITHSCORES",
        "ZUNION 2 a a WEIGHTS inf -inf WITHSCORES", "ZINTER 2 a a WEIGHTS inf -inf WITHSCORES",
        "ZINTER 2 a a WEIGHTS inf -inf AGGREGATE MIN WITHSCORES",
        "ZUNION 2 a nk WITHSCORES", "ZINTER 2 a nk", "ZDIFF 2 nk a", "ZDIFF 1 a", "ZDIFF 2 a a",
        "ZUNION 1 s WITHSCORES", "ZINTERCARD 2 a b", "ZINTERCARD 2 a b LIMIT 1",
        "ZINTERCARD 2 a b LIMIT 0", "ZINTERCARD 3 a b s", "ZINTERCARD 2 a nk",
        "ZUNIONSTORE d 2 a b", "ZRANGE d 0 -1 WITHSCORES", "OBJECT ENCODING d",
        "ZINTERSTORE d 2 a b WEIGHTS 1 2", "ZRANGE d 0 -1 WITHSCORES", "ZDIFFSTORE d 2 a b",
        "ZRANGE d 0 -1 WITHSCORES", "ZINTERSTORE d 2 a nk", "EXISTS d", "ZUNIONSTORE d 1 s",
        "ZRANGE d 0 -1 WITHSCORES", "ZUNIONSTORE a 2 a b", "ZRANGE a 0 -1 WITHSCORES",
        "ZUNION 0 a", "ZUNION -1 a", "ZUNION abc a", "ZUNION 3 a b", "ZUNION 2 a b WEIGHTS 1",
        "ZUNION 2 a b WEIGHTS 1 x", "ZUNION 2 a b AGGREGATE", "ZUNION 2 a b AGGREGATE avg",
        "ZUNION 2 a b FOO", "ZUNIONSTORE d 2 a b WITHSCORES", "ZDIFF 2 a b WEIGHTS 1 1",
        "ZDIFF 2 a b AGGREGATE SUM", "ZINTERCARD 0 a", "ZINTERCARD 1 a LIMIT -1",
        "ZINTERCARD 1 a LIMIT x", "ZINTERCARD 1 a WITHSCORES", "ZINTERCARD 1 a WEIGHTS 1",
        "ZINTERSTORE d 0 a", "ZDIFFSTORE d 0 a", "ZINTER 1 a WITHSCORES WITHSCORES",
        "SET str v", "ZUNION 2 a str", "ZUNION 2 nk str", "ZUNIONSTORE d 2 a str",
        "ZINTERCARD 2 str a", "ZUNIONSTORE str 1 a", "TYPE str",
        "ZADD t 1 m", "EXPIRE t 100", "ZUNIONSTORE t 1 a", "TTL t",
        "ZADD f1 0.1 m", "ZADD f2 0.2 m", "ZADD f3 0.3 m", "ZUNION 3 f1 f2 f3 WITHSCORES",
        "ZUNION 3 f3 f2 f1 WITHSCORES", "ZADD f4 1 m 2 n", "ZUNION 4 f4 f3 f2 f1 WITHSCORES",
    ],
    "zscan_zrandmember": [
        "ZADD z 1 a 2 b 3 c 1.5 d", "ZSCAN z 0", "ZSCAN z 0 MATCH a*", "ZSCAN z 0 COUNT 1",
        "ZSCAN z 0 MATCH nomatch", "ZSCAN nk 0", "ZSCAN z abc", "ZSCAN z 0 COUNT 0",
        "ZSCAN z 0 FOO bar", "ZADD f 0.1 x -0 y inf z -inf w 1e20 v", "ZSCAN f 0",
        "ZRANDMEMBER nk", "ZRANDMEMBER nk 5", "ZRANDMEMBER nk 0", "ZRANDMEMBER z 0",
        "ZRANDMEMBER z 4", "ZRANDMEMBER z 10", "ZRANDMEMBER z 10 WITHSCORES",
        "ZRANDMEMBER z 4 withscores", "ZRANDMEMBER z abc", "ZRANDMEMBER z 1 2",
        "ZRANDMEMBER z 1 WITHSCORES x", "ZRANDMEMBER z -9223372036854775808",
        "ZRANDMEMBER z 9223372036854775807 WITHSCORES", "ZRANDMEMBER z -4611686018427387904 WITHSCORES",
        zr({"a": "1", "b": "2", "c": "3", "d": "1.5"}, "z"),
        zr({"a": "1", "b": "2", "c": "3", "d": "1.5"}, "z", "2"),
        zr({"a": "1", "b": "2", "c": "3", "d": "1.5"}, "z", "-7"),
        zr({"a": "1", "b": "2", "c": "3", "d": "1.5"}, "z", "1", "WITHSCORES"),
        zr({"a": "1", "b": "2", "c": "3", "d": "1.5"}, "z", "-5", "WITHSCORES"),
        zr({"a": "1", "b": "2", "c": "3", "d": "1.5"}, "z", "3", "WITHSCORES"),
    ],
    "binary_safe": [
        ("ZADD", "b", "1", b"f\x00ield", "2", b"\r\n", "3", b"\xff\xfe", "4", b""),
        "ZRANGE b 0 -1 WITHSCORES", ("ZSCORE", "b", b"f\x00ield"), ("ZSCORE", "b", b"f"),
        ("ZRANK", "b", b""), ("ZRANGEBYLEX", "b", b"[\x00", "+"), ("ZREM", "b", b"\r\n"),
        ("ZADD", "big", "1", RAND10K, "2", "x"), ("ZSCORE", "big", RAND10K), "ZCARD big",
        ("ZADD", b"k\x00ey", "1", "m"), ("ZRANGE", b"k\x00ey", "0", "-1"),
        ("ZADD", "s", b"1\x00", "m"),
    ],
    "wrongtype_keyspace": [
        "ZADD z 1 a", "GET z", "HSET z f v", "SADD z m", "LPUSH z x", "TYPE z",
        "SET str v", "ZADD str 1 a", "ZINCRBY str 1 a", "ZREM str a", "ZCARD str", "ZSCORE str a",
        "ZMSCORE str a", "ZRANK str a", "ZREVRANK str a", "ZRANGE str 0 -1", "ZREVRANGE str 0 1",
        "ZRANGEBYSCORE str 0 1", "ZRANGEBYLEX str - +", "ZCOUNT str 0 1", "ZLEXCOUNT str - +",
        "ZRANDMEMBER str", "ZRANDMEMBER str 2", "ZSCAN str 0", "ZUNION 1 str", "ZINTER 1 str",
        "ZDIFF 1 str", "ZPOPMAX str", "ZCOUNT str a b", "ZRANGE str a b",
        "EXPIRE z 100", "ZADD z 2 b", "TTL z", "ZREM z a", "TTL z", "RENAME z z2", "ZCARD z2",
        "COPY z2 c", "ZRANGE c 0 -1 WITHSCORES", "OBJECT ENCODING c", "MOVE c 1", "SELECT 1",
        "ZCARD c", "TYPE c", "SELECT 0", "PERSIST z2", "TTL z2", "DEL z2", "EXISTS z2",
        "ZADD e 1 a", "PEXPIRE e 1", h.Sleep(0.05), "ZSCORE e a", "EXISTS e",
    ],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_sequence(diff, name):
    diff.run(CASES[name], title=name)


ZSET_ARITY = [
    ("zadd", -4), ("zincrby", 4), ("zrem", -3), ("zcard", 2), ("zscore", 3), ("zmscore", -3),
    ("zrank", 3), ("zrevrank", 3), ("zrange", -4), ("zrangebyscore", -4),
    ("zrevrangebyscore", -4), ("zrangebylex", -4), ("zrevrangebylex", -4), ("zrevrange", -4),
    ("zrangestore", -5), ("zcount", 4), ("zlexcount", 4), ("zpopmin", -2), ("zpopmax", -2),
    ("zmpop", -4), ("zremrangebyrank", 4), ("zremrangebyscore", 4), ("zremrangebylex", 4),
    ("zrandmember", -2), ("zscan", -3), ("zunion", -3), ("zinter", -3), ("zdiff", -3),
    ("zunionstore", -4), ("zinterstore", -4), ("zdiffstore", -4), ("zintercard", -3),
]


def test_wrong_arity(diff):
    steps = th.arity_steps(ZSET_ARITY, "z", "1")
    diff.run(steps + ["ZADD z 1 a"] + steps + ["DEL z", "SET z v"] + steps,
             title="wrong arity")


def test_command_table(diff):
    names = [n for n, _ in ZSET_ARITY]
    diff.run([("COMMAND", "INFO", n) for n in names] + [("COMMAND", "DOCS", n) for n in names] +
             ["COMMAND GETKEYS zunionstore d 2 a b", "COMMAND GETKEYS zmpop 2 a b MIN",
              "COMMAND GETKEYS zrangestore d s 0 1", "COMMAND GETKEYS zintercard 2 a b"],
             title="COMMAND on zset commands")


def test_resp3(diff):
    diff.run([
        Step("HELLO", "3", norm=h.hello3_norm, why="id, version and server are per process"),
        "ZADD z 1 a 2.5 b inf c -inf d -0 e", "ZSCORE z b", "ZSCORE z c", "ZSCORE z d",
        "ZSCORE z e", "ZSCORE z nope", "ZMSCORE z a nope c", "ZRANGE z 0 -1", "ZRANGE z 0 -1 WITHSCORES",
        "ZRANGE nk 0 -1 WITHSCORES", "ZREVRANGEBYSCORE z inf -inf WITHSCORES LIMIT 1 2",
        "ZINCRBY z 1 a", "ZADD z INCR 1 a", "ZADD z INCR NX 1 a", "ZRANK z a", "ZRANK z nope",
        "ZPOPMIN z", "ZPOPMIN z 2", "ZPOPMAX z 0", "ZPOPMIN nk", "ZPOPMIN nk 2",
        "ZADD y 1 p 2 q", "ZMPOP 1 y MAX", "ZMPOP 1 nk MIN", "ZMPOP 1 y MIN COUNT 5",
        "ZADD w 1 a 2 b", "ZUNION 2 w z WITHSCORES", "ZINTER 2 w w", "ZSCAN w 0",
        "ZRANDMEMBER w 2 WITHSCORES", "ZRANDMEMBER nk", "ZRANDMEMBER nk 2",
        zr({"a": "1", "b": "2"}, "w", "-3", "WITHSCORES"), "ZINCRBY w nan a",
    ], title="RESP3")


# ---- encodings ---------------------------------------------------------------------------

def test_encoding_transitions(pair):
    _, _, d = pair()
    d.run([
        "CONFIG GET zset-max-listpack-entries", "CONFIG GET zset-max-ziplist-value",
        ("ZADD", "s", *PAIRS200[:256]), "OBJECT ENCODING s", ("ZADD", "s", "1", "new"),
        "OBJECT ENCODING s", ("ZREM", "s", *W200[:120]), "OBJECT ENCODING s",
        ("ZADD", "long", "1", LONG), "OBJECT ENCODING long", ("ZADD", "ok", "1", "x" * 64),
        "OBJECT ENCODING ok", ("ZADD", "ok", "2", LONG), "OBJECT ENCODING ok",
        "ZREM ok %s" % LONG, "OBJECT ENCODING ok",
        "CONFIG SET zset-max-ziplist-entries 3", "CONFIG GET zset-max-listpack-entries",
        "ZADD a 1 x 2 y 3 z", "OBJECT ENCODING a", "ZADD a 4 x", "OBJECT ENCODING a",
        "ZADD a 4 w", "OBJECT ENCODING a", "ZREM a w x", "OBJECT ENCODING a",
        "ZADD b 1 p 2 q 3 r 4 s", "OBJECT ENCODING b", "ZUNIONSTORE u 1 a", "OBJECT ENCODING u",
        "ZUNIONSTORE u2 2 a b", "OBJECT ENCODING u2", "ZRANGESTORE r b 0 1", "OBJECT ENCODING r",
        "ZRANGESTORE r2 b 0 -1", "OBJECT ENCODING r2", "ZRANGESTORE r3 b -inf inf BYSCORE LIMIT 0 3",
        "OBJECT ENCODING r3", "ZINTERSTORE i 2 b b", "OBJECT ENCODING i",
        "ZPOPMIN b 2", "OBJECT ENCODING b", "ZREMRANGEBYRANK b 0 0", "OBJECT ENCODING b",
        "CONFIG SET zset-max-listpack-value 2", "ZADD c 1 abc", "OBJECT ENCODING c",
        "ZADD c2 1 ab", "OBJECT ENCODING c2", "ZADD c2 2 ab", "OBJECT ENCODING c2",
        "ZINCRBY c2 1 abc", "OBJECT ENCODING c2", "CONFIG SET zset-max-listpack-entries 0",
        "ZADD e 1 a", "OBJECT ENCODING e", "ZRANGESTORE e2 c2 0 0", "OBJECT ENCODING e2",
        "CONFIG SET zset-max-listpack-entries 128", "CONFIG SET zset-max-listpack-value 64",
        "CONFIG SET zset-max-listpack-entries -1", "CONFIG SET zset-max-ziplist-value abc",
        Step("CONFIG", "GET", "zset-max-*", norm=config_pairs,
             why="Redis lists CONFIG GET matches in hash-table order"),
    ], title="encodings")


def test_encoding_after_reload(pair):
    t, r, d = pair(th.DEBUG_ARGS)
    d.run([
        ("ZADD", "big", *PAIRS200), "ZADD small 1 a", ("ZADD", "long", "1", LONG),
        ("ZADD", "shrunk", *PAIRS200[:300]), ("ZREM", "shrunk", *W200[:140]),
        "OBJECT ENCODING big", "OBJECT ENCODING shrunk", "DEBUG RELOAD",
        "OBJECT ENCODING big", "OBJECT ENCODING small", "OBJECT ENCODING long",
        "OBJECT ENCODING shrunk", "ZRANGE shrunk 0 -1 WITHSCORES",
    ], title="encodings after DEBUG RELOAD")


# ---- random sequences ----------------------------------------------------------------------

def random_steps(seed, n):
    rnd = random.Random(seed)
    keys = ["a", "b", "c"]
    pool = ["x", "y", "z", "", "m1", "m2", "m3", "07", "1.0"]
    scores = ["0", "1", "-1", "2.5", "inf", "-inf", "-0", "3", "1e3"]
    steps = []
    for _ in range(n):
        k = rnd.choice(keys)
        op = rnd.randrange(14)
        m = rnd.choice(pool)
        if op < 3:
            pairs = [x for _ in range(rnd.randint(1, 4)) for x in (rnd.choice(scores), rnd.choice(pool))]
            opts = rnd.choice([[], ["NX"], ["XX"], ["GT"], ["LT", "CH"], ["CH"]])
            steps.append(("ZADD", k, *opts, *pairs))
        elif op == 3:
            steps.append(("ZINCRBY", k, rnd.choice(scores), m))
        elif op == 4:
            steps.append(("ZREM", k, m, rnd.choice(pool)))
        elif op == 5:
            steps.append(("ZRANGE", k, "0", "-1", "WITHSCORES"))
        elif op == 6:
            lo, hi = sorted([rnd.choice(scores[:4]), rnd.choice(scores)], key=float)
            steps.append(("ZRANGEBYSCORE", k, rnd.choice(["", "("]) + lo, hi, "WITHSCORES"))
        elif op == 7:
            srcs = rnd.sample(keys, rnd.randint(1, 3))
            steps.append((rnd.choice(["ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"]), k,
                          str(len(srcs)), *srcs))
        elif op == 8:
            srcs = rnd.sample(keys, rnd.randint(1, 3))
            steps.append((rnd.choice(["ZUNION", "ZINTER", "ZDIFF"]), str(len(srcs)), *srcs,
                          "WITHSCORES"))
        elif op == 9:
            steps.append((rnd.choice(["ZPOPMIN", "ZPOPMAX"]), k, str(rnd.randint(0, 3))))
        elif op == 10:
            steps.append(("ZRANK", k, m))
        elif op == 11:
            steps.append(("ZREMRANGEBYRANK", k, str(rnd.randint(-3, 2)), str(rnd.randint(-2, 3))))
        elif op == 12:
            steps.append(("ZRANGESTORE", k, rnd.choice(keys), "0", str(rnd.randint(-1, 3))))
        else:
            steps += [("OBJECT", "ENCODING", k), ("ZCARD", k),
                      Step("ZSCAN", k, "0", "COUNT", "1000", norm=scan_sorted, why=WHY_SCAN)]
    return steps


@pytest.mark.parametrize("limit", ["2", "128"])
def test_random_sequences(pair, limit):
    _, _, d = pair()
    d.run([("CONFIG", "SET", "zset-max-listpack-entries", limit)] + random_steps(int(limit), 500),
          title="random sequence, zset-max-listpack-entries %s" % limit)


# ---- digests -------------------------------------------------------------------------------

def test_digest_value(pair):
    t, r, d = pair(th.DEBUG_ARGS)
    d.run([
        "ZADD z 1 a 2.5 b -0 c inf d -inf e 0.1 f 1e300 g", "DEBUG DIGEST-VALUE z", "COPY z c",
        "DEBUG DIGEST-VALUE z c nk", ("ZADD", "big", *PAIRS200), "DEBUG DIGEST-VALUE big",
        "ZADD i 1 1 2 2 3 3", "DEBUG DIGEST-VALUE i", "DEBUG DIGEST", "EXPIRE c 100",
        "DEBUG DIGEST-VALUE c", "DEBUG DIGEST", "ZREM c a", "DEBUG DIGEST-VALUE c",
    ], title="digests: terse's zset digest is Redis's")


# ---- corruption ----------------------------------------------------------------------------

CORRUPT_CMDS = [
    ("ZSCORE", "c", "1"), ("ZMSCORE", "c", "a"), ("ZCARD", "c"), ("ZRANK", "c", "a"),
    ("ZRANGE", "c", "0", "-1"), ("ZRANGEBYSCORE", "c", "-inf", "inf"),
    ("ZRANGEBYLEX", "c", "-", "+"), ("ZCOUNT", "c", "0", "1"), ("ZLEXCOUNT", "c", "-", "+"),
    ("ZRANDMEMBER", "c"), ("ZRANDMEMBER", "c", "-3", "WITHSCORES"), ("ZSCAN", "c", "0"),
    ("ZADD", "c", "1", "new"), ("ZINCRBY", "c", "1", "a"), ("ZREM", "c", "a"),
    ("ZPOPMIN", "c"), ("ZMPOP", "1", "c", "MAX"), ("ZREMRANGEBYRANK", "c", "0", "0"),
    ("ZRANGESTORE", "d", "c", "0", "-1"), ("ZUNION", "2", "ok", "c"),
    ("ZUNIONSTORE", "d", "2", "ok", "c"), ("ZINTERCARD", "2", "ok", "c"), ("ZDIFF", "2", "c", "ok"),
]


@pytest.mark.parametrize("pairs", [["1", "a", "2", "b"], PAIRS200], ids=["listpack", "skiplist"])
def test_corrupted_zset_is_reported_never_served(spawn, terse_binary, pairs):
    t = th.corruptible_terse(spawn, terse_binary)

    def setup(c):
        c.call("DEL", "c", "ok", "d")
        c.call("ZADD", "c", *pairs)
        c.call("ZADD", "ok", "1", "a", "9", "z")

    def check(c, cmd):
        assert decode_one(c.call("ZRANGE", "ok", "0", "-1")) == [b"a", b"z"], cmd
        assert c.call("EXISTS", "d") == b":0\r\n", cmd

    with t.raw() as c:
        th.assert_corrupt_reported(c, CORRUPT_CMDS, setup, check)


# ---- SAVE and restart ----------------------------------------------------------------------

ZSET_KEYS = [b"small", b"words", b"long", b"ttl", b"big", b"bin\x00key", b"stored", b"inf"]


def fill(c):
    c.zadd("small", {"a": 1, "b": 2})
    c.execute_command("ZADD", "words", *PAIRS200)
    c.zadd("long", {LONG: 1})
    c.zadd("ttl", {"x": 1})
    c.expire("ttl", 3600)
    c.zadd("big", {RAND10K: 1, "y": 2})
    c.zadd(b"bin\x00key", {b"\x00": 0, b"\r\n": -1})
    c.zunionstore("stored", ["small", "words"])
    c.execute_command("ZADD", "inf", "inf", "a", "-inf", "b", "-0", "c")


def view(s):
    c = s.client()
    out = {}
    for k in ZSET_KEYS:
        out[k] = (c.type(k), c.object("encoding", k),
                  c.execute_command("ZRANGE", k, "0", "-1", "WITHSCORES"))
    out["ttl"] = 0 < c.ttl("ttl") <= 3600
    out["dbsize"] = c.dbsize()
    c.close()
    return out


def test_zsets_survive_save_and_restart(terse_binary, oracle_binary, tmp_path):
    views = th.save_restart_views(terse_binary, oracle_binary, tmp_path,
                                  lambda s: fill(s.client()), view)
    for i, when in enumerate(("before SAVE", "after the restart")):
        want, got = views["redis"][i], views["terse"][i]
        assert got == want, "%s: %r" % (when, {k: (got[k], want[k]) for k in want
                                               if got.get(k) != want[k]})
