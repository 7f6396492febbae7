#!/usr/bin/python3
"""make bench-storm: a write storm into one growing container under maxmemory, terse against
redis-server.

For each of RPUSH (a list), HSET (a hash), SADD (a set) and ZADD (a zset), both servers are
started with `maxmemory 64mb` and `maxmemory-policy noeviction` and one key is grown, 100
elements per pipelined batch of single-element commands, until the writes answer -OOM. After
every batch the client samples used_memory (INFO memory). Reported per type and server: the
elements accepted, the highest used_memory seen over the budget, and whether every accepted
element reads back exact (LRANGE / HGETALL / SMEMBERS / ZRANGE, compared with what was sent).
Elements are drawn from the shared corpus (../shared/corpus, values of 40-600 bytes), so they
compress as real cache values do. The exit status is 0 either way: a measurement, not a test.

Usage: bench/storm_bench.py [--terse build/terse-server] [--types rpush,hset,sadd,zadd,xadd]
                            [--maxmemory-mb 64]
"""
import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import redis

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.environ.get("TERSE_SHARED", os.path.join(HERE, "..", "..", "shared"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def corpus_values(n: int) -> list:
    sys.path.insert(0, os.path.join(SHARED, "corpus"))
    import make_corpus as mc  # the shared corpus generator (stdlib only)
    pools = mc.build_pools()
    out = []
    for _key, value, _cat, _vid in mc.generate(pools, 4 * n, 11):
        if 40 <= len(value) <= 600:
            out.append(value)
            if len(out) == n:
                break
    return out


def element(values: list, j: int) -> bytes:
    """The j-th element of a storm: a corpus value, made distinct by its index."""
    return b"%d:" % j + values[j % len(values)]


def start(cmd: list, port: int, mb: int) -> subprocess.Popen:
    p = subprocess.Popen(cmd + ["--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                "--maxmemory", f"{mb}mb", "--maxmemory-policy", "noeviction"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    end = time.time() + 10
    while time.time() < end:
        try:
            if redis.Redis(port=port).ping():
                return p
        except redis.ConnectionError:
            time.sleep(0.05)
    raise RuntimeError("server did not start")


def storm(port: int, kind: str, values: list, budget: int) -> dict:
    """Batches of 100 until a whole batch is refused; every accepted element is kept to be
    read back (an -OOM in a batch does not stop the batch: later ones may fit)."""
    r = redis.Redis(port=port)
    done, peak, ok = 0, 0, []
    while True:
        pipe = r.pipeline(transaction=False)
        for j in range(done, done + 100):
            v = element(values, j)
            if kind == "rpush":
                pipe.rpush("k", v)
            elif kind == "hset":
                pipe.hset("k", b"f%d" % j, v)
            elif kind == "sadd":
                pipe.sadd("k", v)
            elif kind == "xadd":
                pipe.xadd("k", {"v": v}, id="%d-1" % (j + 1))
            else:
                pipe.zadd("k", {v: j})
        refused = 0
        for j, res in zip(range(done, done + 100), pipe.execute(raise_on_error=False)):
            if isinstance(res, redis.ResponseError):
                assert str(res).startswith("OOM"), res
                refused += 1
            else:
                ok.append(j)
        done += 100
        peak = max(peak, r.info("memory")["used_memory"])
        if refused == 100:
            break
    if kind == "rpush":
        exact = r.lrange("k", 0, -1) == [element(values, j) for j in ok]
    elif kind == "hset":
        exact = r.hgetall("k") == {b"f%d" % j: element(values, j) for j in ok}
    elif kind == "sadd":
        exact = r.smembers("k") == {element(values, j) for j in ok}
    elif kind == "xadd":
        exact = [(e[0], e[1][b"v"]) for e in r.xrange("k")] == [
            (b"%d-1" % (j + 1), element(values, j)) for j in ok]
    else:
        exact = r.zrange("k", 0, -1) == [element(values, j) for j in ok]
    return {"accepted": len(ok), "peak": peak / budget, "exact": exact}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--terse", default="build/terse-server")
    ap.add_argument("--types", default="rpush,hset,sadd,zadd,xadd")
    ap.add_argument("--maxmemory-mb", type=int, default=64)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-storm-")
    terse_bin = os.path.join(tmp, "terse-server")
    shutil.copy2(args.terse, terse_bin)
    budget = args.maxmemory_mb << 20
    values = corpus_values(200000)
    print(f"# {time.strftime('%Y-%m-%d %H:%M')} maxmemory {args.maxmemory_mb}mb noeviction; "
          f"one key grown by 100-command batches until -OOM; {len(values)} corpus values "
          f"(40-600 B), cycled with an index prefix")
    print(f"{'type':<8}{'server':<8}{'accepted':>10}{'peak/budget':>13}{'exact':>7}")
    try:
        for kind in args.types.split(","):
            for name, cmd in (("terse", [terse_bin]), ("redis", ["redis-server"])):
                port = free_port()
                p = start(cmd, port, args.maxmemory_mb)
                try:
                    res = storm(port, kind, values, budget)
                finally:
                    p.terminate()
                    p.wait(timeout=30)
                print(f"{kind:<8}{name:<8}{res['accepted']:>10}{res['peak']:>13.4f}"
                      f"{str(res['exact']):>7}")
                sys.stdout.flush()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
