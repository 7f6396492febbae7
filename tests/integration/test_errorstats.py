"""INFO errorstats, total_error_replies and commandstats against redis-server: every error
reply counted by its code, whether a command answered it, a transaction held it or a queued command doomed the
transaction; CONFIG RESETSTAT clears them."""

import re

import terse_harness as h

DEBUG_ARGS = ["--enable-debug-command", "yes"]


def error_fields(raw):
    """The error counters and, per command, calls / rejected / failed (not the times)."""
    text = h.decode_one(raw)
    if not isinstance(text, bytes):
        return raw
    return sorted(re.sub(rb"usec=\d+,usec_per_call=[\d.]+,", b"", line)
                  for line in text.split(b"\r\n")
                  if line.startswith((b"errorstat_", b"total_error_replies", b"cmdstat_")))


def test_errorstats_as_redis(pair):
    t, r, _ = pair(DEBUG_ARGS)
    h.compare_clients(t, r, [
        ("a", "CONFIG", "RESETSTAT"), ("a", "INFO", "errorstats"),
        ("a", "GET"), ("a", "NOSUCH"), ("a", "SET", "s", "x"), ("a", "LPUSH", "s", "y"),
        ("a", "INCR", "s"), ("a", "MULTI"), ("a", "INCR", "s"), ("a", "LPUSH", "s", "y"),
        ("a", "EXEC"), ("a", "MULTI"), ("a", "NOSUCH"), ("a", "EXEC"),
        ("a", "DEBUG", "ERROR", "MYCODE some text"), ("a", "DEBUG", "ERROR", "nospace"),
        ("a", "INFO", "errorstats"), ("a", "INFO", "stats"), ("a", "INFO", "commandstats"),
        ("a", "CONFIG", "RESETSTAT"), ("a", "INFO", "errorstats"), ("a", "INFO", "stats"),
        ("a", "XGROUP", "CREATE", "st", "g", "$", "MKSTREAM"),
        ("b>", "XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "st", ">"),
        ("blocked", 1), ("a", "XGROUP", "DESTROY", "st", "g"), ("b<",),
        ("a", "INFO", "commandstats"), ("a", "INFO", "errorstats"),
    ], norm=lambda raw: error_fields(raw) if raw.startswith(b"$") else raw)
