#!/usr/bin/python3
"""make bench-growth: GET latency at rest and while the keyspace grows to N small keys.

The bar (memory issue): growth to 10M small keys with p99.9 GET latency during growth <= 2x
its value at rest. Each server runs alone (terse, then redis-server with --redis), pinned to
CPU 0, from a fresh start each phase:
  at rest   preload --keys keys g:<i> (8-byte values), then the probe runs --seconds seconds;
  steady    preload the same keys, create STEADY_KEYS loader keys, then the same loader as in
            growth, same number of SETs, but overwriting those keys: nothing grows. The probe
            runs for the whole load: the latency the load alone gives a GET on this machine,
            against which growth shows what resizing adds (the server is at 100% CPU in both,
            so a GET waits behind pipelined SETs in both);
  growth    preload the same keys, start the probe, then redis-benchmark (pinned to CPU 1)
            SETs about N distinct small keys (key:<12 digits>, 8-byte values) at full speed;
            the probe runs for the whole load (only GETs sent while the loader ran count);
            then DBSIZE, INFO used_memory and RSS.
  after     the same server, right after the load: the probe again for --seconds seconds
            (N keys, at rest: how much of the growth figure is the size, not the growing).
The probe is a separate process pinned to CPU 1: one connection, one GET at a time (no
pipeline), back to back, of uniformly drawn preloaded keys (always hits; every reply is
checked against the preloaded value), timed with perf_counter_ns around send and receive.

Exit status 1 on an error reply, a miss or a wrong value, a loader failure or a server that
died; the table is printed first when there is one.
"""
import argparse
import array
import heapq
import json
import math
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from corpus_driver import CLK_TCK, BenchError, Server, cpu_ticks, free_port, git_rev, info, pin, \
    redis_version, resp_command, rss_of

KEY_RANGE = 2_000_000_000  # redis-benchmark -r: an int, and it draws random() % range
STEADY_KEYS = 100_000      # keys the steady-writes loader overwrites
STEADY_WARM = 2_000_000    # SETs that create them first (all but ~2e-9 of them)


def value_of(i: int) -> bytes:
    return b"%08d" % (i % 100_000_000)


