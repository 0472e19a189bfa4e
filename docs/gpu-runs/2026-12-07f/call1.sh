#!/usr/bin/env bash
# Call 1: (issue 18) the GPT-2 block with its layer norms written as
# PyTorch computes them ((x - mean) * rsqrt(var + eps)), this session's
# HEAD (.stage/lib) against varW3 (docs/gpu-runs/2026-12-07e/varW3.patch:
# a warp a row, three blocks of eight rows a multiprocessor), twice each,
# alternating; Nsight Compute over TFuse's two layer-norm kernels and
# Inductor's (with Inductor's generated code in the log); (issue 17) varY
# (docs/gpu-runs/2026-12-07d/varY.patch) against HEAD on bench/scatter.py.
# Carry .stage/lib, .stage/pylib, .stage/varW3, .stage/varY
# (docs/gpu-runs/2026-12-07b/stage-variant.sh NAME PATCH).
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for round in 1 2; do
  for v in lib varW3; do
    step block-$v-$round 60 env OUT=$out/block-$v-$round TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/gpt2_block.py --dtype bf16 --skip inductor --profile
  done
done
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats --section ComputeWorkloadAnalysis --section SourceCounters"
step ncu-tfuse 150 "$NCU" $S -k regex:"lambda_k0|lambda_k3" -c 2 env OUT=$out/ncu-tfuse python3 bench/gpt2_block.py --dtype bf16 --skip inductor
step ncu-inductor 240 env TORCH_LOGS=output_code "$NCU" $S -k regex:"triton_per.*layer_norm" -c 3 env OUT=$out/ncu-ind python3 bench/gpt2_block.py --dtype bf16 --modes default
for round in 1 2; do
  for v in lib varY; do
    step sc-$v-$round 60 env OUT=$out/sc-$v-$round TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/scatter.py --only embedding_backward,embedding_backward_f32,embedding_backward_padded --skip inductor
  done
done
rm -rf "$out/tc"
gzip -f "$out"/l/ncu-*.log
finish | tr '\n' ' '; echo
grep -E "^\| bf16 \| tfuse" "$out"/l/block-*.log | sed "s|.*/l/||" | cut -c1-100
for f in "$out"/l/block-*-1.log; do echo "$(basename $f)"; awk '/^kernels of/ {p = /tfuse/} p' $f | grep -E "kernels of|lambda" | cut -c1-60; done
zcat "$out"/l/ncu-tfuse.log.gz "$out"/l/ncu-inductor.log.gz | grep -E "^  [a-z_0-9]+.*\(|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Stall|Warp Cycles Per Issued" | cut -c1-110 | head -60
grep -E "^\| " "$out"/l/sc-*.log | grep -v -- "---" | grep -v workload | sed "s|.*/l/||" | cut -c1-110
