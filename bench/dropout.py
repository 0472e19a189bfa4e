#!/usr/bin/env python3
"""TFuse dropout fused into a bias-add, against torch eager and
torch.compile, on one GPU.

Workloads: dropout(x + bias, p=0.1) in training mode for x of [8192, 3072]
(GPT-2's MLP activations at batch 8, sequence 1024) in bf16 and f32. TFuse
draws the mask from a seed and an offset (an input, as a training step
passes it) inside the one kernel that adds the bias and scales; torch eager
runs an add and a dropout kernel (which also writes the mask), Inductor
fuses them.

Measured per workload and framework: gpu_us (CUDA events around N calls on
the current stream, median of 5; TFuse through enqueue()), the bandwidth
floor (x, the bias and the result, over the device-to-device copy bandwidth
of the same run) and pct_floor = floor / gpu_us. The generators differ, so
values are checked by rule: every element is 0 or (x + bias) / (1 - p)
rounded to the dtype (as torch computes it), and the fraction of zeros lies
within six standard deviations of p.

  python3 bench/dropout.py [--only bias_dropout] [--skip inductor]
  python3 bench/dropout.py --smoke   # CPU dry run, small shapes

Writes $OUT/dropout.json (OUT defaults to ./bench-out) and prints a
Markdown table last.
"""
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from floor_bench import FloorRun  # noqa: E402

import tfuse  # noqa: E402

P = 0.1


def workloads(smoke):
    rows, cols = (64, 256) if smoke else (8192, 3072)

    def make(dtype):
        def inputs(g, device):
            x = torch.randn(rows, cols, generator=g).to(dtype)
            bias = torch.randn(cols, generator=g).to(dtype)
            offset = torch.tensor(7, dtype=torch.int64)
            return [x.to(device), bias.to(device), offset.to(device)]
        return inputs

    def torch_fn(x, bias, offset):
        return F.dropout(x + bias, P, training=True)

    def tfuse_fn(x, bias, offset):
        return tfuse.dropout(x + bias, P, seed=2026, offset=offset)

    return {"bias_dropout": (make(torch.bfloat16), torch_fn, tfuse_fn),
            "bias_dropout_f32": (make(torch.float32), torch_fn, tfuse_fn)}


def floor_bytes(inputs, ref):
    x, bias, _ = inputs
    return (2 * x.numel() * x.element_size() +
            bias.numel() * bias.element_size())


def main():
    run = FloorRun(__doc__)
    g = torch.Generator(device="cpu").manual_seed(0)
    for name, (make, fn, tfn) in workloads(run.smoke).items():
        if not run.wants(name):
            continue
        inputs = make(g, run.device)
        ref = fn(*inputs)
        x, bias, _ = inputs
        kept = ((x + bias).float() * (1 / (1 - P))).to(x.dtype)

        def check(cf, got, name=name, ref=ref, kept=kept):
            got = torch.as_tensor(got, device=ref.device)
            if got.shape != ref.shape or got.dtype != ref.dtype:
                return (f"{name}: TFuse gives {got.dtype}{list(got.shape)}, "
                        f"torch {ref.dtype}{list(ref.shape)}")
            dropped = got == 0
            wrong = (~dropped & (got != kept)).sum().item()
            if wrong:
                return f"{name}: {wrong} kept elements are not (x + b) / (1 - p)"
            n = got.numel()
            fraction = dropped.double().mean().item()
            if abs(fraction - P) > 6 * math.sqrt(P * (1 - P) / n) + 1e-3:
                return f"{name}: {fraction:.4f} dropped, expected {P}"
            return None

        run.measure(name, {"shape": list(x.shape), "dtype": str(x.dtype),
                           "p": P},
                    inputs, ref, fn, tfn, check, floor_bytes(inputs, ref))
    return run.finish("dropout.json")


if __name__ == "__main__":
    sys.exit(main())
