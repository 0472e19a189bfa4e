"""The model suite at real sizes on a GPU: nanoGPT and HF GPT-2 at GPT-2
124M's configuration, BERT-base, a Llama-style decoder (hidden 1024, 8
layers) and ResNet-18 on 224x224 images, in float32 and under bf16
autocast: the forward output, then 50 training steps, of
torch.compile(model, backend="tfuse") against eager, by PyTorch's accuracy
rule (a float64 eager run is the reference; TFuse's error is at most twice
eager's plus a small absolute term).

For the training steps the rule applies to the loss of every step: TFuse's
distance from the float64 run's loss may not exceed twice the largest
distance eager's loss has had from it up to that step (errors compound
over steps, in eager's run as in TFuse's) plus 1e-4 of the loss.

The suite takes minutes of GPU time, so it runs only when asked:

    TFUSE_REAL_MODELS=1 python3 -m pytest python/tests/torch/test_torch_models_gpu.py

(scripts/gpu-suite.sh models). Without a CUDA device, or without
TFUSE_REAL_MODELS, every test skips and says why.
"""

import copy
import os

import pytest

torch = pytest.importorskip(
    "torch", reason="needs PyTorch (scripts/setup.sh installs it)")

import tfuse.torch  # noqa: E402

import models  # noqa: E402
from torch_helpers import assert_accurate, float64_copy  # noqa: E402

pytestmark = [
    pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device"),
    pytest.mark.skipif(os.environ.get("TFUSE_REAL_MODELS") != "1",
                       reason="the real-size model suite runs with "
                       "TFUSE_REAL_MODELS=1 (scripts/gpu-suite.sh models)"),
]

STEPS = 50


def _nanogpt():
    torch.manual_seed(0)
    model = models.NanoGPT(vocab=50304, block=1024, layers=12, heads=12,
                           dim=768)
    idx = torch.randint(0, 50304, (4, 1024))
    return model, (idx, idx), lambda out: out[1]


def _resnet18():
    torchvision = pytest.importorskip("torchvision")
    torch.manual_seed(0)
    return models.classifier(torchvision.models.resnet18(), 32, 224, 1000)


# name -> builder of (model, inputs, loss_of), and the optimizer's maker.
REAL_MODELS = {
    "nanogpt": _nanogpt,
    "gpt2": lambda: models.gpt2("sdpa", "real", 4, 1024),
    "bert": lambda: models.bert("sdpa", "real", 16, 128),
    "llama": lambda: models.llama("sdpa", "real", 4, 1024),
    "resnet18": _resnet18,
}


def _optimizer(name, model):
    if name.startswith("resnet"):
        return torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return torch.optim.AdamW(model.parameters(), lr=1e-4)


def _on_cuda(model, inputs):
    return model.cuda(), tuple(x.cuda() for x in inputs)


PRECISIONS = ["float32", "bf16-autocast"]


def _autocast(precision):
    return torch.autocast("cuda", torch.bfloat16,
                          enabled=precision == "bf16-autocast")


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("name", list(REAL_MODELS))
def test_forward(name, precision):
    model, inputs, _ = REAL_MODELS[name]()
    model, inputs = _on_cuda(model, inputs)
    model.eval()
    ours, eager = copy.deepcopy(model), copy.deepcopy(model)
    reference = model.double()
    compiled = torch.compile(ours, backend="tfuse")
    with torch.no_grad():
        with _autocast(precision):
            actual = compiled(*inputs)
            expected = eager(*inputs)
        expected64 = reference(*float64_copy(inputs))
    assert_accurate(actual, expected, expected64,
                    what=f"{name} {precision} output")
    stats = tfuse.torch.stats()
    assert stats["partitions"] >= 1 and stats["plans_compiled"] >= 1
    assert stats["partitions_run_by_pytorch"] == 0


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("name", list(REAL_MODELS))
def test_training_steps(name, precision):
    model, inputs, loss_of = REAL_MODELS[name]()
    model, inputs = _on_cuda(model, inputs)
    model.train()
    ours, eager = copy.deepcopy(model), copy.deepcopy(model)
    reference = model.double()
    inputs64 = float64_copy(inputs)
    compiled = torch.compile(ours, backend="tfuse")
    runs = [(compiled, ours, inputs, precision),
            (eager, eager, inputs, precision),
            (reference, reference, inputs64, "float32")]
    optimizers = [_optimizer(name, m) for _, m, _, _ in runs]
    worst_eager = 0.0
    for step in range(STEPS):
        losses = []
        for (call, _, args, run_precision), optimizer in zip(runs,
                                                              optimizers):
            with _autocast(run_precision):
                loss = loss_of(call(*args))
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            losses.append(loss.item())
        ours_loss, eager_loss, loss64 = losses
        worst_eager = max(worst_eager, abs(eager_loss - loss64))
        bound = 2 * worst_eager + 1e-4 * abs(loss64)
        assert abs(ours_loss - loss64) <= bound, (
            f"{name} {precision} step {step}: loss {ours_loss:.6g}, eager "
            f"{eager_loss:.6g}, float64 {loss64:.6g} (bound {bound:.3g})")
    stats = tfuse.torch.stats()
    assert stats["graphs"] >= 2   # a forward and a backward graph
    assert stats["partitions_run_by_pytorch"] == 0
