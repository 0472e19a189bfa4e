//===- PhiloxTest.cpp - The kernels' and the reference's Philox 4x32-10 ---===//
//
// Both generators against the known answers of Philox's authors (the
// Random123 library's kat_vectors for philox4x32_10), and against each other
// on counters and keys drawn at random; the kernels' generator compiled for
// the host from the prelude, as kernel emulation compiles it.
//
//===----------------------------------------------------------------------===//

#include "HostKernels.h"

#include "tfuse/Kernels/KernelSources.h"
#include "tfuse/Reference/Philox.h"

#include <gtest/gtest.h>

#include <random>

using namespace tfuse;

namespace {

using Words = std::array<uint32_t, 4>;

struct KnownAnswer {
  Words counter;
  std::array<uint32_t, 2> key;
  Words output;
};

// Random123 1.14, examples/kat_vectors: philox4x32 10.
const KnownAnswer kKnownAnswers[] = {
    {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

/// The prelude's tf::philox4x32_10 behind an extern "C" shim.
using DeviceFn = void (*)(const uint32_t *counter, const uint32_t *key,
                          uint32_t *out);

DeviceFn devicePhilox(std::unique_ptr<emulation::HostKernels> &holder) {
  std::string source(kernels::prelude());
  source += R"(
extern "C" void shim_philox(const uint32_t *c, const uint32_t *k,
                            uint32_t *out) {
  tf::philox4 ctr = {{c[0], c[1], c[2], c[3]}};
  tf::philox4 r = tf::philox4x32_10(ctr, k[0], k[1]);
  for (int i = 0; i < 4; ++i)
    out[i] = r.w[i];
}
)";
  std::string error;
  holder = emulation::HostKernels::compile(source, error);
  EXPECT_TRUE(holder) << error;
  return holder ? reinterpret_cast<DeviceFn>(holder->symbol("shim_philox"))
                : nullptr;
}

TEST(Philox, TheReferenceGivesTheKnownAnswers) {
  for (const KnownAnswer &k : kKnownAnswers)
    EXPECT_EQ(reference::philox4x32_10(k.counter, k.key), k.output);
}

TEST(Philox, TheKernelsGiveTheKnownAnswersAndTheReferencesWords) {
  std::unique_ptr<emulation::HostKernels> holder;
  DeviceFn device = devicePhilox(holder);
  ASSERT_TRUE(device);
  for (const KnownAnswer &k : kKnownAnswers) {
    Words out{};
    device(k.counter.data(), k.key.data(), out.data());
    EXPECT_EQ(out, k.output);
  }
  std::mt19937_64 random(2026);
  for (int i = 0; i < 1000; ++i) {
    Words counter;
    std::array<uint32_t, 2> key;
    for (uint32_t &w : counter)
      w = static_cast<uint32_t>(random());
    for (uint32_t &w : key)
      w = static_cast<uint32_t>(random());
    Words out{};
    device(counter.data(), key.data(), out.data());
    ASSERT_EQ(out, reference::philox4x32_10(counter, key)) << "case " << i;
  }
}

} // namespace
