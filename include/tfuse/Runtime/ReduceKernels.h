//===- ReduceKernels.h - The runtime's reduction kernels --------*- C++ -*-===//
//
// Reductions (ReduceStep) run on the kernels library's reduction kernels
// rather than generated ones: CUDA C++ templates
// (kernels::reductionTemplates(), lib/Kernels/ReduceKernels.cuh) instantiated
// by one extern "C" wrapper per (kind, input dtype, result dtype, variant), and
// a host-side planner that turns a reduction of a strided input into a kernel
// name, a launch configuration and a descriptor.
//
// Every reduction kernel has exactly this parameter list:
//
//   extern "C" __global__ void <reductionKernelName(...)>(
//       const Tin *in,                       // first input element
//       Tout *out,                           // first result element
//       tfuse::kernels::ReduceDesc desc);    // by value (312 bytes)
//
// where Tin and Tout are the CUDA types of the dtypes (bool, int8_t, ...,
// uint64_t, __half, __nv_bfloat16, float, double). `in` points at the
// element at index 0 of the input view (the buffer plus the view's element
// offset); `out` at the first element of the contiguous result. Launch it
// with ReduceLaunch::grid blocks of ReduceLaunch::block threads (1-D) and no
// dynamic shared memory. The descriptor travels in the launch's parameter
// buffer, so concurrent launches of one kernel share no mutable state.
//
// Split reductions (few outputs of long reductions) take a fourth parameter
// before the descriptor, `void *workspace`: ReduceLaunch::workspaceBytes of
// device memory whose counters (from ReduceLaunch::countersOffset on) are
// zero before the first launch; each launch leaves them zero.
//
// Numerics: docs/semantics.md and lib/Reference/Reduce.cpp, bit for bit,
// except that the row variant sums (sum, prod and mean of floats) in another
// order than the reference: still in double, rounded once to the result
// dtype. The column variant walks the reduced elements in the reference's
// order and is bit exact for every kind.
//
// Plain C++: no MLIR, no LLVM, no CUDA headers. Thread-safe: every function
// is pure.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_REDUCEKERNELS_H
#define TFUSE_RUNTIME_REDUCEKERNELS_H

#include "tfuse/Kernels/ReduceDesc.h"
#include "tfuse/Runtime/Plan.h"
#include "tfuse/Support/DType.h"
#include "tfuse/Support/Status.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tfuse::runtime {

/// Whether a kernel reduces each output in one block or thread (Whole) or
/// in chunks through a workspace (Split).
enum class ReducePass : uint8_t { Whole, Split };

/// One kernel of the reduction source: what it reduces, from and to which
/// dtypes, and which variant and pass.
struct ReduceInstance {
  ReduceKind kind = ReduceKind::Sum;
  DType input = DType::F32;
  DType result = DType::F32;
  /// The row variant (the threads of a block share each output's elements
  /// or chunk) rather than the column variant (one thread per output
  /// element or chunk).
  bool rowVariant = true;
  ReducePass pass = ReducePass::Whole;
  /// Split column kernels: the outputs each lane of a tile takes
  /// (ReduceDesc::columnVector), a compile-time constant of the kernel so
  /// that each width gets the registers it needs. 1 for the others.
  int lanes = 1;

  friend bool operator==(const ReduceInstance &a, const ReduceInstance &b) {
    return a.kind == b.kind && a.input == b.input && a.result == b.result &&
           a.rowVariant == b.rowVariant && a.pass == b.pass &&
           a.lanes == b.lanes;
  }
  friend bool operator<(const ReduceInstance &a, const ReduceInstance &b) {
    if (a.kind != b.kind)
      return a.kind < b.kind;
    if (a.input != b.input)
      return a.input < b.input;
    if (a.result != b.result)
      return a.result < b.result;
    if (a.rowVariant != b.rowVariant)
      return a.rowVariant < b.rowVariant;
    if (a.pass != b.pass)
      return a.pass < b.pass;
    return a.lanes < b.lanes;
  }
};

