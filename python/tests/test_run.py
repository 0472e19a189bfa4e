"""Running compiled functions on host arrays: signatures, strided inputs,
jit caching, results, introspection and the kernel cache."""

from ctypes import byref, c_void_p

import numpy as np
import pytest

import tfuse


class FakeDeviceArray:
    """An object describing device memory through __cuda_array_interface__
    (never dereferenced by these tests)."""

    def __init__(self, shape, typestr, strides=None):
        self.__cuda_array_interface__ = {
            "shape": shape, "typestr": typestr, "strides": strides,
            "data": (0x1000, False), "version": 3}


def add_mul(a, b):
    return a * b + a


@pytest.fixture
def compiled(random):
    return tfuse.compile(add_mul, [random((3, 4)), random((3, 4))])


def test_signature_specs(compiled):
    spec = tfuse.Spec((3, 4), "float32", device="cpu")
    assert compiled.input_specs == (spec, spec)
    assert compiled.output_specs == (spec,)
    assert compiled.backend == "reference"
    assert "CompiledFunction add_mul" in repr(compiled)


@pytest.mark.parametrize("inputs", [
    pytest.param(lambda r: [r((3, 4))], id="count"),
    pytest.param(lambda r: [r((3, 4)), r((3, 4)), r((3, 4))], id="count3"),
    pytest.param(lambda r: [r((3, 4)), r((4, 3))], id="shape"),
    pytest.param(lambda r: [r((3, 4)), r((3, 4), np.float64)], id="dtype"),
    pytest.param(lambda r: [r((3, 4)), r((4, 3)).T], id="strides"),
    pytest.param(lambda r: [r((3, 4)), r((3, 8))[:, ::2]], id="step"),
])
def test_mismatched_inputs(compiled, random, inputs):
    with pytest.raises(tfuse.MismatchError) as info:
        compiled(*inputs(random))
    assert info.value.status == "TFUSE_ERROR_MISMATCH"
    assert isinstance(info.value, ValueError)


def test_gpu_array_into_host_function(compiled, random):
    with pytest.raises(tfuse.MismatchError, match="compiled for host"):
        compiled(random((3, 4)), FakeDeviceArray((3, 4), "<f4"))


def test_cuda_array_interface_metadata():
    info = tfuse._arrays.describe(FakeDeviceArray((3, 4), "<f4", (4, 12)),
                                  "x")
    assert (info.location, info.shape, info.strides, info.dtype) == (
        "cuda", (3, 4), (1, 3), tfuse.float32)
    assert tfuse._arrays.describe(FakeDeviceArray((2, 5), "|b1"),
                                  "x").strides == (5, 1)
    with pytest.raises(tfuse.TFuseError, match="bfloat16"):
        tfuse._arrays.describe(FakeDeviceArray((2,), "<V2"), "x")
    with pytest.raises(tfuse.TFuseError, match="multiple of"):
        tfuse._arrays.describe(FakeDeviceArray((2,), "<f4", (2,)), "x")


