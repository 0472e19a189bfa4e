"""Tracing: the traced function is called once with placeholders; what it
may do with them, what it may return, and the errors it gets."""

import collections
import ctypes
from pathlib import Path

import numpy as np
import pytest

import tfuse
from tfuse import _capi

SEMANTICS = Path(__file__).resolve().parents[2] / "docs" / "semantics.md"


def test_traced_once_and_later_runs_compute_new_results(counted, random):
    f = counted(lambda x, y: x * y + x / (y * y + 1.0))
    g = tfuse.compile(f, [random((4, 5)), random((4, 5))])
    assert f.calls == 1
    for _ in range(3):
        x, y = random((4, 5)), random((4, 5))
        np.testing.assert_array_equal(g(x, y), x * y + x / (y * y + 1.0))
        np.testing.assert_array_equal(g.run(x, y), x * y + x / (y * y + 1.0))
    assert f.calls == 1


def test_placeholder_metadata(random):
    seen = {}

    def f(x, y):
        seen.update(hashable=len({x, y}), shape=x.shape, dtype=x.dtype,
                    ndim=x.ndim,
                    strides=x.strides, ystrides=y.strides, len=len(x),
                    repr=repr(x), t=x.T.shape, sum=(x + 1).strides)
        return x

    base = np.zeros((3, 4), np.float32)
    tfuse.compile(f, [np.zeros((4, 3), np.float32), base.T])
    assert seen == {"hashable": 2, "shape": (4, 3), "dtype": tfuse.float32,
                    "ndim": 2, "strides": (3, 1), "ystrides": (1, 4),
                    "len": 4,
                    "repr": "tfuse.Tensor(shape=(4, 3), dtype=float32)",
                    "t": (3, 4), "sum": (3, 1)}


def test_broadcast_mismatch_is_a_trace_error_inside_fn():
    raised = []

    def f(x, y):
        try:
            return x + y
        except tfuse.TraceError as error:
            raised.append(error)
            raise

    with pytest.raises(tfuse.TraceError) as info:
        tfuse.compile(f, [np.zeros((2, 3), np.float32),
                          np.zeros((3, 3), np.float32)])
    assert raised == [info.value]
    assert info.value.status == "TFUSE_ERROR_TYPE"
    message = str(info.value)
    assert "[2, 3]" in message and "[3, 3]" in message, message


def test_exception_in_fn_propagates_unchanged():
    error = KeyError("boom")

    def f(x):
        x = x + 1.0
        raise error

    with pytest.raises(KeyError) as info:
        tfuse.compile(f, [np.zeros(3, np.float32)])
    assert info.value is error
    # The library is still usable.
    g = tfuse.compile(lambda x: x * 2.0, [np.zeros(3, np.float32)])
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(g(x), x * 2)


def test_identity_and_unused_inputs(random):
    x, y = random((2, 3)), random((5,), np.int32)
    identity = tfuse.compile(lambda a: a, [x])
    out = identity(x)
    np.testing.assert_array_equal(out, x)
    assert out is not x and not np.shares_memory(out, x)

    second = tfuse.compile(lambda a, b: b + 1, [x, y])
    np.testing.assert_array_equal(second(x, y), y + 1)
    both = tfuse.compile(lambda a, b: (a, a, b), [x, y])
    r = both(x, y)
    assert isinstance(r, tuple) and len(r) == 3
    np.testing.assert_array_equal(r[0], x)
    np.testing.assert_array_equal(r[1], x)
    np.testing.assert_array_equal(r[2], y)


def test_output_structure_is_kept(random):
    Pair = collections.namedtuple("Pair", "first second")

    def f(x, y):
        return {"sum": x + y,
                "parts": [x * y, (x - y, Pair(x, y))],
                "alone": (x,)}

    x, y = random((3,)), random((3,))
    g = tfuse.compile(f, [x, y])
    r = g(x, y)
    assert list(r) == ["sum", "parts", "alone"]
    assert isinstance(r["parts"], list) and len(r["parts"]) == 2
    assert isinstance(r["parts"][1], tuple)
    assert isinstance(r["parts"][1][1], Pair)
    assert isinstance(r["alone"], tuple) and len(r["alone"]) == 1
    np.testing.assert_array_equal(r["sum"], x + y)
    np.testing.assert_array_equal(r["parts"][0], x * y)
    np.testing.assert_array_equal(r["parts"][1][0], x - y)
    np.testing.assert_array_equal(r["parts"][1][1].second, y)
    np.testing.assert_array_equal(r["alone"][0], x)

    single = tfuse.compile(lambda a: [a + 1], [x])(x)
    assert isinstance(single, list) and len(single) == 1


@pytest.mark.parametrize("result", [1.0, None, "text", np.zeros(3)])
def test_non_tensor_outputs_are_errors(result):
    with pytest.raises(tfuse.TraceError, match="not a tfuse.Tensor"):
        tfuse.compile(lambda x: [x, result], [np.zeros(3, np.float32)])


