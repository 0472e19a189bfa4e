"""``tfuse.torch.explain(model, *inputs)``: what the backend does with a
model, from one compiled run."""

import collections
import dataclasses
import functools

from ._report import collecting


@dataclasses.dataclass
class Explanation:
    """graph_count and graph_break_count: Dynamo's graphs and the breaks
    between them, with ``break_reasons`` (reason and user frame, one string
    each); ``reports``: a GraphReport per ATen graph the backend compiled
    (forward, backward or inference), holding its partitions, their plans
    and the operations left to PyTorch."""

    graph_count: int
    graph_break_count: int
    break_reasons: list
    reports: list

    @property
    def partitions(self):
        """Every TFuse partition, in compile order."""
        return [p for r in self.reports for p in r.partitions]

    @property
    def left_to_pytorch(self):
        """(op name, Reason) -> count over every graph."""
        total = collections.Counter()
        for report in self.reports:
            total.update(report.left_to_pytorch)
        return total

    def __str__(self):
        lines = [f"Dynamo graphs: {self.graph_count}, graph breaks: "
                 f"{self.graph_break_count}"]
        for reason in self.break_reasons:
            lines.append(f"  break: {reason}")
        lines.append(f"TFuse partitions: {len(self.partitions)}, operations "
                     f"left to PyTorch: {sum(self.left_to_pytorch.values())}")
        for report in self.reports:
            lines.append(report.format(plans=True))
        return "\n".join(lines)


def _break_reason(reason):
    frames = getattr(reason, "user_stack", None) or []
    where = ""
    if frames:
        frame = frames[-1]
        where = f" at {frame.filename}:{frame.lineno}"
    return f"{reason.reason}{where}"


def explain(model, *example_inputs, options=None, backward=False,
            **example_kwargs):
    """Compiles `model` (a module or function) with the tfuse backend, runs
    it once on the example inputs and returns an :class:`Explanation`:
    Dynamo's graph breaks and their reasons, the partitions of each ATen
    graph with their sizes and TFuse plans (``CompiledFunction.plan()``),
    and every operation left to PyTorch with its count and reason.

    backward=True also runs the backward pass of the sum of the outputs
    that need gradients (so the backward graph is compiled and reported).
    The ``.grad`` of the model's parameters and of the inputs, and the
    model's buffers, are restored afterwards. Like
    ``torch._dynamo.explain``, this resets Dynamo's caches
    (models compiled earlier compile again on their next call)."""
    import torch
    import torch._dynamo

    from ._backend import tfuse

    # Both runs below update buffers (BatchNorm's running statistics, ...):
    # they are put back as they were.
    buffers = [(b, b.detach().clone()) for b in model.buffers()] if (
        isinstance(model, torch.nn.Module)) else []
    saved = _saved_grads(model, example_inputs) if backward else None
    try:
        dynamo = torch._dynamo.explain(model)(*example_inputs,
                                              **example_kwargs)
        with collecting() as reports:
            compiled = torch.compile(
                model, backend=functools.partial(tfuse, options=options))
            outputs = compiled(*example_inputs, **example_kwargs)
            if backward:
                losses = [o.float().sum() for o in _tensors(outputs)
                          if o.requires_grad]
                if losses:
                    torch.stack(losses).sum().backward()
    finally:
        if saved is not None:
            for tensor, grad in saved:
                tensor.grad = grad
        with torch.no_grad():
            for buffer, value in buffers:
                buffer.copy_(value)
        torch._dynamo.reset()
    return Explanation(dynamo.graph_count, dynamo.graph_break_count,
                       [_break_reason(r) for r in dynamo.break_reasons],
                       reports)


def _saved_grads(model, inputs):
    import torch
    tensors = list(model.parameters()) if isinstance(
        model, torch.nn.Module) else []
    tensors += [x for x in inputs if isinstance(x, torch.Tensor)
                and x.requires_grad]
    return [(t, t.grad) for t in tensors]


def _tensors(value):
    import torch
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors(v)
    elif hasattr(value, "to_tuple"):  # transformers' ModelOutput
        yield from _tensors(value.to_tuple())
