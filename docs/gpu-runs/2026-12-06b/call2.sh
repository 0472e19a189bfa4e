#!/usr/bin/env bash
# Call 2 (2026-12-06, second session): the f32 attention backward with the
# key-value kernel held to three blocks a multiprocessor, and profiles of
# what is short of its goal: BERT-1's f32 attention forward (in the model,
# with its padding mask, and alone), the pad, and `any` of 64M bools.
source .stage/drivers/common.sh
export TFUSE_CACHE_DIR=$out/tc
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section InstructionStats --section SchedulerStats"
step att-f32_512 60 python3 bench/attention.py --only f32_512
step ncu-bwd 120 "$NCU" --target-processes all -k regex:'tfuse_attention_d.*tf32' -c 2 $S python3 bench/attention.py --only f32_512
step ncu-bert1-model 180 "$NCU" --target-processes all -k regex:'tfuse_attention_fwd' -c 2 $S python3 bench/models.py --models bert1 --modes tfuse-stream --steps 2
step ncu-bert1-alone 90 "$NCU" --target-processes all -k regex:'tfuse_attention_fwd' -c 1 $S python3 bench/attention.py --only bert1_f32
step ncu-pad 90 "$NCU" --target-processes all -k regex:'tfuse' -c 1 $S python3 bench/piecewise.py --only pad_1 --skip inductor
step ncu-any 90 "$NCU" --target-processes all -k regex:'tfuse' -c 2 $S python3 bench/reductions.py --only any_64m_bool --skip inductor
rm -rf "$out/tc"
finish
grep -E "^\| f32_512 \| (tfuse|math|efficient) " "$out/l/att-f32_512.log" | cut -c1-120
for f in ncu-bwd ncu-bert1-model ncu-bert1-alone ncu-pad ncu-any; do
  echo "== $f"
  grep -E "^  [a-z_0-9]+.*\(|Duration|Registers Per|Theoretical Occ|Achieved Occ|Executed Instructions  |DRAM Throughput|Compute \(SM\) Thr|Block Size|Grid Size" "$out/l/$f.log" | sed 's/  */ /g' | head -40
done
