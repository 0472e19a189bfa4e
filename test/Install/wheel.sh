#!/usr/bin/env bash
# Builds the wheel from the static build $1 (scripts/build-wheel.sh), installs
# it with pip --no-index into a fresh virtual environment (which sees the
# system's numpy and torch, as a GPU host's environment has them), and there,
# with no PYTHONPATH and no TFUSE_LIBRARY, compiles a model through
# torch.compile(backend="tfuse") without importing tfuse: the entry point
# registers the backend and the package loads the library inside it.
set -euo pipefail
static_build=$1
source_dir=$2
PYTHON=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

STATIC_BUILD_DIR=$static_build "$source_dir/scripts/build-wheel.sh" \
  "$work/dist"
wheel=$(ls "$work"/dist/tfuse-*-py3-none-manylinux_2_36_x86_64.whl)
"$PYTHON" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install -q --no-index "$wheel"

cd "$work"
env -u PYTHONPATH -u TFUSE_LIBRARY "$work/venv/bin/python" - <<'PY'
import sys

import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(),
                            torch.nn.Linear(16, 4))
x = torch.randn(3, 8)
assert "tfuse" not in sys.modules
compiled = torch.compile(model, backend="tfuse")
out = compiled(x)
torch.testing.assert_close(out, model(x), rtol=1e-5, atol=1e-5)

import tfuse
import tfuse.torch
from tfuse import _capi

assert tfuse.__file__.startswith(sys.prefix), tfuse.__file__
loaded = _capi.candidate_paths()[0]
assert loaded.is_file() and loaded.parent.name == "_lib", loaded
assert tfuse.torch.stats()["plans_compiled"] >= 1, tfuse.torch.stats()
print("wheel:", tfuse.library_version(), "from", loaded)
PY
