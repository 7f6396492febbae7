"""Server-level behaviour: INFO, configuration file and command line, startup errors, auth,
limits on clients, shutdown and signals, active expiry, and the stock Redis tools."""

import os
import re
import shutil
import signal
import subprocess
import time

import pytest

import terse_harness as h
from terse_harness import Step, decode_one


def info(conn, *section):
    v = decode_one(conn.call("INFO", *section))
    assert isinstance(v, bytes) and not isinstance(v, h.Err), "INFO %s: %r" % (section, v)
    text = v.decode("utf-8", "replace")
    fields = {}
    for line in text.split("\r\n"):
        if line and not line.startswith("#") and ":" in line:
            k, val = line.split(":", 1)
            fields[k] = val
    return text, fields


# ---- INFO -------------------------------------------------------------------------------------

SECTIONS = ["Server", "Clients", "Memory", "Persistence", "Stats", "Replication", "CPU",
            "Keyspace"]


def test_info_default_has_redis_sections(terse):
    with terse.raw() as c:
        text, fields = info(c)
    headers = re.findall(r"^# (\w+)\r$", text, re.M)
    missing = [s for s in SECTIONS if s not in headers]
    assert not missing, "INFO lacks sections %s (has %s)" % (missing, headers)
    assert "\n" not in text.replace("\r\n", ""), "INFO lines must end with CRLF"


@pytest.mark.parametrize("section", [s.lower() for s in SECTIONS])
def test_info_single_section(terse, section):
    with terse.raw() as c:
        text, _ = info(c, section)
    headers = re.findall(r"^# (\w+)", text, re.M)
    assert [x.lower() for x in headers] == [section], (
        "INFO %s should answer that section only, got %s" % (section, headers))


def test_info_fields_with_redis_names(terse):
    with terse.raw() as c, terse.raw() as other:
        other.call("PING")
        c.call("SET", "a", "1")
        c.call("SET", "b", "2", "EX", "100")
        _, f = info(c, "everything")
    assert re.fullmatch(r"\d+\.\d+\.\d+", f.get("redis_version", "")), f.get("redis_version")
    assert f.get("tcp_port") == str(terse.port)
    assert f.get("process_id") == str(terse.proc.pid)
    assert re.fullmatch(r"[0-9a-f]{40}", f.get("run_id", "")), f.get("run_id")
    assert int(f.get("connected_clients", "0")) >= 2
    assert int(f.get("used_memory", "0")) > 0
    assert re.fullmatch(r"\d+(\.\d+)?[BKMGT]", f.get("used_memory_human", "")), \
        f.get("used_memory_human")
    assert int(f.get("uptime_in_seconds", "-1")) >= 0
    assert f.get("role") == "master"
    m = re.fullmatch(r"keys=(\d+),expires=(\d+),avg_ttl=(\d+)", f.get("db0", ""))
    assert m, "keyspace line db0 should read keys=..,expires=..,avg_ttl=..: %r" % f.get("db0")
    assert m.group(1, 2) == ("2", "1")
    assert 0 <= int(m.group(3)) <= 100000
    assert "db1" not in f, "empty databases are not listed in INFO keyspace"


def test_info_stats_count_hits_misses_commands(terse):
    with terse.raw() as c:
        c.call("SET", "k", "v")
        _, f0 = info(c, "stats")
        c.call("GET", "k")
        c.call("GET", "k")
        c.call("GET", "missing")
        _, f1 = info(c, "stats")
    d = {k: int(f1[k]) - int(f0[k]) for k in ("keyspace_hits", "keyspace_misses",
                                              "total_commands_processed")}
    assert d == {"keyspace_hits": 2, "keyspace_misses": 1, "total_commands_processed": 4}, d


def test_connected_clients_counts_connections(terse):
    with terse.raw() as c:
        base = int(info(c, "clients")[1]["connected_clients"])
        extra = [terse.raw() for _ in range(5)]
        for e in extra:
            e.call("PING")
        now = int(info(c, "clients")[1]["connected_clients"])
        for e in extra:
            e.close()
    assert now == base + 5


# ---- configuration ------------------------------------------------------------------------------

