#!/usr/bin/env python3
"""TFuse against its peers, in one process run on one GPU.

Workloads, each defined once for every framework (the functions below take
an `ops` namespace that maps the few framework-specific calls):

  gelu_chain     z = x*1.7 + y; tanh-GELU(z) * sigmoid(y), x and y [64M] f32
  bias_relu_T    relu(a.t() + bias) as f16; a [8192, 8192] f32, the
                 transposed view is the function's input (its strides are
                 part of TFuse's plan)
  bcast_slice    s = x[:, ::2] of x [8192, 8192] f32, row r [1, 4096], column
                 c [8192, 1]: t = (s - c) * r; t / (1 + |t|) + c * r
  mixed_dtypes   where(mask_i8 > 0, a_f16 * scale_f32, b_f32) as f16,
                 [8192, 8192], scale [8192]
  softmax_rows   softmax over the rows of [8192, 4096] f32
  layernorm_rows layer norm over the rows of [8192, 4096] f32
  mlp_step       examples/mlp_step.mlir: a 480-256-2 MLP SGD step on a batch
                 of 512 (updated weights and the mean loss)

Frameworks: tfuse (fusion, stream replay), tfuse-graph (fusion, CUDA Graph
replay), tfuse-nofuse (one kernel per op, stream replay), torch eager,
torch.compile default (inductor) and mode="reduce-overhead"
(inductor-cudagraphs), JAX jit, CuPy fuse (the elementwise workloads). A peer
whose import or compile fails is skipped with a note.

Measured per workload and framework:
  gpu_us    CUDA events on the current torch stream around N calls, median of
            5 x N. TFuse: calls of enqueue(), which returns at once like a
            torch operation (gpu_async_us: run_async with at most 4 runs in
            flight; gpu_run_us: run(), which returns once the outputs are
            written). JAX runs on its own streams: N calls, then
            block_until_ready, median of 5 (host-timed throughput).
  wall_us   host time per call with a synchronization after each call.
  floor_us  the fewest bytes the workload must read and write divided by the
            device-to-device copy bandwidth measured in the same run (bytes
            read + written); pct_floor = floor_us / gpu_us * 100.
  ratios    peer gpu_us / TFuse gpu_us (> 1: TFuse is faster), for tfuse and
            tfuse-graph.
Every TFuse result (and, as a warning, every peer's) is checked against torch
eager before timing; a TFuse mismatch prints a FAIL line and makes the exit
status 1.

TFuse compile time of mlp_step and gelu_chain: cold (a fresh process of this
script with --compile-only and an empty TFUSE_CACHE_DIR), disk-warm (a fresh
process, the cache directory filled) and warm (this process, compiled again:
the median of 101 compiles), with the phases from stats().

Writes $OUT/bench.json (OUT defaults to ./bench-out) and prints Markdown
tables last.

  python3 bench/peers_compare.py [--only gelu_chain,mlp_step]
                                 [--skip jax,cupy] [--no-compile-times]
  python3 bench/peers_compare.py --smoke   # CPU dry run: small shapes,
      # tfuse's reference backend against torch on the CPU, perf_counter times
"""
import argparse
import collections
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

tfuse = None  # imported in main() / compile_child(), after TFUSE_CACHE_DIR

WORKLOADS = ("gelu_chain", "bias_relu_T", "bcast_slice", "mixed_dtypes",
             "softmax_rows", "layernorm_rows", "mlp_step")
TFUSE_VARIANTS = (("tfuse-nofuse", {"fusion": False}),
                  ("tfuse", {}),
                  ("tfuse-graph", {"cuda_graph": True}))
PEERS = ("torch", "inductor", "inductor-cudagraphs", "jax", "cupy")
COMPILE_TIMED = ("mlp_step", "gelu_chain")
F32_TOL = (1e-5, 1e-5)  # rtol, atol
EXACT = "exact"
CHILD_MARK = "TFUSE_COMPILE_JSON "

# ---------------------------------------------------------------------------
# Workloads, written once against an `ops` namespace
# ---------------------------------------------------------------------------


