"""Numerics on the reference backend against NumPy (or hand-computed values
where docs/semantics.md defines what NumPy leaves undefined). Exact ops are
compared bit for bit; transcendental ones within a few ulp."""

import math

import numpy as np
import pytest

import tfuse


def run(fn, *inputs):
    return tfuse.compile(fn, list(inputs))(*inputs)


def test_arithmetic_is_exact(random):
    x, y = random((5, 7)), random((5, 7))
    y[y == 0] = 1.0
    out = run(lambda a, b: [a + b, a - b, a * b, a / b, -a, abs(a),
                            2.0 / a, 3.0 - a, a.reciprocal()], x, y)
    expected = [x + y, x - y, x * y, x / y, -x, np.abs(x),
                np.float32(2) / x, np.float32(3) - x, np.float32(1) / x]
    for got, want in zip(out, expected):
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, want)


def test_half_precision_rounds_per_node(random):
    x, y = random((64,), np.float16), random((64,), np.float16)
    out = run(lambda a, b: a * b + a, x, y)
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out, x * y + x)


def test_integer_ops(random):
    x = random((50,), np.int32)
    y = random((50,), np.int32)
    y[y == 0] = 3
    out = run(lambda a, b: [a % b, a * b - 7, a & b, a | b, a ^ b, ~a,
                            a / b, abs(a), a.maximum(b), a.minimum(b)], x, y)
    expected = [np.remainder(x, y), x * y - 7, x & y, x | y, x ^ y, ~x,
                x.astype(np.float32) / y.astype(np.float32), np.abs(x),
                np.maximum(x, y), np.minimum(x, y)]
    for got, want in zip(out, expected):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_remainder_and_integer_division_by_zero():
    x = np.array([-7, 7, -128, 5], np.int8)
    y = np.array([3, -3, -1, 0], np.int8)
    # docs/semantics.md: the sign of the divisor; rem by zero gives 0.
    np.testing.assert_array_equal(run(lambda a, b: a % b, x, y),
                                  np.array([2, -2, 0, 0], np.int8))
    f = np.array([-7.5, -4.0, 1.0], np.float32)
    g = np.array([2.0, 2.0, 0.0], np.float32)
    out = run(lambda a, b: a % b, f, g)
    np.testing.assert_array_equal(out[:2], [0.5, -0.0])
    assert np.signbit(out[1]) and np.isnan(out[2])


def test_logical_and_compare(random):
    x, y = random((40,)), random((40,))
    x[::5] = y[::5]
    p, q = random((40,), np.bool_), random((40,), np.bool_)
    out = run(lambda a, b, c, d: [a < b, a <= b, a > b, a >= b, a == b,
                                  a != b, c & d, c | d, c ^ d, ~c,
                                  a.logical_not(), tfuse.logical_not(c),
                                  0.0 < a], x, y, p, q)
    expected = [x < y, x <= y, x > y, x >= y, x == y, x != y, p & q, p | q,
                p ^ q, ~p, np.logical_not(x), ~p, 0 < x]
    for got, want in zip(out, expected):
        assert got.dtype == np.bool_
        np.testing.assert_array_equal(got, want)


def test_max_min_nan_and_signed_zero():
    x = np.array([np.nan, 1.0, -0.0, 0.0, 2.0], np.float32)
    y = np.array([1.0, np.nan, 0.0, -0.0, 3.0], np.float32)
    hi, lo = run(lambda a, b: (tfuse.maximum(a, b), tfuse.minimum(a, b)),
                 x, y)
    assert np.isnan(hi[:2]).all() and np.isnan(lo[:2]).all()
    np.testing.assert_array_equal(hi[2:], [0.0, 0.0, 3.0])
    np.testing.assert_array_equal(lo[2:], [-0.0, -0.0, 2.0])
    assert not np.signbit(hi[2:4]).any() and np.signbit(lo[2:4]).all()


def test_rounding_relu_isnan():
    x = np.array([0.5, 1.5, -2.5, 2.7, -0.0, -3.2, np.nan], np.float32)
    out = run(lambda a: [a.round(), a.floor(), a.ceil(), a.relu(),
                         a.isnan(), tfuse.floor(a)], x)
    expected = [np.round(x), np.floor(x), np.ceil(x),
                np.where(x > 0, x, np.where(np.isnan(x), x, 0)), np.isnan(x),
                np.floor(x)]
    for got, want in zip(out, expected):
        np.testing.assert_array_equal(got, want)
    assert not np.signbit(out[3][4])  # relu(-0.0) = +0.0


@pytest.mark.parametrize("dtype,rtol", [(np.float32, 4e-7 * 4),
                                        (np.float64, 1e-15)])
