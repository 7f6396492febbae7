"""Transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH, against redis-server.

The single-connection sequences go through the Differ. WATCH needs a second client that
changes keys between WATCH and EXEC, so those scripts run on two raw connections per server,
interleaved the same way on both (terse_harness.compare_clients).
Servers of the tests' own (pair) where CONFIG SET or DEBUG would leak into other tests.
"""

import pytest

import alloc_harness as ah
import terse_harness as h
from terse_harness import Step

DEBUG_ARGS = ["--enable-debug-command", "yes"]


def test_multi_exec_discard_replies(diff):
    diff.run([
        Step("EXEC"), Step("DISCARD"),
        Step("MULTI"), Step("MULTI"), Step("WATCH", "x"), Step("EXEC"),  # empty: *0
        Step("MULTI"), Step("SET", "a", "1"), Step("INCR", "a"), Step("LPUSH", "a", "x"),
        Step("GET", "a"), Step("UNWATCH"), Step("PING"), Step("ECHO", "hi"), Step("EXEC"),
        Step("MULTI"), Step("SET", "a", "2"), Step("DISCARD"), Step("GET", "a"),
        # Errors while queueing doom the transaction; nothing of it runs.
        Step("MULTI"), Step("SET", "b", "1"), Step("SET", "b"), Step("NOSUCHCMD", "x"),
        Step("CONFIG", "NOSUCHSUB"), Step("SAVE"), Step("SHUTDOWN"), Step("EXEC"),
        Step("EXISTS", "b"),
        # Errors at run time are replies inside EXEC's array; the rest still runs.
        Step("MULTI"), Step("SET", "c", "x"), Step("INCR", "c"), Step("SET", "d", "1"),
        Step("EXEC"), Step("MGET", "c", "d"),
        # SELECT inside a transaction moves the connection.
        Step("MULTI"), Step("SELECT", "3"), Step("SET", "in3", "v"), Step("SELECT", "0"),
        Step("EXEC"), Step("EXISTS", "in3"), Step("SELECT", "3"), Step("GET", "in3"),
        Step("SELECT", "0"),
        # Arity of the commands themselves.
        Step("MULTI", "x"), Step("WATCH"), Step("UNWATCH", "x"),
        Step("MULTI"), Step("EXEC", "x"), Step("DISCARD", "x"), Step("EXEC"),
        # RESET inside MULTI ends it; QUIT is not queued either.
        Step("MULTI"), Step("SET", "e", "1"), Step("RESET"), Step("EXEC"), Step("EXISTS", "e"),
    ])


def test_multi_resp3(diff):
    diff.run([
        Step(raw=h.encode("HELLO", "3"), norm=h.hello3_norm, why="the client id differs"),
        Step("MULTI"), Step("HSET", "h", "f", "v"), Step("HGETALL", "h"), Step("SMEMBERS", "s"),
        Step("GET", "none"), Step("EXEC"),
        Step("WATCH", "h"), Step("HSET", "h", "f", "w"), Step("MULTI"), Step("PING"),
        Step("EXEC"),  # null in RESP3: _
    ])


def _watch_round(key_setup, change, watch=("k",)):
    """a watches, b runs change, a runs a transaction: EXEC is null if change touched."""
    return (key_setup + [("a", "WATCH", *watch)] + change +
            [("a", "MULTI"), ("a", "PING"), ("a", "EXEC"), ("a", "FLUSHALL")])


