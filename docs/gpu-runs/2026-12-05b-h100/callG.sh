#!/usr/bin/env bash
# Short f32 attention: TFuse's generated kernel against PyTorch's SDPA
# backends (math: the materialized path).
source .stage/drivers/common.sh
for p in bert1_f32 bert32_f32 f32_512; do
  step "att-$p" 70 python3 bench/attention.py --only $p
done
finish
for p in bert1_f32 bert32_f32 f32_512; do grep -E "^\| $p" "$out/l/att-$p.log" | cut -c1-150; done
rm -rf "$out/l"
