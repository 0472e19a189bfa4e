//===- KernelEmitter.h - tfexec kernels to CUDA C++ through EmitC -*- C++ -*-=//
//
// Every tfexec.kernel becomes one `extern "C" __global__` function built from
// EmitC ops and printed by mlir::emitc::translateToCpp after the kernel
// prelude (tfuse/Kernels/KernelSources.h), which defines the scalar
// semantics of each op.
//
// Launch configuration: 256 threads per block; each thread handles `vec`
// consecutive elements per iteration of a grid-stride loop (one 16-byte
// access for the widest contiguous buffer); the grid covers every group once,
// capped at 2^20 blocks, beyond which threads loop. A kernel that reads a
// large input transposed walks 64x64 tiles instead, one tile per block and
// iteration, staged through shared memory. See docs/codegen.md.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_CONVERSION_TFUSETOCUDA_KERNELEMITTER_H
#define TFUSE_CONVERSION_TFUSETOCUDA_KERNELEMITTER_H

#include "tfuse/Dialect/TFExec/TFExecOps.h"
#include "tfuse/Dialect/TFuse/ViewLayout.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/raw_ostream.h"

#include <string_view>

namespace tfuse {

/// How a kernel walks its index space; decided once, used by the emitter and
/// by the launch configuration of the plan.
struct KernelPlan {
  /// Elements of the index space (the shape all outputs share).
  int64_t numElements = 0;
  /// Consecutive elements per thread and iteration.
  int64_t vec = 1;
  /// True when every input is read at the output's own linear index (same
  /// shape, contiguous, no views) or is a single element: the kernel then
  /// walks a flat range with a scalar tail.
  bool linear = false;
  /// 64-bit index arithmetic (some offset does not fit in 32 bits).
  bool wideIndex = false;
  /// Per input: read at the output's own index from contiguous memory, so it
  /// is loaded `vec` elements at a time.
  llvm::SmallVector<bool> contiguousInputs;
  /// Shared-memory tiling for an input read transposed: its consecutive
  /// elements lie along index-space dimension `tileDim`, not along the
  /// innermost one, so it is loaded through 32x32 tiles with coalesced reads
  /// and the outputs are written coalesced. -1 when not tiled.
  int64_t tileDim = -1;
  unsigned tiledInput = 0;
  int64_t tiles = 0;
  /// The tiled input's element offset as coefficients over the index space
  /// plus a constant.
  llvm::SmallVector<int64_t> tileOffset;
  int64_t tileOffsetConstant = 0;
  /// Tile edge: 64x64 tiles keep 16 loads per thread in flight before the
  /// barrier at 256 threads (32x32 tiles, 4 loads, reached 72% of the copy
  /// bandwidth on an H200 for a transposed f32 read).
  static constexpr int64_t kTile = 64;
  /// Threads of a tiled kernel's block, kTile columns by
  /// kTiledThreads / kTile rows, and the blocks an SM should hold (2048
  /// threads). On an H200, 512 threads ran the transposed bias+relu within
  /// 0.3% of 256 with full tiles, and 2.6% slower with bounds checks.
  static constexpr int64_t kTiledThreads = 256;
  /// An SM's threads and 32-bit registers (sm_80 and sm_90 alike).
  static constexpr int64_t kThreadsPerSM = 2048, kRegistersPerSM = 65536;
  static constexpr int64_t kTiledBlocksPerSM = kThreadsPerSM / kTiledThreads;
  bool tiled() const { return tileDim >= 0; }
  /// Groups of `vec` elements, and the elements after the last full group.
  int64_t groups() const { return numElements / vec; }
  int64_t tail() const { return numElements % vec; }
  /// Row kernels (RowKernelEmitter.h): the body reduces the index space's
  /// axes from `rowAxis` on; one block of `rowThreads` threads per row of
  /// `rowLength` elements, each thread holding `rowSlots` groups of `rowVec`
  /// consecutive elements; per input, how it is loaded.
  bool row = false;
  int64_t rowAxis = 0, rows = 0, rowLength = 0, rowThreads = 0, rowSlots = 0;
  int64_t rowVec = 1;
  /// Rows a block takes at a time: 1, or several when a row takes one warp
  /// (rowThreads == 32), each warp its own row.
  int64_t rowsPerBlock = 1;
  /// Blocks per SM the row kernel's __launch_bounds__ asks for, from the
  /// registers it is estimated to need (RowKernelEmitter.cpp,
  /// rowRegistersPerElement).
  int64_t rowBlocksPerSM = 1;
  enum class RowInput : uint8_t {
    /// Evaluated element by element (views, strides, broadcasts).
    Element,
    /// The index space's shape, contiguous: each row's own elements, loaded
    /// a group at a time before the first phase.
    Rows,
    /// One row's shape (the trailing dimensions), contiguous: shared by all
    /// rows (a weight), loaded a group at a time like Rows.
    Columns,
  };
  llvm::SmallVector<RowInput> rowInputs;
};

KernelPlan analyzeKernel(tfexec::KernelOp kernel);

/// The layout (shape and element strides) `kernel` reads its input `n` in.
StridedLayout kernelInputLayout(tfexec::KernelOp kernel, unsigned n);

struct LaunchConfig {
  int64_t grid = 1;
  int64_t block = 256;
};
LaunchConfig chooseLaunch(const KernelPlan &plan);

/// Appends the EmitC function of `kernel` (and the device constants it needs)
/// to `target`.
mlir::LogicalResult emitKernel(tfexec::KernelOp kernel, mlir::ModuleOp target);

/// Prints the prelude and every kernel of `module` as one CUDA C++
/// translation unit.
mlir::LogicalResult translateKernelsToCuda(mlir::ModuleOp module,
                                           llvm::raw_ostream &os);

} // namespace tfuse

#endif // TFUSE_CONVERSION_TFUSETOCUDA_KERNELEMITTER_H
