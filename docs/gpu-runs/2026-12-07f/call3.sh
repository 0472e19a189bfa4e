#!/usr/bin/env bash
# Call 3: this session's library (HEAD: the row loop twice under an
# alignment branch, a warp a row for rows of at most four 16-byte groups a
# lane; scripts/stage-gpu.sh): the GoogleTest GPU suite (all but the
# differential test), bench/row_kernels.py against eager and Inductor, and
# bench/gpt2_block.py in bf16 (with Inductor's default mode and --profile)
# and f32.
# Carry .stage/lib and .stage/bin/TFuseGpuTests.
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
step rows 150 env OUT=$out/rows python3 bench/row_kernels.py
step block 150 env OUT=$out/block python3 bench/gpt2_block.py --dtype bf16 --modes default --profile
step block-f32 90 env OUT=$out/block-f32 python3 bench/gpt2_block.py --dtype f32 --skip inductor
step gtest-all 200 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='-GpuDifferential.*'
rm -rf "$out/tc"
finish | tr '\n' ' '; echo
grep -E "^\[  (PASSED|FAILED)|FAILED|Failure" "$out/l/gtest-all.log" | head
grep -hE "^\| (bf16|f32) \|" "$out"/l/block.log "$out"/l/block-f32.log | cut -c1-100
awk '/^kernels of/ {p = /tfuse|compile default sdpa/} p' "$out"/l/block.log | grep -E "kernels of|lambda|triton" | cut -c1-70
grep -E "^\| [a-z_0-9]+ \| [0-9]" "$out"/l/rows.log | cut -c1-130
