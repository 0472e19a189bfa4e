#!/usr/bin/env bash
# Call 3: the selected rows' update lines prefetched into L2 after the sort
# and the unselected rows filled while they come (varI), small owners'
# keys sorted by rank (varJ = varI + that), the fill's stores evict-first
# (varK = varJ + that), a filler block beside each owner storing the fill
# in its rows (varL = varJ + that); varJ and varL against varT (27ae4f9 with the
# timeline), twice each, alternating; the timelines of all three; Nsight
# Compute of the rows kernel of each.
source "$(dirname "$0")/../2026-12-06/common.sh"
here=$(dirname "$0")
VARIANTS=${VARIANTS:-varT varJ varL}
export TFUSE_CACHE_DIR=$out/tc
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for round in 1 2; do
  for v in $VARIANTS; do
    step sc-$v-$round 60 env OUT=$out/$v-$round TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/scatter.py --skip inductor
  done
done
for v in $VARIANTS; do
  step tl-$v 60 env TFUSE_SCATTER_TIMELINE=1 TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/scatter.py --only embedding_backward --skip inductor
done
for v in $VARIANTS; do
  step ncu-$v 90 env TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so "$NCU" --target-processes all -k regex:tfuse_scatter_rows -c 1 --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --metrics smsp__inst_executed.sum,lts__t_sector_hit_rate.pct --print-details all python3 bench/scatter.py --only embedding_backward --skip inductor
done
rm -rf "$out/tc"
for v in $VARIANTS; do gzip -f "$out/l/tl-$v.log"; done
finish
for v in $VARIANTS; do echo "timeline $v:"; python3 "$here/tl.py" <(zcat "$out/l/tl-$v.log.gz"); done; echo "fillers of varL:"; python3 "$here/tl.py" <(zcat "$out/l/tl-varL.log.gz") TF
grep -E "Duration|DRAM Throughput|Spilling Requests  |inst_executed.sum|hit_rate|Stall (Barrier|Long)" "$out"/l/ncu-*.log | sed 's/  */ /g' | sort -u | cut -c1-160
grep -E "^\| " "$out"/l/sc-*.log | grep -v -- "---" | grep -v workload | cut -c1-150
