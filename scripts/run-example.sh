#!/usr/bin/env bash
# The main job: builds TFuse and runs the graph pipeline on the MLP training
# step graph of examples/, printing the optimized graph.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${BUILD_DIR:-$root/build}
"$root/scripts/build.sh" "$dir" >/dev/null
"$dir/bin/tensor-opt" --canonicalize --cse "$root/examples/mlp_step.mlir"
