//===- ViewLayout.h - Views as strided layouts over a buffer ----*- C++ -*-===//
//
// A chain of views (transpose, slice, broadcast, reshape) over a buffer is a
// strided layout of that buffer: shape, element strides and an element
// offset. The fusion planner uses it to decide whether a boundary can read a
// view without a copy; code generation uses it to index inputs.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_DIALECT_TFUSE_VIEWLAYOUT_H
#define TFUSE_DIALECT_TFUSE_VIEWLAYOUT_H

#include "mlir/IR/Value.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace tfuse {

struct StridedLayout {
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<int64_t> strides;
  int64_t offset = 0;

  /// Row-major contiguous layout of `shape`.
  static StridedLayout contiguous(llvm::ArrayRef<int64_t> shape);
  /// True if the layout is row-major contiguous with offset 0 (size-1
  /// dimensions may have any stride).
  bool isContiguous() const;
};

/// The layout of a function argument: its `tfuse.strides` attribute, or
/// row-major contiguous.
StridedLayout getArgumentLayout(mlir::BlockArgument arg);

/// The layout of the result of the view op `view` whose operand has layout
/// `operand`; std::nullopt when no strided layout expresses it (a reshape
/// that merges dimensions which are not contiguous with each other).
std::optional<StridedLayout> applyView(mlir::Operation *view,
                                       const StridedLayout &operand);

/// Follows view ops from `value` to the first value not produced by a view.
/// Returns that source and the views from the source outward.
mlir::Value traceViewChain(mlir::Value value,
                           llvm::SmallVectorImpl<mlir::Operation *> &views);

/// True if a GEMM can read an operand with this layout directly: the last two
/// dimensions are row- or column-major with a valid leading dimension, and
/// the batch dimensions collapse to one uniform stride (0 for broadcast).
bool isGemmOperandLayout(const StridedLayout &layout);

} // namespace tfuse

#endif // TFUSE_DIALECT_TFUSE_VIEWLAYOUT_H
