"""Round trips through the fauxqs@1.9.2 S3 emulator, read back independently with boto3.

fauxqs decodes aws-chunked bodies but checks nothing (test_s3_strict.py does), and a
CompleteMultipartUpload listing per-part checksums makes it store an empty object, so these
runs set S3_PART_CHECKSUMS=0.

The allocation test runs s3-tool under valgrind's memcheck and compares its heap summary
("total heap usage: N allocs") for a 10 MiB and a 100 MiB object: it must be identical.
valgrind cannot run the AddressSanitizer build, so that test is skipped when the Makefile's
SANITIZE variable is set (the sanitizer pass of `make test`); the plain pass runs it.
"""

import hashlib
import os
import re
import shutil
import subprocess

import pytest

from conftest import BUCKET
from s3_helpers import run_tool, tool_env

MiB = 1 << 20
PART = 8 * MiB


def fq_env(emu, **settings):
    settings.setdefault("part_checksums", 0)
    return tool_env(emu.endpoint, access="AKFAUXQS", secret="fauxqs-secret", **settings)


def random_file(path, n):
    h = hashlib.sha256()
    with open(path, "wb") as f:
        left = n
        while left:
            b = os.urandom(min(left, 4 * MiB))
            f.write(b)
            h.update(b)
            left -= len(b)
    return h.hexdigest()


def boto3_sha256(emu, key):
    body = emu.boto3().get_object(Bucket=BUCKET, Key=key)["Body"]
    h = hashlib.sha256()
    n = 0
    for piece in iter(lambda: body.read(MiB), b""):
        h.update(piece)
        n += len(piece)
    return h.hexdigest(), n


def test_roundtrip_100mib(s3_tool, fauxqs, tmp_path):
    """100 MiB + 12345 random bytes in 8 MiB parts (13 parts, CRC32C trailers), read back
    with boto3 and with s3-tool get; the newest key under the prefix is this one."""
    n = 100 * MiB + 12345
    src = str(tmp_path / "big.bin")
    want = random_file(src, n)
    key = "snapshots/dump-100m"
    rc, f, _, err = run_tool(s3_tool, fq_env(fauxqs, part_size=PART), "put", BUCKET, key, src)
    assert rc == 0, err
    assert int(f["bytes"]) == n and f["parts"] == "13" and f["pool_fallbacks"] == "0"
    assert boto3_sha256(fauxqs, key) == (want, n)
    back = str(tmp_path / "back.bin")
    rc, _, _, err = run_tool(s3_tool, fq_env(fauxqs), "get", BUCKET, key, back)
    assert rc == 0, err
    assert os.path.getsize(back) == n
    with open(back, "rb") as fb:
        assert hashlib.file_digest(fb, "sha256").hexdigest() == want
    rc, _, out, err = run_tool(s3_tool, fq_env(fauxqs), "newest", BUCKET, "snapshots/")
    assert rc == 0, err
    assert out.strip() == key


@pytest.mark.parametrize("alg", ["crc32", "crc32c", "sha1", "sha256"])
def test_single_put_every_checksum(s3_tool, fauxqs, tmp_path, alg):
    """One PutObject per algorithm fauxqs decodes, read back with boto3."""
    src = str(tmp_path / "obj.bin")
    want = random_file(src, 3 * MiB + 17)
    key = "single/%s" % alg
    rc, f, _, err = run_tool(s3_tool, fq_env(fauxqs, checksum=alg), "put", BUCKET, key, src)
    assert rc == 0, err
    assert f["parts"] == "0"
    assert boto3_sha256(fauxqs, key) == (want, 3 * MiB + 17)


def _heap_allocs(stderr):
    m = re.search(r"total heap usage: ([\d,]+) allocs", stderr)
    assert m, stderr[-2000:]
    return int(m.group(1).replace(",", ""))


@pytest.mark.skipif(bool(os.environ.get("SANITIZE")),
                    reason="valgrind cannot run the sanitizer build; the plain pass runs this")
def test_allocations_and_memory_constant(s3_tool, fauxqs, tmp_path):
    """10 MiB (2 parts) and 100 MiB (20 parts) of 5 MiB: the same number of heap
    allocations (valgrind), no pool fallback, and the same peak RSS within 1 MiB, at most
    two parts plus a fixed amount."""
    if shutil.which("valgrind") is None:
        pytest.fail("valgrind is needed (apt-get install valgrind)", pytrace=False)
    part = 5 * MiB
    figures = {}
    for size in (10, 100):
        src = str(tmp_path / ("%d.bin" % size))
        random_file(src, size * MiB)
        env = fq_env(fauxqs, part_size=part)
        rc, f, _, err = run_tool(s3_tool, env, "put", BUCKET, "alloc/%d" % size, src,
                                 wrap=["valgrind", "--tool=memcheck", "--error-exitcode=3"])
        assert rc == 0, err
        assert f["parts"] == str(size // 5) and f["pool_fallbacks"] == "0"
        allocs = _heap_allocs(err)
        rc, f, _, err = run_tool(s3_tool, env, "put", BUCKET, "alloc/%d" % size, src)
        assert rc == 0, err
        figures[size] = (allocs, int(f["maxrss_kb"]) * 1024, int(f["pool_peak"]))
    print("allocs/peak RSS/pool peak: 10 MiB %s, 100 MiB %s" % (figures[10], figures[100]))
    assert figures[10][0] == figures[100][0]
    assert abs(figures[10][1] - figures[100][1]) <= MiB
    assert figures[10][2] == figures[100][2]
    assert figures[100][1] <= 2 * part + 24 * MiB


def test_bad_credentials_setting(s3_tool, fauxqs, tmp_path):
    env = fq_env(fauxqs)
    del env["AWS_SECRET_ACCESS_KEY"]
    rc, _, _, err = run_tool(s3_tool, env, "put", BUCKET, "k", "/dev/null")
    assert rc == 1 and "bad settings" in err
    rc, _, _, err = run_tool(s3_tool, fq_env(fauxqs, part_size=MiB), "put", BUCKET, "k",
                             "/dev/null")
    assert rc == 1 and "bad settings" in err
