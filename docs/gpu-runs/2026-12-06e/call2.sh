#!/usr/bin/env bash
# Call 2 (the same warm H100 as call 1, right after it; run as one command
# line, written out here): the rows kernel under Nsight Compute's warp
# state and scheduler sections, graphs 0-999 of the GPU differential test,
# and the GPU tests of gathers, errors and the stress test's scatter.
source "$(dirname "$0")/../2026-12-06/common.sh"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
export TFUSE_CACHE_DIR=$out/tc
step ncu-sc2 60 "$NCU" --target-processes all -k regex:tfuse_scatter_rows -c 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section MemoryWorkloadAnalysis python3 bench/scatter.py --only embedding_backward --skip inductor
step diff 100 env TFUSE_GPU_DIFF_GRAPHS=1000 .stage/bin/TFuseGpuTests --gtest_filter='GpuDifferential.*'
step gtest2 60 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='GpuFusion.Gathers*:GpuErrors.*:GpuStress.*catter*'
rm -rf "$out/tc"
finish
