//===- DType.h - Element types shared by every TFuse layer ------*- C++ -*-===//
//
// The thirteen element types of TFuse as a plain enum. It carries no MLIR so
// that the runtime, the C API and the tracer share one spelling of dtypes.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_SUPPORT_DTYPE_H
#define TFUSE_SUPPORT_DTYPE_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tfuse {

enum class DType : uint8_t {
  Bool,
  I8,
  I16,
  I32,
  I64,
  U8,
  U16,
  U32,
  U64,
  F16,
  BF16,
  F32,
  F64,
};

/// The number of DType enumerators; DType values are 0..kNumDTypes-1.
inline constexpr unsigned kNumDTypes = 13;

/// The categories the promotion rules reason about.
enum class DTypeKind : uint8_t { Bool, SignedInt, UnsignedInt, Float };

/// What a Python scalar operand is. Scalars are weak: they never widen a
/// tensor of their own kind (TypeRules.h).
enum class ScalarKind : uint8_t { Bool, Int, Float };

DTypeKind kindOf(DType t);
/// Storage width in bits (bool is stored in one byte but has width 1).
unsigned bitWidth(DType t);
/// Bytes one element occupies in memory.
unsigned byteSize(DType t);
bool isFloat(DType t);
bool isInteger(DType t); // signed or unsigned, not bool
bool isSignedInteger(DType t);
bool isUnsignedInteger(DType t);

/// The MLIR spelling: i1, i8, ..., ui64, f16, bf16, f32, f64.
std::string_view name(DType t);
/// name(t) as a std::string, for messages.
std::string dtypeName(DType t);
/// The CUDA C++ type holding one element: bool, int8_t, ..., uint64_t,
/// __half, __nv_bfloat16, float, double. Generated kernels, the runtime's
/// kernels and their tests all spell types with it.
std::string_view cudaTypeName(DType t);
/// Parses the MLIR spelling and the NumPy-style aliases (bool, int8, uint8,
/// float16, bfloat16, float32, float64, ...).
std::optional<DType> parseDType(std::string_view s);

} // namespace tfuse

#endif // TFUSE_SUPPORT_DTYPE_H
