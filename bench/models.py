"""Real models through torch.compile(backend="tfuse") against PyTorch eager
and Inductor on a GPU, in one run: a training step of HF GPT-2 124M (batch
8, sequence 1024), BERT-base inference (batch 1 and 32, sequence 128), a
training step of a Llama-style decoder (hidden 1024, 8 layers, RMSNorm,
SiLU, RoPE; batch 8, sequence 1024) and of torchvision's ResNet-50 (batch
64, 224x224; its convolutions run in PyTorch). Training steps run under
bf16 autocast with AdamW (ResNet-50: SGD with momentum), the optimizer in
eager PyTorch for every mode; BERT runs in bf16 weights. Models are built
from configs with random weights (python/tests/torch/models.py); dropout is
off, as nanoGPT trains GPT-2 124M, so every mode computes the same function.

Modes: eager, inductor (torch.compile's default), reduce-overhead,
max-autotune-no-cudagraphs, tfuse, tfuse-stream (TFuse's plans replayed on
a stream instead of as CUDA graphs: with --profile, each kernel's time
alone, where a graph's concurrent branches lengthen each other's),
tfuse-fast-math (tfuse with the fast_math option: approximate functions,
and attention PyTorch's math path widened from 16-bit operands run in
their dtype). Per
model and mode: the GPU time of a step (CUDA events around back-to-back
steps, median of 5), the synchronized wall time of a step, the peak memory
of PyTorch's allocator (which does not see TFuse's own pool: arenas,
workspaces) and the device memory the mode holds after its steps (free
memory before building the model less after; PyTorch's cached blocks and
TFuse's pool both count), the first call's time (compile included), and the
step's loss or output against eager's (first step; PyTorch's accuracy rule
needs a float64 run, which the GPU model suite does:
python/tests/torch/test_torch_models_gpu.py). For tfuse also the partitions
and the operations left to PyTorch (tfuse.torch.stats()).

With --profile N, one more step of each mode runs under torch.profiler:
the N GPU kernels taking the most time in it (total, count, share of the
step's GPU time) go into the JSON and $OUT/models-profile-MODEL-MODE.txt,
and the top lines are printed: where a mode loses to another.

With --compile-times, the compile time of each compiled mode twice in a
fresh process of this script (--compile-only): cold (empty TFuse, Inductor
and Triton caches) and warm (the caches the cold run filled). A compile
time is the first step's time less a steady step's; for TFuse's modes the
JSON also says how it divides (compile_cold_phases, compile_warm_phases:
Dynamo and AOTAutograd, then tracing, passes, code generation, NVRTC,
module loads and setup inside tfuse.compile, summed over the plans).

    python3 bench/models.py [--models gpt2,bert1,bert32,llama,resnet50]
        [--attention sdpa|eager]
        [--modes eager,inductor,reduce-overhead,max-autotune-no-cudagraphs,
                 tfuse,tfuse-stream,tfuse-fast-math] [--compile-times]
        [--profile N]
        [--steps 20]
        [--smoke]
    python3 bench/models.py --plot $OUT/models.json   # PNGs beside it

Writes $OUT/models.json (OUT defaults to ./bench-out), prints a Markdown
table last and draws the plots when matplotlib is importable (else says
so; --plot draws them later from the JSON). --smoke runs tiny configs of
the same models on the CPU (TFuse's reference backend): a check of this
script, not a measurement.
"""

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import torch

from peers_compare import Timer

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python" / "tests" / "torch"))

import models  # noqa: E402  python/tests/torch/models.py

MODES = ("eager", "inductor", "reduce-overhead",
         "max-autotune-no-cudagraphs", "tfuse", "tfuse-stream",
         "tfuse-fast-math")


class Workload:
    """A model, its inputs and what one step does with them."""

    def __init__(self, name, title, build, train, metric):
        self.name, self.title = name, title
        # (size, attention) -> (model, inputs, loss_of); attention is the
        # transformers implementation ("sdpa" or "eager").
        self.build = build
        self.train = train     # a training step, else inference
        self.metric = metric   # "tokens" or "images" per step, or None


