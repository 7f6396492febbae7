"""Fixtures: the server under test (TERSE_BIN) and the oracle (Debian's redis-server 7.0).

Both run once per session on free loopback ports; each test gets a flushed keyspace.
Tests that need special options start their own servers through `spawn`.

The server under test gets only options that terse and redis-server both accept:
`--port N --bind 127.0.0.1 --save ''`, plus per-test extras (and `--appendonly no` when the
binary is itself a redis-server, so the stand-in never writes files).
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import terse_harness as h  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: takes more than a second")


@pytest.fixture(scope="session")
def terse_binary():
    path, why = h.terse_bin()
    if path is None:
        pytest.fail(why, pytrace=False)
    return path


@pytest.fixture(scope="session")
def oracle_binary():
    if not os.access(h.ORACLE_BIN, os.X_OK):
        pytest.fail("the oracle %s is missing: apt-get install redis-server" % h.ORACLE_BIN,
                    pytrace=False)
    return h.ORACLE_BIN


@pytest.fixture(scope="session")
def workdir(tmp_path_factory):
    return str(tmp_path_factory.mktemp("servers"))


SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")


def _stop_checked(server):
    """Stops a server under test and fails if it did not exit cleanly: a non-zero status after
    SIGTERM, or a sanitizer report in its log (the ASan build of make test relies on this)."""
    rc = server.stop()
    if h.is_redis(server.binary):
        return
    log = server.log_tail(1 << 20)
    found = [m for m in SANITIZER_MARKS if m in log]
    if found or rc != 0:
        pytest.fail("%s exited with status %s%s; log tail:\n%s"
                    % (server.name, rc, " and a sanitizer report" if found else "",
                       server.log_tail()), pytrace=False)


def _start(binary, workdir, name, extra=(), config_file=None):
    try:
        return h.Server(binary, os.path.join(workdir, name), extra, config_file, name).start()
    except h.ServerError as e:
        pytest.fail(str(e), pytrace=False)


@pytest.fixture(scope="session")
def terse_server(terse_binary, workdir):
    s = _start(terse_binary, workdir, "terse")
    yield s
    _stop_checked(s)


@pytest.fixture(scope="session")
def redis_server(oracle_binary, workdir):
    s = _start(oracle_binary, workdir, "redis")
    yield s
    s.stop()


def _check_alive(server):
    if not server.alive():
        pytest.fail("%s (port %s) is no longer running; log tail:\n%s"
                    % (server.name, server.port, server.log_tail()), pytrace=False)


def _flush(server):
    _check_alive(server)
    h.flush(server)


@pytest.fixture
def terse(terse_server):
    """The session's server under test, all databases empty."""
    _flush(terse_server)
    yield terse_server
    _check_alive(terse_server)


@pytest.fixture
def oracle(redis_server):
    _flush(redis_server)
    yield redis_server
    _check_alive(redis_server)


@pytest.fixture
def t(terse):
    """redis-py client (RESP2, bytes) on the server under test."""
    c = terse.client()
    yield c
    c.close()


@pytest.fixture
def r(oracle):
    c = oracle.client()
    yield c
    c.close()


@pytest.fixture
def diff(terse_server, redis_server):
    return h.Differ(terse_server, redis_server, before=_flush, after=_check_alive)


@pytest.fixture
def spawn(workdir, terse_binary, oracle_binary, request):
    """spawn(kind, extra_args=(), config_file=None) -> a started Server, stopped after the test.
    kind is "terse" (server under test) or "redis" (oracle)."""
    started = []

    def _spawn(kind, extra=(), config_file=None):
        binary = terse_binary if kind == "terse" else oracle_binary
        name = "%s-%s-%d" % (kind, request.node.name[:40].replace("/", "_"), len(started))
        s = _start(binary, workdir, name, extra, config_file)
        started.append(s)
        return s

    yield _spawn
    for s in started:
        if s.proc is not None and s.alive():
            _stop_checked(s)
        else:
            s.stop()


@pytest.fixture
def pair(spawn, terse_binary):
    """pair(extra=(), terse_only=()) -> (terse, redis, Differ) on servers of this test's own,
    so CONFIG SET and DEBUG change nothing the session's servers serve to other tests. extra
    goes to both servers; terse_only to terse alone (not to a redis-server standing in for it)."""
    def _pair(extra=(), terse_only=()):
        own = [] if h.is_redis(terse_binary) else list(terse_only)
        t = spawn("terse", list(extra) + own)
        r = spawn("redis", list(extra))
        return t, r, h.Differ(t, r, before=h.flush)
    return _pair


# python3-redis in Debian 12 is 4.3.4, which has no RESP3 (protocol=3 came with redis-py 5.0),
# so RESP3 is spoken raw: these fixtures give connections already switched with HELLO 3.
def _raw3(server):
    c = server.raw()
    reply = c.call("HELLO", "3")
    assert reply.startswith(b"%"), "HELLO 3 on %s answered %r" % (server.name, reply[:80])
    return c


@pytest.fixture
def t3(terse):
    """Raw RESP3 connection to the server under test (after HELLO 3)."""
    c = _raw3(terse)
    yield c
    c.close()


@pytest.fixture
def r3(oracle):
    c = _raw3(oracle)
    yield c
    c.close()
