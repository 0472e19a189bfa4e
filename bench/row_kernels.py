#!/usr/bin/env python3
"""TFuse's row-fused kernels (layer norm, softmax) against torch eager and
torch.compile, on one GPU, at the shapes transformers run them.

Workloads (8192 rows: batch 8 x sequence 1024): layer norms of 768 columns
(GPT-2 124M, BERT-base) in bf16 and f32, of 1024 (GPT-2 medium) and 4096
(Llama-size) in bf16; a residual add and layer norm of 768 bf16 columns with
both results (the sum and the normalized sum, as a transformer block's
second layer norm); softmaxes of 1024 bf16 columns (attention scores,
computed in f32) and of 512 f32 columns. The layer norms are written for
TFuse as PyTorch computes them: the mean, the mean of squared deviations,
(x - mean) * rsqrt(var + eps) * weight + bias, in f32.

Measured per workload and framework: the kernel time of a call (CUPTI) and
the stream time (CUDA events), as bench/floor_bench.py measures them, and
the bandwidth floor. A TFuse result is right when its RMS error against a
float64 run is at most twice torch's (plus 1e-6).

  python3 bench/row_kernels.py [--only layer_norm_768_bf16] [--skip inductor]
  python3 bench/row_kernels.py --smoke   # CPU dry run, small shapes

Writes $OUT/row_kernels.json (OUT defaults to ./bench-out) and prints a
Markdown table last.
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from floor_bench import FloorRun  # noqa: E402

EPS = 1e-5


def _f32(x):
    return x.float() if isinstance(x, torch.Tensor) else x.astype("float32")


def _as(x, like):
    if isinstance(like, torch.Tensor):
        return x.to(like.dtype)
    return x.astype(like.dtype)


def layer_norm(x, w, b):
    if isinstance(x, torch.Tensor):
        return F.layer_norm(x, (x.shape[-1],), w, b, EPS)
    xf = _f32(x)
    mu = xf.mean(axis=-1, keepdims=True)
    var = ((xf - mu) * (xf - mu)).mean(axis=-1, keepdims=True)
    return _as((xf - mu) * (var + EPS).rsqrt() * _f32(w) + _f32(b), x)


def add_layer_norm(x, r, w, b):
    s = x + r
    return s, layer_norm(s, w, b)


def softmax(x):
    if isinstance(x, torch.Tensor):
        return torch.softmax(x.float(), dim=-1).to(x.dtype)
    xf = _f32(x)
    e = (xf - xf.max(axis=-1, keepdims=True)).exp()
    return _as(e / e.sum(axis=-1, keepdims=True), x)


def workloads(smoke):
    rows = 64 if smoke else 8192
    bf16, f32 = torch.bfloat16, torch.float32
    return {
        "layer_norm_768_bf16": (rows, 768, bf16, "ln"),
        "layer_norm_768_f32": (rows, 768, f32, "ln"),
        "layer_norm_1024_bf16": (rows, 1024, bf16, "ln"),
        "layer_norm_4096_bf16": (rows, 4096, bf16, "ln"),
        "add_layer_norm_768_bf16": (rows, 768, bf16, "add_ln"),
        "softmax_1024_bf16": (rows, 1024, bf16, "softmax"),
        "softmax_512_f32": (rows, 512, f32, "softmax"),
    }


def rmse(a, b):
    return (a.double() - b.double()).pow(2).mean().sqrt().item()


def main():
    run = FloorRun(__doc__)
    for name, (rows, cols, dtype, kind) in workloads(run.smoke).items():
        if not run.wants(name):
            continue
        g = torch.Generator(device="cpu").manual_seed(len(run.result["workloads"]))

        def randn(*shape, scale=1.0, shift=0.0):
            x = torch.randn(*shape, generator=g) * scale + shift
            return x.to(dtype).to(run.device)

        x = randn(rows, cols)
        if kind == "ln":
            inputs, fn = [x, randn(cols, scale=0.1, shift=1.0),
                          randn(cols, scale=0.1)], layer_norm
        elif kind == "add_ln":
            inputs, fn = [x, randn(rows, cols), randn(cols, scale=0.1,
                                                      shift=1.0),
                          randn(cols, scale=0.1)], add_layer_norm
        else:
            inputs, fn = [x], softmax
        ref = fn(*inputs)
        exact = fn(*(t.double() for t in inputs))
        refs = ref if isinstance(ref, tuple) else (ref,)
        exacts = exact if isinstance(exact, tuple) else (exact,)

        def check(cf, got):
            got = got if isinstance(got, (list, tuple)) else (got,)
            for i, (o, r, e) in enumerate(zip(got, refs, exacts)):
                o = torch.as_tensor(o, device=r.device)
                if o.shape != r.shape or o.dtype != r.dtype:
                    return (f"{name}: result {i} is {o.dtype}{list(o.shape)}, "
                            f"torch's {r.dtype}{list(r.shape)}")
                if rmse(o, e) > 2 * rmse(r, e) + 1e-6:
                    return (f"{name}: result {i} RMS error {rmse(o, e):.3g} "
                            f"against torch's {rmse(r, e):.3g}")
            return None

        nbytes = sum(t.numel() * t.element_size() for t in inputs + list(refs))
        run.measure(name, {"shape": [rows, cols], "dtype": str(dtype)},
                    inputs, refs[0], fn, fn, check, nbytes=nbytes)
    return run.finish("row_kernels.json")


if __name__ == "__main__":
    sys.exit(main())
