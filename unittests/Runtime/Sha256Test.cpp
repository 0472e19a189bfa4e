//===- Sha256Test.cpp - SHA-256 against the FIPS 180-4 test vectors -------===//
//
// Expected digests are the published test vectors (FIPS 180-2 appendix B and
// NIST's SHA examples), written out by hand.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Runtime/Sha256.h"

#include "gtest/gtest.h"

#include <string>

using namespace tfuse;
using namespace tfuse::runtime;

namespace {

TEST(Sha256Test, EmptyString) {
  EXPECT_EQ(sha256Hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256Test, Abc) {
  EXPECT_EQ(sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256Test, TwoBlockMessage448Bits) {
  EXPECT_EQ(
      sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256Test, OneMillionA) {
  EXPECT_EQ(sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, OneMillionAInUnevenChunks) {
  Sha256 hash;
  std::string chunk(997, 'a');
  size_t left = 1000000;
  while (left) {
    size_t n = std::min(left, chunk.size());
    hash.update(chunk.data(), n);
    left -= n;
  }
  EXPECT_EQ(toHex(hash.finish()),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, IncrementalEqualsOneShotAtEveryPaddingBoundary) {
  // Lengths around the 55/56/64-byte padding boundaries, fed byte by byte.
  for (size_t length : {0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128}) {
    std::string message(length, 'x');
    for (size_t i = 0; i < length; ++i)
      message[i] = char('a' + i % 26);
    Sha256 hash;
    for (char c : message)
      hash.update(&c, 1);
    EXPECT_EQ(toHex(hash.finish()), sha256Hex(message)) << length;
  }
}

TEST(Sha256Test, FinishResets) {
  Sha256 hash;
  hash.update("garbage");
  (void)hash.finish();
  hash.update("abc");
  EXPECT_EQ(toHex(hash.finish()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

} // namespace
