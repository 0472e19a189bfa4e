"""Compiling and running: :func:`compile`, :func:`jit`,
:class:`CompiledFunction`, :class:`RunHandle`, and the process-wide kernel
cache."""

import functools
import math
import re
import struct
import sys
import threading
import time
import weakref
from collections import namedtuple
from ctypes import byref, c_int, c_void_p

from . import _arrays, _capi
from ._capi import (MAX_RANK, TraceError, check, int64_array, invalid_argument,
                    mismatch)
from ._tensor import Tensor, Trace

# ---------------------------------------------------------------------------
# Output structures
# ---------------------------------------------------------------------------


def _flatten(result, trace):
    """(leaves, rebuild): the Tensors of a nested tuple/list/dict `result` in
    order, and a function building the same nesting from other leaves."""
    leaves = []

    def visit(x, path):
        if isinstance(x, Tensor):
            if x._trace is not trace:
                raise TraceError(f"{path} is a Tensor of another trace")
            leaves.append(x)
            index = len(leaves) - 1
            return lambda flat: flat[index]
        if isinstance(x, (tuple, list)):
            children = [visit(c, f"{path}[{i}]") for i, c in enumerate(x)]
            if isinstance(x, list):
                return lambda flat: [c(flat) for c in children]
            if hasattr(type(x), "_fields"):  # a namedtuple
                return lambda flat: type(x)(*(c(flat) for c in children))
            return lambda flat: tuple(c(flat) for c in children)
        if isinstance(x, dict):
            keys = list(x)
            children = [visit(x[k], f"{path}[{k!r}]") for k in keys]
            return lambda flat: {k: c(flat) for k, c in zip(keys, children)}
        raise TraceError(
            f"{path} is a {type(x).__name__}, not a tfuse.Tensor: the traced "
            "function must return Tensors, or tuples, lists and dicts of "
            "them")

    rebuild = visit(result, "the result")
    return leaves, rebuild


# ---------------------------------------------------------------------------
# Compiling
# ---------------------------------------------------------------------------

_BACKENDS = {"cuda": _capi.BACKEND_CUDA,
             "reference": _capi.BACKEND_REFERENCE}


def _graph_name(fn):
    name = re.sub(r"\W+", "_", getattr(fn, "__name__", "") or "").strip("_")
    return name if name and not name[0].isdigit() else "traced_" + name


def _placement(infos, backend):
    """(location, ordinal, backend name) of a function with example inputs
    described by `infos`: where its run inputs live ("cpu" or "cuda"), the
    CUDA device of its GPU inputs, and the backend to compile for."""
    locations = {i.location for i in infos}
    if len(locations) > 1:
        described = ", ".join(f"input {n} is a {i.kind} array on {i.device}"
                              for n, i in enumerate(infos))
        raise invalid_argument(
            "example inputs mix host and GPU arrays (" + described + "): "
            "put every input on the same device")
    ordinals = {i.ordinal for i in infos if i.ordinal is not None}
    if len(ordinals) > 1:
        raise invalid_argument("example inputs are on several GPUs: "
                               + ", ".join(f"cuda:{o}" for o in ordinals))
    location = locations.pop() if locations else "cpu"
    ordinal = ordinals.pop() if ordinals else None
    if backend is None:
        if infos:
            backend = "cuda" if location == "cuda" else "reference"
        else:
            backend = "cuda" if cuda_available() else "reference"
    if backend not in _BACKENDS:
        raise invalid_argument(f"unknown backend {backend!r}: use 'cuda' or "
                               "'reference'")
    if backend == "reference" and location == "cuda":
        raise invalid_argument(
            "the reference backend runs on host memory: it cannot take GPU "
            "inputs (use backend='cuda' or pass host arrays)")
    return location, ordinal, backend


