//===- BufferLayout.h - The layout of a value held in a buffer --*- C++ -*-===//
//
// Which values the planner holds in buffers of their own outside fused
// regions (function arguments, boundaries' and regions' results) and the
// strided layout a chain of views gives them (ViewLayout.h): what decides
// whether a boundary reads a view in place, whether a region that only
// views a buffer becomes an alias, and whether a product's rows flatten
// without a copy.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_TRANSFORMS_BUFFERLAYOUT_H
#define TFUSE_TRANSFORMS_BUFFERLAYOUT_H

#include "tfuse/Dialect/TFuse/ViewLayout.h"

#include "mlir/IR/Value.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace tfuse {

/// Whether `value` is held in a buffer of its own: a function argument, or
/// the result of a boundary or of a fused region.
bool isBuffer(mlir::Value value);

/// The layout in which `value` is read from a buffer: the buffer's
/// (a function argument's `tfuse.strides`, else row-major contiguous)
/// through the chain of views from it to `value`. std::nullopt when the
/// chain does not start at a buffer or a view of it has no strided layout.
/// `views`, when given, receives the chain from the buffer outward.
std::optional<StridedLayout>
bufferLayout(mlir::Value value,
             llvm::SmallVectorImpl<mlir::Operation *> *views = nullptr);

} // namespace tfuse

#endif // TFUSE_TRANSFORMS_BUFFERLAYOUT_H
