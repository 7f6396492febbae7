"""Blocking commands (BLPOP, BRPOP, BLMPOP, BLMOVE, BRPOPLPUSH, BZPOPMIN, BZPOPMAX, BZMPOP,
XREAD and XREADGROUP with BLOCK) against redis-server.

Each script runs on several raw connections per server, interleaved the same way on both
(terse_harness.compare_clients): "a>" sends a blocking command without reading, another
client then writes, and "a<" reads what the blocked client got. A blocked client that is
never served would show up as "<no reply>" after the reply timeout.
"""

import pytest

import terse_harness as h
from terse_harness import Step

DEBUG_ARGS = ["--enable-debug-command", "yes"]

B1, B2, B3 = ("blocked", 1), ("blocked", 2), ("blocked", 3)

SCRIPTS = {
    "served-by-push": [
        ("a>", "BLPOP", "l1", "l2", "0"), B1, ("b", "RPUSH", "l2", "x", "y"), ("a<",),
        ("b", "LRANGE", "l2", "0", "-1"),
        ("a", "BRPOP", "l1", "l2", "0"),
        ("a>", "BRPOP", "l1", "l2", "0"), B1, ("b", "RPUSH", "l1", "z"), ("a<",),
        ("b", "EXISTS", "l1", "l2"),
    ],
    "available-at-once": [
        ("b", "RPUSH", "l2", "x", "y"), ("b", "RPUSH", "l3", "w"),
        ("a", "BLPOP", "l1", "l3", "l2", "0"), ("a", "BRPOP", "l2", "0"),
        ("a", "BLMPOP", "0", "2", "l1", "l2", "LEFT", "COUNT", "5"),
        ("a", "BLMOVE", "none", "d", "LEFT", "LEFT", "0.01"),
    ],
    "first-come-first-served": [
        ("a>", "BLPOP", "q", "0"), B1, ("b>", "BLPOP", "q", "0"), B2,
        ("c>", "BRPOP", "q", "0"), B3, ("d", "INFO", "clients"),
        ("d", "RPUSH", "q", "1", "2"), ("a<",), ("b<",), ("d", "RPUSH", "q", "3"), ("c<",),
    ],
    "same-key-twice": [
        ("a>", "BLPOP", "q", "q", "q", "0"), B1, ("b", "LPUSH", "q", "v"), ("a<",),
    ],
    "blmove-chain": [
        ("a>", "BLMOVE", "s", "d", "LEFT", "RIGHT", "0"), B1, ("b>", "BLPOP", "d", "0"), B2,
        ("c", "LPUSH", "s", "v1"), ("a<",), ("b<",), ("c", "EXISTS", "s", "d"),
        ("a>", "BRPOPLPUSH", "s", "s", "0"), B1, ("c", "RPUSH", "s", "x", "y"), ("a<",),
        ("c", "LRANGE", "s", "0", "-1"),
    ],
    "wrong-destination-type": [
        ("a>", "BRPOPLPUSH", "src", "dst", "0"), B1, ("b", "SET", "dst", "str"),
        ("b", "RPUSH", "src", "foo"), ("a<",), ("b", "LRANGE", "src", "0", "-1"),
    ],
    "key-becomes-string-then-list": [
        ("a>", "BLPOP", "k", "0"), B1, ("b", "SET", "k", "str"), ("b", "DEL", "k"),
        ("b", "LPUSH", "k", "z"), ("a<",),
        ("b", "MULTI"), ("b", "LPUSH", "k2", "v"), ("b", "DEL", "k2"), ("b", "SET", "k2", "s"),
        ("b", "EXEC"), ("a", "BLPOP", "k2", "0.05"),
    ],
    "moved-into-place": [
        ("a>", "BLPOP", "foo", "0"), B1, ("b", "LPUSH", "bob", "abc", "def", "hij"),
        ("b", "RENAME", "bob", "foo"), ("a<",),
        ("a>", "BLMPOP", "0", "1", "m", "RIGHT", "COUNT", "2"), B1, ("b", "SELECT", "3"),
        ("b", "RPUSH", "m", "1", "2", "3"), ("b", "MOVE", "m", "0"), ("a<",),
        ("a>", "BLPOP", "sw", "0"), B1, ("b", "RPUSH", "sw", "from3"),
        ("b", "SWAPDB", "0", "3"), ("a<",), ("b", "SELECT", "0"),
    ],
    "pipelined-behind-a-block": [
        ("a>", "BLPOP", "p", "0"), ("a>", "PING"), ("a>", "LLEN", "p"), B1,
        ("b", "RPUSH", "p", "1", "2"), ("a<",), ("a<",), ("a<",),
    ],
    "timeouts": [
        ("a", "BLPOP", "t", "0.05"), ("a", "BRPOP", "t", "0.001"),
        ("a", "BLMPOP", "0.02", "1", "t", "LEFT"),
        ("a", "BLMOVE", "t", "u", "LEFT", "LEFT", "0.02"),
        ("a", "BRPOPLPUSH", "t", "u", "0.0001"),
        ("a", "HELLO", "3"), ("a", "BLPOP", "t", "0.02"),
        ("a", "BLMOVE", "t", "u", "RIGHT", "LEFT", "0.02"),
    ],
    "errors": [
        ("a", "SET", "s", "1"), ("a", "BLPOP", "s", "0"), ("a", "BLPOP", "none", "s", "0"),
        ("a", "BLPOP", "k", "-1"), ("a", "BLPOP", "k", "abc"), ("a", "BLPOP", "k", "nan"),
        ("a", "BLPOP", "k", "inf"), ("a", "BLPOP", "k", "1e30"),
        ("a", "BLMOVE", "k", "d", "UP", "LEFT", "0"),
        ("a", "BLMOVE", "k", "d", "LEFT", "LEFT", "x"),
        ("a", "BLMPOP", "0", "0", "k", "LEFT"), ("a", "BLMPOP", "x", "1", "k", "LEFT"),
        ("a", "BLMPOP", "0", "1", "k", "MIDDLE"),
        ("a", "BLMPOP", "0", "1", "k", "LEFT", "COUNT", "0"),
        ("a", "BRPOPLPUSH", "s", "d", "0"), ("a", "BLPOP", "k"),
        ("a", "BLMOVE", "a", "b", "LEFT"),
    ],
    "inside-multi": [
        ("a", "MULTI"), ("a", "BLPOP", "e", "0"), ("a", "BRPOP", "e", "0"),
        ("a", "BLMOVE", "e", "f", "LEFT", "LEFT", "0"), ("a", "BRPOPLPUSH", "e", "f", "0"),
        ("a", "BLMPOP", "0", "1", "e", "LEFT"), ("a", "RPUSH", "e", "v"),
        ("a", "BLPOP", "e", "0"), ("a", "EXEC"),
    ],
    "zset-pops": [
        ("a>", "BZPOPMIN", "z1", "z2", "0"), B1, ("b", "ZADD", "z2", "3", "c", "1", "a", "2", "b"),
        ("a<",), ("a", "BZPOPMAX", "z1", "z2", "0"),
        ("a>", "BZMPOP", "0", "2", "z1", "z3", "MAX", "COUNT", "5"), B1,
        ("b", "ZADD", "z1", "7", "x"), ("a<",),
        ("a", "BZMPOP", "0.01", "1", "z1", "MIN"), ("a", "BZPOPMIN", "z1", "0.01"),
        ("a>", "BZPOPMIN", "z", "0"), B1, ("b", "SET", "z", "s"), ("b", "DEL", "z"),
        ("b", "ZADD", "z", "1", "m"), ("a<",),
        ("a", "HELLO", "3"), ("b", "ZADD", "z", "2.5", "n"), ("a", "BZPOPMIN", "z", "0"),
        ("a", "BZPOPMAX", "z", "0.01"), ("a", "BZMPOP", "0.01", "1", "z", "MIN"),
        ("b", "SET", "s", "1"), ("a", "BZPOPMIN", "s", "0"),
        ("a", "BZMPOP", "0", "1", "s", "MIN"), ("a", "BZMPOP", "0", "1", "s", "UP"),
        ("a", "BZPOPMIN", "s", "-1"),
        ("a", "MULTI"), ("a", "BZPOPMIN", "e", "0"), ("a", "BZMPOP", "0", "1", "e", "MIN"),
        ("a", "EXEC"),
    ],
    "xread-block": [
        ("b", "XADD", "s", "1-1", "a", "1"),
        ("a>", "XREAD", "BLOCK", "0", "STREAMS", "s", "$"), B1,
        ("b", "XADD", "s", "2-1", "a", "2"), ("a<",),
        ("a>", "XREAD", "COUNT", "1", "BLOCK", "0", "STREAMS", "t", "s", "0-0", "2-1"), B1,
        ("b", "XADD", "t", "5-1", "x", "y"), ("a<",),
        ("a", "XREAD", "BLOCK", "20", "STREAMS", "s", "$"),
        ("a>", "XREAD", "BLOCK", "0", "STREAMS", "k", "$"), B1, ("b", "SET", "k", "v"),
        ("b", "DEL", "k"), ("b", "XADD", "k", "7-1", "f", "v"), ("a<",),
        ("a", "MULTI"), ("a", "XREAD", "BLOCK", "0", "STREAMS", "s", "$"), ("a", "EXEC"),
        ("a", "HELLO", "3"), ("a", "XREAD", "BLOCK", "20", "STREAMS", "s", "$"),
        ("a", "XREAD", "BLOCK", "-1", "STREAMS", "s", "$"),
        ("a", "XREAD", "BLOCK", "x", "STREAMS", "s", "$"),
    ],
    "xreadgroup-block": [
        ("b", "XADD", "s", "1-1", "a", "1"), ("b", "XGROUP", "CREATE", "s", "g", "$"),
        ("a>", "XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">"), B1,
        ("b", "XADD", "s", "2-1", "a", "2"), ("a<",), ("b", "XPENDING", "s", "g"),
        ("a>", "XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">"), B1,
        ("b", "XGROUP", "DESTROY", "s", "g"), ("a<",),
        ("b", "XGROUP", "CREATE", "s", "g", "$"),
        ("a>", "XREADGROUP", "GROUP", "g", "bob", "BLOCK", "0", "STREAMS", "s", ">"), B1,
        ("b", "SET", "other", "1"), ("b", "DEL", "s"), ("a<",),
        ("b", "XADD", "s", "3-1", "a", "3"), ("b", "XGROUP", "CREATE", "s", "g", "$"),
        ("a>", "XREADGROUP", "GROUP", "g", "bob", "BLOCK", "0", "STREAMS", "s", ">"), B1,
        ("b", "DEL", "s"), ("b", "SET", "s", "str"), ("a<",),
        ("a", "XREADGROUP", "GROUP", "g", "bob", "BLOCK", "10", "STREAMS", "nokey", ">"),
    ],
    "huge-timeouts": [
        ("a>", "XREAD", "BLOCK", "9223372036854775807", "STREAMS", "h", "$"), B1,
        ("b", "XADD", "h", "1-1", "f", "v"), ("a<",),
        ("a>", "BLPOP", "hl", "9223372036854775.807"), B1, ("b", "RPUSH", "hl", "x"), ("a<",),
    ],
    "client-gone": [
        ("a>", "BLPOP", "g", "0"), B1, ("b", "CLIENT", "KILL", "SKIPME", "yes"),
        ("blocked", 0), ("c", "RPUSH", "g", "kept"), ("c", "LRANGE", "g", "0", "-1"),
    ],
}


def info_blocked(raw):
    """INFO clients reduced to its blocked-client fields."""
    v = h.decode_one(raw)
    if not isinstance(v, bytes):
        return v
    return [line for line in v.split(b"\r\n")
            if line.startswith((b"blocked_clients", b"clients_in_timeout_table"))]


def norm(raw):
    """INFO clients as its blocked-client fields; HELLO 3 without the client id."""
    if raw.startswith(b"$") and b"connected_clients" in raw:
        return info_blocked(raw)
    if raw.startswith(b"%7"):
        return h.hello3_norm(raw)
    return raw


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_blocking_as_redis(pair, name):
    t, r, _ = pair()
    h.compare_clients(t, r, SCRIPTS[name], norm=norm)


def test_client_unblock_and_client_list(terse):
    """CLIENT UNBLOCK ends a wait with the timeout reply or the UNBLOCKED error; CLIENT LIST
    shows a blocked client with flag b; the client works again afterwards."""
    with terse.raw() as a, terse.raw() as b:
        aid = h.decode_one(a.call("CLIENT", "ID"))
        a.send(h.encode("BLPOP", "q", "0"))
        h.wait_blocked(terse, 1)
        line = h.decode_one(b.call("CLIENT", "LIST", "ID", str(aid))).decode()
        assert " flags=b " in line, line
        assert b.call("CLIENT", "UNBLOCK", str(aid)) == b":1\r\n"
        assert a.read_reply() == b"*-1\r\n"
        a.send(h.encode("BLMOVE", "q", "r", "LEFT", "LEFT", "0"))
        h.wait_blocked(terse, 1)
        assert b.call("CLIENT", "UNBLOCK", str(aid), "TIMEOUT") == b":1\r\n"
        assert a.read_reply() == b"*-1\r\n"  # a null array even for BLMOVE, as in Redis 7.0
        a.send(h.encode("BRPOP", "q", "0"))
        h.wait_blocked(terse, 1)
        assert b.call("CLIENT", "UNBLOCK", str(aid), "ERROR") == b":1\r\n"
        assert a.read_reply() == b"-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n"
        assert b.call("CLIENT", "UNBLOCK", str(aid)) == b":0\r\n"
        assert b.call("CLIENT", "UNBLOCK", "x").startswith(b"-ERR value is not an integer")
        assert b.call("CLIENT", "UNBLOCK", str(aid), "NOW").startswith(
            b"-ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
        a.send(h.encode("BLPOP", "q", "0"))
        h.wait_blocked(terse, 1)
        assert b.call("LPUSH", "q", "v") == b":1\r\n"
        assert h.decode_one(a.read_reply()) == [b"q", b"v"]
        assert " flags=N " in h.decode_one(b.call("CLIENT", "LIST", "ID", str(aid))).decode()


def test_blocked_client_survives_flush_and_expiry(pair):
    """A FLUSHALL, or the key expiring, does not serve a blocked client; a later push does."""
    t, r, _ = pair(DEBUG_ARGS)
    h.compare_clients(t, r, [
        ("a>", "BLPOP", "x", "0"), ("blocked", 1), ("b", "RPUSH", "y", "1"), ("b", "FLUSHALL"),
        ("b", "SET", "x", "1", "PX", "20"), ("sleep", 0.2), ("b", "DBSIZE"),
        ("b", "RPUSH", "x", "v"), ("a<",),
    ])


def test_command_docs_of_the_blocking_commands(diff):
    diff.run([Step("COMMAND", "INFO", "blpop", "brpop", "blmpop", "blmove", "brpoplpush",
                   "bzpopmin", "bzpopmax", "bzmpop"),
              Step("COMMAND", "DOCS", "blpop", "blmove", "bzmpop"),
              Step("COMMAND", "GETKEYS", "BLMPOP", "0", "2", "a", "b", "LEFT"),
              Step("COMMAND", "GETKEYS", "BZMPOP", "0", "2", "a", "b", "MIN")])
