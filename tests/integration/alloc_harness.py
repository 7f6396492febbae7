"""Allocation counts of the request path (INFO terse), for the tests that a warm loop of
commands allocates nothing: the counts, a pipelined batch sent round after round, and the
assertion that rounds leave the counts unchanged."""
from terse_harness import decode_one, info_field, show, wait_until


def info_alloc_counts(conn):
    """(allocs, frees) of the request path: allocator calls terse has made (core_mem counts
    them), less those of its background work, from INFO terse on a RawConn."""
    text = decode_one(conn.call("INFO", "terse")).decode()
    f = dict(line.split(":", 1) for line in text.split("\r\n") if ":" in line)
    assert "allocator_allocs" in f and "allocator_background_frees" in f, (
        "INFO terse must show the allocator counts; got:\n" + text)
    return (int(f["allocator_allocs"]) - int(f["allocator_background_allocs"]),
            int(f["allocator_frees"]) - int(f["allocator_background_frees"]))


def send_rounds(conn, batch, n_replies, rounds, expect):
    """Sends the pipelined batch `rounds` times, reading its n_replies replies each time;
    expect maps a reply's index in the batch to the bytes it must be."""
    for _ in range(rounds):
        conn.send(batch)
        replies = conn.read_replies(n_replies)
        for i, want in expect.items():
            assert replies[i] == want, "reply %d of the batch: %s, want %s" % (
                i, show(replies[i]), show(want))


def assert_rounds_allocate_nothing(conn, what, batch, n_replies, expect, rounds=20):
    """send_rounds, request-path allocator counts unchanged. Warm includes a round over what
    background compression has packed (a compressed chunk's first read grows a decode
    buffer): the counts are taken after one round once nothing is left pending."""
    off = decode_one(conn.call("CONFIG", "GET", "terse-compression"))[1] == b"off"
    wait_until(lambda: off or (info_field(conn, "values_pending") == "0" and
                               info_field(conn, "chunks_pending") == "0"),
               "background compression did not finish")
    send_rounds(conn, batch, n_replies, 1, expect)
    before = [info_alloc_counts(conn) for _ in range(2)][-1]  # a first long reply may grow
    send_rounds(conn, batch, n_replies, rounds, expect)      # the output buffer
    after = info_alloc_counts(conn)
    assert after == before, (
        "%s allocated: allocs %d -> %d, frees %d -> %d"
        % (what, before[0], after[0], before[1], after[1]))
