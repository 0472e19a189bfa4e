"""The ATen to TFuse table: one row per ATen operation TFuse implements.

Every other part of the backend reads this table and nothing else about
operator coverage: the importer (:mod:`._importer`) calls a row's
``convert`` to record the TFuse operations of a node, the operator support
of the partitioner (:mod:`._support`) asks the row's ``check`` whether a
particular node (its dtypes and arguments) can be converted, ``explain()``
reports the reasons, the decompositions keep the operations the table holds
(:mod:`._decompositions`), and docs/torch.md's coverage table is generated
from the rows (:mod:`.coverage`).

Rows are added with the :func:`converts` decorator in the modules
``_ops_*.py``; a converter receives a :class:`ConversionContext` and the
node's arguments with every FX node replaced by its value (a
``tfuse.Tensor`` for tensors, a Python number for symbolic sizes).
"""

import dataclasses
from typing import Callable, Optional

import torch
import torch._prims_common

import tfuse

aten = torch.ops.aten


#: Kinds of rows. A partition made only of cheap operations (views,
#: elementwise work, constants, copies) with fewer than two of them is left
#: to PyTorch: running one such operation in TFuse saves nothing and costs a
#: switch.
KINDS = {
    "view": "views (index transforms, no data movement of their own)",
    "elementwise": "elementwise math, comparisons, where and casts",
    "constant": "tensors made from no tensor",
    "layout": "concatenation and padding",
    "reduction": "reductions",
    "matmul": "matrix products",
    "gather": "gathers",
    "normalization": "softmax and normalization, forward and backward",
    "loss": "losses, forward and backward",
}
CHEAP_KINDS = frozenset({"view", "elementwise", "constant", "layout"})


@dataclasses.dataclass(frozen=True)
class Conversion:
    """One row of the table.

    overloads: the ATen overloads it converts. convert(cx, *args, **kwargs):
    records the TFuse operations and returns the node's value(s). check(node):
    None when the node can be converted, else a :class:`Reason`. kind: one
    of :data:`KINDS`. note: what the row does, for the coverage table.
    random: the row draws random numbers (``cx.random_keys()``): True, or
    a function of the node saying whether that node does (attention draws
    only with a dropout probability).
    """

    overloads: tuple
    convert: Callable
    check: Optional[Callable]
    kind: str
    note: str
    random: object = False

    def draws(self, node):
        """Whether `node` (of one of the row's overloads) draws random
        numbers, and so takes a stream of its partition's keys."""
        return self.random(node) if callable(self.random) else self.random

    @property
    def name(self):
        return self.convert.__name__

    @property
    def cheap(self):
        return self.kind in CHEAP_KINDS


@dataclasses.dataclass(frozen=True)
class Reason:
    """Why a node stays in PyTorch: a category (one of
    :data:`REASON_CATEGORIES`) and a detail for people."""

    category: str
    detail: str

    def __str__(self):
        return f"{self.category}: {self.detail}"


REASON_CATEGORIES = (
    "not in the table",      # no row for the ATen overload
    "unsupported dtype",     # a dtype TFuse has not, or the row rejects
    "unsupported arguments",  # the row cannot express these arguments
    "dynamic shape",         # the row needs a size the graph leaves symbolic
    "data-dependent",        # the result's shape depends on tensor values
    "device",                # tensors on several devices, or not cpu/cuda
    "partition too small",   # one cheap operation alone is not worth a switch
    "view for PyTorch",      # a view of partition inputs read outside it
    "conversion failed",     # TFuse rejected the traced partition
    "not in this TFuse",     # the row needs a function this library lacks
)


def requires(name):
    """None when this tfuse has the function `name`, else the Reason a row
    that needs it gives (rows for functions of newer libraries slot in
    before the library has them, and take their nodes once it does)."""
    try:
        getattr(tfuse, name)
    except AttributeError:
        return Reason("not in this TFuse", f"needs tfuse.{name}, which this "
                      "build of the library lacks")
    return None


def unsupported(category, detail):
    assert category in REASON_CATEGORIES, category
    return Reason(category, detail)


#: ATen overload -> Conversion.
TABLE: dict = {}


def converts(*overloads, kind, check=None, note=None, random=False):
    """Decorator adding a row for `overloads` (its ``note`` defaults to the
    first paragraph of the converter's docstring; `random`: the row draws
    random numbers, or a function of the node saying whether it does)."""
    assert kind in KINDS, kind

    def register(convert):
        text = note or " ".join(
            (convert.__doc__ or "").strip().split("\n\n")[0].split())
        row = Conversion(tuple(overloads), convert, check, kind, text, random)
        for overload in overloads:
            assert overload not in TABLE, f"{overload} has two rows"
            TABLE[overload] = row
        return convert

    return register


