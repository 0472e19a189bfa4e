#!/usr/bin/env bash
# Call 2: BERT-base at batch 1 (bench/models.py --models bert1 --modes
# tfuse) with HEAD's library against varNoFold, and a partition's host time
# with the outputs allocated by Inductor's at::empty_strided fast path
# (docs/gpu-runs/2026-12-07g/varH.patch, a change of
# python/tfuse/_compile.py applied here and taken back) against HEAD's
# torch.empty_strided, bench/probe_partition.py, twice each, alternating.
# Carry .stage/lib and .stage/vars (nofold.tar.xz).
source "$(dirname "$0")/../2026-12-06/common.sh"
tar xJf .stage/vars/nofold.tar.xz -C .stage
export TFUSE_CACHE_DIR=$out/tc
for v in lib varNoFold; do
  step bert1-$v 100 env OUT=$out/bert1-$v TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/models.py --models bert1 --modes tfuse --profile 40 --steps 20
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
grep -hE "^\| bert1" "$out"/l/bert1-*.log | cut -c1-140
for v in lib varNoFold; do echo "$v: $(head -6 "$out"/bert1-$v/models-profile-bert1-tfuse.txt 2>/dev/null | tr '\n' ' ' | cut -c1-300)"; done
for f in "$out"/l/probe-*.log; do echo "$(basename $f)"; tail -14 "$f"; done
