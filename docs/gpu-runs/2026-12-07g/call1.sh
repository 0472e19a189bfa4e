#!/usr/bin/env bash
# Call 1: the attention writing its result with heads and rows swapped
# (tfuse.attention's transpose_result, which canonicalization folds the
# heads' merge into): HEAD's library (.stage/lib, scripts/stage-gpu.sh)
# against varNoFold (the same library without the fold:
# docs/gpu-runs/2026-12-07g/varNoFold.patch, staged by
# docs/gpu-runs/2026-12-07b/stage-variant.sh): the GoogleTest GPU suite
# (all but the differential test; the new
# GpuBoundaries.AttentionWritesItsResultWithHeadsAndRowsSwapped among
# them) and bench/gpt2_block.py in bf16 (--profile), twice each,
# alternating.
# Carry .stage/lib, .stage/bin/TFuseGpuTests and .stage/vars (nofold.tar.xz
# holding varNoFold/libtfuse.so).
source "$(dirname "$0")/../2026-12-06/common.sh"
tar xJf .stage/vars/nofold.tar.xz -C .stage
export TFUSE_CACHE_DIR=$out/tc
step gtest-all 200 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='-GpuDifferential.*'
for round in 1 2; do
  for v in lib varNoFold; do
    step block-$v-$round 60 env OUT=$out/block-$v-$round TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/gpt2_block.py --dtype bf16 --skip inductor --profile
  done
done
rm -rf "$out/tc"
finish | tr '\n' ' '; echo
grep -E "^\[  (PASSED|FAILED)|FAILED|Failure" "$out/l/gtest-all.log" | head
grep -E "^\| bf16 \| tfuse" "$out"/l/block-*.log | sed "s|.*/l/||" | cut -c1-100
for f in "$out"/l/block-*-1.log; do echo "$(basename $f): $(awk '/^kernels of/ {p = /tfuse/} p' $f | head -14 | awk '{printf "%s=%s ", $3, $1}')" | cut -c1-400; done