def preload(port: int, keys: int, batch: int = 1000) -> None:
    """SET g:<i> for i < keys, pipelined; any reply but +OK is an error."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        for lo in range(0, keys, batch):
            hi = min(keys, lo + batch)
            s.sendall(b"".join(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$8\r\n%s\r\n"
                               % (len(b"g:%d" % i), b"g:%d" % i, value_of(i))
                               for i in range(lo, hi)))
            data = b""
            while data.count(b"\r\n") < hi - lo:
                chunk = s.recv(65536)
                if not chunk:
                    raise BenchError(f"connection closed during preload at key {lo}")
                data += chunk
            if data != b"+OK\r\n" * (hi - lo):
                bad = next(x for x in data.split(b"\r\n") if x != b"+OK")
                raise BenchError(f"preload SET failed: {bad.decode(errors='replace')}")


# ---- probe (child process) ---------------------------------------------------------------------

def probe_main(args) -> int:
    """One connection, GETs back to back until --seconds pass or SIGUSR1; latencies (ns) and
    their start times (ns since the first) go to --probe-out, a JSON summary to stdout."""
    stop = []
    signal.signal(signal.SIGUSR1, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    rng = random.Random(args.seed)
    lat, at = array.array("q"), array.array("q")
    counts = {"errors": 0, "misses": 0, "wrong": 0, "first_problem": ""}
    s = socket.create_connection(("127.0.0.1", args.probe), timeout=30)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    clock = time.perf_counter_ns
    counts["start_s"] = time.monotonic()  # the parent's clock: places samples on its timeline
    start = clock()
    end = start + int(args.seconds * 1e9) if args.seconds > 0 else None
    while not stop:
        i = rng.randrange(args.keys)
        k = b"g:%d" % i
        req = b"*2\r\n$3\r\nGET\r\n$%d\r\n%s\r\n" % (len(k), k)
        t0 = clock()
        s.sendall(req)
        buf = s.recv(4096)
        while not buf.endswith(b"\r\n") or (buf[:1] == b"$" and buf[:2] != b"$-"
                                            and buf.count(b"\r\n") < 2):
            chunk = s.recv(4096)
            if not chunk:
                raise SystemExit("probe: connection closed by the server")
            buf += chunk
        t1 = clock()
        lat.append(t1 - t0)
        at.append(t0 - start)
        if buf != b"$8\r\n" + value_of(i) + b"\r\n":
            kind = ("errors" if buf[:1] == b"-" else
                    "misses" if buf in (b"$-1\r\n", b"_\r\n") else "wrong")
            counts[kind] += 1
            if not counts["first_problem"]:
                counts["first_problem"] = f"GET g:{i} -> {buf[:80]!r}"
        if end is not None and t1 >= end:
            break
    s.close()
    with open(args.probe_out, "wb") as f:
        f.write(len(lat).to_bytes(8, "little"))
        lat.tofile(f)
        at.tofile(f)
    json.dump(counts, sys.stdout)
    return 0


class Probe:
    def __init__(self, args, port: int, seconds: float, tmp: str, name: str):
        self.out = os.path.join(tmp, f"probe-{name}.bin")
        self.seconds = seconds
        self.proc = subprocess.Popen(
            pin(1) + [sys.executable, os.path.abspath(__file__), "--probe", str(port),
                      "--probe-out", self.out, "--keys", str(args.keys), "--seconds",
                      str(seconds), "--seed", str(args.seed)],
            stdout=subprocess.PIPE, text=True)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGUSR1)

    def result(self) -> dict:
        out, _ = self.proc.communicate(timeout=self.seconds + 60)
        if self.proc.returncode != 0:
            raise BenchError(f"probe failed (status {self.proc.returncode})")
        res = json.loads(out)
        with open(self.out, "rb") as f:
            n = int.from_bytes(f.read(8), "little")
            res["lat"], res["at"] = array.array("q"), array.array("q")
            res["lat"].fromfile(f, n)
            res["at"].fromfile(f, n)
        os.unlink(self.out)
        return res

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def cpu_snapshot(pid: int) -> tuple:
    """(seconds, busy ticks of CPU 0, ticks of the server): what else ran on the server's CPU."""
    with open("/proc/stat") as f:
        t = next(line.split()[1:] for line in f if line.startswith("cpu0 "))
    busy = sum(int(x) for x in t[:8]) - int(t[3]) - int(t[4])  # minus idle and iowait
    return time.monotonic(), busy, cpu_ticks(pid)


def other_cpu0(a: tuple, b: tuple) -> float:
    """Share of CPU 0 used by anything but the server between two snapshots."""
    return max(0.0, ((b[1] - a[1]) - (b[2] - a[2])) / CLK_TCK / (b[0] - a[0]))


def wait_quiet(limit_s: float, window_s: float = 5.0, busy_max: float = 0.10) -> str:
    """Waits up to limit_s for window_s seconds in which CPUs 0 and 1 are each at most
    busy_max busy (other benchmarks on this shared machine); returns what it saw."""
    def busy() -> list:
        with open("/proc/stat") as f:
            rows = [line.split() for line in f if line[:4] in ("cpu0", "cpu1")]
        return [(sum(int(x) for x in r[1:9]), int(r[4]) + int(r[5])) for r in rows]
    end = time.monotonic() + limit_s
    while True:
        a = busy()
        time.sleep(window_s)
        b = busy()
        shares = [1 - (bi[1] - ai[1]) / max(1, bi[0] - ai[0]) for ai, bi in zip(a, b)]
        seen = "/".join(f"{x:.0%}" for x in shares)
        if max(shares) <= busy_max:
            return f"CPUs 0/1 busy {seen} over {window_s:g} s before the start"
        if time.monotonic() >= end:
            return f"CPUs 0/1 still busy {seen} after waiting {limit_s:g} s"


# ---- phases ------------------------------------------------------------------------------------

def start_server(args, kind: str, tmp: str) -> Server:
    port = free_port()
    if kind == "terse":
        return Server("terse", [args.terse_copy, "--port", str(port), "--save", ""] +
                      list(args.terse_arg), port)
    return Server("redis", [args.redis, "--port", str(port), "--save", "", "--appendonly", "no",
                            "--bind", "127.0.0.1", "--dir", tmp], port)


