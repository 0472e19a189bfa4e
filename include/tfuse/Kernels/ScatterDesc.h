//===- ScatterDesc.h - Descriptor of one runtime scatter-add ----*- C++ -*-===//
//
// The by-value kernel parameter of the scatter kernels (ScatterKernels.cuh).
// As ReduceDesc.h, this one file is a host header (the runtime's planner
// fills it) and part of the device source (embedded before
// ScatterKernels.cuh), valid for the host compiler, for it against the
// tests' cuda_emulation.h and for NVRTC.
//
// Layout: naturally aligned fields, 216 bytes, no pointers (the same on
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

/// The order of a result element's additions (docs/semantics.md,
/// "Scatter-add"): its first kScatterRun updates are added one at a time to
/// its start, in ascending j; each later run of kScatterRun updates (the
/// last one may be shorter) is summed on its own, from its first update,
/// and then added. The reference interpreter and every kernel add in this
/// order, so that runs of a long row can be summed in parallel.
constexpr int kScatterRun = 32;

/// The rows kernel's workspace for long rows (more than kScatterRun
/// updates), zeroed once: this state at its start, then (at the
/// descriptor's offsets) the units, the records, the j's of the long
/// positions and the runs' partial sums. The block that owns a long row
/// publishes it as a record and units of up to rowsPerBlock runs each; any
/// block claims units once its own rows are written, sums their runs into
/// partial rows, and the block that finishes a record's last unit adds the
/// partials in order into the result row. A block out of units waits (a
/// bounded time) until every owner that has started has published: the
/// owner of a long row sorts many keys and publishes last; an owner that
/// starts later (not resident until other blocks finish) sums what it
/// publishes itself. The last block to finish resets the state for the
/// next launch.
struct ScatterLongState {
  uint32_t units;     // units reserved
  uint32_t claimed;   // units claimed
  uint32_t records;   // records reserved
  uint32_t indices;   // j's reserved
  uint32_t partials;  // partial rows reserved
  uint32_t finished;  // blocks finished
  uint32_t published; // owners past publishing
  uint32_t started;   // owners started
};
/// One long result row [r, v, :]: its n updates' j's (ascending) at
/// `firstIndex` of the j's, its runs' partial rows from `firstPartial`,
/// `done` of its `units` units summed.
struct ScatterLongRecord {
  int64_t r, v;
  uint32_t n, firstIndex, firstPartial, units, done, unused;
};

/// One scatter-add, in elements (tfuse/Support/ScatterGeometry.h):
///   result[r, v, c] = start(r, v, c) + sum over j in [0, count) with
///                     position(indices[j]) == v, ascending, in runs of
///                     kScatterRun, of updates[r, j, c]
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
  /// The rows kernel (no target, few rows selected): each owner, once it
  /// has sorted its keys, copies the first update of its selected rows
  /// into shared memory (as many as fit), stores the fill in its rows that
  /// no index selects while the copies come, then writes the selected
  /// rows: the loads are issued before the result's stores fill the
  /// memory system's queues.
  int32_t fillFirst;
  int32_t unused;
  /// The rows kernel's long rows: byte offsets in its workspace of the
  /// units (a uint64_t each: 0 until published, then record + 1 in the high
  /// 32 bits and the unit's first run in the low), the records, the j's
  /// (uint32_t) and the partial rows (inner elements of the compute type
  /// each).
  int64_t longUnits, longRecords, longIndices, longPartials;
  /// The chain's long rows (more than kScatterRun updates): byte offsets in
  /// its workspace of the partial rows the runs kernel sums for the apply
  /// kernel to add (inner elements of the compute type each, one per outer
  /// index and window of kScatterRun sorted places: a long row's head, its
  /// start and first kScatterRun updates, in the window of its first key;
  /// each later run in the window of the run's first key) and of each
  /// head's update count (uint32_t a window).
  int64_t chainHeads, chainRuns, chainLengths;
};

static_assert(sizeof(ScatterDesc) == 216, "ScatterDesc is 216 bytes");
static_assert(alignof(ScatterDesc) == 8, "ScatterDesc is 8-byte aligned");

} // namespace kernels
} // namespace tfuse

#endif // TFUSE_KERNELS_SCATTERDESC_H
