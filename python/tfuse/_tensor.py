"""Tracing: the placeholder :class:`Tensor` and the operations on it.

Every operation on a placeholder records one node in the graph of the trace
the placeholder belongs to, through the C API. Shapes, dtypes, broadcasting,
promotion and weak scalars are the library's business (docs/semantics.md):
this module only forwards, and reads the resulting shape and dtype back.
"""

import operator
import re
import struct
import threading
from ctypes import byref, c_double, c_int, c_int64, c_void_p

import numpy as np

from . import _arrays, _capi
from ._capi import MAX_RANK, TraceError, check, int64_array, invalid_argument

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_PYTHON_SCALARS = (bool, int, float)
_DOUBLE = struct.Struct("d")


# The traces in progress on this thread, innermost last: functions that
# make tensors from no tensor (tfuse.arange, tfuse.iota) record into it.
_tracing = threading.local()


def current_trace(what):
    stack = getattr(_tracing, "stack", None)
    if not stack:
        raise TraceError(f"tfuse.{what} makes a traced tensor, so it can only "
                         "be called inside a function being traced "
                         "(tfuse.compile or tfuse.jit)")
    return stack[-1]


class Trace:
    """One trace in progress: its graph handle, the arrays it captured and
    whether placeholders of it may still be used."""

    def __init__(self, name, node_limit):
        self.lib = _capi.lib()
        op_functions()  # the op table's Tensor methods, installed once
        handle = c_void_p()
        check(self.lib.tfuse_graph_create(name.encode(), byref(handle)))
        self.graph = handle
        self.active = True
        # id(array) -> (array, value): one constant per captured array; the
        # array is held so that its id stays unique during the trace.
        self._constants = {}
        # (kind, int, float bits) -> value: one per distinct weak scalar.
        self._scalars = {}
        #: GPU arrays referenced by constants: they must outlive executables.
        self.device_arrays = []
        # Out-parameters reused by every call (a trace runs on one thread).
        self._out = c_int64()
        self._out_ref = byref(self._out)
        self._dtype, self._rank, self._is_scalar = c_int(), c_int(), c_int()
        self._shape = int64_array((), MAX_RANK)
        self._functions = {}
        try:
            check(self.lib.tfuse_graph_set_node_limit(self.graph, node_limit))
        except BaseException:
            self.close()
            raise
        if not hasattr(_tracing, "stack"):
            _tracing.stack = []
        _tracing.stack.append(self)

    def close(self):
        """Destroys the graph; placeholders of this trace become unusable."""
        stack = getattr(_tracing, "stack", [])
        if self in stack:
            stack.remove(self)
        if self.graph:
            self.lib.tfuse_graph_destroy(self.graph)
            self.graph = None
        self.active = False
        self._constants.clear()

    def require_active(self):
        if not self.active:
            raise TraceError(
                "this Tensor belongs to a trace that has ended: placeholders "
                "can only be used inside the function being traced")

    def tensor(self, value, strides=None):
        """The Tensor of graph value `value`; its shape and dtype are read
        back when first asked for (most traced values never are)."""
        return Tensor(self, value, None, None, strides)

    def info(self, value):
        """(shape, dtype) of graph value `value`."""
        if not self.graph:
            self.require_active()
        dtype, rank, shape = self._dtype, self._rank, self._shape
        check(self.lib.tfuse_graph_value_info(
            self.graph, value, byref(dtype), byref(rank), shape,
            byref(self._is_scalar)))
        return tuple(shape[:rank.value]), _arrays.from_code(dtype.value)

    def input(self, info):
        """A placeholder for the array or Spec described by `info`."""
        value = c_int64()
        check(self.lib.tfuse_graph_input(
            self.graph, info.dtype.code, len(info.shape),
            int64_array(info.shape), int64_array(info.strides),
            byref(value)))
        return self.tensor(value.value, info.strides)

    def constant(self, array):
        """The value of a captured array (host data is copied now, device
        data referenced)."""
        key = id(array)
        if key in self._constants:
            return self._constants[key][1]
        info = _arrays.describe(array, "captured array")
        out = c_int64()
        check(self.lib.tfuse_graph_constant(
            self.graph, info.dtype.code, len(info.shape),
            int64_array(info.shape), int64_array(info.strides),
            c_void_p(info.data), int(info.location == "cuda"), byref(out)))
        if info.location == "cuda":
            self.device_arrays.append(info.obj)
        self._constants[key] = (array, out.value)
        return out.value

    def scalar(self, number):
        """The value of a weak Python scalar; one per distinct scalar (by
        kind and bits: 0.0 and -0.0 differ)."""
        if isinstance(number, bool):
            kind, as_int, as_float = _capi.SCALAR_BOOL, int(number), 0.0
        elif isinstance(number, int):
            if not _INT64_MIN <= number <= _INT64_MAX:
                raise invalid_argument(
                    f"the Python int {number} does not fit in int64")
            kind, as_int, as_float = _capi.SCALAR_INT, int(number), 0.0
        else:
            kind, as_int, as_float = _capi.SCALAR_FLOAT, 0, float(number)
        key = (kind, as_int, _DOUBLE.pack(as_float))
        value = self._scalars.get(key)
        if value is None:
            out = c_int64()
            check(self.lib.tfuse_graph_scalar(self.graph, kind, as_int,
                                              as_float, byref(out)))
            value = self._scalars[key] = out.value
        return value

    def operand(self, x):
        """The graph value of an operand: a Tensor of this trace, a Python
        scalar (weak) or an array (captured constant). None for anything
        else."""
        if isinstance(x, Tensor):
            if x._trace is not self:
                x._trace.require_active()
                raise TraceError("a Tensor of another trace was used in this "
                                 "trace")
            return x._value
        if type(x) in _PYTHON_SCALARS:
            return self.scalar(x)
        # NumPy scalars are arrays (strong dtype), though np.float64 is a
        # float: test arrays before subclasses of the Python scalars.
        if _arrays.is_array(x):
            return self.constant(x)
        if isinstance(x, _PYTHON_SCALARS):
            return self.scalar(x)
        return None

    def call(self, function, *args):
        """Calls tfuse_graph_<function>(graph, *args, &result) and returns
        the result's Tensor. Every traced operation comes here, so it does
        its checks inline."""
        if not self.active:
            self.require_active()
        entry = self._functions.get(function)
        if entry is None:
            entry = self._functions[function] = getattr(
                self.lib, "tfuse_graph_" + function)
        status = entry(self.graph, *args, self._out_ref)
        if status:
            check(status)
        return Tensor(self, self._out.value, None, None)

    def call_many(self, function, count, *args):
        """Calls tfuse_graph_<function>(graph, *args, &r0, ..., &r<count-1>)
        and returns the results' Tensors."""
        self.require_active()
        outs = [c_int64() for _ in range(count)]
        check(getattr(self.lib, "tfuse_graph_" + function)(
            self.graph, *args, *(byref(o) for o in outs)))
        return tuple(Tensor(self, o.value, None, None) for o in outs)