def loader_requests(n: int) -> int:
    """SETs of random keys in [0, KEY_RANGE) whose expected distinct count is n."""
    return round(-KEY_RANGE * math.log1p(-n / KEY_RANGE))


def run_loader(srv: Server, args, tmp: str, nreq: int, key_range: int) -> tuple:
    """redis-benchmark SETs (nreq of them, keys drawn from [0, key_range)) at full speed on
    CPU 1; returns (seconds, start time, DBSIZE timeline 4 times a second, CPU 0 other)."""
    cmd = pin(1) + ["redis-benchmark", "-h", "127.0.0.1", "-p", str(srv.port), "-t", "set",
                    "-n", str(nreq), "-r", str(key_range), "-P", str(args.pipeline),
                    "-c", str(args.conns), "-d", "8", "--csv"]
    log = tempfile.TemporaryFile(mode="w+", dir=tmp)
    c0 = cpu_snapshot(srv.pid)
    t0 = time.monotonic()
    loader = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, text=True)
    try:
        timeline = []  # (seconds since the loader started, DBSIZE)
        while True:
            try:
                loader.wait(timeout=0.25)
                break
            except subprocess.TimeoutExpired:
                pass
            srv.check_alive("the load")
            try:
                n = int(resp_command(srv.port, "DBSIZE")[1:].strip())
                timeline.append((time.monotonic() - t0, n))
            except (OSError, ValueError):
                pass
        load_s = time.monotonic() - t0
        other = other_cpu0(c0, cpu_snapshot(srv.pid))
    finally:
        if loader.poll() is None:
            loader.kill()
            loader.wait()
    log.seek(0)
    if loader.returncode != 0:
        raise BenchError(f"redis-benchmark failed (status {loader.returncode}) against "
                         f"{srv.name}:\n{log.read().strip()[-800:]}")
    return load_s, t0, timeline, other


def loaded_phase(args, kind: str, tmp: str, phase: str, key_range: int, warm: int) -> list:
    """A fresh server with the preloaded keys; warm unmeasured SETs first (0: none); then the
    probe runs for the whole timed load. Returns its row, then (growth) the after-growth row."""
    rows = []
    srv = start_server(args, kind, tmp)
    probe = None
    try:
        preload(srv.port, args.keys)
        if warm:
            run_loader(srv, args, tmp, warm, key_range)
        time.sleep(0.5)
        probe = Probe(args, srv.port, 0, tmp, f"{kind}-{phase}")
        time.sleep(0.2)
        nreq = loader_requests(args.n)
        load_s, t0, timeline, other = run_loader(srv, args, tmp, nreq, key_range)
        probe.stop()
        res = probe.result()
        # Only GETs sent while the loader ran count.
        lo, hi = (t0 - res["start_s"]) * 1e9, (t0 + load_s - res["start_s"]) * 1e9
        keep = [j for j, a in enumerate(res["at"]) if lo <= a <= hi]
        res["lat"] = array.array("q", (res["lat"][j] for j in keep))
        res["at"] = array.array("q", (res["at"][j] for j in keep))
        srv.check_alive(phase)
        dbsize = int(resp_command(srv.port, "DBSIZE")[1:].strip())
        i = info(srv.port)
        res.update(phase=phase, dbsize=dbsize, used=int(i["used_memory"]),
                   rss=rss_of(srv.pid), load_s=load_s, nreq=nreq, timeline=timeline, other=other,
                   probe_lag_s=res["start_s"] - t0)
        rows.append(res)
        if phase != "during growth":
            return rows
        # After: the same server, now holding N + keys keys, at rest.
        rows.append(idle_probe(args, srv, tmp, kind, "after growth", dbsize))
    finally:
        if probe is not None:
            probe.kill()
        srv.stop()
    return rows


