"""Helpers shared by the container-type suites (test_hash*.py, test_list.py, test_set.py).

Each suite drives its type the same ways: wrong arity for every command of the type, random
picks judged by shape and membership, DEBUG DIGEST-VALUE within each server, DEBUG
CORRUPT-VALUE on a stored value, and SAVE then a restart on a server of its own. The command
tables, keys and checks stay in the suites; the procedure lives here. Generic helpers (the
Differ, flush, norms, allocation counts) are in terse_harness; the `pair` fixture is in
conftest.py.
"""

import contextlib
import functools

import pytest

import terse_harness as h
from terse_harness import Step, decode_one

DEBUG_ARGS = ["--enable-debug-command", "yes"]


def arity_steps(arity_table, key, filler):
    """For each (command, arity) of a Redis command table (positive exact, negative a minimum,
    both counting the command name): the bare command, one argument short where that still
    names a key, and one too many for an exact arity. key and filler fill the arguments."""
    steps = []
    for name, arity in arity_table:
        need = abs(arity)
        steps.append(Step(name.upper()))
        if need > 2:
            steps.append(Step(name, key, *([filler] * (need - 3))))  # one short
        if arity > 0:
            steps.append(Step(name, key, *([filler] * (arity - 1))))  # one too many
    return steps


def digest_clients(pair):
    """For a redis-server, then a terse, of this test's own with DEBUG enabled: (server, client,
    dv), dv(*keys) being DEBUG DIGEST-VALUE of the keys on that server. Each client is closed
    when the caller's loop body for it ends without an error."""
    t, r, _ = pair(DEBUG_ARGS)
    for server in (r, t):
        c = server.client()
        yield server, c, functools.partial(c.execute_command, "DEBUG", "DIGEST-VALUE")
        c.close()


def pick_norm(contents, count, item, kind, aggregate):
    """A norm for a random pick (HRANDFIELD, SRANDMEMBER, SPOP) from a key holding contents
    (bytes; a dict or a set): an error as it is; without a count, a null from an empty key or
    one item of contents; with a count, what aggregate(reply, raw) makes of the reply.
    item and kind name what is picked and from what ("field", "hash")."""
    def norm(raw):
        v = decode_one(raw)
        if isinstance(v, h.Err):
            return v
        if count is None:
            if v is None:
                return "null" if not contents else ("null from a non-empty %s" % kind, raw)
            if isinstance(v, bytes) and v in contents:
                return "one %s of the %s" % (item, kind)
            return ("not a %s of the %s" % (item, kind), raw)
        return aggregate(v, raw)
    return norm


def counted_picks(picked, contents, count, shape, raw, item, kind):
    """The part of a norm for a random pick with a count (HRANDFIELD, SRANDMEMBER, SPOP) that
    the types share: every picked item (field, member) is one of contents, there are as many
    as the count asks (up to the size for a positive count, exactly -count for a negative
    one), none is repeated under a positive count. Returns (shape, length), with the sorted
    picks when the count covers the whole key; else (the fault, raw)."""
    if any(not isinstance(x, bytes) or x not in contents for x in picked):
        return ("a %s not in the %s" % (item, kind), raw)
    want = min(count, len(contents)) if count >= 0 else -count
    if len(picked) != want:
        return ("%d %ss, want %d" % (len(picked), item, want), raw)
    if count > 0 and len(set(picked)) != len(picked):
        return ("a %s repeated under a positive count" % item, raw)
    out = (shape, len(picked))
    if count >= len(contents):
        out += (sorted(picked),)
    return out


# ---- DEBUG CORRUPT-VALUE ---------------------------------------------------------------------

def corruptible_terse(spawn, terse_binary):
    """A terse of this test's own with DEBUG enabled; skips the test when a redis-server stands
    in for terse (CORRUPT-VALUE is terse's)."""
    if h.is_redis(terse_binary):
        pytest.skip("CORRUPT-VALUE is terse's")
    return spawn("terse", DEBUG_ARGS)


def assert_corrupt_reported(conn, cmds, setup, check):
    """For each command: setup(conn) writes the key c afresh (and the keys beside it), DEBUG
    CORRUPT-VALUE flips a byte of c, and the command must answer the CORRUPT error; then
    check(conn, cmd) asserts what the command must have left unchanged. The connection still
    answers PING at the end."""
    for cmd in cmds:
        setup(conn)
        assert conn.call("DEBUG", "CORRUPT-VALUE", "c") == b"+OK\r\n"
        got = conn.call(*cmd)
        assert got.startswith(b"-CORRUPT"), (cmd, got[:200])
        check(conn, cmd)
    assert conn.call("PING") == b"+PONG\r\n"


# ---- SAVE and restart ------------------------------------------------------------------------

@contextlib.contextmanager
def debug_server(binary, pdir, name):
    """(server, redis-py client) of a server with DEBUG enabled whose files live in pdir, so a
    second one started on the same pdir loads what the first saved. The server is killed on
    leaving (no shutdown save); the client is closed when the block ends without an error."""
    s = h.Server(binary, pdir, DEBUG_ARGS, None, name).start()
    try:
        c = s.client()
        yield s, c
        c.close()
    finally:
        s.kill()


def save_restart_views(terse_binary, oracle_binary, tmp_path, fill, view, write_after=None):
    """For redis-server, then terse, each with files of its own: fill(server) writes the keys,
    view(server) before SAVE, a restart on the same files, view(server) again; DEBUG DIGEST
    must survive the restart and DEBUG RELOAD must leave the view as the restart did; then
    write_after(client), if given, shows the loaded values still take writes (it asserts).
    Returns {"redis": (before, after), "terse": (before, after)} for the caller to compare."""
    views = {}
    for kind, binary in (("redis", oracle_binary), ("terse", terse_binary)):
        pdir = str(tmp_path / kind)
        with debug_server(binary, pdir, kind + "-a") as (s, c):
            fill(s)
            before = view(s)
            digest = c.execute_command("DEBUG", "DIGEST")
            assert c.save() is True
        with debug_server(binary, pdir, kind + "-b") as (s, c):
            after = view(s)
            assert c.execute_command("DEBUG", "DIGEST") == digest, kind
            assert c.execute_command("DEBUG", "RELOAD") == b"OK"
            assert view(s) == after, "%s: the view differs after DEBUG RELOAD" % kind
            if write_after is not None:
                write_after(c)
            views[kind] = (before, after)
    return views