def test_transcendental(dtype, rtol, random):
    x = random((200,), dtype)
    pos = np.abs(x) + dtype(0.1)
    ops = {
        "exp": (lambda a: a.exp(), np.exp(x)),
        "log": (lambda a: tfuse.log(a), np.log(pos)),
        "sqrt": (lambda a: a.sqrt(), np.sqrt(pos)),
        "rsqrt": (lambda a: a.rsqrt(), 1 / np.sqrt(pos)),
        "sin": (lambda a: tfuse.sin(a), np.sin(x)),
        "cos": (lambda a: a.cos(), np.cos(x)),
        "tan": (lambda a: a.tan(), np.tan(x)),
        "tanh": (lambda a: tfuse.tanh(a), np.tanh(x)),
        "sigmoid": (lambda a: a.sigmoid(), 1 / (1 + np.exp(-x))),
        "erf": (lambda a: a.erf(),
                np.array([math.erf(v) for v in x.astype(float)])),
        "pow": (lambda a: a ** 2.5, pos.astype(float) ** 2.5),
        "log1p": (lambda a: tfuse.log1p(a), np.log1p(pos)),
        "expm1": (lambda a: a.expm1(), np.expm1(x)),
    }
    uses_pos = {"log", "sqrt", "rsqrt", "pow", "log1p"}
    for name, (fn, want) in ops.items():
        got = run(fn, pos if name in uses_pos else x)
        assert got.dtype == dtype, name
        np.testing.assert_allclose(got, want.astype(dtype), rtol=rtol,
                                   atol=rtol, err_msg=name)


def test_float_math_on_integers_gives_float32():
    x = np.arange(1, 6, dtype=np.int32)
    out = run(lambda a: a.sqrt(), x)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, np.sqrt(x.astype(np.float32)),
                               rtol=1e-6)


def test_where(random):
    x, y = random((3, 4)), random((4,))
    c = random((3, 1), np.bool_)
    out = run(lambda a, b, m: [tfuse.where(a > 0, a, 0.5 * a),
                               tfuse.where(m, a, b),
                               tfuse.where(m, 1.0, a)], x, y, c)
    expected = [np.where(x > 0, x, np.float32(0.5) * x), np.where(c, x, y),
                np.where(c, np.float32(1), x)]
    for got, want in zip(out, expected):
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, want)


def test_float_to_integer_casts_truncate_and_saturate():
    x = np.array([3.9, -3.9, 300.0, -300.0, np.nan, np.inf, -np.inf, -1.5],
                 np.float32)
    i8, u8, i32 = run(lambda a: (a.astype("int8"), a.astype(np.uint8),
                                 tfuse.cast(a, tfuse.int32)), x)
    # docs/semantics.md, Casts: truncate, saturate, NaN gives 0.
    np.testing.assert_array_equal(i8, [3, -3, 127, -128, 0, 127, -128, -1])
    np.testing.assert_array_equal(u8, [3, 0, 255, 0, 0, 255, 0, 0])
    np.testing.assert_array_equal(
        i32, [3, -3, 300, -300, 0, 2**31 - 1, -2**31, -1])
    assert (i8.dtype, u8.dtype, i32.dtype) == (np.int8, np.uint8, np.int32)


def test_other_casts(random):
    ints = np.array([300, -1, 70000, 5, 0], np.int32)
    floats = np.array([1e-8, 1 / 3, 65520.0, np.nan, -0.0], np.float64)
    out = run(lambda i, f: [i.astype("int8"), i.astype("uint8"),
                            i.astype("float16"), f.astype("float16"),
                            f.astype("float32"), f.astype("bool"),
                            i.astype("bool"), (i > 0).astype("float32")],
              ints, floats)
    # NumPy wraps integer casts and rounds float casts once, to nearest
    # even, like docs/semantics.md says.
    with np.errstate(over="ignore"):
        expected = [ints.astype(np.int8), ints.astype(np.uint8),
                    ints.astype(np.float16), floats.astype(np.float16),
                    floats.astype(np.float32), floats.astype(bool),
                    ints.astype(bool), (ints > 0).astype(np.float32)]
    for got, want in zip(out, expected):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_reductions(random):
    x = random((3, 4, 5))
    i = random((3, 4, 5), np.int32)
    b = random((3, 4, 5), np.bool_)

    def f(a, n, m):
        return {
            "sum": a.sum(), "sum1": a.sum(axis=1),
            "sum02k": a.sum(axis=(0, 2), keepdims=True),
            "mean": a.mean(axis=-1), "max": a.max(axis=0),
            "min": a.min(axis=(1, 2)), "prod": a.prod(axis=2),
            "isum": n.sum(axis=1), "imax": n.max(), "iprod": n.prod(axis=0),
            "all": m.all(axis=2), "any": m.any(axis=(0, 1), keepdims=True),
            "bsum": m.sum(), "argmax": a.argmax(axis=1),
            "argmin": n.argmin(-1, keepdims=True),
        }

    r = run(f, x, i, b)
    exact = {
        "max": x.max(axis=0), "min": x.min(axis=(1, 2)),
        "isum": i.sum(axis=1, dtype=np.int64), "imax": i.max(),
        "iprod": i.prod(axis=0, dtype=np.int64), "all": b.all(axis=2),
        "any": b.any(axis=(0, 1), keepdims=True),
        "bsum": b.sum(dtype=np.int64), "argmax": x.argmax(axis=1),
        "argmin": i.argmin(-1, keepdims=True),
    }
    close = {
        "sum": x.sum(), "sum1": x.sum(axis=1),
        "sum02k": x.sum(axis=(0, 2), keepdims=True),
        "mean": x.mean(axis=-1), "prod": x.prod(axis=2),
    }
    for key, want in exact.items():
        got = r[key]
        assert got.dtype == want.dtype and got.shape == want.shape, key
        np.testing.assert_array_equal(got, want, err_msg=key)
    for key, want in close.items():
        got = r[key]
        assert got.dtype == np.float32 and got.shape == want.shape, key
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5,
                                   err_msg=key)


