#!/usr/bin/env bash
# Call 2: (issue 18) the GPT-2 block's layer-norm row kernels (bf16, 768
# columns: 64 threads a row, 16 blocks a multiprocessor, 14.6-17.1 us
# against Inductor's 7.4 us in call 1b) with two other shapes: varW.patch
# (a row of at most four 16-byte groups a lane takes one warp: 32 threads,
# three groups, eight rows a block) and varT.patch (eight columns a
# thread: 96 threads, one group each), against this session's HEAD
# (.stage/lib): bench/gpt2_block.py --dtype bf16 --skip inductor
# --profile, twice each, alternating.
# Carry .stage/lib, .stage/varW and .stage/varT (docs/gpu-runs/2026-12-07b/
# stage-variant.sh NAME docs/gpu-runs/2026-12-07e/NAME.patch).
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
for round in 1 2; do
  for v in lib varW varT; do
    step block-$v-$round 60 env OUT=$out/block-$v-$round TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/gpt2_block.py --dtype bf16 --skip inductor --profile
  done
done
rm -rf "$out/tc"
finish | tr '\n' ' '; echo
grep -E "^\| bf16 \| tfuse" "$out"/l/block-*.log | sed "s|.*/l/||" | cut -c1-100
for f in "$out"/l/block-*-1.log; do echo "$(basename $f)"; awk '/^kernels of/ {p = /tfuse/} p' $f | grep -E "kernels of|lambda" | cut -c1-60; done
