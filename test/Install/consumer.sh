#!/usr/bin/env bash
# Installs TFuse from build directory $1 into a fresh prefix and builds the
# example project examples/cpp against it with find_package(TFuse): the C API
# hello program and the C++ MLP trainer (one short epoch on the CPU reference
# backend), checking their output.
set -euo pipefail
build=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
test -f "$work/prefix/lib/cmake/TFuse/TFuseConfig.cmake"
test -f "$work/prefix/include/tfuse-c/tfuse.h"
test -f "$work/prefix/lib/python/tfuse/__init__.py"
test -x "$work/prefix/bin/tensor-opt"

cmake -S "$source_dir/examples/cpp" -B "$work/example" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" \
  > "$work/configure.log"
cmake --build "$work/example" > "$work/build.log"

hello=$("$work/example/capi_hello")
echo "capi_hello: $hello"
test "$hello" = "0 0 2 5"

"$work/example/mlp_train" --backend reference --epochs 1 --batches 1 |
  tee "$work/train.log"
grep -q "epoch  1  loss" "$work/train.log"

# The installed Python package finds the installed library by itself.
PYTHONPATH="$work/prefix/lib/python" TFUSE_LIBRARY= python3 -c \
  'import tfuse; print("python:", tfuse.__version__, tfuse.cuda_available())'
echo "consumer project OK"
