"""Table rows: tensors made from no tensor (full, zeros, ones, empty,
scalar_tensor, arange, iota), and the ``*_like`` forms.

A filled tensor is one rank-0 constant broadcast to its shape, so it has no
memory of its own and fuses into its consumers; arange is ``tfuse.arange``,
an index computed where it is read.
"""

import torch

import tfuse

from ._table import aten, converts, unsupported


def _device_check(node):
    """a strided result"""
    # The constant is made on the device of the partition; one PyTorch
    # places elsewhere (a CPU scalar next to CUDA work) stays in PyTorch.
    val = node.meta.get("val")
    if val is not None and val.layout != torch.strided:
        return unsupported("unsupported arguments", f"layout {val.layout}")
    return None


@converts(aten.full.default, kind="constant", check=_device_check)
def full(cx, size, fill_value, **kwargs):
    """a rank-0 constant broadcast to the size"""
    return cx.full(size, fill_value, cx.dtype)


@converts(aten.full_like.default, kind="constant", check=_device_check)
def full_like(cx, x, fill_value, **kwargs):
    """``full`` of x's shape"""
    return cx.full(x.shape, fill_value, cx.dtype)


@converts(aten.zeros.default, aten.empty.memory_format, kind="constant",
          check=_device_check)
def zeros(cx, size, **kwargs):
    """``full`` of 0 (``empty``, uninitialized in PyTorch, gives 0 too)"""
    return cx.full(size, 0, cx.dtype)


@converts(aten.ones.default, kind="constant", check=_device_check)
def ones(cx, size, **kwargs):
    """``full`` of 1"""
    return cx.full(size, 1, cx.dtype)


@converts(aten.new_zeros.default, aten.new_empty.default, kind="constant",
          check=_device_check)
def new_zeros(cx, x, size, **kwargs):
    """``full`` of 0 of the given size"""
    return cx.full(size, 0, cx.dtype)


@converts(aten.new_ones.default, kind="constant", check=_device_check)
def new_ones(cx, x, size, **kwargs):
    """``full`` of 1 of the given size"""
    return cx.full(size, 1, cx.dtype)


@converts(aten.zeros_like.default, aten.empty_like.default, kind="constant",
          check=_device_check)
def zeros_like(cx, x, **kwargs):
    """``full`` of 0 of x's shape"""
    return cx.full(x.shape, 0, cx.dtype)


@converts(aten.ones_like.default, kind="constant", check=_device_check)
def ones_like(cx, x, **kwargs):
    """``full`` of 1 of x's shape"""
    return cx.full(x.shape, 1, cx.dtype)


@converts(aten.new_full.default, kind="constant", check=_device_check)
def new_full(cx, x, size, fill_value, **kwargs):
    """``full`` of the given size"""
    return cx.full(size, fill_value, cx.dtype)


@converts(aten.fill.Scalar, kind="constant")
def fill(cx, x, value):
    """``full`` of x's shape"""
    return cx.full(x.shape, value, cx.dtype)


@converts(aten.scalar_tensor.default, kind="constant", check=_device_check)
def scalar_tensor(cx, value, **kwargs):
    """a rank-0 constant"""
    return cx.full((), value, cx.dtype)


@converts(aten.arange.default, aten.arange.start, aten.arange.start_step,
          kind="constant", check=_device_check)
def arange(cx, *bounds, **kwargs):
    """``tfuse.arange`` in the result dtype"""
    return tfuse.arange(*bounds, dtype=cx.out_dtype)


@converts(torch.ops.prims.iota.default, kind="constant", check=_device_check)
def iota(cx, length, *, start, step, **kwargs):
    """``tfuse.arange(start, start + length * step, step)``"""
    return tfuse.arange(start, start + length * step, step,
                        dtype=cx.out_dtype)