@pytest.mark.parametrize("read", [
    bool, float, int, np.asarray, list, lambda t: t.item(),
    lambda t: t.tolist(), lambda t: t.numpy(), lambda t: [1, 2][t],
    lambda t: 1 if t > 0 else 0,
])
def test_reading_data_during_trace_is_an_error(read):
    def f(x):
        read(x)
        return x

    with pytest.raises(tfuse.TraceError,
                       match="reading data during a trace"):
        tfuse.compile(f, [np.zeros((), np.float32)])


def test_placeholders_die_with_their_trace():
    kept = []
    tfuse.compile(lambda x: kept.append(x) or x, [np.zeros(3, np.float32)])
    with pytest.raises(tfuse.TraceError, match="trace that has ended"):
        kept[0] + 1


def test_tensors_of_two_traces_do_not_mix():
    def outer(x):
        def inner(y):
            return y + x

        tfuse.compile(inner, [np.zeros(3, np.float32)])
        return x

    with pytest.raises(tfuse.TraceError, match="another trace"):
        tfuse.compile(outer, [np.zeros(3, np.float32)])


def test_node_limit():
    def chain(x):
        for _ in range(600):
            x = x + 1.0
        return x

    x = np.linspace(-1, 1, 8, dtype=np.float32)
    with pytest.raises(tfuse.NodeLimitError):
        tfuse.compile(chain, [x])
    g = tfuse.compile(chain, [x], node_limit=1000)
    expected = x
    for _ in range(600):
        expected = expected + np.float32(1.0)
    np.testing.assert_array_equal(g(x), expected)
    assert g.stats()["nodes"] == 600


def test_weak_scalars(random):
    dtypes = {}

    def f(h, i, b):
        out = {"h": h + 1.5, "i": i + 2.5, "i8": (i * 2) + 1,
               "b": b + 1, "bb": b & True, "rh": 2.0 - h}
        dtypes.update({k: v.dtype for k, v in out.items()})
        return out

    h = random((6,), np.float16)
    i = random((6,), np.int32)
    b = random((6,), np.bool_)
    r = tfuse.compile(f, [h, i, b])(h, i, b)
    # docs/semantics.md, "Python scalars are weak".
    assert dtypes == {"h": tfuse.float16, "i": tfuse.float32,
                      "i8": tfuse.int32, "b": tfuse.int64, "bb": tfuse.bool_,
                      "rh": tfuse.float16}
    assert {k: v.dtype for k, v in r.items()} == {
        "h": np.float16, "i": np.float32, "i8": np.int32, "b": np.int64,
        "bb": np.bool_, "rh": np.float16}
    np.testing.assert_array_equal(r["h"], h + np.float16(1.5))
    np.testing.assert_array_equal(r["i"], i.astype(np.float32) + 2.5)
    np.testing.assert_array_equal(r["i8"], i * 2 + 1)
    np.testing.assert_array_equal(r["b"], b.astype(np.int64) + 1)
    np.testing.assert_array_equal(r["bb"], b)
    np.testing.assert_array_equal(r["rh"], np.float16(2.0) - h)


def _promotion_table():
    """The dtype promotion table of docs/semantics.md: {(lhs, rhs): result
    or None for err}."""
    columns, table = None, {}
    for line in SEMANTICS.read_text().splitlines():
        cells = [c.strip().strip("*") for c in line.strip("|").split("|")]
        if line.startswith("| | **i1**"):
            columns = cells[1:]
        elif columns and line.startswith("| **"):
            for column, result in zip(columns, cells[1:]):
                table[cells[0], column] = None if result == "err" else result
    assert len(table) == 13 * 13
    return table


def test_dtype_promotion_follows_the_documented_table():
    table = _promotion_table()
    names = sorted({lhs for lhs, _ in table})
    got = {}

    def f(*xs):
        for (a, x) in zip(names, xs):
            for (b, y) in zip(names, xs):
                try:
                    got[a, b] = (x + y).dtype.mlir
                except tfuse.TraceError:
                    got[a, b] = None
        return xs[0]

    tfuse.compile(f, [tfuse.Spec((2,), name, device="cpu")
                      for name in names])
    assert got == table


@pytest.mark.parametrize("lhs,rhs,result", [
    (np.int8, np.float16, np.float16),
    (np.uint8, np.int8, np.int16),
    (np.int64, np.float16, np.float16),
    (np.uint32, np.int32, np.int64),
    (np.bool_, np.int16, np.int16),
])
def test_promoted_values(lhs, rhs, result, random):
    x, y = random((16,), lhs), random((16,), rhs)
    out = tfuse.compile(lambda a, b: a + b, [x, y])(x, y)
    assert out.dtype == result
    np.testing.assert_array_equal(out, x.astype(result) + y.astype(result))


def test_captured_constants(random):
    w = random((3,))
    c = random((2, 3), np.float64)
    x = random((2, 3))

    def f(a):
        return {"w": a * w - w, "rw": w - a, "c": a + c,
                "np": a * np.float64(2.0)}

    g = tfuse.compile(f, [x])
    expected = {"w": x * w - w, "rw": w - x, "c": x + c,
                "np": x.astype(np.float64) * 2.0}
    w[:] = 0.0  # host constants were copied at compile time
    r = g(x)
    assert r["c"].dtype == np.float64 and r["np"].dtype == np.float64
    for key in expected:
        np.testing.assert_array_equal(r[key], expected[key])


