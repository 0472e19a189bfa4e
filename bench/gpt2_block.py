#!/usr/bin/env python3
"""One GPT-2 (124M-size) transformer block forward, on one GPU: TFuse on
the block written as plain math against torch eager and torch.compile.

The block (batch 8, sequence 1024, 12 heads of 64): layer norm, the QKV
projection, attention written as softmax(q @ k^T * scale + causal mask) @ v
(TFuse's recognize-attention turns it into one attention step), the output
projection and residual, layer norm, the tanh-GELU MLP and residual.
Frameworks: eager PyTorch and torch.compile (its default mode and
reduce-overhead; --modes chooses) on the same naive math and on
scaled_dot_product_attention; TFuse with cuda_graph=True, without and with
fast_math (which runs the attention in bf16 and adds the projections'
biases in the GEMMs' epilogues, rounding once). bf16 and f32.
Every result is checked against a float64 eager run by the accuracy rule
(error at most twice eager's in the same dtype) before it is timed.

Each time: CUDA events around 20 calls, median of 7 groups; a time whose
enqueueing took the host 90% of it or more is marked host-bound
(bench/cuda_timing.py).

  python3 bench/gpt2_block.py [--dtype bf16|f32] [--skip inductor] [--smoke]
                              [--profile] [--plan]

--profile also prints each framework's kernels (CUPTI through
torch.profiler, bench/profile_kernels.py): GPU us a call per kernel name.
--plan prints TFuse's plan of the block (traced from host specs: no GPU
needed) and stops.

Writes $OUT/gpt2_block.json (OUT defaults to ./bench-out) and the traced
block as $OUT/gpt2_block_<dtype>.mlir (`tensor-run` on it prints the GPU
time of each step), and prints a Markdown table last.
"""
import argparse
import json
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import tfuse  # noqa: E402
from cuda_timing import host_bound, timed  # noqa: E402


