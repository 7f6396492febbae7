#!/usr/bin/python3
"""make bench-memory / make bench-evict: the shared corpus through terse and redis-server.

Both servers run side by side on loopback, pinned to CPU 0 (only one is driven at a time); the
loader (build/bench/corpus_bench, C + hiredis) is pinned to CPU 1. The corpus is generated
once by ../shared/corpus/make_corpus.py (-n N --seed 1 --format bin) into a temporary file
outside the repository, which the loader streams (SET) and maps (GET, verification).

Memory mode (default):
  1. baseline used_memory and RSS of each empty server;
  2. load: the corpus in --slices slices, alternating the arms slice by slice (each slice
     is one throughput sample);
  3. bytes/key = (after - baseline) / N for RSS and for used_memory;
  4. GET, uniform and Zipf 0.99, --rounds rounds, arms alternated (order flipped each round).
Evict mode (--evict): fresh servers with maxmemory (256mb) and allkeys-lru; load everything,
  then a read-only Zipf pass and --rounds cache-aside Zipf rounds (GET; SET on a miss), with the
  hit rate of each, and the peaks of used_memory and RSS seen by a 4 Hz poller.

Throughput samples: best (highest), median, spread = (max - min) / median. Ratios are
terse/redis: for bytes/key lower is better for terse, for throughput higher is better.
"""
import argparse
import os
import resource
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


class BenchError(Exception):
    pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


NICE = 0  # --nice: scheduling priority of the servers and the loader (negative needs root)


def pin(cpu: int) -> list:
    prio = ["nice", "-n", str(NICE)] if NICE else []
    return (["taskset", "-c", str(cpu)] if (os.cpu_count() or 1) > 1 else []) + prio


def resp_command(port: int, *args: str, timeout: float = 5.0) -> bytes:
    """One command over a raw socket; returns the raw reply (enough for PING and INFO)."""
    req = f"*{len(args)}\r\n".encode() + b"".join(
        f"${len(a.encode())}\r\n".encode() + a.encode() + b"\r\n" for a in args)
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(req)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
            if data.startswith(b"$"):
                head, _, rest = data.partition(b"\r\n")
                n = int(head[1:])
                if n < 0 or len(rest) >= n + 2:
                    return rest[:n] if n >= 0 else b""
            elif data.endswith(b"\r\n"):
                return data
    return data


def info(port: int) -> dict:
    out = {}
    for line in resp_command(port, "INFO").decode(errors="replace").splitlines():
        if ":" in line and not line.startswith("#"):
            k, _, v = line.partition(":")
            out[k] = v
    return out


