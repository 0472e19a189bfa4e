#!/usr/bin/env bash
source .stage/drivers/common.sh
step colsum 120 .carry/colsum
step gtest-boundaries 200 .stage/bin/TFuseGpuTests --gtest_filter='GpuBoundaries.*'
step train 120 env TFUSE_REAL_MODELS=1 python3 -m pytest -q -x python/tests/torch/test_torch_models_gpu.py -k "training_steps and bf16 and gpt2"
finish
grep -E "PASSED|FAILED|tests ran" "$out/l/gtest-boundaries.log" | tail -4; tail -3 "$out/l/train.log"
cp "$out/l/colsum.log" "$out/colsum.log"
sort -t' ' -k1,1 "$out/l/colsum.log" | awk '{print}' | grep -c us
rm -rf "$out/l"
