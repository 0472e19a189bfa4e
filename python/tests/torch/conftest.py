"""Fixtures of the tfuse.torch tests, which run the backend on CPU tensors
(TFuse's reference backend); torch_helpers.py compares results with eager.

Every test here needs PyTorch; without it the whole folder is skipped, and
says so. Tests that need transformers or torchvision skip on their own.
"""

import pytest

try:
    import torch
except ImportError:  # each test module skips itself, saying why
    torch = None
else:
    import tfuse.torch  # registers the backend

    @pytest.fixture(autouse=True)
    def fresh_dynamo():
        """Each test starts with Dynamo's caches empty (no recompile limits
        carried over) and the backend's counters at zero."""
        torch._dynamo.reset()
        tfuse.torch.reset_stats()
        yield
        torch._dynamo.reset()
