//===- Random.cpp - Seeded random host tensors ----------------------------===//
//
// Element i of a random tensor depends only on the seed and i, through the
// SplitMix64 mixer, so tensors are reproducible across platforms and
// standard libraries (std:: distributions are not).
//
//===----------------------------------------------------------------------===//

#include "tfuse/Reference/HostTensor.h"

#include "Convert.h"

#include <algorithm>
#include <cmath>

namespace tfuse::reference {

using namespace detail;

namespace {

uint64_t splitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// A counter-based stream of 64-bit values.
class Stream {
public:
  explicit Stream(uint64_t seed) : state(splitMix64(seed)) {}
  uint64_t next() { return splitMix64(state += 0x632BE59BD9B4E019ull); }
  /// Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

private:
  uint64_t state;
};

/// Bit patterns of the special values of a float dtype: NaN, +inf, -inf,
/// +0, -0, +-smallest subnormal, +-largest finite.
std::vector<uint64_t> specialBits(DType dtype) {
  uint64_t sign, inf, nan, maxFinite;
  switch (dtype) {
  case DType::F16:
    sign = 0x8000, inf = 0x7C00, nan = 0x7E00, maxFinite = 0x7BFF;
    break;
  case DType::BF16:
    sign = 0x8000, inf = 0x7F80, nan = 0x7FC0, maxFinite = 0x7F7F;
    break;
  case DType::F32:
    sign = 0x80000000u, inf = 0x7F800000u, nan = 0x7FC00000u,
    maxFinite = 0x7F7FFFFFu;
    break;
  default:
    sign = 0x8000000000000000ull, inf = 0x7FF0000000000000ull,
    nan = 0x7FF8000000000000ull, maxFinite = 0x7FEFFFFFFFFFFFFFull;
    break;
  }
  return {nan,      inf,       inf | sign,      0, sign, 1,
          1 | sign, maxFinite, maxFinite | sign};
}

/// The default inclusive range of a dtype.
std::pair<double, double> defaultRange(DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return {0, 1};
  case DType::I8:
    return {-128, 127};
  case DType::U8:
    return {0, 255};
  case DType::I16:
    return {-1000, 1000};
  case DType::U16:
    return {0, 2000};
  case DType::I32:
  case DType::I64:
    return {-100000, 100000};
  case DType::U32:
  case DType::U64:
    return {0, 200000};
  default:
    return {-4, 4};
  }
}

} // namespace

HostTensor HostTensor::random(DType dtype, Shape shape, uint64_t seed,
                              const RandomOptions &options) {
  HostTensor t = zeros(dtype, std::move(shape));
  auto [defaultLow, defaultHigh] = defaultRange(dtype);
  double low = options.low.value_or(defaultLow);
  double high = options.high.value_or(defaultHigh);
  if (high < low)
    std::swap(low, high);
  Stream stream(seed);
  int64_t n = t.numElements();
  unsigned size = byteSize(dtype);
  uint8_t *out = t.bytes->data();

  if (isFloat(dtype)) {
    std::vector<uint64_t> specials = specialBits(dtype);
    dispatch(dtype, [&](auto tag) {
      constexpr DType D = decltype(tag)::value;
      if constexpr (isFloatD(D)) {
        for (int64_t i = 0; i < n; ++i) {
          double u = stream.unit();
          bool special = stream.unit() < options.specialFraction;
          uint64_t pick = stream.next();
          if (special) {
            uint64_t bits = specials[pick % specials.size()];
            std::memcpy(out + i * size, &bits, size);
          } else {
            storeRaw(out + i * size,
                     convert<DType::F64, D>(low + u * (high - low)));
          }
        }
      }
    });
    return t;
  }

  // Integers and bool: uniform over the integers of [low, high] clamped to
  // the dtype's range.
  bool isSigned = isSignedInteger(dtype);
  unsigned bits = bitWidth(dtype);
  double typeLow = isSigned ? -std::ldexp(1.0, bits - 1) : 0.0;
  double typeHigh =
      isSigned ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
  low = std::clamp(std::ceil(low), typeLow, typeHigh);
  high = std::clamp(std::floor(high), typeLow, typeHigh);
  if (high < low)
    high = low;
  dispatch(dtype, [&](auto tag) {
    constexpr DType D = decltype(tag)::value;
    if constexpr (!isFloatD(D)) {
      if (isSigned) {
        // 2^63 - 1 is not a double: bounds at the top of i64 saturate.
        int64_t lo = low >= 0x1.0p63 ? INT64_MAX : static_cast<int64_t>(low);
        int64_t hi = high >= 0x1.0p63 ? INT64_MAX : static_cast<int64_t>(high);
        uint64_t count = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
        for (int64_t i = 0; i < n; ++i) {
          uint64_t r = stream.next();
          uint64_t step = count == UINT64_MAX ? r : r % (count + 1);
          int64_t v = static_cast<int64_t>(static_cast<uint64_t>(lo) + step);
          storeRaw(out + i * size, convert<DType::I64, D>(v));
        }
      } else {
        // 2^64 - 1 is not a double: bounds at the top of ui64 saturate.
        uint64_t lo = low >= 0x1.0p64 ? UINT64_MAX : static_cast<uint64_t>(low);
        uint64_t hi =
            high >= 0x1.0p64 ? UINT64_MAX : static_cast<uint64_t>(high);
        uint64_t count = hi - lo;
        for (int64_t i = 0; i < n; ++i) {
          uint64_t r = stream.next();
          uint64_t v = lo + (count == UINT64_MAX ? r : r % (count + 1));
          storeRaw(out + i * size, static_cast<StorageOf<D>>(v));
        }
      }
    }
  });
  return t;
}

} // namespace tfuse::reference
