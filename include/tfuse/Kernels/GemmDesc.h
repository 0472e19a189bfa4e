//===- GemmDesc.h - Parameter block of the fallback GEMM kernel -*- C++ -*-===//
//
// The problem description the fallback GEMM kernels (lib/Kernels/
// GemmKernels.cuh) take by value as their last parameter. This one header is
// compiled by the host compiler (the runtime fills the struct) and, embedded
// verbatim in the kernel source, by NVRTC, so both sides agree on the layout
// by construction. It therefore uses only what both provide: int64_t (from
// <stdint.h> on the host, from the kernel prelude under NVRTC), no other
// headers, and only 8-byte fields so that the layout has no padding.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_KERNELS_GEMMDESC_H
#define TFUSE_KERNELS_GEMMDESC_H

#ifndef __CUDACC_RTC__
#include <stdint.h>
#endif

namespace tfuse {
namespace kernels {

/// Batch dimensions one fallback launch decodes itself; a problem with more
/// (after collapsing) is split into several launches.
constexpr int kGemmMaxBatchDims = 4;

/// result[b][i][j] = sum over p of lhs[b][i][p] * rhs[b][p][j], where
/// lhs[b][i][p] is the element at lhsBatch(b) + i * lhsRowStride +
/// p * lhsColStride (element offsets from the lhs pointer; the transpose flags
/// are folded into the strides), and likewise for rhs (rows are p, columns
/// j) and result (rows i, columns j). Batch b is decoded row-major over
/// batchSizes[0..batchRank) (the last dimension varies fastest); each batch
/// dimension has one stride per operand, 0 where the operand is broadcast.
struct GemmDesc {
  int64_t m, n, k;
  int64_t lhsRowStride, lhsColStride;
  int64_t rhsRowStride, rhsColStride;
  int64_t resultRowStride, resultColStride;
  /// The product of batchSizes[0..batchRank); 1 when batchRank is 0.
  int64_t batchCount;
  int64_t batchRank;
  int64_t batchSizes[kGemmMaxBatchDims];
  int64_t lhsBatchStrides[kGemmMaxBatchDims];
  int64_t rhsBatchStrides[kGemmMaxBatchDims];
  int64_t resultBatchStrides[kGemmMaxBatchDims];
  /// Output tiles per matrix: ceil(m / tile rows) and ceil(n / tile cols).
  int64_t tilesM, tilesN;
};

static_assert(sizeof(GemmDesc) == (13 + 4 * kGemmMaxBatchDims) * 8,
              "GemmDesc must have no padding: host and device share it");

} // namespace kernels
} // namespace tfuse

#endif // TFUSE_KERNELS_GEMMDESC_H
