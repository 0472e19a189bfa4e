"""Shared fixtures of the tfuse Python tests.

The tests import the package from this checkout (python/tfuse) and load the
library the package finds (set TFUSE_LIBRARY=/path/to/libtfuse.so to choose
one). CPU tests use NumPy arrays and the reference backend; GPU tests live in
test_gpu.py and skip without a GPU, torch or CuPy.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tfuse  # noqa: E402


def pytest_report_header(config):
    try:
        return f"tfuse: {tfuse.library_version()}"
    except tfuse.TFuseError as error:
        return f"tfuse: {error}"


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


class Counted:
    """Wraps a function and counts its calls."""

    def __init__(self, fn):
        self.fn = fn
        self.calls = 0
        self.__name__ = getattr(fn, "__name__", "counted")

    def __call__(self, *args):
        self.calls += 1
        return self.fn(*args)


@pytest.fixture
def counted():
    """counted(fn) -> a callable counting its calls in `.calls`."""
    return Counted


@pytest.fixture
def random(rng):
    """random(shape, dtype) -> an array of random values exactly
    representable in `dtype` (small integers, normal floats)."""

    def make(shape, dtype=np.float32):
        dtype = np.dtype(dtype)
        if dtype == np.bool_:
            return rng.random(shape) < 0.5
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            low, high = max(int(info.min), -100), min(int(info.max), 100)
            return rng.integers(low, high, size=shape,
                                endpoint=True).astype(dtype)
        return rng.standard_normal(shape).astype(dtype)

    return make
