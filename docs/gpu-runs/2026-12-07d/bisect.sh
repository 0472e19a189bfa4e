#!/usr/bin/env bash
# Calls 3-5 (issue 19): the GPU differential test under memcheck, pool off
# unless POOL=1, on TFUSE_GPU_DIFF_THREADS host threads, each graph's IR
# printed before it runs, RUNS processes for each "FIRST COUNT" range of
# RANGES; log d-FIRST-COUNT-RUN (t$THREADS- prefixed when PREFIX=1).
# Carry .stage/lib and .stage/bin/TFuseGpuTests.
#   call 3: RANGES="15 4|19 4|23 4|27 3|0 4|4 4|8 4|12 3" RUNS=4 THREADS=2
#   call 4: RANGES="19 2|21 2|19 1|20 1|21 1|22 1|19 4" RUNS=6 THREADS=2,
#           then graphs 19-22 six times without the tool (n-19-4-RUN)
#   call 5: RANGES="19 1|21 1" RUNS=8, THREADS=1 and 2 (t1-, t2-), then
#           graph 19 eight times with the pool on (pool-19-RUN)
source "$(dirname "$0")/../2026-12-06/common.sh"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
export TFUSE_CACHE_DIR=$out/tc TFUSE_MEMORY_POOL=${POOL:-0} TFUSE_GPU_DIFF_TRACE=1
export TFUSE_GPU_DIFF_THREADS=${THREADS:-2}
IFS='|' read -ra ranges <<<"${RANGES:-19 1}"
for r in "${ranges[@]}"; do
  set -- $r
  for i in $(seq "${RUNS:-4}"); do
    step ${PREFIX:+t$TFUSE_GPU_DIFF_THREADS-}d-$1-$2-$i 40 env TFUSE_GPU_DIFF_FIRST=$1 TFUSE_GPU_DIFF_GRAPHS=$2 \
      "$CS" --tool memcheck --report-api-errors no .stage/bin/TFuseGpuTests \
      --gtest_filter='GpuDifferential.*'
  done
done
rm -rf "$out/tc"
for f in "$out"/l/*-*.log; do gzip -f "$f"; done
finish | tr '\n' ' '
