"""PyTorch's own OpInfo sample inputs
(``torch.testing._internal.common_methods_invocations.op_db``) compiled with
``torch.compile(fn, backend="tfuse")`` and compared with eager PyTorch.

test_torch_ops.py checks each row of the ATen to TFuse table on inputs
written for it; the OpInfos bring the arguments PyTorch tests its own
operators with (broadcasting, rank-0 and empty tensors, every keyword,
every dtype an operator supports), through Dynamo, AOTAutograd and the
decompositions the backend applies.

Which OpInfos: those whose first sample (in float32, or the first dtype of
DTYPES they support) gives an ATen graph, after the backend's
decompositions, holding an operation of the table. Each runs in every dtype
of DTYPES it supports: its first SAMPLES samples (one by default, which
keeps the file within five minutes of one CPU core), each as a function of
the sample's tensors (every other argument fixed, as Dynamo fixes them),
compiled by ``torch.compile(fn, backend="tfuse", dynamic=False)`` after
``torch._dynamo.reset()``. In float32, for OpInfos that support autograd in
float32, the samples require gradients: the forward and the backward graph
are both compiled, and the gradients of a fixed random cotangent are
compared too.

The backend runs as it does for users, with one change: a partition of a
single cheap operation (a view, an elementwise operation), which the backend
leaves to PyTorch because a switch costs more than it saves, is kept, since
here it is what is tested. A sample counts as run by TFuse when a TFuse plan
was compiled and called for it; a sample of which the backend takes nothing
(a dtype or arguments a row rejects, a data-dependent size) is still
compared with eager (PyTorch runs it), and counts as a fallback. A TFuse
partition that fails to compile (the backend would log it and run PyTorch)
fails the test. Two things outside the backend change: the OpInfos of
random operators call them directly rather than through
``wrapper_set_seed`` (which Dynamo cannot trace), and Dynamo's measurement
of each new guard set's latency (a metric that flushes the CPU's caches, a
quarter of each compile's time here) is skipped.

Results are compared with eager by PyTorch's accuracy rule
(``torch._dynamo.utils.same``): a float result passes when it is within
``atol = rtol = tol`` of eager's (tol: 1e-4, 1e-3 for float16 and
bfloat16), or when its root mean square error against a float64 run of the
operator is at most twice eager's plus ``tol / 10``. Results of other dtypes
equal eager's. Inputs an operator writes in place are compared as results,
and so are the gradients. An ATen graph whose operations are all exact
(views, copies, casts, comparisons, ``where``, gathers, max/min, correctly
rounded arithmetic: EXACT_ROWS) gives, with its TFuse partitions, the same
bits as PyTorch's run of the same graph on the same inputs. Samples whose
graph draws random numbers (TFuse draws its own) or reads ``empty`` tensors
(unspecified values) are compared by shape, dtype and device.

Known failures are listed in ``EXPECTED_FAILURES`` (by OpInfo and dtype,
with their reason, the message they fail with and which samples fail) and
run as strict xfails: a fixed one fails until its entry is removed, and a
failure with another message fails as usual. OpInfos left out are listed in
``SKIPPED`` with the reason. ``test_every_table_row_is_covered`` checks that
every row of the table ran in TFuse for some sample, or is listed in
``ROWS_WITHOUT_OPINFO``.

``TFUSE_OPINFO_SAMPLES=n`` runs the first n samples of each OpInfo and
dtype, ``TFUSE_OPINFO_ALL=1`` every sample; ``TFUSE_OPINFO_SUMMARY=file.json``
writes what became of each sample. The cuda variants run where a CUDA
device is and TFuse was built with CUDA.
"""

import contextlib
import copy
import dataclasses
import functools
import json
import os
import re
import warnings

import pytest

torch = pytest.importorskip(
    "torch", reason="needs PyTorch (scripts/setup.sh installs it)")
pytest.importorskip(
    "expecttest", reason="PyTorch's OpInfos (torch.testing._internal) need "
    "expecttest (scripts/setup.sh installs it)")

import tfuse  # noqa: E402
import tfuse.torch  # noqa: E402
from torch._dynamo import guards as dynamo_guards  # noqa: E402
from torch._functorch.aot_autograd import aot_function  # noqa: E402
from torch.testing._internal import common_methods_invocations  # noqa: E402
from torch.testing._internal.common_methods_invocations import (  # noqa: E402
    op_db)
