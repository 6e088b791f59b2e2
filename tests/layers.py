#!/usr/bin/env python3
"""tests/layers.py BUILD [--allow FILE] [--map FILE]: every upward call and
include (--map: read the order from FILE, not docs/architecture.md).

The module table of docs/architecture.md ("## Modules") lists the folders
from the bottom up; a lower row may not call a function defined in a
higher row, nor include a higher row's header. This check reads that
order from the map itself, the calls from the built objects (nm: each
object's undefined symbols, resolved to the folder whose object defines
them) and the includes from the sources, and fails on any upward arrow
not on the allow-list (tests/layers_allow.txt: "FROM_FILE SYMBOL_OR_HEADER"
per line, each after a comment saying why).

Inside a folder, the same between files: a folder's section of the map
("### collector/") whose file table has a "level" column puts its files
in a stack (0 the bottom); a file may call only functions defined in a
file of a lower level, never one above it nor one beside it on its own
level. Every built object of such a folder needs a level in the table.
Those arrows go on the same allow-list.

Exit 0: no arrow outside the list (and no stale entry in it); 1: the
arrows are printed, one a line; 2: usage.
"""
import glob
import os
import re
import subprocess
import sys

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAP = os.path.join(SRC, "docs/architecture.md")


def layer_order():
    """The folders of the map's module table, bottom row first."""
    text = open(MAP).read()
    sec = text.split("\n## Modules", 1)[1].split("\n## ", 1)[0]
    order = re.findall(r"^\| `([a-z_]+)/` \|", sec, re.M)
    if len(order) < 5:
        sys.exit("layers: cannot read the module table of "
                 "docs/architecture.md")
    return [m for m in order if os.path.isdir(os.path.join(SRC, m))]


def file_levels():
    """{folder: {file.c: level}} from the map's per-folder file tables
    that have a "level" column (a header has none)."""
    text = open(MAP).read()
    levels = {}
    for folder, sec in re.findall(r"^### ([a-z_]+)/\n(.*?)(?=^##)", text,
                                  re.M | re.S):
        if not re.search(r"^\| file \| level \|", sec, re.M):
            continue
        rows = re.findall(r"^\| `([a-z_]+\.c)` \| *([0-9]+) *\|", sec,
                          re.M)
        if not rows:
            sys.exit("layers: the %s/ table of docs/architecture.md has a "
                     "level column but no file with a level" % folder)
        levels[folder] = {f: int(lv) for f, lv in rows}
    return levels


def file_arrows(build, levels):
    """Calls between files of one folder that do not go down a level:
    (FILE, SYMBOL, what is wrong)."""
    found = set()
    for m, lv in sorted(levels.items()):
        objs = sorted(glob.glob(os.path.join(build, m, "*.o")))
        where = {}
        for o in objs:
            src = os.path.basename(o)[:-2] + ".c"
            for f in nm(o, "-g", "--defined-only"):
                if len(f) == 3 and f[1] in "TDBR":
                    where.setdefault(f[2], src)
        for o in objs:
            src = os.path.basename(o)[:-2] + ".c"
            if src not in lv:
                found.add(("%s/%s" % (m, src), "-",
                           "no level in the %s/ table of "
                           "docs/architecture.md" % m))
                continue
            for f in nm(o, "-u"):
                d = where.get(f[-1])
                if not d or d == src or d not in lv:
                    continue
                if lv[d] > lv[src]:
                    found.add(("%s/%s" % (m, src), f[-1],
                               "%s/%s, a higher level (%d) than %d"
                               % (m, d, lv[d], lv[src])))
                elif lv[d] == lv[src]:
                    found.add(("%s/%s" % (m, src), f[-1],
                               "%s/%s, beside it on level %d"
                               % (m, d, lv[d])))
    return found


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
    global MAP
    opts = dict(zip(argv[2::2], argv[3::2]))
    if len(argv) % 2 or set(opts) - {"--allow", "--map"}:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    allow = opts.get("--allow", os.path.join(SRC, "tests/layers_allow.txt"))
    MAP = opts.get("--map", MAP)
    order = layer_order()
    levels = file_levels()
    found = {(f, s, "%s/, a higher layer than %s/" % (d, f.split("/")[0]))
             for f, s, d in arrows(argv[1], order)}
    found |= file_arrows(argv[1], levels)
    ok = allowed(allow)
    bad = sorted(a for a in found if (a[0], a[1]) not in ok)
    stale = sorted(ok - {(a[0], a[1]) for a in found})
    for f, s, why in bad:
        print("layers: %s -> %s (%s)" % (f, s, why))
    for f, s in stale:
        print("layers: %s: '%s %s' is allowed but no longer there; take "
              "it off the list" % (allow, f, s))
    if bad or stale:
        print("layers: order (bottom first): %s" % " ".join(order))
        for m, lv in sorted(levels.items()):
            print("layers: %s/ levels (bottom first): %s" % (m, " | ".join(
                " ".join(sorted(f for f in lv if lv[f] == k))
                for k in sorted(set(lv.values())))))
        return 1
    print("layers: %d folders, no upward call or include outside the "
          "%d allowed; files stacked in %s" % (len(order), len(ok),
                                               " ".join(m + "/" for m in
                                                        sorted(levels))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
