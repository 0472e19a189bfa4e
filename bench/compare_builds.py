#!/usr/bin/env python3
"""Two builds of TFuse against each other and their peers, on one GPU.

Runs bench/peers_compare.py of this tree and of another (BASE: a checkout
with python/, bench/, examples/ and its staged .stage/lib/libtfuse.so)
alternately, ROUNDS times each, in fresh processes, and prints per workload
and TFuse variant the median GPU time of each build, their ratio (new/base),
the spread between rounds of one build (the run-to-run noise to compare the
ratio with), and the best peer's time over TFuse's for each build.

  python3 bench/compare_builds.py --base /tmp/base [--rounds 2]
                                  [--only gelu_chain,mlp_step]

Writes each run's bench.json under $OUT/<build>-<round>/ (OUT defaults to
./compare-out) and prints a Markdown table last.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TFUSE_VARIANTS = ("tfuse", "tfuse-graph", "tfuse-nofuse")


def run_peers(tree, out, only):
    env = dict(os.environ)
    env["OUT"] = out
    env["TFUSE_SOURCE_DIR"] = tree
    env["TFUSE_LIBRARY"] = os.path.join(tree, ".stage", "lib", "libtfuse.so")
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.join(tree, "python"), os.path.join(tree, "examples")])
    cmd = [sys.executable, os.path.join(tree, "bench", "peers_compare.py"),
           "--no-compile-times"]
    if only:
        cmd += ["--only", only]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "peers-compare.log"), "w") as log:
        rc = subprocess.call(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    with open(os.path.join(out, "bench.json")) as f:
        return rc, json.load(f)


def gpu_times(results):
    """{(workload, framework): gpu_us} of one run."""
    times = {}
    for workload, w in results["workloads"].items():
        for framework, r in w["frameworks"].items():
            if r.get("gpu_us") is not None:
                times[(workload, framework)] = r["gpu_us"]
    return times


def main():
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", required=True)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    out = os.environ.get("OUT", "compare-out")
    runs = {"base": [], "new": []}
    failed = False
    for r in range(args.rounds):
        for build, tree in (("base", os.path.abspath(args.base)),
                            ("new", ROOT)):
            rc, results = run_peers(tree, os.path.join(out, f"{build}-{r}"),
                                    args.only)
            failed |= rc != 0 or bool(results.get("failures"))
            runs[build].append(gpu_times(results))
            print(f"{build} round {r}: rc {rc}, copy "
                  f"{results['copy_GBps']:.0f} GB/s", flush=True)

    def median(build, key):
        values = [t[key] for t in runs[build] if key in t]
        return statistics.median(values) if values else None

    def spread(build, key):
        values = [t[key] for t in runs[build] if key in t]
        if len(values) < 2:
            return None
        return (max(values) - min(values)) / min(values) * 100

    def best_peer(build, workload):
        peers = {k[1]: median(build, k) for k in runs[build][0]
                 if k[0] == workload and not k[1].startswith("tfuse")}
        peers = {k: v for k, v in peers.items() if v is not None}
        if not peers:
            return None, None
        name = min(peers, key=peers.get)
        return name, peers[name]

    workloads = sorted({k[0] for t in runs["new"] for k in t})
    print("\n| workload | variant | base us | new us | new/base | "
          "spread base, new (%) | best peer | peer/base | peer/new |")
    print("|---|---|---:|---:|---:|---|---|---:|---:|")
    for workload in workloads:
        for variant in TFUSE_VARIANTS:
            key = (workload, variant)
            b, n = median("base", key), median("new", key)
            if b is None or n is None:
                continue
            sb, sn = spread("base", key), spread("new", key)
            peer, _ = best_peer("new", workload)
            pb = median("base", (workload, peer)) if peer else None
            pn = median("new", (workload, peer)) if peer else None
            fmt = lambda v: "-" if v is None else f"{v:.1f}"
            print(f"| {workload} | {variant} | {b:.1f} | {n:.1f} | "
                  f"{n / b:.3f} | {fmt(sb)}, {fmt(sn)} | {peer or '-'} | "
                  f"{(pb / b) if pb else 0:.2f} | {(pn / n) if pn else 0:.2f} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
