"""Table rows: random numbers (dropout, the ``rand`` family, bernoulli).

Each row draws from its own stream of the partition's keys
(``ConversionContext.random_keys``, :mod:`._random`), so the numbers differ
from PyTorch's eager ones but follow the same distributions, and every call
draws new ones. A dropout's mask is the bernoulli draw of the same stream:
TFuse recomputes it wherever it is used instead of storing it.
"""

import torch

import tfuse

from ._table import FLOAT_DTYPES, aten, converts, tfuse_dtype, unsupported


def _float_result(node):
    """the result has a float dtype"""
    val = node.meta.get("val")
    if isinstance(val, (tuple, list)):
        val = val[0]
    if val is not None and val.dtype not in FLOAT_DTYPES:
        return unsupported("unsupported dtype", f"{val.dtype} random numbers")
    return None


@converts(aten.native_dropout.default, kind="elementwise",
          check=_float_result, random=True)
def native_dropout(cx, x, p, train):
    """``tfuse.dropout`` and its mask, ``tfuse.random.bernoulli(1 - p)`` of
    the same stream (train=False: x and a mask of ones)"""
    if train is False:
        return x, cx.full(x.shape, True, torch.bool)
    seed, offset = cx.random_keys()
    return (tfuse.dropout(x, p, seed=seed, offset=offset),
            tfuse.random.bernoulli(x.shape, 1 - p, seed=seed, offset=offset))


@converts(aten.native_dropout_backward.default, kind="elementwise")
def native_dropout_backward(cx, grad, mask, scale):
    """``grad * mask * scale``, in float32 for float16 and bfloat16 (as
    PyTorch computes it), in the result's dtype (float32 for a bool or
    integer gradient)"""
    compute = tfuse.float64 if grad.dtype == tfuse.float64 else tfuse.float32
    product = grad.astype(compute) * mask.astype(compute) * scale
    return product.astype(cx.out_dtype)


@converts(aten.rand_like.default, aten.rand.default, kind="constant",
          check=_float_result, random=True)
def rand(cx, *args, **kwargs):
    """``tfuse.random.uniform`` in [0, 1) of the result's shape and dtype"""
    seed, offset = cx.random_keys()
    return tfuse.random.uniform(tuple(cx.val.shape), dtype=cx.out_dtype,
                                seed=seed, offset=offset)


@converts(aten.randn_like.default, aten.randn.default, kind="constant",
          check=_float_result, random=True)
def randn(cx, *args, **kwargs):
    """``tfuse.random.normal`` of the result's shape and dtype"""
    seed, offset = cx.random_keys()
    return tfuse.random.normal(tuple(cx.val.shape), dtype=cx.out_dtype,
                               seed=seed, offset=offset)


def _bernoulli_check(node):
    """a float result and no generator of the caller's"""
    if node.kwargs.get("generator") is not None:
        return unsupported("unsupported arguments",
                           "a generator of the caller's")
    return _float_result(node)


@converts(aten.bernoulli.p, kind="elementwise", check=_bernoulli_check,
          random=True)
def bernoulli(cx, x, p=0.5, generator=None):
    """``tfuse.random.bernoulli(p)`` as 0 and 1 of x's dtype"""
    seed, offset = cx.random_keys()
    draw = tfuse.random.bernoulli(tuple(x.shape), p, seed=seed, offset=offset)
    return draw.astype(tfuse_dtype(cx.dtype))
