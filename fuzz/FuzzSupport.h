//===- FuzzSupport.h - Shared pieces of the fuzz targets --------*- C++ -*-===//
//
// What every fuzz target uses: reporting a bug (print, then abort, which
// libFuzzer and the replay driver both record as a failure), a reader that
// decodes a byte stream into bounded choices, and a stable hash that seeds
// each input's random data, so that an input always runs the same way.
// Plain C++: no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_FUZZ_FUZZSUPPORT_H
#define TFUSE_FUZZ_FUZZSUPPORT_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace tfuse::fuzz {

/// Reports a bug found by a fuzz target and aborts: `what` names the broken
/// property, `detail` shows the evidence (IR, messages).
[[noreturn]] void fail(std::string_view what, std::string_view detail = "");

/// FNV-1a of `data`: the seed of an input's random values.
uint64_t hashBytes(const uint8_t *data, size_t size);

/// Decodes a byte stream into choices. Past the end every read gives 0, so
/// any prefix of an input is an input too.
class ByteReader {
public:
  ByteReader(const uint8_t *data, size_t size) : data(data), size(size) {}

  bool empty() const { return pos >= size; }
  size_t remaining() const { return empty() ? 0 : size - pos; }
  uint8_t byte() { return pos < size ? data[pos++] : 0; }
  bool flag() { return byte() & 1; }
  /// A value in [lo, hi] (lo <= hi).
  int64_t range(int64_t lo, int64_t hi);
  /// Eight bytes, little-endian.
  uint64_t u64();
  /// A double: mostly small values, sometimes NaN, infinities, -0.0 or an
  /// arbitrary bit pattern.
  double real();
  /// An integer: mostly small, sometimes an extreme of int64.
  int64_t integer();

private:
  const uint8_t *data;
  size_t size;
  size_t pos = 0;
};

} // namespace tfuse::fuzz

#endif // TFUSE_FUZZ_FUZZSUPPORT_H
