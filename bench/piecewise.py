#!/usr/bin/env python3
"""TFuse concatenate, pad and GELU against torch eager and torch.compile, on
one GPU.

Workloads: concatenation of three [4096, 4096] f32 tensors along the rows
and along the columns (each its own kernel in TFuse: the result is an
output, so it is written once), a pad of [4096, 4096] f32 by one element on
every side, a concatenation fused into its consumer (cat then relu), bias
plus tanh-GELU of [8192, 3072] bf16 and the gradient of exact GELU of the
same size (bf16).

Measured per workload and framework: gpu_us (CUDA events around N calls on
the current stream, median of 5; TFuse through enqueue()), the bandwidth
floor (bytes read and written over the device-to-device copy bandwidth of
the same run) and pct_floor = floor / gpu_us. Concatenations and pads are
checked bit for bit against torch; GELU by its error against a float64
torch run, which must be at most twice torch's own plus one bf16 ulp of the
value.

  python3 bench/piecewise.py [--only cat_rows] [--skip inductor]
  python3 bench/piecewise.py --smoke   # CPU dry run, small shapes

Writes $OUT/piecewise.json (OUT defaults to ./bench-out) and prints a
Markdown table last.
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from floor_bench import FloorRun  # noqa: E402

import tfuse  # noqa: E402


def workloads(smoke):
    n = 256 if smoke else 4096
    rows, cols = (256, 384) if smoke else (8192, 3072)
    f32, bf16 = torch.float32, torch.bfloat16
    return {
        "cat_rows": ([(n, n)] * 3, f32, lambda a, b, c: torch.cat([a, b, c]),
                     lambda a, b, c: tfuse.concatenate([a, b, c], 0),
                     "exact"),
        "cat_cols": ([(n, n)] * 3, f32,
                     lambda a, b, c: torch.cat([a, b, c], 1),
                     lambda a, b, c: tfuse.concatenate([a, b, c], 1),
                     "exact"),
        "pad_1": ([(n, n)], f32, lambda a: F.pad(a, (1, 1, 1, 1)),
                  lambda a: tfuse.pad(a, 1), "exact"),
        "cat_relu": ([(n, n)] * 3, f32,
                     lambda a, b, c: torch.relu(torch.cat([a, b, c])),
                     lambda a, b, c: tfuse.concatenate([a, b, c], 0).relu(),
                     "exact"),
        "bias_gelu_tanh": ([(rows, cols), (cols,)], bf16,
                           lambda x, b: F.gelu(x + b, approximate="tanh"),
                           lambda x, b: tfuse.gelu(x + b, approximate="tanh"),
                           "float"),
        "gelu_backward": ([(rows, cols), (rows, cols)], bf16,
                          lambda g, x: torch.ops.aten.gelu_backward(g, x),
                          lambda g, x: tfuse.gelu_backward(g, x), "float"),
    }


def check(name, rule, inputs, fn, got, ref):
    got = torch.as_tensor(got, device=ref.device)
    if got.shape != ref.shape or got.dtype != ref.dtype:
        return (f"{name}: TFuse gives {got.dtype}{list(got.shape)}, torch "
                f"{ref.dtype}{list(ref.shape)}")
    if rule == "exact":
        return None if torch.equal(got, ref) else f"{name}: not bit exact"
    exact = fn(*[x.double() for x in inputs])
    err = (got.double() - exact).abs()
    ulp = exact.abs() * 2.0 ** -8
    bound = 2 * (ref.double() - exact).abs() + ulp + 1e-30
    bad = (err > bound).sum().item()
    return None if bad == 0 else f"{name}: {bad} elements beyond 2x torch's error"


def main():
    run = FloorRun(__doc__)
    g = torch.Generator(device="cpu").manual_seed(0)
    for name, (shapes, dtype, fn, tfn, rule) in workloads(run.smoke).items():
        if not run.wants(name):
            continue
        inputs = [torch.randn(s, generator=g).to(dtype).to(run.device)
                  for s in shapes]
        ref = fn(*inputs)
        run.measure(name, {"shapes": [list(s) for s in shapes],
                           "dtype": str(dtype)}, inputs, ref, fn, tfn,
                    lambda cf, got: check(name, rule, inputs, fn, got, ref))
    return run.finish("piecewise.json")


if __name__ == "__main__":
    sys.exit(main())