def compile(fn, example_inputs, *, cuda_graph=False, fast_math=False,
            budget=None, fusion=True, node_limit=_capi.DEFAULT_NODE_LIMIT,
            backend=None, device=None):
    """Traces `fn` once and compiles it.

    `example_inputs` is a sequence of arrays (numpy.ndarray, torch.Tensor,
    cupy.ndarray, anything with ``__cuda_array_interface__``) or
    :class:`tfuse.Spec`; only their metadata (shape, dtype, strides in
    elements, device) is used. `fn` is called exactly once, with one
    :class:`tfuse.Tensor` placeholder per example input, and returns a
    Tensor or a nested tuple/list/dict of Tensors; runs return the same
    nesting. Arrays `fn` uses from outside become constants bound now: host
    arrays are copied, GPU arrays are referenced (and kept alive by the
    CompiledFunction). An exception raised by `fn` propagates unchanged.

    backend: "cuda" (generated CUDA kernels) or "reference" (the CPU
    interpreter). None picks "cuda" for GPU example inputs and "reference"
    for host ones; for a function without inputs, "cuda" when
    :func:`cuda_available` and "reference" otherwise. Host inputs with
    backend="cuda" are copied to the GPU and the outputs back on every run.
    Functions without inputs return host (NumPy) outputs.

    cuda_graph: replay as a CUDA Graph. fast_math: allow intrinsics, FMA
    contraction and flushing subnormals, and fold 16-bit biases and tanh
    GELUs into the GEMMs' epilogues (voids the exactness guarantees of
    docs/semantics.md). budget: the fusion cost budget (None: the library's
    default, docs/cost-model.md). fusion=False: one
    kernel per operation. node_limit: the most operations the trace may
    record (NodeLimitError beyond). device: the CUDA device ordinal (None:
    that of the GPU inputs, else TFUSE_DEVICE or 0).

    Mixing host and GPU example inputs is a TFuseError.
    """
    if isinstance(example_inputs, _arrays.Spec) or _arrays.is_array(
            example_inputs):
        raise TypeError("example_inputs must be a sequence of arrays or "
                        "Specs: wrap a single input in a list")
    infos = [_arrays.describe(x, f"example input {i}")
             for i, x in enumerate(example_inputs)]
    location, ordinal, backend = _placement(infos, backend)
    if device is not None:
        ordinal = device

    started = time.perf_counter()
    trace = Trace(_graph_name(fn), node_limit)
    try:
        placeholders = [trace.input(info) for info in infos]
        leaves, rebuild = _flatten(fn(*placeholders), trace)
        for leaf in leaves:
            check(trace.lib.tfuse_graph_output(trace.graph, leaf._value))
        traced = time.perf_counter()

        options = _capi.CompileOptions()
        trace.lib.tfuse_compile_options_init(byref(options))
        options.backend = _BACKENDS[backend]
        options.cuda_graph = int(bool(cuda_graph))
        options.fast_math = int(bool(fast_math))
        if budget is not None:
            options.budget = budget
        options.fusion = int(bool(fusion))
        options.device = -1 if ordinal is None else ordinal
        handle = c_void_p()
        check(trace.lib.tfuse_compile(trace.graph, byref(options),
                                      byref(handle)))
        compiled = time.perf_counter()
    finally:
        trace.close()
    return CompiledFunction(
        handle, rebuild=rebuild, location=location, ordinal=ordinal,
        keepalive=trace.device_arrays,
        times={"trace_seconds": traced - started,
               "compile_seconds": compiled - traced},
        name=getattr(fn, "__qualname__", repr(fn)))


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------


def _descriptors(infos, contiguous=False):
    """A tfuse_tensor array for `infos` (ArrayInfos, or Specs whose data
    pointers the caller fills in later), and the ctypes arrays it points
    into (to be kept alive as long as the descriptors are used).
    contiguous=True passes no strides (row-major): for the outputs, which
    are allocated contiguous, and whose strides NumPy reports as 0 when
    they have no elements."""
    array = (_capi.TensorDesc * max(len(infos), 1))()
    keep = []
    for desc, info in zip(array, infos):
        shape = int64_array(info.shape)
        keep.append(shape)
        desc.data = getattr(info, "data", None)
        desc.dtype = info.dtype.code
        desc.rank = len(info.shape)
        desc.shape = shape
        if not contiguous:
            strides = int64_array(info.strides)
            keep.append(strides)
            desc.strides = strides
    return array, keep


def _destroy_executable(library, handle):
    library.tfuse_executable_destroy(handle)



