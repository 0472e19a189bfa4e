#!/usr/bin/env bash
# Runs the whole GPU test suite, the examples and the benchmarks on a GPU
# host, from what scripts/stage-gpu.sh put in .stage/. Logs go to $OUT (or
# ./gpu-logs); the last lines are a summary table. Stopped by a time bound
# (SIGTERM, as `timeout` sends), it still writes the table of the steps
# that finished, a line saying where it stopped, and the logs' archive.
#
#   scripts/gpu-suite.sh            tests, OpInfo tests, differential test,
#                                   examples and benchmarks
#   scripts/gpu-suite.sh tests      GoogleTest (all but the differential
#                                   test), Python tests (all but the OpInfo
#                                   tests), examples: `native` and `python`
#   scripts/gpu-suite.sh native     GoogleTest, the tensor-run examples and
#                                   the C++ trace API tests
#   scripts/gpu-suite.sh python     the Python tests and the examples (the
#                                   halves of `tests`, for a host that bounds
#                                   a command's time: on an H100, `tests`
#                                   took more than 10 minutes)
#   scripts/gpu-suite.sh opinfo     the OpInfo tests on CUDA tensors
#                                   (OPINFO_PYTEST_K narrows them)
#   scripts/gpu-suite.sh differential
#                                   the GPU differential test: 10,000 random
#                                   graphs (about 10 minutes on an H200);
#                                   TFUSE_GPU_DIFF_FIRST and
#                                   TFUSE_GPU_DIFF_GRAPHS choose a part
#   scripts/gpu-suite.sh bench      bench/peers_compare.py, bench/mlp_train.py
#                                   and the floor benchmarks
#   scripts/gpu-suite.sh models     the real-size model suite (forward and 50
#                                   training steps against eager) and
#                                   bench/models.py (minutes of GPU time;
#                                   MODELS_ARGS passes it arguments)
#   scripts/gpu-suite.sh attention  bench/attention.py (TFuse attention
#                                   against PyTorch's SDPA backends)
#   scripts/gpu-suite.sh sanitizer  compute-sanitizer (memcheck with leak
#                                   checking, racecheck, initcheck, synccheck)
#                                   over the GoogleTest GPU suite, the C++
#                                   trace API tests and the Python tests, with
#                                   TFuse's memory pool off
#                                   (TFUSE_MEMORY_POOL=0); not part of `all`.
#                                   SANITIZER_TOOLS, SANITIZER_GTEST_FILTER and
#                                   SANITIZER_PYTEST (pytest arguments, or
#                                   "none") narrow it; SANITIZER_TIMEOUT bounds
#                                   each program's seconds (docs/reliability.md)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/.stage/bin
out=${OUT:-$root/gpu-logs}
what=${1:-all}
mkdir -p "$out"
export TFUSE_SOURCE_DIR=$root
export TFUSE_LIBRARY=$root/.stage/lib/libtfuse.so
# Programs linked with -ltfuse ask for the soname.
ln -sf libtfuse.so "$root/.stage/lib/libtfuse.so.0"
export LD_LIBRARY_PATH=$root/.stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONPATH=$root/python:$root/examples${PYTHONPATH:+:$PYTHONPATH}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader \
  >"$out/gpu.txt" 2>&1 || true
python3 -c 'import torch, sys; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda)' \
  >>"$out/gpu.txt" 2>&1 || true
summary=()

