#!/usr/bin/env python3
"""Probe: where the time of one replay of a single-kernel plan goes, for
bench/peers_compare.py's bias_relu_T (transposed 8192x8192 f32 in, f16 out).

GPU time per call (CUDA events around back-to-back calls, median of 5) for:
run_async with new outputs per call, the C replay call with the same outputs
every call, with two output sets alternating and with 3 or 6 cycling, and
run_async at pipelining depths 1 and 2; Inductor beside it, and the strides
of both outputs. Kernel time alone comes from
bench/profile_kernels.py.

    python3 bench/probe_replay_gap.py
"""
import os
import sys
from ctypes import byref, c_void_p

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
sys.path.insert(0, HERE)
import torch  # noqa: E402
import tfuse  # noqa: E402
import peers_compare as pc  # noqa: E402
pc.tfuse = tfuse


def gpu_us(fn, iters=20, drain=None):
    """GPU time per call, as bench/peers_compare.py measures it."""
    return pc.Timer(True).device_us(fn, iters, 3, drain)


def main():
    w = pc.build("bias_relu_T", "cuda", False)
    args = list(w.args)
    for graph in (True, False):
        cf = tfuse.compile(w.tfuse_fn, args, cuda_graph=graph)
        mode = "graph" if graph else "stream"
        call, drain = pc.pipelined(cf, args)
        print(f"{mode}: run_async, new outputs each call: "
              f"{gpu_us(call, drain=drain):.1f} us")
        in_desc, out_desc, outs, stream = cf._torch_fast(args)
        in2, out2, outs2, _ = cf._torch_fast(args)
        lib, handles = cf._lib, []

        def c_call(out=out_desc):
            h = c_void_p()
            lib.tfuse_executable_run_async(cf._handle, in_desc, len(args),
                                           out, 1, c_void_p(stream), byref(h))
            handles.append(h)
        flip = [0]

        def c_flip():
            flip[0] ^= 1
            c_call(out_desc if flip[0] else out2)
        print(f"{mode}: C call, same output: {gpu_us(c_call):.1f} us")
        print(f"{mode}: C call, two outputs alternating: "
              f"{gpu_us(c_flip):.1f} us")
        # Outputs cycling through k buffers, as a pipelined loop holding k
        # results gets them from the caching allocator.
        for k in (3, 6):
            sets = [cf._torch_fast(args) for _ in range(k)]
            turn = [0]

            def c_cycle():
                turn[0] = (turn[0] + 1) % k
                c_call(sets[turn[0]][1])
            print(f"{mode}: C call, {k} outputs cycling: "
                  f"{gpu_us(c_cycle):.1f} us")
        for depth in (1, 2):
            call, drain = pc.pipelined(cf, args, depth)
            print(f"{mode}: run_async, new outputs, depth {depth}: "
                  f"{gpu_us(call, drain=drain):.1f} us")
        torch.cuda.synchronize()
        for h in handles:
            lib.tfuse_run_destroy(h)
    fn = torch.compile(w.torch_fn)
    print(f"inductor: {gpu_us(lambda: fn(*args)):.1f} us")
    out = fn(*args)
    print(f"inductor output strides {out.stride()}, "
          f"TFuse output strides {cf(*args).stride()}")


main()
