#!/usr/bin/python3
"""make bench-ir: instructions per SET and per GET in the whole server, counted by callgrind.

Three runs of terse-server under `valgrind --tool=callgrind`, each from startup to SIGTERM:
  idle: startup, one PING;
  set:  startup, --requests SETs (redis-benchmark -t set -P 16 -c 1 -d 100, one key);
  get:  startup, the same SETs, then --requests GETs.
Instructions per SET = (set - idle) / requests, per GET = (get - set) / requests. One client
pipelining 16 requests on one key makes every run read and write the same bytes in the same
batches, so the counts repeat to well under 1% (the cron's ticks are the only timing left);
the tool runs each case --repeat times and prints the minimum and the spread. Instruction
counts are exact, unlike timings on this shared machine: use them to compare two builds of
terse (a refactoring must not move them by more than 1%).

Usage: bench/callgrind_server.py [--terse build/terse-server] [--requests 40000] [--repeat 2]
"""
import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ping(port: int, timeout: float = 60.0) -> None:
    end = time.time() + timeout
    while time.time() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("terse under valgrind did not answer PING on port %d" % port)


def bench(port: int, test: str, n: int) -> None:
    subprocess.run(["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-t", test,
                    "-n", str(n), "-c", "1", "-P", "16", "-d", "100", "-q"],
                   check=True, stdout=subprocess.DEVNULL)


def one_run(terse: str, steps: list, n: int, tmp: str) -> int:
    port = free_port()
    out = os.path.join(tmp, "cg.%d.out" % port)
    p = subprocess.Popen(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                          terse, "--port", str(port), "--save", "", "--appendonly", "no"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ping(port)
        for test in steps:
            bench(port, test, n)
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=120)
    with open(out) as f:
        for line in f:
            m = re.match(r"^(?:summary|totals):\s*(\d+)", line)
            if m:
                return int(m.group(1))
    raise RuntimeError("no totals in " + out)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--terse", default="build/terse-server")
    ap.add_argument("--requests", type=int, default=40000)
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()
    cases = {"idle": [], "set": ["set"], "get": ["set", "get"]}
    res = {k: [] for k in cases}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(a.repeat):
            for k, steps in cases.items():
                res[k].append(one_run(a.terse, steps, a.requests, tmp))
    lo = {k: min(v) for k, v in res.items()}
    for k, v in res.items():
        spread = (max(v) - min(v)) / min(v) if min(v) else 0.0
        print("%-5s Ir min %13d  spread %.3f%%  (%s)" % (k, lo[k], 100 * spread,
                                                       " ".join(str(x) for x in v)))
    print("Ir per SET: %.1f" % ((lo["set"] - lo["idle"]) / a.requests))
    print("Ir per GET: %.1f" % ((lo["get"] - lo["set"]) / a.requests))
    return 0


if __name__ == "__main__":
    sys.exit(main())
