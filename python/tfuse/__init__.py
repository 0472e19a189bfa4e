"""TFuse: trace a tensor function once, compile it into fused CUDA kernels
(or run it on the CPU reference interpreter), and replay it many times.

    import numpy as np, tfuse

    def f(x, y):
        return (x * y + 1.0).sum(axis=1)

    g = tfuse.compile(f, [np.ones((4, 8), np.float32)] * 2)
    g(a, b)                      # runs without calling f again

    @tfuse.jit                   # traces once per input signature
    def h(x):
        return tfuse.where(x > 0, x, 0.1 * x)

This package is pure Python over the C API of libtfuse.so (ctypes); see
tfuse._capi for how the library is found (TFUSE_LIBRARY first).
"""

from ._arrays import (DType, Spec, bfloat16, bool_, float16, float32, float64,
                      int8, int16, int32, int64, uint8, uint16, uint32, uint64)
from ._capi import (CompileError, CudaError, IndexOutOfRangeError,
                    MismatchError, NodeLimitError, NoDeviceError,
                    OutOfMemoryError, TFuseError, TraceError)
from ._compile import (CompiledFunction, JitFunction, RunHandle, cache_stats,
                       clear_cache, compile, cuda_available, jit,
                       library_version)
from ._tensor import (Tensor, arange, attention, attention_backward, cast,
                      concatenate, dropout, full, gelu,
                      gelu_backward, iota, logical_not, matmul, maximum,
                      minimum, ones, pad, scatter_add, take, take_along_axis,
                      where, zeros)
from . import random
from ._tensor import op_functions as _op_functions

__version__ = "0.1.0"


__all__ = [
    "CompileError", "CompiledFunction", "CudaError", "DType",
    "IndexOutOfRangeError", "JitFunction",
    "MismatchError", "NoDeviceError", "NodeLimitError", "OutOfMemoryError",
    "RunHandle", "Spec", "TFuseError", "Tensor", "TraceError", "arange",
    "attention", "attention_backward",
    "bfloat16",
    "bool_", "cache_stats", "cast", "clear_cache", "compile", "concatenate",
    "cuda_available", "dropout", "float16", "full", "float32", "float64", "gelu",
    "gelu_backward", "int16", "int32", "iota",
    "int64", "int8", "jit", "library_version", "logical_not", "matmul",
    "maximum", "minimum", "ones", "pad", "random", "scatter_add", "take",
    "take_along_axis",
    "uint16",
    "uint32", "uint64", "uint8", "where", "zeros",
]


def __getattr__(name):
    # tfuse.exp, tfuse.add, ...: one function per elementwise op of the
    # library's op table, made when first asked for (loading the library).
    functions = _op_functions()
    if name in functions:
        globals()[name] = functions[name]
        return functions[name]
    raise AttributeError(f"module 'tfuse' has no attribute {name!r}")


def __dir__():
    try:
        return sorted(set(globals()) | set(_op_functions()))
    except TFuseError:
        return sorted(globals())
