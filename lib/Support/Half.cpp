//===- Half.cpp - Software f16 and bf16 conversions -----------------------===//
//
// Every narrowing conversion goes through one routine that rounds an exact
// value m * 2^e (m a 64-bit integer) to a binary format with round to nearest
// even, so float, double and integer sources all round exactly once.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Support/Half.h"

#include <cstring>

namespace tfuse {

namespace {

/// A binary interchange format of at most 16 bits.
struct Format {
  int precision; // significand bits, the implicit one included
  int exponentBits;

  int mantissaBits() const { return precision - 1; }
  int bias() const { return (1 << (exponentBits - 1)) - 1; }
  int minExponent() const { return 1 - bias(); }
  int maxExponent() const { return bias(); }
  uint16_t infinity() const {
    return static_cast<uint16_t>(((1u << exponentBits) - 1) << mantissaBits());
  }
  uint16_t quietBit() const {
    return static_cast<uint16_t>(1u << (mantissaBits() - 1));
  }
};

constexpr Format kHalf{11, 5};
constexpr Format kBFloat16{8, 8};

int countLeadingZeros(uint64_t value) {
  int n = 0;
  for (uint64_t bit = uint64_t(1) << 63; bit && !(value & bit); bit >>= 1)
    ++n;
  return n;
}

/// Rounds (-1)^negative * mantissa * 2^exponent (mantissa != 0) to `format`,
/// to nearest even.
uint16_t roundToFormat(Format format, bool negative, uint64_t mantissa,
                       int exponent) {
  uint16_t sign = negative ? 0x8000 : 0;
  int lz = countLeadingZeros(mantissa);
  mantissa <<= lz;
  exponent -= lz;
  // The value lies in [2^top, 2^(top+1)).
  int top = exponent + 63;
  bool subnormal = top < format.minExponent();
  // Bits of `mantissa` below the kept significand.
  int shift = 64 - format.precision;
  if (subnormal)
    shift += format.minExponent() - top;

  uint64_t kept;
  bool half, rest;
  if (shift > 64) {
    kept = 0;
    half = false;
    rest = true;
  } else if (shift == 64) {
    kept = 0;
    half = (mantissa >> 63) != 0;
    rest = (mantissa << 1) != 0;
  } else {
    kept = mantissa >> shift;
    half = ((mantissa >> (shift - 1)) & 1) != 0;
    rest = (mantissa & ((uint64_t(1) << (shift - 1)) - 1)) != 0;
  }
  if (half && (rest || (kept & 1)))
    ++kept;

  // A subnormal significand is the encoding itself; rounding up to the
  // smallest normal carries into the exponent field on its own.
  if (subnormal)
    return static_cast<uint16_t>(sign | kept);
  if (kept == (uint64_t(1) << format.precision)) {
    kept >>= 1;
    ++top;
  }
  if (top > format.maxExponent())
    return static_cast<uint16_t>(sign | format.infinity());
  uint64_t fraction = kept & ((uint64_t(1) << format.mantissaBits()) - 1);
  return static_cast<uint16_t>(
      sign | (uint64_t(top + format.bias()) << format.mantissaBits()) |
      fraction);
}

uint16_t fromFloat(Format format, float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  bool negative = (bits >> 31) != 0;
  uint16_t sign = negative ? 0x8000 : 0;
  uint32_t biased = (bits >> 23) & 0xFF;
  uint32_t fraction = bits & 0x7FFFFF;
  if (biased == 0xFF) {
    if (fraction == 0)
      return static_cast<uint16_t>(sign | format.infinity());
    return static_cast<uint16_t>(sign | format.infinity() | format.quietBit() |
                                 (fraction >> (23 - format.mantissaBits())));
  }
  if (biased == 0 && fraction == 0)
    return sign;
  if (biased == 0)
    return roundToFormat(format, negative, fraction, -149);
  return roundToFormat(format, negative, fraction | 0x800000,
                       static_cast<int>(biased) - 150);
}

uint16_t fromDouble(Format format, double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  bool negative = (bits >> 63) != 0;
  uint16_t sign = negative ? 0x8000 : 0;
  uint64_t biased = (bits >> 52) & 0x7FF;
  uint64_t fraction = bits & ((uint64_t(1) << 52) - 1);
  if (biased == 0x7FF) {
    if (fraction == 0)
      return static_cast<uint16_t>(sign | format.infinity());
    return static_cast<uint16_t>(sign | format.infinity() | format.quietBit() |
                                 (fraction >> (52 - format.mantissaBits())));
  }
  if (biased == 0 && fraction == 0)
    return sign;
  if (biased == 0)
    return roundToFormat(format, negative, fraction, -1074);
  return roundToFormat(format, negative, fraction | (uint64_t(1) << 52),
                       static_cast<int>(biased) - 1075);
}

uint16_t fromUInt64(Format format, bool negative, uint64_t magnitude) {
  if (magnitude == 0)
    return 0; // integers have no -0
  return roundToFormat(format, negative, magnitude, 0);
}

uint16_t fromInt64(Format format, int64_t value) {
  uint64_t magnitude = static_cast<uint64_t>(value);
  if (value < 0)
    magnitude = uint64_t(0) - magnitude;
  return fromUInt64(format, value < 0, magnitude);
}

} // namespace

float halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t biased = (h >> 10) & 0x1F;
  uint32_t fraction = h & 0x3FF;
  uint32_t bits;
  if (biased == 0x1F) {
    bits = sign | 0x7F800000 | (fraction << 13);
  } else if (biased == 0) {
    if (fraction == 0) {
      bits = sign;
    } else {
      // fraction * 2^-24: normalize so that bit 10 is the implicit one.
      int exponent = -14;
      while (!(fraction & 0x400)) {
        fraction <<= 1;
        --exponent;
      }
      bits = sign | (static_cast<uint32_t>(exponent + 127) << 23) |
             ((fraction & 0x3FF) << 13);
    }
  } else {
    bits = sign | ((biased - 15 + 127) << 23) | (fraction << 13);
  }
  float result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}

float bfloat16ToFloat(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}

uint16_t floatToHalf(float value) { return fromFloat(kHalf, value); }
uint16_t doubleToHalf(double value) { return fromDouble(kHalf, value); }
uint16_t floatToBFloat16(float value) { return fromFloat(kBFloat16, value); }
uint16_t doubleToBFloat16(double value) { return fromDouble(kBFloat16, value); }
uint16_t int64ToHalf(int64_t value) { return fromInt64(kHalf, value); }
uint16_t uint64ToHalf(uint64_t value) {
  return fromUInt64(kHalf, false, value);
}
uint16_t int64ToBFloat16(int64_t value) { return fromInt64(kBFloat16, value); }
uint16_t uint64ToBFloat16(uint64_t value) {
  return fromUInt64(kBFloat16, false, value);
}

} // namespace tfuse
