#!/usr/bin/python3
"""make bench-types: redis-benchmark's own default test list, terse against redis-server.

The test list a new user runs (`redis-benchmark` with no -t), PING aside: SET GET INCR LPUSH
RPUSH LPOP RPOP SADD HSET SPOP ZADD ZPOPMIN LRANGE_100 LRANGE_300 LRANGE_500 LRANGE_600 MSET,
with -r 100000 (random keys and members, so SADD, HSET and ZADD grow one big container of up
to 100,000 elements each, and LPUSH/RPUSH one list of up to n elements), -c 50. For each
request count (-n) and pipeline (-P) both servers are started fresh, pinned to CPU 0 (one is
driven at a time), redis-benchmark pinned to CPU 1; the two arms alternate round by round
(which goes first alternates too, and the keyspace is flushed before each run), so drift on
this shared machine hits both alike. redis-benchmark runs the whole list in one invocation,
in its own order, as a user's run does: the LRANGE tests read the list LPUSH built.

Per test it prints both arms' best and median requests/s, the spread ((max - min) / median)
and the terse/redis ratio of the bests and of the medians; the last column says whether the
ratio of the bests is at least --bar (0.9 by default). The exit status is 0 either way: this
is a measurement, not a test.

Usage: bench/types_bench.py [--terse build/terse-server] [--rounds 3] [--requests 200000,1000000]
                            [--pipelines 1,16] [--bar 0.9] [--tests set,get,...]
"""
import argparse
import csv
import io
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

TESTS = ("set,get,incr,lpush,rpush,lpop,rpop,sadd,hset,spop,zadd,zpopmin,"
         "lrange_100,lrange_300,lrange_500,lrange_600,mset")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(port: int, *args: str) -> bytes:
    body = b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a.encode())
                                              for a in args)
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(body)
        return s.recv(1 << 16)


def wait_ping(port: int, timeout: float = 10.0) -> None:
    end = time.time() + timeout
    while time.time() < end:
        try:
            if call(port, "PING").startswith(b"+PONG"):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"server on port {port} did not answer PING")


def pin(cpu: int) -> list:
    return ["taskset", "-c", str(cpu)] if (os.cpu_count() or 1) > 1 else []


def run_list(port: int, requests: int, pipeline: int, tests: str) -> dict:
    cmd = pin(1) + ["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-t", tests,
                    "-n", str(requests), "-c", "50", "-P", str(pipeline), "-r", "100000",
                    "--csv"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rows = {}
    for row in csv.DictReader(io.StringIO(out)):
        name = row["test"].split(" (")[0]
        rows[name] = float(row["rps"])
    return rows


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--terse", default="build/terse-server")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--requests", default="200000,1000000")
    ap.add_argument("--pipelines", default="1,16")
    ap.add_argument("--bar", type=float, default=0.9)
    ap.add_argument("--tests", default=TESTS,
                    help="redis-benchmark -t list (default: its whole default list)")
    args = ap.parse_args()

    # A private copy: other work in the tree may rebuild the binary during a long run.
    tmp = tempfile.mkdtemp(prefix="bench-types-")
    terse_bin = os.path.join(tmp, "terse-server")
    shutil.copy2(args.terse, terse_bin)
    print(f"# {time.strftime('%Y-%m-%d %H:%M')} {os.uname().nodename} {os.cpu_count()} CPUs; "
          f"redis-benchmark -t {args.tests} -r 100000 -c 50; {args.rounds} rounds per arm, "
          f"arms interleaved; servers on CPU 0, client on CPU 1")
    below = []
    try:
        for requests in (int(x) for x in args.requests.split(",")):
            for pipeline in (int(x) for x in args.pipelines.split(",")):
                tport, rport = free_port(), free_port()
                procs = [
                    subprocess.Popen(pin(0) + [terse_bin, "--port", str(tport), "--save", "",
                                               "--bind", "127.0.0.1"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
                    subprocess.Popen(pin(0) + ["redis-server", "--port", str(rport), "--save",
                                               "", "--appendonly", "no", "--bind", "127.0.0.1"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
                arms = {"terse": tport, "redis": rport}
                try:
                    for port in arms.values():
                        wait_ping(port)
                    samples = {a: [] for a in arms}
                    for rnd in range(args.rounds):
                        for arm in (["terse", "redis"] if rnd % 2 == 0 else ["redis", "terse"]):
                            call(arms[arm], "FLUSHALL")
                            samples[arm].append(run_list(arms[arm], requests, pipeline, args.tests))
                    print(f"\n## -n {requests} -P {pipeline}")
                    print(f"{'test':<22}{'terse best':>12}{'redis best':>12}{'t med':>10}"
                          f"{'r med':>10}{'t spread':>10}{'r spread':>10}{'best':>8}"
                          f"{'med':>8}  bar")
                    for test in samples["terse"][0]:
                        t = [s[test] for s in samples["terse"]]
                        r = [s[test] for s in samples["redis"]]
                        tm, rm = statistics.median(t), statistics.median(r)
                        ratio = max(t) / max(r)
                        ok = ratio >= args.bar
                        if not ok:
                            below.append((requests, pipeline, test, ratio))
                        print(f"{test:<22}{max(t):>12.0f}{max(r):>12.0f}{tm:>10.0f}{rm:>10.0f}"
                              f"{(max(t) - min(t)) / tm:>10.1%}{(max(r) - min(r)) / rm:>10.1%}"
                              f"{ratio:>8.3f}{tm / rm:>8.3f}  {'ok' if ok else 'BELOW'}")
                    sys.stdout.flush()
                finally:
                    for p in procs:
                        p.terminate()
                        p.wait(timeout=30)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\n{len(below)} test(s) below {args.bar}x" +
          "".join(f"\n  -n {n} -P {p} {t}: {r:.3f}" for n, p, t, r in below))
    return 0


if __name__ == "__main__":
    sys.exit(main())
