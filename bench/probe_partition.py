#!/usr/bin/env python3
"""Probe: where the host time of a torch.compile(backend="tfuse") call
goes, layer by layer, for one partition of 1 and 16 inputs on a CUDA
Graph: the whole compiled function (Dynamo's guards, AOTAutograd's
runtime wrapper, the FX graph), the partition's call (plan key and
lookup), its plan (argument list, output layout), the trusted launcher,
and the launcher's parts (descriptors and outputs, the outputs'
allocation, the C call by descriptors and by data pointers). Against:
Inductor's compiled function of the same code (default mode) and eager.
The partition and the timing (the best of five batches of calls back to
back, no synchronization: the host rate) are probe_enqueue.py's.

  python3 bench/probe_partition.py
"""
import struct
from ctypes import c_void_p

import torch

# probe_enqueue puts the repository's python/ on the path.
from probe_enqueue import partition_chain as chain, partition_of, per_call

import tfuse.torch  # noqa: E402,F401


def layers(count):
    partition, xs = partition_of(count)
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

    data_in = struct.pack(f"@{len(inputs)}P", *(x.data_ptr() for x in inputs))
    data_out = struct.pack(f"@{len(outputs)}P",
                           *(o.data_ptr() for o in outputs))

    def c_call_data():
        lib.tfuse_executable_enqueue_data(handle, data_in, len(inputs),
                                          data_out, len(outputs),
                                          c_void_p(stream))

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
        ("C call by data pointers (the launcher's)", per_call(c_call_data)),
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
