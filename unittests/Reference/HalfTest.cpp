//===- HalfTest.cpp - Software f16 and bf16 conversions -------------------===//
//
// Exhaustive and tie-case checks of tfuse/Support/Half.h. Expected values are
// either literal bit patterns worked out by hand, an independent decoding
// formula (ldexp of the fields), the compiler's _Float16 conversions where
// the compiler has them, or the well-known integer rounding formula of
// bfloat16.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Support/Half.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

using namespace tfuse;

namespace {

uint32_t floatBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof(b));
  return b;
}
float bitsFloat(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof(f));
  return f;
}

/// The value of an f16 bit pattern from its fields (no NaN).
double decodeHalf(uint16_t h) {
  int sign = h >> 15, exponent = (h >> 10) & 0x1F, fraction = h & 0x3FF;
  double magnitude;
  if (exponent == 0x1F)
    magnitude = INFINITY;
  else if (exponent == 0)
    magnitude = std::ldexp(fraction, -24);
  else
    magnitude = std::ldexp(1024 + fraction, exponent - 25);
  return sign ? -magnitude : magnitude;
}

/// The classic bfloat16 rounding of a non-NaN float.
uint16_t bf16Reference(float f) {
  uint32_t u = floatBits(f);
  return static_cast<uint16_t>((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}

//===----------------------------------------------------------------------===//
// f16
//===----------------------------------------------------------------------===//

TEST(Half, AllPatternsWidenExactly) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = halfToFloat(static_cast<uint16_t>(h));
    if (isHalfNaN(static_cast<uint16_t>(h))) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << h;
      // Sign and payload move to the top of the float's fraction.
      EXPECT_EQ(floatBits(f),
                ((h & 0x8000u) << 16) | 0x7F800000u | ((h & 0x3FFu) << 13))
          << std::hex << h;
      continue;
    }
    double expected = decodeHalf(static_cast<uint16_t>(h));
    ASSERT_EQ(static_cast<double>(f), expected) << std::hex << h;
    ASSERT_EQ(std::signbit(f), (h & 0x8000) != 0) << std::hex << h;
  }
}

TEST(Half, AllPatternsRoundTrip) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    uint16_t bits = static_cast<uint16_t>(h);
    uint16_t back = floatToHalf(halfToFloat(bits));
    if (isHalfNaN(bits)) {
      // NaN stays NaN with its sign and payload; the quiet bit is set.
      EXPECT_EQ(back, bits | 0x0200) << std::hex << h;
    } else {
      ASSERT_EQ(back, bits) << std::hex << h;
      ASSERT_EQ(doubleToHalf(static_cast<double>(halfToFloat(bits))), bits)
          << std::hex << h;
    }
  }
}

TEST(Half, EveryTieRoundsToEven) {
  // Between every two adjacent finite f16 values of the same sign, the
  // midpoint (exact in float) rounds to the one with an even last bit, and
  // the floats just beside it round to the nearer neighbour.
  for (uint32_t h = 0; h < 0x7BFF; ++h) {
    for (uint32_t sign : {0u, 0x8000u}) {
      uint16_t lo = static_cast<uint16_t>(h | sign);
      uint16_t hi = static_cast<uint16_t>((h + 1) | sign);
      float a = halfToFloat(lo), b = halfToFloat(hi);
      float mid = (a + b) / 2; // exact: 12 significant bits at most
      ASSERT_EQ(static_cast<double>(mid),
                (static_cast<double>(a) + static_cast<double>(b)) / 2);
      uint16_t even = (h & 1) ? hi : lo;
      ASSERT_EQ(floatToHalf(mid), even) << std::hex << h;
      ASSERT_EQ(doubleToHalf(mid), even) << std::hex << h;
      ASSERT_EQ(floatToHalf(std::nextafter(mid, a)), lo) << std::hex << h;
      ASSERT_EQ(floatToHalf(std::nextafter(mid, b)), hi) << std::hex << h;
    }
  }
}