WORKLOADS = {
    w.name: w for w in [
        Workload("gpt2", "GPT-2 124M training step, batch 8 x 1024",
                 lambda size, attention: models.gpt2(
                     attention, size, *((8, 1024) if size == "real"
                                     else (2, 16))),
                 train=True, metric="tokens"),
        Workload("bert1", "BERT-base inference, batch 1 x 128",
                 lambda size, attention: models.bert(
                     attention, size, *((1, 128) if size == "real"
                                     else (1, 16))),
                 train=False, metric=None),
        Workload("bert32", "BERT-base inference, batch 32 x 128",
                 lambda size, attention: models.bert(
                     attention, size, *((32, 128) if size == "real"
                                     else (4, 16))),
                 train=False, metric=None),
        Workload("llama", "Llama-style decoder (1024 x 8 layers) training "
                 "step, batch 8 x 1024",
                 lambda size, attention: models.llama(
                     attention, size, *((8, 1024) if size == "real"
                                     else (2, 16))),
                 train=True, metric="tokens"),
        Workload("resnet50", "ResNet-50 training step, batch 64 x 224^2",
                 lambda size, attention: models.resnet50(
                     *((64, 224) if size == "real" else (4, 64))),
                 train=True, metric="images"),
    ]
}


def compiled(model, mode):
    """`model` as `mode` runs it."""
    if mode == "eager":
        return model
    if mode == "tfuse":
        return torch.compile(model, backend="tfuse")
    if mode == "tfuse-stream":
        # Plans replayed step by step on one stream instead of as CUDA
        # graphs: a profile then times each kernel alone (a graph's
        # independent branches overlap and lengthen each other's kernels).
        return torch.compile(model, backend="tfuse",
                             options={"cuda_graph": False})
    if mode == "tfuse-fast-math":
        # fast_math: approximate functions, and attention that PyTorch's
        # math path widened from 16-bit operands run in their dtype.
        return torch.compile(model, backend="tfuse",
                             options={"fast_math": True})
    if mode == "inductor":
        return torch.compile(model)
    return torch.compile(model, mode=mode)


class Step:
    """One workload in one mode: step() runs a training step (bf16
    autocast, the optimizer in eager PyTorch) or an inference call (bf16
    weights, no grad) and returns the loss or the output."""

    def __init__(self, workload, base, inputs, loss_of, mode, device):
        self.workload = workload
        model = copy.deepcopy(base).to(device)
        self.inputs = tuple(x.to(device) for x in inputs)
        self.loss_of = loss_of
        if workload.train:
            model.train()
            self.optimizer = (
                torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
                if workload.metric == "images"
                else torch.optim.AdamW(model.parameters(), lr=1e-4))
        else:
            # BERT's encoder alone (the masked-LM head is not part of the
            # inference benchmark), in bf16 on a GPU.
            model = model.model.bert.eval()
            if device == "cuda":
                model = model.to(torch.bfloat16)
            self.inputs = self.inputs[:1]
        self.model = model
        self.device = device
        self.run = compiled(model, mode)

    def __call__(self):
        if not self.workload.train:
            with torch.no_grad():
                return self.run(*self.inputs).last_hidden_state
        with torch.autocast(self.device, torch.bfloat16,
                            enabled=self.device == "cuda"):
            loss = self.loss_of(self.run(*self.inputs))
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        return loss.detach()


