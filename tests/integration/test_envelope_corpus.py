"""libterse round trips over real cache values: every corpus value stored as a cachekit
envelope by libterse.so and retrieved again gives the same bytes, the same format name, and
the size terse_envelope_size reports; one flipped byte anywhere in the envelope is an error,
never other data.

The library is loaded with ctypes from the build folder next to TERSE_BIN. The sanitizer pass
builds an ASan libterse.so, which cannot be loaded into a Python without the ASan runtime:
there the codec's own cmocka tests and fuzz corpora cover the same code, and this test says so
by skipping.
"""

import ctypes
import os
import random

import pytest

from test_values import corpus_values


def _lib():
    bindir = os.path.dirname(os.environ.get("TERSE_BIN", ""))
    if os.path.basename(bindir) == "asan" or os.environ.get("SANITIZE"):
        pytest.skip("ASan libterse.so cannot be loaded by ctypes; covered by the codec tests")
    path = os.path.join(bindir, "libterse.so")
    if not os.path.isfile(path):
        pytest.fail("%s is missing: `make lib` builds it (make test does)" % path,
                    pytrace=False)
    lib = ctypes.CDLL(path)
    lib.terse_envelope_bound.restype = ctypes.c_size_t
    lib.terse_envelope_bound.argtypes = [ctypes.c_size_t]
    lib.terse_envelope_store.restype = ctypes.c_int
    lib.terse_envelope_store.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                         ctypes.c_void_p, ctypes.c_size_t,
                                         ctypes.POINTER(ctypes.c_size_t)]
    lib.terse_envelope_size.restype = ctypes.c_int
    lib.terse_envelope_size.argtypes = [ctypes.c_char_p, ctypes.c_size_t,
                                        ctypes.POINTER(ctypes.c_uint64)]
    lib.terse_envelope_retrieve.restype = ctypes.c_int
    lib.terse_envelope_retrieve.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p,
                                            ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t),
                                            ctypes.c_char_p, ctypes.c_size_t]
    return lib


def _store(lib, value, fmt=b"msgpack"):
    cap = lib.terse_envelope_bound(len(value))
    buf = ctypes.create_string_buffer(cap)
    n = ctypes.c_size_t(0)
    assert lib.terse_envelope_store(value, len(value), fmt, buf, cap, ctypes.byref(n)) == 0
    assert n.value <= cap
    return buf.raw[:n.value]


def _retrieve(lib, env, cap):
    out = ctypes.create_string_buffer(max(cap, 1))
    n = ctypes.c_size_t(0)
    fmt = ctypes.create_string_buffer(64)
    rc = lib.terse_envelope_retrieve(env, len(env), out, cap, ctypes.byref(n), fmt, 64)
    return rc, out.raw[:n.value], fmt.value


def test_corpus_values_round_trip_through_libterse():
    lib = _lib()
    values = [v for _k, v in corpus_values(2000, 11)]
    sizes = set()
    for v in values:
        env = _store(lib, v, b"json")
        orig = ctypes.c_uint64(0)
        assert lib.terse_envelope_size(env, len(env), ctypes.byref(orig)) == 0
        assert orig.value == len(v)
        rc, got, fmt = _retrieve(lib, env, len(v))
        assert rc == 0 and got == v and fmt == b"json"
        sizes.add(len(v) >= 128)
    assert sizes == {True, False}, "the sample must hold values on both sides of 128 bytes"


def test_flipped_byte_in_a_corpus_envelope_is_an_error():
    lib = _lib()
    rnd = random.Random(3)
    values = [v for _k, v in corpus_values(2000, 11)][:300]
    for v in values:
        env = bytearray(_store(lib, v))
        i = rnd.randrange(len(env))
        env[i] ^= 1 << rnd.randrange(8)
        rc, got, _fmt = _retrieve(lib, bytes(env), len(v) + 64)
        # Either refused, or (a flip that LZ4 decodes to the same bytes) the original itself.
        assert rc < 0 or got == v, "flip at %d returned other data" % i
