"""The uploader and the restore side against the strict receiver (strict_s3.py).

What the emulator does not check is checked here: SigV4 signatures, aws-chunked framing and
chunk sizes, decoded lengths, trailer checksums, per-part checksums in the completion; and
the failure paths: injected 5xx (retried), BadDigest, InvalidChunkSizeError, a connection cut
mid-upload and a receiver that is gone, each ending with the multipart upload aborted (or the
abort attempt reported), plus a corrupt GET and ListObjectsV2 paging.
"""

import hashlib
import os
import socket
import time

import pytest

import strict_s3
from s3_helpers import run_tool, tool_env

MiB = 1 << 20
ALGS = ["crc32", "crc32c", "crc64nvme", "sha1", "sha256", "none"]


def put(tool, srv, path, key="backups/dump-1", **settings):
    env = tool_env(srv.endpoint, **settings)
    return run_tool(tool, env, "put", "bkt", key, path)


def data_file(tmp_path, n, name="obj.bin", seed=0):
    path = tmp_path / name
    block = hashlib.sha256(b"strict-%d" % seed).digest() * 2048  # 64 KiB
    reps, rest = divmod(n, len(block))
    path.write_bytes(block * reps + os.urandom(rest))
    return str(path)


def no_garbage(srv):
    with srv.state.lock:
        return not srv.state.uploads


@pytest.mark.parametrize("alg", ALGS)
def test_single_put_every_checksum(s3_tool, strict, tmp_path, alg):
    """One PutObject per algorithm: 200 KiB in 64 KiB chunks, trailer checked; GET verifies
    the whole-object checksum the receiver returns."""
    path = data_file(tmp_path, 200 * 1024 + 7)
    rc, f, out, err = put(s3_tool, strict, path, checksum=alg)
    assert rc == 0, err
    assert f["parts"] == "0" and f["requests"] == "1"
    data, ck, got_alg, _ = strict.state.objects[("bkt", "backups/dump-1")]
    assert data == open(path, "rb").read()
    assert strict.state.chunk_sizes == [[65536, 65536, 65536, 8199]]
    if alg != "none":
        assert ck == strict_s3.checksum_b64(alg, data) == f["checksum"]
    back = tmp_path / "back.bin"
    rc, _, _, err = run_tool(s3_tool, tool_env(strict.endpoint, checksum=alg), "get", "bkt",
                             "backups/dump-1", str(back))
    assert rc == 0, err
    assert back.read_bytes() == data


def test_multipart_every_rule(s3_tool, strict, tmp_path):
    """11 MiB + 1 in 5 MiB parts: Create with the algorithm, three aws-chunked parts (all
    chunks 64 KiB but the last), Complete listing ETags and per-part CRC32 values."""
    path = data_file(tmp_path, 11 * MiB + 1)
    rc, f, out, err = put(s3_tool, strict, path, checksum="crc32", part_size=5 * MiB)
    assert rc == 0, err
    assert f["parts"] == "3" and f["requests"] == "5" and f["retries"] == "0"
    data, ck, _, _ = strict.state.objects[("bkt", "backups/dump-1")]
    assert data == open(path, "rb").read()
    assert ck.endswith("-3")
    sizes = strict.state.chunk_sizes
    assert [sum(s) for s in sizes] == [5 * MiB, 5 * MiB, MiB + 1]
    assert all(set(s[:-1]) <= {65536} for s in sizes)
    assert len(strict.state.completed) == 1 and no_garbage(strict)


def test_exact_part_multiple_is_single_put(s3_tool, strict, tmp_path):
    """An object of exactly one part goes as one PutObject (the peek finds the end)."""
    path = data_file(tmp_path, 5 * MiB)
    rc, f, _, err = put(s3_tool, strict, path, checksum="sha256", part_size=5 * MiB)
    assert rc == 0, err
    assert f["parts"] == "0" and strict.ops("CreateMultipartUpload") == []


def test_empty_object(s3_tool, strict, tmp_path):
    path = data_file(tmp_path, 0)
    rc, f, _, err = put(s3_tool, strict, path)
    assert rc == 0, err
    assert strict.state.objects[("bkt", "backups/dump-1")][0] == b""
    assert strict.state.chunk_sizes == [[]]


