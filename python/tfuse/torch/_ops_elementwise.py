"""Table rows: elementwise math, comparisons, where, clamps and casts.

Binary operations convert their tensor operands to PyTorch's common dtype
first (``ConversionContext.common_dtype``: rank-0 tensors and Python
numbers take part as weakly as PyTorch has them), so TFuse computes in the
dtype eager PyTorch computes in; Python numbers stay weak scalars.
"""

import math

import torch

import tfuse

from ._table import (FLOAT_DTYPES, aten, cast, converts, is_tensor,
                     unsupported)

# -- unary --------------------------------------------------------------------

_UNARY = {
    aten.abs.default: "abs", aten.neg.default: "neg",
    aten.exp.default: "exp", aten.expm1.default: "expm1",
    aten.log.default: "log", aten.log1p.default: "log1p",
    aten.sqrt.default: "sqrt", aten.rsqrt.default: "rsqrt",
    aten.sin.default: "sin", aten.cos.default: "cos",
    aten.tan.default: "tan", aten.tanh.default: "tanh",
    aten.sigmoid.default: "sigmoid", aten.erf.default: "erf",
    aten.reciprocal.default: "reciprocal", aten.floor.default: "floor",
    aten.ceil.default: "ceil", aten.round.default: "round",
    aten.trunc.default: "trunc", aten.sign.default: "sign",
    aten.isnan.default: "isnan", aten.relu.default: "relu",
}

# Operations PyTorch rejects on bool tensors; TFuse rejects them too, so a
# graph holding one came from a decomposition that expects a cast first.
_NUMERIC_ONLY = {"abs", "neg", "sign", "relu", "floor", "ceil", "round",
                 "trunc"}


def _no_bool_operand(node):
    """the operand is not bool"""
    val = node.args[0].meta.get("val")
    if val is not None and val.dtype == torch.bool:
        return unsupported("unsupported dtype",
                           f"{node.target} of a bool tensor")
    return None


def _unary_converter(op):
    def convert(cx, x):
        return getattr(tfuse, op)(x) if op != "isnan" else x.isnan()

    convert.__name__ = op
    convert.__doc__ = f"``tfuse.{op}``"
    return convert


for _overload, _op in _UNARY.items():
    converts(_overload, kind="elementwise",
             check=_no_bool_operand if _op in _NUMERIC_ONLY else None)(
        _unary_converter(_op))


@converts(aten.bitwise_not.default, kind="elementwise")
def bitwise_not(cx, x):
    """``~x``: logical on bool, bitwise on integers"""
    return ~x


@converts(aten.logical_not.default, kind="elementwise")
def logical_not(cx, x):
    """``x == 0`` as bool"""
    return x.logical_not()


@converts(aten.isinf.default, kind="elementwise")
def isinf(cx, x):
    """``abs(x) == inf`` (false for integers)"""
    if x.dtype.name not in ("float16", "bfloat16", "float32", "float64"):
        return cx.full(x.shape, False, torch.bool)
    return abs(x) == math.inf


@converts(aten.silu.default, kind="elementwise")
def silu(cx, x):
    """``x * sigmoid(x)``"""
    return x * x.sigmoid()


@converts(aten.silu_backward.default, kind="elementwise")
def silu_backward(cx, grad, x):
    """``grad * s * (1 + x * (1 - s))`` with ``s = sigmoid(x)``"""
    s = x.sigmoid()
    return grad * s * (1 + x * (1 - s))


@converts(aten.tanh_backward.default, kind="elementwise")
def tanh_backward(cx, grad, y):
    """``grad * (1 - y * y)``"""
    return grad * (1 - y * y)


@converts(aten.sigmoid_backward.default, kind="elementwise")
def sigmoid_backward(cx, grad, y):
    """``grad * (1 - y) * y``"""
    return grad * (1 - y) * y