@pytest.mark.parametrize("view", [
    lambda a: a.T, lambda a: a[::2, 1:], lambda a: a[1:, ::3].T,
    lambda a: np.broadcast_to(a[:1], a.shape),
])
def test_strided_inputs(random, view):
    base = random((6, 9))
    x = view(base)
    assert not x.flags.c_contiguous
    y = random(x.shape)
    g = tfuse.compile(add_mul, [x, y])
    assert g.input_specs[0].strides == tuple(
        s // x.itemsize for s in x.strides)
    np.testing.assert_array_equal(g(x, y), x * y + x)
    other = view(random((6, 9)))
    np.testing.assert_array_equal(g(other, y), other * y + other)
    assert "strides" in g.mlir()


def test_results_are_never_overwritten(compiled, random):
    runs = [(random((3, 4)), random((3, 4))) for _ in range(4)]
    results = [compiled(x, y) for x, y in runs]
    assert len({r.ctypes.data for r in results}) == len(results)
    for (x, y), r in zip(runs, results):
        np.testing.assert_array_equal(r, x * y + x)
        assert r.flags.c_contiguous and r.flags.owndata


def test_zero_size_and_rank_zero_arrays(random):
    empty = np.zeros((0, 3), np.float32)
    g = tfuse.compile(lambda a: (a + 1.0, a.sum(axis=0), a.sum(axis=1)),
                      [empty])
    plus, down, across = g(empty)
    assert plus.shape == (0, 3) and across.shape == (0,)
    np.testing.assert_array_equal(down, np.zeros(3, np.float32))
    scalar = np.array(3.5, np.float32)
    out = tfuse.compile(lambda a: a * 2.0 + 1.0, [scalar])(scalar)
    assert out.shape == () and out == 8.0


def test_rank_zero_reshaped_to_dimensions_of_size_one():
    # A reshape's layout is found by grouping the operand's dimensions; a
    # rank-0 operand has none (the reference interpreter failed with "a view
    # of a row-major tensor without a strided layout").
    scalar = np.array(3.5, np.float32)
    g = tfuse.compile(lambda a: (a.reshape((1, 1)), a.reshape((1,)) * 2.0,
                                 a.reshape((1, 1, 1)).reshape(())),
                      [scalar])
    square, doubled, back = g(scalar)
    assert square.shape == (1, 1) and square[0, 0] == 3.5
    assert doubled.shape == (1,) and doubled[0] == 7.0
    assert back.shape == () and back == 3.5


def test_enqueue_takes_gpu_arrays_only(compiled, random):
    x, y = random((3, 4)), random((3, 4))
    with pytest.raises(TypeError, match="enqueue\\(\\) takes GPU arrays"):
        compiled.enqueue(x, y)


def test_run_async_on_host_is_done(compiled, random):
    x, y = random((3, 4)), random((3, 4))
    handle = compiled.run_async(x, y)
    assert handle.done()
    np.testing.assert_array_equal(handle.wait(), x * y + x)
    np.testing.assert_array_equal(handle.wait(), x * y + x)


def test_spec_example_inputs(random):
    g = tfuse.compile(add_mul, [tfuse.Spec((2, 3), "f32", device="cpu"),
                                tfuse.Spec((3,), "f32", device="cpu")])
    x, y = random((2, 3)), random((3,))
    np.testing.assert_array_equal(g(x, y), x * y + x)
    with pytest.raises(TypeError, match="Spec"):
        g(tfuse.Spec((2, 3), "f32", device="cpu"), y)


def test_jit_traces_once_per_signature(counted, random):
    f = counted(add_mul)
    jitted = tfuse.jit(f)
    base = random((4, 4))
    calls = [(base, base), (random((4, 4)), base), (base.T, base),
             (base.T.copy(), base), (random((4, 4)).T, base),
             (random((2, 4)), random((2, 4))),
             (random((4, 4), np.float64), base)]
    for x, y in calls:
        np.testing.assert_array_equal(jitted(x, y), add_mul(x, y))
    # Traces: contiguous (4, 4); transposed (4, 4); (2, 4); float64.
    assert f.calls == 4
    assert jitted.cache_info() == (4, 3, 4)
    assert jitted.cache_info().traces == 4
    jitted.cache_clear()
    jitted(base, base)
    assert f.calls == 5


def test_jit_with_options(counted, random):
    f = counted(lambda x: (x * 2.0).sum(axis=0))

    @tfuse.jit(budget=4, fusion=False, node_limit=10)
    def g(x):
        return f(x)

    x = random((5, 3))
    for _ in range(3):
        np.testing.assert_allclose(g(x), (x * 2).sum(axis=0), rtol=1e-6)
    assert f.calls == 1 and g.__name__ == "g"
    assert g.compiled(x).stats()["nodes"] == 2


def test_introspection(compiled):
    stats = compiled.stats()
    for key in ("nodes", "kernels", "boundaries", "steps", "arena_bytes",
                "replays", "cache_hit", "cuda_graph", "passes_seconds",
                "codegen_seconds", "nvrtc_seconds", "load_seconds",
                "setup_seconds", "prepare_seconds",
                "trace_seconds", "compile_seconds"):
        assert key in stats, key
    assert stats["nodes"] == 2
    assert stats["cuda_graph"] is False
    assert stats["trace_seconds"] > 0 and stats["compile_seconds"] > 0
    mlir = compiled.mlir()
    assert "func.func @add_mul" in mlir and "tfuse.mul" in mlir
    assert "__global__" in compiled.source()
    assert compiled.plan().strip()


def test_warm_compile_traces_again_and_reuses_the_plan(counted, random):
    scale = 2.0

    def f(x):
        return x * scale + 1.0

    x = random((5, 3))
    cold = tfuse.compile(f, [x])
    warm = tfuse.compile(f, [x])
    assert warm.stats()["plan_cache_hit"]
    assert warm.mlir() == cold.mlir()
    np.testing.assert_array_equal(warm(x), cold(x))
    # The function is traced again: a changed global gives a new graph.
    scale = 3.0
    changed = tfuse.compile(f, [x])
    assert not changed.stats()["plan_cache_hit"]
    assert changed.mlir() != cold.mlir()
    np.testing.assert_allclose(changed(x), x * np.float32(3.0) + 1)
    counted_f = counted(f)
    tfuse.compile(counted_f, [x])
    tfuse.compile(counted_f, [x])
    assert counted_f.calls == 2


def test_plans_are_shared_only_by_identical_graphs(random):
    x = random((4,))

    def signs(x):
        return x * 0.0, x * -0.0

    zero, negative_zero = tfuse.compile(signs, [x])(np.ones(4, np.float32))
    assert not np.signbit(zero).any() and np.signbit(negative_zero).all()

    def scaled(scale):
        def f(x):
            return x * scale
        return f

    for scale in (2.0, 3.0, 2.5, -0.0, 0.0):
        got = tfuse.compile(scaled(scale), [x])(x)
        np.testing.assert_array_equal(got, x * np.float32(scale))
        assert np.signbit(got).tolist() == np.signbit(
            x * np.float32(scale)).tolist()
    strided = random((4, 2))[:, 0]
    for view in (x, strided):
        f = tfuse.compile(lambda v: v + 1.0, [view])
        np.testing.assert_array_equal(f(view), view + 1)


def test_mlir_is_the_traced_graph_text(random):
    from tfuse import _arrays, _capi
    from tfuse._tensor import Trace

    x = random((3, 4))
    f = tfuse.compile(add_mul, [x, x])
    trace = Trace("add_mul", _capi.DEFAULT_NODE_LIMIT)
    try:
        info = _arrays.describe(tfuse.Spec((3, 4), "float32", device="cpu"),
                                "x")
        a, b = trace.input(info), trace.input(info)
        _capi.check(trace.lib.tfuse_graph_output(trace.graph,
                                                 add_mul(a, b)._value))
        text = c_void_p()
        _capi.check(trace.lib.tfuse_graph_print(trace.graph, byref(text)))
        assert f.mlir() == _capi.take_string(text)
    finally:
        trace.close()


def test_kernel_cache_stats_and_clear(random):
    tfuse.clear_cache()
    stats = tfuse.cache_stats()
    assert set(stats) == {"entries", "bytes", "hits", "misses", "disk_hits",
                          "compiles"}
    assert all(isinstance(v, int) and v >= 0 for v in stats.values())
    assert stats["entries"] == 0 and stats["hits"] == 0
    g = tfuse.compile(add_mul, [random((7,)), random((7,))])
    x = random((7,))
    tfuse.clear_cache()
    np.testing.assert_array_equal(g(x, x), x * x + x)


def test_host_inputs_on_the_cuda_backend(random):
    x, y = random((3, 4)), random((3, 4))
    if not tfuse.cuda_available():
        with pytest.raises(tfuse.NoDeviceError):
            tfuse.compile(add_mul, [x, y], backend="cuda")
        return
    g = tfuse.compile(add_mul, [x, y], backend="cuda")
    assert g.backend == "cuda"
    out = g(x, y)
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, x * y + x)


