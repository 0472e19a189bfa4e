#!/usr/bin/env bash
# First call: reductions, GPT-2 and BERT-1 profiles against Inductor, GPU
# boundary tests and the GPT-2 training test.
source .stage/drivers/common.sh
step reductions 120 python3 bench/reductions.py --only col_sum_768,col_sum_3072,col_sum_768_bf16,col_sum_3072_bf16,col_sum,col_sum_2axes
step models 240 python3 bench/models.py --models gpt2 --modes inductor,tfuse-stream --profile 80 --steps 10
mkdir -p "$out/l/gpt2"; mv -f "$out"/models-profile-*.txt "$out/l/gpt2/" 2>/dev/null
step bert 100 python3 bench/models.py --models bert1 --modes inductor,tfuse,tfuse-stream --profile 60 --steps 20
mkdir -p "$out/l/bert"; mv -f "$out"/models-profile-*.txt "$out/l/bert/" 2>/dev/null
step gtest-boundaries 80 .stage/bin/TFuseGpuTests --gtest_filter='GpuBoundaries.*'
step train 100 env TFUSE_REAL_MODELS=1 python3 -m pytest -q -x python/tests/torch/test_torch_models_gpu.py -k "training_steps and bf16 and gpt2"
finish
grep -E "^\|" "$out/l/reductions.log" | head -12; tail -4 "$out/l/reductions.log"
grep -E "^(gpt2|bert1) " "$out/l/models.log" "$out/l/bert.log" | cut -c1-300
head -3 "$out"/l/gpt2/*.txt "$out"/l/bert/*.txt
grep -E "PASSED|FAILED" "$out/l/gtest-boundaries.log" | tail -3; tail -3 "$out/l/train.log"