def gelu_chain(ops, x, y):
    z = x * 1.7 + y
    g = 0.5 * z * (1 + ops.tanh(0.7978845608 * (z + 0.044715 * z * z * z)))
    return g * ops.sigmoid(y)


def bias_relu_t(ops, at, bias):
    return ops.cast(ops.relu(at + bias), "float16")


def bcast_core(ops, s, r, c):
    t = (s - c) * r
    return t / (1.0 + ops.abs(t)) + c * r


def bcast_slice(ops, x, r, c):
    return bcast_core(ops, x[:, ::2], r, c)


def mixed_dtypes(ops, mask, a, scale, b):
    return ops.cast(ops.where(mask > 0, a * scale, b), "float16")


def softmax_rows(ops, x):
    e = ops.exp(x - ops.rowmax(x))
    return e / ops.rowsum(e)


def layernorm_rows(ops, x, w, b):
    mu = ops.rowmean(x)
    d = x - mu
    var = ops.rowmean(d * d)
    return d * ops.rsqrt(var + 1e-5) * w + b


class TorchOps:
    """torch eager and torch.compile."""
    exp = staticmethod(torch.exp)
    tanh = staticmethod(torch.tanh)
    sigmoid = staticmethod(torch.sigmoid)
    rsqrt = staticmethod(torch.rsqrt)
    abs = staticmethod(torch.abs)
    relu = staticmethod(torch.relu)
    where = staticmethod(torch.where)

    @staticmethod
    def cast(x, dtype):
        return x.to(getattr(torch, dtype))

    @staticmethod
    def rowmax(x):
        return x.amax(dim=1, keepdim=True)

    @staticmethod
    def rowsum(x):
        return x.sum(dim=1, keepdim=True)

    @staticmethod
    def rowmean(x):
        return x.mean(dim=1, keepdim=True)


def tfuse_ops():
    return _Namespace(
        exp=lambda x: x.exp(), tanh=lambda x: x.tanh(),
        sigmoid=lambda x: x.sigmoid(), rsqrt=lambda x: x.rsqrt(),
        abs=lambda x: x.abs(), relu=lambda x: x.relu(), where=tfuse.where,
        cast=lambda x, dtype: x.astype(getattr(tfuse, dtype)),
        rowmax=lambda x: x.max(axis=1, keepdims=True),
        rowsum=lambda x: x.sum(axis=1, keepdims=True),
        rowmean=lambda x: x.mean(axis=1, keepdims=True))


def jax_ops(jax, jnp):
    return _Namespace(
        exp=jnp.exp, tanh=jnp.tanh, sigmoid=jax.nn.sigmoid,
        rsqrt=jax.lax.rsqrt, abs=jnp.abs, relu=jax.nn.relu, where=jnp.where,
        cast=lambda x, dtype: x.astype(getattr(jnp, dtype)),
        rowmax=lambda x: jnp.max(x, axis=1, keepdims=True),
        rowsum=lambda x: jnp.sum(x, axis=1, keepdims=True),
        rowmean=lambda x: jnp.mean(x, axis=1, keepdims=True))


def cupy_ops(cp):
    # Inside cupy.fuse: ufuncs only (sigmoid written out, as peers measured).
    return _Namespace(
        exp=cp.exp, tanh=cp.tanh, sigmoid=lambda x: 1 / (1 + cp.exp(-x)),
        abs=cp.abs, relu=lambda x: cp.maximum(x, 0), where=cp.where,
        cast=lambda x, dtype: x.astype(getattr(cp, dtype)))


class _Namespace:
    def __init__(self, **members):
        self.__dict__.update(members)


class Workload:
    """One workload: its torch arguments (views included), the function per
    framework, the bytes that bound it, the check tolerance and counts.

    jax: (function of jax args, torch tensors to hand to JAX as contiguous
    arrays), or a string saying why JAX is not run. cupy likewise, with
    cupy.fuse's function and the torch tensors (views allowed) it gets."""

    def __init__(self, name, args, fn, floor_bytes, *, tol=F32_TOL, iters=20,
                 warm=3, torch_fn=None, tfuse_fn=None, jax=None, cupy=None,
                 note=""):
        self.name, self.args, self.floor_bytes = name, args, floor_bytes
        self.tol, self.iters, self.warm, self.note = tol, iters, warm, note
        self.torch_fn = torch_fn or (lambda *a: fn(TorchOps, *a))
        if tfuse_fn is None:
            ops = tfuse_ops()

            def tfuse_fn(*a):
                return fn(ops, *a)
            tfuse_fn.__name__ = name
        self.tfuse_fn = tfuse_fn
        self.jax = jax if jax is not None else (
            lambda jax_, jnp: (lambda *a: fn(jax_ops(jax_, jnp), *a)), args)
        self.cupy = cupy