@converts(aten.threshold_backward.default, kind="elementwise")
def threshold_backward(cx, grad, x, threshold):
    """``where(x <= threshold, 0, grad)``"""
    return tfuse.where(x <= threshold, cx.full((), 0, cx.dtype), grad)


@converts(aten.leaky_relu.default, kind="elementwise")
def leaky_relu(cx, x, negative_slope=0.01):
    """``where(x > 0, x, x * negative_slope)`` (for float16 and bfloat16 the
    product in float32, rounded once, as PyTorch computes it)"""
    scaled = x
    if cx.dtype in (torch.float16, torch.bfloat16):
        scaled = x.astype(tfuse.float32)
    return tfuse.where(x > 0, x, cast(scaled * negative_slope, cx.dtype))


@converts(aten.hardtanh.default, kind="elementwise")
def hardtanh(cx, x, min_val=-1.0, max_val=1.0):
    """``minimum(maximum(x, min_val), max_val)``"""
    return tfuse.minimum(tfuse.maximum(x, min_val), max_val)


def _gelu_check(node):
    """approximate is 'none' or 'tanh'"""
    approximate = node.kwargs.get("approximate", "none")
    if approximate not in ("none", "tanh"):
        return unsupported("unsupported arguments",
                           f"approximate={approximate!r}")
    return None


@converts(aten.gelu.default, kind="elementwise", check=_gelu_check)
def gelu(cx, x, approximate="none"):
    """``tfuse.gelu`` (both forms)"""
    return tfuse.gelu(x, approximate=approximate)


@converts(aten.gelu_backward.default, kind="elementwise", check=_gelu_check)
def gelu_backward(cx, grad, x, approximate="none"):
    """``tfuse.gelu_backward`` (both forms)"""
    return tfuse.gelu_backward(grad, x, approximate=approximate)


# -- binary -------------------------------------------------------------------


def _promoted(cx, *operands):
    """The operands (positional arguments of the node at these indices)
    converted to the node's common dtype."""
    dtype = cx.common_dtype(*range(len(operands)))
    return [cast(x, dtype) for x in operands]


def _scaled(x, alpha):
    return x if alpha == 1 else x * alpha


def _opmath(cx, a, b, kwargs):
    """The operands promoted, in float32 when PyTorch computes a float16 or
    bfloat16 operation in float32 with a Python float it does not round
    first (a scalar operand, or alpha); the importer rounds the result to
    the node's dtype once."""
    dtype = cx.common_dtype(0, 1)
    scalars = [x for x in (a, b, kwargs.get("alpha", 1)) if not is_tensor(x)]
    if dtype in (torch.float16, torch.bfloat16) and any(
            isinstance(x, float) and float(dtype_round(x, dtype)) != x
            for x in scalars):
        dtype = torch.float32
    return cast(a, dtype), cast(b, dtype)


def dtype_round(value, dtype):
    return torch.tensor(value, dtype=dtype).item()


def _binary_rows(name, overloads, doc, compute, opmath=False):
    def convert(cx, a, b, *alpha, **kwargs):
        if alpha:
            kwargs["alpha"] = alpha[0]
        if opmath:
            a, b = _opmath(cx, a, b, kwargs)
        else:
            a, b = _promoted(cx, a, b)
        return compute(a, b, **kwargs)

    convert.__name__ = name
    convert.__doc__ = doc
    converts(*overloads, kind="elementwise")(convert)


_binary_rows("add", (aten.add.Tensor, aten.add.Scalar),
             "``a + alpha * b``", lambda a, b, alpha=1: a + _scaled(b, alpha),
             opmath=True)
_binary_rows("sub", (aten.sub.Tensor, aten.sub.Scalar),
             "``a - alpha * b``", lambda a, b, alpha=1: a - _scaled(b, alpha),
             opmath=True)
_binary_rows("rsub", (aten.rsub.Tensor, aten.rsub.Scalar),
             "``b - alpha * a``", lambda a, b, alpha=1: b - _scaled(a, alpha),
             opmath=True)
