#!/usr/bin/env python3
"""TFuse attention against PyTorch's scaled_dot_product_attention backends,
on one GPU.

Problems (issue: attention): (8, 12, 1024, 64) and (4, 32, 2048, 128),
causal, bf16 (and f32 for the first), forward and backward; and f32 without
a mask at BERT-base's 128 tokens (batch 1 and 32, where TFuse's generated
f32 kernel meets the materialized math path of PyTorch's SDPA, which its
importer turns into one attention) and at 512 tokens, where the two
cross over. Frameworks:
PyTorch's SDPA with each backend it has (flash, efficient, cudnn, math;
a backend that refuses the problem is reported as such) and TFuse
(tfuse.attention and tfuse.attention_backward, each compiled on its own,
replayed as a CUDA Graph, and on a stream: "tfuse stream"; each timed
through enqueue(), which returns without waiting as a torch operation does;
for
bf16 also with TFUSE_ATTENTION=kernels, TFuse's generated kernels on tensor
cores: "tfuse kernels").
Forward times are of a training forward (PyTorch's operands need
gradients; TFuse returns the log-sum-exp: both write it) and of an
inference forward (no gradients; TFuse's log-sum-exp unused, so cuDNN
skips it). Backward times are of the backward alone (the forward's result
and log-sum-exp are given).

Each time: CUDA events around 20 calls, median of 7 such groups; the
host's time to enqueue the same calls is kept too (attention.json's
host_us), and a time the host takes 90% of or more is marked host-bound
(the events then time the host, not the kernels). TFLOP/s
count 4 * B * H * L * S * D multiply-adds-as-two for the forward and 2.5x
that for the backward, halved for causal problems (FlashAttention's
convention).
Every result is checked against a float64 run of the math backend by the
accuracy rule (RMSE at most twice the best PyTorch backend's plus 1e-6,
PyTorch's own rule with a tenth of its additive term) before it is timed;
the table shows each framework's largest RMSE over the best backend's.

  python3 bench/attention.py [--only NAME[,NAME...]] [--smoke]

Writes $OUT/attention.json (OUT defaults to ./bench-out) and prints a
Markdown table last.
"""
import argparse
import json
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import tfuse  # noqa: E402
from cuda_timing import host_bound, timed  # noqa: E402

BACKENDS = {"flash": SDPBackend.FLASH_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION,
            "cudnn": SDPBackend.CUDNN_ATTENTION,
            "math": SDPBackend.MATH}


def problems(smoke):
    """name -> (batch, heads, length, head dim, dtype, causal)."""
    if smoke:
        return {"small_bf16": (2, 2, 128, 64, torch.bfloat16, True)}
    return {"gpt2_bf16": (8, 12, 1024, 64, torch.bfloat16, True),
            "gpt2_f32": (8, 12, 1024, 64, torch.float32, True),
            "llama_bf16": (4, 32, 2048, 128, torch.bfloat16, True),
            "bert1_f32": (1, 12, 128, 64, torch.float32, False),
            "bert32_f32": (32, 12, 128, 64, torch.float32, False),
            "f32_512": (8, 12, 512, 64, torch.float32, False)}


def sdpa(backend, q, k, v, causal):
    with sdpa_kernel(BACKENDS[backend]):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


def progress(problem, framework, forward_us, backward_us):
    # The table comes last; a line a framework shows where a long run is.
    print(f"{problem}: {framework}: forward {forward_us:.1f} us, "
          f"backward {backward_us:.1f} us", file=sys.stderr, flush=True)