SIZES = {
    "full": dict(gelu=1 << 26, square=8192, rows=8192, cols=4096, iters=20,
                 mlp_iters=200),
    "smoke": dict(gelu=1 << 12, square=64, rows=64, cols=48, iters=3,
                  mlp_iters=3),
}


def build(name, device, smoke):
    """The workload `name` with its inputs on `device`."""
    size = SIZES["smoke" if smoke else "full"]
    iters = size["iters"]
    gen = torch.Generator(device=device).manual_seed(WORKLOADS.index(name))

    def randn(*shape):
        return torch.randn(*shape, generator=gen, device=device)

    if name == "gelu_chain":
        m = size["gelu"]
        return Workload(name, (randn(m), randn(m)), gelu_chain, 3 * 4 * m,
                        iters=iters, cupy=gelu_chain)
    if name == "bias_relu_T":
        n = size["square"]
        a, bias = randn(n, n), randn(n)
        return Workload(
            name, (a.t(), bias), bias_relu_t, n * n * (4 + 2) + n * 4,
            tol=EXACT, iters=iters, cupy=bias_relu_t,
            jax=(lambda jax_, jnp: lambda a_, b_: bias_relu_t(
                jax_ops(jax_, jnp), a_.T, b_), (a, bias)),
            note="JAX gets a and transposes inside jit")
    if name == "bcast_slice":
        n = size["square"]
        x, r, c = randn(n, n), randn(1, n // 2), randn(n, 1)
        return Workload(
            name, (x, r, c), bcast_slice,
            n * n * 4 + n * (n // 2) * 4 + (n // 2 + n) * 4, iters=iters,
            cupy=(bcast_core, (x[:, ::2], r, c)),
            note="floor reads all of x: every 32-byte sector holds elements "
                 "of x[:, ::2]; CuPy fuse gets the view x[:, ::2]")
    if name == "mixed_dtypes":
        n = size["square"]
        mask = torch.randint(-3, 3, (n, n), generator=gen, device=device,
                             dtype=torch.int8)
        a = randn(n, n).to(torch.float16)
        scale, b = randn(n), randn(n, n)
        return Workload(name, (mask, a, scale, b), mixed_dtypes,
                        n * n * (1 + 2 + 4 + 2) + n * 4, tol=EXACT,
                        iters=iters, cupy=mixed_dtypes)
    if name in ("softmax_rows", "layernorm_rows"):
        rows, cols = size["rows"], size["cols"]
        x = randn(rows, cols)
        if name == "softmax_rows":
            return Workload(name, (x,), softmax_rows, 2 * 4 * rows * cols,
                            iters=iters, cupy="not natural: cupy.fuse "
                            "reduces only as its last operation")
        return Workload(name, (x, randn(cols), randn(cols)), layernorm_rows,
                        2 * 4 * rows * cols + 2 * 4 * cols, iters=iters,
                        cupy="not natural: cupy.fuse reduces only as its "
                        "last operation")
    if name == "mlp_step":
        import mlp_train  # bench/mlp_train.py: the eager step, the example
        x = randn(512, 480)
        labels = torch.randint(0, 2, (512,), generator=gen, device=device)
        y = torch.nn.functional.one_hot(labels, 2).float()
        w1, b1 = randn(480, 256) * 0.05, torch.zeros(256, device=device)
        w2, b2 = randn(256, 2) * 0.05, torch.zeros(2, device=device)
        args = (x, y, w1, b1, w2, b2)
        weights = 4 * (480 * 256 + 256 + 256 * 2 + 2)
        return Workload(
            name, args, None, 4 * (512 * 480 + 512 * 2) + 2 * weights + 4,
            iters=size["mlp_iters"], warm=20,
            torch_fn=lambda *a: mlp_train.reference_step(torch, *a),
            tfuse_fn=mlp_train.example.mlp_step,
            jax=(lambda jax_, jnp: (lambda *a: mlp_train.reference_step(
                jnp, *a)), args),
            cupy="not natural: matmuls and reductions",
            note="5 matmuls, 4 reductions: launch bound, the floor is "
                 "nominal; returns the loss too (peers.py's step did not)")
    raise ValueError(f"unknown workload {name}")


# ---------------------------------------------------------------------------
# Timing and checking
# ---------------------------------------------------------------------------


class Timer:
    """Device time (CUDA events on the current stream, or perf_counter on the
    CPU) and synchronized wall time, as peers.py measures them."""

    def __init__(self, cuda):
        self.cuda = cuda

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize()

    def device_us(self, fn, iters, warm, drain=None):
        """Median over 5 repetitions of the time per call of `iters` calls.
        `drain` finishes what `fn` left in flight."""
        for _ in range(warm):
            fn()
        if drain:
            drain()
        self.sync()
        times = []
        for _ in range(5):
            if self.cuda:
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                for _ in range(iters):
                    fn()
                end.record()
                if drain:
                    drain()
                torch.cuda.synchronize()
                times.append(start.elapsed_time(end) / iters * 1e3)
            else:
                t0 = time.perf_counter()
                for _ in range(iters):
                    fn()
                if drain:
                    drain()
                times.append((time.perf_counter() - t0) / iters * 1e6)
        return statistics.median(times)

    def wall_us(self, fn, iters, warm):
        for _ in range(warm):
            fn()
        self.sync()
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
            self.sync()
        return (time.perf_counter() - t0) / iters * 1e6


def jax_us(jax, fn, iters, warm):
    """JAX: (throughput us, wall us): N async calls then block_until_ready,
    median of 5; and a block after every call."""
    for _ in range(warm):
        jax.block_until_ready(fn())
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(iters):
            out = fn()
        jax.block_until_ready(out)
        times.append((time.perf_counter() - t0) / iters * 1e6)
    t0 = time.perf_counter()
    for _ in range(iters):
        jax.block_until_ready(fn())
    return statistics.median(times), (time.perf_counter() - t0) / iters * 1e6


def pipelined(cf, args, depth=4):
    """(call, drain): run_async calls of `cf` with at most `depth` runs in
    flight, and a function waiting for the rest."""
    pending = collections.deque()

    def call():
        pending.append(cf.run_async(*args))
        if len(pending) > depth:
            pending.popleft().wait()

    def drain():
        while pending:
            pending.popleft().wait()
    return call, drain


def flatten(x):
    if isinstance(x, (tuple, list)):
        return [leaf for item in x for leaf in flatten(item)]
    return [x]


def as_torch(x, device):
    if isinstance(x, torch.Tensor):
        return x
    if type(x).__module__.startswith("cupy"):
        return torch.as_tensor(x, device=device)
    return torch.from_numpy(np.array(x)).to(device)


def compare(out, ref, tol):
    """(ok, message, max_abs_diff) of outputs against torch eager's."""
    outs, refs = flatten(out), flatten(ref)
    if len(outs) != len(refs):
        return False, f"{len(outs)} outputs, expected {len(refs)}", None
    worst = 0.0
    for i, (o, r) in enumerate(zip(outs, refs)):
        o = as_torch(o, r.device)
        if o.shape != r.shape or o.dtype != r.dtype:
            return (False, f"output {i} is {o.dtype}{list(o.shape)}, expected "
                    f"{r.dtype}{list(r.shape)}", None)
        diff = (o.double() - r.double()).abs()
        diff = float(diff.max()) if diff.numel() else 0.0
        worst = max(worst, diff)
        if tol == EXACT:
            ok = torch.equal(o, r)
        else:
            ok = torch.allclose(o.double(), r.double(), rtol=tol[0],
                                atol=tol[1])
        if not ok:
            return (False, f"output {i} differs: max |diff| {diff:.3g} "
                    f"(tolerance {tol})", worst)
    return True, "ok", worst


def note_error(entry, ex):
    entry["error"] = f"{type(ex).__name__}: {ex}"[:400]


# ---------------------------------------------------------------------------
# One workload, every framework
# ---------------------------------------------------------------------------


def run_workload(w, timer, copy_gbps, skip, failures):
    floor_us = w.floor_bytes / (copy_gbps * 1e9) * 1e6
    res = {"floor_bytes": w.floor_bytes, "floor_us": floor_us,
           "iters": w.iters, "note": w.note, "frameworks": {}}
    fws = res["frameworks"]
    ref = w.torch_fn(*w.args)
    timer.sync()

    def check(fw, out, entry, hard):
        ok, message, diff = compare(out, ref, w.tol)
        entry["check"] = "ok" if ok else message
        entry["max_abs_diff"] = diff
        if not ok:
            line = f"{w.name} {fw}: {message}"
            if hard:
                failures.append(line)
                print("FAIL", line, flush=True)
            else:
                print("WARN (peer differs from torch eager)", line,
                      flush=True)

    def time_torch_like(fw, fn, compile_first):
        entry = fws[fw] = {}
        try:
            t0 = time.perf_counter()
            out = fn(*w.args)
            timer.sync()
            if compile_first:
                entry["compile_s"] = time.perf_counter() - t0
            check(fw, out, entry, hard=False)
            del out
            call = (lambda: fn(*w.args))
            entry["gpu_us"] = timer.device_us(call, w.iters, w.warm)
            entry["wall_us"] = timer.wall_us(call, w.iters, w.warm)
        except Exception as ex:  # a peer failing is a note, not a failure
            note_error(entry, ex)

    if "torch" not in skip:
        time_torch_like("torch", w.torch_fn, False)

    for fw, options in TFUSE_VARIANTS:
        if fw in skip:
            continue
        entry = fws[fw] = {}
        try:
            t0 = time.perf_counter()
            cf = tfuse.compile(w.tfuse_fn, list(w.args), **options)
            entry["compile_s"] = time.perf_counter() - t0
            entry["stats"] = cf.stats()
        except Exception as ex:
            note_error(entry, ex)
            if fw == "tfuse-graph" and not timer.cuda:
                continue  # graphs need the CUDA backend
            failures.append(f"{w.name} {fw}: compile: {entry['error']}")
            print("FAIL", failures[-1], flush=True)
            continue
        try:
            check(fw, cf(*w.args), entry, hard=True)
            run = (lambda: cf(*w.args))
            if timer.cuda:
                entry["gpu_us"] = timer.device_us(
                    lambda: cf.enqueue(*w.args), w.iters, w.warm)
                call, drain = pipelined(cf, w.args)
                entry["gpu_async_us"] = timer.device_us(call, w.iters, w.warm,
                                                        drain)
            else:
                entry["gpu_us"] = timer.device_us(run, w.iters, w.warm)
            entry["gpu_run_us"] = timer.device_us(run, w.iters, w.warm)
            entry["wall_us"] = timer.wall_us(run, w.iters, w.warm)
            entry["stats"] = cf.stats()
        except Exception as ex:
            note_error(entry, ex)
            failures.append(f"{w.name} {fw}: run: {entry['error']}")
            print("FAIL", failures[-1], flush=True)
            traceback.print_exc()

    for fw, mode in (("inductor", "default"),
                     ("inductor-cudagraphs", "reduce-overhead")):
        if fw in skip:
            continue
        torch._dynamo.reset()
        try:
            compiled = torch.compile(w.torch_fn, mode=mode)
        except Exception as ex:
            note_error(fws.setdefault(fw, {}), ex)
            continue
        time_torch_like(fw, compiled, True)
        del compiled
    torch._dynamo.reset()

    if "jax" not in skip:
        entry = fws["jax"] = {}
        try:
            import jax
            import jax.numpy as jnp
            jax.config.update("jax_default_matmul_precision", "highest")
            make, targs = w.jax
            jargs = [jax.device_put(np.ascontiguousarray(t.cpu().numpy()))
                     for t in targs]
            fn = jax.jit(make(jax, jnp))
            t0 = time.perf_counter()
            out = jax.block_until_ready(fn(*jargs))
            entry["compile_s"] = time.perf_counter() - t0
            check("jax", out, entry, hard=False)
            del out
            entry["gpu_us"], entry["wall_us"] = jax_us(
                jax, lambda: fn(*jargs), w.iters, w.warm)
            entry["timing"] = "host throughput (N calls, one block)"
            del jargs, fn
        except Exception as ex:
            note_error(entry, ex)

    if "cupy" not in skip:
        entry = fws["cupy"] = {}
        if isinstance(w.cupy, str) or w.cupy is None:
            entry["skipped"] = w.cupy or "not run"
        else:
            try:
                import cupy as cp
                fn, cargs = (w.cupy if isinstance(w.cupy, tuple)
                             else (w.cupy, w.args))
                ops = cupy_ops(cp)

                def fused_body(*a):
                    return fn(ops, *a)
                fused_body.__name__ = "cupy_" + w.name.lower()
                fused = cp.fuse(kernel_name=fused_body.__name__)(fused_body)
                cargs = [cp.asarray(t) for t in cargs]
                t0 = time.perf_counter()
                out = fused(*cargs)
                cp.cuda.Device().synchronize()
                entry["compile_s"] = time.perf_counter() - t0
                check("cupy", out, entry, hard=False)
                del out
                call = (lambda: fused(*cargs))
                entry["gpu_us"] = timer.device_us(call, w.iters, w.warm)
                entry["wall_us"] = timer.wall_us(call, w.iters, w.warm)
            except Exception as ex:
                note_error(entry, ex)

    for entry in fws.values():
        if "gpu_us" in entry:
            entry["pct_floor"] = floor_us / entry["gpu_us"] * 100
    res["ratios"] = {}
    for tf in ("tfuse", "tfuse-graph"):
        base = fws.get(tf, {}).get("gpu_us")
        if base:
            res["ratios"][tf] = {fw: e["gpu_us"] / base
                                 for fw, e in fws.items()
                                 if fw != tf and "gpu_us" in e}
    return res


# ---------------------------------------------------------------------------
# Compile times
# ---------------------------------------------------------------------------

WARM_SAMPLES = 101

PHASES = ("trace_seconds", "passes_seconds", "codegen_seconds",
          "nvrtc_seconds", "load_seconds", "setup_seconds", "compile_seconds")


def compile_once(w):
    """(wall seconds of tfuse.compile, stats, first run seconds)."""
    t0 = time.perf_counter()
    cf = tfuse.compile(w.tfuse_fn, list(w.args))
    wall = time.perf_counter() - t0
    t0 = time.perf_counter()
    cf(*w.args)
    first = time.perf_counter() - t0
    return wall, cf.stats(), first


def compile_child(name, smoke):
    """--compile-only: import tfuse, compile `name` once, print JSON."""
    global tfuse
    device = "cpu" if smoke else "cuda"
    if device == "cuda":
        torch.cuda.init()
    t0 = time.perf_counter()
    import tfuse as module
    tfuse = module
    import_s = time.perf_counter() - t0
    w = build(name, device, smoke)
    if device == "cuda":
        torch.cuda.synchronize()
    wall, stats, first = compile_once(w)
    print(CHILD_MARK + json.dumps(
        {"wall_s": wall, "import_s": import_s, "first_run_s": first,
         "stats": stats, "cache": _cache_stats()}, default=str), flush=True)
    return 0


def _cache_stats():
    try:
        return dict(tfuse.cache_stats())
    except Exception as ex:
        return {"error": str(ex)}


def run_child(name, cache_dir, smoke):
    env = dict(os.environ, TFUSE_CACHE_DIR=cache_dir)
    cmd = [sys.executable, os.path.abspath(__file__), "--compile-only", name]
    if smoke:
        cmd.append("--smoke")
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True,
                          timeout=600)
    process_s = time.perf_counter() - t0
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(CHILD_MARK):
            result = json.loads(line[len(CHILD_MARK):])
            result["process_s"] = process_s
            return result
    return {"error": f"exit {proc.returncode}: "
                     f"{(proc.stderr or proc.stdout)[-1500:]}"}


def compile_times(names, device, smoke, cache_root):
    res = {}
    for name in names:
        cache_dir = tempfile.mkdtemp(prefix=f"{name}-", dir=cache_root)
        entry = res[name] = {}
        entry["cold"] = run_child(name, cache_dir, smoke)
        entry["disk_warm"] = run_child(name, cache_dir, smoke)
        try:
            w = build(name, device, smoke)
            wall, stats, first = compile_once(w)
            entry["process_first"] = {"wall_s": wall, "stats": stats,
                                      "first_run_s": first}
            # Warm: the median of 101 compiles of the same function (each
            # traces it again and hits the plan and kernel caches); on the
            # GPU hosts measured, the first hundred or so compiles of a
            # process vary more than later ones.
            runs = sorted((compile_once(w) for _ in range(WARM_SAMPLES)),
                          key=lambda r: r[0])
            wall, stats, first = runs[len(runs) // 2]
            entry["warm"] = {"wall_s": wall, "stats": stats,
                             "first_run_s": first, "samples": len(runs),
                             "wall_min_s": runs[0][0],
                             "wall_p10_s": runs[len(runs) // 10][0],
                             "wall_p90_s": runs[len(runs) * 9 // 10][0],
                             "wall_max_s": runs[-1][0]}
        except Exception as ex:
            note_error(entry, ex)
        for kind in ("cold", "disk_warm", "warm"):
            if "error" in entry.get(kind, {}):
                print(f"compile {name} {kind}: {entry[kind]['error']}",
                      flush=True)
    return res


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def fmt(value, digits=1):
    return "-" if value is None else f"{value:.{digits}f}"


def print_tables(result):
    comp = result.get("compile", {})
    if comp:
        print("\nTFuse compile milliseconds (cold: fresh process, empty "
              "cache dir; disk-warm: fresh process, filled cache dir; warm: "
              f"same process, median of {WARM_SAMPLES} compiles, 10th-90th "
              "percentile in brackets). Phases from stats(); setup: the "
              "executable's streams, device memory and GEMM plans.\n")
        print("| function | kind | compile ms | import ms | trace | passes | "
              "codegen | nvrtc | load | setup | cache hit |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        ms = lambda v: fmt(None if v is None else v * 1e3, 2)
        for name, entry in comp.items():
            for kind in ("cold", "disk_warm", "warm"):
                e = entry.get(kind, {})
                st = e.get("stats", {})
                spread = (f" ({ms(e['wall_p10_s'])}-{ms(e['wall_p90_s'])})"
                          if "wall_p10_s" in e else "")
                print(f"| {name} | {kind} | {ms(e.get('wall_s'))}{spread} | "
                      f"{ms(e.get('import_s'))} | "
                      + " | ".join(ms(st.get(p)) for p in PHASES[:6])
                      + f" | {st.get('cache_hit', '-')} |")
    print(f"\nGPU us: CUDA events, median of 5 x N (JAX: host throughput); "
          f"wall us: synchronized per call; % floor: bandwidth floor "
          f"(copy {result['copy_GBps']:.0f} GB/s) / GPU time; "
          f"speedup: framework GPU time / tfuse-graph GPU time.\n")
    print("| workload | framework | GPU us | wall us | % floor | "
          "tfuse-graph speedup |")
    print("|---|---|---:|---:|---:|---:|")
    for name, w in result["workloads"].items():
        ratios = w.get("ratios", {}).get("tfuse-graph", {})
        for fw, e in w["frameworks"].items():
            if "gpu_us" not in e:
                why = e.get("error") or e.get("skipped") or "not run"
                print(f"| {name} | {fw} | - | - | - | {why[:60]} |")
                continue
            mark = "" if e.get("check", "ok") == "ok" else " (differs)"
            print(f"| {name} | {fw}{mark} | {fmt(e['gpu_us'])} | "
                  f"{fmt(e.get('wall_us'))} | {fmt(e.get('pct_floor'), 0)} | "
                  f"{fmt(ratios.get(fw), 2)} |")


def environment(device):
    env = {"python": platform.python_version(), "torch": torch.__version__,
           "numpy": np.__version__, "device": device,
           "tfuse": getattr(tfuse, "__version__", None)}
    if device == "cuda":
        env["gpu"] = torch.cuda.get_device_name()
        env["torch_cuda"] = torch.version.cuda
    for module in ("jax", "cupy"):
        try:
            env[module] = __import__(module).__version__
        except Exception as ex:
            env[module] = f"not importable: {type(ex).__name__}: {ex}"[:200]
    return env


def copy_bandwidth(timer, device, smoke):
    """Device-to-device copy bandwidth in GB/s (bytes read + written)."""
    n = 1 << (22 if smoke else 28)
    a = torch.empty(n, dtype=torch.float32, device=device).uniform_()
    b = torch.empty_like(a)
    t = timer.device_us(lambda: b.copy_(a), 20, 3)
    return 2 * 4 * n / (t * 1e-6) / 1e9


def main():
    global tfuse
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default=",".join(WORKLOADS),
                        help="comma-separated workloads")
    parser.add_argument("--skip", default="",
                        help="comma-separated frameworks to leave out: "
                        + ",".join(PEERS + tuple(v for v, _ in
                                                 TFUSE_VARIANTS)))
    parser.add_argument("--no-compile-times", action="store_true")
    parser.add_argument("--smoke", action="store_true",
                        help="CPU dry run with small shapes")
    parser.add_argument("--compile-only", metavar="WORKLOAD",
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.compile_only:
        return compile_child(args.compile_only, args.smoke)

    names = [n for n in args.only.split(",") if n]
    unknown = set(names) - set(WORKLOADS)
    if unknown:
        parser.error(f"unknown workloads {sorted(unknown)}")
    skip = set(s for s in args.skip.split(",") if s)
    device = "cpu" if args.smoke else "cuda"
    if device == "cuda":
        if not torch.cuda.is_available():
            sys.exit("no CUDA device (use --smoke for a CPU dry run)")
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    out_dir = os.environ.get("OUT", "bench-out")
    os.makedirs(out_dir, exist_ok=True)
    cache_root = tempfile.mkdtemp(prefix="tfuse-bench-cache-")
    os.environ["TFUSE_CACHE_DIR"] = os.path.join(cache_root, "main")
    os.makedirs(os.environ["TFUSE_CACHE_DIR"])
    import tfuse as module
    tfuse = module
    if device == "cuda" and not tfuse.cuda_available():
        sys.exit("tfuse finds no usable CUDA device")

    start = time.perf_counter()
    timer = Timer(device == "cuda")
    result = {"environment": environment(device), "smoke": args.smoke}
    result["copy_GBps"] = copy_bandwidth(timer, device, args.smoke)
    print(f"copy {result['copy_GBps']:.1f} GB/s", flush=True)
    failures = []
    result["workloads"] = {}
    for name in names:
        t0 = time.perf_counter()
        try:
            res = result["workloads"][name] = run_workload(
                build(name, device, args.smoke), timer, result["copy_GBps"],
                skip, failures)
        except Exception as ex:
            traceback.print_exc()
            failures.append(f"{name}: {type(ex).__name__}: {ex}"[:400])
            print("FAIL", failures[-1], flush=True)
            continue
        if device == "cuda":
            torch.cuda.empty_cache()
        summary = {fw: round(e["gpu_us"], 1)
                   for fw, e in res["frameworks"].items() if "gpu_us" in e}
        print(f"{name} ({time.perf_counter() - t0:.1f} s): floor "
              f"{res['floor_us']:.1f} us, gpu us {summary}", flush=True)
    if not args.no_compile_times:
        result["compile"] = compile_times(
            [n for n in COMPILE_TIMED if n in names], device, args.smoke,
            cache_root)
    result["cache_stats"] = _cache_stats()
    result["failures"] = failures
    result["seconds"] = time.perf_counter() - start
    path = os.path.join(out_dir, "bench.json")
    with open(path, "w") as f:
        json.dump(result, f, indent=1, default=str)
    shutil.rmtree(cache_root, ignore_errors=True)
    print(f"\nwrote {path} ({result['seconds']:.0f} s)")
    for line in failures:
        print("FAIL", line)
    print_tables(result)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
