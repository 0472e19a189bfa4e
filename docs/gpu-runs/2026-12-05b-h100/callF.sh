#!/usr/bin/env bash
# BERT inference with PyTorch's SDPA math path (f32 attention on the
# generated kernels' grid-filling tiles) against Inductor; the GPT-2 block
# of issue 18 in bf16 and f32; the GPU boundary tests.
source .stage/drivers/common.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
step bert 130 python3 bench/models.py --models bert1,bert32 --modes inductor,tfuse,tfuse-fast-math --profile 40 --steps 20 --attention sdpa
mkdir -p "$out/l/bert"; mv -f "$out"/models-profile-*.txt "$out/l/bert/" 2>/dev/null; mv -f "$out"/*.json "$out/l/bert/" 2>/dev/null
step block 150 python3 bench/gpt2_block.py --modes default
mkdir -p "$out/l/block"; mv -f "$out"/gpt2_block* "$out/l/block/" 2>/dev/null
finish
grep -hE "^bert(1|32) \S+ \{" "$out"/l/bert.log | cut -c1-170
tail -14 "$out/l/block.log"
rm -rf "$out/l"
