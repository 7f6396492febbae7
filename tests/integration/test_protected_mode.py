"""Protected mode, as Redis 7.0 has it: with protected-mode yes (the default) and no password
for the default user, a client whose address is not 127.0.0.1 or ::1 gets the -DENIED text and
is closed, whatever bind says (7.0 dropped 6.x's "no bind given" condition). A password, or
protected-mode no, lifts it; loopback clients are never affected.

How the tests prove the refusal: a non-loopback client needs a second host. The fixture
builds one: a network namespace with its own stack, joined to this one by a veth pair, the
server's side addressed HOST_IP and the namespace's NS_IP. The client runs inside the
namespace (`ip netns exec <ns> /usr/bin/python3 ...`) and connects to HOST_IP, so the server
sees a peer address of NS_IP, which is not loopback. The client sends nothing at first and
records what the server sends on its own and whether it then closes: a refused client reads
the DENIED text and end of file without having sent a byte, a served one reads nothing, then
sends PING and reads the reply. The same probe runs against terse and redis-server 7.0.15 and
the two must see the same bytes. main's terse answered PONG where redis-server refuses.
Needs root (ip netns); skipped with the reason when the namespace cannot be made.
"""

import json
import os
import socket
import subprocess

import pytest

import terse_harness as h

_N = os.getpid() % 250
NS = "terse-pm-%d" % os.getpid()
VETH_HOST = "tpmh%d" % os.getpid()
VETH_NS = "tpmn%d" % os.getpid()
HOST_IP = "10.213.%d.1" % _N
NS_IP = "10.213.%d.2" % _N

DENIED = (
    b"-DENIED Redis is running in protected mode because protected mode is enabled and no "
    b"password is set for the default user. In this mode connections are only accepted from the "
    b"loopback interface. If you want to connect from external computers to Redis you may adopt "
    b"one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG "
    b"SET protected-mode no' from the loopback interface by connecting to Redis from the same "
    b"host the server is running, however MAKE SURE Redis is not publicly accessible from "
    b"internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively "
    b"you can just disable the protected mode by editing the Redis configuration file, and "
    b"setting the protected mode option to 'no', and then restarting the server. 3) If you "
    b"started the server manually just for testing, restart it with the '--protected-mode no' "
    b"option. 4) Setup a an authentication password for the default user. NOTE: You only need "
    b"to do one of the above things in order for the server to start accepting connections from "
    b"the outside.\r\n")

# Runs inside the namespace: argv host port; prints {"unsolicited", "closed", "reply", "peer"}.
PROBE = r'''
import json, socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
out = {"peer": s.getsockname()[0], "unsolicited": "", "closed": False, "reply": ""}
s.settimeout(1.0)
data = b""
try:
    while True:
        chunk = s.recv(65536)
        if not chunk:
            out["closed"] = True
            break
        data += chunk
except socket.timeout:
    pass
except ConnectionResetError:
    out["closed"] = True
out["unsolicited"] = data.hex()
if not out["closed"]:
    s.settimeout(10)
    s.sendall(b"PING\r\n")
    out["reply"] = s.recv(65536).hex()
print(json.dumps(out))
'''


def _ip(*args, check=True):
    return subprocess.run(["ip"] + list(args), check=check, capture_output=True, text=True)


@pytest.fixture(scope="module")
def netns():
    """A namespace reachable over a veth pair: (HOST_IP on this side, NS_IP inside)."""
    if os.geteuid() != 0:
        pytest.skip("needs root for ip netns")
    try:
        _ip("netns", "add", NS)
    except (OSError, subprocess.CalledProcessError) as e:
        pytest.skip("cannot create a network namespace: %s" % getattr(e, "stderr", e))
    try:
        _ip("link", "add", VETH_HOST, "type", "veth", "peer", "name", VETH_NS)
        _ip("link", "set", VETH_NS, "netns", NS)
        _ip("addr", "add", HOST_IP + "/24", "dev", VETH_HOST)
        _ip("link", "set", VETH_HOST, "up")
        _ip("netns", "exec", NS, "ip", "addr", "add", NS_IP + "/24", "dev", VETH_NS)
        _ip("netns", "exec", NS, "ip", "link", "set", VETH_NS, "up")
        _ip("netns", "exec", NS, "ip", "link", "set", "lo", "up")
        yield HOST_IP
    finally:
        _ip("netns", "del", NS, check=False)      # takes VETH_NS, and so the pair, with it
        _ip("link", "del", VETH_HOST, check=False)