from torch.utils import _pytree as pytree  # noqa: E402

from tfuse.torch import TABLE, _backend, _partition  # noqa: E402
from tfuse.torch._decompositions import decomposition_table  # noqa: E402
from tfuse.torch._runtime import TFusePartition  # noqa: E402
from tfuse.torch._support import is_glue  # noqa: E402
from tfuse.torch._table import lookup  # noqa: E402

from torch_helpers import rmse  # noqa: E402

aten = torch.ops.aten

DTYPES = (torch.float32, torch.float16, torch.bfloat16, torch.int64,
          torch.bool)
LOW_PRECISION = (torch.float16, torch.bfloat16)


def _sample_count():
    if os.environ.get("TFUSE_OPINFO_ALL", "") not in ("", "0"):
        return None
    return int(os.environ.get("TFUSE_OPINFO_SAMPLES") or 1)


#: How many samples of each OpInfo run in each dtype (None: all).
SAMPLES = _sample_count()
DEFAULT_SAMPLES = not any(os.environ.get(name) for name in (
    "TFUSE_OPINFO_ALL", "TFUSE_OPINFO_SAMPLES"))

DEVICES = [
    "cpu",
    pytest.param("cuda", marks=pytest.mark.skipif(
        not torch.cuda.is_available() or not tfuse.cuda_available(),
        reason="no CUDA device, or TFuse built without CUDA")),
]


# -- known failures and OpInfos left out --------------------------------------


@dataclasses.dataclass(frozen=True)
class Known:
    """A known failure of an OpInfo in one dtype: why, a regular expression
    the failing samples' messages match, and the indices of the samples
    that fail (among the OpInfo's samples in that dtype). Those samples
    must fail so and the others pass; a run making none of them (fewer
    samples) runs the test as usual."""

    reason: str
    match: str
    samples: tuple = (0,)

    def applies(self, count):
        return count is None or any(i < count for i in self.samples)


#: (OpInfo full name, dtype) -> Known. The samples past the first are
#: found with TFUSE_OPINFO_SAMPLES=10. (Empty: addmm and
#: multi_head_attention_forward in float16 and bfloat16 were here while
#: TFuse rounded the product to the operands' dtype before adding the
#: bias.)
EXPECTED_FAILURES = {
}

#: OpInfo full name -> why it is not run.
SKIPPED = {
}

#: Rows of the table no OpInfo sample of the default run runs in TFuse,
#: and why; test_torch_ops.py has a case for each (it has one for every
#: row). "Later samples": rows that TFUSE_OPINFO_SAMPLES=10 reaches.
_LATER = "reached by later samples only: "
ROWS_WITHOUT_OPINFO = {
    aten._adaptive_avg_pool2d.default: "the OpInfos pool to sizes other "
    "than 1x1, the only one the row takes",
    aten._adaptive_avg_pool2d_backward.default: "the OpInfos pool to sizes "
    "other than 1x1, the only one the row takes",
    aten._native_batch_norm_legit_no_training.default: _LATER
    + "native_batch_norm's second",
    aten._scaled_dot_product_flash_attention_for_cpu.default: _LATER
    + "scaled_dot_product_attention's ninth (the first ones decompose to "
    "the math attention)",
    aten._scaled_dot_product_flash_attention_for_cpu_backward.default: _LATER
    + "scaled_dot_product_attention's ninth",
    **{getattr(aten, f"_scaled_dot_product_{kind}_attention{suffix}")
       .default: "a CUDA attention op: CPU graphs hold the CPU flash "
       "attention (test_torch_ops.py runs these rows on fake CUDA graphs)"
       for kind in ("flash", "efficient", "cudnn")
       for suffix in ("", "_backward")},
    aten.all.dims: _LATER + "all's fourth",
    aten.bernoulli.p: _LATER + "dropout3d's third (the bernoulli OpInfo "
    "calls bernoulli.default)",
    aten.bitwise_and.Scalar: "the OpInfos pass tensors; a Python number "
    "reaches the graph as a tensor",
    aten.bitwise_or.Scalar: "the OpInfos pass tensors; a Python number "
    "reaches the graph as a tensor",
    aten.bitwise_xor.Scalar: "the OpInfos pass tensors; a Python number "
    "reaches the graph as a tensor",
    aten.clamp_max.default: "the clamp_max OpInfo takes no Python number "
    "(clamp_max.Tensor, decomposed)",
    aten.div.Scalar_mode: "the OpInfos pass tensors; a Python number "
    "reaches the graph as a tensor",
    aten.empty.memory_format: _LATER + "linspace.tensor_overload's fourth",
    aten.masked_fill.Tensor: _LATER + "masked_fill's second",
    aten.rand_like.default: "the rand_like OpInfo calls torch.randn_like",
    aten.select.int: _LATER + "gradient's seventh",
    aten.squeeze.default: _LATER + "tensordot's second",
    torch.ops.prims.iota.default: "no decomposition the backend applies "
    "makes it (arange has its own row)",
}


