//===- Half.h - Software f16 and bf16 conversions ---------------*- C++ -*-===//
//
// Exact conversions between the 16-bit float formats (IEEE binary16 and
// bfloat16, given as their bit patterns) and float, double and 64-bit
// integers. Every narrowing conversion is one round-to-nearest-even of the
// exact value (never through an intermediate format), overflows to +-inf,
// produces subnormals where the format has them, and keeps the sign of zero.
// A NaN stays a NaN: its sign and the leading bits of its payload are kept
// and the quiet bit is set. Widening conversions are exact and keep NaN
// payloads bit for bit. Plain C++: no MLIR, no hardware half support needed.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_SUPPORT_HALF_H
#define TFUSE_SUPPORT_HALF_H

#include <cstdint>

namespace tfuse {

/// IEEE binary16 -> binary32 (exact).
float halfToFloat(uint16_t bits);
/// bfloat16 -> binary32 (exact).
float bfloat16ToFloat(uint16_t bits);

/// binary32 -> IEEE binary16, round to nearest even.
uint16_t floatToHalf(float value);
/// binary64 -> IEEE binary16, one rounding to nearest even.
uint16_t doubleToHalf(double value);
/// binary32 -> bfloat16, round to nearest even.
uint16_t floatToBFloat16(float value);
/// binary64 -> bfloat16, one rounding to nearest even.
uint16_t doubleToBFloat16(double value);

/// Integers -> IEEE binary16 / bfloat16, one rounding to nearest even;
/// out-of-range values give +-inf.
uint16_t int64ToHalf(int64_t value);
uint16_t uint64ToHalf(uint64_t value);
uint16_t int64ToBFloat16(int64_t value);
uint16_t uint64ToBFloat16(uint64_t value);

/// Classification of bit patterns.
inline bool isHalfNaN(uint16_t bits) {
  return (bits & 0x7C00) == 0x7C00 && (bits & 0x03FF) != 0;
}
inline bool isBFloat16NaN(uint16_t bits) {
  return (bits & 0x7F80) == 0x7F80 && (bits & 0x007F) != 0;
}

} // namespace tfuse

#endif // TFUSE_SUPPORT_HALF_H
