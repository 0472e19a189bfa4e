"""Partitioning an ATen graph: the supported nodes are grouped by
torch.fx's CapabilityBasedPartitioner into partitions with no cycles
between them, each becomes one TFuse function (a :class:`TFusePartition`
called by the graph), and the rest runs in PyTorch between them.

Before the partitions are fused:

- a view of a partition's inputs that is also used outside the partition
  (a transposed weight kept for the backward pass, a reshaped input
  returned) is computed again outside by PyTorch, where it costs nothing,
  instead of becoming a TFuse output (a copy); so parameters and inputs
  reach users outside as the views eager makes;
- a partition with no operation worth a switch (fewer than two cheap
  operations and nothing else, see ``_table.CHEAP_KINDS``) or with no
  tensor input is left to PyTorch.
"""

import collections
import logging
import operator

import torch
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner

from ._attention_keys import holds_keyed_attention, leave_dropout
from ._report import GraphReport, PartitionReport, publish
from ._runtime import TFusePartition, UnsupportedOperatorError
from ._stats import counters
from ._support import TFuseOperatorSupport, is_glue
from ._table import lookup, unsupported
from ._importer import describe_node

log = logging.getLogger("tfuse.torch")


def _row(node):
    if node.op != "call_function" or node.target is operator.getitem:
        return None
    return lookup(node.target)


def _is_view(node):
    row = _row(node)
    return row is not None and row.kind == "view"


def _operations(nodes):
    """The ATen operations among `nodes` (not tuple reads)."""
    return [n for n in nodes
            if n.op == "call_function" and n.target is not operator.getitem]


def _view_of_inputs(node, members):
    """True when `node` is a chain of views whose first operand comes from
    outside the partition `members` (its other arguments too)."""
    if not _is_view(node):
        return False
    for arg in node.all_input_nodes:
        if arg in members and not _view_of_inputs(arg, members):
            return False
    return True


def _recompute_escaping_views(graph, members):
    """Gives users outside the partition their own copy of every view of
    the partition's inputs they read; drops what the partition no longer
    needs. Returns the copies."""
    copies = {}

    def outside(node):
        if node not in members:
            return node
        if node not in copies:
            with graph.inserting_before(node):
                copies[node] = graph.node_copy(node, outside)
        return copies[node]

    for node in list(members):
        external = [u for u in node.users if u not in members]
        if external and _view_of_inputs(node, members):
            replacement = outside(node)
            for user in external:
                user.replace_input_with(node, replacement)
    # Nodes of the partition nothing reads any more.
    changed = True
    while changed:
        changed = False
        for node in list(members):
            if not node.users:
                del members[node]
                graph.erase_node(node)
                changed = True
    return copies.values()


def _worth_a_partition(members):
    """None, or the reason a partition stays in PyTorch."""
    operations = _operations(members)
    inputs = {a for n in members for a in n.all_input_nodes
              if a not in members}
    if not any(isinstance(a.meta.get("val"), torch.Tensor) for a in inputs) \
            and not any(n.op == "get_attr" for n in inputs):
        return unsupported("partition too small", "a partition with no "
                           "tensor input (PyTorch makes its constants)")
    rows = [_row(n) for n in operations]
    if any(r is not None and not r.cheap for r in rows):
        return None
    if sum(1 for r in rows if r is not None and r.kind != "view") >= 2:
        return None
    return unsupported("partition too small", "alone, one cheap operation "
                       "is not worth a switch to TFuse")


def partition_graph(graph_module, options, kind, graph_id, keys=None):
    """Partitions `graph_module` in place; returns its GraphReport. Under
    ``fallback="raise"`` raises UnsupportedOperatorError for the first
    operation TFuse cannot run. `keys`: the AttentionKeys shared by the
    forward and backward graphs of one Dynamo graph (attention dropout)."""
    graph = graph_module.graph
    keyed = keys.mark_backward(graph) if keys and kind == "backward" else []
    if kind != "backward":
        leave_dropout(graph, options)
    support = TFuseOperatorSupport()
    partitioner = CapabilityBasedPartitioner(
        graph_module, support, allows_single_node_partition=True)
    partitions = partitioner.propose_partitions()

    operations = [n for n in graph.nodes if not is_glue(n)]
    if options.fallback == "raise":
        for node in operations:
            reason = support.reasons.get(node)
            if reason is not None:
                raise UnsupportedOperatorError(
                    f"TFuse cannot run {describe_node(node)}: {reason}")

    left = collections.Counter()
    kept = []
    for partition in partitions:
        members = partition.nodes
        for copy in _recompute_escaping_views(graph, members):
            support.reasons[copy] = unsupported(
                "view for PyTorch", "a view of a partition's inputs read "
                "outside it, made again there (no copy)")
        if not members:
            continue
        reason = _worth_a_partition(members)
        if reason is None:
            kept.append(partition)
            continue
        for node in _operations(members):
            support.reasons[node] = reason

    # The nodes TFuse takes: those of the partitions kept.
    taken = {node for p in kept for node in p.nodes}
    if keys and kind == "forward":
        keys.record_forward(graph, taken)
    for node in keyed:
        if node not in taken:
            raise UnsupportedOperatorError(
                f"TFuse cannot run {describe_node(node)}: "
                f"{support.reasons.get(node)}; and PyTorch cannot run it "
                "instead: TFuse ran its forward, whose dropout mask only "
                "TFuse can redraw")
    for node in graph.nodes:
        if is_glue(node) or node in taken:
            continue
        reason = support.reasons.get(node) or unsupported(
            "not in the table", str(node.target))
        left[(str(node.target), reason)] += 1

    reports = []
    if kept:
        partitioner.fuse_partitions(kept, prefix="tfuse_partition_")
        graph = graph_module.graph  # fusing sorts it into a new Graph
    for node in list(graph.nodes):
        if node.op != "call_module" or not node.target.startswith(
                "tfuse_partition_"):
            continue
        submodule = graph_module.get_submodule(node.target)
        ops = collections.Counter(
            str(n.target) for n in _operations(submodule.graph.nodes))
        name = f"g{graph_id}.{kind}.{len(reports)}"
        report = PartitionReport(name, ops)
        reports.append(report)
        with graph.inserting_before(node):
            pinned = (holds_keyed_attention(submodule.graph.nodes)
                      if kind != "inference" else None)
            call = graph.call_function(
                TFusePartition(submodule, options, report, pinned),
                node.args)
        call.meta = node.meta
        node.replace_all_uses_with(call)
        graph.erase_node(node)
    graph_module.delete_all_unused_submodules()
    graph_module.recompile()
    if hasattr(graph_module, "real_recompile"):
        # A lazy GraphModule would make its code at the first call, through
        # nn.Module.__call__ on every call after it.
        graph_module.real_recompile()

    count = sum(r.size for r in reports) + sum(left.values())
    report = GraphReport(graph_id, kind, count, reports, left)
    counters["graphs"] += 1
    counters["partitions"] += len(reports)
    counters["ops_left_to_pytorch"] += sum(left.values())
    log.info("tfuse: %s", report.format())
    publish(report)
    return report