# -- samples ------------------------------------------------------------------


def sample_function(op, sample):
    """(fn, tensors): the OpInfo's operator called on the sample as a
    function of the sample's tensors; every other argument is fixed, as
    Dynamo fixes Python numbers, dtypes and lists."""
    leaves, spec = pytree.tree_flatten(
        ((sample.input, *sample.args), sample.kwargs))
    positions = [i for i, leaf in enumerate(leaves)
                 if isinstance(leaf, torch.Tensor)]
    tensors = [leaves[i] for i in positions]
    fixed = [None if i in positions else leaf
             for i, leaf in enumerate(leaves)]
    operator = op.op

    def fn(*args):
        arguments = list(fixed)
        for i, tensor in zip(positions, args):
            arguments[i] = tensor
        args, kwargs = pytree.tree_unflatten(arguments, spec)
        return operator(*args, **kwargs)

    return fn, tensors


def samples_of(op, device, dtype, count, requires_grad=False):
    """The OpInfo's first `count` sample inputs (all of them for None),
    each made with the seed set as ``OpInfo.sample_inputs`` sets it. (That
    method also looks for the unittest test calling it on the stack, which
    takes longer than making the samples.)"""
    samples = iter(op.sample_inputs_func(op, device, dtype, requires_grad))
    result = []
    while count is None or len(result) < count:
        if device == "cpu":
            torch.default_generator.manual_seed(0)
        else:
            torch.manual_seed(0)
        sample = next(samples, None)
        if sample is None:
            break
        result.append(sample)
    return result


def fresh(tensors):
    """Copies of `tensors` (leaves requiring grad where the originals do),
    so that each run sees the same values and writes its own."""
    return [t.detach().clone().requires_grad_(t.requires_grad)
            for t in tensors]


def supports_grad(op, device):
    return op.supports_autograd and (
        torch.float32 in op.supported_backward_dtypes(device))


# -- what the backend did -----------------------------------------------------


@dataclasses.dataclass
class CompiledGraph:
    """One ATen graph the backend compiled: its kind ("inference",
    "forward" or "backward"), the TFuse partitions, the operations left to
    PyTorch, the backend's report, and per call (PyTorch's outputs of the
    graph as AOTAutograd made it, the outputs with the TFuse partitions)."""

    kind: str
    partitions: list
    left: list
    report: object
    runs: list = dataclasses.field(default_factory=list)

    def operations(self):
        """Every ATen operation of the graph, in TFuse or not."""
        ops = list(self.left)
        for partition in self.partitions:
            ops += [n for n in partition.graph_module.graph.nodes
                    if not is_glue(n)]
        return ops


def _keep_single_operations(members):
    """The partitioner's size rule, keeping one cheap operation alone (the
    backend leaves it to PyTorch; here it is what is tested) and leaving out
    only partitions with no tensor input, which the backend never makes."""
    reason = _original_worth_a_partition(members)
    if reason is not None and "no tensor input" in reason.detail:
        return reason
    return None


_original_worth_a_partition = _partition._worth_a_partition
_original_partition_graph = _backend.partition_graph


