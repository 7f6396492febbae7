"""maxmemory under noeviction, run under valgrind's memcheck (the memory issue's bar: -OOM
errors, no crash, no leak, and every key written before the limit reads back intact).

A short run: the server starts under valgrind, its maxmemory is set a few MiB above what it
uses empty, and pipelined SETs of incompressible values go in until well past the limit. Every
key that was answered +OK must read back byte for byte, every refused one must be absent, and
once DELs free more than an arena span a write fits again (the arena gives memory back by
the span: see docs/formats/store.md). SIGTERM then shuts the server down; memcheck must
report no error and no definitely, indirectly or possibly lost block (valgrind's exit status
99 otherwise, and its summary lines are checked too).

The ASan build cannot run under valgrind, so this file only runs against the plain build.
"""
import os
import random
import re
import shutil

import pytest

import terse_harness as h

OOM = b"-OOM command not allowed when used memory > 'maxmemory'.\r\n"
VALUE_LEN = 1500
N_KEYS = 4000  # about 6 MiB of values against a 3 MiB budget
BATCH = 200


def value(i):
    """VALUE_LEN incompressible bytes, distinct per i (so nothing shrinks under LZ4)."""
    return random.Random(i).randbytes(VALUE_LEN)


class ValgrindServer(h.Server):
    def argv(self, port):
        self.vg_log = os.path.join(self.workdir, "%s-%d.valgrind" % (self.name, port))
        return ["valgrind", "--tool=memcheck", "--leak-check=full",
                "--show-leak-kinds=definite,indirect,possible",
                "--errors-for-leak-kinds=definite,indirect,possible", "--error-exitcode=99",
                "--log-file=" + self.vg_log] + super().argv(port)


def test_noeviction_oom_under_valgrind(terse_binary, workdir):
    if shutil.which("valgrind") is None:
        pytest.fail("valgrind is not installed (make deps-test installs it)", pytrace=False)
    with open(terse_binary, "rb") as f:
        if b"__asan_init" in f.read():
            pytest.skip("the AddressSanitizer build cannot run under valgrind")
    old_timeout = h.START_TIMEOUT_S
    h.START_TIMEOUT_S = 120.0  # memcheck starts the server 20-50x slower
    try:
        s = ValgrindServer(terse_binary, os.path.join(workdir, "valgrind"),
                           ["--maxmemory-policy", "noeviction"], name="terse-valgrind").start()
    finally:
        h.START_TIMEOUT_S = old_timeout
    try:
        with s.raw(timeout=120) as c:
            used = int(re.search(rb"used_memory:(\d+)", c.call("INFO", "memory")).group(1))
            assert c.call("CONFIG", "SET", "maxmemory", str(used + 3 * 2**20)) == b"+OK\r\n"
            stored, refused = [], []
            for lo in range(0, N_KEYS, BATCH):
                keys = range(lo, lo + BATCH)
                c.send(b"".join(h.encode("SET", "v:%d" % i, value(i)) for i in keys))
                for i, r in zip(keys, c.read_replies(BATCH)):
                    if r == b"+OK\r\n":
                        stored.append(i)
                    else:
                        assert r == OOM, (i, r)
                        refused.append(i)
            assert len(stored) > 500 and len(refused) > 500, (len(stored), len(refused))
            for lo in range(0, len(stored), BATCH):
                keys = stored[lo:lo + BATCH]
                c.send(b"".join(h.encode("GET", "v:%d" % i) for i in keys))
                for i, r in zip(keys, c.read_replies(len(keys))):
                    assert r == b"$%d\r\n%s\r\n" % (VALUE_LEN, value(i)), ("v:%d" % i, r[:40])
            assert c.call("EXISTS", *["v:%d" % i for i in refused[:100]]) == b":0\r\n"
            # Reads and deletes still work at the limit, and deletes make room: every other
            # key of the first 400 (300 KB, more than an arena span, left dead in half-live
            # spans that only compaction gives back under noeviction).
            gone = stored[:400:2]
            assert c.call("DEL", *["v:%d" % i for i in gone]) == b":%d\r\n" % len(gone)
            assert c.call("SET", "after", value(N_KEYS)) == b"+OK\r\n"
            assert c.call("GET", "after") == b"$%d\r\n%s\r\n" % (VALUE_LEN, value(N_KEYS))
            for i in stored[1:400:2]:
                assert c.call("GET", "v:%d" % i) == b"$%d\r\n%s\r\n" % (VALUE_LEN, value(i))
    finally:
        rc = s.stop(timeout=120)
    with open(s.vg_log) as f:
        report = f.read()
    assert rc == 0, "terse under valgrind exited with %s; valgrind log tail:\n%s" % (
        rc, report[-4000:])
    assert "ERROR SUMMARY: 0 errors" in report, report[-4000:]
    for kind in ("definitely lost", "indirectly lost", "possibly lost"):
        m = re.search(kind + r": ([\d,]+) bytes", report)
        # No such line at all means memcheck found no leak of any kind ("All heap blocks
        # were freed" or only reachable blocks).
        assert m is None or m.group(1) == "0", report[-4000:]