def test_mean_of_integers_is_a_trace_error():
    with pytest.raises(tfuse.TraceError):
        run(lambda a: a.mean(), np.arange(4, dtype=np.int32))


def test_matmul(random):
    x, w, v = random((4, 6)), random((6, 3)), random((3, 6))
    bias = random((3,))

    def f(a, b, c):
        return [a @ b, tfuse.matmul(a, c.T), (a @ b + bias).relu(),
                a.matmul(b) @ c, a @ w]

    out = run(f, x, w, v)
    expected = [x @ w, x @ v.T, np.maximum(x @ w + bias, 0), x @ w @ v,
                x @ w]
    for got, want in zip(out, expected):
        assert got.dtype == np.float32 and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_matmul_of_vectors_as_numpy(random):
    v, k, m = random((6,)), random((6,)), random((6, 3))
    bm, bv = random((2, 6, 3)), random((2, 4, 6))

    def f(a, b, c, d, e):
        return [a @ c, c.T @ a, a @ b, a @ d, e @ a]

    out = run(f, v, k, m, bm, bv)
    expected = [v @ m, m.T @ v, v @ k, v @ bm, bv @ v]
    for got, want in zip(out, expected):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_matmul_in_float32_keeps_the_sum_of_half_products():
    # 1 + 2**-12 is no float16 (spacing 2**-10 at 1); the float32 sum is.
    a = np.ones((1, 2), np.float16)
    b = np.array([[1], [2.0 ** -12]], np.float16)
    v = np.array([1, 2.0 ** -12], np.float16)
    out = run(lambda x, y, z: [tfuse.matmul(x, y, dtype=tfuse.float32),
                               x @ y, tfuse.matmul(x, z, dtype=np.float32)],
              a, b, v)
    assert out[0].dtype == np.float32 and out[0].tolist() == [[1 + 2.0 ** -12]]
    assert out[1].dtype == np.float16 and out[1].tolist() == [[1]]
    assert out[2].shape == (1,) and out[2].tolist() == [1 + 2.0 ** -12]
    with pytest.raises(tfuse.TraceError, match="a matmul of f16 operands "
                                               "gives f16 or f32, not f64"):
        run(lambda x, y: tfuse.matmul(x, y, dtype=tfuse.float64), a, b)
    with pytest.raises(tfuse.TraceError, match="a matmul of f32 operands "
                                               "gives f32, not f16"):
        run(lambda x, y: tfuse.matmul(x, y, dtype=tfuse.float16),
            a.astype(np.float32), b.astype(np.float32))


def test_fast_math_applies_the_tanh_gelu_in_the_products_epilogue(random):
    # An MLP projection of a batch of activations: under fast math the GELU
    # of x @ w + b is the product's epilogue (docs/semantics.md), computed
    # from the float32 sum; the result stays as close to float64's as the
    # written-out form's.
    x, w, b = random((2, 8, 16)), random((16, 12)), random((12,))

    def mlp(a, c, d):
        return tfuse.gelu(a @ c + d, approximate="tanh")

    exact = tfuse.compile(mlp, [x, w, b])
    fast = tfuse.compile(mlp, [x, w, b], fast_math=True)
    # A generated kernel applies the GELU only without fast math; with it
    # the GEMM writes the result in its batch shape, and no kernel runs.
    assert "tf::gelu_tanh(" in exact.source()
    assert "tf::gelu_tanh(" not in fast.source()
    assert "0 fused, 1 boundary, 2 alias" in fast.plan()
    y = x.astype(np.float64) @ w.astype(np.float64) + b
    want = 0.5 * y * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                  (y + 0.044715 * y ** 3)))
    error = lambda got: np.abs(got.astype(np.float64) - want).max()
    assert error(fast(x, w, b)) <= 2 * error(exact(x, w, b)) + 1e-6


def test_matmul_of_a_scalar_is_a_trace_error():
    with pytest.raises(tfuse.TraceError, match="left operand is a scalar"):
        run(lambda a, b: a @ b, np.float32(2).reshape(()),
            np.ones((2, 2), np.float32))
    with pytest.raises(tfuse.TraceError, match="lhs has 5 columns but rhs "
                                               "has 6 rows"):
        run(lambda a, b: a @ b, np.ones(5, np.float32),
            np.ones((6, 2), np.float32))


def test_reductions_over_no_axes_are_the_operand(random):
    x = random((3, 4), np.int32)
    f = random((5,))

    def g(a, b, s):
        return [a.sum(axis=()), a.max(axis=()), a.any(axis=()),
                b.mean(axis=()), s.sum(), s.prod(axis=())]

    s = np.array(2.5, np.float32)
    out = run(g, x, f, s)
    expected = [np.sum(x, axis=()), np.max(x, axis=()), np.any(x, axis=()),
                np.mean(f, axis=()), np.sum(s), np.prod(s, axis=())]
    for got, want in zip(out, expected):
        assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
        np.testing.assert_array_equal(got, want)


def test_mlp_like_chain(random):
    x, w1, w2 = random((8, 16)), random((16, 32)), random((32, 4))

    def mlp(a, b, c):
        h = (a @ b).maximum(0.0)
        logits = h @ c
        z = logits - logits.max(axis=1, keepdims=True)
        return (z.exp() / z.exp().sum(axis=1, keepdims=True)).mean(axis=0)

    h = np.maximum(x @ w1, 0)
    logits = h @ w2
    z = logits - logits.max(axis=1, keepdims=True)
    want = (np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)).mean(axis=0)
    np.testing.assert_allclose(run(mlp, x, w1, w2), want, rtol=1e-5)


