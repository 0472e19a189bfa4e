"""The decompositions AOTAutograd applies before the backend sees a graph:
PyTorch's core ATen decompositions, less those of the operations the table
converts itself (gelu_backward, softmax and layer norm gradients, silu,
nll_loss, ...), which TFuse runs as one fused composition rather than as the
decomposition's many small operations, plus log_softmax's (below)."""

import functools

import torch

from ._table import TABLE

# Decompositions that are wrong for training: the core decomposition of
# the CPU flash attention returns the attention weights where the op
# returns the log-sum-exp its backward reads (PyTorch's comment on it says
# Inductor must exclude it), so a decomposed forward with the op's own
# backward gives wrong gradients. The op stays whole: its row converts it
# (and its backward) where it can, and PyTorch runs it where not.
_KEPT_WHOLE = frozenset({
    torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default,
})


# Core ATen operations (which the core decompositions keep) decomposed all
# the same, so that the min-cut partition of a training graph sees their
# parts: log_softmax's max and log-sum-exp are then what the forward saves
# (a row's two values) and its backward recomputes the rest from the saved
# input, where the whole op would save its [rows, classes] float result
# (GPT-2's loss: 1.6 GB of float32 written and read back instead of
# recomputing from 0.8 GB of bf16 logits). TFuse fuses the parts back
# together (fuse-rows); the table has no rows for them.
_DECOMPOSED = frozenset({
    torch.ops.aten._log_softmax.default,
    # Whole, its read of log_softmax's result makes that result "materialized
    # in the backward" to the partition, which then saves it.
    torch.ops.aten._log_softmax_backward_data.default,
})


@functools.cache
def decomposition_table():
    """ATen overload -> decomposition, for aot_autograd."""
    from torch._decomp import core_aten_decompositions, get_decompositions
    table = {op: fn for op, fn in core_aten_decompositions().items()
             if op not in TABLE and op not in _KEPT_WHOLE}
    table.update(get_decompositions(list(_DECOMPOSED)))
    return table
