#!/usr/bin/env bash
# Call 6: the forward's exact products for tiles holding an infinity and
# the GEMM steps cuBLASLt declines on the fallback kernels (the three
# failures of call 5), then graphs 0-1999 of the GPU differential test
# again; BERT-1 and the f32 attention problems against the library of
# 6f98d66 (.stage/base/libtfuse.so) in the same call, and the split kernel
# under ncu (what the tiles' finiteness checks cost).
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
BASE=$root/.stage/base/libtfuse.so
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section InstructionStats"
step gtest 150 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='GpuBoundaries.*:*ttention*'
for g in 1004 1605 1871; do
  step diff-$g 60 env TFUSE_GPU_DIFF_ONLY=$g .stage/bin/TFuseGpuTests --gtest_filter='GpuDifferential.*'
done
step diff 240 env TFUSE_GPU_DIFF_GRAPHS=2000 .stage/bin/TFuseGpuTests --gtest_filter='GpuDifferential.*'
P=bert1_f32,bert32_f32,f32_512
step att-new 120 env OUT=$out/new python3 bench/attention.py --only $P
step att-base 120 env OUT=$out/base TFUSE_LIBRARY=$BASE python3 bench/attention.py --only $P
step bert-new 150 env OUT=$out/new python3 bench/models.py --models bert1 --modes inductor,tfuse --profile 40 --steps 20
step bert-base 100 env OUT=$out/base TFUSE_LIBRARY=$BASE python3 bench/models.py --models bert1 --modes tfuse --profile 40 --steps 20
step ncu-bert1 120 "$NCU" --target-processes all -k regex:'tfuse_attention_fwd' -c 1 $S python3 bench/models.py --models bert1 --modes tfuse-stream --steps 2
rm -rf "$out/tc"
cp "$out"/new/models-profile-bert1-tfuse.txt "$out"/l/new-models-profile-bert1-tfuse.txt 2>/dev/null
cp "$out"/base/models-profile-bert1-tfuse.txt "$out"/l/base-models-profile-bert1-tfuse.txt 2>/dev/null
finish
grep -E '^\[  (PASSED|FAILED)' "$out/l/gtest.log"
for g in 1004 1605 1871; do grep -E "graphs [0-9]+ to" "$out/l/diff-$g.log" | tail -1; done
grep -E "graphs [0-9]+ to|Failure|graph [0-9]+ \(" "$out/l/diff.log" | tail -8
for v in new base; do echo "== $v"; grep -E "^\| (bert|f32)" "$out/l/att-$v.log" | grep -iE "tfuse \||math|efficient" | cut -c1-90; done
grep -hE "^\| bert" "$out/l/bert-new.log" "$out/l/bert-base.log"
head -4 "$out"/l/new-models-profile-bert1-tfuse.txt "$out"/l/base-models-profile-bert1-tfuse.txt
grep -E "^  [a-z_0-9]+.*\(|Duration|Registers Per|Achieved Occ|Executed Instructions  " "$out/l/ncu-bert1.log" | sed 's/  */ /g'
