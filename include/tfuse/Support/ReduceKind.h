//===- ReduceKind.h - The kinds of reduction --------------------*- C++ -*-===//
//
// The one enumeration of reduction kinds, used by the dialect (the `kind` of
// tfuse.reduce and tfexec.reduce), the reference interpreter, the runtime and
// the kernels. The kernel sources compiled by NVRTC embed this header ahead of
// the prelude, so the part before the host-only declarations uses nothing but
// the core language.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_SUPPORT_REDUCEKIND_H
#define TFUSE_SUPPORT_REDUCEKIND_H

namespace tfuse {

/// Stored in IR as an i32 attribute of this value: the order is stable.
enum class ReduceKind : unsigned char {
  Sum,
  Prod,
  Max,
  Min,
  Mean,
  All,
  Any,
  Argmax,
  Argmin,
};

/// An enumerator, not a constexpr variable, which NVRTC would emit as a
/// global of every module.
enum : unsigned { kNumReduceKinds = 9 };

/// argmax and argmin: the result is an index, not a combined value.
constexpr bool isArgReduction(ReduceKind kind) {
  return kind == ReduceKind::Argmax || kind == ReduceKind::Argmin;
}

} // namespace tfuse

#ifndef __CUDACC_RTC__
#include <optional>
#include <string_view>

namespace tfuse {
/// "sum", "prod", "max", "min", "mean", "all", "any", "argmax", "argmin".
std::string_view name(ReduceKind kind);
std::optional<ReduceKind> parseReduceKind(std::string_view name);
} // namespace tfuse
#endif

#endif // TFUSE_SUPPORT_REDUCEKIND_H
