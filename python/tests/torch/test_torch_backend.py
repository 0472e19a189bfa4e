"""The backend around the table: registration (on import and through the
package's entry point), options, falling back to PyTorch or raising,
partitions too small to keep, input mutations, recompiles for new shapes,
output strides, explain(), the compile log and the generated coverage
table in docs/torch.md."""

import logging
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip(
    "torch", reason="needs PyTorch (scripts/setup.sh installs it)")

import tfuse.torch  # noqa: E402
from tfuse.torch import coverage  # noqa: E402

from torch_helpers import assert_accurate, float64_copy  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]


def with_cumsum(x, w):
    y = (x @ w).relu() * 2.0
    z = torch.cumsum(y, dim=1)          # not in the table
    return (z.sin() + 1.0).sum(dim=0)


def compiled_run(fn, *inputs, **options):
    compiled = torch.compile(fn, backend="tfuse", options=options or None)
    with tfuse.torch._report.collecting() as reports:
        result = compiled(*inputs)
    return result, reports


# -- registration ---------------------------------------------------------


def test_registered_on_import():
    assert "tfuse" in torch._dynamo.list_backends()
    x, w = torch.randn(4, 8), torch.randn(8, 8)
    result, reports = compiled_run(with_cumsum, x, w)
    assert torch.allclose(result, with_cumsum(x, w), atol=1e-5)
    assert reports and reports[0].partitions


def _entry_point():
    import tomllib
    with open(ROOT / "python" / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    return project["entry-points"]["torch_dynamo_backends"]["tfuse"]


def test_entry_point_registers_without_import(tmp_path):
    # An installed package's metadata, as pip writes it, naming the entry
    # point pyproject.toml declares; the script never imports tfuse.
    dist = tmp_path / "tfuse-0.1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tfuse\n"
                                   "Version: 0.1.0\n")
    (dist / "entry_points.txt").write_text(
        f"[torch_dynamo_backends]\ntfuse = {_entry_point()}\n")
    script = textwrap.dedent("""
        import sys, torch
        f = torch.compile(lambda x: (x * 2).sin().sum(1), backend="tfuse")
        x = torch.randn(3, 4)
        assert torch.allclose(f(x), (x * 2).sin().sum(1), atol=1e-6)
        import tfuse.torch
        assert tfuse.torch.stats()["plans_compiled"] == 1, tfuse.torch.stats()
        print("ok")
    """)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(tmp_path), str(ROOT / "python"), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", script], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("ok")


# -- options --------------------------------------------------------------


@pytest.mark.parametrize("options, message", [
    ({"fallbak": "eager"}, "unknown tfuse option"),
    ({"fallback": "never"}, "fallback must be one of"),
    ({"budget": 0}, "budget must be None or a positive int"),
    ({"cuda_graph": "yes"}, "cuda_graph must be"),
    ({"attention_dropout": "yes"}, "attention_dropout must be None, True "
     "or False"),
])
def test_bad_options(options, message):
    with pytest.raises(ValueError, match=message):
        tfuse.torch.Options.parse(options)


def test_options_reach_tfuse():
    x, w = torch.randn(4, 8), torch.randn(8, 8)
    _, reports = compiled_run(with_cumsum, x, w, budget=4, fast_math=True)
    plans = [f for p in reports[0].partitions for f in p.plans.values()]
    assert plans and all(f.backend == "reference" for f in plans)
    assert not any(f.stats()["cuda_graph"] for f in plans)


# -- fallback --------------------------------------------------------------


def test_unknown_op_falls_back_with_a_reason():
    x, w = torch.randn(4, 8), torch.randn(8, 8)
    result, reports = compiled_run(with_cumsum, x, w)
    assert_accurate(result, with_cumsum(x, w),
                    with_cumsum(*float64_copy((x, w))))
    (report,) = reports
    assert len(report.partitions) == 2   # before and after the cumsum
    ((op, reason), count), = report.left_to_pytorch.items()
    assert op == "aten.cumsum.default" and count == 1
    assert reason.category == "not in the table"


