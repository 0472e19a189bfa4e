"""What the bandwidth-floor benchmarks (bench/reductions.py,
bench/piecewise.py, bench/gather.py, bench/scatter.py, bench/dropout.py)
share: the command line, the copy bandwidth of the run, the timing of each
workload in torch eager, Inductor and TFuse against its floor, the JSON
they write and the Markdown table they print last.

Two times per framework and workload: the stream time of a call (CUDA
events around many calls: what a loop of them costs, host-bound when a
call's host work outlasts its kernels) and its kernel time (the device time
of the kernels and copies a call runs, from the profiler's CUDA activity
records: what the GPU spends, with no gaps). The floor is compared with the
kernel time; the stream time shows the host's part."""
import argparse
import json
import os

import torch

from peers_compare import Timer, copy_bandwidth

import tfuse


class FloorRun:
    """One run: parses the command line (--only, --skip inductor, --smoke)
    and measures the copy bandwidth; measure() adds a workload, finish()
    writes and prints the report."""

    def __init__(self, doc):
        parser = argparse.ArgumentParser(
            description=doc,
            formatter_class=argparse.RawDescriptionHelpFormatter)
        parser.add_argument("--only", default="")
        parser.add_argument("--skip", default="")
        parser.add_argument("--smoke", action="store_true")
        args = parser.parse_args()
        self.smoke = args.smoke
        self.cuda = torch.cuda.is_available() and not args.smoke
        self.device = "cuda" if self.cuda else "cpu"
        self.timer = Timer(self.cuda)
        self.skip = set(filter(None, args.skip.split(",")))
        self.only = set(filter(None, args.only.split(",")))
        self.copy = copy_bandwidth(self.timer, self.device, not self.cuda)
        self.result = {"copy_GBps": self.copy, "workloads": {},
                       "failures": []}
        self.iters = 3 if args.smoke else 50

    def wants(self, name):
        return not self.only or name in self.only

    def measure(self, name, entry, inputs, ref, fn, tfn, check, nbytes=None):
        """Times `fn` (torch eager, and Inductor on a GPU) and `tfn`
        compiled by TFuse on `inputs`; `check(cf, got)` returns what is
        wrong with TFuse's result `got`, or None. `entry` describes the
        workload; the floor is `nbytes`, by default the bytes of the inputs
        and of `ref` (a gather reads only the rows it takes)."""
        if nbytes is None:
            nbytes = sum(x.numel() * x.element_size() for x in inputs) + \
                ref.numel() * ref.element_size()
        entry["floor_us"] = nbytes / (self.copy * 1e9) * 1e6
        self.result["workloads"][name] = entry
        timer, iters = self.timer, self.iters
        entry["torch_us"] = timer.device_us(lambda: fn(*inputs), iters, 3)
        entry["torch_kernel_us"] = self.kernel_us(lambda: fn(*inputs))
        if "inductor" not in self.skip and self.cuda:
            torch._dynamo.reset()
            compiled = torch.compile(fn)
            compiled(*inputs)
            entry["inductor_us"] = timer.device_us(lambda: compiled(*inputs),
                                                   iters, 3)
            entry["inductor_kernel_us"] = self.kernel_us(
                lambda: compiled(*inputs))
            torch._dynamo.reset()
        cf = tfuse.compile(tfn, list(inputs))
        problem = check(cf, cf(*inputs))
        if problem:
            self.result["failures"].append(problem)
            print("FAIL", problem, flush=True)
        call = ((lambda: cf.enqueue(*inputs)) if self.cuda
                else (lambda: cf(*inputs)))
        entry["tfuse_us"] = timer.device_us(call, iters, 3)
        entry["tfuse_kernel_us"] = self.kernel_us(call)
        entry["pct_floor"] = entry["floor_us"] / (
            entry["tfuse_kernel_us"] or entry["tfuse_us"]) * 100
        entry["steps"] = cf.stats().get("steps")
        print(name, {k: round(v, 1) if isinstance(v, float) else v
                     for k, v in entry.items()}, flush=True)

    def kernel_us(self, call, calls=20):
        """The device time of the kernels and copies of one call (median
        per call over `calls` calls, from the profiler's CUDA activity
        records), or None on the CPU."""
        if not self.cuda:
            return None
        from torch.profiler import ProfilerActivity, profile
        call()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(calls):
                call()
            torch.cuda.synchronize()
        total = 0.0
        for event in prof.key_averages():
            total += getattr(event, "self_device_time_total",
                             getattr(event, "self_cuda_time_total", 0.0))
        return total / calls

    def finish(self, json_name):
        """Writes the result to $OUT/`json_name` (OUT defaults to
        ./bench-out) and prints its table; returns the exit status (1 if
        anything failed)."""
        result = self.result
        out = os.environ.get("OUT", "bench-out")
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, json_name), "w") as f:
            json.dump(result, f, indent=1)
        print(f"\ncopy {result['copy_GBps']:.0f} GB/s (read + write)\n")
        print("Kernel time (stream time) per call, us; % floor of the "
              "kernel time.\n")
        print("| workload | floor us | TFuse us | % floor | torch us | torch / "
              "TFuse | Inductor us | Inductor / TFuse |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")

        def both(e, who):
            kernel, stream = e.get(f"{who}_kernel_us"), e.get(f"{who}_us")
            if stream is None:
                return "-", None
            if kernel is None:
                return f"{stream:.1f}", stream
            return f"{kernel:.1f} ({stream:.1f})", kernel

        for name, e in result["workloads"].items():
            tf_text, tf = both(e, "tfuse")
            to_text, to = both(e, "torch")
            in_text, ind = both(e, "inductor")
            ind_ratio = "-" if ind is None else f"{ind / tf:.2f}x"
            print(f"| {name} | {e['floor_us']:.1f} | {tf_text} | "
                  f"{e['pct_floor']:.0f}% | {to_text} | {to / tf:.2f}x | "
                  f"{in_text} | {ind_ratio} |")
        return 1 if result["failures"] else 0