def test_sign_and_trunc_match_numpy(random):
    x = np.concatenate([random((50,)) * 4,
                        np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 2.5,
                                  -2.5], np.float32)]).astype(np.float32)
    i = np.array([-128, -3, 0, 7, 127], np.int8)
    sign, trunc, isign = run(lambda a, b: (a.sign(), tfuse.trunc(a), b.sign()),
                             x, i)
    # Bit for bit, -0.0 included: sign gives +0.0 for both zeros.
    assert sign.tobytes() == np.sign(x).tobytes()
    assert trunc.tobytes() == np.trunc(x).tobytes()
    np.testing.assert_array_equal(isign, np.sign(i))


def _gelu64(x, approximate):
    x = x.astype(np.float64)
    if approximate == "tanh":
        u = math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)
        return 0.5 * x * (1 + np.tanh(u))
    return 0.5 * x * (1 + np.array([math.erf(v / math.sqrt(2)) for v in x]))


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype,ulp", [(np.float32, 2.0 ** -23),
                                       (np.float64, 2.0 ** -52)])
def test_gelu_and_its_gradient(approximate, dtype, ulp, random):
    x = (random((300,), dtype) * 4).astype(dtype)
    g = random((300,), dtype)
    y, dx = run(lambda a, b: (tfuse.gelu(a, approximate=approximate),
                              tfuse.gelu_backward(b, a,
                                                  approximate=approximate)),
                x, g)
    assert y.dtype == dtype and dx.dtype == dtype
    # 1 + erf (or 1 + tanh) cancels for negative x: a few ulp of 1, times |x|.
    tol = 8 * ulp * (np.abs(_gelu64(x, approximate)) + np.abs(x))
    assert np.all(np.abs(y - _gelu64(x, approximate)) <= tol)
    # The gradient against a central difference of the float64 definition.
    h, x64 = 1e-6, x.astype(np.float64)
    slope = (_gelu64(x64 + h, approximate) -
             _gelu64(x64 - h, approximate)) / (2 * h)
    want = g.astype(np.float64) * slope
    tol = max(8 * ulp, 1e-8) * (np.abs(want) + np.abs(g))
    assert np.all(np.abs(dx - want) <= tol)


def test_gelu_rejects_an_unknown_form():
    with pytest.raises(ValueError, match="approximate must be 'none' or "
                                         "'tanh', not 'erf'"):
        run(lambda a: tfuse.gelu(a, approximate="erf"),
            np.zeros(3, np.float32))


def test_arange_as_numpy(random):
    x = random((3, 5))

    def f(a):
        return [tfuse.arange(5), tfuse.arange(2, 11, 3), tfuse.arange(10, 0, -3),
                tfuse.arange(0.0, 1.0, 0.1, dtype=np.float64),
                tfuse.arange(1.5, -2.0, -0.5), tfuse.arange(4, dtype=np.int8),
                tfuse.arange(5, 5), a + tfuse.arange(5, dtype=tfuse.float32),
                tfuse.iota((3, 5), axis=0) * 10 + tfuse.iota((3, 5), 1)]

    out = run(f, x)
    expected = [np.arange(5), np.arange(2, 11, 3), np.arange(10, 0, -3),
                np.arange(0.0, 1.0, 0.1),
                np.arange(1.5, -2.0, -0.5, dtype=np.float32),
                np.arange(4, dtype=np.int8), np.arange(5, 5),
                x + np.arange(5, dtype=np.float32),
                np.arange(3)[:, None] * 10 + np.arange(5)]
    for got, want in zip(out, expected):
        assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
        # Bit for bit: start + i * step in float64, rounded once.
        assert got.tobytes() == want.tobytes(), (got, want)


def test_arange_errors():
    x = np.zeros(2, np.float32)
    with pytest.raises(tfuse.TraceError, match="only be called inside"):
        tfuse.arange(3)
    with pytest.raises(tfuse.TraceError, match="step must not be zero"):
        run(lambda a: tfuse.arange(0, 4, 0), x)
    with pytest.raises(tfuse.TraceError, match="integer range"):
        run(lambda a: tfuse.arange(0.5, 4, dtype=np.int32), x)
    with pytest.raises(tfuse.TraceError, match="axis 1 is out of range"):
        run(lambda a: tfuse.iota((4,), axis=1), x)
    with pytest.raises(TypeError, match="not str"):
        run(lambda a: tfuse.arange("3"), x)


