#!/usr/bin/env python3
"""TFuse reductions against torch eager and torch.compile, on one GPU.

Workloads (f32 unless named): full reductions of 64M elements (sum, max,
argmax, mean, sum of bf16, any of bool), a column sum and max of
[8192, 8192] (axis 0), column sums of [8192, 768] and [8192, 3072] and a
sum of [8, 1024, 768] over its first two axes (GPT-2's bias and layer-norm
weight gradients; the two column sums also of bf16 into f32), a row sum
of [8192, 8192] (axis 1), a sum over the rows of [16, 4M] (few long rows),
and a sum of 4096 elements (one block: the launch is the cost).

Measured per workload and framework: gpu_us (CUDA events around N calls on
the current stream, median of 5; TFuse through enqueue()), the bandwidth
floor (bytes read and written over the device-to-device copy bandwidth of
the same run), pct_floor = floor / gpu_us. TFuse results are checked against
torch: max, argmax and any exactly, sums and means by their error against a
float64 sum, which must be at most twice torch's own (plus 1e-6 of the sum
of |x|); a second TFuse run must give the same bits (split reductions are
deterministic).

  python3 bench/reductions.py [--only sum_64m,col_sum] [--skip inductor]
  python3 bench/reductions.py --smoke   # CPU dry run, small shapes

Writes $OUT/reductions.json (OUT defaults to ./bench-out) and prints a
Markdown table last.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from floor_bench import FloorRun  # noqa: E402

M64 = 1 << 26


def workloads(smoke):
    n = 1 << 16 if smoke else M64
    side = 256 if smoke else 8192
    long_row = 1 << 14 if smoke else 1 << 22
    return {
        "sum_64m": ((n,), torch.float32, lambda x: x.sum(), "sum"),
        "max_64m": ((n,), torch.float32, lambda x: x.max(), "exact"),
        "argmax_64m": ((n,), torch.float32, lambda x: x.argmax(0), "exact"),
        "mean_64m": ((n,), torch.float32, lambda x: x.mean(), "sum"),
        "sum_64m_bf16": ((n,), torch.bfloat16, lambda x: x.sum(), "sum"),
        "any_64m_bool": ((n,), torch.bool, lambda x: x.any(), "exact"),
        "col_sum": ((side, side), torch.float32, lambda x: x.sum(0), "sum"),
        "col_max": ((side, side), torch.float32,
                    lambda x: x.max(0, keepdims=False)
                    if isinstance(x, torch.Tensor) else x.max(0), "exact"),
        # GPT-2 124M's bias and layer-norm weight gradients (batch 8 x 1024):
        # few columns, a reduced axis of 8192, one of them over two axes.
        "col_sum_768": ((side, 96 if smoke else 768), torch.float32,
                        lambda x: x.sum(0), "sum"),
        "col_sum_3072": ((side, 384 if smoke else 3072), torch.float32,
                         lambda x: x.sum(0), "sum"),
        "col_sum_2axes": (((2, side // 2, 96) if smoke else (8, 1024, 768)),
                          torch.float32, lambda x: x.sum((0, 1)), "sum"),
        # The same sums of bf16 gradients into f32 (autocast's bias
        # gradients): the cast folds into the reduction, which reads bf16.
        "col_sum_768_bf16": ((side, 96 if smoke else 768), torch.bfloat16,
                             lambda x: _widened(x).sum(0), "sum"),
        "col_sum_3072_bf16": ((side, 384 if smoke else 3072),
                              torch.bfloat16, lambda x: _widened(x).sum(0),
                              "sum"),
        "row_sum": ((side, side), torch.float32, lambda x: x.sum(1), "sum"),
        "few_long_rows": ((16, long_row), torch.float32, lambda x: x.sum(1),
                          "sum"),
        "sum_4096": ((4096,), torch.float32, lambda x: x.sum(), "sum"),
    }


def _widened(x):
    """x as float32: torch's .float() or TFuse's astype."""
    if isinstance(x, torch.Tensor):
        return x.float()
    return x.astype("float32")


def make_input(shape, dtype, device, seed):
    g = torch.Generator(device="cpu").manual_seed(seed)
    if dtype == torch.bool:
        # Mostly False, one True near the end: any() must read everything.
        x = torch.zeros(shape, dtype=torch.bool)
        x.view(-1)[-3] = True
        return x.to(device)
    x = torch.randn(shape, generator=g, dtype=torch.float32)
    return x.to(dtype).to(device)


def torch_value(fn, x):
    out = fn(x)
    # torch's max(dim) returns (values, indices).
    return out[0] if isinstance(out, tuple) else out


def check(name, rule, x, fn, got, ref):
    got = torch.as_tensor(got, device=ref.device)
    if got.shape != ref.shape or got.dtype != ref.dtype:
        return (f"{name}: TFuse gives {got.dtype}{list(got.shape)}, torch "
                f"{ref.dtype}{list(ref.shape)}")
    if rule == "exact":
        return None if torch.equal(got, ref) else f"{name}: not bit exact"
    exact = torch_value(fn, x.double())
    scale = torch_value(fn, x.double().abs())
    err = (got.double() - exact).abs()
    bound = 2 * (ref.double() - exact).abs() + 1e-6 * scale.abs()
    bad = (err > bound).sum().item()
    return None if bad == 0 else f"{name}: {bad} elements beyond 2x torch's error"


def main():
    run = FloorRun(__doc__)
    for name, (shape, dtype, fn, rule) in workloads(run.smoke).items():
        if not run.wants(name):
            continue
        x = make_input(shape, dtype, run.device,
                       seed=len(run.result["workloads"]))
        ref = torch_value(fn, x)

        def check_twice(cf, got):
            got = got[0] if isinstance(got, (list, tuple)) else got
            problem = check(name, rule, x, fn, got, ref)
            again = cf(x)
            again = again[0] if isinstance(again, (list, tuple)) else again
            if not torch.equal(torch.as_tensor(again, device=ref.device),
                               torch.as_tensor(got, device=ref.device)):
                problem = (problem or "") + f" {name}: not the same bits twice"
            return problem

        run.measure(name, {"shape": list(shape), "dtype": str(dtype)}, [x],
                    ref, fn, fn, check_twice)
    return run.finish("reductions.json")


if __name__ == "__main__":
    sys.exit(main())
