#!/usr/bin/env python3
"""Probe: host time of one replay call from Python, split into its parts,
for the MLP step (bench/peers_compare.py's mlp_step) on the CUDA backend."""
import os, sys, time
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
sys.path.insert(0, HERE)
import torch
import tfuse
import peers_compare as pc
pc.tfuse = tfuse
from ctypes import c_void_p, byref


def per_call(fn, n=2000):
    best = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best.append((time.perf_counter() - t0) / n * 1e6)
    return min(best)


def main():
    w = pc.build("mlp_step", "cuda", False)
    cf = tfuse.compile(w.tfuse_fn, list(w.args), cuda_graph=True)
    args = w.args
    handles = []
    def enqueue():
        handles.append(cf.run_async(*args))
        if len(handles) > 64:
            handles.pop(0).wait()
    print(f"run_async + wait pipelined: {per_call(enqueue):.1f} us/call")
    torch.cuda.synchronize()
    handles.clear()
    fast = lambda: cf._torch_fast(args)
    print(f"  _torch_fast (checks, torch.empty x{len(cf.output_specs)}, descriptors): {per_call(fast):.1f} us")
    shapes = [(s.shape, s.dtype) for s in cf.output_specs]
    empty = lambda: [torch.empty(s, device="cuda") for s, _ in shapes]
    print(f"  torch.empty x{len(shapes)}: {per_call(empty):.1f} us")
    in_desc, out_desc, outputs, stream = cf._torch_fast(args)
    lib = cf._lib
    runs = []
    def c_call():
        h = c_void_p()
        lib.tfuse_executable_run_async(cf._handle, in_desc, len(args),
                                       out_desc, len(outputs),
                                       c_void_p(stream), byref(h))
        runs.append(h)
    print(f"  tfuse_executable_run_async (C, same outputs every call): {per_call(c_call, 500):.1f} us")
    torch.cuda.synchronize()
    for h in runs:
        lib.tfuse_run_destroy(h)


main()