def probe_from_ns(port):
    p = subprocess.run(["ip", "netns", "exec", NS, "/usr/bin/python3", "-c", PROBE, HOST_IP,
                        str(port)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["peer"] == NS_IP, out   # the server saw a non-loopback peer
    return (bytes.fromhex(out["unsolicited"]), out["closed"], bytes.fromhex(out["reply"]))


def client_id(server):
    with server.raw() as c:
        return h.decode_one(c.call("CLIENT", "ID"))


def stat(server, field):
    with server.raw() as c:
        info = c.call("INFO", "stats").decode()
    for line in info.split("\r\n"):
        if line.startswith(field + ":"):
            return int(line.split(":", 1)[1])
    raise AssertionError("no %s in INFO stats" % field)


BIND_ALL = ["--bind", "* -::*"]


def both(pair, extra):
    t, r, _ = pair(extra)
    return {"terse": t, "redis": r}


def test_non_loopback_client_is_denied(netns, pair):
    """Defaults (protected-mode yes, no password), listening everywhere: the namespace's client
    gets DENIED and EOF before it sends anything; it counts as a rejected connection, takes a
    client id as in Redis, and is not a received connection."""
    servers = both(pair, BIND_ALL)
    seen = {}
    for kind, s in servers.items():
        id0 = client_id(s)
        rejected0 = stat(s, "rejected_connections")
        received0 = stat(s, "total_connections_received")
        got = probe_from_ns(s.port)
        assert got == (DENIED, True, b""), (kind, got)
        seen[kind] = (got, client_id(s) - id0, stat(s, "rejected_connections") - rejected0,
                      # the probe takes a client id between the CLIENT ID connections;
                      # the INFO connections count as received, the probe not
                      stat(s, "total_connections_received") - received0)
    assert seen["terse"] == seen["redis"], seen
    assert seen["terse"][1:] == (4, 1, 3), seen


def test_explicit_bind_does_not_lift_protected_mode(netns, pair):
    """Redis 7.0 applies protected mode whatever bind says: bound to the veth address itself,
    the namespace's client is denied all the same."""
    servers = both(pair, ["--bind", "127.0.0.1 " + netns])
    for kind, s in servers.items():
        assert probe_from_ns(s.port) == (DENIED, True, b""), kind


@pytest.mark.parametrize("extra,reply", [
    (["--protected-mode", "no"], b"+PONG\r\n"),
    (["--requirepass", "pw"], b"-NOAUTH Authentication required.\r\n"),
])
def test_non_loopback_client_is_served_when_lifted(netns, pair, extra, reply):
    """protected-mode no, or a password for the default user: the namespace's client is
    served (with a password, it is asked to authenticate, as any client is)."""
    servers = both(pair, BIND_ALL + extra)
    for kind, s in servers.items():
        assert probe_from_ns(s.port) == (b"", False, reply), kind


def test_config_set_takes_effect_for_new_clients(netns, pair):
    """CONFIG SET from a loopback client changes the rule for the next connections: protected-
    mode no lets the namespace in; a password set and then removed again denies it anew."""
    servers = both(pair, BIND_ALL)
    for kind, s in servers.items():
        with s.raw() as c:
            assert c.call("PING") == b"+PONG\r\n"   # a loopback client is served
            assert c.call("CONFIG", "SET", "protected-mode", "no") == b"+OK\r\n"
            assert probe_from_ns(s.port) == (b"", False, b"+PONG\r\n"), kind
            assert c.call("CONFIG", "SET", "protected-mode", "yes") == b"+OK\r\n"
            assert probe_from_ns(s.port) == (DENIED, True, b""), kind
            assert c.call("CONFIG", "SET", "requirepass", "pw") == b"+OK\r\n"
            assert probe_from_ns(s.port) == (b"", False,
                                             b"-NOAUTH Authentication required.\r\n"), kind
            assert c.call("AUTH", "pw") == b"+OK\r\n"
            assert c.call("CONFIG", "SET", "requirepass", "") == b"+OK\r\n"
            assert probe_from_ns(s.port) == (DENIED, True, b""), kind


def test_loopback_clients_are_unaffected(pair):
    """127.0.0.1 and ::1 are local: served under the defaults. A client whose source address
    is 127.0.0.2 is not local to Redis (it compares the address text with 127.0.0.1 and ::1),
    so it is denied, loopback interface or not."""
    servers = both(pair, BIND_ALL)
    for kind, s in servers.items():
        with s.raw() as c:
            assert c.call("PING") == b"+PONG\r\n", kind
        c2 = socket.create_connection(("127.0.0.1", s.port), timeout=h.REPLY_TIMEOUT_S,
                                      source_address=("127.0.0.2", 0))
        data = b""
        with c2:
            while True:
                chunk = c2.recv(65536)
                if not chunk:
                    break
                data += chunk
        assert data == DENIED, kind
        try:
            c6 = h.RawConn(s.port, host="::1")
        except OSError as e:
            pytest.skip("no IPv6 loopback: %s" % e)
        with c6:
            assert c6.call("PING") == b"+PONG\r\n", kind
