"""Streams, compared with Debian's redis-server 7.0: the same command sequences go to terse and to
the oracle, each on a fresh connection with an empty keyspace, and the raw reply bytes must be
identical.

Covered: XADD (explicit IDs, ms-*, NOMKSTREAM, MAXLEN/MINID with = and ~, LIMIT, the ID
errors), XLEN, XRANGE, XREVRANGE (COUNT, exclusive bounds), XDEL, XTRIM, XREAD (COUNT, $,
several keys), XGROUP (CREATE [MKSTREAM] [ENTRIESREAD], SETID, DESTROY, CREATECONSUMER,
DELCONSUMER, HELP), XREADGROUP (>, history, NOACK, COUNT), XACK, XPENDING (summary, extended,
IDLE, consumer), XCLAIM (FORCE, JUSTID, RETRYCOUNT, LASTID, TIME), XAUTOCLAIM, XINFO (STREAM,
FULL, GROUPS, CONSUMERS, HELP), XSETID; wrong arity, bad IDs, argument-check order, WRONGTYPE
both ways; RESP3; COPY; DEBUG DIGEST-VALUE; DEBUG CORRUPT-VALUE; SAVE and a restart; -OOM;
stream-node-max-*; random sequences of every command over a small ID space.

Intentionally not compared byte for byte (the reason is repeated at each use):
- Times: XADD * IDs and delivery and seen times (XPENDING idle, XINFO CONSUMERS idle, XINFO
  STREAM FULL seen-time and delivery-time) are the servers' clocks. `*` IDs are checked for
  shape and order, times for being sane; everything else in those replies is compared.
- radix-tree-nodes (XINFO STREAM) counts Redis's radix tree nodes, a layout terse does not
  have: masked. radix-tree-keys is compared (terse counts listpack nodes as Redis fills them).
- BLOCK with nothing to serve: Redis waits, terse answers an error (README, not built).
"""

import random
import time

import pytest

import terse_harness as h
import types_harness as th
from terse_harness import Step, decode_one

WHY_TIME = "delivery, seen and idle times are the servers' clocks"
WHY_NODES = "radix-tree-nodes counts Redis's rax nodes, a layout terse does not have"
WHY_STAR = "an XADD * ID is the server's clock"

TIME_FIELDS = {b"seen-time", b"idle"}


def _mask_value(k, x):
    if k == b"radix-tree-nodes" or k in TIME_FIELDS:
        return "masked"
    if k == b"pending" and isinstance(x, list):
        return [_mask_pel(e) for e in x]
    return _mask(x)


def _mask(v):
    """Masks radix-tree-nodes and the time fields of an XINFO reply (RESP3 maps, or the RESP2
    flat lists of key and value), and the delivery times in FULL's pending lists."""
    if isinstance(v, h.RMap):
        return [(k, _mask_value(k, x)) for k, x in v]
    if isinstance(v, list):
        out, i = [], 0
        while i < len(v):
            x = v[i]
            if isinstance(x, bytes) and i + 1 < len(v) and (
                    x in (b"radix-tree-nodes", b"pending") or x in TIME_FIELDS):
                out.extend([x, _mask_value(x, v[i + 1])])
                i += 2
                continue
            out.append(_mask(x))
            i += 1
        return out
    return v


def _mask_pel(e):
    """A pending entry of XINFO STREAM FULL: [id, consumer, delivery-time, count] in a group,
    [id, delivery-time, count] in a consumer; the time is masked."""
    if isinstance(e, list) and len(e) in (3, 4):
        e = list(e)
        e[-2] = "masked" if isinstance(e[-2], int) else e[-2]
    return e


def info(*args):
    return Step(*args, norm=lambda raw: _mask(decode_one(raw)), why=WHY_NODES + "; " + WHY_TIME)


def pending_ext(*args):
    """XPENDING's extended form: [id, consumer, idle, count], the idle masked."""
    def norm(raw):
        v = decode_one(raw)
        if isinstance(v, list):
            return [[e[0], e[1], "idle", e[3]] if isinstance(e, list) else e for e in v]
        return v
    return Step(*args, norm=norm, why=WHY_TIME)


# ---- differential sequences on the session servers -------------------------------------------

