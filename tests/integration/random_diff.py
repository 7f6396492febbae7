"""Random-command differentials against redis-server (the chunked-container tests): pipelined
runs of thousands of commands, and the first reply that differs shown with the commands that
led to it."""

import pytest

import terse_harness as h


def letters(rng, n):
    """At least n bytes: a run of up to 16 random lowercase letters, repeated (compressible)."""
    return bytes(rng.randrange(97, 123) for _ in range(min(n, 16))) * (n // 16 + 1)


def run_pipelined(server, cmds, finish, normalize=None, batch=200):
    """Sends cmds to server in pipelined batches, then the commands of finish (what the keys
    hold at the end) one by one: every reply in order, each passed through normalize(cmd,
    reply) when given (a whole-hash reply as a set, say)."""
    norm = normalize or (lambda cmd, reply: reply)
    with server.raw() as c:
        out = []
        for i in range(0, len(cmds), batch):
            part = cmds[i:i + batch]
            c.send(b"".join(h.encode(*cmd) for cmd in part))
            out.extend(norm(cmd, r) for cmd, r in zip(part, c.read_replies(len(part))))
        for cmd in finish:
            out.append(norm(cmd, c.call(*cmd)))
        return out


def assert_same_replies(cmds, got_t, got_r, what):
    """Fails at the first reply that differs, showing the commands that led to it."""
    def view(x):
        return h.show(x) if isinstance(x, bytes) else repr(x)

    for i, (a, b) in enumerate(zip(got_t, got_r)):
        if a != b:
            lo = max(0, i - 6)
            lines = ["%5d %s%s" % (j, " ".join(h.show(h._b(x), 40) for x in cmds[j]),
                                   "   <-- here" if j == i else "")
                     for j in range(lo, min(i + 1, len(cmds)))]
            pytest.fail("%s: reply %d differs\n%s\nterse: %s\nredis: %s"
                        % (what, i, "\n".join(lines), view(a), view(b)), pytrace=False)
    assert len(got_t) == len(got_r)
