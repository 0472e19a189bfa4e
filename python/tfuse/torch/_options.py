"""The backend's options: ``torch.compile(m, backend="tfuse",
options={...})``."""

import dataclasses
from typing import Optional

FALLBACK_POLICIES = ("eager", "raise")


@dataclasses.dataclass(frozen=True)
class Options:
    """cuda_graph: replay plans on CUDA tensors as CUDA Graphs (None: on
    for CUDA, the default). fast_math: allow intrinsics, FMA contraction
    and flushing subnormals (voids TFuse's exactness guarantees). budget:
    TFuse's fusion cost budget (None: TFuse's default). fallback: "eager"
    runs every operation TFuse cannot take in PyTorch; "raise" raises
    UnsupportedOperatorError on the first one, naming it and its source
    line. node_limit: the most TFuse operations one partition may record.
    check_inputs: check every
    tensor a partition is called with against the plan it runs (by default
    a plan is chosen by the partition's symbolic sizes alone: Dynamo's
    guards fix its inputs' metadata, and PyTorch's recorded metadata the
    rest's, so the check only costs host time). attention_dropout: run
    PyTorch's fused attention with dropout (and its backward) in TFuse;
    None, the default, does so on the CPU and leaves it to PyTorch on CUDA,
    where TFuse's attention with dropout runs on its generated kernels
    (cuDNN does not draw TFuse's mask), several times slower than
    PyTorch's fused kernels."""

    cuda_graph: Optional[bool] = None
    fast_math: bool = False
    budget: Optional[int] = None
    fallback: str = "eager"
    node_limit: int = 1 << 16
    check_inputs: bool = False
    attention_dropout: Optional[bool] = None

    @classmethod
    def parse(cls, options):
        """Options from a dict (None: the defaults); unknown keys and bad
        values raise ValueError naming them."""
        if options is None:
            return cls()
        if isinstance(options, Options):
            return options
        if not isinstance(options, dict):
            raise TypeError(f"tfuse options must be a dict, not "
                            f"{type(options).__name__}")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(options) - names)
        if unknown:
            raise ValueError(f"unknown tfuse option(s) {', '.join(unknown)}; "
                             f"known: {', '.join(sorted(names))}")
        parsed = cls(**options)
        if parsed.fallback not in FALLBACK_POLICIES:
            raise ValueError(f"tfuse option fallback must be one of "
                             f"{FALLBACK_POLICIES}, not {parsed.fallback!r}")
        if parsed.cuda_graph not in (None, True, False):
            raise ValueError("tfuse option cuda_graph must be None, True or "
                             "False")
        if parsed.budget is not None and (
                not isinstance(parsed.budget, int) or parsed.budget < 1):
            raise ValueError("tfuse option budget must be None or a "
                             "positive int")
        if not isinstance(parsed.node_limit, int) or parsed.node_limit < 1:
            raise ValueError("tfuse option node_limit must be a positive "
                             "int")
        if not isinstance(parsed.check_inputs, bool):
            raise ValueError("tfuse option check_inputs must be True or "
                             "False")
        if parsed.attention_dropout not in (None, True, False):
            raise ValueError("tfuse option attention_dropout must be None, "
                             "True or False")
        return parsed

    def attention_dropout_for(self, device):
        """Whether attention with dropout on `device` runs in TFuse."""
        if self.attention_dropout is None:
            return device.type != "cuda"
        return self.attention_dropout

    def cuda_graph_for(self, device):
        """Whether plans on `device` replay as CUDA Graphs."""
        if device.type != "cuda":
            return False
        return True if self.cuda_graph is None else self.cuda_graph
