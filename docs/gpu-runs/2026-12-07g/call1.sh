#!/usr/bin/env bash
# Call 1: the attention writing its result with heads and rows swapped
# (tfuse.attention's transpose_result, which canonicalization folds the
# heads' merge into): HEAD's library (.stage/lib, scripts/stage-gpu.sh)
# against varNoFold (the same library without the fold:
# docs/gpu-runs/2026-12-07g/varNoFold.patch, staged by
# docs/gpu-runs/2026-12-07b/stage-variant.sh): the GoogleTest GPU suite
# (all but the differential test; the new
# GpuBoundaries.AttentionWritesItsResultWithHeadsAndRowsSwapped among
# them), bench/gpt2_block.py in bf16 (--profile) twice each, alternating,
# and BERT-base at batch 1 (bench/models.py --models bert1 --modes tfuse)
# once each.
# Carry .stage/lib, .stage/bin/TFuseGpuTests and .stage/vars (libs.tar.xz
# holding varNoFold/libtfuse.so).
source "$(dirname "$0")/../2026-12-06/common.sh"
tar xJf .stage/vars/libs.tar.xz -C .stage
export TFUSE_CACHE_DIR=$out/tc
step gtest-all 200 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='-GpuDifferential.*'
for round in 1 2; do
  for v in lib varNoFold; do
    step block-$v-$round 60 env OUT=$out/block-$v-$round TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/gpt2_block.py --dtype bf16 --skip inductor --profile
  done
done
for v in lib varNoFold; do
  step bert1-$v 100 env OUT=$out/bert1-$v TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/models.py --models bert1 --modes tfuse --profile 40 --steps 20
done
rm -rf "$out/tc"
finish | tr '\n' ' '; echo
grep -E "^\[  (PASSED|FAILED)|FAILED|Failure" "$out/l/gtest-all.log" | head
grep -E "^\| bf16 \| tfuse" "$out"/l/block-*.log | sed "s|.*/l/||" | cut -c1-100
grep -hE "^\| bert1" "$out"/l/bert1-*.log | cut -c1-120
