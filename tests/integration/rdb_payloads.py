"""Builders of DUMP payloads in the RDB encodings Redis 7.0 still loads but no longer writes
(zipmap, ziplist, quicklist 1, plain lists, zset with string scores, stream listpacks 1), so
test_dump.py can RESTORE the same bytes into redis-server and terse and compare the values.

Formats as persist_rdb_internal.h and persist_rdb_blob.c describe them. The CRC-64 here is the
textbook bitwise CRC-64/Jones (reflected polynomial 0x95ac9329ac4bc9b5, init 0, no final
xor): slow, and only ever run on test payloads.
"""

import struct

_POLY = 0x95AC9329AC4BC9B5
_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ _POLY if _c & 1 else _c >> 1
    _TABLE.append(_c)


def crc64(data, crc=0):
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


def payload(obj, version=10):
    body = obj + struct.pack("<H", version)
    return body + struct.pack("<Q", crc64(body))


def rdb_len(n):
    if n < 64:
        return bytes([n])
    if n < 16384:
        return bytes([0x40 | (n >> 8), n & 0xFF])
    if n <= 0xFFFFFFFF:
        return b"\x80" + struct.pack(">I", n)
    return b"\x81" + struct.pack(">Q", n)


def rdb_str(b):
    if isinstance(b, str):
        b = b.encode()
    return rdb_len(len(b)) + b


def _b(x):
    return x.encode() if isinstance(x, str) else x


# ---- ziplist ----------------------------------------------------------------------------------

def _zl_entry(v, prevlen):
    pre = bytes([prevlen]) if prevlen < 254 else b"\xfe" + struct.pack("<I", prevlen)
    if isinstance(v, int):
        if 0 <= v <= 12:
            enc = bytes([0xF1 + v])
        elif -128 <= v <= 127:
            enc = b"\xfe" + struct.pack("<b", v)
        elif -32768 <= v <= 32767:
            enc = b"\xc0" + struct.pack("<h", v)
        elif -(1 << 23) <= v < (1 << 23):
            enc = b"\xf0" + struct.pack("<i", v)[:3]
        elif -(1 << 31) <= v < (1 << 31):
            enc = b"\xd0" + struct.pack("<i", v)
        else:
            enc = b"\xe0" + struct.pack("<q", v)
    else:
        v = _b(v)
        n = len(v)
        if n < 64:
            enc = bytes([n]) + v
        elif n < 16384:
            enc = bytes([0x40 | (n >> 8), n & 0xFF]) + v
        else:
            enc = b"\x80" + struct.pack(">I", n) + v
    return pre + enc


def ziplist(items):
    body, prev, tail = b"", 0, 10
    for v in items:
        e = _zl_entry(v, prev)
        tail = 10 + len(body)
        body += e
        prev = len(e)
    total = 10 + len(body) + 1
    return struct.pack("<IIH", total, tail, min(len(items), 65535)) + body + b"\xff"


# ---- listpack ---------------------------------------------------------------------------------

def _lp_backlen(n):
    if n <= 127:
        return bytes([n])
    out = []
    k = 1
    while n >> (7 * k):
        k += 1
    for i in range(k):
        b = (n >> (7 * (k - 1 - i))) & 127
        out.append(b | (128 if i > 0 else 0))
    return bytes(out)


def _lp_entry(v):
    if isinstance(v, int):
        if 0 <= v <= 127:
            enc = bytes([v])
        elif -4096 <= v <= 4095:
            u = v & 0x1FFF
            enc = bytes([0xC0 | (u >> 8), u & 0xFF])
        elif -32768 <= v <= 32767:
            enc = b"\xf1" + struct.pack("<h", v)
        elif -(1 << 23) <= v < (1 << 23):
            enc = b"\xf2" + struct.pack("<i", v)[:3]
        elif -(1 << 31) <= v < (1 << 31):
            enc = b"\xf3" + struct.pack("<i", v)
        else:
            enc = b"\xf4" + struct.pack("<q", v)
    else:
        v = _b(v)
        n = len(v)
        if n < 64:
            enc = bytes([0x80 | n]) + v
        elif n < 4096:
            enc = bytes([0xE0 | (n >> 8), n & 0xFF]) + v
        else:
            enc = b"\xf0" + struct.pack("<I", n) + v
    return enc + _lp_backlen(len(enc))


def listpack(items):
    body = b"".join(_lp_entry(v) for v in items)
    return struct.pack("<IH", 6 + len(body) + 1, min(len(items), 65535)) + body + b"\xff"