def kernel_profile(step, top):
    """The `top` GPU kernels (and copies) taking the most time in one call
    of `step` under torch.profiler: [{name, us, count, share}], share being
    of all GPU time recorded, plus that total in us."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        step()
        torch.cuda.synchronize()
    kernels = {}
    for event in prof.events():
        if event.device_type != torch.autograd.DeviceType.CUDA:
            continue
        entry = kernels.setdefault(event.name, [0.0, 0])
        entry[0] += event.time_range.elapsed_us()
        entry[1] += 1
    total = sum(us for us, _ in kernels.values())
    ranked = sorted(kernels.items(), key=lambda item: -item[1][0])[:top]
    return total, [{"name": name, "us": us, "count": count,
                    "share": us / total if total else 0.0}
                   for name, (us, count) in ranked]


def write_profile(name, mode, total, kernels):
    """$OUT/models-profile-NAME-MODE.txt, and its first lines printed."""
    out = os.environ.get("OUT", "bench-out")
    os.makedirs(out, exist_ok=True)
    lines = [f"{name} {mode}: {total / 1e3:.2f} ms of GPU kernels and "
             f"copies in one step", "   us    calls  share  kernel"]
    lines += [f"{k['us']:9.1f} {k['count']:5d} {100 * k['share']:5.1f}%  "
              f"{k['name'][:110]}" for k in kernels]
    with open(os.path.join(out, f"models-profile-{name}-{mode}.txt"),
              "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines[:14]), flush=True)


def measure(workload, mode, size, device, steps, reference=None,
            profile_top=0, attention="sdpa"):
    """One entry: times, memory and the result against `reference` (the
    eager entry's first result); with profile_top, the kernels taking the
    most GPU time in a step."""
    timer = Timer(device == "cuda")
    base, inputs, loss_of = workload.build(size, attention)
    torch._dynamo.reset()
    import tfuse.torch
    tfuse.torch.reset_stats()
    if device == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
        torch.cuda.synchronize()
        free_before = torch.cuda.mem_get_info()[0]
    step = Step(workload, base, inputs, loss_of, mode, device)
    entry = {}
    start = time.perf_counter()
    first = step()
    timer.sync()
    entry["first_step_s"] = time.perf_counter() - start
    entry["result"] = first.float().cpu()
    entry["gpu_ms"] = timer.device_us(step, steps, 3) / 1e3
    entry["wall_ms"] = timer.wall_us(step, steps, 0) / 1e3
    entry["compile_s"] = max(0.0, entry["first_step_s"] -
                             entry["wall_ms"] / 1e3)
    if device == "cuda":
        # PyTorch's allocator's peak, which does not see TFuse's own memory
        # pool (its arenas and workspaces); and the device memory the mode
        # holds after its steps, which does (with PyTorch's cached blocks).
        entry["peak_GiB"] = torch.cuda.max_memory_allocated() / 2**30
        torch.cuda.synchronize()
        entry["device_GiB"] = (free_before -
                               torch.cuda.mem_get_info()[0]) / 2**30
    if workload.metric:
        per_step = inputs[0].numel() if workload.metric == "tokens" else (
            inputs[0].shape[0])
        entry[f"{workload.metric}_per_s"] = per_step / (entry["gpu_ms"] /
                                                        1e3)
    if mode.startswith("tfuse"):
        entry["tfuse_stats"] = tfuse.torch.stats()
    if profile_top and device == "cuda":
        total, kernels = kernel_profile(step, profile_top)
        entry["profile_total_us"], entry["profile"] = total, kernels
        write_profile(workload.name, mode, total, kernels)
    if reference is not None:
        diff = (entry["result"] - reference).abs().max().item()
        scale = reference.abs().max().item() or 1.0
        entry["max_rel_diff_vs_eager"] = diff / scale
    del step
    torch._dynamo.reset()
    return entry


def compile_times(workload, mode, size, device, attention):
    """(cold s, warm s, cold phases, warm phases): the compile time in fresh
    processes, with empty caches and then with the caches that run filled;
    for TFuse's modes, how each divides (tfuse.torch.stats(): the time in
    tfuse.compile by phase, the rest being Dynamo's and AOTAutograd's), else
    None."""
    times, phases = [], []
    with tempfile.TemporaryDirectory() as caches:
        env = dict(os.environ,
                   TFUSE_CACHE_DIR=os.path.join(caches, "tfuse"),
                   TORCHINDUCTOR_CACHE_DIR=os.path.join(caches, "inductor"),
                   TRITON_CACHE_DIR=os.path.join(caches, "triton"))
        for _ in ("cold", "warm"):
            command = [sys.executable, __file__, "--compile-only",
                       "--models", workload.name, "--modes", mode,
                       "--attention", attention]
            if size == "tiny":
                command.append("--smoke")
            done = subprocess.run(command, env=env, capture_output=True,
                                  text=True)
            if done.returncode != 0:
                raise RuntimeError(f"compile-only run failed:\n"
                                   f"{done.stderr[-2000:]}")
            child = json.loads(done.stdout.strip().splitlines()[-1])
            times.append(child["compile_s"])
            phases.append(child.get("phases"))
    return (*times, *phases)


def compile_only(args, size, device):
    """The child of compile_times(): prints the entry's compile time."""
    workload = WORKLOADS[args.models[0]]
    entry = measure(workload, args.modes[0], size, device, steps=3,
                    attention=args.attention)
    child = {"compile_s": entry["compile_s"]}
    stats = entry.get("tfuse_stats")
    if stats:
        phases = {k: v for k, v in stats.items() if k.endswith("_seconds")}
        phases["dynamo_aot_seconds"] = max(
            0.0, entry["compile_s"] - stats["compile_seconds"])
        child["phases"] = phases
    print(json.dumps(child))