def test_5xx_retried(s3_tool, strict, tmp_path):
    """503 on Create once and 500 on UploadPart twice: retried with backoff, upload whole."""
    strict.state.fail = {"CreateMultipartUpload": [503, "SlowDown", 1],
                         "UploadPart": [500, "InternalError", 2]}
    path = data_file(tmp_path, 6 * MiB)
    rc, f, _, err = put(s3_tool, strict, path, checksum="crc32", part_size=5 * MiB)
    assert rc == 0, err
    assert f["retries"] == "3"
    assert strict.state.objects[("bkt", "backups/dump-1")][0] == open(path, "rb").read()
    assert strict.ops("UploadPart") == [500, 500, 200, 200]


def test_5xx_forever_aborts(s3_tool, strict, tmp_path):
    strict.state.fail = {"UploadPart": [500, "InternalError", -1]}
    path = data_file(tmp_path, 6 * MiB)
    rc, f, _, err = put(s3_tool, strict, path, checksum="crc32", part_size=5 * MiB,
                        max_attempts=3)
    assert rc == 1
    assert "HTTP 500 InternalError" in err and "upload aborted" in err
    assert f["aborted"] == "1"
    assert strict.ops("UploadPart") == [500, 500, 500]
    assert len(strict.state.aborted) == 1 and no_garbage(strict)
    assert ("bkt", "backups/dump-1") not in strict.state.objects


def test_bad_digest_aborts(s3_tool, strict, tmp_path):
    """A part corrupted in transit (the receiver flips a byte): 400 BadDigest, no retry,
    TERSE_ECORRUPT, upload aborted."""
    strict.state.flip_part = 2
    path = data_file(tmp_path, 11 * MiB)
    rc, f, _, err = put(s3_tool, strict, path, checksum="crc32", part_size=5 * MiB)
    assert rc == 1
    assert "checksum" in err.split(":")[1].lower() or "corrupt" in err.lower()
    assert "HTTP 400 BadDigest" in err
    assert strict.ops("UploadPart") == [200, 400]
    assert f["aborted"] == "1" and len(strict.state.aborted) == 1 and no_garbage(strict)


def test_invalid_chunk_size_aborts(s3_tool, strict, tmp_path):
    """The receiver demands 1 MiB chunks: 403 InvalidChunkSizeError on the first part."""
    strict.state.min_chunk = MiB
    path = data_file(tmp_path, 6 * MiB)
    rc, f, _, err = put(s3_tool, strict, path, part_size=5 * MiB, checksum="crc32")
    assert rc == 1
    assert "HTTP 403 InvalidChunkSizeError" in err
    assert strict.ops("UploadPart") == [403]
    assert f["aborted"] == "1" and no_garbage(strict)


def test_single_put_rejected_leaves_nothing(s3_tool, strict, tmp_path):
    strict.state.min_chunk = MiB
    path = data_file(tmp_path, 300 * 1024)
    rc, f, _, err = put(s3_tool, strict, path, checksum="crc32")
    assert rc == 1 and "InvalidChunkSizeError" in err
    assert f["aborted"] == "0" and not strict.state.objects


def test_connection_cut_mid_upload_aborts(s3_tool, strict, tmp_path):
    """S3 unreachable mid-upload: every UploadPart after the first has its connection cut
    mid-body. The uploader retries, gives up with an error, and the upload is aborted."""
    strict.state.drop_parts_after = 1
    path = data_file(tmp_path, 11 * MiB)
    t0 = time.time()
    rc, f, _, err = put(s3_tool, strict, path, checksum="crc32", part_size=5 * MiB,
                        max_attempts=3)
    assert rc == 1
    assert time.time() - t0 < 60
    assert "UploadPart" in err and "after 3 attempt" in err and "upload aborted" in err
    assert [s for s in strict.ops("UploadPart")] == [200, "dropped", "dropped", "dropped"]
    assert f["aborted"] == "1" and len(strict.state.aborted) == 1 and no_garbage(strict)


