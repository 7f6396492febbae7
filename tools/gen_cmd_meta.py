#!/usr/bin/python3
"""Generates src/cmd/core/cmd_meta.c from a running redis-server (the wire-compatibility oracle).

terse answers COMMAND INFO and COMMAND DOCS as Redis 7.0 does. The table rows (cmd_def) carry
name, arity, flags, key positions, ACL categories, summary, since and group; everything else
(tips, key specs, complexity, doc flags, deprecation, history, the argument tree) lives in the
metadata table this script writes. It asks the oracle COMMAND INFO / COMMAND DOCS for every
command name it is given, checks that the structure fits what cmd_command.c emits (field
order, reply types), and writes the C data.

Never run by the build or the tests. Re-run it when a command is added:

    redis-server --port 6399 --save '' &
    /usr/bin/python3 tools/gen_cmd_meta.py --port 6399 --add 'memory|usage' ...
    # or, to cover every command a running terse implements:
    /usr/bin/python3 tools/gen_cmd_meta.py --port 6399 --terse-port 6380

The names covered are the union of DEFAULT_NAMES, the names already in the output file, the
commands a terse server lists (--terse-port) and --add. "container|*" stands for every
subcommand of that container in the oracle.
"""

import argparse
import os
import re
import socket
import sys
import textwrap

DEFAULT_NAMES = [
    "memory", "memory|*", "save", "bgsave", "lastsave", "debug",
    "command|getkeysandflags",
]

OUT_DEFAULT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "cmd", "core",
                           "cmd_meta.c")

# Orders in which Redis 7.0 writes each map's fields; the emitters in cmd_command.c follow them.
KEYSPEC_FIELDS = ["notes", "flags", "begin_search", "find_keys"]
DOCS_FIELDS = ["summary", "since", "group", "complexity", "module", "doc_flags",
               "deprecated_since", "replaced_by", "history", "arguments", "subcommands"]
ARG_FIELDS = ["name", "type", "display_text", "key_spec_index", "token", "summary", "since",
              "deprecated_since", "flags", "value", "arguments"]

KS_FLAGS = ["RO", "RW", "OW", "RM", "access", "update", "insert", "delete", "not_key",
            "incomplete", "variable_flags"]
ARG_FLAGS = ["optional", "multiple", "multiple_token"]
DOC_FLAGS = ["deprecated", "syscmd"]
ARG_TYPES = ["string", "integer", "double", "key", "pattern", "unix-time", "pure-token",
             "oneof", "block"]

# ---- a RESP3 client that keeps reply types and map order ---------------------------------


