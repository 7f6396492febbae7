"""Helpers shared by the integration tests: start servers, speak raw RESP, compare replies.

Nothing here knows about pytest fixtures (those live in conftest.py); tests import this module
directly for the raw-protocol helpers and the reply decoder.
"""

import os
import shlex
import signal
import socket
import subprocess
import time

ORACLE_BIN = "/usr/bin/redis-server"
START_TIMEOUT_S = float(os.environ.get("TERSE_START_TIMEOUT", "15"))
REPLY_TIMEOUT_S = float(os.environ.get("TERSE_REPLY_TIMEOUT", "10"))


def terse_bin():
    """Absolute path of the server under test, or None with the reason it is unusable."""
    path = os.environ.get("TERSE_BIN")
    if not path:
        return None, ("TERSE_BIN is not set: point it at build/terse-server "
                      "(or /usr/bin/redis-server as a stand-in), e.g. via `make integration`")
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        return None, "TERSE_BIN=%r is not an executable file (was the server built?)" % path
    return os.path.abspath(path), None


def is_redis(binary):
    return os.path.basename(binary).startswith("redis-server")


def free_port():
    """A loopback port that was free a moment ago (the caller retries if it is taken)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---- server processes -------------------------------------------------------------------

class ServerError(Exception):
    pass


class Server:
    """One server process on a free loopback port, output captured to a log file."""

    def __init__(self, binary, workdir, extra_args=(), config_file=None, name="server",
                 port=None):
        self.binary = binary
        self.workdir = workdir
        self.extra_args = list(extra_args)
        self.config_file = config_file
        self.name = name
        self.fixed_port = port
        self.port = None
        self.proc = None
        self.log_path = None
        self.returncode = None

    def argv(self, port):
        args = [self.binary]
        if self.config_file:
            args.append(self.config_file)
        args += ["--port", str(port), "--bind", "127.0.0.1", "--save", ""]
        if is_redis(self.binary):
            # The stand-in and the oracle must not write files of their own.
            args += ["--appendonly", "no"]
        return args + self.extra_args

    def start(self, attempts=5):
        os.makedirs(self.workdir, exist_ok=True)
        last = None
        for attempt in range(attempts):
            port = self.fixed_port or free_port()
            self.log_path = os.path.join(self.workdir, "%s-%d.log" % (self.name, port))
            log = open(self.log_path, "wb")
            self.proc = subprocess.Popen(self.argv(port), cwd=self.workdir, stdout=log,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            log.close()
            self.port = port
            try:
                self._wait_ready()
                return self
            except ServerError as e:
                last = e
                self.kill()
                if self.fixed_port:
                    break
        raise ServerError("%s did not start after %d attempts: %s" % (self.name, attempts, last))

    def log_tail(self, n=4000):
        try:
            with open(self.log_path, "rb") as f:
                return f.read()[-n:].decode("utf-8", "replace")
        except OSError:
            return "(no log)"

    def _wait_ready(self):
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise ServerError("exited with %s during startup; log:\n%s"
                                  % (self.proc.returncode, self.log_tail()))
            try:
                with RawConn(self.port, timeout=1.0) as c:
                    reply = c.call("PING")
                # NOAUTH is also a sign of life when requirepass is set.
                if reply == b"+PONG\r\n" or reply.startswith(b"-NOAUTH"):
                    return
            except (OSError, ReplyTimeout, ConnectionClosed):
                pass
            time.sleep(0.02)
        raise ServerError("no PONG within %.0fs on port %d; log:\n%s"
                          % (START_TIMEOUT_S, self.port, self.log_tail()))

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=10.0):
        """SIGTERM, wait, then SIGKILL. Returns the exit code seen (negative = signal)."""
        if self.proc is None:
            return self.returncode
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.returncode = self.proc.returncode
        self.proc = None
        return self.returncode

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def client(self, **kw):
        import redis
        kw.setdefault("socket_timeout", REPLY_TIMEOUT_S)
        return redis.Redis(host="127.0.0.1", port=self.port, decode_responses=False, **kw)

    def raw(self, timeout=REPLY_TIMEOUT_S):
        return RawConn(self.port, timeout=timeout)


# ---- raw RESP ---------------------------------------------------------------------------

class ReplyTimeout(Exception):
    pass


class ConnectionClosed(Exception):
    pass


def _b(x):
    if isinstance(x, bytes):
        return x
    if isinstance(x, (int, float)):
        return str(x).encode()
    return x.encode()


def encode(*args):
    """One command as a RESP multibulk request."""
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = _b(a)
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


def _line(buf, pos):
    end = buf.find(b"\r\n", pos)
    if end < 0:
        return None, None
    return buf[pos:end], end + 2


def reply_end(buf, pos=0):
    """Offset just past the one complete reply that starts at pos, or None if incomplete."""
    if pos >= len(buf):
        return None
    t = buf[pos:pos + 1]
    line, nxt = _line(buf, pos + 1)
    if line is None:
        return None
    if t in b"+-:_,#(":
        return nxt
    if t in b"$!=":
        n = int(line)
        if n < 0:
            return nxt
        if len(buf) < nxt + n + 2:
            return None
        return nxt + n + 2
    if t in b"*~>%|":
        n = int(line)
        if n < 0:
            return nxt
        if t in b"%|":
            n *= 2
        p = nxt
        for _ in range(n):
            p = reply_end(buf, p)
            if p is None:
                return None
        if t == b"|":  # an attribute is followed by the reply it annotates
            return reply_end(buf, p)
        return p
    raise ValueError("not a RESP reply at offset %d: %r" % (pos, buf[pos:pos + 40]))


class Err(bytes):
    """An error reply, decoded (without the leading '-')."""
    def __repr__(self):
        return "Err(%s)" % bytes.__repr__(self)


class Simple(bytes):
    def __repr__(self):
        return "Simple(%s)" % bytes.__repr__(self)


class Verbatim(bytes):
    pass


class Double(float):
    pass


class RSet(list):
    pass


class RMap(list):
    """A RESP3 map, kept as a list of (key, value) pairs in wire order."""
    def as_dict(self):
        return dict(self)


def decode(buf, pos=0):
    """(value, next offset) of one complete reply. RESP2 and RESP3."""
    t = buf[pos:pos + 1]
    line, nxt = _line(buf, pos + 1)
    if t == b"+":
        return Simple(line), nxt
    if t == b"-":
        return Err(line), nxt
    if t == b":":
        return int(line), nxt
    if t == b"_":
        return None, nxt
    if t == b",":
        return Double(float(line)), nxt
    if t == b"#":
        return line == b"t", nxt
    if t == b"(":
        return int(line), nxt
    if t in b"$!=":
        n = int(line)
        if n < 0:
            return None, nxt
        data = buf[nxt:nxt + n]
        if t == b"!":
            data = Err(data)
        elif t == b"=":
            data = Verbatim(data)
        return data, nxt + n + 2
    if t in b"*~>":
        n = int(line)
        if n < 0:
            return None, nxt
        items = []
        p = nxt
        for _ in range(n):
            v, p = decode(buf, p)
            items.append(v)
        return (RSet(items) if t == b"~" else items), p
    if t in b"%|":
        n = int(line)
        pairs = RMap()
        p = nxt
        for _ in range(n):
            k, p = decode(buf, p)
            v, p = decode(buf, p)
            pairs.append((k, v))
        if t == b"|":
            return decode(buf, p)
        return pairs, p
    raise ValueError("not a RESP reply at offset %d: %r" % (pos, buf[pos:pos + 40]))


def decode_one(raw):
    v, end = decode(raw, 0)
    assert end == len(raw), "trailing bytes after reply: %r" % raw[end:]
    return v


class RawConn:
    """A plain TCP connection: write bytes, read whole replies as bytes."""

    def __init__(self, port, timeout=REPLY_TIMEOUT_S, host="127.0.0.1"):
        self.port = port
        self.timeout = timeout
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def send(self, data):
        self.sock.sendall(data)

    def _fill(self, deadline):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ReplyTimeout("no complete reply within %.1fs; have %r"
                               % (self.timeout, self.buf[:200]))
        self.sock.settimeout(remaining)
        try:
            chunk = self.sock.recv(1 << 20)
        except socket.timeout:
            raise ReplyTimeout("no complete reply within %.1fs; have %r"
                               % (self.timeout, self.buf[:200]))
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            raise ConnectionClosed("connection closed; unread %r" % self.buf[:200])
        self.buf += chunk

    def read_reply(self, timeout=None):
        """The raw bytes of the next complete reply."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            end = reply_end(self.buf) if self.buf else None
            if end is not None:
                out, self.buf = self.buf[:end], self.buf[end:]
                return out
            self._fill(deadline)

    def read_replies(self, n, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        out = []
        pos = 0
        while len(out) < n:
            end = reply_end(self.buf, pos) if pos < len(self.buf) else None
            if end is None:
                self._fill(deadline)
                continue
            out.append(self.buf[pos:end])
            pos = end
        self.buf = self.buf[pos:]
        return out

    def call(self, *args):
        self.send(encode(*args))
        return self.read_reply()

    def read_until_close(self, timeout=None):
        """Everything the server still sends until it closes the connection.
        Raises ReplyTimeout if it keeps the connection open."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            try:
                self._fill(deadline)
            except ConnectionClosed:
                out, self.buf = self.buf, b""
                return out

    def is_closed(self, timeout=2.0):
        """True if the server closed the connection (with nothing more to read)."""
        try:
            rest = self.read_until_close(timeout)
        except ReplyTimeout:
            return False
        return rest == b""


# ---- comparisons ------------------------------------------------------------------------

def show(raw, limit=300):
    r = repr(raw)
    return r if len(r) <= limit else r[:limit] + "...(%d bytes)" % len(raw)


def format_table(rows):
    """rows: (command, terse, redis, equal) -> a readable side-by-side listing."""
    out = []
    for cmd, t, r, ok in rows:
        mark = "   " if ok else ">>>"
        out.append("%s %s" % (mark, cmd))
        if ok:
            out.append("        both : %s" % show(t))
        else:
            out.append("        terse: %s" % show(t))
            out.append("        redis: %s" % show(r))
    return "\n".join(out)


# ---- differential runs ------------------------------------------------------------------

class Step:
    """One command in a differential sequence.

    args: the command; raw: bytes sent instead of encode(*args); n: replies to read (0 for
    commands that reply nothing); norm: maps a raw reply to what is compared (default: the bytes
    themselves); why: the reason a reply is not compared byte for byte (required with norm).
    """

    def __init__(self, *args, raw=None, n=1, norm=None, why=None, closes=False):
        if norm is not None and not why:
            raise ValueError("a normalised comparison needs a written reason")
        self.args = args
        self.raw = raw
        self.n = n
        self.norm = norm
        self.why = why
        self.closes = closes

    def label(self):
        if self.raw is not None:
            text = show(self.raw, 120)
        else:
            text = " ".join(show(_b(a), 60) if not _b(a).isascii() or b" " in _b(a)
                            or len(_b(a)) > 60 or not _b(a)
                            else _b(a).decode() for a in self.args)
        if self.why:
            text += "   [compared by shape: %s]" % self.why
        return text


class Sleep:
    def __init__(self, seconds):
        self.seconds = seconds


def as_step(s):
    if isinstance(s, (Step, Sleep)):
        return s
    if isinstance(s, (tuple, list)):
        return Step(*s)
    if isinstance(s, str):
        # shell-like words: "SET k ' a b'" sends the value ' a b'; '' is an empty argument
        return Step(*shlex.split(s))
    raise TypeError(s)


def run_steps(conn, steps):
    """Run steps on one connection; returns a list of (label, raw reply or marker)."""
    out = []
    for s in steps:
        if isinstance(s, Sleep):
            time.sleep(s.seconds)
            continue
        conn.send(s.raw if s.raw is not None else encode(*s.args))
        if s.n == 1:
            try:
                out.append(conn.read_reply())
            except ConnectionClosed:
                out.append(b"<connection closed>")
            except ReplyTimeout:
                out.append(b"<no reply>")
        elif s.n > 1:
            try:
                out.append(b"".join(conn.read_replies(s.n)))
            except ConnectionClosed:
                out.append(b"<connection closed>")
            except ReplyTimeout:
                out.append(b"<no reply>")
        if s.closes:
            out.append(b"<closed>" if conn.is_closed() else b"<still open>")
    return out


def hello3_norm(raw):
    """HELLO's map with the server-specific fields masked (see mask_hello)."""
    return mask_hello(decode_one(raw))


def mask_hello(v):
    if isinstance(v, Err) or v is None:
        return v
    pairs = list(v.items()) if isinstance(v, dict) else (
        list(v) if isinstance(v, RMap) else list(zip(v[::2], v[1::2])))
    out = []
    for k, val in pairs:
        if k in (b"id",):
            val = ("integer" if isinstance(val, int) else "NOT AN INTEGER: %r" % (val,))
        elif k in (b"version", b"server"):
            val = ("non-empty" if isinstance(val, bytes) and val else "BAD: %r" % (val,))
        out.append((k, val))
    return (type(v).__name__, out)


def _fail(msg, pytrace=False):
    import pytest
    pytest.fail(msg, pytrace=pytrace)


class Differ:
    """Runs the same steps on terse and redis (fresh connections, empty keyspace) and asserts
    identical replies."""

    def __init__(self, terse_server, redis_server, before=None, after=None):
        self.servers = (terse_server, redis_server)
        self.before = before    # called with each server before a run (e.g. FLUSHALL)
        self.after = after      # called with each server after a run (e.g. still alive?)

    def replies(self, steps):
        steps = [as_step(s) for s in steps]
        results = []
        for server in self.servers:
            if self.before:
                self.before(server)
            with server.raw() as c:
                results.append(run_steps(c, steps))
            if self.after:
                self.after(server)
        return steps, results[0], results[1]

    def run(self, steps, title=""):
        steps, tr, rr = self.replies(steps)
        rows = []
        ok_all = True
        cmd_steps = [s for s in steps if isinstance(s, Step)]
        i = 0
        for s in cmd_steps:
            n_out = (1 if s.n else 0) + (1 if s.closes else 0)
            for _ in range(n_out):
                a, b = tr[i], rr[i]
                if s.norm is not None and not a.startswith(b"<") and not b.startswith(b"<"):
                    try:
                        ok = s.norm(a) == s.norm(b)
                    except Exception as e:  # a malformed reply must show up as a diff
                        ok = False
                        a = a + (" [norm failed: %s]" % e).encode()
                else:
                    ok = a == b
                rows.append((s.label(), a, b, ok))
                ok_all &= ok
                i += 1
        if not ok_all:
            _fail("terse and redis-server replied differently%s:\n%s"
                        % (" (" + title + ")" if title else "", format_table(rows)),
                        pytrace=False)
        return tr




# ---- scripts over several connections -----------------------------------------------------

def clients_replies(server, script):
    """Runs script on named raw connections to server (opened as first named) and returns the
    replies in order. A step is (who, *args): who "a" sends args and reads the reply; "a>"
    only sends them (a blocking command); "a<" reads one reply (what "a>" waits for);
    ("sleep", seconds) waits; ("blocked", n) waits until the server counts n blocked clients
    (INFO clients, on a connection of its own), so what comes next cannot overtake a blocking
    command sent before. A reply that does not come within REPLY_TIMEOUT_S is recorded as
    b"<no reply>" and that connection is dropped."""
    conns = {}
    out = []
    try:
        for who, *args in script:
            if who == "sleep":
                time.sleep(args[0])
                continue
            if who == "blocked":
                wait_blocked(server, args[0])
                continue
            name, op = who.rstrip("<>"), who[len(who.rstrip("<>")):]
            if name not in conns:
                conns[name] = server.raw()
            c = conns[name]
            if c is None:
                out.append(b"<closed>")
                continue
            if op != "<":
                c.send(encode(*args))
            if op == ">":
                continue
            try:
                out.append(c.read_reply())
            except (ReplyTimeout, ConnectionClosed) as e:
                out.append(b"<no reply: %s>" % type(e).__name__.encode())
                c.close()
                conns[name] = None
        return out
    finally:
        for c in conns.values():
            if c is not None:
                c.close()


def wait_until(cond, what, timeout=20.0, step=0.05):
    """Polls cond() until it is true; fails naming what after timeout seconds."""
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, what
        time.sleep(step)


def wait_blocked(server, n):
    """Waits until server counts n blocked clients (INFO clients), on a connection of its
    own; fails after REPLY_TIMEOUT_S."""
    with server.raw() as c:
        wait_until(lambda: info_field(c, "blocked_clients", "clients") == str(n),
                   "%s: never %d blocked clients" % (server.name, n), REPLY_TIMEOUT_S, 0.005)


def link_up(conn):
    """Whether the replica on RawConn conn has its link to the master up (INFO replication)."""
    return info_field(conn, "master_link_status", "replication") == "up"


def compare_clients(t, r, script, norm=None):
    """clients_replies on terse and on redis-server; fails with a table unless every reply is
    the same (after norm, when given). Returns terse's replies."""
    tr = clients_replies(t, script)
    rr = clients_replies(r, script)
    steps = [st for st in script
             if st[0] not in ("sleep", "blocked") and not st[0].endswith(">")]
    same = [(norm(a) == norm(b)) if norm else a == b for a, b in zip(tr, rr)]
    if not all(same) or len(tr) != len(rr):
        rows = [(" ".join(map(str, st)), a, b, ok) for st, a, b, ok in zip(steps, tr, rr, same)]
        _fail("terse and redis-server replied differently:\n" + format_table(rows))
    return tr


# ---- keyspace and norms shared by the suites ----------------------------------------------

def flush(server):
    """FLUSHALL on server; fails unless it answers +OK."""
    with server.raw() as c:
        reply = c.call("FLUSHALL")
    assert reply == b"+OK\r\n", "FLUSHALL on %s answered %r" % (server.name, reply)


def is_int(raw):
    """A norm for per-process figures (MEMORY USAGE, OBJECT IDLETIME, CLIENT ID): an integer."""
    v = decode_one(raw)
    return "integer" if isinstance(v, int) and not isinstance(v, bool) else ("not int", raw)


# ---- INFO fields --------------------------------------------------------------------------

def info_field(conn, name, section="terse"):
    """One field of an INFO section (terse unless told) on a RawConn, as text (None if absent)."""
    text = decode_one(conn.call("INFO", section)).decode()
    fields = dict(line.split(":", 1) for line in text.split("\r\n") if ":" in line)
    return fields.get(name)
