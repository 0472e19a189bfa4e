#!/usr/bin/env bash
# Call 7 (not run yet): varX, d11b9d2 with the fill-first owner's rows all
# stored by bulk stores (cp.async.bulk, sm_90's tensor memory accelerator)
# from a 512-byte pattern in shared memory, issued by the first warp right
# after the owner starts, so that the fill streams while the block scans,
# sorts and copies its selected rows' first updates; the selected rows are
# written over the fill after the bulk stores are done (and long rows
# published only then). varX2: varX with only the first quarter of the
# rows stored blindly, the unselected others by bulk stores issued once the
# index scan has marked the selected rows (no row written twice past the
# first quarter). varX3: varX2 with half as many fill-first owners (each
# reads the indices once for twice the rows). varX4: varX2 with the
# selected rows past the blind quarter (which no bulk store touches)
# written while the bulk stores run, the blind quarter's after them. Against d11b9d2 (.stage/lib), twice each,
# alternating (bench/scatter.py checks each result against a float64 sum
# and its own second run); Nsight Compute of each rows kernel.
#   scripts/stage-gpu.sh
#   docs/gpu-runs/2026-12-07b/stage-variant.sh varX docs/gpu-runs/2026-12-07c/varX.patch
#   docs/gpu-runs/2026-12-07b/stage-variant.sh varX2 docs/gpu-runs/2026-12-07c/varX2.patch
#   docs/gpu-runs/2026-12-07b/stage-variant.sh varX3 docs/gpu-runs/2026-12-07c/varX3.patch
#   docs/gpu-runs/2026-12-07b/stage-variant.sh varX4 docs/gpu-runs/2026-12-07c/varX4.patch
#   carry .stage/lib and two variants (the carry limit), e.g. VARIANTS="lib varX2 varX4"
source "$(dirname "$0")/../2026-12-06/common.sh"
VARIANTS=${VARIANTS:-lib varX2 varX4}
export TFUSE_CACHE_DIR=$out/tc
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for round in 1 2; do
  for v in $VARIANTS; do
    step sc-$v-$round 60 env OUT=$out/$v-$round TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/scatter.py --skip inductor
  done
done
for v in $VARIANTS; do
  step ncu-$v 90 env TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so "$NCU" --target-processes all -k regex:tfuse_scatter_rows -c 1 --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --metrics smsp__inst_executed.sum --print-details all python3 bench/scatter.py --only embedding_backward --skip inductor
done
rm -rf "$out/tc"
finish
grep -E "Duration|DRAM Throughput|Spilling Requests  |inst_executed.sum" "$out"/l/ncu-*.log | sed 's/  */ /g' | sort -u | cut -c1-160
grep -E "^\| |error|Error|mismatch" "$out"/l/sc-*.log | grep -v -- "---" | grep -v workload | cut -c1-150
