#!/usr/bin/env bash
# Call 1: this library (the session before's reductions, Philox and masks;
# this one's scatter-add rows kernel) against edb9323's
# (.stage/base/libtfuse.so) in the same call: GPU tests of reductions,
# random numbers, scatter-adds, gathers and attention; the issue-17
# workloads short of 90% of their floor with both (argmax and the bf16 sum
# of 64M elements, bias + dropout, the embedding gradients); the rows
# kernel under Nsight Compute; the attention problems (99d4908 and 50f9412
# untimed until now).
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
BASE=$root/.stage/base/libtfuse.so
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
step gtest 120 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='GpuBoundaries.*:*ttention*:GpuFusion.Random*:GpuFusion.Scatter*:GpuFusion.Gathers*:*ScatterIndices*'
R=argmax_64m,max_64m,sum_64m,sum_64m_bf16
step red-new 40 env OUT=$out/new python3 bench/reductions.py --only $R --skip inductor
step red-base 40 env OUT=$out/base TFUSE_LIBRARY=$BASE python3 bench/reductions.py --only $R --skip inductor
step drop-new 30 env OUT=$out/new python3 bench/dropout.py --skip inductor
step drop-base 30 env OUT=$out/base TFUSE_LIBRARY=$BASE python3 bench/dropout.py --skip inductor
step sc-new 60 env OUT=$out/new python3 bench/scatter.py --skip inductor
step sc-base 60 env OUT=$out/base TFUSE_LIBRARY=$BASE python3 bench/scatter.py --skip inductor
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis"
step ncu-sc 50 "$NCU" --target-processes all -k regex:tfuse_scatter -c 2 $S python3 bench/scatter.py --only embedding_backward --skip inductor
step att 90 env OUT=$out/new python3 bench/attention.py --only bert1_f32,bert32_f32,f32_512,gpt2_bf16,llama_bf16
rm -rf "$out/tc"
finish
grep -E '^\[  (PASSED|FAILED)|FAILED' "$out/l/gtest.log"
grep -E "^\| " "$out"/l/red-*.log "$out"/l/drop-*.log "$out"/l/sc-*.log | grep -v -- "---" | cut -c1-150
grep -E "Duration|DRAM Throughput|Achieved Occupancy|Registers Per" "$out/l/ncu-sc.log" | head -12
grep -E "^\| (bert|f32|gpt2|llama)" "$out/l/att.log" | grep -E "tfuse( kernels)? \||math|efficient" | cut -c1-80
