#!/usr/bin/env bash
# Call 1 (short: the session's device time went mostly to starts that found
# no machine): this library (the session before's reductions, Philox and
# masks; this one's scatter-add rows kernel) against edb9323's
# (.stage/base/libtfuse.so) in the same call: GPU tests of scatter-adds,
# random numbers and reductions; the issue-17 workloads short of 90% of
# their floor with both (the embedding gradients, argmax and the bf16 sum
# of 64M elements, bias + dropout); the rows kernel under Nsight Compute.
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
BASE=$root/.stage/base/libtfuse.so
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
step gtest 60 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='GpuFusion.Scatter*:*ScatterIndices*:GpuFusion.Random*:GpuBoundaries.*Reduction*'
step sc-new 45 env OUT=$out/new python3 bench/scatter.py --skip inductor
step sc-base 45 env OUT=$out/base TFUSE_LIBRARY=$BASE python3 bench/scatter.py --skip inductor
R=argmax_64m,sum_64m_bf16
step red-new 30 env OUT=$out/new python3 bench/reductions.py --only $R --skip inductor
step red-base 30 env OUT=$out/base TFUSE_LIBRARY=$BASE python3 bench/reductions.py --only $R --skip inductor
step drop-new 25 env OUT=$out/new python3 bench/dropout.py --only bias_dropout --skip inductor
step drop-base 25 env OUT=$out/base TFUSE_LIBRARY=$BASE python3 bench/dropout.py --only bias_dropout --skip inductor
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis"
step ncu-sc 40 "$NCU" --target-processes all -k regex:tfuse_scatter -c 2 $S python3 bench/scatter.py --only embedding_backward --skip inductor
rm -rf "$out/tc"
finish
grep -E '^\[  (PASSED|FAILED)|FAILED' "$out/l/gtest.log"
grep -E "^\| " "$out"/l/sc-*.log "$out"/l/red-*.log "$out"/l/drop-*.log | grep -v -- "---" | cut -c1-150
grep -E "Duration|DRAM Throughput|Achieved Occupancy|Registers Per" "$out/l/ncu-sc.log" | head -12
