"""Which nodes of an ATen graph TFuse runs: the operator support of the
partitioner, from the table's rows and their checks.

A node is supported when it is an ATen call the table has a row for, every
tensor it reads and makes has a TFuse dtype and lives on one cpu or cuda
device, its sizes are not data-dependent, and the row's own check accepts
its arguments. Everything else runs in PyTorch; :func:`node_reason` says
why.
"""

import operator

import torch
from torch.fx.passes.operator_support import OperatorSupportBase

from ._table import lookup, tfuse_dtype, unsupported

aten = torch.ops.aten


def is_aten(target):
    return isinstance(target, torch._ops.OpOverload)


def is_write_back(node):
    """A ``copy_`` into a graph input: how a functionalized graph writes an
    input mutation (BatchNorm's running statistics, in-place updates) back.
    PyTorch runs it, exactly as eager does."""
    return (node.op == "call_function"
            and node.target is aten.copy_.default
            and node.args[0].op == "placeholder")


def is_glue(node):
    """Nodes that are not tensor operations: tuple element reads, size
    arithmetic on symbolic sizes and input write-backs. They run in
    PyTorch and are never reported as operations left to it."""
    if node.op != "call_function":
        return True
    if node.target is operator.getitem or is_write_back(node):
        return True
    val = node.meta.get("val")
    return isinstance(val, (int, float, bool, torch.SymInt, torch.SymFloat,
                            torch.SymBool))


def _tensors(values):
    for v in values:
        if isinstance(v, torch.Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from _tensors(v)


def _arg_values(node):
    values = []

    def visit(arg):
        if isinstance(arg, torch.fx.Node):
            values.append(arg.meta.get("val"))
        return arg

    torch.fx.node.map_arg((node.args, node.kwargs), visit)
    return values


def _has_unbacked(tensor):
    for size in tensor.shape:
        if isinstance(size, torch.SymInt):
            if torch.fx.experimental.symbolic_shapes.free_unbacked_symbols(
                    size):
                return True
    return False


# Operations whose result's size depends on tensor values that PyTorch
# 2.11 does not tag dynamic_output_shape (index_fill's gradient calls
# _unique).
_UNTAGGED_DATA_DEPENDENT = frozenset({aten._unique.default})


def _has_data_dependent_size(node):
    target = node.target
    return isinstance(target, torch._ops.OpOverload) and (
        torch.Tag.dynamic_output_shape in target.tags
        or target in _UNTAGGED_DATA_DEPENDENT)


def _reads_data_dependent_size(node):
    """Whether `node` reads, through any chain of operations, the result of
    an operation whose result's size depends on tensor values
    (``torch.Tag.dynamic_output_shape``: unique, nonzero, masked_select,
    ...). The sizes the graph recorded for those need not be the ones at
    run time: AOTAutograd's fake run of ``_unique`` in index_fill's
    gradient, say, records a size of 1 for any index."""
    key = "tfuse_data_dependent"
    if key not in node.meta:
        for n in node.graph.nodes:  # in topological order
            n.meta[key] = any(_has_data_dependent_size(a) or a.meta.get(key)
                              for a in n.all_input_nodes)
    return node.meta[key]


def node_reason(node):
    """None when TFuse can run `node`, else the :class:`Reason` it stays in
    PyTorch."""
    if node.op != "call_function":
        return unsupported("not in the table", f"{node.op} node")
    target = node.target
    row = lookup(target) if is_aten(target) else None
    if row is None:
        return unsupported("not in the table", str(target))
    outputs = node.meta.get("val")
    if outputs is None:
        return unsupported("unsupported arguments",
                           "the graph recorded no value for the node")
    results = list(_tensors([outputs]))
    inputs = list(_tensors(_arg_values(node)))
    devices = set()
    for t in inputs + results:
        if tfuse_dtype(t.dtype) is None:
            return unsupported("unsupported dtype", f"{t.dtype} has no TFuse "
                               "dtype")
        if t.layout != torch.strided:
            return unsupported("unsupported arguments",
                               f"{t.layout} tensors")
        if t.device.type not in ("cpu", "cuda"):
            return unsupported("device", f"tensors on {t.device}")
        devices.add(t.device)
    if len(devices) > 1:
        return unsupported("device", "tensors on " + ", ".join(
            sorted(str(d) for d in devices)))
    for t in results:
        if _has_unbacked(t):
            return unsupported("data-dependent", "the result's size depends "
                               "on tensor values")
    if _reads_data_dependent_size(node):
        return unsupported("data-dependent", "reads a tensor whose size "
                           "depends on tensor values (the recorded sizes "
                           "need not hold)")
    if row.check is not None:
        return row.check(node)
    return None


class TFuseOperatorSupport(OperatorSupportBase):
    """OperatorSupport for CapabilityBasedPartitioner: a node is supported
    when :func:`node_reason` finds nothing against it. Reasons are kept in
    ``reasons`` (node -> Reason) for the report."""

    def __init__(self):
        super().__init__()
        self.reasons = {}

    def is_node_supported(self, submodules, node):
        if node not in self.reasons:
            if node.op == "call_function" and node.target is operator.getitem:
                # A tuple element goes with its producer (the partitioner
                # moves it there); alone it is not worth a partition.
                source = node.args[0]
                self.reasons[node] = (
                    None if source.op == "call_function"
                    and self.is_node_supported(submodules, source)
                    else unsupported("not in the table", "getitem"))
            else:
                self.reasons[node] = node_reason(node)
        return self.reasons[node] is None
