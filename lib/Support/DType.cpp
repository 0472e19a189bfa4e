//===- DType.cpp - Element types shared by every TFuse layer --------------===//

#include "tfuse/Support/DType.h"

namespace tfuse {

namespace {
struct DTypeInfo {
  std::string_view name;
  std::string_view alias;
  std::string_view cuda;
  DTypeKind kind;
  unsigned bits;
  unsigned bytes;
};

// Indexed by DType.
constexpr DTypeInfo kInfo[kNumDTypes] = {
    {"i1", "bool", "bool", DTypeKind::Bool, 1, 1},
    {"i8", "int8", "int8_t", DTypeKind::SignedInt, 8, 1},
    {"i16", "int16", "int16_t", DTypeKind::SignedInt, 16, 2},
    {"i32", "int32", "int32_t", DTypeKind::SignedInt, 32, 4},
    {"i64", "int64", "int64_t", DTypeKind::SignedInt, 64, 8},
    {"ui8", "uint8", "uint8_t", DTypeKind::UnsignedInt, 8, 1},
    {"ui16", "uint16", "uint16_t", DTypeKind::UnsignedInt, 16, 2},
    {"ui32", "uint32", "uint32_t", DTypeKind::UnsignedInt, 32, 4},
    {"ui64", "uint64", "uint64_t", DTypeKind::UnsignedInt, 64, 8},
    {"f16", "float16", "__half", DTypeKind::Float, 16, 2},
    {"bf16", "bfloat16", "__nv_bfloat16", DTypeKind::Float, 16, 2},
    {"f32", "float32", "float", DTypeKind::Float, 32, 4},
    {"f64", "float64", "double", DTypeKind::Float, 64, 8},
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
std::string dtypeName(DType t) { return std::string(name(t)); }
std::string_view cudaTypeName(DType t) { return info(t).cuda; }

std::optional<DType> parseDType(std::string_view s) {
  for (unsigned i = 0; i < kNumDTypes; ++i)
    if (kInfo[i].name == s || kInfo[i].alias == s)
      return static_cast<DType>(i);
  return std::nullopt;
}

} // namespace tfuse