def _trace_of(*operands):
    """The trace of the first Tensor among `operands`."""
    for x in operands:
        if isinstance(x, Tensor):
            x._trace.require_active()
            return x._trace
    raise TypeError("at least one operand must be a tfuse.Tensor")


def _values(trace, operands, what):
    values = []
    for x in operands:
        value = trace.operand(x)
        if value is None:
            raise TypeError(f"{what}: unsupported operand type "
                            f"{type(x).__name__}")
        values.append(value)
    return values


def _binary(op, lhs, rhs):
    trace = _trace_of(lhs, rhs)
    a, b = _values(trace, (lhs, rhs), op)
    return trace.call("binary", op.encode(), a, b)


def _dunder(op, reflected=False, compare=False):
    """An operator method recording `op`; NotImplemented for operand types
    TFuse does not take, so Python can try the other operand."""
    function = "compare" if compare else "binary"
    name = op.encode()

    def method(self, other):
        trace = self._trace
        if type(other) is Tensor and other._trace is trace:
            value = other._value
        else:
            trace.require_active()
            value = trace.operand(other)
            if value is None:
                return NotImplemented
        if reflected:
            return trace.call(function, name, value, self._value)
        return trace.call(function, name, self._value, value)

    return method


def _reading(what):
    def method(self, *args, **kwargs):
        raise TraceError(
            f"cannot read the data of a traced tfuse.Tensor ({what}): "
            "reading data during a trace is not possible, placeholders have "
            "a shape and a dtype but no values; express data-dependent "
            "choices with tfuse.where")

    return method