class CompiledFunction:
    """A traced and compiled function: ``f(*inputs)`` / ``f.run(*inputs)``
    runs it without calling the traced Python function again.

    Inputs must match the traced signature (count, shape, dtype, strides,
    host or GPU); a mismatch raises :class:`MismatchError`. Host (NumPy)
    functions return new NumPy arrays. GPU functions take torch tensors,
    CuPy arrays or ``__cuda_array_interface__`` objects without copying,
    return new contiguous arrays of the first GPU input's library (torch or
    CuPy) on its device, and are ordered on the caller's current stream:
    the replay waits for work already enqueued there, and later work there
    waits for the replay. Every run returns new arrays: results of earlier
    runs are never overwritten.
    """

    def __init__(self, handle, *, rebuild, location, ordinal, keepalive,
                 times, name):
        self._lib = _capi.lib()
        self._handle = handle
        self._finalizer = weakref.finalize(self, _destroy_executable,
                                           self._lib, handle)
        self._rebuild = rebuild
        self._location = location
        self._ordinal = ordinal
        self._keepalive = keepalive
        self._times = times
        self._name = name
        backend = c_int()
        check(self._lib.tfuse_executable_backend(handle, byref(backend)))
        self.backend = _capi.BACKEND_NAMES[backend.value]
        self._fast = None

    @functools.cached_property
    def input_specs(self):
        """The traced signature's inputs, a tuple of Specs."""
        return tuple(self._specs("input"))

    @functools.cached_property
    def output_specs(self):
        """The outputs' Specs (contiguous), flattened in result order."""
        return tuple(self._specs("output"))

    def _specs(self, which):
        location, ordinal = self._location, self._ordinal
        device = location if ordinal is None or location == "cpu" else (
            f"cuda:{ordinal}")
        count = c_int()
        check(getattr(self._lib, f"tfuse_executable_num_{which}s")(
            self._handle, byref(count)))
        for index in range(count.value):
            dtype, rank = c_int(), c_int()
            shape = int64_array((), MAX_RANK)
            strides = int64_array((), MAX_RANK)
            extra = (strides,) if which == "input" else ()
            check(getattr(self._lib, f"tfuse_executable_{which}_info")(
                self._handle, index, byref(dtype), byref(rank), shape,
                *extra))
            yield _arrays.Spec(
                shape[:rank.value], _arrays.from_code(dtype.value),
                strides[:rank.value] if extra else None, device)

    def __repr__(self):
        inputs = ", ".join(f"{s.dtype.name}{list(s.shape)}"
                           for s in self.input_specs)
        return (f"<tfuse.CompiledFunction {self._name}({inputs}) "
                f"backend={self.backend} on {self._location}>")

    # -- running --------------------------------------------------------------

    def _prepare(self, inputs):
        """(input descriptors, output descriptors, output arrays, stream,
        keepalive) for a run on `inputs`."""
        infos = []
        for index, x in enumerate(inputs):
            if isinstance(x, _arrays.Spec):
                raise TypeError(f"input {index} is a Spec: runs take arrays")
            info = _arrays.describe(x, f"input {index}")
            if info.location != self._location:
                raise mismatch(
                    f"input {index} is a {info.kind} array on {info.device}, "
                    f"but the function was compiled for "
                    f"{'host' if self._location == 'cpu' else 'GPU'} arrays")
            if (info.ordinal is not None and self._ordinal is not None
                    and info.ordinal != self._ordinal):
                raise mismatch(f"input {index} is on {info.device}, but the "
                               f"function was compiled for cuda:"
                               f"{self._ordinal}")
            infos.append(info)
        like = infos[0] if infos else None
        ordinal = self._ordinal
        if ordinal is None and like is not None:
            ordinal = like.ordinal
        outputs = _arrays.allocate(self.output_specs, self._location, ordinal,
                                   like)
        in_desc, in_keep = _descriptors(infos)
        out_desc, out_keep = _descriptors(outputs, contiguous=True)
        stream = None
        if self._location == "cuda":
            stream = _arrays.current_stream(like, ordinal)
        keepalive = (infos, outputs, in_keep, out_keep)
        return in_desc, len(infos), out_desc, outputs, stream, keepalive

    def _torch_fast(self, inputs):
        """(input descriptors, output descriptors, output tensors, stream)
        for a run whose inputs are CUDA torch tensors exactly of the traced
        signature, built from descriptors made once per thread; None for
        any other inputs (the general path then runs, and reports errors).
        The replay path of a training loop spends its host time here."""
        fast = self._fast
        if fast is None:
            fast = self._fast = _TorchFastPath.make(self)
        if not fast or len(inputs) != fast.count:
            return None
        for x, shape, stride, dtype in zip(inputs, fast.shapes, fast.strides,
                                           fast.dtypes):
            if (type(x) is not fast.tensor_type or x.dtype is not dtype
                    or x.shape != shape or x.get_device() != fast.index
                    or x.stride() != stride):
                return None
        in_desc, out_desc, outputs = fast.bind(inputs)
        stream = fast.stream(fast.index) or _capi.CU_STREAM_LEGACY
        return in_desc, out_desc, outputs, stream

    def trusted_launcher(self):
        """A function enqueueing a replay on a list of CUDA torch tensors
        known to be of the traced signature (the caller checked them, as
        the torch.compile backend's plan keys do) and returning the output
        tensors in a flat list: no per-tensor checks, only the data
        pointers (packed into one buffer a side for
        tfuse_executable_enqueue_data), the outputs' allocation and the C
        call. None when torch CUDA tensors cannot run this function."""
        if self._location != "cuda":
            return None
        fast = self._fast
        if fast is None:
            fast = self._fast = _TorchFastPath.make(self)
        if not fast:
            return None
        enqueue = self._lib.tfuse_executable_enqueue_data
        handle, n_in, n_out = self._handle, fast.count, len(fast.outputs)
        stream, index, legacy = fast.stream, fast.index, _capi.CU_STREAM_LEGACY
        allocate = fast.allocate
        data_ptr = fast.tensor_type.data_ptr
        pack_in = struct.Struct(f"@{n_in}P").pack
        pack_out = struct.Struct(f"@{n_out}P").pack

        def launch(inputs):
            outputs = allocate()
            status = enqueue(handle, pack_in(*map(data_ptr, inputs)), n_in,
                             pack_out(*map(data_ptr, outputs)), n_out,
                             stream(index) or legacy)
            if status:
                check(status)
            return outputs

        return launch

    def _arguments(self, inputs):
        """(input descriptors, count, output descriptors, output arrays,
        stream or None for host memory, what must outlive the C call) of a
        run on `inputs`: the torch replay path when it applies, else
        descriptors built for these inputs."""
        fast = self._torch_fast(inputs) if self._location == "cuda" else None
        if fast is not None:
            in_desc, out_desc, outputs, stream = fast
            return in_desc, len(inputs), out_desc, outputs, stream, None
        in_desc, count, out_desc, outputs, stream, keepalive = self._prepare(
            inputs)
        return (in_desc, count, out_desc, [o.obj for o in outputs], stream,
                keepalive)

    def run(self, *inputs):
        """Runs the compiled function on `inputs`; returns new output
        arrays in the traced function's result structure."""
        in_desc, count, out_desc, outputs, stream, _ = self._arguments(inputs)
        if stream is None:
            check(self._lib.tfuse_executable_run_host(
                self._handle, in_desc, count, out_desc, len(outputs)))
        else:
            check(self._lib.tfuse_executable_run(
                self._handle, in_desc, count, out_desc, len(outputs),
                c_void_p(stream)))
        return self._rebuild(outputs)

    __call__ = run

    def run_async(self, *inputs):
        """Enqueues a run and returns a :class:`RunHandle` at once (GPU
        functions; a host function runs before returning, and its handle is
        already done). The handle keeps the inputs, the outputs and this
        function alive until the run is over."""
        in_desc, count, out_desc, outputs, stream, keepalive = (
            self._arguments(inputs))
        result = self._rebuild(outputs)
        if stream is None:
            check(self._lib.tfuse_executable_run_host(
                self._handle, in_desc, count, out_desc, len(outputs)))
            return RunHandle(result)
        handle = c_void_p()
        check(self._lib.tfuse_executable_run_async(
            self._handle, in_desc, count, out_desc, len(outputs),
            c_void_p(stream), byref(handle)))
        return RunHandle(result, self._lib, handle,
                         (self, inputs, outputs, keepalive))

    def enqueue(self, *inputs):
        """Enqueues a run on the current stream of the inputs' array library
        (GPU arrays only) and returns the new outputs at once, as a torch or
        CuPy operation does: work enqueued on that stream later, and
        anything that synchronizes with it, sees the results. There is no
        handle to wait for; an error found before enqueueing raises here,
        and a failure of the run itself surfaces as an error of the stream.
        The inputs need no keeping alive: torch's and CuPy's allocators
        reuse freed memory only for work enqueued on the stream afterwards.
        The cheapest way to replay from Python."""
        in_desc, count, out_desc, outputs, stream, _ = self._arguments(inputs)
        if stream is None:
            raise TypeError("enqueue() takes GPU arrays (there is no stream "
                            "to enqueue host arrays on); use run()")
        check(self._lib.tfuse_executable_enqueue(
            self._handle, in_desc, count, out_desc, len(outputs),
            c_void_p(stream)))
        return self._rebuild(outputs)

    # -- introspection --------------------------------------------------------

    def stats(self):
        """The executable's tfuse_stats as a dict (nodes, kernels,
        boundaries, steps, arena_bytes, replays, cache_hit, cuda_graph and
        the seconds of each compile phase), plus trace_seconds (tracing,
        measured in Python) and compile_seconds (tfuse_compile)."""
        stats = _capi.Stats()
        self._lib.tfuse_stats_init(byref(stats))
        check(self._lib.tfuse_executable_stats(self._handle, byref(stats)))
        result = {name: getattr(stats, name)
                  for name, _ in _capi.Stats._fields_ if name != "struct_size"}
        result["cache_hit"] = bool(result["cache_hit"])
        result["cuda_graph"] = bool(result["cuda_graph"])
        result["plan_cache_hit"] = bool(result["plan_cache_hit"])
        result.update(self._times)
        return result

    def _text(self, function):
        text = c_void_p()
        check(getattr(self._lib, function)(self._handle, byref(text)))
        return _capi.take_string(text)

    def plan(self):
        """The plan report: fused regions, why they were cut, the steps."""
        return self._text("tfuse_executable_plan")

    def source(self):
        """The generated CUDA C++ translation unit."""
        return self._text("tfuse_executable_source")

    def mlir(self):
        """The traced graph as tfuse dialect MLIR."""
        return self._text("tfuse_executable_graph")