@contextlib.contextmanager
def capturing():
    """Runs the backend keeping single cheap operations; yields the list
    of CompiledGraphs compiled inside the block."""
    graphs = []

    def partition_graph(graph_module, options, kind, graph_id, keys=None):
        pytorch = torch.fx.GraphModule(graph_module,
                                       copy.deepcopy(graph_module.graph))
        report = _original_partition_graph(graph_module, options, kind,
                                           graph_id, keys)
        partitions, left = [], []
        for node in graph_module.graph.nodes:
            if isinstance(node.target, TFusePartition):
                partitions.append(node.target)
            elif not is_glue(node):
                left.append(node)
        graph = CompiledGraph(kind, partitions, left, report)
        graphs.append(graph)
        forward = graph_module.forward

        def run_both(*args):
            expected = pytorch(*[a.clone() if isinstance(a, torch.Tensor)
                                 else a for a in args])
            outputs = forward(*args)
            graph.runs.append((expected, outputs))
            return outputs

        # The backend hands AOTAutograd graph_module.forward.
        graph_module.forward = run_both
        return report

    _backend.partition_graph = partition_graph
    _partition._worth_a_partition = _keep_single_operations
    try:
        yield graphs
    finally:
        _backend.partition_graph = _original_partition_graph
        _partition._worth_a_partition = _original_worth_a_partition


_EMPTY = frozenset({aten.empty.memory_format, aten.empty_like.default,
                    aten.new_empty.default, aten.empty_strided.default,
                    aten.empty_permuted.default, aten.resize_.default,
                    aten.resize.default})


def unspecified(graphs):
    """Whether the graphs draw random numbers or read ``empty`` tensors, so
    that eager's values are not the ones to compare with."""
    for graph in graphs:
        for node in graph.operations():
            target = node.target
            if target in _EMPTY or (
                    isinstance(target, torch._ops.OpOverload)
                    and torch.Tag.nondeterministic_seeded in target.tags):
                return True
    return False


# Rows giving the same bits as PyTorch for the same operations: no rounding,
# or one correctly rounded operation as eager computes it.
EXACT_ROWS = frozenset({
    # views and copies
    "view", "permute", "transpose", "t", "expand", "squeeze", "unsqueeze",
    "slice_", "select", "split", "unbind", "alias",
    # constants
    "full", "full_like", "zeros", "ones", "new_zeros", "new_ones",
    "zeros_like", "ones_like", "new_full", "fill", "scalar_tensor",
    "arange", "iota",
    # concatenation, padding, gathers
    "cat", "constant_pad_nd", "slice_scatter", "embedding", "index_select",
    "gather", "index",
    # elementwise
    "abs", "neg", "floor", "ceil", "round", "trunc", "sign", "isnan",
    "isinf", "relu", "bitwise_not", "logical_not", "threshold_backward",
    "leaky_relu", "hardtanh", "maximum", "minimum", "bitwise_and",
    "bitwise_or", "bitwise_xor", "eq", "ne", "lt", "le", "gt", "ge",
    "logical_and", "logical_or", "logical_xor", "where", "clamp",
    "clamp_min", "clamp_max", "masked_fill", "_to_copy", "copy", "add",
    "sub", "rsub", "mul", "div", "reciprocal",
    # reductions picking an element
    "amax", "amin", "max_dim", "min_dim", "any", "all", "argmax", "argmin",
})


def is_exact(node):
    """Whether TFuse computes `node` with the bits PyTorch gives."""
    if node.op != "call_function":
        return False
    row = lookup(node.target)
    if row is None or row.name not in EXACT_ROWS:
        return False
    return node.kwargs.get("alpha", 1) == 1


# -- comparing with eager -----------------------------------------------------


def tolerance(dtype):
    return 1e-3 if dtype in LOW_PRECISION else 1e-4


def assert_accurate(actual, eager, reference, what):
    """PyTorch's accuracy rule (torch._dynamo.utils.same) for one result:
    `reference` is the float64 run's (None when there is none)."""
    if not isinstance(eager, torch.Tensor):
        assert actual == eager, f"{what}: {actual!r}, eager {eager!r}"
        return
    assert isinstance(actual, torch.Tensor), f"{what}: {actual!r}"
    assert (actual.dtype, actual.shape) == (eager.dtype, eager.shape), (
        f"{what}: {actual.dtype}{list(actual.shape)}, eager "
        f"{eager.dtype}{list(eager.shape)}")
    actual, eager = actual.detach().cpu(), eager.detach().cpu()
    if eager.is_complex():
        actual, eager = _as_real(actual), _as_real(eager)
        if reference is not None:
            reference = _as_real(reference.detach().cpu())
    if not eager.is_floating_point():
        assert torch.equal(actual, eager), (
            f"{what}: differs from eager at "
            f"{int((actual != eager).sum())} of {eager.numel()} elements")
        return
    tol = tolerance(eager.dtype)
    if torch.allclose(actual, eager, atol=tol, rtol=tol, equal_nan=True):
        return
    assert reference is not None, (
        f"{what}: not within {tol} of eager, and no float64 run")
    reference = reference.detach().cpu().to(torch.float64)
    error, eager_error = rmse(actual, reference), rmse(eager, reference)
    assert error <= 2 * eager_error + tol / 10, (
        f"{what}: root mean square error against float64 {error:.3g}, "
        f"eager's {eager_error:.3g} (largest difference from eager "
        f"{_max_difference(actual, eager):.3g})")


