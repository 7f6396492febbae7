"""rename-command, as Redis 7.0 has it: a config-file directive (and so a command-line one,
since redis-server reads its command line as config lines), not a CONFIG option.

`rename-command X Y` makes the command callable as Y only: X answers the unknown-command
error; COMMAND, COMMAND INFO, COMMAND DOCS and COMMAND LIST still show the command under its
own name (Redis keeps its fullname), COMMAND INFO Y answers it, COMMAND INFO X nothing.
`rename-command X ""` removes the command: unknown under any name, gone from COMMAND's
listings and COUNT. Lines apply in order, each checked against what the lines before left:
"No such command in rename-command", "Target command name already exists". main's terse
stopped at the first such line with "Bad directive". Each test runs the same thing on terse
and redis-server 7.0.15 and compares what a user sees.
"""

import os
import subprocess

import pytest

import terse_harness as h

RENAMES = """\
rename-command get fetch
rename-command FLUSHALL ""
rename-command Fetch grab
rename-command set get
"""


def write_conf(tmp_path, text, name="rename.conf"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.fixture
def renamed(spawn, tmp_path):
    """(terse, redis) started with RENAMES, plus (terse, redis) started without."""
    conf = write_conf(tmp_path, RENAMES)
    return (spawn("terse", config_file=conf), spawn("redis", config_file=conf),
            spawn("terse"), spawn("redis"))


def calls(server, cmds):
    with server.raw() as c:
        return [c.call(*cmd) for cmd in cmds]


def same(t_server, r_server, cmds):
    t, r = calls(t_server, cmds), calls(r_server, cmds)
    rows = [(" ".join(map(str, cmd)), a, b, a == b) for cmd, a, b in zip(cmds, t, r)]
    assert t == r, "\n" + h.format_table(rows)
    return t


def test_old_name_unknown_new_name_works(renamed):
    """grab is GET, get is SET; fetch (renamed away again) and flushall are unknown, with
    Redis's unknown-command text; errors name the command by its own name."""
    t, r, _, _ = renamed
    out = same(t, r, [
        ("get", "k"),                 # SET now: wrong arity, named 'set'
        ("set", "k", "v"),
        ("get", "k", "v"),
        ("grab", "k"),
        ("GRAB", "k"),
        ("fetch", "k"),
        ("flushall",),
        ("FLUSHALL", "ASYNC"),
        ("grab",),
        ("MULTI",), ("grab", "k"), ("get", "k2", "v2"), ("EXEC",),
        ("EVAL", "return redis.call('grab','k')", "0"),
        ("EVAL", "return redis.pcall('set','k','v')", "0"),
    ])
    assert out[0] == b"-ERR wrong number of arguments for 'set' command\r\n"
    assert out[1] == b"-ERR unknown command 'set', with args beginning with: 'k' 'v' \r\n"
    assert out[3] == b"$1\r\nv\r\n"
    assert out[6] == b"-ERR unknown command 'flushall', with args beginning with: \r\n"


def test_command_introspection(renamed):
    """COMMAND INFO/DOCS/GETKEYS by the new name answer the command under its own name; by the
    old name, nothing; a removed command leaves COMMAND, COMMAND COUNT and COMMAND LIST."""
    t, r, t0, r0 = renamed
    same(t, r, [
        ("COMMAND", "INFO", "grab", "fetch", "flushall"),
        ("COMMAND", "DOCS", "grab", "flushall"),
        ("COMMAND", "GETKEYS", "grab", "k"),
        ("COMMAND", "GETKEYS", "get", "k", "v"),
        ("COMMAND", "GETKEYS", "flushall"),
    ])
    for s, plain in ((t, t0), (r, r0)):
        # The renamed row is the command itself.
        assert calls(s, [("COMMAND", "INFO", "grab")]) == calls(plain, [("COMMAND", "INFO",
                                                                          "get")])
        count, = calls(s, [("COMMAND", "COUNT")])
        count0, = calls(plain, [("COMMAND", "COUNT")])
        assert h.decode_one(count0) - h.decode_one(count) == 1, s.name
        names = set(h.decode_one(calls(s, [("COMMAND", "LIST")])[0]))
        names0 = set(h.decode_one(calls(plain, [("COMMAND", "LIST")])[0]))
        assert names0 - names == {b"flushall"}, (s.name, names0 - names)
        assert names - names0 == set(), s.name
        listed = [e[0] for e in h.decode_one(calls(s, [("COMMAND",)])[0])]
        assert b"get" in listed and b"set" in listed and b"flushall" not in listed
        assert b"grab" not in listed and len(listed) == len(set(listed))


def test_not_a_config_option(renamed):
    """CONFIG SET does not know rename-command, CONFIG GET shows nothing of it."""
    t, r, _, _ = renamed
    out = same(t, r, [
        ("CONFIG", "SET", "rename-command", "ping pong"),
        ("CONFIG", "GET", "rename-command"),
        ("CONFIG", "GET", "rename*"),
        ("PING",),
    ])
    assert out[0] == (b"-ERR Unknown option or number of arguments for CONFIG SET - "
                      b"'rename-command'\r\n")


def test_command_line(spawn):
    """--rename-command on the command line, as redis-server reads it."""
    extra = ["--rename-command", "get", "fetch", "--rename-command", "del", ""]
    t, r = spawn("terse", extra), spawn("redis", extra)
    same(t, r, [("SET", "k", "v"), ("fetch", "k"), ("get", "k"), ("del", "k"),
                ("COMMAND", "INFO", "del")])


def startup_error(binary, conf):
    """(exit status, the error's last lines: 'Reading ... at line N', '>>> line', reason)."""
    p = subprocess.run([binary, conf, "--port", str(h.free_port()), "--bind", "127.0.0.1",
                        "--save", ""], capture_output=True, text=True, timeout=20)
    lines = (p.stdout + p.stderr).strip().splitlines()
    at = [ln.rsplit(" at ", 1)[1] for ln in lines if ln.startswith("Reading the")]
    return p.returncode, at, lines[-2:]


@pytest.mark.parametrize("text,line,why", [
    ("rename-command nosuch x\n", 1, "No such command in rename-command"),
    ("rename-command get set\n", 1, "Target command name already exists"),
    ("rename-command get x\nrename-command get y\n", 2, "No such command in rename-command"),
    ("rename-command get ''\nrename-command get x\n", 2, "No such command in rename-command"),
    ("rename-command get x\nrename-command set X\n", 2, "Target command name already exists"),
    ("rename-command get\n", 1, "Bad directive or wrong number of arguments"),
    ("rename-command get a b\n", 1, "Bad directive or wrong number of arguments"),
])
def test_bad_lines_stop_startup(tmp_path, terse_binary, oracle_binary, text, line, why):
    conf = write_conf(tmp_path, text)
    got = {kind: startup_error(b, conf) for kind, b in (("terse", terse_binary),
                                                         ("redis", oracle_binary))}
    bad = text.splitlines()[line - 1]
    assert got["redis"] == (1, ["line %d" % line], [">>> '%s'" % bad, why]), got["redis"]
    assert got["terse"] == got["redis"], got


def test_chains_and_self_renames_start(spawn, tmp_path):
    """A name freed by a rename can be taken; a rename to the same name (any case) is none."""
    conf = write_conf(tmp_path, "rename-command get x\nrename-command set get\n"
                                "rename-command x X\nrename-command ping PING\n")
    t, r = spawn("terse", config_file=conf), spawn("redis", config_file=conf)
    same(t, r, [("get", "k", "v"), ("x", "k"), ("PING",), ("set", "k", "v")])


def test_subcommand_is_refused(tmp_path, terse_binary):
    """rename-command of a subcommand ("config|get"): redis-server 7.0.15 dies on an assertion
    (a crash report); terse refuses the line with "No such command in rename-command"."""
    conf = write_conf(tmp_path, "rename-command config|get x\n")
    assert startup_error(terse_binary, conf) == (
        1, ["line 1"], [">>> 'rename-command config|get x'", "No such command in rename-command"])
