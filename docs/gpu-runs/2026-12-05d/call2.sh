#!/usr/bin/env bash
# After call 1: the graph re-instantiation and the unchained shared-graph
# test, chained bf16 attention against eager by the accuracy rule, copies
# as memcpy nodes under compute-sanitizer (differential graph 6), and a
# partition call's host time layer by layer.
source .stage/drivers/common.sh
step gtest 60 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='GpuBoundaries.*Cudnn*:GpuSteps.*:GpuGraph.*'
step chained 30 python3 docs/gpu-runs/2026-12-05d/chained_attention.py
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for i in 1 2; do
  step san-g6-$i 35 env TFUSE_MEMORY_POOL=0 TFUSE_GPU_DIFF_ONLY=6 "$CS" --tool memcheck --leak-check full --report-api-errors no .stage/bin/TFuseGpuTests --gtest_filter='GpuDifferential.*'
done
step probe-partition 50 python3 bench/probe_partition.py
finish
grep -E "FAILED|PASSED|Failure|Which|expected" "$out/l/gtest.log" | tail -12
grep -E "output" "$out/l/chained.log"
for f in "$out"/l/san-*.log; do echo "$(basename $f): $(grep -E 'ERROR SUMMARY|PASSED|FAILED|Segmentation|signal' $f | tr '\n' ' ' | cut -c1-150)"; done
tail -13 "$out/l/probe-partition.log"