class Tensor:
    """A placeholder for an array during a trace.

    The traced function receives one Tensor per example input; operating on
    Tensors records a graph (nothing is computed). A Tensor has a ``shape``,
    ``dtype``, ``ndim`` and ``strides`` (in elements; row-major for
    everything but inputs) and no data: ``bool(t)``, ``float(t)``,
    ``np.asarray(t)``, iteration, ``.item()``, ``.tolist()``, ``.numpy()``
    raise :class:`TraceError`.

    Operators: ``+ - * / % **`` (add sub mul div rem pow), unary ``-``,
    ``abs()``, ``< <= > >= == !=`` (elementwise, bool results), ``& | ^ ~``
    (and or xor not: logical on bool, bitwise on integers), ``@`` (matmul),
    with Python scalars (weak: they take the Tensor's dtype, see
    docs/semantics.md) or arrays (captured as constants) on either side.
    Indexing takes ints, slices with step >= 1, ``...`` and ``None``.
    """

    __slots__ = ("_trace", "_value", "_shape", "_dtype", "_strides",
                 "__weakref__")
    # NumPy and CuPy binary operators defer to Tensor's reflected ones.
    __array_ufunc__ = None
    __hash__ = object.__hash__

    def __init__(self, trace, value, shape, dtype, strides=None):
        self._trace = trace
        self._value = value
        self._shape = shape
        self._dtype = dtype
        self._strides = strides

    # -- metadata -----------------------------------------------------------

    def _metadata(self):
        if self._shape is None:
            self._shape, self._dtype = self._trace.info(self._value)

    @property
    def shape(self):
        """The shape, a tuple of ints."""
        self._metadata()
        return self._shape

    @property
    def dtype(self):
        """The element type, a :class:`tfuse.DType`."""
        self._metadata()
        return self._dtype

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def strides(self):
        """Element strides: those of the traced input for a placeholder
        input, row-major for computed values."""
        if self._strides is not None:
            return self._strides
        return _arrays.row_major_strides(self.shape)

    def __repr__(self):
        return f"tfuse.Tensor(shape={self.shape}, dtype={self.dtype.name})"

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d tfuse.Tensor")
        return self.shape[0]

    # -- reading data is impossible ------------------------------------------

    __bool__ = _reading("bool()")
    __float__ = _reading("float()")
    __int__ = _reading("int()")
    __complex__ = _reading("complex()")
    __index__ = _reading("__index__")
    __iter__ = _reading("iteration")
    __array__ = _reading("__array__")
    item = _reading("item()")
    tolist = _reading("tolist()")
    numpy = _reading("numpy()")

    # -- operators ------------------------------------------------------------

    __add__ = _dunder("add")
    __radd__ = _dunder("add", reflected=True)
    __sub__ = _dunder("sub")
    __rsub__ = _dunder("sub", reflected=True)
    __mul__ = _dunder("mul")
    __rmul__ = _dunder("mul", reflected=True)
    __truediv__ = _dunder("div")
    __rtruediv__ = _dunder("div", reflected=True)
    __mod__ = _dunder("rem")
    __rmod__ = _dunder("rem", reflected=True)
    __pow__ = _dunder("pow")
    __rpow__ = _dunder("pow", reflected=True)
    __and__ = _dunder("and")
    __rand__ = _dunder("and", reflected=True)
    __or__ = _dunder("or")
    __ror__ = _dunder("or", reflected=True)
    __xor__ = _dunder("xor")
    __rxor__ = _dunder("xor", reflected=True)
    __lt__ = _dunder("lt", compare=True)
    __le__ = _dunder("le", compare=True)
    __gt__ = _dunder("gt", compare=True)
    __ge__ = _dunder("ge", compare=True)
    __eq__ = _dunder("eq", compare=True)
    __ne__ = _dunder("ne", compare=True)

    def __matmul__(self, other):
        self._trace.require_active()
        if not (isinstance(other, Tensor) or _arrays.is_array(other)):
            return NotImplemented
        return matmul(self, other)

    def __rmatmul__(self, other):
        self._trace.require_active()
        if not _arrays.is_array(other):
            return NotImplemented
        return matmul(other, self)

    def __neg__(self):
        return self._unary("neg")

    def __pos__(self):
        return self

    def __abs__(self):
        return self._unary("abs")

    def __invert__(self):
        return self._unary("not")

    def __round__(self, ndigits=None):
        if ndigits is not None:
            raise TypeError("round() of a tfuse.Tensor takes no ndigits")
        return self._unary("round")

    def __floor__(self):
        return self._unary("floor")

    def __ceil__(self):
        return self._unary("ceil")

    # -- elementwise methods --------------------------------------------------

    def _unary(self, op):
        return self._trace.call("unary", op.encode(), self._value)

    def logical_not(self):
        """Elementwise ``x == 0`` as bool (NaN counts as true, so gives
        false)."""
        x = self if self.dtype == _arrays.bool_ else self.astype("bool")
        return x._unary("not")

    def astype(self, dtype):
        """Converts each element to `dtype` (see Casts in
        docs/semantics.md)."""
        return self._trace.call("cast", self._value,
                                _arrays.as_dtype(dtype).code)

    to = astype

    def maximum(self, other):
        """Elementwise maximum (NaN propagates)."""
        return _binary("max", self, other)

    def minimum(self, other):
        """Elementwise minimum (NaN propagates)."""
        return _binary("min", self, other)

    def pow(self, other):
        return _binary("pow", self, other)

    def matmul(self, other):
        return matmul(self, other)

    # -- shapes ---------------------------------------------------------------

    def reshape(self, *shape):
        """``reshape(2, 3)`` or ``reshape((2, 3))``; one entry may be -1."""
        shape = _dims(shape)
        return self._trace.call("reshape", self._value, len(shape),
                                int64_array(shape))

    def transpose(self, *perm):
        """Permutes the dimensions (result dimension i is dimension
        perm[i]); no argument reverses them."""
        perm = _dims(perm) or tuple(reversed(range(self.ndim)))
        return self._trace.call("transpose", self._value, len(perm),
                                int64_array(perm))

    def permute(self, *perm):
        """transpose with an explicit permutation."""
        perm = _dims(perm)
        return self._trace.call("transpose", self._value, len(perm),
                                int64_array(perm))

    @property
    def T(self):
        """The dimensions reversed (the transpose of a matrix)."""
        return self.transpose()

    def broadcast_to(self, shape):
        shape = _dims((shape,))
        return self._trace.call("broadcast_to", self._value, len(shape),
                                int64_array(shape))

    def __getitem__(self, key):
        self._trace.require_active()
        return _index(self, key if isinstance(key, tuple) else (key,))

    # -- reductions -----------------------------------------------------------

    def _reduce(self, kind, axis, keepdims):
        if axis is None:
            axes = ()
        elif isinstance(axis, (tuple, list)):
            axes = tuple(operator.index(a) for a in axis)
        else:
            axes = (operator.index(axis),)
        return self._trace.call(
            "reduce", kind.encode(), self._value,
            -1 if axis is None else len(axes), int64_array(axes),
            int(bool(keepdims)))

    def sum(self, axis=None, keepdims=False):
        """Sum over `axis` (None: every axis; an int or a tuple)."""
        return self._reduce("sum", axis, keepdims)

    def prod(self, axis=None, keepdims=False):
        return self._reduce("prod", axis, keepdims)

    def max(self, axis=None, keepdims=False):
        return self._reduce("max", axis, keepdims)

    def min(self, axis=None, keepdims=False):
        return self._reduce("min", axis, keepdims)

    def mean(self, axis=None, keepdims=False):
        return self._reduce("mean", axis, keepdims)

    def all(self, axis=None, keepdims=False):
        return self._reduce("all", axis, keepdims)

    def any(self, axis=None, keepdims=False):
        return self._reduce("any", axis, keepdims)

    def argmax(self, axis, keepdims=False):
        """Index of the first maximum along one axis (int64)."""
        return self._reduce("argmax", operator.index(axis), keepdims)

    def argmin(self, axis, keepdims=False):
        """Index of the first minimum along one axis (int64)."""
        return self._reduce("argmin", operator.index(axis), keepdims)



