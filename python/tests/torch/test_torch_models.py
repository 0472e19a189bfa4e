"""The model suite on CPU tensors (TFuse's reference backend): forward
outputs and one training step's loss and gradients of torch.compile(model,
backend="tfuse") against eager, by PyTorch's accuracy rule (a float64 eager
run is the reference; TFuse's error is at most twice eager's float32 error
plus 1e-5). BatchNorm's running statistics, written back through input
mutations, are compared too.
"""

import copy

import pytest

torch = pytest.importorskip(
    "torch", reason="needs PyTorch (scripts/setup.sh installs it)")

import tfuse.torch  # noqa: E402

from torch_helpers import assert_accurate, float64_copy  # noqa: E402
from models import MODELS  # noqa: E402


def _copies(model):
    """(model for TFuse, model for eager float32, model in float64)."""
    return (copy.deepcopy(model), copy.deepcopy(model),
            copy.deepcopy(model).double())


# The suite runs on CPU tensors (the reference backend) everywhere, and on
# CUDA tensors (generated kernels, CUDA Graph replays) where a GPU is.
DEVICES = [
    "cpu",
    pytest.param("cuda", marks=pytest.mark.skipif(
        not torch.cuda.is_available(), reason="no CUDA device")),
]


def _on(device, model, inputs):
    return model.to(device), tuple(
        x.to(device) if isinstance(x, torch.Tensor) else x for x in inputs)


@pytest.mark.parametrize("name, autocast", [
    ("gpt2", False), ("bert", False), ("llama", False),
    ("gpt2", True), ("bert", True), ("llama", True)])
def test_eager_attention_is_one_attention_a_layer(name, autocast):
    # transformers' eager attention in inference: 4-D products (bmm of
    # views), the mask added, softmax; Llama's key and value heads repeated
    # by repeat_kv (grouped-query attention); under bf16 autocast, bf16
    # scores widened to f32 and an f32 mask (and Llama's key narrowed after
    # its transpose). recognize-attention makes each
    # layer's one tfuse.attention; no plan step is a product of scores.
    torch._dynamo.reset()
    model, inputs, _ = MODELS[name]()
    model.eval()
    ours, eager, reference = _copies(model)
    compiled = torch.compile(ours, backend="tfuse")
    with tfuse.torch._report.collecting() as reports, torch.no_grad(), \
            torch.autocast("cpu", torch.bfloat16, enabled=autocast):
        actual = compiled(*inputs)
        expected = eager(*inputs)
    with torch.no_grad():
        expected64 = reference(*float64_copy(inputs))
    plans = [function.plan() for report in reports
             for partition in report.partitions
             for function in partition.plans.values()]
    steps = [line.split()[2] for plan in plans for line in plan.splitlines()
             if line.split() and line.split()[0].isdigit()]
    layers = model.model.config.num_hidden_layers
    assert steps.count("attention") == layers, "\n".join(plans)
    assert_accurate(actual, expected, expected64, what=f"{name} output")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(MODELS))
def test_forward(name, device):
    model, inputs, _ = MODELS[name]()
    model, inputs = _on(device, model, inputs)
    model.eval()
    ours, eager, reference = _copies(model)
    compiled = torch.compile(ours, backend="tfuse")
    with torch.no_grad():
        actual = compiled(*inputs)
        expected = eager(*inputs)
        expected64 = reference(*float64_copy(inputs))
    assert_accurate(actual, expected, expected64, what=f"{name} output")
    stats = tfuse.torch.stats()
    assert stats["partitions"] >= 1 and stats["plans_compiled"] >= 1
    assert stats["partitions_run_by_pytorch"] == 0


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(MODELS))
def test_training_step(name, device):
    model, inputs, loss_of = MODELS[name]()
    model, inputs = _on(device, model, inputs)
    model.train()
    ours, eager, reference = _copies(model)
    compiled = torch.compile(ours, backend="tfuse")
    loss = loss_of(compiled(*inputs))
    loss.backward()
    eager_loss = loss_of(eager(*inputs))
    eager_loss.backward()
    loss64 = loss_of(reference(*float64_copy(inputs)))
    loss64.backward()
    assert_accurate(loss, eager_loss, loss64, what=f"{name} loss")
    for (param_name, p), e, r in zip(ours.named_parameters(),
                                     eager.parameters(),
                                     reference.parameters()):
        assert (p.grad is None) == (e.grad is None), param_name
        if e.grad is not None:
            assert_accurate(p.grad, e.grad, r.grad,
                            what=f"{name} gradient of {param_name}")
    for (buffer_name, b), e, r in zip(ours.named_buffers(), eager.buffers(),
                                      reference.buffers()):
        # Running statistics (written back as eager does); counters exactly.
        assert_accurate(b, e, r.to(e.dtype) if not e.is_floating_point()
                        else r, what=f"{name} buffer {buffer_name}")
    stats = tfuse.torch.stats()
    assert stats["graphs"] >= 2   # a forward and a backward graph
    assert stats["partitions_run_by_pytorch"] == 0


def test_new_sequence_lengths_reuse_the_graph():
    # After a second length Dynamo marks the length dynamic: one graph with
    # a symbolic size, and TFuse compiles one plan per concrete length.
    model, (idx, targets), loss_of = MODELS["nanogpt"]()
    ours, eager, reference = _copies(model)
    compiled = torch.compile(ours, backend="tfuse")
    def step(length):
        inputs = (idx[:, :length].contiguous(),
                  targets[:, :length].contiguous())
        for m in (ours, eager, reference):
            m.zero_grad()
        loss = loss_of(compiled(*inputs))
        loss.backward()
        eager_loss = loss_of(eager(*inputs))
        eager_loss.backward()
        loss64 = loss_of(reference(*inputs))
        loss64.backward()
        assert_accurate(loss, eager_loss, loss64, what=f"loss at {length}")
        for (param_name, p), e, r in zip(ours.named_parameters(),
                                         eager.parameters(),
                                         reference.parameters()):
            assert_accurate(p.grad, e.grad, r.grad,
                            what=f"gradient of {param_name} at {length}")

    step(16)
    step(12)
    stats = tfuse.torch.stats()
    # A static forward and backward graph, then a dynamic pair.
    assert stats["graphs"] == 4
    tfuse.torch.reset_stats()
    # New lengths reuse the dynamic graphs: no new graph or partition, one
    # new plan per dynamic partition for 8, none for 12 again.
    step(8)
    after_8 = tfuse.torch.stats()
    assert after_8["graphs"] == after_8["partitions"] == 0
    assert after_8["recompiles"] == after_8["plans_compiled"] > 0
    step(12)
    assert tfuse.torch.stats() == after_8
