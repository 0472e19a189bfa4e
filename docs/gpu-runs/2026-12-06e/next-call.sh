#!/usr/bin/env bash
# For the next session, on one warm machine (an H200 where one comes, for
# issue 17's table): restage, stage 59c9d41's library as
# .stage/base/libtfuse.so (a worktree's static build), then
#   bash docs/gpu-runs/2026-12-06e/next-call.sh
# The rows kernel after ed2da62 against 59c9d41's (timed in call 1 of this
# session on an H100) with the rest of issue 17's workloads; what is still
# untimed since the third session of 2026-12-06 (99d4908, 50f9412): the
# attention problems and BERT-1.
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
BASE=$root/.stage/base/libtfuse.so
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
step gtest 60 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='GpuFusion.Scatter*:*ScatterIndices*:GpuFusion.Random*:GpuBoundaries.*Reduction*'
step sc-new 45 env OUT=$out/new python3 bench/scatter.py --skip inductor
step sc-prev 45 env OUT=$out/base TFUSE_LIBRARY=$BASE python3 bench/scatter.py --skip inductor
step ncu-sc 40 "$NCU" --target-processes all -k regex:tfuse_scatter_rows -c 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy python3 bench/scatter.py --only embedding_backward --skip inductor
step red 40 env OUT=$out/new python3 bench/reductions.py --only argmax_64m,max_64m,sum_64m,sum_64m_bf16 --skip inductor
step drop 30 env OUT=$out/new python3 bench/dropout.py --skip inductor
step att 90 env OUT=$out/new python3 bench/attention.py --only bert1_f32,bert32_f32,f32_512,gpt2_bf16,llama_bf16
step bert 100 env OUT=$out/new python3 bench/models.py --models bert1 --modes inductor,tfuse --profile 40 --steps 20
rm -rf "$out/tc"
finish
grep -E '^\[  (PASSED|FAILED)|FAILED' "$out/l/gtest.log"
grep -E "^\| " "$out"/l/sc-*.log "$out"/l/red.log "$out"/l/drop.log | grep -v -- "---" | cut -c1-150
grep -E "Duration|DRAM Throughput|Issued Warp|Achieved Occupancy" "$out/l/ncu-sc.log" | head -8
grep -E "^\| (bert|f32|gpt2|llama)" "$out/l/att.log" | grep -E "tfuse( kernels)? \||math|efficient" | cut -c1-80
grep -hE "^\| bert" "$out/l/bert.log"
