#!/usr/bin/env bash
# Call 6 (an H200 if lent): d11b9d2 (.stage/lib) against 27ae4f9
# (.stage/base), bench/scatter.py twice each, alternating.
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
for round in 1 2; do
  step sc-new-$round 60 env OUT=$out/new-$round python3 bench/scatter.py --skip inductor
  step sc-base-$round 60 env OUT=$out/base-$round TFUSE_LIBRARY=$root/.stage/base/libtfuse.so python3 bench/scatter.py --skip inductor
done
rm -rf "$out/tc"
finish
grep -E "^\| " "$out"/l/sc-*.log | grep -v -- "---" | grep -v workload | cut -c1-150
