#!/usr/bin/python3
"""make bench-trickle: one huge command that arrives in small pieces, terse against redis-server.

A client sends one multibulk command of --args one-byte arguments (EXISTS k x x x ..., 7 bytes
an argument: 1,000,000 arguments are 7 MB) in --segment-byte writes, --gap-ms apart, the way a
slow link or a slow producer delivers it. Meanwhile another client sends PING every
--ping-ms and records each round trip. Per server it reports the server's CPU time (utime +
stime from /proc/<pid>/stat, read before the first byte and after the reply) and the PING
latencies (max and p99) while the command was arriving (PINGs answered before its last byte
was sent) and over the whole run, including the execution of the command itself.

The servers run one after the other on loopback, each pinned to CPU 0 (the two clients on
CPU 1), and the arms alternate over --rounds rounds. The figure to read is the ratio of the
minimum CPU time over the rounds, terse / redis; the spread is the max/min of each arm.

Usage: bench/trickle_bench.py [--terse build/terse-server] [--args 1000000] [--segment 1400]
                              [--gap-ms 4] [--rounds 3]
"""
import argparse
import os
import socket
import subprocess
import sys
import threading
import time

TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pin(cpu: int) -> list:
    return ["taskset", "-c", str(cpu)] if (os.cpu_count() or 1) > 1 else []


def cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def start(argv: list, port: int) -> subprocess.Popen:
    p = subprocess.Popen(pin(0) + argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    end = time.time() + 10
    while time.time() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return p
        except OSError:
            time.sleep(0.05)
    p.kill()
    raise RuntimeError(f"server on port {port} did not answer PING")


def command(nargs: int) -> bytes:
    head = b"*%d\r\n$6\r\nEXISTS\r\n$1\r\nk\r\n" % (nargs + 2)
    return head + b"$1\r\nx\r\n" * nargs


def read_reply(s: socket.socket) -> bytes:
    buf = b""
    while not buf.endswith(b"\r\n"):
        chunk = s.recv(64)
        if not chunk:
            raise RuntimeError("connection closed before the reply")
        buf += chunk
    return buf


class Pinger(threading.Thread):
    """PINGs every period; lat[i] = (send time, round trip in ms)."""

    def __init__(self, port: int, period_s: float):
        super().__init__(daemon=True)
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.period_s = period_s
        self.stop = threading.Event()
        self.lat = []

    def run(self) -> None:
        while not self.stop.is_set():
            t0 = time.perf_counter()
            self.sock.sendall(b"PING\r\n")
            if read_reply(self.sock) != b"+PONG\r\n":
                raise RuntimeError("PING did not get PONG")
            self.lat.append((t0, (time.perf_counter() - t0) * 1000))
            time.sleep(self.period_s)
        self.sock.close()


def pct(xs: list, q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0.0


def one_run(pid: int, port: int, payload: bytes, seg: int, gap_s: float, ping_s: float) -> dict:
    pinger = Pinger(port, ping_s)
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    pinger.start()
    time.sleep(0.05)
    c0 = cpu_s(pid)
    t_start = time.perf_counter()
    for off in range(0, len(payload), seg):
        s.sendall(payload[off:off + seg])
        time.sleep(gap_s)
    t_sent = time.perf_counter()
    reply = read_reply(s)
    c1 = cpu_s(pid)
    time.sleep(0.05)
    pinger.stop.set()
    pinger.join()
    s.close()
    if not reply.startswith(b":"):
        raise RuntimeError(f"unexpected reply {reply[:80]!r}")
    # While it arrives: PINGs answered before the command's last byte was sent (the ones in
    # flight then wait for the command itself to run, which is not its arrival).
    arriving = [ms for t, ms in pinger.lat if t_start <= t and t + ms / 1000 < t_sent]
    return {"cpu": c1 - c0, "wall": t_sent - t_start,
            "ping_max_arriving": max(arriving, default=0.0),
            "ping_p99_arriving": pct(arriving, 0.99),
            "ping_max_all": max((ms for _, ms in pinger.lat), default=0.0),
            "pings": len(arriving)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--terse", default="build/terse-server")
    ap.add_argument("--args", type=int, default=1000000)
    ap.add_argument("--segment", type=int, default=1400)
    ap.add_argument("--gap-ms", type=float, default=4.0)
    ap.add_argument("--ping-ms", type=float, default=5.0)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()

    payload = command(a.args)
    tport, rport = free_port(), free_port()
    servers = {
        "terse": start([a.terse, "--port", str(tport), "--save", ""], tport),
        "redis": start(["redis-server", "--port", str(rport), "--save", "", "--appendonly", "no",
                        "--bind", "127.0.0.1"], rport),
    }
    ports = {"terse": tport, "redis": rport}
    os.sched_setaffinity(0, {1} if (os.cpu_count() or 1) > 1 else {0})
    res = {arm: [] for arm in servers}
    print(f"# {time.strftime('%Y-%m-%d %H:%M')} {os.uname().nodename}: one command of "
          f"{a.args + 2} arguments ({len(payload)} bytes) in {a.segment}-byte writes "
          f"{a.gap_ms} ms apart, PING every {a.ping_ms} ms, {a.rounds} rounds, arms alternated")
    try:
        for rnd in range(a.rounds):
            order = ["terse", "redis"] if rnd % 2 == 0 else ["redis", "terse"]
            for arm in order:
                r = one_run(servers[arm].pid, ports[arm], payload, a.segment, a.gap_ms / 1000,
                            a.ping_ms / 1000)
                res[arm].append(r)
                print(f"round {rnd} {arm:<6} cpu {r['cpu']:7.2f} s  arrival {r['wall']:6.1f} s  "
                      f"PING while arriving: max {r['ping_max_arriving']:6.2f} ms "
                      f"p99 {r['ping_p99_arriving']:6.2f} ms ({r['pings']} pings)  "
                      f"PING max overall {r['ping_max_all']:6.2f} ms")
                sys.stdout.flush()
    finally:
        for p in servers.values():
            p.terminate()
            p.wait(timeout=10)
    tmin = {arm: min(r["cpu"] for r in rs) for arm, rs in res.items()}
    print(f"{'arm':<6}{'cpu min s':>10}{'cpu max s':>10}{'PING max ms (arriving)':>24}"
          f"{'PING max ms (all)':>19}")
    for arm, rs in res.items():
        print(f"{arm:<6}{tmin[arm]:>10.2f}{max(r['cpu'] for r in rs):>10.2f}"
              f"{max(r['ping_max_arriving'] for r in rs):>24.2f}"
              f"{max(r['ping_max_all'] for r in rs):>19.2f}")
    print(f"terse/redis CPU (min over rounds): {tmin['terse'] / max(tmin['redis'], 1e-9):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
