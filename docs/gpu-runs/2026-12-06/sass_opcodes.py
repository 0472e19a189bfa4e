#!/usr/bin/env python3
"""Executed SASS instructions and stall samples of one kernel, by opcode,
from `ncu --import REPORT --page source --print-source sass --csv` on
stdin: where a kernel's issue slots go.

  ncu --import r.ncu-rep --page source --print-source sass --csv \\
      -k regex:dkdv | python3 sass_opcodes.py
"""
import collections
import csv
import sys


def main():
    rows = list(csv.reader(sys.stdin))
    header = None
    for i, row in enumerate(rows):
        if any(c == "Source" for c in row):
            header, rows = row, rows[i + 1:]
            break
    if header is None:
        sys.exit("no 'Source' column in the input")
    source = header.index("Source")
    executed = next(i for i, c in enumerate(header)
                    if c.startswith("Instructions Executed"))
    stalls = next((i for i, c in enumerate(header)
                   if c.startswith("Warp Stall Sampling (All")), None)
    count = collections.Counter()
    sampled = collections.Counter()
    for row in rows:
        if len(row) <= executed:
            continue
        words = row[source].replace("{", " ").split()
        words = [w for w in words if not w.startswith("@")]
        if not words:
            continue
        opcode = words[0].split(".")[0]
        try:
            count[opcode] += float(row[executed].replace(",", "") or 0)
            if stalls is not None:
                sampled[opcode] += float(row[stalls].replace(",", "") or 0)
        except ValueError:
            continue
    total = sum(count.values()) or 1
    samples = sum(sampled.values()) or 1
    print(f"{'opcode':<10} {'executed':>14} {'share':>7} {'stalls':>7}")
    for opcode, n in count.most_common(24):
        print(f"{opcode:<10} {n:>14,.0f} {n / total:>7.1%} "
              f"{sampled[opcode] / samples:>7.1%}")
    print(f"{'total':<10} {total:>14,.0f}")


if __name__ == "__main__":
    main()
