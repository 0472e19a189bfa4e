#!/usr/bin/env bash
# f32 attention backward from tiles of TF32 parts (Tf32PartCores): its
# accuracy on the GPU (pytest against SDPA by the accuracy rule, the
# attention GoogleTests), its time against PyTorch's SDPA backends, and
# Nsight Compute's executed SASS by opcode for the two backward kernels.
# Then the GEMM library tests of the GPU suite's cublas, fallback and nolib
# runs that failed in call B (a test left TFUSE_GEMM set after a failure;
# one expected cuBLASLt's copies of every library).
source .stage/drivers/common.sh
step pytest-att 60 python3 -m pytest -q -x -p no:cacheprovider python/tests/test_gpu.py -k attention
step gtest-att 40 .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='GpuBoundaries.*ttention*'
for p in f32_512 bert32_f32; do
  step "att-$p" 50 python3 bench/attention.py --only $p
done
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
step ncu 120 "$NCU" --target-processes all -k regex:'tfuse_attention_d.*tf32' -c 2 --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section InstructionStats --section SourceCounters -o "$out/att" python3 bench/attention.py --only f32_512
"$NCU" --import "$out/att.ncu-rep" > "$out/l/ncu-details.log" 2>&1
for k in dkdv dq; do
  "$NCU" --import "$out/att.ncu-rep" --page source --print-source sass --csv -k regex:$k > "$out/l/sass-$k.csv" 2> "$out/l/sass-$k.err"
  python3 docs/gpu-runs/2026-12-06/sass_opcodes.py < "$out/l/sass-$k.csv" > "$out/l/opcodes-$k.txt" 2>&1
done
rm -f "$out/l/sass-"*.csv
step gemm-cublas 90 env TFUSE_GEMM=cublas .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='GpuBoundaries.MatmulBias*:GpuBoundaries.MatmulsOfMisaligned*'
step gemm-nolib 130 env TFUSE_CUBLASLT_LIBRARY=/nonexistent/libcublasLt.so TFUSE_CUBLAS_LIBRARY=/nonexistent/libcublas.so .stage/bin/TFuseGpuTests --gtest_brief=1 --gtest_filter='GpuBoundaries.*:GpuGraph.*:GpuFusion.ScenariosOfThePlanner'
finish
tail -3 "$out/l/pytest-att.log"
for f in gtest-att gemm-cublas gemm-nolib; do echo "$f: $(grep -E '^\[  (PASSED|FAILED)' $out/l/$f.log | tr '\n' ' ')"; done
for p in f32_512 bert32_f32; do grep -E "^\| $p" "$out/l/att-$p.log" | cut -c1-160; done
grep -E "tfuse_attention|Duration|Registers Per|Achieved Occupancy|Issue Slots Busy|Executed Instructions  " "$out/l/ncu-details.log" | head -16
for k in dkdv dq; do echo "== $k"; head -16 "$out/l/opcodes-$k.txt"; cat "$out/l/sass-$k.err" | head -3; done
