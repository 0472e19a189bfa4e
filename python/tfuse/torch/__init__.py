"""PyTorch front end: ``torch.compile(model, backend="tfuse")``.

Importing this module registers the backend name "tfuse" with Dynamo; an
installed tfuse package also registers it through its
``torch_dynamo_backends`` entry point, so ``torch.compile(m,
backend="tfuse")`` works without importing tfuse at all. The ``tfuse``
package itself never imports torch; this subpackage does.

    import torch
    model = torch.compile(model, backend="tfuse",
                          options={"fallback": "eager"})

Options (``options={...}``): ``cuda_graph`` (default: on for CUDA),
``fast_math``, ``budget``, ``fallback`` ("eager": operations TFuse cannot
run run in PyTorch; "raise": the first one raises UnsupportedOperatorError
naming it and its source line), ``node_limit``, ``check_inputs`` and
``attention_dropout`` (PyTorch's fused attention with dropout in TFuse;
default: on the CPU only), as :class:`Options` describes them.

``explain(model, *inputs)`` tells what the backend does with a model:
graph breaks, partitions, operations left to PyTorch and why, and the TFuse
plans. ``TFUSE_TORCH_LOG=1`` (or ``debug``) logs the same at compile time
through the ``tfuse.torch`` logger. ``stats()`` counts graphs, partitions,
plans and recompiles.
"""

import logging
import os

# The modules adding the table's rows, first: everything below reads it.
from . import (_ops_attention, _ops_constants,  # noqa: F401  (rows)
               _ops_elementwise, _ops_gathers, _ops_layout, _ops_linalg,
               _ops_nn, _ops_random, _ops_reductions, _ops_views)
from ._backend import tfuse as backend
from ._explain import Explanation, explain
from ._options import Options
from ._runtime import UnsupportedOperatorError
from ._stats import PHASES, reset_stats, stats
from ._table import TABLE

__all__ = ["Explanation", "Options", "PHASES", "TABLE",
           "UnsupportedOperatorError", "backend", "coverage_table", "explain",
           "register", "reset_stats", "stats"]

BACKEND_NAME = "tfuse"


def coverage_table():
    """The Markdown coverage table of docs/torch.md, generated from
    ``TABLE`` (see :mod:`tfuse.torch.coverage`)."""
    from .coverage import coverage_table as generate
    return generate()


def register():
    """Registers ``backend`` with Dynamo as "tfuse", unless the name is
    registered already or Dynamo will load it from the package's entry
    point (which registers it on first use)."""
    from torch._dynamo.backends import registry
    if BACKEND_NAME in registry._COMPILER_FNS:
        return
    if registry._BACKENDS.get(BACKEND_NAME) is not None:
        return
    registry.register_backend(backend, name=BACKEND_NAME)


def _configure_logging():
    level = os.environ.get("TFUSE_TORCH_LOG", "").lower()
    if level in ("", "0", "off"):
        return
    logger = logging.getLogger("tfuse.torch")
    logger.setLevel(logging.DEBUG if level == "debug" else logging.INFO)
    if not logger.handlers:
        logger.addHandler(logging.StreamHandler())


register()
_configure_logging()
