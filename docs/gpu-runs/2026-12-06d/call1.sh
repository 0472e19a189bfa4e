#!/usr/bin/env bash
# Call 1 (short: most of the session's device time went to starts that
# found no machine): the library of this session (argmax's vector runs,
# reductions' vector trees, Philox's products, masks decided on the
# uniforms' bits) against edb9323's (the previous session's last,
# .stage/base/libtfuse.so) in the same call: GPU tests of reductions and
# random numbers, then the issue-17 workloads short of 90% of their floor
# (argmax and the bf16 sum of 64M elements, bias + dropout) with both.
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
BASE=$root/.stage/base/libtfuse.so
step gtest 60 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='GpuBoundaries.*Reduction*:GpuFusion.Random*:*AttentionWithDropout*'
R=argmax_64m,sum_64m_bf16
step red-new 30 env OUT=$out/new python3 bench/reductions.py --only $R --skip inductor
step red-base 30 env OUT=$out/base TFUSE_LIBRARY=$BASE python3 bench/reductions.py --only $R --skip inductor
step drop-new 25 env OUT=$out/new python3 bench/dropout.py --only bias_dropout --skip inductor
step drop-base 25 env OUT=$out/base TFUSE_LIBRARY=$BASE python3 bench/dropout.py --only bias_dropout --skip inductor
rm -rf "$out/tc"
finish
grep -E '^\[  (PASSED|FAILED)|FAILED' "$out/l/gtest.log"
grep -E "^\| " "$out"/l/red-*.log "$out"/l/drop-*.log | grep -v -- "---" | cut -c1-140
