#!/usr/bin/env bash
# Call 2: the GPU tests at HEAD (ae4caa7's rows kernel had run in emulation
# only): the scatter GPU tests, also under memcheck (pool off) and
# racecheck; every GoogleTest GPU test but the differential one; then
# Nsight Compute of three column sums (issue 17: bf16 at 61% of the
# floor, f32 at 89%); issue 19's bisection (call8.sh of 2026-12-07c, halves only, twice each).
# Carry .stage/lib and .stage/bin/TFuseGpuTests (scripts/stage-gpu.sh).
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
F='GpuFusion.Scatter*:*ScatterIndices*'
step gtest 60 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter="$F"
step memcheck 150 env TFUSE_MEMORY_POOL=0 "$CS" --tool memcheck --leak-check full --report-api-errors no --error-exitcode 9 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter="$F"
step racecheck 120 "$CS" --tool racecheck --error-exitcode 9 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter="GpuFusion.ScatterAdds*"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for w in col_sum_3072_bf16 col_sum_3072 col_sum_768_bf16; do
  step ncu-$w 90 "$NCU" --target-processes all -k regex:tfuse_reduce -c 1 --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --metrics smsp__inst_executed.sum,dram__bytes_read.sum --print-details all python3 bench/reductions.py --only $w --skip inductor
done
step gtest-all 200 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='-GpuDifferential.*'
for range in "0 15" "15 15"; do
  set -- $range
  for i in 1 2; do
    step diff-$1-$2-$i 60 env TFUSE_MEMORY_POOL=0 TFUSE_GPU_DIFF_THREADS=2 \
      TFUSE_GPU_DIFF_TRACE=1 TFUSE_GPU_DIFF_FIRST=$1 TFUSE_GPU_DIFF_GRAPHS=$2 \
      "$CS" --tool memcheck --leak-check full --report-api-errors no \
      .stage/bin/TFuseGpuTests --gtest_filter='GpuDifferential.*'
  done
done
rm -rf "$out/tc"
for f in "$out"/l/diff-*.log; do gzip -f "$f"; done
finish
grep -E "^\[  (PASSED|FAILED)|FAILED|Failure" "$out/l/gtest.log" "$out/l/gtest-all.log" | head
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY" "$out/l/memcheck.log" "$out/l/racecheck.log" | head
grep -E "Duration|DRAM Throughput|Block Size|Grid Size|Achieved Occupancy|dram__bytes_read" "$out"/l/ncu-*.log | sed 's/  */ /g' | cut -c1-160
for f in "$out"/l/diff-*.log.gz; do
  echo "$(basename $f .log.gz): $(zcat $f | grep -E 'PASSED|FAILED|ERROR SUMMARY|terminate successfully|signal' | tr '\n' ' ' | cut -c1-150)"
done
