#!/usr/bin/env python3
"""util/join_curves.py: several runs' curves as one CSV for `league plot`.

Usage: join_curves.py --x COL --y COL LABEL=FILE.csv [LABEL=FILE.csv ...]

Each FILE is what `league eval DIR --format csv` writes. The output has
the x column, then one column per LABEL holding that run's y. Its rows are
the union of the runs' x values from the first x every run has reached
to the last x every run has reached (no run is drawn past its own last
point); at each, a run's value is its last point at or before that x
(its curve as a step function), so no value is made up between two
measurements.
Written to standard output."""
import argparse
import csv
import sys


def read(path, x, y):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or x not in rows[0] or y not in rows[0]:
        sys.exit("%s: needs columns %s and %s" % (path, x, y))
    pts = sorted((float(r[x]), float(r[y])) for r in rows)
    return pts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--x", required=True)
    ap.add_argument("--y", required=True)
    ap.add_argument("runs", nargs="+", metavar="LABEL=FILE")
    a = ap.parse_args()
    runs = []
    for spec in a.runs:
        label, sep, path = spec.partition("=")
        if not sep or not label or not path:
            sys.exit("%s: expected LABEL=FILE" % spec)
        runs.append((label, read(path, a.x, a.y)))
    start = max(p[0][0] for _, p in runs)
    end = min(p[-1][0] for _, p in runs)
    xs = sorted({x for _, p in runs for x, _ in p if start <= x <= end})
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow([a.x] + [label for label, _ in runs])
    for x in xs:
        row = [x]
        for _, p in runs:
            row.append([v for t, v in p if t <= x][-1])
        out.writerow(row)


if __name__ == "__main__":
    main()
