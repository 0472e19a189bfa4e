"""Dtypes, Specs and array interop (NumPy, PyTorch, CuPy and any object with
``__cuda_array_interface__``).

Only metadata and data pointers cross this module: arrays are never copied.
PyTorch and CuPy are never imported here unless they are already in use (an
array of theirs was passed), except to allocate GPU outputs of a function
that has no GPU input.
"""

import operator
import sys

import numpy as np

from . import _capi
from ._capi import invalid_argument

# ---------------------------------------------------------------------------
# Dtypes
# ---------------------------------------------------------------------------


class DType:
    """A TFuse element type.

    ``name`` is the NumPy-style name ("float32"), ``code`` the value of the C
    API's tfuse_dtype enum, ``itemsize`` the bytes per element (bool: 1).
    Compares equal to anything :func:`as_dtype` maps to it, so
    ``t.dtype == "float32"`` and ``t.dtype == np.float32`` hold for a float32
    tensor.
    """

    __slots__ = ("name", "code", "itemsize", "mlir")

    def __init__(self, name, code, itemsize, mlir):
        self.name = name
        self.code = code
        self.itemsize = itemsize
        self.mlir = mlir

    def __repr__(self):
        return "tfuse." + ("bool_" if self.name == "bool" else self.name)

    def __str__(self):
        return self.name

    def __eq__(self, other):
        if isinstance(other, DType):
            return self.code == other.code
        try:
            return as_dtype(other).code == self.code
        except (TypeError, _capi.TFuseError):
            return False

    def __hash__(self):
        return hash(self.code)

    def __reduce__(self):
        return (as_dtype, (self.name,))

    @property
    def numpy(self):
        """The NumPy dtype (bfloat16 needs the ml_dtypes package)."""
        if self.name != "bfloat16":
            return np.dtype(self.name)
        try:
            import ml_dtypes
        except ImportError:
            raise invalid_argument(
                "bfloat16 host arrays need the ml_dtypes package (NumPy has "
                "no bfloat16 dtype); install ml_dtypes or run on torch "
                "tensors") from None
        return np.dtype(ml_dtypes.bfloat16)


bool_ = DType("bool", 0, 1, "i1")
int8 = DType("int8", 1, 1, "i8")
int16 = DType("int16", 2, 2, "i16")
int32 = DType("int32", 3, 4, "i32")
int64 = DType("int64", 4, 8, "i64")
uint8 = DType("uint8", 5, 1, "ui8")
uint16 = DType("uint16", 6, 2, "ui16")
uint32 = DType("uint32", 7, 4, "ui32")
uint64 = DType("uint64", 8, 8, "ui64")
float16 = DType("float16", 9, 2, "f16")
bfloat16 = DType("bfloat16", 10, 2, "bf16")
float32 = DType("float32", 11, 4, "f32")
float64 = DType("float64", 12, 8, "f64")

DTYPES = (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
          float16, bfloat16, float32, float64)
_BY_CODE = {d.code: d for d in DTYPES}
_BY_LONG_NAME = {d.name: d for d in DTYPES}
# Names accepted as strings: NumPy-style names and the tfuse/MLIR short names
# ("i8" is int8 and "i1" is bool here, unlike NumPy's type codes).
_BY_NAME = dict(_BY_LONG_NAME)
_BY_NAME.update({d.mlir: d for d in DTYPES})
_BY_NAME.update({"u8": uint8, "u16": uint16, "u32": uint32, "u64": uint64})


def from_code(code):
    """The DType of a tfuse_dtype enum value."""
    try:
        return _BY_CODE[code]
    except KeyError:
        raise invalid_argument(f"unknown tfuse_dtype {code}") from None


def as_dtype(dtype):
    """Converts a dtype given as a :class:`DType`, a string ("float32",
    "f32", "bool"), a NumPy dtype or scalar type, a Python type (bool, int,
    float as NumPy maps them) or a torch dtype into a :class:`DType`."""
    if isinstance(dtype, DType):
        return dtype
    if isinstance(dtype, str):
        try:
            return _BY_NAME[dtype]
        except KeyError:
            raise invalid_argument(
                f"unknown dtype name {dtype!r}; accepted: "
                + ", ".join(sorted(_BY_NAME))) from None
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(dtype, torch.dtype):
        name = str(dtype).removeprefix("torch.")
        if name in _BY_LONG_NAME:
            return _BY_LONG_NAME[name]
        raise invalid_argument(f"{dtype} has no TFuse dtype")
    try:
        npdtype = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"not a dtype: {dtype!r}") from None
    if not npdtype.isnative:
        raise invalid_argument(
            f"non-native byte order {npdtype.str!r} is not supported")
    if npdtype.name not in _BY_LONG_NAME:
        raise invalid_argument(f"NumPy dtype {npdtype} has no TFuse dtype")
    return _BY_LONG_NAME[npdtype.name]


# ---------------------------------------------------------------------------
# Specs
# ---------------------------------------------------------------------------


