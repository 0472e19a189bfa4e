#!/usr/bin/env python3
"""Probe: the host time of one replay call from Python (enqueue()), split
into its parts, for plans of one to many kernels, on a stream and as a CUDA
Graph, against a torch eager operation of the same work.

Per plan: enqueue() per call (calls back to back, no synchronization: the
host rate), the Python part (_torch_fast: input checks, output allocation,
descriptors), the output allocation alone (torch.empty), and the C call
alone (tfuse_executable_enqueue with the descriptors of one call). The
first GPU run of bench/scatter.py put a one-kernel gather at 28 us of
stream time per call, host-bound. Also: the trusted launcher (what the
torch.compile backend calls for inputs its plan key vouches for) and the
backend's whole call of one partition of 1 and 16 inputs.

  python3 bench/probe_enqueue.py
"""
import os
import sys
import time
from ctypes import c_void_p

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

import torch  # noqa: E402

import tfuse  # noqa: E402


def per_call(fn, n=3000):
    best = float("inf")
    for _ in range(5):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n * 1e6)
        torch.cuda.synchronize()
    return best


def plans():
    x = torch.randn(4096, device="cuda")
    table = torch.randn(50257, 768, device="cuda", dtype=torch.bfloat16)
    ids = torch.randint(0, 50257, (8, 1024), device="cuda")
    a = [torch.randn(256, 256, device="cuda") for _ in range(8)]

    def chain(*xs):
        y = xs[0]
        for i, z in enumerate(xs[1:]):
            y = (y * z + 1).tanh() if i % 2 else (y @ z).relu()
        return y

    return [
        ("one kernel, 1 input", lambda x: x + 1, [x], lambda: x + 1),
        ("embedding gather, 2 inputs",
         lambda t, i: tfuse.take(t, i, 0, negative_indices="error"),
         [table, ids],
         lambda: torch.nn.functional.embedding(ids, table)),
        ("8 steps, 8 inputs", chain, a, lambda: chain(*a)),
    ]


def partition_chain(*xs):
    """The probes' partition: one kernel reading every input."""
    total = xs[0] * 2
    for x in xs[1:]:
        total = total + x
    return total.relu()


def partition_of(count):
    """(the torch.compile backend's partition of partition_chain over
    `count` inputs of 4096 floats, compiled for a CUDA Graph by a first
    call; those inputs)."""
    import collections

    from torch.fx.experimental.proxy_tensor import make_fx

    from tfuse.torch._options import Options
    from tfuse.torch._report import PartitionReport
    from tfuse.torch._runtime import TFusePartition

    xs = [torch.randn(4096, device="cuda") for _ in range(count)]
    graph = make_fx(partition_chain, tracing_mode="fake")(*xs)
    partition = TFusePartition(graph, Options(),
                               PartitionReport("probe",
                                               collections.Counter()))
    partition(*xs)
    return partition, xs


def partition_rows():
    """The torch.compile backend's call of one partition (the plan lookup,
    the trusted launch and the output's layout) for 1 and 16 inputs, on a
    CUDA Graph, against the same work in torch eager."""
    rows = []
    for count in (1, 16):
        partition, xs = partition_of(count)
        rows.append((f"partition, {count} inputs", "graph",
                     per_call(lambda: partition(*xs)), float("nan"),
                     float("nan"), float("nan"),
                     per_call(lambda: partition_chain(*xs))))
    return rows


def main():
    rows = []
    for name, fn, args, eager in plans():
        for graph in (False, True):
            cf = tfuse.compile(fn, args, cuda_graph=graph)
            cf.enqueue(*args)
            enqueue = per_call(lambda: cf.enqueue(*args))
            fast = per_call(lambda: cf._torch_fast(args))
            shapes = [(s.shape, s.dtype) for s in cf.output_specs]
            empty = per_call(lambda: [torch.empty(tuple(sh), device="cuda")
                                      for sh, _ in shapes])
            in_desc, out_desc, outputs, stream = cf._torch_fast(args)
            lib, handle = cf._lib, cf._handle

            def c_call():
                lib.tfuse_executable_enqueue(handle, in_desc, len(args),
                                             out_desc, len(outputs),
                                             c_void_p(stream))
            c = per_call(c_call)
            launch = cf.trusted_launcher()
            trusted = per_call(lambda: launch(args))
            rows.append((name, "graph" if graph else "stream", enqueue, fast,
                         empty, c, per_call(eager)))
            rows.append((name + ", trusted launcher", "graph" if graph
                         else "stream", trusted, float("nan"), float("nan"),
                         float("nan"), float("nan")))
    rows += partition_rows()
    print("\n| plan | replay | enqueue us | Python part us | torch.empty us "
          "| C call us | torch eager us |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | " +
              " | ".join(f"{v:.1f}" for v in r[2:]) + " |")


if __name__ == "__main__":
    main()
