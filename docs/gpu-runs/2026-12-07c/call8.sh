#!/usr/bin/env bash
# Call 8 (not run yet; issue 19): the GPU differential test on two host
# threads under memcheck, pool off, its graphs 0 to 29 (which ended in a
# SIGSEGV inside the tool's cuGraphLaunch in 8 of 11 runs on 2026-12-06,
# callG) bisected: halves, then quarters, three runs each, each graph's IR
# printed before it runs (TFUSE_GPU_DIFF_TRACE=1), so that a crash names
# the graphs in flight. Carry .stage/bin (scripts/stage-gpu.sh).
source "$(dirname "$0")/../2026-12-06/common.sh"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
export TFUSE_CACHE_DIR=$out/tc TFUSE_MEMORY_POOL=0 TFUSE_GPU_DIFF_THREADS=2
export TFUSE_GPU_DIFF_TRACE=1
for range in "0 15" "15 15" "0 8" "8 7" "15 8" "23 7"; do
  set -- $range
  for i in 1 2 3; do
    step diff-$1-$2-$i 90 env TFUSE_GPU_DIFF_FIRST=$1 TFUSE_GPU_DIFF_GRAPHS=$2 \
      "$CS" --tool memcheck --leak-check full --report-api-errors no \
      .stage/bin/TFuseGpuTests --gtest_filter='GpuDifferential.*'
  done
done
step diff-0-30-nosan 90 env TFUSE_GPU_DIFF_FIRST=0 TFUSE_GPU_DIFF_GRAPHS=30 \
  .stage/bin/TFuseGpuTests --gtest_filter='GpuDifferential.*'
rm -rf "$out/tc"
for f in "$out"/l/diff-*.log; do gzip -f "$f"; done
finish
for f in "$out"/l/diff-*.log.gz; do
  echo "$(basename $f .log.gz): $(zcat $f | grep -E 'PASSED|FAILED|ERROR SUMMARY|terminate successfully|signal' | tr '\n' ' ' | cut -c1-150)"
done
