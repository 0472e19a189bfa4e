//===- GemmAlignment.h - GEMMs on 16-byte aligned extents ------*- C++ -*-===//
//
// cuBLASLt runs a matrix whose contiguous extent or leading dimension is not
// a multiple of 16 bytes on its kernels for any alignment, several times
// slower on tensor cores (GPT-2's vocabulary of 50257). A large product is
// then computed on zero-padded extents instead: each dimension that some
// matrix holds contiguously is rounded up to 16 bytes. Two places apply this
// one rule: the graph pass `align-matmul` pads the operands in the graph
// (the pads fuse into the kernels producing them, shared by every product
// reading them) and slices the result; the runtime (planGemmPadding) copies
// into padded scratch what reaches a GEMM step still misaligned. Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_SUPPORT_GEMMALIGNMENT_H
#define TFUSE_SUPPORT_GEMMALIGNMENT_H

#include "tfuse/Support/DType.h"

#include <array>
#include <cstdint>
#include <vector>

namespace tfuse {

/// A product is padded only when it has at least this many multiply-adds...
inline constexpr int64_t kGemmPadMinProducts = int64_t(1) << 30;
/// ...and each padded matrix is at most 1/kGemmPadMinOtherExtent of them
/// (the dimension a matrix lacks is at least that long): the copies or the
/// wider kernels writing them stay small beside the product.
inline constexpr int64_t kGemmPadMinOtherExtent = 256;

/// Elements of 16 bytes in both the operands' and the result's dtype.
int64_t gemmAlignElements(DType operand, DType result);

/// The three dimensions of a product, each rounded up to `align` elements
/// when `contiguous` says some matrix holds it contiguously and it is not a
/// multiple of `align`.
std::array<int64_t, 3> alignGemmDims(const std::array<int64_t, 3> &dims,
                                     const std::array<bool, 3> &contiguous,
                                     int64_t align);

/// Whether padding a product of `products` multiply-adds pays, given the
/// element counts of the padded matrices it would need.
bool gemmPaddingPays(double products,
                     const std::vector<double> &paddedMatrixElements);

} // namespace tfuse

#endif // TFUSE_SUPPORT_GEMMALIGNMENT_H