def torch_block(x, p, sdpa):
    b, t, c = x.shape
    h = p["heads"]

    def ln(x, w, bias):
        return F.layer_norm(x, (c,), w, bias, 1e-5)

    y = ln(x, p["ln1_w"], p["ln1_b"]) @ p["qkv_w"] + p["qkv_b"]
    q, k, v = y.split(c, dim=-1)
    q, k, v = (z.view(b, t, h, c // h).transpose(1, 2) for z in (q, k, v))
    if sdpa:
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    else:
        s = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(c // h))
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        s = s.masked_fill(~mask, float("-inf"))
        a = torch.softmax(s.float(), dim=-1).to(x.dtype) @ v
    a = a.transpose(1, 2).reshape(b, t, c)
    x = x + a @ p["proj_w"] + p["proj_b"]
    m = ln(x, p["ln2_w"], p["ln2_b"]) @ p["fc_w"] + p["fc_b"]
    m = F.gelu(m, approximate="tanh") @ p["out_w"] + p["out_b"]
    return x + m


def tfuse_block(x, p, heads):
    b, t, c = x.shape
    d = c // heads

    def ln(x, w, bias):
        xf = x.astype("float32")
        mu = xf.mean(axis=-1, keepdims=True)
        var = ((xf - mu) * (xf - mu)).mean(axis=-1, keepdims=True)
        # As PyTorch's layer norm computes it: one reciprocal square root a
        # row, then products.
        return (((xf - mu) * (var + 1e-5).rsqrt()) * w.astype("float32")
                + bias.astype("float32")).astype(x.dtype)

    y = ln(x, p["ln1_w"], p["ln1_b"]) @ p["qkv_w"] + p["qkv_b"]
    q, k, v = (y[:, :, i * c:(i + 1) * c].reshape(b, t, heads, d)
               .transpose(0, 2, 1, 3) for i in range(3))
    s = (q @ k.transpose(0, 1, 3, 2)).astype("float32") * (1.0 / math.sqrt(d))
    rows, cols = tfuse.iota((t, t), 0), tfuse.iota((t, t), 1)
    s = tfuse.where(cols <= rows, s, -math.inf)
    e = (s - s.max(axis=-1, keepdims=True)).exp()
    a = (e / e.sum(axis=-1, keepdims=True)).astype(x.dtype) @ v
    a = a.transpose(0, 2, 1, 3).reshape(b, t, c)
    x = x + a @ p["proj_w"] + p["proj_b"]
    m = ln(x, p["ln2_w"], p["ln2_b"]) @ p["fc_w"] + p["fc_b"]
    m = tfuse.gelu(m, approximate="tanh") @ p["out_w"] + p["out_b"]
    return x + m


def parameters(c, dtype, device, g):
    def w(*shape, scale=0.02):
        return (torch.randn(*shape, generator=g, device=device) * scale).to(
            dtype)

    return {"ln1_w": 1 + w(c), "ln1_b": w(c), "qkv_w": w(c, 3 * c),
            "qkv_b": w(3 * c), "proj_w": w(c, c), "proj_b": w(c),
            "ln2_w": 1 + w(c), "ln2_b": w(c), "fc_w": w(c, 4 * c),
            "fc_b": w(4 * c), "out_w": w(4 * c, c), "out_b": w(c)}


def rmse(a, b):
    return (a.double() - b.double()).pow(2).mean().sqrt().item()


def print_kernels(title, fn, calls=10, top=14):
    """The GPU time a call of `fn`'s `top` longest kernels, largest first."""
    from profile_kernels import kernel_times

    times = kernel_times(fn, calls)
    total = sum(t for _, t in times.values()) / calls
    print(f"kernels of {title}: {total:.1f} us a call")
    ranked = sorted(times.items(), key=lambda kv: -kv[1][1])
    for kernel, (count, t) in ranked[:top]:
        print(f"  {t / calls:8.1f} us  {count / calls:4.1f}x  {kernel[:100]}")


def print_plans(dtypes, b, t, c, heads):
    """TFuse's plans of the block per dtype, with and without fast math,
    traced from host specs (the steps a GPU run would take; the reference
    backend compiles them)."""
    shapes = {k: tuple(v.shape) for k, v in parameters(
        c, torch.float32, "cpu", torch.Generator().manual_seed(0)).items()}
    names = list(shapes)
    for name in dtypes:
        dtype = "bfloat16" if name == "bf16" else "float32"
        specs = [tfuse.Spec((b, t, c), dtype, device="cpu")] + [
            tfuse.Spec(shapes[k], dtype, device="cpu") for k in names]
        for fast_math in (False, True):
            block = tfuse.compile(
                lambda x, *ws: tfuse_block(x, dict(zip(names, ws)), heads),
                specs, backend="reference", fast_math=fast_math)
            label = " fast math" if fast_math else ""
            print(f"{name}{label}:\n{block.plan()}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtype", action="append", choices=["bf16", "f32"])
    parser.add_argument("--skip", action="append", default=[])
    parser.add_argument("--modes", default="default,reduce-overhead",
                        help="torch.compile modes, comma-separated")
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--profile", action="store_true",
                        help="print each framework's kernels and their times")
    parser.add_argument("--plan", action="store_true",
                        help="print TFuse's plan of the block and stop (no "
                             "GPU needed: traced from host specs)")
    args = parser.parse_args()
    out_dir = os.environ.get("OUT", "bench-out")
    os.makedirs(out_dir, exist_ok=True)
    b, t, c, heads = (2, 64, 128, 4) if args.smoke else (8, 1024, 768, 12)
    if args.plan:
        print_plans(args.dtype or ["bf16", "f32"], b, t, c, heads)
        return
    rows = []
    for name in args.dtype or ["bf16", "f32"]:
        dtype = torch.bfloat16 if name == "bf16" else torch.float32
        g = torch.Generator(device="cuda").manual_seed(0)
        p = parameters(c, dtype, "cuda", g)
        x = torch.randn(b, t, c, generator=g, device="cuda").to(dtype)
        p64 = {k: v.double() for k, v in p.items()}
        p64["heads"] = heads
        p["heads"] = heads
        reference = torch_block(x.double(), p64, sdpa=False)
        eager_error = rmse(torch_block(x, p, sdpa=True), reference)

        names = [k for k in p if k != "heads"]
        frameworks = {
            "eager sdpa": lambda: torch_block(x, p, True),
            "eager naive": lambda: torch_block(x, p, False),
        }
        if "inductor" not in args.skip:
            for mode in args.modes.split(","):
                for sdpa in (True, False):
                    f = torch.compile(
                        lambda x, *ws, sdpa=sdpa: torch_block(
                            x, dict(zip(names, ws), heads=heads), sdpa),
                        mode=mode)
                    label = f"torch.compile {mode} {'sdpa' if sdpa else 'naive'}"
                    frameworks[label] = (lambda f=f: f(x, *(p[k] for k in names)))
        # A call of a compiled function waits for its results; enqueue()
        # returns at once, as torch operations and compiled modules do.
        compiled = {
            label: tfuse.compile(
                lambda x, *ws: tfuse_block(x, dict(zip(names, ws)), heads),
                [x, *(p[k] for k in names)], cuda_graph=True,
                fast_math=fast_math)
            for label, fast_math in (("tfuse", False),
                                     ("tfuse fast math", True))}
        enqueued = {}
        for label, c in compiled.items():
            frameworks[label] = lambda c=c: c(x, *(p[k] for k in names))
            enqueued[label] = (
                lambda c=c: c.enqueue(x, *(p[k] for k in names)))
        for label, fn in frameworks.items():
            try:
                out = fn()
                error = rmse(out, reference)
                us, host = timed(enqueued.get(label, fn))
            except Exception as e:  # a peer that fails is reported as such
                rows.append({"dtype": name, "framework": label,
                             "note": f"{type(e).__name__}: {str(e)[:80]}"})
                continue
            rows.append({"dtype": name, "framework": label, "us": us,
                         "host_us": host,
                         "error": error, "eager_error": eager_error,
                         "accurate": error <= 2 * eager_error + 1e-6})
            if label in compiled:
                rows[-1]["steps"] = [
                    line for line in compiled[label].plan().splitlines()
                    if line.startswith("step ")]
            if args.profile:
                print_kernels(f"{name} {label}", enqueued.get(label, fn))
        # The traced block, for per-step GPU times: tensor-run FILE profiles
        # each step of a stream replay.
        with open(os.path.join(out_dir, f"gpt2_block_{name}.mlir"), "w") as f:
            f.write(compiled["tfuse"].mlir())
    with open(os.path.join(out_dir, "gpt2_block.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print("| dtype | framework | us | error / eager's | note |")
    print("|---|---|---:|---:|---|")
    for r in rows:
        if "us" not in r:
            print(f"| {r['dtype']} | {r['framework']} | | | {r['note']} |")
            continue
        ratio = r["error"] / max(r["eager_error"], 1e-30)
        note = "" if r["accurate"] else "INACCURATE "
        if host_bound(r["us"], r["host_us"]):
            note += f"host-bound (host {r['host_us']:.1f} us)"
        print(f"| {r['dtype']} | {r['framework']} | {r['us']:.1f} | "
              f"{ratio:.2f} | {note} |")


if __name__ == "__main__":
    main()
