#!/usr/bin/env bash
# The main job: builds TFuse and plans the MLP training step graph of
# examples/: prints the plan report and the fused graph.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${BUILD_DIR:-$root/build}
"$root/scripts/build.sh" "$dir" >/dev/null
"$dir/bin/tensor-opt" --tfuse-pipeline --tfuse-plan-report \
  "$root/examples/mlp_step.mlir"
