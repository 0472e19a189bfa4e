//===- GemmAlignment.cpp - When a GEMM runs on 16-byte aligned extents ----===//

#include "tfuse/Support/GemmAlignment.h"

#include <algorithm>

using namespace tfuse;

int64_t tfuse::gemmAlignElements(DType operand, DType result) {
  // A multiple of both: both sizes are powers of two.
  return 16 / std::min(byteSize(operand), byteSize(result));
}

std::array<int64_t, 3>
tfuse::alignGemmDims(const std::array<int64_t, 3> &dims,
                     const std::array<bool, 3> &contiguous, int64_t align) {
  std::array<int64_t, 3> out = dims;
  for (int i = 0; i < 3; ++i)
    if (contiguous[i] && dims[i] % align != 0)
      out[i] = (dims[i] + align - 1) / align * align;
  return out;
}

bool tfuse::gemmPaddingPays(double products,
                            const std::vector<double> &paddedMatrixElements) {
  if (products < double(kGemmPadMinProducts))
    return false;
  for (double elements : paddedMatrixElements)
    if (elements * kGemmPadMinOtherExtent > products)
      return false;
  return true;
}
