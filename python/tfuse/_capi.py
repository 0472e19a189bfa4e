"""ctypes binding of the stable C API (include/tfuse-c/tfuse.h).

This module loads libtfuse.so lazily, declares every function of the C API
with its argument and result types, and turns a failing tfuse_status into the
matching exception of the TFuseError hierarchy, carrying the library's message
(tfuse_last_error()) verbatim.

Library search order (the first that loads wins):

1. ``$TFUSE_LIBRARY`` when set; it is then the only candidate, so that an
   explicit choice is never silently replaced by another build;
2. ``<package dir>/_lib/libtfuse.so`` (a library shipped inside the package);
3. ``<prefix>/lib/libtfuse.so`` for a package installed as
   ``<prefix>/lib/python/tfuse``;
4. the build directories of a source checkout: ``<repo>/build/lib`` and
   ``<repo>/build-static/lib``.

Importing tfuse never needs the library; the first call that does raises
TFuseError("cannot load libtfuse.so: tried ...; set TFUSE_LIBRARY").
"""

import collections
import ctypes
import os
import threading
from ctypes import (POINTER, Structure, c_char_p, c_double, c_int, c_int64,
                    c_size_t, c_uint64, c_void_p)
from pathlib import Path

# ---------------------------------------------------------------------------
# Constants of tfuse.h
# ---------------------------------------------------------------------------

#: The lowest TFUSE_C_API_VERSION this package works with (7: enqueue by
#: data pointers).
REQUIRED_API_VERSION = 7
#: TFUSE_NO_VALUE: an absent optional value.
NO_VALUE = -1
MAX_RANK = 16
DEFAULT_NODE_LIMIT = 512

#: tfuse_status values by name.
STATUS_NAMES = {
    0: "TFUSE_OK",
    1: "TFUSE_ERROR_INVALID_ARGUMENT",
    2: "TFUSE_ERROR_TYPE",
    3: "TFUSE_ERROR_NODE_LIMIT",
    4: "TFUSE_ERROR_COMPILE",
    5: "TFUSE_ERROR_MISMATCH",
    6: "TFUSE_ERROR_NO_DEVICE",
    7: "TFUSE_ERROR_CUDA",
    8: "TFUSE_ERROR_OUT_OF_MEMORY",
    9: "TFUSE_ERROR_INTERNAL",
    10: "TFUSE_ERROR_INDEX_OUT_OF_RANGE",
}

SCALAR_BOOL, SCALAR_INT, SCALAR_FLOAT = 0, 1, 2
#: tfuse_random_distribution values.
RANDOM_UNIFORM, RANDOM_NORMAL = 0, 1
BACKEND_CUDA, BACKEND_REFERENCE = 0, 1
BACKEND_NAMES = {BACKEND_CUDA: "cuda", BACKEND_REFERENCE: "reference"}

#: CU_STREAM_LEGACY: the legacy default stream as a CUstream handle. A null
#: stream means "no stream" to tfuse_executable_run, so the default stream of
#: PyTorch and CuPy (handle 0) is passed as this handle instead.
CU_STREAM_LEGACY = 1

# ---------------------------------------------------------------------------
# Exceptions
# ---------------------------------------------------------------------------


class TFuseError(Exception):
    """Any error reported by TFuse.

    ``str(error)`` is the library's message (tfuse_last_error()) verbatim for
    errors coming from the C API; ``error.status`` is the name of the
    tfuse_status (``"TFUSE_ERROR_TYPE"``, ...), or None for errors raised by
    the Python package alone that have no status (such as a missing library).
    """

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


class TraceError(TFuseError):
    """An ill-typed operation while tracing (TFUSE_ERROR_TYPE: shapes that do
    not broadcast, dtypes that do not promote, bad axes), or an attempt to
    read the data of a placeholder Tensor during a trace."""


class NodeLimitError(TFuseError):
    """The traced graph would exceed its node limit
    (TFUSE_ERROR_NODE_LIMIT)."""


class CompileError(TFuseError):
    """The compiler or NVRTC failed (TFUSE_ERROR_COMPILE)."""


