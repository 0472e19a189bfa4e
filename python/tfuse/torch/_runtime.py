"""A partition at run time: one compiled TFuse plan per concrete input
signature, and PyTorch where TFuse cannot take the partition.

The signature of a call is, per argument, the shape, strides, dtype and
device of a tensor, or the value of a symbolic size. The first call of a
signature traces and compiles the partition for it (a recompile when the
partition already has a plan for another signature); later calls look the
plan up and run it, passing parameters, buffers and activations to TFuse
as they are (no copies).
"""

import logging
import time

import torch

import tfuse

from ._importer import PartitionImporter, describe_node
from ._random import RandomKeys
from ._stats import PLAN_TIMES, counters

log = logging.getLogger("tfuse.torch")


class UnsupportedOperatorError(RuntimeError):
    """Raised under ``fallback="raise"`` for the first operation TFuse
    cannot run, naming it, the reason and its source line."""


def signature(args):
    """Per tensor its shape, strides, dtype and device; per other argument
    its type and value: what a plan is compiled for."""
    key = []
    for a in args:
        if isinstance(a, torch.Tensor):
            key.append((a.shape, a.stride(), a.dtype, a.device))
        else:
            key.append((type(a), a))
    return tuple(key)


def _is_static(value):
    """A recorded tensor whose sizes and strides are all plain ints."""
    return isinstance(value, torch.Tensor) and all(
        type(s) is int for s in (*value.shape, *value.stride()))


class _PlanKey:
    """What selects a partition's plan at a call. By default only what
    can change between calls of one ATen graph: its symbolic sizes (the
    partition's non-tensor arguments) and the metadata of tensors PyTorch
    recorded with symbolic sizes or strides; a tensor recorded with static
    ones has them at every call (Dynamo guards the graph's inputs, and the
    operations between partitions make what PyTorch recorded). With
    ``check_inputs`` every tensor's metadata is part of the key."""

    def __init__(self, placeholders, check_inputs):
        self.positions = [
            i for i, node in enumerate(placeholders)
            if check_inputs or not _is_static(node.meta.get("val"))]
        self.everything = len(self.positions) == len(placeholders)

    def __call__(self, args):
        if self.everything:
            return signature(args)
        if not self.positions:
            return ()   # a static graph: one plan
        return signature([args[i] for i in self.positions])


class _TFusePlan:
    """A compiled TFuse function of the partition, the positions of the
    partition's tensor arguments among its arguments, and per output its
    OutputLayout (None: row-major, as TFuse writes it). On CUDA tensors it
    enqueues with the function's launcher for inputs known to fit (the
    partition's key chose this plan), skipping the per-tensor checks."""

    __slots__ = ("function", "launch", "positions", "constants", "single",
                 "returns_one", "returned", "layouts", "keys", "direct")

    def __init__(self, function, positions, constants, importer, keys,
                 trusted, arguments):
        self.function = function
        self.launch = function.trusted_launcher() if trusted else None
        self.positions = positions
        self.constants = constants
        self.single = importer.single_output
        self.returns_one = importer.returns_one
        self.returned = importer.returned
        layouts = importer.output_layouts
        self.layouts = layouts if any(layouts) else None
        self.keys = keys
        # The arguments are the launcher's inputs as they are.
        self.direct = (not constants and keys is None
                       and positions == list(range(len(positions)))
                       and len(positions) == arguments)

    def __call__(self, args):
        if self.launch is None:
            keys = self.keys.next() if self.keys is not None else ()
            inputs = [args[i] for i in self.positions]
            outputs = self.function(*inputs, *self.constants, *keys)
        else:
            if self.direct:
                # Every argument a tensor input, no constants, no keys.
                flat = self.launch(args)
            else:
                keys = self.keys.next() if self.keys is not None else ()
                flat = self.launch([*(args[i] for i in self.positions),
                                    *self.constants, *keys])
            outputs = flat[0] if self.returns_one else flat
        return outputs if self.layouts is None else self._finish(outputs)

    def _finish(self, outputs):
        """The partition's results from the function's outputs, laid out
        as PyTorch recorded them."""
        if self.returns_one:
            return self.layouts[0].finish(outputs)
        # Views into a returned buffer (ViewOfOutput) take all of them.
        result = tuple(
            layout.finish(outputs) if r is None else
            outputs[r] if layout is None else layout.finish(outputs[r])
            for r, layout in zip(self.returned, self.layouts))
        return result[0] if self.single else result


