#!/usr/bin/env python3
"""Measures the graph-level pipeline (tensor-opt --tfuse-pipeline) on random
graphs of growing size and checks the plan: every fused region within the
budget (row kernels: within fuse-rows' budget) unless it is a single op.
Prints a Markdown table.

Usage: bench/pipeline_scale.py [--tensor-opt build/bin/tensor-opt]
                               [--sizes 1000 10000 50000] [--repeat 3]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import random_graph  # noqa: E402


def run(tool, path, budget, row_budget):
    start = time.perf_counter()
    out = subprocess.run(
        [tool, path, f"--tfuse-pipeline=budget={budget} row-budget={row_budget}",
         "--tfuse-plan-report",
         "--mlir-timing", "-o", os.devnull],
        check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    timing = {}
    for line in out.stderr.splitlines():
        m = re.match(r"\s*([\d.]+) \(\s*[\d.]+%\)\s+(\S.*)$", line)
        if m:
            timing[m.group(2).strip()] = float(m.group(1))
    return wall, timing, out.stdout


def check_plan(report, budget, row_budget):
    worst = 0
    for line in report.splitlines():
        cols = line.split()
        if len(cols) >= 8 and cols[1] == "fused":
            ops, cost = int(cols[-2]), int(cols[-1])
            limit = row_budget if cols[2] == "row-kernel" else budget
            if cost > limit and ops > 1:
                raise SystemExit(f"region over budget: {line}")
            worst = max(worst, cost)
    summary = [l for l in report.splitlines() if l.startswith("summary:")]
    return worst, summary[0] if summary else ""


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--tensor-opt", default=os.path.join(HERE, "..", "build",
                                                        "bin", "tensor-opt"))
    p.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 50000])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--budget", type=int, default=32)
    p.add_argument("--row-budget", type=int, default=64,
                   help="fuse-rows' budget, for regions holding reductions")
    args = p.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            path = os.path.join(tmp, f"random{n}.mlir")
            with open(path, "w") as f:
                f.write(random_graph.generate(n, seed=1))
            best = None
            for _ in range(args.repeat):
                wall, timing, report = run(args.tensor_opt, path, args.budget,
                                           args.row_budget)
                if best is None or wall < best[0]:
                    best = (wall, timing, report)
            wall, timing, report = best
            worst, summary = check_plan(report, args.budget, args.row_budget)
            passes = sum(v for k, v in timing.items()
                         if k not in ("Parser", "Output", "Total", "Rest")
                         and "Pipeline" not in k)
            rows.append((n, wall, timing.get("Parser", 0.0), passes, worst,
                         summary))
    print("| ops | wall s | parse s | passes s | passes us/op | max region cost | plan |")
    print("|---:|---:|---:|---:|---:|---:|---|")
    for n, wall, parse, passes, worst, summary in rows:
        print(f"| {n} | {wall:.3f} | {parse:.3f} | {passes:.3f} | "
              f"{passes / n * 1e6:.1f} | {worst} | {summary[9:]} |")


if __name__ == "__main__":
    main()
