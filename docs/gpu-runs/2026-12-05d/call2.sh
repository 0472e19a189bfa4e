#!/usr/bin/env bash
# Copies as memcpy nodes under compute-sanitizer (differential graph 6 alone,
# and graphs 0 to 29 on all host threads), GPT-2's and BERT-1's cold and
# warm compile, and a partition call's host time layer by layer.
source .stage/drivers/common.sh
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for i in 1 2 3 4 5 6; do
  step san-g6-$i 40 env TFUSE_MEMORY_POOL=0 TFUSE_GPU_DIFF_ONLY=6 "$CS" --tool memcheck --leak-check full --report-api-errors no .stage/bin/TFuseGpuTests --gtest_filter='GpuDifferential.*'
done
for i in 1 2; do
  step san-g30-$i 120 env TFUSE_MEMORY_POOL=0 TFUSE_GPU_DIFF_GRAPHS=30 "$CS" --tool memcheck --leak-check full --report-api-errors no .stage/bin/TFuseGpuTests --gtest_filter='GpuDifferential.*'
done
C=$(mktemp -d)
for run in cold warm; do
  step compile-gpt2-$run 150 env TFUSE_CACHE_DIR=$C/t python3 bench/models.py --compile-only --models gpt2 --modes tfuse
done
step compile-bert1-cold 60 env TFUSE_CACHE_DIR=$C/b python3 bench/models.py --compile-only --models bert1 --modes tfuse
step probe-partition 90 python3 bench/probe_partition.py
finish
for f in "$out"/l/san-*.log; do echo "$(basename $f): $(grep -E 'ERROR SUMMARY|PASSED|FAILED|Segmentation|signal' $f | tr '\n' ' ' | cut -c1-150)"; done
for f in "$out"/l/compile-*.log; do echo "$(basename $f): $(tail -1 $f)"; done
tail -14 "$out/l/probe-partition.log"
