"""terse as a replica (REPLICAOF): of a redis-server master, the way to move a live dataset
onto terse, and of another terse.

Each test writes through the master and compares every key of every db of terse with the
master's (type, value, TTL within a second), using the helpers of test_repl.py.
"""

import time

import pytest
import redis

from test_repl import assert_same_dataset, dataset, fill_every_type, random_workload

SYNC_TIMEOUT_S = 20


def wait_link(replica, up=True, timeout=SYNC_TIMEOUT_S):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (replica.info("replication").get("master_link_status") == "up") == up:
            return
        time.sleep(0.05)
    pytest.fail("the link never went %s: %s" % ("up" if up else "down",
                                                 replica.info("replication")))


def wait_offset(master, replica, timeout=SYNC_TIMEOUT_S):
    deadline = time.monotonic() + timeout
    want = master.info("replication")["master_repl_offset"]
    while time.monotonic() < deadline:
        if replica.info("replication").get("slave_repl_offset", -1) >= want:
            return
        time.sleep(0.05)
    pytest.fail("the replica stopped at %s of %s" %
                (replica.info("replication").get("slave_repl_offset"), want))


@pytest.mark.parametrize("master_kind", ["redis", "terse"])
def test_replica_follows_its_master(spawn, master_kind):
    master = spawn(master_kind)
    m = master.client()
    fill_every_type(m)
    terse = spawn("terse")
    t = terse.client()
    t.set("stale", "dropped by the full sync")
    assert t.execute_command("REPLICAOF", "127.0.0.1", master.port) == b"OK"
    wait_link(t)
    wait_offset(m, t)
    assert_same_dataset(m, t)

    import random
    random_workload(m, random.Random(7), 1500)           # the master's own stream
    time.sleep(0.1)
    wait_offset(m, t)
    assert_same_dataset(m, t, entries_read=False)

    with pytest.raises(redis.ReadOnlyError):
        t.set("x", 1)
    rep = t.info("replication")
    assert rep["role"] == "slave" and rep["master_port"] == master.port
    assert rep["master_link_status"] == "up" and rep["slave_read_only"] == 1
    role = t.execute_command("ROLE")
    assert role[0] == b"slave" and role[2] == master.port and role[3] == b"connected"
    assert t.execute_command("REPLICAOF", "127.0.0.1", master.port) == \
        b"OK Already connected to specified master"

    assert t.execute_command("REPLICAOF", "NO", "ONE") == b"OK"
    assert t.info("replication")["role"] == "master"
    assert t.set("promoted", 1)                            # a master again, data kept
    assert t.get("promoted") == b"1" and m.get("promoted") is None
    t.delete("promoted")
    assert_same_dataset(m, t, entries_read=False)


def test_link_lost_continues_partially(spawn):
    master = spawn("redis")
    m = master.client()
    terse = spawn("terse")
    t = terse.client()
    m.set("a", 1)
    t.execute_command("REPLICAOF", "127.0.0.1", master.port)
    wait_link(t)
    wait_offset(m, t)
    m.client_kill_filter(_type="slave")
    for i in range(200):
        m.set("k%d" % i, i)
    wait_link(t)
    wait_offset(m, t)
    assert_same_dataset(m, t)
    stats = m.info("stats")
    assert stats["sync_full"] == 1 and stats["sync_partial_ok"] == 1


def test_replicaof_in_the_config_with_masterauth(spawn, tmp_path):
    master = spawn("redis", ["--requirepass", "s3cret"])
    m = master.client(password="s3cret")
    m.set("k", "v")
    conf = tmp_path / "replica.conf"
    conf.write_text("replicaof 127.0.0.1 %d\nmasterauth s3cret\n" % master.port)
    terse = spawn("terse", config_file=str(conf))
    t = terse.client()
    wait_link(t)
    wait_offset(m, t)
    assert t.get("k") == b"v"
    assert t.config_get("replicaof") == {"replicaof": "127.0.0.1 %d" % master.port}


def test_wrong_master_keeps_trying(spawn):
    terse = spawn("terse")
    t = terse.client()
    t.execute_command("REPLICAOF", "127.0.0.1", 1)         # nothing listens there
    time.sleep(0.3)
    rep = t.info("replication")
    assert rep["role"] == "slave" and rep["master_link_status"] == "down"
    assert t.get("anything") is None                       # reads still served
    with pytest.raises(redis.ResponseError, match="Invalid master port"):
        t.execute_command("REPLICAOF", "127.0.0.1", 70000)
    t.execute_command("REPLICAOF", "NO", "ONE")
    assert t.set("x", 1)


def test_replica_with_aof_restarts_with_the_masters_data(spawn, tmp_path):
    """appendonly on a replica: the full sync replaces the dataset, so the AOF is rewritten
    from it; after kill -9 the replica comes back with the master's data, not its old one."""
    master = spawn("redis")
    m = master.client()
    fill_every_type(m)
    d = tmp_path / "aof"
    d.mkdir()
    terse = spawn("terse", ["--dir", str(d), "--appendonly", "yes"])
    t = terse.client()
    t.set("old", "gone after the sync")
    t.execute_command("REPLICAOF", "127.0.0.1", master.port)
    wait_link(t)
    m.set("after", "the sync")
    wait_offset(m, t)
    deadline = time.monotonic() + SYNC_TIMEOUT_S
    while True:
        p = t.info("persistence")
        if not p["aof_rewrite_in_progress"] and not p["aof_rewrite_scheduled"]:
            break
        assert time.monotonic() < deadline
        time.sleep(0.05)
    want = dataset(m)
    terse.kill()
    again = spawn("terse", ["--dir", str(d), "--appendonly", "yes"])
    got = dataset(again.client())
    assert sorted(got) == sorted(want)
    assert got[(0, b"after")] == want[(0, b"after")] and (0, b"old") not in got
