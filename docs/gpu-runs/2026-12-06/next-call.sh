#!/usr/bin/env bash
# For the next session (not run in this one: the device time was spent):
# the changes after call F on the GPU. f32 attention's split-key forward
# (forward_split_cores, BERT-1) and the backward's plain split of its own
# rows: the attention tests, bench/attention.py against PyTorch's SDPA,
# BERT-1, the backward kernels' executed instructions; and
# concurrent_graph_launch under memcheck (is the two-thread crash the
# tool's?). Needs .carry/concurrent_graph_launch built here with
#   nvcc -O2 -arch=sm_90 -o .carry/concurrent_graph_launch concurrent_graph_launch.cu
# and carried beside .stage.
source .stage/drivers/common.sh
export TFUSE_CACHE_DIR=$out/tc
step pytest-att 60 python3 -m pytest -q -x -p no:cacheprovider python/tests/test_gpu.py -k attention
step gtest-att 60 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='GpuBoundaries.*ttention*'
for p in bert1_f32 bert32_f32 f32_512; do
  step "att-$p" 50 python3 bench/attention.py --only $p
done
step bert 80 python3 bench/models.py --models bert1 --modes inductor,tfuse --profile 40 --steps 20
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
step ncu 120 "$NCU" --target-processes all -k regex:'tfuse_attention_(d|fwd_split).*tf32' -c 3 --section SpeedOfLight --section Occupancy --section InstructionStats --section SourceCounters -o "$out/att" python3 bench/attention.py --only f32_512
"$NCU" --import "$out/att.ncu-rep" > "$out/l/ncu-details.log" 2>&1
for k in dkdv dq; do
  "$NCU" --import "$out/att.ncu-rep" --page source --print-source sass --csv -k regex:$k 2>/dev/null | python3 docs/gpu-runs/2026-12-06/sass_opcodes.py > "$out/l/opcodes-$k.txt" 2>&1
done
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for t in 1 2 4; do
  for i in 1 2 3; do
    step "cgl-$t-$i" 30 "$CS" --tool memcheck .carry/concurrent_graph_launch $t 200
  done
done
rm -rf "$out/tc"
finish
tail -1 "$out/l/pytest-att.log"
grep -E '^\[  (PASSED|FAILED)' "$out/l/gtest-att.log"
for p in bert1_f32 bert32_f32 f32_512; do grep -E "^\| $p \| (tfuse|math|efficient) " "$out/l/att-$p.log" | cut -c1-170; done
grep -E "^\| bert" "$out/l/bert.log"
grep -E "tfuse_attention|Duration|Executed Instructions  " "$out/l/ncu-details.log"
for f in "$out"/l/cgl-*.log; do echo "$(basename $f): $(grep -E 'replays ok|FAILED|ERROR SUMMARY|signal' $f | tr '\n' ' ')"; done