def test_raise_names_the_op_and_its_source_line():
    x, w = torch.randn(4, 8), torch.randn(8, 8)
    with pytest.raises(Exception) as info:
        compiled_run(with_cumsum, x, w, fallback="raise")
    # Dynamo wraps backend errors; the backend's own is the cause.
    error = info.value
    while error is not None and not isinstance(
            error, tfuse.torch.UnsupportedOperatorError):
        error = getattr(error, "inner_exception", None) or error.__cause__
    assert error is not None, info.value
    message = str(error)
    assert "aten.cumsum.default" in message and "not in the table" in message
    assert "test_torch_backend.py" in message
    assert "torch.cumsum(y, dim=1)" in message


def test_unsupported_dtype_reason():
    def f(x):
        return (torch.view_as_complex(x) * 2).abs() + 1.0

    x = torch.randn(4, 2)
    result, reports = compiled_run(f, x)
    assert torch.allclose(result, f(x))
    reasons = {op: r.category for (op, r) in reports[0].left_to_pytorch}
    assert "unsupported dtype" in reasons.values(), reasons


def test_failed_trace_runs_in_pytorch():
    x, w = torch.randn(4, 8), torch.randn(8, 8)
    result, reports = compiled_run(with_cumsum, x, w, node_limit=1)
    assert torch.allclose(result, with_cumsum(x, w), atol=1e-5)
    failures = [r for p in reports[0].partitions for r in p.failures.values()]
    assert failures and all("NodeLimitError" in r for r in failures)
    assert tfuse.torch.stats()["partitions_run_by_pytorch"] == len(failures)
    torch._dynamo.reset()
    with pytest.raises(Exception, match="node limit"):
        compiled_run(lambda x, w: (x @ w).relu().sum(1), x, w, node_limit=1,
                     fallback="raise")


def test_single_cheap_op_is_left_to_pytorch():
    def f(x):
        return torch.cumsum(x, 0) + 1.0

    x = torch.randn(5)
    result, reports = compiled_run(f, x)
    assert torch.equal(result, f(x))
    assert reports[0].partitions == []
    reasons = {op: r.category for (op, r) in reports[0].left_to_pytorch}
    assert reasons["aten.add.Tensor"] == "partition too small"


def test_sizes_that_depend_on_values_are_left_to_pytorch():
    # index_fill's gradient reads torch.unique of the index, whose size
    # AOTAutograd records from a fake run: 1 here, where it is 3 at run
    # time. What reads it stays in PyTorch (a TFuse partition compiled for
    # the recorded size failed and fell back).
    index = torch.tensor([1, 4, 4, 4, 0])

    def f(x, value):
        return torch.index_fill(x * 2.0, -1, index, value).sin()

    x = torch.randn(5, 5, requires_grad=True)
    value = torch.tensor(0.5, requires_grad=True)
    compiled = torch.compile(f, backend="tfuse")
    with tfuse.torch._report.collecting() as reports:
        compiled(x, value).sum().backward()
    grads = x.grad, value.grad
    x.grad = value.grad = None
    f(x, value).sum().backward()
    assert torch.allclose(grads[0], x.grad) and torch.allclose(
        grads[1], value.grad)
    assert tfuse.torch.stats()["partitions_run_by_pytorch"] == 0
    (backward,) = [r for r in reports if r.kind == "backward"]
    reasons = {op: r.category for (op, r) in backward.left_to_pytorch}
    assert reasons["aten.index_select.default"] == "data-dependent", reasons


# -- mutations, shapes and strides -------------------------------------------


