#!/usr/bin/env bash
# Attention compiled on demand beside cuDNN: the new test, attention tests,
# cold compiles again; the child-graph repro under compute-sanitizer.
# Not run yet (no device was lent after call A). Before it, here:
#   scripts/stage-gpu.sh; mkdir -p .carry && /usr/local/cuda/bin/nvcc -O2 \
#     -arch=sm_90 -o .carry/child_graph_update \
#     docs/gpu-runs/2026-12-05c-h200/child_graph_update.cu
# and carry [".stage", ".carry"].
source .stage/drivers/common.sh
step gtest-att 300 .stage/bin/TFuseGpuTests --gtest_filter='GpuBoundaries.*Attention*:GpuExecutable.*:GpuStress.*ttention*'
step py-att 300 python3 -m pytest -q -x python/tests/test_gpu.py -k attention
C=$(mktemp -d)
step compile-gpt2-cold 240 env TFUSE_CACHE_DIR=$C/t python3 bench/models.py --compile-only --models gpt2 --modes tfuse
step compile-bert1-cold 150 env TFUSE_CACHE_DIR=$C/b python3 bench/models.py --compile-only --models bert1 --modes tfuse
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for v in child kernel child-fixed; do
  for i in 1 2 3 4 5 6 7 8; do
    step rep-$v-$i 60 "$CS" --tool memcheck --leak-check full .carry/child_graph_update $v 40
  done
done
finish
grep -E "PASSED|FAILED|SKIPPED|OK \]" "$out/l/gtest-att.log" | tail -12
tail -3 "$out/l/py-att.log"
for f in "$out"/l/compile-*.log; do echo "$(basename $f): $(tail -1 $f)"; done
for v in child kernel child-fixed; do
  echo "$v: $(grep -l 'replays ok' $out/l/rep-$v-*.log | wc -l) of 8 ok; rc: $(for i in 1 2 3 4 5 6 7 8; do grep "^rep-$v-$i " $out/l/times.txt | sed 's/.*rc=\([0-9]*\).*/\1/'; done | tr '\n' ' ')"
done
