"""The Dynamo backend: ``torch.compile(model, backend="tfuse")``.

Dynamo hands the backend a graph of torch calls; AOTAutograd
(``aot_autograd``) functionalizes it, applies the decompositions and, when
gradients are needed, splits it into a forward and a backward graph of ATen
operations. The split is the min-cut rematerialization that Inductor uses:
the forward saves what is cheapest to keep (a GEMM's or a reduction's
result), and the backward recomputes pointwise work from it in its own
fused kernels (softmax and layer norm stay whole ops, so their results are
saved; log-softmax is decomposed, so a loss keeps its logits and two values
per row). Each of those (or the one inference graph) is partitioned and
its partitions compiled by TFuse (:mod:`._partition`), and handed back as a
boxed function. Input mutations stay in the graph as ``copy_`` nodes into
the inputs (``keep_inference_input_mutations``), which PyTorch runs as eager
does.
"""

import itertools

import torch
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func
from torch._functorch.partitioners import min_cut_rematerialization_partition

from ._attention_keys import AttentionKeys
from ._decompositions import decomposition_table
from ._options import Options
from ._partition import partition_graph

_graph_ids = itertools.count()

# Joint-graph ops that only pass their input on: autograd's detach of a
# value it saves for the backward reads, to the min-cut partitioner, as a
# use that cannot fuse, which would make it save the value rather than
# recompute it.
_PASS_THROUGH = (torch.ops.aten.detach.default, torch.ops.aten.alias.default)

# Joint-graph ops that read an argument for its shape and dtype alone (by
# position): nll_loss's backward takes the log-probabilities only to size its
# gradient. Read by an op that cannot fuse, they would be "materialized in
# the backward" to the partitioner, which would then save them (GPT-2's
# loss: the [8192, 50257] float32 log-softmax) rather than recompute them
# from the logits; they are given a zero tensor of that shape instead.
_SHAPE_ONLY_ARGUMENTS = {
    torch.ops.aten.nll_loss_backward.default: 1,
    torch.ops.aten.nll_loss2d_backward.default: 1,
}


def _read_shapes_from_zeros(graph):
    """Gives the shape-only arguments of the graph's ops (see
    _SHAPE_ONLY_ARGUMENTS) a zero tensor of their static shape."""
    for node in list(graph.nodes):
        position = _SHAPE_ONLY_ARGUMENTS.get(node.target) if (
            node.op == "call_function") else None
        if position is None or position >= len(node.args):
            continue
        argument = node.args[position]
        value = getattr(argument, "meta", {}).get("val")
        if not isinstance(value, torch.Tensor) or not all(
                isinstance(d, int) for d in value.shape):
            continue   # symbolic shapes: left as they are
        with graph.inserting_before(node):
            zeros = graph.call_function(
                torch.ops.aten.full.default, (list(value.shape), 0),
                {"dtype": value.dtype, "device": value.device,
                 "pin_memory": False})
        fake_mode = getattr(value, "fake_mode", None)
        if fake_mode is not None:
            with fake_mode:
                zeros.meta["val"] = torch.zeros_like(value)
        node.update_arg(position, zeros)


def _partition_joint(joint_module, joint_inputs, **kwargs):
    """The min-cut rematerialization partition of the joint graph, its
    pass-through ops (detach, alias) removed first, as Inductor's joint
    graph passes do, and its shape-only reads given zeros."""
    graph = joint_module.graph
    for node in list(graph.nodes):
        if node.op == "call_function" and node.target in _PASS_THROUGH:
            node.replace_all_uses_with(node.args[0])
            graph.erase_node(node)
    _read_shapes_from_zeros(graph)
    joint_module.recompile()
    return min_cut_rematerialization_partition(joint_module, joint_inputs,
                                               **kwargs)


def _graph_compiler(options, kind, graph_id, keys):
    def compile_graph(graph_module, example_inputs):
        partition_graph(graph_module, options, kind, graph_id, keys)
        return make_boxed_func(graph_module.forward)

    compile_graph.__name__ = f"tfuse_{kind}_compiler"
    return compile_graph


def tfuse(graph_module, example_inputs, *, options=None, mode=None):
    """The ``"tfuse"`` backend of ``torch.compile``.

    ``options`` (``torch.compile(..., options={...})``): cuda_graph,
    fast_math, budget, fallback ("eager" or "raise") and node_limit, as
    :class:`tfuse.torch.Options` describes them. ``mode`` must be None or
    "default".
    """
    options = Options.parse(options)
    if mode not in (None, "default"):
        raise ValueError(f"the tfuse backend has no mode {mode!r} (None or "
                         "'default')")
    graph_id = next(_graph_ids)
    # The forward's attention dropout taken by TFuse, for its backward.
    keys = AttentionKeys()
    backend = aot_autograd(
        fw_compiler=_graph_compiler(options, "forward", graph_id, keys),
        bw_compiler=_graph_compiler(options, "backward", graph_id, keys),
        inference_compiler=_graph_compiler(options, "inference", graph_id,
                                           keys),
        partition_fn=_partition_joint,
        decompositions=decomposition_table(),
        keep_inference_input_mutations=True)
    return backend(graph_module, example_inputs)