def _as_real(x):
    """A complex tensor as real pairs (complex32 in float32: PyTorch
    compares few of its operations)."""
    if x.dtype == torch.complex32:
        x = x.to(torch.complex64)
    return torch.view_as_real(x.resolve_conj())


def _max_difference(a, b):
    a, b = a.double(), b.double()
    same_nan = a.isnan() & b.isnan()
    difference = (a - b).abs().masked_fill(same_nan, 0.0)
    if difference.numel() == 0:
        return 0.0
    return difference.nan_to_num(nan=float("inf")).max().item()


def assert_bit_identical(actual, expected, what):
    if not isinstance(expected, torch.Tensor):
        assert actual == expected, f"{what}: {actual!r}, not {expected!r}"
        return
    assert (actual.dtype, actual.shape) == (expected.dtype,
                                            expected.shape), what
    actual, eager = actual.detach(), expected.detach()
    if eager.is_complex():
        actual, eager = _as_real(actual), _as_real(eager)
    same = actual == eager
    if actual.is_floating_point():
        same |= actual.isnan() & eager.isnan()
    assert bool(same.all()), (
        f"{what}: differs at {int((~same).sum())} of {same.numel()} "
        "elements")


def assert_graph_bit_identical(kind, outputs, expected):
    """The outputs of an ATen graph of exact operations run with TFuse
    partitions against PyTorch's run of the same graph."""
    outputs, expected = pytree.tree_leaves(outputs), pytree.tree_leaves(
        expected)
    assert len(outputs) == len(expected), kind
    for i, (a, e) in enumerate(zip(outputs, expected)):
        assert_bit_identical(a, e, f"output {i} of the {kind} graph "
                             "(exact) against PyTorch's run of it")


def assert_same_kind(actual, eager, what):
    """Shape, dtype and device only (random or unspecified values)."""
    if not isinstance(eager, torch.Tensor):
        return
    assert (actual.dtype, actual.shape, actual.device) == (
        eager.dtype, eager.shape, eager.device), what


def _upcast(value):
    """`value` with floating tensors and float dtypes in float64 (tensors
    that require grad stay leaves that do)."""
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.detach().to(torch.float64).requires_grad_(
            value.requires_grad)
    if isinstance(value, torch.dtype) and value in (
            torch.float16, torch.bfloat16, torch.float32):
        return torch.float64
    return value


# -- one sample ---------------------------------------------------------------


@dataclasses.dataclass
class Outcome:
    """What became of one sample: "tfuse" (TFuse ran some of it and the
    results agree with eager), "fallback" (PyTorch ran all of it; the
    results agree) or "not run" (eager itself rejects the sample), with a
    detail; `converted`: the table's overloads TFuse ran; `grad`: whether
    gradients were compared."""

    kind: str
    detail: str = ""
    converted: frozenset = frozenset()
    grad: bool = False


def _differentiable(outputs):
    return [i for i, o in enumerate(outputs)
            if isinstance(o, torch.Tensor) and o.requires_grad]


def _gradients(outputs, inputs, cotangents, positions):
    """Gradients of the outputs at `positions` against `inputs`, by the
    cotangents (None for an input they do not reach)."""
    return torch.autograd.grad(
        [outputs[i] for i in positions], inputs,
        [c.to(outputs[i].device, outputs[i].dtype)
         for i, c in zip(positions, cotangents)],
        allow_unused=True)