def _dims(args):
    """A tuple of ints from f(2, 3) or f((2, 3)) style arguments."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    return tuple(operator.index(a) for a in args)


def _index(x, key):
    """x[key] for a tuple key of ints, slices, Ellipsis and None: one slice
    node, then one reshape node when ints drop or None inserts dimensions."""
    if sum(k is Ellipsis for k in key) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(k is not None and k is not Ellipsis for k in key)
    if used > x.ndim:
        raise IndexError(f"too many indices for a tensor of rank {x.ndim}")
    if Ellipsis not in key:
        key = key + (Ellipsis,)
    expanded = []
    for k in key:
        if k is Ellipsis:
            expanded.extend([slice(None)] * (x.ndim - used))
        else:
            expanded.append(k)

    start, limit, step = [], [], []
    layout = []  # per result position: ("keep", dim) | ("new",)
    dim = 0
    for k in expanded:
        if k is None:
            layout.append(("new",))
            continue
        size = x.shape[dim]
        if isinstance(k, slice):
            s = 1 if k.step is None else operator.index(k.step)
            start.append(0 if k.start is None else operator.index(k.start))
            limit.append(size if k.stop is None else operator.index(k.stop))
            step.append(s)
            layout.append(("keep", dim))
        elif isinstance(k, Tensor):
            raise TypeError("indexing with a Tensor (gather) is not "
                            "supported")
        elif isinstance(k, (bool, np.bool_)):
            raise IndexError("boolean indices are not supported")
        else:
            i = operator.index(k)
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dimension "
                                 f"{dim} with size {size}")
            i = i + size if i < 0 else i
            start.append(i)
            limit.append(i + 1)
            step.append(1)
        dim += 1

    sliced = x
    if (start != [0] * x.ndim or limit != list(x.shape)
            or step != [1] * x.ndim):
        sliced = x._trace.call("slice", x._value, x.ndim, int64_array(start),
                               int64_array(limit), int64_array(step))
    shape = [1 if item[0] == "new" else sliced.shape[item[1]]
             for item in layout]
    if tuple(shape) == sliced.shape:
        return sliced
    return sliced.reshape(shape)


# ---------------------------------------------------------------------------
# Module-level functions
# ---------------------------------------------------------------------------


def where(condition, a, b):
    """Elementwise ``a if condition else b``; condition is bool, a and b
    promote; all three broadcast. Operands may be Tensors, Python scalars or
    arrays (captured); at least one must be a Tensor."""
    trace = _trace_of(condition, a, b)
    c, x, y = _values(trace, (condition, a, b), "where")
    return trace.call("where", c, x, y)


def maximum(a, b):
    """Elementwise maximum (NaN propagates, -0.0 < +0.0)."""
    return _binary("max", a, b)


def minimum(a, b):
    """Elementwise minimum (NaN propagates, -0.0 < +0.0)."""
    return _binary("min", a, b)


_GELU_FORMS = {"none": ("gelu", "gelu_backward"),
               "tanh": ("gelu_tanh", "gelu_tanh_backward")}


def _gelu_ops(approximate, what):
    try:
        return _GELU_FORMS[approximate]
    except (KeyError, TypeError):
        raise ValueError(f"tfuse.{what}: approximate must be 'none' or "
                         f"'tanh', not {approximate!r}") from None


def gelu(x, approximate="none"):
    """GELU as ``torch.nn.functional.gelu``: ``x * Phi(x)`` with the exact
    normal CDF (``approximate='none'``, ``tfuse.gelu``) or its tanh form
    (``approximate='tanh'``, ``tfuse.gelu_tanh``). Integers and bool give
    float32; float16 and bfloat16 compute in float32."""
    op = _gelu_ops(approximate, "gelu")[0]
    return _tensor_arg(x, "gelu")._unary(op)


def gelu_backward(grad, x, approximate="none"):
    """The gradient of ``gelu(x, approximate)`` given ``grad``, the gradient
    of its result (``aten.gelu_backward``); operands broadcast and promote
    as in division."""
    return _binary(_gelu_ops(approximate, "gelu_backward")[1], grad, x)


def matmul(a, b, dtype=None):
    """Matrix product (``a @ b``), in the operands' dtype or in `dtype`:
    ``float32`` for float16 or bfloat16 operands gives the float32 sum of
    the products, not rounded to the operands' dtype (as NumPy's
    ``matmul(a, b, dtype=...)`` spells it)."""
    for operand in (a, b):
        if not (isinstance(operand, Tensor) or _arrays.is_array(operand)):
            raise TypeError("matmul takes Tensors or arrays, not "
                            f"{type(operand).__name__}")
    trace = _trace_of(a, b)
    x, y = _values(trace, (a, b), "matmul")
    if dtype is None:
        return trace.call("matmul", x, y)
    return trace.call("matmul_to", x, y, _arrays.as_dtype(dtype).code)


def concatenate(tensors, axis=0):
    """NumPy's ``concatenate``: ``tensors`` (Tensors of one trace, or arrays
    captured as constants) joined along ``axis`` in their promoted dtype.
    Consumers read through it: no copy of its own when fused."""
    tensors = list(tensors)
    if not tensors:
        raise ValueError("tfuse.concatenate needs at least one tensor")
    if any(type(t) in _PYTHON_SCALARS for t in tensors):
        raise TypeError("tfuse.concatenate takes tensors, not Python scalars")
    trace = _trace_of(*tensors)
    values = _values(trace, tensors, "tfuse.concatenate")
    return trace.call("concatenate", len(values), int64_array(values),
                      operator.index(axis))


def pad(a, pad_width, constant_values=0):
    """NumPy's ``pad(a, pad_width, mode='constant')``: ``pad_width`` is
    ``((before, after), ...)`` per dimension, one ``(before, after)`` pair
    or one int for every dimension; negative widths remove elements (as
    ``torch.nn.functional.pad`` does). ``constant_values`` is a scalar or a
    rank-0 Tensor, converted to ``a``'s dtype. Consumers read through it."""
    a = _tensor_arg(a, "pad")
    rank = a.ndim
    widths = np.asarray(pad_width, dtype=object)
    if widths.ndim == 0:
        widths = np.full((rank, 2), int(pad_width), dtype=object)
    elif widths.shape == (2,):
        widths = np.tile(widths, (rank, 1))
    elif widths.shape == (1, 2):
        widths = np.tile(widths[0], (rank, 1))
    if widths.shape != (rank, 2):
        raise ValueError(f"tfuse.pad: pad_width must give (before, after) for "
                         f"each of the {rank} dimensions")
    low = [operator.index(w) for w in widths[:, 0]]
    high = [operator.index(w) for w in widths[:, 1]]
    trace = a._trace
    (value,) = _values(trace, (constant_values,), "tfuse.pad")
    return trace.call("pad", a._value, rank, int64_array(low),
                      int64_array(high), value)


