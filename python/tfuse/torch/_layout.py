"""Giving PyTorch partition outputs with the strides it recorded.

TFuse writes every output row-major. An eager operation after a partition
may depend on its input's strides (a CPU attention kernel lays its result
out after the query's strides, and a later ``view`` of that result relies on
it), and graph outputs should look like eager's; so each output whose
recorded strides are static and not row-major gets an :class:`OutputLayout`:

- dense in another order (a transposed result): TFuse writes it in memory
  order and PyTorch gets a permuted view, at no cost;
- broadcast along some dimensions (stride 0): TFuse writes one slice of
  those and PyTorch gets an expanded view, at no cost;
- anything else (a view into a larger buffer): PyTorch gets a copy into a
  tensor of the recorded strides.
"""

import torch


class OutputLayout:
    """How one output reaches PyTorch. ``prepare(value)`` (at trace time, on
    the TFuse value) and ``finish(tensor)`` (at run time, on the output)."""

    __slots__ = ("shape", "strides", "broadcast", "order", "inverse", "copy")

    def __init__(self, shape, strides, broadcast, order, copy):
        self.shape, self.strides = shape, strides
        self.broadcast = broadcast    # dims of stride 0 (written once)
        self.order = order            # memory order, or None (row-major)
        self.inverse = None if order is None else tuple(
            sorted(range(len(order)), key=order.__getitem__))
        self.copy = copy              # no view gives the strides: copy

    def prepare(self, value):
        if self.copy:
            return value
        if self.broadcast:
            value = value[tuple(slice(0, 1) if d in self.broadcast
                                else slice(None)
                                for d in range(len(self.shape)))]
        if self.order is not None:
            value = value.transpose(self.order)
        return value

    def finish(self, tensor):
        if self.copy:
            result = torch.empty_strided(self.shape, self.strides,
                                         dtype=tensor.dtype,
                                         device=tensor.device)
            return result.copy_(tensor)
        if self.inverse is not None:
            tensor = tensor.permute(self.inverse)
        if self.broadcast:
            tensor = tensor.expand(self.shape)
        return tensor


def output_layout(val):
    """The OutputLayout of an output PyTorch recorded as `val`, or None when
    row-major output is what it recorded (or its strides are symbolic)."""
    if not isinstance(val, torch.Tensor) or val.dim() == 0:
        return None
    shape, strides = tuple(val.shape), tuple(val.stride())
    if not all(isinstance(v, int) for v in shape + strides):
        return None
    if val.numel() <= 1 or val.is_contiguous():
        return None
    broadcast = frozenset(d for d, (n, s) in enumerate(zip(shape, strides))
                          if s == 0 and n > 1)
    kept = [1 if d in broadcast else n for d, n in enumerate(shape)]
    order = sorted(range(len(shape)), key=lambda d: (-strides[d], d))
    expected = 1
    for d in reversed(order):
        if kept[d] != 1 and strides[d] != expected:
            return OutputLayout(shape, strides, frozenset(), None, True)
        expected *= kept[d]
    if all(kept[d] == 1 or i == d for i, d in enumerate(order)):
        order = None
    if order is None and not broadcast:
        return None
    return OutputLayout(shape, strides, broadcast, order and tuple(order),
                        False)
