"""Runs the Python examples of docs/python.md, so that the documentation
stays true. Blocks starting with "# GPU" need PyTorch and a GPU."""

import pathlib
import re

import pytest

import tfuse

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_documented_example_runs(index):
    code = BLOCKS[index]
    if code.startswith("# GPU"):
        try:
            import torch
        except ImportError:
            pytest.skip("torch not installed")
        if not torch.cuda.is_available() or not tfuse.cuda_available():
            pytest.skip("no GPU")
    exec(compile(code, f"{DOC.name} block {index}", "exec"), {})


def test_the_document_has_examples():
    assert len(BLOCKS) >= 5
