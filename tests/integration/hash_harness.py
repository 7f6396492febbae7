"""Data and comparison helpers of the hash suites (test_hash.py, test_hash_random.py,
test_hash_state.py): the values and field lists they store, and the norms for replies that are
not compared byte for byte (a hashtable's order, HRANDFIELD's picks). Helpers shared with the
other container types are in types_harness.
"""

import random

import terse_harness as h
import types_harness as th
from terse_harness import Step, decode_one

# ---- data ------------------------------------------------------------------------------------

_rnd = random.Random(20240601)
RAND10K = _rnd.randbytes(10 * 1024)
RAND100K = _rnd.randbytes(100 * 1024)
RAND1M = _rnd.randbytes(1 << 20)
TEXT100K = b"".join(b"field %06d of a compressible hash value, repeated\n" % i
                    for i in range(2200))[:100 * 1024]
# Redis 7.0's defaults: hash-max-listpack-entries 512 (128 is zset-max-listpack-entries),
# hash-max-listpack-value 64. test_encoding_transitions reads them from both servers.
LP_ENTRIES = 512
LP_VALUE = 64


def field_pairs(n, prefix=b"field:"):
    return [(prefix + b"%d" % i, b"value:%d" % (i * 7)) for i in range(n)]


def flat(pairs):
    return [x for p in pairs for x in p]


F300 = field_pairs(300)    # a listpack in Redis: HGETALL order is compared
F1000 = field_pairs(1000)  # a hashtable in Redis: HGETALL compared as a dict


def hset_each(key, pairs):
    """One pipelined HSET per field, as one step whose replies are compared together."""
    return Step(raw=b"".join(h.encode("HSET", key, f, v) for f, v in pairs), n=len(pairs))



# ---- comparison helpers ----------------------------------------------------------------------

WHY_HT = "Redis holds this hash as a hashtable: its order is bucket order"
WHY_RAND = "HRANDFIELD is random"
WHY_MEM = "memory figures are per process"
WHY_CLOCK = "a clock reading"


def as_pairs(raw):
    """HGETALL as (reply type, length, dict): the order left out, repeats still counted."""
    v = decode_one(raw)
    if v is None or isinstance(v, h.Err):
        return v
    if isinstance(v, h.RMap):
        return ("map", len(v), dict(v))
    if isinstance(v, list) and len(v) % 2 == 0:
        return ("array", len(v), dict(zip(v[::2], v[1::2])))
    return ("BAD", raw)


def as_sorted(raw):
    v = decode_one(raw)
    if isinstance(v, list):
        return (type(v).__name__, sorted(v))
    return v


def hrand(contents, count=None, withvalues=False):
    """A norm for HRANDFIELD on a hash holding `contents` (field -> value): the reply's shape
    and length, with every field and value checked against the hash."""
    contents = {h._b(k): h._b(v) for k, v in contents.items()}

    def aggregate(v, raw):
        if not isinstance(v, list) or isinstance(v, h.RSet):
            return ("not an array", raw)
        if not v:
            return "empty array" if (count == 0 or not contents) else ("empty", raw)
        shape = "flat array of fields"
        fields = v
        if withvalues:
            if all(isinstance(x, list) for x in v):
                shape = "array of [field, value] arrays"
                if any(len(x) != 2 for x in v):
                    return ("a pair that is not two elements", raw)
                pairs = [tuple(x) for x in v]
            else:
                shape = "flat array of field, value"
                if len(v) % 2:
                    return ("odd length", raw)
                pairs = list(zip(v[::2], v[1::2]))
            for f, val in pairs:
                if contents.get(f) != val:
                    return ("field %r with a value not its own: %r" % (f, val), raw)
            fields = [f for f, _ in pairs]
        return th.counted_picks(fields, contents, count, shape, raw, "field", "hash")
    return th.pick_norm(contents, count, "field", "hash", aggregate)


def hr(contents, *args):
    """Step HRANDFIELD <key> [count [WITHVALUES]] for a hash with these contents."""
    count = int(args[1]) if len(args) > 1 else None
    withvalues = len(args) > 2
    return Step("HRANDFIELD", *args, norm=hrand(contents, count, withvalues), why=WHY_RAND)


SMALL5 = {"a": "1", "b": "2", "c": "3", "d": "4", "e": "5"}
D300 = dict(F300)
D1000 = dict(F1000)
