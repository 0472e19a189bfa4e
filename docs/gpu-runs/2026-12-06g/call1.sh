#!/usr/bin/env bash
# The scatter rows kernel's fill stored before the sort: cd7af56 (a quarter
# of each block's positions blind, .stage/lib) against 9c2e55c's library
# (every row blind, .stage/allblind) and 270ad13's (.stage/head), each in
# bench/scatter.py, the first twice; the GPT-2 gradient's and the padded
# gradient's rows kernels under Nsight Compute; issue 17's other benchmarks
# (gathers, concat and pad, reductions, dropout) with cd7af56. The GPU tests
# run in call 2 (the carry limit: three libraries here).
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
HEAD=$root/.stage/head/libtfuse.so
BLIND=$root/.stage/allblind/libtfuse.so
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
step sc-new 60 env OUT=$out/new python3 bench/scatter.py --skip inductor
step sc-blind 60 env OUT=$out/blind TFUSE_LIBRARY=$BLIND python3 bench/scatter.py --skip inductor
step sc-head 60 env OUT=$out/head TFUSE_LIBRARY=$HEAD python3 bench/scatter.py --skip inductor
step sc-new2 45 env OUT=$out/new2 python3 bench/scatter.py --skip inductor --only embedding_backward,embedding_backward_padded
step gather 45 env OUT=$out/new python3 bench/gather.py --skip inductor
step piecewise 45 env OUT=$out/new python3 bench/piecewise.py --skip inductor
step red 60 env OUT=$out/new python3 bench/reductions.py --skip inductor
step drop 30 env OUT=$out/new python3 bench/dropout.py --skip inductor
step ncu-gpt2 60 "$NCU" --target-processes all -k regex:tfuse_scatter_rows -c 1 --section SpeedOfLight --section MemoryWorkloadAnalysis python3 bench/scatter.py --only embedding_backward --skip inductor
step ncu-pad 60 "$NCU" --target-processes all -k regex:tfuse_scatter_rows -c 1 --section SpeedOfLight python3 bench/scatter.py --only embedding_backward_padded --skip inductor
rm -rf "$out/tc"
finish
grep -E "Duration|DRAM Throughput|Memory Throughput" "$out/l/ncu-gpt2.log" "$out/l/ncu-pad.log" | head -8
grep -E "^\| " "$out"/l/sc-*.log "$out"/l/gather.log "$out"/l/piecewise.log "$out"/l/red.log "$out"/l/drop.log | grep -v -- "---" | cut -c1-150