class FileOnly(h.Server):
    """Started with nothing but the config file (the port comes from the file)."""

    def argv(self, port):
        return [self.binary, self.config_file]


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def test_config_file_as_first_argument(terse_binary, tmp_path):
    port = h.free_port()
    extra = "appendonly no\n" if h.is_redis(terse_binary) else ""
    cfg = write(str(tmp_path / "terse.conf"),
                "# a comment\n\nport %d\nbind 127.0.0.1\nsave \"\"\n%sdatabases 4\n"
                "maxmemory 10mb\ntimeout 0\n" % (port, extra))
    s = FileOnly(terse_binary, str(tmp_path / "run"), config_file=cfg, name="filecfg",
                 port=port)
    try:
        s.start(attempts=1)
        with s.raw() as c:
            assert c.call("CONFIG", "GET", "databases") == \
                b"*2\r\n$9\r\ndatabases\r\n$1\r\n4\r\n"
            assert c.call("SELECT", "3") == b"+OK\r\n"
            assert c.call("SELECT", "4") == b"-ERR DB index is out of range\r\n"
            assert c.call("CONFIG", "GET", "maxmemory") == \
                b"*2\r\n$9\r\nmaxmemory\r\n$8\r\n10485760\r\n"
    finally:
        assert s.stop() == 0


def test_command_line_overrides_config_file(spawn, tmp_path):
    cfg = write(str(tmp_path / "base.conf"), "maxmemory 10mb\ndatabases 4\n")
    s = spawn("terse", ["--maxmemory", "20mb"], config_file=cfg)
    with s.raw() as c:
        assert c.call("CONFIG", "GET", "maxmemory") == \
            b"*2\r\n$9\r\nmaxmemory\r\n$8\r\n20971520\r\n"
        assert c.call("CONFIG", "GET", "databases") == b"*2\r\n$9\r\ndatabases\r\n$1\r\n4\r\n"


def run_to_exit(argv, cwd, timeout=10):
    try:
        p = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        pytest.fail("%s did not exit within %ds (it should refuse to start); output: %r"
                    % (" ".join(argv), timeout, (e.output or b"")[-500:]), pytrace=False)
    return p.returncode, p.stdout.decode("utf-8", "replace")


@pytest.mark.parametrize("bad_line,word", [
    ("nosuchoption 1", "nosuchoption"),
    ("port abc", "port"),
    ("databases", "databases"),
    ("maxmemory lots", "maxmemory"),
])
def test_bad_config_file_line_stops_startup(terse_binary, tmp_path, bad_line, word):
    """An unknown or malformed option stops startup with a nonzero exit, naming the file,
    the line and the option."""
    port = h.free_port()
    cfg = write(str(tmp_path / "broken.conf"),
                "port %d\nbind 127.0.0.1\n%s\nsave \"\"\n" % (port, bad_line))
    rc, out = run_to_exit([terse_binary, cfg], str(tmp_path))
    assert rc != 0, "started (exit %d) despite %r; output: %s" % (rc, bad_line, out[-500:])
    assert word in out, "the message should name the option %r: %s" % (word, out[-500:])
    assert re.search(r"line\D{0,3}3\b|:3\b", out), "the message should name line 3: %s" % (
        out[-500:])
    assert "broken.conf" in out, "the message should name the file: %s" % out[-500:]


def test_unknown_command_line_option_stops_startup(terse_binary, tmp_path):
    rc, out = run_to_exit([terse_binary, "--port", str(h.free_port()), "--bind", "127.0.0.1",
                           "--no-such-option", "1"], str(tmp_path))
    assert rc != 0 and "no-such-option" in out, (rc, out[-500:])


def test_missing_config_file_stops_startup(terse_binary, tmp_path):
    rc, out = run_to_exit([terse_binary, str(tmp_path / "absent.conf")], str(tmp_path))
    assert rc != 0 and "absent.conf" in out, (rc, out[-500:])


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_exit_zero(terse_binary, tmp_path, flag):
    rc, out = run_to_exit([terse_binary, flag], str(tmp_path))
    assert rc == 0, "%s exited %d: %s" % (flag, rc, out[-300:])
    assert out.strip(), "%s printed nothing" % flag
    if flag == "--version":
        assert re.search(r"\d+\.\d+", out), out


