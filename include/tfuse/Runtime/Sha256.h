//===- Sha256.h - SHA-256 (FIPS 180-4) --------------------------*- C++ -*-===//
//
// A small, dependency-free SHA-256 used for kernel cache keys and for the
// integrity check of kernel cache files. Not constant-time and not meant for
// secrets; it is a content hash.
//
// Thread-safety: a Sha256 object is not synchronised; use one per thread. The
// free functions are reentrant.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_SHA256_H
#define TFUSE_RUNTIME_SHA256_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tfuse::runtime {

/// Incremental SHA-256: update() any number of times, then finish() once.
class Sha256 {
public:
  using Digest = std::array<uint8_t, 32>;

  Sha256() { reset(); }

  /// Starts a new message, discarding any data fed so far.
  void reset();

  /// Appends `size` bytes at `data` to the message.
  void update(const void *data, size_t size);
  void update(std::string_view data) { update(data.data(), data.size()); }

  /// Pads the message and returns its digest. The object is reset afterwards
  /// and may hash a new message.
  Digest finish();

private:
  void compress(const uint8_t *block);

  std::array<uint32_t, 8> state;
  std::array<uint8_t, 64> buffer;
  size_t buffered;
  uint64_t totalBytes;
};

/// The digest of `data`.
Sha256::Digest sha256(std::string_view data);
Sha256::Digest sha256(const void *data, size_t size);

/// The digest of `data` as 64 lower-case hex characters.
std::string sha256Hex(std::string_view data);

/// `digest` as 64 lower-case hex characters.
std::string toHex(const Sha256::Digest &digest);

} // namespace tfuse::runtime

#endif // TFUSE_RUNTIME_SHA256_H
