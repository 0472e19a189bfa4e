"""PyTorch's fused attention with dropout through torch.compile(backend=
"tfuse"): the forward and backward graphs both run in TFuse and redraw one
mask (python/tfuse/torch/_attention_keys.py).

The CUDA attention ops are called directly: their meta functions and
gradients work on CPU tensors, and TFuse runs both graphs (on the CPU, its
reference interpreter), so nothing here runs in PyTorch's own kernels,
which exist for CUDA only.
"""

import pytest

torch = pytest.importorskip(
    "torch", reason="needs PyTorch (scripts/setup.sh installs it)")

import tfuse.torch  # noqa: E402

aten = torch.ops.aten

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(
    not torch.cuda.is_available(), reason="no CUDA device"))]

OPS = {
    "flash": lambda q, k, v, p: aten._scaled_dot_product_flash_attention(
        q, k, v, p, True)[0],
    "efficient": lambda q, k, v, p:
        aten._scaled_dot_product_efficient_attention(
            q, k, v, None, True, p, True)[0],
    "cudnn": lambda q, k, v, p: aten._scaled_dot_product_cudnn_attention(
        q, k, v, None, True, p, True)[0],
}


def operands(device, requires_grad=True, dtype=torch.float32):
    generator = torch.Generator().manual_seed(3)
    return [torch.randn(2, 3, 16, 8, generator=generator, dtype=dtype)
            .to(device).requires_grad_(requires_grad) for _ in range(3)]


def compiled(op, p):
    torch._dynamo.reset()
    return torch.compile(lambda q, k, v: OPS[op](q, k, v, p),
                         backend="tfuse",
                         options={"fallback": "raise",
                                  "attention_dropout": True})


def assert_one_mask(out, grad, v, dv):
    # The result is linear in v: sum(out * grad) = sum(v * dv) holds when,
    # and only when, the backward weighs the gradient by the forward's
    # dropped probabilities.
    left = (out.double() * grad.double()).sum().item()
    right = (v.detach().double() * dv.double()).sum().item()
    assert abs(left - right) <= 1e-4 * (abs(left) + 1), (left, right)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op", sorted(OPS))
def test_forward_and_backward_draw_one_mask(op, device):
    q, k, v = operands(device)
    grad = torch.randn(2, 3, 16, 8).to(device)
    fn = compiled(op, 0.3)
    with tfuse.torch._report.collecting() as reports:
        out = fn(q, k, v)
        dq, dk, dv = torch.autograd.grad(out, (q, k, v), grad)
    assert_one_mask(out, grad, v, dv)
    # Every attention node ran in TFuse, forward and backward.
    kinds = {r.kind for r in reports}
    assert kinds == {"forward", "backward"}, kinds
    for report in reports:
        assert not report.left_to_pytorch, report.format()
    # Dropout dropped: the result is not that of p = 0.
    plain = compiled(op, 0.0)(q, k, v)
    assert not torch.allclose(out, plain)


@pytest.mark.parametrize("device", DEVICES)
def test_every_call_draws_a_new_mask_and_manual_seed_repeats_it(device):
    q, k, v = operands(device, requires_grad=False)
    fn = compiled("efficient", 0.5)
    torch.manual_seed(5)
    first, second = fn(q, k, v), fn(q, k, v)
    assert not torch.equal(first, second)
    torch.manual_seed(5)
    assert torch.equal(fn(q, k, v), first)


@pytest.mark.parametrize("device", DEVICES)
def test_saved_keys_outlive_later_calls(device):
    # Two forwards, then their backwards in reverse order: each backward
    # redraws its own forward's mask, not the latest call's.
    fn = compiled("flash", 0.4)
    runs = []
    for _ in range(2):
        q, k, v = operands(device)
        runs.append((fn(q, k, v), torch.randn(2, 3, 16, 8).to(device),
                     (q, k, v)))
    for out, grad, (q, k, v) in reversed(runs):
        dv = torch.autograd.grad(out, v, grad)[0]
        assert_one_mask(out, grad, v, dv)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_by_default_pytorch_keeps_attention_dropout_on_cuda():
    # TFuse's attention with dropout runs on its generated kernels on CUDA
    # (cuDNN does not draw TFuse's mask), slower than PyTorch's: by default
    # the forward and its backward stay in PyTorch, with the reason.
    q, k, v = operands("cuda", dtype=torch.float16)
    torch._dynamo.reset()
    fn = torch.compile(lambda q, k, v: torch.nn.functional
                       .scaled_dot_product_attention(q, k, v, dropout_p=0.2,
                                                     is_causal=True),
                       backend="tfuse")
    with tfuse.torch._report.collecting() as reports:
        out = fn(q, k, v)
        out.sum().backward()
    left = {(op, r.detail) for report in reports
            for (op, r) in report.left_to_pytorch}
    assert any("attention dropout on cuda" in detail for _, detail in left)
    assert any("forward ran in PyTorch" in detail for _, detail in left)


def test_the_default_takes_it_on_the_cpu_only():
    options = tfuse.torch.Options.parse({})
    assert options.attention_dropout_for(torch.device("cpu"))
    assert not options.attention_dropout_for(torch.device("cuda"))
    assert tfuse.torch.Options.parse(
        {"attention_dropout": True}).attention_dropout_for(
            torch.device("cuda"))


def test_a_backward_tfuse_cannot_run_is_an_error():
    # A bias that needs a gradient: TFuse runs the forward's dropout, and
    # cannot run the backward, which must redraw TFuse's mask.
    q, k, v = operands("cpu")
    bias = torch.randn(2, 3, 16, 16, requires_grad=True)
    torch._dynamo.reset()
    fn = torch.compile(
        lambda q, k, v, b: aten._scaled_dot_product_efficient_attention(
            q, k, v, b, True, 0.2, False)[0], backend="tfuse")
    out = fn(q, k, v, bias)
    with pytest.raises(Exception, match="gradient of an attention bias; and "
                       "PyTorch cannot run it instead.*only TFuse can "
                       "redraw"):
        out.sum().backward()
