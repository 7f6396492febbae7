#!/usr/bin/python3
"""perf_ir_inputs.py OUTDIR: the real inputs of the instruction-budget and throughput cases.

Reads the shared corpus ($TERSE_SHARED/corpus, default ../shared/corpus) at run time and writes
into OUTDIR (under build/, cached by make):
  in_<size>.bin     for size in 40 64 127 128 1024 65536 1048576: the first MessagePack record
                    of the corpus stream (seed 1) that is at least <size> bytes, cut to <size>
                    bytes; 64 KiB and 1 MiB are consecutive records of that stream, concatenated
                    and cut (no single record is that large)
  samples.bin       dictionary-training samples: other MessagePack records of the same stream
                    (format: u32le length, bytes; repeated), never one of the inputs above
MessagePack records because cachekit envelopes usually carry MessagePack payloads and the
cachekit crate's own figures are on MessagePack user records cut to size.
"""
import os
import struct
import sys

SIZES = [40, 64, 127, 128, 1024, 65536, 1048576]
N_STREAM = 40000
N_SAMPLES = 3000


def main() -> int:
    out = sys.argv[1]
    shared = os.environ.get("TERSE_SHARED", os.path.join(os.path.dirname(__file__), "..", "..",
                                                         "shared"))
    sys.path.insert(0, os.path.join(shared, "corpus"))
    import make_corpus as mc  # noqa: E402  (lives in the shared corpus folder)

    pools = mc.build_pools()
    recs = [v for _, v, cat, _ in mc.generate(pools, N_STREAM, 1) if cat == "msgpack"]
    os.makedirs(out, exist_ok=True)
    used = set()
    for size in SIZES:
        if size <= mc.SIZE_MAX:
            i = next(i for i, v in enumerate(recs) if len(v) >= size)
            used.add(i)
            data = recs[i][:size]
        else:
            buf = bytearray()
            for i, v in enumerate(recs):
                buf += v
                if len(buf) >= size:
                    break
            data = bytes(buf[:size])
        with open(os.path.join(out, "in_%d.bin" % size), "wb") as f:
            f.write(data)
    # Samples from the far end of the stream: disjoint from the (early) single-record inputs.
    with open(os.path.join(out, "samples.bin"), "wb") as f:
        for i in range(len(recs) - N_SAMPLES, len(recs)):
            if i not in used:
                f.write(struct.pack("<I", len(recs[i])) + recs[i])
    return 0


if __name__ == "__main__":
    sys.exit(main())
