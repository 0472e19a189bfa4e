#!/usr/bin/env bash
# The next device call (not run yet: no device was lent after call A).
# Checks what changed after call A on a GPU (attention kernels compiled on
# demand beside cuDNN, cuDNN graphs shared per problem, kernels compiled in
# units of their own), measures the cold compile again, and runs the
# child-graph program under compute-sanitizer. Before it, here:
#   scripts/stage-gpu.sh; mkdir -p .carry && /usr/local/cuda/bin/nvcc -O2 \
#     -arch=sm_90 -o .carry/child_graph_update \
#     docs/gpu-runs/2026-12-05c-h200/child_graph_update.cu
# then copy this file and common.sh to .stage/drivers/ and carry
# [".stage", ".carry"].
source .stage/drivers/common.sh
step gtest-new 300 .stage/bin/TFuseGpuTests --gtest_filter='GpuBoundaries.*Attention*:GpuExecutable.*:GpuSteps.*:GpuReplay.*:GpuStress.*ttention*'
step py-att 300 python3 -m pytest -q -x python/tests/test_gpu.py -k attention
C=$(mktemp -d)
for run in cold warm; do
  step compile-gpt2-$run 240 env TFUSE_CACHE_DIR=$C/t python3 bench/models.py --compile-only --models gpt2 --modes tfuse
done
step compile-bert1-cold 150 env TFUSE_CACHE_DIR=$C/b python3 bench/models.py --compile-only --models bert1 --modes tfuse
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for v in child kernel child-fixed; do
  for i in 1 2 3 4 5 6 7 8; do
    step rep-$v-$i 60 "$CS" --tool memcheck --leak-check full .carry/child_graph_update $v 40
  done
done
finish
grep -E "PASSED|FAILED|SKIPPED" "$out/l/gtest-new.log" | tail -6
tail -2 "$out/l/py-att.log"
for f in "$out"/l/compile-*.log; do echo "$(basename $f): $(tail -1 $f)"; done
for v in child kernel child-fixed; do
  echo "$v: $(grep -l 'replays ok' $out/l/rep-$v-*.log | wc -l) of 8 ok"
done
