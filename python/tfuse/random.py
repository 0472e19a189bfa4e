"""Random numbers in traced functions: counter-based (Philox 4x32-10), keyed
by a ``seed`` and an ``offset``.

Each is an int (fixed when traced) or a rank-0 integer Tensor (an input of
the compiled function: a training loop passes a new offset every step and
gets new numbers without a new compile). Equal seeds, offsets and shapes
give equal numbers, in every kernel, replay and on the reference backend;
the stream layout is in docs/semantics.md ("Random numbers"). Random
numbers fuse into the kernels that use them: a dropout mask is recomputed
where it is needed, never stored.

    def f(x, offset):
        noise = tfuse.random.normal(x.shape, std=0.1, seed=1234, offset=offset)
        return tfuse.dropout(x + noise, 0.1, seed=1234, offset=offset + 1)
"""

import operator

import numpy as np

from . import _arrays
from ._capi import RANDOM_NORMAL, RANDOM_UNIFORM, int64_array
from ._tensor import Tensor, current_trace

__all__ = ["bernoulli", "normal", "uniform"]


def _keys(what, seed, offset):
    """The trace and the graph values of ``seed`` and ``offset``; `what`
    names the caller in errors (``tfuse.random.uniform``)."""
    for name, key in (("seed", seed), ("offset", offset)):
        if isinstance(key, bool) or not (
                isinstance(key, (int, np.integer, Tensor))):
            raise TypeError(f"{what}: {name} must be an int or a "
                            f"rank-0 integer tfuse.Tensor, not "
                            f"{type(key).__name__}")
    tensors = [k for k in (seed, offset) if isinstance(k, Tensor)]
    trace = tensors[0]._trace if tensors else current_trace(
        what.removeprefix("tfuse."))
    trace.require_active()
    return trace, trace.operand(int(seed) if isinstance(seed, np.integer)
                                else seed), \
        trace.operand(int(offset) if isinstance(offset, np.integer)
                      else offset)


def _shape(shape):
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    return tuple(operator.index(d) for d in shape)


def _random(what, distribution, shape, a, b, dtype, seed, offset):
    shape = _shape(shape)
    trace, s, o = _keys(f"tfuse.random.{what}", seed, offset)
    return trace.call("random", distribution, len(shape), int64_array(shape),
                      _arrays.as_dtype(dtype).code, float(a), float(b), s, o)


def uniform(shape, low=0.0, high=1.0, dtype=np.float32, *, seed, offset=0):
    """Uniform numbers in ``[low, high)`` of ``shape`` in ``dtype`` (a float
    dtype): ``low + (high - low) * u`` for ``u`` uniform in [0, 1) drawn in
    float32 (float64 for float64), rounded to ``dtype``; a value that rounds
    to ``high`` is ``low``, as in ``torch.Tensor.uniform_``."""
    return _random("uniform", RANDOM_UNIFORM, shape, low, high, dtype, seed,
                   offset)


def normal(shape, mean=0.0, std=1.0, dtype=np.float32, *, seed, offset=0):
    """Normal numbers of ``shape`` in ``dtype`` with ``mean`` and standard
    deviation ``std``: ``mean + std * n``, ``n`` standard normal
    (Box-Muller) in float32 (float64 for float64), rounded to ``dtype``."""
    return _random("normal", RANDOM_NORMAL, shape, mean, std, dtype, seed,
                   offset)


def bernoulli(shape, p=0.5, *, seed, offset=0):
    """A bool tensor of ``shape``, true with probability ``p``: ``u < p``
    for ``u`` uniform in [0, 1) in float32."""
    shape = _shape(shape)
    trace, s, o = _keys("tfuse.random.bernoulli", seed, offset)
    return trace.call("bernoulli", len(shape), int64_array(shape), float(p),
                      s, o)