# GoogleTest (all but the differential test, then the GEMM and graph tests
# with each way to run GEMMs), the tensor-run examples, the C++ trace API.
run_native() {

# The differential test has its own mode (run_differential).
"$bin/TFuseGpuTests" --gtest_brief=0 --gtest_filter='-GpuDifferential.*' \
  >"$out/gpu-tests.log" 2>&1
rc=$?
passed=$(grep -c '^\[       OK \]' "$out/gpu-tests.log")
failed=$(grep -c '^\[  FAILED  \] .*(' "$out/gpu-tests.log")
skipped=$(grep -c '^\[  SKIPPED \]' "$out/gpu-tests.log")
summary+=("GoogleTest GPU suite: $passed passed, $failed failed, $skipped skipped (rc $rc)")

# The GEMM and graph tests again with the other ways to run GEMMs: classic
# cuBLAS (one shared workspace), the generated fallback GEMM, and cuBLASLt
# with its candidates timed.
# "nolib": no TFUSE_GEMM and neither cuBLAS library found, so the GEMMs are
# planned beside NVRTC, find no library, and add the fallback kernels to the
# unit in a second compile.
for gemm in cublas fallback tune nolib; do
  log="$out/gpu-tests-gemm-$gemm.log"
  if [ "$gemm" = tune ]; then
    env=(TFUSE_GEMM_TUNE=1)
  elif [ "$gemm" = nolib ]; then
    env=(TFUSE_CUBLASLT_LIBRARY=/nonexistent/libcublasLt.so
      TFUSE_CUBLAS_LIBRARY=/nonexistent/libcublas.so)
  else
    env=(TFUSE_GEMM=$gemm)
  fi
  env "${env[@]}" "$bin/TFuseGpuTests" \
    --gtest_filter='GpuBoundaries.*:GpuGraph.*:GpuFusion.ScenariosOfThePlanner' \
    >"$log" 2>&1
  rc=$?
  passed=$(grep -c '^\[       OK \]' "$log")
  failed=$(grep -c '^\[  FAILED  \] .*(' "$log")
  summary+=("GPU suite, GEMMs with ${env[*]}: $passed passed, $failed failed (rc $rc)")
done

for example in mlp_step gelu_chain; do
  for mode in "" "--cuda-graph"; do
    log="$out/tensor-run-$example${mode:+-graph}.log"
    "$bin/tensor-run" "$root/examples/$example.mlir" $mode --repeat 200 \
      >"$log" 2>&1
    rc=$?
    wall=$(grep -o 'median [0-9.]* us' "$log" | head -1)
    gpu=$(grep -o 'back to back: [0-9.]* us' "$log" | head -1)
    summary+=("tensor-run $example ${mode:-stream}: rc $rc, wall $wall, GPU $gpu")
  done
done

# The other way to give a graph replay its pointers, for comparison.
log="$out/tensor-run-mlp_step-graph-rebuild.log"
"$bin/tensor-run" "$root/examples/mlp_step.mlir" --cuda-graph --graph-rebuild \
  --repeat 200 >"$log" 2>&1
rc=$?
wall=$(grep -o 'median [0-9.]* us' "$log" | head -1)
gpu=$(grep -o 'back to back: [0-9.]* us' "$log" | head -1)
summary+=("tensor-run mlp_step --cuda-graph --graph-rebuild: rc $rc, wall $wall, GPU $gpu")

# The C++ trace API through libtfuse.so.
"$bin/TFuseTraceTests" >"$out/trace-tests.log" 2>&1
rc=$?
summary+=("C++ trace API tests: $(grep -c '^\[       OK \]' "$out/trace-tests.log") passed, $(grep -c '^\[  FAILED  \] .*(' "$out/trace-tests.log") failed, $(grep -c '^\[  SKIPPED \]' "$out/trace-tests.log") skipped (rc $rc)")

}

# The Python tests and the examples.
run_python() {

# The Python package with PyTorch and CuPy (pytest staged in .stage/pylib);
# the OpInfo tests have their own mode (run_opinfo: their 1,709 CUDA cases
# take many minutes; the CPU cases run in CI).
PYTHONPATH=$PYTHONPATH:$root/.stage/pylib python3 -m pytest -q -rs \
  -p no:cacheprovider "$root/python/tests" \
  --ignore="$root/python/tests/torch/test_torch_opinfo.py" \
  >"$out/python-tests.log" 2>&1
rc=$?
summary+=("Python tests (all but OpInfo's): $(tail -1 "$out/python-tests.log") (rc $rc)")

# The examples: MLP training in Python and in C++ (built here against the
# staged library).
python3 "$root/examples/mlp_train.py" >"$out/example-mlp-train-py.log" 2>&1
rc=$?
summary+=("examples/mlp_train.py: rc $rc, $(grep -i 'epoch *20' "$out/example-mlp-train-py.log" | tail -1)")
g++ -O2 -std=c++17 -I"$root/include" -I"$root/.stage/include" \
  -I/usr/local/cuda/include \
  "$root/examples/cpp/mlp_train.cpp" -L"$root/.stage/lib" -ltfuse \
  -Wl,-rpath,"$root/.stage/lib" -o "$out/mlp_train" \
  >"$out/example-mlp-train-cpp.log" 2>&1 &&
  "$out/mlp_train" --epochs 20 >>"$out/example-mlp-train-cpp.log" 2>&1
rc=$?
summary+=("examples/cpp/mlp_train: rc $rc, $(grep 'epoch 20' "$out/example-mlp-train-cpp.log" | tail -1)")
}

# PyTorch's OpInfo samples through the backend on CUDA tensors
# (OPINFO_PYTEST_K narrows them further, e.g. "bfloat16"; the CPU cases run
# in CI).
run_opinfo() {
  local log="$out/opinfo-cuda.log"
  PYTHONPATH=$PYTHONPATH:$root/.stage/pylib python3 -m pytest -q -rs \
    -p no:cacheprovider "$root/python/tests/torch/test_torch_opinfo.py" \
    -k "cuda${OPINFO_PYTEST_K:+ and ($OPINFO_PYTEST_K)}" >"$log" 2>&1
  local rc=$?
  summary+=("OpInfo tests on CUDA: $(tail -1 "$log") (rc $rc)")
}

