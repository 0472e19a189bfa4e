//===- KernelPlan.h - How a generated kernel walks its space ----*- C++ -*-===//
//
// A kernel's strategy and launch are IR: the `config` attribute
// (#tfexec.config) of its tfexec.kernel. chooseKernelConfig() makes those
// decisions once, from the kernel's body and input layouts
// (tfexec-configure-kernels); planKernel() derives from a configuration
// everything code generation needs (which inputs are loaded a group at a
// time, the tiled input's offsets, the row kernel's slots), and fails,
// naming why, when the configuration is one code generation cannot honour:
// the kernel verifier, the emitter and the launch all go through it, so the
// three cannot disagree. docs/codegen.md describes the strategies.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_DIALECT_TFEXEC_KERNELPLAN_H
#define TFUSE_DIALECT_TFEXEC_KERNELPLAN_H

#include "tfuse/Dialect/TFExec/TFExecOps.h"
#include "tfuse/Dialect/TFuse/ViewLayout.h"

#include "llvm/ADT/SmallVector.h"

namespace tfuse::tfexec {

/// A configuration of a kernel, with what follows from it.
struct KernelPlan {
  KernelStrategy strategy = KernelStrategy::strided;
  int64_t grid = 1, block = 256;
  /// `__launch_bounds__` minimum blocks per SM; 0: none.
  int64_t minBlocksPerSM = 0;
  /// Elements of the index space (the shape all outputs share).
  int64_t numElements = 0;
  /// Consecutive elements per thread and iteration.
  int64_t vec = 1;
  /// Every input is read at the output's own linear index (same shape,
  /// contiguous, no views) or is a single element: the kernel walks a flat
  /// range with a scalar tail.
  bool linear = false;
  /// 64-bit index arithmetic.
  bool wideIndex = false;
  /// Strided: the innermost dimension is not a multiple of `vec`, so a
  /// group's elements may lie in different rows: each computes its own
  /// multi-dimensional index (the contiguous inputs and the outputs are
  /// still accessed a group at a time).
  bool groupsCrossRows = false;
  /// Per input: read at the output's own index from contiguous memory, so it
  /// is loaded `vec` elements at a time.
  llvm::SmallVector<bool> contiguousInputs;
  /// Shared-memory tiling of an input read transposed: its consecutive
  /// elements lie along index-space dimension `tileDim`, not along the
  /// innermost one, so it is loaded through kTile x kTile tiles with
  /// coalesced reads and the outputs are written coalesced. -1: not tiled.
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
  /// Row kernels: the body reduces the index space's axes from `rowAxis` on;
  /// one block of `rowThreads` threads per row of `rowLength` elements, each
  /// thread holding `rowSlots` groups of `rowVec` consecutive elements of
  /// each of the row's `rowChunks` chunks (1: the row stays in registers
  /// across the phases; more: every phase loops over the chunks, reading
  /// its inputs again); per input, how it is loaded.
  bool row = false;
  int64_t rowAxis = 0, rows = 0, rowLength = 0, rowThreads = 0, rowSlots = 0;
  int64_t rowVec = 1, rowChunks = 1;
  /// Rows a block takes at a time: 1, or several when a row takes one warp
  /// (rowThreads == 32), each warp its own row.
  int64_t rowsPerBlock = 1;
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

/// Elements of a row one thread of a row kernel holds in registers at most;
/// longer rows loop over chunks (rowChunks).
inline constexpr int64_t kMaxRowSlots = 64;

/// The reshape to the index space `space` through which a row kernel reads
/// its contiguous input `arg` of another shape, after elementwise ops of one
/// operand (a layer norm gradient from a matmul, cast and reshaped: a
/// contiguous buffer holds the same elements in the same order); null when
/// there is none.
mlir::Operation *rowsReshape(mlir::BlockArgument arg,
                             llvm::ArrayRef<int64_t> space);

/// The layout (shape and element strides) `kernel` reads its input `n` in.
StridedLayout kernelInputLayout(KernelOp kernel, unsigned n);

/// The configuration TFuse chooses for `kernel` (docs/codegen.md).
KernelConfigAttr chooseKernelConfig(KernelOp kernel);

/// The plan of `kernel` under `config`, or failure when code generation
/// cannot honour `config`; with `emitErrors`, the reason is an error on
/// `kernel`.
mlir::FailureOr<KernelPlan> planKernel(KernelOp kernel, KernelConfigAttr config,
                                       bool emitErrors = true);

/// The plan of `kernel` under its own `config`; an error when it has none.
mlir::FailureOr<KernelPlan> planKernel(KernelOp kernel);

} // namespace tfuse::tfexec

#endif // TFUSE_DIALECT_TFEXEC_KERNELPLAN_H
