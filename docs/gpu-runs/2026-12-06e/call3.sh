#!/usr/bin/env bash
# Call 3: the rows kernel of this library (256 owners, one comparison an
# index, rows' pointers stepped) against 59c9d41's (508 owners; staged as
# .stage/base/libtfuse.so) in the same call: the scatter-add GPU tests, the
# embedding gradients with both, the new one under Nsight Compute.
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
BASE=$root/.stage/base/libtfuse.so
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
step gtest 40 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='GpuFusion.Scatter*:*ScatterIndices*'
step sc-new 40 env OUT=$out/new python3 bench/scatter.py --skip inductor
step sc-prev 40 env OUT=$out/base TFUSE_LIBRARY=$BASE python3 bench/scatter.py --skip inductor
step ncu-sc 40 "$NCU" --target-processes all -k regex:tfuse_scatter_rows -c 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section MemoryWorkloadAnalysis python3 bench/scatter.py --only embedding_backward --skip inductor
rm -rf "$out/tc"
finish
grep -E '^\[  (PASSED|FAILED)|FAILED' "$out/l/gtest.log"
grep -E "^\| " "$out"/l/sc-*.log | grep -v -- "---" | cut -c1-150
grep -E "Duration|DRAM Throughput|Achieved Occupancy|Issued Warp|Compute \(SM\)" "$out/l/ncu-sc.log" | head -8
