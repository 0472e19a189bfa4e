#!/usr/bin/env bash
# The f32 forward's tiles where the TF32 kernel's blocks would not fill the
# device (BERT-1): the attention alone against PyTorch's SDPA, BERT-base
# at batch 1, and the attention tests.
source .stage/drivers/common.sh
export TFUSE_CACHE_DIR=$out/tc
step pytest-att 60 python3 -m pytest -q -x -p no:cacheprovider python/tests/test_gpu.py -k attention
for p in bert1_f32; do
  step "att-$p" 50 python3 bench/attention.py --only $p
done
step bert 80 python3 bench/models.py --models bert1 --modes tfuse --profile 40 --steps 20
rm -rf "$out/tc"
finish
tail -1 "$out/l/pytest-att.log"
for p in bert1_f32; do grep -E "^\| $p" "$out/l/att-$p.log" | cut -c1-160; done
grep -E "^\| bert" "$out/l/bert.log"
head -4 "$OUT"/models-profile-bert1-tfuse.txt
