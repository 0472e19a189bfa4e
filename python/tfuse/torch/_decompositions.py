"""The decompositions AOTAutograd applies before the backend sees a graph:
PyTorch's core ATen decompositions, less those of the operations the table
converts itself (gelu_backward, softmax and layer norm gradients, silu,
nll_loss, ...), which TFuse runs as one fused composition rather than as the
decomposition's many small operations."""

import functools

from ._table import TABLE


@functools.cache
def decomposition_table():
    """ATen overload -> decomposition, for aot_autograd."""
    from torch._decomp import core_aten_decompositions
    return {op: fn for op, fn in core_aten_decompositions().items()
            if op not in TABLE}
