"""Backups to S3-compatible storage: `dir s3://bucket/prefix`.

Against the fauxqs@1.9.2 emulator (tests/integration/s3_emulator.py): BGSAVE of a 100 MiB+
snapshot (multipart), restored into a fresh server with an identical DEBUG DIGEST, and read
back independently with boto3 (size, magic, and a server started on the downloaded file);
SAVE, save after save and DEBUG RELOAD pick the newest object; an empty prefix starts empty;
an unreachable endpoint fails BGSAVE (rdb_last_bgsave_status:err, serving goes on) and stops
startup with the documented way out. fauxqs stores an empty object when
CompleteMultipartUpload lists part checksums, so those servers run with
`s3-part-checksums no`.

Against the strict receiver (tests/integration/s3/strict_s3.py), which keeps the multipart
state: S3 cut off mid-upload (every try of part 2 dropped) and a BadDigest answer both fail
the BGSAVE with the S3 error in the log and leave no multipart upload behind.

Under the sanitizer pass (TERSE_BIN in build/asan/, or SANITIZE set) the big snapshot is
24 MiB instead of 105 MiB (still three 8 MiB parts), to stay within the suite's time.
"""

import os
import re
import subprocess
import time

import pytest

import s3_emulator
import terse_harness as h

ASAN = "/asan/" in (os.environ.get("TERSE_BIN") or "") or bool(os.environ.get("SANITIZE"))
MiB = 1 << 20
BUCKET = "terse-backup-it"
BIG_VALUE = 100 * 1024
BIG_KEYS = (24 * MiB if ASAN else 105 * MiB) // BIG_VALUE


@pytest.fixture(scope="module")
def emu():
    try:
        e = s3_emulator.start_fauxqs([BUCKET])
    except RuntimeError as err:
        pytest.fail(str(err), pytrace=False)
    yield e
    e.stop()


@pytest.fixture
def strict():
    srv = s3_emulator.strict_s3.StrictS3()
    yield srv
    srv.stop()


def closed_port():
    return s3_emulator.free_port()  # free a moment ago: nothing listens there


@pytest.fixture
def servers(terse_binary, tmp_path, monkeypatch):
    """servers(prefix, endpoint, creds, extra=()) starts a terse on s3://BUCKET/prefix (the
    environment carries the credentials); all are killed after the test."""
    started = []

    def _start(prefix, endpoint, creds, extra=(), bucket=BUCKET):
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", creds[0])
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", creds[1])
        monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
        args = ["--dir", "s3://%s/%s" % (bucket, prefix), "--s3-endpoint", endpoint,
                "--s3-path-style", "yes", "--enable-debug-command", "yes",
                "--enable-protected-configs", "yes"] + list(extra)
        s = h.Server(terse_binary, str(tmp_path), args, None, "b%d" % len(started))
        started.append(s)
        try:
            return s.start()
        except h.ServerError as e:
            pytest.fail(str(e), pytrace=False)

    yield _start
    bad = []
    for s in started:
        alive = s.alive()
        rc = s.stop()
        log = s.log_tail(1 << 20)
        if alive and (rc != 0 or any(m in log for m in SANITIZER_MARKS)):
            bad.append("%s exited with %s; log tail:\n%s" % (s.name, rc, log[-3000:]))
    assert not bad, "\n".join(bad)


SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")
FAUXQS = (s3_emulator.FAUXQS_ACCESS_KEY, s3_emulator.FAUXQS_SECRET_KEY)
STRICT = (s3_emulator.strict_s3.ACCESS_KEY, s3_emulator.strict_s3.SECRET_KEY)
FQ_EXTRA = ("--s3-part-checksums", "no")


