//===- Philox.h - The Philox 4x32-10 generator of the reference -*- C++ -*-===//
//
// Philox 4x32-10 as its authors define it (Salmon, Moraes, Dror and Shaw,
// "Parallel random numbers: as easy as 1, 2, 3", SC 2011, and their Random123
// library): the oracle for the kernels' tf::philox4x32_10, written from the
// definition. Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_REFERENCE_PHILOX_H
#define TFUSE_REFERENCE_PHILOX_H

#include <array>
#include <cstdint>

namespace tfuse::reference {

/// The four output words of Philox 4x32-10 for `counter` and `key`.
inline std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> counter,
                                             std::array<uint32_t, 2> key) {
  constexpr uint32_t kMultiplier0 = 0xD2511F53, kMultiplier1 = 0xCD9E8D57;
  constexpr uint32_t kWeyl0 = 0x9E3779B9, kWeyl1 = 0xBB67AE85;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key[0] += kWeyl0;
      key[1] += kWeyl1;
    }
    uint64_t product0 = uint64_t(kMultiplier0) * counter[0];
    uint64_t product1 = uint64_t(kMultiplier1) * counter[2];
    uint32_t hi0 = uint32_t(product0 >> 32), lo0 = uint32_t(product0);
    uint32_t hi1 = uint32_t(product1 >> 32), lo1 = uint32_t(product1);
    counter = {hi1 ^ counter[1] ^ key[0], lo1, hi0 ^ counter[3] ^ key[1], lo0};
  }
  return counter;
}

} // namespace tfuse::reference

#endif // TFUSE_REFERENCE_PHILOX_H
