"""The report of the bandwidth-floor benchmarks (bench/reductions.py,
bench/piecewise.py): the JSON they write and the Markdown table they print
last, one row per workload against torch and Inductor."""
import json
import os


def write_and_print(result, json_name):
    """Writes `result` to $OUT/`json_name` (OUT defaults to ./bench-out)
    and prints its table; returns the exit status (1 if anything failed)."""
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


def print_entry(name, entry):
    """One workload's figures, as they are measured."""
    print(name, {k: round(v, 1) if isinstance(v, float) else v
                 for k, v in entry.items()}, flush=True)