# ---- auth -----------------------------------------------------------------------------------------

def test_requirepass_matches_redis(spawn):
    servers = [spawn(kind, ["--requirepass", "s3cret"]) for kind in ("terse", "redis")]
    d = h.Differ(*servers)
    hello = dict(norm=h.hello3_norm, why="id, version and server name are per process")
    d.run(["GET k", "PING", "SET k v", "HELLO 3", "HELLO 2", "CLIENT SETNAME x", "SELECT 1",
           "FOO", "AUTH wrong", "AUTH default wrong", "AUTH nobody s3cret", "HELLO 2 AUTH default no",
           "GET k", Step("HELLO", "2", "AUTH", "default", "s3cret", **hello), "GET k",
           "AUTH s3cret", "AUTH default s3cret", "SET k v", "GET k", "AUTH wrong", "GET k",
           "RESET", "GET k", "AUTH s3cret", "GET k", Step("QUIT", closes=True)],
          title="requirepass")
    d.run([Step(raw=b"*20\r\n", n=1, closes=True)], title="unauthenticated multibulk > 10")
    d.run([Step(raw=b"*2\r\n$3\r\nGET\r\n$20000\r\n", n=1, closes=True)],
          title="unauthenticated bulk > 16 KiB")
    d.run([Step(raw=b"AUTH s3cret\r\n*20\r\n" + b"$1\r\na\r\n" * 19 + b"$4\r\nPING\r\n", n=2)],
          title="after AUTH the limits are gone")


# ---- client limits --------------------------------------------------------------------------------

def test_maxclients_matches_redis(spawn):
    out = []
    for kind in ("terse", "redis"):
        s = spawn(kind, ["--maxclients", "3"])
        conns = [s.raw() for _ in range(3)]
        for c in conns:
            assert c.call("PING") == b"+PONG\r\n"
        with s.raw(timeout=5) as over:
            try:
                got = over.read_until_close(timeout=5)
            except h.ReplyTimeout:
                got = b"<kept open> " + over.buf
        for c in conns:
            c.close()
        time.sleep(0.1)
        with s.raw() as again:
            out.append((got, again.call("PING")))
    assert out[1][0] == b"-ERR max number of clients reached\r\n"
    assert out[0] == out[1], "terse %r, redis %r" % (out[0], out[1])


def test_idle_timeout_closes_client(spawn):
    s = spawn("terse", ["--timeout", "1"])
    with s.raw(timeout=6) as c:
        assert c.call("PING") == b"+PONG\r\n"
        t0 = time.monotonic()
        assert c.is_closed(timeout=6), "an idle client outlived `timeout 1` by 5 s"
        assert time.monotonic() - t0 >= 0.9, "closed before the timeout"
    with s.raw() as c:
        assert c.call("PING") == b"+PONG\r\n"


# ---- shutdown ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_signal_shuts_down_cleanly(spawn, sig):
    s = spawn("terse")
    with s.raw() as c:
        for i in range(100):
            c.call("SET", "k%d" % i, "v" * (i * 10))
        c.call("SET", "ttl", "v", "EX", "100")
        s.proc.send_signal(sig)
        try:
            rc = s.proc.wait(10)
        except subprocess.TimeoutExpired:
            pytest.fail("still running 10 s after %s" % sig.name, pytrace=False)
        assert c.is_closed(timeout=2), "the client connection was left open"
    s.proc = None
    assert rc == 0, "exit code %d after %s; log:\n%s" % (rc, sig.name, s.log_tail())


def test_shutdown_command_matches_redis(spawn):
    out = []
    for kind in ("terse", "redis"):
        s = spawn(kind)
        with s.raw() as c:
            bad = c.call("SHUTDOWN", "FOO")
            bad2 = c.call("SHUTDOWN", "NOSAVE", "SAVE")
            alive = c.call("PING")
            c.send(h.encode("SHUTDOWN", "NOSAVE"))
            rest = c.read_until_close(timeout=10)
        try:
            rc = s.proc.wait(10)
        except subprocess.TimeoutExpired:
            rc = "still running"
        s.proc = None
        out.append((bad, bad2, alive, rest, rc))
    assert out[1] == (b"-ERR syntax error\r\n", b"-ERR syntax error\r\n", b"+PONG\r\n", b"", 0)
    assert out[0] == out[1], "terse %r\nredis %r" % (out[0], out[1])


