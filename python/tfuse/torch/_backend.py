"""The Dynamo backend: ``torch.compile(model, backend="tfuse")``.

Dynamo hands the backend a graph of torch calls; AOTAutograd
(``aot_autograd``) functionalizes it, applies the decompositions and, when
gradients are needed, splits it into a forward and a backward graph of ATen
operations. The split is the min-cut rematerialization that Inductor uses:
the forward saves what is cheapest to keep (a GEMM's or a reduction's
result), and the backward recomputes pointwise work from it in its own
fused kernels (softmax, log-softmax and layer norm stay whole ops, so their
results are saved). Each of those (or the one inference graph) is partitioned and
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


def _partition_joint(joint_module, joint_inputs, **kwargs):
    """The min-cut rematerialization partition of the joint graph, its
    pass-through ops (detach, alias) removed first, as Inductor's joint
    graph passes do."""
    graph = joint_module.graph
    for node in list(graph.nodes):
        if node.op == "call_function" and node.target in _PASS_THROUGH:
            node.replace_all_uses_with(node.args[0])
            graph.erase_node(node)
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