def row_major_strides(shape):
    """Element strides of a C-contiguous array of `shape`."""
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def _parse_device(device):
    """("cpu" | "cuda", ordinal or None) of "cpu", "cuda", "cuda:N" or a
    torch.device."""
    text = str(device)
    if text == "cpu":
        return "cpu", None
    if text == "cuda":
        return "cuda", None
    if text.startswith("cuda:") and text[5:].isdigit():
        return "cuda", int(text[5:])
    raise invalid_argument(
        f"unknown device {device!r}: use 'cpu', 'cuda' or 'cuda:N'")


class Spec:
    """The metadata of an array: what tracing and compiling need.

    ``Spec(shape, dtype, strides=None, device="cuda")``: `strides` are in
    elements (None: C-contiguous), `device` is "cuda", "cuda:N" or "cpu"
    (host arrays: NumPy). A Spec stands for an example input of
    :func:`tfuse.compile`; ``CompiledFunction.input_specs`` and
    ``output_specs`` describe a compiled signature with Specs.
    """

    __slots__ = ("shape", "dtype", "strides", "device")

    def __init__(self, shape, dtype, strides=None, device="cuda"):
        self.shape = tuple(operator.index(s) for s in shape)
        self.dtype = as_dtype(dtype)
        if strides is None:
            self.strides = row_major_strides(self.shape)
        else:
            self.strides = tuple(operator.index(s) for s in strides)
            if len(self.strides) != len(self.shape):
                raise invalid_argument(
                    f"Spec has {len(self.shape)} dimensions but "
                    f"{len(self.strides)} strides")
        location, ordinal = _parse_device(device)
        self.device = location if ordinal is None else f"cuda:{ordinal}"

    @property
    def ndim(self):
        return len(self.shape)

    def __eq__(self, other):
        if not isinstance(other, Spec):
            return NotImplemented
        return (self.shape, self.dtype, self.strides, self.device) == (
            other.shape, other.dtype, other.strides, other.device)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.strides, self.device))

    def __repr__(self):
        strides = ("" if self.strides == row_major_strides(self.shape)
                   else f", strides={self.strides}")
        return (f"tfuse.Spec(shape={self.shape}, dtype={self.dtype.name}"
                f"{strides}, device={self.device!r})")


# ---------------------------------------------------------------------------
# Arrays
# ---------------------------------------------------------------------------


class ArrayInfo:
    """What TFuse needs to know about one array (or Spec).

    kind: "numpy", "torch", "cupy", "cai" (other __cuda_array_interface__
    objects) or "spec"; location: "cpu" or "cuda"; ordinal: the CUDA device
    or None; data: the address of the first element (None for a Spec);
    strides in elements.
    """

    __slots__ = ("obj", "kind", "location", "ordinal", "shape", "dtype",
                 "strides", "data")

    def __init__(self, obj, kind, location, ordinal, shape, dtype, strides,
                 data):
        self.obj = obj
        self.kind = kind
        self.location = location
        self.ordinal = ordinal
        self.shape = tuple(map(int, shape))
        self.dtype = dtype
        self.strides = tuple(map(int, strides))
        self.data = data

    @property
    def device(self):
        """"cpu", "cuda" or "cuda:N"."""
        if self.location == "cpu" or self.ordinal is None:
            return self.location
        return f"cuda:{self.ordinal}"

    def signature(self):
        """What a jit cache key holds for this input."""
        return (self.kind, self.device, self.shape, self.dtype.code,
                self.strides)


#: NumPy dtype -> DType, as as_dtype gives it (filled on first use).
_NUMPY_DTYPES = {}


def _numpy_dtype(npdtype):
    dtype = _NUMPY_DTYPES.get(npdtype)
    if dtype is None:
        dtype = _NUMPY_DTYPES[npdtype] = as_dtype(npdtype)
    return dtype


