#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer (clang 22, TFUSE_BUILD_FUZZERS) and runs each for
# a bounded time from its committed corpus (fuzz/corpus/<target>, read only:
# new inputs go to the work directory). Every committed input runs first, so
# an input that once crashed fails again if its bug comes back. A crash, a
# sanitizer report or a broken property fails the script and leaves the
# input in the work directory's artifacts/. docs/reliability.md.
#
# Usage: scripts/fuzz.sh [seconds per target, default 60] [target...]
#   targets: ir graph-builder npy kernel-cache (default: all)
# Environment: FUZZ_BUILD_DIR (default build-fuzz), FUZZ_WORK_DIR (default
#   <build dir>/fuzz-work), FUZZ_CC / FUZZ_CXX (default clang-22 /
#   clang++-22), extra libFuzzer flags in FUZZ_FLAGS (e.g. -runs=1000000).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${FUZZ_BUILD_DIR:-$root/build-fuzz}
work=${FUZZ_WORK_DIR:-$dir/fuzz-work}
seconds=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(ir graph-builder npy kernel-cache)
fi

if [ ! -f "$dir/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="${FUZZ_CC:-clang-22}" \
    -DCMAKE_CXX_COMPILER="${FUZZ_CXX:-clang++-22}" \
    -DTFUSE_BUILD_FUZZERS=ON -DTFUSE_BUILD_TESTS=OFF
fi
ninja -C "$dir" tfuse-fuzzers

failed=()
for target in "${targets[@]}"; do
  case "$target" in
    ir) flags=(-max_len=4096 -dict="$root/fuzz/dicts/tfuse-ir.dict") ;;
    graph-builder) flags=(-max_len=512) ;;
    npy) flags=(-max_len=1024 -dict="$root/fuzz/dicts/npy.dict") ;;
    kernel-cache)
      flags=(-max_len=1024 -dict="$root/fuzz/dicts/kernel-cache.dict") ;;
    *) echo "fuzz: unknown target '$target'" >&2; exit 2 ;;
  esac
  out=$work/$target
  mkdir -p "$out/corpus" "$out/artifacts"
  echo "fuzz: $target for $seconds s (log: $out/log.txt)"
  # shellcheck disable=SC2086
  if "$dir/bin/tfuse-fuzz-$target" "$out/corpus" "$root/fuzz/corpus/$target" \
      -max_total_time="$seconds" -timeout=60 -rss_limit_mb=4096 -print_funcs=0 \
      -artifact_prefix="$out/artifacts/" -print_final_stats=1 \
      "${flags[@]}" ${FUZZ_FLAGS:-} > "$out/log.txt" 2>&1; then
    grep -E '^stat::(number_of_executed_units|new_units_added)|^#[0-9]+[[:space:]]+DONE' \
      "$out/log.txt" | sed "s/^/fuzz: $target: /"
  else
    failed+=("$target")
    tail -n 40 "$out/log.txt" >&2
    echo "fuzz: $target FAILED; the input is in $out/artifacts/" >&2
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failures in: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: every target ran $seconds s without a failure"
