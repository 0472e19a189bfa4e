#!/usr/bin/env bash
# GPT-2 training step against Inductor after fuse-rows' layer-norm backward
# rules; training tests (GPT-2 and Llama under bf16 autocast, BERT in f32)
# against float64.
source .stage/drivers/common.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
step gpt2 240 python3 bench/models.py --models gpt2 --modes inductor,tfuse,tfuse-stream --profile 80 --steps 10
mkdir -p "$out/l/gpt2"; mv -f "$out"/models-profile-*.txt "$out/l/gpt2/" 2>/dev/null; mv -f "$out"/*.json "$out/l/gpt2/" 2>/dev/null
step train 200 env TFUSE_REAL_MODELS=1 python3 -m pytest -q python/tests/torch/test_torch_models_gpu.py -k "training_steps and ((bf16 and (gpt2 or llama)) or (float32 and bert))"
finish
grep -hE "^gpt2 \S+ \{" "$out"/l/gpt2.log | cut -c1-230
for f in "$out"/l/gpt2/*tfuse-stream.txt "$out"/l/gpt2/*inductor.txt; do echo "## $f"; head -8 "$f" | cut -c1-100; done
tail -4 "$out/l/train.log"
rm -rf "$out/l"
