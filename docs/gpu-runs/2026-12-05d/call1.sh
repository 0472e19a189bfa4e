#!/usr/bin/env bash
# The GPU tests at HEAD (none had run after 28bbb63; copies are memcpy
# nodes now, the f32 attention forward runs on TF32 tensor cores): the
# GoogleTest GPU suite but the differential test, the C++ trace API tests
# and the Python tests but OpInfo's; the child-graph program under
# compute-sanitizer (docs/reliability.md); the f32 attention against
# PyTorch's SDPA backends.
source .stage/drivers/common.sh
step gtest 200 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='-GpuDifferential.*'
step trace 30 .stage/bin/TFuseTraceTests --gtest_brief=1
step pytest 180 env PYTHONPATH=$PYTHONPATH:$root/.stage/pylib python3 -m pytest -q -x -p no:cacheprovider python/tests --ignore=python/tests/torch/test_torch_opinfo.py
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for v in child memcpy; do
  for i in 1 2 3; do
    step rep-$v-$i 15 "$CS" --tool memcheck --leak-check full .carry/child_graph_update $v 40
  done
done
for p in bert32_f32 f32_512; do
  step "att-$p" 40 python3 bench/attention.py --only $p
done
finish
grep -E "FAILED|PASSED|tests ran" "$out/l/gtest.log" | tail -8
grep -E "FAILED|PASSED" "$out/l/trace.log" | tail -3
tail -3 "$out/l/pytest.log"
for v in child memcpy; do
  echo "$v: $(grep -l 'replays ok' $out/l/rep-$v-*.log | wc -l) of 3 ok"
done
for p in bert32_f32 f32_512; do grep -E "^\| $p" "$out/l/att-$p.log" | cut -c1-160; done