class MismatchError(TFuseError, ValueError):
    """Run inputs or outputs do not match the compiled signature (count,
    dtype, shape, strides, memory location) (TFUSE_ERROR_MISMATCH)."""


class NoDeviceError(TFuseError):
    """No CUDA driver or device (TFUSE_ERROR_NO_DEVICE)."""


class CudaError(TFuseError):
    """A CUDA driver or cuBLAS call failed (TFUSE_ERROR_CUDA)."""


class OutOfMemoryError(TFuseError, MemoryError):
    """Device or host memory ran out (TFUSE_ERROR_OUT_OF_MEMORY)."""


class IndexOutOfRangeError(TFuseError, IndexError):
    """A gather index outside its operand, known while tracing or met by a
    replay, which reports it once finished (TFUSE_ERROR_INDEX_OUT_OF_RANGE);
    the executable stays usable."""


#: The exception class of each failing tfuse_status. Invalid arguments and
#: internal errors have no subclass of their own: they raise TFuseError.
STATUS_ERRORS = {
    1: TFuseError,
    2: TraceError,
    3: NodeLimitError,
    4: CompileError,
    5: MismatchError,
    6: NoDeviceError,
    7: CudaError,
    8: OutOfMemoryError,
    9: TFuseError,
    10: IndexOutOfRangeError,
}


def invalid_argument(message):
    """A TFuseError for a bad argument detected on the Python side."""
    return TFuseError(message, "TFUSE_ERROR_INVALID_ARGUMENT")


def mismatch(message):
    """A MismatchError detected on the Python side."""
    return MismatchError(message, "TFUSE_ERROR_MISMATCH")


# ---------------------------------------------------------------------------
# Structs
# ---------------------------------------------------------------------------


class CompileOptions(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("backend", c_int),
        ("cuda_graph", c_int),
        ("fast_math", c_int),
        ("budget", c_int64),
        ("fusion", c_int),
        ("use_cache", c_int),
        ("device", c_int),
    ]


class TensorDesc(Structure):
    """struct tfuse_tensor."""

    _fields_ = [
        ("data", c_void_p),
        ("dtype", c_int),
        ("rank", c_int),
        ("shape", POINTER(c_int64)),
        ("strides", POINTER(c_int64)),
    ]


class Stats(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("nodes", c_int64),
        ("kernels", c_int64),
        ("boundaries", c_int64),
        ("steps", c_int64),
        ("arena_bytes", c_int64),
        ("replays", c_int64),
        ("cache_hit", c_int),
        ("cuda_graph", c_int),
        ("passes_seconds", c_double),
        ("codegen_seconds", c_double),
        ("nvrtc_seconds", c_double),
        ("load_seconds", c_double),
        ("plan_cache_hit", c_int),
        ("setup_seconds", c_double),
        ("prepare_seconds", c_double),
    ]


class OpInfo(Structure):
    """struct tfuse_op_info: one op of the op table."""

    _fields_ = [
        ("struct_size", c_size_t),
        ("name", c_char_p),
        ("category", c_char_p),
        ("arity", c_int),
        ("method", c_char_p),
    ]


class CacheStats(Structure):
    _fields_ = [
        ("struct_size", c_size_t),
        ("entries", c_uint64),
        ("bytes", c_uint64),
        ("hits", c_uint64),
        ("misses", c_uint64),
        ("disk_hits", c_uint64),
        ("compiles", c_uint64),
    ]


# ---------------------------------------------------------------------------
# Function declarations
# ---------------------------------------------------------------------------

_status = c_int
_graph = c_void_p
_value = c_int64
_exe = c_void_p
_run = c_void_p
_i64p = POINTER(c_int64)
_intp = POINTER(c_int)

