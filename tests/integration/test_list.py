"""Lists, compared with Debian's redis-server 7.0: the same command sequences go to terse and
to the oracle, each on a fresh connection with an empty keyspace, and the raw reply bytes must
be identical.

Covered: LPUSH, RPUSH, LPUSHX, RPUSHX, LPOP, RPOP (with and without a count), LLEN, LRANGE,
LINDEX, LSET, LINSERT, LREM, LTRIM, LPOS (RANK, COUNT, MAXLEN), LMOVE, RPOPLPUSH, LMPOP; every
argument error in Redis's order; wrong arity; WRONGTYPE both ways; TYPE and OBJECT ENCODING;
keyspace commands on list keys (expiry kept by writes, the key gone with its last element);
big, binary and empty elements under each terse-compression mode; RESP3 (null shapes); random
sequences of every command; COMMAND INFO/DOCS rows; DEBUG DIGEST-VALUE within each server;
SAVE and a restart; a warm LPUSH/RPOP loop that allocates nothing.

Lists are ordered and nothing in a list command is random, so every reply is compared byte for
byte except:
- MEMORY USAGE, OBJECT IDLETIME: per-process figures; checked to be integers.
- DEBUG DIGEST-VALUE: compared within each server here (test_digest.py compares the two).
"""

import random

import pytest

import alloc_harness as ah
import terse_harness as h
import types_harness as th
from terse_harness import Sleep, Step, decode_one, is_int

# ---- data ------------------------------------------------------------------------------------

_rnd = random.Random(20240602)
RAND10K = _rnd.randbytes(10 * 1024)
RAND100K = _rnd.randbytes(100 * 1024)
TEXT100K = b"".join(b"element %06d of a compressible list, repeated\n" % i
                    for i in range(2400))[:100 * 1024]

WHY_MEM = "memory figures are per process"
WHY_CLOCK = "a clock reading"

LIST_COMMANDS = ["lpush", "rpush", "lpushx", "rpushx", "lpop", "rpop", "llen", "lrange",
                 "lindex", "lset", "linsert", "lrem", "ltrim", "lpos", "lmove", "rpoplpush",
                 "lmpop"]


# ---- differential sequences on the session servers -------------------------------------------

