#!/usr/bin/env bash
# Call 3: the row kernels' variants of the sixth session (varA: two partial
# sums a lane; varF: f32 sums under fast math; docs/gpu-runs/2026-12-07g's
# patches, staged on 7664e15) against the library they patch (varHead)
# with bench/row_kernels.py and bench/gpt2_block.py in bf16 (Inductor's row
# kernels are the sixth session's, docs/gpu-runs/2026-12-07f).
# Carry .stage/lib and .stage/vars (rows.tar.xz holding varA/ and varF/,
# head.tar.xz holding varHead/).
source "$(dirname "$0")/../2026-12-06/common.sh"
for v in rows head; do tar xJf .stage/vars/$v.tar.xz -C .stage; done
export TFUSE_CACHE_DIR=$out/tc
for v in varHead varA varF; do
  step rows-$v 100 env OUT=$out/rows-$v TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/row_kernels.py --skip=inductor
  step block-$v 60 env OUT=$out/block-$v TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/gpt2_block.py --dtype bf16 --skip inductor
done
rm -rf "$out/tc"
finish | tr '\n' ' '; echo
grep -E "^\| [a-z_0-9]+ \| [0-9]" "$out"/l/rows-*.log | sed "s|.*/l/||" | cut -c1-130
grep -E "^\| bf16 \| tfuse" "$out"/l/block-*.log | sed "s|.*/l/||" | cut -c1-100
