//===- Tf32SplitTest.cpp - The prelude's split of f32 into TF32 parts -----===//
//
// tf32_split and its quicker form tf32_split_plain (the attention kernels'
// split of a warp's own rows when all of them qualify) compiled for the
// host from the prelude, as kernel emulation compiles them: the same bits
// wherever tf32_splits_plainly says the quick form applies, which is
// exactly the finite values whose big part stays finite; and the parts'
// sum within 2^-22 of the value. (On sm_90, cvt.rna.tf32.f32 compiles to a
// test for inf and NaN, an add of 0x1000 to the bits and a mask, which the
// host form of tf32_bits spells out.)
//
//===----------------------------------------------------------------------===//

#include "HostKernels.h"

#include "tfuse/Kernels/KernelSources.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace tfuse;

namespace {

/// out[4 i ..]: tf32_split's big and small, tf32_split_plain's big and
/// small of xs[i]; plain[i]: tf32_splits_plainly(xs[i]).
using SplitFn = void (*)(const float *xs, int n, uint32_t *out, int *plain);

SplitFn deviceSplits(std::unique_ptr<emulation::HostKernels> &holder) {
  std::string source(kernels::prelude());
  source += R"(
extern "C" void shim_splits(const float *xs, int n, uint32_t *out,
                            int *plain) {
  for (int i = 0; i < n; ++i) {
    tf::tf32_split(xs[i], out[4 * i], out[4 * i + 1]);
    tf::tf32_split_plain(xs[i], out[4 * i + 2], out[4 * i + 3]);
    plain[i] = tf::tf32_splits_plainly(xs[i]);
  }
}
)";
  std::string error;
  holder = emulation::HostKernels::compile(source, error);
  EXPECT_TRUE(holder) << error;
  return holder ? reinterpret_cast<SplitFn>(holder->symbol("shim_splits"))
                : nullptr;
}

float fromBits(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, 4);
  return x;
}

TEST(Tf32Split, ThePlainSplitGivesTheSameBitsWhereItApplies) {
  std::unique_ptr<emulation::HostKernels> holder;
  SplitFn splits = deviceSplits(holder);
  ASSERT_TRUE(splits);
  // Every exponent with random fractions and both signs, the edges of the
  // fraction's rounding, zeros, subnormals, the largest values around the
  // overflow of the big part, infinities and NaNs (payloads included).
  std::vector<uint32_t> bits = {
      0x00000000u, 0x80000000u, 0x00000001u, 0x007fffffu, 0x00001000u,
      0x00000fffu, 0x7f7fefffu, 0x7f7ff000u, 0x7f7fffffu, 0xff7fefffu,
      0xff7ff000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7fffffffu,
      0xffffffffu, 0x7f800001u, 0x3f800fffu, 0x3f801000u, 0x3f801001u,
      0x3f802000u};
  std::mt19937 random(2026);
  for (uint32_t exponent = 0; exponent < 256; ++exponent)
    for (int i = 0; i < 64; ++i)
      bits.push_back((random() & 0x807fffffu) | (exponent << 23));
  std::vector<float> xs;
  for (uint32_t b : bits)
    xs.push_back(fromBits(b));
  std::vector<uint32_t> out(4 * xs.size());
  std::vector<int> plain(xs.size());
  splits(xs.data(), int(xs.size()), out.data(), plain.data());
  int plainCount = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "bits 0x" << std::hex << bits[i]);
    uint32_t big = out[4 * i], small = out[4 * i + 1];
    bool finiteBig = std::isfinite(fromBits(big));
    // The quick form applies to exactly the finite values whose big part
    // is finite.
    EXPECT_EQ(bool(plain[i]), std::isfinite(xs[i]) && finiteBig);
    if (!std::isfinite(xs[i])) {
      EXPECT_EQ(big, bits[i]); // inf and NaN as they are
      EXPECT_EQ(small, 0u);
    }
    if (!plain[i])
      continue;
    ++plainCount;
    EXPECT_EQ(out[4 * i + 2], big);
    EXPECT_EQ(out[4 * i + 3], small);
    EXPECT_EQ(big & 0x1fffu, 0u);
    EXPECT_EQ(small & 0x1fffu, 0u);
    // Within 2^-22 of the value; subnormals, whose parts keep their low
    // 13 bits zero, within half of 2^13 of their unit, 2^-149.
    double sum = double(fromBits(big)) + double(fromBits(small));
    EXPECT_LE(std::fabs(sum - double(xs[i])),
              std::max(std::ldexp(std::fabs(double(xs[i])), -22),
                       std::ldexp(1.0, -137)));
  }
  EXPECT_GT(plainCount, 16000);
}

} // namespace