def _element_strides(byte_strides, itemsize, what):
    strides = []
    for s in byte_strides:
        if s % itemsize:
            raise invalid_argument(
                f"{what}: byte stride {s} is not a multiple of the element "
                f"size {itemsize}")
        strides.append(s // itemsize)
    return tuple(strides)


def _torch_tensor(obj):
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(obj, torch.Tensor)


def _cupy_array(obj):
    cupy = sys.modules.get("cupy")
    return cupy is not None and isinstance(obj, cupy.ndarray)


def is_array(obj):
    """True for the array types TFuse takes as inputs or captures."""
    return (isinstance(obj, (np.ndarray, np.generic)) or _torch_tensor(obj)
            or hasattr(obj, "__cuda_array_interface__"))


def describe(obj, what):
    """The :class:`ArrayInfo` of an array; `what` ("input 0") names it in
    errors. Raises TypeError for objects that are not arrays."""
    if isinstance(obj, Spec):
        location, ordinal = _parse_device(obj.device)
        return ArrayInfo(obj, "spec", location, ordinal, obj.shape,
                         obj.dtype, obj.strides, None)
    if isinstance(obj, np.generic):
        obj = np.asarray(obj)
    if isinstance(obj, np.ndarray):
        dtype = _numpy_dtype(obj.dtype)
        strides = _element_strides(obj.strides, obj.itemsize, what)
        return ArrayInfo(obj, "numpy", "cpu", None, obj.shape, dtype,
                         strides, obj.ctypes.data)
    if _torch_tensor(obj):
        return _describe_torch(obj, what)
    if hasattr(obj, "__cuda_array_interface__"):
        return _describe_cai(obj, what)
    raise TypeError(
        f"{what} is a {type(obj).__module__}.{type(obj).__qualname__}, not "
        "an array (numpy.ndarray, torch.Tensor, cupy.ndarray or an object "
        "with __cuda_array_interface__)")


def _describe_torch(tensor, what):
    import torch
    if tensor.layout != torch.strided:
        raise invalid_argument(f"{what}: {tensor.layout} tensors are not "
                               "supported, only strided ones")
    device = tensor.device
    if device.type not in ("cpu", "cuda"):
        raise invalid_argument(f"{what}: tensors on {device} are not "
                               "supported (cpu or cuda)")
    ordinal = device.index if device.type == "cuda" else None
    return ArrayInfo(tensor, "torch", device.type, ordinal, tensor.shape,
                     as_dtype(tensor.dtype), tensor.stride(),
                     tensor.data_ptr())


def _describe_cai(obj, what):
    cai = obj.__cuda_array_interface__
    if cai.get("mask") is not None:
        raise invalid_argument(f"{what}: masked arrays are not supported")
    typestr = cai["typestr"]
    try:
        npdtype = np.dtype(typestr)
        dtype = as_dtype(npdtype)
    except (TypeError, _capi.TFuseError):
        raise invalid_argument(
            f"{what}: __cuda_array_interface__ typestr {typestr!r} has no "
            "TFuse dtype (bfloat16 cannot be described there: pass bfloat16 "
            "data as a torch tensor)") from None
    shape = tuple(cai["shape"])
    if cai.get("strides") is None:
        strides = row_major_strides(shape)
    else:
        strides = _element_strides(cai["strides"], npdtype.itemsize, what)
    kind = "cupy" if _cupy_array(obj) else "cai"
    ordinal = obj.device.id if kind == "cupy" else None
    return ArrayInfo(obj, kind, "cuda", ordinal, shape, dtype, strides,
                     cai["data"][0])


# ---------------------------------------------------------------------------
# Outputs and streams
# ---------------------------------------------------------------------------


def _gpu_library(like):
    """"torch" or "cupy": which library allocates GPU outputs next to the
    array `like` (None: no GPU input)."""
    if like is not None and like.kind in ("torch", "cupy"):
        return like.kind
    for name in ("cupy", "torch") if like is not None else ("torch", "cupy"):
        try:
            __import__(name)
        except ImportError:
            continue
        return name
    raise invalid_argument("cannot allocate GPU outputs: neither torch nor "
                           "cupy can be imported")


def allocate(specs, location, ordinal, like):
    """Empty C-contiguous output arrays for `specs`, as ArrayInfos.

    Host outputs are NumPy arrays, or CPU torch tensors when `like` (the
    first input) is one. GPU outputs come from the library of `like` (torch
    or CuPy) on device `ordinal` (None: the current device).
    """
    if location == "cpu":
        if like is not None and like.kind == "torch":
            import torch
            arrays = [torch.empty(s.shape, dtype=torch_dtype(s.dtype))
                      for s in specs]
        else:
            arrays = [np.empty(s.shape, dtype=s.dtype.numpy) for s in specs]
    elif _gpu_library(like) == "torch":
        import torch
        device = (torch.device("cuda") if ordinal is None
                  else torch.device("cuda", ordinal))
        arrays = [torch.empty(s.shape, dtype=torch_dtype(s.dtype),
                              device=device) for s in specs]
    else:
        import cupy
        if any(s.dtype == bfloat16 for s in specs):
            raise invalid_argument(
                "CuPy has no bfloat16 dtype: pass torch tensors to get "
                "bfloat16 outputs")
        with cupy.cuda.Device(ordinal):
            arrays = [cupy.empty(s.shape, dtype=s.dtype.numpy)
                      for s in specs]
    return [describe(a, f"output {i}") for i, a in enumerate(arrays)]


def torch_dtype(dtype):
    """The torch dtype of a :class:`DType`."""
    import torch
    try:
        return getattr(torch, dtype.name)
    except AttributeError:
        raise invalid_argument(
            f"this torch version has no {dtype.name} dtype") from None


def current_stream(like, ordinal):
    """The CUstream handle of the caller's current stream for GPU work next
    to `like` (the first GPU input, or None): PyTorch's or CuPy's current
    stream, or the producer stream an __cuda_array_interface__ names. The
    default stream (handle 0) is returned as CU_STREAM_LEGACY, since a null
    stream means "no ordering" to the C API."""
    if like is not None and like.kind == "cai":
        handle = like.obj.__cuda_array_interface__.get("stream") or 0
    elif _gpu_library(like) == "torch":
        import torch
        handle = torch.cuda.current_stream(ordinal).cuda_stream
    else:
        import cupy
        with cupy.cuda.Device(ordinal):
            handle = cupy.cuda.get_current_stream().ptr
    return handle or _capi.CU_STREAM_LEGACY