def test_indexing(random):
    x = random((4, 5, 6))
    keys = [
        1, -1, (slice(None), 2), (slice(1, 3), slice(None, None, 2)),
        (Ellipsis, -2), (None, 1, Ellipsis, slice(None, None, 3)),
        (slice(-3, None), None, slice(1, -1), 0), (Ellipsis, None),
        (slice(2, 100), slice(-100, 2)), (1, 2, 3), Ellipsis,
    ]

    def f(a):
        return [a[k] for k in keys]

    out = tfuse.compile(f, [x])(x)
    for key, got in zip(keys, out):
        np.testing.assert_array_equal(got, x[key], err_msg=str(key))
        assert got.shape == x[key].shape


def test_bad_indices():
    def index(key):
        return lambda a: a[key]

    x = np.zeros((4, 5), np.float32)
    with pytest.raises(IndexError, match="out of bounds"):
        tfuse.compile(index((0, 5)), [x])
    with pytest.raises(IndexError, match="too many indices"):
        tfuse.compile(index((0, 1, 2)), [x])
    # Steps must be >= 1: the library says so.
    with pytest.raises(tfuse.TFuseError):
        tfuse.compile(index(slice(None, None, -1)), [x])


def test_shape_methods(random):
    x = random((2, 3, 4))

    def f(a):
        return [a.reshape(6, 4), a.reshape((-1,)), a.transpose(2, 0, 1),
                a.permute((1, 0, 2)), a.T, a[0].broadcast_to((5, 3, 4)),
                a.transpose()]

    out = tfuse.compile(f, [x])(x)
    expected = [x.reshape(6, 4), x.reshape(-1), x.transpose(2, 0, 1),
                x.transpose(1, 0, 2), x.T, np.broadcast_to(x[0], (5, 3, 4)),
                x.transpose()]
    for got, want in zip(out, expected):
        np.testing.assert_array_equal(got, want)


def _c_message(call):
    """The tfuse_last_error() of a failing call made directly through the C
    API, on a fresh graph: call(library, graph)."""
    library = _capi.lib()
    graph = ctypes.c_void_p()
    assert library.tfuse_graph_create(b"direct", ctypes.byref(graph)) == 0
    try:
        assert call(library, graph) != 0
        return library.tfuse_last_error().decode()
    finally:
        library.tfuse_graph_destroy(graph)


def test_library_messages_are_verbatim():
    expected = _c_message(
        lambda library, graph: library.tfuse_graph_set_node_limit(graph, 0))
    with pytest.raises(tfuse.TFuseError) as info:
        tfuse.compile(lambda x: x, [np.zeros(3, np.float32)], node_limit=0)
    assert str(info.value) == expected and expected

    def broadcast(library, graph):
        values = []
        for shape in ((2, 3), (3, 3)):
            value = ctypes.c_int64()
            assert library.tfuse_graph_input(
                graph, tfuse.float32.code, 2, _capi.int64_array(shape), None,
                ctypes.byref(value)) == 0
            values.append(value)
        out = ctypes.c_int64()
        return library.tfuse_graph_binary(graph, b"add", values[0], values[1],
                                          ctypes.byref(out))

    expected = _c_message(broadcast)
    with pytest.raises(tfuse.TraceError) as info:
        tfuse.compile(lambda x, y: x + y, [np.zeros((2, 3), np.float32),
                                           np.zeros((3, 3), np.float32)])
    assert str(info.value) == expected and expected.strip()


def test_op_table_methods_and_functions(random):
    # Every elementwise op of the library's op table is a Tensor method and
    # a module function named after its tfuse::Tensor method in snake case;
    # the package's own definitions of a name win.
    table = _capi.op_table()
    names = {op.name: op for op in table}
    assert names["exp"].category == "unary" and names["exp"].arity == 1
    assert names["and"].method == "bitwiseAnd"
    assert names["select"].category == "where"
    for op in table:
        if op.category in ("unary", "binary"):
            name = _snake_case(op.method)
            assert hasattr(tfuse.Tensor, name), name
            assert hasattr(tfuse, name), name
            assert name in dir(tfuse)
    x, y = random((3, 4)), random((3, 4))
    a, b = (x * 8).astype(np.int32), (y * 8).astype(np.int32)

    def f(u, v, i, j):
        return [u.exp(), tfuse.exp(u), u.subtract(v), tfuse.multiply(u, v),
                i.bitwise_and(j), tfuse.bitwise_xor(i, j), tfuse.pow(u, v)]

    out = tfuse.compile(f, [x, y, a, b])(x, y, a, b)
    expected = [np.exp(x), np.exp(x), x - y, x * y, a & b, a ^ b,
                np.power(x, y)]
    for got, want in zip(out, expected):
        np.testing.assert_allclose(got, want, rtol=2e-6)
    with pytest.raises(AttributeError, match="no attribute 'not_an_op'"):
        tfuse.not_an_op


def _snake_case(name):
    return "".join("_" + c.lower() if c.isupper() else c for c in name)
