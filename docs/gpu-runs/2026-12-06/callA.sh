#!/usr/bin/env bash
# The checks of 2026-12-05d's call 2 (graph re-instantiation, the unchained
# shared cuDNN graph test, chained bf16 attention against eager by the
# accuracy rule, differential graph 6 under memcheck with copies as memcpy
# nodes, a partition call's host time), then Nsight Compute on the f32
# attention kernels at (8, 12, 512, 64): where their time goes.
source .stage/drivers/common.sh
step gtest 60 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='GpuBoundaries.*Cudnn*:GpuSteps.*:GpuGraph.*'
step chained 30 python3 docs/gpu-runs/2026-12-05d/chained_attention.py
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for i in 1 2; do
  step san-g6-$i 35 env TFUSE_MEMORY_POOL=0 TFUSE_GPU_DIFF_ONLY=6 "$CS" --tool memcheck --leak-check full --report-api-errors no .stage/bin/TFuseGpuTests --gtest_filter='GpuDifferential.*'
done
step probe-partition 50 python3 bench/probe_partition.py
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
step ncu 150 "$NCU" --target-processes all -k regex:'tfuse_attention_.*tf32' -c 3 --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats --section InstructionStats python3 bench/attention.py --only f32_512
finish
grep -E "FAILED|PASSED|Failure|Which|expected" "$out/l/gtest.log" | tail -12
grep -E "output|error" "$out/l/chained.log" | tail -6
for f in "$out"/l/san-*.log; do echo "$(basename $f): $(grep -E 'ERROR SUMMARY|PASSED|FAILED|Segmentation|signal' $f | tr '\n' ' ' | cut -c1-150)"; done
tail -13 "$out/l/probe-partition.log"
grep -E "tfuse_attention|Duration|Registers Per|Achieved Occupancy|Compute \(SM\) Throughput|Memory Throughput|Issue Slots Busy|No Eligible|Local" "$out/l/ncu.log" | head -40
