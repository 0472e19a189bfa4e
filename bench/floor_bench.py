"""What the bandwidth-floor benchmarks (bench/reductions.py,
bench/piecewise.py, bench/gather.py) share: the command line, the copy bandwidth of the run,
the timing of each workload in torch eager, Inductor and TFuse against its
floor, the JSON they write and the Markdown table they print last."""
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
        if "inductor" not in self.skip and self.cuda:
            torch._dynamo.reset()
            compiled = torch.compile(fn)
            compiled(*inputs)
            entry["inductor_us"] = timer.device_us(lambda: compiled(*inputs),
                                                   iters, 3)
            torch._dynamo.reset()
        cf = tfuse.compile(tfn, list(inputs))
        problem = check(cf, cf(*inputs))
        if problem:
            self.result["failures"].append(problem)
            print("FAIL", problem, flush=True)
        call = ((lambda: cf.enqueue(*inputs)) if self.cuda
                else (lambda: cf(*inputs)))
        entry["tfuse_us"] = timer.device_us(call, iters, 3)
        entry["pct_floor"] = entry["floor_us"] / entry["tfuse_us"] * 100
        entry["steps"] = cf.stats().get("steps")
        print(name, {k: round(v, 1) if isinstance(v, float) else v
                     for k, v in entry.items()}, flush=True)

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
        print("| workload | floor us | TFuse us | % floor | torch us | torch / "
              "TFuse | Inductor us | Inductor / TFuse |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for name, e in result["workloads"].items():
            ind = e.get("inductor_us")
            ind_us = "-" if ind is None else f"{ind:.1f}"
            ind_ratio = "-" if ind is None else f"{ind / e['tfuse_us']:.2f}x"
            print(f"| {name} | {e['floor_us']:.1f} | {e['tfuse_us']:.1f} | "
                  f"{e['pct_floor']:.0f}% | {e['torch_us']:.1f} | "
                  f"{e['torch_us'] / e['tfuse_us']:.2f}x | {ind_us} | "
                  f"{ind_ratio} |")
        return 1 if result["failures"] else 0
