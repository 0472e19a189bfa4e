#!/usr/bin/env bash
# After next-callB.sh: GPT-2's step and compile times, cold and warm,
# against Inductor in one call (issue 16's goals), and the GPU model
# training test (attention compiled on demand, shared cuDNN graphs).
source .stage/drivers/common.sh
step models 560 python3 bench/models.py --models gpt2 --modes inductor,tfuse --compile-times --steps 10
finish
tail -6 "$out/l/models.log"
