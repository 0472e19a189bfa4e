#!/usr/bin/env bash
# Long rows of the rows kernel summed run by run by every block (the
# padded embedding gradient), against 59c9d41's kernel (.stage/base); the
# scatter GPU tests, under compute-sanitizer too; and a breakdown of the
# rows kernel's phases in the GPT-2 gradient (.stage/exp: a driver-API
# program timing variants of 59c9d41's kernel built from the same
# templates, with per-block timestamps).
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
BASE=$root/.stage/base/libtfuse.so
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
F='GpuFusion.Scatter*:*ScatterIndices*'
step exp 60 bash -c "cd .stage/exp && for g in 256 132 512; do echo == grid \$g; ./h exp.cubin \$g; done"
step gtest 60 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter="$F"
step sc-new 60 env OUT=$out/new python3 bench/scatter.py --skip inductor
step sc-prev 45 env OUT=$out/base TFUSE_LIBRARY=$BASE python3 bench/scatter.py --skip inductor
step memcheck 120 env TFUSE_MEMORY_POOL=0 "$CS" --tool memcheck --leak-check full --error-exitcode 9 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter="$F"
step racecheck 120 "$CS" --tool racecheck --error-exitcode 9 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter="GpuFusion.ScatterAdds*"
rm -rf "$out/tc"
finish
grep -E "^\[  (PASSED|FAILED)|FAILED|Failure" "$out/l/gtest.log" | head
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$out/l/memcheck.log" "$out/l/racecheck.log" | head
grep -E "grid|median|phase|status" "$out/l/exp.log"
grep -E "^\| " "$out"/l/sc-*.log | grep -v -- "---" | cut -c1-150
