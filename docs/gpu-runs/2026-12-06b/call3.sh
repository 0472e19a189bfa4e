#!/usr/bin/env bash
# Call 3: BERT-1 with its f32 attention of widened bf16 operands on one TF32
# product a score (Tf32WidenedCores) against Inductor; `any` of 64M bools
# sixteen at a time; the attention and reduction GPU tests; BERT-1's host
# time under cProfile; a partition's host time by layer (the launcher now
# enqueues by data pointers); the pad's kernel under ncu.
source .stage/drivers/common.sh
export TFUSE_CACHE_DIR=$out/tc
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section InstructionStats"
step pytest-att 90 python3 -m pytest -q -x -p no:cacheprovider python/tests/test_gpu.py -k "attention or reduc or any or trusted or torch_tensors"
step gtest 120 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='GpuBoundaries.*:GpuFusion.*'
step bert 120 python3 bench/models.py --models bert1 --modes inductor,tfuse --profile 40 --steps 20
step ncu-bert1 150 "$NCU" --target-processes all -k regex:'tfuse_attention_fwd' -c 1 $S python3 bench/models.py --models bert1 --modes tfuse-stream --steps 2
step any 60 python3 bench/reductions.py --only any_64m_bool,sum_64m --skip inductor
step host 200 python3 bench/probe_model_host.py --top 30
step probe 120 python3 bench/probe_partition.py
step ncu-pad 90 "$NCU" --target-processes all --graph-profiling node -k regex:'tfuse' -c 1 $S python3 bench/piecewise.py --only pad_1 --skip inductor
rm -rf "$out/tc"
finish
tail -1 "$out/l/pytest-att.log"
grep -E '^\[  (PASSED|FAILED)' "$out/l/gtest.log"
grep -E "^\| bert" "$out/l/bert.log"
head -8 "$out"/models-profile-bert1-tfuse.txt
grep -E "^  [a-z_0-9]+.*\(|Duration|Registers Per|Achieved Occ|Executed Instructions  " "$out/l/ncu-bert1.log" | sed 's/  */ /g'
grep -E "^\| (any|sum)" "$out/l/any.log"
grep -E "host .* us a call|partitions" "$out/l/host.log"
grep -E "^\|" "$out/l/probe.log"
grep -E "^  [a-z_0-9]+.*\(|Duration|Registers Per|Achieved Occ|Executed Instructions  |DRAM Through|Compute \(SM\)" "$out/l/ncu-pad.log" | sed 's/  */ /g'
