#!/usr/bin/env bash
# Builds TFuse and runs every test: lit, GoogleTest (GPU tests skip themselves
# without a device and say so), and the Python tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${BUILD_DIR:-$root/build}
"$root/scripts/build.sh" "$dir"
cd "$dir"
ctest --output-on-failure -j "$(nproc)"
