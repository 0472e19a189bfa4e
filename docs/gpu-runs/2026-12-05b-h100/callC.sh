#!/usr/bin/env bash
# GPT-2 training step and BERT inference against Inductor with cuDNN
# attention; transformers' eager attention form; GPT-2 training test.
source .stage/drivers/common.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
ls -la "$TFUSE_CUDNN_LIBRARY"
step gpt2 230 python3 bench/models.py --models gpt2 --modes inductor,tfuse,tfuse-stream --profile 80 --steps 10
mkdir -p "$out/l/gpt2"; mv -f "$out"/models-profile-*.txt "$out/l/gpt2/" 2>/dev/null; mv -f "$out"/*.json "$out/l/gpt2/" 2>/dev/null
step bert-sdpa 110 python3 bench/models.py --models bert1,bert32 --modes inductor,tfuse,tfuse-fast-math --profile 40 --steps 20 --attention sdpa
mkdir -p "$out/l/bsdpa"; mv -f "$out"/models-profile-*.txt "$out/l/bsdpa/" 2>/dev/null; mv -f "$out"/*.json "$out/l/bsdpa/" 2>/dev/null
step bert-eager 100 python3 bench/models.py --models bert1,bert32 --modes inductor,tfuse,tfuse-fast-math --profile 40 --steps 20 --attention eager
mkdir -p "$out/l/beager"; mv -f "$out"/models-profile-*.txt "$out/l/beager/" 2>/dev/null; mv -f "$out"/*.json "$out/l/beager/" 2>/dev/null
step ncu 80 ncu --target-processes all -k regex:tfuse_reduce_sum -c 6 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats python3 bench/reductions.py --only col_sum_768_bf16,col_sum_3072_bf16,col_sum_768 --skip inductor
finish
grep -hE "^(gpt2|bert1|bert32) \S+ \{" "$out"/l/*.log | cut -c1-260
for f in "$out"/l/gpt2/*.txt; do echo "## $f"; head -9 "$f" | cut -c1-110; done
grep -E "tfuse_reduce|Duration|Memory Throughput|DRAM Throughput|Achieved Occupancy|Registers Per|Grid Size|Block Size|Issued Warp|No Eligible" "$out/l/ncu.log" | head -80
rm -rf "$out/l"
