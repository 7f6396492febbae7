#!/usr/bin/python3
"""persist_bench: snapshot size, SAVE time and load time, terse beside redis-server.

Not part of make test. Usage (from the repository root):

    make build/terse-server build/bench/corpus_bench
    bench/persist_bench.py [-n 1000000] [--rounds 3]

The corpus (../shared/corpus/make_corpus.py -n N --seed 1 --format bin) is loaded into both
servers with build/bench/corpus_bench (C + hiredis). Then, per server, --rounds times: SAVE
(wall time of the command, seen by the client), the snapshot's size; then the server is
killed and restarted on its snapshot --rounds times: load time as the server logs it ("DB
loaded from disk: X seconds", both servers print it) and the wall time from exec to the first
PONG. DEBUG DIGEST is taken before the save and after every restart, on both servers: terse
must match itself and redis-server (the digest is Redis's algorithm over the same data).
Redis runs with rdbcompression yes (its default), rdbchecksum yes, no AOF. Figures: the
minimum over the rounds, and the spread (max-min)/min.
"""
import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(port, *args, timeout=600):
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        req = b"*%d\r\n" % len(args) + b"".join(
            b"$%d\r\n%s\r\n" % (len(a), a) for a in (x.encode() for x in args))
        s.sendall(req)
        buf = b""
        while not buf.endswith(b"\r\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
        return buf.decode(errors="replace").strip()


class Srv:
    def __init__(self, name, argv, workdir):
        self.name, self.argv, self.workdir = name, argv, workdir
        self.port = free_port()
        self.proc = None

    def start(self):
        self.log = os.path.join(self.workdir, "log-%d.txt" % time.monotonic_ns())
        t0 = time.monotonic()
        self.proc = subprocess.Popen(self.argv + ["--port", str(self.port)], cwd=self.workdir,
                                     stdout=open(self.log, "w"), stderr=subprocess.STDOUT)
        while True:
            try:
                if call(self.port, "PING", timeout=1) == "+PONG":
                    return time.monotonic() - t0
            except OSError:
                pass
            if self.proc.poll() is not None:
                sys.exit("%s exited during startup:\n%s" % (self.name, open(self.log).read()))
            time.sleep(0.01)

    def logged_load_s(self):
        m = re.search(r"DB loaded from disk: ([0-9.]+) seconds", open(self.log).read())
        return float(m.group(1)) if m else float("nan")

    def kill(self):
        if self.proc:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


def spread(xs):
    return (max(xs) - min(xs)) / min(xs) if min(xs) > 0 else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=1000000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--terse", default=os.path.join(ROOT, "build/terse-server"))
    ap.add_argument("--redis", default="/usr/bin/redis-server")
    ap.add_argument("--loader", default=os.path.join(ROOT, "build/bench/corpus_bench"))
    ap.add_argument("--corpus-script",
                    default=os.path.join(ROOT, "..", "shared", "corpus", "make_corpus.py"))
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="persist-bench-")
    try:
        corpus = os.path.join(tmp, "corpus.kv")
        t0 = time.monotonic()
        subprocess.run([sys.executable, a.corpus_script, "-n", str(a.n), "--seed", "1",
                        "--format", "bin", "-o", corpus], check=True)
        print("corpus: %d keys, %d bytes, generated in %.1fs"
              % (a.n, os.path.getsize(corpus), time.monotonic() - t0))
        arms = []
        for name, argv, snap in (
                ("terse", [a.terse, "--save", "", "--enable-debug-command", "yes"],
                 "dump.terse"),
                ("redis", [a.redis, "--save", "", "--appendonly", "no", "--rdbcompression",
                           "yes", "--enable-debug-command", "yes"], "dump.rdb")):
            d = os.path.join(tmp, name)
            os.makedirs(d)
            arms.append((Srv(name, argv, d), snap))
        res = {}
        for srv, snap in arms:
            srv.start()
            t0 = time.monotonic()
            subprocess.run([a.loader, "load", "--port", str(srv.port), "--corpus", corpus],
                           check=True, capture_output=True)
            load_wall = time.monotonic() - t0
            keys = call(srv.port, "DBSIZE")
            dig = call(srv.port, "DEBUG", "DIGEST")
            saves = []
            for _ in range(a.rounds):
                t0 = time.monotonic()
                assert call(srv.port, "SAVE") == "+OK"
                saves.append(time.monotonic() - t0)
            size = os.path.getsize(os.path.join(srv.workdir, snap))
            srv.kill()
            loads, walls, digs = [], [], []
            for _ in range(a.rounds):
                walls.append(srv.start())
                loads.append(srv.logged_load_s())
                digs.append(call(srv.port, "DEBUG", "DIGEST"))
                srv.kill()
            res[srv.name] = dict(keys=keys, digest=dig, save=saves, size=size, load=loads,
                                 wall=walls, digests_ok=all(x == dig for x in digs),
                                 fill=load_wall)
            print("%s: %s keys loaded in %.1fs, digest %s, restarts identical: %s"
                  % (srv.name, keys, load_wall, dig, res[srv.name]["digests_ok"]))
        t, r = res["terse"], res["redis"]
        print("\n%-28s %16s %16s %8s" % ("", "terse", "redis-server", "ratio"))
        print("%-28s %16d %16d %8.3f" % ("snapshot bytes", t["size"], r["size"],
                                         t["size"] / r["size"]))
        for label, key in (("SAVE seconds (min)", "save"), ("load seconds, logged (min)", "load"),
                           ("exec to PONG seconds (min)", "wall")):
            print("%-28s %16.3f %16.3f %8.3f" % (label, min(t[key]), min(r[key]),
                                                 min(t[key]) / min(r[key])))
            print("%-28s %15.0f%% %15.0f%%" % ("  spread", 100 * spread(t[key]),
                                               100 * spread(r[key])))
        print("%-28s %16s %16s" % ("digest after restart", "identical" if t["digests_ok"]
                                   else "DIFFERENT", "identical" if r["digests_ok"]
                                   else "DIFFERENT"))
        print("terse digest == redis digest: %s" % (t["digest"] == r["digest"]))
        return 0 if t["digests_ok"] else 1
    finally:
        for srv, _ in locals().get("arms", []):
            srv.kill()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