# ---- intset, zipmap ---------------------------------------------------------------------------

def intset(values, width):
    fmt = {2: "<h", 4: "<i", 8: "<q"}[width]
    vals = sorted(values)
    return struct.pack("<II", width, len(vals)) + b"".join(struct.pack(fmt, v) for v in vals)


def _zm_len(n):
    return bytes([n]) if n < 254 else b"\xfe" + struct.pack("<I", n)


def zipmap(pairs):
    out = bytes([min(len(pairs), 254)])
    for k, v in pairs:
        k, v = _b(k), _b(v)
        out += _zm_len(len(k)) + k + _zm_len(len(v)) + b"\x02" + v + b"\x00\x00"
    return out + b"\xff"


# ---- objects ----------------------------------------------------------------------------------

def obj_list_plain(items):
    return b"\x01" + rdb_len(len(items)) + b"".join(rdb_str(_b(str(x))) for x in items)


def obj_list_ziplist(items):
    return b"\x0a" + rdb_str(ziplist(items))


def obj_list_quicklist(nodes):
    return b"\x0e" + rdb_len(len(nodes)) + b"".join(rdb_str(ziplist(n)) for n in nodes)


def obj_list_quicklist2(nodes):
    out = b"\x12" + rdb_len(len(nodes))
    for kind, n in nodes:
        out += rdb_len(kind) + rdb_str(n if kind == 1 else listpack(n))
    return out


def obj_set_intset(values, width):
    return b"\x0b" + rdb_str(intset(values, width))


def obj_hash_zipmap(pairs):
    return b"\x09" + rdb_str(zipmap(pairs))


def obj_hash_ziplist(pairs):
    return b"\x0d" + rdb_str(ziplist([x for p in pairs for x in p]))


def obj_hash_listpack(pairs):
    return b"\x10" + rdb_str(listpack([x for p in pairs for x in p]))


def obj_zset_plain(pairs):
    out = b"\x03" + rdb_len(len(pairs))
    for m, s in pairs:
        sb = repr(float(s)).encode() if not isinstance(s, str) else s.encode()
        out += rdb_str(_b(m)) + bytes([len(sb)]) + sb
    return out


def obj_zset_ziplist(pairs):
    return b"\x0c" + rdb_str(ziplist([x for p in pairs for x in p]))


def obj_zset_listpack(pairs):
    return b"\x11" + rdb_str(listpack([x for p in pairs for x in p]))


def stream_node(master, entries):
    """One node: master (ms, seq) and entries [(ms, seq, [(field, value), ...], deleted)]."""
    fields = [f for f, _ in entries[0][2]]
    live = sum(1 for e in entries if not e[3])
    items = [live, len(entries) - live, len(fields)] + fields + [0]
    for ms, seq, pairs, deleted in entries:
        same = [f for f, _ in pairs] == fields
        flags = (1 if deleted else 0) | (2 if same else 0)
        items += [flags, ms - master[0], seq - master[1]]
        if not same:
            items.append(len(pairs))
        for f, v in pairs:
            if not same:
                items.append(f)
            items.append(v)
        items.append(len(pairs) + 3 + (0 if same else len(pairs) + 1))
    key = struct.pack(">QQ", master[0], master[1])
    return rdb_str(key) + rdb_str(listpack(items))


def obj_stream_v1(nodes, length, last_id, groups):
    """STREAM_LISTPACKS (type 15). nodes: stream_node() results. groups: [(name, (ms, seq),
    [(id, delivery_ms, count)], [(consumer, seen_ms, [id, ...])])]."""
    out = b"\x0f" + rdb_len(len(nodes)) + b"".join(nodes)
    out += rdb_len(length) + rdb_len(last_id[0]) + rdb_len(last_id[1]) + rdb_len(len(groups))
    for name, gid, pel, consumers in groups:
        out += rdb_str(name) + rdb_len(gid[0]) + rdb_len(gid[1]) + rdb_len(len(pel))
        for (ms, seq), dt, cnt in pel:
            out += struct.pack(">QQ", ms, seq) + struct.pack("<q", dt) + rdb_len(cnt)
        out += rdb_len(len(consumers))
        for cname, seen, ids in consumers:
            out += rdb_str(cname) + struct.pack("<q", seen) + rdb_len(len(ids))
            out += b"".join(struct.pack(">QQ", ms, seq) for ms, seq in ids)
    return out