def idle_probe(args, srv: Server, tmp: str, kind: str, phase: str, dbsize: int) -> dict:
    """The probe alone against srv for --seconds (nothing else loads it): the row of phase."""
    time.sleep(0.5)
    c0 = cpu_snapshot(srv.pid)
    p = Probe(args, srv.port, args.seconds, tmp, f"{kind}-{phase.replace(' ', '-')}")
    try:
        res = p.result()
    finally:
        p.kill()
    srv.check_alive(f"the {phase} probe")
    res.update(phase=phase, dbsize=dbsize, other=other_cpu0(c0, cpu_snapshot(srv.pid)))
    return res


def run_kind(args, kind: str, tmp: str) -> list:
    rows = []
    # At rest: only the small preloaded keyspace.
    srv = start_server(args, kind, tmp)
    try:
        preload(srv.port, args.keys)
        rows.append(idle_probe(args, srv, tmp, kind, "at rest", args.keys))
    finally:
        srv.stop()
    # Steady writes: the same loader at the same speed, but overwriting STEADY_KEYS keys (made
    # by a warm-up load first), so nothing grows: what the load alone costs a GET.
    rows += loaded_phase(args, kind, tmp, "steady writes", STEADY_KEYS, STEADY_WARM)
    # Growth: the loader adds about N distinct keys.
    rows += loaded_phase(args, kind, tmp, "during growth", KEY_RANGE, 0)
    return rows


# ---- report ------------------------------------------------------------------------------------

def pct(sorted_ns: list, q: float) -> float:
    """Nearest-rank percentile, in ms."""
    return sorted_ns[max(0, math.ceil(q * len(sorted_ns)) - 1)] / 1e6


def fmt_keys(n: int) -> str:
    return f"{n / 1e6:.2f}M" if n >= 1e6 else f"{n / 1e3:.0f}k"