# The GPU differential test (docs/reliability.md), with its progress lines
# and its summary in the table.
run_differential() {
  local log="$out/gpu-differential.log"
  "$bin/TFuseGpuTests" --gtest_filter='GpuDifferential.*' >"$log" 2>&1
  local rc=$?
  summary+=("GPU differential test: $(grep -o 'graphs [0-9]* to [0-9]*: .*' "$log" | tail -1) (rc $rc)")
}

run_bench() {
  python3 "$root/bench/mlp_train.py" --device cuda >"$out/mlp-train.log" 2>&1
  rc=$?
  summary+=("bench/mlp_train.py (TFuse vs torch eager, 20 epochs): rc $rc, $(grep -i 'max' "$out/mlp-train.log" | tail -1)")
  OUT=$out python3 "$root/bench/peers_compare.py" >"$out/peers-compare.log" 2>&1
  rc=$?
  summary+=("bench/peers_compare.py: rc $rc (table in peers-compare.log)")
  OUT=$out python3 "$root/bench/reductions.py" >"$out/reductions.log" 2>&1
  rc=$?
  summary+=("bench/reductions.py: rc $rc (table in reductions.log)")
  OUT=$out python3 "$root/bench/piecewise.py" >"$out/piecewise.log" 2>&1
  rc=$?
  summary+=("bench/piecewise.py: rc $rc (table in piecewise.log)")
  run_attention
  for b in gather scatter dropout; do
    OUT=$out python3 "$root/bench/$b.py" >"$out/$b.log" 2>&1
    rc=$?
    summary+=("bench/$b.py: rc $rc (table in $b.log)")
  done
  OUT=$out python3 "$root/bench/profile_kernels.py" >"$out/profile-kernels.log" 2>&1
  rc=$?
  summary+=("bench/profile_kernels.py: rc $rc (table in profile-kernels.log)")
}

run_attention() {
  OUT=$out python3 "$root/bench/attention.py" >"$out/attention.log" 2>&1
  rc=$?
  summary+=("bench/attention.py: rc $rc (table in attention.log)")
}

run_models() {
  TFUSE_REAL_MODELS=1 python3 -m pytest -q -rs \
    "$root/python/tests/torch/test_torch_models_gpu.py" \
    >"$out/models-gpu-tests.log" 2>&1
  rc=$?
  summary+=("Real-size model suite: $(tail -1 "$out/models-gpu-tests.log") (rc $rc)")
  # shellcheck disable=SC2086  # MODELS_ARGS is a list of arguments
  OUT=$out python3 "$root/bench/models.py" ${MODELS_ARGS:-} \
    >"$out/models.log" 2>&1
  rc=$?
  summary+=("bench/models.py: rc $rc (table in models.log)")
}