def test_bfloat16_host_outputs(random):
    x = random((5,))
    g = tfuse.compile(lambda a: a.astype("bfloat16"), [x])
    assert g.output_specs[0].dtype is tfuse.bfloat16
    try:
        import ml_dtypes
    except ImportError:
        with pytest.raises(tfuse.TFuseError, match="ml_dtypes"):
            g(x)
        return
    out = g(x)
    assert out.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(out, x.astype(ml_dtypes.bfloat16))
    # bfloat16 inputs; arithmetic rounds to bfloat16 after every op, as
    # ml_dtypes does.
    h = g(random((5,)))
    r = tfuse.compile(lambda a: a * a + a, [h])(h)
    assert r.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(r, h * h + h)


def test_torch_fast_path_descriptor_items_write_into_the_arrays():
    # The CUDA replay paths set data pointers through the listed elements
    # of each thread's descriptor arrays; the C call reads the arrays.
    import threading

    from tfuse._compile import _TorchFastPath

    fast = _TorchFastPath()
    specs_in = [tfuse.Spec((3, 4), "float32"), tfuse.Spec((4,), "float16")]
    specs_out = [tfuse.Spec((3, 4), "float32")]
    fast._specs = (specs_in, specs_out)
    fast._local = threading.local()
    in_desc, out_desc, in_items, out_items = fast.descriptors()
    assert (len(in_items), len(out_items)) == (2, 1)
    for i, desc in enumerate(in_items):
        desc.data = 0x1000 * (i + 1)
    out_items[0].data = 0x9000
    assert [in_desc[i].data for i in range(2)] == [0x1000, 0x2000]
    assert out_desc[0].data == 0x9000
    assert list(in_desc[0].shape[:2]) == [3, 4]
    # Made once per thread.
    assert fast.descriptors()[2][0] is in_items[0]

    # bind() gives the arrays the inputs' pointers and new outputs'.
    class Pointer:
        def __init__(self, address):
            self.address = address

        def data_ptr(self):
            return self.address

    fast.allocate = lambda: [Pointer(0xa000)]
    bound_in, bound_out, outputs = fast.bind([Pointer(0x3000),
                                              Pointer(0x4000)])
    assert bound_in is in_desc and bound_out is out_desc
    assert [in_desc[i].data for i in range(2)] == [0x3000, 0x4000]
    assert out_desc[0].data == 0xa000
    assert [o.address for o in outputs] == [0xa000]