def report(kind: str, rows: list) -> list:
    problems = []
    print(f"\n{kind}")
    print(f"{'phase':<15}{'keys':>8}{'GETs':>10}{'GET/s':>8}{'p50':>8}{'p99':>8}{'p99.9':>8}"
          f"{'max':>9}  (ms){'CPU 0 other':>13}")
    p999 = {}
    for r in rows:
        lat = sorted(r["lat"])
        if not lat:
            problems.append(f"{kind} {r['phase']}: the probe measured no GET")
            continue
        secs = (r["at"][-1] + r["lat"][-1] - r["at"][0]) / 1e9 or 1e-9
        p999[r["phase"]] = pct(lat, 0.999)
        print(f"{r['phase']:<15}{fmt_keys(r['dbsize']):>8}{len(lat):>10}{len(lat) / secs:>8.0f}"
              f"{pct(lat, 0.50):>8.3f}{pct(lat, 0.99):>8.3f}{pct(lat, 0.999):>8.3f}"
              f"{lat[-1] / 1e6:>9.3f}{r['other']:>19.0%}")
        for k in ("errors", "misses", "wrong"):
            if r[k]:
                problems.append(f"{kind} {r['phase']}: {r[k]} GET {k}; first: "
                                f"{r['first_problem']}")
    rest, grow = p999.get("at rest"), p999.get("during growth")
    steady, after = p999.get("steady writes"), p999.get("after growth")
    if rest and grow:
        verdict = "meets" if grow <= 2 * rest else "MISSES"
        print(f"p99.9 during growth / at rest = {grow / rest:.2f} ({verdict} the bar <= 2)"
              + (f"; after growth / at rest = {after / rest:.2f}" if after else ""))
    if steady and grow:
        verdict = "meets" if grow <= 2 * steady else "MISSES"
        print(f"p99.9 during growth / steady writes (same load, no growth) = {grow / steady:.2f}"
              f" ({verdict} 2x)")
    for g in (r for r in rows if "nreq" in r and r["phase"] == "steady writes"):
        print(f"steady writes: {g['nreq']} SETs in {g['load_s']:.1f} s "
              f"({g['nreq'] / g['load_s'] / 1e3:.0f}k SET/s) over {STEADY_KEYS} keys")
    g = next((r for r in rows if r["phase"] == "during growth"), None)
    if g:
        print(f"load: {g['nreq']} SETs in {g['load_s']:.1f} s "
              f"({g['nreq'] / g['load_s'] / 1e3:.0f}k SET/s); DBSIZE {g['dbsize']} "
              f"(preloaded {rows[0]['dbsize']} + "
              f"{g['dbsize'] - rows[0]['dbsize']} distinct loaded); used_memory "
              f"{g['used'] / 2**20:.1f} MiB, RSS {g['rss'] / 2**20:.1f} MiB")
        slow = heapq.nlargest(5, range(len(g["lat"])), key=g["lat"].__getitem__)
        parts = []
        for j in slow:
            t = g["at"][j] / 1e9 + g["probe_lag_s"]  # seconds since the loader started
            db = next((n for ts, n in g["timeline"] if ts >= t), g["dbsize"])
            parts.append(f"{g['lat'][j] / 1e6:.1f} ms at {t:.1f} s (DBSIZE ~{fmt_keys(db)})")
        print("slowest GETs during growth: " + ", ".join(parts))
    return problems


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--terse", default=os.path.join(here, "..", "build", "terse-server"))
    ap.add_argument("--redis", action="store_const", const="redis-server", default=None,
                    help="also run redis-server (after terse, never at the same time)")
    ap.add_argument("-n", type=int, default=10_000_000, help="distinct keys the load adds")
    ap.add_argument("--keys", type=int, default=100_000, help="preloaded keys the probe GETs")
    ap.add_argument("--seconds", type=float, default=20.0, help="probe time at rest")
    ap.add_argument("--conns", type=int, default=4, help="loader connections")
    ap.add_argument("--pipeline", type=int, default=32, help="loader pipeline depth")
    ap.add_argument("--seed", type=int, default=1, help="probe key sequence")
    ap.add_argument("--wait-quiet", type=float, default=0, metavar="SECONDS",
                    help="first wait up to this long for CPUs 0 and 1 to be idle for 5 s")
    ap.add_argument("--rev", default=None, help="commit to print for --terse (default: git "
                    "describes the tree the binary is in)")
    ap.add_argument("--terse-arg", action="append", default=[],
                    help="extra terse-server argument (repeat)")
    ap.add_argument("--probe", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--probe-out", default="", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.probe:
        return probe_main(args)
    if not os.access(args.terse, os.X_OK):
        print(f"growth_bench: {args.terse} not built (make bench-growth builds it)",
              file=sys.stderr)
        return 2
    for tool in ["redis-benchmark"] + ([args.redis] if args.redis else []):
        if shutil.which(tool) is None:
            print(f"growth_bench: {tool} not found (apt-get install redis-server)",
                  file=sys.stderr)
            return 2
    # SIGTERM unwinds like Ctrl-C, so every server and child is stopped.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    tmp = tempfile.mkdtemp(prefix="terse-growth-")
    problems = []
    try:
        rev = args.rev or git_rev(args.terse)
        args.terse_copy = os.path.join(tmp, "terse-server")
        shutil.copy2(args.terse, args.terse_copy)  # others may rebuild build/ during the run
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
        print(f"# {time.strftime('%Y-%m-%d %H:%M %Z')} {os.uname().nodename}, {os.cpu_count()} "
              f"CPUs, {mem:.1f} GiB; terse {rev}"
              + (f", redis-server {redis_version(args.redis)}" if args.redis else ""))
        print(f"# N={args.n}: redis-benchmark -t set -n {loader_requests(args.n)} "
              f"-r {KEY_RANGE} -P {args.pipeline} -c {args.conns} -d 8 (CPU 1); probe: 1 "
              f"connection, GET of {args.keys} preloaded keys g:<i> (hits, values checked), "
              f"not pipelined (CPU 1); server on CPU 0; at rest {args.seconds:g} s", flush=True)
        for kind in ["terse"] + (["redis"] if args.redis else []):
            if args.wait_quiet > 0:
                print(f"# {kind}: {wait_quiet(args.wait_quiet)}", flush=True)
            try:
                rows = run_kind(args, kind, tmp)
            except BenchError as e:
                problems.append(f"{kind}: {e}")
                continue
            problems += report(kind, rows)
            sys.stdout.flush()
    except KeyboardInterrupt:
        print("\ngrowth_bench: interrupted", file=sys.stderr)
        return 130
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if problems:
        print("\n# PROBLEMS:")
        for p in problems:
            print(f"#   {p}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
