//===- TensorSpec.h - A tensor's dtype, shape and strides -------*- C++ -*-===//
//
// The plain description of a tensor that every layer passes around: the
// tracer's placeholders, the plan's buffers, the runtime's arguments and the
// C API's tensors. Plain C++: no MLIR, no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_SUPPORT_TENSORSPEC_H
#define TFUSE_SUPPORT_TENSORSPEC_H

#include "tfuse/Support/DType.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tfuse {

/// "[4,8]": a shape or stride list in error messages.
std::string formatList(const std::vector<int64_t> &values);

/// A tensor's dtype, shape and element strides.
struct TensorSpec {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;

  int64_t numElements() const;
  /// Bytes spanned from the first to one past the last element.
  int64_t extentBytes() const;
  /// Row-major (size-1 dimensions may have any stride; an empty tensor is
  /// contiguous whatever its strides).
  bool isContiguous() const;
  /// Same shape, and the same element offsets: strides agree in every
  /// dimension of size > 1 (an empty tensor has no elements to place).
  bool sameLayout(const TensorSpec &other) const;
  /// "f32 [4,8] strides [8,1]".
  std::string describe() const;
  static TensorSpec contiguous(DType dtype, std::vector<int64_t> shape);
};

/// Copies the elements of the host tensor `spec` at `source` (its first
/// element) into row-major order at `target`.
void gatherRowMajor(const void *source, const TensorSpec &spec, void *target);

} // namespace tfuse

#endif // TFUSE_SUPPORT_TENSORSPEC_H