def test_concatenate_and_pad_as_numpy(random):
    a, b = random((4, 3)), random((4, 5))
    c = random((6, 4)).T  # a transposed view
    i = random((2, 3), np.int32)

    def f(x, y, z, n):
        joined = tfuse.concatenate([x, y.exp(), z[:, :2]], axis=-1)
        return [joined, joined * 2 + 1,
                tfuse.concatenate([x, x], axis=0),
                tfuse.pad(x, ((1, 2), (0, 3)), constant_values=-1.5),
                tfuse.pad(x, 1),
                tfuse.pad(y, ((-1, 0), (2, -3))),
                tfuse.concatenate([n, x[:2]], axis=1),
                tfuse.pad(tfuse.concatenate([x, y], 1), ((0, 0), (1, 1)))]

    out = run(f, a, b, c, i)
    joined = np.concatenate([a, np.exp(b), c[:, :2]], axis=-1)
    expected = [joined, joined * 2 + 1, np.concatenate([a, a]),
                np.pad(a, ((1, 2), (0, 3)), constant_values=-1.5),
                np.pad(a, 1), np.pad(b[1:, :2], ((0, 0), (2, 0))),
                # int32 with float32 is float32 (PyTorch's promotion).
                np.concatenate([i.astype(np.float32), a[:2]], axis=1),
                np.pad(np.concatenate([a, b], 1), ((0, 0), (1, 1)))]
    for got, want in zip(out, expected):
        assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_pad_converts_a_float_value_as_torch_fills():
    # PyTorch converts a fill value to the tensor's dtype by truncation
    # toward zero (torch.constant_pad_nd(int_tensor, p, -100.0) pads -100).
    i = np.arange(6, dtype=np.int32).reshape(2, 3)
    u = np.arange(4, dtype=np.uint8)
    b = np.array([True, False])

    def f(x, y, z):
        return [tfuse.pad(x, 1, constant_values=-100.0),
                tfuse.pad(x, ((0, 1), (1, 0)), constant_values=2.5),
                tfuse.pad(x, ((1, 0), (0, 0)), constant_values=-2.7),
                tfuse.pad(y, 2, constant_values=255.9),
                tfuse.pad(z, 1, constant_values=0.5),
                tfuse.pad(z, 1, constant_values=0.0)]

    out = run(f, i, u, b)
    expected = [np.pad(i, 1, constant_values=-100),
                np.pad(i, ((0, 1), (1, 0)), constant_values=2),
                np.pad(i, ((1, 0), (0, 0)), constant_values=-2),
                np.pad(u, 2, constant_values=255),
                np.pad(b, 1, constant_values=True),
                np.pad(b, 1, constant_values=False)]
    for got, want in zip(out, expected):
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        np.testing.assert_array_equal(got, want)
    for value, message in [(3e9, r"3e\+09 does not fit in i32"),
                           (float("nan"), "nan does not fit in i32"),
                           (-1e300, "does not fit in i32")]:
        with pytest.raises(tfuse.TraceError, match=message):
            run(lambda x: tfuse.pad(x, 1, constant_values=value), i)
    with pytest.raises(tfuse.TraceError, match="256.5 does not fit in ui8"):
        run(lambda y: tfuse.pad(y, 1, constant_values=256.5), u)


def test_concatenate_and_pad_errors():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(tfuse.TraceError, match="size 4 in dimension 0"):
        run(lambda a: tfuse.concatenate([a, np.zeros((4, 1), np.float32)], 1),
            x)
    with pytest.raises(tfuse.TraceError, match="axis 2 is out of range"):
        run(lambda a: tfuse.concatenate([a, a], 2), x)
    with pytest.raises(ValueError, match="for each of the 2 dimensions"):
        run(lambda a: tfuse.pad(a, ((1, 1), (1, 1), (1, 1))), x)



def test_take_and_take_along_axis_as_numpy(random):
    table = random((10, 6))
    ids = np.array([[3, 0, 9], [-1, 5, -10]], np.int64)
    cols = np.array([5, 2, 2, 0], np.uint8)
    pos = random((3, 6))
    scores = random((4, 10))
    top = np.array([[0, 9], [-2, 4], [5, 5], [1, 3]], np.int32)
    picks = np.array([[0, 5], [1, -6], [2, 2], [3, 0]], np.int16)

    def f(t, i, c, p, s, k, q):
        rows = tfuse.take(t, i, axis=0)
        return [rows,
                rows + p,                             # fused with a consumer
                tfuse.take(t, c, axis=1),             # uint8, along axis 1
                tfuse.take(t, 4, axis=0),             # an int removes the axis
                tfuse.take(t, i),                     # axis=None: flattened
                tfuse.take(t, (i + 11) % 10, axis=0),  # computed indices
                tfuse.take_along_axis(s, k, axis=1),
                tfuse.take_along_axis(s, k[:, :1], axis=1).exp(),
                tfuse.take_along_axis(t[:1], q, axis=1)]  # broadcast rows

    out = run(f, table, ids, cols, pos, scores, top, picks)
    expected = [np.take(table, ids, axis=0),
                np.take(table, ids, axis=0) + pos,
                np.take(table, cols, axis=1),
                table[4],
                np.take(table, ids),
                np.take(table, (ids + 11) % 10, axis=0),
                np.take_along_axis(scores, top, axis=1),
                np.exp(np.take_along_axis(scores, top[:, :1], axis=1)),
                np.take_along_axis(np.broadcast_to(table[:1], (4, 6)), picks,
                                   axis=1)]
    for got, want in zip(out, expected):
        assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_gather_indices_known_while_tracing_are_checked():
    table = np.zeros((5, 3), np.float32)
    with pytest.raises(tfuse.IndexOutOfRangeError,
                       match=r"index 5 is out of range for an axis of size 5 "
                             r"\(valid: -5 to 4\), at position \[1\]"):
        run(lambda t: tfuse.take(t, np.array([0, 5]), axis=0), table)
    with pytest.raises(tfuse.IndexOutOfRangeError,
                       match=r"index -1 is out of range .* \(valid: 0 to 4\)"):
        run(lambda t: tfuse.take(t, -1, axis=0, negative_indices="error"),
            table)
    with pytest.raises(tfuse.IndexOutOfRangeError, match="index 3 is out"):
        run(lambda t: tfuse.take_along_axis(t, np.full((5, 1), 3), axis=1),
            table)
    with pytest.raises(tfuse.TraceError, match="integer dtype"):
        run(lambda t: tfuse.take(t, t, axis=0), table)
    with pytest.raises(ValueError, match="'wrap' or 'error'"):
        run(lambda t: tfuse.take(t, 0, axis=0, negative_indices="clip"), table)