class Conn:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.buf = b""

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise EOFError("connection closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _bytes(self, n):
        while len(self.buf) < n + 2:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise EOFError("connection closed")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def read(self):
        """A reply as (type, value): map values are lists of (key, value) pairs."""
        line = self._line()
        t, rest = chr(line[0]), line[1:]
        if t in "+-":
            return ("simple" if t == "+" else "error", rest.decode())
        if t == ":":
            return ("int", int(rest))
        if t == "$":
            return ("bulk", self._bytes(int(rest)).decode())
        if t == "_":
            return ("null", None)
        if t in "*~":
            n = int(rest)
            return ("array" if t == "*" else "set", [self.read() for _ in range(n)])
        if t == "%":
            n = int(rest)
            return ("map", [(self.read()[1], self.read()) for _ in range(n)])
        raise ValueError("unexpected reply type %r" % t)

    def call(self, *args):
        msg = b"*%d\r\n" % len(args)
        for a in args:
            a = a.encode()
            msg += b"$%d\r\n%s\r\n" % (len(a), a)
        self.sock.sendall(msg)
        return self.read()


# ---- checks: the oracle's replies have the shape the C emitter writes ------------------------


def ordered_fields(pairs, order, what):
    keys = [k for k, _ in pairs]
    unknown = [k for k in keys if k not in order]
    if unknown:
        sys.exit("%s: unknown fields %s" % (what, unknown))
    if keys != sorted(keys, key=order.index):
        sys.exit("%s: fields out of the expected order: %s" % (what, keys))
    return dict(pairs)


def expect(node, typ, what):
    if node[0] != typ:
        sys.exit("%s: expected %s, got %s" % (what, typ, node[0]))
    return node[1]


def simple_set(node, allowed, what):
    names = [expect(x, "simple", what) for x in expect(node, "set", what)]
    if any(n not in allowed for n in names) or names != sorted(names, key=allowed.index):
        sys.exit("%s: flags %s not in the order %s" % (what, names, allowed))
    return names


# ---- model -----------------------------------------------------------------------------------


def parse_keyspec(node, what):
    f = ordered_fields(expect(node, "map", what), KEYSPEC_FIELDS, what)
    ks = {"notes": expect(f["notes"], "bulk", what) if "notes" in f else None,
          "flags": simple_set(f["flags"], KS_FLAGS, what)}
    bs = ordered_fields(expect(f["begin_search"], "map", what), ["type", "spec"], what)
    bs_type = expect(bs["type"], "bulk", what)
    spec = dict(expect(bs["spec"], "map", what))
    if bs_type == "index":
        ks["bs"] = ("INDEX", None, spec["index"][1])
    elif bs_type == "keyword":
        ks["bs"] = ("KEYWORD", spec["keyword"][1], spec["startfrom"][1])
    elif bs_type == "unknown" and not spec:
        ks["bs"] = ("UNKNOWN", None, 0)
    else:
        sys.exit("%s: begin_search %s" % (what, bs))
    fk = ordered_fields(expect(f["find_keys"], "map", what), ["type", "spec"], what)
    fk_type = expect(fk["type"], "bulk", what)
    spec = expect(fk["spec"], "map", what)
    keys = [k for k, _ in spec]
    if fk_type == "range" and keys == ["lastkey", "keystep", "limit"]:
        ks["fk"] = ("RANGE", [v[1] for _, v in spec])
    elif fk_type == "keynum" and keys == ["keynumidx", "firstkey", "keystep"]:
        ks["fk"] = ("KEYNUM", [v[1] for _, v in spec])
    elif fk_type == "unknown" and not spec:
        ks["fk"] = ("UNKNOWN", [0, 0, 0])
    else:
        sys.exit("%s: find_keys %s" % (what, fk))
    return ks


def parse_arg(node, what):
    f = ordered_fields(expect(node, "map", what), ARG_FIELDS, what)
    what = "%s/%s" % (what, f["name"][1])
    a = {}
    for k in ("name", "display_text", "token", "summary", "since", "deprecated_since"):
        a[k] = expect(f[k], "bulk", what) if k in f else None
    a["type"] = expect(f["type"], "bulk", what)
    if a["type"] not in ARG_TYPES or "value" in f:
        sys.exit("%s: type %s / value not supported" % (what, a["type"]))
    a["ksi"] = expect(f["key_spec_index"], "int", what) if "key_spec_index" in f else -1
    a["flags"] = simple_set(f["flags"], ARG_FLAGS, what) if "flags" in f else []
    a["args"] = [parse_arg(x, what) for x in expect(f["arguments"], "array", what)] \
        if "arguments" in f else []
    return a


def fetch(conn, name):
    what = name
    info = expect(conn.call("COMMAND", "INFO", name), "array", what)[0]
    if info[0] == "null":
        sys.exit("%s: unknown to the oracle" % name)
    info = expect(info, "array", what)
    m = {"name": name}
    m["tips"] = [expect(x, "bulk", what) for x in expect(info[7], "set", what)]
    m["ks"] = [parse_keyspec(x, "%s keyspec" % what) for x in expect(info[8], "set", what)]
    subs = info[9]
    m["subs"] = [x[1][0][1] for x in subs[1]] if subs[0] == "array" else []
    docs = expect(conn.call("COMMAND", "DOCS", name), "map", what)
    d = ordered_fields(expect(docs[0][1], "map", what), DOCS_FIELDS, what)
    if "module" in d:
        sys.exit("%s: module commands are not supported" % what)
    for k in ("summary", "since", "group", "complexity", "deprecated_since", "replaced_by"):
        m[k] = expect(d[k], "bulk", what) if k in d else None
    m["doc_flags"] = simple_set(d["doc_flags"], DOC_FLAGS, what) if "doc_flags" in d else []
    m["history"] = []
    for h in expect(d["history"], "set", what) if "history" in d else []:
        pair = expect(h, "array", what)
        m["history"].append((expect(pair[0], "bulk", what), expect(pair[1], "bulk", what)))
    m["args"] = [parse_arg(x, what + " args") for x in expect(d["arguments"], "array", what)] \
        if "arguments" in d else []
    return m


# ---- C output --------------------------------------------------------------------------------


def c_str(s):
    """A C string literal; a long one becomes adjacent literals, one per line."""
    if s is None:
        return "NULL"
    pieces, cur = [], ""
    for word in re.split(r"(?<= )", s):
        if cur and len(cur) + len(word) > 80:
            pieces.append(cur)
            cur = ""
        cur += word
    pieces.append(cur)
    return "\n".join(lit(p) for p in pieces)


def lit(s):
    out = '"'
    for ch in s:
        if ch in '"\\':
            out += "\\" + ch
        elif 32 <= ord(ch) < 127:
            out += ch
        else:
            out += "\\%03o" % ord(ch)
    return out + '"'


def c_flags(names, prefix, table):
    if not names:
        return "0"
    return " | ".join("%s%s" % (prefix, table[n]) for n in names)


KS_FLAG_C = {n: n.upper() for n in KS_FLAGS}
ARG_FLAG_C = {n: n.upper() for n in ARG_FLAGS}
DOC_FLAG_C = {n: n.upper() for n in DOC_FLAGS}
ARG_TYPE_C = {n: n.upper().replace("-", "_") for n in ARG_TYPES}


def wrap_row(w, items):
    """Writes "{a, b, ...}," wrapped at 100 columns (continuation lines indented 5)."""
    line = "    {"
    for i, item in enumerate(items):
        piece = item + (", " if i + 1 < len(items) else "},")
        if "\n" in piece:
            if line.strip() not in ("", "{"):
                w(line.rstrip())
                line = "     "
            parts = piece.split("\n")
            w(line + parts[0])
            for part in parts[1:-1]:
                w("     " + part)
            line = "     " + parts[-1]
            continue
        if len(line) + len(piece.rstrip()) > 100 and line.strip() not in ("", "{"):
            w(line.rstrip())
            line = "     "
        line += piece
    w(line.rstrip())


def flatten_args(args, pool):
    """Appends args to pool breadth-first so each node's children are contiguous.
    Returns the index of the first."""
    first = len(pool)
    pool.extend({"a": a, "child": 0} for a in args)
    for i, a in enumerate(args):
        if a["args"]:
            pool[first + i]["child"] = flatten_args(a["args"], pool)
    return first


def emit(metas, out_path, names):
    tips, kss, hist, args = [], [], [], []
    rows = []
    for m in sorted(metas, key=lambda x: x["name"]):
        r = {"m": m, "tip": len(tips), "ks": len(kss), "hist": len(hist)}
        tips.extend(m["tips"])
        kss.extend(m["ks"])
        hist.extend(m["history"])
        r["arg"] = flatten_args(m["args"], args) if m["args"] else 0
        rows.append(r)

    L = []
    w = L.append
    w("/*")
    w(" * cmd_meta: COMMAND INFO / COMMAND DOCS metadata of Redis 7.0.15, by full command name.")
    w(" *")
    w(" * GENERATED by tools/gen_cmd_meta.py from a running redis-server: do not edit by hand;")
    w(" * re-run the script (see its header) to add commands. Longer than the ~500-line rule on")
    w(" * purpose: it is data. Layout: four pools (tips, key specs, history, arguments) and one")
    w(" * row per command, sorted by name (strcmp), pointing at slices of the pools. An argument's")
    w(" * children are contiguous in the argument pool (child index, n_args).")
    w(" *")
    for i, line in enumerate(textwrap.wrap(" ".join(names), 90)):
        w(" * %s%s" % ("Names: " if i == 0 else "       ", line))
    w(" */")
    w('#include "cmd/cmd_meta.h"')
    w("")
    w("#include <string.h>")
    w("")
    w("static const char *const tips[] = {")
    for t in tips:
        w("    %s," % c_str(t))
    w("    NULL};")
    w("")
    w("static const struct cmd_keyspec keyspecs[] = {")
    for k in kss:
        wrap_row(w, [c_str(k["notes"]), c_flags(k["flags"], "CMD_KS_", KS_FLAG_C),
                     "CMD_KS_BS_" + k["bs"][0], c_str(k["bs"][1]), str(k["bs"][2]),
                     "CMD_KS_FK_" + k["fk"][0], "{%d, %d, %d}" % tuple(k["fk"][1])])
    w("    {NULL, 0, CMD_KS_BS_UNKNOWN, NULL, 0, CMD_KS_FK_UNKNOWN, {0, 0, 0}}};")
    w("")
    w("static const struct cmd_history history[] = {")
    for v, t in hist:
        wrap_row(w, [c_str(v), c_str(t)])
    w("    {NULL, NULL}};")
    w("")
    w("static const struct cmd_arg args[] = {")
    for p in args:
        a = p["a"]
        wrap_row(w, [c_str(a["name"]), "CMD_ARG_" + ARG_TYPE_C[a["type"]],
                     c_flags(a["flags"], "CMD_ARG_", ARG_FLAG_C), str(a["ksi"]),
                     c_str(a["display_text"]), c_str(a["token"]), c_str(a["summary"]),
                     c_str(a["since"]), c_str(a["deprecated_since"]), str(p["child"]),
                     str(len(a["args"]))])
    w("    {NULL, CMD_ARG_STRING, 0, -1, NULL, NULL, NULL, NULL, NULL, 0, 0}};")
    w("")
    w("static const struct cmd_meta rows[] = {")
    for r in rows:
        m = r["m"]
        wrap_row(w, [c_str(m["name"]), c_str(m["summary"]), c_str(m["since"]),
                     c_str(m["group"]), c_str(m["complexity"]),
                     c_flags(m["doc_flags"], "CMD_DOC_", DOC_FLAG_C),
                     c_str(m["deprecated_since"]), c_str(m["replaced_by"]),
                     "tips + %d" % r["tip"], str(len(m["tips"])), "keyspecs + %d" % r["ks"],
                     str(len(m["ks"])), "history + %d" % r["hist"], str(len(m["history"])),
                     "args + %d" % r["arg"], str(len(m["args"]))])
    w("};")
    w("")
    w("#define N_ROWS (sizeof(rows) / sizeof(rows[0]))")
    w("")
    w("const struct cmd_meta *cmd_meta_find(const char *name)")
    w("{")
    w("    size_t lo = 0, hi = N_ROWS;")
    w("")
    w("    while (lo < hi) {")
    w("        size_t mid = lo + (hi - lo) / 2;")
    w("        int r = strcmp(name, rows[mid].name);")
    w("        if (r == 0) {")
    w("            return &rows[mid];")
    w("        }")
    w("        if (r < 0) {")
    w("            hi = mid;")
    w("        } else {")
    w("            lo = mid + 1;")
    w("        }")
    w("    }")
    w("    return NULL;")
    w("}")
    w("")
    w("const struct cmd_arg *cmd_meta_children(const struct cmd_arg *a)")
    w("{")
    w("    return &args[a->child];")
    w("}")
    with open(out_path, "w") as f:
        f.write("\n".join(L) + "\n")


def names_in(path):
    """The names a previous run covered (its header's "Names:" block)."""
    names, inside = [], False
    try:
        with open(path) as f:
            for line in f:
                m = re.match(r" \* (Names: |       )(.*)$", line)
                if m and (inside or m.group(1) == "Names: "):
                    names += m.group(2).split()
                    inside = True
                elif inside:
                    break
    except FileNotFoundError:
        pass
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, required=True, help="the oracle redis-server's port")
    ap.add_argument("--terse-port", type=int, help="also cover what this terse lists")
    ap.add_argument("--add", nargs="*", default=[], help="more command names")
    ap.add_argument("--out", default=OUT_DEFAULT)
    opt = ap.parse_args()

    names = DEFAULT_NAMES + names_in(opt.out) + opt.add
    if opt.terse_port:
        t = Conn(opt.terse_port)
        names += [x[1] for x in t.call("COMMAND", "LIST")[1]]
    conn = Conn(opt.port)
    expect(conn.call("HELLO", "3"), "map", "HELLO 3")
    full = []
    for n in dict.fromkeys(x.lower() for x in names):
        if n.endswith("|*"):
            info = expect(conn.call("COMMAND", "INFO", n[:-2]), "array", n)[0]
            full += [s[1][0][1] for s in info[1][9][1]]
        else:
            full.append(n)
    full = sorted(dict.fromkeys(full))
    metas = [fetch(conn, n) for n in full]
    keep = sorted(dict.fromkeys(x.lower() for x in names))
    emit(metas, opt.out, keep)
    print("wrote %s: %d commands" % (opt.out, len(metas)))


if __name__ == "__main__":
    main()
