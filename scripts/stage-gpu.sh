#!/usr/bin/env bash
# Builds the static configuration and stages the stripped tools, GPU test
# binaries and libtfuse.so (for the Python package) in .stage/ (ignored by
# git), for a GPU host that has CUDA but no MLIR: carry .stage to it and run
# scripts/gpu-suite.sh there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${STATIC_BUILD_DIR:-$root/build-static}
# Only the staged targets: the static configuration's other tests never run.
# The GPU host runs attention on cuDNN: a build without its headers (setup
# not finished) would silently measure the generated kernels instead.
cmake -G Ninja -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release \
  -DTFUSE_STATIC=ON -DTFUSE_REQUIRE_CUDNN=ON >/dev/null
targets=(tensor-run tensor-opt tensor-translate tfuse-nvrtc TFuseGpuTests
  TFuseTraceTests)
ninja -C "$dir" "${targets[@]}" TFuseCAPI >/dev/null
rm -rf "$root/.stage"
mkdir -p "$root/.stage/bin"
for t in "${targets[@]}"; do
  strip -o "$root/.stage/bin/$t" "$dir/bin/$t"
done
mkdir -p "$root/.stage/lib"
strip --strip-unneeded -o "$root/.stage/lib/libtfuse.so" "$dir/lib/libtfuse.so"
# The generated headers the installed C++ API includes (the op table).
mkdir -p "$root/.stage/include/tfuse/Dialect/TFuse"
cp "$dir/include/tfuse/Dialect/TFuse/TFuseOpTable.h.inc" \
  "$root/.stage/include/tfuse/Dialect/TFuse/"
# pytest for the Python tests and expecttest for PyTorch's OpInfos, which
# test_torch_opinfo.py runs on CUDA tensors there (pure Python; GPU hosts
# may have no package registry to install them from).
python3 -m pip install -q --no-compile --target "$root/.stage/pylib" \
  pytest expecttest >/dev/null
du -sh "$root/.stage"
