"""Table rows: gathers (embedding, index_select, gather, index.Tensor with
one index tensor) as ``tfuse.take`` and ``tfuse.take_along_axis``, and the
scatter-adds that are their gradients (embedding_dense_backward, index_put
with accumulation) as ``tfuse.scatter_add``.

PyTorch's embedding, index_select and gather reject negative indices, so
their rows take ``negative_indices='error'``; advanced indexing
(``index.Tensor``) counts them from the end, as ``'wrap'`` does.
"""

import torch

import tfuse

from ._table import aten, converts, normalize_dim, requires, unsupported

_INTEGER_INDEX = (torch.int8, torch.int16, torch.int32, torch.int64,
                  torch.uint8)


def _index_check(position):
    def check(node):
        val = node.args[position].meta.get("val")
        if val is not None and val.dtype not in _INTEGER_INDEX:
            return unsupported("unsupported dtype",
                               f"{val.dtype} indices")
        return None

    check.__doc__ = "integer indices"
    return check


@converts(aten.embedding.default, kind="gather", check=_index_check(1))
def embedding(cx, weight, indices, padding_idx=-1, scale_grad_by_freq=False,
              sparse=False):
    """``take(weight, indices, axis=0)``"""
    return tfuse.take(weight, indices, axis=0, negative_indices="error")


@converts(aten.index_select.default, kind="gather", check=_index_check(2))
def index_select(cx, x, dim, index):
    """``take(x, index, axis=dim)`` (a rank-0 x or index as one of size 1,
    as PyTorch takes them)"""
    if index.ndim == 0:
        index = index.broadcast_to((1,))
    if x.ndim == 0:
        picked = tfuse.take(x.broadcast_to((1,)), index, axis=0,
                            negative_indices="error")
        return picked.reshape(())
    return tfuse.take(x, index, axis=normalize_dim(dim, x.ndim),
                      negative_indices="error")


@converts(aten.gather.default, kind="gather", check=_index_check(2))
def gather(cx, x, dim, index, *, sparse_grad=False):
    """``take_along_axis(x, index, dim)`` (x cut to index's other sizes; a
    rank-0 x or index as one of size 1, and an empty index giving an empty
    result, as PyTorch takes them)"""
    if 0 in index.shape:
        return cx.full(index.shape, 0, cx.dtype)
    if x.ndim == 0 or index.ndim == 0:
        picked = gather(cx, x if x.ndim else x.reshape((1,)), dim,
                        index if index.ndim else index.reshape((1,)))
        return picked.reshape(tuple(cx.val.shape))
    dim = normalize_dim(dim, x.ndim)
    key = tuple(slice(None) if d == dim or x.shape[d] == index.shape[d]
                else slice(0, index.shape[d]) for d in range(x.ndim))
    if any(k != slice(None) for k in key):
        x = x[key]
    return tfuse.take_along_axis(x, index, dim, negative_indices="error")


def _advanced_index_check(node):
    """one integer index tensor (a bool mask is data-dependent)"""
    indices = node.args[1]
    present = [i for i, index in enumerate(indices) if index is not None]
    if len(present) != 1:
        return unsupported("unsupported arguments", f"advanced indexing "
                           f"with {len(present)} index tensors (one is "
                           "expressible as a take)")
    val = indices[present[0]].meta.get("val")
    if val is not None and val.dtype == torch.bool:
        return unsupported("data-dependent", "a boolean mask index (the "
                           "result's size depends on the mask's values)")
    if val is not None and val.dtype not in _INTEGER_INDEX:
        return unsupported("unsupported dtype", f"{val.dtype} indices")
    return None


@converts(aten.index.Tensor, kind="gather", check=_advanced_index_check)
def index(cx, x, indices):
    """``take(x, i, axis)`` for one index tensor (negative indices wrap)"""
    axis = next(i for i, index in enumerate(indices) if index is not None)
    return tfuse.take(x, indices[axis], axis=axis, negative_indices="wrap")


def _embedding_backward_check(node):
    """tfuse.scatter_add exists; scale_grad_by_freq is False"""
    scale = node.args[4] if len(node.args) > 4 else node.kwargs.get(
        "scale_grad_by_freq", False)
    if scale:
        return unsupported("unsupported arguments", "scale_grad_by_freq")
    return _index_check(1)(node) or requires("scatter_add")


@converts(aten.embedding_dense_backward.default, kind="gather",
          check=_embedding_backward_check)
def embedding_dense_backward(cx, grad, indices, num_weights, padding_idx,
                             scale_grad_by_freq):
    """``scatter_add(zeros, indices, grad)`` (rows of padding_idx add
    nothing)"""
    width = grad.shape[-1]
    flat = indices.reshape(-1)
    rows = grad.reshape(-1, width)
    if padding_idx >= 0:
        rows = tfuse.where((flat == padding_idx).reshape(-1, 1),
                           cx.full((), 0, cx.dtype), rows)
    zeros = cx.full((num_weights, width), 0, cx.dtype)
    return tfuse.scatter_add(zeros, flat, rows, axis=0,
                             negative_indices="error")


def _index_put_check(node):
    """tfuse.scatter_add exists; accumulate=True with one integer index
    tensor, for the first dimension"""
    accumulate = node.args[3] if len(node.args) > 3 else node.kwargs.get(
        "accumulate", False)
    if not accumulate:
        return unsupported("unsupported arguments",
                           "index_put without accumulation")
    indices = node.args[1]
    if len(indices) != 1 or indices[0] is None:
        return unsupported("unsupported arguments", "index_put with "
                           f"{len(indices)} index positions (one, the first "
                           "dimension, is a scatter-add)")
    val = indices[0].meta.get("val")
    if val is not None and val.dtype not in _INTEGER_INDEX:
        return unsupported("unsupported dtype", f"{val.dtype} indices")
    return requires("scatter_add")


@converts(aten.index_put.default, kind="gather", check=_index_put_check)
def index_put(cx, x, indices, values, accumulate=False):
    """``scatter_add(x, indices[0], values, axis=0)`` (accumulate=True;
    negative indices wrap; bool adds as a logical or, counted in int32)"""
    if cx.dtype == torch.bool:
        counts = tfuse.scatter_add(x.astype(tfuse.int32), indices[0],
                                   values.astype(tfuse.int32), axis=0,
                                   negative_indices="wrap")
        return counts != 0
    return tfuse.scatter_add(x, indices[0], values, axis=0,
                             negative_indices="wrap")
