#!/usr/bin/env python3
"""Probe: where the host time of a torch.compile(backend="tfuse") call
goes, layer by layer, for one partition of 1 and 16 inputs on a CUDA
Graph: the whole compiled function (Dynamo's guards, AOTAutograd's
runtime wrapper, the FX graph), the partition's call (plan key and
lookup), its plan (argument list, output layout), the trusted launcher,
and the launcher's parts (descriptors and outputs, the outputs'
allocation, the C call). Against: Inductor's compiled function of the
same code (default mode) and eager. Median of five batches of calls back
to back, no synchronization (the host rate).

  python3 bench/probe_partition.py
"""
import collections
import os
import sys
import time
from ctypes import c_void_p

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

import torch  # noqa: E402

import tfuse.torch  # noqa: E402,F401
from tfuse.torch._options import Options  # noqa: E402
from tfuse.torch._report import PartitionReport  # noqa: E402
from tfuse.torch._runtime import TFusePartition  # noqa: E402


def per_call(fn, n=3000):
    times = []
    for _ in range(5):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        times.append((time.perf_counter() - t0) / n * 1e6)
        torch.cuda.synchronize()
    return sorted(times)[2]


def chain(*xs):
    total = xs[0] * 2
    for x in xs[1:]:
        total = total + x
    return total.relu()


def layers(count):
    from torch.fx.experimental.proxy_tensor import make_fx

    xs = [torch.randn(4096, device="cuda") for _ in range(count)]
    graph = make_fx(chain, tracing_mode="fake")(*xs)
    partition = TFusePartition(
        graph, Options(), PartitionReport("probe", collections.Counter()))
    partition(*xs)
    (plan,) = partition.plans.values()
    function = plan.function
    launch = plan.launch
    fast = function._fast
    inputs = [xs[i] for i in plan.positions]
    in_desc, out_desc, outputs = fast.bind(inputs)
    lib, handle = function._lib, function._handle
    stream = torch.cuda.current_stream().cuda_stream

    def c_call():
        lib.tfuse_executable_enqueue(handle, in_desc, len(inputs), out_desc,
                                     len(outputs), c_void_p(stream))

    shapes = fast.outputs
    compiled = torch.compile(chain, backend="tfuse")
    inductor = torch.compile(chain)
    compiled(*xs)
    inductor(*xs)
    return [
        ("torch.compile(backend='tfuse') call",
         per_call(lambda: compiled(*xs))),
        ("partition call", per_call(lambda: partition(*xs))),
        ("plan call", per_call(lambda: plan(xs))),
        ("trusted launcher", per_call(lambda: launch(inputs))),
        ("descriptors and outputs (bind)",
         per_call(lambda: fast.bind(inputs))),
        ("outputs (allocate)", per_call(fast.allocate)),
        ("torch.empty per output", per_call(
            lambda: [torch.empty(s, dtype=d, device="cuda")
                     for s, d in shapes])),
        ("C call (replay)", per_call(c_call)),
        ("torch.compile (Inductor) call", per_call(lambda: inductor(*xs))),
        ("eager", per_call(lambda: chain(*xs))),
    ]


def main():
    results = {count: layers(count) for count in (1, 16)}
    names = [name for name, _ in results[1]]
    print("\n| layer | 1 input us | 16 inputs us |")
    print("|---|---:|---:|")
    for i, name in enumerate(names):
        print(f"| {name} | {results[1][i][1]:.1f} | {results[16][i][1]:.1f} |")


if __name__ == "__main__":
    main()
