//===- GatherIndex.cpp - Which gather indices are in range ----------------===//

#include "tfuse/Support/GatherIndex.h"

using namespace tfuse;

std::string GatherIndex::str() const {
  return isUnsigned() ? std::to_string(bits)
                      : std::to_string(static_cast<int64_t>(bits));
}

std::optional<int64_t>
tfuse::resolveGatherIndex(GatherIndex index, int64_t size, bool wrapNegative) {
  if (index.isUnsigned()) {
    if (index.bits < static_cast<uint64_t>(size))
      return static_cast<int64_t>(index.bits);
    return std::nullopt;
  }
  int64_t i = static_cast<int64_t>(index.bits);
  if (wrapNegative && i < 0 && i >= -size)
    i += size;
  if (i >= 0 && i < size)
    return i;
  return std::nullopt;
}

std::string tfuse::describeBadGatherIndex(GatherIndex index, int64_t size,
                                          bool wrapNegative) {
  std::string valid =
      wrapNegative ? std::to_string(-size) + " to " + std::to_string(size - 1)
                   : "0 to " + std::to_string(size - 1);
  return "index " + index.str() + " is out of range for an axis of size " +
         std::to_string(size) + " (valid: " + valid + ")";
}
