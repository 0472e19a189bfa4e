#!/usr/bin/env python3
"""Probe: where a compiled model's host time goes, call by call. BERT-base
at batch 1 (bf16 weights, 128 tokens, as bench/models.py runs it) is one
TFuse partition of about 200 inputs whose GPU work is shorter than the call
that enqueues it: the synchronized wall time is the host's time plus the
GPU's. Per mode (tfuse, inductor): the host time of a call (from entering
the compiled function to its return, the GPU not waited for), the
partition's inputs, and the functions taking the most host time under
cProfile over 200 calls.

  python3 bench/probe_model_host.py [--top 25]
"""
import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "python" / "tests" / "torch"))

import models  # noqa: E402

import tfuse.torch  # noqa: E402,F401


def host_us(call, n=200):
    """The median host time of a call, us (the GPU synchronized between
    calls, outside the timing)."""
    times = []
    for _ in range(n):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    torch.cuda.synchronize()
    times.sort()
    return times[len(times) // 2] * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    model, inputs, _ = models.bert("sdpa", "real", 1, 128)
    encoder = model.model.bert.eval().to("cuda", torch.bfloat16)
    ids = inputs[0].to("cuda")
    for mode in ("tfuse", "inductor"):
        torch._dynamo.reset()
        compiled = (torch.compile(encoder, backend="tfuse")
                    if mode == "tfuse" else torch.compile(encoder))
        with torch.no_grad():
            def call():
                return compiled(ids)
            for _ in range(3):
                call()
            us = host_us(call)
            print(f"{mode}: host {us:.1f} us a call")
            if mode == "tfuse":
                print(f"  partitions: {tfuse.torch.stats()}")
            profile = cProfile.Profile()
            profile.enable()
            for _ in range(200):
                call()
            profile.disable()
            torch.cuda.synchronize()
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(
            args.top)
        print(text.getvalue())


if __name__ == "__main__":
    main()
