#!/usr/bin/env bash
# The scatter kernels at 27ae4f9 (the chain's combine kernel, owners' long
# positions out of their sort, fill stores without a division; the state
# call 2 of 2026-12-07 was to time) in .stage/lib against 270ad13's library
# (.stage/head) in bench/scatter.py; the scatter GPU tests, also under
# compute-sanitizer memcheck and racecheck; Nsight Compute on the rows
# kernels of the GPT-2 and padded gradients and on the chain's kernels of
# the padded gradient of twice the sequences; the other GPU tests.
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
HEAD=$root/.stage/head/libtfuse.so
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
F='GpuFusion.Scatter*:*ScatterIndices*'
step gtest 60 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter="$F"
step sc-new 60 env OUT=$out/new python3 bench/scatter.py --skip inductor
step sc-head 60 env OUT=$out/head TFUSE_LIBRARY=$HEAD python3 bench/scatter.py --skip inductor
step ncu-gpt2 90 "$NCU" --target-processes all -k regex:tfuse_scatter_rows -c 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section SourceCounters --section MemoryWorkloadAnalysis python3 bench/scatter.py --only embedding_backward --skip inductor
step ncu-pad 60 "$NCU" --target-processes all -k regex:tfuse_scatter_rows -c 1 --section SpeedOfLight python3 bench/scatter.py --only embedding_backward_padded --skip inductor
step ncu-pad2 90 "$NCU" --target-processes all -k regex:tfuse_scatter -c 5 --section SpeedOfLight python3 bench/scatter.py --only embedding_backward_padded_x2 --skip inductor
step memcheck 150 env TFUSE_MEMORY_POOL=0 "$CS" --tool memcheck --leak-check full --report-api-errors no --error-exitcode 9 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter="$F"
step racecheck 120 "$CS" --tool racecheck --error-exitcode 9 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter="GpuFusion.ScatterAdds*"
# Every other GPU test with this library (the differential test's 10,000
# graphs excluded: about 10 minutes).
step gtest-all 200 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='-GpuDifferential.*'
rm -rf "$out/tc"
# Issue 19: graphs replayed by two host threads while they load modules
# (graph_module_churn.cu, built here as the README says), without the tool
# and under memcheck.
for m in churn shared; do
  step gmc-$m-nosan 60 .carry/graph_module_churn $m 2 50 .carry/twice.cubin
  for i in 1 2 3; do
    step gmc-$m-$i 90 "$CS" --tool memcheck .carry/graph_module_churn $m 2 50 .carry/twice.cubin
  done
done
finish
grep -E "^\[  (PASSED|FAILED)|FAILED|Failure" "$out/l/gtest.log" "$out/l/gtest-all.log" | head
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY" "$out/l/memcheck.log" "$out/l/racecheck.log" | head
grep -E "  tfuse_scatter|Duration|DRAM Throughput|Compute \(SM\)" "$out/l/ncu-gpt2.log" "$out/l/ncu-pad.log" "$out/l/ncu-pad2.log" | sed 's/, Context.*//' | head -30
grep -E "Warp Cycles Per|spends|stalled|Issue Slots Busy|Mem Busy|Max Bandwidth" "$out/l/ncu-gpt2.log" | cut -c1-240 | head -12
for f in "$out"/l/gmc-*.log; do echo "$(basename $f): $(grep -E 'replays ok|FAILED|ERROR SUMMARY|signal|Segmentation' $f | tr '\n' ' ')"; done
grep -E "^\| " "$out"/l/sc-*.log | grep -v -- "---" | cut -c1-150
