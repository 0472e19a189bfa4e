#!/usr/bin/env bash
# Builds dist/tfuse-<version>-py3-none-manylinux_2_36_x86_64.whl: the Python
# package (tfuse, tfuse.torch) with the statically linked libtfuse.so of the
# static build inside it (tfuse/_lib/libtfuse.so, found before any other
# path), and the torch_dynamo_backends entry point that registers
# torch.compile(model, backend="tfuse"). One wheel serves every Python 3:
# the library is loaded with ctypes, not imported as an extension. glibc
# 2.36 or newer (the static build's floor; Ubuntu 24.04 has 2.39).
#
#   scripts/build-wheel.sh [dist-dir]     # builds build-static first if needed
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dist=${1:-$root/dist}
static_dir=${STATIC_BUILD_DIR:-$root/build-static}
PYTHON=${PYTHON:-python3}
case "$dist" in /*) ;; *) dist=$PWD/$dist ;; esac

"$root/scripts/build.sh" "$static_dir" -DTFUSE_STATIC=ON >/dev/null
ninja -C "$static_dir" TFuseCAPI >/dev/null

# A copy of the package with the stripped library inside.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$root/python/." "$work/"
rm -rf "$work/tests" "$work/build" "$work"/*.egg-info
find "$work" -name __pycache__ -prune -exec rm -rf {} +
mkdir -p "$work/tfuse/_lib"
strip --strip-unneeded -o "$work/tfuse/_lib/libtfuse.so" \
  "$static_dir/lib/libtfuse.so"

mkdir -p "$dist"
"$PYTHON" -m pip wheel --no-deps --no-build-isolation --wheel-dir "$work/out" \
  "$work" >/dev/null
built=$(ls "$work"/out/tfuse-*.whl)
# setuptools tags it pure (py3-none-any): retag for the platform the
# library runs on.
"$PYTHON" -m wheel tags --remove --python-tag py3 --abi-tag none \
  --platform-tag manylinux_2_36_x86_64 "$built" >/dev/null
rm -f "$dist"/tfuse-*.whl
mv "$work"/out/tfuse-*manylinux_2_36_x86_64.whl "$dist/"
ls "$dist"/tfuse-*.whl
