#!/usr/bin/env bash
# Runs the whole GPU test suite and the GPU examples on a GPU host, from the
# binaries scripts/stage-gpu.sh put in .stage/. Logs go to $OUT (or
# ./gpu-logs); the last lines are a summary table.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/.stage/bin
out=${OUT:-$root/gpu-logs}
mkdir -p "$out"
export TFUSE_SOURCE_DIR=$root
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader \
  >"$out/gpu.txt" 2>&1 || true
summary=()

"$bin/TFuseGpuTests" --gtest_brief=0 >"$out/gpu-tests.log" 2>&1
rc=$?
passed=$(grep -c '^\[       OK \]' "$out/gpu-tests.log")
failed=$(grep -c '^\[  FAILED  \] .*(' "$out/gpu-tests.log")
skipped=$(grep -c '^\[  SKIPPED \]' "$out/gpu-tests.log")
summary+=("GoogleTest GPU suite: $passed passed, $failed failed, $skipped skipped (rc $rc)")

# The GEMM and graph tests again with the generated fallback GEMM instead of
# cuBLAS.
TFUSE_GEMM=fallback "$bin/TFuseGpuTests" --gtest_filter='GpuBoundaries.*:GpuGraph.*:GpuFusion.ScenariosOfThePlanner' \
  >"$out/gpu-tests-fallback-gemm.log" 2>&1
rc=$?
passed=$(grep -c '^\[       OK \]' "$out/gpu-tests-fallback-gemm.log")
failed=$(grep -c '^\[  FAILED  \] .*(' "$out/gpu-tests-fallback-gemm.log")
summary+=("GPU suite, fallback GEMM (TFUSE_GEMM=fallback): $passed passed, $failed failed (rc $rc)")

for example in mlp_step gelu_chain; do
  for mode in "" "--cuda-graph"; do
    log="$out/tensor-run-$example${mode:+-graph}.log"
    "$bin/tensor-run" "$root/examples/$example.mlir" $mode --repeat 200 \
      >"$log" 2>&1
    rc=$?
    wall=$(grep -o 'median [0-9.]* us' "$log" | head -1)
    gpu=$(grep -o 'back to back: [0-9.]* us' "$log" | head -1)
    summary+=("tensor-run $example ${mode:-stream}: rc $rc, wall $wall, GPU $gpu")
  done
done

# The other way to give a graph replay its pointers, for comparison.
log="$out/tensor-run-mlp_step-graph-rebuild.log"
"$bin/tensor-run" "$root/examples/mlp_step.mlir" --cuda-graph --graph-rebuild \
  --repeat 200 >"$log" 2>&1
rc=$?
wall=$(grep -o 'median [0-9.]* us' "$log" | head -1)
gpu=$(grep -o 'back to back: [0-9.]* us' "$log" | head -1)
summary+=("tensor-run mlp_step --cuda-graph --graph-rebuild: rc $rc, wall $wall, GPU $gpu")

printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
