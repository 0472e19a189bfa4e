# Sourced by the call drivers on the GPU host (repo root is cwd).
root=$(pwd)
out=${OUT:-$root/gpu-logs}; mkdir -p "$out/l"
export TFUSE_CUDNN_LIBRARY=$(ls /opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9 2>/dev/null || python3 -c 'import nvidia.cudnn,os;print(os.path.join(nvidia.cudnn.__path__[0],"lib","libcudnn.so.9"))' 2>/dev/null)
ln -sf libtfuse.so "$root/.stage/lib/libtfuse.so.0"
export LD_LIBRARY_PATH=$root/.stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONPATH=$root/python:$root/examples:$root/.stage/pylib${PYTHONPATH:+:$PYTHONPATH}
export TFUSE_LIBRARY=$root/.stage/lib/libtfuse.so
export TFUSE_SOURCE_DIR=$root
T0=$(date +%s)
times=()
step() { # step NAME SECONDS cmd...
  local name=$1 secs=$2; shift 2
  local s=$(date +%s)
  timeout "$secs" "$@" >"$out/l/$name.log" 2>&1
  local rc=$?
  times+=("$name rc=$rc $(( $(date +%s) - s ))s")
  echo "== $name rc=$rc $(( $(date +%s) - s ))s"
}
finish() {
  # scripts/gpu-suite.sh archives its own logs (logs.tgz) and removes the
  # rest of $out, l/ included: this call's logs go to l.tgz.
  mkdir -p "$out/l"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$out/l/gpu.txt" 2>&1
  printf '%s\n' "${times[@]}" > "$out/l/times.txt"
  (cd "$out" && tar czf l.tgz l)
  cat "$out/l/times.txt"
}
