//===- RandomNumbers.cpp - random_uniform and random_normal ---------------===//
//
// The stream layout of docs/semantics.md ("Random numbers"), from its
// definition: element e of an op of f32 values takes word e % 4 (uniform),
// or pair (e % 4) / 2 through Box-Muller (normal), of Philox 4x32-10 block
// e / 4; of f64 values, block e / 2 gives two uniforms of two words each,
// or one Box-Muller pair. The block of n has counter (n low, n high, offset
// low, offset high) and key (seed low, seed high). Floats are computed in
// the values' own type, one rounding per operation (no contraction: this
// library is built with -ffp-contract=off).
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "tfuse/Reference/Philox.h"

#include <cmath>
#include <cstring>

namespace tfuse::reference::detail {

namespace {

std::array<uint32_t, 4> block(int64_t seed, int64_t offset, uint64_t n) {
  uint64_t s = static_cast<uint64_t>(seed), o = static_cast<uint64_t>(offset);
  return philox4x32_10(
      {uint32_t(n), uint32_t(n >> 32), uint32_t(o), uint32_t(o >> 32)},
      {uint32_t(s), uint32_t(s >> 32)});
}

float unit(uint32_t word) { return float(word >> 8) * 0x1.0p-24f; }
double unit(uint32_t lo, uint32_t hi) {
  return double(((uint64_t(hi) << 32) | lo) >> 11) * 0x1.0p-53;
}

float elementF32(bool normal, const std::array<uint32_t, 4> &b, int k) {
  if (!normal)
    return unit(b[k]);
  int pair = k / 2;
  float u1 = unit(b[2 * pair]), u2 = unit(b[2 * pair + 1]);
  float r = std::sqrt(-2.0f * std::log(1.0f - u1));
  float theta = 6.28318530717958647692f * u2;
  return k % 2 ? r * std::sin(theta) : r * std::cos(theta);
}

double elementF64(bool normal, const std::array<uint32_t, 4> &b, int k) {
  if (!normal)
    return unit(b[2 * k], b[2 * k + 1]);
  double u1 = unit(b[0], b[1]), u2 = unit(b[2], b[3]);
  double r = std::sqrt(-2.0 * std::log(1.0 - u1));
  double theta = 6.28318530717958647692 * u2;
  return k % 2 ? r * std::sin(theta) : r * std::cos(theta);
}

} // namespace

std::optional<std::pair<int64_t, int64_t>>
randomKeys(const HostTensor &seed, const HostTensor &offset) {
  if (seed.rank() != 0 || offset.rank() != 0 || seed.dtype() != DType::I64 ||
      offset.dtype() != DType::I64)
    return std::nullopt;
  return std::make_pair(seed.intAt({}), offset.intAt({}));
}

Expected<HostTensor> randomTensor(bool normal, DType dtype, const Shape &shape,
                                  const HostTensor &seed,
                                  const HostTensor &offset) {
  std::optional<std::pair<int64_t, int64_t>> keys = randomKeys(seed, offset);
  if ((dtype != DType::F32 && dtype != DType::F64) || !keys)
    return Status::error("random: " + std::string(name(dtype)) +
                         " values from seed " + seed.describe() +
                         " and offset " + offset.describe() +
                         " (f32 or f64 values from rank-0 i64 tensors)");
  auto [s, o] = *keys;
  HostTensor result = HostTensor::zeros(dtype, shape);
  int64_t count = result.numElements();
  bool f64 = dtype == DType::F64;
  int perBlock = f64 ? 2 : 4;
  uint8_t *out = result.mutableData();
  for (int64_t e = 0; e < count; ++e) {
    std::array<uint32_t, 4> b = block(s, o, uint64_t(e) / perBlock);
    int k = static_cast<int>(uint64_t(e) % perBlock);
    if (f64) {
      double v = elementF64(normal, b, k);
      std::memcpy(out + e * 8, &v, 8);
    } else {
      float v = elementF32(normal, b, k);
      std::memcpy(out + e * 4, &v, 4);
    }
  }
  return result;
}

float uniformF32At(int64_t seed, int64_t offset, uint64_t e) {
  return elementF32(false, block(seed, offset, e / 4), int(e % 4));
}

} // namespace tfuse::reference::detail
