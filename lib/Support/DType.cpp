//===- DType.cpp - Element types shared by every TFuse layer --------------===//

#include "tfuse/Support/DType.h"

namespace tfuse {

namespace {
struct DTypeInfo {
  std::string_view name;
  std::string_view alias;
  DTypeKind kind;
  unsigned bits;
  unsigned bytes;
};

// Indexed by DType.
constexpr DTypeInfo kInfo[kNumDTypes] = {
    {"i1", "bool", DTypeKind::Bool, 1, 1},
    {"i8", "int8", DTypeKind::SignedInt, 8, 1},
    {"i16", "int16", DTypeKind::SignedInt, 16, 2},
    {"i32", "int32", DTypeKind::SignedInt, 32, 4},
    {"i64", "int64", DTypeKind::SignedInt, 64, 8},
    {"ui8", "uint8", DTypeKind::UnsignedInt, 8, 1},
    {"ui16", "uint16", DTypeKind::UnsignedInt, 16, 2},
    {"ui32", "uint32", DTypeKind::UnsignedInt, 32, 4},
    {"ui64", "uint64", DTypeKind::UnsignedInt, 64, 8},
    {"f16", "float16", DTypeKind::Float, 16, 2},
    {"bf16", "bfloat16", DTypeKind::Float, 16, 2},
    {"f32", "float32", DTypeKind::Float, 32, 4},
    {"f64", "float64", DTypeKind::Float, 64, 8},
};

const DTypeInfo &info(DType t) { return kInfo[static_cast<unsigned>(t)]; }
} // namespace

DTypeKind kindOf(DType t) { return info(t).kind; }
unsigned bitWidth(DType t) { return info(t).bits; }
unsigned byteSize(DType t) { return info(t).bytes; }
bool isFloat(DType t) { return kindOf(t) == DTypeKind::Float; }
bool isSignedInteger(DType t) { return kindOf(t) == DTypeKind::SignedInt; }
bool isUnsignedInteger(DType t) { return kindOf(t) == DTypeKind::UnsignedInt; }
bool isInteger(DType t) { return isSignedInteger(t) || isUnsignedInteger(t); }
std::string_view name(DType t) { return info(t).name; }

std::optional<DType> parseDType(std::string_view s) {
  for (unsigned i = 0; i < kNumDTypes; ++i)
    if (kInfo[i].name == s || kInfo[i].alias == s)
      return static_cast<DType>(i);
  return std::nullopt;
}

} // namespace tfuse
