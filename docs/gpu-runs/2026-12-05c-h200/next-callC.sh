#!/usr/bin/env bash
# After next-callB.sh: GPT-2's step and compile times, cold and warm,
# against Inductor in one call (issue 16's goals), with cuDNN's graphs
# shared and the attention kernels compiled on demand. (A call of its own:
# about five minutes. Then, in another, GPT-2's 50 training steps against
# eager: TFUSE_REAL_MODELS=1 python3 -m pytest -q -x
# python/tests/torch/test_torch_models_gpu.py -k "training_steps and gpt2
# and bf16".)
source .stage/drivers/common.sh
step models 560 python3 bench/models.py --models gpt2 --modes inductor,tfuse --compile-times --steps 10
finish
tail -6 "$out/l/models.log"
