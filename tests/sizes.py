#!/usr/bin/env python3
"""tests/sizes.py [--files N] [--funcs N] [DIR...]: the size rules of
docs/architecture.md ("Size rules"), checked.

Every .c file under the given folders (default: every module folder, cli/,
bench/ and examples/, never tests/) must be at most --files lines (1000)
and every function in it at most --funcs lines (100), counted from the
line of its name to its closing brace, as universal-ctags reports them.
Prints one line per breach and exits 1 on any; `make test` runs it.
"""
import os
import shutil
import subprocess
import sys

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CTAGS = "ctags-universal" if shutil.which("ctags-universal") else "ctags"
DIRS = ["util", "storage", "envs", "learner", "payoff", "players", "net",
        "collector", "conf", "server", "eval", "league", "workers", "cli",
        "bench", "examples"]


def sources(dirs):
    for d in dirs:
        top = os.path.join(SRC, d)
        for root, _, files in os.walk(top):
            for f in sorted(files):
                if f.endswith(".c"):
                    yield os.path.relpath(os.path.join(root, f), SRC)


def functions(path):
    """(name, first line, last line) of each function defined in path."""
    out = subprocess.run(
        [CTAGS, "--fields=+ne", "--c-kinds=f", "-o", "-", path],
        cwd=SRC, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        cols = line.split("\t")
        fields = dict(c.split(":", 1) for c in cols[3:] if ":" in c)
        if "line" in fields and "end" in fields:
            yield cols[0], int(fields["line"]), int(fields["end"])


def main(argv):
    max_file, max_func, dirs = 1000, 100, []
    i = 0
    while i < len(argv):
        if argv[i] in ("--files", "--funcs") and i + 1 < len(argv):
            if argv[i] == "--files":
                max_file = int(argv[i + 1])
            else:
                max_func = int(argv[i + 1])
            i += 2
        elif argv[i].startswith("-"):
            sys.exit(__doc__)
        else:
            dirs.append(argv[i].rstrip("/"))
            i += 1
    bad, nfiles, nfuncs = 0, 0, 0
    for path in sources(dirs or DIRS):
        nfiles += 1
        with open(os.path.join(SRC, path), encoding="utf-8") as f:
            n = sum(1 for _ in f)
        if n > max_file:
            print("sizes: %s: %d lines (at most %d)" % (path, n, max_file))
            bad += 1
        for name, first, last in functions(path):
            nfuncs += 1
            if last - first + 1 > max_func:
                print("sizes: %s:%d: %s: %d lines (at most %d)"
                      % (path, first, name, last - first + 1, max_func))
                bad += 1
    if nfiles == 0 or nfuncs == 0:
        sys.exit("sizes: no sources or no functions found (is universal-"
                 "ctags installed?)")
    if bad:
        print("sizes: %d breaches of the size rules (docs/architecture.md,"
              " \"Size rules\")" % bad)
        return 1
    print("sizes: %d files, %d functions within %d and %d lines"
          % (nfiles, nfuncs, max_file, max_func))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
