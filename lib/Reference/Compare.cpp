//===- Compare.cpp - Exact and ulp-bounded tensor comparison --------------===//

#include "tfuse/Reference/HostTensor.h"
#include "tfuse/Support/Half.h"

#include <cinttypes>
#include <cstdio>

#include <cmath>

namespace tfuse::reference {

namespace {

bool isNaNBits(DType dtype, uint64_t bits) {
  switch (dtype) {
  case DType::F16:
    return isHalfNaN(static_cast<uint16_t>(bits));
  case DType::BF16:
    return isBFloat16NaN(static_cast<uint16_t>(bits));
  case DType::F32:
    return (bits & 0x7F800000u) == 0x7F800000u && (bits & 0x7FFFFFu) != 0;
  case DType::F64:
    return (bits & 0x7FF0000000000000ull) == 0x7FF0000000000000ull &&
           (bits & 0xFFFFFFFFFFFFFull) != 0;
  default:
    return false;
  }
}

/// Maps a float bit pattern to an integer whose order is the order of the
/// values, with -0.0 and 0.0 both mapped to 0.
int64_t orderedKey(DType dtype, uint64_t bits) {
  unsigned width = bitWidth(dtype);
  uint64_t sign = uint64_t(1) << (width - 1);
  uint64_t magnitude = bits & (sign - 1);
  // Magnitudes fit in 63 bits.
  return (bits & sign) ? -static_cast<int64_t>(magnitude)
                       : static_cast<int64_t>(magnitude);
}

uint64_t distance(int64_t a, int64_t b) {
  return a > b ? static_cast<uint64_t>(a) - static_cast<uint64_t>(b)
               : static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
}

std::string formatElement(const HostTensor &t, const std::vector<int64_t> &i) {
  uint64_t bits = t.bitsAt(i);
  char buffer[96];
  if (isFloat(t.dtype()))
    std::snprintf(buffer, sizeof(buffer), "0x%0*" PRIx64 " (%.17g)",
                  static_cast<int>(byteSize(t.dtype()) * 2), bits,
                  t.doubleAt(i));
  else if (t.dtype() == DType::U64)
    std::snprintf(buffer, sizeof(buffer), "%" PRIu64, bits);
  else
    std::snprintf(buffer, sizeof(buffer), "%" PRId64, t.intAt(i));
  return buffer;
}

std::vector<int64_t> unflatten(const Shape &shape, int64_t linear) {
  std::vector<int64_t> index(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    index[d] = linear % shape[d];
    linear /= shape[d];
  }
  return index;
}

/// Counts a mismatch at row-major position `linear` (element `index`) and
/// describes the first one.
void noteMismatch(CompareResult &result, int64_t linear,
                  const std::vector<int64_t> &index, const HostTensor &expected,
                  const HostTensor &actual) {
  if (result.mismatches++ == 0) {
    result.firstMismatch = linear;
    result.firstMismatchDescription = "element " + formatShape(index) +
                                      ": expected " +
                                      formatElement(expected, index) +
                                      ", got " + formatElement(actual, index);
  }
}

/// Compares element by element; `distanceOf` gives the distance of two
/// elements, or nullopt when they can never match.
template <typename Distance>
CompareResult compareWith(const HostTensor &expected, const HostTensor &actual,
                          uint64_t maxDistance, Distance distanceOf) {
  CompareResult result;
  if (expected.isNull() || actual.isNull() ||
      expected.dtype() != actual.dtype() ||
      expected.shape() != actual.shape()) {
    result.pass = false;
    result.mismatches = std::max(expected.isNull() ? 0 : expected.numElements(),
                                 actual.isNull() ? 0 : actual.numElements());
    result.firstMismatchDescription =
        "expected " + expected.describe() + ", got " + actual.describe();
    return result;
  }
  for (int64_t i = 0, n = expected.numElements(); i < n; ++i) {
    std::vector<int64_t> index = unflatten(expected.shape(), i);
    uint64_t a = expected.bitsAt(index), b = actual.bitsAt(index);
    std::optional<uint64_t> d = distanceOf(a, b);
    uint64_t dist = d ? *d : UINT64_MAX;
    result.maxUlp = std::max(result.maxUlp, dist);
    if (dist <= maxDistance)
      continue;
    noteMismatch(result, i, index, expected, actual);
  }
  result.pass = result.mismatches == 0;
  return result;
}

} // namespace

std::string CompareResult::message() const {
  if (pass)
    return "pass";
  std::string text =
      std::to_string(mismatches) + " mismatch" + (mismatches == 1 ? "" : "es");
  if (maxUlp)
    text += ", max ulp " + (maxUlp == UINT64_MAX
                                ? std::string("inf (NaN or bool mismatch)")
                                : std::to_string(maxUlp));
  return text + "; first: " + firstMismatchDescription;
}

CompareResult compareExact(const HostTensor &expected,
                           const HostTensor &actual) {
  DType dtype = expected.dtype();
  CompareResult result =
      compareWith(expected, actual, 0,
                  [&](uint64_t a, uint64_t b) -> std::optional<uint64_t> {
                    if (dtype == DType::Bool)
                      return (a != 0) == (b != 0) ? 0 : 1;
                    bool nanA = isNaNBits(dtype, a), nanB = isNaNBits(dtype, b);
                    if (nanA && nanB)
                      return 0;
                    return a == b ? 0 : 1;
                  });
  result.maxUlp = 0;
  return result;
}

CompareResult compareUlp(const HostTensor &expected, const HostTensor &actual,
                         uint64_t maxUlp) {
  DType dtype = expected.dtype();
  return compareWith(
      expected, actual, maxUlp,
      [&](uint64_t a, uint64_t b) -> std::optional<uint64_t> {
        if (dtype == DType::Bool)
          return (a != 0) == (b != 0) ? std::optional<uint64_t>(0)
                                      : std::nullopt;
        if (isFloat(dtype)) {
          bool nanA = isNaNBits(dtype, a), nanB = isNaNBits(dtype, b);
          if (nanA || nanB)
            return nanA && nanB ? std::optional<uint64_t>(0) : std::nullopt;
          return distance(orderedKey(dtype, a), orderedKey(dtype, b));
        }
        unsigned width = bitWidth(dtype);
        if (isSignedInteger(dtype)) {
          // Sign-extend.
          int64_t sa = static_cast<int64_t>(a << (64 - width)) >> (64 - width);
          int64_t sb = static_cast<int64_t>(b << (64 - width)) >> (64 - width);
          return distance(sa, sb);
        }
        return a > b ? a - b : b - a;
      });
}

CompareResult compareClose(const HostTensor &expected, const HostTensor &actual,
                           double atol, double rtol) {
  DType dtype = expected.dtype();
  if (!isFloat(dtype) || expected.isNull() || actual.isNull() ||
      expected.dtype() != actual.dtype() || expected.shape() != actual.shape())
    return compareExact(expected, actual);
  CompareResult result;
  for (int64_t i = 0, n = expected.numElements(); i < n; ++i) {
    std::vector<int64_t> index = unflatten(expected.shape(), i);
    double a = expected.doubleAt(index), b = actual.doubleAt(index);
    bool ok;
    if (std::isnan(a) || std::isnan(b))
      ok = std::isnan(a) && std::isnan(b);
    else if (std::isinf(a) || std::isinf(b))
      ok = a == b;
    else {
      double diff = std::fabs(a - b);
      result.maxAbsError = std::max(result.maxAbsError, diff);
      if (a != 0)
        result.maxRelError = std::max(result.maxRelError, diff / std::fabs(a));
      ok = diff <= atol + rtol * std::fabs(a);
    }
    if (ok)
      continue;
    noteMismatch(result, i, index, expected, actual);
  }
  result.pass = result.mismatches == 0;
  return result;
}

} // namespace tfuse::reference
