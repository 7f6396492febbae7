"""Helpers shared by the S3 tests: free ports, s3-tool runs and their environment."""

import os
import socket
import subprocess

import strict_s3


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def tool_env(endpoint, access=None, secret=None, **settings):
    """Environment of one s3-tool run: endpoint, credentials, fast retries, settings."""
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("S3_") or k.startswith("AWS_"):
            del env[k]
    env.update(S3_ENDPOINT=endpoint, S3_PATH_STYLE="1", S3_BACKOFF_MS="10",
               S3_BACKOFF_MAX_MS="50", S3_STALL_S="10",
               AWS_ACCESS_KEY_ID=access or strict_s3.ACCESS_KEY,
               AWS_SECRET_ACCESS_KEY=secret or strict_s3.SECRET_KEY)
    env.update({"S3_" + k.upper(): str(v) for k, v in settings.items()})
    return env


def run_tool(tool, env, *args, timeout=300, wrap=()):
    """Runs s3-tool; returns (returncode, parsed key=value line of put, stdout, stderr)."""
    r = subprocess.run(list(wrap) + [tool] + list(args), env=env, capture_output=True,
                       timeout=timeout)
    out = r.stdout.decode(errors="replace")
    fields = {}
    for line in out.splitlines():
        if line.startswith("status="):
            fields = dict(kv.split("=", 1) for kv in line.split())
    return r.returncode, fields, out, r.stderr.decode(errors="replace")
