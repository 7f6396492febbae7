"""Publish/subscribe against redis-server: subscription confirmations and counts, messages on
channels, patterns and shard channels, the RESP2 subscribed context, RESP3 push replies,
PUBSUB's introspection, RESET, CLIENT LIST's subscription fields, and a subscriber that stops
reading (the pubsub output-buffer class)."""

import re
import socket
import time

import pytest

import terse_harness as h

SCRIPTS = {
    "channels-and-patterns": [
        ("a", "UNSUBSCRIBE"), ("a", "PUNSUBSCRIBE"), ("a", "SUNSUBSCRIBE"),
        ("a", "SUBSCRIBE", "c1", "c2", "c1"), ("a<",), ("a<",),
        ("a", "PSUBSCRIBE", "c*", "h?llo"), ("a<",),
        ("b", "PUBLISH", "c1", "m1"), ("a<",), ("a<",),
        ("b", "PUBLISH", "hello", "m2"), ("a<",), ("b", "PUBLISH", "none", "m"),
        ("b", "PUBSUB", "CHANNELS", "c1"), ("b", "PUBSUB", "NUMSUB", "c1", "c2", "zz"),
        ("b", "PUBSUB", "NUMPAT"), ("b", "PUBSUB", "NUMSUB"),
        ("a", "UNSUBSCRIBE", "c1", "nosuch"), ("a<",),
        ("a", "PUNSUBSCRIBE"), ("a<",), ("a", "UNSUBSCRIBE"),
        ("b", "PUBLISH", "c1", "gone"), ("b", "PUBSUB", "NUMPAT"),
        ("a", "GET", "x"),
    ],
    "subscribed-context": [
        ("a", "SUBSCRIBE", "c"), ("a", "GET", "x"), ("a", "SET", "x", "1"), ("a", "PING"),
        ("a", "PING", "hi"), ("a", "MULTI"), ("a", "CLIENT", "ID"),
        ("a", "SSUBSCRIBE", "s"), ("a", "QUIT"),
    ],
    "shard-channels": [
        ("a", "SSUBSCRIBE", "s1", "s2"), ("a<",), ("b", "SPUBLISH", "s1", "m"), ("a<",),
        ("b", "PUBLISH", "s1", "not-shard"), ("b", "PUBSUB", "SHARDCHANNELS", "*1"),
        ("b", "PUBSUB", "SHARDCHANNELS", "*2"), ("b", "PUBSUB", "SHARDNUMSUB", "s1", "x"),
        ("a", "SUBSCRIBE", "c"), ("a", "SUNSUBSCRIBE", "s2"), ("a", "SUNSUBSCRIBE"),
        ("a", "UNSUBSCRIBE"),
    ],
    "resp3": [
        ("a", "HELLO", "3"), ("a", "SUBSCRIBE", "c9"), ("a", "GET", "x"), ("a", "PING"),
        ("b", "PUBLISH", "c9", "hey"), ("a<",), ("a", "PUBLISH", "c9", "self"), ("a<",),
        ("a", "PSUBSCRIBE", "c?"), ("b", "PUBLISH", "c9", "two"), ("a<",), ("a<",),
        ("a", "RESET"), ("b", "PUBSUB", "NUMSUB", "c9"), ("b", "PUBSUB", "NUMPAT"),
    ],
    "errors": [
        ("a", "SUBSCRIBE"), ("a", "PSUBSCRIBE"), ("a", "PUBLISH", "x"), ("a", "SPUBLISH", "x"),
        ("a", "PUBSUB"), ("a", "PUBSUB", "FOO"), ("a", "PUBSUB", "NUMPAT", "x"),
        ("a", "PUBSUB", "CHANNELS", "a", "b"),
    ],
    "in-a-transaction": [
        ("b", "SUBSCRIBE", "t"), ("a", "MULTI"), ("a", "PUBLISH", "t", "1"),
        ("a", "PUBLISH", "t", "2"), ("a", "EXEC"), ("b<",), ("b<",),
    ],
}


def norm(raw):
    """HELLO 3 without the client id."""
    return h.hello3_norm(raw) if raw.startswith(b"%7") else raw


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_pubsub_as_redis(pair, name):
    t, r, _ = pair()
    h.compare_clients(t, r, SCRIPTS[name], norm=norm)


def test_client_list_and_info(terse):
    with terse.raw() as a, terse.raw() as b:
        aid = h.decode_one(a.call("CLIENT", "ID"))
        a.call("SUBSCRIBE", "x", "y")
        a.read_reply()
        a.call("PSUBSCRIBE", "z*")
        a.call("SSUBSCRIBE", "s")
        line = h.decode_one(b.call("CLIENT", "LIST", "TYPE", "pubsub")).decode()
        assert re.search(r"\bid=%d\b.* flags=P .* sub=2 psub=1 ssub=1 " % aid, line), line
        assert ("id=%d " % aid) not in h.decode_one(b.call("CLIENT", "LIST", "TYPE", "normal")).decode()
        info = h.decode_one(b.call("INFO", "stats")).decode()
        assert "pubsub_channels:2\r\n" in info and "pubsub_patterns:1\r\n" in info
        assert "pubsubshard_channels:1\r\n" in info
        assert b.call("CLIENT", "KILL", "TYPE", "pubsub") == b":1\r\n"
        assert a.is_closed()
        info = h.decode_one(b.call("INFO", "stats")).decode()
        assert "pubsub_channels:0\r\n" in info and "pubsub_patterns:0\r\n" in info


def test_slow_subscriber_is_disconnected(spawn):
    """A subscriber that never reads is cut off at the pubsub class's hard limit (as Redis
    does), and the server keeps serving everyone else."""
    t = spawn("terse", ["--client-output-buffer-limit", "pubsub 1mb 0 0"])
    sub = socket.create_connection(("127.0.0.1", t.port))
    sub.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sub.sendall(h.encode("SUBSCRIBE", "flood"))
    with t.raw() as pub:
        deadline = time.monotonic() + 20
        payload = b"x" * 65536
        while True:
            n = h.decode_one(pub.call("PUBLISH", "flood", payload))
            if n == 0:
                break  # the subscriber is gone
            assert time.monotonic() < deadline, "the subscriber was never disconnected"
        assert pub.call("PING") == b"+PONG\r\n"
        assert h.decode_one(pub.call("PUBSUB", "NUMSUB", "flood")) == [b"flood", 0]
    sub.close()