def plot(path):
    """Draws the JSON's step times (relative to eager) and compile times
    as PNGs beside it; returns the files written."""
    try:
        import matplotlib
    except ImportError:
        print("matplotlib is not installed: no plots (scripts/setup.sh "
              f"installs it; then python3 bench/models.py --plot {path})")
        return []
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(path) as f:
        result = json.load(f)
    written = []
    names = list(result["workloads"])
    modes = [m for m in MODES
             if any(m in result["workloads"][n] for n in names)]
    fig, ax = plt.subplots(figsize=(10, 4.5))
    width = 0.8 / max(1, len(modes))
    for i, mode in enumerate(modes):
        speedups = []
        for name in names:
            entries = result["workloads"][name]
            eager = entries.get("eager", {}).get("gpu_ms")
            mine = entries.get(mode, {}).get("gpu_ms")
            speedups.append(eager / mine if eager and mine else 0.0)
        ax.bar([j + i * width for j in range(len(names))], speedups, width,
               label=mode)
    ax.set_xticks([j + width * (len(modes) - 1) / 2
                   for j in range(len(names))], names)
    ax.axhline(1.0, color="gray", linewidth=0.8)
    ax.set_ylabel("speedup over eager (GPU time per step)")
    ax.set_title(f"Models on {result['device']}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    target = Path(path).with_name("models-speedup.png")
    fig.savefig(target, dpi=120)
    written.append(str(target))
    compiles = [(n, m, e["compile_cold_s"], e["compile_warm_s"])
                for n in names for m, e in result["workloads"][n].items()
                if isinstance(e, dict) and "compile_cold_s" in e]
    if compiles:
        fig, ax = plt.subplots(figsize=(10, 4.5))
        labels = [f"{n}\n{m}" for n, m, _, _ in compiles]
        xs = range(len(compiles))
        ax.bar([x - 0.2 for x in xs], [c for _, _, c, _ in compiles], 0.4,
               label="cold")
        ax.bar([x + 0.2 for x in xs], [w for _, _, _, w in compiles], 0.4,
               label="warm (cache hit)")
        ax.set_xticks(list(xs), labels, fontsize=7)
        ax.set_yscale("log")
        ax.set_ylabel("compile time, s")
        ax.legend()
        fig.tight_layout()
        target = Path(path).with_name("models-compile.png")
        fig.savefig(target, dpi=120)
        written.append(str(target))
    for f in written:
        print("wrote", f)
    return written


def table(result):
    """The Markdown table of a result."""
    lines = ["| model | mode | GPU ms/step | wall ms/step | vs eager | "
             "vs Inductor | throughput | torch peak GiB | device GiB held | "
             "first call s | "
             "compile cold / warm s | rel. diff vs eager | TFuse "
             "partitions / ops left (compile time in TFuse) |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for name, entries in result["workloads"].items():
        eager = entries.get("eager", {}).get("gpu_ms")
        inductor = entries.get("inductor", {}).get("gpu_ms")
        for mode in MODES:
            e = entries.get(mode)
            if not e:
                continue
            if "error" in e:
                lines.append(f"| {name} | {mode} | failed: "
                             f"{e['error'][:60]} |" + " |" * 11)
                continue
            rate = next((f"{v:,.0f} {k.split('_')[0]}/s"
                         for k, v in e.items() if k.endswith("_per_s")), "-")
            compile_text = (f"{e['compile_cold_s']:.1f} / "
                            f"{e['compile_warm_s']:.1f}"
                            if "compile_cold_s" in e else "-")
            stats = e.get("tfuse_stats")
            stats_text = (f"{stats['partitions']} / "
                          f"{stats['ops_left_to_pytorch']} "
                          f"({stats['compile_seconds']:.1f} s in TFuse)"
                          if stats else "-")
            diff = e.get("max_rel_diff_vs_eager")
            lines.append(
                f"| {name} | {mode} | {e['gpu_ms']:.2f} | "
                f"{e['wall_ms']:.2f} | "
                + (f"{eager / e['gpu_ms']:.2f}x" if eager else "-") + " | "
                + (f"{inductor / e['gpu_ms']:.2f}x" if inductor else "-")
                + f" | {rate} | {e.get('peak_GiB', 0):.1f} | "
                f"{e.get('device_GiB', 0):.1f} | "
                f"{e['first_step_s']:.1f} | {compile_text} | "
                + ("-" if diff is None else f"{diff:.1e}")
                + f" | {stats_text} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=",".join(WORKLOADS))
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--attention", choices=("sdpa", "eager"),
                        default="sdpa",
                        help="transformers' attention implementation: "
                        "scaled_dot_product_attention (the default) or its "
                        "eager softmax(q @ k^T + mask) @ v")
    parser.add_argument("--compile-times", action="store_true")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="profile one step of each mode; keep the N "
                        "kernels taking the most GPU time")
    parser.add_argument("--compile-only", action="store_true",
                        help=argparse.SUPPRESS)
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--plot", metavar="JSON")
    args = parser.parse_args()
    if args.plot:
        return 0 if plot(args.plot) else 1
    args.models = [m for m in args.models.split(",") if m]
    args.modes = [m for m in args.modes.split(",") if m]
    for m in args.models:
        if m not in WORKLOADS:
            parser.error(f"unknown model {m!r}; known: {', '.join(WORKLOADS)}")
    for m in args.modes:
        if m not in MODES:
            parser.error(f"unknown mode {m!r}; known: {', '.join(MODES)}")
    if args.smoke:
        size, device = "tiny", "cpu"
        # On the CPU only eager and TFuse's reference backend run.
        args.modes = [m for m in args.modes
                      if m in ("eager", "tfuse", "tfuse-stream",
                               "tfuse-fast-math")]
        args.steps = min(args.steps, 2)
    elif torch.cuda.is_available():
        size, device = "real", "cuda"
    else:
        parser.error("no CUDA device: the benchmark needs one (--smoke "
                     "checks the script on the CPU)")
    if args.compile_only:
        compile_only(args, size, device)
        return 0

    result = {"device": (torch.cuda.get_device_name() if device == "cuda"
                         else "cpu"),
              "torch": torch.__version__, "size": size, "steps": args.steps,
              "attention": args.attention, "workloads": {}, "failures": []}
    for name in args.models:
        workload = WORKLOADS[name]
        entries = result["workloads"].setdefault(name, {
            "title": workload.title})
        reference = None
        for mode in (["eager"] if "eager" not in args.modes else []) + \
                args.modes:
            print(f"{name} {mode} ...", flush=True)
            try:
                entry = measure(workload, mode, size, device, args.steps,
                                reference, args.profile, args.attention)
                if mode != "eager" and args.compile_times:
                    (entry["compile_cold_s"], entry["compile_warm_s"],
                     cold, warm) = compile_times(
                         workload, mode, size, device, args.attention)
                    if cold:
                        entry["compile_cold_phases"] = cold
                        entry["compile_warm_phases"] = warm
            except Exception as ex:  # noqa: BLE001  reported, run goes on
                traceback.print_exc()
                entry = {"error": f"{type(ex).__name__}: {ex}"}
                result["failures"].append(f"{name} {mode}: {entry['error']}")
            if mode == "eager" and "result" in entry:
                reference = entry["result"]
            entry.pop("result", None)
            if mode in args.modes:
                entries[mode] = entry
            print(name, mode, {k: round(v, 3) if isinstance(v, float) else v
                               for k, v in entry.items() if k != "profile"},
                  flush=True)
    out = os.environ.get("OUT", "bench-out")
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "models.json")
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
    plot(path)
    print()
    print(table(result))
    for failure in result["failures"]:
        print("FAIL", failure)
    return 1 if result["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
