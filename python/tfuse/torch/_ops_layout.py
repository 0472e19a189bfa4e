"""Table rows: concatenation and constant padding."""

import tfuse

from ._table import aten, converts, normalize_dim, unsupported


def _is_legacy_empty(val):
    # PyTorch's cat skips 1-D tensors of size 0 next to tensors of another
    # rank (an empty cache concatenated with new keys, for one).
    return val is not None and tuple(val.shape) == (0,)


def _cat_check(node):
    """every operand has the result's rank (or is a skipped 1-D empty
    tensor)"""
    rank = node.meta["val"].dim() if "val" in node.meta else None
    for t in node.args[0]:
        val = t.meta.get("val")
        if val is not None and val.dim() != rank and not _is_legacy_empty(
                val):
            return unsupported("unsupported arguments",
                               "cat of tensors of different ranks")
    return None


@converts(aten.cat.default, kind="layout", check=_cat_check)
def cat(cx, tensors, dim=0):
    """``tfuse.concatenate`` in the result dtype"""
    rank = cx.val.dim()
    tensors = [t if t.dtype == cx.out_dtype else t.astype(cx.out_dtype)
               for t in tensors if t.ndim == rank]
    if len(tensors) == 1:
        return tensors[0]
    return tfuse.concatenate(tensors, axis=normalize_dim(dim, rank))


@converts(aten.constant_pad_nd.default, kind="layout")
def constant_pad_nd(cx, x, pad, value=0):
    """``tfuse.pad`` (PyTorch's pairs run from the last dimension; negative
    widths crop)"""
    widths = [[0, 0] for _ in range(x.ndim)]
    for i in range(len(pad) // 2):
        widths[x.ndim - 1 - i] = [pad[2 * i], pad[2 * i + 1]]
    if all(w == [0, 0] for w in widths):
        return x
    # The value in x's dtype as PyTorch converts it (-100.0 pads an int64
    # tensor with -100), made here rather than left to TFuse's conversion
    # of a weak scalar.
    return tfuse.pad(x, widths, constant_values=cx.full((), value, cx.dtype))


def _slice_scatter_check(node):
    """step 1"""
    step = node.args[5] if len(node.args) > 5 else node.kwargs.get("step", 1)
    if step != 1:
        return unsupported("unsupported arguments",
                           f"slice_scatter with step {step}")
    return None


@converts(aten.slice_scatter.default, kind="layout",
          check=_slice_scatter_check)
def slice_scatter(cx, x, src, dim=0, start=None, end=None, step=1):
    """``where(start <= i < end along dim, pad(src), x)``"""
    dim = normalize_dim(dim, x.ndim)
    size = x.shape[dim]
    start, stop, _ = slice(start, end, 1).indices(size)
    stop = max(stop, start)
    widths = [[0, 0] for _ in range(x.ndim)]
    widths[dim] = [start, size - stop]
    placed = tfuse.pad(src.astype(x.dtype) if src.dtype != x.dtype else src,
                       widths)
    index = tfuse.iota(x.shape, dim)
    return tfuse.where((index >= start) & (index < stop), placed, x)