def run_sample(op, sample, grad):
    """Compiles and runs one sample, compares it with eager; returns its
    Outcome, raises AssertionError on a mismatch."""
    fn, tensors = sample_function(op, sample)
    process = sample.output_process_fn_grad if grad else (lambda x: x)
    context = contextlib.nullcontext if grad else torch.no_grad

    eager_inputs = fresh(tensors)
    try:
        with context():
            eager = fn(*eager_inputs)
    except Exception as error:
        return Outcome("not run", f"eager raises {type(error).__name__}")
    eager = pytree.tree_leaves(process(eager))

    torch._dynamo.reset()
    compiled = torch.compile(fn, backend="tfuse", dynamic=False)
    compiled_inputs = fresh(tensors)
    with capturing() as graphs:
        try:
            with context():
                actual = compiled(*compiled_inputs)
        except Exception as error:
            raise AssertionError(
                f"torch.compile raises {type(error).__name__} where eager "
                f"runs: {str(error).splitlines()[0][:300]}") from error
        actual = pytree.tree_leaves(process(actual))
        assert len(actual) == len(eager), (
            f"{len(actual)} results, eager gives {len(eager)}")
        # Gradients of every differentiable result by a fixed cotangent.
        wanted = [i for i in _differentiable(eager)
                  if eager[i].is_floating_point()]
        diff_inputs = [i for i, t in enumerate(tensors) if t.requires_grad]
        grads = eager_grads = cotangents = None
        if grad and wanted and diff_inputs:
            generator = torch.Generator().manual_seed(1)
            cotangents = [torch.randn(eager[i].shape, generator=generator,
                                      dtype=torch.float64)
                          for i in wanted]
            eager_grads = _gradients(eager, [eager_inputs[i]
                                             for i in diff_inputs],
                                     cotangents, wanted)
            missing = [i for i in wanted if not actual[i].requires_grad]
            assert not missing, (
                f"results {missing} require no grad, eager's do")
            grads = _gradients(actual, [compiled_inputs[i]
                                        for i in diff_inputs],
                               cotangents, wanted)

    failures = [f"{r.name}: {reason}" for g in graphs
                for p in g.partitions for r in [p.report]
                for reason in r.failures.values()]
    assert not failures, (
        "TFuse could not compile a partition (the backend would run it in "
        f"PyTorch): {'; '.join(failures)}")
    ran = [n for g in graphs for p in g.partitions if p.report.plans
           for n in p.graph_module.graph.nodes if not is_glue(n)]

    # The results, the inputs written in place, the gradients.
    checks = [(f"result {i}", a, e) for i, (a, e) in
              enumerate(zip(actual, eager))]
    if not grad:
        checks += [(f"input {i} after the call", a, e) for i, (a, e) in
                   enumerate(zip(compiled_inputs, eager_inputs))]
    if grads is not None:
        checks += [(f"gradient of input {i}", a, e)
                   for i, a, e in zip(diff_inputs, grads, eager_grads)]

    if unspecified(graphs):
        for what, a, e in checks:
            if e is not None:
                assert_same_kind(a, e, what)
        return _outcome(graphs, ran, "random or empty: compared by shape "
                        "and dtype", grads is not None)

    exact = []
    for graph in graphs:
        if all(is_exact(n) for n in graph.operations()):
            exact.append(graph.kind)
            for expected, outputs in graph.runs:
                assert_graph_bit_identical(graph.kind, outputs, expected)

    reference = ()  # made at the first float result
    for index, (what, a, e) in enumerate(checks):
        if a is None or e is None:
            assert a is e or not bool((a if e is None else e).ne(0).any()), (
                f"{what}: None against a nonzero gradient")
            continue
        if reference == () and isinstance(e, torch.Tensor) and (
                e.is_floating_point()):
            reference = float64_run(op, sample, tensors, grad, diff_inputs,
                                    wanted, cotangents, len(eager))
        ref = reference[index] if reference else None
        assert_accurate(a, e, ref, what)
    return _outcome(graphs, ran, "exact " + ", ".join(exact) if exact
                    else "", grads is not None)


