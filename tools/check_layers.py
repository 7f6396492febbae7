#!/usr/bin/python3
"""Checks every #include "..." under src/ against DESIGN.md's layer table.

A file in src/<layer>/ may include its own layer's headers, the public headers in
include/terse/ (the status codes and allocator are shared by the whole tree), and the headers
of the layers its row allows. Exits 1 listing every violation.
"""
import os
import re
import sys

ALLOWED = {
    "core": set(),
    "net": {"core"},
    "resp": set(),
    "cmd": {"store", "resp", "codec"},
    "store": {"codec", "core"},
    "codec": set(),
    "persist": {"store", "codec"},
    "s3": set(),
    "server": {"core", "net", "resp", "cmd", "store", "codec", "persist", "s3"},
}

PREFIX = {"server": "srv_"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def main() -> int:
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    bad = []
    n_files = 0
    for layer in sorted(os.listdir(root)):
        folder = os.path.join(root, layer)
        if not os.path.isdir(folder):
            continue
        if layer not in ALLOWED:
            bad.append(f"src/{layer}/: folder is not a layer of DESIGN.md")
            continue
        for name in sorted(os.listdir(folder)):
            if not name.endswith((".c", ".h")):
                continue
            n_files += 1
            stem = name.rsplit(".", 1)[0]
            if stem != layer and not name.startswith(PREFIX.get(layer, layer + "_")):
                bad.append(f"src/{layer}/{name}: file name does not start with its layer")
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    inc = m.group(1)
                    top = inc.split("/")[0] if "/" in inc else layer
                    if top in ("terse", layer) or top in ALLOWED[layer]:
                        continue
                    bad.append(f"src/{layer}/{name}:{lineno}: includes {inc}")
    for b in bad:
        print("layer check:", b)
    print(f"layer check: {n_files} files, {len(bad)} violations")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
