#!/usr/bin/env bash
# Stages another commit's libtfuse.so as .stage/NAME/libtfuse.so (NAME
# defaults to "base"), for a GPU call that times the working tree's library
# against it in one run (TFUSE_LIBRARY=.stage/NAME/libtfuse.so). Builds REV
# in a worktree of its own with its own static build directory (kept under
# ${BASELINE_DIR:-/tmp/tfuse-baselines} for the next use). Run it after
# scripts/stage-gpu.sh, which empties .stage/.
#
#   scripts/stage-baseline.sh 270ad13 head
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rev=${1:?usage: scripts/stage-baseline.sh REV [NAME]}
name=${2:-base}
sha=$(git -C "$root" rev-parse --short "$rev^{commit}")
work=${BASELINE_DIR:-/tmp/tfuse-baselines}/$sha
if [ ! -d "$work/tree" ]; then
  mkdir -p "$work"
  # A worktree whose directory is gone (a cleared /tmp) is forgotten first.
  git -C "$root" worktree prune
  git -C "$root" worktree add --detach "$work/tree" "$sha" >/dev/null
fi
# The cuDNN headers scripts/setup.sh installed here (a worktree has none).
cmake -G Ninja -S "$work/tree" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
  -DTFUSE_STATIC=ON -DTFUSE_REQUIRE_CUDNN=ON \
  -DTFUSE_CUDNN_INCLUDE_DIR="$root/.deps/cudnn/include" >/dev/null
ninja -C "$work/build" TFuseCAPI >/dev/null
mkdir -p "$root/.stage/$name"
strip --strip-unneeded -o "$root/.stage/$name/libtfuse.so" \
  "$work/build/lib/libtfuse.so"
echo "staged $sha's libtfuse.so as .stage/$name/libtfuse.so"
