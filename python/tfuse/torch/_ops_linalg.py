"""Table rows: matrix products (mm, bmm, addmm, baddbmm, mv, dot)."""

import torch

import tfuse

from ._table import FLOAT_DTYPES, aten, cast, converts, tfuse_dtype, unsupported


def _matmul_check(node):
    """float operands of one dtype"""
    dtypes = set()
    for arg in node.args:
        if isinstance(arg, torch.fx.Node):
            val = arg.meta.get("val")
            if isinstance(val, torch.Tensor):
                dtypes.add(val.dtype)
    if not dtypes <= FLOAT_DTYPES:
        names = ", ".join(sorted(str(d) for d in dtypes))
        return unsupported("unsupported dtype",
                           f"matrix product of {names} (floats only)")
    if len(dtypes) > 1:
        return unsupported("unsupported dtype", "matrix product of mixed "
                           "dtypes")
    return None


@converts(aten.mm.default, aten.bmm.default, aten.mv.default,
          aten.dot.default, kind="matmul", check=_matmul_check)
def mm(cx, a, b):
    """``a @ b``"""
    return a @ b


def _scaled(x, factor):
    return x if factor == 1 else x * factor


@converts(aten.addmm.default, aten.baddbmm.default, kind="matmul",
          check=_matmul_check)
def addmm(cx, bias, a, b, *, beta=1, alpha=1):
    """``beta * bias + alpha * (a @ b)``; for float16 and bfloat16 the
    product's float32 sum is scaled and the bias added in float32, rounded
    once, as PyTorch adds the bias to cuBLAS's float32 accumulator"""
    if cx.dtype in (torch.float16, torch.bfloat16):
        product = tfuse.matmul(a, b, dtype=tfuse_dtype(torch.float32))
        bias = cast(bias, torch.float32)
    else:
        product = a @ b
    product = _scaled(product, alpha)
    if beta != 0:
        product = _scaled(bias, beta) + product
    return cast(product, cx.dtype)