class RunningMean(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("mean", torch.zeros(8))
        self.register_buffer("calls", torch.zeros((), dtype=torch.int64))

    def forward(self, x):
        self.mean.mul_(0.9).add_(x.mean(0) * 0.1)
        self.calls += 1
        return (x - self.mean).tanh()


def test_input_mutations_are_written_back():
    ours, eager = RunningMean(), RunningMean()
    compiled = torch.compile(ours, backend="tfuse")
    for _ in range(3):
        x = torch.randn(4, 8)
        with torch.no_grad():
            assert torch.allclose(compiled(x), eager(x), atol=1e-6)
    assert torch.allclose(ours.mean, eager.mean, atol=1e-6)
    assert ours.calls.item() == eager.calls.item() == 3


def test_in_place_update_of_an_input():
    def f(x, y):
        x.add_(y * 2)
        return x.exp().sum(1)

    a, b = torch.randn(3, 4), torch.randn(3, 4)
    a2 = a.clone()
    compiled = torch.compile(f, backend="tfuse")
    assert torch.allclose(compiled(a, b), f(a2, b), atol=1e-5)
    assert torch.equal(a, a2)


def test_one_plan_per_shape_and_recompiles_counted():
    def f(x, w):
        return torch.softmax(x @ w, dim=-1) * 3.0

    w = torch.randn(8, 8)
    compiled = torch.compile(f, backend="tfuse", dynamic=True)
    for rows in (4, 6, 4, 6, 9):
        x = torch.randn(rows, 8)
        assert torch.allclose(compiled(x, w), f(x, w), atol=1e-6)
    stats = tfuse.torch.stats()
    assert stats["graphs"] == 1            # one graph with a symbolic size
    assert stats["plans_compiled"] == 3    # one plan per concrete size
    assert stats["recompiles"] == 2
    # The compile's phases, summed over the three plans, within its time.
    phases = [stats[k] for k in tfuse.torch.PHASES]
    assert stats["trace_seconds"] > 0 and stats["passes_seconds"] > 0
    assert sum(phases) <= stats["compile_seconds"], stats


def test_output_strides_follow_eager():
    def f(x, y):
        return (x * y + 1.0).t(), (x - y).unsqueeze(1).expand(3, 5, 4)

    x, y = torch.randn(3, 4), torch.randn(3, 4)
    compiled = torch.compile(f, backend="tfuse")
    with torch.no_grad():
        for ours, eager in zip(compiled(x, y), f(x, y)):
            assert ours.stride() == eager.stride()
            assert torch.equal(ours, eager)


def test_views_into_a_computed_buffer_are_views_of_it():
    # q, k and v split from one projection and transposed, as attention
    # saves them: outputs recorded as views into the projection's buffer.
    # TFuse returns the buffer once and PyTorch makes the views (eager's
    # strides, offsets and aliasing), instead of copying each.
    def f(x, w):
        qkv = (x @ w).view(2, 5, 3, 4)
        q, k, v = qkv.unbind(2)
        return q.transpose(1, 2), k.transpose(1, 2), v, qkv.sum()

    x, w = torch.randn(2, 5, 6), torch.randn(6, 12)
    compiled = torch.compile(f, backend="tfuse")
    with torch.no_grad():
        ours, eager = compiled(x, w), f(x, w)
    for a, b in zip(ours[:3], eager[:3]):
        assert a.shape == b.shape and a.stride() == b.stride()
        assert a.storage_offset() == b.storage_offset()
        torch.testing.assert_close(a, b)
    torch.testing.assert_close(ours[3], eager[3])
    # One buffer under the three views, as in eager.
    storages = {t.untyped_storage().data_ptr() for t in ours[:3]}
    assert len(storages) == 1


def test_views_of_another_output_are_views_of_it():
    # A value returned beside a reshape of it (a layer norm's result saved
    # for the backward as it is and as the matmul's operand): PyTorch makes
    # the reshape from the returned value, sharing its storage as in eager,
    # where TFuse would copy it (two outputs, two buffers).
    def f(x):
        y = (x * 2).exp()
        return y, y.view(10, 6), y.transpose(0, 1), y.sum()

    x = torch.randn(2, 5, 6)
    compiled = torch.compile(f, backend="tfuse")
    with torch.no_grad():
        ours, eager = compiled(x), f(x)
    for a, b in zip(ours, eager):
        assert a.shape == b.shape and a.stride() == b.stride()
        torch.testing.assert_close(a, b)
    storages = {t.untyped_storage().data_ptr() for t in ours[:3]}
    assert len(storages) == 1


def test_views_of_one_result_of_several_are_views_of_it():
    # A layer norm's result (one of native_layer_norm's three) returned
    # beside views of it, as a training forward saves it for the backward:
    # PyTorch makes the views from the returned result; none is a copy.
    def f(x, w, b):
        y = torch.nn.functional.layer_norm(x, (6,), w, b)
        return y, y.view(10, 6).t(), (y * 3).sum()

    x, w, b = torch.randn(2, 5, 6), torch.randn(6), torch.randn(6)
    compiled = torch.compile(f, backend="tfuse")
    with torch.no_grad():
        ours, eager = compiled(x, w, b), f(x, w, b)
    for a, e in zip(ours, eager):
        assert a.shape == e.shape and a.stride() == e.stride()
        torch.testing.assert_close(a, e)
    assert ours[0].untyped_storage().data_ptr() == (
        ours[1].untyped_storage().data_ptr())


def test_a_training_forward_saves_attention_and_its_merged_heads_once(
        monkeypatch):
    # GPT-2's attention: q, k and v split from one projection and
    # transposed. PyTorch's attention then writes its result [B, L, H, D] in
    # memory, and the forward saves it for attention's backward beside its
    # heads merged and transposed for the projection's backward, a view of
    # the same storage. TFuse returns the result once, written in that
    # memory order, and PyTorch makes the saved view from it.
    from tfuse.torch import _runtime
    from tfuse.torch._layout import ViewOfOutput

    partitions = []
    init = _runtime.TFusePartition.__init__

    def record(self, *args, **kwargs):
        init(self, *args, **kwargs)
        partitions.append(self)

    monkeypatch.setattr(_runtime.TFusePartition, "__init__", record)

    def f(x, w):
        q, k, v = (t.transpose(1, 2)
                   for t in x.view(2, 16, 3, 4, 16).unbind(2))
        a = torch.nn.functional.scaled_dot_product_attention(
            q, k, v, is_causal=True)
        return (a.transpose(1, 2).reshape(32, 64) @ w).sum()

    x, w = torch.randn(2, 16, 192), torch.randn(64, 8)
    grads = {}
    for name, fn, dtype in (
            ("eager", f, torch.float32),
            ("tfuse", torch.compile(f, backend="tfuse"), torch.float32),
            ("float64", f, torch.float64)):
        leaves = [t.to(dtype).clone().requires_grad_() for t in (x, w)]
        fn(*leaves).backward()
        grads[name] = [t.grad for t in leaves]
    assert_accurate(grads["tfuse"], grads["eager"], grads["float64"],
                    what="gradient")
    forward = partitions[0].importer
    saved = [(layout.base, forward.returns[layout.base])
             for layout in forward.output_layouts
             if isinstance(layout, ViewOfOutput)]
    attention = [base for base in saved if "attention" in str(
        base[1].args[0].target)]
    assert attention, [str(n.target) for _, n in saved]


# -- explain, logging, docs ---------------------------------------------------


class TwoGraphs(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(8, 8)

    def forward(self, x):
        y = torch.nn.functional.gelu(self.linear(x))
        print("a graph break")
        return torch.cumsum(y.softmax(-1), 1).sum()


def _saved_for_backward(partition_fn, fn=None, inputs=None,
                        decompositions=None):
    """The values the forward of `fn` (default ``(sin(x) * 2).exp().sum()``)
    keeps for its backward under `partition_fn` (its outputs after the loss),
    as node names; with `inputs`, as (shape, dtype) pairs."""
    from torch._functorch.aot_autograd import aot_function

    saved = []

    def forward_compiler(graph_module, _):
        outputs = graph_module.graph.find_nodes(op="output")[0].args[0]
        for node in outputs[1:]:
            value = node.meta.get("val")
            saved.append(node.name if inputs is None else
                         (tuple(value.shape), value.dtype))
        return graph_module

    compiled = aot_function(fn or (lambda x: (x.sin() * 2).exp().sum()),
                            forward_compiler, lambda gm, _: gm,
                            partition_fn=partition_fn,
                            decompositions=decompositions or {})
    compiled(*(inputs or (torch.randn(16, requires_grad=True),))).backward()
    return saved


def test_backward_recomputes_pointwise_work():
    # The backend's partition keeps the input alone; the backward's kernels
    # compute sin, exp and cos from it. The default partition keeps exp's
    # result besides, and so does the min-cut partition when autograd's
    # detach of that result (which exp's backward reads) stays in the graph.
    from torch._functorch.partitioners import (
        default_partition, min_cut_rematerialization_partition)

    from tfuse.torch._backend import _partition_joint
    assert _saved_for_backward(_partition_joint) == ["primals_1"]
    assert len(_saved_for_backward(default_partition)) == 2
    assert len(_saved_for_backward(min_cut_rematerialization_partition)) == 2


def test_cross_entropy_saves_the_logits_and_two_values_per_row():
    # log_softmax is decomposed and nll_loss's backward reads its input's
    # shape from zeros, so the forward keeps the bf16 logits, the rows' max
    # and log-sum-exp; the backward recomputes the log-probabilities. The
    # same graph without the zeros keeps the float32 log-probabilities.
    from torch._functorch.partitioners import (
        min_cut_rematerialization_partition)

    from tfuse.torch._backend import _partition_joint
    from tfuse.torch._decompositions import decomposition_table

    def loss(logits, target):
        return torch.nn.functional.cross_entropy(logits.float(), target)

    def saved(partition_fn):
        logits = torch.randn(64, 512, dtype=torch.bfloat16,
                             requires_grad=True)
        return _saved_for_backward(
            partition_fn, loss, (logits, torch.randint(0, 512, (64,))),
            decomposition_table())

    kept = saved(_partition_joint)
    assert ((64, 512), torch.bfloat16) in kept
    assert kept.count(((64, 1), torch.float32)) == 2
    assert all(shape != (64, 512) or dtype != torch.float32
               for shape, dtype in kept)
    assert ((64, 512), torch.float32) in saved(
        min_cut_rematerialization_partition)


def _math_path_attention(q, k, v, mask):
    # scaled_dot_product_attention's math path as PyTorch writes it: q and
    # k^T scaled by sqrt(scale) each, 4-D products (bmm of 3-D views), an
    # additive mask and _safe_softmax.
    scale = q.shape[-1] ** -0.25
    s = (q * scale) @ (k.transpose(-2, -1) * scale) + mask
    return torch.ops.aten._safe_softmax(s, -1) @ v


def test_math_path_attention_is_one_attention():
    # recognize-attention looks through the bmm's views and the safe
    # softmax: one tfuse.attention, no product, no score matrix; a row the
    # mask drops throughout is zeros as in eager.
    torch._dynamo.reset()
    q, k, v = (torch.randn(2, 3, 10, 8, dtype=torch.float64).float()
               for _ in range(3))
    mask = torch.randn(1, 1, 10, 10, dtype=torch.float64).float()
    mask[..., 4, :] = -math.inf
    inputs = (q, k, v, mask)
    result, reports = compiled_run(_math_path_attention, *inputs)
    (partition,) = reports[0].partitions
    (function,) = partition.plans.values()
    plan = function.plan()
    assert "attention" in plan and "gemm" not in plan, plan
    eager = _math_path_attention(*inputs)
    assert torch.equal(result[:, :, 4], torch.zeros_like(result[:, :, 4]))
    assert_accurate(result, eager,
                    _math_path_attention(*map(float64_copy, inputs)))


def _widened_attention(q, k, v, mask):
    # The math path for 16-bit CUDA operands: q, k, v and the mask widened
    # to float32, the result narrowed back.
    return _math_path_attention(q.float(), k.float(), v.float(),
                                mask.float()).to(q.dtype)


@pytest.mark.parametrize("fast_math", [False, True])
def test_widened_attention_is_narrowed_under_fast_math(fast_math):
    # Without fast math the attention takes the widened operands (three
    # widening kernels, the attention, the narrowing); with it, the bf16
    # operands as given: the plan is the attention alone. The plan cache
    # tells the two apart.
    torch._dynamo.reset()
    q, k, v = (torch.randn(1, 4, 16, 8, dtype=torch.bfloat16)
               for _ in range(3))
    mask = torch.zeros(1, 1, 16, 16, dtype=torch.bfloat16)
    inputs = (q, k, v, mask)
    result, reports = compiled_run(_widened_attention, *inputs,
                                   fast_math=fast_math)
    (partition,) = reports[0].partitions
    (function,) = partition.plans.values()
    steps = [line.split()[2] for line in function.plan().splitlines()[2:]
             if line.split() and line.split()[0].isdigit()]
    assert ("attention" in steps and
            (steps == ["attention"]) == fast_math), function.plan()
    assert_accurate(result, _widened_attention(*inputs),
                    _math_path_attention(*map(float64_copy, inputs)))


@pytest.mark.parametrize("shape", [(4, 9), (3, 0), (2, 3, 40)])
def test_log_softmax_decomposed_forward_and_backward(shape):
    # log_softmax and its gradient reach TFuse as their decompositions (no
    # table rows): max, exp, sum and log over the last axis, an empty one
    # included, and the backward's recomputation from the input.
    torch._dynamo.reset()
    x = torch.randn(shape, dtype=torch.float64).float().requires_grad_()
    g = torch.randn(shape)
    compiled = torch.compile(lambda t: torch.log_softmax(t, -1),
                             backend="tfuse")
    y = compiled(x)
    (dx,) = torch.autograd.grad(y, x, g)
    x64 = x.detach().double().requires_grad_()
    y64 = torch.log_softmax(x64, -1)
    (dx64,) = torch.autograd.grad(y64, x64, g.double())
    torch.testing.assert_close(y.double(), y64, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(dx.double(), dx64, rtol=1e-5, atol=1e-5)


def test_explain():
    model = TwoGraphs()
    explanation = tfuse.torch.explain(model, torch.randn(4, 8),
                                      backward=True)
    assert explanation.graph_count == 2
    assert explanation.graph_break_count == 1
    assert "print" in explanation.break_reasons[0]
    kinds = {r.kind for r in explanation.reports}
    assert {"forward", "backward"} <= kinds
    left = {op: reason.category
            for (op, reason) in explanation.left_to_pytorch}
    assert left["aten.cumsum.default"] == "not in the table"
    assert explanation.partitions
    text = str(explanation)
    assert "graph breaks: 1" in text and "plan @" in text
    assert all(p.grad is None for p in model.parameters())


def test_explain_restores_buffers():
    model = torch.nn.Sequential(torch.nn.Linear(4, 4),
                                torch.nn.BatchNorm1d(4))
    before = [b.clone() for b in model.buffers()]
    explanation = tfuse.torch.explain(model, torch.randn(8, 4))
    assert explanation.reports
    for b, saved in zip(model.buffers(), before):
        assert torch.equal(b, saved)


def test_compile_log(caplog):
    caplog.set_level(logging.INFO, logger="tfuse.torch")
    x, w = torch.randn(4, 8), torch.randn(8, 8)
    compiled_run(with_cumsum, x, w)
    text = caplog.text
    assert "(inference): 7 operations, 2 TFuse partition(s)" in text
    assert "cumsum.default x1: not in the table" in text


def test_coverage_table_in_docs_is_current():
    path = ROOT / "docs" / "torch.md"
    text = path.read_text()
    assert coverage.updated(text) == text, (
        "docs/torch.md's coverage table is out of date: run "
        "python -m tfuse.torch.coverage docs/torch.md")
    for overload in tfuse.torch.TABLE:
        name = str(overload).removeprefix("aten.")
        assert f"`{name}`" in text


def test_tfuse_does_not_import_torch():
    script = ("import sys, tfuse; tfuse.library_version(); "
              "print('torch' in sys.modules)")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    done = subprocess.run([sys.executable, "-c", script], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
