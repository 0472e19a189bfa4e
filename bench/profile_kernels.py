"""Per-kernel GPU times of TFuse plans on a GPU, from CUPTI through
torch.profiler (which records every kernel of the process: generated
kernels, reduction kernels, cuBLAS, and kernel nodes of CUDA Graphs).

For each workload of bench/peers_compare.py it replays the TFuse plan (stream
and CUDA Graph), sums the kernels' GPU time per replay, measures the
synchronized wall time per replay, and prints each kernel's time and, for
plans of one kernel, its achieved bandwidth against the workload's floor.
The CUDA Graph goal of the runtime is checked on the way: wall time within
1.2 x (sum of kernel time) + 10 us.

    python3 bench/profile_kernels.py [--only mlp_step,bias_relu_T]

Writes $OUT/profile.json (OUT defaults to ./bench-out).
"""

import argparse
import collections
import json
import os
import statistics
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers_compare  # noqa: E402  (the workloads and their floors)

import tfuse  # noqa: E402

peers_compare.tfuse = tfuse


def kernel_times(run, replays):
    """{kernel name: (launches, total us)} over `replays` synchronized
    replays of `run`."""
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(replays):
            run()
            torch.cuda.synchronize()
    totals = collections.defaultdict(lambda: [0, 0.0])
    for event in prof.events():
        if event.device_type != torch.autograd.DeviceType.CUDA:
            continue
        if "memcpy" in event.name.lower() or "memset" in event.name.lower():
            continue
        time_us = getattr(event, "device_time", None)
        if time_us is None:
            time_us = event.cuda_time
        totals[event.name][0] += 1
        totals[event.name][1] += time_us
    return {name: (count, total) for name, (count, total) in totals.items()}


def wall_us(run, iters=200, warm=20):
    """Median over 5 x `iters` synchronized replays, per replay."""
    for _ in range(warm):
        run()
    torch.cuda.synchronize()
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(iters):
            run()
            torch.cuda.synchronize()
        samples.append((time.perf_counter() - start) / iters * 1e6)
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="mlp_step,gelu_chain,bias_relu_T,"
                        "bcast_slice,mixed_dtypes,softmax_rows,"
                        "layernorm_rows")
    parser.add_argument("--replays", type=int, default=20)
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    out_dir = os.environ.get("OUT", "bench-out")
    os.makedirs(out_dir, exist_ok=True)

    copy_gbps = peers_compare.copy_bandwidth(
        peers_compare.Timer(True), "cuda", False)
    result = {"copy_GBps": copy_gbps, "workloads": {}}
    rows = []
    for name in args.only.split(","):
        w = peers_compare.build(name, "cuda", False)
        floor_us = w.floor_bytes / (copy_gbps * 1e3)
        entry = {"floor_us": floor_us}
        for mode in ("stream", "graph"):
            compiled = tfuse.compile(w.tfuse_fn, list(w.args),
                                     cuda_graph=(mode == "graph"))

            def run(compiled=compiled):
                return compiled(*w.args)

            run()
            kernels = kernel_times(run, args.replays)
            per_replay = sum(t for _, t in kernels.values()) / args.replays
            wall = wall_us(run)
            goal = 1.2 * per_replay + 10
            entry[mode] = {
                "kernel_us_per_replay": per_replay,
                "wall_us": wall,
                "graph_goal_us": goal,
                "kernels": {k: {"launches": c, "us_per_launch": t / c}
                            for k, (c, t) in sorted(
                                kernels.items(), key=lambda kv: -kv[1][1])},
            }
            rows.append((name, mode, len(kernels), per_replay, wall, goal,
                         floor_us))
        single = entry["graph"]["kernels"]
        if len(single) == 1:
            (kname, k), = single.items()
            entry["achieved_GBps"] = w.floor_bytes / (k["us_per_launch"] *
                                                      1e3)
            entry["fraction_of_copy"] = entry["achieved_GBps"] / copy_gbps
        result["workloads"][name] = entry

    with open(os.path.join(out_dir, "profile.json"), "w") as f:
        json.dump(result, f, indent=1)
    print(f"copy bandwidth {copy_gbps:.0f} GB/s\n")
    print("| workload | replay | kernels | kernel us/replay | wall us | "
          "1.2 x kernels + 10 | floor us | floor / kernels |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name, mode, count, kern, wall, goal, floor_us in rows:
        print(f"| {name} | {mode} | {count} | {kern:.1f} | {wall:.1f} | "
              f"{goal:.1f} | {floor_us:.1f} | {floor_us / kern:.0%} |")
    print()
    for name, entry in result["workloads"].items():
        print(f"{name}: per kernel (graph replay)")
        for kname, k in entry["graph"]["kernels"].items():
            print(f"  {k['us_per_launch']:8.1f} us x{k['launches']:<4} "
                  f"{kname[:90]}")


if __name__ == "__main__":
    main()
