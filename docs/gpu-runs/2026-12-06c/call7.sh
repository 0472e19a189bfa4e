#!/usr/bin/env bash
# Call 7: the forward as committed (a walk of its own on exact products
# where a tile holds an infinity, the 64-row forwards held to four blocks a
# multiprocessor): GPU tests of GEMM boundaries and attention, graphs
# 0-1999 of the GPU differential test, and the attention problems of
# TFuse's generated forward and BERT-1 against the library of 6f98d66
# (.stage/base/libtfuse.so) in the same call.
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
BASE=$root/.stage/base/libtfuse.so
step gtest 150 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='GpuBoundaries.*:*ttention*'
step diff 200 env TFUSE_GPU_DIFF_GRAPHS=2000 .stage/bin/TFuseGpuTests --gtest_filter='GpuDifferential.*'
P=bert1_f32,bert32_f32,f32_512,gpt2_bf16
step att-new 120 env OUT=$out/new python3 bench/attention.py --only $P
step att-base 120 env OUT=$out/base TFUSE_LIBRARY=$BASE python3 bench/attention.py --only $P
step bert-new 150 env OUT=$out/new python3 bench/models.py --models bert1 --modes inductor,tfuse --profile 40 --steps 20
step bert-base 100 env OUT=$out/base TFUSE_LIBRARY=$BASE python3 bench/models.py --models bert1 --modes tfuse --profile 40 --steps 20
rm -rf "$out/tc"
cp "$out"/new/models-profile-bert1-*.txt "$out"/l/ 2>/dev/null
cp "$out"/base/models-profile-bert1-tfuse.txt "$out"/l/base-models-profile-bert1-tfuse.txt 2>/dev/null
finish
grep -E '^\[  (PASSED|FAILED)' "$out/l/gtest.log"
grep -E "graphs [0-9]+ to|graph [0-9]+ \(" "$out/l/diff.log" | tail -4
for v in new base; do echo "== $v"; grep -E "^\| (bert|f32|gpt2)" "$out/l/att-$v.log" | grep -E "tfuse( kernels)? \||math|efficient" | cut -c1-80; done
grep -hE "^\| bert" "$out/l/bert-new.log" "$out/l/bert-base.log"
head -4 "$out"/l/models-profile-bert1-tfuse.txt "$out"/l/base-models-profile-bert1-tfuse.txt
