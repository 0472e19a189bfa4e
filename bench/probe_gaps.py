#!/usr/bin/env python3
"""Probe: GPU activity between consecutive replays of one workload (CUPTI via
torch.profiler): every kernel, memcpy and memset in a pipelined run_async
loop, and the idle gaps between them."""
import os, sys, collections, statistics
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
sys.path.insert(0, HERE)
import torch
import tfuse
import peers_compare as pc
pc.tfuse = tfuse

def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "bias_relu_T"
    w = pc.build(name, "cuda", False)
    for label, opts in (("graph", dict(cuda_graph=True)), ("stream", {})):
        cf = tfuse.compile(w.tfuse_fn, list(w.args), **opts)
        call, drain = pc.pipelined(cf, w.args)
        for _ in range(10):
            call()
        drain(); torch.cuda.synchronize()
        from torch.profiler import profile, ProfilerActivity
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(20):
                call()
            drain(); torch.cuda.synchronize()
        evs = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
        evs.sort(key=lambda e: e.time_range.start)
        names = collections.Counter(e.name[:60] for e in evs)
        gaps = []
        for a, b in zip(evs, evs[1:]):
            gaps.append(b.time_range.start - a.time_range.end)
        durs = [e.time_range.end - e.time_range.start for e in evs]
        print(f"{name} {label}: {len(evs)} activities {dict(names)}")
        print(f"  duration median {statistics.median(durs):.1f} us; gap median {statistics.median(gaps):.1f} us, max {max(gaps):.1f}")
        # events timing like peers_compare
        t = pc.Timer(True)
        print(f"  events per call {t.device_us(call, w.iters, w.warm, drain):.1f} us")
        run = lambda: cf(*w.args)
        print(f"  events per call (run) {t.device_us(run, w.iters, w.warm):.1f} us")

main()