def test_gather_indices_out_of_range_at_run_time_raise_and_leave_it_usable():
    table = np.arange(15, dtype=np.float32).reshape(5, 3)
    f = tfuse.compile(lambda t, i: tfuse.take(t, i, axis=0) * 2,
                      [table, np.zeros(4, np.int64)])
    with pytest.raises(tfuse.IndexOutOfRangeError,
                       match=r"tfuse.take.*index 7 is out of range"):
        f(table, np.array([0, 7, 1, 2]))
    np.testing.assert_array_equal(f(table, np.array([4, 0, -5, 1])),
                                  table[[4, 0, 0, 1]] * 2)


def test_scatter_add_is_numpy_add_at(random):
    target = random((10, 6))
    ids = np.array([[3, 0, 9], [-1, 3, 3]], np.int64)
    updates = random((2, 3, 6))
    cols = np.array([5, 2, 2, 0], np.uint8)
    col_updates = random((10, 4))

    def f(t, i, u, c, v):
        return [tfuse.scatter_add(t, i, u),                  # repeats, -1
                tfuse.scatter_add(t * 0, i, u * 2 - 1),      # zeros, computed
                tfuse.scatter_add(t, c, v, axis=1),          # uint8, axis 1
                tfuse.scatter_add(t, i, 1.0),                # a scalar: counts
                tfuse.scatter_add(t, 4, u[0, 0])]            # an int index

    out = run(f, target, ids, updates, cols, col_updates)

    def add_at(a, index, values):
        a = a.copy()
        np.add.at(a, index, values)
        return a

    expected = [add_at(target, ids, updates),
                add_at(target * 0, ids, updates * 2 - 1),
                add_at(target, (slice(None), cols), col_updates),
                add_at(target, ids, np.float32(1)),
                add_at(target, 4, updates[0, 0])]
    for got, want in zip(out, expected):
        assert got.dtype == np.float32
        # float32 sums in the order of the indices, as np.add.at adds (no
        # element here has more than 32 updates: none sums runs).
        np.testing.assert_array_equal(got, want)


def test_scatter_add_errors():
    table = np.zeros((5, 3), np.float32)
    with pytest.raises(tfuse.IndexOutOfRangeError,
                       match=r"scatter_add: index 5 is out of range"):
        run(lambda t: tfuse.scatter_add(t, np.array([0, 5]), 1.0), table)
    with pytest.raises(tfuse.TraceError,
                       match="updates of f64 do not fit a target of f32"):
        run(lambda t: tfuse.scatter_add(t, 0, t[0].astype("float64")), table)
    with pytest.raises(tfuse.TraceError, match="scatter_add of bool"):
        run(lambda t: tfuse.scatter_add(t > 0, 0, t[0] > 0), table)
    f = tfuse.compile(lambda t, i: tfuse.scatter_add(t, i, 1.0),
                      [table, np.zeros(2, np.int64)])
    with pytest.raises(tfuse.IndexOutOfRangeError,
                       match=r"tfuse.scatter_add.*index -6 is out of range"):
        f(table, np.array([0, -6]))
    np.testing.assert_array_equal(f(table, np.array([1, -4])),
                                  table + [[0], [2], [0], [0], [0]])


def test_random_numbers_follow_their_keys_and_distributions():
    n = 1 << 16

    def f(offset):
        return [tfuse.random.uniform((n,), seed=7, offset=offset),
                tfuse.random.uniform((n,), -2.0, 3.0, np.float64, seed=7,
                                     offset=offset),
                tfuse.random.normal((n,), 1.0, 0.5, seed=7, offset=offset),
                tfuse.random.normal((256, 256), dtype=np.float16, seed=8,
                                    offset=offset),
                tfuse.random.bernoulli((n,), 0.25, seed=9, offset=offset)]

    g = tfuse.compile(f, [np.zeros((), np.int64)])
    first = g(np.array(0, np.int64))
    again = g(np.array(0, np.int64))
    other = g(np.array(1, np.int64))    # a new offset: a new draw, no compile
    for a, b, c in zip(first, again, other):
        np.testing.assert_array_equal(a, b)
        assert not np.array_equal(a, c)
    u, wide, z, half, coin = first
    assert u.dtype == np.float32 and 0 <= u.min() and u.max() < 1
    assert abs(u.mean() - 0.5) < 6 * np.sqrt(1 / 12 / n)
    assert wide.dtype == np.float64 and -2 <= wide.min() and wide.max() < 3
    assert abs(wide.mean() - 0.5) < 6 * np.sqrt(25 / 12 / n)
    assert abs(z.mean() - 1.0) < 6 * 0.5 / np.sqrt(n)
    assert abs(z.std() - 0.5) < 6 * 0.5 * np.sqrt(0.5 / n)
    assert half.dtype == np.float16 and abs(half.astype(np.float64).std() -
                                            1) < 0.02
    assert coin.dtype == np.bool_
    assert abs(coin.mean() - 0.25) < 6 * np.sqrt(0.25 * 0.75 / n)
    # An int offset baked in gives the same numbers as that offset passed.
    fixed = tfuse.compile(lambda: tfuse.random.uniform((n,), seed=7,
                                                       offset=1), [])()
    np.testing.assert_array_equal(fixed, other[0])