def wait_bgsave(c, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = c.info("persistence")
        if info["rdb_bgsave_in_progress"] == 0:
            return info
        time.sleep(0.05)
    pytest.fail("BGSAVE still running after %.0fs" % timeout)


def bgsave(c, timeout=60.0):
    assert c.bgsave()
    return wait_bgsave(c, timeout)


def fill_random(c, n_keys, size, seed):
    """n_keys incompressible values of `size` bytes (os.urandom: the codec stores them raw)."""
    p = c.pipeline(transaction=False)
    for i in range(n_keys):
        p.set(b"big:%d:%d" % (seed, i), os.urandom(size))
        if i % 64 == 63:
            p.execute()
    p.execute()


def fill_small(c, tag):
    p = c.pipeline(transaction=False)
    for db in (0, 3):
        p.execute_command("SELECT", db)
        for i in range(200):
            p.set(b"%s:%d" % (tag, i), b"value %d of %s " % (i, tag) * 4)
        p.set(b"%s:ttl" % tag, b"x", ex=3600)
    p.execute_command("SELECT", 0)
    p.execute()


def keys_under(emu, prefix):
    r = emu.boto3().list_objects_v2(Bucket=BUCKET, Prefix=prefix)
    return [(o["Key"], o["Size"]) for o in r.get("Contents", [])]


def saved_line(server):
    m = re.findall(r"DB saved to s3://\S+: .*", server.log_tail(1 << 16))
    return m[-1] if m else ""


def test_backup_100mib_restore_and_boto3(emu, servers, tmp_path, terse_binary):
    """BGSAVE of a 100 MiB+ snapshot in 8 MiB parts; a fresh server on the same dir restores
    it with an identical digest; boto3 reads the object back: one object under the prefix,
    the size the server logged, the snapshot magic, and a server started on the downloaded
    file (a local dir) has the same digest too."""
    a = servers("big", emu.endpoint, FAUXQS, FQ_EXTRA)
    ca = a.client()
    fill_random(ca, BIG_KEYS, BIG_VALUE, 1)
    fill_small(ca, b"s")
    want = ca.execute_command("DEBUG", "DIGEST")
    t0 = time.monotonic()
    info = bgsave(ca)
    upload_s = time.monotonic() - t0
    assert info["rdb_last_bgsave_status"] == "ok", a.log_tail()
    line = saved_line(a)
    assert line, a.log_tail()
    n_bytes = int(re.search(r"(\d+) bytes", line).group(1))
    assert n_bytes >= BIG_KEYS * BIG_VALUE
    assert ca.ping()

    objs = keys_under(emu, "big/")
    assert len(objs) == 1 and re.fullmatch(r"big/dump-\d{13}\.terse", objs[0][0]), objs
    assert objs[0][1] == n_bytes
    local = tmp_path / "local"
    local.mkdir()
    body = emu.boto3().get_object(Bucket=BUCKET, Key=objs[0][0])["Body"]
    with open(local / "dump.terse", "wb") as f:
        head = body.read(8)
        assert head == b"TERSESNP"
        f.write(head)
        for piece in iter(lambda: body.read(4 * MiB), b""):
            f.write(piece)
    assert os.path.getsize(local / "dump.terse") == n_bytes

    b = servers("big", emu.endpoint, FAUXQS, FQ_EXTRA)
    cb = b.client()
    assert cb.execute_command("DEBUG", "DIGEST") == want
    assert cb.dbsize() == ca.dbsize()
    assert "Restored s3://%s/%s" % (BUCKET, objs[0][0]) in b.log_tail(1 << 16)

    c = h.Server(terse_binary, str(local), ["--dir", str(local), "--enable-debug-command", "yes"],
                 None, "local")
    try:
        c.start()
        assert c.client().execute_command("DEBUG", "DIGEST") == want
    finally:
        c.kill()
    print("\nbackup: %d bytes, BGSAVE %.2f s; server: %s" % (n_bytes, upload_s, line))


def test_save_newest_and_reload(emu, servers):
    """SAVE (in the foreground) then BGSAVE after more writes: two objects; a restart and
    DEBUG RELOAD restore the newer one; SAVE answers OK and LASTSAVE moves."""
    a = servers("newest", emu.endpoint, FAUXQS, FQ_EXTRA)
    ca = a.client()
    fill_small(ca, b"one")
    assert ca.save()
    first = ca.execute_command("DEBUG", "DIGEST")
    fill_small(ca, b"two")
    ca.delete(b"one:1")
    second = ca.execute_command("DEBUG", "DIGEST")
    assert first != second
    assert bgsave(ca)["rdb_last_bgsave_status"] == "ok", a.log_tail()
    assert len(keys_under(emu, "newest/")) == 2
    b = servers("newest", emu.endpoint, FAUXQS, FQ_EXTRA)
    cb = b.client()
    assert cb.execute_command("DEBUG", "DIGEST") == second
    cb.set(b"extra", b"1")
    assert cb.execute_command("DEBUG", "RELOAD") == b"OK"  # saves a third object, restores it
    assert cb.get(b"extra") == b"1"
    assert len(keys_under(emu, "newest/")) == 3


def test_empty_prefix_starts_empty(emu, servers):
    a = servers("nothing-here", emu.endpoint, FAUXQS, FQ_EXTRA)
    assert a.client().dbsize() == 0
    assert "Starting with an empty dataset: no snapshot under s3://%s/nothing-here/dump-" \
        % BUCKET in a.log_tail()


def test_unreachable_bgsave_fails_server_serves(emu, servers):
    """s3-endpoint on a closed port: BGSAVE fails after its retries with
    rdb_last_bgsave_status:err and the reason in the log, clients are served meanwhile; the
    endpoint set back, the next BGSAVE succeeds."""
    a = servers("unreach", emu.endpoint, FAUXQS, FQ_EXTRA)
    ca = a.client()
    fill_small(ca, b"u")
    ca.config_set("s3-endpoint", "http://127.0.0.1:%d" % closed_port())
    assert ca.bgsave()
    n_served = 0
    while ca.info("persistence")["rdb_bgsave_in_progress"]:
        assert ca.set(b"during", n_served) and ca.get(b"u:1")
        n_served += 1
    info = ca.info("persistence")
    assert info["rdb_last_bgsave_status"] == "err"
    assert n_served > 0
    log = a.log_tail()
    assert re.search(r"Background saving error: s3://%s/unreach/dump-\d+\.terse: " % BUCKET,
                     log), log
    assert ca.ping() and ca.get(b"u:1")
    ca.config_set("s3-endpoint", emu.endpoint)
    assert bgsave(ca)["rdb_last_bgsave_status"] == "ok", a.log_tail()
    assert len(keys_under(emu, "unreach/")) == 1


def test_unreachable_startup_refuses(terse_binary, tmp_path, monkeypatch):
    """Startup cannot list the prefix: the server exits with the reason and the way to start
    empty instead, and does not listen."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", FAUXQS[0])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", FAUXQS[1])
    port = s3_emulator.free_port()
    r = subprocess.run([terse_binary, "--port", str(port), "--bind", "127.0.0.1", "--dir",
                        "s3://%s/x" % BUCKET, "--s3-endpoint",
                        "http://127.0.0.1:%d" % closed_port(), "--s3-path-style", "yes"],
                       cwd=str(tmp_path), capture_output=True, timeout=60)
    out = r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace")
    assert r.returncode != 0, out
    assert "Cannot restore the snapshot from s3://%s/x" % BUCKET in out
    assert "to start with an empty dataset instead" in out


def test_missing_credentials_startup_refuses(emu, terse_binary, tmp_path, monkeypatch):
    """No AWS_ACCESS_KEY_ID: the server says which variables it needs and does not start."""
    monkeypatch.delenv("AWS_ACCESS_KEY_ID", raising=False)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", FAUXQS[1])
    r = subprocess.run([terse_binary, "--port", str(s3_emulator.free_port()), "--bind",
                        "127.0.0.1", "--dir", "s3://%s/creds" % BUCKET, "--s3-endpoint",
                        emu.endpoint, "--s3-path-style", "yes"],
                       cwd=str(tmp_path), capture_output=True, timeout=30)
    out = r.stdout + r.stderr
    assert r.returncode != 0 and b"AWS_ACCESS_KEY_ID" in out, out


def strict_upload_setup(strict, servers, prefix):
    """A server on the strict receiver (crc32 trailers: the receiver checks them in Python at
    zlib's speed), 5 MiB parts, with a 12 MiB snapshot: three parts."""
    a = servers(prefix, strict.endpoint, STRICT,
                ("--s3-checksum", "crc32", "--s3-part-size", "5mb"))
    ca = a.client()
    fill_random(ca, 120, BIG_VALUE, 2)
    return a, ca


def assert_clean(strict):
    with strict.state.lock:
        assert strict.state.uploads == {}, "incomplete multipart upload left behind"
        assert len(strict.state.aborted) == 1
        assert strict.state.completed == []
        assert [k for (_, k) in strict.state.objects] == []


def test_strict_cut_mid_upload_aborts(strict, servers):
    """S3 cut off mid-upload: every try of part 2 loses its connection; the BGSAVE fails after
    the retries, the upload is aborted (nothing left), and the server kept serving."""
    a, ca = strict_upload_setup(strict, servers, "cut")
    strict.state.drop_parts_after = 1
    info = bgsave(ca)
    assert info["rdb_last_bgsave_status"] == "err"
    assert ca.ping() and ca.dbsize() == 120
    assert_clean(strict)
    assert strict.ops("UploadPart").count("dropped") >= 2
    log = a.log_tail()
    assert re.search(r"Background saving error: s3://%s/cut/dump-\d+\.terse: .*UploadPart.*"
                     r"\(upload aborted\)" % BUCKET, log), log
    strict.state.drop_parts_after = None
    assert bgsave(ca)["rdb_last_bgsave_status"] == "ok", a.log_tail()


def test_strict_bad_digest_logged(strict, servers):
    """S3 answers 400 BadDigest to part 2: not retried, aborted, and the log carries S3's
    code and message."""
    a, ca = strict_upload_setup(strict, servers, "digest")
    strict.state.flip_part = 2
    info = bgsave(ca)
    assert info["rdb_last_bgsave_status"] == "err"
    assert_clean(strict)
    log = a.log_tail()
    assert "BadDigest" in log, log
