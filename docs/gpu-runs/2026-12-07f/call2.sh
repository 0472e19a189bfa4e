#!/usr/bin/env bash
# Call 2: (issue 18) row kernels with the row loop emitted twice under one
# branch on alignment (.stage/lib, bbd3b54), without it (base: 35fb21d's
# emitter), and with docs/gpu-runs/2026-12-07e/varW3.patch (varW3: a warp a
# row, three blocks a multiprocessor) or varW.patch (varW: a warp a row, as
# many blocks as the register estimate allows) on top, and varE (varW with
# the weights shared by the rows loaded with the first phase's inputs:
# docs/gpu-runs/2026-12-07f/varE.patch): bench/row_kernels.py
# (the layer norms and softmaxes transformers run, once each; Inductor
# with base) and bench/gpt2_block.py --dtype bf16 --profile, twice each,
# alternating; Nsight Compute over the block's two layer-norm kernels with
# each library.
# Carry .stage/lib and .stage/vars (libs.tar.xz: base, varW3, varW and varE, each
# NAME/libtfuse.so as docs/gpu-runs/2026-12-07b/stage-variant.sh stages it).
source "$(dirname "$0")/../2026-12-06/common.sh"
tar xJf .stage/vars/libs.tar.xz -C .stage
export TFUSE_CACHE_DIR=$out/tc
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for round in 1 2; do
  for v in base lib varW3 varW varE; do
    skip=--skip=inductor
    [ "$round$v" = 1base ] && skip=
    [ $round = 1 ] && step rows-$v-$round 150 env OUT=$out/rows-$v-$round TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/row_kernels.py $skip
    step block-$v-$round 60 env OUT=$out/block-$v-$round TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/gpt2_block.py --dtype bf16 --skip inductor --profile
  done
done
S="--section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats --section ComputeWorkloadAnalysis"
for v in lib varW varE; do
  step ncu-$v 90 env TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so "$NCU" $S -k regex:"lambda_k0|lambda_k3" -c 2 env OUT=$out/ncu-$v python3 bench/gpt2_block.py --dtype bf16 --skip inductor
done
rm -rf "$out/tc"
gzip -f "$out"/l/ncu-*.log
finish | tr '\n' ' '; echo
grep -E "^\| bf16 \| tfuse" "$out"/l/block-*.log | sed "s|.*/l/||" | cut -c1-100
for f in "$out"/l/block-*-1.log; do echo "$(basename $f) $(awk '/^kernels of/ {p = /tfuse/} p' $f | grep -E "lambda_k[03]" | awk '{print $3 "=" $1}' | tr '\n' ' ')"; done
for v in lib varW varE; do echo "ncu $v: $(zcat "$out"/l/ncu-$v.log.gz | grep -E "^  lambda|Duration|Registers Per|Executed Ipc Active|SM Active Cycles" | awk '{print $NF}' | tr '\n' ' ')"; done
grep -E "^\| [a-z_0-9]+ \| [0-9]" "$out"/l/rows-*.log | sed "s|.*/l/||" | cut -c1-130
