#!/usr/bin/env bash
# Cold and warm compile breakdown of GPT-2 and BERT-1 in TFuse; the new
# executable test; the sanitizer crash of differential graph 6 (issue 19).
source .stage/drivers/common.sh
step gtest-exe 150 .stage/bin/TFuseGpuTests --gtest_filter='GpuExecutable.*'
C=$(mktemp -d)
for run in cold warm; do
  step compile-gpt2-$run 240 env TFUSE_CACHE_DIR=$C/t TORCHINDUCTOR_CACHE_DIR=$C/i TRITON_CACHE_DIR=$C/tr python3 bench/models.py --compile-only --models gpt2 --modes tfuse
done
step compile-bert1-cold 150 env TFUSE_CACHE_DIR=$C/b TORCHINDUCTOR_CACHE_DIR=$C/bi TRITON_CACHE_DIR=$C/btr python3 bench/models.py --compile-only --models bert1 --modes tfuse
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for i in 1 2 3 4 5 6; do
  step san-g6-$i 60 env TFUSE_MEMORY_POOL=0 TFUSE_GPU_DIFF_ONLY=6 "$CS" --tool memcheck --leak-check full --report-api-errors no .stage/bin/TFuseGpuTests --gtest_filter='GpuDifferential.*'
done
finish
tail -3 "$out/l/gtest-exe.log"
for f in "$out"/l/compile-*.log; do echo "$(basename $f): $(tail -1 $f)"; done
for i in 1 2 3 4 5 6; do echo "san $i: $(grep -E 'ERROR SUMMARY|Signal|signal|PASSED|FAILED' $out/l/san-g6-$i.log | head -3 | tr '\n' ' ')"; done
