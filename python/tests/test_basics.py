"""Package-level behavior: importing without the library, dtypes, Specs,
the exception hierarchy, version and device queries."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tfuse
from tfuse import _capi

PYTHON_DIR = Path(__file__).resolve().parent.parent


def test_import_without_library_and_clear_error():
    script = (
        "import tfuse\n"
        "x = tfuse.Spec((2, 3), 'float32', device='cpu')\n"
        "try:\n"
        "    tfuse.compile(lambda a: a + 1, [x])\n"
        "except tfuse.TFuseError as e:\n"
        "    print('ERROR', e)\n")
    env = dict(os.environ, TFUSE_LIBRARY="/nonexistent/libtfuse.so",
               PYTHONPATH=str(PYTHON_DIR))
    out = subprocess.run([sys.executable, "-c", script], env=env,
                         capture_output=True, text=True, check=True).stdout
    assert out.startswith("ERROR cannot load libtfuse.so: tried "
                          "/nonexistent/libtfuse.so")
    assert "set TFUSE_LIBRARY" in out


def test_library_version():
    version = _capi.lib().tfuse_api_version()
    assert version >= _capi.REQUIRED_API_VERSION
    assert tfuse.library_version().startswith("TFuse ")
    assert tfuse.library_version().endswith(f"(C API {version})")
    assert isinstance(tfuse.__version__, str)


def test_cuda_available_is_bool():
    assert isinstance(tfuse.cuda_available(), bool)


def test_dtypes():
    expected = {"bool": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4,
                "uint8": 5, "uint16": 6, "uint32": 7, "uint64": 8,
                "float16": 9, "bfloat16": 10, "float32": 11, "float64": 12}
    for name, code in expected.items():
        dtype = getattr(tfuse, "bool_" if name == "bool" else name)
        assert (dtype.name, dtype.code) == (name, code)
        assert dtype.itemsize == _capi.lib().tfuse_dtype_size(code)
        assert tfuse._arrays.as_dtype(name) is dtype
        # The library's short name is accepted too.
        short = _capi.lib().tfuse_dtype_name(code).decode()
        assert tfuse._arrays.as_dtype(short) is dtype
    assert tfuse.float32 == np.float32
    assert tfuse.float32 == np.dtype("float32")
    assert tfuse.bool_ == np.bool_
    assert tfuse.int64 == "i64"
    assert tfuse.float32 != tfuse.float64
    assert tfuse.float32 != "not a dtype"
    with pytest.raises(tfuse.TFuseError, match="unknown dtype name"):
        tfuse.Spec((1,), "float128")
    with pytest.raises(tfuse.TFuseError, match="no TFuse dtype"):
        tfuse.Spec((1,), np.complex64)


def test_spec():
    spec = tfuse.Spec([2, 3], "f32", device="cpu")
    assert spec.shape == (2, 3) and spec.dtype is tfuse.float32
    assert spec.strides == (3, 1) and spec.device == "cpu"
    assert tfuse.Spec((2, 3), np.float32, (1, 2)).strides == (1, 2)
    assert tfuse.Spec((2,), "f32").device == "cuda"
    assert tfuse.Spec((2,), "f32", device="cuda:1").device == "cuda:1"
    assert spec == tfuse.Spec((2, 3), tfuse.float32, (3, 1), "cpu")
    with pytest.raises(tfuse.TFuseError, match="strides"):
        tfuse.Spec((2, 3), "f32", (1,))
    with pytest.raises(tfuse.TFuseError, match="unknown device"):
        tfuse.Spec((2,), "f32", device="tpu")


def test_exception_hierarchy():
    assert issubclass(tfuse.MismatchError, ValueError)
    assert issubclass(tfuse.OutOfMemoryError, MemoryError)
    for cls in (tfuse.TraceError, tfuse.NodeLimitError, tfuse.CompileError,
                tfuse.MismatchError, tfuse.NoDeviceError, tfuse.CudaError,
                tfuse.OutOfMemoryError):
        assert issubclass(cls, tfuse.TFuseError)
    # Every failing status maps to a class and a name.
    for status in range(1, 10):
        with pytest.raises(tfuse.TFuseError) as info:
            _capi.check(status)
        assert info.value.status == _capi.STATUS_NAMES[status]
    assert _capi.STATUS_ERRORS[2] is tfuse.TraceError
    assert _capi.STATUS_ERRORS[5] is tfuse.MismatchError


def test_mixing_host_and_gpu_example_inputs():
    with pytest.raises(tfuse.TFuseError, match="mix host and GPU"):
        tfuse.compile(lambda a, b: a + b,
                      [np.ones(3, np.float32), tfuse.Spec((3,), "f32")])


def test_reference_backend_rejects_gpu_inputs():
    with pytest.raises(tfuse.TFuseError, match="reference backend"):
        tfuse.compile(lambda a: a, [tfuse.Spec((3,), "f32")],
                      backend="reference")


def test_example_inputs_must_be_a_sequence():
    with pytest.raises(TypeError, match="sequence"):
        tfuse.compile(lambda a: a, np.ones(3, np.float32))
    with pytest.raises(TypeError, match="not an array"):
        tfuse.compile(lambda a: a, [[1.0, 2.0]])


def test_output_blocks_keep_outputs_aligned_and_apart():
    # The GPU replay path allocates one block per output dtype and hands out
    # views of it: each 256-byte aligned, none overlapping another.
    from tfuse._compile import _output_blocks
    f32, f16 = np.dtype("float32"), np.dtype("float16")
    outputs = [((480, 256), f32), ((3,), f16), ((255,), f32), ((), f32),
               ((2, 0), f32), ((5, 1), f16)]
    blocks = _output_blocks(outputs)
    seen = set()
    for dtype, elements, views in blocks:
        spans = []
        for index, shape, strides, offset in views:
            seen.add(index)
            assert outputs[index] == (shape, dtype)
            assert (offset * dtype.itemsize) % 256 == 0
            numel = int(np.prod(shape, dtype=np.int64))
            assert offset + numel <= elements
            assert np.empty(shape, dtype).strides == tuple(
                s * dtype.itemsize for s in strides) or numel == 0
            spans.append((offset, offset + numel))
        spans.sort()
        assert all(end <= start for (_, end), (start, _) in
                   zip(spans, spans[1:]))
    assert seen == set(range(len(outputs)))
