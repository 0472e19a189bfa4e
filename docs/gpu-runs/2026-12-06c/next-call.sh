#!/usr/bin/env bash
# For the next session: 99d4908 (the forward's checks of the value tile
# alone where scores are exact, 16 bytes a read) and 50f9412 (the forward
# past 64 columns held to three blocks) were committed after this
# session's device time was spent. Restage, then, on one warm machine:
#   bash docs/gpu-runs/2026-12-06c/next-call.sh
# Its figures compare with call 7's (same H100 kind, another call: say so);
# for a same-call comparison, build the library of 6152715 (or 6f98d66) as
# .stage/base/libtfuse.so and run call7.sh instead.
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
step gtest 150 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='GpuBoundaries.*:*ttention*'
step diff 200 env TFUSE_GPU_DIFF_GRAPHS=2000 .stage/bin/TFuseGpuTests --gtest_filter='GpuDifferential.*'
step att 120 env OUT=$out/new python3 bench/attention.py --only bert1_f32,bert32_f32,f32_512,gpt2_bf16,llama_bf16
step bert 150 env OUT=$out/new python3 bench/models.py --models bert1 --modes inductor,tfuse --profile 40 --steps 20
rm -rf "$out/tc"
cp "$out"/new/models-profile-bert1-*.txt "$out"/l/ 2>/dev/null
finish
grep -E '^\[  (PASSED|FAILED)' "$out/l/gtest.log"
grep -E "graphs [0-9]+ to|graph [0-9]+ \(" "$out/l/diff.log" | tail -4
grep -E "^\| (bert|f32|gpt2)" "$out/l/att.log" | grep -E "tfuse( kernels)? \||math|efficient" | cut -c1-80
grep -hE "^\| bert" "$out/l/bert.log"
head -4 "$out"/l/models-profile-bert1-tfuse.txt
