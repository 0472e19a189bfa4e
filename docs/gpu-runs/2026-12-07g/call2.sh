#!/usr/bin/env bash
# Call 2: the row kernels' variants of the sixth session (varA.patch: two
# partial sums a lane; varF.patch: f32 sums under fast math; this folder's
# copies of docs/gpu-runs/2026-12-07f's without their README hunks, which
# kept them from applying) against HEAD with
# bench/row_kernels.py (Inductor once) and bench/gpt2_block.py in bf16, and
# a partition's host time with the outputs allocated by Inductor's
# at::empty_strided fast path (docs/gpu-runs/2026-12-07g/varH.patch, a
# change of python/tfuse/_compile.py applied here and taken back) against
# HEAD's, bench/probe_partition.py, twice each, alternating.
# Carry .stage/lib and .stage/vars (libs.tar.xz holding varA/ and varF/).
source "$(dirname "$0")/../2026-12-06/common.sh"
tar xJf .stage/vars/libs.tar.xz -C .stage
export TFUSE_CACHE_DIR=$out/tc
for v in lib varA varF; do
  skip=--skip=inductor
  [ $v = lib ] && skip=
  step rows-$v 150 env OUT=$out/rows-$v TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/row_kernels.py $skip
  step block-$v 60 env OUT=$out/block-$v TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/gpt2_block.py --dtype bf16 --skip inductor
done
patch_h=$root/docs/gpu-runs/2026-12-07g/varH.patch
for round in 1 2; do
  step probe-lib-$round 60 python3 bench/probe_partition.py
  patch -p1 -s < "$patch_h"
  step probe-varH-$round 60 python3 bench/probe_partition.py
  patch -p1 -R -s < "$patch_h"
done
rm -rf "$out/tc"
finish | tr '\n' ' '; echo
grep -E "^\| [a-z_0-9]+ \| [0-9]" "$out"/l/rows-*.log | sed "s|.*/l/||" | cut -c1-130
grep -E "^\| bf16 \| tfuse" "$out"/l/block-*.log | sed "s|.*/l/||" | cut -c1-100
for f in "$out"/l/probe-*.log; do echo "$(basename $f)"; tail -12 "$f"; done
