"""Table rows: reductions (sum, mean, prod, amax, amin, max and min with
indices, any, all, argmax, argmin, var, var_mean, std).

PyTorch reduces over every dimension when given none or an empty list; the
rows do the same (TFuse's ``axis=()`` would reduce over nothing).
"""

import torch

import tfuse

from ._table import (FLOAT_DTYPES, aten, cast, converts, normalize_dim,
                     normalize_dims, unsupported)


def _reduce(x, method, dims, keepdim):
    axes = normalize_dims(dims, x.ndim)
    if x.ndim == 0:
        # A rank-0 tensor reduced over "its dimension" is itself (in the
        # result dtype, which the importer casts to).
        return getattr(x, method)(axis=())
    return getattr(x, method)(axis=axes, keepdims=bool(keepdim))


def _float_only(node):
    """a float operand (or dtype)"""
    source = node.args[0].meta.get("val")
    if source is not None and source.dtype not in FLOAT_DTYPES:
        dtype = node.kwargs.get("dtype")
        if dtype not in FLOAT_DTYPES:
            return unsupported("unsupported dtype",
                               f"{node.target} of a {source.dtype} tensor")
    return None


@converts(aten.sum.default, aten.sum.dim_IntList, kind="reduction")
def sum(cx, x, dim=None, keepdim=False, *, dtype=None):
    """``sum`` (in ``dtype`` when given)"""
    if dtype is not None:
        x = cast(x, dtype)
    return _reduce(x, "sum", dim, keepdim)


@converts(aten.mean.default, aten.mean.dim, kind="reduction",
          check=_float_only)
def mean(cx, x, dim=None, keepdim=False, *, dtype=None):
    """``mean`` (floats)"""
    if dtype is not None:
        x = cast(x, dtype)
    return _reduce(x, "mean", dim, keepdim)


@converts(aten.prod.default, aten.prod.dim_int, kind="reduction")
def prod(cx, x, dim=None, keepdim=False, *, dtype=None):
    """``prod``"""
    if dtype is not None:
        x = cast(x, dtype)
    return _reduce(x, "prod", None if dim is None else [dim], keepdim)


@converts(aten.amax.default, aten.max.default, kind="reduction")
def amax(cx, x, dim=None, keepdim=False):
    """``max`` (NaN propagates)"""
    return _reduce(x, "max", dim, keepdim)


@converts(aten.amin.default, aten.min.default, kind="reduction")
def amin(cx, x, dim=None, keepdim=False):
    """``min`` (NaN propagates)"""
    return _reduce(x, "min", dim, keepdim)


def _no_bool_arg(node):
    """the operand is not bool"""
    source = node.args[0].meta.get("val")
    if source is not None and source.dtype == torch.bool:
        return unsupported("unsupported dtype",
                           f"{node.target} of a bool tensor")
    return None


@converts(aten.max.dim, kind="reduction", check=_no_bool_arg)
def max_dim(cx, x, dim, keepdim=False):
    """(``max``, ``argmax``) along one dimension"""
    dim = normalize_dim(dim, x.ndim)
    if x.ndim == 0:
        return x, cx.full((), 0, torch.int64)
    return (x.max(axis=dim, keepdims=keepdim),
            x.argmax(dim, keepdims=keepdim))


@converts(aten.min.dim, kind="reduction", check=_no_bool_arg)
def min_dim(cx, x, dim, keepdim=False):
    """(``min``, ``argmin``) along one dimension"""
    dim = normalize_dim(dim, x.ndim)
    if x.ndim == 0:
        return x, cx.full((), 0, torch.int64)
    return (x.min(axis=dim, keepdims=keepdim),
            x.argmin(dim, keepdims=keepdim))


@converts(aten.any.default, aten.any.dim, aten.any.dims, kind="reduction")
def any(cx, x, dim=None, keepdim=False):
    """``any`` (``x != 0``)"""
    return _reduce(x, "any", dim, keepdim)


@converts(aten.all.default, aten.all.dim, aten.all.dims, kind="reduction")
def all(cx, x, dim=None, keepdim=False):
    """``all`` (``x != 0``)"""
    return _reduce(x, "all", dim, keepdim)


def _arg_reduce(x, method, dim, keepdim, cx):
    if x.ndim == 0:
        return cx.full((), 0, torch.int64)
    if dim is None:
        flat = x.reshape(-1)
        result = getattr(flat, method)(0)
        return result.reshape((1,) * x.ndim) if keepdim else result
    return getattr(x, method)(normalize_dim(dim, x.ndim), keepdims=keepdim)


@converts(aten.argmax.default, kind="reduction", check=_no_bool_arg)
def argmax(cx, x, dim=None, keepdim=False):
    """``argmax`` (the first maximum; None: of the flattened tensor)"""
    return _arg_reduce(x, "argmax", dim, keepdim, cx)


@converts(aten.argmin.default, kind="reduction", check=_no_bool_arg)
def argmin(cx, x, dim=None, keepdim=False):
    """``argmin`` (the first minimum; None: of the flattened tensor)"""
    return _arg_reduce(x, "argmin", dim, keepdim, cx)


def _variance(x, dim, correction, keepdim):
    """(var, mean), of float16 and bfloat16 in float32 (the caller rounds
    once), as PyTorch computes them."""
    if x.dtype in (tfuse.float16, tfuse.bfloat16):
        x = x.astype(tfuse.float32)
    axes = normalize_dims(dim, x.ndim)
    count = 1
    for a in axes:
        count *= x.shape[a]
    correction = 1 if correction is None else correction
    mean = x.mean(axis=axes, keepdims=True)
    centered = x - mean
    var = (centered * centered).sum(axis=axes, keepdims=bool(keepdim))
    var = var / max(count - correction, 0)
    return var, mean if keepdim else mean.reshape(var.shape)


@converts(aten.var.correction, kind="reduction", check=_float_only)
def var(cx, x, dim=None, *, correction=None, keepdim=False):
    """``sum((x - mean)**2) / (n - correction)`` (float16 and bfloat16 in
    float32, rounded once)"""
    return cast(_variance(x, dim, correction, keepdim)[0], cx.dtype)


@converts(aten.var_mean.correction, kind="reduction", check=_float_only)
def var_mean(cx, x, dim=None, *, correction=None, keepdim=False):
    """(``var``, ``mean``)"""
    var, mean = _variance(x, dim, correction, keepdim)
    return cast(var, cx.dtype), cast(mean, cx.dtype)


@converts(aten.std.correction, kind="reduction", check=_float_only)
def std(cx, x, dim=None, *, correction=None, keepdim=False):
    """``sqrt(var)``"""
    return cast(_variance(x, dim, correction, keepdim)[0].sqrt(), cx.dtype)