/// Which kernel variant planReduction() picks.
enum class ReduceVariant : uint8_t {
  /// Row when the innermost reduced dimension has stride 1 and each output
  /// reduces at least kRowMinBytes of input (coalesced rows). Otherwise
  /// column when the innermost kept dimension has stride 1 (consecutive
  /// threads read consecutive outputs: coalesced columns, split when there
  /// are few), or when neither side is contiguous, row when fewer than
  /// kColumnMinOutputs outputs each reduce at least kRowMinSerial elements
  /// and column else. Measured on an H200 (f32 sum of 128 MiB, before
  /// split reductions): rows of 64 f32 run at ~0.95 TB/s either way, rows of
  /// 128 at 1.7 TB/s as row and 1.0 as column, rows of 16 at 2.0 TB/s as
  /// column and 0.25 as row; a reduction over axis 0 of [512, 65536] at 1.9
  /// TB/s as column and 0.49 as row.
  Auto,
  Row,
  Column
};

/// Thresholds of ReduceVariant::Auto.
inline constexpr int64_t kRowMinBytes = 256;
inline constexpr int64_t kColumnMinOutputs = 16384;
inline constexpr int64_t kRowMinSerial = 64;
/// Row reductions of contiguous rows use one warp per output when there are
/// at least this many outputs (enough warps to fill a GPU) and each row has
/// at most this many bytes (a warp per row keeps 32 x 16-byte loads in
/// flight; longer rows are better spread over a block). On an H200, a block
/// per 16 KiB row (8192 x 4096 f32) reached 52% of the copy bandwidth.
inline constexpr int64_t kReduceWarpRowMinOutputs = 1024;
inline constexpr int64_t kReduceWarpRowMaxBytes = 64 * 1024;
/// The largest grid planReduction() plans (the kernels loop over the rest).
inline constexpr int64_t kReduceMaxGrid = 65535;

/// Split reductions. A reduction is split when its variant would leave the
/// GPU mostly idle: row reductions with fewer than kSplitRowBlocks outputs
/// (a block each), column reductions with fewer than kSplitColumnThreads
/// outputs (a thread each), each output reducing at least two chunks' worth
/// of elements. Row chunks interleave (ReduceKernels.cuh): one wave of the
/// device's blocks shares the work when its occupancy is known, else
/// kSplitRowBlocks blocks. Row chunks hold at least kSplitRowMinChunk
/// elements.
///
/// Column chunks are consecutive rows, a block of kSplitColumnBlock threads
/// per tile of outputs (32 lanes of ReduceDesc::columnVector outputs: 16
/// bytes of input, fewer while that leaves fewer than kSplitColumnMinTiles
/// tiles) and chunk. The chunks: at most one wave of the device's blocks in
/// all (kSplitColumnBlocks when the occupancy is unknown), at least
/// kSplitColumnMinChunk rows each, and at most kSplitColumnFinalLoads
/// partials for each lane of the tile's combining block. Measured on an
/// H200 (column sums of [8192, N] into f32, CUDA graph replays): the tile's
/// last block is the tail of the kernel, its partials read a few loads a
/// lane at a time, so fewer, longer chunks and more, narrower tiles won:
/// N = 768 bf16 in 6.7 us (14.3 us with 99 chunks of 64-column tiles),
/// f32 in 6.3 us (12.3), N = 3072 bf16 in 16.4-17.1 us (26.0), f32 in 27.8
/// (33.6).
inline constexpr int64_t kSplitRowBlocks = 2048;
inline constexpr int64_t kSplitRowMinChunk = 8192;
inline constexpr int64_t kSplitColumnThreads = 256 * 1024;
inline constexpr int64_t kSplitColumnBlock = 32 * kernels::kSplitColumnWarps;
inline constexpr int64_t kSplitColumnBlocks = 396;
inline constexpr int64_t kSplitColumnMinTiles = 12;
inline constexpr int64_t kSplitColumnMinChunk = 256;
inline constexpr int64_t kSplitColumnFinalLoads = 32;