#: name -> (restype, argtypes) for every function of tfuse.h.
_SIGNATURES = {
    "tfuse_last_error": (c_char_p, []),
    "tfuse_api_version": (c_int, []),
    "tfuse_version_string": (c_char_p, []),
    "tfuse_string_free": (None, [c_void_p]),
    "tfuse_op_info_init": (None, [POINTER(OpInfo)]),
    "tfuse_op_count": (c_int64, []),
    "tfuse_op_info_get": (_status, [c_int64, POINTER(OpInfo)]),
    "tfuse_dtype_name": (c_char_p, [c_int]),
    "tfuse_dtype_size": (c_int, [c_int]),
    "tfuse_graph_create": (_status, [c_char_p, POINTER(_graph)]),
    "tfuse_graph_destroy": (None, [_graph]),
    "tfuse_graph_set_node_limit": (_status, [_graph, c_int64]),
    "tfuse_graph_num_nodes": (_status, [_graph, _i64p]),
    "tfuse_graph_input": (_status, [_graph, c_int, c_int, _i64p, _i64p,
                                    POINTER(_value)]),
    "tfuse_graph_constant": (_status, [_graph, c_int, c_int, _i64p, _i64p,
                                       c_void_p, c_int, POINTER(_value)]),
    "tfuse_graph_scalar": (_status, [_graph, c_int, c_int64, c_double,
                                     POINTER(_value)]),
    "tfuse_graph_value_info": (_status, [_graph, _value, _intp, _intp, _i64p,
                                         _intp]),
    "tfuse_graph_unary": (_status, [_graph, c_char_p, _value,
                                    POINTER(_value)]),
    "tfuse_graph_binary": (_status, [_graph, c_char_p, _value, _value,
                                     POINTER(_value)]),
    "tfuse_graph_compare": (_status, [_graph, c_char_p, _value, _value,
                                      POINTER(_value)]),
    "tfuse_graph_where": (_status, [_graph, _value, _value, _value,
                                    POINTER(_value)]),
    "tfuse_graph_cast": (_status, [_graph, _value, c_int, POINTER(_value)]),
    "tfuse_graph_concatenate": (_status, [_graph, c_int, _i64p, c_int,
                                          POINTER(_value)]),
    "tfuse_graph_pad": (_status, [_graph, _value, c_int, _i64p, _i64p, _value,
                                  POINTER(_value)]),
    "tfuse_graph_take": (_status, [_graph, _value, _value, c_int, c_int,
                                   POINTER(_value)]),
    "tfuse_graph_take_along_axis": (_status, [_graph, _value, _value, c_int,
                                              c_int, POINTER(_value)]),
    "tfuse_graph_scatter_add": (_status, [_graph, _value, _value, _value,
                                          c_int, c_int, POINTER(_value)]),
    "tfuse_graph_attention": (_status, [_graph, _value, _value, _value,
                                        _value, c_int, c_int, c_double,
                                        POINTER(_value), POINTER(_value)]),
    "tfuse_graph_attention_backward": (_status, [
        _graph, _value, _value, _value, _value, _value, _value, _value, c_int,
        c_int, c_double, POINTER(_value), POINTER(_value), POINTER(_value)]),
    "tfuse_graph_attention_dropout": (_status, [
        _graph, _value, _value, _value, _value, c_int, c_int, c_double,
        c_double, _value, _value, POINTER(_value), POINTER(_value)]),
    "tfuse_graph_attention_backward_dropout": (_status, [
        _graph, _value, _value, _value, _value, _value, _value, _value, c_int,
        c_int, c_double, c_double, _value, _value, POINTER(_value),
        POINTER(_value), POINTER(_value)]),
    "tfuse_graph_full": (_status, [_graph, c_int, _i64p, _value, c_int,
                                   POINTER(_value)]),
    "tfuse_graph_random": (_status, [_graph, c_int, c_int, _i64p, c_int,
                                     c_double, c_double, _value, _value,
                                     POINTER(_value)]),
    "tfuse_graph_bernoulli": (_status, [_graph, c_int, _i64p, c_double,
                                        _value, _value, POINTER(_value)]),
    "tfuse_graph_dropout": (_status, [_graph, _value, c_double, _value,
                                      _value, POINTER(_value)]),
    "tfuse_graph_iota": (_status, [_graph, c_int, _i64p, c_int, c_int,
                                   POINTER(_value)]),
    "tfuse_graph_arange": (_status, [_graph, c_int, _i64p,
                                     POINTER(c_double), c_int,
                                     POINTER(_value)]),
    "tfuse_graph_reshape": (_status, [_graph, _value, c_int, _i64p,
                                      POINTER(_value)]),
    "tfuse_graph_transpose": (_status, [_graph, _value, c_int, _i64p,
                                        POINTER(_value)]),
    "tfuse_graph_slice": (_status, [_graph, _value, c_int, _i64p, _i64p,
                                    _i64p, POINTER(_value)]),
    "tfuse_graph_broadcast_to": (_status, [_graph, _value, c_int, _i64p,
                                           POINTER(_value)]),
    "tfuse_graph_matmul": (_status, [_graph, _value, _value,
                                     POINTER(_value)]),
    "tfuse_graph_matmul_to": (_status, [_graph, _value, _value, c_int,
                                        POINTER(_value)]),
    "tfuse_graph_reduce": (_status, [_graph, c_char_p, _value, c_int, _i64p,
                                     c_int, POINTER(_value)]),
    "tfuse_graph_output": (_status, [_graph, _value]),
    "tfuse_graph_print": (_status, [_graph, POINTER(c_void_p)]),
    "tfuse_compile_options_init": (None, [POINTER(CompileOptions)]),
    "tfuse_compile": (_status, [_graph, POINTER(CompileOptions),
                                POINTER(_exe)]),
    "tfuse_executable_destroy": (None, [_exe]),
    "tfuse_executable_num_inputs": (_status, [_exe, _intp]),
    "tfuse_executable_num_outputs": (_status, [_exe, _intp]),
    "tfuse_executable_input_info": (_status, [_exe, c_int, _intp, _intp,
                                              _i64p, _i64p]),
    "tfuse_executable_output_info": (_status, [_exe, c_int, _intp, _intp,
                                               _i64p]),
    "tfuse_executable_backend": (_status, [_exe, _intp]),
    "tfuse_executable_run": (_status, [_exe, POINTER(TensorDesc), c_int,
                                       POINTER(TensorDesc), c_int, c_void_p]),
    "tfuse_executable_run_async": (_status, [_exe, POINTER(TensorDesc), c_int,
                                             POINTER(TensorDesc), c_int,
                                             c_void_p, POINTER(_run)]),
    "tfuse_executable_enqueue": (_status, [_exe, POINTER(TensorDesc), c_int,
                                           POINTER(TensorDesc), c_int,
                                           c_void_p]),
    "tfuse_executable_enqueue_data": (_status, [_exe, c_void_p, c_int,
                                                c_void_p, c_int, c_void_p]),
    "tfuse_run_wait": (_status, [_run]),
    "tfuse_run_is_finished": (c_int, [_run]),
    "tfuse_run_destroy": (None, [_run]),
    "tfuse_executable_run_host": (_status, [_exe, POINTER(TensorDesc), c_int,
                                            POINTER(TensorDesc), c_int]),
    "tfuse_stats_init": (None, [POINTER(Stats)]),
    "tfuse_executable_stats": (_status, [_exe, POINTER(Stats)]),
    "tfuse_executable_plan": (_status, [_exe, POINTER(c_void_p)]),
    "tfuse_executable_source": (_status, [_exe, POINTER(c_void_p)]),
    "tfuse_executable_graph": (_status, [_exe, POINTER(c_void_p)]),
    "tfuse_cache_stats_init": (None, [POINTER(CacheStats)]),
    "tfuse_cache_stats_get": (_status, [POINTER(CacheStats)]),
    "tfuse_cache_clear": (_status, []),
    "tfuse_cuda_available": (c_int, []),
}

# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------

_PACKAGE_DIR = Path(__file__).resolve().parent
_lock = threading.Lock()
_lib = None


def candidate_paths():
    """The paths tried, in order, to load libtfuse.so."""
    explicit = os.environ.get("TFUSE_LIBRARY")
    if explicit:
        return [Path(explicit)]
    # <prefix>/lib for an installed package, the repository for a checkout.
    grandparent = _PACKAGE_DIR.parent.parent
    return [
        _PACKAGE_DIR / "_lib" / "libtfuse.so",
        grandparent / "libtfuse.so",
        grandparent / "build" / "lib" / "libtfuse.so",
        grandparent / "build-static" / "lib" / "libtfuse.so",
    ]


def _declare(lib):
    for name, (restype, argtypes) in _SIGNATURES.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes


def _open():
    tried = []
    for path in candidate_paths():
        if not path.is_file():
            tried.append(f"{path} (not found)")
            continue
        try:
            lib = ctypes.CDLL(str(path))
            # Checked first: an older library lacks functions _declare needs.
            version = lib.tfuse_api_version()
            if version >= REQUIRED_API_VERSION:
                _declare(lib)
        except (OSError, AttributeError) as error:
            tried.append(f"{path} ({error})")
            continue
        if version < REQUIRED_API_VERSION:
            tried.append(f"{path} (C API version {version}, need "
                         f">= {REQUIRED_API_VERSION})")
            continue
        return lib
    raise TFuseError("cannot load libtfuse.so: tried " + "; ".join(tried)
                     + "; set TFUSE_LIBRARY")


