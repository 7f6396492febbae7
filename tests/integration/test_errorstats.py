"""INFO errorstats and total_error_replies against redis-server: every error reply counted by
its code, whether a command answered it, a transaction held it or a queued command doomed the
transaction; CONFIG RESETSTAT clears them."""

import terse_harness as h

DEBUG_ARGS = ["--enable-debug-command", "yes"]


def error_fields(raw):
    text = h.decode_one(raw)
    if not isinstance(text, bytes):
        return raw
    return sorted(line for line in text.split(b"\r\n")
                  if line.startswith((b"errorstat_", b"total_error_replies")))


def test_errorstats_as_redis(pair):
    t, r, _ = pair(DEBUG_ARGS)
    h.compare_clients(t, r, [
        ("a", "CONFIG", "RESETSTAT"), ("a", "INFO", "errorstats"),
        ("a", "GET"), ("a", "NOSUCH"), ("a", "SET", "s", "x"), ("a", "LPUSH", "s", "y"),
        ("a", "INCR", "s"), ("a", "MULTI"), ("a", "INCR", "s"), ("a", "LPUSH", "s", "y"),
        ("a", "EXEC"), ("a", "MULTI"), ("a", "NOSUCH"), ("a", "EXEC"),
        ("a", "DEBUG", "ERROR", "MYCODE some text"), ("a", "DEBUG", "ERROR", "nospace"),
        ("a", "INFO", "errorstats"), ("a", "INFO", "stats"),
        ("a", "CONFIG", "RESETSTAT"), ("a", "INFO", "errorstats"), ("a", "INFO", "stats"),
    ], norm=lambda raw: error_fields(raw) if raw.startswith(b"$") else raw)