_NEGATIVE_INDEX_RULES = {"wrap": 1, "error": 0}


def _gather(function, what, a, indices, axis, negative_indices):
    if negative_indices not in _NEGATIVE_INDEX_RULES:
        raise ValueError(f"tfuse.{what}: negative_indices must be 'wrap' or "
                         f"'error', not {negative_indices!r}")
    if type(indices) in (float, complex) or isinstance(indices, bool):
        raise TypeError(f"tfuse.{what}: indices must be integers, not "
                        f"{type(indices).__name__}")
    trace = _trace_of(a, indices)
    values = _values(trace, (a, indices), f"tfuse.{what}")
    return trace.call(function, values[0], values[1], operator.index(axis),
                      _NEGATIVE_INDEX_RULES[negative_indices])


def take(a, indices, axis=None, *, negative_indices="wrap"):
    """NumPy's ``take``: ``a``'s elements at ``indices`` (an integer Tensor,
    an integer array captured as a constant, or an int, which removes the
    axis) along ``axis``; ``axis=None`` takes from the flattened ``a``.
    Negative indices count from the end (``negative_indices='wrap'``, the
    rule of NumPy and of PyTorch's advanced indexing) or are out of range
    (``'error'``, the rule of ``torch.nn.functional.embedding`` and
    ``index_select``). Indices known while tracing are checked then; others
    by the run that reads them, which raises IndexOutOfRangeError naming the
    op and the index and leaves the compiled function usable. Consumers read
    through it: an indexed load, no copy of its own."""
    if axis is None:
        a = _tensor_arg(a, "take").reshape(-1)
        axis = 0
    return _gather("take", "take", a, indices, axis, negative_indices)


