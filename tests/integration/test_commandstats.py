"""INFO commandstats against redis-server: calls, rejected_calls and failed_calls per command
and subcommand after the same commands on both servers (refusals before a command runs,
errors it answers, errors inside MULTI/EXEC and scripts, blocking commands served, timed out,
unblocked and failed), CONFIG RESETSTAT clearing them, and usec measuring what a command
took."""

import re

import terse_harness as h

DEBUG_ARGS = ["--enable-debug-command", "yes"]


def cmdstats(raw):
    """The cmdstat_ lines of an INFO reply without the timings (usec, usec_per_call), which
    differ between two servers; sorted, as Redis lists them in its dictionary's order."""
    text = h.decode_one(raw)
    if not isinstance(text, bytes):
        return raw
    rows = []
    for line in text.split(b"\r\n"):
        if line.startswith(b"cmdstat_"):
            rows.append(re.sub(rb"usec=\d+,usec_per_call=[0-9.]+,", b"", line))
    return sorted(rows)


def norm(raw):
    return cmdstats(raw) if raw.startswith(b"$") else raw


def test_commandstats_as_redis(pair):
    t, r, _ = pair(DEBUG_ARGS)
    h.compare_clients(t, r, [
        ("a", "CONFIG", "RESETSTAT"), ("a", "INFO", "commandstats"),
        ("a", "SET", "s", "x"), ("a", "GET", "s"), ("a", "GET"), ("a", "GET", "s", "t"),
        ("a", "LPUSH", "s", "y"), ("a", "NOSUCH", "arg"), ("a", "CONFIG", "GET", "maxmemory"),
        ("a", "CONFIG", "NOSUCH"), ("a", "OBJECT", "ENCODING", "s"),
        ("a", "MULTI"), ("a", "INCR", "s"), ("a", "SET", "k", "v"), ("a", "EXEC"),
        ("a", "MULTI"), ("a", "SET", "k"), ("a", "EXEC"),
        ("a", "MULTI"), ("a", "SUBSCRIBE", "c"), ("a", "DISCARD"),
        ("a", "EVAL", "return redis.pcall('incr', KEYS[1])", "1", "s"),
        ("a", "EVAL", "return redis.call('get', KEYS[1])", "1", "k"),
        ("a", "EVAL", "return redis.call('incr', KEYS[1])", "1", "s"),
        ("a", "INFO", "commandstats"),
        ("a", "CONFIG", "RESETSTAT"), ("a", "INFO", "commandstats"),
    ], norm=norm)


def test_commandstats_of_blocking_commands(pair):
    t, r, _ = pair(DEBUG_ARGS)
    h.compare_clients(t, r, [
        ("a", "CONFIG", "RESETSTAT"),
        # served by a push: one call of BLPOP, whatever it took to wait
        ("b>", "BLPOP", "l", "0"), ("blocked", 1), ("a", "RPUSH", "l", "x"), ("b<",),
        # timed out
        ("b", "BRPOP", "l", "0.05"),
        ("a", "XGROUP", "CREATE", "st", "g", "$", "MKSTREAM"),
        # its group destroyed: the call fails with -NOGROUP
        ("b>", "XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "st", ">"),
        ("blocked", 1), ("a", "XGROUP", "DESTROY", "st", "g"), ("b<",),
        ("a", "INFO", "commandstats"),
    ], norm=norm)


def test_commandstats_of_client_unblock(pair):
    t, r, _ = pair()
    for server in (t, r):
        with server.raw() as a, server.raw() as b:
            a.call("CONFIG", "RESETSTAT")
            bid = h.decode_one(b.call("CLIENT", "ID"))
            for how in ("TIMEOUT", "ERROR"):
                b.send(h.encode("BZPOPMIN", "z", "0"))
                h.wait_blocked(server, 1)
                assert a.call("CLIENT", "UNBLOCK", str(bid), how) == b":1\r\n"
                b.read_reply()
            rows = cmdstats(a.call("INFO", "commandstats"))
        # Redis counts a call CLIENT UNBLOCK ended as failed, with TIMEOUT too
        assert b"cmdstat_bzpopmin:calls=2,rejected_calls=0,failed_calls=2" in rows, \
            (server.name, rows)


def test_commandstats_usec_measures_the_command(pair):
    t, _, _ = pair(DEBUG_ARGS)
    with t.raw() as c:
        c.call("CONFIG", "RESETSTAT")
        assert c.call("DEBUG", "SLEEP", "0.05") == b"+OK\r\n"
        text = h.decode_one(c.call("INFO", "commandstats")).decode()
    m = re.search(r"cmdstat_debug:calls=1,usec=(\d+),usec_per_call=([0-9.]+),", text)
    assert m, text
    assert 50000 <= int(m.group(1)) < 5000000, text
    assert float(m.group(2)) == int(m.group(1)), text
