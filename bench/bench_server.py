#!/usr/bin/python3
"""make bench: redis-benchmark against terse-server and redis-server, side by side.

Both servers run at once on loopback, pinned to CPU 0 (only one is driven at a time); the
client is pinned to CPU 1. For every case (SET and GET; -d 100 and -d 1024; -P 1 and -P 16;
-c 50) the two arms alternate for several rounds (which goes first alternates too), so drift
on this shared machine hits both alike. Per arm it prints the best and median ops/s, the
median p50/p99 latency, the spread ((max - min) / median), the terse/redis ratio of the best
and of the medians, and the median with quartiles of the per-round paired ratios.

Usage: bench/bench_server.py [--terse build/terse-server] [--rounds 5] [--requests 200000]
"""
import argparse
import csv
import io
import os
import socket
import statistics
import subprocess
import sys
import time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ping(port: int, timeout: float = 10.0) -> None:
    end = time.time() + timeout
    while time.time() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"server on port {port} did not answer PING")


def pin(cpu: int) -> list:
    return ["taskset", "-c", str(cpu)] if os.cpu_count() and os.cpu_count() > 1 else []


def start(argv: list, port: int) -> subprocess.Popen:
    p = subprocess.Popen(pin(0) + argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_ping(port)
    return p


def run_case(port: int, test: str, size: int, pipeline: int, requests: int) -> dict:
    cmd = pin(1) + ["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-t", test,
                    "-n", str(requests), "-c", "50", "-P", str(pipeline), "-d", str(size),
                    "-r", "100000", "--csv"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    row = rows[0]
    return {"rps": float(row["rps"]), "p50": float(row["p50_latency_ms"]),
            "p99": float(row["p99_latency_ms"])}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--terse", default="build/terse-server")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--requests", type=int, default=200000)
    args = ap.parse_args()

    tport, rport = free_port(), free_port()
    terse = start([args.terse, "--port", str(tport), "--save", ""], tport)
    redis = start(["redis-server", "--port", str(rport), "--save", "", "--appendonly", "no",
                   "--bind", "127.0.0.1"], rport)
    arms = {"terse": tport, "redis": rport}
    cases = [(t, d, p) for p in (16, 1) for d in (100, 1024) for t in ("set", "get")]
    try:
        print(f"# {time.strftime('%Y-%m-%d')} {os.uname().nodename} {os.cpu_count()} CPUs, "
              f"{args.rounds} rounds x {args.requests} requests, -c 50, client on CPU 1, "
              f"servers on CPU 0")
        print(f"{'case':<18}{'arm':<7}{'best':>10}{'median':>10}{'p50ms':>8}{'p99ms':>8}"
              f"{'spread':>8}{'ratio best':>12}{'ratio med':>11}{'paired med [IQR]':>22}")
        for test, size, pipeline in cases:
            samples = {a: [] for a in arms}
            order = list(arms)
            for rnd in range(args.rounds):
                # Alternate which arm goes first, so a drift inside a round hits both alike.
                for arm in (order if rnd % 2 == 0 else order[::-1]):
                    samples[arm].append(run_case(arms[arm], test, size, pipeline,
                                                 args.requests))
            paired = sorted(t["rps"] / r["rps"] for t, r in zip(samples["terse"], samples["redis"]))
            stats = {}
            for arm, ss in samples.items():
                rps = [s["rps"] for s in ss]
                med = statistics.median(rps)
                stats[arm] = {"best": max(rps), "med": med,
                              "p50": statistics.median(s["p50"] for s in ss),
                              "p99": statistics.median(s["p99"] for s in ss),
                              "spread": (max(rps) - min(rps)) / med if med else 0.0}
            name = f"{test.upper()} -d{size} -P{pipeline}"
            for arm in arms:
                s = stats[arm]
                ratio_b = ratio_m = ratio_p = ""
                if arm == "terse":
                    ratio_b = f"{s['best'] / stats['redis']['best']:.3f}"
                    ratio_m = f"{s['med'] / stats['redis']['med']:.3f}"
                    q1 = paired[len(paired) // 4]
                    q3 = paired[(3 * len(paired)) // 4]
                    ratio_p = f"{statistics.median(paired):.3f} [{q1:.2f}-{q3:.2f}]"
                print(f"{name:<18}{arm:<7}{s['best']:>10.0f}{s['med']:>10.0f}{s['p50']:>8.3f}"
                      f"{s['p99']:>8.3f}{s['spread']:>8.1%}{ratio_b:>12}{ratio_m:>11}"
                      f"{ratio_p:>22}")
            sys.stdout.flush()
    finally:
        for p in (terse, redis):
            p.terminate()
            p.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
