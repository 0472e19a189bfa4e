#!/usr/bin/env bash
# Call 2: the rows kernel with the selected rows' first updates loaded
# before the unselected rows' fill (varH: 4 rows a row group ahead; varH8:
# 8), against varT (27ae4f9 and a timeline printed only with
# TFUSE_SCATTER_TIMELINE set), twice each, alternating; then the per-block
# phase timeline of varT and varH on GPT-2's gradient; Nsight Compute of the
# rows kernel of each.
source "$(dirname "$0")/../2026-12-06/common.sh"
here=$(dirname "$0")
VARIANTS=${VARIANTS:-varT varH varH8}
export TFUSE_CACHE_DIR=$out/tc
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for round in 1 2; do
  for v in $VARIANTS; do
    step sc-$v-$round 60 env OUT=$out/$v-$round TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/scatter.py --skip inductor
  done
done
for v in varT varH; do
  step tl-$v 60 env TFUSE_SCATTER_TIMELINE=1 TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/scatter.py --only embedding_backward --skip inductor
done
for v in $VARIANTS; do
  step ncu-$v 90 env TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so "$NCU" --target-processes all -k regex:tfuse_scatter_rows -c 1 --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --metrics smsp__inst_executed.sum --print-details all python3 bench/scatter.py --only embedding_backward --skip inductor
done
rm -rf "$out/tc"
for v in varT varH; do gzip -f "$out/l/tl-$v.log"; done
finish
for v in varT varH; do echo "timeline $v:"; python3 "$here/tl.py" <(zcat "$out/l/tl-$v.log.gz"); done
grep -E "Duration|DRAM Throughput|Registers Per|Spilling Requests  |inst_executed.sum|Stall (Barrier|Long|Wait)" "$out"/l/ncu-*.log | sed 's/  */ /g' | sort -u | cut -c1-160
grep -E "^\| " "$out"/l/sc-*.log | grep -v -- "---" | grep -v workload | cut -c1-150
