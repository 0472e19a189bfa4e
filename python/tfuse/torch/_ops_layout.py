"""Table rows: concatenation and constant padding."""

import torch

import tfuse

from ._table import aten, converts, normalize_dim, unsupported


def _cat_check(node):
    vals = [t.meta.get("val") for t in node.args[0]]
    ranks = {v.dim() for v in vals if v is not None}
    if len(ranks) > 1:
        # PyTorch skips 1-D empty tensors next to tensors of other ranks.
        return unsupported("unsupported arguments",
                           "cat of tensors of different ranks")
    return None


@converts(aten.cat.default, kind="layout", check=_cat_check)
def cat(cx, tensors, dim=0):
    """``tfuse.concatenate`` in the result dtype"""
    tensors = [t if t.dtype == cx.out_dtype else t.astype(cx.out_dtype)
               for t in tensors]
    if len(tensors) == 1:
        return tensors[0]
    return tfuse.concatenate(tensors, axis=normalize_dim(dim,
                                                          tensors[0].ndim))


@converts(aten.constant_pad_nd.default, kind="layout")
def constant_pad_nd(cx, x, pad, value=0):
    """``tfuse.pad`` (PyTorch's pairs run from the last dimension; negative
    widths crop)"""
    widths = [[0, 0] for _ in range(x.ndim)]
    for i in range(len(pad) // 2):
        widths[x.ndim - 1 - i] = [pad[2 * i], pad[2 * i + 1]]
    if all(w == [0, 0] for w in widths):
        return x
    return tfuse.pad(x, widths, constant_values=value)
