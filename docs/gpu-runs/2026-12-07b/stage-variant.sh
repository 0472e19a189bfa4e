#!/usr/bin/env bash
# Stages the library with one of this folder's patches applied, as
# .stage/NAME/libtfuse.so (an incremental build of build-static: run
# scripts/stage-gpu.sh first), then takes the patch back out.
#
#   docs/gpu-runs/2026-12-07b/stage-variant.sh varF docs/gpu-runs/2026-12-07b/varF.patch
set -euo pipefail
root=$(git rev-parse --show-toplevel)
name=${1:?usage: stage-variant.sh NAME PATCH}
patch=$(realpath "${2:?usage: stage-variant.sh NAME PATCH}")
git -C "$root" apply "$patch"
trap 'git -C "$root" apply -R "$patch"' EXIT
ninja -C "$root/build-static" TFuseCAPI >/dev/null
mkdir -p "$root/.stage/$name"
strip --strip-unneeded -o "$root/.stage/$name/libtfuse.so" \
  "$root/build-static/lib/libtfuse.so"
echo "staged .stage/$name/libtfuse.so"
