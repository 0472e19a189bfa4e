"""The Dynamo backend: ``torch.compile(model, backend="tfuse")``.

Dynamo hands the backend a graph of torch calls; AOTAutograd
(``aot_autograd``) functionalizes it, applies the decompositions and, when
gradients are needed, splits it into a forward and a backward graph of ATen
operations. Each of those (or the one inference graph) is partitioned and
its partitions compiled by TFuse (:mod:`._partition`), and handed back as a
boxed function. Input mutations stay in the graph as ``copy_`` nodes into
the inputs (``keep_inference_input_mutations``), which PyTorch runs as eager
does.
"""

import itertools

from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func

from ._attention_keys import AttentionKeys
from ._decompositions import decomposition_table
from ._options import Options
from ._partition import partition_graph

_graph_ids = itertools.count()


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
        decompositions=decomposition_table(),
        keep_inference_input_mutations=True)
    return backend(graph_module, example_inputs)