CASES = {
    "xadd_ids": [
        "XADD s 1-1 a 1", "XADD s 1-1 a 1", "XADD s 1-0 a 1", "XADD s 1-2 b 2 c 3", "XADD s 2 x y",
        "XADD s 2-* x y", "XADD s 2-* x y", "XADD s 3-* x y", "XADD s 0-0 a b", "XADD s 0 a b",
        "XADD s 0-* a b", "XADD n 0-* a b", "XADD s - a b", "XADD s + a b", "XADD s 1-x a b",
        "XADD s abc a b", "XADD s -1 a b", "XADD s 1--1 a b", "XADD s 18446744073709551616 a b",
        "XADD s 18446744073709551615-18446744073709551615 a b", "XADD s 5-* a b",
        "XADD s 18446744073709551615-* a b", "XLEN s", "XRANGE s - +",
        "XADD e 18446744073709551615-18446744073709551614 a b",
        "XADD e 18446744073709551615-* a b", "XADD e 18446744073709551615-* a b",
        "XADD s a", "XADD s 9-0 a", "XADD s 9-0 a b c", "XADD s 9-0", "XADD s",
        "XADD s ' 10' a b", "XADD s +11 a b", "XADD s 12- a b", "XADD s 12-+3 a b",
        "XADD s 012-0 a b", "XADD s '' a b", "XLEN s", "XLEN nokey", "TYPE s",
        "OBJECT ENCODING s", "EXISTS s",
    ],
    "xadd_options": [
        "XADD s NOMKSTREAM 1-1 a b", "EXISTS s", "XADD s 1-1 a b", "XADD s NOMKSTREAM 2-1 a b",
        "XADD s nomkstream 3-1 a b", "XADD s MAXLEN 2 4-1 a b", "XRANGE s - +",
        "XADD s MAXLEN = 1 5-1 a b", "XRANGE s - +", "XADD s MAXLEN -1 6-1 a b",
        "XADD s MAXLEN abc 6-1 a b", "XADD s MINID 5-1 6-1 a b", "XRANGE s - +",
        "XADD s MINID = 7 7-1 a b", "XRANGE s - +", "XADD s MAXLEN 1 MINID 1 8-1 a b",
        "XADD s MINID 1 MAXLEN 1 8-1 a b", "XADD s LIMIT 10 8-1 a b",
        "XADD s MAXLEN 1 LIMIT 10 8-1 a b", "XADD s MAXLEN ~ 1 LIMIT -1 8-1 a b",
        "XADD s MAXLEN ~ 1 LIMIT x 8-1 a b", "XADD s MAXLEN ~ 0 LIMIT 0 8-1 a b", "XLEN s",
        "XADD s MINID ~ - 9-1 a b", "XADD s MINID + 9-1 a b", "XADD s MINID bad 9-1 a b",
        "XADD s MAXLEN", "XADD s MAXLEN 5", "XADD s MAXLEN ~ 5", "XADD s MAXLEN ~ 5 * ",
        "XADD s MAXLEN 5 NOMKSTREAM 10-1 a b", "XADD s 11-1 MAXLEN 1 x", "XRANGE s - +",
        "XADD s FOO 12-1 a b", "XLEN s",
    ],
    "trim_approx": [
        ("XADD", "s", "%d-1" % i, "f", "v") for i in range(1, 251)
    ] + [
        "XTRIM s MAXLEN ~ 120", "XLEN s", "XTRIM s MAXLEN ~ 120", "XLEN s",
        "XTRIM s MAXLEN ~ 10 LIMIT 50", "XLEN s", "XTRIM s MAXLEN ~ 10 LIMIT 100", "XLEN s",
        "XTRIM s MAXLEN ~ 0", "XLEN s", "XRANGE s - + COUNT 2",
        "XADD s MAXLEN ~ 10 251-1 f v", "XLEN s", info("XINFO", "STREAM", "s"),
    ] + [
        ("XADD", "m", "%d-1" % i, "f", "v") for i in range(1, 251)
    ] + [
        "XTRIM m MINID ~ 150", "XLEN m", "XTRIM m MINID ~ 201", "XLEN m", "XTRIM m MINID 240",
        "XLEN m", "XRANGE m - + COUNT 1", "XTRIM m MINID ~ 10 LIMIT 1", "XLEN m",
    ],
    "xtrim": [
        "XADD s 1-1 a 1", "XADD s 2-1 a 2", "XADD s 3-1 a 3", "XADD s 4-1 a 4",
        "XTRIM s MAXLEN 3", "XRANGE s - +", "XTRIM s MAXLEN = 3", "XTRIM s MINID 3",
        "XRANGE s - +", "XTRIM s MINID 3-1", "XTRIM s MINID = 4-1", "XRANGE s - +",
        "XTRIM s", "XTRIM s FOO", "XTRIM s LIMIT 1", "XTRIM s MAXLEN 1 LIMIT 1",
        "XTRIM s MAXLEN -1", "XTRIM s MAXLEN 0", "XLEN s", "EXISTS s", "XINFO STREAM s",
        "XTRIM nokey MAXLEN 0", "XTRIM nokey FOO", "XTRIM s NOMKSTREAM MAXLEN 0",
        "XTRIM s MAXLEN 1 x", "XTRIM s MINID -", "XTRIM s MINID ~ +",
    ],
    "xrange": [
        "XADD s 1-1 a 1", "XADD s 1-2 b 2", "XADD s 2-0 c 3", "XADD s 3-5 d 4", "XADD s 7-0 e 5",
        "XRANGE s - +", "XRANGE s 1 1", "XRANGE s 1-2 3", "XRANGE s (1-1 +", "XRANGE s - (7-0",
        "XRANGE s (1 (7", "XRANGE s (- +", "XRANGE s - (+", "XRANGE s (1-2 (2-0",
        "XRANGE s 3 1", "XRANGE s - + COUNT 2", "XRANGE s - + COUNT 0", "XRANGE s - + COUNT -1",
        "XRANGE s - + COUNT 2 COUNT 1", "XRANGE s - + COUNT", "XRANGE s - + COUNT x",
        "XRANGE s - + FOO", "XRANGE s x +", "XRANGE s - x", "XRANGE nokey - +",
        "XRANGE nokey - + COUNT 0", "XRANGE nokey x +", "XRANGE s (0-0 +",
        "XRANGE s - (0-0", "XRANGE s (18446744073709551615-18446744073709551615 +",
        "XRANGE s ( +", "XRANGE s ((1 +", "XREVRANGE s + -", "XREVRANGE s + - COUNT 2",
        "XREVRANGE s (7 (1", "XREVRANGE s 3 1-2", "XREVRANGE s 1 3", "XREVRANGE s + - COUNT 0",
        "XREVRANGE nokey + -", "XREVRANGE s x -", "XREVRANGE s (+ -",
        "XRANGE s 2-0 2-0", "XRANGE s 2 2", "xrange s - + count 1",
    ],
    "xdel": [
        "XADD s 1-1 a 1", "XADD s 2-1 a 2", "XADD s 3-1 a 3", "XDEL s 2-1", "XDEL s 2-1",
        "XDEL s 1-1 3-1 9-9 1-1", "XLEN s", "EXISTS s", info("XINFO", "STREAM", "s"),
        "XADD s 3-1 x y", "XADD s 4-1 x y", "XDEL s 4-1 bad", "XLEN s", "XDEL nokey bad",
        "XDEL s -", "XDEL s +", "XDEL s 4", "XLEN s", info("XINFO", "STREAM", "s"),
    ],
    "xread": [
        "XADD a 1-1 f 1", "XADD a 2-1 f 2", "XADD b 1-5 g 1", "XREAD STREAMS a 0",
        "XREAD COUNT 1 STREAMS a b 0 0", "XREAD STREAMS a b 1-1 1-5", "XREAD STREAMS a b $ $",
        "XREAD STREAMS a nokey 0 0", "XREAD STREAMS nokey 0", "XREAD STREAMS a", "XREAD a 0",
        "XREAD COUNT x STREAMS a 0", "XREAD COUNT -5 STREAMS a 0", "XREAD STREAMS a -",
        "XREAD STREAMS a +", "XREAD STREAMS a >", "XREAD STREAMS a x", "XREAD GROUP g c STREAMS a 0",
        "XREAD NOACK STREAMS a 0", "XREAD FOO STREAMS a 0", "XREAD BLOCK x STREAMS a 0",
        "XREAD BLOCK -1 STREAMS a 0", "XREAD BLOCK 0 STREAMS a 0", "XREAD BLOCK 10 STREAMS a 1",
        "XREAD STREAMS a 2-1", "XREAD STREAMS a 1", "xread streams a 0", "XREAD COUNT 1 COUNT 2 STREAMS a 0",
        "XREAD STREAMS a a 0 1-1", "XREAD STREAMS STREAMS a 0",
    ],
    "groups": [
        "XGROUP CREATE s g 0", "XGROUP CREATE s g 0 MKSTREAM", "XGROUP CREATE s g $ MKSTREAM",
        "XGROUP CREATE s g $", "XGROUP CREATE s g2 0 ENTRIESREAD 5", "XGROUP CREATE s g3 x",
        "XGROUP CREATE s g3 - ", "XGROUP CREATE s g3 0 ENTRIESREAD -2",
        "XGROUP CREATE s g3 0 ENTRIESREAD x", "XGROUP CREATE s g3 0 FOO",
        "XGROUP CREATE s g3 0 MKSTREAM ENTRIESREAD -1 MKSTREAM",
        "XADD s 1-1 a 1", "XADD s 2-1 b 2", "XADD s 3-1 c 3", "XINFO GROUPS s",
        "XGROUP SETID s g 1-1", "XGROUP SETID s nog 0", "XGROUP SETID s g x",
        "XGROUP SETID s g - ", "XGROUP SETID s g $ ENTRIESREAD 3", "XGROUP SETID s g 0 MKSTREAM",
        "XGROUP SETID nokey g 0", "XINFO GROUPS s", "XGROUP CREATECONSUMER s g c1",
        "XGROUP CREATECONSUMER s g c1", "XGROUP CREATECONSUMER s nog c1",
        "XGROUP CREATECONSUMER nokey g c1", "XGROUP DELCONSUMER s g c1",
        "XGROUP DELCONSUMER s g c1", "XGROUP DELCONSUMER s nog c1", "XGROUP DESTROY s g2",
        "XGROUP DESTROY s g2", "XGROUP DESTROY nokey g", "XGROUP HELP", "XGROUP help",
        "XGROUP HELP x", "XGROUP FOO", "XGROUP FOO s g", "XGROUP", "XGROUP CREATE s",
        "XGROUP CREATE s g", "XGROUP CREATE s g 0 MKSTREAM x y z", "XGROUP DESTROY s",
        "XGROUP DESTROY s g x", "XGROUP CREATECONSUMER s g", "XINFO GROUPS s", "EXISTS new",
        "XGROUP CREATE new g $ MKSTREAM", "XLEN new", "TYPE new", "XINFO GROUPS new",
        info("XINFO", "STREAM", "new"), "XGROUP CREATE new2 g 5-5 MKSTREAM ENTRIESREAD 3",
        "XINFO GROUPS new2",
    ],
    "readgroup": [
        "XADD s 1-1 a 1", "XADD s 2-1 b 2", "XADD s 3-1 c 3", "XADD s 4-1 d 4",
        "XGROUP CREATE s g 0", "XGROUP CREATE s h $",
        "XREADGROUP GROUP g alice COUNT 2 STREAMS s >", "XREADGROUP GROUP g bob STREAMS s >",
        "XREADGROUP GROUP g bob STREAMS s >", "XREADGROUP GROUP g alice STREAMS s 0",
        "XREADGROUP GROUP g alice COUNT 1 STREAMS s 0", "XREADGROUP GROUP g alice STREAMS s 1-1",
        "XREADGROUP GROUP g carol STREAMS s 0", "XREADGROUP GROUP h x STREAMS s >",
        "XREADGROUP GROUP g alice STREAMS s $", "XREADGROUP GROUP nog alice STREAMS s >",
        "XREADGROUP GROUP g alice STREAMS nokey >", "XREADGROUP GROUP g alice STREAMS s x",
        "XREADGROUP GROUP g alice STREAMS s", "XREADGROUP STREAMS s >",
        "XREADGROUP GROUP g STREAMS s >", "XREADGROUP COUNT 1 STREAMS s > x",
        "XREADGROUP GROUP g alice BLOCK 10 STREAMS s 0", "XPENDING s g",
        pending_ext("XPENDING", "s", "g", "-", "+", "10"),
        pending_ext("XPENDING", "s", "g", "-", "+", "10", "bob"),
        pending_ext("XPENDING", "s", "g", "(1-1", "(4-1", "10"),
        pending_ext("XPENDING", "s", "g", "-", "+", "1"), "XPENDING s g - + 0",
        "XPENDING s g - + 10 nobody", "XPENDING s g IDLE 100000 - + 10", "XPENDING s g IDLE x - + 10",
        "XPENDING s g IDLE 10 - +", "XPENDING s g - +", "XPENDING s g - + x", "XPENDING s g x + 1",
        "XPENDING s nog", "XPENDING nokey g", "XPENDING s g - + 10 a b", "XPENDING s h",
        "XACK s g 1-1 9-9", "XACK s g 1-1", "XACK s g 2-1 bad", "XACK s nog 2-1",
        "XACK nokey g bad", "XACK s g 2", "XPENDING s g", "XADD s 5-1 e 5", "XDEL s 3-1",
        "XREADGROUP GROUP g bob STREAMS s 0", "XREADGROUP GROUP g bob NOACK STREAMS s >",
        "XREADGROUP GROUP g bob STREAMS s >", "XPENDING s g", info("XINFO", "GROUPS", "s"),
        info("XINFO", "CONSUMERS", "s", "g"), "XGROUP SETID s g 0",
        "XREADGROUP GROUP g carol STREAMS s >", "XPENDING s g", "XGROUP DELCONSUMER s g carol",
        "XPENDING s g", "XINFO GROUPS s",
    ],
    "claim": [
        "XADD s 1-1 a 1", "XADD s 2-1 b 2", "XADD s 3-1 c 3", "XGROUP CREATE s g 0",
        "XREADGROUP GROUP g alice STREAMS s >", "XCLAIM s g bob 0 1-1",
        pending_ext("XPENDING", "s", "g", "-", "+", "10"), "XCLAIM s g bob 0 1-1 JUSTID",
        "XCLAIM s g bob 0 2-1 RETRYCOUNT 7 JUSTID", pending_ext("XPENDING", "s", "g", "-", "+", "10"),
        "XCLAIM s g bob 100000000 3-1", "XCLAIM s g bob 0 9-9 FORCE", "XCLAIM s g bob 0 9-9",
        "XDEL s 3-1", "XCLAIM s g bob 0 3-1", "XPENDING s g", "XADD s 4-1 d 4",
        "XCLAIM s g carol 0 4-1 FORCE", pending_ext("XPENDING", "s", "g", "-", "+", "10"),
        "XCLAIM s g dave 0 4-1 FORCE JUSTID", "XCLAIM s g bob 0 1-1 LASTID 9-0 JUSTID",
        "XINFO GROUPS s", "XCLAIM s g bob 0 1-1 LASTID x", "XCLAIM s g bob 0 1-1 IDLE x",
        "XCLAIM s g bob 0 1-1 TIME x", "XCLAIM s g bob 0 1-1 RETRYCOUNT x",
        "XCLAIM s g bob 0 1-1 FOO", "XCLAIM s g bob 0 1-1 IDLE", "XCLAIM s g bob x 1-1",
        "XCLAIM s nog bob 0 1-1", "XCLAIM nokey g bob 0 1-1", "XCLAIM s g bob 0 x",
        "XCLAIM s g bob 0 1-1 TIME 1 JUSTID", pending_ext("XPENDING", "s", "g", "-", "+", "10"),
        "XCLAIM s g bob -5 1-1 JUSTID", "XAUTOCLAIM s g erin 0 0", "XAUTOCLAIM s g erin 0 0 JUSTID",
        "XAUTOCLAIM s g erin 0 0 COUNT 1", "XAUTOCLAIM s g erin 0 (1-1 COUNT 1 JUSTID",
        "XAUTOCLAIM s g erin 100000000 0", "XAUTOCLAIM s g erin 0 0 COUNT 0",
        "XAUTOCLAIM s g erin 0 0 COUNT x", "XAUTOCLAIM s g erin 0 0 FOO",
        "XAUTOCLAIM s g erin x 0", "XAUTOCLAIM s g erin 0 x", "XAUTOCLAIM s nog erin 0 0",
        "XAUTOCLAIM nokey g erin 0 0", "XAUTOCLAIM s g erin 0 (18446744073709551615-18446744073709551615",
        "XDEL s 1-1 2-1", "XAUTOCLAIM s g erin 0 0", "XPENDING s g", "XINFO GROUPS s",
    ],
    "xsetid": [
        "XSETID nokey 1-1", "XADD s 5-1 a b", "XSETID s 4-0", "XSETID s 5-1", "XSETID s 9-9",
        info("XINFO", "STREAM", "s"), "XSETID s 9-9 ENTRIESADDED 0", "XSETID s 9-9 ENTRIESADDED -1",
        "XSETID s 9-9 ENTRIESADDED x", "XSETID s 9-9 ENTRIESADDED 5", "XSETID s 9-9 MAXDELETEDID 10-0",
        "XSETID s 9-9 MAXDELETEDID x", "XSETID s 10-0 MAXDELETEDID 3-0 ENTRIESADDED 7",
        info("XINFO", "STREAM", "s"), "XSETID s 10-0 FOO", "XSETID s -", "XSETID s x",
        "XSETID s 10-0 ENTRIESADDED", "XADD s 10-0 a b", "XADD s 10-1 a b", "XDEL s 5-1 10-1",
        "XSETID s 1-0", info("XINFO", "STREAM", "s"), "XSETID s 0-0", "XADD s 0-1 a b",
    ],
    "xinfo": [
        "XINFO STREAM nokey", "XINFO GROUPS nokey", "XINFO CONSUMERS nokey g", "XINFO HELP",
        "XINFO HELP x", "XINFO FOO s", "XINFO", "XINFO STREAM", "XADD s 1-1 a 1", "XADD s 2-1 b 2",
        info("XINFO", "STREAM", "s"), info("XINFO", "STREAM", "s", "FULL"),
        "XINFO STREAM s FOO", "XINFO STREAM s FULL COUNT", "XINFO STREAM s FULL FOO 1",
        "XINFO STREAM s FULL COUNT x", "XINFO STREAM s FULL COUNT 1 x", "XINFO CONSUMERS s nog",
        "XGROUP CREATE s g 0", "XGROUP CREATE s a $", "XREADGROUP GROUP g c2 COUNT 1 STREAMS s >",
        "XREADGROUP GROUP g c1 STREAMS s >", "XGROUP CREATECONSUMER s g c0",
        info("XINFO", "STREAM", "s", "FULL"), info("XINFO", "STREAM", "s", "FULL", "COUNT", "1"),
        info("XINFO", "STREAM", "s", "FULL", "COUNT", "0"),
        info("XINFO", "STREAM", "s", "FULL", "COUNT", "-3"), info("XINFO", "GROUPS", "s"),
        info("XINFO", "CONSUMERS", "s", "g"), info("XINFO", "CONSUMERS", "s", "a"),
        "XINFO GROUPS s x", "XINFO CONSUMERS s", "SET str v", "XINFO STREAM str",
        "XINFO GROUPS str", "xinfo stream s full count 0 x",
    ],
    "lag": [
        "XADD s 1-1 a 1", "XADD s 2-1 a 1", "XADD s 3-1 a 1", "XADD s 4-1 a 1", "XGROUP CREATE s g 0",
        "XINFO GROUPS s", "XREADGROUP GROUP g c COUNT 1 STREAMS s >", "XINFO GROUPS s",
        "XDEL s 3-1", "XINFO GROUPS s", "XREADGROUP GROUP g c COUNT 1 STREAMS s >",
        "XINFO GROUPS s", "XREADGROUP GROUP g c STREAMS s >", "XINFO GROUPS s",
        "XGROUP CREATE s h 2-1", "XINFO GROUPS s", "XGROUP CREATE s k 0 ENTRIESREAD 1",
        "XINFO GROUPS s", "XTRIM s MAXLEN 1", "XGROUP SETID s k 0", "XINFO GROUPS s",
        "XADD e 1-1 a 1", "XDEL e 1-1", "XGROUP CREATE e g 0", "XINFO GROUPS e",
        "XGROUP CREATE e h $", "XINFO GROUPS e", "XADD e 2-1 b 2", "XINFO GROUPS e",
    ],
    "wrongtype": [
        "SET str v", "XADD str 1-1 a b", "XLEN str", "XRANGE str - +", "XREVRANGE str + -",
        "XDEL str 1-1", "XTRIM str MAXLEN 0", "XREAD STREAMS str 0", "XGROUP CREATE str g 0",
        "XGROUP CREATE str g 0 MKSTREAM", "XREADGROUP GROUP g c STREAMS str >", "XACK str g 1-1",
        "XPENDING str g", "XCLAIM str g c 0 1-1", "XAUTOCLAIM str g c 0 0", "XSETID str 1-1",
        "XINFO STREAM str", "XADD s 1-1 a b", "GET s", "LPUSH s x", "HSET s f v", "SADD s m",
        "INCR s", "APPEND s x", "STRLEN s", "XADD str bad a b", "XRANGE str x +",
        "XDEL str bad", "XTRIM str FOO", "XACK str g bad", "XREAD STREAMS str a b",
        "XREAD STREAMS s str 0 0", "XREAD STREAMS str s bad 0", "TYPE s",
    ],
    "binary_safe": [
        ("XADD", "s", "1-1", b"f\x00ield", b"\r\n$3\r\nfoo\r\n", b"", b"", b"\xff", b"\x00"),
        "XRANGE s - +", ("XGROUP", "CREATE", "s", b"g\x00x", "0"), ("XGROUP", "CREATE", "s", b"g", "0"),
        ("XREADGROUP", "GROUP", b"g\x00x", b"c\x00", "STREAMS", "s", ">"),
        ("XINFO", "GROUPS", "s"), ("XGROUP", "CREATE", "s", b"", "0"), ("XINFO", "GROUPS", "s"),
        ("XADD", b"k\x00ey", "1-1", "a", "b"), ("XRANGE", b"k\x00ey", "-", "+"),
        ("XPENDING", b"k\x00ey", b"n\x00g"), ("XADD", b"", "1-1", "a", "b"), ("XLEN", b""),
        ("XADD", "s", b"2-1\x00junk", "a", "b"), ("XADD", "s", "3-1", "a" * 300, "b" * 3000),
        "XRANGE s 3 3",
    ],
    "keyspace": [
        "XADD s 1-1 a 1", "XGROUP CREATE s g 0", "XREADGROUP GROUP g c STREAMS s >",
        "COPY s s2", info("XINFO", "STREAM", "s2", "FULL"), "XPENDING s2 g", "RENAME s2 s3",
        "XLEN s3", "EXPIRE s 100", "XADD s 2-1 b 2", "TTL s", "PERSIST s", "TTL s",
        "DEL s s3", "EXISTS s", "XADD s 1-1 a 1", "MOVE s 1", "SELECT 1", "XLEN s",
        "XRANGE s - +", "SELECT 0", "OBJECT ENCODING nokey",
    ],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_sequence(diff, name):
    diff.run(CASES[name], title=name)


# ---- wrong arity, the command table ----------------------------------------------------------

STREAM_ARITY = [
    ("xadd", -5), ("xlen", 2), ("xrange", -4), ("xrevrange", -4), ("xdel", -3), ("xtrim", -4),
    ("xread", -4), ("xreadgroup", -7), ("xack", -4), ("xpending", -3), ("xclaim", -6),
    ("xautoclaim", -6), ("xsetid", -3),
]
SUBCMD_ARITY = [
    ("XGROUP", "CREATE", -5), ("XGROUP", "SETID", -5), ("XGROUP", "DESTROY", 4),
    ("XGROUP", "CREATECONSUMER", 5), ("XGROUP", "DELCONSUMER", 5), ("XGROUP", "HELP", 2),
    ("XINFO", "STREAM", -3), ("XINFO", "GROUPS", 3), ("XINFO", "CONSUMERS", 4),
    ("XINFO", "HELP", 2),
]


def test_wrong_arity(diff):
    steps = th.arity_steps(STREAM_ARITY, "s", "1")
    for cmd, sub, arity in SUBCMD_ARITY:
        steps.append(Step(cmd, sub, *(["s"] * (abs(arity) - 3))) if abs(arity) > 2 else
                     Step(cmd, sub, "x"))
        if arity > 0:
            steps.append(Step(cmd, sub, *(["s"] * (arity - 1))))
    diff.run(steps + ["XADD s 1-1 a b"] + steps + ["DEL s", "SET s v"] + steps,
             title="wrong arity")


def _info_head(raw):
    """COMMAND INFO without the key specs and subcommands (fields 9, 10: cmd_meta.c)."""
    v = decode_one(raw)
    return [x[:7] if isinstance(x, list) else x for x in v]


def test_command_table_rows(diff):
    names = [n for n, _ in STREAM_ARITY]
    why = "the rest (tips, key specs, arguments) comes from cmd_meta.c"
    diff.run([Step("COMMAND", "INFO", *names, norm=_info_head, why=why)] +
             ["COMMAND GETKEYS xadd s * a b", "COMMAND GETKEYS xread STREAMS a b 0 0",
              "COMMAND GETKEYS xreadgroup GROUP g c STREAMS a b > >",
              "COMMAND GETKEYS xgroup create s g 0", "COMMAND GETKEYS xinfo stream s"],
             title="COMMAND on stream commands")


WHY_SUBCMD_ORDER = "Redis lists a container's subcommands in its dict's (seeded) order"


def _info_subcmds_sorted(raw):
    v = decode_one(raw)
    return [x[:9] + [sorted(x[9], key=lambda s: s[0])] for x in v]


def _docs_subcmds_sorted(raw):
    v = decode_one(raw)
    name, d = v[0], list(v[1])
    i = d.index(b"subcommands")
    subs = d[i + 1]
    d[i + 1] = sorted(zip(subs[::2], subs[1::2]))
    return [name, d]


def test_command_table_full(diff):
    names = [n for n, _ in STREAM_ARITY]
    diff.run([("COMMAND", "INFO", n) for n in names] + [("COMMAND", "DOCS", n) for n in names] +
             [Step("COMMAND", "INFO", n, norm=_info_subcmds_sorted, why=WHY_SUBCMD_ORDER)
              for n in ("xgroup", "xinfo")] +
             [Step("COMMAND", "DOCS", n, norm=_docs_subcmds_sorted, why=WHY_SUBCMD_ORDER)
              for n in ("xgroup", "xinfo")],
             title="COMMAND, full")


# ---- RESP3 -----------------------------------------------------------------------------------

def test_resp3(diff):
    diff.run([
        Step("HELLO", "3", norm=h.hello3_norm, why="id, version and server are per process"),
        "XADD s 1-1 a 1 b 2", "XADD s 2-1 c 3", "XADD t 1-1 x y", "XRANGE s - +",
        "XRANGE s - + COUNT 0", "XREVRANGE s + - COUNT 1", "XREAD STREAMS s t 0 0",
        "XREAD STREAMS s $", "XREAD STREAMS nokey 0", "XGROUP CREATE s g 0",
        "XREADGROUP GROUP g c STREAMS s >", "XREADGROUP GROUP g c STREAMS s >",
        "XREADGROUP GROUP g c STREAMS s 0", "XPENDING s g", "XPENDING s h", "XGROUP CREATE s e $",
        "XPENDING s e", info("XINFO", "STREAM", "s"), info("XINFO", "STREAM", "s", "FULL"),
        info("XINFO", "GROUPS", "s"), info("XINFO", "CONSUMERS", "s", "g"), "XINFO HELP",
        "XAUTOCLAIM s g d 0 0", "XCLAIM s g d 0 1-1 JUSTID", "XADD s NOMKSTREAM 3-1 a b",
        "XADD n NOMKSTREAM 3-1 a b", "XDEL s 1-1", "XREADGROUP GROUP g d STREAMS s 0",
        info("XINFO", "STREAM", "s"),
    ], title="RESP3")


# ---- * IDs, times ----------------------------------------------------------------------------

def _id(b):
    ms, seq = b.split(b"-")
    return int(ms), int(seq)


def test_star_ids_are_clock_ordered(terse, oracle):
    """XADD * gives an ID of the server's clock (ms), increasing, with the sequence counting up
    within a millisecond; ms-* and * after a future ID continue from the last ID."""
    for server in (oracle, terse):
        with server.raw() as c:
            before = int(time.time() * 1000)
            c.send(h.encode("XADD", "s", "*", "f", "v") * 200)
            ids = [_id(decode_one(x)) for x in c.read_replies(200)]
            after = int(time.time() * 1000)
            assert ids == sorted(set(ids)), server.name
            assert before - 5 <= ids[0][0] <= ids[-1][0] <= after + 5, (server.name, ids[0])
            future = after + 10 ** 9
            assert _id(decode_one(c.call("XADD", "s", "%d-5" % future, "f", "v"))) == (future, 5)
            assert _id(decode_one(c.call("XADD", "s", "*", "f", "v"))) == (future, 6), server.name
            assert _id(decode_one(c.call("XADD", "s", "%d-*" % future, "f", "v"))) == (future, 7)
            assert _id(decode_one(c.call("XADD", "s", "%d-*" % (future + 1), "f", "v"))) == (
                future + 1, 0), server.name
            assert decode_one(c.call("XLEN", "s")) == 204, server.name
            got = decode_one(c.call("XRANGE", "s", "-", "+", "COUNT", "1"))
            assert _id(got[0][0]) == ids[0] and got[0][1] == [b"f", b"v"], server.name


def test_delivery_times_and_idle(terse, oracle):
    """XPENDING idle, XINFO CONSUMERS idle and XINFO STREAM FULL times move with the clock;
    XCLAIM TIME and IDLE set a delivery time; XPENDING IDLE filters on it."""
    for server in (oracle, terse):
        with server.raw() as c:
            c.call("XADD", "s", "1-1", "a", "1")
            c.call("XADD", "s", "2-1", "a", "2")
            c.call("XGROUP", "CREATE", "s", "g", "0")
            t0 = int(time.time() * 1000)
            c.call("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">")
            time.sleep(0.12)
            pend = decode_one(c.call("XPENDING", "s", "g", "-", "+", "10"))
            assert all(100 <= e[2] < 5000 and e[3] == 1 for e in pend), (server.name, pend)
            cons = decode_one(c.call("XINFO", "CONSUMERS", "s", "g"))
            assert 100 <= dict(zip(cons[0][::2], cons[0][1::2]))[b"idle"] < 5000, server.name
            assert decode_one(c.call("XCLAIM", "s", "g", "c", "0", "1-1", "IDLE", "500000",
                                     "JUSTID")) == [b"1-1"]
            idle = decode_one(c.call("XPENDING", "s", "g", "IDLE", "400000", "-", "+", "10"))
            assert [e[0] for e in idle] == [b"1-1"], (server.name, idle)
            assert decode_one(c.call("XCLAIM", "s", "g", "c", "0", "2-1", "TIME", "12345",
                                     "JUSTID")) == [b"2-1"]
            full = decode_one(c.call("XINFO", "STREAM", "s", "FULL"))
            groups = dict(zip(full[::2], full[1::2]))[b"groups"]
            g = dict(zip(groups[0][::2], groups[0][1::2]))
            times = {e[0]: e[2] for e in g[b"pending"]}
            assert times[b"2-1"] == 12345, (server.name, times)
            assert t0 - 500000 - 1000 <= times[b"1-1"] <= t0 - 500000 + 5000, server.name
            consumer = dict(zip(g[b"consumers"][0][::2], g[b"consumers"][0][1::2]))
            assert t0 - 10 <= consumer[b"seen-time"] <= t0 + 5000, server.name
            assert decode_one(c.call("XAUTOCLAIM", "s", "g", "d", "100000", "0")) == [
                b"0-0", [[b"1-1", [b"a", b"1"]], [b"2-1", [b"a", b"2"]]], []], server.name


# ---- digests, corruption, snapshots ----------------------------------------------------------

def test_digest_value_equals_redis(pair):
    """DEBUG DIGEST-VALUE of a stream is Redis's byte for byte (entries only: Redis leaves the
    groups out), and COPY keeps it."""
    t, r, d = pair(th.DEBUG_ARGS)
    d.run([
        "XADD s 1-1 a 1 b 2", ("XADD", "s", "5-0", b"\x00", b""), "DEBUG DIGEST-VALUE s",
        "XGROUP CREATE s g 0", "XREADGROUP GROUP g c STREAMS s >", "DEBUG DIGEST-VALUE s",
        "COPY s s2", "DEBUG DIGEST-VALUE s s2", "XDEL s 1-1", "DEBUG DIGEST-VALUE s",
        "XADD e 1-1 a b", "XDEL e 1-1", "DEBUG DIGEST-VALUE e", "DEBUG DIGEST",
        "EXPIRE s2 100", "DEBUG DIGEST-VALUE s2", "DEBUG DIGEST",
    ], title="digest")


CORRUPT_CMDS = [
    ("XADD", "c", "9-1", "x", "y"), ("XLEN", "c"), ("XRANGE", "c", "-", "+"),
    ("XREVRANGE", "c", "+", "-"), ("XDEL", "c", "1-1"), ("XTRIM", "c", "MAXLEN", "0"),
    ("XREAD", "STREAMS", "c", "0"), ("XREAD", "STREAMS", "ok", "c", "0", "0"),
    ("XGROUP", "CREATE", "c", "g2", "0"), ("XGROUP", "DESTROY", "c", "g"),
    ("XGROUP", "SETID", "c", "g", "0"), ("XGROUP", "CREATECONSUMER", "c", "g", "z"),
    ("XGROUP", "DELCONSUMER", "c", "g", "a"), ("XREADGROUP", "GROUP", "g", "a", "STREAMS", "c", ">"),
    ("XACK", "c", "g", "1-1"), ("XPENDING", "c", "g"), ("XPENDING", "c", "g", "-", "+", "5"),
    ("XCLAIM", "c", "g", "b", "0", "1-1"), ("XAUTOCLAIM", "c", "g", "b", "0", "0"),
    ("XSETID", "c", "99-0"), ("XINFO", "STREAM", "c"), ("XINFO", "STREAM", "c", "FULL"),
    ("XINFO", "GROUPS", "c"), ("XINFO", "CONSUMERS", "c", "g"),
]


@pytest.mark.parametrize("n", [3, 300], ids=["short", "long"])
def test_corrupted_stream_is_reported_never_served(spawn, terse_binary, n):
    """DEBUG CORRUPT-VALUE flips a byte of the stored stream: every stream command on it
    answers the CORRUPT error and changes nothing (the sound stream "ok" keeps its entries)."""
    t = th.corruptible_terse(spawn, terse_binary)

    def setup(c):
        c.call("DEL", "c", "ok")
        for i in range(1, n + 1):
            c.call("XADD", "c", "%d-1" % i, "field", "value %d" % i)
        c.call("XGROUP", "CREATE", "c", "g", "0")
        c.call("XREADGROUP", "GROUP", "g", "a", "COUNT", "2", "STREAMS", "c", ">")
        c.call("XADD", "ok", "1-1", "k", "v")

    def check(c, cmd):
        assert decode_one(c.call("XRANGE", "ok", "-", "+")) == [[b"1-1", [b"k", b"v"]]], cmd

    with t.raw() as c:
        th.assert_corrupt_reported(c, CORRUPT_CMDS, setup, check)


STREAM_KEYS = [b"small", b"bin\x00key", b"big", b"groups", b"empty", b"ttl"]


def fill_streams(s):
    """Raw calls: redis-py 4.3 parses XCLAIM JUSTID and XINFO STREAM FULL replies wrongly."""
    with s.raw() as c:
        c.call("XADD", "small", "1-1", "a", "1")
        c.call("XADD", b"bin\x00key", "2-2", b"\x00", b"\r\n")
        c.send(b"".join(h.encode("XADD", "big", "%d-0" % i, "payload",
                                 "compressible text %d " % i * 4) for i in range(1, 2001)))
        c.read_replies(2000)
        c.call("XADD", "groups", "1-1", "a", "1")
        c.call("XADD", "groups", "2-1", "b", "2")
        c.call("XGROUP", "CREATE", "groups", "g", "0")
        c.call("XREADGROUP", "GROUP", "g", "alice", "COUNT", "1", "STREAMS", "groups", ">")
        c.call("XCLAIM", "groups", "g", "bob", "0", "1-1", "TIME", "1000", "JUSTID")
        c.call("XGROUP", "CREATE", "groups", "h", "$", "ENTRIESREAD", "2")
        c.call("XGROUP", "CREATE", "empty", "g", "$", "MKSTREAM")
        c.call("XADD", "ttl", "1-1", "a", "1")
        c.call("EXPIRE", "ttl", "3600")


def snapshot_view(s):
    c = s.client()
    view = {}
    with s.raw() as r:  # redis-py 4.3 cannot parse XINFO STREAM FULL: raw replies
        for k in STREAM_KEYS:
            full = decode_one(r.call("XINFO", "STREAM", k, "FULL", "COUNT", "0"))
            full = _mask(full)
            # radix-tree-keys: Redis also cuts a node at stream-node-max-bytes (4096); terse
            # counts nodes of 100 entries only, which "big"'s 90-byte entries outgrow
            full[full.index(b"radix-tree-keys") + 1] = "masked"
            view[k] = (c.type(k), decode_one(r.call("XRANGE", k, "-", "+")), full)
    view["ttl"] = 0 < c.ttl("ttl") <= 3600
    view["dbsize"] = c.dbsize()
    view["enc"] = {k: c.object("encoding", k) for k in STREAM_KEYS}
    c.close()
    return view


def test_streams_survive_save_and_restart(terse_binary, oracle_binary, tmp_path):
    def write_after(c):
        assert c.execute_command("XADD", "big", "3000-0", "a", "b") == b"3000-0"
        assert c.execute_command("XACK", "groups", "g", "1-1") == 1

    views = th.save_restart_views(terse_binary, oracle_binary, tmp_path, fill_streams,
                                  snapshot_view, write_after)
    for kind, (before, after) in views.items():
        assert after == before, "%s: values differ after SAVE and a restart: %r" % (
            kind, [k for k in before if before[k] != after.get(k)])
    redis, terse = views["redis"][1], views["terse"][1]
    assert terse == redis, [k for k in redis if redis[k] != terse.get(k)]


def test_oom_leaves_no_trace(pair):
    """Under maxmemory noeviction a stream write that does not fit is refused with -OOM and the
    stream keeps what it held."""
    t, _, _ = pair()
    with t.raw() as c:
        c.call("XADD", "s", "1-1", "a", "b")
        c.call("XGROUP", "CREATE", "s", "g", "0")
        used = int([l for l in c.call("INFO", "memory").split(b"\r\n")
                    if l.startswith(b"used_memory:")][0].split(b":")[1])
        c.call("CONFIG", "SET", "maxmemory", str(used + 1024))
        big = "x" * 200000
        got = c.call("XADD", "s", "2-1", "a", big)
        assert got.startswith(b"-OOM"), got[:100]
        assert decode_one(c.call("XLEN", "s")) == 1
        c.call("CONFIG", "SET", "maxmemory", "0")
        assert decode_one(c.call("XADD", "s", "2-1", "a", "b")) == b"2-1"


def test_node_config_options(pair):
    """stream-node-max-bytes and stream-node-max-entries as Redis has them: CONFIG GET, SET,
    range and type errors; stream-node-max-entries sizes the nodes an approximate trim removes
    whole, so XTRIM ~ on a stream that only grew keeps what Redis keeps."""
    _, _, d = pair()
    d.run([
        # each name on its own: a glob lists them in the order of Redis's (seeded) dict
        "CONFIG GET stream-node-max-entries", "CONFIG GET stream-node-max-bytes",
        "CONFIG SET stream-node-max-entries 10",
        "CONFIG GET stream-node-max-entries", "CONFIG SET stream-node-max-bytes 1mb",
        "CONFIG GET stream-node-max-bytes", "CONFIG SET stream-node-max-entries -1",
        "CONFIG SET stream-node-max-entries x", "CONFIG SET stream-node-max-bytes -1",
        "CONFIG GET stream-node-max-entries",
    ] + [("XADD", "s", "%d-1" % i, "f", "v") for i in range(1, 96)] + [
        "XTRIM s MAXLEN ~ 42", "XLEN s", "XTRIM s MAXLEN ~ 42 LIMIT 5", "XLEN s",
        "XTRIM s MAXLEN ~ 42 LIMIT 20", "XLEN s", "XADD s MAXLEN ~ 1 96-1 f v", "XLEN s",
        "CONFIG SET stream-node-max-entries 0", "XTRIM s MAXLEN ~ 1", "XLEN s",
    ], title="stream-node-max-* options")


# ---- random sequences ------------------------------------------------------------------------

RKEYS = ["s", "t"]
RGROUPS = ["g", "h"]
RCONSUMERS = ["a", "b", "c"]


def _rid(rnd):
    """An ID in a small space (ms 0-120, seq 0-3), so adds, deletes and ranges collide often."""
    r = rnd.random()
    if r < 0.05:
        return rnd.choice(["-", "+", "0", "0-0", "bad"])
    if r < 0.15:
        return str(rnd.randrange(0, 121))
    return "%d-%d" % (rnd.randrange(0, 121), rnd.randrange(0, 4))


def random_step(rnd, ms):
    """One stream command with explicit IDs, drawn so that replies do not depend on the clock
    (no XADD *, no idle times, JUSTID claims). ms: the XADD clock of the sequence, a list of
    one int the XADDs move forward."""
    k, g, c = rnd.choice(RKEYS), rnd.choice(RGROUPS), rnd.choice(RCONSUMERS)
    op = rnd.randrange(18)
    if op < 4:
        ms[0] += rnd.choice([0, 1, 1, 2, 3])
        pairs = [x for i in range(rnd.randrange(1, 3)) for x in ("f%d" % i, "v%d" % rnd.randrange(9))]
        trim = rnd.choice([[], [], ["MAXLEN", str(rnd.randrange(0, 9))],
                           ["MAXLEN", "~", str(rnd.randrange(0, 9))],
                           ["MINID", "%d" % max(0, ms[0] - rnd.randrange(0, 9))]])
        r = rnd.random()
        near = max(0, ms[0] + rnd.randrange(-2, 1))
        idarg = ("%d-*" % ms[0] if r < 0.6 else "%d-%d" % (near, rnd.randrange(0, 4)) if r < 0.95
                 else _rid(rnd))
        return ("XADD", k, *trim, idarg, *pairs)
    if op == 4:
        return ("XDEL", k, *[_rid(rnd) for _ in range(rnd.randrange(1, 4))])
    if op == 5:
        return rnd.choice([("XTRIM", k, "MAXLEN", str(rnd.randrange(0, 12))),
                           ("XTRIM", k, "MAXLEN", "~", str(rnd.randrange(0, 12))),
                           ("XTRIM", k, "MINID", _rid(rnd))])
    if op == 6:
        a, b = _rid(rnd), _rid(rnd)
        if rnd.random() < 0.3:
            a = "(" + a
        return ("XRANGE", k, a, b, "COUNT", str(rnd.randrange(0, 6)))
    if op == 7:
        return ("XREVRANGE", k, _rid(rnd), _rid(rnd))
    if op == 8:
        return ("XGROUP", "CREATE", k, g, rnd.choice(["$", "0", _rid(rnd)]),
                *rnd.choice([["MKSTREAM"], ["MKSTREAM"], ["ENTRIESREAD", str(rnd.randrange(-1, 9))]]))
    if op == 9:
        return ("XGROUP", "SETID", k, g, rnd.choice(["$", "0", _rid(rnd)]))
    if op in (10, 11):
        return ("XREADGROUP", "GROUP", g, c, "COUNT", str(rnd.randrange(0, 4)),
                *rnd.choice([[], [], ["NOACK"]]), "STREAMS", k, rnd.choice([">", ">", "0", _rid(rnd)]))
    if op == 12:
        return ("XACK", k, g, *[_rid(rnd) for _ in range(rnd.randrange(1, 4))])
    if op == 13:
        return ("XCLAIM", k, g, c, "0", *[_rid(rnd) for _ in range(rnd.randrange(1, 3))], "JUSTID",
                *rnd.choice([[], ["FORCE"], ["RETRYCOUNT", "5"], ["LASTID", _rid(rnd)]]))
    if op == 14:
        return ("XAUTOCLAIM", k, g, c, "0", _rid(rnd), "COUNT", str(rnd.randrange(1, 4)), "JUSTID")
    if op == 15:
        return rnd.choice([("XPENDING", k, g), ("XINFO", "GROUPS", k),
                           ("XGROUP", "DELCONSUMER", k, g, c), ("XGROUP", "CREATECONSUMER", k, g, c),
                           ("XGROUP", "DESTROY", k, g)])
    if op == 16:
        return ("XREAD", "COUNT", str(rnd.randrange(1, 5)), "STREAMS", *RKEYS, _rid(rnd), _rid(rnd))
    return rnd.choice([("XLEN", k), ("XLEN", k), ("XSETID", k, "%d-3" % ms[0]), ("DEL", k)])


def _pending_ext(k, g):
    return pending_ext("XPENDING", k, g, "-", "+", "100")


@pytest.mark.parametrize("seed", range(10))
def test_random_sequences(diff, seed):
    """Random stream commands over two keys, two groups and three consumers, with IDs from a
    small space: every reply identical to Redis's (XPENDING's idle times masked); each key's
    entries, groups, and stream info compared along the way and at the end."""
    rnd = random.Random(seed)
    ms = [1]
    steps = []
    for _ in range(300):
        steps.append(random_step(rnd, ms))
        if rnd.random() < 0.08:
            for k in RKEYS:
                steps += [("XRANGE", k, "-", "+"), info("XINFO", "STREAM", k, "FULL")]
                steps += [_pending_ext(k, g) for g in RGROUPS]
    for k in RKEYS:
        steps += [("XRANGE", k, "-", "+"), info("XINFO", "STREAM", k, "FULL")]
    diff.run(steps, title="random sequence %d" % seed)