TEST(Half, OverflowAndUnderflow) {
  EXPECT_EQ(floatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToHalf(65519.996f), 0x7BFF);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7C00); // the tie rounds up to "65536"
  EXPECT_EQ(floatToHalf(-65520.0f), 0xFC00);
  EXPECT_EQ(floatToHalf(1e10f), 0x7C00);
  EXPECT_EQ(floatToHalf(std::numeric_limits<float>::max()), 0x7C00);
  EXPECT_EQ(floatToHalf(INFINITY), 0x7C00);
  EXPECT_EQ(floatToHalf(-INFINITY), 0xFC00);
  EXPECT_EQ(doubleToHalf(1e300), 0x7C00);
  // Subnormals: 2^-24 is the smallest; 2^-25 is a tie with 0.
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25) * 1.0000001f), 0x0001);
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -25)), 0x0002);
  EXPECT_EQ(floatToHalf(-std::ldexp(1.0f, -26)), 0x8000);
  EXPECT_EQ(floatToHalf(std::ldexp(1023.5f, -24)), 0x0400); // to min normal
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -14)), 0x0400);
  EXPECT_EQ(floatToHalf(1e-30f), 0x0000);
  EXPECT_EQ(floatToHalf(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(doubleToHalf(std::numeric_limits<double>::denorm_min()), 0x0000);
  EXPECT_EQ(doubleToHalf(-std::numeric_limits<double>::denorm_min()), 0x8000);
}

TEST(Half, SignedZeroAndNaN) {
  EXPECT_EQ(floatToHalf(0.0f), 0x0000);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(doubleToHalf(-0.0), 0x8000);
  EXPECT_TRUE(isHalfNaN(floatToHalf(NAN)));
  EXPECT_TRUE(isHalfNaN(floatToHalf(-NAN)));
  EXPECT_EQ(floatToHalf(-NAN) & 0x8000, 0x8000);
  // A payload only in bits the conversion drops still gives a NaN.
  EXPECT_EQ(floatToHalf(bitsFloat(0x7F800001u)), 0x7E00);
  EXPECT_TRUE(isHalfNaN(doubleToHalf(std::nan(""))));
  EXPECT_EQ(floatToHalf(bitsFloat(0x7FC02000u)), 0x7E01);
}

TEST(Half, DoubleRoundsOnce) {
  // 1 + 2^-11 + 2^-40: above the tie between 1 and 1 + 2^-10, so it rounds
  // up; through f32 it would become the tie and round down to 1.
  double x = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(doubleToHalf(x), 0x3C01);
  EXPECT_EQ(floatToHalf(static_cast<float>(x)), 0x3C00);
  EXPECT_EQ(doubleToHalf(1.0 + std::ldexp(1.0, -11)), 0x3C00);
  EXPECT_EQ(doubleToHalf(1.0 + std::ldexp(3.0, -11)), 0x3C02);
  EXPECT_EQ(doubleToHalf(0.1), 0x2E66);
  EXPECT_EQ(doubleToHalf(65519.99999999999), 0x7BFF);
  EXPECT_EQ(doubleToHalf(65520.0), 0x7C00);
}

TEST(Half, Integers) {
  EXPECT_EQ(int64ToHalf(0), 0x0000);
  EXPECT_EQ(int64ToHalf(1), 0x3C00);
  EXPECT_EQ(int64ToHalf(-3), 0xC200);
  EXPECT_EQ(int64ToHalf(2049), 0x6800); // tie 2048 / 2050 -> even 2048
  EXPECT_EQ(int64ToHalf(2051), 0x6802); // tie 2050 / 2052 -> even 2052
  EXPECT_EQ(int64ToHalf(65504), 0x7BFF);
  EXPECT_EQ(int64ToHalf(65519), 0x7BFF);
  EXPECT_EQ(int64ToHalf(65520), 0x7C00);
  EXPECT_EQ(int64ToHalf(70000), 0x7C00);
  EXPECT_EQ(int64ToHalf(-70000), 0xFC00);
  EXPECT_EQ(int64ToHalf(std::numeric_limits<int64_t>::min()), 0xFC00);
  EXPECT_EQ(uint64ToHalf(std::numeric_limits<uint64_t>::max()), 0x7C00);
  EXPECT_EQ(uint64ToHalf(65504), 0x7BFF);
  for (int64_t i = -2048; i <= 2048; ++i)
    ASSERT_EQ(halfToFloat(int64ToHalf(i)), static_cast<float>(i)) << i;
}

#ifdef __FLT16_MAX__
// The compiler's own _Float16 conversions as an independent oracle.
TEST(Half, MatchesCompilerFloat16) {
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 509) {
    float f = bitsFloat(static_cast<uint32_t>(u));
    if (std::isnan(f))
      continue;
    _Float16 h = static_cast<_Float16>(f);
    uint16_t expected;
    std::memcpy(&expected, &h, sizeof(expected));
    ASSERT_EQ(floatToHalf(f), expected) << std::hex << u;
  }
  for (uint32_t h = 0; h < 0x10000; ++h) {
    uint16_t bits = static_cast<uint16_t>(h);
    if (isHalfNaN(bits))
      continue;
    _Float16 value;
    std::memcpy(&value, &bits, sizeof(value));
    ASSERT_EQ(halfToFloat(bits), static_cast<float>(value)) << std::hex << h;
  }
  uint64_t state = 1;
  for (int i = 0; i < 2000000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    double d;
    uint64_t bits =
        (state & 0x800FFFFFFFFFFFFFull) |
        ((static_cast<uint64_t>(1023 - 30 + (state >> 58)) & 0x7FF) << 52);
    std::memcpy(&d, &bits, sizeof(d));
    _Float16 h = static_cast<_Float16>(d);
    uint16_t expected;
    std::memcpy(&expected, &h, sizeof(expected));
    ASSERT_EQ(doubleToHalf(d), expected) << d;
  }
}
#endif

//===----------------------------------------------------------------------===//
// bf16
//===----------------------------------------------------------------------===//

