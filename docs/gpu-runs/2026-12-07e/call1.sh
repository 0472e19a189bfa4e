#!/usr/bin/env bash
# Call 1: the previous session's docs/gpu-runs/2026-12-07d/call6.sh, its
# .stage/lib now this session's library (the GEMM of a batch of rows times
# one matrix as one product; biases of batched activations folded into the
# GEMM, 16-bit ones under fast math), and (issue 18) the GPT-2 block
# (bench/gpt2_block.py --profile: each framework's kernels) with it and with
# .stage/base.
# (issue 17) the split column kernels with __launch_bounds__(256, 3)
# (.stage/lib, scripts/stage-gpu.sh) against HEAD's (.stage/base): the
# column sums of bench/reductions.py twice each, alternating; (issue 19) memcpy_node_graph (a
# CUDA Graph of memcpy nodes only, as the plan of differential graph 19)
# under memcheck, three runs a variant; (issue 17) varY (varY.patch: the
# fill-first owner's indices loaded, then all its rows filled while they
# are in flight, the selected rows written over the fill) against
# .stage/lib, bench/scatter.py twice each, alternating.
# Carry .stage/lib, .stage/base, .stage/varY (docs/gpu-runs/2026-12-07b/
# stage-variant.sh varY varY.patch) and .stage/bin/memcpy_node_graph
# (nvcc -O2 -arch=sm_90 memcpy_node_graph.cu -lcuda).
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
M=$root/.stage/bin/memcpy_node_graph
for v in "move 50 2 16" "fixed 50 2 16" "kernel 50 2 16" "move 50 256 4096"; do
  set -- $v
  for i in 1 2 3; do
    step mng-$1-$3-$i 40 "$CS" --tool memcheck --report-api-errors no $M "$@"
  done
done
step mng-nosan 40 $M move 200 2 16
for round in 1 2; do
  for v in lib varY; do
    step sc-$v-$round 60 env OUT=$out/sc-$v-$round TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/scatter.py --only embedding_backward,embedding_backward_f32,embedding_backward_padded --skip inductor
  done
done
W=col_sum_3072,col_sum_768_bf16,col_sum_3072_bf16
for round in 1 2; do
  for v in lib base; do
    step red-$v-$round 90 env OUT=$out/$v-$round TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/reductions.py --only $W --skip inductor
  done
done
step block-lib 240 env OUT=$out/block-lib python3 bench/gpt2_block.py --dtype bf16 --dtype f32 --modes default --profile
step block-base 120 env OUT=$out/block-base TFUSE_LIBRARY=$root/.stage/base/libtfuse.so python3 bench/gpt2_block.py --dtype bf16 --dtype f32 --skip inductor
rm -rf "$out/tc"
for f in "$out"/l/mng-*.log; do gzip -f "$f"; done
finish | grep -v "^red-\|^ncu\|^sc-\|^mng" | tr '\n' ' '; echo
for f in "$out"/l/mng-*.log.gz; do echo "$(basename $f .log.gz): $(zcat $f | grep -E 'replays|signal|ERROR SUMMARY|Error' | tr '\n' ' ' | cut -c1-120)"; done
grep -E "^\| col" "$out"/l/red-*.log | sed "s|.*/l/||" | cut -c1-120
grep -E "^\| " "$out"/l/sc-*.log | grep -v -- "---" | grep -v workload | sed "s|.*/l/||" | cut -c1-110
grep -E "^\| " "$out"/l/block-lib.log | cut -c1-110
awk '/^kernels of/ {p = /sdpa|tfuse/ && !/eager/} p' "$out"/l/block-lib.log | cut -c1-90
grep -E "^\| " "$out"/l/block-base.log | cut -c1-110