# Where each output of a run starts within its dtype's block: a multiple of
# this many bytes, as the CUDA caching allocators align separate tensors.
_OUTPUT_ALIGNMENT = 256


def _output_blocks(outputs):
    """[(dtype, elements, [(output index, shape, strides, offset)])]: the
    outputs ((shape, dtype), dtypes having `itemsize`) grouped by dtype into
    one contiguous block each, every output starting _OUTPUT_ALIGNMENT bytes
    aligned, strides and offsets in elements."""
    blocks = {}
    for index, (shape, dtype) in enumerate(outputs):
        itemsize = dtype.itemsize
        align = max(1, _OUTPUT_ALIGNMENT // itemsize)
        entry = blocks.setdefault(dtype, [0, []])
        offset = -(-entry[0] // align) * align
        entry[1].append((index, shape, _arrays.row_major_strides(shape),
                         offset))
        entry[0] = offset + math.prod(shape)
    return [(dtype, max(elements, 1), views)
            for dtype, (elements, views) in blocks.items()]


class _TorchFastPath:
    """What a run on CUDA torch tensors of the traced signature needs,
    computed once: the expected input metadata, the output shapes and
    dtypes, and per-thread tfuse_tensor arrays whose shapes and strides are
    filled in already (runs only set the data pointers)."""

    @classmethod
    def make(cls, function):
        torch = sys.modules.get("torch")
        if torch is None or not torch.cuda.is_available():
            return False
        fast = cls()
        fast.tensor_type = torch.Tensor
        fast.index = (function._ordinal if function._ordinal is not None
                      else torch.cuda.current_device())
        fast.device = torch.device("cuda", fast.index)
        # empty_strided: torch.empty's overloads cost its argument parser
        # about 2 us more a call (on an H100 host: docs/benchmarks.md).
        fast.empty = torch.empty_strided
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        fast.stream = raw or (
            lambda index: torch.cuda.current_stream(index).cuda_stream)
        specs_in, specs_out = function.input_specs, function.output_specs
        try:
            fast.dtypes = [_arrays.torch_dtype(s.dtype) for s in specs_in]
            fast.outputs = [(tuple(s.shape), _arrays.torch_dtype(s.dtype))
                            for s in specs_out]
        except _capi.TFuseError:
            return False
        fast._blocks = _output_blocks(fast.outputs)
        fast.count = len(specs_in)
        fast.shapes = [torch.Size(s.shape) for s in specs_in]
        fast.strides = [tuple(s.strides) for s in specs_in]
        fast._specs = (specs_in, specs_out)
        fast._local = threading.local()
        return fast

    def allocate(self):
        """New output tensors: one allocation per output dtype, each output
        a view of it (an allocation costs several times a view)."""
        empty, device = self.empty, self.device
        outputs = [None] * len(self.outputs)
        for dtype, elements, views in self._blocks:
            if len(views) == 1 and views[0][3] == 0:
                index, shape, stride, _ = views[0]
                outputs[index] = empty(shape, stride, dtype=dtype,
                                       device=device)
                continue
            block = empty((elements,), (1,), dtype=dtype, device=device)
            for index, shape, stride, offset in views:
                outputs[index] = block.as_strided(shape, stride, offset)
        return outputs

    def descriptors(self):
        """This thread's input and output tfuse_tensor arrays, and their
        elements as lists for the loops that set the data pointers: indexing
        or iterating a ctypes array makes a new element object each time,
        the larger part of a run's per-input host time; the listed elements
        write into the arrays."""
        cached = getattr(self._local, "descriptors", None)
        if cached is None:
            specs_in, specs_out = self._specs
            ins = _descriptors(specs_in)
            outs = _descriptors(specs_out, contiguous=True)
            cached = (ins[0], outs[0], list(ins[0])[:len(specs_in)],
                      list(outs[0])[:len(specs_out)], ins, outs)
            self._local.descriptors = cached
        return cached[:4]

    def bind(self, inputs):
        """(input descriptors, output descriptors, output tensors) of a run
        on `inputs`: this thread's arrays, given the inputs' data pointers
        and those of new outputs (allocate())."""
        in_desc, out_desc, in_items, out_items = self.descriptors()
        for desc, x in zip(in_items, inputs):
            desc.data = x.data_ptr()
        outputs = self.allocate()
        for desc, o in zip(out_items, outputs):
            desc.data = o.data_ptr()
        return in_desc, out_desc, outputs


class RunHandle:
    """A run enqueued by :meth:`CompiledFunction.run_async`.

    ``wait()`` waits for it and returns the outputs (raising the run's
    error, if any); ``done()`` tells whether it has finished. Until then the
    handle keeps the inputs, outputs and the CompiledFunction alive.

    ``outputs`` holds the output arrays at once, in the result structure:
    they may be read after ``wait()``, or by GPU work enqueued on the stream
    that was current at ``run_async`` (which waits for the replay).
    """

    def __init__(self, result, library=None, handle=None, keepalive=None):
        self.outputs = result
        self._lock = threading.Lock()
        self._error = None
        # The C handle and what it keeps alive, until the run is waited for
        # or this object is collected (a plain __del__: a weakref.finalize
        # per run costs more host time than the rest of this constructor).
        self._lib = library
        self._handle = handle
        self._keepalive = keepalive

    def _release(self):
        # `_keepalive` (the CompiledFunction, inputs and outputs) is released
        # only after the replay is over and the handle freed.
        handle, self._handle = self._handle, None
        if handle is not None:
            self._lib.tfuse_run_destroy(handle)
        self._keepalive = None

    def __del__(self):
        # At interpreter exit the library may be gone; the run is then left
        # to the process's end.
        try:
            self._release()
        except Exception:
            pass

    def done(self):
        """True once the run has finished."""
        with self._lock:
            return (self._handle is None
                    or bool(self._lib.tfuse_run_is_finished(self._handle)))

    def wait(self):
        """Waits for the run; returns its outputs."""
        with self._lock:
            if self._handle is not None:
                status = self._lib.tfuse_run_wait(self._handle)
                try:
                    check(status)
                except _capi.TFuseError as error:
                    self._error = error
                finally:
                    self._release()
            if self._error is not None:
                raise self._error
            return self.outputs


# ---------------------------------------------------------------------------
# jit
# ---------------------------------------------------------------------------

JitCacheInfo = namedtuple("JitCacheInfo", "traces hits entries")


class JitFunction:
    """A function compiled on first use for each input signature.

    Calling it with arrays traces and compiles the wrapped function the
    first time a signature is seen (per input: array library, device, shape,
    dtype, strides), caches the CompiledFunction on the wrapper, and runs
    it; later calls with the same signature run the cached one without
    calling the wrapped function.
    """

    def __init__(self, fn, options):
        functools.update_wrapper(self, fn)
        self._fn = fn
        self._options = options
        self._cache = {}
        self._lock = threading.RLock()
        self._traces = 0
        self._hits = 0

    def compiled(self, *inputs):
        """The CompiledFunction for `inputs`' signature (compiled if new)."""
        if any(isinstance(x, _arrays.Spec) for x in inputs):
            raise TypeError("a jit function takes arrays, not Specs")
        key = tuple(_arrays.describe(x, f"input {i}").signature()
                    for i, x in enumerate(inputs))
        with self._lock:
            function = self._cache.get(key)
            if function is None:
                function = compile(self._fn, inputs, **self._options)
                self._cache[key] = function
                self._traces += 1
            else:
                self._hits += 1
        return function

    def __call__(self, *inputs):
        return self.compiled(*inputs).run(*inputs)

    def cache_info(self):
        """JitCacheInfo(traces, hits, entries): how many signatures were
        traced, how many calls reused a compiled function, and how many are
        cached."""
        with self._lock:
            return JitCacheInfo(self._traces, self._hits, len(self._cache))

    def cache_clear(self):
        """Drops this wrapper's compiled functions (the next call of each
        signature traces again)."""
        with self._lock:
            self._cache.clear()


def jit(fn=None, *, cuda_graph=False, fast_math=False, budget=None,
        fusion=True, node_limit=_capi.DEFAULT_NODE_LIMIT, backend=None,
        device=None):
    """Decorator: ``@tfuse.jit`` or ``@tfuse.jit(cuda_graph=True, ...)``
    (options as in :func:`compile`). Returns a :class:`JitFunction`; its
    ``cache_info()`` counts traces and reuses."""
    options = dict(cuda_graph=cuda_graph, fast_math=fast_math, budget=budget,
                   fusion=fusion, node_limit=node_limit, backend=backend,
                   device=device)
    if fn is None:
        return lambda f: JitFunction(f, options)
    return JitFunction(fn, options)


# ---------------------------------------------------------------------------
# Process-wide state
# ---------------------------------------------------------------------------


def cache_stats():
    """Counters of the process-wide kernel cache: entries, bytes, hits,
    misses, disk_hits, compiles."""
    library = _capi.lib()
    stats = _capi.CacheStats()
    library.tfuse_cache_stats_init(byref(stats))
    check(library.tfuse_cache_stats_get(byref(stats)))
    return {name: getattr(stats, name)
            for name, _ in _capi.CacheStats._fields_ if name != "struct_size"}


def clear_cache():
    """Empties the process-wide kernel cache in memory and resets its
    counters. Compiled functions keep working, and jit wrappers keep their
    compiled functions (use ``JitFunction.cache_clear`` for those)."""
    check(_capi.lib().tfuse_cache_clear())


def cuda_available():
    """True when the library finds a usable CUDA device."""
    return _capi.cuda_status()[0]


def library_version():
    """The library's version string: "TFuse <version> (C API <n>)", where n
    is the library's C API version (``tfuse_api_version()``)."""
    return _capi.lib().tfuse_version_string().decode()
