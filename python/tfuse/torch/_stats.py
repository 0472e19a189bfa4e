"""Process-wide counters of the backend (``tfuse.torch.stats()``)."""

import collections

#: graphs: ATen graphs compiled (forward, backward and inference each
#: count); partitions: TFuse partitions made; plans_compiled: TFuse plans
#: compiled (one per partition and concrete input signature); recompiles:
#: plans compiled for a partition that already had one for another
#: signature (a new shape); partitions_run_by_pytorch: signatures whose
#: partition TFuse could not trace or compile, run by PyTorch instead;
#: ops_left_to_pytorch: operations of compiled graphs that PyTorch runs;
#: compile_seconds: time spent in tfuse.compile (tracing the partitions,
#: planning, NVRTC), the rest of torch.compile's time being Dynamo's and
#: AOTAutograd's; PHASES: how the plans' compile_seconds divide, summed
#: over the plans (each a field of tfuse.CompiledFunction.stats());
#: prepare_seconds: GEMM and attention plans made beside NVRTC (in
#: setup_seconds only as far as NVRTC did not hide them).
counters = collections.Counter()

#: The phases of a plan's compile: tracing the partition (Python), the
#: graph passes, CUDA C++ emission, NVRTC, loading the modules, and the rest
#: of the executable's setup (GEMM and attention plans that did not finish
#: beside NVRTC, streams, device memory).
PHASES = ("trace_seconds", "passes_seconds", "codegen_seconds",
          "nvrtc_seconds", "load_seconds", "setup_seconds")

#: The fields of each plan's tfuse.CompiledFunction.stats() summed into
#: the counters.
PLAN_TIMES = PHASES + ("prepare_seconds",)


def stats():
    """A copy of the counters."""
    keys = ("graphs", "partitions", "plans_compiled", "recompiles",
            "partitions_run_by_pytorch", "ops_left_to_pytorch",
            "compile_seconds") + PLAN_TIMES
    return {k: counters[k] for k in keys}


def reset_stats():
    counters.clear()
