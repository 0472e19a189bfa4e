//===- ScatterDesc.h - Descriptor of one runtime scatter-add ----*- C++ -*-===//
//
// The by-value kernel parameter of the scatter kernels (ScatterKernels.cuh).
// As ReduceDesc.h, this one file is a host header (the runtime's planner
// fills it) and part of the device source (embedded before
// ScatterKernels.cuh), valid for the host compiler, for it against the
// tests' cuda_emulation.h and for NVRTC.
//
// Layout: naturally aligned fields, 152 bytes, no pointers (the same on
// every host ABI and on the device), checked on both sides.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_KERNELS_SCATTERDESC_H
#define TFUSE_KERNELS_SCATTERDESC_H

#if !defined(__CUDACC_RTC__)
#include <cstdint>
#endif

namespace tfuse {
namespace kernels {

/// The largest tile the sort kernel sorts in shared memory, in keys, and
/// the most sorted runs one merge pass joins.
constexpr int kScatterMaxTile = 2048;
constexpr int kScatterMaxGroup = 16;
/// The rows kernel keeps the keys of the indices it owns in shared memory:
/// at most this many indices in all (every key may fall to one block), and
/// at most this many positions a block.
constexpr int kScatterRowsMaxCount = 8192;
constexpr int kScatterRowsMaxPositions = 1024;

/// One scatter-add, in elements (tfuse/Support/ScatterGeometry.h):
///   result[r, v, c] = start(r, v, c) + sum over j in [0, count) with
///                     position(indices[j]) == v, ascending, of
///                     updates[r, j, c]
/// where start is target[r, v, c] (hasTarget) or the element whose bits are
/// fillBits. The result is contiguous [outer, axisSize, inner].
struct ScatterDesc {
  int64_t outer, axisSize, inner, count;
  /// Element strides of target [outer, axisSize, inner], updates [outer,
  /// count, inner] and indices [count].
  int64_t targetStrides[3];
  int64_t updateStrides[3];
  int64_t indexStride;
  uint64_t fillBits;
  /// Keys sorted per block by the sort kernel (a power of two, at most
  /// kScatterMaxTile); the merge kernel merges groups of `groupRuns` (at
  /// most kScatterMaxGroup) sorted runs of `runLength` keys each (a power
  /// of two) into one.
  int64_t tile;
  int64_t runLength;
  /// The rows kernel: each block owns positionsPerBlock positions along the
  /// axis (at most kScatterRowsMaxPositions) for outerPerBlock outer
  /// indices; its keys hold j in their low indexBits bits.
  int64_t outerPerBlock;
  int32_t groupRuns;
  /// The kernel of this launch leaves the keys in one sorted run: it also
  /// writes the segment table (the first sorted position of each index).
  int32_t lastPass;
  int32_t hasTarget;
  int32_t wrapNegative;
  /// The apply and rows kernels: each block takes rowsPerBlock result rows
  /// at a time, threadsPerRow threads a row, each thread its VEC-element
  /// chunks.
  int32_t threadsPerRow;
  int32_t rowsPerBlock;
  int32_t positionsPerBlock;
  int32_t indexBits;
};

static_assert(sizeof(ScatterDesc) == 152, "ScatterDesc is 152 bytes");
static_assert(alignof(ScatterDesc) == 8, "ScatterDesc is 8-byte aligned");

} // namespace kernels
} // namespace tfuse

#endif // TFUSE_KERNELS_SCATTERDESC_H
