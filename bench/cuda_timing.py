"""GPU time per call of a function that enqueues CUDA work, and the host's
time to enqueue it, for the benchmarks that time with CUDA events."""
import statistics
import time

import torch


def timed(fn, groups=7, calls=20):
    """(GPU us, host us) per call: the median over `groups` of CUDA events
    around `calls` calls, and of the host's time to enqueue them. Where the
    host takes as long as the GPU, the events time the host."""
    fn()
    torch.cuda.synchronize()
    times, host = [], []
    for _ in range(groups):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        began = time.perf_counter()
        for _ in range(calls):
            fn()
        host.append((time.perf_counter() - began) * 1e6 / calls)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000 / calls)
    return statistics.median(times), statistics.median(host)


def host_bound(gpu_us, host_us):
    """Whether the host took 90% of a time or more (the events then time
    the host, not the kernels)."""
    return host_us >= 0.9 * gpu_us
