"""Fixtures of the S3 tests: the s3-tool binary, the fauxqs emulator, the strict receiver.

s3-tool sits beside the server binary the Makefile passes in TERSE_BIN (build/s3-tool, or
build/asan/s3-tool in the sanitizer pass). fauxqs@1.9.2 is installed by npm into
<repo>/build/s3-emulator/ on first use (CI has node and npm) and started on a free loopback
port with a preload that forces every listen() onto 127.0.0.1; it is stopped at the end of
the session.
"""

import os
import shutil
import socket
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)

import strict_s3  # noqa: E402
from s3_helpers import free_port  # noqa: E402,F401

FAUXQS = "fauxqs@1.9.2"
EMU_DIR = os.path.join(REPO, "build", "s3-emulator")
BUCKET = "terse-backups"


@pytest.fixture(scope="session")
def s3_tool():
    server = os.environ.get("TERSE_BIN", os.path.join(REPO, "build", "terse-server"))
    path = os.path.join(os.path.dirname(server), "s3-tool")
    if not os.access(path, os.X_OK):
        pytest.fail("%s is missing: make integration builds it (mk/s3.mk)" % path,
                    pytrace=False)
    return path


def _install_fauxqs():
    cli = os.path.join(EMU_DIR, "node_modules", "fauxqs", "dist", "cli.js")
    if os.path.exists(cli):
        return cli
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        pytest.fail("node and npm are needed to install %s" % FAUXQS, pytrace=False)
    os.makedirs(EMU_DIR, exist_ok=True)
    r = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--loglevel=error",
                        "--prefix", EMU_DIR, FAUXQS], capture_output=True, text=True,
                       timeout=600)
    if r.returncode != 0 or not os.path.exists(cli):
        pytest.fail("npm install %s failed: %s" % (FAUXQS, r.stderr[-2000:]), pytrace=False)
    return cli


class Emulator:
    """A running fauxqs: .endpoint, .boto3(), .stop()."""

    def __init__(self, endpoint, proc, log):
        self.endpoint = endpoint
        self.proc = proc
        self.log = log

    @classmethod
    def start(cls, log_name):
        """Installs fauxqs on first use (fails the test when npm cannot) and starts it on a
        free loopback port, its output in EMU_DIR/log_name ("{port}" in it is replaced by the
        port). RuntimeError if it does not come
        up within 30 s."""
        cli = _install_fauxqs()
        port = free_port()
        env = dict(os.environ, FAUXQS_PORT=str(port), FAUXQS_LOGGER="false")
        log = open(os.path.join(EMU_DIR, log_name.format(port=port)), "w")
        proc = subprocess.Popen(["node", "--require", os.path.join(HERE, "loopback.js"), cli],
                                env=env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                return cls("http://127.0.0.1:%d" % port, proc, log)
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    proc.kill()
                    log.close()
                    raise RuntimeError("fauxqs did not start (see %s)" % log.name)
                time.sleep(0.1)

    def boto3(self):
        import boto3
        from botocore.config import Config
        return boto3.client("s3", endpoint_url=self.endpoint, region_name="us-east-1",
                            aws_access_key_id="AKFAUXQS", aws_secret_access_key="fauxqs-secret",
                            config=Config(s3={"addressing_style": "path"}))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


@pytest.fixture(scope="session")
def fauxqs():
    try:
        emu = Emulator.start("fauxqs.log")
    except RuntimeError as e:
        pytest.fail(str(e), pytrace=False)
    emu.boto3().create_bucket(Bucket=BUCKET)
    yield emu
    emu.stop()


@pytest.fixture
def strict():
    srv = strict_s3.StrictS3()
    yield srv
    srv.stop()