# (name, setup, change by the other client): the outcome (PONG or null) comes from redis.
WATCH_CASES = [
    ("untouched", [("a", "SET", "k", "1")], [("b", "GET", "k"), ("b", "SET", "other", "1")]),
    ("set", [("a", "SET", "k", "1")], [("b", "SET", "k", "1")]),
    ("set-nx-fails", [("a", "SET", "k", "1")], [("b", "SET", "k", "2", "NX")]),
    ("set-xx-missing", [], [("b", "SET", "k", "2", "XX")]),
    ("incrby-0", [("a", "SET", "k", "1")], [("b", "INCRBY", "k", "0")]),
    ("del", [("a", "SET", "k", "1")], [("b", "DEL", "k")]),
    ("del-missing", [], [("b", "DEL", "k")]),
    ("expire", [("a", "SET", "k", "1")], [("b", "EXPIRE", "k", "100")]),
    ("persist-none", [("a", "SET", "k", "1")], [("b", "PERSIST", "k")]),
    ("persist", [("a", "SET", "k", "1", "EX", "100")], [("b", "PERSIST", "k")]),
    ("rename-onto", [("a", "SET", "k", "1"), ("a", "SET", "s", "2")],
     [("b", "RENAME", "s", "k")]),
    ("rename-away", [("a", "SET", "k", "1")], [("b", "RENAME", "k", "z")]),
    ("copy-onto", [("a", "SET", "s", "2")], [("b", "COPY", "s", "k")]),
    ("move-away", [("a", "SET", "k", "1")], [("b", "MOVE", "k", "1")]),
    ("other-db", [("a", "SET", "k", "1")],
     [("b", "SELECT", "2"), ("b", "SET", "k", "1"), ("b", "SELECT", "0")]),
    ("flushdb", [("a", "SET", "k", "1")], [("b", "FLUSHDB")]),
    ("flushdb-missing", [], [("b", "FLUSHDB")]),
    ("flushall-other-db", [("a", "SET", "k", "1")],
     [("b", "SELECT", "1"), ("b", "FLUSHDB"), ("b", "SELECT", "0")]),
    ("swapdb-exists", [("a", "SET", "k", "1")], [("b", "SWAPDB", "0", "1")]),
    ("swapdb-comes-in", [("a", "SELECT", "1"), ("a", "SET", "k", "1"), ("a", "SELECT", "0")],
     [("b", "SWAPDB", "0", "1")]),
    ("swapdb-neither", [], [("b", "SWAPDB", "0", "1")]),
    ("append", [("a", "SET", "k", "1")], [("b", "APPEND", "k", "2")]),
    ("lpush", [], [("b", "LPUSH", "k", "x")]),
    ("lpop-empty", [], [("b", "LPOP", "k")]),
    ("sadd", [("a", "SADD", "k", "m")], [("b", "SADD", "k", "n")]),
    ("sadd-existing", [("a", "SADD", "k", "m")], [("b", "SADD", "k", "m")]),
    ("srem-missing", [("a", "SADD", "k", "m")], [("b", "SREM", "k", "n")]),
    ("smove-dst", [("a", "SADD", "s", "m"), ("a", "SADD", "k", "m")],
     [("b", "SMOVE", "s", "k", "m")]),
    ("hset-same", [("a", "HSET", "k", "f", "v")], [("b", "HSET", "k", "f", "v")]),
    ("hdel-missing", [("a", "HSET", "k", "f", "v")], [("b", "HDEL", "k", "g")]),
    ("self", [("a", "SET", "k", "1")], [("a", "SET", "k", "2")]),
    ("unwatch", [("a", "SET", "k", "1")], [("b", "SET", "k", "2"), ("a", "UNWATCH")]),
    ("two-keys", [("a", "SET", "k", "1")], [("b", "SET", "j", "2")]),
]


@pytest.mark.parametrize("name,setup,change", WATCH_CASES, ids=[c[0] for c in WATCH_CASES])
def test_watch_touches_as_redis(pair, name, setup, change):
    t, r, _ = pair()
    h.compare_clients(t, r, _watch_round(setup, change, watch=("k", "j")))


def test_watch_cleared_by_exec_discard_and_kept_across_dbs(pair):
    t, r, _ = pair()
    h.compare_clients(t, r, [
        # After EXEC (failed or not) nothing stays watched.
        ("a", "SET", "k", "1"), ("a", "WATCH", "k"), ("b", "SET", "k", "2"),
        ("a", "MULTI"), ("a", "EXEC"), ("b", "SET", "k", "3"), ("a", "MULTI"), ("a", "PING"),
        ("a", "EXEC"),
        # DISCARD unwatches and clears the dirty mark.
        ("a", "WATCH", "k"), ("b", "SET", "k", "4"), ("a", "MULTI"), ("a", "DISCARD"),
        ("a", "MULTI"), ("a", "INCR", "k"), ("a", "EXEC"),
        # A key is watched in the db it was named in.
        ("a", "SELECT", "5"), ("a", "SET", "x", "1"), ("a", "WATCH", "x"), ("a", "SELECT", "1"),
        ("a", "SET", "x", "2"), ("a", "SELECT", "5"), ("a", "MULTI"), ("a", "PING"),
        ("a", "EXEC"),
        ("a", "WATCH", "x"), ("a", "SELECT", "1"), ("b", "SELECT", "5"), ("b", "DEL", "x"),
        ("a", "MULTI"), ("a", "PING"), ("a", "EXEC"),
        # Watching twice is watching once; many clients on one key.
        ("a", "WATCH", "y", "y"), ("b", "WATCH", "y"), ("a", "SET", "y", "1"),
        ("b", "MULTI"), ("b", "PING"), ("b", "EXEC"), ("a", "MULTI"), ("a", "PING"),
        ("a", "EXEC"),
    ])