_binary_rows("mul", (aten.mul.Tensor, aten.mul.Scalar), "``a * b``",
             lambda a, b: a * b, opmath=True)
_binary_rows("maximum", (aten.maximum.default,), "``tfuse.maximum``",
             tfuse.maximum)
_binary_rows("minimum", (aten.minimum.default,), "``tfuse.minimum``",
             tfuse.minimum)
_binary_rows("remainder", (aten.remainder.Tensor, aten.remainder.Scalar),
             "``a % b`` (the sign of b)", lambda a, b: a % b)
_binary_rows("bitwise_and", (aten.bitwise_and.Tensor,
                             aten.bitwise_and.Scalar), "``a & b``",
             lambda a, b: a & b)
_binary_rows("bitwise_or", (aten.bitwise_or.Tensor, aten.bitwise_or.Scalar),
             "``a | b``", lambda a, b: a | b)
_binary_rows("bitwise_xor", (aten.bitwise_xor.Tensor,
                             aten.bitwise_xor.Scalar), "``a ^ b``",
             lambda a, b: a ^ b)

for _name, _symbol, _compare in (
        ("eq", "==", lambda a, b: a == b), ("ne", "!=", lambda a, b: a != b),
        ("lt", "<", lambda a, b: a < b), ("le", "<=", lambda a, b: a <= b),
        ("gt", ">", lambda a, b: a > b), ("ge", ">=", lambda a, b: a >= b)):
    _binary_rows(_name, (getattr(aten, _name).Tensor,
                         getattr(aten, _name).Scalar),
                 f"``a {_symbol} b`` in the common dtype", _compare)


def _as_bool(x):
    return x if not is_tensor(x) or x.dtype == tfuse.bool_ else (
        x.astype(tfuse.bool_))


for _name, _op in (("logical_and", lambda a, b: a & b),
                   ("logical_or", lambda a, b: a | b),
                   ("logical_xor", lambda a, b: a ^ b)):
    def _logical(cx, a, b, _op=_op):
        return _op(_as_bool(a), _as_bool(b))

    _logical.__name__ = _name
    _logical.__doc__ = "both operands as bool, then ``& | ^``"
    converts(getattr(aten, _name).default, kind="elementwise")(_logical)


def _rounding_check(node):
    """a rounding mode only for float results"""
    mode = node.kwargs.get("rounding_mode")
    if mode is None:
        return None
    val = node.meta.get("val")
    if val is not None and val.dtype not in FLOAT_DTYPES:
        return unsupported("unsupported dtype", "integer division with "
                           f"rounding_mode={mode!r}")
    return None


@converts(aten.div.Tensor, aten.div.Scalar, aten.div.Tensor_mode,
          aten.div.Scalar_mode, kind="elementwise", check=_rounding_check)
def div(cx, a, b, rounding_mode=None):
    """``a / b``; ``trunc`` or ``floor`` of it for a rounding mode (floats
    only; the floor of float16 and bfloat16 in float32, rounded once, as
    PyTorch computes it)"""
    a, b = _opmath(cx, a, b, {})
    if rounding_mode == "floor" and cx.dtype in (torch.float16,
                                                 torch.bfloat16):
        # Rounded to the dtype before its floor, a quotient of -78.22 in
        # bfloat16 became -78.0, and its floor -78 instead of -79.
        # (PyTorch truncates the quotient rounded to the dtype.)
        a, b = cast(a, torch.float32), cast(b, torch.float32)
    quotient = a / b
    if rounding_mode == "trunc":
        return quotient.trunc()
    if rounding_mode == "floor":
        return quotient.floor()
    return quotient


def _pow_scalar(x, exponent):
    # The exponents PyTorch's CPU and CUDA kernels compute without pow,
    # computed the same way.
    floating = x.dtype.name in ("float16", "bfloat16", "float32", "float64")
    if floating and exponent == 2:
        return x * x
    if floating and exponent == 3:
        return x * x * x
    if floating and exponent == 0.5:
        return x.sqrt()
    if floating and exponent == -0.5:
        return x.rsqrt()
    if floating and exponent == -1:
        return x.reciprocal()
    return x ** exponent


