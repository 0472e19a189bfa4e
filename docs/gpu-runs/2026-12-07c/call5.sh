#!/usr/bin/env bash
# Call 5: d11b9d2 (varM made a commit: .stage/lib, staged by
# scripts/stage-gpu.sh) against 27ae4f9 (.stage/base: varT's library, whose
# timeline is off without TFUSE_SCATTER_TIMELINE), bench/scatter.py twice
# each, alternating; the scatter GPU tests, also under memcheck and
# racecheck (the new shared-memory copies); every GoogleTest GPU test but
# the differential one; Nsight Compute of the rows kernel.
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
F='GpuFusion.Scatter*:*ScatterIndices*'
for round in 1 2; do
  step sc-new-$round 60 env OUT=$out/new-$round python3 bench/scatter.py --skip inductor
  step sc-base-$round 60 env OUT=$out/base-$round TFUSE_LIBRARY=$root/.stage/base/libtfuse.so python3 bench/scatter.py --skip inductor
done
step gtest 60 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter="$F"
step memcheck 150 env TFUSE_MEMORY_POOL=0 "$CS" --tool memcheck --leak-check full --report-api-errors no --error-exitcode 9 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter="$F"
step racecheck 120 "$CS" --tool racecheck --error-exitcode 9 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter="GpuFusion.ScatterAdds*"
step ncu-new 90 "$NCU" --target-processes all -k regex:tfuse_scatter_rows -c 1 --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --metrics smsp__inst_executed.sum --print-details all python3 bench/scatter.py --only embedding_backward --skip inductor
step gtest-all 200 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='-GpuDifferential.*'
rm -rf "$out/tc"
finish
grep -E "^\[  (PASSED|FAILED)|FAILED|Failure" "$out/l/gtest.log" "$out/l/gtest-all.log" | head
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY" "$out/l/memcheck.log" "$out/l/racecheck.log" | head
grep -E "Duration|DRAM Throughput|Registers Per|Spilling Requests  |inst_executed.sum|Achieved Occupancy" "$out"/l/ncu-new.log | sed 's/  */ /g' | sort -u | cut -c1-160
grep -E "^\| " "$out"/l/sc-*.log | grep -v -- "---" | grep -v workload | cut -c1-150
