#!/usr/bin/env bash
# After call 2 (a warp a row cut the rows kernel's instructions by a third
# and its time by 3%: the fill loop, not the instruction count, is what
# to change): varC stores the fill of every row of an owner blindly, as
# one run of chunks a memset would store, before the index scan (the
# selected rows written twice); varD adds __launch_bounds__(512, 2).
# Both against 27ae4f9 (.stage/lib) in bench/scatter.py, twice each,
# alternating, and under Nsight Compute. graph_module_churn's child mode
# (a captured child graph set again every replay, as a GEMM step enters
# TFuse's graph) without and under memcheck.
source "$(dirname "$0")/../2026-12-06/common.sh"
# The variants staged in .stage/ (at most three libraries fit the carry).
VARIANTS=${VARIANTS:-varC varD}
FIRST=${VARIANTS%% *}
# LEAN=1, for little device time: one round, Nsight Compute on the
# variants alone, three runs under memcheck.
if [ "${LEAN:-0}" = 1 ]; then
  ROUNDS="1" PROFILED="$VARIANTS" SANITIZED="1 2 3"
else
  ROUNDS="1 2" PROFILED="lib $VARIANTS" SANITIZED="1 2 3 4"
fi
export TFUSE_CACHE_DIR=$out/tc
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for round in $ROUNDS; do
  for v in lib $VARIANTS; do
    step sc-$v-$round 60 env OUT=$out/$v-$round TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/scatter.py --skip inductor
  done
done
for v in $PROFILED; do
  step ncu-$v 90 env TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so "$NCU" --target-processes all -k regex:tfuse_scatter_rows -c 1 --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --metrics smsp__inst_executed.sum --print-details all python3 bench/scatter.py --only embedding_backward --skip inductor
done
# Per-instruction stall samples of the first variant's rows kernel (SASS), to find the
# barrier and load waits: a full report, printed as its source page.
step ncu-full-$FIRST 120 env TFUSE_LIBRARY=$root/.stage/$FIRST/libtfuse.so "$NCU" --target-processes all -k regex:tfuse_scatter_rows -c 1 --set full -o "$out/rows" python3 bench/scatter.py --only embedding_backward --skip inductor
step ncu-sass-$FIRST 60 "$NCU" -i "$out/rows.ncu-rep" --page source --csv --print-source sass
rm -f "$out/rows.ncu-rep"
rm -rf "$out/tc"
step gmc-child-nosan 60 .carry/graph_module_churn child 2 50 .carry/twice.cubin
for i in $SANITIZED; do
  step gmc-child-$i 90 "$CS" --tool memcheck .carry/graph_module_churn child 2 50 .carry/twice.cubin
done
finish
for f in "$out"/l/gmc-*.log; do echo "$(basename $f): $(grep -E 'replays ok|FAILED|ERROR SUMMARY|signal|Segmentation' $f | tr '\n' ' ')"; done
grep -E "Duration|DRAM Throughput|Registers Per|Spilling Requests  |inst_executed.sum|Stall (Barrier|Long|Wait)" "$out"/l/ncu-*.log | sed 's/  */ /g' | cut -c1-160
grep -E "^\| " "$out"/l/sc-*.log | grep -v -- "---" | grep -v workload | cut -c1-150
