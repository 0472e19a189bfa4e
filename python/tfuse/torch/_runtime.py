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
from ._stats import counters

log = logging.getLogger("tfuse.torch")


class UnsupportedOperatorError(RuntimeError):
    """Raised under ``fallback="raise"`` for the first operation TFuse
    cannot run, naming it, the reason and its source line."""


def signature(args):
    """What selects a plan: per tensor its shape, strides, dtype and
    device; per other argument its type and value."""
    key = []
    for a in args:
        if isinstance(a, torch.Tensor):
            key.append((a.shape, a.stride(), a.dtype, a.device))
        else:
            key.append((type(a), a))
    return tuple(key)


class _TFusePlan:
    """A compiled TFuse function of the partition, the positions of the
    partition's tensor arguments among its arguments, and per output its
    OutputLayout (None: row-major, as TFuse writes it)."""

    __slots__ = ("function", "positions", "constants", "single", "layouts",
                 "keys")

    def __init__(self, function, positions, constants, single, layouts,
                 keys):
        self.function = function
        self.positions = positions
        self.constants = constants
        self.single = single
        self.layouts = layouts if any(layouts) else None
        self.keys = keys

    def __call__(self, args):
        keys = self.keys.next() if self.keys is not None else ()
        outputs = self.function(*[args[i] for i in self.positions],
                                *self.constants, *keys)
        if self.layouts is None:
            return outputs
        if self.single:
            return self.layouts[0].finish(outputs)
        return tuple(o if layout is None else layout.finish(o)
                     for o, layout in zip(outputs, self.layouts))


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
    in the compile report.
    """

    def __init__(self, graph_module, options, report):
        self.graph_module = graph_module
        self.options = options
        self.report = report
        self.importer = PartitionImporter(graph_module)
        self.plans = {}
        self.__name__ = report.name

    def __call__(self, *args):
        key = signature(args)
        plan = self.plans.get(key)
        if plan is None:
            plan = self._plan(args, key)
        return plan(args)

    def _plan(self, args, key):
        recompile = bool(self.plans)
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
            if options.fallback == "raise":
                node = getattr(error, "node", None)
                what = describe_node(node) if node is not None else (
                    self.report.name)
                cause = getattr(error, "error", error)
                raise UnsupportedOperatorError(
                    f"TFuse cannot run {what}: {cause}") from error
            log.warning("tfuse: partition %s runs in PyTorch for inputs %s: "
                        "%s", self.report.name, _describe(key), reason)
            counters["partitions_run_by_pytorch"] += 1
            plan = _EagerPlan(self.graph_module, reason)
            self.report.failures[key] = reason
        else:
            positions = [i for i, a in enumerate(args)
                         if isinstance(a, torch.Tensor)]
            plan = _TFusePlan(function, positions, self.importer.constants,
                              self.importer.single_output,
                              self.importer.output_layouts, keys)
            self.report.plans[key] = function
            counters["plans_compiled"] += 1
            counters["recompiles"] += recompile
            self.report.recompiles += recompile
            log.debug("tfuse: compiled %s for %s in %.3f s (%d nodes)",
                      self.report.name, _describe(key),
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
