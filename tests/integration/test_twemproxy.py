"""Several terse instances behind twemproxy (Debian's `nutcracker`), as deploy/twemproxy shows.

twemproxy parses every reply it forwards with its own strict RESP2 parser, so these tests are
also a second client's view of terse's replies. Each test starts three terse servers and a
nutcracker whose config is deploy/twemproxy/nutcracker.yml with this test's ports, then works
through the proxy with redis-py and checks, on the backends directly, where the keys went.
"""

import os
import shutil
import subprocess
import time

import pytest
import redis

import terse_harness as h

NUTCRACKER = shutil.which("nutcracker") or "/usr/sbin/nutcracker"
CONFIG = os.path.join(os.path.dirname(__file__), "..", "..", "deploy", "twemproxy",
                      "nutcracker.yml")


def proxy_config(backends, listen_port):
    """The shipped config, with this test's ports: the file users copy is the one tested."""
    with open(CONFIG) as f:
        text = f.read()
    for i, port in enumerate((6380, 6381, 6382)):
        text = text.replace("127.0.0.1:%d:1" % port, "127.0.0.1:%d:1" % backends[i].port)
    return text.replace("127.0.0.1:22121", "127.0.0.1:%d" % listen_port)


@pytest.fixture
def cluster(spawn, tmp_path):
    if not os.access(NUTCRACKER, os.X_OK):
        pytest.fail("nutcracker is missing: apt-get install nutcracker", pytrace=False)
    backends = [spawn("terse") for _ in range(3)]
    port, stats = h.free_port(), h.free_port()
    conf = tmp_path / "nutcracker.yml"
    conf.write_text(proxy_config(backends, port))
    log = tmp_path / "nutcracker.log"
    proc = subprocess.Popen([NUTCRACKER, "-c", str(conf), "-o", str(log), "-s", str(stats),
                             "-a", "127.0.0.1", "-p", str(tmp_path / "nc.pid")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    client = redis.Redis(host="127.0.0.1", port=port, socket_timeout=5)
    deadline = time.monotonic() + 10
    while True:
        try:
            client.set("__probe", 1)
            client.delete("__probe")
            break
        except (redis.ConnectionError, redis.TimeoutError, redis.ResponseError):
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                pytest.fail("nutcracker did not come up: %s" % log.read_text(), pytrace=False)
            time.sleep(0.05)
    yield client, [b.client() for b in backends], backends
    client.close()
    proc.terminate()
    proc.wait(timeout=5)


def test_keys_spread_and_read_back(cluster):
    proxy, nodes, _ = cluster
    values = {"user:%d" % i: ("profile-%d-" % i) * (1 + i % 200) for i in range(600)}
    pipe = proxy.pipeline(transaction=False)
    for k, v in values.items():
        pipe.set(k, v)
    assert all(pipe.execute())
    counts = [n.dbsize() for n in nodes]
    assert sum(counts) == 600 and min(counts) > 100, counts     # ketama spreads them
    for n in nodes:                                             # each key on one node only
        for k in n.scan_iter(count=1000):
            assert n.get(k).decode() == values[k.decode()]
    keys = sorted(values)[:50]
    assert [v.decode() for v in proxy.mget(keys)] == [values[k] for k in keys]
    assert proxy.delete(*keys[:20]) == 20                      # split across nodes, summed
    assert sum(proxy.exists(k) for k in keys) == 30


def test_commands_through_the_proxy(cluster):
    proxy, nodes, _ = cluster
    big = os.urandom(8) * 20000                                 # 160 KB, compressed by terse
    proxy.set("big", big)
    assert proxy.get("big") == big
    assert proxy.incrby("counter", 41) == 41 and proxy.incr("counter") == 42
    proxy.set("temp", "x", ex=100)
    assert 95 <= proxy.ttl("temp") <= 100
    proxy.hset("h", mapping={"a": 1, "b": 2})
    assert proxy.hgetall("h") == {b"a": b"1", b"b": b"2"}
    proxy.rpush("l", *range(10))
    assert proxy.lrange("l", 0, -1) == [str(i).encode() for i in range(10)]
    proxy.zadd("z", {"m%d" % i: i for i in range(5)})
    assert proxy.zrange("z", 0, 1, withscores=True) == [(b"m0", 0.0), (b"m1", 1.0)]
    proxy.sadd("s", "x", "y")
    assert proxy.smembers("s") == {b"x", b"y"}
    assert proxy.mset({"ma": 1, "mb": 2, "mc": 3})
    assert proxy.mget("ma", "mb", "mc") == [b"1", b"2", b"3"]
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        proxy.incr("h")                                         # terse's error, forwarded
    assert sum(n.dbsize() for n in nodes) == 10


def test_a_node_going_away_is_ejected(cluster):
    proxy, nodes, backends = cluster
    for i in range(300):
        proxy.set("k%d" % i, i)
    backends[1].stop()
    failures = 0
    for i in range(300):                                        # after 2 failures: ejected
        try:
            proxy.set("k%d" % i, i)
        except (redis.ConnectionError, redis.ResponseError, redis.TimeoutError):
            failures += 1
    assert 0 < failures <= 10
    for i in range(300):                                        # the two others take them all
        proxy.set("k%d" % i, i)
    assert all(proxy.get("k%d" % i) == str(i).encode() for i in range(300))
    assert nodes[0].dbsize() + nodes[2].dbsize() == 300
