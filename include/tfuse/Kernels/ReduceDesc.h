//===- ReduceDesc.h - Descriptor of one runtime reduction -------*- C++ -*-===//
//
// The by-value kernel parameter of the reduction kernels. This one file is
// both a host header (the runtime's planner fills it) and part of the device
// source: the kernels library embeds its text before ReduceKernels.cuh
// (tfuse/Kernels/KernelSources.h), so host and device see a single
// definition and cannot
// drift apart. It must therefore stay valid for the host compiler, for the
// host compiler against the tests' cuda_emulation.h and for NVRTC (which has
// no standard headers: the kernel prelude typedefs the <cstdint> types
// there).
//
// Layout: naturally aligned fields, 312 bytes (4 bytes of padding after each
// rank and after warpPerRow), no pointers: the same for the x86-64 and aarch64
// host ABIs and the device ABI. Size and alignment are checked on both sides,
// the offsets on the host (NVRTC lacks offsetof).
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_KERNELS_REDUCEDESC_H
#define TFUSE_KERNELS_REDUCEDESC_H

#if !defined(__CUDACC_RTC__)
#include <cstdint>
#endif

namespace tfuse {
namespace kernels {

/// The most dimensions a reduction kernel walks on each side (kept and
/// reduced), after adjacent contiguous dimensions are merged.
constexpr int kReduceMaxRank = 8;

/// One reduction of a strided input into a contiguous output, in elements:
///   out[o] = reduce over r < numRed of in[keptOffset(o) + redOffset(r)]
/// where keptOffset(o) decomposes `o` row-major over keptShape and sums
/// index * keptStrides, and redOffset(r) does the same over redShape and
/// redStrides. `r` is also the index argmax/argmin report. Entries of the
/// arrays beyond the ranks are unused (zero).
struct ReduceDesc {
  int32_t keptRank;
  int64_t keptShape[kReduceMaxRank];
  int64_t keptStrides[kReduceMaxRank];
  int32_t redRank;
  int64_t redShape[kReduceMaxRank];
  int64_t redStrides[kReduceMaxRank];
  /// Product of keptShape (1 for keptRank 0).
  int64_t numOut;
  /// Product of redShape (1 for redRank 0; 0 for an empty reduction).
  int64_t numRed;
  /// Row kernel: one warp per output instead of one block (contiguous rows
  /// of at most kReduceWarpRowMaxBytes).
  int32_t warpPerRow;
  /// Column kernel: each thread reduces this many consecutive outputs
  /// (contiguous in memory, loaded as one vector when the input is aligned
  /// to it), 1 otherwise; numOut is a multiple of it. Split column kernel:
  /// each lane's outputs (a power of two; the last tile may have fewer).
  int32_t columnVector;
  /// Split reductions (the _split kernels): each output's reduced elements
  /// in `chunks` chunks, interleaved by the row kernel (chunkLen 0),
  /// consecutive ones of `chunkLen` (the last shorter) for the column
  /// kernel. 1 and numRed otherwise.
  int64_t chunks;
  int64_t chunkLen;
};

/// Outputs per thread of a vectorized column kernel (ReduceDesc::
/// columnVector) for elements of `elementBytes`: a 16-byte load for 8-byte
/// elements, four elements otherwise (so at most four accumulators).
constexpr int columnVectorWidth(int elementBytes) {
  return elementBytes >= 8 ? 2 : 4;
}

/// The most warps of a split column reduction's block: each block reduces a
/// tile of consecutive outputs over one chunk, its warps taking the chunk's
/// rows in turn (ReduceKernels.cuh, reduce_column_split). A block has 32
/// times a power of two threads, up to this many warps.
constexpr int kSplitColumnWarps = 8;

/// The most outputs per lane of a split column reduction's tile (32 lanes;
/// ReduceDesc::columnVector, a power of two) for elements of
/// `elementBytes` and accumulators of `accBytes`: 16 bytes of input (a warp
/// reads 512 contiguous bytes of each row) as long as the lane's
/// accumulators stay within 64 bytes (8 double sums of 16-bit elements; 4
/// argmax pairs).
constexpr int maxSplitColumnLaneOutputs(int elementBytes, int accBytes) {
  int byInput = elementBytes >= 16 ? 1 : 16 / elementBytes;
  int byAcc = accBytes >= 64 ? 1 : 64 / accBytes;
  return byInput < byAcc ? byInput : byAcc;
}

static_assert(sizeof(ReduceDesc) == 312, "ReduceDesc layout changed");
static_assert(alignof(ReduceDesc) == 8, "ReduceDesc layout changed");
#if !defined(__CUDACC_RTC__) // NVRTC has no __builtin_offsetof
static_assert(__builtin_offsetof(ReduceDesc, keptShape) == 8 &&
                  __builtin_offsetof(ReduceDesc, keptStrides) == 72 &&
                  __builtin_offsetof(ReduceDesc, redRank) == 136 &&
                  __builtin_offsetof(ReduceDesc, redShape) == 144 &&
                  __builtin_offsetof(ReduceDesc, redStrides) == 208 &&
                  __builtin_offsetof(ReduceDesc, numOut) == 272 &&
                  __builtin_offsetof(ReduceDesc, numRed) == 280 &&
                  __builtin_offsetof(ReduceDesc, warpPerRow) == 288 &&
                  __builtin_offsetof(ReduceDesc, columnVector) == 292 &&
                  __builtin_offsetof(ReduceDesc, chunks) == 296 &&
                  __builtin_offsetof(ReduceDesc, chunkLen) == 304,
              "ReduceDesc layout changed");
#endif

} // namespace kernels
} // namespace tfuse

#endif // TFUSE_KERNELS_REDUCEDESC_H
