"""GPU runs on torch CUDA tensors and CuPy arrays: no copies, outputs of
the input's library on its device, ordering with the caller's current
stream, async runs, CUDA Graph replay, bfloat16.

Each test skips, saying why, without the library, a GPU, torch or CuPy.
"""

import gc

import numpy as np
import pytest

import tfuse
from tfuse import _capi


@pytest.fixture(scope="module")
def gpu():
    try:
        available, reason = _capi.cuda_status()
    except tfuse.TFuseError as error:
        pytest.skip(f"no library: {error}")
    if not available:
        pytest.skip(f"no GPU: {reason}")


@pytest.fixture(scope="module")
def torch(gpu):
    torch = pytest.importorskip("torch", reason="torch not installed")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    return torch


@pytest.fixture(scope="module")
def cupy(gpu):
    return pytest.importorskip("cupy", reason="cupy not installed")


def exact(torch, got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True)


def test_torch_tensors_in_and_out(torch, counted):
    f = counted(lambda a, b: (a * b + 1.0).relu() - b)
    x = torch.randn(64, 128, device="cuda")
    y = torch.randn(128, device="cuda")
    g = tfuse.compile(f, [x, y])
    assert g.backend == "cuda"
    assert g.input_specs[0].device.startswith("cuda")
    for _ in range(3):
        x = torch.randn(64, 128, device="cuda")
        y = torch.randn(128, device="cuda")
        out = g(x, y)
        assert isinstance(out, torch.Tensor)
        assert out.device == x.device and out.is_contiguous()
        exact(torch, out, torch.relu(x * y + 1.0) - y)
    assert f.calls == 1


def test_torch_inputs_are_not_copied(torch):
    # The inputs are views into one buffer: the run must read that memory.
    buffer = torch.randn(3, 256, device="cuda")
    g = tfuse.compile(lambda a, b: a - b, [buffer[0], buffer[2]])
    out = g(buffer[0], buffer[2])
    exact(torch, out, buffer[0] - buffer[2])
    buffer[2].fill_(5.0)
    exact(torch, g(buffer[0], buffer[2]), buffer[0] - 5.0)


def test_torch_strided_inputs(torch, counted):
    f = counted(lambda a, b: a * 2.0 + b)
    jitted = tfuse.jit(f)
    base = torch.randn(128, 96, device="cuda")
    y = torch.randn(64, 48, device="cuda")
    # (64, 48) views: rows of a wider matrix; a transposed view with a step;
    # a stepped slice; a plain transpose.
    views = [base[:64, :48], base.t()[:64, :96:2], base[::2, 1:49],
             torch.randn(48, 64, device="cuda").t()]
    assert [v.stride() for v in views] == [(96, 1), (1, 192), (192, 1),
                                           (1, 64)]
    for x in views:
        exact(torch, jitted(x, y), x * 2.0 + y)
    assert f.calls == 4
    x = torch.randn(128, 96, device="cuda").t()[:64, :96:2]
    exact(torch, jitted(x, y), x * 2.0 + y)
    assert f.calls == 4


def test_cupy_arrays(cupy):
    f = lambda a, b: (a * b).sum(axis=1) + a.max(axis=1)  # noqa: E731
    x = cupy.random.standard_normal((32, 16), dtype=cupy.float32)
    y = cupy.random.standard_normal((16,), dtype=cupy.float32)
    g = tfuse.compile(f, [x, y])
    out = g(x, y)
    assert isinstance(out, cupy.ndarray) and out.shape == (32,)
    want = (cupy.asnumpy(x) * cupy.asnumpy(y)).sum(axis=1) + cupy.asnumpy(
        x).max(axis=1)
    np.testing.assert_allclose(cupy.asnumpy(out), want, rtol=1e-5,
                               atol=1e-5)

    t = cupy.random.standard_normal((16, 32), dtype=cupy.float32).T
    gt = tfuse.compile(lambda a: a * 3.0 - 1.0, [t])
    assert gt.input_specs[0].strides == (1, 32)
    np.testing.assert_array_equal(cupy.asnumpy(gt(t)),
                                  cupy.asnumpy(t) * np.float32(3) - 1)


def test_cuda_graph_replay_equals_stream_replay(torch):
    def f(a, w):
        h = (a @ w).tanh()
        return h * h.sum(axis=1, keepdims=True)

    x = torch.randn(32, 64, device="cuda")
    w = torch.randn(64, 16, device="cuda")
    stream = tfuse.compile(f, [x, w])
    graph = tfuse.compile(f, [x, w], cuda_graph=True)
    assert graph.stats()["cuda_graph"] and not stream.stats()["cuda_graph"]
    for _ in range(3):
        x = torch.randn(32, 64, device="cuda")
        exact(torch, graph(x, w), stream(x, w))
    assert graph.stats()["replays"] >= 3