def test_receiver_gone_mid_upload(s3_tool, strict, tmp_path):
    """The receiver stops listening after part 1: the uploader fails in bounded time, tries
    to abort, and reports that the abort failed too (aborted=-1)."""
    path = tmp_path / "fifo"
    os.mkfifo(path)
    import subprocess
    env = tool_env(strict.endpoint, checksum="crc32", part_size=5 * MiB, max_attempts=3)
    proc = subprocess.Popen([s3_tool, "put", "bkt", "k", str(path)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    fd = -1
    deadline = time.time() + 30
    while fd < 0:  # a non-blocking open fails (ENXIO) until s3-tool opens its end
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            assert proc.poll() is None and time.time() < deadline, proc.communicate()
            time.sleep(0.02)
    os.set_blocking(fd, True)
    with os.fdopen(fd, "wb") as w:
        w.write(os.urandom(5 * MiB + 1))  # part 1 and the peeked byte
        deadline = time.time() + 30
        while strict.ops("UploadPart") != [200] and time.time() < deadline:
            time.sleep(0.05)
        assert strict.ops("UploadPart") == [200]
        strict.stop()
        w.write(os.urandom(MiB))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    fields = dict(kv.split("=", 1) for kv in out.decode().split())
    assert fields["aborted"] == "-1"
    assert b"abort failed too" in err


def test_bad_signature_not_retried(s3_tool, strict, tmp_path):
    path = data_file(tmp_path, 1000)
    env = tool_env(strict.endpoint, secret="wrong")
    rc, f, _, err = run_tool(s3_tool, env, "put", "bkt", "k", path)
    assert rc == 1 and "HTTP 403 SignatureDoesNotMatch" in err
    assert strict.ops("PutObject") == [403]


def test_session_token_signed(s3_tool, strict, tmp_path):
    path = data_file(tmp_path, 1000)
    env = tool_env(strict.endpoint)
    env["AWS_SESSION_TOKEN"] = "token/with+odd=chars"
    rc, _, _, err = run_tool(s3_tool, env, "put", "bkt", "k", path)
    assert rc == 0, err


def test_get_corrupt_and_missing(s3_tool, strict, tmp_path):
    path = data_file(tmp_path, 100 * 1024)
    assert put(s3_tool, strict, path, key="k")[0] == 0
    strict.state.get_bad_checksum = True
    rc, _, _, err = run_tool(s3_tool, tool_env(strict.endpoint), "get", "bkt", "k",
                             str(tmp_path / "out"))
    assert rc == 1 and "checksum" in err
    rc, _, _, err = run_tool(s3_tool, tool_env(strict.endpoint), "get", "bkt", "nope",
                             str(tmp_path / "out"))
    assert rc == 1 and "HTTP 404 NoSuchKey" in err


def test_newest_over_pages(s3_tool, strict, tmp_path):
    """Five objects, two per ListObjectsV2 page: the newest by LastModified wins, across
    continuation tokens; keys outside the prefix are ignored; an empty prefix is NOTFOUND."""
    strict.state.max_keys = 2
    path = data_file(tmp_path, 1000)
    for key in ["b/dump-3", "b/dump-1", "other/x", "b/dump-5 &<odd>", "b/dump-2"]:
        assert put(s3_tool, strict, path, key=key)[0] == 0
    rc, _, out, err = run_tool(s3_tool, tool_env(strict.endpoint), "newest", "bkt", "b/")
    assert rc == 0, err
    assert out.strip() == "b/dump-2"
    assert len(strict.ops("ListObjectsV2")) == 2
    rc, _, _, err = run_tool(s3_tool, tool_env(strict.endpoint), "newest", "bkt", "none/")
    assert rc == 1 and "nothing under" in err


def test_receiver_rejects_bad_bodies(strict):
    """The oracle itself: hand-made bodies get S3's errors."""
    dec = strict_s3.decode_aws_chunked
    ok = b"3\r\nabc\r\n0\r\nx-amz-checksum-crc32:NSRBwg==\r\n\r\n"
    assert dec(ok, "x-amz-checksum-crc32", 3, 8192)[0] == b"abc"
    with pytest.raises(strict_s3.S3Error) as e:
        dec(b"2\r\nab\r\n1\r\nc\r\n0\r\n\r\n", "", 3, 8192)
    assert e.value.code == "InvalidChunkSizeError" and e.value.status == 403
    with pytest.raises(strict_s3.S3Error) as e:
        dec(ok, "x-amz-checksum-crc32", 4, 8192)
    assert e.value.code == "IncompleteBody"
    with pytest.raises(strict_s3.S3Error) as e:
        dec(b"03\r\nabc\r\n0\r\n\r\n", "", 3, 8192)
    assert e.value.code == "InvalidRequest"
