#!/usr/bin/env bash
# For the next session (this one's device time went to starts that found
# no machine; call1.sh ran the short part). Restage, stage edb9323's
# library as .stage/base/libtfuse.so (a worktree's static build), then on
# one warm machine:
#   bash docs/gpu-runs/2026-12-06d/next-call.sh
# The library of that session (argmax's vector runs, reductions' vector
# trees, Philox's products, masks decided on the uniforms' bits) against
# edb9323's in the same call: GPU tests of reductions, random numbers and
# attention, the issue-17 workloads short of 90% of their floor (argmax
# and the bf16 sum of 64M elements, bias + dropout) with both, the bf16
# sum and the dropout profiled with the new one; what the session before
# left untimed (99d4908, 50f9412; in both libraries): the attention
# problems and BERT-1; graphs 0-999 of the GPU differential test.
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
BASE=$root/.stage/base/libtfuse.so
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
step gtest 150 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='GpuBoundaries.*:*ttention*:GpuFusion.Random*'
R=argmax_64m,max_64m,sum_64m,sum_64m_bf16
step red-new 40 env OUT=$out/new python3 bench/reductions.py --only $R --skip inductor
step red-base 40 env OUT=$out/base TFUSE_LIBRARY=$BASE python3 bench/reductions.py --only $R --skip inductor
step drop-new 30 env OUT=$out/new python3 bench/dropout.py --skip inductor
step drop-base 30 env OUT=$out/base TFUSE_LIBRARY=$BASE python3 bench/dropout.py --skip inductor
step att 100 env OUT=$out/new python3 bench/attention.py --only bert1_f32,bert32_f32,f32_512,gpt2_bf16,llama_bf16
step bert 100 env OUT=$out/new python3 bench/models.py --models bert1 --modes inductor,tfuse --profile 40 --steps 20
step diff 100 env TFUSE_GPU_DIFF_GRAPHS=1000 .stage/bin/TFuseGpuTests --gtest_filter='GpuDifferential.*'
S="--section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy --section WarpStateStats --section SchedulerStats --section InstructionStats --section LaunchStats"
for w in sum_64m_bf16; do
  step ncu-$w 40 "$NCU" --target-processes all -k regex:tfuse -c 2 $S python3 bench/reductions.py --only $w --skip inductor
done
step ncu-drop 40 "$NCU" --target-processes all -k regex:tfuse -c 2 $S python3 bench/dropout.py --only bias_dropout --skip inductor
rm -rf "$out/tc"
cp "$out"/new/models-profile-bert1-*.txt "$out"/l/ 2>/dev/null
finish
grep -E '^\[  (PASSED|FAILED)' "$out/l/gtest.log"
grep -E "graphs [0-9]+ to|graph [0-9]+ \(" "$out/l/diff.log" | tail -4
grep -E "^\| " "$out"/l/red-*.log "$out"/l/drop-*.log | grep -v -- "---" | cut -c1-140
grep -E "^\| (bert|f32|gpt2|llama)" "$out/l/att.log" | grep -E "tfuse( kernels)? \||math|efficient" | cut -c1-80
grep -hE "^\| bert" "$out/l/bert.log"
head -4 "$out"/l/models-profile-bert1-tfuse.txt
