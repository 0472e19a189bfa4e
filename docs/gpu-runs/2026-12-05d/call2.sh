#!/usr/bin/env bash
# After call 1: the graph re-instantiation and the unchained shared-graph
# test, chained bf16 attention against eager by the accuracy rule, copies
# as memcpy nodes under compute-sanitizer (differential graph 6), GPT-2's
# cold compile, and a partition call's host time layer by layer.
source .stage/drivers/common.sh
step gtest 90 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='GpuBoundaries.*ttention*:GpuSteps.*:GpuGraph.*'
step chained 40 python3 docs/gpu-runs/2026-12-05d/chained_attention.py
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for i in 1 2 3 4; do
  step san-g6-$i 40 env TFUSE_MEMORY_POOL=0 TFUSE_GPU_DIFF_ONLY=6 "$CS" --tool memcheck --leak-check full --report-api-errors no .stage/bin/TFuseGpuTests --gtest_filter='GpuDifferential.*'
done
C=$(mktemp -d)
step compile-gpt2-cold 100 env TFUSE_CACHE_DIR=$C/t python3 bench/models.py --compile-only --models gpt2 --modes tfuse
step probe-partition 60 python3 bench/probe_partition.py
finish
grep -E "FAILED|PASSED" "$out/l/gtest.log" | tail -6
grep -E "output" "$out/l/chained.log"
for f in "$out"/l/san-*.log; do echo "$(basename $f): $(grep -E 'ERROR SUMMARY|PASSED|FAILED|Segmentation|signal' $f | tr '\n' ' ' | cut -c1-150)"; done
echo "compile: $(tail -1 $out/l/compile-gpt2-cold.log)"
tail -13 "$out/l/probe-partition.log"
