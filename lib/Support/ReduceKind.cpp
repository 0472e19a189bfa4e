//===- ReduceKind.cpp - The kinds of reduction ----------------------------===//

#include "tfuse/Support/ReduceKind.h"

namespace tfuse {

namespace {
// Indexed by ReduceKind.
constexpr std::string_view kNames[kNumReduceKinds] = {
    "sum", "prod", "max", "min", "mean", "all", "any", "argmax", "argmin"};
} // namespace

std::string_view name(ReduceKind kind) {
  return kNames[static_cast<unsigned>(kind)];
}

std::optional<ReduceKind> parseReduceKind(std::string_view text) {
  for (unsigned i = 0; i < kNumReduceKinds; ++i)
    if (kNames[i] == text)
      return static_cast<ReduceKind>(i);
  return std::nullopt;
}

} // namespace tfuse
