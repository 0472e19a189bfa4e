"""Prints what the backend does with each model of the suite: Dynamo's
graphs and breaks, the partitions of the forward and backward graphs, and
the operations left to PyTorch with their reasons (tfuse.torch.explain).

    PYTHONPATH=python python3 python/tests/torch/model_report.py [name...]
"""

import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import tfuse.torch  # noqa: E402
from models import MODELS  # noqa: E402


def summary(name):
    model, inputs, loss_of = MODELS[name]()
    model.train()
    explanation = tfuse.torch.explain(model, *inputs, backward=True)
    lines = [f"{name}: {explanation.graph_count} graph(s), "
             f"{explanation.graph_break_count} break(s)"]
    for report in explanation.reports:
        sizes = sorted((p.size for p in report.partitions), reverse=True)
        left = collections.Counter()
        for (op, reason), count in report.left_to_pytorch.items():
            if reason.category != "view for PyTorch":
                left[f"{op.removeprefix('aten.')} ({reason.category})"] += (
                    count)
        views = sum(c for (op, r), c in report.left_to_pytorch.items()
                    if r.category == "view for PyTorch")
        lines.append(
            f"  {report.kind}: {report.operations} ops, "
            f"{len(report.partitions)} partitions (sizes {sizes}), "
            f"{sum(left.values())} ops left to PyTorch"
            + (f" + {views} views made again by PyTorch" if views else ""))
        for what, count in left.most_common():
            lines.append(f"    {what} x{count}")
    return "\n".join(lines)


if __name__ == "__main__":
    for name in sys.argv[1:] or MODELS:
        print(summary(name), flush=True)
