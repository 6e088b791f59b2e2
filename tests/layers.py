#!/usr/bin/env python3
"""tests/layers.py BUILD [--allow FILE]: every upward call and include.

The module table of docs/architecture.md ("## Modules") lists the folders
from the bottom up; a lower row may not call a function defined in a
higher row, nor include a higher row's header. This check reads that
order from the map itself, the calls from the built objects (nm: each
object's undefined symbols, resolved to the folder whose object defines
them) and the includes from the sources, and fails on any upward arrow
not on the allow-list (tests/layers_allow.txt: "FROM_FILE SYMBOL_OR_HEADER"
per line, each after a comment saying why).

Exit 0: no arrow outside the list (and no stale entry in it); 1: the
arrows are printed, one a line; 2: usage.
"""
import glob
import os
import re
import subprocess
import sys

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def layer_order():
    """The folders of the map's module table, bottom row first."""
    text = open(os.path.join(SRC, "docs/architecture.md")).read()
    sec = text.split("\n## Modules", 1)[1].split("\n## ", 1)[0]
    order = re.findall(r"^\| `([a-z_]+)/` \|", sec, re.M)
    if len(order) < 5:
        sys.exit("layers: cannot read the module table of "
                 "docs/architecture.md")
    return [m for m in order if os.path.isdir(os.path.join(SRC, m))]


def nm(obj, *flags):
    out = subprocess.run(["nm", *flags, obj], capture_output=True,
                         text=True, check=True).stdout
    return [line.split() for line in out.splitlines() if line.strip()]


def arrows(build, order):
    rank = {m: i for i, m in enumerate(order)}
    objs = {m: sorted(glob.glob(os.path.join(build, m, "*.o")))
            for m in order}
    where = {}
    for m in order:
        for o in objs[m]:
            for f in nm(o, "-g", "--defined-only"):
                if len(f) == 3 and f[1] in "TDBR":
                    where.setdefault(f[2], m)
    found = set()
    for m in order:
        for o in objs[m]:
            src = "%s/%s.c" % (m, os.path.basename(o)[:-2])
            for f in nm(o, "-u"):
                d = where.get(f[-1])
                if d and rank[d] > rank[m]:
                    found.add((src, f[-1], d))
        for c in sorted(glob.glob(os.path.join(SRC, m, "*.[ch]"))):
            rel = os.path.relpath(c, SRC)
            for h in re.findall(r'^#\s*include\s+"(([a-z_]+)/[^"]+)"',
                                open(c).read(), re.M):
                if h[1] in rank and rank[h[1]] > rank[m]:
                    found.add((rel, h[0], h[1]))
    return found


def allowed(path):
    keep = set()
    for line in open(path):
        line = line.strip()
        if line and not line.startswith("#"):
            parts = line.split()
            if len(parts) != 2:
                sys.exit("layers: %s: not 'FILE SYMBOL': %s" % (path, line))
            keep.add(tuple(parts))
    return keep


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--allow"):
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    allow = argv[3] if len(argv) == 4 else os.path.join(
        SRC, "tests/layers_allow.txt")
    order = layer_order()
    found = arrows(argv[1], order)
    ok = allowed(allow)
    bad = sorted(a for a in found if (a[0], a[1]) not in ok)
    stale = sorted(ok - {(a[0], a[1]) for a in found})
    for f, s, d in bad:
        print("layers: %s -> %s (%s/, a higher layer than %s/)"
              % (f, s, d, f.split("/")[0]))
    for f, s in stale:
        print("layers: %s: '%s %s' is allowed but no longer there; take "
              "it off the list" % (allow, f, s))
    if bad or stale:
        print("layers: order (bottom first): %s" % " ".join(order))
        return 1
    print("layers: %d folders, no upward call or include outside the "
          "%d allowed" % (len(order), len(ok)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