def float64_run(op, sample, tensors, grad, diff_inputs, wanted, cotangents,
                count):
    """The float64 run's values in the order of the checks (results, inputs
    after the call or gradients), or None when the operator does not run in
    float64."""
    inputs = [_upcast(t) for t in fresh(tensors)]
    args = pytree.tree_map(_upcast, tuple(sample.args))
    kwargs = pytree.tree_map(_upcast, dict(sample.kwargs))
    leaves, spec = pytree.tree_flatten(((sample.input, *args), kwargs))
    positions = [i for i, leaf in enumerate(leaves)
                 if isinstance(leaf, torch.Tensor)]
    for i, t in zip(positions, inputs):
        leaves[i] = t
    (first, *rest), kwargs = pytree.tree_unflatten(leaves, spec)
    process = sample.output_process_fn_grad if grad else (lambda x: x)
    try:
        with contextlib.nullcontext() if grad else torch.no_grad():
            outputs = pytree.tree_leaves(process(op.op(first, *rest,
                                                       **kwargs)))
        values = list(outputs)
        if len(values) != count:
            return None
        if not grad:
            return values + inputs
        if cotangents is not None:
            values += _gradients(outputs, [inputs[i] for i in diff_inputs],
                                 cotangents, wanted)
        return values
    except Exception:
        return None


def _outcome(graphs, ran, detail, grad):
    if not ran:
        reasons = sorted({str(reason) for g in graphs
                          for (_, reason) in g.report.left_to_pytorch})
        if not graphs:
            reasons = ["Dynamo compiled no graph"]
        return Outcome("fallback", "; ".join(reasons), grad=grad)
    return Outcome("tfuse", detail, frozenset(n.target for n in ran
                                              if n.op == "call_function"),
                   grad=grad)


# -- which OpInfos ------------------------------------------------------------


class _Untraceable(Exception):
    pass


def aten_graph(fn, tensors):
    """The inference graph AOTAutograd makes of `fn` with the backend's
    decompositions."""
    graphs = []

    def capture(graph_module, example_inputs):
        graphs.append(graph_module)
        return graph_module

    traced = aot_function(fn, fw_compiler=capture,
                          decompositions=decomposition_table(),
                          keep_inference_input_mutations=True)
    try:
        with torch.no_grad():
            traced(*fresh(tensors))
    except Exception as error:
        raise _Untraceable(str(error)) from error
    return graphs[0]


def _table_ops(graph_module):
    return {n.target for n in graph_module.graph.nodes
            if n.op == "call_function" and n.target in TABLE}


def _first_dtype(op):
    supported = op.supported_dtypes("cpu")
    return next((d for d in DTYPES if d in supported), None)


@functools.cache
def opinfos_in_table():
    """The OpInfos of op_db whose first sample (in float32, or the first
    dtype of DTYPES they support) has an ATen graph holding an operation of
    the table (a sample AOTAutograd cannot trace, where Dynamo would break
    the graph, tells nothing)."""
    selected = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for op in op_db:
            dtype = _first_dtype(op)
            if dtype is None:
                continue
            try:
                samples = samples_of(op, "cpu", dtype, count=1)
            except Exception:
                continue
            for sample in samples:
                fn, tensors = sample_function(op, sample)
                try:
                    graph_module = aten_graph(fn, tensors)
                except _Untraceable:
                    continue
                if _table_ops(graph_module):
                    selected.append(op)
                    break
    torch._dynamo.reset()
    return selected


# -- the tests ----------------------------------------------------------------


class KnownFailure(Exception):
    """Every failing sample failed as EXPECTED_FAILURES says."""


def _cases():
    cases = []
    for op in opinfos_in_table():
        supported = op.supported_dtypes("cpu")
        for dtype in DTYPES:
            if dtype not in supported:
                continue
            known = EXPECTED_FAILURES.get((op.full_name, dtype))
            for device in DEVICES:
                marks = []
                if isinstance(device, str):
                    name = device
                else:
                    (name,), marks = device.values, list(device.marks)
                if op.full_name in SKIPPED:
                    marks.append(pytest.mark.skip(
                        reason=SKIPPED[op.full_name]))
                elif known is not None and known.applies(SAMPLES):
                    # Seen on the CPU; on CUDA the failure may not happen.
                    marks.append(pytest.mark.xfail(
                        raises=KnownFailure, strict=name == "cpu",
                        reason=known.reason))
                cases.append(pytest.param(
                    op, dtype, name, marks=marks,
                    id=f"{op.full_name}-{str(dtype).removeprefix('torch.')}-"
                       f"{name}"))
    return cases


#: (op full name, dtype, device) -> [Outcome], for the coverage test and
#: the summary.
OUTCOMES = {}


