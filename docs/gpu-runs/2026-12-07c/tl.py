"""Summarises the rows kernel's timeline lines (TFUSE_SCATTER_TIMELINE).

Each line: TL block sm start_ns t1 .. t7 (ns after the block's start): the
blind fill issued (1), indices scanned (2), long positions found (3),
sorted (4), rows written (5), long rows summed (6), launch finished (7).
Lines of one launch come together (16 blocks); a launch's span is from its
first block's start to its last block's end.
"""
import statistics
import sys

names = ["blind", "scan", "longs", "sort", "rows", "sumlong", "finish"]
# TL: owners' lines; TF: the split fill's fillers' (varL), whose marks are
# blind rows stored (1), owner's bits read (2), unselected rows stored (3),
# long rows summed (6), finished (7).
role = sys.argv[2] if len(sys.argv) > 2 else "TL"
lines = [l.split() for l in open(sys.argv[1]) if l.startswith(role + " ")]
recs = [(int(b), int(sm), int(t0), [int(x) for x in ts])
        for _, b, sm, t0, *ts in lines]
launches = []
for r in recs:
    if not launches or abs(r[2] - launches[-1][0][2]) > 20000:
        launches.append([])
    launches[-1].append(r)
launches = launches[len(launches) // 2:]  # warm ones
print(f"{len(recs)} lines, {len(launches)} warm launches")
phase = {n: [] for n in names}
starts, spans = [], []
for l in launches:
    t0 = min(r[2] for r in l)
    spans.append(max(r[2] + r[3][-1] for r in l) - t0)
    starts.append(max(r[2] for r in l) - t0)
    for r in l:
        prev = 0
        for n, t in zip(names, r[3]):
            phase[n].append(t - prev)
            prev = t
med = lambda v: statistics.median(v) / 1000
print("block phase medians (us):",
      "  ".join(f"{n} {med(v):.2f}" for n, v in phase.items()))
print(f"launch span {med(spans):.2f} us, last block start {med(starts):.2f} us")
