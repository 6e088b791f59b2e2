#!/usr/bin/env python3
"""util/tail_mean.py: a run's figures over its last part, for docs/results.md.

Usage: tail_mean.py FILE.csv --last SECONDS COL [COL ...]

FILE is what `league eval DIR --format csv` (or `eval baselines`) writes.
Of the rows whose seconds are within SECONDS of the last row's, prints
for each COL the number of rows, their mean, minimum and maximum and the
last row's value, one line a column. Empty cells (a figure not computed,
e.g. the oracle mixture for more than two seats) are left out; a column
with none says so."""
import argparse
import csv
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--last", type=float, required=True)
    ap.add_argument("cols", nargs="+")
    a = ap.parse_args()
    with open(a.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or "seconds" not in rows[0]:
        sys.exit("%s: no rows with a seconds column" % a.csv)
    end = max(float(r["seconds"]) for r in rows)
    tail = [r for r in rows if float(r["seconds"]) >= end - a.last]
    print("%s: %d rows from %.1f s to %.1f s" %
          (a.csv, len(tail), end - a.last, end))
    for c in a.cols:
        if c not in rows[0]:
            sys.exit("%s: no column %s" % (a.csv, c))
        v = [float(r[c]) for r in tail if r[c] != ""]
        if not v:
            print("%-20s no values" % c)
            continue
        print("%-20s n %3d  mean %.4f  min %.4f  max %.4f  last %.4f" %
              (c, len(v), sum(v) / len(v), min(v), max(v), v[-1]))


if __name__ == "__main__":
    main()
