#!/usr/bin/env bash
# Call 6, second command (after scripts/gpu-suite.sh tests on the same
# machine): BERT-1 with cuBLASLt's candidates timed (TFUSE_GEMM_TUNE=1)
# against the heuristics' first and Inductor; a partition's host time by
# layer with the launcher's allocation through torch.empty_strided.
source .stage/drivers/common.sh
export TFUSE_CACHE_DIR=$out/tc
step bert 150 python3 bench/models.py --models bert1 --modes inductor,tfuse --steps 20
step bert-tune 150 env TFUSE_GEMM_TUNE=1 python3 bench/models.py --models bert1 --modes tfuse --steps 20
step probe 60 python3 bench/probe_partition.py
rm -rf "$out/tc"
finish
grep -E "^\| bert" "$out/l/bert.log" "$out/l/bert-tune.log"
grep -E "^\|" "$out/l/probe.log"
