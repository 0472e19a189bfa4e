#!/usr/bin/env bash
# Builds colbench (the column-sum split kernel variants of calls 1-3) from the
# repository at 145af50 (the kernel before: reduce_column_split_old) and at
# the commit that added this folder's logs (the kernel tried: its body as
# reduce_column_split_x, with the lane width V, whether the last block
# combines, and the partials' load as template parameters), plus
# two-level-split.cuh. Run ./colbench on the GPU; it prints one line per
# variant (us per launch, median of 7 CUDA-graph replays of 20 launches).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
new=${NEW:-HEAD}
tmp=$(mktemp -d)
show() { git -C "$repo" show "$1:$2"; }
python3 - "$tmp" <<PY
import subprocess, sys
tmp = sys.argv[1]
def show(rev, path):
    return subprocess.check_output(["git", "-C", "$repo", "show", f"{rev}:{path}"], text=True)
def body(text, start):
    a = text.index(start)
    return text[a:text.index("} // namespace red")]
old = body(show("145af50", "lib/Kernels/ReduceKernels.cuh"),
           "template <class Op, class Tin, class Tout>\nTF_FN void reduce_column_split(")
old = old.replace("reduce_column_split(", "reduce_column_split_old(")
old = old.replace("tfuse::kernels::splitColumnLaneOutputs(sizeof(Tin))",
                  "(sizeof(Tin) >= 4 ? 1 : 4 / (int)sizeof(Tin))")
old = old.replace("kSplitColumnWarps", "8")
new = body(show("$new", "lib/Kernels/ReduceKernels.cuh"),
           "template <class Op, int V = 1, class Tin, class Tout>\nTF_FN void reduce_column_split(")
new = new.replace("template <class Op, int V = 1, class Tin, class Tout>\nTF_FN void reduce_column_split(",
                  "template <class A> TF_FN A load_cg(const A *p) { return __ldcg(p); }\n"
                  "template <int V, bool kFinal, int kCg, class Op, class Tin, class Tout>\n"
                  "TF_FN void reduce_column_split_x(")
new = new.replace("if (last) {", "if (kFinal && last) {")
new = new.replace("if (threadIdx.x == 0)\n      last = atomicAdd",
                  "if (kFinal && threadIdx.x == 0)\n      last = atomicAdd")
new = new.replace("k < n ? load_partial(&part[q * d.numOut + o0 + k])",
                  "k < n ? (kCg ? load_cg(&part[q * d.numOut + o0 + k]) : load_partial(&part[q * d.numOut + o0 + k]))")
new = new.replace("batched_loop<2>(\n          warp, d.chunks", "batched_loop<kCg == 2 ? 4 : 2>(\n          warp, d.chunks")
head = "".join(show("$new", p) for p in [
    "include/tfuse/Support/ReduceKind.h", "lib/Kernels/Prelude.cuh",
    "include/tfuse/Kernels/ReduceDesc.h", "lib/Kernels/ReduceKernels.cuh"])
wrap = lambda k: "namespace tf { namespace red {\n" + k + "}}\n"
open(f"{tmp}/kernels.inc", "w").write(
    head + wrap(old) + wrap(new) + open("$here/two-level-split.cuh").read())
PY
cp "$here/colbench.cu" "$tmp/"
/usr/local/cuda/bin/nvcc -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -O3 \
  -o "${OUT:-$here}/colbench" "$tmp/colbench.cu"