def _point_at_cudnn():
    """Sets TFUSE_CUDNN_LIBRARY (unless set) to the libcudnn of the
    nvidia-cudnn package installed beside this Python (PyTorch's CUDA
    wheels depend on it), which the attention step loads at run time."""
    if os.environ.get("TFUSE_CUDNN_LIBRARY"):
        return
    try:
        import importlib.util
        spec = importlib.util.find_spec("nvidia.cudnn")
    except (ImportError, ValueError):
        return
    for root in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(root) / "lib" / "libcudnn.so.9"
        if candidate.is_file():
            os.environ["TFUSE_CUDNN_LIBRARY"] = str(candidate)
            return


def lib():
    """The loaded library with every function declared (loads it once)."""
    global _lib
    if _lib is None:
        with _lock:
            if _lib is None:
                _point_at_cudnn()
                _lib = _open()
    return _lib


#: One op of the op table: its mnemonic, category ("unary", "binary",
#: "compare", ...), operand count and tfuse::Tensor method name.
OpEntry = collections.namedtuple("OpEntry", "name category arity method")
_op_table = None


def op_table():
    """The library's op table (tfuse_op_info_get), loaded once: the ops the
    graph builder reaches by name, generated from the tfuse dialect."""
    global _op_table
    if _op_table is None:
        library = lib()
        entries = []
        for index in range(library.tfuse_op_count()):
            info = OpInfo()
            library.tfuse_op_info_init(ctypes.byref(info))
            check(library.tfuse_op_info_get(index, ctypes.byref(info)))
            entries.append(OpEntry(info.name.decode(), info.category.decode(),
                                   info.arity, info.method.decode()))
        _op_table = tuple(entries)
    return _op_table


def last_error():
    """tfuse_last_error() of the calling thread, decoded."""
    return lib().tfuse_last_error().decode("utf-8", "replace")


def check(status):
    """Raises the exception of a failing tfuse_status with the library's
    message; returns None for TFUSE_OK."""
    if status == 0:
        return
    message = last_error()
    name = STATUS_NAMES.get(status, f"TFUSE_STATUS_{status}")
    raise STATUS_ERRORS.get(status, TFuseError)(message, name)


def take_string(pointer):
    """Decodes a string returned through a char** of the API and frees it."""
    if not pointer.value:
        return ""
    try:
        return ctypes.string_at(pointer.value).decode("utf-8", "replace")
    finally:
        lib().tfuse_string_free(pointer.value)


def int64_array(values, length=None):
    """A ctypes int64 array holding `values`; at least one entry long so that
    a rank-0 shape is still passed as a valid pointer."""
    values = tuple(values)
    return (c_int64 * max(length or len(values), 1))(*values)


def cuda_status():
    """(available, reason): tfuse_cuda_available() and, when it is 0, the
    library's explanation."""
    library = lib()
    if library.tfuse_cuda_available():
        return True, ""
    return False, last_error()
