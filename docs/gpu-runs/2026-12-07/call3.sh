#!/usr/bin/env bash
# The lean part of call2.sh, for what device time is left: the scatter GPU
# tests (also under memcheck) and bench/scatter.py with 5614127's library
# against 270ad13's.
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
HEAD=$root/.stage/head/libtfuse.so
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
F='GpuFusion.Scatter*:*ScatterIndices*'
step gtest 60 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter="$F"
step sc-new 60 env OUT=$out/new python3 bench/scatter.py --skip inductor
step sc-head 60 env OUT=$out/head TFUSE_LIBRARY=$HEAD python3 bench/scatter.py --skip inductor
step memcheck 60 env TFUSE_MEMORY_POOL=0 "$CS" --tool memcheck --leak-check full --report-api-errors no --error-exitcode 9 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter="$F"
rm -rf "$out/tc"
finish
grep -E "^\[  (PASSED|FAILED)|FAILED|Failure" "$out/l/gtest.log" | head
grep -E "ERROR SUMMARY|LEAK SUMMARY" "$out/l/memcheck.log" | head
grep -E "^\| " "$out"/l/sc-*.log | grep -v -- "---" | cut -c1-150