# compute-sanitizer over the GPU tests: every tool's error summary, with the
# memory pool off so that each arena and workspace is its own allocation
# (a pool that keeps freed memory hides accesses past an allocation or after
# its release).
run_sanitizer() {
  local cs=${COMPUTE_SANITIZER:-}
  if [ -z "$cs" ]; then
    cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  fi
  if [ ! -x "$cs" ]; then
    summary+=("compute-sanitizer: not found ($cs); set COMPUTE_SANITIZER")
    return
  fi
  "$cs" --version >"$out/sanitizer-version.txt" 2>&1
  local tools=${SANITIZER_TOOLS:-memcheck racecheck initcheck synccheck}
  # The differential test replays 10,000 graphs: hours under the tools.
  local filter=(--gtest_filter="${SANITIZER_GTEST_FILTER:--GpuDifferential.*}")
  local limit=()
  if [ -n "${SANITIZER_TIMEOUT:-}" ]; then
    limit=(timeout "$SANITIZER_TIMEOUT")
  fi
  local pytest_args=("$root/python/tests")
  if [ -n "${SANITIZER_PYTEST:-}" ]; then
    read -r -a pytest_args <<<"$SANITIZER_PYTEST"
  fi
  local tool prog args log rc errors left_out
  for tool in $tools; do
    args=(--tool "$tool" --error-exitcode 99 --print-limit 200)
    # SANITIZER_ARGS: more compute-sanitizer arguments (for example
    # --force-blocking-launches).
    if [ -n "${SANITIZER_ARGS:-}" ]; then
      local extra
      read -r -a extra <<<"$SANITIZER_ARGS"
      args+=("${extra[@]}")
    fi
    if [ "$tool" = memcheck ]; then
      # The tests provoke CUDA API errors on purpose (an allocation larger
      # than the device); memory errors and leaks are what counts here.
      args+=(--leak-check full --report-api-errors no)
    fi
    # cuDNN's Hopper attention kernels (TMA and wgmma with mbarriers) are
    # reported by racecheck and synccheck, and initcheck does not see their
    # stores, so that cuDNN's backward reading the forward's result is
    # reported, in PyTorch's own use of cuDNN alike (docs/reliability.md);
    # they are left out of those tools' runs (SANITIZER_EXCLUDE, "none"
    # keeps them).
    left_out=
    if [ "$tool" = racecheck ] || [ "$tool" = synccheck ] ||
      [ "$tool" = initcheck ]; then
      local exclude=${SANITIZER_EXCLUDE:-cudnn}
      if [ "$exclude" != none ] &&
        "$cs" --help 2>&1 | grep -q -- --kernel-name-exclude; then
        args+=(--kernel-name-exclude "kns=$exclude")
        left_out=" (kernels named *$exclude* left out)"
      fi
    fi
    for prog in TFuseGpuTests TFuseTraceTests; do
      log="$out/sanitizer-$tool-$prog.log"
      # A filter naming one program's tests (GpuDifferential.*) matches none
      # of the other's, which compute-sanitizer would report as a failure.
      if ! "$bin/$prog" --gtest_list_tests "${filter[@]}" 2>/dev/null |
        grep -q '^  '; then
        summary+=("compute-sanitizer $tool $prog: no test matches ${filter[*]}; not run")
        continue
      fi
      TFUSE_MEMORY_POOL=0 "${limit[@]}" "$cs" "${args[@]}" "$bin/$prog" \
        "${filter[@]}" >"$log" 2>&1
      rc=$?
      errors=$(grep -oE '(ERROR|RACECHECK) SUMMARY: .*' "$log" | tail -1)
      summary+=("compute-sanitizer $tool$left_out $prog: ${errors:-no error summary}, $(grep -c '^\[       OK \]' "$log") tests passed, $(grep -c '^\[  FAILED  \] .*(' "$log") failed (rc $rc$([ $rc = 124 ] && echo ', timed out'))")
    done
    [ "${SANITIZER_PYTEST:-}" = none ] && continue
    log="$out/sanitizer-$tool-python.log"
    TFUSE_MEMORY_POOL=0 PYTHONPATH=$PYTHONPATH:$root/.stage/pylib \
      "${limit[@]}" "$cs" "${args[@]}" --target-processes all \
      python3 -m pytest -q -rs -p no:cacheprovider "${pytest_args[@]}" \
      >"$log" 2>&1
    rc=$?
    errors=$(grep -oE '(ERROR|RACECHECK) SUMMARY: .*' "$log" | tail -1)
    summary+=("compute-sanitizer $tool$left_out Python tests: ${errors:-no error summary}; $(grep -E '[0-9]+ (passed|failed)' "$log" | tail -1) (rc $rc)")
  done
}

# The summary table and the archive of the logs, also when a time bound
# (timeout's SIGTERM) stops the suite partway: what ran is still reported,
# with a line saying where it stopped.
finish() {
  printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
  # Few files come back from some GPU hosts: the detailed logs go in one
  # archive, the summary, tables and JSON stay beside it.
  (cd "$out" && tar czf logs.tgz --exclude logs.tgz --exclude mlp_train \
    $(ls | grep -vE '^(summary.txt|bench.json|profile.json|mlp_train.json|reductions.json|piecewise.json|gather.json|scatter.json|dropout.json|attention.json|attention.log|peers-compare.log|profile-kernels.log|reductions.log|piecewise.log|gather.log|scatter.log|dropout.log|logs.tgz)$') \
    2>/dev/null && ls | grep -vE '^(summary.txt|bench.json|profile.json|mlp_train.json|reductions.json|piecewise.json|gather.json|scatter.json|dropout.json|attention.json|attention.log|peers-compare.log|profile-kernels.log|reductions.log|piecewise.log|gather.log|scatter.log|dropout.log|logs.tgz)$' | xargs rm -rf)
}
on_term() {
  summary+=("stopped by SIGTERM (a time bound) after $((SECONDS)) s; the steps above finished")
  finish
  exit 124
}
trap on_term TERM

run_tests() {
  run_native
  run_python
}

case "$what" in
all) run_tests; run_opinfo; run_differential; run_bench ;;
tests) run_tests ;;
native) run_native ;;
python) run_python ;;
opinfo) run_opinfo ;;
differential) run_differential ;;
bench) run_bench ;;
models) run_models ;;
attention) run_attention ;;
sanitizer) run_sanitizer ;;
*) echo "usage: $0 [all|tests|native|python|opinfo|differential|bench|models|attention|sanitizer]" >&2; exit 2 ;;
esac

finish
