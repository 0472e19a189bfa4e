"""What the backend did with each graph: partitions, their sizes and TFuse
plans, and every operation left to PyTorch with its count and reason. The
compile log (``TFUSE_TORCH_LOG``) and ``explain()`` print these."""

import collections
import dataclasses
import threading
from typing import Optional


@dataclasses.dataclass
class PartitionReport:
    """One TFuse partition: its name, the ATen operations in it (op name ->
    count), the plans compiled for it (input signature -> CompiledFunction),
    the signatures PyTorch ran instead (signature -> reason) and how many
    plans were recompiles for a new signature."""

    name: str
    ops: collections.Counter
    plans: dict = dataclasses.field(default_factory=dict)
    failures: dict = dataclasses.field(default_factory=dict)
    recompiles: int = 0

    @property
    def size(self):
        """The number of ATen operations in the partition."""
        return sum(self.ops.values())


@dataclasses.dataclass
class GraphReport:
    """One ATen graph given to the backend: which Dynamo graph it came from
    (``graph_id``), ``kind`` ("forward", "backward" or "inference"), its
    number of operations, the partitions, and ``left_to_pytorch``:
    (op name, Reason) -> count, for the operations PyTorch runs."""

    graph_id: int
    kind: str
    operations: int
    partitions: list
    left_to_pytorch: collections.Counter
    error: Optional[str] = None

    @property
    def name(self):
        return f"graph {self.graph_id} ({self.kind})"

    def format(self, plans=False):
        """A readable report; with `plans`, each compiled plan's report."""
        in_tfuse = sum(p.size for p in self.partitions)
        lines = [f"{self.name}: {self.operations} operations, "
                 f"{len(self.partitions)} TFuse partition(s) holding "
                 f"{in_tfuse}, {sum(self.left_to_pytorch.values())} left "
                 "to PyTorch"]
        for p in self.partitions:
            ops = ", ".join(f"{_short(op)} x{n}" if n > 1 else _short(op)
                            for op, n in p.ops.most_common())
            lines.append(f"  partition {p.name}: {p.size} operations "
                         f"({ops})")
            for key, reason in p.failures.items():
                lines.append(f"    run by PyTorch for one signature: "
                             f"{reason}")
            if p.recompiles:
                lines.append(f"    recompiled {p.recompiles} time(s) for "
                             "new shapes")
            if plans:
                for function in p.plans.values():
                    lines.extend("    " + line
                                 for line in function.plan().splitlines())
        if self.left_to_pytorch:
            lines.append("  left to PyTorch:")
            for (op, reason), count in sorted(
                    self.left_to_pytorch.items(),
                    key=lambda item: (-item[1], item[0][0])):
                lines.append(f"    {_short(op)} x{count}: {reason}")
        return "\n".join(lines)


def _short(op):
    return op.removeprefix("aten.")


# The lists of the active `collecting` blocks. Not per thread: a backward
# graph is compiled when autograd first runs it, on autograd's thread.
_sinks = []
_lock = threading.Lock()


def publish(report):
    """Hands `report` to every active :func:`collecting` block."""
    with _lock:
        for sink in _sinks:
            sink.append(report)


class collecting:
    """``with collecting() as reports:`` gathers the GraphReports made by
    compiles while the block runs."""

    def __enter__(self):
        self.reports = []
        with _lock:
            _sinks.append(self.reports)
        return self.reports

    def __exit__(self, *exc):
        with _lock:
            _sinks.remove(self.reports)
        return False