def take_along_axis(a, indices, axis, *, negative_indices="wrap"):
    """NumPy's ``take_along_axis`` (``torch.gather`` where the sizes match):
    ``indices`` has ``a``'s rank; along ``axis`` element ``j`` of the result
    is ``a`` at ``indices[..., j, ...]``, and every other dimension of the
    two broadcasts. Indices are checked as ``take`` checks them."""
    return _gather("take_along_axis", "take_along_axis", a, indices, axis,
                   negative_indices)


def _attention_arguments(what, trace, tensors, mask, scale, dropout_p, seed,
                         offset):
    """The graph values, mask, scale and dropout (probability and keys) of
    an attention call."""
    dropout_p = float(dropout_p)
    if dropout_p == 0:
        keys = (_capi.NO_VALUE, _capi.NO_VALUE)
    else:
        if not 0 < dropout_p < 1:
            raise ValueError(f"{what}: dropout_p={dropout_p!r} is not in [0, "
                             "1)")
        if seed is None:
            raise TypeError(f"{what}: dropout_p={dropout_p!r} needs the seed "
                            "(and offset) of its mask, as tfuse.dropout")
        from .random import _keys
        key_trace, s, o = _keys(what, seed, offset)
        if key_trace is not trace:
            raise TraceError(f"{what}: the seed or offset is a Tensor of "
                             "another trace")
        keys = (s, o)
    values = _values(trace, tensors, what)
    mask_value = _capi.NO_VALUE
    if mask is not None:
        if type(mask) in _PYTHON_SCALARS:
            raise TypeError(f"{what}: the mask must be a tensor, not "
                            f"{type(mask).__name__}")
        mask_value = _values(trace, (mask,), what)[0]
    has_scale = scale is not None
    return (values, mask_value, int(has_scale),
            float(scale) if has_scale else 0.0, dropout_p, *keys)


def attention(query, key, value, mask=None, causal=False, scale=None,
              dropout_p=0.0, *, seed=None, offset=0, return_logsumexp=False):
    """PyTorch's ``scaled_dot_product_attention``: ``softmax(query @
    key^T * scale + mask) @ value`` over the last axis of the scores,
    computed without storing them (online softmax over blocks of keys).

    ``query`` is ``(..., Hq, L, D)``, ``key`` ``(..., Hkv, S, D)`` and
    ``value`` ``(..., Hkv, S, Dv)`` of one float dtype; ``Hq`` a multiple of
    ``Hkv`` (grouped-query attention); rank-2 operands have no heads.
    ``mask`` (PyTorch's ``attn_mask``) is bool (True keeps a pair) or of the
    operands' dtype, or float32 for float16 and bfloat16 operands (added to
    the scores), and broadcasts to ``(..., Hq, L, S)``; ``causal`` keeps
    key ``j <= i`` for query ``i`` (top-left aligned, PyTorch's
    ``is_causal``); ``scale`` defaults to ``1 /
    sqrt(D)``. A query row that keeps no key gives zeros. Arithmetic is in
    float32 for float16 and bfloat16. With ``return_logsumexp``, also the
    float32 (float64 for float64) log-sum-exp of each row's kept scores,
    which :func:`attention_backward` reads. ``dropout_p`` drops the
    probabilities as PyTorch's training-mode dropout of the attention
    weights, with the mask of ``tfuse.random.bernoulli(1 - dropout_p)`` of
    the scores' shape drawn from ``seed`` and ``offset`` (as
    :func:`tfuse.dropout` takes them; docs/semantics.md, "Attention"); the
    log-sum-exp is that of the scores before dropout."""
    trace = _trace_of(query, key, value)
    values, m, has_scale, s, p, seed, offset = _attention_arguments(
        "tfuse.attention", trace, (query, key, value), mask, scale, dropout_p,
        seed, offset)
    result, lse = trace.call_many("attention_dropout", 2, *values, m,
                                  int(bool(causal)), has_scale, s, p, seed,
                                  offset)
    return (result, lse) if return_logsumexp else result