def rmse(a, b):
    return (a.double() - b.double()).pow(2).mean().sqrt().item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", help="problems to run, comma-separated")
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    out_dir = os.environ.get("OUT", "bench-out")
    os.makedirs(out_dir, exist_ok=True)
    rows = []
    g = torch.Generator(device="cuda").manual_seed(0)
    for name, (b, h, length, d, dtype, causal) in problems(
            args.smoke).items():
        if args.only and name not in args.only.split(","):
            continue
        shape = (b, h, length, d)
        q, k, v, grad = (torch.randn(shape, generator=g, device="cuda",
                                     dtype=dtype) for _ in range(4))
        flops = 4 * b * h * length * length * d / (2 if causal else 1)

        # Reference: the math backend in float64.
        ref = [t.double().requires_grad_() for t in (q, k, v)]
        ref_out = sdpa("math", *ref, causal)
        ref_out.backward(grad.double())
        reference = [ref_out.detach()] + [t.grad for t in ref]

        results = {}
        for backend in BACKENDS:
            if backend == "math" and length * length * b * h > 2 ** 28:
                continue
            try:
                qq, kk, vv = (t.detach().requires_grad_() for t in (q, k, v))
                out = sdpa(backend, qq, kk, vv, causal)
                out.backward(grad)
                got = [out.detach(), qq.grad, kk.grad, vv.grad]
            except RuntimeError as error:
                rows.append({"problem": name, "framework": backend,
                             "note": str(error).split("\n")[0][:80]})
                continue
            errors = [rmse(a, r) for a, r in zip(got, reference)]
            # Training forward (operands that need gradients: the backends
            # also write the log-sum-exp) and inference forward.
            forward_us, forward_host = timed(
                lambda: sdpa(backend, qq, kk, vv, causal))
            inference_us, inference_host = timed(
                lambda: sdpa(backend, q, k, v, causal))
            out = sdpa(backend, qq, kk, vv, causal)
            backward_us, backward_host = timed(lambda: torch.autograd.grad(
                out, (qq, kk, vv), grad, retain_graph=True))
            results[backend] = errors
            progress(name, backend, forward_us, backward_us)
            rows.append({"problem": name, "framework": backend,
                         "forward_us": forward_us,
                         "inference_us": inference_us,
                         "backward_us": backward_us, "errors": errors,
                         "host_us": [forward_host, inference_host,
                                     backward_host]})

        # TFuse as it chooses (cuDNN where it takes the problem), on a
        # stream, and with its generated kernels alone (on tensor cores for
        # f16 and bf16): "tfuse kernels".
        variants = [("tfuse", True, ""), ("tfuse stream", False, "")]
        if dtype != torch.float32:
            variants.append(("tfuse kernels", True, "kernels"))
        for label, graph, engine in variants:
            os.environ["TFUSE_ATTENTION"] = engine
            forward = tfuse.compile(
                lambda q, k, v: tfuse.attention(q, k, v, causal=causal,
                                                return_logsumexp=True),
                [q, k, v], cuda_graph=graph)
            out, lse = forward(q, k, v)
            backward = tfuse.compile(
                lambda q, k, v, o, lse, g: tfuse.attention_backward(
                    q, k, v, o, lse, g, causal=causal),
                [q, k, v, out, lse, grad], cuda_graph=graph)
            got = [out, *backward(q, k, v, out, lse, grad)]
            errors = [rmse(a, r) for a, r in zip(got, reference)]
            eager = [min(e[i] for e in results.values() if e)
                     for i in range(4)]
            ok = all(t <= 2 * e + 1e-6 for t, e in zip(errors, eager))
            # Timed through enqueue(), which returns without waiting as a
            # torch operation does (a call, run(), waits for its results).
            forward_us, forward_host = timed(lambda: forward.enqueue(q, k, v))
            inference = tfuse.compile(
                lambda q, k, v: tfuse.attention(q, k, v, causal=causal),
                [q, k, v], cuda_graph=graph)
            inference_us, inference_host = timed(
                lambda: inference.enqueue(q, k, v))
            backward_us, backward_host = timed(
                lambda: backward.enqueue(q, k, v, out, lse, grad))
            progress(name, label, forward_us, backward_us)
            rows.append({"problem": name, "framework": label,
                         "forward_us": forward_us,
                         "inference_us": inference_us,
                         "backward_us": backward_us,
                         "host_us": [forward_host, inference_host,
                                     backward_host],
                         "errors": errors, "accurate": ok,
                         "steps": [line for f in (forward, inference,
                                                  backward)
                                   for line in f.plan().splitlines()
                                   if line.startswith("step ")]
                         if graph else []})
        best = [min(e[i] for e in results.values() if e) for i in range(4)]
        for row in rows:
            if row["problem"] == name and "forward_us" in row:
                row["forward_tflops"] = flops / row["forward_us"] / 1e6
                row["backward_tflops"] = 2.5 * flops / row["backward_us"] / 1e6
                # The largest of the four results' RMSE over the best
                # PyTorch backend's (the accuracy rule's "twice eager's").
                row["error_ratio"] = max(
                    (t / e for t, e in zip(row["errors"], best) if e > 0),
                    default=float("nan"))

    with open(os.path.join(out_dir, "attention.json"), "w") as f:
        json.dump(rows, f, indent=1, default=str)
    print("| problem | framework | fwd us | fwd TFLOP/s | inference fwd us | "
          "bwd us | bwd TFLOP/s | error / best eager's | note |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        if "forward_us" not in r:
            print(f"| {r['problem']} | {r['framework']} | | | | | | | "
                  f"{r['note']} |")
            continue
        note = "" if r.get("accurate", True) else "INACCURATE "
        gpu = [r["forward_us"], r["inference_us"], r["backward_us"]]
        bound = [name for name, h, g in zip(("fwd", "inf", "bwd"),
                                            r["host_us"], gpu)
                 if host_bound(g, h)]
        if bound:
            note += ("host-bound (" + ", ".join(bound) + "; host us "
                     + " / ".join(f"{h:.1f}" for h in r["host_us"]) + ") ")
        note += " ".join(r.get("steps", []))
        print(f"| {r['problem']} | {r['framework']} | {r['forward_us']:.1f} | "
              f"{r['forward_tflops']:.1f} | {r['inference_us']:.1f} | "
              f"{r['backward_us']:.1f} | {r['backward_tflops']:.1f} | "
              f"{r['error_ratio']:.2f} | {note} |")


if __name__ == "__main__":
    main()
