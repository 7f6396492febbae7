"""The S3 emulator and the strict receiver for tests outside tests/integration/s3/.

pytest gives a conftest's fixtures only to tests below its folder, so the fixtures of
tests/integration/s3/conftest.py do not reach tests/integration/test_backup.py. This module
reuses that conftest's code (the fauxqs@1.9.2 install into build/s3-emulator, the loopback
preload, the boto3 client) by loading it under another module name, and adds a start/stop
pair usable from any fixture. The strict receiver module is re-exported as `strict_s3`.
"""

import importlib.util
import os
import sys

S3_TESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "s3")


def _load_s3_conftest():
    spec = importlib.util.spec_from_file_location(
        "s3_conftest_shared", os.path.join(S3_TESTS, "conftest.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # puts tests/integration/s3 on sys.path (strict_s3)
    return mod


_s3 = _load_s3_conftest()
strict_s3 = sys.modules["strict_s3"]
free_port = _s3.free_port

FAUXQS_ACCESS_KEY = "AKFAUXQS"
FAUXQS_SECRET_KEY = "fauxqs-secret"


Fauxqs = _s3.Emulator  # .endpoint, .boto3(), .stop()


def start_fauxqs(buckets=()):
    """Installs fauxqs on first use (fails the test when npm cannot), starts it on a free
    loopback port, creates `buckets`, and returns the running Fauxqs."""
    emu = Fauxqs.start("fauxqs-backup-{port}.log")
    for b in buckets:
        emu.boto3().create_bucket(Bucket=b)
    return emu