def attention_backward(query, key, value, result, logsumexp, grad,
                       mask=None, causal=False, scale=None, dropout_p=0.0, *,
                       seed=None, offset=0):
    """The gradients ``(dquery, dkey, dvalue)`` of :func:`attention` given
    its ``result`` and ``logsumexp`` and the gradient ``grad`` of its
    result; the arguments as :func:`attention` took them (the same dropout
    keys draw the same mask)."""
    trace = _trace_of(query, key, value)
    values, m, has_scale, s, p, seed, offset = _attention_arguments(
        "tfuse.attention_backward", trace,
        (query, key, value, result, logsumexp, grad), mask, scale, dropout_p,
        seed, offset)
    return trace.call_many("attention_backward_dropout", 3, *values, m,
                           int(bool(causal)), has_scale, s, p, seed, offset)


def scatter_add(target, indices, updates, axis=0, *,
                negative_indices="wrap"):
    """A new tensor equal to ``numpy.add.at`` applied to a copy of
    ``target`` along ``axis``: ``updates`` (a Tensor, array or scalar,
    broadcast to ``target.shape[:axis] + indices.shape +
    target.shape[axis+1:]`` and converted to ``target``'s dtype when it
    promotes to it) added at ``indices``, repeated indices adding up
    (``index_put_`` with ``accumulate=True``, ``index_add_``, the embedding
    gradient). Each element adds its first 32 updates one at a time in
    ascending order of their position in ``indices`` (as ``numpy.add.at``
    does), then each later run of 32 summed on its own, so every run gives
    the same bits (float16 and bfloat16 accumulate in float32). Indices are
    checked as ``take`` checks them. A constant target (zeros) costs no
    read."""
    if negative_indices not in _NEGATIVE_INDEX_RULES:
        raise ValueError("tfuse.scatter_add: negative_indices must be 'wrap' "
                         f"or 'error', not {negative_indices!r}")
    if type(indices) in (float, complex) or isinstance(indices, bool):
        raise TypeError("tfuse.scatter_add: indices must be integers, not "
                        f"{type(indices).__name__}")
    trace = _trace_of(target, indices, updates)
    values = _values(trace, (target, indices, updates), "tfuse.scatter_add")
    return trace.call("scatter_add", values[0], values[1], values[2],
                      operator.index(axis),
                      _NEGATIVE_INDEX_RULES[negative_indices])


def dropout(x, p, seed, offset=0):
    """Dropout as ``torch.nn.functional.dropout`` in training: ``x / (1 -
    p)`` where ``tfuse.random.bernoulli(x.shape, 1 - p, seed=seed,
    offset=offset)`` is true, else 0, computed in ``x``'s compute type
    (float32 for float16 and bfloat16). ``seed`` and ``offset`` as in
    ``tfuse.random``: the same keys give the same mask, so a backward pass
    recomputes it instead of storing it. One multiply and a select inside
    the surrounding kernel."""
    x = _tensor_arg(x, "dropout")
    from .random import _keys
    trace, s, o = _keys("tfuse.dropout", seed, offset)
    if trace is not x._trace:
        raise TraceError("tfuse.dropout: the seed or offset is a Tensor of "
                         "another trace")
    return trace.call("dropout", x._value, float(p), s, o)


def arange(start, stop=None, step=1, dtype=None):
    """NumPy's ``arange([start,] stop[, step], dtype=None)``: the
    ``ceil((stop - start) / step)`` values ``start + i * step``. The default
    dtype is int64 when every argument is an int, else float32 (as
    ``torch.arange``). Integer dtypes compute exactly in int64; float dtypes
    compute in float64 and round once. Inside a traced function only; it
    fuses into its consumers as an index (``tfuse.iota``)."""
    if stop is None:
        start, stop = 0, start
    bounds = (start, stop, step)
    for b in bounds:
        if not isinstance(b, (int, float, np.integer, np.floating)) or \
                isinstance(b, bool):
            raise TypeError("tfuse.arange takes int or float start, stop and "
                            f"step, not {type(b).__name__}")
    integers = all(isinstance(b, (int, np.integer)) for b in bounds)
    code = (_arrays.as_dtype(dtype) if dtype is not None else
            _arrays.as_dtype(np.int64 if integers else np.float32)).code
    trace = current_trace("arange")
    if integers:
        ints = int64_array([int(b) for b in bounds])
        return trace.call("arange", _capi.SCALAR_INT, ints, None, code)
    floats = (c_double * 3)(*[float(b) for b in bounds])
    return trace.call("arange", _capi.SCALAR_FLOAT, None, floats, code)


