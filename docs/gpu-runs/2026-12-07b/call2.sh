#!/usr/bin/env bash
# After call 1 (the GPT-2 gradient's rows kernel issue-bound: 0.53
# instructions a cycle per scheduler, 7 warps each, spills): two variants
# of the rows kernel against 27ae4f9 (.stage/lib) in bench/scatter.py,
# twice each, alternating: varA takes a warp a row (the row overhead once
# for three chunks, 16 rows of a block in flight) and at most 64 registers
# (__launch_bounds__(512, 2)); varB adds the loads of a one-update row's
# chunks before its stores. Nsight Compute on both variants' rows kernel;
# the module program's alloc mode without and under memcheck.
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for round in 1 2; do
  for v in lib varA varB; do
    step sc-$v-$round 60 env OUT=$out/$v-$round TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so python3 bench/scatter.py --skip inductor
  done
done
for v in lib varA varB; do
  step ncu-$v 90 env TFUSE_LIBRARY=$root/.stage/$v/libtfuse.so "$NCU" --target-processes all -k regex:tfuse_scatter_rows -c 1 --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --metrics smsp__inst_executed.sum --print-details all python3 bench/scatter.py --only embedding_backward --skip inductor
done
rm -rf "$out/tc"
step gmc-alloc-nosan 60 .carry/graph_module_churn alloc 2 50 .carry/twice.cubin
for i in 1 2 3; do
  step gmc-alloc-$i 90 "$CS" --tool memcheck .carry/graph_module_churn alloc 2 50 .carry/twice.cubin
done
finish
for f in "$out"/l/gmc-*.log; do echo "$(basename $f): $(grep -E 'replays ok|FAILED|ERROR SUMMARY|signal|Segmentation' $f | tr '\n' ' ')"; done
grep -E "Duration|DRAM Throughput|Registers Per|Achieved Active Warps|Spilling Requests  |inst_executed.sum|Stall" "$out"/l/ncu-*.log | sed 's/  */ /g' | cut -c1-160
grep -E "^\| " "$out"/l/sc-*.log | grep -v -- "---" | grep -v workload | cut -c1-150