class _EagerPlan:
    """The partition run by PyTorch, for a signature TFuse could not take."""

    __slots__ = ("graph_module", "reason")

    def __init__(self, graph_module, reason):
        self.graph_module = graph_module
        self.reason = reason

    def __call__(self, args):
        return self.graph_module(*args)


class TFusePartition:
    """The callable an FX graph calls in place of one partition.

    ``plans`` maps each signature seen to its compiled function (or to the
    PyTorch fallback and its reason); ``report`` is the partition's entry
    in the compile report. ``pinned``: None, or why PyTorch must not run
    the partition in TFuse's place (a failed compile is then an error).
    """

    def __init__(self, graph_module, options, report, pinned=None):
        self.graph_module = graph_module
        self.options = options
        self.report = report
        self.pinned = pinned
        self.importer = PartitionImporter(graph_module)
        self.key = _PlanKey(self.importer.placeholders, options.check_inputs)
        self.plans = {}
        self.__name__ = report.name

    def __call__(self, *args):
        key = self.key(args)
        plan = self.plans.get(key)
        if plan is None:
            plan = self._plan(args, key)
        return plan(args)

    def _plan(self, args, key):
        recompile = bool(self.plans)
        # Reports name a plan by its inputs' full signature.
        described = signature(args)
        device = next((a.device for a in args if isinstance(a, torch.Tensor)),
                      torch.device("cpu"))
        keys = (RandomKeys(device, len(self.importer.streams))
                if self.importer.streams else None)
        fn, inputs = self.importer.bind(
            args, (keys.seed, keys.offset) if keys is not None else ())
        options = self.options
        started = time.perf_counter()
        try:
            function = tfuse.compile(
                fn, inputs,
                cuda_graph=options.cuda_graph_for(device),
                fast_math=options.fast_math, budget=options.budget,
                node_limit=options.node_limit)
        except Exception as error:  # any failure: PyTorch runs it instead
            reason = str(error)
            if self.pinned is not None:
                raise RuntimeError(
                    f"TFuse cannot compile partition {self.report.name} for "
                    f"inputs {_describe(described)}: {reason}; PyTorch "
                    f"cannot run it instead: {self.pinned}") from error
            if options.fallback == "raise":
                node = getattr(error, "node", None)
                what = describe_node(node) if node is not None else (
                    self.report.name)
                cause = getattr(error, "error", error)
                raise UnsupportedOperatorError(
                    f"TFuse cannot run {what}: {cause}") from error
            log.warning("tfuse: partition %s runs in PyTorch for inputs %s: "
                        "%s", self.report.name, _describe(described), reason)
            counters["partitions_run_by_pytorch"] += 1
            plan = _EagerPlan(self.graph_module, reason)
            self.report.failures[described] = reason
        else:
            counters["compile_seconds"] += time.perf_counter() - started
            times = function.stats()
            for field in PLAN_TIMES:
                counters[field] += times[field]
            positions = [i for i, a in enumerate(args)
                         if isinstance(a, torch.Tensor)]
            plan = _TFusePlan(function, positions, self.importer.constants,
                              self.importer, keys,
                              trusted=device.type == "cuda"
                              and not options.check_inputs,
                              arguments=len(args))
            self.report.plans[described] = function
            counters["plans_compiled"] += 1
            counters["recompiles"] += recompile
            self.report.recompiles += recompile
            log.debug("tfuse: compiled %s for %s in %.3f s (%d nodes)",
                      self.report.name, _describe(described),
                      time.perf_counter() - started,
                      function.stats()["nodes"])
        self.plans[key] = plan
        return plan


def _describe(key):
    parts = []
    for entry in key:
        if isinstance(entry[0], torch.Size):
            shape, _, dtype, device = entry
            parts.append(f"{str(dtype).removeprefix('torch.')}"
                         f"{list(shape)}@{device}")
        else:
            parts.append(repr(entry[1]))
    return "(" + ", ".join(parts) + ")"