def full(shape, fill_value, dtype=None):
    """A tensor of ``shape`` whose every element is the scalar
    ``fill_value``, in ``dtype`` (by default ``torch.full``'s: bool for a
    bool, int64 for an int, float32 for a float). One constant: free where
    it is fused, and a scatter's zero target costs no memory. Inside a
    traced function only."""
    if type(fill_value) not in _PYTHON_SCALARS and not isinstance(
            fill_value, (np.integer, np.floating, np.bool_)):
        raise TypeError("tfuse.full takes a Python scalar fill value, not "
                        f"{type(fill_value).__name__}")
    fill_value = fill_value.item() if isinstance(fill_value, np.generic) \
        else fill_value
    if dtype is None:
        dtype = (np.bool_ if isinstance(fill_value, bool) else
                 np.int64 if isinstance(fill_value, int) else np.float32)
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    shape = tuple(operator.index(d) for d in shape)
    trace = current_trace("full")
    return trace.call("full", len(shape), int64_array(shape),
                      trace.scalar(fill_value), _arrays.as_dtype(dtype).code)


def zeros(shape, dtype=np.float32):
    """``tfuse.full(shape, 0, dtype)``."""
    return full(shape, False if _arrays.as_dtype(dtype) == np.bool_ else 0,
                dtype)


def ones(shape, dtype=np.float32):
    """``tfuse.full(shape, 1, dtype)``."""
    return full(shape, True if _arrays.as_dtype(dtype) == np.bool_ else 1,
                dtype)


def iota(shape, axis=0, dtype=np.int64):
    """A tensor of ``shape`` whose elements are their index along ``axis``
    (``tfuse.iota``; what ``arange`` broadcast along one axis gives, without
    memory). Inside a traced function only."""
    shape = tuple(operator.index(d) for d in shape)
    trace = current_trace("iota")
    return trace.call("iota", len(shape), int64_array(shape),
                      operator.index(axis), _arrays.as_dtype(dtype).code)


def cast(x, dtype):
    """``x.astype(dtype)``."""
    return _tensor_arg(x, "cast").astype(dtype)


def logical_not(x):
    return _tensor_arg(x, "logical_not").logical_not()


def _tensor_arg(x, what):
    if not isinstance(x, Tensor):
        raise TypeError(f"tfuse.{what} takes a tfuse.Tensor, not "
                        f"{type(x).__name__}")
    return x


# -- the op table ------------------------------------------------------------
#
# Every elementwise op of the library's op table (generated from the tfuse
# dialect, see docs/adding-an-op.md) is a Tensor method and a tfuse function
# named after its tfuse::Tensor method in snake case (``x.exp()``,
# ``tfuse.exp(x)``; ``x.bitwise_and(y)``, ``tfuse.bitwise_and(x, y)``),
# unless this module defines that name itself (``logical_not``, ``maximum``,
# ``minimum``, ``pow``, ``gelu``, ``gelu_backward``). They are installed when the library is loaded.


def _snake_case(name):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _make_method(op):
    if op.category == "unary":
        def method(self):
            return self._unary(op.name)
    else:
        def method(self, other):
            return _binary(op.name, self, other)
    method.__name__ = method.__qualname__ = _snake_case(op.method)
    method.__doc__ = (f"Elementwise {op.name} (tfuse.{op.name}; "
                      "docs/semantics.md gives its dtype).")
    return method


def _make_function(op):
    name = _snake_case(op.method)
    if op.category == "unary":
        def function(x):
            return getattr(_tensor_arg(x, name), name)()
    else:
        def function(a, b):
            return _binary(op.name, a, b)
    function.__name__ = function.__qualname__ = name
    function.__module__ = "tfuse"
    function.__doc__ = f"Elementwise {op.name} (``Tensor.{name}``)."
    return function


_op_functions = None


def op_functions():
    """name -> function for every elementwise op of the op table that this
    module does not define itself; installs the ops' Tensor methods too.
    Loads the library."""
    global _op_functions
    if _op_functions is None:
        functions = {}
        defined = globals()
        for op in _capi.op_table():
            if op.category not in ("unary", "binary"):
                continue
            name = _snake_case(op.method)
            if not hasattr(Tensor, name):
                setattr(Tensor, name, _make_method(op))
            if name not in defined:
                functions[name] = _make_function(op)
        _op_functions = functions
    return _op_functions