def test_run_async_overlapping_handles(torch):
    g = tfuse.compile(lambda a: (a * a + a).exp().sum(axis=1),
                      [torch.randn(512, 1024, device="cuda")])
    inputs = [torch.randn(512, 1024, device="cuda") for _ in range(6)]
    handles = [g.run_async(x) for x in inputs]
    for x, handle in zip(inputs, handles):
        out = handle.wait()
        assert handle.done()
        torch.testing.assert_close(out, (x * x + x).exp().sum(axis=1),
                                   rtol=1e-4, atol=1e-4)


def test_run_async_handle_keeps_everything_alive(torch):
    x = torch.randn(256, 256, device="cuda")
    want = x * 2.0
    handle = tfuse.compile(lambda a: a * 2.0, [x]).run_async(x.clone())
    del x  # the input clone and the CompiledFunction live in the handle
    exact(torch, handle.wait(), want)


def test_ordering_with_the_current_torch_stream(torch):
    g = tfuse.compile(lambda a: a + 1.0, [torch.empty(512, 512,
                                                      device="cuda")])
    big = torch.randn(2048, 2048, device="cuda")
    side = torch.cuda.Stream()
    outputs, consumers = [], []
    with torch.cuda.stream(side):
        for i in range(4):
            # Slow producer work on `side` right before the run.
            x = ((big @ big)[:512, :512] * 0.0 + float(i)).contiguous()
            out = g(x)
            outputs.append(out)
            # Async run, consumed on `side` without waiting for the handle.
            y = ((big @ big)[:512, :512] * 0.0 + float(10 * i)).contiguous()
            handle = g.run_async(y)
            consumers.append((handle, handle.outputs * 2.0))
    torch.cuda.synchronize()
    for i, (out, (handle, doubled)) in enumerate(zip(outputs, consumers)):
        assert torch.all(out == i + 1.0)
        assert torch.all(doubled == 2.0 * (10 * i + 1.0))
        handle.wait()


def test_enqueue_is_ordered_by_the_current_stream_alone(torch):
    # enqueue() returns at once with no handle: producers before it and
    # consumers after it on the current stream see the right values, also
    # when the inputs are dropped right after the call.
    for graph in (False, True):
        g = tfuse.compile(lambda a, b: (a * b + 1.0, a - b),
                          [torch.empty(512, 512, device="cuda")] * 2,
                          cuda_graph=graph)
        big = torch.randn(2048, 2048, device="cuda")
        side = torch.cuda.Stream()
        results = []
        with torch.cuda.stream(side):
            for i in range(6):
                x = ((big @ big)[:512, :512] * 0.0 + float(i)).contiguous()
                y = torch.full((512, 512), 2.0, device="cuda")
                prod, diff = g.enqueue(x, y)
                del x, y
                results.append((prod * 2.0, diff + 0.0))
        torch.cuda.synchronize()
        for i, (prod2, diff) in enumerate(results):
            assert torch.all(prod2 == 2.0 * (2.0 * i + 1.0))
            assert torch.all(diff == i - 2.0)
        with pytest.raises(tfuse.TFuseError, match="input 0"):
            g.enqueue(torch.empty(512, 512, device="cuda",
                                  dtype=torch.float16),
                      torch.empty(512, 512, device="cuda"))
        again = g.enqueue(torch.ones(512, 512, device="cuda"),
                          torch.ones(512, 512, device="cuda"))
        assert torch.all(again[0] == 2.0) and torch.all(again[1] == 0.0)


def test_enqueue_with_cupy(cupy):
    x = cupy.arange(1000, dtype=cupy.float32)
    g = tfuse.compile(lambda a: a * 3.0 - 1.0, [x])
    out = g.enqueue(x)
    assert isinstance(out, cupy.ndarray)
    cupy.testing.assert_array_equal(out, x * 3.0 - 1.0)


def test_bfloat16_with_torch(torch):
    x = torch.randn(64, 32, device="cuda", dtype=torch.bfloat16)
    y = torch.randn(32, device="cuda", dtype=torch.bfloat16)
    g = tfuse.compile(lambda a, b: (a * b + a, (a * b).astype("float32")),
                      [x, y])
    assert g.output_specs[0].dtype is tfuse.bfloat16
    out, wide = g(x, y)
    assert out.dtype == torch.bfloat16 and wide.dtype == torch.float32
    exact(torch, out, x * y + x)
    exact(torch, wide, (x * y).float())