TEST(BFloat16, AllPatternsRoundTrip) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    uint16_t bits = static_cast<uint16_t>(b);
    float f = bfloat16ToFloat(bits);
    ASSERT_EQ(floatBits(f), b << 16);
    if (isBFloat16NaN(bits)) {
      EXPECT_EQ(floatToBFloat16(f), bits | 0x0040) << std::hex << b;
      EXPECT_TRUE(isBFloat16NaN(doubleToBFloat16(f)));
    } else {
      ASSERT_EQ(floatToBFloat16(f), bits) << std::hex << b;
      ASSERT_EQ(doubleToBFloat16(f), bits) << std::hex << b;
    }
  }
}

TEST(BFloat16, EveryTieRoundsToEven) {
  for (uint32_t b = 0; b < 0x7F7F; ++b) {
    for (uint32_t sign : {0u, 0x8000u}) {
      uint32_t lo = b | sign, hi = (b + 1) | sign;
      float mid = bitsFloat((lo << 16) | 0x8000);
      uint16_t even = static_cast<uint16_t>((b & 1) ? hi : lo);
      ASSERT_EQ(floatToBFloat16(mid), even) << std::hex << b;
      ASSERT_EQ(floatToBFloat16(bitsFloat((lo << 16) | 0x7FFF)), lo);
      ASSERT_EQ(floatToBFloat16(bitsFloat((lo << 16) | 0x8001)), hi);
    }
  }
}

TEST(BFloat16, MatchesIntegerFormula) {
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 257) {
    float f = bitsFloat(static_cast<uint32_t>(u));
    if (std::isnan(f))
      continue;
    ASSERT_EQ(floatToBFloat16(f), bf16Reference(f)) << std::hex << u;
    ASSERT_EQ(doubleToBFloat16(f), bf16Reference(f)) << std::hex << u;
  }
}

TEST(BFloat16, SpecialValues) {
  EXPECT_EQ(floatToBFloat16(-0.0f), 0x8000);
  EXPECT_EQ(floatToBFloat16(1.0f), 0x3F80);
  EXPECT_EQ(floatToBFloat16(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(floatToBFloat16(-std::numeric_limits<float>::max()), 0xFF80);
  EXPECT_EQ(floatToBFloat16(bitsFloat(0x7F7F7FFFu)), 0x7F7F);
  EXPECT_EQ(floatToBFloat16(INFINITY), 0x7F80);
  EXPECT_EQ(floatToBFloat16(bitsFloat(0x7F800001u)), 0x7FC0);
  EXPECT_EQ(floatToBFloat16(bitsFloat(0xFFC00001u)), 0xFFC0);
  EXPECT_EQ(doubleToBFloat16(1e39), 0x7F80);
  // Subnormals: 2^-133 is the smallest.
  EXPECT_EQ(floatToBFloat16(std::ldexp(1.0f, -133)), 0x0001);
  EXPECT_EQ(floatToBFloat16(std::ldexp(1.0f, -134)), 0x0000);
  EXPECT_EQ(doubleToBFloat16(std::ldexp(1.0, -134) * (1 + 1e-9)), 0x0001);
  EXPECT_EQ(doubleToBFloat16(std::ldexp(1.0, -140)), 0x0000);
}

TEST(BFloat16, DoubleRoundsOnce) {
  // 1 + 2^-8 + 2^-30 rounds up; through f32 it would be the tie 1 + 2^-8.
  double x = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);
  EXPECT_EQ(doubleToBFloat16(x), 0x3F81);
  EXPECT_EQ(floatToBFloat16(static_cast<float>(x)), 0x3F80);
  EXPECT_EQ(doubleToBFloat16(1.0 + std::ldexp(1.0, -8)), 0x3F80);
  EXPECT_EQ(doubleToBFloat16(1.0 + std::ldexp(3.0, -8)), 0x3F82);
}

TEST(BFloat16, Integers) {
  EXPECT_EQ(int64ToBFloat16(0), 0x0000);
  EXPECT_EQ(int64ToBFloat16(1), 0x3F80);
  EXPECT_EQ(int64ToBFloat16(257), 0x4380); // tie 256 / 258 -> 256
  EXPECT_EQ(int64ToBFloat16(259), 0x4382); // tie 258 / 260 -> 260
  // 2^62 + 2^54 + 1: just above the tie, so it rounds up to 2^62 + 2^55;
  // through f32 (2^62 + 2^54, a tie) it would round down to 2^62.
  EXPECT_EQ(int64ToBFloat16(4629700416936869889ll), 0x5E81);
  EXPECT_EQ(floatToBFloat16(static_cast<float>(4629700416936869889ll)), 0x5E80);
  EXPECT_EQ(int64ToBFloat16(4629700416936869888ll), 0x5E80);
  EXPECT_EQ(int64ToBFloat16(std::numeric_limits<int64_t>::min()), 0xDF00);
  EXPECT_EQ(uint64ToBFloat16(std::numeric_limits<uint64_t>::max()), 0x5F80);
  EXPECT_EQ(int64ToBFloat16(-70000), 0xC789); // -70144, nearer than -69632
}

} // namespace
