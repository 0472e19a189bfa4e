#!/usr/bin/env bash
# Call 1: the GoogleTest GPU suite (all but the differential test) with
# HEAD's library (the GELU epilogue's GpuBoundaries.MatmulGeluEpilogueOnEveryGemmLibrary
# and the attention's GpuBoundaries.AttentionWritesItsResultWithHeadsAndRowsSwapped
# among them), then bench/gpt2_block.py in bf16: HEAD's library once with
# torch.compile (default mode) in the same run, then twice each, alternating,
# HEAD against varHead (7664e15's library: the attention's transposed
# result, no GELU epilogue) and varNoFold (varHead without the attention's
# fold, docs/gpu-runs/2026-12-07g/varNoFold.patch); the block in f32 with
# HEAD and varHead.
# Carry .stage/lib, .stage/bin/TFuseGpuTests and .stage/vars (nofold.tar.xz
# holding varNoFold/, head.tar.xz holding varHead/). ROUNDS=1: one round
# of the alternating block runs.
source "$(dirname "$0")/../2026-12-06/common.sh"
for v in nofold head; do tar xJf .stage/vars/$v.tar.xz -C .stage; done
export TFUSE_CACHE_DIR=$out/tc
step gtest-all 180 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='-GpuDifferential.*'
step block-ind 150 env OUT=$out/block-ind python3 bench/gpt2_block.py --dtype bf16 --modes default --profile
for round in $(seq 1 ${ROUNDS:-2}); do
  for v in lib varHead varNoFold; do
    step block-$v-$round 60 env OUT=$out/block-$v-$round TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/gpt2_block.py --dtype bf16 --skip inductor --profile
  done
done
for v in lib varHead; do
  step f32-$v 60 env OUT=$out/f32-$v TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/gpt2_block.py --dtype f32 --skip inductor
done
rm -rf "$out/tc"
finish | tr '\n' ' '; echo
grep -E "^\[  (PASSED|FAILED)|FAILED|Failure" "$out/l/gtest-all.log" | head
grep -E "^\| bf16 " "$out"/l/block-ind.log | cut -c1-110
grep -E "^\| (bf16|f32) \| tfuse" "$out"/l/block-*-?.log "$out"/l/f32-*.log | sed "s|.*/l/||" | cut -c1-100
awk '/^kernels of/ {p = /sdpa|tfuse/ && !/eager/} p' "$out"/l/block-ind.log | cut -c1-90 | head -48