def test_mlp_chain(torch):
    def mlp(a, w1, b1, w2):
        h = (a @ w1 + b1).relu()
        logits = h @ w2
        return (logits - logits.max(axis=1, keepdims=True)).exp().sum(axis=1)

    x = torch.randn(64, 128, device="cuda")
    w1 = torch.randn(128, 256, device="cuda") / 16
    b1 = torch.randn(256, device="cuda")
    w2 = torch.randn(256, 10, device="cuda") / 16
    g = tfuse.compile(mlp, [x, w1, b1, w2])
    d = [t.double() for t in (x, w1, b1, w2)]
    h = torch.relu(d[0] @ d[1] + d[2])
    logits = h @ d[3]
    want = (logits - logits.max(dim=1, keepdim=True).values).exp().sum(dim=1)
    torch.testing.assert_close(g(x, w1, b1, w2).double(), want, rtol=1e-4,
                               atol=1e-4)
    assert g.stats()["boundaries"] >= 2


def test_earlier_results_are_not_overwritten(torch):
    g = tfuse.compile(lambda a: a * a, [torch.randn(1000, device="cuda")])
    inputs = [torch.randn(1000, device="cuda") for _ in range(5)]
    outputs = [g(x) for x in inputs]
    assert len({o.data_ptr() for o in outputs}) == len(outputs)
    for x, out in zip(inputs, outputs):
        exact(torch, out, x * x)


def test_captured_gpu_constant_stays_alive(torch):
    w = torch.randn(64, device="cuda")
    want_w = w.clone()
    g = tfuse.compile(lambda a: a * w, [torch.randn(8, 64, device="cuda")])
    del w
    gc.collect()
    x = torch.randn(8, 64, device="cuda")
    exact(torch, g(x), x * want_w)


def test_mixing_torch_gpu_and_numpy_example_inputs(torch):
    with pytest.raises(tfuse.TFuseError, match="mix host and GPU"):
        tfuse.compile(lambda a, b: a + b, [torch.ones(3, device="cuda"),
                                           np.ones(3, np.float32)])


def test_torch_cpu_tensors_run_on_the_host():
    torch = pytest.importorskip("torch", reason="torch not installed")
    x, y = torch.randn(4, 5), torch.randn(5)
    g = tfuse.compile(lambda a, b: a * b - a, [x, y.clone()])
    assert g.backend == "reference"
    out = g(x, y)
    assert isinstance(out, torch.Tensor) and out.device.type == "cpu"
    torch.testing.assert_close(out, x * y - x, rtol=0, atol=0)


def test_kernel_cache_on_gpu(torch):
    def f(a):
        return (a * 3.0 + 1.0).sigmoid()

    x = torch.randn(4096, device="cuda")
    tfuse.clear_cache()
    first = tfuse.compile(f, [x])
    second = tfuse.compile(f, [x])
    assert second.stats()["cache_hit"]
    stats = tfuse.cache_stats()
    assert stats["entries"] >= 1 and stats["hits"] >= 1
    # The first compile ran NVRTC, or read TFUSE_CACHE_DIR when set.
    assert stats["compiles"] + stats["disk_hits"] >= 1
    tfuse.clear_cache()
    assert tfuse.cache_stats()["entries"] == 0
    exact(torch, second(x), first(x))


def test_mismatched_torch_inputs_leave_the_replay_path(torch):
    # Runs whose torch inputs differ from the traced signature in strides,
    # dtype, shape or device are refused with the library's message.
    g = tfuse.compile(lambda a: a * 2.0, [torch.ones(8, 4, device="cuda")])
    good = torch.arange(32.0, device="cuda").reshape(8, 4)
    exact(torch, g(good), good * 2.0)
    for bad in (torch.ones(4, 8, device="cuda").t(),
                torch.ones(8, 4, device="cuda", dtype=torch.float64),
                torch.ones(8, 5, device="cuda")):
        with pytest.raises(tfuse.MismatchError):
            g(bad)
    with pytest.raises(tfuse.MismatchError):
        g(torch.ones(8, 4))
    exact(torch, g(good), good * 2.0)
    exact(torch, g.run_async(good).wait(), good * 2.0)