CASES = {
    "push_and_range": [
        "RPUSH l a b c", "LPUSH l x y z", "LRANGE l 0 -1", "LLEN l", "RPUSH l d", "LPUSH l w",
        "LRANGE l 0 -1", "LRANGE l 1 3", "LRANGE l -3 -1", "LRANGE l -100 100", "LRANGE l 5 2",
        "LRANGE l 8 100", "LRANGE l 7 7", "LRANGE l -1 -100", "LRANGE l 0 0", "LRANGE l -1 -1",
        "LRANGE l 9223372036854775807 -9223372036854775808",
        "LRANGE l -9223372036854775808 9223372036854775807", "LRANGE nokey 0 -1",
        "LRANGE l a 1", "LRANGE l 0 b", "LRANGE nokey a b", "LRANGE l 1.5 2",
        "LRANGE l 9223372036854775808 1", "LRANGE l ' 1' 2", "LRANGE l +1 2", "LRANGE l 01 2",
        "LLEN nokey", "TYPE l", "OBJECT ENCODING l", "EXISTS l", "DBSIZE",
        "LPUSHX l p", "RPUSHX l q", "LPUSHX nokey p", "RPUSHX nokey q", "EXISTS nokey",
        "LPUSHX l a b c", "RPUSHX l a b c", "LRANGE l 0 -1", "lpush lower A", "LpUsH lower B",
        "lrange lower 0 -1", "RPUSH dup a a a", "LRANGE dup 0 -1", "LPUSH l", "RPUSH",
        "INFO keyspace",
    ],
    "pop": [
        "RPUSH l a b c d e f g", "LPOP l", "RPOP l", "LRANGE l 0 -1", "LPOP l 2", "RPOP l 2",
        "LRANGE l 0 -1", "LPOP l 0", "RPOP l 0", "LPOP l 1", "RPOP l 10", "EXISTS l",
        "LPOP l", "RPOP l", "LPOP l 2", "RPOP l 0", "LPOP nokey", "RPOP nokey",
        "LPOP nokey 0", "LPOP nokey 3", "RPOP nokey 3", "RPUSH l a b c", "LPOP l -1",
        "LPOP l abc", "LPOP l 1.5", "LPOP nokey -1", "LPOP nokey abc",
        "LPOP l 9223372036854775807", "RPUSH l a b c", "RPOP l 9223372036854775808",
        "RPOP l -9223372036854775808", "LPOP l 1 2", "RPOP l 1 2 3", "LPOP", "RPOP",
        "RPOP l 9223372036854775807", "EXISTS l", "RPUSH one x", "RPOP one 1", "EXISTS one",
        "RPUSH one x", "LPOP one", "EXISTS one", "DBSIZE",
    ],
    "lindex_lset": [
        "RPUSH l a b c", "LINDEX l 0", "LINDEX l 2", "LINDEX l 3", "LINDEX l -1", "LINDEX l -3",
        "LINDEX l -4", "LINDEX l 9223372036854775807", "LINDEX l -9223372036854775808",
        "LINDEX l abc", "LINDEX l 1.0", "LINDEX nokey 0", "LINDEX nokey abc",
        "LINDEX l 9223372036854775808",
        "LSET l 0 A", "LSET l -1 C", "LSET l 1 ''", "LRANGE l 0 -1", "LSET l 3 x",
        "LSET l -4 x", "LSET l abc x", "LSET nokey 0 x", "LSET nokey abc x",
        "LSET l 9223372036854775807 x", "LSET l -9223372036854775808 x", "LRANGE l 0 -1",
        ("LSET", "l", "1", "x" * 5000), "LINDEX l 1", "LSET l 1 short", "LRANGE l 0 -1",
        "SET s v", "LSET s 0 x", "LINDEX s 0", "LSET s abc x", "LINDEX s abc",
    ],
    "linsert": [
        "RPUSH l a b c b", "LINSERT l BEFORE b X", "LINSERT l AFTER b Y", "LRANGE l 0 -1",
        "LINSERT l before a first", "LINSERT l after c last", "LINSERT l AFTER b Z",
        "LRANGE l 0 -1", "LINSERT l BEFORE nope x", "LINSERT nokey BEFORE a x", "EXISTS nokey",
        "LINSERT l MIDDLE a x", "LINSERT nokey MIDDLE a x", "LINSERT l BEFORE '' x",
        "RPUSH e ''", "LINSERT e AFTER '' x", "LRANGE e 0 -1", "LLEN l", "SET s v",
        "LINSERT s BEFORE a x", "LINSERT s MIDDLE a x", "LINSERT l after last after-last",
        "LRANGE l -2 -1",
    ],
    "lrem": [
        "RPUSH l a b a c a b a", "LREM l 2 a", "LRANGE l 0 -1", "LREM l -1 a", "LRANGE l 0 -1",
        "LREM l 0 b", "LRANGE l 0 -1", "LREM l 0 nope", "LREM l 1 nope", "LREM nokey 1 a",
        "LREM l abc a", "LREM nokey abc a", "LREM l 1.5 a", "RPUSH m x y x y x y x",
        "LREM m -2 x", "LRANGE m 0 -1", "LREM m -100 y", "LRANGE m 0 -1", "LREM m 100 x",
        "EXISTS m", "RPUSH m x x x", "LREM m -9223372036854775808 x", "EXISTS m",
        "RPUSH m x y x", "LREM m 9223372036854775807 x", "LRANGE m 0 -1",
        "LREM m 9223372036854775808 y", "RPUSH e '' a ''", "LREM e 0 ''", "LRANGE e 0 -1",
        "LREM l 0 c", "LREM l 0 a", "EXISTS l", "SET s v", "LREM s 0 a", "LREM s abc a",
    ],
    "ltrim": [
        "RPUSH l a b c d e f", "LTRIM l 1 -2", "LRANGE l 0 -1", "LTRIM l 0 100", "LRANGE l 0 -1",
        "LTRIM l -2 -1", "LRANGE l 0 -1", "LTRIM l 0 0", "LRANGE l 0 -1", "LTRIM l 1 0",
        "EXISTS l", "LTRIM nokey 0 1", "EXISTS nokey", "RPUSH l a b c", "LTRIM l 5 10",
        "EXISTS l", "RPUSH l a b c", "LTRIM l -100 100", "LRANGE l 0 -1", "LTRIM l 2 1",
        "EXISTS l", "RPUSH l a b c", "LTRIM l abc 1", "LTRIM l 0 abc", "LTRIM nokey abc 1",
        "LTRIM l -9223372036854775808 9223372036854775807", "LRANGE l 0 -1",
        "LTRIM l 9223372036854775807 -9223372036854775808", "EXISTS l", "SET s v",
        "LTRIM s 0 1", "LTRIM s a 1",
    ],
    "lpos": [
        "RPUSH l a b c 1 2 3 c c", "LPOS l c", "LPOS l c RANK 2", "LPOS l c RANK -1",
        "LPOS l c RANK -2", "LPOS l c RANK 4", "LPOS l c RANK -4", "LPOS l c COUNT 0",
        "LPOS l c COUNT 2", "LPOS l c COUNT 2 RANK 2", "LPOS l c COUNT 0 RANK -1",
        "LPOS l c COUNT 1 RANK -2", "LPOS l c MAXLEN 1", "LPOS l c MAXLEN 3", "LPOS l a MAXLEN 1",
        "LPOS l c RANK -1 MAXLEN 1", "LPOS l c RANK -1 MAXLEN 2 COUNT 0",
        "LPOS l c RANK -3 MAXLEN 6", "LPOS l c RANK -3 MAXLEN 5", "LPOS l c COUNT 0 MAXLEN 3",
        "LPOS l x", "LPOS l x COUNT 0", "LPOS l x COUNT 5", "LPOS nokey a", "LPOS nokey a COUNT 0",
        "LPOS nokey a COUNT 3 RANK -1", "LPOS l c RANK 0", "LPOS l c RANK abc",
        "LPOS l c COUNT -1", "LPOS l c COUNT abc", "LPOS l c MAXLEN -1", "LPOS l c MAXLEN abc",
        "LPOS l c RANK", "LPOS l c COUNT", "LPOS l c FOO 1", "LPOS l c rank 1 count",
        "LPOS nokey c RANK 0", "LPOS nokey c FOO", "LPOS l c RANK 0 COUNT -1",
        "LPOS l c COUNT -1 RANK 0", "LPOS l c RANK 1 RANK -1", "LPOS l c COUNT 1 COUNT 0",
        "LPOS l c RANK -9223372036854775808", "LPOS l c RANK -9223372036854775808 COUNT 2",
        "LPOS l c RANK -9223372036854775808 COUNT 0",
        "LPOS l c RANK 9223372036854775807", "LPOS l c RANK 9223372036854775807 COUNT 0",
        "LPOS l c RANK -9223372036854775807", "LPOS l c COUNT 9223372036854775807",
        "LPOS l c MAXLEN 9223372036854775807", "LPOS l c RANK 9223372036854775808",
        "LPOS l 1", "LPOS l 3 RANK -1", "RPUSH e ''", "LPOS e ''", "LPOS e '' COUNT 0",
        "SET s v", "LPOS s a", "LPOS s a RANK 0", "LPOS s a COUNT 0",
    ],
    "lmove": [
        "RPUSH src a b c", "RPUSH dst x y", "LMOVE src dst LEFT RIGHT", "LMOVE src dst RIGHT LEFT",
        "LRANGE src 0 -1", "LRANGE dst 0 -1", "LMOVE src dst left left", "EXISTS src",
        "LRANGE dst 0 -1", "LMOVE src dst LEFT LEFT", "LMOVE dst new RIGHT RIGHT",
        "LRANGE new 0 -1", "LRANGE dst 0 -1", "LMOVE dst dst LEFT RIGHT", "LRANGE dst 0 -1",
        "LMOVE dst dst RIGHT LEFT", "LRANGE dst 0 -1", "LMOVE dst dst LEFT LEFT",
        "LMOVE dst dst RIGHT RIGHT", "LRANGE dst 0 -1", "RPUSH one z", "LMOVE one one LEFT RIGHT",
        "LRANGE one 0 -1", "LMOVE one one RIGHT LEFT", "LLEN one", "LMOVE one other LEFT LEFT",
        "EXISTS one", "LRANGE other 0 -1",
        "LMOVE src dst UP LEFT", "LMOVE src dst LEFT DOWN", "LMOVE nokey dst UP DOWN",
        "LMOVE nokey dst LEFT RIGHT", "SET s v", "LMOVE s dst LEFT RIGHT",
        "LMOVE dst s LEFT RIGHT", "LRANGE dst 0 -1", "LMOVE nokey s LEFT RIGHT",
        "LMOVE s s LEFT RIGHT", "GET s",
        "RPOPLPUSH dst dst", "LRANGE dst 0 -1", "RPOPLPUSH dst fresh", "LRANGE fresh 0 -1",
        "RPOPLPUSH nokey fresh", "RPOPLPUSH dst s", "RPOPLPUSH s dst", "RPOPLPUSH nokey s",
        "LRANGE dst 0 -1", "RPUSH q ''", "RPOPLPUSH q q", "RPOPLPUSH q r", "LRANGE r 0 -1",
        "EXISTS q",
    ],
    "lmpop": [
        "RPUSH a 1 2 3", "RPUSH b 4 5 6 7", "LMPOP 2 a b LEFT", "LMPOP 2 a b RIGHT COUNT 2",
        "LMPOP 2 nokey b RIGHT", "LMPOP 2 nokey b left COUNT 10", "EXISTS b",
        "LMPOP 2 nokey b LEFT", "LMPOP 1 nokey LEFT", "LMPOP 1 a LEFT COUNT 100", "EXISTS a",
        "RPUSH a 1 2", "LMPOP 0 a LEFT", "LMPOP -1 a LEFT", "LMPOP abc a LEFT",
        "LMPOP 3 a LEFT", "LMPOP 2 a LEFT", "LMPOP 1 a MIDDLE", "LMPOP 1 a LEFT COUNT",
        "LMPOP 1 a LEFT COUNT 0", "LMPOP 1 a LEFT COUNT -1", "LMPOP 1 a LEFT COUNT abc",
        "LMPOP 1 a LEFT COUNT 1 COUNT 1", "LMPOP 1 a LEFT FOO", "LMPOP 1 a LEFT COUNT 1 FOO",
        "LMPOP 9223372036854775807 a LEFT", "LMPOP 9223372036854775808 a LEFT",
        "LMPOP 1 a LEFT COUNT 9223372036854775807", "SET s v", "LMPOP 2 s a LEFT",
        "RPUSH a x y", "LMPOP 2 a s LEFT", "LMPOP 2 nokey s LEFT", "LMPOP 1 nokey RIGHT COUNT 2",
        "LMPOP 1 a right count 1", "LMPOP", "LMPOP 1", "LMPOP 1 a",
    ],
    "expiry_and_delete": [
        "RPUSH l a b c", "EXPIRE l 100", "TTL l", "RPUSH l d", "TTL l", "LPOP l", "TTL l",
        "LSET l 0 x", "TTL l", "LINSERT l BEFORE x y", "TTL l", "LREM l 1 y", "TTL l",
        "LTRIM l 0 0", "TTL l", "RPUSH m q", "LMOVE m l LEFT LEFT", "TTL l", "TTL m",
        "LMOVE l l LEFT RIGHT", "TTL l", "LMPOP 1 l LEFT", "TTL l", "LPOP l 10", "EXISTS l",
        "TTL l", "RPUSH l new", "TTL l", "RPUSH x v", "PEXPIRE x 100", Sleep(0.25), "LLEN x",
        "LRANGE x 0 -1", "LPUSHX x y", "EXISTS x", "RPUSH y v", "PEXPIRE y 100", Sleep(0.25),
        "RPUSH y w", "LRANGE y 0 -1", "TTL y", "DBSIZE",
    ],
    "empty_and_binary": [
        ("RPUSH", "b", b"\x00", b"", b"\r\n", b"$3\r\nfoo\r\n", b"*1\r\n", b"\xff\xfe",
         b"-ERR x\r\n", b"\x00\x00"),
        "LRANGE b 0 -1", ("LPOS", "b", b"\x00\x00"), ("LPOS", "b", b"\x00"), ("LPOS", "b", b""),
        ("LREM", "b", "0", b"\x00"), "LRANGE b 0 -1", ("LINSERT", "b", "AFTER", b"\r\n", b"\x00"),
        "LRANGE b 0 -1", ("LSET", "b", "0", b"\x01\x02"), "LINDEX b 0",
        ("RPUSH", b"k\x00ey", "v"), ("LRANGE", b"k\x00ey", "0", "-1"), ("TYPE", b"k\x00ey"),
        ("RPUSH", "", ""), ("LRANGE", "", "0", "-1"), ("LLEN", ""), ("LPOP", ""), ("EXISTS", ""),
        ("RPUSH", "u", "ключ", "🔑", "✓"), "LRANGE u 0 -1", ("LPOS", "u", "🔑"),
        ("LMOVE", b"k\x00ey", "", "LEFT", "RIGHT"), ("LRANGE", "", "0", "-1"),
    ],
    "big_values": [
        ("RPUSH", "big", RAND10K, TEXT100K, RAND100K, "small"), "LLEN big", "LINDEX big 0",
        "LINDEX big 1", "LINDEX big 2", "LRANGE big 0 -1", "LRANGE big -1 -1",
        ("LPOS", "big", TEXT100K), ("LPOS", "big", RAND100K, "RANK", "-1"),
        ("LSET", "big", "3", TEXT100K[::-1]), "LINDEX big 3", "LPOP big", "RPOP big 2",
        "LRANGE big 0 -1", ("LPUSH", "big", TEXT100K[:5000], TEXT100K[5000:20000]),
        "LMOVE big other RIGHT LEFT", "LRANGE other 0 -1", "LMOVE big big LEFT RIGHT",
        "LRANGE big 0 -1", ("LINSERT", "big", "BEFORE", TEXT100K[5000:20000], RAND10K),
        "LRANGE big 0 -1", ("LREM", "big", "0", RAND10K), "LRANGE big 0 -1",
        "COPY big bigc", "LRANGE bigc 0 -1", "RENAME other other2", "LRANGE other2 0 -1",
        Step(raw=h.encode("LRANGE", "big", "0", "-1") * 8, n=8), "LTRIM big 0 0",
        "LRANGE big 0 -1", "OBJECT ENCODING big",
    ],
    "many_elements": [
        ("RPUSH", "m", *[b"e%d" % i for i in range(3000)]), "LLEN m", "LRANGE m 0 9",
        "LRANGE m 1500 1510", "LRANGE m -10 -1", "LINDEX m 2999", "LINDEX m -3000",
        "LINDEX m 1234", "LPOS m e2999", "LPOS m e0 RANK -1", "LPOS m e7 MAXLEN 5",
        "LSET m 1500 middle", "LINDEX m 1500", "LINSERT m AFTER middle after", "LLEN m",
        "LREM m 0 e10", "LTRIM m 100 -100", "LLEN m", "LRANGE m 0 2", "LRANGE m -3 -1",
        "LPOP m 5", "RPOP m 5", "LMPOP 1 m RIGHT COUNT 3", "LLEN m", "LRANGE m 0 -1",
        Step(raw=b"".join(h.encode("RPUSH", "n", b"v%d" % i) for i in range(300)), n=300),
        Step(raw=b"".join(h.encode("LPOP", "n") for i in range(150)), n=150),
        Step(raw=b"".join(h.encode("RPOPLPUSH", "n", "n2") for i in range(160)), n=160),
        "LRANGE n2 0 -1", "EXISTS n",
    ],
    "wrongtype": [
        "RPUSH l a", "GET l", "APPEND l x", "INCR l", "STRLEN l", "SETRANGE l 0 x",
        "HSET l f v", "HGET l f", "HGETALL l", "SET l2 v", "GETSET l x", "MGET l", "TYPE l",
        "SET s v", "LPUSH s a", "RPUSH s a", "LPUSHX s a", "RPUSHX s a", "LPOP s", "RPOP s",
        "LPOP s 2", "LLEN s", "LRANGE s 0 1", "LINDEX s 0", "LSET s 0 a",
        "LINSERT s BEFORE a b", "LREM s 0 a", "LTRIM s 0 1", "LPOS s a", "LMOVE s l LEFT LEFT",
        "RPOPLPUSH s l", "LMPOP 1 s LEFT", "GET s", "HSET h f v", "LPUSH h a", "LRANGE h 0 -1",
        "LMOVE l h LEFT LEFT", "LRANGE l 0 -1", "SET l over", "TYPE l", "GET l",
        "RPUSH l2 a", "MSET l2 x", "TYPE l2", "RPUSH n 1", "INCR n", "LRANGE n 0 -1",
    ],
    "keyspace": [
        "RPUSH l a b c", "RANDOMKEY", "EXISTS l", "TYPE l", "EXPIRE l 100", "RENAME l l2",
        "LRANGE l2 0 -1", "TTL l2", "COPY l2 c", "LRANGE c 0 -1", "TTL c", "RPUSH c d",
        "LRANGE l2 0 -1", "LRANGE c 0 -1", "COPY l2 c", "COPY l2 c REPLACE", "LRANGE c 0 -1",
        "SET str v", "COPY l2 str REPLACE", "TYPE str", "LRANGE str 0 -1", "COPY l2 d DB 1",
        "SELECT 1", "LRANGE d 0 -1", "TYPE d", "SELECT 0", "MOVE c 2", "SELECT 2",
        "LRANGE c 0 -1", "OBJECT ENCODING c", "SELECT 0", "OBJECT ENCODING l2",
        "OBJECT REFCOUNT l2", "OBJECT FREQ l2",
        Step("OBJECT", "IDLETIME", "l2", norm=is_int, why=WHY_CLOCK),
        Step("MEMORY", "USAGE", "l2", norm=is_int, why=WHY_MEM),
        "PERSIST l2", "TTL l2", "DEL l2 str", "DBSIZE", "RPUSH l x", "RENAMENX l l",
        "SWAPDB 0 1", "LRANGE d 0 -1", "SWAPDB 0 1", "UNLINK l", "EXISTS l",
    ],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_sequence(diff, name):
    diff.run(CASES[name], title=name)


@pytest.mark.parametrize("mode", ["off", "inline"])
def test_big_values_each_compression_mode(pair, mode):
    """The large-value sequences again with terse storing values uncompressed / compressing
    them inline (the session's terse uses the default)."""
    _, _, d = pair(terse_only=["--terse-compression", mode])
    for name in ("big_values", "many_elements", "empty_and_binary"):
        d.run(CASES[name], title="%s, terse-compression %s" % (name, mode))


# ---- random sequences ------------------------------------------------------------------------

POOL = [b"a", b"b", b"c", b"", b"\x00", b"x" * 200, b"12", b"-1"]
KEYS = [b"k1", b"k2", b"k3"]


def random_step(rnd):
    k = rnd.choice(KEYS)
    el = lambda: rnd.choice(POOL)  # noqa: E731
    idx = lambda: str(rnd.randint(-8, 8))  # noqa: E731
    side = lambda: rnd.choice(["LEFT", "RIGHT"])  # noqa: E731
    op = rnd.randrange(17)
    if op == 0:
        return ("LPUSH", k, *[el() for _ in range(rnd.randint(1, 4))])
    if op == 1:
        return ("RPUSH", k, *[el() for _ in range(rnd.randint(1, 4))])
    if op == 2:
        return (rnd.choice(["LPUSHX", "RPUSHX"]), k, el())
    if op == 3:
        return (rnd.choice(["LPOP", "RPOP"]), k)
    if op == 4:
        return (rnd.choice(["LPOP", "RPOP"]), k, str(rnd.randint(0, 5)))
    if op == 5:
        return ("LRANGE", k, idx(), idx())
    if op == 6:
        return ("LINDEX", k, idx())
    if op == 7:
        return ("LSET", k, idx(), el())
    if op == 8:
        return ("LINSERT", k, rnd.choice(["BEFORE", "AFTER"]), el(), el())
    if op == 9:
        return ("LREM", k, str(rnd.randint(-3, 3)), el())
    if op == 10:
        return ("LTRIM", k, idx(), idx())
    if op == 11:
        args = ["LPOS", k, el()]
        if rnd.random() < 0.5:
            args += ["RANK", str(rnd.choice([-3, -2, -1, 1, 2, 3]))]
        if rnd.random() < 0.5:
            args += ["COUNT", str(rnd.randint(0, 3))]
        if rnd.random() < 0.3:
            args += ["MAXLEN", str(rnd.randint(0, 6))]
        return tuple(args)
    if op == 12:
        return ("LMOVE", k, rnd.choice(KEYS), side(), side())
    if op == 13:
        return ("RPOPLPUSH", k, rnd.choice(KEYS))
    if op == 14:
        keys = rnd.sample(KEYS, rnd.randint(1, 3))
        args = ["LMPOP", str(len(keys)), *keys, side()]
        if rnd.random() < 0.5:
            args += ["COUNT", str(rnd.randint(1, 4))]
        return tuple(args)
    if op == 15:
        return ("LLEN", k)
    return ("LRANGE", k, "0", "-1")


@pytest.mark.parametrize("seed", range(6))
def test_random_sequences(diff, seed):
    rnd = random.Random(seed)
    steps = []
    for _ in range(400):
        steps.append(random_step(rnd))
        if rnd.random() < 0.1:
            steps += [("LRANGE", k, "0", "-1") for k in KEYS]
    steps += [("LRANGE", k, "0", "-1") for k in KEYS] + ["DBSIZE"]
    diff.run(steps, title="random sequence %d" % seed)


# ---- wrong arity, command table --------------------------------------------------------------

LIST_ARITY = [
    ("lpush", -3), ("rpush", -3), ("lpushx", -3), ("rpushx", -3), ("lpop", -2), ("rpop", -2),
    ("llen", 2), ("lrange", 4), ("lindex", 3), ("lset", 4), ("linsert", 5), ("lrem", 4),
    ("ltrim", 4), ("lpos", -3), ("lmove", 5), ("rpoplpush", 3), ("lmpop", -4),
]


def test_wrong_arity(diff):
    steps = th.arity_steps(LIST_ARITY, "l", "1")
    diff.run(steps + ["RPUSH l a b"] + steps + ["DEL l", "SET l s"] + steps + ["GET l"],
             title="wrong arity")


WHY_SPECS = "key specs come from cmd_meta.c, compared in test_command_docs_after_meta"


def info_rows(raw):
    """COMMAND INFO without each row's key specs (element 9): the cmd_def row's part."""
    v = decode_one(raw)
    if not isinstance(v, list):
        return v
    return [row[:8] + row[9:] if isinstance(row, list) else row for row in v]


def test_command_info(diff):
    diff.run([Step("COMMAND", "INFO", *LIST_COMMANDS, norm=info_rows, why=WHY_SPECS)] + [
        Step("COMMAND", "INFO", n, norm=info_rows, why=WHY_SPECS) for n in LIST_COMMANDS] + [
        "COMMAND GETKEYS lpush l a", "COMMAND GETKEYS lmove a b LEFT RIGHT",
        "COMMAND GETKEYS rpoplpush a b", "COMMAND GETKEYS lrange l 0 1",
    ], title="COMMAND INFO on list commands")


def test_command_docs(diff):
    """COMMAND DOCS and key specs come from cmd_meta.c (tools/gen_cmd_meta.py)."""
    diff.run([("COMMAND", "DOCS", n) for n in LIST_COMMANDS] + [
        ("COMMAND", "INFO", *LIST_COMMANDS)] + [
        "COMMAND GETKEYS lmpop 2 a b LEFT", "COMMAND GETKEYS lmpop 1 a RIGHT COUNT 2",
    ], title="COMMAND DOCS on list commands")


# ---- RESP3 -----------------------------------------------------------------------------------

def test_resp3(diff):
    diff.run([
        Step("HELLO", "3", norm=h.hello3_norm, why="id, version and server are per process"),
        "RPUSH l a b c d", "LRANGE l 0 -1", "LRANGE nokey 0 -1", "LPOP nokey", "RPOP nokey",
        "LPOP nokey 2", "RPOP nokey 0", "LPOP l 0", "LPOP l 2", "RPOP l", "LINDEX l 5",
        "LINDEX nokey 0", "LPOS l x", "LPOS l x COUNT 0", "LPOS nokey x", "LPOS nokey x COUNT 1",
        "LPOS l c", "LMOVE nokey l LEFT LEFT", "RPOPLPUSH nokey l", "LMPOP 1 nokey LEFT",
        "LMPOP 2 nokey l RIGHT COUNT 5", "LMPOP 1 l LEFT", "LLEN l", "SET s v", "LRANGE s 0 1",
        "LSET nokey 0 x", "LINSERT nokey BEFORE a b", "LREM nokey 0 a", "LTRIM nokey 0 1",
    ], title="RESP3")


# ---- DEBUG DIGEST-VALUE ----------------------------------------------------------------------

def test_digest_value_within_each_server(pair):
    for server, c, dv in th.digest_clients(pair):
        c.rpush("l", "a", "b", "", TEXT100K, RAND10K)
        assert c.copy("l", "lc") is True
        d_l, d_lc = dv("l", "lc")
        assert len(d_l) == 40 and d_l != b"0" * 40, (server.name, d_l)
        assert d_l == d_lc, "%s: a list and its COPY digest differently" % server.name
        c.lset("lc", 0, "z")
        assert dv("lc")[0] != d_l, "%s: changing an element left the digest" % server.name
        c.lset("lc", 0, "a")
        assert dv("lc")[0] == d_l, "%s: restoring it did not restore the digest" % server.name
        c.rpush("o", "b", "a", "", TEXT100K, RAND10K)
        assert dv("o")[0] != d_l, "%s: element order left the digest" % server.name
        c.lmove("lc", "lc", "LEFT", "RIGHT")
        assert dv("lc")[0] != d_l, "%s: a rotation left the digest" % server.name
        before = c.execute_command("DEBUG", "DIGEST")
        c.rpush("l", "more")
        assert c.execute_command("DEBUG", "DIGEST") != before, server.name
        assert dv("nokey") == [b"0" * 40], server.name


# ---- corruption ------------------------------------------------------------------------------

# Every list command on the corrupted key c; "ok" is a sound list that must keep its elements.
CORRUPT_CMDS = [
    ("LPUSH", "c", "x"), ("RPUSH", "c", "x"), ("LPUSHX", "c", "x"), ("RPUSHX", "c", "x"),
    ("LPOP", "c"), ("RPOP", "c"), ("LPOP", "c", "2"), ("RPOP", "c", "2"), ("LLEN", "c"),
    ("LRANGE", "c", "0", "-1"), ("LRANGE", "c", "-1", "-1"), ("LINDEX", "c", "-1"),
    ("LSET", "c", "-1", "x"), ("LINSERT", "c", "BEFORE", "zz", "x"), ("LREM", "c", "0", "x"),
    ("LREM", "c", "-1", "x"), ("LTRIM", "c", "1", "-1"), ("LPOS", "c", "zz"),
    ("LPOS", "c", "zz", "RANK", "-1", "COUNT", "0"), ("LMOVE", "c", "ok", "LEFT", "RIGHT"),
    ("LMOVE", "ok", "c", "LEFT", "RIGHT"), ("LMOVE", "c", "c", "LEFT", "RIGHT"),
    ("RPOPLPUSH", "c", "ok"), ("RPOPLPUSH", "ok", "c"), ("LMPOP", "2", "c", "ok", "LEFT"),
]


@pytest.mark.parametrize("elements", [["a", "b", "c"], [b"e%d" % i for i in range(400)]],
                         ids=["short", "long"])
def test_corrupted_list_is_reported_never_served(spawn, terse_binary, elements):
    """DEBUG CORRUPT-VALUE flips a byte of the stored list: every list command on it answers
    the CORRUPT error and changes nothing (the other key of LMOVE keeps its elements)."""
    t = th.corruptible_terse(spawn, terse_binary)

    def setup(c):
        c.call("DEL", "c", "ok")
        c.call("RPUSH", "c", *elements)
        c.call("RPUSH", "ok", "1", "9")

    def check(c, cmd):
        assert decode_one(c.call("LRANGE", "ok", "0", "-1")) == [b"1", b"9"], cmd

    with t.raw() as c:
        th.assert_corrupt_reported(c, CORRUPT_CMDS, setup, check)


# ---- SAVE and restart ------------------------------------------------------------------------

LIST_KEYS = [b"small", b"bin\x00key", b"compressible", b"random", b"many", b"ttl", b"shrunk"]


def fill_lists(c):
    c.rpush("small", "z", "a", "", "-12", "a")
    c.rpush(b"bin\x00key", b"\x00", b"\r\n", b"\xff")
    c.rpush("compressible", TEXT100K, TEXT100K[:9000])
    c.rpush("random", RAND100K)
    c.rpush("many", *[b"e%d" % i for i in range(3000)])
    c.rpush("ttl", "v")
    c.expire("ttl", 3600)
    c.rpush("shrunk", "keep", "y" * 200, "z")
    c.lrem("shrunk", 1, "y" * 200)


def snapshot_view(s):
    c = s.client()
    view = {k: (c.type(k), c.lrange(k, 0, -1), c.llen(k)) for k in LIST_KEYS}
    view["ttl"] = 0 < c.ttl("ttl") <= 3600
    view["dbsize"] = c.dbsize()
    view["enc"] = {k: c.object("encoding", k) for k in LIST_KEYS}
    c.close()
    c5 = s.client(db=5)
    view["db5"] = (c5.type("db5"), c5.lrange("db5", 0, -1))
    c5.close()
    return view


def test_lists_survive_save_and_restart(terse_binary, oracle_binary, tmp_path):
    views = {}
    for kind, binary in (("redis", oracle_binary), ("terse", terse_binary)):
        pdir = str(tmp_path / kind)
        with th.debug_server(binary, pdir, kind + "-a") as (s, c):
            fill_lists(c)
            c5 = s.client(db=5)
            c5.rpush("db5", "x", "y")
            c5.close()
            before = snapshot_view(s)
            digest_before = c.execute_command("DEBUG", "DIGEST")
            assert c.save() is True
        with th.debug_server(binary, pdir, kind + "-b") as (s, c):
            after = snapshot_view(s)
            assert after == before, "%s: lists differ after SAVE and a restart: %r" % (
                kind, [k for k in before if before[k] != after.get(k)])
            assert c.execute_command("DEBUG", "DIGEST") == digest_before, kind
            assert c.execute_command("DEBUG", "RELOAD") == b"OK"
            assert snapshot_view(s) == before, "%s: lists differ after DEBUG RELOAD" % kind
            # still writable after the load
            assert c.rpush("many", "last") == 3001
            assert c.lpop("small") == b"z"
            views[kind] = after
    assert views["terse"] == views["redis"], [k for k in views["redis"]
                                              if views["redis"][k] != views["terse"].get(k)]


# ---- no allocation on a warm loop ------------------------------------------------------------

def test_warm_list_loop_allocates_nothing(terse):
    """A warm pipelined loop of LPUSH then RPOP (the list goes back to its size each round),
    LRANGE, LINDEX, LLEN, LSET of the same size and LMOVE between two lists, over lists held
    as one value, small (stored raw) and large (LZ4, 2 KiB of elements): the form is decoded
    into scratch, rebuilt in scratch2, encoded back into the entry's block. After the warm-up,
    nothing is allocated or freed. (A list of more than a chunk, 8 KiB, is chunked: its
    allocations are per chunk, test_list_chunked.py.)"""
    text = b"queued job payload, compressible; " * 6
    lists = [(b"q:%d" % k, [text[: 10 + (j * 37) % 200] for j in range(n)])
             for k, n in enumerate([3, 20])]
    out = []
    for key, els in lists:
        out.append(h.encode("LPUSH", key, b"job-new"))
        out.append(h.encode("RPOP", key))
        out.append(h.encode("LRANGE", key, 0, 4))
        out.append(h.encode("LINDEX", key, -1))
        out.append(h.encode("LLEN", key))
        out.append(h.encode("LSET", key, 0, els[0]))
        out.append(h.encode("LMOVE", key, key + b":b", "RIGHT", "LEFT"))
        out.append(h.encode("LMOVE", key + b":b", key, "LEFT", "RIGHT"))
    batch = b"".join(out)
    n_replies = 8 * len(lists)
    lengths = {8 * k + 4: b":%d\r\n" % len(els) for k, (key, els) in enumerate(lists)}
    with h.RawConn(terse.port) as c:
        for key, els in lists:
            assert c.call("RPUSH", key, *els) == b":%d\r\n" % len(els)
        ah.send_rounds(c, batch, n_replies, 5, lengths)
        ah.assert_rounds_allocate_nothing(c, "warm list loop", batch, n_replies,
                                         {-4: b":20\r\n"})


def test_rpop_reply_order_large(terse, oracle):
    """RPOP with a count answers the last element first: checked on a long list where terse
    notes offsets in scratch3."""
    els = [b"v%d" % i for i in range(5000)]
    got = {}
    for server in (terse, oracle):
        with server.raw() as c:
            c.call("RPUSH", "big", *els)
            got[server.name] = (c.call("RPOP", "big", "4000"), c.call("LRANGE", "big", 0, -1))
            c.call("DEL", "big")
    assert got[terse.name] == got[oracle.name]
    assert decode_one(got[terse.name][0]) == els[::-1][:4000]