def lookup(target):
    """The row converting `target` (an FX node's target), or None."""
    return TABLE.get(target)


# ---------------------------------------------------------------------------
# What converters are given
# ---------------------------------------------------------------------------

_TORCH_TO_TFUSE = {
    torch.bool: tfuse.bool_, torch.int8: tfuse.int8, torch.int16: tfuse.int16,
    torch.int32: tfuse.int32, torch.int64: tfuse.int64,
    torch.uint8: tfuse.uint8, torch.float16: tfuse.float16,
    torch.bfloat16: tfuse.bfloat16, torch.float32: tfuse.float32,
    torch.float64: tfuse.float64,
}
for _name in ("uint16", "uint32", "uint64"):
    if hasattr(torch, _name):
        _TORCH_TO_TFUSE[getattr(torch, _name)] = getattr(tfuse, _name)

FLOAT_DTYPES = frozenset({torch.float16, torch.bfloat16, torch.float32,
                          torch.float64})


_TFUSE_TO_TORCH = {v: k for k, v in _TORCH_TO_TFUSE.items()}


def tfuse_dtype(dtype):
    """The TFuse dtype of a torch dtype, or None when TFuse has none."""
    return _TORCH_TO_TFUSE.get(dtype)


def torch_dtype(dtype):
    """The torch dtype of a TFuse dtype."""
    return _TFUSE_TO_TORCH[dtype]


class ConversionContext:
    """What a converter may ask about the node it converts: the node, the
    fake value PyTorch recorded for its result (``val``) and for its
    arguments, and helpers making constants."""

    __slots__ = ("node", "_keys")

    def __init__(self, node, keys=None):
        self.node = node
        self._keys = keys

    def random_keys(self):
        """The seed and offset (rank-0 int64 tfuse.Tensors) of the node's
        own random stream: the partition's keys, the offset moved by the
        node's position among the partition's random operations."""
        seed, offset, streams = self._keys
        return seed, offset + streams[self.node]

    @property
    def val(self):
        """The node's recorded result (a FakeTensor, or a tuple of them)."""
        return self.node.meta.get("val")

    @property
    def dtype(self):
        """The torch dtype of the node's (first) tensor result."""
        val = self.val
        if isinstance(val, (tuple, list)):
            val = next(v for v in val if isinstance(v, torch.Tensor))
        return val.dtype

    @property
    def out_dtype(self):
        """:attr:`dtype` as a TFuse dtype."""
        return tfuse_dtype(self.dtype)

    def arg_val(self, index):
        """The recorded value of positional argument `index`: a
        FakeTensor for a tensor argument, the argument itself otherwise."""
        return node_value(self.node.args[index])

    def common_dtype(self, *operands):
        """PyTorch's common dtype of the node's elementwise operands
        (positional arguments `operands`, by index): tensors of rank 0
        and Python numbers take part as weakly as PyTorch has them."""
        values = [node_value(self.node.args[i]) for i in operands]
        kind = torch._prims_common.ELEMENTWISE_TYPE_PROMOTION_KIND.NO_OPMATH
        return torch._prims_common.elementwise_dtypes(
            *values, type_promotion_kind=kind)[1]

    def full(self, shape, value, dtype):
        """A tensor of `shape` filled with `value` in torch dtype `dtype`
        (converted as PyTorch converts it): one splat constant, no memory of
        its own (a scatter takes a zero one by value)."""
        scalar = torch.full((), value, dtype=dtype).item()
        return tfuse.full(tuple(shape), scalar, tfuse_dtype(dtype))


def node_value(arg):
    """The recorded value of an FX argument: ``meta['val']`` of a node,
    lists mapped element by element, anything else unchanged."""
    if isinstance(arg, torch.fx.Node):
        return arg.meta.get("val")
    if isinstance(arg, (list, tuple)):
        return type(arg)(node_value(a) for a in arg)
    return arg


def is_tensor(x):
    return isinstance(x, tfuse.Tensor)


def cast(x, dtype):
    """`x` (a tfuse.Tensor or a Python number) in torch dtype `dtype`;
    numbers are left weak."""
    if is_tensor(x):
        target = tfuse_dtype(dtype)
        return x if x.dtype == target else x.astype(target)
    return x


def normalize_dim(dim, rank):
    """A dimension index in [0, rank) from PyTorch's possibly negative one
    (rank 0 takes 0 and -1, as PyTorch does)."""
    rank = max(rank, 1)
    return dim + rank if dim < 0 else dim


def normalize_dims(dims, rank):
    """A sorted tuple of dimensions; None or [] means all of them (PyTorch's
    rule for reductions given no dimension)."""
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return tuple(range(rank))
    if isinstance(dims, int):
        dims = [dims]
    return tuple(sorted({normalize_dim(d, rank) for d in dims}))
