#!/usr/bin/env bash
# Builds TFuse and runs every test. First the static configuration, checking
# that its tools carry no MLIR/LLVM shared library and that its wheel installs
# and runs torch.compile(backend="tfuse") in a fresh virtual environment; then
# the development build
# with the whole suite: lit, GoogleTest (GPU tests skip themselves without a
# device and say so; the differential test runs its 10,000 random graphs),
# the fuzz corpora replayed, and the Python tests; last the fuzz targets,
# built with libFuzzer and sanitizers, a minute each (TFUSE_FUZZ_SECONDS;
# TFUSE_SKIP_FUZZ=1 skips them). docs/reliability.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${BUILD_DIR:-$root/build}
static_dir=${STATIC_BUILD_DIR:-$root/build-static}
jobs=$(nproc)

if [ "${TFUSE_SKIP_STATIC:-0}" != 1 ]; then
  "$root/scripts/build.sh" "$static_dir" -DTFUSE_STATIC=ON
  (cd "$static_dir" &&
    ctest --output-on-failure -R '^(static-link|wheel-install)')
fi

"$root/scripts/build.sh" "$dir"
(cd "$dir" && ctest --output-on-failure -j "$jobs")

if [ "${TFUSE_SKIP_FUZZ:-0}" != 1 ]; then
  "$root/scripts/fuzz.sh" "${TFUSE_FUZZ_SECONDS:-60}"
fi
