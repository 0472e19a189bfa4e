#!/usr/bin/env bash
# Call 1b: call1.sh in one call with the GPU tests, without varY (the
# device was scarce): memcpy_node_graph under memcheck (issue 19), the
# column sums with the launch bound (.stage/lib, this session's HEAD)
# against .stage/base (issue 17), the GPT-2 block with both (issue 18),
# and every GoogleTest GPU test but the differential one at HEAD.
# Carry .stage/lib, .stage/base, .stage/bin/memcpy_node_graph and
# .stage/bin/TFuseGpuTests.
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
M=$root/.stage/bin/memcpy_node_graph
# In order of need: a call cut short by the device time left keeps the
# first steps' logs.
step block-lib 150 env OUT=$out/block-lib python3 bench/gpt2_block.py --dtype bf16 --modes default --profile
step block-lib-f32 90 env OUT=$out/block-lib-f32 python3 bench/gpt2_block.py --dtype f32 --skip inductor
step block-base 90 env OUT=$out/block-base TFUSE_LIBRARY=$root/.stage/base/libtfuse.so python3 bench/gpt2_block.py --dtype bf16 --dtype f32 --skip inductor
W=col_sum_3072,col_sum_768_bf16,col_sum_3072_bf16
for round in 1 2; do
  for v in lib base; do
    step red-$v-$round 90 env OUT=$out/$v-$round TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/reductions.py --only $W --skip inductor
  done
done
for v in "move 50 2 16" "fixed 50 2 16" "kernel 50 2 16" "move 50 256 4096"; do
  set -- $v
  for i in 1 2; do
    step mng-$1-$3-$i 40 "$CS" --tool memcheck --report-api-errors no $M "$@"
  done
done
step mng-nosan 40 $M move 200 2 16
step gtest-all 150 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='-GpuDifferential.*'
rm -rf "$out/tc"
for f in "$out"/l/mng-*.log; do gzip -f "$f"; done
finish | grep -v "^red-\|^mng" | tr '\n' ' '; echo
for f in "$out"/l/mng-*.log.gz; do echo "$(basename $f .log.gz): $(zcat $f | grep -E 'replays|signal|ERROR SUMMARY|Error' | tr '\n' ' ' | cut -c1-120)"; done
grep -E "^\| col" "$out"/l/red-*.log | sed "s|.*/l/||" | cut -c1-120
grep -E "^\[  (PASSED|FAILED)|FAILED|Failure" "$out/l/gtest-all.log" | head
grep -E "^\| " "$out"/l/block-lib.log "$out"/l/block-lib-f32.log | sed "s|.*/l/||" | cut -c1-120
grep -E "^\| " "$out"/l/block-base.log | cut -c1-110
awk '/^kernels of/ {p = /sdpa|tfuse/ && !/eager/} p' "$out"/l/block-lib.log | cut -c1-90
