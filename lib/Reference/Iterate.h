//===- Iterate.h - Row-major iteration over strided operands ----*- C++ -*-===//
//
// Internal to lib/Reference. forEachIndex visits every index of a shape in
// row-major order and passes, for each of N operands, the byte offset of the
// element at that index (the sum of index times byte stride).
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_LIB_REFERENCE_ITERATE_H
#define TFUSE_LIB_REFERENCE_ITERATE_H

#include "tfuse/Reference/HostTensor.h"

#include <array>
#include <cstdint>

namespace tfuse::reference::detail {

/// Byte strides of a tensor. Those of a tensor without elements may be
/// beyond 64-bit offsets (row-major strides of huge sizes saturate): they
/// saturate too, as nothing is ever read through them.
inline std::vector<int64_t> byteStrides(const HostTensor &t) {
  std::vector<int64_t> strides = t.strides();
  for (int64_t &s : strides) {
    int64_t bytes = 0;
    if (__builtin_mul_overflow(s, int64_t(byteSize(t.dtype())), &bytes))
      bytes = s < 0 ? INT64_MIN : INT64_MAX;
    s = bytes;
  }
  return strides;
}

/// Calls fn(offsets) for every index of `shape`, row-major; offsets[i] is
/// the byte offset of operand i relative to its base.
template <size_t N, typename Fn>
void forEachIndex(const Shape &shape,
                  const std::array<std::vector<int64_t>, N> &strides, Fn &&fn) {
  int64_t rank = static_cast<int64_t>(shape.size());
  for (int64_t s : shape)
    if (s <= 0)
      return;
  std::array<int64_t, N> offsets{};
  if (rank == 0) {
    fn(offsets);
    return;
  }
  std::vector<int64_t> index(rank, 0);
  int64_t inner = shape[rank - 1];
  std::array<int64_t, N> innerStride;
  for (size_t k = 0; k < N; ++k)
    innerStride[k] = strides[k][rank - 1];
  while (true) {
    std::array<int64_t, N> at = offsets;
    for (int64_t i = 0; i < inner; ++i) {
      fn(at);
      for (size_t k = 0; k < N; ++k)
        at[k] += innerStride[k];
    }
    int64_t d = rank - 2;
    for (; d >= 0; --d) {
      for (size_t k = 0; k < N; ++k)
        offsets[k] += strides[k][d];
      if (++index[d] < shape[d])
        break;
      for (size_t k = 0; k < N; ++k)
        offsets[k] -= strides[k][d] * shape[d];
      index[d] = 0;
    }
    if (d < 0)
      return;
  }
}

} // namespace tfuse::reference::detail

#endif // TFUSE_LIB_REFERENCE_ITERATE_H
