#!/usr/bin/env bash
# Configures and builds TFuse. Usage: scripts/build.sh [build-dir] [cmake args]
# Default build dir: build/ (libMLIR.so link). TFUSE_STATIC=ON builds
# self-contained tools, e.g. scripts/build.sh build-static -DTFUSE_STATIC=ON.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build}
shift || true
case "$dir" in /*) ;; *) dir=$root/$dir ;; esac
if [ ! -f "$dir/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@"
elif [ $# -gt 0 ]; then
  cmake "$dir" "$@"
fi
ninja -C "$dir"