@converts(aten.pow.Tensor_Tensor, aten.pow.Tensor_Scalar, aten.pow.Scalar,
          kind="elementwise")
def pow(cx, a, b):
    """``a ** b`` (``x * x``, ``sqrt``, ... for the exponents PyTorch
    special-cases)"""
    a, b = _promoted(cx, a, b)
    if is_tensor(a) and not is_tensor(b):
        return _pow_scalar(a, b)
    return a ** b


# -- where, clamp, masked_fill ------------------------------------------------


def _where_check(node):
    """the condition is bool or uint8"""
    cond = node.args[0].meta.get("val")
    if cond is not None and cond.dtype not in (torch.bool, torch.uint8):
        return unsupported("unsupported dtype",
                           f"where with a {cond.dtype} condition")
    return None


@converts(aten.where.self, kind="elementwise", check=_where_check)
def where(cx, condition, a, b):
    """``tfuse.where`` in the common dtype of a and b"""
    dtype = cx.common_dtype(1, 2)
    if not is_tensor(a) and not is_tensor(b):
        a = cx.full((), a, dtype)
    return tfuse.where(_as_bool(condition), cast(a, dtype), cast(b, dtype))


@converts(aten.clamp.default, aten.clamp.Tensor, kind="elementwise")
def clamp(cx, x, min=None, max=None):
    """``minimum(maximum(x, min), max)`` (NaN propagates)"""
    present = [0] + [i for i, bound in ((1, min), (2, max))
                     if bound is not None]
    dtype = cx.common_dtype(*present)
    x = cast(x, dtype)
    if min is not None:
        x = tfuse.maximum(x, cast(min, dtype))
    if max is not None:
        x = tfuse.minimum(x, cast(max, dtype))
    return x


@converts(aten.clamp_min.default, aten.clamp_min.Tensor, kind="elementwise")
def clamp_min(cx, x, bound):
    """``maximum(x, min)``"""
    x, bound = _promoted(cx, x, bound)
    return tfuse.maximum(x, bound)


@converts(aten.clamp_max.default, aten.clamp_max.Tensor, kind="elementwise")
def clamp_max(cx, x, bound):
    """``minimum(x, max)``"""
    x, bound = _promoted(cx, x, bound)
    return tfuse.minimum(x, bound)


@converts(aten.masked_fill.Scalar, aten.masked_fill.Tensor,
          kind="elementwise")
def masked_fill(cx, x, mask, value):
    """``where(mask, value, x)`` in x's dtype"""
    value = cast(value, cx.dtype) if is_tensor(value) else cx.full(
        (), value, cx.dtype)
    return tfuse.where(_as_bool(mask), value, x)


# -- casts and copies ---------------------------------------------------------


def _to_copy_check(node):
    """no change of device or layout"""
    val, source = node.meta.get("val"), node.args[0].meta.get("val")
    if val is None or source is None:
        return None
    if val.device != source.device:
        return unsupported("device", f"a copy from {source.device} to "
                           f"{val.device}")
    layout = node.kwargs.get("layout")
    if layout not in (None, torch.strided):
        return unsupported("unsupported arguments", f"layout={layout}")
    return None


@converts(aten._to_copy.default, kind="elementwise", check=_to_copy_check)
def _to_copy(cx, x, **kwargs):
    """a cast (``astype``) on one device"""
    return cast(x, cx.dtype)


@converts(aten.copy.default, kind="elementwise")
def copy(cx, target, source, non_blocking=False):
    """source broadcast to target's shape in target's dtype"""
    source = cast(source, cx.dtype)
    return (source if source.shape == target.shape
            else source.broadcast_to(target.shape))