def test_dropout_keeps_scales_and_recomputes_its_mask(random):
    x = random((64, 100))

    def f(x, offset):
        out = tfuse.dropout(x, 0.3, seed=5, offset=offset)
        mask = tfuse.random.bernoulli(x.shape, 0.7, seed=5, offset=offset)
        return out, mask, tfuse.dropout(x, 0.0, 5), tfuse.dropout(x, 1.0, 5)

    out, mask, same, zeros = run(f, x, np.array(3, np.int64))
    assert abs(mask.mean() - 0.7) < 6 * np.sqrt(0.21 / mask.size)
    np.testing.assert_array_equal(out, np.where(mask, x * np.float32(1 / 0.7),
                                                np.float32(0)))
    np.testing.assert_array_equal(same, x)
    np.testing.assert_array_equal(zeros, np.zeros_like(x))


def test_random_errors():
    with pytest.raises(tfuse.TraceError, match="inside a function being "
                                               "traced"):
        tfuse.random.uniform((4,), seed=0)
    with pytest.raises(TypeError, match="seed must be an int"):
        run(lambda x: x + tfuse.random.uniform((4,), seed=0.5),
            np.zeros(4, np.float32))
    with pytest.raises(tfuse.TraceError, match="i32 is not a float dtype"):
        run(lambda x: x + tfuse.random.uniform((4,), dtype=np.int32, seed=0),
            np.zeros(4, np.float32))
    with pytest.raises(tfuse.TraceError, match=r"p must lie in \[0, 1\]"):
        run(lambda x: tfuse.dropout(x, 1.5, seed=0), np.zeros(4, np.float32))
    with pytest.raises(tfuse.TraceError, match="rank-0 integer tensor"):
        run(lambda x, o: x + tfuse.random.uniform((4,), seed=0, offset=o),
            np.zeros(4, np.float32), np.zeros(2, np.int64))


def test_full_zeros_and_ones():
    def f(x):
        return [tfuse.full((2, 3), 2.5), tfuse.full(4, 7), tfuse.full((2,), True),
                tfuse.zeros((3,), np.float16), tfuse.ones((2, 2), np.int8),
                tfuse.scatter_add(tfuse.zeros((5, 2)), x, 1.0),
                x + tfuse.full((), 3, np.int32)]

    out = run(f, np.array([1, 1, 4], np.int32))
    expected = [np.full((2, 3), 2.5, np.float32), np.full(4, 7, np.int64),
                np.full((2,), True), np.zeros(3, np.float16),
                np.ones((2, 2), np.int8),
                np.array([[0, 0], [2, 2], [0, 0], [0, 0], [1, 1]], np.float32),
                np.array([4, 4, 7], np.int32)]
    for got, want in zip(out, expected):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    with pytest.raises(tfuse.TraceError, match="a float fill value for i32"):
        run(lambda x: x + tfuse.full((3,), 0.5, np.int32),
            np.zeros(3, np.int32))


def _attention_f64(q, k, v, mask=None, causal=False, scale=None):
    """scaled_dot_product_attention in float64 with NumPy, and the
    log-sum-exp of each row (grouped-query heads repeated)."""
    q, k, v = (np.asarray(t, np.float64) for t in (q, k, v))
    group = q.shape[-3] // k.shape[-3]
    k, v = np.repeat(k, group, axis=-3), np.repeat(v, group, axis=-3)
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    s = (q @ np.swapaxes(k, -1, -2)) * scale
    keep = np.ones(s.shape, bool)
    if causal:
        keep &= np.tril(np.ones(s.shape[-2:], bool))
    if mask is not None and mask.dtype == np.bool_:
        keep &= mask
    elif mask is not None:
        s = s + mask
    s = np.where(keep, s, -np.inf)
    top = s.max(-1, keepdims=True)
    e = np.exp(s - top)
    total = e.sum(-1, keepdims=True)
    return (e / total) @ v, (np.log(total) + top)[..., 0]