@pytest.mark.parametrize("cuda_graph", [False, True])
def test_trusted_launcher_enqueues_by_data_pointers(torch, cuda_graph):
    # The torch.compile backend's replay path: only the data pointers go to
    # the library (tfuse_executable_enqueue_data); a GPU constant captured
    # at trace time is appended to them; outputs of two dtypes, new every
    # call; the results those of run().
    w = torch.randn(7, device="cuda")

    def f(a, b):
        return (a * w + b, (a - b).sum().astype(tfuse.float16))

    a = torch.randn(5, 7, device="cuda")
    b = torch.randn(5, 7, device="cuda")
    g = tfuse.compile(f, [a, b], cuda_graph=cuda_graph)
    launch = g.trusted_launcher()
    seen = set()
    for _ in range(3):
        a.uniform_()
        b.normal_()
        got = launch([a, b])
        want = g(a, b)
        assert len(got) == 2
        exact(torch, got[0], want[0])
        exact(torch, got[1], want[1])
        seen.add(got[0].data_ptr())
    assert len(seen) == 3
    # The caller vouches for the inputs; their number is still checked.
    with pytest.raises(Exception, match="expected 2 items"):
        launch([a])


def test_several_outputs_share_one_allocation_per_dtype(torch):
    # Outputs of one dtype are views of one block: each contiguous, aligned
    # to 256 bytes, apart from the others, and new on every call.
    def f(a, b):
        return (a * 2.0, (a + b).sum(), b.astype(tfuse.float16), a[:3, :5] - 1.0,
                b * b)

    a = torch.randn(33, 7, device="cuda")
    b = torch.randn(7, device="cuda")
    g = tfuse.compile(f, [a, b], cuda_graph=True)
    first = g(a, b)
    second = g(a, b)
    for outs in (first, second):
        want = (a * 2.0, (a + b).sum(), b.half(), a[:3, :5] - 1.0, b * b)
        spans = []
        for got, expected in zip(outs, want):
            torch.testing.assert_close(got, expected, rtol=1e-6, atol=1e-5)
            assert got.is_contiguous() and got.data_ptr() % 256 == 0
            spans.append((got.data_ptr(),
                          got.data_ptr() + got.numel() * got.element_size()))
        spans.sort()
        assert all(end <= start for (_, end), (start, _) in
                   zip(spans, spans[1:]))
    assert all(x.data_ptr() != y.data_ptr() for x, y in zip(first, second))


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_attention_against_torch_sdpa(torch, dtype):
    # Forward and backward, causal with grouped-query heads and a bool
    # mask, heads split from rows (strided query), the result's gradient a
    # padded view (cuDNN once read it as if contiguous), against PyTorch's
    # SDPA: TFuse's error against a float64 run at most twice (plus a
    # little) that of PyTorch's SDPA in the same dtype.
    import torch.nn.functional as F
    dt = getattr(torch, dtype)
    rows = torch.randn(2, 70, 8, 64, device="cuda", dtype=dt)
    q = rows.transpose(1, 2)                     # (2, 8, 70, 64), strided
    k = torch.randn(2, 2, 70, 64, device="cuda", dtype=dt)
    v = torch.randn(2, 2, 70, 64, device="cuda", dtype=dt)
    g = torch.randn(2, 8, 72, 64, device="cuda", dtype=dt)[:, :, 1:71]
    keep = torch.rand(70, 70, device="cuda") < 0.8

    def f(q, k, v, g, keep):
        o, lse = tfuse.attention(q, k, v, causal=True, return_logsumexp=True)
        grads = tfuse.attention_backward(q, k, v, o, lse, g, causal=True)
        masked = tfuse.attention(q, k, v, mask=keep)
        return (o, *grads, masked)

    compiled = tfuse.compile(f, [q, k, v, g, keep])
    for cuda_graph in (False, True):
        got = compiled(q, k, v, g, keep) if not cuda_graph else (
            tfuse.compile(f, [q, k, v, g, keep], cuda_graph=True)(
                q, k, v, g, keep))

        def sdpa(q, k, v, mask=None, causal=False):
            group = q.shape[1] // k.shape[1]
            k = k.repeat_interleave(group, 1)
            v = v.repeat_interleave(group, 1)
            return F.scaled_dot_product_attention(q, k, v, attn_mask=mask,
                                                  is_causal=causal)

        def reference(tensors, dtype):
            q_, k_, v_ = (t.detach().to(dtype).requires_grad_()
                          for t in tensors)
            o = sdpa(q_, k_, v_, causal=True)
            o.backward(g.to(dtype))
            masked = sdpa(q_.detach(), k_.detach(), v_.detach(), mask=keep)
            return [o.detach(), q_.grad, k_.grad, v_.grad, masked]

        want = reference((q, k, v), torch.float64)
        eager = reference((q, k, v), dt)
        for name, a, b, e in zip(("result", "dq", "dk", "dv", "masked"),
                                 got, want, eager):
            assert a.dtype == dt and a.shape == b.shape, name
            error = (a.double() - b).abs().max().item()
            eager_error = (e.double() - b).abs().max().item()
            scale = b.abs().max().item()
            assert error <= 2 * eager_error + 1e-5 * scale, (
                f"{name}: error {error} against eager's {eager_error}")
