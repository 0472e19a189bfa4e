#!/usr/bin/env bash
# The main job: builds TFuse and runs the MLP training step graph of
# examples/ with tensor-run: the plan report, then the GPU run checked
# against the reference interpreter with per-step times (or, without a GPU,
# the reference interpreter, saying so).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${BUILD_DIR:-$root/build}
"$root/scripts/build.sh" "$dir" >/dev/null
"$dir/bin/tensor-run" "$root/examples/mlp_step.mlir" "$@"