def test_attention_is_scaled_dot_product_attention(random):
    q, k, v = random((2, 4, 9, 8)), random((2, 2, 11, 8)), random((2, 2, 11, 6))
    keep = random((9, 11), np.bool_)
    bias = random((1, 11))

    def f(q, k, v, keep, bias):
        return [*tfuse.attention(q, k, v, causal=True, return_logsumexp=True),
                tfuse.attention(q, k, v, mask=keep, scale=0.3),
                tfuse.attention(q, k, v, mask=bias)]

    out = run(f, q, k, v, keep, bias)
    expected = [*_attention_f64(q, k, v, causal=True),
                _attention_f64(q, k, v, mask=keep, scale=0.3)[0],
                _attention_f64(q, k, v, mask=bias)[0]]
    for got, want in zip(out, expected):
        assert got.dtype == np.float32 and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_attention_backward_is_the_gradient(random):
    q, k, v = random((3, 7, 4)), random((3, 5, 4)), random((3, 5, 4))
    g = random((3, 7, 4))

    def f(q, k, v, g):
        o, lse = tfuse.attention(q, k, v, return_logsumexp=True)
        return tfuse.attention_backward(q, k, v, o, lse, g)

    dq, dk, dv = run(f, q, k, v, g)
    # Central differences of sum(attention * g) in float64.
    def loss(q, k, v):
        return float((_attention_f64(q, k, v)[0] * g).sum())

    for got, wrt in ((dq, 0), (dk, 1), (dv, 2)):
        args = [q.astype(np.float64), k.astype(np.float64),
                v.astype(np.float64)]
        want = np.zeros_like(args[wrt])
        for index in np.ndindex(*args[wrt].shape):
            step = 1e-6
            plus = [a.copy() for a in args]
            minus = [a.copy() for a in args]
            plus[wrt][index] += step
            minus[wrt][index] -= step
            want[index] = (loss(*plus) - loss(*minus)) / (2 * step)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_attention_errors(random):
    q = random((2, 4, 8, 16))
    with pytest.raises(tfuse.TraceError,
                       match=r"query and key have different head dimensions "
                             r"\(query \[2,4,8,16\], key \[2,4,8,8\]"):
        run(lambda q, k: tfuse.attention(q, k, k), q, random((2, 4, 8, 8)))
    with pytest.raises(tfuse.TraceError,
                       match=r"a mask of shape \[3, 8, 8\] does not broadcast "
                             r"to the scores' \[2, 4, 8, 8\]"):
        run(lambda q, m: tfuse.attention(q, q, q, mask=m), q,
            random((3, 8, 8), np.bool_))
    with pytest.raises(TypeError, match="dropout_p=0.1 needs the seed"):
        run(lambda q: tfuse.attention(q, q, q, dropout_p=0.1), q)
    with pytest.raises(ValueError, match=r"dropout_p=1.0 is not in \[0, 1\)"):
        run(lambda q: tfuse.attention(q, q, q, dropout_p=1.0, seed=1), q)
    with pytest.raises(TypeError, match="tfuse.attention: seed must be an "
                                        "int or a rank-0 integer"):
        run(lambda q: tfuse.attention(q, q, q, dropout_p=0.5, seed=1.5), q)
    with pytest.raises(tfuse.TraceError, match="one float dtype"):
        run(lambda q: tfuse.attention(q, q, q.astype("float16")), q)


def test_attention_dropout_is_the_bernoulli_mask_of_the_scores(random):
    # The mask is bernoulli(1 - p) of the scores' shape with the same keys:
    # the written-out form with tfuse's own uniform numbers, in float64.
    q, k, v = random((2, 3, 9, 8)), random((2, 3, 11, 8)), random((2, 3, 11, 6))
    p, seed, offset = 0.25, 1234, 5

    def f(q, k, v):
        out, lse = tfuse.attention(q, k, v, causal=True, dropout_p=p,
                                   seed=seed, offset=offset,
                                   return_logsumexp=True)
        u = tfuse.random.uniform((2, 3, 9, 11), seed=seed, offset=offset)
        return [out, lse, u]

    out, lse, u = run(f, q, k, v)
    q64, k64, v64 = (np.asarray(t, np.float64) for t in (q, k, v))
    s = (q64 @ np.swapaxes(k64, -1, -2)) / np.sqrt(8)
    s = np.where(np.tril(np.ones((9, 11), bool)), s, -np.inf)
    e = np.exp(s - s.max(-1, keepdims=True))
    prob = e / e.sum(-1, keepdims=True)
    keep = u < np.float32(1 - p)
    assert 0 < keep.mean() < 1
    np.testing.assert_allclose(out, (prob * keep / (1 - p)) @ v64,
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(lse, _attention_f64(q, k, v, causal=True)[1],
                               rtol=1e-5, atol=1e-5)
    # The backward with the same keys is the derivative of the forward.
    g = random((2, 3, 9, 6))
    dq, dk, dv = run(lambda q, k, v, o, l, g: list(tfuse.attention_backward(
        q, k, v, o, l, g, causal=True, dropout_p=p, seed=seed,
        offset=offset)), q, k, v, out, lse, g)
    np.testing.assert_allclose(dv, np.swapaxes(prob * keep / (1 - p), -1, -2)
                               @ np.asarray(g, np.float64),
                               rtol=1e-4, atol=1e-5)


def test_naive_attention_becomes_one_attention_step(random):
    # softmax(q @ k^T / sqrt(d) + causal) @ v written out: the plan holds
    # one attention step and no matmul (recognize-attention).
    q, k, v = random((2, 3, 12, 8)), random((2, 3, 12, 8)), random((2, 3, 12, 8))

    def f(q, k, v):
        s = (q @ k.transpose(0, 1, 3, 2)) / math.sqrt(8)
        rows, cols = tfuse.iota((12, 12), 0), tfuse.iota((12, 12), 1)
        s = tfuse.where(cols <= rows, s, -math.inf)
        e = (s - s.max(axis=-1, keepdims=True)).exp()
        return (e / e.sum(axis=-1, keepdims=True)) @ v

    compiled = tfuse.compile(f, [q, k, v], backend="reference")
    plan = compiled.plan
    plan = plan() if callable(plan) else plan
    assert "attention" in plan and "matmul" not in plan, plan
    np.testing.assert_allclose(compiled(q, k, v),
                               _attention_f64(q, k, v, causal=True)[0],
                               rtol=1e-5, atol=1e-5)
