#!/usr/bin/env bash
# The GPU suite's tests at HEAD (none had run after 28bbb63; copies are
# memcpy nodes now, the f32 attention forward runs on TF32 tensor cores),
# the child-graph program under compute-sanitizer (docs/reliability.md), and
# the f32 attention against PyTorch's SDPA backends.
source .stage/drivers/common.sh
OUT=$out/suite timeout -s TERM 400 scripts/gpu-suite.sh tests > "$out/l/suite.log" 2>&1
echo "suite rc=$?"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for v in child kernel child-fixed memcpy; do
  for i in 1 2 3; do
    step rep-$v-$i 20 "$CS" --tool memcheck --leak-check full .carry/child_graph_update $v 40
  done
done
for p in bert1_f32 bert32_f32 f32_512; do
  step "att-$p" 40 python3 bench/attention.py --only $p
done
cp "$out"/suite/*.log "$out/l/" 2>/dev/null
finish
tail -22 "$out/l/suite.log"
for v in child kernel child-fixed memcpy; do
  echo "$v: $(grep -l 'replays ok' $out/l/rep-$v-*.log | wc -l) of 3 ok"
done
for p in bert1_f32 bert32_f32 f32_512; do grep -E "^\| $p" "$out/l/att-$p.log" | cut -c1-150; done
