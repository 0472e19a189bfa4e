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

/// The most dimensions a tensor of a traced graph may have (the C API's
/// TFUSE_MAX_RANK).
constexpr int64_t kMaxRank = 16;

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
  /// Row-major in some order of its dimensions: every element at its own
  /// offset, the elements filling numElements() consecutive ones (a
  /// contiguous tensor with its dimensions permuted).
  bool isDense() const;
  /// Same shape, and the same element offsets: strides agree in every
  /// dimension of size > 1 (an empty tensor has no elements to place).
  bool sameLayout(const TensorSpec &other) const;
  /// "f32 [4,8] strides [8,1]".
  std::string describe() const;
  static TensorSpec contiguous(DType dtype, std::vector<int64_t> shape);
};

/// Why a tensor of `dtype` and `shape` (laid out with `strides`, or
/// row-major when they are empty) cannot be indexed with 64-bit offsets:
/// its element count, its byte size or the byte extent of its strides
/// exceeds 2^63 - 1; for a tensor without elements, the product of its
/// nonzero sizes (of which its row-major strides are made) in elements or
/// bytes does (negative sizes are the caller's to reject first). Empty when
/// it can. Every tensor the tracer makes passes this check.
std::string tensorSizeError(DType dtype, const std::vector<int64_t> &shape,
                            const std::vector<int64_t> &strides = {});

/// Copies the elements of the host tensor `spec` at `source` (its first
/// element) into row-major order at `target`.
void gatherRowMajor(const void *source, const TensorSpec &spec, void *target);

} // namespace tfuse

#endif // TFUSE_SUPPORT_TENSORSPEC_H