def rss_of(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return -1


def cpu_ticks(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime (fields 14, 15)


class Server:
    def __init__(self, name: str, argv: list, port: int):
        self.name, self.port = name, port
        self.argv = pin(0) + argv
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(self.argv, stdout=self.log, stderr=subprocess.STDOUT)
        end = time.time() + 15
        while True:
            try:
                if resp_command(self.port, "PING", timeout=0.5).startswith(b"+PONG"):
                    break
            except OSError:
                pass
            if self.proc.poll() is not None or time.time() > end:
                raise BenchError(f"{name} did not start: {shlex.join(self.argv)}\n"
                                 f"{self.log_tail()}")
            time.sleep(0.05)
        self.pid = self.proc.pid  # taskset execs the server: same pid

    def log_tail(self, n: int = 15) -> str:
        self.log.seek(0)
        return "\n".join(self.log.read().decode(errors="replace").splitlines()[-n:])

    def check_alive(self, phase: str) -> None:
        rc = self.proc.poll()
        if rc is not None:
            raise BenchError(f"{self.name} EXITED (status {rc}) during {phase}; log tail:\n"
                             f"{self.log_tail()}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Poller(threading.Thread):
    """Peak used_memory and RSS of each server, 4 times a second."""

    def __init__(self, servers: list):
        super().__init__(daemon=True)
        self.servers = servers
        self.peak_used = {s.name: 0 for s in servers}
        self.peak_rss = {s.name: 0 for s in servers}
        self.stop_evt = threading.Event()

    def run(self) -> None:
        while not self.stop_evt.wait(0.25):
            for s in self.servers:
                try:
                    used = int(info(s.port).get("used_memory", 0))
                    rss = rss_of(s.pid)
                except (OSError, ValueError):
                    continue
                self.peak_used[s.name] = max(self.peak_used[s.name], used)
                self.peak_rss[s.name] = max(self.peak_rss[s.name], rss)


def parse_result(out: str) -> dict:
    for line in out.splitlines():
        if line.startswith("RESULT "):
            res = {}
            for tok in shlex.split(line[7:]):
                k, _, v = tok.partition("=")
                try:
                    res[k] = float(v) if any(c in v for c in ".e") else int(v)
                except ValueError:
                    res[k] = v
            return res
    raise BenchError(f"no RESULT line in loader output:\n{out}")


def run_loader(args, server: Server, mode: str, extra: list, phase: str) -> dict:
    cmd = pin(1) + [args.loader, mode, "--port", str(server.port), "--pid", str(server.pid),
                    "--conns", str(args.conns), "--pipeline", str(args.pipeline)] + extra
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0, c0 = time.monotonic(), cpu_ticks(server.pid)
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    server.check_alive(phase)
    if p.returncode not in (0, 1):
        raise BenchError(f"loader failed against {server.name} during {phase} "
                         f"(status {p.returncode}): {p.stderr.strip()}")
    res = parse_result(p.stdout)
    if mode != "mem":
        secs = res.get("seconds", wall) or wall
        res["srv_cpu"] = (cpu_ticks(server.pid) - c0) / CLK_TCK / secs
        res["cli_cpu"] = ((ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)) / secs
    return res


def stats(xs: list) -> tuple:
    med = statistics.median(xs)
    return max(xs), med, (max(xs) - min(xs)) / med if med else 0.0


def fmt_rate(x: float) -> str:
    return f"{x / 1000:.1f}k"


def make_corpus(args, path: str) -> None:
    gen = os.path.join(args.shared, "corpus", "make_corpus.py")
    if not os.path.exists(gen):
        raise BenchError(f"corpus generator not found: {gen}")
    t0 = time.monotonic()
    subprocess.run([args.python, gen, "-n", str(args.n), "--seed", str(args.seed), "--format",
                    "bin", "-o", path], check=True)
    print(f"# corpus: {args.n} records, {os.path.getsize(path) / 1e6:.0f} MB, generated in "
          f"{time.monotonic() - t0:.1f} s into {path} (removed at the end)", flush=True)


def start_servers(args, extra_terse: list, extra_redis: list) -> list:
    tport, rport = free_port(), free_port()
    terse = Server("terse", [args.terse, "--port", str(tport), "--save", ""] + extra_terse +
                   list(args.terse_arg), tport)
    try:
        redis = Server("redis", [args.redis, "--port", str(rport), "--save", "", "--appendonly",
                                 "no", "--bind", "127.0.0.1"] + extra_redis, rport)
    except BenchError:
        terse.stop()
        raise
    return [terse, redis]


def load_interleaved(args, servers: list, corpus: str) -> dict:
    """Loads the corpus into every server, slice by slice, alternating which goes first."""
    per = {s.name: [] for s in servers}
    size = -(-args.n // args.slices)
    for i in range(args.slices):
        skip = i * size
        count = min(size, args.n - skip)
        if count <= 0:
            break
        order = servers if i % 2 == 0 else servers[::-1]
        for s in order:
            r = run_loader(args, s, "load", ["--corpus", corpus, "--skip", str(skip), "--count",
                                              str(count)], f"load slice {i + 1}")
            # terse compresses in the background once idle: let it finish before the other
            # server's slice (both run on CPU 0), and count that time separately.
            r["drain_s"] = drain(s)
            per[s.name].append(r)
    return per


def drain(s, timeout_s: float = 600.0) -> float:
    """Seconds until terse's INFO values_pending is 0 (0.0 for redis)."""
    if s.name != "terse":
        return 0.0
    start = time.monotonic()
    while time.monotonic() - start < timeout_s:
        if int(info(s.port).get("values_pending", 0)) == 0:
            break
        time.sleep(0.005)
    return time.monotonic() - start


def summarize_load(per: list) -> dict:
    keys = sum(r["keys"] for r in per)
    secs = sum(r["seconds"] for r in per)
    errors = sum(r["errors"] for r in per)
    first = next((r["first_error"] for r in per if r["first_error"]), "")
    drain_s = sum(r.get("drain_s", 0.0) for r in per)
    return {"keys": keys, "overall": keys / secs, "samples": [r["keys_per_s"] for r in per],
            "with_drain": keys / (secs + drain_s), "drain_s": drain_s,
            "errors": errors, "first_error": first,
            "srv_cpu": statistics.median(r["srv_cpu"] for r in per),
            "cli_cpu": statistics.median(r["cli_cpu"] for r in per)}


def git_rev(path: str) -> str:
    """The commit terse was built from, '+dirty' when the work tree differs under src/."""
    d = os.path.dirname(os.path.abspath(path))
    try:
        rev = subprocess.run(["git", "-C", d, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True).stdout.strip()
        top = subprocess.run(["git", "-C", d, "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", top, "status", "--porcelain", "--", "src",
                                "include"], capture_output=True, text=True).stdout.strip()
        return rev + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def redis_version(argv0: str) -> str:
    try:
        out = subprocess.run([argv0, "--version"], capture_output=True, text=True).stdout
        return next((t[2:] for t in out.split() if t.startswith("v=")), "?")
    except OSError:
        return "?"


def header(args, what: str) -> None:
    print(f"# redis-server {redis_version(args.redis)}")
    print(f"# {time.strftime('%Y-%m-%d %H:%M %Z')} {os.uname().nodename}, {os.cpu_count()} CPUs, "
          f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.1f} GiB; {what}; "
          f"N={args.n} seed {args.seed}; {args.conns} conns x pipeline {args.pipeline}; "
          f"servers on CPU 0, loader on CPU 1{f', nice {NICE}' if NICE else ''}", flush=True)


def wait_compressed(servers, timeout_s: float = 600.0) -> None:
    """Memory is measured once terse's background compression has finished (INFO terse
    values_pending 0); prints how long that took after the load."""
    for s in servers:
        if s.name != "terse":
            continue
        start = time.monotonic()
        while time.monotonic() - start < timeout_s:
            if int(info(s.port).get("values_pending", 0)) == 0:
                break
            time.sleep(0.1)
        print(f"# terse: background compression done {time.monotonic() - start:.1f} s after "
              f"the load (values_pending {info(s.port).get('values_pending', '-')})", flush=True)


def terse_section(port: int) -> str:
    i = info(port)
    keys = ("compression_ratio", "value_bytes_original", "value_bytes_stored", "values_raw",
            "values_lz4", "values_zstd", "values_pending", "index_bytes", "entry_bytes")
    return " ".join(f"{k}={i[k]}" for k in keys if k in i)


# ---- memory mode -------------------------------------------------------------------------------

def bench_memory(args, corpus: str) -> int:
    header(args, "memory and throughput")
    servers = start_servers(args, [], [])
    problems = []
    try:
        time.sleep(1.0)
        base = {s.name: run_loader(args, s, "mem", [], "baseline") for s in servers}
        per = load_interleaved(args, servers, corpus)
        load = {n: summarize_load(v) for n, v in per.items()}
        wait_compressed(servers)
        time.sleep(1.0)
        full = {s.name: run_loader(args, s, "mem", [], "after load") for s in servers}
        for s in servers:
            if full[s.name]["keys"] != args.n:
                problems.append(f"{s.name} holds {full[s.name]['keys']} keys after loading "
                                f"{args.n}")
            if load[s.name]["errors"]:
                problems.append(f"{s.name}: {load[s.name]['errors']} SET errors, first: "
                                f"{load[s.name]['first_error']}")
        gets = {(s.name, d): [] for s in servers for d in ("uniform", "zipf")}
        for rnd in range(args.rounds):
            order = servers if rnd % 2 == 0 else servers[::-1]
            for dist in ("uniform", "zipf"):
                for s in order:
                    r = run_loader(args, s, "get", [
                        "--corpus", corpus, "--keys", str(args.n), "--dist", dist,
                        "--requests", str(args.requests), "--seed", str(1000 + rnd)],
                        f"GET {dist} round {rnd + 1}")
                    gets[(s.name, dist)].append(r)
                    if r["mismatches"] or r["errors"] or r["misses"]:
                        problems.append(
                            f"{s.name} GET {dist} round {rnd + 1}: {r['mismatches']} wrong "
                            f"values of {r['verified']} verified, {r['misses']} misses, "
                            f"{r['errors']} errors; first: {r['first_problem']}")
        tinfo = terse_section(servers[0].port)
        for s in servers:
            s.check_alive("end of run")
    finally:
        for s in servers:
            s.stop()

    n = args.n
    bpk = {}
    for name in ("terse", "redis"):
        b, f = base[name], full[name]
        bpk[name] = ((f["rss"] - b["rss"]) / n, (f["used_memory"] - b["used_memory"]) / n)
    print()
    print(f"{'metric':<28}{'terse':>12}{'redis':>12}{'terse/redis':>13}   notes")
    print(f"{'bytes/key, RSS':<28}{bpk['terse'][0]:>12.1f}{bpk['redis'][0]:>12.1f}"
          f"{bpk['terse'][0] / bpk['redis'][0]:>13.3f}   minus empty-server baseline "
          f"(terse {base['terse']['rss'] / 2**20:.1f} MiB, redis "
          f"{base['redis']['rss'] / 2**20:.1f} MiB)")
    print(f"{'bytes/key, used_memory':<28}{bpk['terse'][1]:>12.1f}{bpk['redis'][1]:>12.1f}"
          f"{bpk['terse'][1] / bpk['redis'][1]:>13.3f}   INFO used_memory minus baseline")
    t, r = load["terse"], load["redis"]
    print(f"{'load keys/s (overall)':<28}{fmt_rate(t['overall']):>12}{fmt_rate(r['overall']):>12}"
          f"{t['overall'] / r['overall']:>13.3f}   all keys / sum of slice times")
    print(f"{'load+compress keys/s':<28}{fmt_rate(t['with_drain']):>12}"
          f"{fmt_rate(r['with_drain']):>12}{t['with_drain'] / r['with_drain']:>13.3f}   "
          f"plus the time terse's background compression took after each slice "
          f"({t['drain_s']:.1f} s in all)")
    tb, tm, tsp = stats(t["samples"])
    rb, rm, rsp = stats(r["samples"])
    print(f"{'load keys/s best':<28}{fmt_rate(tb):>12}{fmt_rate(rb):>12}{tb / rb:>13.3f}   "
          f"{len(t['samples'])} slices per arm")
    print(f"{'load keys/s median':<28}{fmt_rate(tm):>12}{fmt_rate(rm):>12}{tm / rm:>13.3f}   "
          f"spread terse {tsp:.1%}, redis {rsp:.1%}; server CPU {t['srv_cpu']:.0%} / "
          f"{r['srv_cpu']:.0%}, loader CPU {t['cli_cpu']:.0%} / {r['cli_cpu']:.0%}")
    for dist in ("uniform", "zipf"):
        label = "GET uniform" if dist == "uniform" else "GET zipf 0.99"
        ts = [x["gets_per_s"] for x in gets[("terse", dist)]]
        rs = [x["gets_per_s"] for x in gets[("redis", dist)]]
        tb, tm, tsp = stats(ts)
        rb, rm, rsp = stats(rs)
        tc = statistics.median(x["srv_cpu"] for x in gets[("terse", dist)])
        rc = statistics.median(x["srv_cpu"] for x in gets[("redis", dist)])
        lc = statistics.median(x["cli_cpu"] for x in gets[("terse", dist)])
        lr = statistics.median(x["cli_cpu"] for x in gets[("redis", dist)])
        ver = sum(x["verified"] for x in gets[("terse", dist)])
        bad = sum(x["mismatches"] for x in gets[("terse", dist)])
        print(f"{label + ' best':<28}{fmt_rate(tb):>12}{fmt_rate(rb):>12}{tb / rb:>13.3f}   "
              f"{args.rounds} rounds x {args.requests} GETs")
        print(f"{label + ' median':<28}{fmt_rate(tm):>12}{fmt_rate(rm):>12}{tm / rm:>13.3f}   "
              f"spread terse {tsp:.1%}, redis {rsp:.1%}; server CPU {tc:.0%} / {rc:.0%}, "
              f"loader CPU {lc:.0%} / {lr:.0%}; terse replies verified {ver}, wrong {bad}")
    print()
    print(f"# terse INFO: {tinfo}")
    if problems:
        print("# PROBLEMS:")
        for p in problems:
            print(f"#   {p}")
    else:
        print("# no SET errors, no GET misses, every verified GET reply matched the corpus")
    return 1 if problems else 0


# ---- eviction mode -----------------------------------------------------------------------------

def parse_bytes(s: str) -> int:
    s = s.strip().lower()
    for suf, mul in (("gb", 2**30), ("mb", 2**20), ("kb", 2**10), ("g", 10**9), ("m", 10**6),
                     ("k", 10**3)):
        if s.endswith(suf):
            return int(float(s[:-len(suf)]) * mul)
    return int(s)


def bench_evict(args, corpus: str) -> int:
    header(args, f"eviction at maxmemory {args.maxmemory} allkeys-lru")
    budget = parse_bytes(args.maxmemory)
    conf = ["--maxmemory", args.maxmemory, "--maxmemory-policy", "allkeys-lru"]
    notes = []
    try:
        servers = start_servers(args, conf, conf)
    except BenchError as e:
        notes.append(f"terse refused maxmemory on its command line ({e}); set with CONFIG SET")
        servers = start_servers(args, [], conf)
        for a, b in (("maxmemory", args.maxmemory), ("maxmemory-policy", "allkeys-lru")):
            resp_command(servers[0].port, "CONFIG", "SET", a, b)
    for s in servers:
        i = info(s.port)
        notes.append(f"{s.name}: maxmemory={i.get('maxmemory')} "
                     f"maxmemory_policy={i.get('maxmemory_policy')}")
    poller = Poller(servers)
    poller.start()
    rows = {s.name: [] for s in servers}
    try:
        per = load_interleaved(args, servers, corpus)
        load = {n: summarize_load(v) for n, v in per.items()}
        after_load = {s.name: run_loader(args, s, "mem", [], "after load") for s in servers}
        order = servers
        for s in order:  # read-only pass: what the load left in the cache
            r = run_loader(args, s, "get", ["--corpus", corpus, "--keys", str(args.n), "--dist",
                                            "zipf", "--requests", str(args.requests),
                                            "--seed", "999"], "read-only Zipf pass")
            rows[s.name].append(("read-only", r))
        for rnd in range(args.rounds):
            order = servers if rnd % 2 == 0 else servers[::-1]
            for s in order:
                r = run_loader(args, s, "get", [
                    "--corpus", corpus, "--keys", str(args.n), "--dist", "zipf", "--requests",
                    str(args.requests), "--seed", str(1000 + rnd), "--fill-on-miss"],
                    f"cache-aside Zipf round {rnd + 1}")
                rows[s.name].append((f"cache-aside {rnd + 1}", r))
        end = {s.name: run_loader(args, s, "mem", [], "end") for s in servers}
        for s in servers:
            s.check_alive("end of run")
    finally:
        poller.stop_evt.set()
        poller.join()
        for s in servers:
            s.stop()

    print()
    evicting = {}
    for name in ("terse", "redis"):
        peak_u, peak_r = poller.peak_used[name], poller.peak_rss[name]
        e = end[name]
        over = max(peak_u, after_load[name]["used_memory"], e["used_memory"])
        evicting[name] = e["evicted_keys"] > 0 and over <= budget * 1.01
        print(f"{name}: after load {after_load[name]['keys']} keys, used_memory "
              f"{after_load[name]['used_memory'] / 2**20:.1f} MiB; peak used_memory "
              f"{peak_u / 2**20:.1f} MiB ({peak_u / budget:.3f}x budget), peak RSS "
              f"{peak_r / 2**20:.1f} MiB ({peak_r / budget:.3f}x budget); at the end "
              f"{e['keys']} keys, used_memory {e['used_memory'] / 2**20:.1f} MiB, RSS "
              f"{e['rss'] / 2**20:.1f} MiB, evicted_keys {e['evicted_keys']}; load {fmt_rate(load[name]['overall'])} keys/s, "
              f"{load[name]['errors']} SET errors{' (first: ' + load[name]['first_error'] + ')' if load[name]['errors'] else ''}")
        if not evicting[name]:
            print(f"  !! {name} DOES NOT HOLD THE BUDGET: used_memory reached "
                  f"{over / 2**20:.1f} MiB against maxmemory {budget / 2**20:.0f} MiB, "
                  f"evicted_keys {e['evicted_keys']}; its hit rates below are NOT comparable "
                  f"(it keeps keys it should have evicted)")
    print()
    print(f"{'Zipf 0.99 phase':<18}{'terse hit':>11}{'redis hit':>11}{'diff (pts)':>12}"
          f"{'terse GET/s':>13}{'redis GET/s':>13}   errors t/r")
    for (label, t), (_, r) in zip(rows["terse"], rows["redis"]):
        flag = "" if evicting["terse"] else " *"
        print(f"{label:<18}{t['hit_rate']:>10.1%}{flag:<1}{r['hit_rate']:>11.1%}"
              f"{(t['hit_rate'] - r['hit_rate']) * 100:>12.1f}{fmt_rate(t['gets_per_s']):>13}"
              f"{fmt_rate(r['gets_per_s']):>13}   {t['errors']}/{r['errors']}")
    last_t, last_r = rows["terse"][-1][1], rows["redis"][-1][1]
    print(f"{'last, 2nd half':<18}{last_t['hit_rate_second_half']:>10.1%}"
          f"{'' if evicting['terse'] else ' *':<1}{last_r['hit_rate_second_half']:>11.1%}"
          f"{(last_t['hit_rate_second_half'] - last_r['hit_rate_second_half']) * 100:>12.1f}")
    if not evicting["terse"]:
        print("  * terse is over its maxmemory: its hit rate counts keys it should not hold")
    for note in notes:
        print(f"# {note}")
    for name in ("terse", "redis"):
        for label, x in rows[name]:
            if x["mismatches"] or x["errors"]:
                print(f"# PROBLEM {name} {label}: {x['mismatches']} wrong values, {x['errors']} "
                      f"errors; first: {x['first_problem']}")
    return 0 if evicting["terse"] and evicting["redis"] else 1


def default_tmpdir(n: int):
    """/dev/shm when it has room: a corpus file on disk can be dropped from the page cache
    during the run (this VM reclaims cold page cache), and then the loader waits for the
    disk instead of the server."""
    try:
        st = os.statvfs("/dev/shm")
        if st.f_bavail * st.f_frsize > n * 1800 * 1.5:
            return "/dev/shm"
    except OSError:
        pass
    return None


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--terse", default=os.path.join(here, "..", "build", "terse-server"))
    ap.add_argument("--redis", default="redis-server")
    ap.add_argument("--loader", default=os.path.join(here, "..", "build", "bench",
                                                     "corpus_bench"))
    ap.add_argument("--shared", default=os.path.join(here, "..", "..", "shared"))
    ap.add_argument("--python", default="/usr/bin/python3", help="runs make_corpus.py")
    ap.add_argument("-n", type=int, default=1000000, help="corpus keys")
    ap.add_argument("--seed", type=int, default=1, help="corpus seed")
    ap.add_argument("--conns", type=int, default=4)
    ap.add_argument("--pipeline", type=int, default=64)
    ap.add_argument("--slices", type=int, default=0, help="load slices (samples) per arm "
                    "(default: N / 20000, between 1 and 10)")
    ap.add_argument("--rounds", type=int, default=5, help="GET rounds per arm")
    ap.add_argument("--requests", type=int, default=0, help="GETs per round (default: N, "
                    "at least 500000)")
    ap.add_argument("--evict", action="store_true", help="eviction benchmark")
    ap.add_argument("--maxmemory", default="256mb")
    ap.add_argument("--nice", type=int, default=0, help="run servers and loader at this nice "
                    "value (e.g. -5 on a machine shared with background jobs; needs root)")
    ap.add_argument("--tmpdir", default=None, help="where the corpus file goes (not the repo; "
                    "default /dev/shm when it has room, else the system temporary directory)")
    ap.add_argument("--terse-arg", action="append", default=[],
                    help="extra terse-server argument (repeat: --terse-arg=--terse-compression "
                    "--terse-arg=inline)")
    ap.add_argument("--corpus", default=None, help="use this existing corpus file (-n records)")
    args = ap.parse_args()
    global NICE
    NICE = args.nice
    if args.requests <= 0:
        args.requests = max(args.n, 500000)
    if args.slices <= 0:
        args.slices = min(10, max(1, args.n // 20000))
    for tool in (args.terse, args.loader):
        if not os.access(tool, os.X_OK):
            print(f"corpus_driver: {tool} not built (make bench-memory builds it)",
                  file=sys.stderr)
            return 2
    if shutil.which(args.redis) is None:
        print(f"corpus_driver: {args.redis} not found (apt-get install redis-server)",
              file=sys.stderr)
        return 2
    if args.tmpdir is None:
        args.tmpdir = default_tmpdir(args.n)
    tmp = tempfile.mkdtemp(prefix="terse-corpus-", dir=args.tmpdir)
    try:
        # Run a private copy: other work in the same tree may rebuild build/terse-server.
        print(f"# terse binary: {args.terse} ({git_rev(args.terse)}), copied to {tmp}")
        copy = os.path.join(tmp, "terse-server")
        shutil.copy2(args.terse, copy)
        args.terse = copy
        corpus = args.corpus
        if corpus is None:
            corpus = os.path.join(tmp, "corpus.bin")
            make_corpus(args, corpus)
        return bench_evict(args, corpus) if args.evict else bench_memory(args, corpus)
    except BenchError as e:
        print(f"\ncorpus_driver: FAILED: {e}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