def test_session_server_exits_zero_on_sigterm(terse_binary, workdir):
    """The same start-up the session fixture uses, stopped the way the fixture stops it."""
    s = h.Server(terse_binary, os.path.join(workdir, "sigterm"), name="sigterm").start()
    with s.raw() as c:
        c.call("SET", "k", "v")
    rc = s.stop()
    assert rc == 0, "exit code %s after SIGTERM; log:\n%s" % (rc, s.log_tail())


# ---- expiry ------------------------------------------------------------------------------------------

def test_active_expiry_without_access(terse):
    with terse.raw() as c:
        c.send(b"".join(h.encode("SET", "e:%d" % i, "v", "PX", "100") for i in range(1000)))
        assert set(c.read_replies(1000)) == {b"+OK\r\n"}
        for i in range(10):
            c.call("SET", "keep:%d" % i, "v")
        _, f0 = info(c, "stats")
        deadline = time.monotonic() + 2.5
        size = None
        while time.monotonic() < deadline:
            size = c.call("DBSIZE")
            if size == b":10\r\n":
                break
            time.sleep(0.1)
        assert size == b":10\r\n", ("1000 keys with PX 100 were not expired in the background "
                                    "within 2.5 s: DBSIZE %r" % size)
        _, f1 = info(c, "stats")
        assert int(f1["expired_keys"]) - int(f0["expired_keys"]) >= 990
        assert c.call("EXISTS", "keep:0", "keep:9") == b":2\r\n"


# ---- commands outside the implemented set ----------------------------------------------------------

def test_unimplemented_commands_answer_like_redis(t, r, terse, oracle):
    """A Redis command terse does not implement answers exactly as Redis answers an unknown
    command; one it implements answers as Redis does."""
    for cmd in (("LPUSH", "l", "x"), ("HSET", "h", "f", "v"), ("SADD", "s", "m"),
                ("ZADD", "z", "1", "m"), ("XADD", "x", "1-1", "f", "v"), ("EVAL", "return 1", "0"),
                ("PFADD", "p", "a"), ("GEOADD", "g", "0", "0", "m")):
        with terse.raw() as c:
            got = c.call(*cmd)
        unknown = ("-ERR unknown command '%s', with args beginning with: %s\r\n"
                   % (cmd[0], "".join("'%s' " % a for a in cmd[1:]))).encode()
        with oracle.raw() as c:
            want = c.call(*cmd)
        assert got in (unknown, want), "%s: terse %r; expected %r or %r" % (
            cmd[0], got, unknown, want)


# ---- stock tools ---------------------------------------------------------------------------------------

def test_redis_cli_and_benchmark_work(terse):
    cli = shutil.which("redis-cli") or "/usr/bin/redis-cli"
    bench = shutil.which("redis-benchmark") or "/usr/bin/redis-benchmark"
    if not (os.access(cli, os.X_OK) and os.access(bench, os.X_OK)):
        pytest.fail("redis-tools is not installed (redis-cli, redis-benchmark)", pytrace=False)
    p = str(terse.port)
    out = subprocess.run([cli, "-p", p, "set", "k", "v"], capture_output=True, timeout=10)
    assert out.stdout == b"OK\n", out
    out = subprocess.run([cli, "-p", p, "get", "k"], capture_output=True, timeout=10)
    assert out.stdout == b"v\n", out
    out = subprocess.run([bench, "-p", p, "-t", "set,get", "-n", "2000", "-q"],
                         capture_output=True, timeout=60)
    text = out.stdout.decode("utf-8", "replace")
    assert out.returncode == 0 and "SET:" in text and "GET:" in text, (out.returncode, text[-500:],
                                                                        out.stderr[-500:])