def test_watch_and_expiry(pair):
    """Stale at WATCH: no change. Expired after WATCH (lazily at EXEC, or by the active
    cycle): a change. SWAPDB bringing or swapping stale keys: no change."""
    t, r, _ = pair(DEBUG_ARGS)
    lazy = [("a", "DEBUG", "SET-ACTIVE-EXPIRE", "0")]
    h.compare_clients(t, r, lazy + [
        ("a", "SET", "x", "1", "PX", "1"), ("sleep", 0.02), ("a", "WATCH", "x"),
        ("a", "MULTI"), ("a", "PING"), ("a", "EXEC"),
        ("a", "SET", "x", "1", "PX", "1"), ("sleep", 0.02), ("a", "WATCH", "x"),
        ("a", "EXISTS", "x"), ("a", "MULTI"), ("a", "PING"), ("a", "EXEC"),
        ("a", "SET", "x", "1", "PX", "60"), ("a", "WATCH", "x"), ("sleep", 0.1),
        ("a", "MULTI"), ("a", "PING"), ("a", "EXEC"),
        # SWAPDB: a missing key replaced with a stale one, a stale one with a stale one.
        ("a", "FLUSHALL"), ("a", "SET", "x", "1", "PX", "1"), ("sleep", 0.02),
        ("a", "SELECT", "1"), ("a", "WATCH", "x"), ("b", "SWAPDB", "0", "1"),
        ("a", "MULTI"), ("a", "PING"), ("a", "EXEC"),
        ("a", "FLUSHALL"), ("a", "SET", "x", "1", "PX", "1"), ("a", "SELECT", "0"),
        ("a", "SET", "x", "2", "PX", "1"), ("sleep", 0.02), ("a", "SELECT", "1"),
        ("a", "WATCH", "x"), ("b", "SWAPDB", "0", "1"), ("a", "GET", "x"),
        ("a", "MULTI"), ("a", "PING"), ("a", "EXEC"), ("a", "SELECT", "0"),
        ("a", "DEBUG", "SET-ACTIVE-EXPIRE", "1"),
        # The active cycle deleting a watched key is a change.
        ("a", "SET", "y", "1", "PX", "50"), ("a", "WATCH", "y"), ("sleep", 0.6),
        ("b", "DBSIZE"), ("a", "MULTI"), ("a", "PING"), ("a", "EXEC"),
    ])


def test_multi_under_maxmemory(pair):
    """Over maxmemory, any command queued gets -OOM and dooms the transaction; EXEC of a queue
    holding a write is refused with EXECABORT; one of reads only runs; DISCARD always works."""
    t, r, _ = pair()
    h.compare_clients(t, r, [
        ("a", "SET", "x", "v"),
        ("a", "MULTI"), ("a", "SET", "y", "1"), ("a", "GET", "x"),
        ("b", "CONFIG", "SET", "maxmemory", "1"), ("a", "EXEC"),
        ("a", "MULTI"), ("a", "GET", "x"), ("a", "DISCARD"),
        ("a", "MULTI"), ("a", "GET", "x"), ("a", "EXEC"),
        ("b", "CONFIG", "SET", "maxmemory", "0"),
        ("a", "MULTI"), ("a", "GET", "x"), ("a", "PING"),
        ("b", "CONFIG", "SET", "maxmemory", "1"), ("a", "EXEC"),
        ("b", "CONFIG", "SET", "maxmemory", "0"), ("a", "EXISTS", "y"),
    ])


def test_client_list_shows_the_transaction(terse):
    """CLIENT LIST marks a client inside MULTI (flag x, multi=<queued>) and one whose watched
    key changed (flag d), as Redis does."""
    with terse.raw() as a, terse.raw() as b:
        aid = h.decode_one(a.call("CLIENT", "ID"))

        def line_of_a():
            text = h.decode_one(b.call("CLIENT", "LIST", "ID", str(aid))).decode()
            return " " + text.strip() + " "

        assert " flags=N " in line_of_a() and " multi=-1 " in line_of_a()
        a.call("WATCH", "k")
        b.call("SET", "k", "1")
        a.call("MULTI")
        a.call("SET", "k", "v")
        a.call("GET", "k")
        line = line_of_a()
        assert " flags=xd " in line and " multi=2 " in line, line
        assert a.call("EXEC") == b"*-1\r\n"
        assert " flags=N " in line_of_a() and " multi=-1 " in line_of_a()


def test_warm_multi_exec_loop_allocates_nothing(terse):
    """Queueing copies arguments into the client's own buffer, kept from one transaction to
    the next: a warm pipelined MULTI/SET/GET/EXEC loop allocates nothing."""
    parts = []
    for i in range(50):
        parts.append(h.encode("MULTI"))
        parts.append(h.encode("SET", "tx:%d" % i, "v" * (i * 3)))
        parts.append(h.encode("GET", "tx:%d" % i))
        parts.append(h.encode("INCR", "tx:n"))
        parts.append(h.encode("EXEC"))
    batch = b"".join(parts)
    with h.RawConn(terse.port) as c:
        ah.send_rounds(c, batch, 250, 5, {})
        ah.assert_rounds_allocate_nothing(c, "warm MULTI/EXEC loop", batch, 250, {})


def test_redis_py_pipeline_and_optimistic_lock(t, terse):
    """redis-py as applications use it: pipeline() sends MULTI/EXEC by default, and
    transaction() retries a WATCHed read-modify-write until no other client got in between."""
    pipe = t.pipeline()
    pipe.set("p", "1").incr("p").lpush("l", "a", "b").lrange("l", 0, -1).get("nokey")
    assert pipe.execute() == [True, 2, 2, [b"b", b"a"], None]

    other = terse.client()
    attempts = []

    def bump(p):
        attempts.append(1)
        value = int(p.get("counter") or 0)
        if len(attempts) == 1:
            other.set("counter", 100)  # gets in between the first WATCH and EXEC
        p.multi()
        p.set("counter", value + 1)

    assert t.transaction(bump, "counter") == [True]
    assert len(attempts) == 2 and t.get("counter") == b"101"
    other.close()
