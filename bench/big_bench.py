#!/usr/bin/python3
"""make bench-big: containers of a million elements, terse against redis-server.

For each type, both servers (fresh, `--save ""`) get one key of -n elements (1,000,000 by
default) drawn from the shared corpus (../shared/corpus: log lines and JSON records for the
list and the stream's entries, values of up to 400 bytes for the hash, member names for the set
and the zset), loaded
in pipelined batches. Then:

  memory   used_memory and RSS over an empty server's, after terse's background compression
           has settled (used_memory still for 2 s), and the ratio terse/redis;
  latency  per-command round trips for the type's common commands on the big key (the servers
           on one CPU, this client on another, so neither gets the scheduler's shortcut), one
           request at a time over a raw socket, the two servers alternating request by
           request (so drift hits both): p50 and p99 of each, and the ratios.

The pel type is a stream of -n entries whose group holds --pel pending entries (a consumer
that has read them and not acknowledged them), and its commands are the group's: XREADGROUP
of 10 more, XACK of one pending entry, XCLAIM of one, XPENDING of 10 from one.

Elements are made distinct by an index prefix. With --incompressible the values are random
bytes instead (the "never above 1.05x" half of the memory question). The exit status is 0:
a measurement, not a test.

Usage: bench/big_bench.py [--terse build/terse-server] [-n 1000000]
                          [--types list,hash,set,zset,stream,pel] [--pel 100000]
                          [--samples 2000] [--incompressible]
"""
import argparse
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.environ.get("TERSE_SHARED", os.path.join(HERE, "..", "..", "shared"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def enc(*args) -> bytes:
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Conn:
    """A raw RESP connection: send a pipeline, read n replies (skipping their bodies)."""

    def __init__(self, port: int):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def _line(self) -> bytes:
        while b"\r\n" not in self.buf:
            self.buf += self.s.recv(1 << 20)
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _skip(self, n: int) -> None:
        while len(self.buf) < n:
            self.buf += self.s.recv(1 << 20)
        self.buf = self.buf[n:]

    def reply(self):
        line = self._line()
        t = line[:1]
        if t in (b"+", b":"):
            return line[1:]
        if t == b"-":
            raise RuntimeError(line.decode(errors="replace"))
        if t == b"$":
            n = int(line[1:])
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self.buf += self.s.recv(1 << 20)
            v, self.buf = self.buf[:n], self.buf[n + 2:]
            return v
        if t == b"*":
            return [self.reply() for _ in range(int(line[1:]))]
        raise RuntimeError("unexpected reply %r" % line[:40])

    def pipeline(self, cmds: list) -> None:
        self.s.sendall(b"".join(cmds))
        for _ in cmds:
            self.reply()

    def call(self, *args):
        self.s.sendall(enc(*args))
        return self.reply()


def info(c: Conn, field: str) -> int:
    text = c.call("INFO", "memory").decode()
    for line in text.split("\r\n"):
        if line.startswith(field + ":"):
            return int(line.split(":", 1)[1])
    raise KeyError(field)


def corpus(n: int, kind: str, incompressible: bool, rng: random.Random) -> list:
    if incompressible:
        return [rng.randbytes(rng.randrange(40, 400)) for _ in range(min(n, 200000))]
    sys.path.insert(0, os.path.join(SHARED, "corpus"))
    import make_corpus as mc  # the shared corpus generator (stdlib only)
    pools = mc.build_pools()
    out = []
    want = {"list": ("log-line", "record-json"), "stream": ("log-line", "record-json"),
            "pel": ("log-line", "record-json"),
            "hash": None}.get(kind)
    for key, value, cat, _vid in mc.generate(pools, 3 * min(n, 300000), 17):
        if kind in ("set", "zset"):
            out.append(key.encode() if isinstance(key, str) else key)
        elif want is None or cat in want:
            if len(value) <= (2000 if kind in ("list", "stream", "pel") else 400):
                out.append(value)
        if len(out) >= min(n, 300000):
            break
    return out


def element(pool: list, j: int) -> bytes:
    return b"%d:" % j + pool[j % len(pool)]


def load(c: Conn, kind: str, n: int, pool: list) -> None:
    step = 1000
    for i in range(0, n, step):
        hi = min(n, i + step)
        if kind == "list":
            c.call("RPUSH", "k", *[element(pool, j) for j in range(i, hi)])
        elif kind == "hash":
            c.call("HSET", "k", *[x for j in range(i, hi) for x in (b"f%d" % j, element(pool, j))])
        elif kind == "set":
            c.call("SADD", "k", *[element(pool, j) for j in range(i, hi)])
        elif kind in ("stream", "pel"):
            c.pipeline([enc("XADD", "k", b"%d-0" % (j + 1), "v", element(pool, j))
                        for j in range(i, hi)])
        else:
            c.call("ZADD", "k", *[x for j in range(i, hi) for x in (j % 100003, element(pool, j))])


def stream_reader(n: int):
    """XREADGROUP of the next 10 entries for a consumer that acknowledges them: the group
    delivers the loaded entries in order, so the IDs to XACK are known ahead."""
    state = {"next": 1}

    def make():
        first = state["next"]
        state["next"] += 10
        return [enc("XREADGROUP", "GROUP", "g", "c", "COUNT", 10, "STREAMS", "k", ">"),
                enc("XACK", "k", "g", *[b"%d-0" % i for i in range(first, first + 10)])]
    return make


def settle(c: Conn) -> int:
    """used_memory once it has not moved for 2 s (background compression done), at most 120 s."""
    last, since, end = -1, time.time(), time.time() + 120
    while time.time() < end:
        cur = info(c, "used_memory")
        if cur != last:
            last, since = cur, time.time()
        elif time.time() - since >= 2:
            break
        time.sleep(0.25)
    return last


def pel_commands(pel: int, rng: random.Random) -> dict:
    """The group commands on a PEL of entries 1-0 .. pel-0 (consumer c's)."""
    return {"XREADGROUP 10": lambda: [enc("XREADGROUP", "GROUP", "g", "c", "COUNT", 10,
                                          "STREAMS", "k", ">")],
            "XACK 1": lambda: [enc("XACK", "k", "g", b"%d-0" % rng.randrange(1, pel + 1))],
            "XCLAIM 1": lambda: [enc("XCLAIM", "k", "g", "d", 0,
                                     b"%d-0" % rng.randrange(1, pel + 1), "JUSTID")],
            "XPENDING 10": lambda: [enc("XPENDING", "k", "g", b"%d" % rng.randrange(1, pel + 1),
                                        "+", 10)]}


def commands(kind: str, n: int, pool: list, rng: random.Random) -> dict:
    """Generators of one request each for the type's common commands."""
    mid = n // 2
    if kind == "list":
        return {"LPUSH+RPOP": lambda: [enc("LPUSH", "k", element(pool, rng.randrange(n))),
                                       enc("RPOP", "k")],
                "LINDEX mid": lambda: [enc("LINDEX", "k", mid)],
                "LRANGE 100 mid": lambda: [enc("LRANGE", "k", mid, mid + 99)]}
    if kind == "hash":
        return {"HSET": lambda: [enc("HSET", "k", b"f%d" % rng.randrange(n), b"v")],
                "HGET": lambda: [enc("HGET", "k", b"f%d" % rng.randrange(n))]}
    if kind == "set":
        return {"SADD": lambda: [enc("SADD", "k", b"new:%d" % rng.randrange(n))],
                "SISMEMBER": lambda: [enc("SISMEMBER", "k", element(pool, rng.randrange(n)))]}
    if kind == "stream":
        return {"XADD": lambda: [enc("XADD", "k", "*", "v", element(pool, rng.randrange(n)))],
                "XRANGE COUNT 10 mid": lambda: [enc("XRANGE", "k", b"%d" % rng.randrange(n), "+",
                                                    "COUNT", 10)],
                "XREADGROUP 10+XACK": stream_reader(n)}
    return {"ZADD": lambda: [enc("ZADD", "k", rng.randrange(100003), element(pool, rng.randrange(n)))],
            "ZSCORE": lambda: [enc("ZSCORE", "k", element(pool, rng.randrange(n)))],
            "ZRANK": lambda: [enc("ZRANK", "k", element(pool, rng.randrange(n)))],
            "ZRANGE 10 by rank": lambda: [enc("ZRANGE", "k", r, r + 9) for r in [rng.randrange(n)]],
            "ZRANGE 10 by score": lambda: [enc("ZRANGE", "k", s, "+inf", "BYSCORE", "LIMIT", 0, 10)
                                           for s in [rng.randrange(100003)]]}


def latency(conns: dict, kind: str, n: int, pool: list, samples: int, seed: int,
            pel: int) -> dict:
    out = {}
    cmds = (pel_commands(pel, random.Random(seed)) if kind == "pel"
            else commands(kind, n, pool, random.Random(seed)))
    for name, make in cmds.items():
        times = {arm: [] for arm in conns}
        for i in range(samples):
            reqs = make()  # the same request for both arms
            for arm in (list(conns) if i % 2 == 0 else list(conns)[::-1]):
                c = conns[arm]
                t0 = time.perf_counter()
                c.pipeline(reqs)
                times[arm].append(time.perf_counter() - t0)
        out[name] = {arm: (statistics.median(v), sorted(v)[int(len(v) * 0.99)])
                     for arm, v in times.items()}
    return out


def start(cmd: list, port: int) -> subprocess.Popen:
    # Both servers on the last CPU, this client on the first: the scheduler would otherwise
    # put one server beside the client and the other across, which alone makes a round trip
    # 23 us against 70 us on a 2-core VM.
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) > 1 and shutil.which("taskset"):
        cmd = ["taskset", "-c", str(cpus[-1])] + cmd
    p = subprocess.Popen(cmd + ["--port", str(port), "--bind", "127.0.0.1", "--save", ""],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    end = time.time() + 10
    while time.time() < end:
        try:
            if Conn(port).call("PING") == b"PONG":
                return p
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("server did not start")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--terse", default="build/terse-server")
    ap.add_argument("-n", type=int, default=1000000)
    ap.add_argument("--types", default="list,hash,set,zset")
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--incompressible", action="store_true")
    ap.add_argument("--pel", type=int, default=100000)
    args = ap.parse_args()
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) > 1:
        os.sched_setaffinity(0, {cpus[0]})  # the client's CPU (start: the servers')
    tmp = tempfile.mkdtemp(prefix="bench-big-")
    terse_bin = os.path.join(tmp, "terse-server")
    shutil.copy2(args.terse, terse_bin)
    print(f"# {time.strftime('%Y-%m-%d %H:%M')} one key of {args.n} elements per type; "
          f"{'random bytes' if args.incompressible else 'corpus-drawn elements'}; "
          f"latency: {args.samples} requests per command, arms alternating")
    try:
        for kind in args.types.split(","):
            pool = corpus(args.n, kind, args.incompressible, random.Random(5))
            ports = {"terse": free_port(), "redis": free_port()}
            procs = [start([terse_bin], ports["terse"]), start(["redis-server"], ports["redis"])]
            try:
                conns = {arm: Conn(p) for arm, p in ports.items()}
                base = {arm: (info(c, "used_memory"), info(c, "used_memory_rss"))
                        for arm, c in conns.items()}
                mem = {}
                for arm, c in conns.items():
                    t0 = time.time()
                    load(c, kind, args.n, pool)
                    if kind in ("stream", "pel"):
                        c.call("XGROUP", "CREATE", "k", "g", "0")
                    for i in range(0, args.pel if kind == "pel" else 0, 10000):
                        c.call("XREADGROUP", "GROUP", "g", "c", "COUNT",
                               min(10000, args.pel - i), "STREAMS", "k", ">")
                    used = settle(c)
                    mem[arm] = (used - base[arm][0], info(c, "used_memory_rss") - base[arm][1],
                                time.time() - t0)
                t, r = mem["terse"], mem["redis"]
                print(f"\n## {kind}: {args.n} elements" +
                      (f", {args.pel} pending" if kind == "pel" else ""))
                print(f"memory   used_memory terse {t[0] / 2**20:.1f} MiB, redis {r[0] / 2**20:.1f}"
                      f" MiB: {t[0] / r[0]:.3f}x; RSS terse {t[1] / 2**20:.1f} MiB, redis "
                      f"{r[1] / 2**20:.1f} MiB: {t[1] / r[1]:.3f}x (load + settle {t[2]:.0f} s, "
                      f"{r[2]:.0f} s)")
                for name, v in latency(conns, kind, args.n, pool, args.samples, 9,
                                       args.pel).items():
                    (tp50, tp99), (rp50, rp99) = v["terse"], v["redis"]
                    print(f"latency  {name:<20} p50 {tp50 * 1e6:7.1f} / {rp50 * 1e6:7.1f} us "
                          f"({tp50 / rp50:.2f}x)   p99 {tp99 * 1e6:7.1f} / {rp99 * 1e6:7.1f} us "
                          f"({tp99 / rp99:.2f}x)")
                sys.stdout.flush()
            finally:
                for p in procs:
                    p.terminate()
                    p.wait(timeout=30)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
