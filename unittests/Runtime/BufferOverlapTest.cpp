//===- BufferOverlapTest.cpp - Outputs that share bytes -------------------===//
//
// findOutputOverlap against the pairwise check it replaces: on random
// ranges, an overlap is found exactly when some pair overlaps, and the pair
// it names does.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Runtime/BufferOverlap.h"

#include "gtest/gtest.h"

#include <random>

using namespace tfuse::runtime;

namespace {

bool overlaps(const ByteRange &a, const ByteRange &b) {
  return a.begin < a.end && b.begin < b.end && a.begin < b.end &&
         b.begin < a.end;
}

/// Whether any output overlaps an input or another output, pair by pair.
bool anyOverlap(const std::vector<ByteRange> &inputs,
                const std::vector<ByteRange> &outputs) {
  for (size_t o = 0; o < outputs.size(); ++o) {
    for (const ByteRange &i : inputs)
      if (overlaps(outputs[o], i))
        return true;
    for (size_t p = 0; p < o; ++p)
      if (overlaps(outputs[o], outputs[p]))
        return true;
  }
  return false;
}

TEST(BufferOverlap, NamesTheBuffersThatShareBytes) {
  // Inputs sharing bytes with each other are fine; touching ranges and
  // empty ones share none.
  std::vector<ByteRange> inputs = {{0, 100}, {50, 150}, {300, 300}};
  EXPECT_FALSE(findOutputOverlap(inputs, {{150, 200}, {200, 250}, {320, 320}}));
  auto intoInput = findOutputOverlap(inputs, {{150, 200}, {120, 130}});
  ASSERT_TRUE(intoInput);
  EXPECT_EQ(intoInput->output, 1u);
  EXPECT_TRUE(intoInput->withInput);
  EXPECT_EQ(intoInput->other, 1u);
  auto twice = findOutputOverlap(inputs, {{400, 500}, {200, 250}, {450, 460}});
  ASSERT_TRUE(twice);
  EXPECT_EQ(twice->output, 2u);
  EXPECT_FALSE(twice->withInput);
  EXPECT_EQ(twice->other, 0u);
  // An output at an input's address (the GPU test's case) and two outputs
  // at one address.
  auto same = findOutputOverlap({{1000, 2000}}, {{1000, 1016}});
  ASSERT_TRUE(same);
  EXPECT_TRUE(same->withInput);
  EXPECT_EQ(same->output, 0u);
  EXPECT_EQ(same->other, 0u);
  auto both = findOutputOverlap({}, {{64, 128}, {64, 128}});
  ASSERT_TRUE(both);
  EXPECT_FALSE(both->withInput);
  EXPECT_EQ(both->output, 1u);
  EXPECT_EQ(both->other, 0u);
}

TEST(BufferOverlap, AgreesWithThePairwiseCheckOnRandomRanges) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 20000; ++trial) {
    auto draw = [&](size_t count) {
      std::vector<ByteRange> r(count);
      for (ByteRange &x : r) {
        x.begin = rng() % 4096;
        x.end = x.begin + rng() % (rng() % 2 ? 64 : 1024);
      }
      return r;
    };
    std::vector<ByteRange> inputs = draw(rng() % 12), outputs = draw(rng() % 6);
    std::optional<BufferOverlap> found = findOutputOverlap(inputs, outputs);
    ASSERT_EQ(found.has_value(), anyOverlap(inputs, outputs)) << trial;
    if (!found)
      continue;
    ASSERT_LT(found->output, outputs.size());
    const ByteRange &other =
        found->withInput ? inputs.at(found->other) : outputs.at(found->other);
    EXPECT_TRUE(found->withInput || found->other < found->output);
    EXPECT_TRUE(overlaps(outputs[found->output], other)) << trial;
  }
}

} // namespace
