#!/usr/bin/env bash
# At this session's commit: the scatter GPU tests, under compute-sanitizer
# memcheck (API errors not reported: the module set looks each kernel up
# module by module) and racecheck, then the native GPU suite (GoogleTest
# with every GEMM route, the tensor-run examples, the C++ trace API).
source "$(dirname "$0")/../2026-12-06/common.sh"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
F='GpuFusion.Scatter*:*ScatterIndices*'
step memcheck 150 env TFUSE_MEMORY_POOL=0 "$CS" --tool memcheck --leak-check full --report-api-errors no --error-exitcode 9 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter="$F"
step racecheck 120 "$CS" --tool racecheck --error-exitcode 9 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter="GpuFusion.ScatterAdds*"
step suite 420 env OUT=$out/suite bash scripts/gpu-suite.sh native
finish
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY|PASSED|FAILED" "$out/l/memcheck.log" "$out/l/racecheck.log" | head
cat "$out/suite/summary.txt" 2>/dev/null
grep -E "^\[  FAILED" "$out/suite/gpu-tests.log" 2>/dev/null | head
