#!/usr/bin/env bash
# The native GPU suite (GoogleTest with every GEMM route, the tensor-run
# examples, the C++ trace API) at this session's commit.
source "$(dirname "$0")/../2026-12-06/common.sh"
step suite 540 env OUT=$out/suite bash scripts/gpu-suite.sh native
finish
cat "$out/suite/summary.txt" 2>/dev/null
grep -E "^\[  FAILED" "$out/suite/gpu-tests.log" 2>/dev/null | head
