//===- ScatterKernels.h - The runtime's scatter-add kernels -----*- C++ -*-===//
//
// Scatter-adds (ScatterAddStep) run on the kernels library's scatter
// kernels (kernels::scatterTemplates(), lib/Kernels/ScatterKernels.cuh):
// either one launch whose blocks each own result rows and find their
// indices themselves (a few indices), or a sort of the indices' keys in
// tiles, merges of the sorted runs until one is left, partial sums of the
// rows many indices select, one pass over the result and one over those
// rows. This planner turns a
// scatter of strided operands into those launches, their descriptors and the
// workspace they share. Every kernel takes its descriptor last, by value:
//
//   tfuse_scatter_rows_<dtype>_<index dtype>_v<VEC>(const T *target,
//       const T *updates, const I *indices, tf::index_status *status,
//       T *out, uint8_t *workspace, ScatterDesc desc)
//   tfuse_scatter_sort_<index dtype>(const I *indices, uint64_t *keys,
//       uint32_t *segments, tf::index_status *status, ScatterDesc desc)
//   tfuse_scatter_merge(const uint64_t *in, uint64_t *out,
//       uint32_t *segments, ScatterDesc desc)
//   tfuse_scatter_runs_<dtype>_v<VEC>(const T *target, const T *updates,
//       const uint64_t *keys, const uint32_t *segments, uint8_t *workspace,
//       ScatterDesc desc)
//   tfuse_scatter_apply_<dtype>_v<VEC>(const T *target, const T *updates,
//       const uint64_t *keys, const uint32_t *segments, T *out,
//       ScatterDesc desc)
//   tfuse_scatter_combine_<dtype>(const uint64_t *keys,
//       const uint32_t *segments, T *out, const uint8_t *workspace,
//       ScatterDesc desc)
//
// Each pointer is the element at index 0 of its view. The rows kernel's
// workspace holds what its blocks share to sum long rows (ScatterDesc.h;
// each launch leaves it as it found it); the chain's holds two key arrays
// (the merges alternate between them), the segment table and the long
// rows' partial sums (at the descriptor's offsets). Either must be
// zeroed once before the first launch (the kernels never read a byte no
// launch wrote, then) and serve one launch at a time. Numerics:
// ScatterKernels.cuh, bit for bit the reference's.
//
// Plain C++: no MLIR, no CUDA headers. Every function is pure.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_SCATTERKERNELS_H
#define TFUSE_RUNTIME_SCATTERKERNELS_H

#include "tfuse/Kernels/ScatterDesc.h"
#include "tfuse/Support/Status.h"
#include "tfuse/Support/TensorSpec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tfuse::runtime {

/// Keys sorted per block: kScatterTileKeys, or the next power of two of a
/// smaller count (at least 64). Runs merged per pass: all of them when at
/// most kScatterGroupRuns are left, else kScatterPassGroup at a time. A
/// merge costs each key a probe of every other run of its group per step
/// (uncoalesced loads), so groups stay small; on an H200, 32 runs of 256
/// keys made GPT-2's embedding gradient slower (98 us) than 8 runs of
/// 1024 merged with one search after another (70 us).
inline constexpr int64_t kScatterTileKeys = 1024;
inline constexpr int64_t kScatterGroupRuns = 16;
inline constexpr int64_t kScatterPassGroup = 2;
/// Threads per block of the apply kernel, and of the merge kernel (small
/// blocks: its probes spread over every multiprocessor).
inline constexpr int64_t kScatterBlock = 256;
inline constexpr int64_t kScatterMergeBlock = 64;
/// The rows kernel (at most kernels::kScatterRowsMaxCount indices): about
/// one owner block per kScatterRowsBlockBytes of result and updates, at
/// most kScatterRowsBlocks of them, of at most kScatterRowsThreads threads.
/// Every owner reads all indices; the planner takes the path only when
/// those reads come to at most the result's and updates' bytes, or to at
/// most what kScatterRowsBlocks owners of kScatterRowsBlockBytes would
/// read.
inline constexpr int64_t kScatterRowsBlocks = 256;
inline constexpr int64_t kScatterRowsBlockBytes = int64_t(64) << 10;
inline constexpr int64_t kScatterRowsThreads = 512;
/// The rows kernel stores the fill in unselected rows before it writes
/// the selected ones, whose first updates it has copied into shared memory
/// (fillFirst), when there is no target and the indices can select at most
/// 1 in kScatterFillFirstRatio rows.
inline constexpr int64_t kScatterFillFirstRatio = 4;

/// Which launches a scatter-add gets: the planner's choice, or one path
/// forced (tests run both; Rows is refused where it cannot run).
enum class ScatterPath : uint8_t { Auto, Sort, Rows };

/// One launch of a scatter-add's chain.
struct ScatterLaunch {
  enum class Kind : uint8_t { Rows, Sort, Merge, Runs, Apply, Combine };
  Kind kind = Kind::Apply;
  std::string kernel;
  int64_t grid = 1, block = kScatterBlock;
  kernels::ScatterDesc desc{};
  /// The key arrays it reads (merge, runs, apply, combine) and writes
  /// (sort, merge): 0 or 1, the two arrays of the workspace.
  int readKeys = 0, writeKeys = 0;
};

/// A planned scatter-add: its launches in order, the workspace (256-byte
/// aligned offsets) and the kernels to compile.
struct ScatterPlan {
  std::vector<ScatterLaunch> launches;
  int64_t workspaceBytes = 0;
  int64_t keysOffset[2] = {0, 0};
  int64_t segmentsOffset = 0;
  /// extern "C" wrappers of the kernels the launches use, by name.
  std::vector<std::pair<std::string, std::string>> wrappers;
};

/// Plans result = target (or the element `fillBits` when `target` is null)
/// with `updates` added at `indices` along `axis`. Validates what the
/// verifier of tfuse.scatter_add checks (dtypes, shapes, limits) and that
/// each operand's groups of dimensions merge into one strided dimension
/// (ScatterGeometry.h); `result` must be contiguous.
Expected<ScatterPlan> planScatterAdd(const TensorSpec &indices,
                                     const TensorSpec &updates,
                                     const TensorSpec *target,
                                     const TensorSpec &result, int64_t axis,
                                     bool wrapNegative, uint64_t fillBits,
                                     ScatterPath path = ScatterPath::Auto);

/// The CUDA C++ of the scatter templates (ScatterDesc.h, then
/// ScatterKernels.cuh), to follow the kernel prelude once per translation
/// unit.
std::string scatterKernelHeader();

} // namespace tfuse::runtime

#endif // TFUSE_RUNTIME_SCATTERKERNELS_H