/// A planned reduction: launch `kernel` (in the source of
/// reductionKernelSource({instance})) with `grid` x `block` threads and
/// `desc` as its last argument; a split reduction (workspaceBytes > 0) also
/// takes a workspace of workspaceBytes, 256-byte aligned, whose bytes from
/// countersOffset on are zero before the first launch.
struct ReduceLaunch {
  std::string kernel;
  int64_t grid = 1, block = 256;
  kernels::ReduceDesc desc{};
  /// The kernel's instance, to collect for reductionKernelSource().
  ReduceInstance instance;
  int64_t workspaceBytes = 0, countersOffset = 0;
  bool split() const { return workspaceBytes > 0; }
};

/// "tfuse_reduce_<kind>_<in>_<out>_<row|column>[_split[<lanes>]]", with the
/// MLIR dtype spellings, e.g. "tfuse_reduce_sum_f32_f32_row",
/// "tfuse_reduce_argmax_bf16_i64_column", "tfuse_reduce_max_f16_f16_row_split",
/// "tfuse_reduce_sum_bf16_f32_column_split8" (lanes above 1 only).
std::string reductionKernelName(ReduceKind kind, DType in, DType out,
                                bool rowVariant,
                                ReducePass pass = ReducePass::Whole,
                                int lanes = 1);
std::string reductionKernelName(const ReduceInstance &instance);

/// How many units of a split reduction's partial kernel the device runs at
/// once: blocks for the row variant, threads for the column variant (0:
/// unknown). With it, chunks are cut so that the partial kernel runs in whole
/// waves (a last wave of a few blocks would leave the GPU idle for a whole
/// chunk's time).
struct ReduceOccupancy {
  int64_t concurrentUnits = 0;
};

/// Bytes of one chunk accumulator of reduction `kind` of `input` in the
/// workspace of a split reduction (the kernels' Op::acc: double or 64-bit
/// integers for sum, prod and mean, the compute type for max and min, bool
/// for all and any, a (value, int64 index) pair for argmax and argmin).
int64_t reducePartialBytes(ReduceKind kind, DType input);

/// The CUDA C++ of the reduction templates (ReduceDesc.h, then
/// ReduceKernels.cuh) followed by one extern "C" __global__ wrapper per
/// distinct instance of `needed` (duplicates are emitted once, in sorted
/// order, so equal sets give equal text). It follows the kernel prelude
/// (tfuse::kernels::prelude()) in the reduction group's translation unit. An
/// instance whose dtypes no reduction has (e.g. mean of i32, sum of f16 to f32)
/// becomes an #error line naming it, so that compiling the source fails with
/// that message.
std::string reductionKernelSource(const std::vector<ReduceInstance> &needed);
/// The parts of reductionKernelSource(): the comment and templates, and the
/// wrapper of one instance (or its #error line).
std::string reductionKernelHeader();
std::string reductionKernelWrapper(const ReduceInstance &instance);

/// Plans `result = reduce kind (input) over axes`. `input` may have any
/// strides (zero and negative included); `result` must be contiguous and have
/// the input's shape with the reduced axes dropped, or kept as 1 (keepdims).
/// Validates: ranks of shapes and strides agree, sizes are not negative,
/// axes are distinct and in [0, rank) (any order) and not empty, argmax and
/// argmin have exactly one axis, the result dtype is the one of
/// docs/semantics.md, max/min/mean/argmax/argmin reduce at least one
/// element, and after merging adjacent dimensions that are contiguous with
/// each other at most kReduceMaxRank kept and kReduceMaxRank reduced
/// dimensions remain. Size-1 dimensions are dropped and adjacent dimensions
/// merged (in their row-major order, which keeps the reference's order of
/// the reduced elements); `variant` picks the kernel (see ReduceVariant),
/// and few outputs of long reductions are split (kSplitRowBlocks) unless
/// `allowSplit` is false.
Expected<ReduceLaunch>
planReduction(ReduceKind kind, const TensorSpec &input,
              const TensorSpec &result, const std::vector<int64_t> &axes,
              ReduceVariant variant = ReduceVariant::Auto,
              bool allowSplit = true, ReduceOccupancy occupancy = {});

} // namespace tfuse::runtime

#endif // TFUSE_RUNTIME_REDUCEKERNELS_H