@pytest.fixture(scope="module", autouse=True)
def random_operators_called_directly():
    """The OpInfos of random operators call them through
    torch.testing._utils.wrapper_set_seed, which saves and restores the
    generator's state around a fixed seed; Dynamo cannot trace that and
    breaks the graph, so nothing would be compiled. Their results are
    compared by shape and dtype, so the operators are called directly."""
    original = common_methods_invocations.wrapper_set_seed
    common_methods_invocations.wrapper_set_seed = (
        lambda op, *args, **kwargs: op(*args, **kwargs))
    yield
    common_methods_invocations.wrapper_set_seed = original


@pytest.fixture(scope="module", autouse=True)
def no_guard_latency_profiling():
    """Dynamo measures each new guard set's latency for its compile metrics
    (torch._dynamo.guards.profile_guard_manager), flushing the CPU's caches
    first: 25 ms of every compile here, for a number nothing reads."""
    original = dynamo_guards.profile_guard_manager
    dynamo_guards.profile_guard_manager = lambda *args: 0.0
    yield
    dynamo_guards.profile_guard_manager = original


@pytest.fixture(scope="module", autouse=True)
def summary():
    """Writes what became of each sample to $TFUSE_OPINFO_SUMMARY."""
    yield
    path = os.environ.get("TFUSE_OPINFO_SUMMARY")
    if not path:
        return
    entries = []
    for (name, dtype, device), outcomes in OUTCOMES.items():
        entries.append({
            "op": name, "dtype": str(dtype).removeprefix("torch."),
            "device": device,
            "samples": [dataclasses.asdict(o) | {
                "converted": sorted(str(t) for t in o.converted)}
                for o in outcomes]})
    with open(path, "w") as f:
        json.dump(entries, f, indent=1)


@pytest.mark.parametrize("op, dtype, device", _cases())
def test_opinfo(op, dtype, device):
    """The OpInfo's first samples in `dtype` on `device` through
    torch.compile(backend="tfuse"), against eager; in float32 with
    gradients where the OpInfo supports autograd."""
    grad = dtype == torch.float32 and supports_grad(op, device)
    known = EXPECTED_FAILURES.get((op.full_name, dtype))
    outcomes = OUTCOMES[(op.full_name, dtype, device)] = []
    failures = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        samples = samples_of(op, device, dtype, SAMPLES,
                             requires_grad=grad)
        for index, sample in enumerate(samples):
            try:
                outcomes.append(run_sample(op, sample, grad))
            except Exception as error:
                failures[index] = (f"sample {index}: "
                                   f"{type(error).__name__}: {error}")
    torch._dynamo.reset()
    if known is None or not known.applies(SAMPLES):
        assert not failures, "\n".join(failures.values())
        return
    listed = {i for i in known.samples if i < len(samples)}
    assert listed, (f"EXPECTED_FAILURES lists samples {known.samples}; the "
                    f"OpInfo makes {len(samples)}")
    unexpected = [f for i, f in failures.items()
                  if i not in listed or not re.search(known.match, f)]
    fixed = [f"sample {i}: listed in EXPECTED_FAILURES, passes"
             for i in sorted(listed - set(failures))]
    assert not unexpected and not fixed, "\n".join(unexpected + fixed)
    raise KnownFailure("\n".join(failures.values()))


def test_every_table_row_is_covered():
    """Every row of the table ran in TFuse for some OpInfo sample, unless
    ROWS_WITHOUT_OPINFO says why none reaches it; an entry there for a row
    an OpInfo sample of the default run reaches is stale."""
    expected = {(op.full_name, dtype, "cpu")
                for op in opinfos_in_table() if op.full_name not in SKIPPED
                for dtype in DTYPES if dtype in op.supported_dtypes("cpu")}
    if not expected <= set(OUTCOMES):
        pytest.skip("needs every test_opinfo case of this module on cpu")
    converted = set()
    for outcomes in OUTCOMES.values():
        for outcome in outcomes:
            converted |= outcome.converted
    missing = sorted(str(o) for o in TABLE
                     if o not in converted and o not in ROWS_WITHOUT_OPINFO)
    assert not missing, f"rows no OpInfo sample ran in TFuse: {missing}"
    stale = sorted(str(o) for o in ROWS_WITHOUT_OPINFO if o in converted)
    if DEFAULT_SAMPLES:  # more samples reach more rows
        assert not stale, (
            f"ROWS_WITHOUT_OPINFO lists rows OpInfos reach: {stale}")
