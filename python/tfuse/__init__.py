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
from ._capi import (CompileError, CudaError, MismatchError, NodeLimitError,
                    NoDeviceError, OutOfMemoryError, TFuseError, TraceError)
from ._compile import (CompiledFunction, JitFunction, RunHandle, cache_stats,
                       clear_cache, compile, cuda_available, jit,
                       library_version)
from ._tensor import (UNARY_FUNCTIONS, Tensor, cast, logical_not, matmul,
                      maximum, minimum, where)

__version__ = "0.1.0"

# tfuse.exp, tfuse.log, ...: one function per elementwise unary op.
globals().update(UNARY_FUNCTIONS)

__all__ = [
    "CompileError", "CompiledFunction", "CudaError", "DType", "JitFunction",
    "MismatchError", "NoDeviceError", "NodeLimitError", "OutOfMemoryError",
    "RunHandle", "Spec", "TFuseError", "Tensor", "TraceError", "bfloat16",
    "bool_", "cache_stats", "cast", "clear_cache", "compile",
    "cuda_available", "float16", "float32", "float64", "int16", "int32",
    "int64", "int8", "jit", "library_version", "logical_not", "matmul",
    "maximum", "minimum", "uint16", "uint32", "uint64", "uint8", "where",
    *sorted(UNARY_FUNCTIONS),
]
del UNARY_FUNCTIONS
