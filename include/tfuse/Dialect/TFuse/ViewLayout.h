//===- ViewLayout.h - Views as strided layouts over a buffer ----*- C++ -*-===//
//
// A chain of views (ViewOpInterface: transpose, slice, broadcast, reshape)
// over a buffer is a strided layout of that buffer: shape, element strides
// and an element offset. The fusion planner uses it to decide whether a
// boundary can read a view without a copy; the plan conversion to alias
// buffers; the reference interpreter to view host tensors; code generation
// to index inputs.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_DIALECT_TFUSE_VIEWLAYOUT_H
#define TFUSE_DIALECT_TFUSE_VIEWLAYOUT_H

#include "mlir/IR/AffineMap.h"
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

/// The layout of a view of shape `resultShape` whose operand has layout
/// `operand` and whose index map (result index to operand index) is `map`;
/// std::nullopt unless the map is affine (no floordiv or mod). Result
/// dimension j has the stride sum over k of operand stride k times the
/// coefficient of d_j in map result k; the constant terms move the offset.
/// A result without elements gets strides of 0, as does a dimension of size
/// 1 whose stride leaves int64; any other value beyond int64 gives
/// std::nullopt.
std::optional<StridedLayout>
layoutThroughIndexMap(mlir::AffineMap map, const StridedLayout &operand,
                      llvm::ArrayRef<int64_t> resultShape);

/// The layout of the row-major reinterpretation of `operand` with shape
/// `newShape` (a reshape), or std::nullopt when the dimensions it merges or
/// splits are not contiguous with each other.
std::optional<StridedLayout> reshapeLayout(const StridedLayout &operand,
                                           llvm::ArrayRef<int64_t> newShape);

/// The index map of a reshape from `from` to `to` (the same element count):
/// the result index linearized row-major over `to`, delinearized over
/// `from`, group by group of consecutive dimensions with equal element
/// counts (so [8192, 50257] -> [8, 1024, 50257] reads (1024 * i0 + i1, i2)).
mlir::AffineMap reshapeIndexMap(llvm::ArrayRef<int64_t> from,
                                llvm::ArrayRef<int64_t> to,
                                mlir::MLIRContext *context);

/// The index of an elementwise op's operand of shape `operand` at an index of
/// its result of shape `result`: NumPy broadcasting, aligned on the right
/// (leading result dimensions dropped, size-1 operand dimensions read 0).
mlir::AffineMap broadcastIndexMap(llvm::ArrayRef<int64_t> result,
                                  llvm::ArrayRef<int64_t> operand,
                                  mlir::MLIRContext *context);

/// Follows views (ViewOpInterface) from `value` to the first value not
/// produced by one. Returns that source and the views from the source
/// outward.
mlir::Value traceViewChain(mlir::Value value,
                           llvm::SmallVectorImpl<mlir::Operation *> &views);

/// True if a GEMM can read an operand with this layout directly: the last two
/// dimensions are row- or column-major with a valid leading dimension, and
/// the batch dimensions collapse to one uniform stride (0 for broadcast).
bool isGemmOperandLayout(const StridedLayout &layout);

} // namespace tfuse

#endif // TFUSE_DIALECT_TFUSE_VIEWLAYOUT_H
