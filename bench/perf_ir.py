#!/usr/bin/python3
"""perf_ir.py: instruction budgets of libterse, per operation.

Each case runs as its own process (bench/perf_ir.c) under valgrind's cachegrind with the cache
simulation off, once with 0 and once with N iterations; Ir/op = (Ir[N] - Ir[0]) / N, so process
start, input loading, context setup and the warm-up call cancel out. Instruction counts are
deterministic, so a budget can be tight.

  perf_ir.py ... check               print the table; exit 1 if a case exceeds its budget by
                                     more than 1% (or has none)
  perf_ir.py ... update [--allow-raise]
                                     write the measured counts as budgets; a budget is only
                                     ever lowered unless --allow-raise (make ALLOW_RAISE=1)
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys

SIZES = [40, 64, 127, 128, 1024, 65536, 1048576]
# Iterations per case: enough that the per-call figure is exact to well under 1 Ir for the
# small cases, few for the big ones (each 1 MiB call is millions of Ir under valgrind).
ITERS = {40: 2000, 64: 2000, 127: 2000, 128: 2000, 1024: 500, 65536: 10, 1048576: 2}
# The cachekit crate's published figures (issue 3's bar), Ir/op, where one exists.
CACHEKIT = {"env_store_64": 515, "env_retrieve_64": 1007, "env_store_128": 11082,
            "env_store_1024": 22781, "env_retrieve_1024": 5739}
TOLERANCE = 0.01


def cases():
    out = []
    for s in SIZES:
        out += [("env_store_%d" % s, ITERS[s]), ("env_retrieve_%d" % s, ITERS[s])]
    for kind in ("raw", "lz4", "zstd"):
        n = 2000 if kind == "raw" else 500
        out += [("value_encode_" + kind, n), ("value_decode_" + kind, n)]
    return out


def ir(binary, case, iters, inputs):
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
           binary, case, str(iters), inputs]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("perf_ir: %s failed:\n%s" % (case, p.stderr))
    m = re.search(r"I\s+refs:\s+([\d,]+)", p.stderr)
    if m is None:
        raise SystemExit("perf_ir: no I refs in valgrind output of %s" % case)
    return int(m.group(1).replace(",", ""))


def measure(binary, inputs, jobs):
    todo = cases()
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        runs = {(c, n): (ex.submit(ir, binary, c, 0, inputs), ex.submit(ir, binary, c, n, inputs))
                for c, n in todo}
    return {c: round((runs[(c, n)][1].result() - runs[(c, n)][0].result()) / n) for c, n in todo}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--inputs", required=True)
    ap.add_argument("--baselines", required=True)
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("PERF_IR_JOBS", "2")))
    ap.add_argument("--allow-raise", action="store_true")
    ap.add_argument("mode", choices=["check", "update"])
    a = ap.parse_args()

    try:
        with open(a.baselines) as f:
            base = json.load(f)
    except FileNotFoundError:
        base = {"budgets": {}}
    budgets = base.setdefault("budgets", {})
    got = measure(a.bin, a.inputs, a.jobs)

    bad = []
    print("%-22s %12s %12s %10s %10s" % ("case", "Ir/op", "budget", "vs budget", "cachekit"))
    for c, _ in cases():
        b = budgets.get(c)
        ratio = "%+.1f%%" % (100.0 * (got[c] - b) / b) if b else "-"
        print("%-22s %12d %12s %10s %10s" % (c, got[c], b if b is not None else "-", ratio,
                                             CACHEKIT.get(c, "")))
        if a.mode == "check" and (b is None or got[c] > b * (1 + TOLERANCE)):
            bad.append(c)
    if a.mode == "check":
        if bad:
            print("perf-ir: over budget (or no budget): %s" % ", ".join(bad))
            return 1
        print("perf-ir: %d cases within budget (+%d%%)" % (len(got), round(100 * TOLERANCE)))
        return 0

    raised = [c for c in got if c in budgets and got[c] > budgets[c]]
    if raised and not a.allow_raise:
        print("perf-ir-update: refusing to raise %s (rerun with ALLOW_RAISE=1 if intended)"
              % ", ".join(raised))
        return 1
    for c in got:
        if c not in budgets or got[c] < budgets[c] or a.allow_raise:
            budgets[c] = got[c]
    base["note"] = ("Ir per operation, (Ir[N]-Ir[0])/N under cachegrind --cache-sim=off; "
                    "make perf-ir fails above budget + 1%; make perf-ir-update only lowers "
                    "(ALLOW_RAISE=1 to raise). Inputs: bench/perf_ir_inputs.py.")
    with open(a.baselines, "w") as f:
        json.dump(base, f, indent=2, sort_keys=True)
        f.write("\n")
    print("perf-ir-update: wrote %s" % a.baselines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
