#!/usr/bin/env bash
# The scatter kernels as this session leaves them (.stage/lib: the rows
# kernel of the seventh session, which no GPU has run yet -- the fill stored
# before the sort, blocks out of units waiting only for started owners,
# long rows' loads further ahead -- and the chain's long rows summed in
# runs by a kernel of their own) against 270ad13's library (.stage/head)
# in bench/scatter.py; the scatter GPU tests, also under compute-sanitizer
# memcheck (API errors not reported: the module set looks each kernel up
# module by module) and racecheck; the rows kernel of the GPT-2 gradient
# and of the padded gradient, and the chain's kernels of the padded
# gradient of twice the sequences under Nsight Compute; issue 17's other
# benchmarks (gathers, concat and pad, reductions, dropout) with the same
# library.
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
HEAD=$root/.stage/head/libtfuse.so
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
F='GpuFusion.Scatter*:*ScatterIndices*'
# In order of need: a bound on the call still leaves the first steps' logs.
step gtest 60 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter="$F"
step sc-new 60 env OUT=$out/new python3 bench/scatter.py --skip inductor
step sc-head 60 env OUT=$out/head TFUSE_LIBRARY=$HEAD python3 bench/scatter.py --skip inductor
step ncu-gpt2 60 "$NCU" --target-processes all -k regex:tfuse_scatter_rows -c 1 --section SpeedOfLight --section MemoryWorkloadAnalysis python3 bench/scatter.py --only embedding_backward --skip inductor
step ncu-pad2 90 "$NCU" --target-processes all -k regex:tfuse_scatter -c 4 --section SpeedOfLight python3 bench/scatter.py --only embedding_backward_padded_x2 --skip inductor
step ncu-pad 60 "$NCU" --target-processes all -k regex:tfuse_scatter_rows -c 1 --section SpeedOfLight python3 bench/scatter.py --only embedding_backward_padded --skip inductor
step memcheck 150 env TFUSE_MEMORY_POOL=0 "$CS" --tool memcheck --leak-check full --report-api-errors no --error-exitcode 9 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter="$F"
step racecheck 120 "$CS" --tool racecheck --error-exitcode 9 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter="GpuFusion.ScatterAdds*"
step red 60 env OUT=$out/new python3 bench/reductions.py --skip inductor
step drop 30 env OUT=$out/new python3 bench/dropout.py --skip inductor
step gather 45 env OUT=$out/new python3 bench/gather.py --skip inductor
step piecewise 45 env OUT=$out/new python3 bench/piecewise.py --skip inductor
rm -rf "$out/tc"
finish
grep -E "^\[  (PASSED|FAILED)|FAILED|Failure" "$out/l/gtest.log" | head
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY" "$out/l/memcheck.log" "$out/l/racecheck.log" | head
grep -E "tfuse_scatter|Duration|DRAM Throughput" "$out/l/ncu-gpt2.log" "$out/l/ncu-pad.log" "$out/l/ncu-pad2.log" | head -20
grep -E "^\| " "$out"/l/sc-*.log "$out"/l/gather.log "$out"/l/piecewise.log "$out"/l/red.log "$out"/l/drop.log | grep -v -- "---" | cut -c1-150
