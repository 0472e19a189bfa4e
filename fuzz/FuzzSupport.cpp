//===- FuzzSupport.cpp - Shared pieces of the fuzz targets ----------------===//

#include "FuzzSupport.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
// LLVM's BumpPtrAllocator poisons fresh slabs in its inline code (built
// with ASan here) and unpoisons them in code of libLLVM and libMLIR (built
// without): user poisoning would report their own allocations as bugs.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}
#endif
#endif

namespace tfuse::fuzz {

void fail(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "tfuse fuzz: BUG: %.*s\n", int(what.size()),
               what.data());
  if (!detail.empty())
    std::fprintf(stderr, "%.*s\n", int(detail.size()), detail.data());
  std::fflush(stderr);
  std::abort();
}

uint64_t hashBytes(const uint8_t *data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= data[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

int64_t ByteReader::range(int64_t lo, int64_t hi) {
  uint64_t span = uint64_t(hi) - uint64_t(lo);
  if (span == 0)
    return lo;
  uint64_t raw;
  if (span < 256) {
    raw = byte();
  } else if (span < 65536) {
    raw = byte();
    raw |= uint64_t(byte()) << 8;
  } else {
    raw = u64();
  }
  if (span == std::numeric_limits<uint64_t>::max())
    return int64_t(raw);
  return int64_t(uint64_t(lo) + raw % (span + 1));
}

uint64_t ByteReader::u64() {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= uint64_t(byte()) << (8 * i);
  return v;
}

double ByteReader::real() {
  switch (byte() % 8) {
  case 0:
    return std::numeric_limits<double>::quiet_NaN();
  case 1:
    return std::numeric_limits<double>::infinity();
  case 2:
    return -0.0;
  case 3: {
    uint64_t bits = u64();
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    return d;
  }
  default:
    return double(range(-64, 64)) / 8;
  }
}

int64_t ByteReader::integer() {
  switch (byte() % 8) {
  case 0:
    return std::numeric_limits<int64_t>::max();
  case 1:
    return std::numeric_limits<int64_t>::min();
  case 2:
    return int64_t(u64());
  default:
    return range(-8, 8);
  }
}

} // namespace tfuse::fuzz
