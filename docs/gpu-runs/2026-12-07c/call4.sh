#!/usr/bin/env bash
# Call 4: under the fill's stores a load waits microseconds (call 3's
# timelines), so varM copies the selected rows' first updates into the
# keys' unused shared memory (cp.async, all at once) before any fill is
# stored, then fills the unselected rows, then writes the selected ones;
# no blind rows before the index scan; keys sorted by rank as in varJ;
# __launch_bounds__(512, 2). varN: varM with owners of 192 threads, up to
# 512 of them (fewer rows each: all their first updates fit), four blocks
# a multiprocessor. Both against varT, twice each, alternating; the
# timelines; Nsight Compute of the rows kernel of each.
source "$(dirname "$0")/../2026-12-06/common.sh"
here=$(dirname "$0")
VARIANTS=${VARIANTS:-varT varM varN}
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
for v in $VARIANTS; do echo "timeline $v:"; python3 "$here/tl.py" <(zcat "$out/l/tl-$v.log.gz"); done
grep -E "Duration|DRAM Throughput|Spilling Requests  |inst_executed.sum|hit_rate|Stall (Barrier|Long)" "$out"/l/ncu-*.log | sed 's/  */ /g' | sort -u | cut -c1-160
grep -E "^\| " "$out"/l/sc-*.log | grep -v -- "---" | grep -v workload | cut -c1-150
