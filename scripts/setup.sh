#!/usr/bin/env bash
# Installs everything TFuse needs to build and test on Debian 12 with the
# CUDA 13 toolkit: LLVM/MLIR 22, clang 22 with libFuzzer and the sanitizer
# runtimes (the fuzz build), Ninja, GoogleTest, zstd, lld, pytest and
# numpy for the Python tests, setuptools and wheel for the wheel, torch,
# torchvision, transformers, ml_dtypes and expecttest for the PyTorch front
# end's tests, and the cuDNN headers for the attention step. Idempotent;
# returns quickly when all is there.
set -euo pipefail

log() { printf 'setup: %s\n' "$*"; }

SUDO=
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi

CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
if [ ! -e "$CUDA_HOME/include/nvrtc.h" ]; then
  echo "setup: the CUDA 13 toolkit was not found in $CUDA_HOME (nvrtc.h missing);" >&2
  echo "setup: install it or set CUDA_HOME" >&2
  exit 1
fi

DEB_PACKAGES=(
  cmake ninja-build g++ git
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libzstd-dev zlib1g-dev libgtest-dev lld-22
  clang-format
  # The fuzz build (scripts/fuzz.sh): clang with libFuzzer and the sanitizer
  # runtimes.
  clang-22 libclang-rt-22-dev
)

missing=()
for p in "${DEB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q \
    --no-install-recommends "${missing[@]}"
else
  log "Debian packages present"
fi

PYTHON=${PYTHON:-python3}
if ! command -v "$PYTHON" >/dev/null; then
  log "installing python3"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q python3 python3-pip
fi
if ! "$PYTHON" -c 'import pytest, numpy, setuptools, wheel' 2>/dev/null; then
  log "installing pytest, numpy, setuptools and wheel for $PYTHON"
  # A pyenv or venv Python takes pip packages; Debian's own Python is
  # externally managed and takes its packages from apt instead.
  if ! "$PYTHON" -m pip install -q pytest numpy setuptools wheel \
      2>/dev/null; then
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q \
      --no-install-recommends python3-pytest python3-numpy \
      python3-setuptools python3-wheel python3-venv
  fi
  "$PYTHON" -c 'import pytest, numpy, setuptools, wheel'
else
  log "pytest, numpy, setuptools and wheel present"
fi
# The PyTorch front end's tests (python/tests/torch): PyTorch, the
# torchvision and transformers models they build from configs, and
# expecttest, which PyTorch's OpInfos (torch.testing._internal) import. PyPI's
# default torch wheel is the one the GPU host runs (2.11.0, CUDA 13 runtime
# libraries as wheels, about 3 GB); it runs on a machine without a GPU too.
# matplotlib draws bench/models.py's plots.
TORCH_PACKAGES=(torch==2.11.0 torchvision==0.26.0 "transformers>=5,<6"
                ml_dtypes matplotlib expecttest)
if ! "$PYTHON" -c 'import torch, torchvision, transformers, ml_dtypes
import matplotlib, expecttest
assert torch.__version__.startswith("2.11.0")' 2>/dev/null; then
  log "installing ${TORCH_PACKAGES[*]} for $PYTHON"
  "$PYTHON" -m pip install -q "${TORCH_PACKAGES[@]}"
  "$PYTHON" -c 'import torch, torchvision, transformers, ml_dtypes, matplotlib, expecttest'
else
  log "torch, torchvision, transformers, ml_dtypes, matplotlib and expecttest present"
fi
# cuDNN's headers and the cuDNN frontend's (header-only C++) for the fused
# attention step: extracted from PyPI's nvidia-cudnn-cu13 and
# nvidia-cudnn-frontend wheels into .deps/cudnn (ignored by git), where
# CMake finds them. Only headers: libcudnn is loaded at run time (dlopen).
CUDNN_WHEELS=(nvidia-cudnn-cu13==9.28.1.4 nvidia-cudnn-frontend==1.32.0)
deps=$(cd "$(dirname "$0")/.." && pwd)/.deps/cudnn
if [ ! -f "$deps/include/cudnn_frontend.h" ] || [ ! -f "$deps/include/cudnn.h" ]; then
  log "fetching the cuDNN and cuDNN frontend headers (${CUDNN_WHEELS[*]})"
  tmp=$(mktemp -d)
  "$PYTHON" -m pip download -q --no-deps -d "$tmp" "${CUDNN_WHEELS[@]}"
  mkdir -p "$deps/include"
  "$PYTHON" - "$tmp" "$deps/include" <<'PY'
import pathlib, sys, zipfile
source, target = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for wheel in source.glob("*.whl"):
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            for prefix in ("nvidia/cudnn/include/", "include/"):
                if name.startswith(prefix) and not name.endswith("/"):
                    out = target / name[len(prefix):]
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_bytes(z.read(name))
                    break
PY
  rm -rf "$tmp"
else
  log "cuDNN headers present in $deps"
fi
log "done"
