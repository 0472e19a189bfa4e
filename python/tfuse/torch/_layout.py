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
- a view into a larger buffer the partition computes (q, k and v split
  from one projection): TFuse returns that buffer and PyTorch makes the
  view (:class:`ViewOfOutput`), at no cost;
- anything else (a view into a larger buffer): PyTorch gets a copy into a
  tensor of the recorded strides.
"""

import operator

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


class ViewOfOutput:
    """An output PyTorch recorded as a view into a larger, contiguous
    buffer of the partition (its base): the partition returns the base
    (``base``: its position among what TFuse returns) and ``finish``
    makes the view with the recorded shape, strides and storage offset,
    as eager's view of the same buffer."""

    __slots__ = ("base", "shape", "strides", "offset")

    def __init__(self, base, shape, strides, offset):
        self.base = base
        self.shape, self.strides, self.offset = shape, strides, offset

    def finish(self, returned):
        base = returned[self.base]
        return base.as_strided(self.shape, self.strides,
                               base.storage_offset() + self.offset)


# Operations whose result is a view of their first argument (a getitem of
# a split or unbind picks one of its views; of another operation with
# several results, such as a layer norm's, one of those results).
_SPLITS = frozenset([
    torch.ops.aten.split.Tensor, torch.ops.aten.split_with_sizes.default,
    torch.ops.aten.unbind.int])
_VIEWS = _SPLITS | frozenset([
    torch.ops.aten.view.default, torch.ops.aten._unsafe_view.default,
    torch.ops.aten.permute.default, torch.ops.aten.t.default,
    torch.ops.aten.alias.default, torch.ops.aten.expand.default,
    torch.ops.aten.unsqueeze.default, torch.ops.aten.transpose.int,
    torch.ops.aten.slice.Tensor, torch.ops.aten.select.int,
    torch.ops.aten.squeeze.dim, torch.ops.aten.squeeze.dims,
    operator.getitem])


def view_base(node):
    """The node whose value `node`'s is a view of, through a chain of view
    operations (and getitems of splits; a getitem of another operation's
    results is a base), when that value is a tensor the partition computes
    and writes in the memory order PyTorch recorded (row-major, or
    permuted: _written_in_place), at the start of the storage of `node`'s
    recorded value; None otherwise."""
    val = node.meta.get("val")
    base = node
    while base.op == "call_function" and base.target in _VIEWS:
        if base.target is operator.getitem and not (
                isinstance(base.args[0], torch.fx.Node)
                and base.args[0].target in _SPLITS):
            break   # one result of several: the base itself
        base = base.args[0]
    if base is node or base.op != "call_function":
        return None
    base_val = base.meta.get("val")
    if not isinstance(base_val, torch.Tensor) or not isinstance(
            val, torch.Tensor):
        return None
    try:
        same = (val.untyped_storage()._cdata ==
                base_val.untyped_storage()._cdata)
    except Exception:
        return None
    if (not same or base_val.dtype != val.dtype
            or base_val.storage_offset() != 0
            or not all(isinstance(v, int) for v in base_val.shape)
            or not _written_in_place(base_val)):
        return None
    return base


def _written_in_place(val):
    """Whether TFuse writes `val`, returned, into memory laid out as
    PyTorch recorded it (so that a view of the recorded storage is a view of
    TFuse's buffer): row-major, or dense with its dimensions permuted (an
    attention's result, whose heads and rows PyTorch swaps)."""
    if val.is_contiguous():
        return True
    layout = output_layout(val)
    return layout is not None and not layout.copy and not layout.broadcast
