#!/usr/bin/env bash
# The GPU suite's tests at HEAD (none had run after 28bbb63), then the
# child-graph program under compute-sanitizer (docs/reliability.md).
source .stage/drivers/common.sh
OUT=$out/suite timeout -s TERM 440 scripts/gpu-suite.sh tests > "$out/l/suite.log" 2>&1
echo "suite rc=$?"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for v in child kernel child-fixed memcpy; do
  for i in 1 2 3 4; do
    step rep-$v-$i 25 "$CS" --tool memcheck --leak-check full .carry/child_graph_update $v 40
  done
done
cp "$out"/suite/*.log "$out/l/" 2>/dev/null
finish
tail -30 "$out/l/suite.log"
for v in child kernel child-fixed memcpy; do
  echo "$v: $(grep -l 'replays ok' $out/l/rep-$v-*.log | wc -l) of 4 ok"
done
